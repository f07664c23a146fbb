"""Fair use of the embedder: what one new question costs is charged to the client that asked it.

A normal question costs the embedder 5-30 ms; 2,000 characters of non-dictionary text cost up to
its 512-token window, about a second of CPU or more. Requests per minute cannot tell the two
apart, so a client within the request limit could starve everyone. Here:

- `CostLimiter`: a token bucket per client measured in embedder *seconds* (refilled at
  `SIZING_EMBED_BUDGET_S_PER_MINUTE`); a client in debt gets 429 + Retry-After (the time to pay
  it back) before its next answer starts.
- `EmbedGate`: the embedder's lane. At most `SIZING_EMBED_CONCURRENCY` embeddings at once;
  waiting calls are served cheapest client first (by recent cost), not first come. A query does
  not wait longer than `SIZING_EMBED_MAX_WAIT_S` (judged up front from what runs and waits
  ahead), long queries (> 64 estimated tokens) together use at most `SIZING_EMBED_LONG_SHARE`
  of the lane's time, and a client over its budget is not embedded: in each case the search
  ranks by keywords alone (BM25) and the answer says so (`EmbedderBusy`, a
  `knowledge.errors.DenseUnavailable`). So an answer never holds a worker thread long for the
  embedder, and cheap answers (rules, cached queries) never queue behind long ones. When
  `SIZING_EMBED_QUEUE` calls already wait, new requests are refused with 503 + Retry-After.
- `LongQuestions`: questions longer than `SIZING_LONG_QUESTION_CHARS` run in their own lane
  (one at a time) and together take at most `SIZING_LONG_QUESTION_SHARE` of the server's time
  (the time they compute, not the time an LLM takes to write); beyond it the senders who used
  the share get 503 + Retry-After, and a sender who did not is still answered.
- `MeteredEmbedder`: wraps the retriever's embedder; each query embedding goes through the gate,
  its wall time is charged to the client of the current request (`current_client`).
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, TypeVar

from knowledge.errors import DenseUnavailable

T = TypeVar("T")

current_client: ContextVar[str | None] = ContextVar("sizing_client", default=None)


class EmbedderBusy(DenseUnavailable):
    """The embedder cannot take this query now: its lane is busy for longer than the bound, the
    client spent its budget, or long queries used their share. The search then ranks by
    keywords only (BM25) and the answer says so; the admission check refuses with 503."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"the embedder is busy ({reason})")
        self.reason = reason


class CostLimiter:
    """Per-client budget of embedder seconds: `budget_s` to start, refilled at
    `budget_s` per minute. `charge` may take a client below zero (the cost is known only
    afterwards); `wait` then says how long until it is back at zero."""

    def __init__(
        self,
        budget_s_per_minute: float,
        max_clients: int = 100_000,
        clock: Callable[[], float] = time.monotonic,
        capacity: float | None = None,
    ) -> None:
        self.enabled = budget_s_per_minute > 0
        self.capacity = budget_s_per_minute if capacity is None else capacity
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


CHARS_PER_TOKEN = 3.0  # an estimate between English (~4.5 characters a token) and random letters
LONG_TOKENS = 64  # above this (estimated) a query is long; a normal question has 10-40 tokens


