"""Conversation sessions as rows: `<data_dir>/sessions.sqlite3` by default, PostgreSQL when
SIZING_DATABASE_URL is set (see store.db).

A session keeps its turns (question, answer, the answer's JSON, what its tool results established)
and the conversation's *slots* (a JSON object) so a follow-up reuses what earlier turns
established. Everything is in the database: a new process (or another replica) continues the
conversation. The store knows JSON text and plain rows only; `assistant/sessions.py` turns them
into the assistant's typed `Session`, `Turn` and `Answer`.

Degrade, never fail: a store that cannot be read or written (read-only folder, corrupt file,
database down) costs the conversation its memory, never the answer. `get` then returns None and
`save_turn` returns False; both log one line naming the store (the file name relative to the data
folder) and count the failure in `failures` (exported as a metric by the API).

Stored compactly: the answer's JSON and the facts are packed (zlib, base64; see `pack`), and the
answer's JSON leaves out the fields the turn keeps in columns of its own. `prune(older_than_s)`
deletes sessions idle for longer (retention).
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

from store.db import (
    Database,
    DatabaseSettings,
    Migration,
    SQLiteDatabase,
    StorageError,
    open_database,
)

log = logging.getLogger("store.sessions")

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


class InvalidSessionId(ValueError):
    """A session id with characters or a length the store does not accept."""


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


# the answer fields a turn keeps in columns of its own (not repeated in `answer_json`)
TURN_COLUMNS = ("question", "answer", "language", "mode", "message_id")
# a packed column: "z1:" + base64(zlib(JSON)); rows written before it hold plain JSON
PACKED = "z1:"


@lru_cache(maxsize=1024)
def pack(text: str) -> str:
    """JSON as stored: zlib-compressed, base64 (ASCII, so a TEXT column in either database).
    The same text packs the same (the facts and answer of a repeated question): once."""
    return PACKED + base64.b64encode(zlib.compress(text.encode(), 6)).decode("ascii")


def unpack(stored: str) -> str:
    """The JSON of a stored column, packed (see `pack`) or plain (older rows)."""
    if stored.startswith(PACKED):
        return zlib.decompress(base64.b64decode(stored[len(PACKED) :])).decode()
    return stored


class TurnRow(BaseModel):
    """A stored turn as read back."""

    message_id: str
    question: str
    answer: str
    language: str
    mode: str
    created_at: float
    facts: str | None = Field(default=None, description="the facts' JSON as written (unpacked)")


class SessionRow(BaseModel):
    """A stored session with its last turns, oldest first."""

    id: str
    language: str | None = None
    slots: str = Field(default="{}", description="the slots' JSON as written")
    turns: list[TurnRow] = Field(default_factory=list)


class NewTurn(BaseModel):
    """A turn to store: the answer's column fields, the rest of the answer as JSON (without the
    column fields; `answer_data` puts them back) and the facts' JSON. Both JSON texts are packed
    on write (see `pack`)."""

    message_id: str
    question: str
    answer: str
    language: str
    mode: str
    answer_json: str
    facts: str | None = None


_SELECT_COLUMNS = ", ".join((*TURN_COLUMNS, "session_id"))


def answer_data(stored: str, columns: Sequence[Any]) -> dict[str, Any]:
    """A stored answer as a JSON object: `answer_json` plus the turn's columns
    (`_SELECT_COLUMNS`; rows written before packing hold the whole answer in `answer_json`)."""
    data: dict[str, Any] = json.loads(unpack(stored))
    if stored.startswith(PACKED):
        data.update(zip(TURN_COLUMNS, columns[: len(TURN_COLUMNS)], strict=True))
        data.setdefault("session_id", columns[len(TURN_COLUMNS)])
    return data


class SessionRows:
    """Sessions and their turns in a database (a SQLite file by default), as plain rows."""

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
    def in_data_dir(cls, data_dir: Path) -> SessionRows:
        return cls(Path(data_dir) / "sessions.sqlite3")

    @classmethod
    def from_settings(cls, settings: DatabaseSettings) -> SessionRows:
        return cls(open_database(settings, "sessions"))

    @property
    def label(self) -> str:
        return self.db.label

    def _migrate(self) -> None:
        self.db.migrate("sessions", MIGRATIONS)

    def _failed(self, operation: str, exc: StorageError) -> None:
        with self._lock:
            self.failures[operation] += 1
            self._last_failure = (time.monotonic(), exc.public)  # shown by /readyz
        log.error(
            "session store %s failed (%s): %s; answering without conversation memory",
            operation,
            exc.label,
            exc.detail,
        )

    def close(self) -> None:
        self.db.close()

    def get(self, session_id: str, max_turns: int = 20) -> SessionRow | None:
        """The session with its last `max_turns` turns (oldest first), or None (also when the
        store cannot be read: logged and counted)."""
        check_session_id(session_id)
        try:
            self._migrate()
            return self._get(session_id, max_turns)
        except StorageError as exc:
            self._failed("read", exc)
            return None

    def _get(self, session_id: str, max_turns: int) -> SessionRow | None:
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
            TurnRow(
                message_id=r[0],
                question=r[1],
                answer=r[2],
                language=r[3],
                mode=r[4],
                created_at=r[5],
                facts=unpack(r[6]) if r[6] else None,
            )
            for r in reversed(rows)
        ]
        return SessionRow(id=session_id, language=row[0], slots=row[1] or "{}", turns=turns)

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

    def save_turn(self, session_id: str, turn: NewTurn, slots: str) -> bool:
        """Append a turn and replace the session's slots (JSON) and language (the turn's),
        creating the session if new. False (logged, counted) when the store cannot be written:
        the answer still goes out."""
        check_session_id(session_id)
        try:
            self._migrate()
            self._save(session_id, turn, slots)
        except StorageError as exc:
            self._failed("write", exc)
            return False
        return True

    def _save(self, session_id: str, turn: NewTurn, slots: str) -> None:
        now = time.time()
        with self.db.transaction() as tx:
            tx.execute(
                "INSERT INTO sessions (id, created_at, updated_at, language, slots) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET updated_at = excluded."
                "updated_at, language = excluded.language, slots = excluded.slots",
                (session_id, now, now, turn.language, slots),
            )
            tx.execute(
                "INSERT INTO turns (session_id, message_id, created_at, question, answer, "
                "language, mode, answer_json, facts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    session_id,
                    turn.message_id,
                    now,
                    turn.question,
                    turn.answer,
                    turn.language,
                    turn.mode,
                    pack(turn.answer_json),
                    pack(turn.facts) if turn.facts is not None else None,
                ),
            )

    def answer(self, message_id: str) -> dict[str, Any] | None:
        """A stored answer (JSON object, see `answer_data`) by its message id (feedback and
        Slack look answers up by it; an index). Raises StorageError when unreadable."""
        self._migrate()
        with self.db.transaction() as tx:
            row = tx.execute(
                f"SELECT answer_json, {_SELECT_COLUMNS} FROM turns WHERE message_id = ?",
                (message_id,),
            ).fetchone()
        return answer_data(row[0], row[1:]) if row else None

    def recent_answers(
        self, limit: int = 10_000, since: float | None = None
    ) -> list[tuple[float, dict[str, Any]]]:
        """Stored answers (JSON objects) with their time (epoch seconds), newest first: the
        review and content-gap reports. Raises StorageError when unreadable."""
        self._migrate()
        where, params = ("WHERE created_at >= ? ", (since, limit)) if since else ("", (limit,))
        with self.db.transaction() as tx:
            rows = tx.execute(
                f"SELECT created_at, answer_json, {_SELECT_COLUMNS} FROM turns {where}"
                "ORDER BY seq DESC LIMIT ?",
                params,
            ).fetchall()
        return [(float(r[0]), answer_data(r[1], r[2:])) for r in rows]

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
            tx.allow_slow()  # pruning may take longer than a statement may
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
                return {"ok": False, "store": self.db.public_label, "error": exc.public}
        last = self._last_failure
        if last is not None and last[0] < self.db.recovered_at:  # an outage that has ended
            last = None
        if report["ok"] and last is not None and time.monotonic() - last[0] < window_s:
            error = f"recent failure: {last[1]}"
            report = {"ok": False, "store": self.db.public_label, "error": error}
        return report
