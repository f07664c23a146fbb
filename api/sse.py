"""Server-sent events: the assistant's typed stream events as SSE, produced off the event loop."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable, Collection, Iterator
from typing import Any

from sse_starlette import ServerSentEvent

from api.answer_json import event_json
from api.concurrency import AnswerRunner
from assistant.answer import (
    Answer,
    CitationEvent,
    DoneEvent,
    ErrorEvent,
    PricesEvent,
    StreamEvent,
    TokenEvent,
)
from assistant.errors import InvalidRequest

log = logging.getLogger("api")

ALL = ("tool_calls", "quotes")
GENERIC_STREAM_ERROR = "The assistant could not finish this answer. Please try again."


def encode_event(event: StreamEvent, include: Collection[str] = ALL) -> ServerSentEvent:
    """`event: <type>` and one JSON `data:` line with the event itself ({"type": ..., ...}),
    shaped as /api/chat's JSON (api.answer_json): tool results, default arguments and quotes
    only when `include` names them."""
    return ServerSentEvent(data=event_json(event, include), event=event.type, sep="\n")


async def assistant_events(
    make_stream: Callable[[], Iterator[StreamEvent]],
    runner: AnswerRunner,
    on_answer: Callable[[Answer], None] | None = None,
    on_error: Callable[[str], None] | None = None,
) -> AsyncIterator[StreamEvent]:
    """Run the (blocking) assistant stream on the event loop when no step of it blocks, else in
    the thread pool (api.concurrency); never raise into the response.

    An exception becomes one ErrorEvent with a generic message (details go to the log only).
    """
    try:
        async for event in runner.iterate_inline_first(make_stream):
            if isinstance(event, DoneEvent) and on_answer is not None:
                on_answer(event.answer)
            if isinstance(event, ErrorEvent) and on_error is not None:
                on_error(event.message)
            yield event
    except InvalidRequest as exc:  # precise and safe to show (e.g. a bad session id)
        if on_error is not None:
            on_error("invalid")
        yield ErrorEvent(message=str(exc))
    except Exception:
        log.exception("assistant stream failed")
        if on_error is not None:
            on_error("exception")
        yield ErrorEvent(message=GENERIC_STREAM_ERROR)


# the events of a finished answer, which the assistant yields in one burst before its done event
_BURST = (TokenEvent, CitationEvent, PricesEvent)  # exactly these types


async def sse_events(
    events: AsyncIterator[StreamEvent], include: Collection[str] = ALL
) -> AsyncIterator[bytes]:
    """The events, encoded; a checked answer's tokens, citations and prices go out together with
    its done event, in one write (issue 15: each write costs sse-starlette a cancel scope and the
    server a send, ~30 of them per answer). Progress and error events go out at once. The
    client's SSE parser sees the same events either way."""
    pending: list[bytes] = []
    async for event in events:
        chunk = encode_event(event, include).encode()
        if type(event) in _BURST:  # a LiveTokenEvent (a sentence as it passed) goes out at once
            pending.append(chunk)
            continue
        yield b"".join([*pending, chunk])
        pending.clear()
    if pending:
        yield b"".join(pending)


def parse_sse(text: str) -> list[dict[str, Any]]:
    """Parse an SSE body into [{"event": ..., "data": ...}] (comments dropped)."""
    out: list[dict[str, Any]] = []
    event: dict[str, Any] = {}
    data: list[str] = []
    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if raw == "":
            if data or event:
                payload = "\n".join(data)
                try:
                    event["data"] = json.loads(payload)
                except ValueError:
                    event["data"] = payload
                out.append(event)
            event, data = {}, []
            continue
        if raw.startswith(":"):
            continue
        name, _, value = raw.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "data":
            data.append(value)
        elif name in ("event", "id", "retry"):
            event[name] = value
    return out
