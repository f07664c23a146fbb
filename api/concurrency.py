"""Running the (blocking) assistant off the event loop, a bounded number at a time.

Offline answers are CPU-bound (a few ms of Python each): with 32 requests in 32 threads the GIL
is handed around unfairly and the slowest answers wait seconds. A FIFO capacity limiter as wide
as the CPUs keeps throughput and makes waiting fair (p99 close to p50). With an LLM configured
answers mostly wait on the network, so the limiter is wide.

The limiter is a thread pool as wide as the limit (its queue is FIFO) and the hand-off is
asyncio's `run_in_executor` with the caller's context copied (api.fairness reads the client from
a context variable): a third cheaper in CPU per call than anyio's `to_thread` with a capacity
limiter (issue 15: the hand-offs were the largest part of the server's CPU outside the answer).
Short blocking calls (a store lookup, a shared rate-limit bucket) have a pool of their own, so
they never wait behind answers.

Cheaper still is no hand-off: with `inline` (offline answers, sessions in local SQLite files;
`SIZING_INLINE_ANSWERS`) `run_inline_first` tries the call on the event loop under
`knowledge.blocking.no_blocking()`. A rule answer or a guide search whose query embedding is
cached is ~1 ms of Python there; a step that would block (embedding a new query, opening or
re-reading the index) raises `WouldBlock` before anything is stored, and the call runs again in
an answer thread. Counted in `sizing_answers_on_event_loop{outcome}` (`inline`, or the step that
sent it to a thread).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import os
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol, TypeVar

from assistant.llm_breaker import request_deadline
from knowledge.blocking import WouldBlock, no_blocking

T = TypeVar("T")

LLM_CONCURRENCY = 32
STORE_THREADS = 16


def answer_concurrency(configured: int | None, llm_enabled: bool) -> int:
    if configured:
        return configured
    return LLM_CONCURRENCY if llm_enabled else max(2, os.cpu_count() or 2)


def answers_inline(inline_answers: bool, llm_enabled: bool, shared_database: bool) -> bool:
    """Answers are tried on the event loop only offline (an LLM call waits on the network) and
    with the stores in local SQLite files (a PostgreSQL round trip would block the loop)."""
    return inline_answers and not llm_enabled and not shared_database


class AnswerRunner:
    """Runs assistant calls in worker threads, at most `limit` at once, first come first served.

    `deadline_s` (with an LLM: SIZING_LLM_DEADLINE_S): a call must be answered this long after
    it was submitted, waiting for a slot included; every LLM call it makes ends by then
    (`assistant.llm_breaker.request_deadline`), after which it answers offline. So at 40
    requests on 32 slots no answer waits a deadline for a slot and then another for the LLM."""

    def __init__(
        self, limit: int, *, inline: bool = False, deadline_s: float | None = None
    ) -> None:
        self.limit = limit
        self.inline = inline
        self.deadline_s = deadline_s
        self.on_loop: Counter[str] = Counter()  # "inline", or what sent a call to a thread
        self._answers = ThreadPoolExecutor(limit, thread_name_prefix="answer")
        self._store = ThreadPoolExecutor(STORE_THREADS, thread_name_prefix="store")

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """`fn(*args, **kwargs)` in an answer thread (queued while `limit` are busy)."""
        call = functools.partial(fn, *args, **kwargs)
        return await _in_pool(self._answers, call, self._deadline())

    def _deadline(self) -> float | None:
        return None if self.deadline_s is None else time.monotonic() + self.deadline_s

    async def run_inline_first(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """`fn(*args, **kwargs)` on the event loop when this runner answers inline and no step of
        it would block (`knowledge.blocking.may_block`), else in an answer thread (`run`)."""
        done = self._on_loop(functools.partial(fn, *args, **kwargs))
        if done:
            return done[0]
        return await self.run(fn, *args, **kwargs)

    async def iterate_inline_first(self, make: Callable[[], Iterator[T]]) -> AsyncIterator[T]:
        """The items of `make()`: all drained on the event loop when this runner answers inline
        and no step blocks (an offline stream is a finished answer cut into events), else from
        a fresh `make()` drained in an answer thread (`iterate`)."""
        done = self._on_loop(lambda: list(make()))
        if done:
            for item in done[0]:
                yield item
            return
        async for item in self.iterate(make()):
            yield item

    def _on_loop(self, call: Callable[[], T]) -> tuple[T] | None:
        """`(call(),)` run here under `no_blocking()`, or None when answers are not inline or a
        step would block (counted by what it was)."""
        if not self.inline:
            return None
        try:
            with no_blocking():
                result = call()
        except WouldBlock as exc:
            self.on_loop[exc.what] += 1
            return None
        self.on_loop["inline"] += 1
        return (result,)

    async def blocking(self, fn: Callable[..., T], *args: Any) -> T:
        """A short blocking call (a store read or write) off the event loop."""
        return await _in_pool(self._store, functools.partial(fn, *args))

    def close(self) -> None:
        self._answers.shutdown(wait=False, cancel_futures=True)
        self._store.shutdown(wait=False, cancel_futures=True)

    async def iterate(self, iterator: Iterator[T]) -> AsyncIterator[T]:
        """Drain `iterator` in one worker thread (one limiter slot for the whole stream), handing
        each item to the event loop as soon as it is produced."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[object, BaseException | None]] = asyncio.Queue()
        end = object()

        def drain() -> None:
            try:
                for item in iterator:
                    loop.call_soon_threadsafe(queue.put_nowait, (item, None))
            except BaseException as exc:  # re-raised on the event loop side
                loop.call_soon_threadsafe(queue.put_nowait, (end, exc))
                return
            loop.call_soon_threadsafe(queue.put_nowait, (end, None))

        worker = asyncio.ensure_future(_in_pool(self._answers, drain, self._deadline()))
        try:
            while True:
                item, error = await queue.get()
                if error is not None:
                    raise error
                if item is end:
                    return
                yield item  # type: ignore[misc]
        finally:
            if worker.done() and not worker.cancelled():
                worker.result()


