"""Work that must not run on an event loop says so, and an answer tried there gives way.

The API answers most offline questions on its event loop (a rule answer, or a guide search whose
query embedding is cached, is ~1 ms of Python: a hand-off to a worker thread would cost a third
of that again, issue 15). Whether a question needs slow work is known only while answering it, so
the answer is *tried* inline under `no_blocking()`; a step that would block (embedding a new
query, re-reading the index) calls `may_block(...)` first, which raises `WouldBlock` there. The
caller then runs the whole answer again in a worker thread. Nothing is stored before those steps
(the session turn is written last), so the attempt leaves no trace.

`WouldBlock` derives from BaseException, as asyncio's CancelledError does, so the answer path's
`except Exception` fallbacks (which degrade an answer instead of failing it) let it through.

    with no_blocking():
        try:
            answer = assistant.ask(question)
        except WouldBlock:
            answer = None          # -> run it in a thread
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_NO_BLOCKING: ContextVar[bool] = ContextVar("sizing_no_blocking", default=False)


class WouldBlock(BaseException):
    """A step would block the event loop the answer is being tried on; `what` names it."""

    def __init__(self, what: str) -> None:
        super().__init__(f"{what} would block the event loop")
        self.what = what


def may_block(what: str) -> None:
    """Call before slow or blocking work: raises WouldBlock inside `no_blocking()`."""
    if _NO_BLOCKING.get():
        raise WouldBlock(what)


def blocking_allowed() -> bool:
    return not _NO_BLOCKING.get()


@contextmanager
def no_blocking() -> Iterator[None]:
    """Within this block (and this context only), `may_block` raises WouldBlock."""
    token = _NO_BLOCKING.set(True)
    try:
        yield
    finally:
        _NO_BLOCKING.reset(token)
