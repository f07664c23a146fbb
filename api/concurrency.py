"""Running the (blocking) assistant off the event loop, a bounded number at a time.

Offline answers are CPU-bound (a few ms of Python each): with 32 requests in 32 threads the GIL
is handed around unfairly and the slowest answers wait seconds. A FIFO capacity limiter as wide
as the CPUs keeps throughput and makes waiting fair (p99 close to p50). With an LLM configured
answers mostly wait on the network, so the limiter is wide.
"""

from __future__ import annotations

import asyncio
import functools
import os
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, TypeVar

import anyio
import anyio.to_thread

T = TypeVar("T")

LLM_CONCURRENCY = 32


def answer_concurrency(configured: int | None, llm_enabled: bool) -> int:
    if configured:
        return configured
    return LLM_CONCURRENCY if llm_enabled else max(2, os.cpu_count() or 2)


class AnswerRunner:
    """Runs assistant calls in worker threads, at most `limit` at once, first come first served."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._limiter: anyio.CapacityLimiter | None = None

    @property
    def limiter(self) -> anyio.CapacityLimiter:
        if self._limiter is None:  # created on the event loop, on first use
            self._limiter = anyio.CapacityLimiter(self.limit)
        return self._limiter

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        call = functools.partial(fn, *args, **kwargs)
        return await anyio.to_thread.run_sync(call, limiter=self.limiter)

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

        worker = asyncio.ensure_future(anyio.to_thread.run_sync(drain, limiter=self.limiter))
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


class TimedRunner(AnswerRunner):
    """An AnswerRunner that reports the seconds each call (or whole stream) computed, not
    counting the wait for a slot: `on_time(seconds)` (a lane's share is charged with it)."""

    def __init__(self, limit: int, on_time: Callable[[float], None]) -> None:
        super().__init__(limit)
        self.on_time = on_time

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        call = functools.partial(fn, *args, **kwargs)

        def timed() -> T:
            start = time.perf_counter()
            try:
                return call()
            finally:
                self.on_time(time.perf_counter() - start)

        return await super().run(timed)

    async def iterate(self, iterator: Iterator[T]) -> AsyncIterator[T]:
        async for item in super().iterate(self._timed(iterator)):
            yield item

    def _timed(self, iterator: Iterator[T]) -> Iterator[T]:
        spent = 0.0
        try:
            while True:
                start = time.perf_counter()
                try:
                    item = next(iterator)
                except StopIteration:
                    return
                finally:
                    spent += time.perf_counter() - start
                yield item
        finally:
            self.on_time(spent)
