"""Scale-out on a real PostgreSQL: stores, and two `sizing serve` replicas sharing one database."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.register_assert_rewrite("tests.server")

from assistant.answer import Answer  # noqa: E402
from assistant.sessions import SessionStore, Slots  # noqa: E402
from store.db import PostgresDatabase  # noqa: E402
from store.feedback import FeedbackStore  # noqa: E402
from store.shared_state import RateBuckets, SeenKeys  # noqa: E402

pytest_plugins = ["tests.server", "tests.pg"]

pytestmark = pytest.mark.server

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


SIZING = [sys.executable, "-c", "from cli import main; main()"]


def _answer(sid: str, mid: str) -> Answer:
    return Answer(
        question="q", language="en", answer="a", mode="offline", session_id=sid, message_id=mid
    )


def test_stores_work_on_postgres(pg_url: str) -> None:
    db = PostgresDatabase(pg_url)
    sessions = SessionStore(db)
    assert sessions.save_turn("s1", _answer("s1", "m1"), Slots(model="llama-3.3-70b"))
    other = SessionStore(PostgresDatabase(pg_url))  # another replica
    got = other.get("s1")
    assert got is not None and got.slots.model == "llama-3.3-70b"
    assert other.answer("m1") is not None
    assert other.prune(0, now=time.time() + 1) == {"sessions": 1, "turns": 1}
    feedback = FeedbackStore(db)
    feedback.record("s1", "m1", "up", comment="good", user="U1")
    feedback.record("s1", "m1", "down")
    votes = FeedbackStore(PostgresDatabase(pg_url)).all()
    assert len(votes) == 1 and votes[0].rating == -1 and votes[0].comment == "good"
    assert votes[0].user is None
    assert sessions.check()["ok"] and feedback.check()["ok"]


def test_a_slack_retry_is_handled_once_across_replicas(pg_url: str) -> None:
    replicas = [SeenKeys(PostgresDatabase(pg_url), "slack") for _ in range(4)]
    results: list[bool] = []
    barrier = threading.Barrier(8)

    def deliver(seen: SeenKeys) -> None:
        barrier.wait()
        results.append(seen.first_time("Ev012345"))

    threads = [threading.Thread(target=deliver, args=(replicas[n % 4],)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert results.count(True) == 1 and len(results) == 8


def test_rate_buckets_are_shared(pg_url: str) -> None:
    a = RateBuckets(PostgresDatabase(pg_url), per_minute=1, burst=3)
    b = RateBuckets(PostgresDatabase(pg_url), per_minute=1, burst=3)
    waits = [(a, b)[n % 2].take("198.51.100.1") for n in range(8)]
    assert sum(w == 0 for w in waits) == 3


class Replica:
    def __init__(self, env: dict[str, str]) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen(
            [*SIZING, "serve", "--port", str(self.port), "--log-level", "warning"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )

    def wait_ready(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while True:
            assert self.proc.poll() is None, self.proc.stderr.read()  # type: ignore[union-attr]
            try:
                r = httpx.get(self.url + "/readyz", timeout=5)
                if r.status_code == 200:
                    return
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, f"replica not ready: {r.text}"
            time.sleep(0.3)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def test_two_replicas_share_one_postgres(pg_url: str, api_data_dir: Path, tmp_path: Path) -> None:
    data_a, data_b = tmp_path / "a", tmp_path / "b"  # each replica has only its own index copy
    for data in (data_a, data_b):
        shutil.copytree(api_data_dir / "chroma", data / "chroma")
    base = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "SLACK_"))}
    base.update(
        ANONYMIZED_TELEMETRY="False",
        HF_HUB_OFFLINE="1",
        SIZING_DATABASE_URL=pg_url,
        SIZING_RATE_LIMIT_PER_MINUTE="1",
        SIZING_RATE_LIMIT_BURST="7",
    )
    replicas = [
        Replica({**base, "SIZING_DATA_DIR": str(data_a)}),
        Replica({**base, "SIZING_DATA_DIR": str(data_b)}),
    ]
    try:
        for replica in replicas:
            replica.wait_ready()
        one, two = replicas
        # a conversation started on one replica continues on the other
        first = httpx.post(
            one.url + "/api/chat",
            json={"message": "Does Llama 3.3 70B fit on one H100 SXM5?"},
            timeout=60,
        ).json()
        follow = httpx.post(
            two.url + "/api/chat",
            json={"message": "And on an H200?", "session_id": first["session_id"]},
            timeout=60,
        ).json()
        assert follow["session_id"] == first["session_id"]
        assert "Llama 3.3 70B" in follow["answer"]
        # feedback given twice (once per replica) is recorded once
        vote = {"session_id": first["session_id"], "message_id": first["message_id"]}
        for replica, rating in ((one, "up"), (two, "down")):
            r = httpx.post(replica.url + "/api/feedback", json={**vote, "rating": rating})
            assert r.status_code == 201, r.text
        votes = FeedbackStore(PostgresDatabase(pg_url)).all()
        assert [(v.message_id, v.rating) for v in votes] == [(first["message_id"], -1)]
        # one rate limit across both: 7 tokens, 4 used above
        codes = [
            httpx.post(
                (one, two)[n % 2].url + "/api/fit", json={"model": "llama-3.1-8b"}, timeout=30
            ).status_code
            for n in range(8)
        ]
        assert codes.count(200) == 3 and codes.count(429) == 5, codes
        assert not any(data.joinpath("sessions.sqlite3").exists() for data in (data_a, data_b))
    finally:
        for replica in replicas:
            replica.stop()


def test_readyz_names_the_database_without_its_password(pg_url: str, api_settings: Any) -> None:
    from assistant.settings import Settings
    from store.db import open_database

    settings = Settings(database_url=pg_url.replace("postgres@", "postgres:hunter2@", 1))
    label = open_database(settings, "sessions").label
    assert "hunter2" not in label
