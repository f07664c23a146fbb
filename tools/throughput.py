"""Single-stream decode speed as a memory-bandwidth bound, and cost per million output tokens.

tokens/s = cards x bandwidth x efficiency / bytes read per token (weights, or the active weights of
a mixture of experts, plus the KV cache read for the context). The efficiency is calibrated to the
site's guide: Llama 3.3 70B in BF16 over 4 x A100 PCIe is about 18 tokens/s and over 4 x A100 SXM4
about 19 tokens/s. Like the guide's table this is a conservative floor: it does not model the
all-reduce between cards, so on a tensor-parallel job the real gap between PCIe and NVLink is
larger than these numbers suggest, not smaller.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from pydantic import BaseModel, ConfigDict, Field

from tools.fit import CardVerdict, Requirement, card_verdict, need_on, split_candidates
from tools.memory import (
    GB,
    Runtime,
    kv_bytes_per_token,
    layer_split,
    precision_of,
    runtime_of,
    weight_bytes,
)
from tools.money import HOURS_PER_MONTH, USD
from tools.specs import Gpu, KvPrecision, ModelSpec, Precision

#: Share of the rated memory bandwidth a single decode stream achieves, calibrated so the guide's
#: table comes out (4 x 1,935 GB/s / 3 / 141.1 GB = 18.3; 4 x 2,039 / 3 / 141.1 = 19.3).
#: Other calculators use 0.5-0.9; the guide's figures imply about 1/3 (conservative).
DECODE_EFFICIENCY = 1 / 3
FLOOR_NOTE = (
    "Conservative floor, bound by memory bandwidth; it ignores the all-reduce between cards, so "
    "a tensor-parallel job over PCIe loses more than this shows."
)


class DecodeInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: ModelSpec
    gpu: Gpu
    cards: int = Field(default=1, ge=1, description="cards the model is split across")
    precision: Precision | None = Field(default=None, description="None: native precision")
    context_tokens: int = Field(default=0, ge=0, description="context read with every token")
    kv_precision: KvPrecision = "bf16"
    efficiency: float = Field(default=DECODE_EFFICIENCY, gt=0, le=1)
    usd_per_month: USD | None = Field(default=None, description="node price for the cost figure")
    concurrency: int = Field(default=1, ge=1, description="sequences held, for the fit check")
    fit_context_tokens: int | None = Field(
        default=None,
        ge=0,
        description="context per sequence for the fit check; None: context_tokens, or fit's "
        "default 8,192 when that is 0",
    )
    node_cards: int | None = Field(
        default=None, ge=1, description="cards in the node, for fit's verdict (None: cards)"
    )
    runtime: Runtime | None = Field(default=None, description="None: as fit")
    output_tokens: int | None = Field(
        default=None,
        ge=1,
        description="tokens to write in total (200 texts x 500 tokens = 100,000): the time one "
        "stream takes to write them, and what that time costs",
    )


class DecodeResult(BaseModel):
    inputs: DecodeInput
    model_id: str
    precision: str
    bandwidth_gb_s_per_card: float
    aggregate_bandwidth_gb_s: float
    weights_read_gb_per_token: float
    kv_read_gb_per_token: float
    bytes_read_per_token_gb: float
    tokens_per_s: float
    seconds_per_token: float
    usd_per_million_tokens: USD | None = Field(
        description="node price / tokens in a month at this single-stream speed"
    )
    output_seconds: float | None = Field(
        default=None, description="output_tokens / tokens_per_s: one stream, one after another"
    )
    usd_for_output: USD | None = Field(
        default=None, description="the node's price for output_seconds (its monthly price / 730 h)"
    )
    fits: bool = Field(description="the job fits on `cards` cards (fit's rule)")
    required_gb_per_card: float = Field(description="fit's per-card need at `cards` cards")
    usable_gb_per_card: float
    fit: CardVerdict = Field(description="fit's verdict on the node")
    formula: str
    constants: dict[str, float]
    notes: list[str]


def _read_per_token(
    model: ModelSpec, precision: Precision | None, kv_precision: KvPrecision, context_tokens: int
) -> tuple[str, float, float]:
    """(the precision, bytes of weights read per token, bytes of KV cache read per token)."""
    named = precision_of(model, precision)
    _, active, _ = weight_bytes(model, named)
    kv = kv_bytes_per_token(model, kv_precision, context_tokens) * context_tokens
    return named, active, kv


def decode_tokens_per_s(
    model: ModelSpec,
    gpu: Gpu,
    cards: int,
    precision: Precision | None = None,
    context_tokens: int = 0,
    kv_precision: KvPrecision = "bf16",
) -> float:
    """`decode_throughput`'s tokens_per_s alone, by the same formula, without its fit check,
    cost and notes: for many configurations at once (an answer's chart)."""
    if model.kind != "llm":
        raise ValueError("decode throughput applies to language models")
    _, active, kv = _read_per_token(model, precision, kv_precision, context_tokens)
    return cards * gpu.memory_bandwidth_gb_s * GB * DECODE_EFFICIENCY / (active + kv)


def decode_throughput(inp: DecodeInput) -> DecodeResult:
    """Single-stream decode tokens/s bound by memory bandwidth (conservative, no all-reduce)."""
    model = inp.model
    if model.kind != "llm":
        raise ValueError("decode throughput applies to language models")
    precision, active, kv = _read_per_token(
        model, inp.precision, inp.kv_precision, inp.context_tokens
    )
    read = active + kv
    aggregate = inp.cards * inp.gpu.memory_bandwidth_gb_s
    tps = aggregate * GB * inp.efficiency / read
    cost: Decimal | None = None
    if inp.usd_per_month is not None:
        per_million = Decimal(inp.usd_per_month) / Decimal(tps * 3600 * HOURS_PER_MONTH) * 10**6
        cost = per_million.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    req = Requirement(
        model=model,
        precision=inp.precision,
        context_tokens=(
            inp.fit_context_tokens
            if inp.fit_context_tokens is not None
            else inp.context_tokens or Requirement.model_fields["context_tokens"].default
        ),
        concurrency=inp.concurrency,
        kv_precision=inp.kv_precision,
        runtime=inp.runtime,
    )
    required, usable = need_on(req, inp.gpu, inp.cards)
    verdict = card_verdict(req, inp.gpu, inp.node_cards or inp.cards)
    # a split the engine refuses (heads not divisible by the cards) is no fit, as fit's rule
    # says; llama.cpp and Ollama split by layers, any count
    layers = layer_split(runtime_of(precision, inp.runtime))
    splittable = layers or inp.cards in split_candidates(model, inp.cards)
    fits = required <= usable and splittable
    notes = [FLOOR_NOTE]
    if not splittable:
        notes.insert(
            0,
            f"An engine cannot split {model.name} over {inp.cards} cards (its attention heads "
            "do not divide evenly); this speed is not reachable.",
        )
    elif not fits:
        notes.insert(
            0,
            f"Does not fit on {inp.cards} card(s): {required:.1f} GB per card needed, "
            f"{usable:.1f} GB usable; this speed is not reachable.",
        )
    if model.is_moe:
        notes.append(
            f"Mixture of experts: only the {model.active_params_b:g}B active parameters "
            "are read per token, so speed follows active, memory follows total."
        )
    if cost is not None:
        notes.append("Cost assumes one stream running all month; batching many streams lowers it.")
    seconds = inp.output_tokens / tps if inp.output_tokens else None
    batch_cost: Decimal | None = None
    if seconds is not None:
        notes.append(
            "The time is one stream writing every token one after another; serving several "
            "requests at once finishes a batch sooner."
        )
        if inp.usd_per_month is not None:
            hours = Decimal(seconds) / 3600
            batch_cost = (Decimal(inp.usd_per_month) / Decimal(HOURS_PER_MONTH) * hours).quantize(
                Decimal("0.01"), rounding=ROUND_HALF_UP
            )
    return DecodeResult(
        inputs=inp,
        model_id=model.id,
        precision=precision,
        bandwidth_gb_s_per_card=inp.gpu.memory_bandwidth_gb_s,
        aggregate_bandwidth_gb_s=aggregate,
        weights_read_gb_per_token=active / GB,
        kv_read_gb_per_token=kv / GB,
        bytes_read_per_token_gb=read / GB,
        tokens_per_s=tps,
        seconds_per_token=1 / tps,
        usd_per_million_tokens=cost,
        output_seconds=seconds,
        usd_for_output=batch_cost,
        fits=fits,
        required_gb_per_card=required,
        usable_gb_per_card=usable,
        fit=verdict,
        formula="tokens_per_s = cards * bandwidth_gb_s * efficiency / bytes_read_per_token_gb; "
        "usd_per_million_tokens = usd_per_month / (tokens_per_s * 3600 * 730) * 1e6; "
        "output_seconds = output_tokens / tokens_per_s",
        constants={"efficiency": inp.efficiency, "hours_per_month": HOURS_PER_MONTH},
        notes=notes,
    )
