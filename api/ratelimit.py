"""Per-client token-bucket rate limiting (in memory, one bucket per client key)."""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable


class RateLimiter:
    """Token bucket: `burst` tokens, refilled at `per_minute / 60` tokens per second.

    `take(key)` returns 0.0 when the request may proceed, otherwise the seconds until a token is
    available (for Retry-After). `per_minute <= 0` disables the limit. The number of tracked
    clients is bounded (least recently seen buckets are dropped first).
    """

    def __init__(
        self,
        per_minute: float,
        burst: int,
        max_clients: int = 100_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.enabled = per_minute > 0 and burst > 0
        self.rate = per_minute / 60.0
        self.burst = float(max(burst, 1))
        self.max_clients = max_clients
        self._clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, key: str) -> float:
        if not self.enabled:
            return 0.0
        now = self._clock()
        with self._lock:
            tokens, stamp = self._buckets.pop(key, (self.burst, now))
            tokens = min(self.burst, tokens + (now - stamp) * self.rate)
            if tokens >= 1.0:
                self._buckets[key] = (tokens - 1.0, now)
                wait = 0.0
            else:
                self._buckets[key] = (tokens, now)
                wait = (1.0 - tokens) / self.rate
            while len(self._buckets) > self.max_clients:
                self._buckets.popitem(last=False)
        return wait

    @staticmethod
    def retry_after_header(wait_s: float) -> str:
        """Retry-After is whole seconds, rounded up (never 0 for a refused request)."""
        return str(max(1, math.ceil(wait_s)))
