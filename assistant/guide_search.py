"""Guide search that degrades instead of failing (issue 14, finding 2).

When the embedder will not take a query now (its lane is busy, or the asking client used its
share: `knowledge.retrieval.DenseUnavailable`), the passages are ranked by keywords alone (BM25
over the same index) and the answer's `notice` says so. The search_guides tool call records it
as `ranking: "keywords"`.
"""

from __future__ import annotations

import logging
from typing import Any

from assistant.answer import Answer
from knowledge.errors import DenseUnavailable

log = logging.getLogger("assistant.guide_search")

KEYWORDS_ONLY = "keywords"  # the search_guides call's `ranking` when BM25 alone ranked it
NOTICE = {
    "en": "The search engine is busy right now: the guide passages were found by keywords only.",
    "de": "Die Suche ist gerade ausgelastet: Die Guide-Abschnitte wurden nur über Stichwörter "
    "gefunden.",
}


def search(index: Any, query: str, **kwargs: Any) -> tuple[list[Any], bool]:
    """(passages, keywords_only): the index's hybrid search, or BM25 alone when the embedder
    is unavailable for this query."""
    try:
        return list(index.search(query, **kwargs)), False
    except DenseUnavailable as exc:
        log.info("guide search by keywords only: %s", exc)
        return list(index.search(query, mode="bm25", **kwargs)), True


def with_notice(answer: Answer) -> Answer:
    """The answer with the keyword-search notice when one of its searches was keywords only."""
    if not any(c.arguments.get("ranking") == KEYWORDS_ONLY for c in answer.tool_calls):
        return answer
    note = NOTICE.get(answer.language, NOTICE["en"])
    if answer.notice and note in answer.notice:
        return answer
    notice = f"{answer.notice} {note}" if answer.notice else note
    return answer.model_copy(update={"notice": notice})
