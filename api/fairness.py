"""Fair use of the embedder: what one new question costs is charged to the client that asked it.

A normal question costs the embedder 5-30 ms; 2,000 characters of non-dictionary text cost up to
its 512-token window, about a second of CPU or more. Requests per minute cannot tell the two
apart, so a client within the request limit could starve everyone. Here:

- `CostLimiter`: a token bucket per client measured in embedder *seconds* (refilled at
  `SIZING_EMBED_BUDGET_S_PER_MINUTE`); a client in debt gets 429 + Retry-After (the time to pay
  it back) before its next answer starts.
- `EmbedGate`: the embedder runs at most `SIZING_EMBED_CONCURRENCY` at once; waiting calls are
  served cheapest client first (by recent cost), not first come; when `SIZING_EMBED_QUEUE` are
  already waiting, new requests are refused with 503 + Retry-After before they queue up, so the
  queue (and everyone's latency) stays bounded.
- `MeteredEmbedder`: wraps the retriever's embedder; each query embedding goes through the gate,
  its wall time is charged to the client of the current request (`current_client`).
"""

from __future__ import annotations

import heapq
import itertools
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, TypeVar

T = TypeVar("T")

current_client: ContextVar[str | None] = ContextVar("sizing_client", default=None)


class EmbedderBusy(RuntimeError):
    """The embedder's queue is full (the caller answers from keywords or refuses with 503)."""


class CostLimiter:
    """Per-client budget of embedder seconds: `budget_s` to start, refilled at
    `budget_s` per minute. `charge` may take a client below zero (the cost is known only
    afterwards); `wait` then says how long until it is back at zero."""

    def __init__(
        self,
        budget_s_per_minute: float,
        max_clients: int = 100_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.enabled = budget_s_per_minute > 0
        self.capacity = budget_s_per_minute
        self.rate = budget_s_per_minute / 60.0
        self.max_clients = max_clients
        self._clock = clock
        self._balances: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def _balance(self, key: str, now: float) -> float:
        balance, stamp = self._balances.pop(key, (self.capacity, now))
        return min(self.capacity, balance + (now - stamp) * self.rate)

    def balance(self, key: str) -> float:
        now = self._clock()
        with self._lock:
            value = self._balance(key, now)
            self._balances[key] = (value, now)
        return value

    def wait(self, key: str) -> float:
        """0.0 when the client may start an answer, else seconds until its debt is paid."""
        if not self.enabled:
            return 0.0
        balance = self.balance(key)
        return 0.0 if balance >= 0 else -balance / self.rate

    def charge(self, key: str, cost_s: float) -> None:
        if not self.enabled:
            return
        now = self._clock()
        with self._lock:
            self._balances[key] = (self._balance(key, now) - cost_s, now)
            while len(self._balances) > self.max_clients:
                self._balances.popitem(last=False)

    def spent(self, key: str) -> float:
        """How far below a full budget the client is (0 for a client that spent nothing)."""
        return self.capacity - self.balance(key) if self.enabled else 0.0


class EmbedGate:
    """At most `concurrency` embeddings at once; at most `max_queue` waiting (more raise
    EmbedderBusy); the waiting client that spent least goes first."""

    def __init__(self, concurrency: int, max_queue: int, limiter: CostLimiter) -> None:
        self.concurrency = max(1, concurrency)
        self.max_queue = max(0, max_queue)
        self.limiter = limiter
        self._cond = threading.Condition()
        self._active = 0
        self._waiting: list[tuple[float, int]] = []
        self._seq = itertools.count()
        self.shed = 0  # calls refused because the queue was full (a metric)
        self.recent_cost_s = 0.05  # moving average of one embedding (for Retry-After)

    @property
    def queued(self) -> int:
        with self._cond:
            return len(self._waiting)

    def full(self) -> bool:
        with self._cond:
            return self._active >= self.concurrency and len(self._waiting) >= self.max_queue

    def retry_after_s(self) -> float:
        """About how long until the queue has drained."""
        with self._cond:
            backlog = len(self._waiting) + self._active
        return max(1.0, backlog * self.recent_cost_s / self.concurrency)

    def run(self, fn: Callable[[], T]) -> T:
        client = current_client.get()
        priority = self.limiter.spent(client) if client else 0.0
        with self._cond:
            if self._active >= self.concurrency and len(self._waiting) >= self.max_queue:
                self.shed += 1
                raise EmbedderBusy("the embedder is busy")
            ticket = (priority, next(self._seq))
            heapq.heappush(self._waiting, ticket)
            while self._active >= self.concurrency or self._waiting[0] != ticket:
                self._cond.wait()
            heapq.heappop(self._waiting)
            self._active += 1
        start = time.perf_counter()
        try:
            return fn()
        finally:
            cost = time.perf_counter() - start
            with self._cond:
                self._active -= 1
                self.recent_cost_s = 0.9 * self.recent_cost_s + 0.1 * cost
                self._cond.notify_all()
            if client:
                self.limiter.charge(client, cost)


class MeteredEmbedder:
    """The retriever's embedder with query embeddings going through an EmbedGate."""

    def __init__(self, inner: Any, gate: EmbedGate) -> None:
        self._inner = inner
        self.gate = gate

    def embed_query(self, text: str) -> Any:
        return self.gate.run(lambda: self._inner.embed_query(text))

    def __getattr__(self, name: str) -> Any:  # name, dim, embed_passages, clip, ...
        return getattr(self._inner, name)


def meter_retriever(retriever: Any, gate: EmbedGate) -> bool:
    """Route the retriever's query embeddings through the gate (once); False if it has none."""
    embedder = getattr(retriever, "embedder", None)
    if embedder is None or isinstance(embedder, MeteredEmbedder):
        return False
    retriever.embedder = MeteredEmbedder(embedder, gate)
    return True


def retry_after_header(wait_s: float) -> str:
    return str(max(1, math.ceil(wait_s)))
