"""The compact BM25 and the packed passages a retriever holds (knowledge/bm25.py, packed.py)."""

from __future__ import annotations

import numpy as np
import pytest

from knowledge.bm25 import BM25Index, query_tokens, tokenize
from knowledge.guide_parser import load_corpus
from knowledge.packed import PackedRows, pack_rows
from knowledge.retrieval_eval import DEFAULT_QUESTIONS, load_questions
from knowledge.testing import GUIDES_DIR


@pytest.fixture(scope="module")
def documents() -> list[tuple[str, str]]:
    corpus = load_corpus(GUIDES_DIR)
    return [(c.search_text, c.language) for c in corpus.chunks]


def test_scores_are_bm25s_lucene_scores(documents: list[tuple[str, str]]) -> None:
    """Same numbers as bm25s (the library this replaced in memory) on every eval question."""
    bm25s = pytest.importorskip("bm25s")
    ours = BM25Index(documents)
    ref = bm25s.BM25()
    ref.index([tokenize(text, lang) or [""] for text, lang in documents], show_progress=False)
    for q in load_questions(DEFAULT_QUESTIONS):
        ids = [ref.vocab_dict[t] for t in query_tokens(q.q) if t and t in ref.vocab_dict]
        want = np.asarray(ref.get_scores_from_ids(ids), dtype=np.float32)
        got = ours.scores(q.q)
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=q.q)
        top = np.argsort(-want, kind="stable")[:10]
        assert np.argsort(-got, kind="stable")[:10].tolist() == top.tolist(), q.q


def test_index_edge_cases() -> None:
    assert BM25Index([]).scores("gpu").shape == (0,)
    docs = [("", "de"), ("die der das", "de"), ("GPU Speicher", "de"), ("the GPU", "en")]
    index = BM25Index(docs)
    scores = index.scores("gpu speicher")
    assert scores[0] == scores[1] == 0.0  # empty / stop words only: found by nothing
    assert scores[2] > scores[3] > 0.0  # two stems beat one
    assert not index.scores("").any() and not index.scores("der die").any()


def test_arrays_round_trip(documents: list[tuple[str, str]]) -> None:
    index = BM25Index(documents)
    again = BM25Index.from_arrays(index.arrays())
    for q in ("NVLink Bandbreite", "how much VRAM does FLUX need", "unbekanntwort"):
        np.testing.assert_array_equal(again.scores(q), index.scores(q))


def _rows() -> dict:
    return {
        "metadata": {"embedder": "e", "generation": "g1"},
        "ids": ["en/b#x/0", "de/a#/0", "de/a#sources/0", "de/a#x/1", "de/a#x/0"],
        "documents": ["Tensor parallel", "Einleitung", "[Link](https://x)", "Zwei", "Eins ä"],
        "metadatas": [
            {"language": "en", "guide": "b", "anchor": "x", "order": 0, "section": "X"},
            {"language": "de", "guide": "a", "anchor": "", "order": 0, "section": "A"},
            {"language": "de", "guide": "a", "anchor": "sources", "order": 3, "section": "Quellen"},
            {"language": "de", "guide": "a", "anchor": "x", "order": 2, "section": "X"},
            {"language": "de", "guide": "a", "anchor": "x", "order": 1, "section": "X"},
        ],
        "vectors": np.eye(5, dtype=np.float32),
    }


def test_packed_rows_sorted_with_their_columns() -> None:
    packed = pack_rows(_rows())
    assert len(packed) == 5
    ids = [packed.record(i)[0] for i in range(5)]
    assert ids == ["de/a#/0", "de/a#x/0", "de/a#x/1", "de/a#sources/0", "en/b#x/0"]
    assert packed.record(1) == ("de/a#x/0", "Eins ä", _rows()["metadatas"][4])
    # vectors follow their passages; read-only
    assert np.argmax(packed.vectors, axis=1).tolist() == [1, 4, 3, 2, 0]
    assert not packed.vectors.flags.writeable
    assert packed.lang.tolist() == ["de", "de", "de", "de", "en"]
    assert [packed.guide_names[g] for g in packed.guide] == ["a", "a", "a", "a", "b"]
    assert packed.section.tolist() == [0, 1, 1, 2, 3]  # (language, guide, anchor)
    assert packed.searchable.tolist() == [True, True, True, False, True]
    assert packed.intro.tolist() == [True, False, False, False, False]
    assert packed.bm25.scores("eins")[1] > 0


def test_packed_rows_round_trip_through_arrays() -> None:
    packed = pack_rows(_rows())
    again = PackedRows.from_arrays(packed.arrays())
    assert again.metadata == packed.metadata and again.guide_names == packed.guide_names
    assert [again.record(i) for i in range(5)] == [packed.record(i) for i in range(5)]
    for name in ("vectors", "lang", "guide", "section", "searchable", "intro"):
        np.testing.assert_array_equal(getattr(again, name), getattr(packed, name))
    np.testing.assert_array_equal(again.bm25.scores("zwei"), packed.bm25.scores("zwei"))


def test_snapshot_of_another_format_is_not_read(tmp_path) -> None:
    from knowledge.index import read_snapshot, snapshot_generation, write_snapshot

    path = tmp_path / "snap.npz"
    write_snapshot(_rows(), path)
    assert snapshot_generation(path) == "g1"
    got = read_snapshot(path, "g1")
    assert got is not None and got.record(0)[0] == "de/a#/0"
    assert read_snapshot(path, "g2") is None
    # the format before the packed one: texts and metadata as one JSON payload
    np.savez(path, generation=np.array("g1"), payload=np.zeros(3, np.uint8))
    assert snapshot_generation(path) is None and read_snapshot(path, "g1") is None


def test_dense_scores_in_blocks_equal_one_product() -> None:
    """The single-threaded blocks (knowledge.retrieval._similarities) give the plain product."""
    from knowledge.retrieval import _BLOCK_ELEMENTS, _similarities

    rng = np.random.default_rng(3)
    matrix = rng.normal(size=(3 * _BLOCK_ELEMENTS // 384 + 5, 384)).astype(np.float32)
    vec = rng.normal(size=384).astype(np.float32)
    np.testing.assert_allclose(_similarities(matrix, vec), matrix @ vec, rtol=1e-5, atol=1e-4)
    assert _similarities(matrix[:0], vec).shape == (0,)
