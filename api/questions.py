"""Question checks shared by the chat routes (length limit from settings -> 422)."""

from __future__ import annotations

from fastapi import HTTPException

from assistant.sessions import check_session_id
from assistant.settings import Settings


def checked_session_id(session_id: str | None) -> None:
    """Reject a malformed session id up front (before a stream starts), as the assistant would."""
    if session_id is not None:
        check_session_id(session_id)  # raises InvalidSessionId (an InvalidRequest -> 422)


def checked_question(text: str, settings: Settings, field: str = "message") -> str:
    question = (text or "").strip()
    if not question:
        raise HTTPException(422, f"{field}: the question is empty.")
    if len(question) > settings.max_question_chars:
        raise HTTPException(
            422,
            f"{field}: the question is {len(question)} characters long; "
            f"the limit is {settings.max_question_chars}.",
        )
    return question
