"""State that every API worker and replica must share: rate-limit buckets, the keys of events
already handled (Slack de-duplication) and small named values (which session a Slack user's slash
commands, DMs and threads continue). In `state.sqlite3` under the data folder by default (shared
by the workers of one machine), in PostgreSQL with SIZING_DATABASE_URL (shared by all replicas).

    buckets = RateBuckets(open_database(settings, "state"), per_minute=30, burst=10)
    wait_s = buckets.take("203.0.113.7")         # 0.0: go ahead; else seconds for Retry-After

    seen = SeenKeys.from_settings(settings, namespace="slack", ttl_s=3600)
    if seen.first_time(event_id): ...             # atomic across processes and machines

    values = KeyValues.from_settings(settings, namespace="slack-conversations")
    values.put("cmd:slack-T1-C1-U1", {"session_id": "…", "at": 1700000000.0})
    values.get("cmd:slack-T1-C1-U1")             # the dict, or None

Times are wall-clock seconds (processes on several machines compare them).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from store.db import Busy, Database, DatabaseSettings, Migration, Transaction, open_database

SLACK_CONVERSATIONS = "slack-conversations"  # KeyValues namespace of api/slack/conversation.py

MIGRATIONS = [
    Migration(
        1,
        sqlite="CREATE TABLE IF NOT EXISTS rate_buckets (key TEXT PRIMARY KEY, "
        "tokens REAL NOT NULL, stamp REAL NOT NULL);"
        "CREATE TABLE IF NOT EXISTS seen_keys (namespace TEXT NOT NULL, key TEXT NOT NULL, "
        "seen_at REAL NOT NULL, PRIMARY KEY (namespace, key));"
        "CREATE INDEX IF NOT EXISTS seen_keys_by_age ON seen_keys(seen_at)",
        postgresql="CREATE TABLE IF NOT EXISTS rate_buckets (key TEXT PRIMARY KEY, "
        "tokens DOUBLE PRECISION NOT NULL, stamp DOUBLE PRECISION NOT NULL);"
        "CREATE TABLE IF NOT EXISTS seen_keys (namespace TEXT NOT NULL, key TEXT NOT NULL, "
        "seen_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (namespace, key));"
        "CREATE INDEX IF NOT EXISTS seen_keys_by_age ON seen_keys(seen_at)",
    ),
    Migration(
        2,
        sqlite="CREATE TABLE IF NOT EXISTS key_values (namespace TEXT NOT NULL, key TEXT NOT NULL, "
        "value TEXT NOT NULL, updated_at REAL NOT NULL, PRIMARY KEY (namespace, key));"
        "CREATE INDEX IF NOT EXISTS key_values_by_age ON key_values(updated_at)",
        postgresql="CREATE TABLE IF NOT EXISTS key_values (namespace TEXT NOT NULL, "
        "key TEXT NOT NULL, value TEXT NOT NULL, updated_at DOUBLE PRECISION NOT NULL, "
        "PRIMARY KEY (namespace, key));"
        "CREATE INDEX IF NOT EXISTS key_values_by_age ON key_values(updated_at)",
    ),
]


class RateBuckets:
    """Token buckets (`burst` tokens, refilled at per_minute/60 per second) in the database."""

    def __init__(
        self,
        db: Database,
        per_minute: float,
        burst: int,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.db = db
        self.enabled = per_minute > 0 and burst > 0
        self.rate = per_minute / 60.0
        self.burst = float(max(burst, 1))
        self._clock = clock
        if self.enabled:
            db.migrate("state", MIGRATIONS)

    def take(self, key: str) -> float:
        """0.0 when a token was taken, else the seconds until one is available."""
        if not self.enabled:
            return 0.0
        with self.db.transaction() as tx:
            return self._take(tx, key)

    def take_nowait(self, key: str) -> float | None:
        """`take` for an event loop: None (call `take` in a thread) when the store is not a
        local file or another process holds its write lock, so the loop never waits."""
        if not self.enabled:
            return 0.0
        if not self.db.supports_nowait:
            return None
        try:
            with self.db.transaction_nowait() as tx:
                return self._take(tx, key)
        except Busy:
            return None

    def _take(self, tx: Transaction, key: str) -> float:
        now = self._clock()
        lock = " FOR UPDATE" if self.db.dialect == "postgresql" else ""
        tx.lock_for_write()
        tx.execute(
            "INSERT INTO rate_buckets (key, tokens, stamp) VALUES (?, ?, ?) "
            "ON CONFLICT (key) DO NOTHING",
            (key, self.burst, now),
        )
        tokens, stamp = tx.execute(
            f"SELECT tokens, stamp FROM rate_buckets WHERE key = ?{lock}", (key,)
        ).fetchone()
        tokens = min(self.burst, float(tokens) + max(0.0, now - float(stamp)) * self.rate)
        wait = 0.0 if tokens >= 1.0 else (1.0 - tokens) / self.rate
        if wait == 0.0:
            tokens -= 1.0
        tx.execute(
            "UPDATE rate_buckets SET tokens = ?, stamp = ? WHERE key = ?", (tokens, now, key)
        )
        return wait

    def prune(self) -> int:
        """Forget buckets that have refilled completely (idle long enough)."""
        if not self.enabled:
            return 0
        full_after = self.burst / self.rate
        with self.db.transaction() as tx:
            tx.allow_slow()  # pruning may take longer than a statement may
            cur = tx.execute(
                "DELETE FROM rate_buckets WHERE stamp < ?", (self._clock() - full_after,)
            )
            return int(cur.rowcount)


class SeenKeys:
    """Keys seen in the last `ttl_s` seconds, per namespace; `first_time` is atomic across
    processes (a primary-key insert decides)."""

    def __init__(
        self,
        db: Database,
        namespace: str,
        ttl_s: float = 3600.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.db = db
        self.namespace = namespace
        self.ttl_s = ttl_s
        self._clock = clock
        db.migrate("state", MIGRATIONS)

    @classmethod
    def from_settings(
        cls, settings: DatabaseSettings, namespace: str, ttl_s: float = 3600.0
    ) -> SeenKeys:
        return cls(open_database(settings, "state"), namespace, ttl_s)

    def first_time(self, key: str) -> bool:
        """True the first time `key` is offered within ttl_s (and remembers it), else False."""
        now = self._clock()
        with self.db.transaction() as tx:
            tx.execute(
                "DELETE FROM seen_keys WHERE namespace = ? AND key = ? AND seen_at < ?",
                (self.namespace, key, now - self.ttl_s),
            )
            cur = tx.execute(
                "INSERT INTO seen_keys (namespace, key, seen_at) VALUES (?, ?, ?) "
                "ON CONFLICT (namespace, key) DO NOTHING",
                (self.namespace, key, now),
            )
            return bool(cur.rowcount == 1)

    def __contains__(self, key: str) -> bool:
        with self.db.transaction() as tx:
            row = tx.execute(
                "SELECT 1 FROM seen_keys WHERE namespace = ? AND key = ? AND seen_at >= ?",
                (self.namespace, key, self._clock() - self.ttl_s),
            ).fetchone()
        return row is not None

    def prune(self) -> int:
        with self.db.transaction() as tx:
            tx.allow_slow()  # pruning may take longer than a statement may
            cur = tx.execute(
                "DELETE FROM seen_keys WHERE namespace = ? AND seen_at < ?",
                (self.namespace, self._clock() - self.ttl_s),
            )
            return int(cur.rowcount)


class KeyValues:
    """Small JSON values by key, per namespace; the last `put` wins (an upsert), so every worker
    and replica reads what any of them wrote last."""

    def __init__(
        self, db: Database, namespace: str, clock: Callable[[], float] = time.time
    ) -> None:
        self.db = db
        self.namespace = namespace
        self._clock = clock
        db.migrate("state", MIGRATIONS)

    @classmethod
    def from_settings(cls, settings: DatabaseSettings, namespace: str) -> KeyValues:
        return cls(open_database(settings, "state"), namespace)

    def get(self, key: str) -> Any:
        """The value last put under `key`, or None."""
        with self.db.transaction() as tx:
            row = tx.execute(
                "SELECT value FROM key_values WHERE namespace = ? AND key = ?",
                (self.namespace, key),
            ).fetchone()
        return None if row is None else json.loads(row[0])

    def put(self, key: str, value: Any) -> None:
        with self.db.transaction() as tx:
            tx.execute(
                "INSERT INTO key_values (namespace, key, value, updated_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, "
                "updated_at = excluded.updated_at",
                (self.namespace, key, json.dumps(value), self._clock()),
            )

    def prune(self, older_than_s: float) -> int:
        """Forget values not written for `older_than_s` seconds."""
        with self.db.transaction() as tx:
            tx.allow_slow()  # pruning may take longer than a statement may
            cur = tx.execute(
                "DELETE FROM key_values WHERE namespace = ? AND updated_at < ?",
                (self.namespace, self._clock() - older_than_s),
            )
            return int(cur.rowcount)
