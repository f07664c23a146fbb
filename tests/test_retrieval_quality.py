"""Retrieval quality gate: hybrid recall@3 over evals/retrieval/questions.yaml must be >= 0.9."""

from collections import Counter
from pathlib import Path

import pytest

from knowledge.guide_parser import load_corpus
from knowledge.retrieval import open_retriever
from knowledge.retrieval_eval import DEFAULT_QUESTIONS, evaluate, load_questions
from knowledge.testing import GUIDES_DIR, build_shipped_index, pytest_cache_dir

GATE_RECALL_AT_3 = 0.9


@pytest.fixture(scope="module")
def scores(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest):
    data: Path = tmp_path_factory.mktemp("quality-index")
    build_shipped_index(data, cache_dir=pytest_cache_dir(request))
    retriever = open_retriever(data)
    return evaluate(retriever, load_questions())


def test_question_set_is_well_formed() -> None:
    questions = load_questions(DEFAULT_QUESTIONS)
    assert len(questions) >= 60
    langs = Counter(q.lang for q in questions)
    assert langs["de"] >= 20 and langs["en"] >= 20
    cross = [q for q in questions if q.lang == "en" and q.search_lang == "de"]
    assert len(cross) >= 8
    # every expected section exists in the shipped corpus, in the language searched
    corpus = load_corpus(GUIDES_DIR)
    anchors = {(g.language, g.slug, s.anchor) for g in corpus.guides for s in g.sections}
    for q in questions:
        for lang in [q.search_lang] if q.search_lang else ["de", "en"]:
            for a in q.anchors:
                assert (lang, q.guide, a) in anchors, f"{q.q!r}: no section {lang}/{q.guide}#{a}"
    assert {q.guide for q in questions} == {g.slug for g in corpus.guides}


def test_hybrid_recall_at_3_gate(scores) -> None:
    hybrid = scores["hybrid"]
    summary = {m: s.as_dict(with_misses=False) for m, s in scores.items()}
    print("\nretrieval quality:", summary)
    assert hybrid.recall_at_3 >= GATE_RECALL_AT_3, (summary, hybrid.misses)


def test_hybrid_is_not_worse_than_either_part(scores) -> None:
    hybrid, dense, bm25 = scores["hybrid"], scores["dense"], scores["bm25"]
    assert hybrid.mrr >= min(dense.mrr, bm25.mrr)
    assert hybrid.recall_at_3 >= min(dense.recall_at_3, bm25.recall_at_3)
