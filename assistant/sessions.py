"""Conversation sessions: `<data_dir>/sessions.sqlite3` by default, PostgreSQL when
SIZING_DATABASE_URL is set (see store.db).

A session keeps its turns (question, answer, the Answer as JSON) and the resolved *slots* (model,
precision, workload, cards, configuration, ...) so a follow-up such as "and on an H200?" or
"und in FP8?" reuses what earlier turns established. Everything is in the database: a new process
(or another replica) continues the conversation.

Degrade, never fail: a store that cannot be read or written (read-only folder, corrupt file,
database down) costs the conversation its memory, never the answer. `get` then returns None and
`save_turn` returns False; both log one line naming the store (the file name relative to the data
folder) and count the failure in `failures` (exported as a metric by the API).

Stored compactly: tool calls keep their name and arguments, not their (large) results, which no
surface reads back. `prune(older_than_s)` deletes sessions idle for longer (retention).
"""

from __future__ import annotations

import base64
import json
import logging
import re
import secrets
import threading
import time
import zlib
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from assistant.answer import WITHOUT_TOOL_RESULTS, Answer, Language
from assistant.errors import InvalidRequest
from assistant.grounding import GroundingFacts
from assistant.settings import Settings
from store.db import Database, Migration, SQLiteDatabase, StorageError, open_database

log = logging.getLogger("assistant.sessions")

SESSION_ID_RX = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")

MIGRATIONS = [
    Migration(
        1,
        sqlite="""
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
CREATE INDEX IF NOT EXISTS turns_by_session ON turns(session_id, seq)
""",
        postgresql="""
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    created_at DOUBLE PRECISION NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL,
    language TEXT,
    slots TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS turns (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    message_id TEXT NOT NULL,
    created_at DOUBLE PRECISION NOT NULL,
    question TEXT NOT NULL,
    answer TEXT NOT NULL,
    language TEXT NOT NULL,
    mode TEXT NOT NULL,
    answer_json TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS turns_by_session ON turns(session_id, seq)
""",
    ),
    # feedback and Slack look answers up by message id: an index, not a scan of every turn
    Migration(
        2,
        sqlite="CREATE INDEX IF NOT EXISTS turns_by_message ON turns(message_id);"
        "CREATE INDEX IF NOT EXISTS sessions_by_age ON sessions(updated_at)",
        postgresql="CREATE INDEX IF NOT EXISTS turns_by_message ON turns(message_id);"
        "CREATE INDEX IF NOT EXISTS sessions_by_age ON sessions(updated_at)",
    ),
    # what each turn's tool results established (GroundingFacts JSON), for follow-ups in LLM
    # mode: the stored answer keeps no tool results (issue 13)
    Migration(
        3,
        sqlite="ALTER TABLE turns ADD COLUMN facts TEXT",
        postgresql="ALTER TABLE turns ADD COLUMN IF NOT EXISTS facts TEXT",
    ),
]


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
    # what the user constrained (budget, memory, exclusions), their users and runtime: kept by
    # follow-ups ("and in FP8?" after "budget 8k") until a question says otherwise
    constraints: dict[str, Any] = Field(default_factory=dict)
    users: int | None = None
    runtime: str | None = None
    kv_precision: str | None = None  # "FP8 KV cache": kept until a question says otherwise
    # the configuration(s) the last answer chose as its result ("the cheapest single card is
    # Z"): a follow-up asking something new about "it" / "da" runs on it
    answered: list[str] = Field(default_factory=list)


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


def new_session_id() -> str:
    """A fresh session id: 128 random bits (22 URL-safe characters), never derived from content,
    so no client can compute or pick another client's session."""
    return secrets.token_urlsafe(16)


def check_session_id(session_id: str) -> str:
    if not SESSION_ID_RX.match(session_id):
        raise InvalidSessionId(
            "session id must be 1-128 characters of letters, digits, '.', '_', ':' or '-'"
        )
    return session_id


# the Answer fields a turn keeps in columns of its own (not repeated in `answer_json`)
_COLUMNS = ("question", "answer", "language", "mode", "message_id")
# a packed column: "z1:" + base64(zlib(JSON)); rows written before it hold plain JSON
_PACKED = "z1:"


