"""Capacity: inverse sizing on one configuration, longest context and most sequences
(`capacity_check`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from assistant.registry.core import PrecisionArg, ToolError, _Args, _norm_precision, tool
from assistant.registry.helpers import (
    _assumptions,
    _configuration,
    _model,
    _model_info,
    _money,
    _node_cards,
    _r,
)


class CapacityArgs(_Args):
    model: str = Field(description="model name, HF id, ollama tag (an LLM with known architecture)")
    configuration: str = Field(description="configuration id or label, e.g. '4x-h100-sxm5'")
    precision: PrecisionArg | None = Field(default=None, description="omitted: native precision")
    context_tokens: int = Field(
        default=8192, ge=1, le=2_000_000, description="tokens per sequence, for the most sequences"
    )
    concurrency: int = Field(
        default=1, ge=1, le=4096, description="sequences, for the longest context"
    )
    kv_precision: Literal["bf16", "fp16", "fp8", "int8", "fp32"] = Field(
        default="bf16", description="KV-cache precision (vLLM kv_cache_dtype)"
    )
    runtime: Literal["vllm", "llama.cpp", "ollama"] | None = Field(
        default=None,
        description="serving engine; omitted: llama.cpp for GGUF precisions, else vllm",
    )
    cards: int | None = Field(
        default=None,
        ge=1,
        le=8,
        description="cards one model instance uses; omitted: the fewest it fits on (as "
        "throughput_estimate), the whole node if it fits nowhere",
    )

    @field_validator("precision", mode="before")
    @classmethod
    def norm_precision(cls, v: Any) -> Any:
        return _norm_precision(v)


@tool
def capacity_check(deps: Any, args: CapacityArgs) -> dict[str, Any]:
    """Inverse sizing on one configuration: how much KV cache fits next to the weights, so the
    longest context for `concurrency` sequences and the most concurrent sequences of
    `context_tokens` each, per model instance on `cards` cards (default: the fewest it fits on,
    as throughput_estimate) and for the whole node (`replicas` instances)."""
    from tools.fit import CapacityInput, capacity

    m = _model(deps, args.model)
    c = _configuration(deps, args.configuration)
    if args.cards is not None and args.cards > c.count:
        raise ToolError(f"{c.id} has only {c.count} cards")
    cards = args.cards
    if cards is None:
        cards, _ = _node_cards(
            deps,
            m,
            c,
            precision=args.precision,
            context_tokens=args.context_tokens,
            concurrency=args.concurrency,
            kv_precision=args.kv_precision,
            runtime=args.runtime,
        )
    res = capacity(
        CapacityInput(
            model=m,
            gpu=deps.catalog.gpus[c.gpu],
            count=c.count,
            tensor_parallel=_valid_tp(m, cards, res_runtime(m, args)),
            precision=args.precision,
            kv_precision=args.kv_precision,
            concurrency=args.concurrency,
            context_tokens=args.context_tokens,
            runtime=args.runtime,
        )
    )
    replicas = c.count // res.tensor_parallel
    return {
        "model": _model_info(m),
        "configuration": c.id,
        "label": c.label,
        "precision": args.precision or m.native_precision,
        "kv_precision": args.kv_precision,
        "runtime": res.runtime,
        "tensor_parallel": res.tensor_parallel,
        "cards": res.tensor_parallel,
        "replicas": replicas,
        "usable_gb_per_card": _r(res.usable_gb_per_card),
        "weights_gb_per_card": _r(res.weights_gb_per_card),
        "kv_room_gb_per_card": _r(res.kv_room_gb_per_card),
        "kv_tokens": res.kv_tokens,
        "context_tokens": args.context_tokens,
        "concurrency": args.concurrency,
        "max_context_tokens": res.max_context_tokens,
        "max_context_capped": res.max_context_capped,
        "model_max_context": m.max_context,
        "max_concurrency": res.max_concurrency,
        "max_concurrency_node": res.max_concurrency * replicas,
        "fits": res.fits,
        "load_fits": res.load_fits,
        "load_required_gb_per_card": _r(res.load_required_gb_per_card, 1),
        "fit_verdict": res.fit.verdict,
        "usd_per_month": _money(c.usd_per_month),
        "assumptions": _assumptions(m),
        "formula": res.formula,
        "notes": res.notes,
    }


def res_runtime(m: Any, args: CapacityArgs) -> str:
    from tools.memory import precision_of, runtime_of

    return runtime_of(precision_of(m, args.precision), args.runtime)


def _valid_tp(m: Any, cards: int, runtime: str) -> int:
    """The largest split <= cards the engine accepts (vLLM: attention heads divisible)."""
    from tools.fit import split_candidates
    from tools.memory import layer_split

    if layer_split(runtime):
        return cards
    return max(split_candidates(m, cards))
