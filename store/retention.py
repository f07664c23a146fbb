"""Retention: sessions and feedback older than `SIZING_RETENTION_DAYS` (default 90) are deleted,
with rate-limit buckets that have refilled, Slack keys past their time to live and Slack's
record of which session a thread / slash-command user / DM continues (same age as sessions).

Run by `sizing db prune` and, every `SIZING_PRUNE_INTERVAL_S`, by the server itself. Idempotent:
several replicas pruning the same PostgreSQL database at once is harmless.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

from store.db import DatabaseSettings, StorageError, open_database
from store.feedback import FeedbackStore
from store.sessions import SessionRows
from store.shared_state import SLACK_CONVERSATIONS, KeyValues, RateBuckets, SeenKeys

log = logging.getLogger("store.retention")

DAY_S = 86_400.0


class RetentionSettings(DatabaseSettings, Protocol):
    """What `prune` reads of the settings (SIZING_RETENTION_DAYS and the rate limit's
    SIZING_RATE_LIMIT_PER_MINUTE / SIZING_RATE_LIMIT_BURST, besides the database's)."""

    @property
    def retention_days(self) -> float: ...

    @property
    def rate_limit_per_minute(self) -> float: ...

    @property
    def rate_limit_burst(self) -> int: ...


class PrunableSessions(Protocol):
    """`store.sessions.SessionRows` or the assistant's SessionStore over it."""

    def prune(self, older_than_s: float) -> dict[str, int]: ...


def prune(
    settings: RetentionSettings,
    sessions: PrunableSessions | None = None,
    feedback: FeedbackStore | None = None,
    days: float | None = None,
) -> dict[str, Any]:
    """Delete what is older than the retention age; returns what was deleted per store (or the
    store's error). `days=0` (or SIZING_RETENTION_DAYS=0) keeps sessions and feedback."""
    days = settings.retention_days if days is None else days
    report: dict[str, Any] = {"retention_days": days}
    sessions = sessions or SessionRows.from_settings(settings)
    feedback = feedback or FeedbackStore.from_settings(settings)
    age = days * DAY_S
    steps = {
        "sessions": lambda: sessions.prune(age) if age > 0 else {"sessions": 0, "turns": 0},
        "feedback": lambda: {"votes": feedback.prune(age) if age > 0 else 0},
        "state": lambda: _prune_state(settings, age),
    }
    for name, step in steps.items():
        try:
            report[name] = step()
        except StorageError as exc:
            log.error("pruning %s failed (%s): %s", name, exc.label, exc.detail)
            report[name] = {"error": str(exc)}
    return report


def _prune_state(settings: RetentionSettings, age: float) -> dict[str, int]:
    db = open_database(settings, "state")
    buckets = RateBuckets(db, settings.rate_limit_per_minute, settings.rate_limit_burst)
    keys = SeenKeys(db, "slack")
    conversations = KeyValues(db, SLACK_CONVERSATIONS)
    return {
        "rate_buckets": buckets.prune(),
        "seen_keys": keys.prune(),
        "slack_conversations": conversations.prune(age) if age > 0 else 0,
    }
