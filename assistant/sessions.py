"""Conversation sessions, typed: the assistant's `Session`, `Turn`, `Slots` and `Answer` over the
rows of `store.sessions` (`<data_dir>/sessions.sqlite3` by default, PostgreSQL when
SIZING_DATABASE_URL is set).

A session keeps its turns (question, answer, the Answer as JSON) and the resolved *slots* (model,
precision, workload, cards, configuration, ...) so a follow-up such as "and on an H200?" or
"und in FP8?" reuses what earlier turns established. Everything is in the database: a new process
(or another replica) continues the conversation.

Degrade, never fail (see store.sessions): a store that cannot be read or written costs the
conversation its memory, never the answer. `get` then returns None and `save_turn` returns False;
both log one line naming the store and count the failure in `failures` (a metric of the API).

Stored compactly: tool calls keep their name and arguments, not their (large) results, which no
surface reads back. `prune(older_than_s)` deletes sessions idle for longer (retention).
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from assistant.answer import WITHOUT_TOOL_RESULTS, Answer, Language
from assistant.errors import InvalidRequest
from assistant.grounding import GroundingFacts
from assistant.settings import Settings
from store import sessions as stored
from store.db import Database, open_database
from store.sessions import SESSION_ID_RX, TURN_COLUMNS, NewTurn, SessionRows, new_session_id

__all__ = [
    "SESSION_ID_RX",
    "InvalidSessionId",
    "MemorySessionStore",
    "Session",
    "SessionStore",
    "Slots",
    "Turn",
    "check_session_id",
    "compact_answer_json",
    "new_session_id",
]


class InvalidSessionId(InvalidRequest, stored.InvalidSessionId):
    """A session id with characters or a length the store does not accept."""


class Slots(BaseModel):
    """What the conversation has established so far (empty: not said yet)."""

    model: str | None = None
    params_b: float | None = None
    unknown_model: str | None = None
    precision: str | None = None
    workloads: list[str] = Field(default_factory=list)
    cards: list[str] = Field(default_factory=list)
    card_families: list[str] = Field(default_factory=list)
    count: int | None = None
    memory_gb: float | None = None
    configurations: list[str] = Field(default_factory=list)
    context_tokens: int | None = None
    concurrency: int | None = None
    intent: str | None = None
    adapter: str | None = None
    lora_rank: int | None = None
    lora_attention_only: bool = False
    # what the user constrained (budget, memory, exclusions), their users and runtime: kept by
    # follow-ups ("and in FP8?" after "budget 8k") until a question says otherwise
    constraints: dict[str, Any] = Field(default_factory=dict)
    users: int | None = None
    runtime: str | None = None
    kv_precision: str | None = None  # "FP8 KV cache": kept until a question says otherwise
    # "schafft es mehr als 20 Token/s?" then "und auf einer RTX 5090?": the floor asked again
    min_tokens_per_s: float | None = None
    # the model was assumed (no model said; a starting point sized and the model asked back):
    # the next turn that names one answers that question and keeps the load said before
    model_assumed: bool = False
    # "how long for 200 texts of 500 tokens?" then "and on an H100?": the batch timed again
    output_tokens: int | None = None
    # the configuration(s) the last answer chose as its result ("the cheapest single card is
    # Z"): a follow-up asking something new about "it" / "da" runs on it
    answered: list[str] = Field(default_factory=list)
    # the configuration(s) the answer before that chose (else the ones it was asked about): "the
    # cheaper of the two" after "the cheapest node?" and "and the cheapest with NVLink?" is one
    # of both answers' picks; "wie viel spar ich mit PCIe?" after two prices is their difference
    answered_before: list[str] = Field(default_factory=list)
    # the previous question was a yes/no ("Can I QLoRA it on one A100?"), and its claim: a
    # follow-up that continues it ("and a full fine-tune?") is the same yes/no question
    yes_no: bool = False
    claim: str | None = None
    # the previous question asked the memory need ("wie viel VRAM braucht X?"): "und in FP8?"
    # asks it again
    asked_memory: bool = False
    # the previous question asked the KV cache's size: "and with an FP8 KV cache?" asks it again
    asked_kv_size: bool = False
    # the previous question asked a price per hour: "und der Knoten mit vier davon?" too
    asked_per_hour: bool = False
    # the paste the previous question checked (`nccl-tests` or `topo -m` output): "sorry, they are
    # on the SXM5 node, not the PCIe one. still ok?" checks it again against that node
    pasted_nccl: str | None = None
    pasted_topo: str | None = None


class Turn(BaseModel):
    message_id: str
    question: str
    answer: str
    language: Language
    mode: str
    created_at: float
    facts: GroundingFacts | None = Field(
        default=None, description="what the turn's tool results established (for follow-ups)"
    )


class Session(BaseModel):
    id: str
    language: Language | None = None
    slots: Slots = Field(default_factory=Slots)
    turns: list[Turn] = Field(default_factory=list)


def check_session_id(session_id: str) -> str:
    try:
        return stored.check_session_id(session_id)
    except stored.InvalidSessionId as exc:
        raise InvalidSessionId(str(exc)) from None


def compact_answer_json(answer: Answer, session_id: str | None = None) -> str:
    """The Answer as stored (before packing): tool calls without their results (about 3/4 of an
    answer's bytes; nothing reads them back: the answer text, citations and prices carry what
    was said), without the fields the turn keeps in columns (`session_id`: the turn's) or left
    at their defaults."""
    exclude: dict[str, Any] = {**dict.fromkeys(TURN_COLUMNS, True), **WITHOUT_TOOL_RESULTS}
    if answer.session_id == session_id:
        exclude["session_id"] = True  # the turn's own column
    return answer.model_dump_json(exclude=exclude, exclude_defaults=True)


def _session(row: stored.SessionRow) -> Session:
    """A stored session, typed (the language a Literal, the slots and facts from their JSON)."""
    turns = [
        Turn.model_validate(
            {
                **t.model_dump(exclude={"facts"}),
                "facts": GroundingFacts.model_validate_json(t.facts) if t.facts else None,
            }
        )
        for t in row.turns
    ]
    return Session.model_validate(
        {
            "id": row.id,
            "language": row.language,
            "slots": Slots.model_validate_json(row.slots),
            "turns": turns,
        }
    )


class SessionStore:
    """Sessions and their turns in a database (a SQLite file by default): `store.sessions`'
    rows as the assistant's typed Session, Turn and Answer."""

    def __init__(self, db: Database | Path) -> None:
        self.rows = SessionRows(db)

    @classmethod
    def in_data_dir(cls, data_dir: Path) -> SessionStore:
        return cls(Path(data_dir) / "sessions.sqlite3")

    @classmethod
    def from_settings(cls, settings: Settings) -> SessionStore:
        return cls(open_database(settings, "sessions"))

    @property
    def db(self) -> Database:
        return self.rows.db

    @property
    def failures(self) -> Counter[str]:
        return self.rows.failures

    @property
    def label(self) -> str:
        return self.rows.label

    def close(self) -> None:
        self.rows.close()

    def get(self, session_id: str, max_turns: int = 20) -> Session | None:
        """The session with its last `max_turns` turns (oldest first), or None (also when the
        store cannot be read: logged and counted)."""
        row = self.rows.get(check_session_id(session_id), max_turns)
        return None if row is None else _session(row)

    def exists(self, session_id: str) -> bool:
        """Whether the session is stored (False when the store cannot be read)."""
        return self.rows.exists(check_session_id(session_id))

    def save_turn(
        self, session_id: str, answer: Answer, slots: Slots, facts: GroundingFacts | None = None
    ) -> bool:
        """Append a turn and replace the session's slots (creating the session if new). False
        (logged, counted) when the store cannot be written: the answer still goes out."""
        turn = NewTurn(
            message_id=answer.message_id,
            question=answer.question,
            answer=answer.answer,
            language=answer.language,
            mode=answer.mode,
            answer_json=compact_answer_json(answer, session_id),
            facts=facts.model_dump_json() if facts is not None else None,
        )
        return self.rows.save_turn(
            check_session_id(session_id), turn, slots.model_dump_json(exclude_defaults=True)
        )

    def answer(self, message_id: str) -> Answer | None:
        """A stored answer by its message id (feedback and Slack look answers up by it; an
        index). Raises StorageError when the store cannot be read."""
        data = self.rows.answer(message_id)
        return None if data is None else Answer.model_validate(data)

    def recent_answers(
        self, limit: int = 10_000, since: float | None = None
    ) -> list[tuple[float, Answer]]:
        """Stored answers with their time (epoch seconds), newest first: the review and
        content-gap reports (`sizing feedback gaps`). Raises StorageError when unreadable."""
        return [(at, Answer.model_validate(d)) for at, d in self.rows.recent_answers(limit, since)]

    def delete(self, session_id: str) -> bool:
        return self.rows.delete(check_session_id(session_id))

    def prune(self, older_than_s: float, now: float | None = None) -> dict[str, int]:
        """Delete sessions not updated for `older_than_s` seconds, with their turns."""
        return self.rows.prune(older_than_s, now)

    def check(self, window_s: float = 60.0) -> dict[str, Any]:
        """For /readyz (see store.sessions.SessionRows.check)."""
        return self.rows.check(window_s)


class MemorySessionStore:
    """Sessions that live for one request (the stateless OpenAI surface rebuilds a conversation
    from the request's own messages here; nothing is shared with any other request)."""

    def __init__(self) -> None:
        self.sessions: dict[str, Session] = {}
        self.answers: dict[str, Answer] = {}

    def get(self, session_id: str, max_turns: int = 20) -> Session | None:
        session = self.sessions.get(session_id)
        if session is None:
            return None
        return session.model_copy(update={"turns": session.turns[-max_turns:]})

    def save_turn(
        self, session_id: str, answer: Answer, slots: Slots, facts: GroundingFacts | None = None
    ) -> bool:
        session = self.sessions.setdefault(session_id, Session(id=session_id))
        session.language = answer.language
        session.slots = slots
        session.turns.append(
            Turn(
                message_id=answer.message_id,
                question=answer.question,
                answer=answer.answer,
                language=answer.language,
                mode=answer.mode,
                created_at=time.time(),
                facts=facts,
            )
        )
        self.answers[answer.message_id] = answer
        return True

    def answer(self, message_id: str) -> Answer | None:
        return self.answers.get(message_id)
