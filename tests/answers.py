"""Shared checks for the answer tests: an answer shown to a user, and the tool calls behind it."""

from __future__ import annotations

from typing import Any

from assistant.answer import Answer


def ok(answer: Answer, language: str) -> str:
    """The answer's text, after checking it passed grounding, needed no notice and is in the
    asker's language."""
    assert answer.violations == [] and answer.notice is None, answer.violations
    assert answer.language == language
    return answer.answer


def last_call(answer: Answer, name: str) -> Any:
    """The last call of tool NAME behind the answer (fails when there is none)."""
    calls = [c for c in answer.tool_calls if c.name == name]
    assert calls, [c.name for c in answer.tool_calls]
    return calls[-1]


def fit_row(answer: Answer, configuration: str) -> dict[str, Any]:
    """The row for CONFIGURATION in the last `fit_check` behind the answer (fails when absent)."""
    rows = last_call(answer, "fit_check").result["rows"]
    row = next((r for r in rows if r["configuration"] == configuration), None)
    assert row is not None, [r["configuration"] for r in rows]
    return dict(row)


def asked_after(assistant: Any, first: str, then: str, language: str) -> Answer:
    """The answer to THEN, asked in the session FIRST opened (FIRST's answer checked with `ok`)."""
    opened = assistant.ask(first)
    ok(opened, language)
    return assistant.ask(then, session_id=opened.session_id)
