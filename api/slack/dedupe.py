"""Answer each Slack event once.

Slack re-sends an event (with `X-Slack-Retry-Num`) when it did not get a 200 within 3 seconds,
and can deliver the same message twice (e.g. as `app_mention` and as `message`). Every delivery
carries an `event_id`; a message is identified by channel + ts. This keeps the keys seen in the
last `ttl_s` seconds (bounded in size) and says whether a key is new, atomically.
"""

import threading
import time
from collections import OrderedDict
from collections.abc import Callable


class Deduplicator:
    def __init__(
        self,
        ttl_s: float = 3600.0,
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
