"""Answer each Slack event once.

Slack re-sends an event (with `X-Slack-Retry-Num`) when it did not get a 200 within 3 seconds,
and can deliver the same message twice (e.g. as `app_mention` and as `message`). Every delivery
carries an `event_id`; a message is identified by channel + ts.

- `SharedDeduplicator` (what the bot uses): the keys live in the shared state store
  (`store.shared_state.SeenKeys`, namespace "slack": `state.sqlite3` under the data folder, or
  PostgreSQL with SIZING_DATABASE_URL), so two workers or replicas never answer one event twice.
  If the store cannot be written, it falls back to the in-process memory for that key (logged):
  an event may then be answered twice across workers, but it is never dropped.
- `Deduplicator`: the keys seen in the last `ttl_s` seconds in process memory (bounded in size);
  the fallback, and what tests without a store use.
"""

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from assistant.settings import Settings
from store.db import StorageError
from store.shared_state import SeenKeys

log = logging.getLogger("sizing.slack")

TTL_S = 3600.0


class Deduplicator:
    def __init__(
        self,
        ttl_s: float = TTL_S,
        max_entries: int = 50_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ttl_s = ttl_s
        self.max_entries = max_entries
        self._clock = clock
        self._seen: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()

    def first_time(self, key: str) -> bool:
        """True the first time `key` is offered (and remembers it); False while it is remembered."""
        now = self._clock()
        with self._lock:
            self._expire(now)
            if key in self._seen:
                return False
            self._seen[key] = now
            while len(self._seen) > self.max_entries:
                self._seen.popitem(last=False)
            return True

    def __contains__(self, key: str) -> bool:
        with self._lock:
            self._expire(self._clock())
            return key in self._seen

    def __len__(self) -> int:
        with self._lock:
            return len(self._seen)

    def _expire(self, now: float) -> None:
        while self._seen:
            key, seen_at = next(iter(self._seen.items()))
            if now - seen_at < self.ttl_s:
                break
            del self._seen[key]


class SharedDeduplicator:
    """`first_time(key)` decided by the shared store, atomically across processes and machines."""

    def __init__(self, seen: SeenKeys) -> None:
        self.seen = seen
        self.fallback = Deduplicator(ttl_s=seen.ttl_s)

    @classmethod
    def from_settings(cls, settings: Settings) -> "SharedDeduplicator":
        return cls(SeenKeys.from_settings(settings, "slack", TTL_S))

    def first_time(self, key: str) -> bool:
        try:
            return self.seen.first_time(key)
        except StorageError as error:
            log.warning("slack: de-duplication store failed (%s); this process decides", error)
            return self.fallback.first_time(key)
