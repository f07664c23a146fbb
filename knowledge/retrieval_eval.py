"""The retrieval quality gate: recall@3 and MRR over evals/retrieval/questions.yaml.

Each question names the guide and the section anchor(s) that answer it. A question may carry
``search_lang`` to restrict the search to one language's passages: an English question with
``search_lang: de`` must find the German passage (cross-language retrieval).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from knowledge.retrieval import Retriever, SearchMode

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_QUESTIONS = ROOT / "evals" / "retrieval" / "questions.yaml"
MODES: tuple[SearchMode, ...] = ("dense", "bm25", "hybrid")


class QuestionSetError(ValueError):
    pass


@dataclass(frozen=True)
class Question:
    q: str
    guide: str
    anchors: tuple[str, ...]
    lang: str
    search_lang: str | None = None


@dataclass
class ModeScore:
    mode: str
    n: int = 0
    recall_at_1: float = 0.0
    recall_at_3: float = 0.0
    mrr: float = 0.0
    ms_per_query: float = 0.0
    misses: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self, with_misses: bool = True) -> dict[str, Any]:
        d = {
            "mode": self.mode,
            "n": self.n,
            "recall_at_1": round(self.recall_at_1, 4),
            "recall_at_3": round(self.recall_at_3, 4),
            "mrr": round(self.mrr, 4),
            "ms_per_query": round(self.ms_per_query, 2),
        }
        if with_misses:
            d["misses"] = self.misses
        return d


def load_questions(path: Path = DEFAULT_QUESTIONS) -> list[Question]:
    try:
        raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise QuestionSetError(f"{path}: cannot read the question set: {exc}") from None
    items = raw.get("questions") if isinstance(raw, dict) else raw
    if not isinstance(items, list):
        raise QuestionSetError(f"{path}: expected a list under 'questions'")
    out = []
    for n, item in enumerate(items, start=1):
        try:
            anchors = [item["anchor"], *(item.get("alt") or [])]
            out.append(
                Question(
                    q=str(item["q"]),
                    guide=str(item["guide"]),
                    anchors=tuple(str(a) for a in anchors),
                    lang=str(item.get("lang", "de")),
                    search_lang=item.get("search_lang"),
                )
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise QuestionSetError(f"{path}: question {n} is missing {exc}") from None
    return out


def evaluate(
    retriever: Retriever,
    questions: list[Question],
    modes: tuple[SearchMode, ...] = MODES,
    depth: int = 10,
) -> dict[str, ModeScore]:
    """recall@1, recall@3 and MRR (over the top `depth`) for each search mode."""
    scores: dict[str, ModeScore] = {}
    for mode in modes:
        s = ModeScore(mode, n=len(questions))
        hits1 = hits3 = 0
        rr = 0.0
        elapsed = 0.0
        for q in questions:
            retriever.embed_query(q.q)  # embedding time is not what this measures
            t = time.perf_counter()
            results = retriever.search(q.q, k=depth, language=q.search_lang, mode=mode)
            elapsed += time.perf_counter() - t
            rank = next(
                (
                    i
                    for i, p in enumerate(results, start=1)
                    if p.guide == q.guide and p.anchor in q.anchors
                ),
                None,
            )
            if rank is not None:
                rr += 1.0 / rank
                hits1 += rank == 1
                hits3 += rank <= 3
            if rank is None or rank > 3:
                s.misses.append(
                    {
                        "q": q.q,
                        "expected": f"{q.guide}#{'|'.join(q.anchors)}",
                        "rank": rank,
                        "got": [f"{p.language}/{p.guide}#{p.anchor}" for p in results[:3]],
                    }
                )
        n = max(len(questions), 1)
        s.recall_at_1, s.recall_at_3, s.mrr = hits1 / n, hits3 / n, rr / n
        s.ms_per_query = 1000 * elapsed / n
        scores[mode] = s
    return scores
