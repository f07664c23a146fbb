"""Feedback on answers (👍/👎 plus an optional comment), stored in SQLite under the data dir.

Used by the HTTP API (`POST /api/feedback`, the widget's buttons) and the Slack bot (reaction
buttons). One row per vote; a later vote on the same message from the same session replaces the
earlier one, so toggling 👍 -> 👎 keeps a single, current rating.

    store = FeedbackStore.open(settings.data_dir)      # <data_dir>/feedback.sqlite3
    store.record(session_id="s1", message_id="m1", rating="up", comment=None, source="web")
    store.get("s1", "m1")  -> Feedback | None
    store.summary()        -> {"up": 3, "down": 1}
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

FEEDBACK_FILE = "feedback.sqlite3"
MAX_COMMENT_CHARS = 2000

RatingInput = Literal[1, -1, "up", "down", "+1", "-1", "👍", "👎"]

_SCHEMA = """
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
);
"""


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
    """Whether the session store holds this answer in this session (None: cannot tell)."""
    lookup = getattr(sessions, "answer", None)
    if lookup is None:
        return None
    answer = lookup(message_id)
    return answer is not None and answer.session_id == session_id


class FeedbackStore:
    """A small thread-safe SQLite store. One connection per call (SQLite is fast at that)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        with self._connect() as db:
            db.executescript(_SCHEMA)

    @classmethod
    def open(cls, data_dir: Path) -> FeedbackStore:
        return cls(Path(data_dir) / FEEDBACK_FILE)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=10)
        db.row_factory = sqlite3.Row
        try:
            with db:  # commit on success, roll back on error
                yield db
        finally:
            db.close()

    def record(
        self,
        session_id: str,
        message_id: str,
        rating: object,
        comment: str | None = None,
        source: str = "web",
        user: str | None = None,
    ) -> Feedback:
        """Store (or replace) the rating of one answer and return the stored row."""
        session_id, message_id = (session_id or "").strip(), (message_id or "").strip()
        if not session_id or not message_id:
            raise FeedbackError("session_id and message_id are required")
        value = normalize_rating(rating)
        comment = (comment or "").strip() or None
        if comment is not None and len(comment) > MAX_COMMENT_CHARS:
            raise FeedbackError(f"comment is longer than {MAX_COMMENT_CHARS} characters")
        now = datetime.now(UTC).isoformat(timespec="seconds")
        with self._lock, self._connect() as db:
            db.execute(
                "INSERT INTO feedback (session_id, message_id, rating, comment, source, user,"
                " created_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (session_id, message_id) DO UPDATE SET rating = excluded.rating,"
                " comment = COALESCE(excluded.comment, feedback.comment),"
                " source = excluded.source, user = excluded.user,"
                " created_at = excluded.created_at",
                (session_id, message_id, value, comment, source, user, now),
            )
            row = db.execute(
                "SELECT * FROM feedback WHERE session_id = ? AND message_id = ?",
                (session_id, message_id),
            ).fetchone()
        return Feedback(**dict(row))

    def get(self, session_id: str, message_id: str) -> Feedback | None:
        with self._connect() as db:
            row = db.execute(
                "SELECT * FROM feedback WHERE session_id = ? AND message_id = ?",
                (session_id, message_id),
            ).fetchone()
        return Feedback(**dict(row)) if row else None

    def all(self, limit: int = 1000) -> list[Feedback]:
        with self._connect() as db:
            rows = db.execute("SELECT * FROM feedback ORDER BY id DESC LIMIT ?", (limit,))
            return [Feedback(**dict(r)) for r in rows.fetchall()]

    def summary(self) -> dict[str, int]:
        with self._connect() as db:
            rows = db.execute("SELECT rating, COUNT(*) FROM feedback GROUP BY rating").fetchall()
        counts = {int(r[0]): int(r[1]) for r in rows}
        return {"up": counts.get(1, 0), "down": counts.get(-1, 0)}