@lru_cache(maxsize=1024)
def pack(text: str) -> str:
    """JSON as stored: zlib-compressed, base64 (ASCII, so a TEXT column in either database).
    The same text packs the same (the facts and answer of a repeated question): once."""
    return _PACKED + base64.b64encode(zlib.compress(text.encode(), 6)).decode("ascii")


def unpack(stored: str) -> str:
    """The JSON of a stored column, packed (see `pack`) or plain (older rows)."""
    if stored.startswith(_PACKED):
        return zlib.decompress(base64.b64decode(stored[len(_PACKED) :])).decode()
    return stored


def compact_answer_json(answer: Answer, session_id: str | None = None) -> str:
    """The Answer as stored: tool calls without their results (about 3/4 of an answer's bytes;
    nothing reads them back: the answer text, citations and prices carry what was said), without
    the fields the turn keeps in columns (`session_id`: the turn's) or left at their defaults,
    packed (see `pack`)."""
    exclude: dict[str, Any] = {**dict.fromkeys(_COLUMNS, True), **WITHOUT_TOOL_RESULTS}
    if answer.session_id == session_id:
        exclude["session_id"] = True  # the turn's own column
    return pack(answer.model_dump_json(exclude=exclude, exclude_defaults=True))


_SELECT_COLUMNS = ", ".join((*_COLUMNS, "session_id"))


def load_answer(stored: str, columns: Sequence[Any]) -> Answer:
    """A stored Answer: `answer_json` plus the turn's columns (`_SELECT_COLUMNS`)."""
    data = json.loads(unpack(stored))
    if stored.startswith(_PACKED):
        data.update(zip(_COLUMNS, columns[: len(_COLUMNS)], strict=True))
        data.setdefault("session_id", columns[len(_COLUMNS)])
    return Answer.model_validate(data)


