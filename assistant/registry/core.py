"""The registry machinery: `ToolError`, the args base class and precision aliases, `ToolSpec`,
the `@tool` decorator that registers a tool in `REGISTRY` (in definition order) and `call_tool`."""

from __future__ import annotations

import inspect
import json
import threading
import typing
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
)

from assistant.answer import ToolCall

PrecisionArg = Literal[
    "fp32",
    "bf16",
    "fp16",
    "fp8",
    "int8",
    "mxfp4",
    "awq",
    "gptq",
    "gguf-q4_k_m",
    "gguf-q5_k_m",
    "gguf-q8_0",
]
_PRECISION_ALIASES = {
    "q4_k_m": "gguf-q4_k_m",
    "q5_k_m": "gguf-q5_k_m",
    "q8_0": "gguf-q8_0",
    "int4": "awq",
    "4bit": "awq",
    "4-bit": "awq",
    "8bit": "int8",
    "8-bit": "int8",
    "bfloat16": "bf16",
    "float16": "fp16",
    "half": "fp16",
    "float32": "fp32",
}


class ToolError(ValueError):
    """A tool could not run: unknown tool/model/configuration or invalid arguments."""


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ToolResult(BaseModel):
    """Base of the typed tool results. `call_tool` records `model_dump(mode="json")`, the dict
    every consumer reads; fields named in `_omit_when_none` are left out of it when None (optional
    keys, as the dict results had them)."""

    model_config = ConfigDict(extra="forbid")
    _omit_when_none: ClassVar[frozenset[str]] = frozenset()

    @model_serializer(mode="wrap")
    def _omit(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for key in self._omit_when_none:
            if data.get(key) is None:
                data.pop(key, None)
        return data


def _norm_precision(v: Any) -> Any:
    if isinstance(v, str):
        key = v.strip().lower().replace(" ", "")
        return _PRECISION_ALIASES.get(key, key)
    return v


# --------------------------------------------------------------------------- registry


@dataclass(frozen=True)
class ToolSpec:
    name: str
    fn: Callable[[Any, Any], Any]
    args_model: type[BaseModel]
    description: str


REGISTRY: dict[str, ToolSpec] = {}


def tool(fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    hints = typing.get_type_hints(fn)
    params = list(inspect.signature(fn).parameters)
    args_model = hints[params[1]]
    REGISTRY[fn.__name__] = ToolSpec(
        name=fn.__name__,
        fn=fn,
        args_model=args_model,
        description=inspect.getdoc(fn) or fn.__name__,
    )
    return fn


# Tools are pure functions of their arguments and the catalog: a call with the same arguments
# over the same catalog returns the recorded call made before (its result is never changed after
# it is made; the grounding check indexes it once, by identity). Kept per Deps (`extras`), bounded.
TOOL_CACHE_SIZE = 512
_CACHE_KEY = "tool_results"


class _ToolCache:
    def __init__(self, size: int = TOOL_CACHE_SIZE) -> None:
        self.size = size
        self.entries: OrderedDict[tuple[str, str], tuple[Any, ToolCall | str, Any]] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: tuple[str, str], catalog: Any) -> tuple[ToolCall | str, Any] | None:
        with self.lock:
            hit = self.entries.get(key)
            if hit is None or hit[0] is not catalog:
                return None
            self.entries.move_to_end(key)
            return hit[1], hit[2]

    def put(self, key: tuple[str, str], catalog: Any, record: ToolCall | str, typed: Any) -> None:
        with self.lock:
            self.entries[key] = (catalog, record, typed)
            self.entries.move_to_end(key)
            while len(self.entries) > self.size:
                self.entries.popitem(last=False)


def _cache_of(deps: Any) -> _ToolCache | None:
    extras = getattr(deps, "extras", None)
    if not isinstance(extras, dict):
        return None
    cache = extras.get(_CACHE_KEY)
    if cache is None:
        cache = extras.setdefault(_CACHE_KEY, _ToolCache())
    return cache if isinstance(cache, _ToolCache) else None


def call_tool(deps: Any, name: str, arguments: dict[str, Any] | BaseModel) -> ToolCall:
    """Validate, run and record one tool call (`result`: the JSON dict). Raises ToolError."""
    return call_tool_typed(deps, name, arguments)[0]


def call_tool_typed(
    deps: Any, name: str, arguments: dict[str, Any] | BaseModel
) -> tuple[ToolCall, Any]:
    """As `call_tool`, plus the tool's own result: its pydantic result model (a `ToolResult`)
    where the tool declares one, else the dict. A repeated call (same tool, same arguments once
    validated, defaults filled in, and the same catalog) returns the recorded call from the cache
    of `deps.extras`: do not change it. Keyed on the validated arguments, a call that spells a
    default out (`context_tokens: 8192`) and one that leaves it out are one call."""
    if isinstance(arguments, BaseModel):
        arguments = arguments.model_dump(exclude_none=True)
    spec, args = _validated(name, arguments)
    recorded = args.model_dump(exclude_none=True)
    cache = _cache_of(deps)
    if cache is None:
        return _run_tool(deps, spec, args, recorded)
    key = (name, json.dumps(recorded, sort_keys=True, default=str))
    catalog = getattr(deps, "catalog", None)
    hit = cache.get(key, catalog)
    if hit is None:
        try:
            record, typed = _run_tool(deps, spec, args, recorded)
        except ToolError as exc:
            cache.put(key, catalog, str(exc), None)
            raise
        cache.put(key, catalog, record, typed)
        return record, typed
    if isinstance(hit[0], str):
        raise ToolError(hit[0])
    return hit[0], hit[1]


def _validated(name: str, arguments: dict[str, Any]) -> tuple[ToolSpec, BaseModel]:
    """The tool and its validated arguments. Raises ToolError (an unknown tool, bad arguments)."""
    spec = REGISTRY.get(name)
    if spec is None:
        raise ToolError(f"unknown tool {name!r}; available: {', '.join(REGISTRY)}")
    try:
        return spec, spec.args_model.model_validate(arguments)
    except ValidationError as exc:
        parts = [
            f"{'.'.join(str(x) for x in e['loc']) or 'arguments'}: {e['msg']}" for e in exc.errors()
        ]
        raise ToolError(f"{name}: invalid arguments: " + "; ".join(parts)) from None


def _run_tool(
    deps: Any, spec: ToolSpec, args: BaseModel, recorded: dict[str, Any]
) -> tuple[ToolCall, Any]:
    try:
        result = spec.fn(deps, args)
    except ToolError:
        raise
    except LookupError as exc:  # UnknownModel / UnknownConfiguration carry closest matches
        raise ToolError(f"{spec.name}: {exc}") from None
    except ValueError as exc:
        raise ToolError(f"{spec.name}: {exc}") from None
    data = result.model_dump(mode="json") if isinstance(result, BaseModel) else result
    return ToolCall(name=spec.name, arguments=recorded, result=data), result
