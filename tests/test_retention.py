"""Issue 14, finding 7: storage is bounded (retention, compact turns, an index on message_id)."""

from __future__ import annotations

import json
import sqlite3
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from typer.testing import CliRunner

from assistant.answer import Answer, ToolCall
from assistant.sessions import SessionStore, Slots
from cli import app
from store.feedback import FeedbackStore


def _answer(sid: str, mid: str) -> Answer:
    big = {"rows": [{"configuration": f"{n}x-h100", "usd_per_month": 1000 * n} for n in range(200)]}
    return Answer(
        question="q",
        language="en",
        answer="a",
        mode="offline",
        session_id=sid,
        message_id=mid,
        tool_calls=[ToolCall(name="fit_check", arguments={"model": "m"}, result=big)],
    )


def test_old_sessions_and_feedback_are_pruned(tmp_path: Path) -> None:
    sessions = SessionStore.in_data_dir(tmp_path)
    sessions.save_turn("old", _answer("old", "m1"), Slots())
    sessions.save_turn("new", _answer("new", "m2"), Slots())
    with sqlite3.connect(tmp_path / "sessions.sqlite3") as con:
        con.execute(
            "UPDATE sessions SET updated_at = ? WHERE id = 'old'", (time.time() - 91 * 86400,)
        )
    feedback = FeedbackStore.open(tmp_path)
    feedback.record("old", "m1", "up")
    feedback.record("new", "m2", "down")
    stale = (datetime.now(UTC) - timedelta(days=91)).isoformat(timespec="seconds")
    with sqlite3.connect(tmp_path / "feedback.sqlite3") as con:
        con.execute("UPDATE feedback SET created_at = ? WHERE session_id = 'old'", (stale,))
    result = CliRunner().invoke(
        app, ["db", "prune", "--json"], env={"SIZING_DATA_DIR": str(tmp_path)}
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["sessions"] == {"sessions": 1, "turns": 1}
    assert report["feedback"] == {"votes": 1}
    assert sessions.get("old") is None and sessions.get("new") is not None
    assert feedback.get("old", "m1") is None and feedback.get("new", "m2") is not None


def test_turns_are_stored_without_tool_results(tmp_path: Path) -> None:
    sessions = SessionStore.in_data_dir(tmp_path)
    answer = _answer("s", "m")
    sessions.save_turn("s", answer, Slots())
    with sqlite3.connect(tmp_path / "sessions.sqlite3") as con:
        (stored,) = con.execute("SELECT answer_json FROM turns").fetchone()
    assert len(stored) < len(answer.model_dump_json()) / 5
    again = sessions.answer("m")
    assert again is not None and again.tool_calls[0].name == "fit_check"
    assert again.tool_calls[0].result is None


def test_answers_are_looked_up_by_an_index(tmp_path: Path) -> None:
    SessionStore.in_data_dir(tmp_path)
    with sqlite3.connect(tmp_path / "sessions.sqlite3") as con:
        plan = con.execute(
            "EXPLAIN QUERY PLAN SELECT answer_json FROM turns WHERE message_id = 'x'"
        ).fetchall()
    assert "turns_by_message" in str(plan), plan
