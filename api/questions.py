"""Question checks shared by the chat routes (length limit from settings -> 422)."""

from __future__ import annotations

from typing import Any

from fastapi import HTTPException

from assistant.sessions import check_session_id
from assistant.settings import Settings
from assistant.situation import length_problem


def checked_session_id(session_id: str | None) -> None:
    """Reject a malformed session id up front (before a stream starts), as the assistant would."""
    if session_id is not None:
        check_session_id(session_id)  # raises InvalidSessionId (an InvalidRequest -> 422)


def continued_session(session_id: str | None, sessions: Any) -> str | None:
    """The session to continue, or None for a new one (whose id the server draws).

    A client may only continue a session the server issued: an id that is not stored (a guess,
    a made-up one, one pruned since) or one of another surface's namespaces (Slack's
    `channel:ts`, the former computable `oa-` ids) starts a fresh session instead of creating or
    joining it."""
    if session_id is None:
        return None
    if ":" in session_id or session_id.startswith("oa-"):
        return None
    exists = getattr(sessions, "exists", None)
    if exists is None or not exists(session_id):
        return None
    return session_id


def checked_text(text: str, field: str) -> str:
    """422 for text that is not valid Unicode (a lone surrogate such as \\ud800 parses from
    JSON but cannot be stored, logged or sent back as UTF-8)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise HTTPException(
            422, f"{field}: the text contains an invalid character at position {exc.start}."
        ) from None
    return text


def checked_question(text: str, settings: Settings, field: str = "message") -> str:
    question = checked_text((text or "").strip(), field)
    # the assistant drops NUL characters: a question of nothing else is empty (a 422 here, not
    # a 200 whose event stream carries the error; issue 27)
    if not question.replace("\x00", "").strip():
        raise HTTPException(422, f"{field}: the question is empty.")
    problem = length_problem(question, settings.max_question_chars, settings.max_pasted_chars)
    if problem:
        raise HTTPException(422, f"{field}: {problem}.")
    return question
