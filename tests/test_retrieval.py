"""Hybrid retrieval over the shipped corpus, on a real embedded Chroma index.

tests/test_chroma_server.py runs these same tests against a real `chroma run` server by
providing its own `retriever` fixture.
"""

import threading
from pathlib import Path

import pytest

from knowledge.retrieval import Passage, Retriever, UnknownGuide, open_retriever
from knowledge.testing import build_shipped_index, pytest_cache_dir


@pytest.fixture(scope="session")
def shipped_index_dir(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Path:
    data = tmp_path_factory.mktemp("shipped-index")
    report = build_shipped_index(data, cache_dir=pytest_cache_dir(request))
    assert not report.errors, report.errors
    return data


@pytest.fixture(scope="module")
def retriever(shipped_index_dir: Path) -> Retriever:
    return open_retriever(shipped_index_dir)


def test_pipeline_question_finds_the_pipeline_section_first(retriever: Retriever) -> None:
    top = retriever.search("brauche ich nvlink für pipeline-parallelismus", k=3)
    assert top[0].guide == "nvlink-vs-pcie"
    assert top[0].anchor == "pipeline-parallelism"
    assert top[0].url == "https://gpuserver.io/de/guides/nvlink-vs-pcie/#pipeline-parallelism"
    assert top[0].language == "de"
    assert "Mikro-Batch" in top[0].text


def test_results_carry_everything_a_citation_needs(retriever: Retriever) -> None:
    results = retriever.search("NVLink bandwidth per card B200", k=5)
    assert 1 <= len(results) <= 5
    for p in results:
        assert isinstance(p, Passage)
        assert p.text and p.title and p.section and p.guide and p.id
        assert p.url.startswith(f"https://gpuserver.io/{p.language}/guides/{p.guide}/")
        assert p.url.endswith(f"#{p.anchor}") if p.anchor else "#" not in p.url
        assert p.heading_path[-1] == p.section or p.section in p.heading_path
    scores = [p.score for p in results]
    assert scores == sorted(scores, reverse=True)
    # one passage per section
    keys = [(p.language, p.guide, p.anchor) for p in results]
    assert len(keys) == len(set(keys))


def test_language_and_guide_filters(retriever: Retriever) -> None:
    en = retriever.search("tensor parallelism all-reduce", k=5, language="en")
    assert en and {p.language for p in en} == {"en"}
    only = retriever.search("KV cache", k=5, guide="mixture-of-experts")
    assert only and {p.guide for p in only} == {"mixture-of-experts"}
    both = retriever.search("KV cache", k=5, guide="awq-vs-gptq-vs-fp8", language="de")
    assert both and {(p.guide, p.language) for p in both} == {("awq-vs-gptq-vs-fp8", "de")}


def test_english_question_finds_the_german_passage(retriever: Retriever) -> None:
    top = retriever.search("do I need NVLink for pipeline parallelism", k=3, language="de")
    assert top[0].anchor == "pipeline-parallelism" and top[0].language == "de"
    top = retriever.search("How much VRAM does DeepSeek V3 need in FP8?", k=3, language="de")
    assert any(p.guide == "mixture-of-experts" for p in top)


def test_dense_and_bm25_modes(retriever: Retriever) -> None:
    dense = retriever.search("Wie viel VRAM braucht FLUX.1 in BF16?", k=3, mode="dense")
    bm25 = retriever.search("Wie viel VRAM braucht FLUX.1 in BF16?", k=3, mode="bm25")
    assert dense and bm25
    assert all(-1.0 <= p.score <= 1.0 for p in dense)  # cosine similarity
    assert all(p.score > 0 for p in bm25)
    assert any(p.guide == "gpu-for-flux-sdxl" for p in dense[:1] + bm25[:1])


def test_source_lists_are_never_returned(retriever: Retriever) -> None:
    # words that only the bibliographies are full of (model cards, repositories, datasheets)
    q = "Quellen Model Card Hugging Face Repository arXiv Datenblätter"
    for mode in ("hybrid", "dense", "bm25"):
        for language in (None, "de", "en"):
            results = retriever.search(q, k=20, language=language, mode=mode)
            assert results, (mode, language)
            assert all(p.anchor != "sources" for p in results), (mode, language)
    only = retriever.search("sources", k=50, guide="awq-vs-gptq-vs-fp8", language="en")
    assert only and all(p.anchor != "sources" for p in only)


def test_the_guide_intro_counts_half_in_the_fusion(shipped_index_dir: Path) -> None:
    q = "Warum ist ein 4-Bit-Modell im Speicher größer als gedacht?"
    args = {"k": 30, "language": "de", "guide": "awq-vs-gptq-vs-fp8"}  # every section
    full = open_retriever(shipped_index_dir, intro_weight=1.0, refresh_s=None).search(q, **args)
    half = open_retriever(shipped_index_dir, refresh_s=None).search(q, **args)
    intro_full = next(p for p in full if p.anchor == "")
    intro_half = next(p for p in half if p.anchor == "")
    assert intro_half.score == pytest.approx(intro_full.score / 2, abs=1e-6)
    # the intro only announces the answer; the section that gives it now ranks above it
    rank = [p.anchor for p in half]
    assert rank.index("why-smallest-is-not-smallest") < rank.index("")
    assert {p.anchor: p.score for p in half if p.anchor} == {
        p.anchor: p.score for p in full if p.anchor
    }


def test_bad_arguments(retriever: Retriever) -> None:
    with pytest.raises(UnknownGuide) as info:
        retriever.search("nvlink", guide="no-such-guide")
    assert "nvlink-vs-pcie" in str(info.value)
    with pytest.raises(ValueError, match="language"):
        retriever.search("nvlink", language="fr")
    assert retriever.search("", k=3) == []
    assert retriever.search("nvlink", k=0) == []
    # words no passage contains still give dense results, without an error
    assert retriever.search("zzzqqq xyzzy", k=2)


def test_cached_repeat_and_concurrent_searches(retriever: Retriever) -> None:
    q = "Passt Qwen3 235B in FP8 auf 4x H100 SXM5?"
    first = retriever.search(q, k=3)
    assert retriever.search(q, k=3) == first
    assert retriever.search("  Passt Qwen3 235B in FP8   auf 4x H100 SXM5? ", k=3) == first
    errors: list[BaseException] = []
    results: list[list[Passage]] = []

    def work(question: str) -> None:
        try:
            results.append(retriever.search(question, k=3))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    questions = [q, "NVLink oder PCIe für Training?", "AWQ oder GPTQ?", "SDXL VRAM"] * 3
    threads = [threading.Thread(target=work, args=(x,)) for x in questions]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(results) == len(questions) and all(results)
