"""Issue 14, finding 3: an LLM outage costs an answer at most the deadline, and once the circuit
breaker is open, (almost) nothing: answers are offline at once, with the notice."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

import pytest

from assistant.llm_breaker import CircuitBreaker, LLMDown, breaker_for, guarded_call
from assistant.settings import Settings
from tests.llm_server import ScriptedLLMServer, delay, status, text

QUESTION = "What does 4x A100 SXM4 cost?"


def make_assistant(server: ScriptedLLMServer, data_dir: Path, **overrides: Any) -> Any:
    from assistant.deps import build_deps
    from assistant.service import Assistant

    values: dict[str, Any] = {
        "data_dir": data_dir,
        "OPENAI_API_KEY": "test-key",
        "OPENAI_BASE_URL": server.base_url,
        "llm_model": "scripted-model",
        "llm_timeout_s": 30.0,
        "llm_max_retries": 2,
        "llm_deadline_s": 1.0,
    }
    values.update(overrides)
    deps = build_deps(Settings(**values))
    return Assistant(dataclasses.replace(deps, index=None))


def test_breaker_opens_after_failures_and_probes_once_when_half_open() -> None:
    now = [0.0]
    breaker = CircuitBreaker(failures=2, reset_s=10, clock=lambda: now[0])
    assert breaker.allow()
    breaker.failure()
    assert breaker.state == "closed" and breaker.allow()
    breaker.failure()
    assert breaker.state == "open" and not breaker.allow()
    now[0] = 10.0
    assert breaker.state == "half_open"
    assert breaker.allow()  # the probe
    assert not breaker.allow()  # everyone else stays offline while it runs
    breaker.failure()  # the probe failed: open again for another reset_s
    assert breaker.state == "open" and not breaker.allow()
    now[0] = 20.0
    assert breaker.allow()
    breaker.success()
    assert breaker.state == "closed" and breaker.allow() and breaker.allow()


def test_guarded_call_never_waits_past_the_deadline() -> None:
    breaker = CircuitBreaker(failures=5)
    start = time.monotonic()
    with pytest.raises(LLMDown):
        guarded_call(breaker, lambda: time.sleep(5), start + 0.2)
    assert time.monotonic() - start < 0.5
    assert guarded_call(breaker, lambda: 42, time.monotonic() + 1) == 42


@pytest.mark.parametrize(
    "step",
    [
        pytest.param(delay(20, text("late")), id="hanging-provider"),
        # the openai client honours Retry-After up to 60 s; the deadline must still hold
        pytest.param(status(429, retry_after_ms=50_000), id="retry-after-50s"),
        pytest.param(status(503, retry_after_ms=120_000), id="retry-after-120s"),
    ],
)
def test_an_outage_costs_at_most_the_deadline(tmp_path: Path, step: Any) -> None:
    with ScriptedLLMServer([step, step, step, step]) as server:
        assistant = make_assistant(server, tmp_path, llm_deadline_s=1.0)
        start = time.monotonic()
        answer = assistant.ask(QUESTION)
        elapsed = time.monotonic() - start
    assert answer.mode == "offline" and answer.notice
    assert "4,395" in answer.answer or "4.395" in answer.answer
    assert elapsed < 1.0 + 0.8, elapsed


def test_open_breaker_answers_offline_at_once_then_probes(tmp_path: Path) -> None:
    failures = [status(500, retry_after_ms=1)] * 9
    with ScriptedLLMServer(failures) as server:
        assistant = make_assistant(
            server, tmp_path, llm_max_retries=0, llm_breaker_failures=2, llm_breaker_reset_s=0.5
        )
        offline = dataclasses.replace(assistant.deps, llm=None)
        for _ in range(2):  # two failed calls open the breaker
            assert assistant.ask(QUESTION).notice
        calls = len(server.requests)
        # open: no call goes out, and the answer costs about what an offline one does
        start = time.perf_counter()
        answer = assistant.ask(QUESTION)
        open_s = time.perf_counter() - start
        start = time.perf_counter()
        type(assistant)(offline).ask(QUESTION)
        offline_s = time.perf_counter() - start
        assert len(server.requests) == calls
        assert answer.mode == "offline" and answer.notice
        assert open_s - offline_s < 0.05, (open_s, offline_s)
        # after reset_s one probe goes out; it succeeds and the breaker closes
        time.sleep(0.6)
        server.script[:] = [text("Four A100 SXM4 cards are a good choice.")] * 3
        assistant.ask(QUESTION)
        assert len(server.requests) > calls
        assert breaker_for(assistant.deps).state == "closed"


def test_calls_waiting_on_a_dead_provider_are_released_when_the_breaker_opens() -> None:
    """Issue 27: the breaker opening releases every call already waiting, at once."""
    import threading

    breaker = CircuitBreaker(failures=3, reset_s=60)
    hang = threading.Event()
    ended: list[float] = []
    errors: list[str] = []

    def caller() -> None:
        started = time.monotonic()
        try:
            guarded_call(breaker, lambda: hang.wait(30), time.monotonic() + 20)
        except LLMDown as exc:
            errors.append(str(exc))
        ended.append(time.monotonic() - started)

    waiting = [threading.Thread(target=caller) for _ in range(6)]
    for t in waiting:
        t.start()
    time.sleep(0.3)
    assert not ended  # all six wait on the provider
    for _ in range(3):
        breaker.failure()  # three other calls failed: the breaker opens
    for t in waiting:
        t.join(timeout=5)
    hang.set()
    assert len(ended) == 6 and max(ended) < 1.5, ended
    assert all("circuit breaker opened" in e for e in errors), errors
    assert breaker.released == 6 and breaker.state == "open"


def test_the_request_deadline_bounds_every_call_of_the_request() -> None:
    """A deadline set when the request arrived (the API's answer runner) wins over a later
    per-phase deadline, so a slot wait or an earlier phase is not added on top."""
    from assistant.llm_breaker import request_deadline

    breaker = CircuitBreaker(failures=100)
    token = request_deadline.set(time.monotonic() + 0.3)
    try:
        started = time.monotonic()
        with pytest.raises(LLMDown):
            guarded_call(breaker, lambda: time.sleep(5), time.monotonic() + 10)
        assert time.monotonic() - started < 1.0
        with pytest.raises(LLMDown, match="deadline has passed"):
            guarded_call(breaker, lambda: 1, time.monotonic() + 10)
    finally:
        request_deadline.reset(token)
    assert guarded_call(breaker, lambda: 2, time.monotonic() + 10) == 2
