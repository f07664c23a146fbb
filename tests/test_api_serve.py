"""`sizing serve` as a real process, and keep-alive comments while an (LLM) answer is slow."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

pytest.register_assert_rewrite("tests.server", "tests.llm_server")

from api.sse import parse_sse  # noqa: E402
from tests.llm_server import ScriptedLLMServer, text  # noqa: E402
from tests.server import LiveServer  # noqa: E402

# fixtures: api_data_dir, api_settings, live_api, live_api_factory
pytest_plugins = ["tests.server"]

pytestmark = pytest.mark.server

ROOT = Path(__file__).resolve().parent.parent
SIZING = [sys.executable, "-c", "from cli import main; main()"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_sizing_serve_runs_the_app(api_data_dir: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "SLACK_"))}
    env.update(SIZING_DATA_DIR=str(api_data_dir), ANONYMIZED_TELEMETRY="False")
    proc = subprocess.Popen(
        [*SIZING, "serve", "--port", str(port), "--json", "--log-level", "warning"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first = json.loads(proc.stdout.readline())  # type: ignore[union-attr]
        assert first["port"] == port and first["urls"]["demo"] == f"http://127.0.0.1:{port}/"
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.stderr.read()  # type: ignore[union-attr]
            try:
                if httpx.get(f"http://127.0.0.1:{port}/readyz").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "sizing serve did not get ready"
            time.sleep(0.2)
        answer = httpx.post(f"http://127.0.0.1:{port}/api/chat", json={"message": "NVLink?"})
        assert answer.status_code == 200 and answer.json()["mode"] == "offline"

        # a second server on the same port: a clear message and exit code 2
        again = subprocess.run(
            [*SIZING, "serve", "--port", str(port)], cwd=ROOT, env=env, capture_output=True,
            text=True, timeout=60,
        )  # fmt: skip
        assert again.returncode == 2
        assert f"port {port}" in again.stderr and "already in use" in again.stderr
        assert "Traceback" not in again.stderr
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def test_slow_answers_get_keep_alive_comments(api_settings, live_api_factory) -> None:
    reply = "NVLink lohnt sich, wenn ein Modell auf mehrere Karten aufgeteilt wird."
    with ScriptedLLMServer([text(reply, delay_s=1.5), text(reply), text(reply)]) as llm:
        settings = api_settings(
            openai_api_key="test-key",
            openai_base_url=llm.base_url,
            llm_max_retries=0,
            llm_timeout_s=10,
            sse_ping_s=0.2,
        )
        server: LiveServer = live_api_factory(settings)
        started = time.monotonic()
        response = httpx.post(
            server.url + "/api/chat",
            json={"message": "Brauche ich NVLink?"},
            headers={"Accept": "text/event-stream"},
            timeout=60,
        )
        waited = time.monotonic() - started
    assert response.status_code == 200
    assert waited >= 1.5
    body = response.text
    pings = [line for line in body.splitlines() if line.startswith(":")]
    assert len(pings) >= 3, body[:500]  # comments every 0.2 s while the LLM is slow
    events = parse_sse(body)
    assert events[-1]["event"] == "done"
    answer = events[-1]["data"]["answer"]
    assert answer["mode"] in ("llm", "offline")
    assert len(llm.requests) >= 1  # the LLM was asked
    metrics = httpx.get(server.url + "/metrics").text
    surface = f'sizing_answers_total{{mode="{answer["mode"]}",surface="sse"}} 1.0'
    assert surface in metrics
    if answer["notice"]:  # fell back to the offline answer
        assert 'sizing_fallbacks_total{surface="sse"} 1.0' in metrics


# ------------------------------------------------ issue 14, finding 8: workers' logs, slow bodies


def test_every_worker_logs_to_stderr(api_data_dir: Path) -> None:
    """`--workers 2`: the app's log lines arrive from both worker processes (they were lost:
    only the parent had a handler)."""
    import re
    import threading

    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "SLACK_"))}
    env.update(SIZING_DATA_DIR=str(api_data_dir), ANONYMIZED_TELEMETRY="False")
    proc = subprocess.Popen(
        [*SIZING, "serve", "--port", str(port), "--workers", "2", "--log-level", "warning"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(proc.stderr.readline, "")))  # type: ignore[union-attr]
    reader.start()
    try:
        deadline = time.monotonic() + 180
        pids: set[str] = set()
        while len(pids) < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.5)
            pids = {
                m.group(1)
                for line in list(lines)
                if (m := re.search(r"api: worker (\d+) ready", line))
            }
        assert len(pids) == 2, "".join(lines[-20:])
        assert str(proc.pid) not in pids  # the workers, not the parent
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        reader.join(timeout=10)


def test_a_body_that_does_not_arrive_is_cut(api_settings, live_api_factory) -> None:
    """Headers and part of a body, then nothing: a 408 and a closed connection within the
    configured time (such connections stayed open for 120 s and more)."""
    server = live_api_factory(api_settings(request_body_timeout_s=1.0))
    with socket.create_connection(("127.0.0.1", server.port), timeout=15) as sock:
        sock.sendall(
            b"POST /api/chat HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
            b"Content-Length: 200\r\n\r\n" + b'{"message": "NVLink'
        )
        started = time.monotonic()
        received = b""
        while chunk := sock.recv(4096):  # until the server closes the connection
            received += chunk
        elapsed = time.monotonic() - started
    assert received.startswith(b"HTTP/1.1 408"), received[:200]
    assert b"request_timeout" in received
    assert 0.8 <= elapsed < 5, elapsed
    # a complete request on a new connection is still answered
    assert httpx.post(server.url + "/api/chat", json={"message": "NVLink?"}).status_code == 200
