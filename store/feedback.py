"""Feedback on answers (👍/👎, a 👎's reasons, an optional comment): by default
`<data_dir>/feedback.sqlite3`, PostgreSQL when SIZING_DATABASE_URL is set (see store.db).

Used by the HTTP API (`POST /api/feedback`, the widget's buttons) and the Slack bot (reaction
buttons). One row per vote; a later vote on the same message from the same session replaces the
earlier one, so toggling 👍 -> 👎 keeps a single, current rating.

    store = FeedbackStore.from_settings(settings)   # or FeedbackStore.open(data_dir): SQLite
    store.record(session_id="s1", message_id="m1", rating="up", comment=None, source="web")
    store.record("s1", "m1", "down", "the price is per year?", reasons=["wrong", "unclear"])

Read API (stable; `sizing feedback list/export` builds on it):

    store.get("s1", "m1")          -> Feedback | None
    store.all(limit=1000)          -> list[Feedback], newest first
    store.iter_all(batch=500)      -> Iterator[Feedback], oldest first (exports)
    store.summary()                -> {"up": 3, "down": 1}
    store.prune(older_than_s)      -> rows deleted (retention, `sizing db prune`)

A store that cannot be read or written raises `store.db.StorageError` (the message names the
store, never a full path).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from store.db import (
    Database,
    DatabaseSettings,
    Migration,
    SQLiteDatabase,
    StorageError,
    open_database,
)

log = logging.getLogger("store.feedback")

FEEDBACK_FILE = "feedback.sqlite3"
MAX_COMMENT_CHARS = 2000

RatingInput = Literal[1, -1, "up", "down", "+1", "-1", "👍", "👎"]
#: what a 👎 may say was wrong (issue 26): the widget offers them as choices
Reason = Literal["wrong", "unclear", "too_long", "missed_question"]
REASONS: tuple[Reason, ...] = ("wrong", "unclear", "too_long", "missed_question")

_COLUMNS = 'id, session_id, message_id, rating, comment, source, "user", created_at, reasons'
_FIELDS = (
    "id",
    "session_id",
    "message_id",
    "rating",
    "comment",
    "source",
    "user",
    "created_at",
    "reasons",
)

MIGRATIONS = [
    Migration(
        1,
        sqlite="""
CREATE TABLE IF NOT EXISTS feedback (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    rating INTEGER NOT NULL CHECK (rating IN (-1, 1)),
    comment TEXT,
    source TEXT NOT NULL DEFAULT 'web',
    user TEXT,
    created_at TEXT NOT NULL,
    UNIQUE (session_id, message_id)
)""",
        postgresql="""
