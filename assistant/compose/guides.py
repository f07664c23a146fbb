"""Guide flows and fallbacks: the general answer quoted from the best guide passage (retrieval,
pinned sections, the passage narrowed to its best part and quoted as an excerpt), and the
answers that ask back or decline: off topic, unknown model, which model.
"""

from __future__ import annotations

import dataclasses
import re
from decimal import Decimal
from typing import Any

from assistant.answer import ToolCall
from assistant.compose.base import ComposerBase
from assistant.compose.draft import Draft, log
from assistant.compose.intents import _PINNED, _topic_guide
from assistant.guide_search import KEYWORDS_ONLY, search
from assistant.nlu import Query
from assistant.texts import follow_up, t

# a pinned guide section that settles a yes/no question, and its answer: "Do four 24 GB cards
# add up to 96 GB for FLUX?" — no, each card holds the whole model; "Do MoE models need more
# memory than dense ones?" — yes, every expert is in memory
PINNED_VERDICTS: dict[tuple[str, str], bool] = {
    ("gpu-for-flux-sdxl", "many-cards"): False,
    ("mixture-of-experts", "short-answer"): True,
}


#: a family or series and at most its version ("Falcon", "qwen3", "Gemma 3"), not a model's
#: own name ("Llama 4 Behemoth" is a model the catalog lacks)
_FAMILY_ONLY_RX = re.compile(r"^[a-z][a-z-]*[\s-]*v?\d*(?:\.\d+)?$")


