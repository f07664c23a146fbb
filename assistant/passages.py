"""Exact guide sections for citations: the passage a rule comes from, by (guide, anchor, language).

The offline composer knows which guide section backs each statement (the purchase rule, the
tensor-parallel section, the comparison table), so it cites that section directly instead of
hoping a search ranks it first. Sections are the same chunks the retrieval index holds (parsed by
`knowledge.guide_parser`), so ids, titles and URLs agree with search results.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class SectionPassage:
    """Passage-shaped (like knowledge.retrieval.Passage): what a Citation is built from."""

    id: str
    guide: str
    title: str
    section: str
    heading_path: tuple[str, ...]
    url: str
    language: str
    anchor: str
    text: str
    score: float = 1.0


class GuideSections:
    """All parsed guide chunks, looked up by guide slug, section anchor and language."""

    def __init__(self, chunks: list[Any]) -> None:
        self._by_key: dict[tuple[str, str, str], list[SectionPassage]] = {}
        self._memo: dict[tuple[str, ...], SectionPassage | None] = {}
        self.guides: dict[tuple[str, str], str] = {}  # (guide, language) -> title
        for c in chunks:
            p = SectionPassage(
                id=str(c.id),
                guide=str(c.guide),
                title=str(c.title),
                section=str(c.section),
                heading_path=tuple(c.heading_path),
                url=str(c.url),
                language=str(c.language),
                anchor=str(c.anchor),
                text=str(c.text),
            )
            self._by_key.setdefault((p.guide, p.anchor, p.language), []).append(p)
            self.guides.setdefault((p.guide, p.language), p.title)

    @classmethod
    def load(cls, folder: Path) -> GuideSections:
        """Parse the corpus; a broken guide is skipped (the index reports it), never fatal."""
        from knowledge.guide_parser import load_corpus

        folder = Path(folder)
        if not folder.exists():
            return cls([])
        return cls(load_corpus(folder).chunks)

    def chunks(self, guide: str, anchor: str, language: str) -> list[SectionPassage]:
        """All chunks of a section in `language` (falling back to the other language)."""
        for lang in (language, "en" if language == "de" else "de"):
            found = self._by_key.get((guide, anchor, lang))
            if found:
                return list(found)
        return []

    def __len__(self) -> int:
        return sum(len(v) for v in self._by_key.values())

    def section(
        self, guide: str, anchor: str, language: str, contains: str | None = None
    ) -> SectionPassage | None:
        key = ("section", guide, anchor, language, contains or "")
        if key not in self._memo:
            self._memo[key] = self._section(guide, anchor, language, contains)
        return self._memo[key]

    def _section(
        self, guide: str, anchor: str, language: str, contains: str | None = None
    ) -> SectionPassage | None:
        """The section's passage in `language` (falling back to the other language). With
        `contains` (a regex), the chunk of the section that matches it, quoted narrowly: the
        matching paragraph or list item instead of the whole section."""
        for lang in (language, "en" if language == "de" else "de"):
            chunks = self._by_key.get((guide, anchor, lang))
            if not chunks:
                continue
            if contains is None:
                return chunks[0]
            rx = re.compile(contains, re.IGNORECASE | re.MULTILINE)
            for chunk in chunks:
                part = _matching_part(chunk.text, rx)
                if part is not None:
                    return SectionPassage(**{**chunk.__dict__, "text": part})
            return chunks[0]
        return None

    def find(self, guide: str, language: str, pattern: str) -> SectionPassage | None:
        key = ("find", guide, language, pattern)
        if key not in self._memo:
            self._memo[key] = self._find(guide, language, pattern)
        return self._memo[key]

    def _find(self, guide: str, language: str, pattern: str) -> SectionPassage | None:
        """The first passage of a guide (in `language`, else the other) matching `pattern`,
        narrowed to the matching paragraph, list item or table."""
        rx = re.compile(pattern, re.IGNORECASE | re.MULTILINE)
        for lang in (language, "en" if language == "de" else "de"):
            for (g, _anchor, lg), chunks in self._by_key.items():
                if g != guide or lg != lang:
                    continue
                for chunk in chunks:
                    part = _matching_part(chunk.text, rx)
                    if part is not None:
                        return SectionPassage(**{**chunk.__dict__, "text": part})
        return None

    def about(self, guide: str, language: str, names: list[str]) -> SectionPassage | None:
        """The sub-section of a guide headed by a model's name ("### DeepSeek V3", "### SD 3.5"):
        a heading contained in one of `names` (compared without spaces and punctuation: "SD 3.5"
        in "sd 3.5 large"), else the one heading that shares the names' first word (the
        family: "DeepSeek V3" for DeepSeek R1). None when no heading names it."""
        key = ("about", guide, language, *names)
        if key not in self._memo:
            self._memo[key] = self._about(guide, language, names)
        return self._memo[key]

    def _about(self, guide: str, language: str, names: list[str]) -> SectionPassage | None:
        wanted = [_squash(n) for n in names if _squash(n)]
        families = {n.lower().split()[0] for n in names if n.split()}
        for lang in (language, "en" if language == "de" else "de"):
            subs = [
                chunks[0]
                for (g, _a, lg), chunks in self._by_key.items()
                if g == guide and lg == lang and len(chunks[0].heading_path) > 1
            ]
            named = [p for p in subs if any(_squash(p.section) in w for w in wanted)]
            if named:
                return named[0]
            kin = [
                p
                for p in subs
                if p.section.lower().split()[:1] and p.section.lower().split()[0] in families
            ]
            if len(kin) == 1:
                return kin[0]
        return None

    def keyword_search(self, query: str, language: str, k: int = 3) -> list[SectionPassage]:
        """Fallback search when the index is unavailable: word overlap with title and text."""
        q = _words(query)
        if not q:
            return []
        scored: list[tuple[float, SectionPassage]] = []
        for (_g, _a, lang), chunks in self._by_key.items():
            if lang != language:
                continue
            for c in chunks:
                title = _words(c.section)
                body = _words(c.text)
                score = 2 * len(q & title) + len(q & body)
                if score:
                    scored.append((score / (1 + len(body) ** 0.5 / 10), c))
        scored.sort(key=lambda x: -x[0])
        return [c for _, c in scored[:k]]


def _matching_part(text: str, rx: re.Pattern[str]) -> str | None:
    """The paragraph, list item or table (with its header) of `text` that matches `rx`."""
    blocks = re.split(r"\n\s*\n", text)
    for block in blocks:
        if not rx.search(block):
            continue
        lines = block.splitlines()
        if lines and lines[0].lstrip().startswith("|"):
            return block  # keep a table whole (header + rows)
        items = [ln for ln in lines if re.match(r"\s*(?:[-*+]|\d+[.)])\s", ln)]
        if items and len(items) == len(lines):
            hits = [ln for ln in lines if rx.search(ln)]
            return "\n".join(hits)
        return block
    return None


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-zäöüß0-9]{3,}", text.lower()) if w not in _STOP}


_STOP = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "what",
        "how",
        "does",
        "need",
        "can",
        "you",
        "ich",
        "und",
        "für",
        "mit",
        "was",
        "wie",
        "ist",
        "eine",
        "einer",
        "der",
        "die",
        "das",
        "den",
        "dem",
        "nicht",
        "are",
        "which",
        "this",
        "that",
        "von",
        "auf",
        "bei",
        "oder",
    ]
)


def _squash(text: str) -> str:
    """Lower case without spaces and punctuation: "SD 3.5" -> "sd35"."""
    return re.sub(r"[^0-9a-z]+", "", text.lower())
