"""The registry machinery: `ToolError`, the args base class and precision aliases, `ToolSpec`,
the `@tool` decorator that registers a tool in `REGISTRY` (in definition order) and `call_tool`."""

from __future__ import annotations

import inspect
import typing
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
    "fp32", "bf16", "fp16", "fp8", "int8", "awq", "gptq", "gguf-q4_k_m", "gguf-q5_k_m", "gguf-q8_0"
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


def call_tool(deps: Any, name: str, arguments: dict[str, Any] | BaseModel) -> ToolCall:
    """Validate, run and record one tool call (`result`: the JSON dict). Raises ToolError."""
    return call_tool_typed(deps, name, arguments)[0]


def call_tool_typed(
    deps: Any, name: str, arguments: dict[str, Any] | BaseModel
) -> tuple[ToolCall, Any]:
    """As `call_tool`, plus the tool's own result: its pydantic result model (a `ToolResult`)
    where the tool declares one, else the dict."""
    spec = REGISTRY.get(name)
    if spec is None:
        raise ToolError(f"unknown tool {name!r}; available: {', '.join(REGISTRY)}")
    if isinstance(arguments, BaseModel):
        arguments = arguments.model_dump(exclude_none=True)
    try:
        args = spec.args_model.model_validate(arguments)
    except ValidationError as exc:
        parts = [
            f"{'.'.join(str(x) for x in e['loc']) or 'arguments'}: {e['msg']}" for e in exc.errors()
        ]
        raise ToolError(f"{name}: invalid arguments: " + "; ".join(parts)) from None
    try:
        result = spec.fn(deps, args)
    except ToolError:
        raise
    except LookupError as exc:  # UnknownModel / UnknownConfiguration carry closest matches
        raise ToolError(f"{name}: {exc}") from None
    except ValueError as exc:
        raise ToolError(f"{name}: {exc}") from None
    data = result.model_dump(mode="json") if isinstance(result, BaseModel) else result
    return ToolCall(name=name, arguments=args.model_dump(exclude_none=True), result=data), result