class GuidesMixin(ComposerBase):
    """Answers from the guides, and the answers that ask back."""

    # ------------------------------------------------------------------ flows

    def _off_topic(self, d: Draft, u: Query) -> None:
        d.add(t(d.lang, "off_topic"))
        d.suggest(follow_up(d.lang, "fit_example"))
        d.suggest(follow_up(d.lang, "nvlink_example"))
        d.suggest(follow_up(d.lang, "price_example"))

    def _unknown_model(self, d: Draft, u: Query) -> None:
        name = u.unknown_model or ""
        if u.unknown_model_closest and not u.params_b and _FAMILY_ONLY_RX.match(name.lower()):
            self._which_of_family(d, u, name)  # "Falcon", "qwen3", "Gemma 3": no model yet
            return
        d.add(t(d.lang, "unknown_model", name=name))
        if u.unknown_model_closest:
            d.add(t(d.lang, "unknown_model_closest", names=", ".join(u.unknown_model_closest)))
        if u.params_b:
            p = f"{u.params_b:g}"
            example = follow_up(d.lang, "size_params", params=p)
            d.add(t(d.lang, "unknown_model_offer_params", params=p, example=example))
            d.suggest(example)
        else:
            example = follow_up(d.lang, "size_params", params="70")
            d.add(t(d.lang, "unknown_model_offer", example=example))
        d.suggest(follow_up(d.lang, "fit_example"))

    def _which_of_family(self, d: Draft, u: Query, name: str) -> None:
        """ "Can I run Falcon on an A100?", "does qwen3 run on a 4090?": a family or series named
        without its size; the catalog's models of it are offered to pick from (chips), never a
        size guessed."""
        names = u.unknown_model_closest[:4]
        d.add(t(d.lang, "which_of_family", name=name, names=", ".join(names)))
        where = self._hardware_said(d, u)
        for model in names:
            key = "fits_on" if where else "fits_where"
            d.suggest(follow_up(d.lang, key, model=model, label=where or ""))

    def _hardware_said(self, d: Draft, u: Query) -> str | None:
        """The hardware a question named, as a chip can say it ("1 × NVIDIA L4", "A100")."""
        if u.configurations:
            return d.label(u.configurations[0])
        if u.cards and u.cards[0] in self.deps.catalog.gpus:
            return str(self.deps.catalog.gpus[u.cards[0]].short_name)
        return u.card_families[0].upper() if u.card_families else None

    def _ask_model(self, d: Draft, u: Query) -> None:
        d.add(f"**{t(d.lang, 'ask_model')}**")
        d.add(t(d.lang, "general_rule_title"))
        advice = self._advice(d, fits_one_card=True)
        self._add_advice(d, advice, with_also=False)
        d.suggest(follow_up(d.lang, "fit_example"))
        d.suggest(follow_up(d.lang, "nvlink_example"))

    # ---- general: retrieval
    def _general(self, d: Draft, u: Query) -> None:
        passages = self._search(d, u)
        if not passages:
            d.add(t(d.lang, "general_none"))
            d.suggest(follow_up(d.lang, "fit_example"))
            d.suggest(follow_up(d.lang, "nvlink_example"))
            return
        top = passages[0]
        sections = self.deps.guides
        if len(str(top.text)) < 200 and sections is not None and bool(getattr(top, "anchor", "")):
            # a one-line chunk (a section's closing sentence): quote the section's body
            parts = sections.chunks(top.guide, top.anchor, d.lang)
            joined = "\n\n".join(str(p.text) for p in parts)
            if parts and len(joined) > len(str(top.text)):
                top = dataclasses.replace(parts[0], text=joined)
        title = str(top.title).rstrip(".")
        where = title if top.section in (top.title, title) else f"{title} › {top.section}"
        d.add(t(d.lang, "general_intro") + f" **[{where}]({top.url})**")
        excerpt = _excerpt(_best_part(top.text, u.question))
        self._quote_prices(d, excerpt)
        d.add(excerpt + d.cite_passage(top))
        more = [p for p in passages[1:3] if p.section != top.section]
        if more:
            links = ", ".join(f"[{p.section}]({p.url}){d.cite_passage(p)}" for p in more)
            d.add(t(d.lang, "read_more", links=links))
        d.suggest(follow_up(d.lang, "fit_example"))
        d.suggest(follow_up(d.lang, "nvlink_example"))

    def _quote_prices(self, d: Draft, text: str) -> None:
        """A quoted passage that states monthly prices: list the configurations they belong to
        (the catalog's exact price), so the prices the answer shows are all accounted for."""
        from assistant.grounding import number_candidates

        configs = self.deps.catalog.configurations
        for m in re.finditer(r"\$\s?(\d+(?:[.,]\d+)*)\s*/\s*(?:Monat|month)", text, re.I):
            values = {v for v, _ in number_candidates(m.group(1))}
            for c in configs.values():
                if Decimal(c.usd_per_month) in values and not c.placeholder:
                    d.price(c.id)

    def _pinned_passage(self, d: Draft, question: str) -> Any:
        """A few questions name their guide section outright (see _PINNED): quote that one."""
        sections = self.deps.guides
        if sections is None:
            return None
        q = question.lower()
        for rx, guide, anchor, contains in _PINNED:
            if re.search(rx, q):
                # the section's own answer to a yes/no question it settles
                verdict = PINNED_VERDICTS.get((guide, anchor))
                if verdict is not None and re.search(
                    r"\b(?:less|fewer|smaller|lower|weniger|"
                    r"kleiner|geringer)\b",
                    q,
                ):
                    verdict = not verdict  # "Do MoE models need *less* memory?"
                d.verdict = verdict if verdict is not None else d.verdict
                named = re.search(r"deepseek|mixtral|qwen", q)
                if anchor == "total-vs-active" and named:
                    contains = named.group(0)  # the paragraph about the model asked about
                return sections.section(guide, anchor, d.lang, contains)
        return None

    def _search(self, d: Draft, u: Query) -> list[Any]:
        index = self.deps.index
        passages: list[Any] = []
        pinned = self._pinned_passage(d, u.question)
        guide = _topic_guide(u.question)
        keywords_only = False
        if index is not None:
            try:
                if guide is not None:  # one guide is plainly about this: search it first
                    passages, keywords_only = search(
                        index, u.question, k=3, language=d.lang, guide=guide
                    )
                if not passages:
                    passages, keywords_only = search(index, u.question, k=3, language=d.lang)
            except Exception as exc:  # index missing / server down: fall back to keywords
                log.warning("retrieval failed, using keyword fallback: %s", exc)
        if not passages and self.deps.guides is not None:
            passages = self.deps.guides.keyword_search(u.question, d.lang, k=3)
        if len(passages) > 1 and not getattr(passages[0], "anchor", "x"):
            # a guide's introduction says what the guide covers, not the answer: quote the
            # best section instead and keep the introduction as a link
            passages = [*passages[1:], passages[0]]
        if pinned is not None:
            rest = [p for p in passages if getattr(p, "anchor", None) != pinned.anchor]
            passages = [pinned, *rest][:3]
        if passages:
            d.calls.append(
                ToolCall(
                    name="search_guides",
                    arguments={
                        "query": u.question,
                        "language": d.lang,
                        **({"ranking": KEYWORDS_ONLY} if keywords_only else {}),
                    },
                    result=[
                        {"guide": p.guide, "section": p.section, "url": p.url, "text": p.text}
                        for p in passages
                    ],
                )
            )
        return passages