class EmbedGate:
    """The embedder's lane: at most `concurrency` embeddings at once, the waiting client that
    spent least going first. A query is not run (EmbedderBusy: the search ranks by keywords)
    when its client is over budget, when it is long and long queries used their share of the
    lane (`long_share` of the time, 0: no limit), when its wait would exceed `max_wait_s`
    (0: no bound; a wait that overruns the estimates gives up at ten times it), or when
    `max_queue` calls already wait. So an answer holds its worker thread for the embedder at most
    about `max_wait_s` plus its own embedding, and cheap answers never queue behind long ones."""

    def __init__(
        self,
        concurrency: int,
        max_queue: int,
        limiter: CostLimiter,
        *,
        max_wait_s: float = 0.0,
        max_tokens: int = 512,
        long_share: float = 0.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.concurrency = max(1, concurrency)
        self.max_queue = max(0, max_queue)
        self.limiter = limiter
        self.max_wait_s = max(0.0, max_wait_s)
        self.max_tokens = max_tokens
        # long queries together: `long_share` of the lane's seconds, a burst of 10 s worth
        self.long_budget = CostLimiter(long_share * 60, capacity=long_share * 10, clock=clock)
        self._clock = clock
        self._cond = threading.Condition()
        self._active = 0
        self._running: dict[int, tuple[float, float, bool]] = {}  # seq -> (start, cost, long)
        self._waiting: list[tuple[float, int, float, bool]] = []  # (priority, seq, cost, long)
        self._seq = itertools.count()
        self.shed = 0  # calls refused because the queue was full (a metric)
        self.skipped: dict[str, int] = {}  # calls not run, by reason (a metric)
        self.recent_cost_s = 0.05  # moving average of one embedding (for Retry-After)
        self.short_cost_s = 0.03  # moving average of a short query's embedding
        self.token_cost_s = 0.003  # moving average of a long query's cost per estimated token

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

    def tokens(self, text: str) -> float:
        return min(float(self.max_tokens), 2 + len(text) / CHARS_PER_TOKEN)

    def estimate(self, text: str) -> float:
        """Seconds the embedder will likely take for `text` (learned from recent calls)."""
        tokens = self.tokens(text)
        return self.short_cost_s if tokens <= LONG_TOKENS else self.token_cost_s * tokens

    def _busy(self, reason: str) -> EmbedderBusy:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1
        if reason == "queue":
            self.shed += 1
        return EmbedderBusy(reason)

    def _too_long_a_wait(self, priority: float, long: bool) -> bool:
        """Would a call of `priority` wait more than max_wait_s (what the running calls have
        left and what waits ahead of it, spread over the lane's width)? A short query waits
        behind short ones whatever it takes (they are quick, and the worker threads few);
        only a long query, or one that would wait behind a long one, is turned away.
        Called under the lock."""
        if not self.max_wait_s:
            return False
        ahead = [(cost, is_long) for p, _, cost, is_long in self._waiting if p <= priority]
        if self._active < self.concurrency and not ahead:
            return False
        now = self._clock()
        running = [(max(0.0, c - (now - s)), is_long) for s, c, is_long in self._running.values()]
        if not long and not any(is_long for _, is_long in ahead + running):
            return False
        wait = sum(cost for cost, _ in ahead + running) / self.concurrency
        return wait > self.max_wait_s

    def _check(self, client: str | None, text: str) -> tuple[float, bool]:
        """(estimated cost, long) of a call that may go ahead; EmbedderBusy if it may not."""
        if client and self.limiter.wait(client) > 0:
            raise self._busy("budget")
        long = self.tokens(text) > LONG_TOKENS
        if long and self.long_budget.wait("long") > 0:
            raise self._busy("share")
        return self.estimate(text), long

    def _enter(self, priority: float, cost: float, long: bool) -> int:
        with self._cond:
            if self._active >= self.concurrency and len(self._waiting) >= self.max_queue:
                raise self._busy("queue")
            if self._too_long_a_wait(priority, long):
                raise self._busy("wait")
            ticket = (priority, next(self._seq), cost, long)
            heapq.heappush(self._waiting, ticket)
            deadline = self._clock() + 10 * self.max_wait_s if self.max_wait_s else math.inf
            while self._active >= self.concurrency or self._waiting[0] != ticket:
                left = deadline - self._clock()
                if left <= 0:  # the estimates were wrong: give up rather than wait on
                    self._waiting.remove(ticket)
                    heapq.heapify(self._waiting)
                    self._cond.notify_all()
                    raise self._busy("wait")
                self._cond.wait(None if math.isinf(left) else left)
            heapq.heappop(self._waiting)
            self._active += 1
            self._running[ticket[1]] = (self._clock(), cost, long)
            return ticket[1]

    def _leave(self, seq: int, text: str, cost: float) -> None:
        with self._cond:
            self._active -= 1
            self._running.pop(seq, None)
            self.recent_cost_s = 0.9 * self.recent_cost_s + 0.1 * cost
            tokens = self.tokens(text)
            if tokens > LONG_TOKENS:
                self.token_cost_s = 0.8 * self.token_cost_s + 0.2 * cost / tokens
            else:
                self.short_cost_s = 0.9 * self.short_cost_s + 0.1 * cost
            self._cond.notify_all()

    def run(self, fn: Callable[[], T], text: str = "") -> T:
        client = current_client.get()
        estimate, long = self._check(client, text)
        seq = self._enter(self.limiter.spent(client) if client else 0.0, estimate, long)
        start = time.perf_counter()
        try:
            return fn()
        finally:
            cost = time.perf_counter() - start
            self._leave(seq, text, cost)
            if client:
                self.limiter.charge(client, cost)
            if long:
                self.long_budget.charge("long", cost)


class MeteredEmbedder:
    """The retriever's embedder with query embeddings going through an EmbedGate."""

    def __init__(self, inner: Any, gate: EmbedGate) -> None:
        self._inner = inner
        self.gate = gate

    def embed_query(self, text: str) -> Any:
        return self.gate.run(lambda: self._inner.embed_query(text), text)

    def __getattr__(self, name: str) -> Any:  # name, dim, embed_passages, clip, ...
        return getattr(self._inner, name)


def meter_retriever(retriever: Any, gate: EmbedGate) -> bool:
    """Route the retriever's query embeddings through the gate (once); False if it has none."""
    embedder = getattr(retriever, "embedder", None)
    if embedder is None or isinstance(embedder, MeteredEmbedder):
        return False
    retriever.embedder = MeteredEmbedder(embedder, gate)
    return True


SHARE_BURST_S = 1.0  # long questions' share may be used ahead by this many seconds' worth
# a sender whose share refills within this is queued in the lane (paced), not refused
QUEUE_WITHIN_S = 10.0
IDLE_CPU = (
    0.1  # a process using less than this share of a core is idle: its share refills by the clock
)


class ServerClock:
    """Seconds of the server process's computing time, for a share *of it*: while the process
    computes, this clock advances with its CPU time (on a box whose other work leaves the server
    half a core, a share of the wall clock would be twice that share of what the server gets);
    while it is idle (under `IDLE_CPU` of a core), with the wall clock, so a share is not
    stuck waiting for work that does not come. In between it blends the two
    (max(cpu, wall - cpu / IDLE_CPU)): continuous, never backwards."""

    def __init__(
        self,
        wall: Callable[[], float] = time.monotonic,
        cpu: Callable[[], float] = time.process_time,
    ) -> None:
        self._wall, self._cpu = wall, cpu
        self._lock = threading.Lock()
        self._last = (wall(), cpu())
        self._value = 0.0

    def __call__(self) -> float:
        with self._lock:
            wall, cpu = self._wall(), self._cpu()
            d_wall, d_cpu = wall - self._last[0], cpu - self._last[1]
            self._last = (wall, cpu)
            self._value += max(d_cpu, d_wall - d_cpu / IDLE_CPU, 0.0)
            return self._value


class LongQuestions:
    """Questions longer than `chars` characters (0: none is long) cost far more than a normal
    one in every step (understanding, keyword search, embedding): 2,000 characters of
    non-dictionary text take ~0.2 s of Python even without the embedder. They are answered in
    their own lane (one at a time, so normal answers never queue behind them), and together
    they may take at most `share` of the server's time (0: no limit), used ahead by at most
    `SHARE_BURST_S` seconds' worth: a long question starts only when the share has something
    left (`LongLane`), so the bound holds in any few seconds however many addresses send them
    (issue 27). A sender whose use puts it more than `QUEUE_WITHIN_S` behind the share is
    refused with 503 + Retry-After (a flood); within that it waits for its turn like everyone
    (one person's pastes in a row on a quiet server are answered, a little later), and a sender
    who did not use the share waits for its turn too (issue 25: one slow answer from one Slack
    user must not refuse everyone's pastes), first the senders who used least, at most
    `max_waiting` of them
    (beyond: 503). Each sender's own use is also held to the share."""

    def __init__(
        self,
        chars: int,
        share: float,
        clock: Callable[[], float] = time.monotonic,
        *,
        max_waiting: int = 4,
        server_clock: Callable[[], float] | None = None,
    ) -> None:
        self.chars = max(0, chars)
        self.share = share
        self.max_waiting = max(0, max_waiting)
        # all of them: a share of the process's computing time (ServerClock), used ahead by a
        # burst of SHARE_BURST_S at most (paced by the lane)
        self.budget = CostLimiter(
            share * 60, capacity=share * SHARE_BURST_S, clock=server_clock or ServerClock()
        )
        # each sender: a burst of 10 s worth (the one sender's pastes in a row)
        self.by_sender = CostLimiter(share * 60, capacity=share * 10, clock=clock)
        self.lane = LongLane(self.budget, self.priority)

    def is_long(self, text: str, total: int = 0) -> bool:
        """`text` longer than `chars`, or a conversation (`total` characters, replayed for a
        stateless /v1 request) longer than four times that."""
        return self.chars > 0 and (len(text) > self.chars or total > 4 * self.chars)

    def wait(self, sender: str | None = None) -> float:
        """0.0 when a long question from `sender` may start, else seconds until the share it
        used has refilled: its own use past the share, or the whole share used up with some of
        it by this sender. A sender who used none of it is never refused."""
        key = sender or "anonymous"
        own = self.by_sender.wait(key)
        if own > QUEUE_WITHIN_S:
            return own
        overall = self.budget.wait("long")
        if overall > QUEUE_WITHIN_S and self.by_sender.spent(key) > 0:
            return overall
        # a short wait is queued in the lane, paced by the share, the least-used sender first:
        # one person's second and third paste in a row wait a few seconds, not a 503
        return 0.0

    def full(self) -> bool:
        """As many long questions wait for the lane as may (a new one is refused)."""
        return self.lane.waiting >= self.max_waiting

    def lane_wait_s(self) -> float:
        """About how long until the questions waiting now have had their turn."""
        per_question = self.budget.capacity / self.share if self.share > 0 else 1.0
        return max(self.budget.wait("long"), 0.0) + self.lane.waiting * per_question

    def priority(self, sender: str | None = None) -> float:
        """A waiting sender's place: what it has used of the share (least first)."""
        return self.by_sender.spent(sender or "anonymous")

    def charge(self, seconds: float, sender: str | None = None) -> None:
        self.budget.charge("long", seconds)
        self.by_sender.charge(sender or current_client.get() or "anonymous", seconds)


class LongLane:
    """The long questions' turn: one at a time, each started only while their `budget` (a
    CostLimiter keyed "long") is at or above zero, so they can never run ahead of their share
    by more than its burst and one question. The next turn goes to the waiting sender with the
    lowest `priority(sender)` when the turn is given (what it has used so far: a flood's earlier
    questions are charged by then), then to the earliest. Runs on one event loop (a worker
    process has one)."""

    def __init__(
        self, budget: CostLimiter, priority: Callable[[str], float] = lambda _: 0.0
    ) -> None:
        self.budget = budget
        self.priority = priority
        self.busy = False
        self._waiting: list[tuple[int, str, asyncio.Future[None]]] = []
        self._seq = itertools.count()
        self._timer: asyncio.TimerHandle | None = None

    @property
    def waiting(self) -> int:
        return sum(not fut.done() for _, _, fut in self._waiting)

    async def acquire(self, sender: str = "") -> None:
        if not self.busy and not self.waiting and self.budget.wait("long") <= 0:
            self.busy = True
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append((next(self._seq), sender, future))
        self._dispatch()
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():  # given the turn as it was cancelled
                self.release()
            future.cancel()
            raise

    def release(self) -> None:
        self.busy = False
        self._dispatch()

    def _dispatch(self) -> None:
        self._waiting = [w for w in self._waiting if not w[2].done()]  # not cancelled
        if self.busy or not self._waiting:
            return
        wait = self.budget.wait("long")
        if wait > 0:
            if self._timer is None:
                self._timer = asyncio.get_running_loop().call_later(wait, self._wake)
            return
        chosen = min(self._waiting, key=lambda w: (self.priority(w[1]), w[0]))
        self._waiting.remove(chosen)
        self.busy = True
        chosen[2].set_result(None)

    def _wake(self) -> None:
        self._timer = None
        self._dispatch()


def retry_after_header(wait_s: float) -> str:
    return str(max(1, math.ceil(wait_s)))
