"""The JSON of an answer on /api/chat and in its server-sent events.

By default an answer leaves out what is most of its bytes and what the widget, Slack and most
clients do not read; `?include=` asks for it (issue 15: the default response stays <= 4 KB):

- `tool_calls`: each call's `result`, and every argument (by default a call carries its name and
  the arguments that differ from the tool's defaults, which its schema documents);
- `quotes`: each citation's `quote`, the text of the cited passage (by default a citation carries
  its number, guide, title, section and the URL of the passage, which is what the widget shows).

    answer_json(answer, include=())                  # the default response
    answer_json(answer, include=("tool_calls", "quotes"))   # everything the Answer holds
"""

from __future__ import annotations

import functools
from collections.abc import Collection
from typing import Any, Literal

from assistant.answer import Answer, CitationEvent, DoneEvent, StreamEvent, ToolCall

Include = Literal["tool_calls", "quotes"]

_RESULTS: dict[str, Any] = {"tool_calls": {"__all__": {"result"}}}
_QUOTES: dict[str, Any] = {"citations": {"__all__": {"quote"}}}
# pydantic `exclude=` per (tool_calls included, quotes included), built once
_EXCLUDE: dict[tuple[bool, bool], dict[str, Any] | None] = {
    (False, False): {**_RESULTS, **_QUOTES},
    (False, True): _RESULTS,
    (True, False): _QUOTES,
    (True, True): None,
}


def answer_json(answer: Answer, include: Collection[str] = ()) -> str:
    """The answer as sent: without tool results, default arguments and quotes unless included."""
    exclude = _EXCLUDE["tool_calls" in include, "quotes" in include]
    return _shaped(answer, include).model_dump_json(exclude=exclude)


def event_json(event: StreamEvent, include: Collection[str] = ()) -> str:
    """One server-sent event's data: the done event's answer as `answer_json`, a citation event
    without its quote unless included, the other events whole."""
    if isinstance(event, DoneEvent):
        exclude = _EXCLUDE["tool_calls" in include, "quotes" in include]
        done = DoneEvent(answer=_shaped(event.answer, include))
        return done.model_dump_json(exclude={"answer": exclude} if exclude else None)
    if isinstance(event, CitationEvent) and "quotes" not in include:
        return event.model_dump_json(exclude={"citation": {"quote"}})
    return event.model_dump_json()


def _shaped(answer: Answer, include: Collection[str]) -> Answer:
    if "tool_calls" in include or not answer.tool_calls:
        return answer
    calls = [
        ToolCall.model_construct(name=c.name, arguments=changed_arguments(c.name, c.arguments))
        for c in answer.tool_calls
    ]
    return answer.model_copy(update={"tool_calls": calls})


def changed_arguments(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The arguments that differ from the tool's defaults (all of them for an unknown tool)."""
    defaults = _defaults(tool)
    return {k: v for k, v in arguments.items() if k not in defaults or defaults[k] != v}


@functools.cache
def _defaults(tool: str) -> dict[str, Any]:
    """The tool's argument defaults, from its pydantic arguments model (read once per tool)."""
    from assistant.registry import REGISTRY

    spec = REGISTRY.get(tool)
    if spec is None:
        return {}
    return {
        name: field.default
        for name, field in spec.args_model.model_fields.items()
        if not field.is_required() and field.default_factory is None
    }
