"""Speed: single-stream decode throughput and cost per token (`throughput_estimate`)."""

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


class ThroughputArgs(_Args):
    model: str = Field(description="model name, HF id, ollama tag, or a parameter count like '34B'")
    configuration: str = Field(description="configuration id or label, e.g. '4x-a100-sxm4'")
    precision: PrecisionArg | None = Field(default=None, description="omitted: native precision")
    context_tokens: int = Field(
        default=0, ge=0, le=2_000_000, description="context read with every token (0: weights only)"
    )
    cards: int | None = Field(
        default=None,
        ge=1,
        le=8,
        description="cards the model is split across; omitted: the fewest cards it fits on "
        "(as capacity_check), the whole node if it fits nowhere",
    )
    concurrency: int = Field(
        default=1, ge=1, le=4096, description="sequences held at once, for the fit check"
    )
    kv_precision: Literal["bf16", "fp16", "fp8", "int8", "fp32"] = Field(
        default="bf16", description="KV-cache precision (vLLM kv_cache_dtype)"
    )
    runtime: Literal["vllm", "llama.cpp", "ollama"] | None = Field(
        default=None,
        description="serving engine; omitted: llama.cpp for GGUF precisions, else vllm",
    )
    output_tokens: int | None = Field(
        default=None,
        ge=1,
        le=10**12,
        description="tokens to write in total, for a batch's duration (200 texts x 500 tokens "
        "= 100000); omitted: no duration",
    )

    @field_validator("precision", mode="before")
    @classmethod
    def norm_precision(cls, v: Any) -> Any:
        return _norm_precision(v)


@tool
def throughput_estimate(deps: Any, args: ThroughputArgs) -> dict[str, Any]:
    """Single-stream decode speed (tokens/s) of a model on a configuration: bound by memory
    bandwidth, calibrated to the site's guide (Llama 3.3 70B BF16: about 18 tokens/s on
    4x A100 PCIe, about 19 on 4x A100 SXM4). A conservative floor that ignores the all-reduce.
    Also the cost per million output tokens at the node's exact monthly price. `fits` is
    fit_check's verdict on those cards (context_tokens, or 8,192 when 0, x concurrency): when
    false the job cannot run there and the speed is not reachable. With `output_tokens`, how
    long one stream takes to write them (seconds, minutes, hours, days) and what that time of
    the node costs."""
    from tools.throughput import DecodeInput, decode_throughput

    m = _model(deps, args.model)
    c = _configuration(deps, args.configuration)
    gpu = deps.catalog.gpus[c.gpu]
    fit_context = args.context_tokens or 8192
    cards, fit = _cards_used(deps, m, c, args)
    res = decode_throughput(
        DecodeInput(
            model=m,
            gpu=gpu,
            cards=cards,
            precision=args.precision,
            context_tokens=args.context_tokens,
            kv_precision=args.kv_precision,
            usd_per_month=c.usd_per_month,
            concurrency=args.concurrency,
            fit_context_tokens=fit_context,
            node_cards=c.count,
            runtime=args.runtime,
            output_tokens=args.output_tokens,
        )
    )
    out: dict[str, Any] = {
        "model": _model_info(m),
        "configuration": c.id,
        "label": c.label,
        "fit_verdict": fit.verdict,
        "fits": res.fits,
        "required_gb_per_card": _r(res.required_gb_per_card, 1),
        "usable_gb_per_card": _r(res.usable_gb_per_card, 1),
        "cards": cards,
        "replicas": c.count // cards,
        "precision": res.precision,
        "bandwidth_gb_s_per_card": res.bandwidth_gb_s_per_card,
        "aggregate_bandwidth_gb_s": res.aggregate_bandwidth_gb_s,
        "bytes_read_per_token_gb": _r(res.bytes_read_per_token_gb),
        "tokens_per_s": _r(res.tokens_per_s, 1),
        "usd_per_month": _money(c.usd_per_month),
        "usd_per_million_tokens": _money(res.usd_per_million_tokens)
        if res.usd_per_million_tokens is not None
        else None,
        "price_source": c.price_source,
        "constants": res.constants,
        "assumptions": _assumptions(m),
        "formula": res.formula,
        "notes": res.notes,
    }
    if res.output_seconds is not None:
        out.update(_duration(res.output_seconds))
        out["output_tokens"] = args.output_tokens
        out["usd_for_output"] = (
            _money(res.usd_for_output) if res.usd_for_output is not None else None
        )
    return out


def tokens_per_s(deps: Any, args: ThroughputArgs) -> float:
    """`throughput_estimate`'s tokens_per_s alone, as it states it (the same cards, formula and
    rounding), without the rest of its result: an answer's chart asks it for up to a dozen
    configurations. Raises as the tool does (ToolError, LookupError, ValueError)."""
    from tools.throughput import decode_tokens_per_s

    m = _model(deps, args.model)
    c = _configuration(deps, args.configuration)
    cards, _ = _cards_used(deps, m, c, args)
    gpu = deps.catalog.gpus[c.gpu]
    return _r(
        decode_tokens_per_s(m, gpu, cards, args.precision, args.context_tokens, args.kv_precision),
        1,
    )


def _cards_used(deps: Any, m: Any, c: Any, args: ThroughputArgs) -> tuple[int, Any]:
    """The cards the speed is for (those asked, else the fewest that hold the job at the context,
    8,192 tokens when 0) and the fit row behind it. Raises ToolError beyond the node's cards."""
    fewest, fit = _node_cards(
        deps,
        m,
        c,
        precision=args.precision,
        context_tokens=args.context_tokens or 8192,
        concurrency=args.concurrency,
        kv_precision=args.kv_precision,
        runtime=args.runtime,
    )
    cards = args.cards or fewest
    if cards > c.count:
        raise ToolError(f"{c.id} has only {c.count} cards")
    return cards, fit


def _duration(seconds: float) -> dict[str, float]:
    """A batch's time in the units an answer may state it in, each rounded as stated."""
    return {
        "output_seconds": round(seconds),
        "output_minutes": _r(seconds / 60, 1),
        "output_hours": _r(seconds / 3600, 1),
        "output_days": _r(seconds / 86400, 1),
    }
