"""Issue 15: answers tried on the event loop, the rate-limit bucket taken there, kept first turns.

An offline answer runs on the event loop unless a step of it would block (a new query
embedding, opening or re-reading the index): then it runs again in an answer thread, with the
same result. The shared rate-limit bucket is taken on the loop unless another process holds
the SQLite write lock. Opening questions get the answer kept from their first asking.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.register_assert_rewrite("tests.server")

from assistant.answer import Answer  # noqa: E402
from assistant.deps import build_deps  # noqa: E402
from assistant.first_turns import keepable  # noqa: E402
from assistant.service import Assistant  # noqa: E402
from assistant.settings import Settings  # noqa: E402
from knowledge.blocking import WouldBlock, may_block, no_blocking  # noqa: E402
from store.db import SQLiteDatabase  # noqa: E402
from store.shared_state import RateBuckets  # noqa: E402
from tests.server import LiveServer  # noqa: E402

pytest_plugins = ["tests.server"]

RULE_Q = "Does Llama 3.3 70B in FP8 fit on 2x H100 SXM5?"


def _post(server: LiveServer, text: str, **extra: Any) -> dict[str, Any]:
    r = httpx.post(
        server.url + "/api/chat",
        params={"include": "tool_calls"},
        json={"message": text, **extra},
        timeout=60,
    )
    assert r.status_code == 200, r.text
    return dict(r.json())


def _same_answer(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert a["answer"] == b["answer"]
    assert a["tool_calls"] == b["tool_calls"]
    assert [c["url"] for c in a["citations"]] == [c["url"] for c in b["citations"]]
    assert a["prices"] == b["prices"] and a["notice"] == b["notice"]


# --------------------------------------------------------------------------- the mechanism


def test_would_block_passes_through_the_answer_paths_exception_fallbacks() -> None:
    """WouldBlock is a BaseException: `except Exception` (which degrades an answer) lets it by."""
    may_block("outside no_blocking: nothing happens")
    with no_blocking(), pytest.raises(WouldBlock, match="embedding a new query"):
        try:
            may_block("embedding a new query")
        except Exception:  # the answer path's fallbacks look like this
            pytest.fail("WouldBlock was caught as an Exception")
    may_block("after the block, blocking is allowed again")


def test_the_bucket_is_taken_without_waiting_or_handed_to_a_thread(tmp_path: Path) -> None:
    db = SQLiteDatabase(tmp_path / "state.sqlite3")
    now = [1000.0]
    buckets = RateBuckets(db, per_minute=60, burst=2, clock=lambda: now[0])
    assert buckets.take_nowait("203.0.113.7") == 0.0
    other = sqlite3.connect(tmp_path / "state.sqlite3", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another worker holds the write lock
    try:
        assert buckets.take_nowait("203.0.113.7") is None  # the loop does not wait

        taken: list[float] = []
        waiting = threading.Thread(target=lambda: taken.append(buckets.take("203.0.113.7")))
        waiting.start()  # the thread path waits for the lock (busy timeout)
        waiting.join(0.3)
        assert waiting.is_alive() and not taken
    finally:
        other.execute("ROLLBACK")
        other.close()
    waiting.join(10)
    assert taken == [0.0]  # the second token of the burst
    wait = buckets.take_nowait("203.0.113.7")
    assert wait is not None and 0.9 < wait <= 1.0  # empty: a token a second
    assert buckets.take_nowait("198.51.100.1") == 0.0  # another client has its own bucket


# --------------------------------------------------------------------------- live server


@pytest.mark.server
def test_rule_answers_run_on_the_loop_and_a_new_search_in_a_thread(
    api_settings: Any, live_api_factory: Any
) -> None:
    # no embedder budget: a cold embedder's first query may cost seconds on a loaded machine
    inline = live_api_factory(api_settings(embed_budget_s_per_minute=0))
    threads = live_api_factory(
        api_settings(inline_answers=False, first_turn_cache=0, embed_budget_s_per_minute=0)
    )
    on_loop = inline.app.state.sizing.runner.on_loop

    rule = _post(inline, RULE_Q)
    assert on_loop["inline"] == 1 and sum(on_loop.values()) == 1
    _same_answer(rule, _post(threads, RULE_Q))

    guide_q = "What is pipeline parallelism and when does it help?"
    guide = _post(inline, guide_q)  # its query embedding is new: the loop hands it off
    assert on_loop["embedding a new query"] == 1
    searches = [c for c in guide["tool_calls"] if c["name"] == "search_guides"]
    assert searches and searches[0]["arguments"].get("ranking") != "keywords"
    assert guide["citations"] and guide["notice"] is None
    _same_answer(guide, _post(threads, guide_q))

    # a follow-up reads its session on the loop, and the cached embedding keeps it there
    follow = _post(inline, "and in BF16?", session_id=rule["session_id"])
    assert follow["session_id"] == rule["session_id"]
    assert any("bf16" in str(c["arguments"]).lower() for c in follow["tool_calls"])
    again = _post(inline, guide_q)
    _same_answer(guide, again)
    # inline: the rule answer, the follow-up's session lookup and answer, the repeat
    assert on_loop["inline"] == 4 and on_loop["embedding a new query"] == 1
    assert threads.app.state.sizing.runner.on_loop == {}

    metrics = httpx.get(inline.url + "/metrics", timeout=10).text
    assert 'sizing_answers_on_event_loop_total{outcome="inline"} 4.0' in metrics

    # the widget's stream: drained on the loop, the same answer as the JSON one
    stream_q = "Was kostet 4x A100 SXM4 im Monat?"
    done = _stream(inline, stream_q)
    assert on_loop["inline"] == 5
    _same_answer(done, _stream(threads, stream_q))
    new_search = "Was ist Tensor-Parallelismus und wann hilft er?"
    streamed = _stream(inline, new_search)  # a new query embedding: drained in a thread
    assert on_loop["embedding a new query"] == 2 and streamed["citations"]


def _stream(server: LiveServer, text: str) -> dict[str, Any]:
    from api.sse import parse_sse

    r = httpx.post(
        server.url + "/api/chat",
        params={"include": "tool_calls"},
        json={"message": text},
        headers={"Accept": "text/event-stream"},
        timeout=60,
    )
    assert r.status_code == 200, r.text
    events = parse_sse(r.text)
    assert events[0]["event"] == "token" and events[-1]["event"] == "done", events[-1]
    return dict(events[-1]["data"]["answer"])


# --------------------------------------------------------------------------- first turns


class _Index:
    """A guide index whose generation the test changes (rule questions never search it)."""

    opened = True

    def __init__(self) -> None:
        self.generation = "g1"

    def search_generation(self) -> str:
        return self.generation

    def search(self, *args: Any, **kwargs: Any) -> list[Any]:
        return []


def _assistant(tmp_path: Path, **overrides: Any) -> tuple[Assistant, _Index]:
    import dataclasses

    deps = build_deps(Settings(data_dir=tmp_path, openai_api_key=None, **overrides))
    index = _Index()
    return Assistant(dataclasses.replace(deps, index=index)), index


def test_an_opening_question_asked_again_gets_the_kept_answer_in_its_own_session(
    tmp_path: Path,
) -> None:
    assistant, index = _assistant(tmp_path)
    first = assistant.ask(RULE_Q)
    second = assistant.ask(RULE_Q)
    assert assistant.first_turns.hits == 1
    assert second.answer == first.answer and second.tool_calls == first.tool_calls
    assert second.prices == first.prices and second.citations == first.citations
    assert second.session_id != first.session_id and second.message_id != first.message_id
    # the kept answer's turn is stored: its session continues like any other
    stored = assistant.sessions.get(second.session_id)
    assert stored is not None and [t.message_id for t in stored.turns] == [second.message_id]
    follow = assistant.ask("and in BF16?", session_id=second.session_id)
    fits = [c for c in follow.tool_calls if c.name == "fit_check"]
    assert fits and fits[0].arguments["precision"] == "bf16"
    assert "70" in str(fits[0].arguments["model"])
    assert assistant.first_turns.hits == 1  # a follow-up is never a kept answer
    # another language asked for, or a new index generation: answered afresh
    assistant.ask(RULE_Q, language="de")
    index.generation = "g2"
    assistant.ask(RULE_Q)
    assert assistant.first_turns.hits == 1


def test_what_is_not_kept(tmp_path: Path) -> None:
    assistant, _ = _assistant(tmp_path, first_turn_cache=0)
    assistant.ask(RULE_Q)
    assistant.ask(RULE_Q)
    assert assistant.first_turns.hits == 0 and len(assistant.first_turns) == 0
    answer = Answer(
        question="q", language="en", answer="a", mode="offline", session_id="s", message_id="m"
    )
    assert keepable(answer)
    assert not keepable(answer.model_copy(update={"notice": "searched by keywords only"}))
    assert not keepable(answer.model_copy(update={"mode": "llm"}))


def test_a_finished_answers_events_leave_in_one_write_and_progress_at_once() -> None:
    import asyncio

    from api.sse import parse_sse, sse_events
    from assistant.answer import ProgressEvent
    from assistant.service import answer_events

    answer = Answer(
        question="q",
        language="en",
        answer="Yes — it fits with room to spare for a long context and a few users. " * 3,
        mode="offline",
        session_id="s",
        message_id="m",
    )
    progress = ProgressEvent(tool="fit_check", stage="started", message="checking…")

    async def events() -> Any:
        yield progress
        for event in answer_events(answer):
            yield event

    async def collect() -> list[bytes]:
        return [chunk async for chunk in sse_events(events())]

    writes = asyncio.run(collect())
    assert len(writes) == 2  # the progress event at once; the answer's events together
    assert [e["event"] for e in parse_sse(writes[0].decode())] == ["progress"]
    parsed = parse_sse(writes[1].decode())
    kinds = [e["event"] for e in parsed]
    assert kinds.count("token") >= 2 and kinds[-2:] == ["prices", "done"]
    assert "".join(e["data"]["text"] for e in parsed if e["event"] == "token") == answer.answer
