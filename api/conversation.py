"""Conversation context for stateless clients (OpenAI-compatible front ends resend the history).

The assistant keeps context in sessions (slots such as the model from earlier turns). A client of
/v1/chat/completions sends the whole conversation each time instead, so the API keys a session on
the conversation (caller + first user message) and, when that session has not seen some earlier
user messages (a conversation started elsewhere, a server restart), replays the last few of them
into it first. Replaying is cheap offline and is what gives "and on an H200?" its model.
"""

from __future__ import annotations

import hashlib
from typing import Any

MAX_REPLAYED_TURNS = 3


def conversation_session_id(user: str | None, first_user_message: str) -> str:
    digest = hashlib.sha256(f"{user or ''}\n{first_user_message}".encode()).hexdigest()[:24]
    return f"oa-{digest}"


def prime_session(
    assistant: Any, session_id: str, earlier_questions: list[str], language: str | None
) -> int:
    """Ask the earlier questions this session has not seen (at most the last three); returns
    how many were replayed. Failures are ignored: context is a nicety, the answer is not."""
    sessions = getattr(assistant, "sessions", None)
    if sessions is None or not earlier_questions:
        return 0
    session = sessions.get(session_id)
    seen = {t.question.strip() for t in session.turns} if session else set()
    missing = [q for q in earlier_questions if q.strip() and q.strip() not in seen]
    replayed = 0
    for question in missing[-MAX_REPLAYED_TURNS:]:
        try:
            assistant.ask(question, session_id=session_id, language=language)
            replayed += 1
        except Exception:
            continue
    return replayed