def _computed(wall_start: float, cpu_start: float) -> float:
    """Seconds a call computed: the process's CPU time over it, at most its wall time (waiting
    on an LLM provider or a socket costs no share: issue 25)."""
    return min(time.perf_counter() - wall_start, time.process_time() - cpu_start)


class TimedRunner(AnswerRunner):
    """An AnswerRunner that reports the seconds each call (or whole stream) computed, not
    counting the wait for a slot nor the wait for an LLM: `on_time(seconds)` (a lane's share
    is charged with it)."""

    def __init__(self, limit: int, on_time: Callable[[float], None]) -> None:
        super().__init__(limit)
        self.on_time = on_time

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        call = functools.partial(fn, *args, **kwargs)

        def timed() -> T:
            start, cpu = time.perf_counter(), time.process_time()
            try:
                return call()
            finally:
                self.on_time(_computed(start, cpu))

        return await super().run(timed)

    async def iterate(self, iterator: Iterator[T]) -> AsyncIterator[T]:
        async for item in super().iterate(self._timed(iterator)):
            yield item

    def _timed(self, iterator: Iterator[T]) -> Iterator[T]:
        spent = 0.0
        try:
            while True:
                start, cpu = time.perf_counter(), time.process_time()
                try:
                    item = next(iterator)
                except StopIteration:
                    return
                finally:
                    spent += _computed(start, cpu)
                yield item
        finally:
            self.on_time(spent)


class Lane(Protocol):
    async def acquire(self, sender: str = "") -> None: ...

    def release(self) -> None: ...


class LaneRunner(TimedRunner):
    """A TimedRunner whose calls take turns on a `lane` (api.fairness.LongLane): a call, or a
    whole stream, waits for its turn (as `sender()`, read in the caller's context) and gives
    it back when its thread has finished computing, even when the caller has gone."""

    def __init__(
        self, lane: Lane, sender: Callable[[], str], on_time: Callable[[float], None]
    ) -> None:
        super().__init__(1, on_time)
        self.lane = lane
        self.sender = sender

    def _turn(self) -> tuple[Callable[[], None], Callable[[], None]]:
        """(end, end_from_thread): each gives the turn back, once between them."""
        loop = asyncio.get_running_loop()
        lock = threading.Lock()
        given_back = False

        def end() -> None:
            nonlocal given_back
            with lock:
                if given_back:
                    return
                given_back = True
            self.lane.release()

        def end_from_thread() -> None:
            if not loop.is_closed():  # a server shutting down has no turns to give
                loop.call_soon_threadsafe(end)

        return end, end_from_thread

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        await self.lane.acquire(self.sender())
        end, end_from_thread = self._turn()
        call = functools.partial(fn, *args, **kwargs)
        started = False

        def turned() -> T:
            nonlocal started
            started = True
            start, cpu = time.perf_counter(), time.process_time()
            try:
                return call()
            finally:  # charged before the next call may start
                self.on_time(_computed(start, cpu))
                end_from_thread()

        try:
            return await AnswerRunner.run(self, turned)
        except asyncio.CancelledError:
            if not started:  # never ran: the thread will not give the turn back
                end()
            raise

    async def iterate(self, iterator: Iterator[T]) -> AsyncIterator[T]:
        await self.lane.acquire(self.sender())
        _, end_from_thread = self._turn()

        def turned() -> Iterator[T]:
            try:
                yield from self._timed(iterator)  # charged when it ends, before the next starts
            finally:
                end_from_thread()

        # the stream is drained to its end in a thread, consumed or not (AnswerRunner.iterate)
        async for item in AnswerRunner.iterate(self, turned()):
            yield item


def _in_pool(
    pool: ThreadPoolExecutor, call: Callable[[], T], deadline: float | None = None
) -> asyncio.Future[T]:
    """`call()` in `pool`, in a copy of the caller's context (as anyio's to_thread does), with
    the request's deadline set in it when given."""
    context = contextvars.copy_context()
    if deadline is not None:
        context.run(request_deadline.set, deadline)
    return asyncio.get_running_loop().run_in_executor(pool, context.run, call)
