"""Question checks shared by the chat routes (length limit from settings -> 422)."""

from __future__ import annotations

import inspect
from typing import Any

from fastapi import HTTPException

from assistant.settings import Settings


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


def accepts_history(method: Any) -> bool:
    """Whether the assistant's ask/stream take a `history` keyword (conversation context)."""
    try:
        return "history" in inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False
