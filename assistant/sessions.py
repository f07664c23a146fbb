"""Conversation sessions in SQLite under the data folder (`<data_dir>/sessions.sqlite3`).

A session keeps its turns (question, answer, full Answer JSON) and the resolved *slots* (model,
precision, workload, cards, configuration, ...) so a follow-up such as "and on an H200?" or
"und in FP8?" reuses what earlier turns established. Everything is on disk: a new process (a new
`Assistant` over the same data folder) continues the conversation.

One short-lived connection per operation (WAL mode), so the store is safe to share between threads.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pydantic import BaseModel, Field

from assistant.answer import Answer, Language
from assistant.errors import InvalidRequest

SESSION_ID_RX = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    language TEXT,
    slots TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS turns (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    message_id TEXT NOT NULL,
    created_at REAL NOT NULL,
    question TEXT NOT NULL,
    answer TEXT NOT NULL,
    language TEXT NOT NULL,
    mode TEXT NOT NULL,
    answer_json TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS turns_by_session ON turns(session_id, seq);
"""


class InvalidSessionId(InvalidRequest):
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


class Turn(BaseModel):
    message_id: str
    question: str
    answer: str
    language: Language
    mode: str
    created_at: float


class Session(BaseModel):
    id: str
    language: Language | None = None
    slots: Slots = Field(default_factory=Slots)
    turns: list[Turn] = Field(default_factory=list)


def new_session_id() -> str:
    return uuid.uuid4().hex[:16]


def check_session_id(session_id: str) -> str:
    if not SESSION_ID_RX.match(session_id):
        raise InvalidSessionId(
            "session id must be 1-128 characters of letters, digits, '.', '_', ':' or '-'"
        )
    return session_id


class SessionStore:
    """Sessions and their turns in one SQLite file."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        with self._connect() as con:
            con.execute("PRAGMA journal_mode=WAL")
            con.executescript(_SCHEMA)

    @classmethod
    def in_data_dir(cls, data_dir: Path) -> SessionStore:
        return cls(Path(data_dir) / "sessions.sqlite3")

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """This thread's connection (opened once), in a transaction. WAL with synchronous=NORMAL:
        a committed turn survives a process crash; only an OS crash may lose the last one."""
        con: sqlite3.Connection | None = getattr(self._local, "con", None)
        if con is None:
            con = sqlite3.connect(self.path, timeout=10, check_same_thread=False)
            con.execute("PRAGMA synchronous=NORMAL")
            self._local.con = con
        with con:
            yield con

    def close(self) -> None:
        con = getattr(self._local, "con", None)
        if con is not None:
            con.close()
            self._local.con = None

    def get(self, session_id: str, max_turns: int = 20) -> Session | None:
        """The session with its last `max_turns` turns (oldest first), or None."""
        check_session_id(session_id)
        with self._connect() as con:
            row = con.execute(
                "SELECT language, slots FROM sessions WHERE id = ?", (session_id,)
            ).fetchone()
            if row is None:
                return None
            rows = con.execute(
                "SELECT message_id, question, answer, language, mode, created_at FROM turns "
                "WHERE session_id = ? ORDER BY seq DESC LIMIT ?",
                (session_id, max_turns),
            ).fetchall()
        turns = [
            Turn(
                message_id=r[0],
                question=r[1],
                answer=r[2],
                language=r[3],
                mode=r[4],
                created_at=r[5],
            )
            for r in reversed(rows)
        ]
        return Session(
            id=session_id,
            language=row[0],
            slots=Slots.model_validate_json(row[1] or "{}"),
            turns=turns,
        )

    def save_turn(self, session_id: str, answer: Answer, slots: Slots) -> None:
        """Append a turn and replace the session's slots (creating the session if new)."""
        check_session_id(session_id)
        now = time.time()
        with self._connect() as con:
            con.execute(
                "INSERT INTO sessions (id, created_at, updated_at, language, slots) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET updated_at = excluded."
                "updated_at, language = excluded.language, slots = excluded.slots",
                (session_id, now, now, answer.language, slots.model_dump_json()),
            )
            con.execute(
                "INSERT INTO turns (session_id, message_id, created_at, question, answer, "
                "language, mode, answer_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    session_id,
                    answer.message_id,
                    now,
                    answer.question,
                    answer.answer,
                    answer.language,
                    answer.mode,
                    answer.model_dump_json(),
                ),
            )

    def answer(self, message_id: str) -> Answer | None:
        """A stored answer by its message id (feedback and evals look answers up by it)."""
        with self._connect() as con:
            row = con.execute(
                "SELECT answer_json FROM turns WHERE message_id = ?", (message_id,)
            ).fetchone()
        return Answer.model_validate(json.loads(row[0])) if row else None

    def delete(self, session_id: str) -> bool:
        check_session_id(session_id)
        with self._connect() as con:
            con.execute("DELETE FROM turns WHERE session_id = ?", (session_id,))
            cur = con.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
        return cur.rowcount > 0
