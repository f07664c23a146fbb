"""The JSON of an answer on /api/chat and in its server-sent events.

By default an answer leaves out what is most of its bytes and what the widget, Slack and most
clients do not read; `?include=` asks for it (issue 15: the default response stays <= 4 KB):

- `tool_calls`: each call's `result`, and every argument (by default a call carries its name and
  the arguments that differ from the tool's defaults, which its schema documents, less a
  `configurations` filter of more than `LONG_FILTER` ids: the catalog narrowed by the
  constraints the answer's `reading` states, and a pasted `text` of more than `LONG_TEXT`
  characters, which `question` carries);
- `quotes`: each citation's `quote`, the text of the cited passage (by default a citation carries
  its number, guide, title, section and the URL of the passage, which is what the widget shows);
- `chart`: the answer's `chart` (fit, cheapest and comparison answers: the configurations that
  hold the job as price / tokens/s points; the widget asks for it).

    answer_json(answer, include=())                  # the default response
    answer_json(answer, include=("tool_calls", "quotes"))   # everything the Answer holds
"""

from __future__ import annotations

import functools
from collections.abc import Collection
from typing import Any, Literal

from assistant.answer import Answer, CitationEvent, DoneEvent, StreamEvent

Include = Literal["tool_calls", "quotes", "chart"]

_QUOTES: dict[str, Any] = {"__all__": {"quote"}}


# what an anonymous client reads of an LLM failure (issue 27: an upstream error's text may echo
# the API key, a URL or an account; it goes to the log only)
PUBLIC_DETAIL = {
    "unavailable": "the language model was unavailable",
    "invalid": "the language model's reading was not valid",
}


def public_answer(answer: Answer) -> Answer:
    """The answer with no upstream error text: an attempt that failed for the provider
    (`unavailable`) or whose reading did not validate (`invalid`) carries a generic detail."""
    if not any(a.outcome in PUBLIC_DETAIL and a.detail for a in answer.attempts):
        return answer
    attempts = [
        a.model_copy(update={"detail": PUBLIC_DETAIL[a.outcome]})
        if a.outcome in PUBLIC_DETAIL and a.detail
        else a
        for a in answer.attempts
    ]
    return answer.model_copy(update={"attempts": attempts})


def answer_json(answer: Answer, include: Collection[str] = ()) -> str:
    """The answer as sent: without tool results, default arguments and quotes unless included,
    and without upstream error text (`public_answer`)."""
    answer = public_answer(answer)
    return answer.model_dump_json(exclude=_exclude(answer, include))


def event_json(event: StreamEvent, include: Collection[str] = ()) -> str:
    """One server-sent event's data: the done event's answer as `answer_json`, a citation event
    without its quote unless included, the other events whole."""
    if isinstance(event, DoneEvent):
        event = event.model_copy(update={"answer": public_answer(event.answer)})
        exclude = _exclude(event.answer, include)
        return event.model_dump_json(exclude={"answer": exclude} if exclude else None)
    if isinstance(event, CitationEvent) and "quotes" not in include:
        return event.model_dump_json(exclude={"citation": {"quote"}})
    return event.model_dump_json()


def _exclude(answer: Answer, include: Collection[str]) -> dict[str, Any] | None:
    """pydantic's `exclude=` for this answer (cheaper than copying the answer without them)."""
    exclude: dict[str, Any] = {}
    if "quotes" not in include:
        exclude["citations"] = _QUOTES
    if "chart" not in include and answer.chart is not None:
        exclude["chart"] = True
    if "tool_calls" not in include and answer.tool_calls:
        exclude["tool_calls"] = {
            i: {"result": True, "arguments": _defaulted(c.name, c.arguments)}
            for i, c in enumerate(answer.tool_calls)
        }
    return exclude or None


#: a `configurations` argument longer than this is the catalog filtered by the question's
#: constraints (budget, exclusions: the reading carries them), not nodes the asker named
LONG_FILTER = 8
#: a `text` argument longer than this is the asker's paste (topology, all-reduce output), which
#: the answer's `question` already carries
LONG_TEXT = 200


def _defaulted(tool: str, arguments: dict[str, Any]) -> dict[str, bool]:
    defaults = _defaults(tool)
    out = {k: True for k, v in arguments.items() if k in defaults and defaults[k] == v}
    if len(arguments.get("configurations") or ()) > LONG_FILTER:
        out["configurations"] = True
    if len(str(arguments.get("text") or "")) > LONG_TEXT:
        out["text"] = True  # a pasted output passed whole: the answer's `question` holds it
    return out


def changed_arguments(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The arguments the default response carries: those that differ from the tool's defaults
    (all of them for an unknown tool), less a constraint filter (`LONG_FILTER`)."""
    left_out = _defaulted(tool, arguments)
    return {k: v for k, v in arguments.items() if k not in left_out}


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
