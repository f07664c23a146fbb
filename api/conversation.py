"""Stateless conversations for /v1/chat/completions (as OpenAI's API is stateless).

The request's own messages are the whole history: its earlier user messages are replayed
(offline, the last few) into a session that lives only for this request, then the question is
asked in it. Nothing is read from another conversation; the answer's turn is stored under a
fresh, unguessable session id (so feedback on it works), which no other request ever reads.
"""

from __future__ import annotations

import logging
from typing import Any

from assistant.answer import Answer
from assistant.grounding import GroundingFacts
from assistant.sessions import MemorySessionStore, Session, Slots, new_session_id

log = logging.getLogger("api")

MAX_REPLAYED_TURNS = 3


class RequestSessions:
    """The session store of one request: reads only the replayed in-memory session; the final
    turn is also written to the persistent store under the request's own fresh id."""

    def __init__(self, memory: MemorySessionStore, persistent: Any) -> None:
        self.memory = memory
        self.persistent = persistent

    def get(self, session_id: str, max_turns: int = 20) -> Session | None:
        return self.memory.get(session_id, max_turns)

    def save_turn(
        self, session_id: str, answer: Answer, slots: Slots, facts: GroundingFacts | None = None
    ) -> bool:
        self.memory.save_turn(session_id, answer, slots, facts)
        saver = getattr(self.persistent, "save_turn", None)
        return bool(saver(session_id, answer, slots, facts)) if saver else True

    def answer(self, message_id: str) -> Answer | None:
        return self.memory.answer(message_id)


def _replay(
    assistant: Any,
    memory: MemorySessionStore,
    session_id: str,
    history: list[dict[str, str]],
    language: str | None,
) -> int:
    """Ask the last few earlier user questions offline into the in-memory session, and keep the
    client's own assistant replies as the turns' answers (the LLM sees what the client saw)."""
    replayer = assistant.using(memory, offline_only=True)
    pairs: list[tuple[str, str | None]] = []
    for message in history:
        if message["role"] == "user" and message["content"].strip():
            pairs.append((message["content"], None))
        elif message["role"] == "assistant" and pairs and pairs[-1][1] is None:
            pairs[-1] = (pairs[-1][0], message["content"])
    replayed = 0
    for question, reply in pairs[-MAX_REPLAYED_TURNS:]:
        try:
            replayer.ask(question, session_id=session_id, language=language)
        except Exception:  # context is a nicety; the answer is not
            log.debug("replaying an earlier message failed", exc_info=True)
            continue
        replayed += 1
        session = memory.sessions[session_id]
        if reply:
            session.turns[-1].answer = reply
    return replayed


def stateless_assistant(
    assistant: Any, history: list[dict[str, str]], language: str | None
) -> tuple[Any, str]:
    """An assistant view whose only conversation is the one in `history`, and its fresh id."""
    session_id = new_session_id()
    memory = MemorySessionStore()
    _replay(assistant, memory, session_id, history, language)
    view = assistant.using(RequestSessions(memory, getattr(assistant, "sessions", None)))
    return view, session_id