class SessionStore:
    """Sessions and their turns in a database (a SQLite file by default)."""

    def __init__(self, db: Database | Path) -> None:
        self.db: Database = db if isinstance(db, Database) else SQLiteDatabase(Path(db))
        self.failures: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._last_failure: tuple[float, str] | None = None
        try:
            self._migrate()
        except StorageError as exc:  # e.g. a garbage file: answers go on without memory
            self._failed("open", exc)

    @classmethod
    def in_data_dir(cls, data_dir: Path) -> SessionStore:
        return cls(Path(data_dir) / "sessions.sqlite3")

    @classmethod
    def from_settings(cls, settings: Settings) -> SessionStore:
        return cls(open_database(settings, "sessions"))

    @property
    def label(self) -> str:
        return self.db.label

    def _migrate(self) -> None:
        self.db.migrate("sessions", MIGRATIONS)

    def _failed(self, operation: str, exc: StorageError) -> None:
        with self._lock:
            self.failures[operation] += 1
            self._last_failure = (time.monotonic(), f"{exc.label}: {exc.detail}")
        log.error(
            "session store %s failed (%s): %s; answering without conversation memory",
            operation,
            exc.label,
            exc.detail,
        )

    def close(self) -> None:
        self.db.close()

    def get(self, session_id: str, max_turns: int = 20) -> Session | None:
        """The session with its last `max_turns` turns (oldest first), or None (also when the
        store cannot be read: logged and counted)."""
        check_session_id(session_id)
        try:
            self._migrate()
            return self._get(session_id, max_turns)
        except StorageError as exc:
            self._failed("read", exc)
            return None

    def _get(self, session_id: str, max_turns: int) -> Session | None:
        with self.db.transaction() as tx:
            row = tx.execute(
                "SELECT language, slots FROM sessions WHERE id = ?", (session_id,)
            ).fetchone()
            if row is None:
                return None
            rows = tx.execute(
                "SELECT message_id, question, answer, language, mode, created_at, facts FROM turns "
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
                facts=GroundingFacts.model_validate_json(unpack(r[6])) if r[6] else None,
            )
            for r in reversed(rows)
        ]
        return Session(
            id=session_id,
            language=row[0],
            slots=Slots.model_validate_json(row[1] or "{}"),
            turns=turns,
        )

    def exists(self, session_id: str) -> bool:
        """Whether the session is stored (False when the store cannot be read)."""
        check_session_id(session_id)
        try:
            self._migrate()
            with self.db.transaction() as tx:
                row = tx.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone()
        except StorageError as exc:
            self._failed("read", exc)
            return False
        return row is not None

    def save_turn(
        self, session_id: str, answer: Answer, slots: Slots, facts: GroundingFacts | None = None
    ) -> bool:
        """Append a turn and replace the session's slots (creating the session if new). False
        (logged, counted) when the store cannot be written: the answer still goes out."""
        check_session_id(session_id)
        try:
            self._migrate()
            self._save(session_id, answer, slots, facts)
        except StorageError as exc:
            self._failed("write", exc)
            return False
        return True

    def _save(
        self, session_id: str, answer: Answer, slots: Slots, facts: GroundingFacts | None
    ) -> None:
        now = time.time()
        with self.db.transaction() as tx:
            tx.execute(
                "INSERT INTO sessions (id, created_at, updated_at, language, slots) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET updated_at = excluded."
                "updated_at, language = excluded.language, slots = excluded.slots",
                (
                    session_id,
                    now,
                    now,
                    answer.language,
                    slots.model_dump_json(exclude_defaults=True),
                ),
            )
            tx.execute(
                "INSERT INTO turns (session_id, message_id, created_at, question, answer, "
                "language, mode, answer_json, facts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    session_id,
                    answer.message_id,
                    now,
                    answer.question,
                    answer.answer,
                    answer.language,
                    answer.mode,
                    compact_answer_json(answer, session_id),
                    pack(facts.model_dump_json()) if facts is not None else None,
                ),
            )

    def answer(self, message_id: str) -> Answer | None:
        """A stored answer by its message id (feedback and Slack look answers up by it; an
        index). Raises StorageError when the store cannot be read."""
        self._migrate()
        with self.db.transaction() as tx:
            row = tx.execute(
                f"SELECT answer_json, {_SELECT_COLUMNS} FROM turns WHERE message_id = ?",
                (message_id,),
            ).fetchone()
        return load_answer(row[0], row[1:]) if row else None

    def recent_answers(
        self, limit: int = 10_000, since: float | None = None
    ) -> list[tuple[float, Answer]]:
        """Stored answers with their time (epoch seconds), newest first: the review and
        content-gap reports (`sizing feedback gaps`). Raises StorageError when unreadable."""
        self._migrate()
        where, params = ("WHERE created_at >= ? ", (since, limit)) if since else ("", (limit,))
        with self.db.transaction() as tx:
            rows = tx.execute(
                f"SELECT created_at, answer_json, {_SELECT_COLUMNS} FROM turns {where}"
                "ORDER BY seq DESC LIMIT ?",
                params,
            ).fetchall()
        return [(float(r[0]), load_answer(r[1], r[2:])) for r in rows]

    def delete(self, session_id: str) -> bool:
        check_session_id(session_id)
        self._migrate()
        with self.db.transaction() as tx:
            tx.execute("DELETE FROM turns WHERE session_id = ?", (session_id,))
            cur = tx.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
        return bool(cur.rowcount > 0)

    def prune(self, older_than_s: float, now: float | None = None) -> dict[str, int]:
        """Delete sessions not updated for `older_than_s` seconds, with their turns."""
        cutoff = (time.time() if now is None else now) - older_than_s
        self._migrate()
        with self.db.transaction() as tx:
            turns = tx.execute(
                "DELETE FROM turns WHERE session_id IN "
                "(SELECT id FROM sessions WHERE updated_at < ?)",
                (cutoff,),
            ).rowcount
            sessions = tx.execute("DELETE FROM sessions WHERE updated_at < ?", (cutoff,)).rowcount
        return {"sessions": int(sessions), "turns": int(turns)}

    def check(self, window_s: float = 60.0) -> dict[str, Any]:
        """Readable and writable, and no failed read or write in the last `window_s` seconds
        (a partly corrupt file passes a probe but fails real turns)? For /readyz; names the
        store, never a full path."""
        report = self.db.check()
        if report["ok"]:
            try:
                self._migrate()
                with self.db.transaction() as tx:
                    tx.execute(
                        "SELECT answer_json FROM turns ORDER BY seq DESC LIMIT 20"
                    ).fetchall()
            except StorageError as exc:
                return {"ok": False, "store": self.label, "error": exc.detail}
        last = self._last_failure
        if report["ok"] and last is not None and time.monotonic() - last[0] < window_s:
            report = {"ok": False, "store": self.label, "error": f"recent failure: {last[1]}"}
        return report


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
