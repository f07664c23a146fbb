"""The same retrieval tests against a real Chroma server (`chroma run`), via SIZING_CHROMA_URL."""

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from knowledge.retrieval import Retriever, open_retriever
from knowledge.testing import build_shipped_index, pytest_cache_dir

# the retrieval tests, collected here a second time with this module's `retriever` fixture
from tests.test_retrieval import (  # noqa: F401
    test_bad_arguments,
    test_cached_repeat_and_concurrent_searches,
    test_dense_and_bm25_modes,
    test_english_question_finds_the_german_passage,
    test_language_and_guide_filters,
    test_pipeline_question_finds_the_pipeline_section_first,
    test_results_carry_everything_a_citation_needs,
)

pytestmark = pytest.mark.server


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _chroma_cli() -> str:
    exe = Path(sys.executable).parent / "chroma"
    found = str(exe) if exe.exists() else shutil.which("chroma")
    if not found:
        pytest.fail("the `chroma` CLI (shipped with the chromadb wheel) is not installed")
    return found


@pytest.fixture(scope="module")
def chroma_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    path = tmp_path_factory.mktemp("chroma-server")
    port = _free_port()
    log = (path / "server.log").open("wb")
    env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
    proc = subprocess.Popen(
        [
            _chroma_cli(),
            "run",
            "--path",
            str(path / "db"),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            if proc.poll() is not None:
                tail = (path / "server.log").read_text(errors="replace")[-2000:]
                pytest.fail(f"chroma run exited with {proc.returncode}: {tail}")
            try:
                if httpx.get(f"{url}/api/v2/heartbeat", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("chroma run did not answer its heartbeat within 90 s")
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.fixture(scope="module")
def retriever(chroma_url: str, tmp_path_factory: pytest.TempPathFactory, request) -> Retriever:
    unused = tmp_path_factory.mktemp("unused-data-dir")
    report = build_shipped_index(unused, cache_dir=pytest_cache_dir(request), chroma_url=chroma_url)
    assert report.location == chroma_url and report.passages > 100 and not report.errors
    assert not (unused / "chroma").exists()  # nothing went to the embedded store
    again = build_shipped_index(unused, chroma_url=chroma_url)
    assert (
        again.embedded == 0 and again.unchanged == report.passages
    )  # idempotent on the server too
    return open_retriever(unused, chroma_url=chroma_url)


def test_cli_uses_sizing_chroma_url(
    chroma_url: str, retriever: Retriever, tmp_path: Path, monkeypatch
) -> None:
    import json

    from typer.testing import CliRunner

    from cli import app

    monkeypatch.setenv("SIZING_CHROMA_URL", chroma_url)
    monkeypatch.setenv("SIZING_DATA_DIR", str(tmp_path))
    res = CliRunner().invoke(
        app, ["search", "brauche ich nvlink für pipeline-parallelismus", "--json"]
    )
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)[0]["anchor"] == "pipeline-parallelism"


def test_unreachable_server_is_a_clear_error(tmp_path: Path, monkeypatch) -> None:
    import json

    from typer.testing import CliRunner

    from cli import app

    monkeypatch.setenv("SIZING_CHROMA_URL", f"http://127.0.0.1:{_free_port()}")
    monkeypatch.setenv("SIZING_DATA_DIR", str(tmp_path))
    res = CliRunner().invoke(app, ["search", "nvlink", "--json"])
    assert res.exit_code == 2
    assert (
        "Chroma" in json.loads(res.stdout)["error"] or "chroma" in json.loads(res.stdout)["error"]
    )
