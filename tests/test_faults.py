"""Issue 27: the faults an operator meets. No internals in responses (an upstream error that
echoes the API key, a store's URL)."""

from __future__ import annotations

import asyncio
import json
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.register_assert_rewrite("tests.server")

from tests.llm_server import ScriptedLLMServer, delay, status  # noqa: E402
from tests.server import LiveServer, make_settings  # noqa: E402

pytest_plugins = ["tests.server", "tests.pg"]

QUESTION = "Does Llama 3.3 70B in FP8 fit on 2x H100 SXM5?"
QUESTIONS = [
    QUESTION,
    "Passt Qwen 2.5 72B in FP16 auf 4x A100 80GB?",
    "What does 8x H200 cost per month?",
    "How much memory does Mistral 7B need in BF16?",
]
SECRET_KEY = "sk-live-h27SECRETkey0123456789"
UPSTREAM = f"Incorrect API key provided: {SECRET_KEY}. You can find your API key at https://x"


@pytest.mark.server
def test_an_upstream_error_that_echoes_the_key_reaches_no_client(
    api_settings: Callable[..., Any], live_api_factory: Callable[..., LiveServer]
) -> None:
    script = [status(401, UPSTREAM) for _ in range(40)]
    with ScriptedLLMServer(script) as llm:
        settings = api_settings(
            openai_api_key=SECRET_KEY,
            openai_base_url=llm.base_url,
            llm_model="scripted-model",
            llm_max_retries=0,
            llm_timeout_s=5.0,
        )
        server = live_api_factory(settings)
        with httpx.Client(base_url=server.url, timeout=30) as client:
            answer = client.post("/api/chat", json={"message": QUESTION})
            stream = client.post(
                "/api/chat", json={"message": QUESTION}, headers={"accept": "text/event-stream"}
            )
            v1 = client.post(
                "/v1/chat/completions",
                json={
                    "model": "sizing-assistant",
                    "messages": [{"role": "user", "content": QUESTION}],
                },
            )
        assert llm.requests, "the provider was asked"
    assert answer.status_code == stream.status_code == v1.status_code == 200
    for body in (answer.text, stream.text, v1.text):
        assert SECRET_KEY not in body
        assert "Incorrect API key" not in body
    attempts = answer.json()["attempts"]
    assert attempts and {a["outcome"] for a in attempts} <= {"unavailable", "invalid"}
    assert {a["detail"] for a in attempts} <= {
        "the language model was unavailable",
        "the language model's reading was not valid",
    }
    sizing = v1.json()["sizing"]
    assert [a["detail"] for a in sizing["attempts"]] == [a["detail"] for a in attempts]
    done = [line for line in stream.text.splitlines() if line.startswith("data:")][-1]
    assert json.loads(done[5:])["answer"]["attempts"] == attempts


# ---------------------------------------------------------------- a dead PostgreSQL


def _answers_at_once(url: str, clients: int, each: int) -> list[float]:
    """`clients` threads asking `each` questions; every answer's seconds (all must be 200)."""
    seconds: list[float] = []
    lock = threading.Lock()

    def client(n: int) -> None:
        with httpx.Client(base_url=url, timeout=60) as http:
            for i in range(each):
                started = time.monotonic()
                r = http.post("/api/chat", json={"message": QUESTIONS[(n + i) % len(QUESTIONS)]})
                took = time.monotonic() - started
                assert r.status_code == 200, r.text
                with lock:
                    seconds.append(took)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seconds) == clients * each
    return seconds