def _terms(text: str) -> set[str]:
    """Content words and figures of a text (no function words)."""
    from assistant.nlu import FUNCTION_WORDS

    words = re.findall(r"[a-zäöüß0-9][a-zäöüß0-9._-]*", text.lower())
    out = {w.rstrip("._-") for w in words if len(w) >= 3 or any(c.isdigit() for c in w)}
    return out - FUNCTION_WORDS


def _best_part(text: str, question: str, limit: int = 700) -> str:
    """A long passage narrowed to the paragraph that shares the most terms with the question
    (numbers like '128K' count), so the quote holds the answer rather than the section's start.
    Short passages, code blocks and tables stay whole."""
    if len(text) <= limit or "```" in text:
        return text
    blocks = []
    for b in re.split(r"\n\s*\n", text):
        if b.strip():  # list items count one by one
            blocks += [i for i in re.split(r"\n(?=\s*(?:[-*]|\d+\.)\s)", b) if i.strip()]
    if len(blocks) < 2:
        return text
    q = _terms(question)
    scores = [len(q & _terms(b)) for b in blocks]
    best = max(range(len(blocks)), key=lambda i: (scores[i], -i))
    if scores[best] < 2:  # no paragraph stands out: the section's start
        return text
    # the best paragraph with its neighbours, as far as the quote's length allows
    lo = hi = best
    size = len(blocks[best])
    while True:
        grew = False
        if hi + 1 < len(blocks) and size + len(blocks[hi + 1]) + 2 <= limit:
            hi += 1
            size += len(blocks[hi]) + 2
            grew = True
        if lo > 0 and size + len(blocks[lo - 1]) + 2 <= limit:
            lo -= 1
            size += len(blocks[lo]) + 2
            grew = True
        if not grew:
            break
    out = blocks[lo]
    for prev, cur in zip(blocks[lo:hi], blocks[lo + 1 : hi + 1], strict=True):
        both_items = all(re.match(r"\s*(?:[-*]|\d+\.)\s", b) for b in (prev, cur))
        out += ("\n" if both_items else "\n\n") + cur
    return out


def _excerpt(text: str, limit: int = 700) -> str:
    """The passage (or its first paragraphs up to `limit` characters), quoted as a block."""
    paras = [p for p in re.split(r"\n\s*\n", text.strip()) if p.strip()]
    out: list[str] = []
    size = 0
    for p in paras:
        if out and size + len(p) > limit:
            items = re.split(r"\n(?=\s*(?:[-*]|\d+\.)\s)", p)
            if len(items) > 1:  # a long list: as many whole items as fit
                kept: list[str] = []
                for item in items:
                    if kept and size + len(item) > limit:
                        break
                    kept.append(item)
                    size += len(item)
                out.append("\n".join(kept))
            break
        out.append(p)
        size += len(p)
    lines = "\n\n".join(out).splitlines()
    return "\n".join(("> " + line) if line.strip() else ">" for line in lines)