CREATE TABLE IF NOT EXISTS feedback (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    session_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    rating INTEGER NOT NULL CHECK (rating IN (-1, 1)),
    comment TEXT,
    source TEXT NOT NULL DEFAULT 'web',
    "user" TEXT,
    created_at TEXT NOT NULL,
    UNIQUE (session_id, message_id)
)""",
    ),
    Migration(
        2,
        sqlite="CREATE INDEX IF NOT EXISTS feedback_by_age ON feedback(created_at)",
        postgresql="CREATE INDEX IF NOT EXISTS feedback_by_age ON feedback(created_at)",
    ),
    Migration(  # issue 26: the reasons of a 👎, comma-separated (NULL: none given)
        3,
        sqlite="ALTER TABLE feedback ADD COLUMN reasons TEXT",
        postgresql="ALTER TABLE feedback ADD COLUMN IF NOT EXISTS reasons TEXT",
    ),
]


class FeedbackError(ValueError):
    """Invalid feedback (bad rating, empty ids, comment too long)."""


class Feedback(BaseModel):
    id: int
    session_id: str
    message_id: str
    rating: Literal[1, -1] = Field(description="+1 (helpful) or -1 (not helpful)")
    comment: str | None = None
    source: str = Field(default="web", description="web, api, slack, ...")
    user: str | None = Field(default=None, description="e.g. the Slack user id")
    created_at: str = Field(description="ISO 8601 UTC timestamp")
    reasons: list[Reason] = Field(
        default=[],
        description="what a 👎 said was wrong: wrong, unclear, too_long, missed_question",
    )


def normalize_rating(rating: object) -> Literal[1, -1]:
    """Map +1/-1, "up"/"down" and 👍/👎 to 1 or -1; anything else raises FeedbackError."""
    if isinstance(rating, bool):
        raise FeedbackError("rating must be +1/-1 or 'up'/'down'")
    if isinstance(rating, int | float) and rating in (1, -1):
        return 1 if rating > 0 else -1
    if isinstance(rating, str):
        value = rating.strip().lower()
        if value in ("up", "+1", "1", "👍", "thumbsup", "+"):
            return 1
        if value in ("down", "-1", "👎", "thumbsdown", "-"):
            return -1
    raise FeedbackError(f"rating must be +1/-1 or 'up'/'down', got {rating!r}")


def answer_exists(sessions: Any, session_id: str, message_id: str) -> bool | None:
    """Whether the session store holds this answer in this session (None: cannot tell). Any
    store with `answer(message_id)`: the assistant's SessionStore (an Answer) or
    `store.sessions.SessionRows` (the answer's JSON object)."""
    lookup = getattr(sessions, "answer", None)
    if lookup is None:
        return None
    try:
        answer = lookup(message_id)
    except StorageError:
        return None
    if answer is None:
        return False
    owner = answer.get("session_id") if isinstance(answer, dict) else answer.session_id
    return bool(owner == session_id)


def _row(row: Any) -> Feedback:
    data = dict(zip(_FIELDS, row, strict=True))
    data["reasons"] = [r for r in (data.get("reasons") or "").split(",") if r in REASONS]
    return Feedback(**data)


def normalize_reasons(reasons: Any) -> str | None:
    """The reasons as stored ("wrong,unclear"; None for none); an unknown one raises."""
    if not reasons:
        return None
    if isinstance(reasons, str):
        reasons = [reasons]
    out: list[str] = []
    for reason in reasons:
        value = str(reason).strip().lower().replace("-", "_").replace(" ", "_")
        if value not in REASONS:
            raise FeedbackError(f"reason must be one of {', '.join(REASONS)}, got {reason!r}")
        if value not in out:
            out.append(value)
    return ",".join(out)


def _iso(ts: datetime) -> str:
    return ts.astimezone(UTC).isoformat(timespec="seconds")


class FeedbackStore:
    """Thread-safe; SQLite file or PostgreSQL (see store.db)."""

    def __init__(self, db: Database | Path) -> None:
        self.db: Database = db if isinstance(db, Database) else SQLiteDatabase(Path(db))
        self._lock = threading.Lock()
        self.write_failures = 0
        self._last_failure: tuple[float, str] | None = None  # (monotonic, public text)
        try:
            self._migrate()
        except StorageError as exc:  # reported at /readyz; each call tries again
            log.error("feedback store cannot be opened (%s): %s", exc.label, exc.detail)

    def _migrate(self) -> None:
        self.db.migrate("feedback", MIGRATIONS)

    @classmethod
    def open(cls, data_dir: Path) -> FeedbackStore:
        return cls(Path(data_dir) / FEEDBACK_FILE)

    @classmethod
    def from_settings(cls, settings: DatabaseSettings) -> FeedbackStore:
        return cls(open_database(settings, "feedback"))

    def record(
        self,
        session_id: str,
        message_id: str,
        rating: object,
        comment: str | None = None,
        source: str = "web",
        user: str | None = None,
        reasons: Any = None,
    ) -> Feedback:
        """Store (or replace) the rating of one answer and return the stored row. `reasons`
        (a 👎 only): what was wrong, from `REASONS`; a later 👍 clears them."""
        session_id, message_id = (session_id or "").strip(), (message_id or "").strip()
        if not session_id or not message_id:
            raise FeedbackError("session_id and message_id are required")
        value = normalize_rating(rating)
        comment = (comment or "").strip() or None
        if comment is not None and len(comment) > MAX_COMMENT_CHARS:
            raise FeedbackError(f"comment is longer than {MAX_COMMENT_CHARS} characters")
        why = normalize_reasons(reasons) if value == -1 else None
        now = _iso(datetime.now(UTC))
        try:
            return self._write(session_id, message_id, value, comment, source, user, now, why)
        except StorageError as exc:  # counted, and shown by /readyz for a minute (check)
            with self._lock:
                self.write_failures += 1
                self._last_failure = (time.monotonic(), exc.public)
            raise

    def _write(self, *values: Any) -> Feedback:
        session_id, message_id = values[0], values[1]
        self._migrate()
        with self._lock, self.db.transaction() as tx:
            tx.execute(
                'INSERT INTO feedback (session_id, message_id, rating, comment, source, "user",'
                " created_at, reasons) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (session_id, message_id) DO UPDATE SET rating = excluded.rating,"
                " comment = COALESCE(excluded.comment, feedback.comment),"
                ' source = excluded.source, "user" = excluded."user",'
                " created_at = excluded.created_at,"
                " reasons = CASE WHEN excluded.rating = 1 THEN NULL"
                " ELSE COALESCE(excluded.reasons, feedback.reasons) END",
                values,
            )
            row = tx.execute(
                f"SELECT {_COLUMNS} FROM feedback WHERE session_id = ? AND message_id = ?",
                (session_id, message_id),
            ).fetchone()
        return _row(row)

    def get(self, session_id: str, message_id: str) -> Feedback | None:
        self._migrate()
        with self.db.transaction() as tx:
            row = tx.execute(
                f"SELECT {_COLUMNS} FROM feedback WHERE session_id = ? AND message_id = ?",
                (session_id, message_id),
            ).fetchone()
        return _row(row) if row else None

    def all(self, limit: int = 1000) -> list[Feedback]:
        """The newest `limit` votes, newest first."""
        self._migrate()
        with self.db.transaction() as tx:
            rows = tx.execute(
                f"SELECT {_COLUMNS} FROM feedback ORDER BY id DESC LIMIT ?", (limit,)
            ).fetchall()
        return [_row(r) for r in rows]

    def iter_all(self, batch: int = 500) -> Iterator[Feedback]:
        """Every vote, oldest first, read in batches (for exports of any size)."""
        self._migrate()
        last = 0
        while True:
            with self.db.transaction() as tx:
                rows = tx.execute(
                    f"SELECT {_COLUMNS} FROM feedback WHERE id > ? ORDER BY id LIMIT ?",
                    (last, batch),
                ).fetchall()
            if not rows:
                return
            for r in rows:
                yield _row(r)
            last = int(rows[-1][0])

    def summary(self) -> dict[str, int]:
        self._migrate()
        with self.db.transaction() as tx:
            rows = tx.execute("SELECT rating, COUNT(*) FROM feedback GROUP BY rating").fetchall()
        counts = {int(r[0]): int(r[1]) for r in rows}
        return {"up": counts.get(1, 0), "down": counts.get(-1, 0)}

    def prune(self, older_than_s: float, now: datetime | None = None) -> int:
        """Delete votes older than `older_than_s` seconds; returns how many."""
        cutoff = (now or datetime.now(UTC)) - timedelta(seconds=older_than_s)
        self._migrate()
        with self._lock, self.db.transaction() as tx:
            tx.allow_slow()  # pruning may take longer than a statement may
            return int(
                tx.execute("DELETE FROM feedback WHERE created_at < ?", (_iso(cutoff),)).rowcount
            )

    def check(self, window_s: float = 60.0) -> dict[str, Any]:
        """Readable and writable (store.db), and no failed feedback write in the last
        `window_s` seconds (issue 27: a write probe may pass where real writes fail)."""
        report = self.db.check()
        last = self._last_failure
        recent = last is not None and time.monotonic() - last[0] < window_s
        if report["ok"] and last is not None and recent and last[0] >= self.db.recovered_at:
            error = f"recent failed write ({self.write_failures} in all): {last[1]}"
            return {"ok": False, "store": self.db.public_label, "error": error}
        return report