@pytest.mark.server
def test_a_stopped_postgres_fails_fast_and_the_service_recovers_without_a_restart(
    api_settings: Callable[..., Any],
    live_api_factory: Callable[..., LiveServer],
    stoppable_postgres: Any,
) -> None:
    pg = stoppable_postgres
    settings = api_settings(
        database_url=pg.url,
        feedback_api_token="review-token",
        rate_limit_per_minute=6000,  # the shared buckets live in PostgreSQL too
        rate_limit_burst=1000,
    )
    server = live_api_factory(settings)
    review = {"authorization": "Bearer review-token"}
    with httpx.Client(base_url=server.url, timeout=30) as client:
        first = client.post("/api/chat", json={"message": QUESTION}).json()
        assert client.get("/readyz").status_code == 200
        assert client.get("/api/feedback", headers=review).status_code == 200

        pg.stop()
        started = time.monotonic()
        ready = client.get("/readyz")
        assert ready.status_code == 503 and time.monotonic() - started < 1.0
        assert not ready.json()["checks"]["sessions"]["ok"]
        listing = client.get("/api/feedback", headers=review)
        assert listing.status_code == 503, listing.text
        assert listing.headers["x-content-type-options"] == "nosniff"  # the security headers
        vote = {"session_id": first["session_id"], "message_id": first["message_id"]}
        posted = client.post("/api/feedback", json={**vote, "rating": "up"})
        assert posted.status_code == 503, posted.text
        for body in (ready.text, listing.text, posted.text):
            assert pg.url not in body and "host=" not in body and ".s.PGSQL" not in body
            assert "postgres:" not in body and "/tmp/" not in body

        seconds = sorted(_answers_at_once(server.url, clients=8, each=4))
        p50 = seconds[len(seconds) // 2]
        assert p50 <= 0.5, seconds
        started = time.monotonic()
        assert client.get("/readyz").status_code == 503
        assert time.monotonic() - started < 1.0

        pg.start()
        deadline = time.monotonic() + 15
        while client.get("/readyz").status_code != 200:
            assert time.monotonic() < deadline, client.get("/readyz").text
            time.sleep(0.2)
        assert client.get("/api/feedback", headers=review).status_code == 200
        follow = client.post(
            "/api/chat", json={"message": "And on an H200?", "session_id": first["session_id"]}
        ).json()
        assert "Llama 3.3 70B" in follow["answer"]  # the history is read again
        assert client.post("/api/feedback", json={**vote, "rating": "up"}).status_code == 201


# ---------------------------------------------------------------- a hanging LLM provider


def _concurrent_answers(url: str, n: int) -> tuple[list[float], list[str]]:
    """`n` opening questions at once, each on its own connection, from one asyncio loop (a
    light client: forty httpx clients in threads cost the shared process, server included,
    seconds of their own): each one's seconds and mode (or HTTP status)."""

    async def ask(client: httpx.AsyncClient, i: int) -> tuple[float, str]:
        started = time.monotonic()
        r = await client.post("/api/chat", json={"message": QUESTIONS[i % len(QUESTIONS)]})
        mode = r.json()["mode"] if r.status_code == 200 else str(r.status_code)
        return time.monotonic() - started, mode

    async def all_at_once() -> list[tuple[float, str]]:
        limits = httpx.Limits(max_connections=n, max_keepalive_connections=0)
        async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as client:
            return await asyncio.gather(*(ask(client, i) for i in range(n)))

    results = asyncio.run(all_at_once())
    return sorted(s for s, _ in results), [m for _, m in results]


@pytest.mark.server
def test_a_hanging_provider_at_40_concurrent_requests_costs_at_most_the_deadline(
    api_settings: Callable[..., Any], live_api_factory: Callable[..., LiveServer]
) -> None:
    """40 requests at once on 8 answer slots (harsher than the default 32: five waves); the
    provider never answers in time. The breaker is kept closed (a high threshold), so only the
    request's deadline bounds the answers: it counts from the request's arrival, so a request
    that waited for a slot has that much less left (before issue 27 each wave waited a whole
    deadline for a slot and then its own: ~5 deadlines for the last).

    The bound is the deadline + 1 s + what 40 offline answers at once cost on this machine
    (measured first, in the same process and with the same light client: the clients, the
    server and the provider share its cores; these repeated questions are kept answers, so it
    is ~0.1 s: measured 2.82 s against a 2.5 s deadline at load 3.6, offline 0.07 s).
    bench/bench_llm_hang.py measures 40 on the default 32 slots, the server in a process of
    its own."""
    offline = live_api_factory(api_settings())
    _concurrent_answers(offline.url, 4)  # warm
    offline_s, _ = _concurrent_answers(offline.url, 40)
    deadline_s = 2.5
    script = [delay(10) for _ in range(200)]
    with ScriptedLLMServer(script) as llm:
        settings = api_settings(
            openai_api_key="test-key",
            openai_base_url=llm.base_url,
            llm_model="scripted-model",
            llm_max_retries=0,
            llm_timeout_s=15.0,
            llm_deadline_s=deadline_s,
            llm_breaker_failures=1000,
            answer_concurrency=8,
        )
        server = live_api_factory(settings)
        _concurrent_answers(server.url, 4)  # warm
        seconds, modes = _concurrent_answers(server.url, 40)
    assert modes == ["offline"] * 40, modes  # every one answered, offline with the notice
    assert max(seconds) <= deadline_s + 1.0 + max(offline_s), (seconds, offline_s)


# ---------------------------------------------------------------- SQLite files deleted


@pytest.mark.server
def test_sqlite_files_deleted_while_serving_fail_readyz_and_lose_no_acknowledged_write(
    api_data_dir: Path, tmp_path: Path, live_api_factory: Callable[..., LiveServer]
) -> None:
    from store.feedback import FeedbackStore
    from store.sessions import SessionRows

    data = tmp_path / "data"
    shutil.copytree(api_data_dir / "chroma", data / "chroma")
    server = live_api_factory(
        make_settings(data, rate_limit_per_minute=6000, rate_limit_burst=1000)
    )
    with httpx.Client(base_url=server.url, timeout=30) as client:
        before = client.post("/api/chat", json={"message": QUESTION}).json()
        vote = {"session_id": before["session_id"], "message_id": before["message_id"]}
        assert client.post("/api/feedback", json={**vote, "rating": "up"}).status_code == 201
        assert client.get("/readyz").status_code == 200

        for name in ("sessions", "feedback", "state"):
            for suffix in ("", "-wal", "-shm"):
                (data / f"{name}.sqlite3{suffix}").unlink(missing_ok=True)
        started = time.monotonic()
        ready = client.get("/readyz")
        assert ready.status_code == 503 and time.monotonic() - started < 5.0
        checks = ready.json()["checks"]
        assert not checks["sessions"]["ok"] and not checks["feedback"]["ok"]
        assert "deleted or replaced" in checks["feedback"]["error"]

        # every write acknowledged from now on must be readable after a restart
        acknowledged: list[tuple[str, str]] = []
        for question in QUESTIONS:
            answer = client.post("/api/chat", json={"message": question}).json()
            vote = {"session_id": answer["session_id"], "message_id": answer["message_id"]}
            r = client.post("/api/feedback", json={**vote, "rating": "down"})
            if r.status_code == 201:
                acknowledged.append((answer["session_id"], answer["message_id"]))
        assert acknowledged, "feedback is taken again once the files are recreated"
    server.stop()  # the restart: read the files as a new process would
    feedback = FeedbackStore.open(data)
    sessions = SessionRows.in_data_dir(data)
    for session_id, message_id in acknowledged:
        stored = feedback.get(session_id, message_id)
        assert stored is not None and stored.rating == -1, (session_id, message_id)
        assert sessions.get(session_id) is not None


# ---------------------------------------------------------------- smaller findings


@pytest.mark.server
def test_feedback_on_an_answer_the_session_store_could_not_keep_is_503(
    api_data_dir: Path, tmp_path: Path, live_api_factory: Callable[..., LiveServer]
) -> None:
    """A session store that reads but cannot write (read-only, full): the answer is given but
    not kept, so its feedback is refused by our fault (503 naming the store), not the client's
    (404 "no answer with this message_id")."""
    import sqlite3

    data = tmp_path / "data"
    shutil.copytree(api_data_dir / "chroma", data / "chroma")
    server = live_api_factory(make_settings(data))
    with httpx.Client(base_url=server.url, timeout=30) as client:
        client.post("/api/chat", json={"message": QUESTION})  # the store and its tables exist
        with sqlite3.connect(data / "sessions.sqlite3") as con:
            for table in ("sessions", "turns"):
                con.execute(
                    f"CREATE TRIGGER refuse_{table} BEFORE INSERT ON {table} "
                    "BEGIN SELECT RAISE(ABORT, 'refused by the test'); END"
                )
        answer = client.post("/api/chat", json={"message": QUESTIONS[2]}).json()  # not kept
        vote = {"session_id": answer["session_id"], "message_id": answer["message_id"]}
        r = client.post("/api/feedback", json={**vote, "rating": "up"})
        unknown = client.post("/api/feedback", json={**vote, "message_id": "0" * 16, "rating": 1})
    assert r.status_code == 503, r.text
    assert (
        "session store" in r.text and "sessions.sqlite3" in r.text and str(tmp_path) not in r.text
    )
    assert unknown.status_code == 503  # while the store cannot keep answers, it cannot tell


@pytest.mark.server
def test_readyz_counts_failed_feedback_writes(
    api_data_dir: Path, tmp_path: Path, live_api_factory: Callable[..., LiveServer]
) -> None:
    import sqlite3

    data = tmp_path / "data"
    shutil.copytree(api_data_dir / "chroma", data / "chroma")
    server = live_api_factory(make_settings(data))
    with httpx.Client(base_url=server.url, timeout=30) as client:
        answer = client.post("/api/chat", json={"message": QUESTION}).json()
        assert client.get("/readyz").status_code == 200
        # the probe's write passes, real feedback writes fail (as on a full quota for one table)
        with sqlite3.connect(data / "feedback.sqlite3") as con:
            con.execute(
                "CREATE TRIGGER refuse BEFORE INSERT ON feedback "
                "BEGIN SELECT RAISE(ABORT, 'refused by the test'); END"
            )
        vote = {"session_id": answer["session_id"], "message_id": answer["message_id"]}
        assert client.post("/api/feedback", json={**vote, "rating": "up"}).status_code == 503
        ready = client.get("/readyz")
    assert ready.status_code == 503
    feedback = ready.json()["checks"]["feedback"]
    assert not feedback["ok"] and "recent failed write (1 in all)" in feedback["error"]


@pytest.mark.server
def test_a_question_of_only_nul_characters_is_422_on_every_route(live_api: LiveServer) -> None:
    nul = {"message": "\u0000\u0000 \u0000"}
    with httpx.Client(base_url=live_api.url, timeout=30) as client:
        assert client.post("/api/chat", json=nul).status_code == 422
        stream = client.post("/api/chat", json=nul, headers={"accept": "text/event-stream"})
        assert stream.status_code == 422 and "empty" in stream.json()["error"]["message"]
        v1 = {"model": "sizing-assistant", "messages": [{"role": "user", "content": "\u0000"}]}
        assert client.post("/v1/chat/completions", json=v1).status_code == 422


@pytest.mark.server
def test_a_client_that_hangs_up_mid_upload_is_not_a_server_error(live_api: LiveServer) -> None:
    import socket

    def count(metrics: str, status: str) -> float:
        """POST requests with this status, over every route (one cut off before routing is
        counted under "unmatched")."""
        lines = [
            line
            for line in metrics.splitlines()
            if line.startswith('sizing_http_requests_total{method="POST"')
            and f'status="{status}"' in line
        ]
        return sum(float(line.split()[-1]) for line in lines)

    before = httpx.get(live_api.url + "/metrics").text
    for _ in range(3):
        with socket.create_connection(("127.0.0.1", live_api.port)) as sock:
            sock.sendall(
                b"POST /api/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: 1000\r\n\r\n" + b'{"message": "How'
            )
    deadline = time.monotonic() + 5
    after = before
    while count(after, "499") - count(before, "499") < 3 and time.monotonic() < deadline:
        time.sleep(0.1)
        after = httpx.get(live_api.url + "/metrics").text
    assert count(after, "499") - count(before, "499") == 3
    assert count(after, "500") == count(before, "500")
