"""The agent-facing tools: one registry for the offline composer and the LLM.

Each tool is a plain typed function `fn(deps, args: SomeArgs) -> dict` over the engine's pure tools
(`tools/`) and the catalog. Arguments are simple (model name, precision, context, concurrency,
configuration id); the result is a JSON-able dict that carries the figures, the assumptions and
the formula, so an answer can show its work and the grounding check can find every number.

    call_tool(deps, "fit_check", {"model": "Llama 3.3 70B", "precision": "bf16"}) -> ToolCall

`call_tool` validates the arguments (pydantic), runs the tool and records the call. Bad arguments,
an unknown tool, model or configuration raise `ToolError` with a message that names the problem
and the closest known names (the LLM sees that message and can correct itself).

The docstrings and field descriptions are what an LLM sees: keep them precise.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

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


def _norm_precision(v: Any) -> Any:
    if isinstance(v, str):
        key = v.strip().lower().replace(" ", "")
        return _PRECISION_ALIASES.get(key, key)
    return v


# --------------------------------------------------------------------------- registry


@dataclass(frozen=True)
class ToolSpec:
    name: str
    fn: Callable[[Any, Any], dict[str, Any]]
    args_model: type[BaseModel]
    description: str


REGISTRY: dict[str, ToolSpec] = {}


def tool(fn: Callable[[Any, Any], dict[str, Any]]) -> Callable[[Any, Any], dict[str, Any]]:
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
    """Validate, run and record one tool call. Raises ToolError on any problem."""
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
    return ToolCall(name=name, arguments=args.model_dump(exclude_none=True), result=result)


# --------------------------------------------------------------------------- helpers


def _model(deps: Any, text: str) -> Any:
    return deps.catalog.find_model(text)


def _configuration(deps: Any, text: str) -> Any:
    return deps.catalog.find_configuration(text)


def _model_info(m: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"id": m.id, "name": m.name, "kind": m.kind, "params_b": m.params_b}
    if m.active_params_b:
        out["active_params_b"] = m.active_params_b
    if m.generic:
        out["generic"] = True
    if m.layers:
        out["layers"] = m.layers
    out["native_precision"] = m.native_precision
    return out


def _money(v: Any) -> int | float:
    d = Decimal(str(v))
    return int(d) if d == d.to_integral_value() else float(d)


def quote(deps: Any, cid: str) -> dict[str, Any]:
    """A configuration's price quote as a dict (exact catalog price)."""
    c = deps.catalog.configurations[cid]
    return {
        "configuration": c.id,
        "label": c.label,
        "usd_per_month": _money(c.usd_per_month),
        "price_source": c.price_source,
        "url": c.url,
        "url_en": c.url_en,
    }


def _r(x: float, places: int = 2) -> float:
    return round(float(x), places)


# --------------------------------------------------------------------------- fit


class FitArgs(_Args):
    model: str = Field(
        description="model name, Hugging Face id or ollama tag (e.g. 'Llama 3.3 70B', "
        "'meta-llama/Llama-3.3-70B-Instruct', 'llama3.3:70b'), or a parameter count like '34B'"
    )
    precision: PrecisionArg | None = Field(
        default=None, description="weight precision; omitted: the model's native precision"
    )
    context_tokens: int = Field(default=8192, ge=0, le=2_000_000, description="tokens per sequence")
    concurrency: int = Field(default=1, ge=1, le=4096, description="sequences served at once")
    configurations: list[str] | None = Field(
        default=None,
        description="only these configuration ids (e.g. ['4x-a100-sxm4']); omitted: all 41",
    )
    sort: Literal["catalog", "price"] = Field(default="catalog", description="row order")

    @field_validator("precision", mode="before")
    @classmethod
    def norm_precision(cls, v: Any) -> Any:
        return _norm_precision(v)


@tool
def fit_check(deps: Any, args: FitArgs) -> dict[str, Any]:
    """The configurator: does a model fit each rentable configuration?

    For every configuration (or the ones named) the verdict is 'fits_one_card', 'split' (must be
    split across cards_needed cards with tensor parallelism) or 'does_not_fit', with the memory
    required per card, the usable memory per card (90% of the card, as vLLM), the headroom and the
    exact monthly price. Also returns the weights (GB) and the KV bytes per token. Use it for
    "does X fit on Y", "how many cards", "how much VRAM".
    """
    from tools.fit import Requirement, fit_configurations

    m = _model(deps, args.model)
    cat = deps.catalog
    if args.configurations:
        configs = [_configuration(deps, c) for c in args.configurations]
    else:
        configs = list(cat.configurations.values())
    req = Requirement(
        model=m,
        precision=args.precision,
        context_tokens=args.context_tokens,
        concurrency=args.concurrency,
    )
    res = fit_configurations(req, configs, cat.gpus, sort=args.sort)
    rows = [
        {
            "configuration": r.configuration,
            "label": r.label,
            "gpu": r.gpu,
            "count": r.count,
            "memory_gb_per_card": r.memory_gb_per_card,
            "usable_gb_per_card": _r(r.usable_gb_per_card),
            "verdict": r.verdict,
            "cards_needed": r.cards_needed,
            "required_gb_per_card": _r(r.required_gb_per_card),
            "headroom_gb": _r(r.headroom_gb),
            "replicas": r.replicas,
            "interconnect": r.interconnect,
            "usd_per_month": _money(r.usd_per_month),
            "price_source": r.price_source,
        }
        for r in res.rows
    ]
    return {
        "model": _model_info(m),
        "precision": res.precision,
        "context_tokens": args.context_tokens,
        "concurrency": args.concurrency,
        "weights_gb": _r(res.weights_gb),
        "kv_bytes_per_token": res.kv_bytes_per_token,
        "kv_gb": _r(res.kv_bytes_per_token * args.context_tokens * args.concurrency / 1e9),
        "constants": res.constants,
        "counts": res.counts(),
        "rows": rows,
        "formula": res.formula,
        "notes": res.notes,
    }


# --------------------------------------------------------------------------- memory


class MemoryArgs(_Args):
    model: str = Field(description="model name, HF id, ollama tag, or a parameter count like '34B'")
    precision: PrecisionArg | None = Field(default=None, description="omitted: native precision")
    context_tokens: int = Field(default=8192, ge=0, le=2_000_000, description="tokens per sequence")
    concurrency: int = Field(default=1, ge=1, le=4096, description="sequences served at once")
    kv_precision: Literal["bf16", "fp16", "fp8", "int8", "fp32"] = Field(
        default="bf16", description="KV-cache precision (vLLM kv_cache_dtype)"
    )
    tensor_parallel: int = Field(default=1, ge=1, le=8, description="cards the model is split over")
    training: bool = Field(
        default=False,
        description="true: full fine-tuning memory (mixed precision + Adam) instead of serving",
    )
    adapter: Literal["lora", "qlora"] | None = Field(
        default=None,
        description="LoRA/QLoRA fine-tuning memory instead of serving: 'lora' (BF16 base) or "
        "'qlora' (NF4 base); frozen base weights + FP32 adapter weights, gradients, Adam",
    )
    lora_rank: int = Field(default=16, ge=1, le=4096, description="LoRA rank r (with adapter)")
    lora_targets: Literal["all_linear", "attention"] = Field(
        default="all_linear",
        description="with adapter: all linear layers (attention + MLP) or attention only",
    )

    @field_validator("precision", mode="before")
    @classmethod
    def norm_precision(cls, v: Any) -> Any:
        return _norm_precision(v)


@tool
def memory_need(deps: Any, args: MemoryArgs) -> dict[str, Any]:
    """Memory a model needs: weights at a precision, KV cache for context x concurrency, runtime
    overhead, per card when split over tensor_parallel cards (GB = 10^9 bytes). With
    training=true: full fine-tuning memory with mixed precision and Adam (about 16 bytes per
    parameter before activations). With adapter='lora'/'qlora': LoRA/QLoRA fine-tuning memory
    (frozen base weights in BF16 or NF4 + 16 bytes per adapter parameter, before activations).
    Image/video models: their published VRAM need.
    """
    from tools.memory import (
        PublishedVramInput,
        ServingInput,
        TrainingInput,
        published_vram,
        serving_memory,
        training_memory,
    )

    m = _model(deps, args.model)
    if args.adapter is not None:
        return _adapter_need(m, args)
    if m.kind != "llm":
        pv = published_vram(PublishedVramInput(model=m, precision=args.precision))
        return {
            "model": _model_info(m),
            "precision": pv.precision,
            "vram_gb": pv.vram_gb,
            "vram_gb_low": pv.vram_gb_low,
            "available_precisions": pv.available_precisions,
            "formula": pv.formula,
            "notes": pv.notes,
        }
    if args.training:
        t = training_memory(TrainingInput(model=m))
        return {
            "model": _model_info(m),
            "training": True,
            "bytes_per_param": t.bytes_per_param,
            "weights_gb": _r(t.weights_gb),
            "gradients_gb": _r(t.gradients_gb),
            "master_weights_gb": _r(t.master_weights_gb),
            "optimizer_gb": _r(t.optimizer_gb),
            "total_gb": _r(t.total_gb),
            "formula": t.formula,
            "notes": t.notes,
        }
    s = serving_memory(
        ServingInput(
            model=m,
            precision=args.precision,
            context_tokens=args.context_tokens,
            concurrency=args.concurrency,
            kv_precision=args.kv_precision,
            tensor_parallel=args.tensor_parallel,
        )
    )
    return {
        "model": _model_info(m),
        "precision": s.weights.precision,
        "bits_per_weight": _r(s.weights.bits_per_weight, 3),
        "weights_gb": _r(s.weights.weights_gb),
        "active_weights_gb": _r(s.weights.active_weights_gb),
        "kv_bytes_per_token": s.kv.kv_bytes_per_token,
        "kv_gb_total": _r(s.kv.kv_gb_total),
        "kv_gb_per_card": _r(s.kv_gb_per_card),
        "overhead_gb_per_card": _r(s.overhead_gb_per_card),
        "tensor_parallel": args.tensor_parallel,
        "required_gb_per_card": _r(s.required_gb_per_card),
        "required_gb_total": _r(s.required_gb_total),
        "context_tokens": args.context_tokens,
        "concurrency": args.concurrency,
        "constants": s.constants,
        "formula": s.formula,
        "notes": s.notes,
    }


def _adapter_need(m: Any, args: MemoryArgs) -> dict[str, Any]:
    from tools.memory import AdapterTrainingInput, adapter_training_memory

    assert args.adapter is not None
    a = adapter_training_memory(
        AdapterTrainingInput(
            model=m, method=args.adapter, rank=args.lora_rank, targets=args.lora_targets
        )
    )
    return {
        "model": _model_info(m),
        "adapter": a.method,
        "lora_rank": a.rank,
        "lora_targets": a.targets,
        "base_precision": a.base_precision,
        "base_bits_per_param": _r(a.base_bits_per_param, 3),
        "adapter_params": a.adapter_params,
        "adapter_params_m": _r(a.adapter_params / 1e6, 1),
        "adapter_share_percent": _r(a.adapter_share_percent, 2),
        "adapter_bytes_per_param": a.adapter_bytes_per_param,
        "base_weights_gb": _r(a.base_weights_gb),
        "adapter_weights_gb": _r(a.adapter_weights_gb),
        "adapter_gradients_gb": _r(a.adapter_gradients_gb),
        "adapter_optimizer_gb": _r(a.adapter_optimizer_gb),
        "adapter_state_gb": _r(a.adapter_state_gb),
        "total_gb": _r(a.total_gb),
        "activations_included": False,
        "constants": a.constants,
        "formula": a.formula,
        "notes": a.notes,
    }


# --------------------------------------------------------------------------- prices


class PriceArgs(_Args):
    configurations: list[str] = Field(
        min_length=1,
        max_length=41,
        description="configuration ids or labels, e.g. ['4x-a100-pcie', '4 x A100 SXM4']",
    )


@tool
def price_quote(deps: Any, args: PriceArgs) -> dict[str, Any]:
    """Exact monthly prices (USD) of configurations from the catalog, with their page URLs and
    whether each price is published or a placeholder; for two or more, the difference to the
    cheapest (e.g. 4x A100 SXM4 costs $238 more per month than 4x A100 PCIe)."""
    from tools.prices import compare
    from tools.prices import quote as price_of

    cat = deps.catalog
    ids: list[str] = []
    for text in args.configurations:
        cid = _configuration(deps, text).id
        if cid not in ids:
            ids.append(cid)
    quotes = [
        price_of(cat.configurations[cid], cat.gpus[cat.configurations[cid].gpu]) for cid in ids
    ]
    out: dict[str, Any] = {"quotes": [q.model_dump(mode="json") for q in quotes]}
    if len(quotes) > 1:
        comp = compare(quotes)
        out["cheapest"] = comp.cheapest
        out["difference_usd_per_month"] = _money(comp.spread_usd)
        out["differences"] = [d.model_dump(mode="json") for d in comp.differences]
    return out


class CheapestArgs(FitArgs):
    interconnect: Literal["any", "nvlink", "pcie"] = Field(
        default="any", description="only NVLink (SXM) nodes, only PCIe nodes, or any"
    )
    one_card: bool = Field(
        default=False, description="true: only configurations where it fits on one card"
    )


@tool
def cheapest_fit(deps: Any, args: CheapestArgs) -> dict[str, Any]:
    """The cheapest configurations (by exact monthly price) on which a model fits, optionally only
    NVLink/SXM or only PCIe nodes, or only where it fits on a single card. Returns up to five, the
    cheapest first, with verdict, cards needed and price."""
    fit = fit_check(deps, FitArgs(**args.model_dump(exclude={"interconnect", "one_card"})))
    links = deps.catalog.links
    rows = [r for r in fit["rows"] if r["verdict"] != "does_not_fit"]
    if args.one_card:
        rows = [r for r in rows if r["verdict"] == "fits_one_card"]
    if args.interconnect != "any":
        rows = [r for r in rows if links[r["interconnect"]].kind == args.interconnect]
    rows.sort(key=lambda r: (Decimal(str(r["usd_per_month"])), r["configuration"]))
    return {
        "model": fit["model"],
        "precision": fit["precision"],
        "context_tokens": fit["context_tokens"],
        "concurrency": fit["concurrency"],
        "weights_gb": fit["weights_gb"],
        "interconnect": args.interconnect,
        "cheapest": rows[:5],
        "fitting_configurations": len(rows),
    }


# --------------------------------------------------------------------------- speed


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
        description="cards the model is split across; omitted: the fewest cards it fits on",
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
    Also the cost per million output tokens at the node's exact monthly price."""
    from tools.fit import Requirement, fit_configuration
    from tools.throughput import DecodeInput, decode_throughput

    m = _model(deps, args.model)
    c = _configuration(deps, args.configuration)
    gpu = deps.catalog.gpus[c.gpu]
    cards = args.cards
    fit = fit_configuration(
        Requirement(model=m, precision=args.precision, context_tokens=args.context_tokens or 8192),
        c,
        gpu,
    )
    if cards is None:
        cards = fit.cards_needed or c.count
    if cards > c.count:
        raise ToolError(f"{c.id} has only {c.count} cards")
    res = decode_throughput(
        DecodeInput(
            model=m,
            gpu=gpu,
            cards=cards,
            precision=args.precision,
            context_tokens=args.context_tokens,
            usd_per_month=c.usd_per_month,
        )
    )
    return {
        "model": _model_info(m),
        "configuration": c.id,
        "label": c.label,
        "fit_verdict": fit.verdict,
        "cards": cards,
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
        "formula": res.formula,
        "notes": res.notes,
    }


# --------------------------------------------------------------------------- interconnect


def _node_link(deps: Any, configuration: Any) -> Any:
    from tools.interconnect import effective_link

    cat = deps.catalog
    return effective_link(
        cat.gpus[configuration.gpu], cat.links[configuration.interconnect], list(cat.links.values())
    )


def _link_info(link: Any, language: str = "en") -> dict[str, Any]:
    return {
        "id": link.id,
        "name": link.name,
        "kind": link.kind,
        "bandwidth_gb_s": link.bandwidth_gb_s,
        "topology": link.topology,
        "topology_de": link.topology_de,
        "topo_labels": list(link.topo_labels),
    }


class LinkArgs(_Args):
    configurations: list[str] = Field(
        default_factory=list,
        max_length=8,
        description="configuration ids to describe (e.g. ['4x-a100-pcie', '4x-a100-sxm4']); "
        "empty: all link types",
    )


@tool
def interconnect_facts(deps: Any, args: LinkArgs) -> dict[str, Any]:
    """The card-to-card link of configurations (NVLink generation or PCIe generation, bandwidth in
    GB/s, topology, what `nvidia-smi topo -m` shows), the link a PCIe Gen4 card really runs at,
    and the bandwidth ratio NVLink 4 : PCIe Gen5 (about 14x)."""
    from tools.interconnect import LinkRatioInput, link_ratio

    cat = deps.catalog
    out: dict[str, Any] = {}
    if args.configurations:
        nodes = []
        for text in args.configurations:
            c = _configuration(deps, text)
            eff = _node_link(deps, c)
            nodes.append(
                {
                    "configuration": c.id,
                    "label": c.label,
                    "count": c.count,
                    "link": _link_info(eff),
                    "sold_as": c.interconnect,
                }
            )
        out["nodes"] = nodes
    else:
        out["links"] = [_link_info(link) for link in cat.links.values()]
    if "nvlink-4" in cat.links and "pcie-gen5-x16" in cat.links:
        r = link_ratio(LinkRatioInput(fast=cat.links["nvlink-4"], slow=cat.links["pcie-gen5-x16"]))
        out["ratio_nvlink4_to_pcie_gen5"] = _r(r.ratio, 1)
    return out


class TensorParallelArgs(_Args):
    model: str = Field(description="model name (needs a known architecture: layers, hidden size)")
    configuration: str = Field(description="configuration id, e.g. '4x-a100-pcie'")
    cards: int | None = Field(default=None, ge=2, le=8, description="omitted: the node's count")


@tool
def tensor_parallel_cost(deps: Any, args: TensorParallelArgs) -> dict[str, Any]:
    """What tensor parallelism costs per generated token on a node: all-reduces per token (one
    per layer as the guide counts: 80 for a 70B model), time per sync on the node's link and
    time per token spent synchronising."""
    from tools.interconnect import TensorParallelInput, tensor_parallel_sync

    m = _model(deps, args.model)
    c = _configuration(deps, args.configuration)
    cards = args.cards or c.count
    if cards < 2:
        raise ToolError(f"{c.id} has one card: nothing to split across")
    link = _node_link(deps, c)
    r = tensor_parallel_sync(TensorParallelInput(model=m, link=link, cards=cards))
    return {
        "model": _model_info(m),
        "configuration": c.id,
        "link": _link_info(link),
        "cards": cards,
        "syncs_per_token": r.syncs_per_token,
        "seconds_per_sync": r.seconds_per_sync,
        "seconds_per_token": r.seconds_per_token,
        "ms_per_token": _r(r.seconds_per_token * 1000, 3),
        "constants": r.constants,
        "formula": r.formula,
        "notes": r.notes,
    }


LinkId = Literal["pcie-gen4-x16", "pcie-gen5-x16", "nvlink-3", "nvlink-4", "nvlink-5"]
DEFAULT_LINKS: tuple[LinkId, ...] = ("pcie-gen5-x16", "nvlink-4")


class AllReduceArgs(_Args):
    model: str | None = Field(
        default=None, description="model name or parameter count ('70B'); or give params_b"
    )
    params_b: float | None = Field(
        default=None, gt=0, le=10_000, description="parameters, billions"
    )
    links: list[LinkId] = Field(
        default_factory=lambda: list(DEFAULT_LINKS),
        description="links to compare (default: PCIe Gen5 and NVLink 4, as the guide does)",
    )
    cards: int = Field(default=4, ge=2, le=8, description="cards in the all-reduce (ring figure)")
    bytes_per_param: float = Field(default=2, gt=0, le=4, description="gradient width: BF16 = 2")


@tool
def gradient_allreduce_time(deps: Any, args: AllReduceArgs) -> dict[str, Any]:
    """Time of the gradient all-reduce at the end of every training step: size = parameters x 2
    bytes (BF16), time = size / link bandwidth as the guide counts it (70B: 140 GB, about 2.2 s
    over PCIe Gen5, about 0.16 s over NVLink 4), plus the ring figure 2(n-1)/n x size / bandwidth
    (nccl-tests bus bandwidth)."""
    from tools.interconnect import GradientAllReduceInput, gradient_allreduce

    if args.params_b is not None:
        params_b = args.params_b
        info: dict[str, Any] | None = None
    elif args.model:
        m = _model(deps, args.model)
        params_b, info = m.params_b, _model_info(m)
    else:
        raise ToolError("gradient_allreduce_time: give a model or params_b")
    rows = []
    for lid in args.links:
        link = deps.catalog.links[lid]
        r = gradient_allreduce(
            GradientAllReduceInput(
                params_b=params_b,
                bytes_per_param=args.bytes_per_param,
                link=link,
                cards=args.cards,
            )
        )
        rows.append(
            {
                "link": lid,
                "name": link.name,
                "bandwidth_gb_s": r.bandwidth_gb_s,
                "seconds": _r(r.seconds, 3),
                "ring_seconds": _r(r.ring_seconds, 3),
                "ring_factor": _r(r.ring_factor, 3),
            }
        )
    return {
        "model": info,
        "params_b": params_b,
        "size_gb": _r(params_b * args.bytes_per_param),
        "cards": args.cards,
        "rows": rows,
        "formula": "seconds = size_gb / bandwidth_gb_s; ring_seconds = 2(n-1)/n * size_gb / "
        "bandwidth_gb_s",
    }


# --------------------------------------------------------------------------- card facts


class CardArgs(_Args):
    cards: list[str] | None = Field(
        default=None,
        description="card ids or names ('H200', 'A100 SXM4', 'l40s'; 'A100' means both A100s); "
        "omitted: every card",
    )
    memory_gb: float | None = Field(
        default=None, gt=0, le=1000, description="only cards with this much memory, e.g. 48"
    )


def _norm_card(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum()).removeprefix("nvidia")


def _cards(deps: Any, names: list[str]) -> list[Any]:
    gpus = list(deps.catalog.gpus.values())
    out: list[Any] = []
    for name in names:
        key = _norm_card(name)
        exact = [
            g
            for g in gpus
            if key
            in {_norm_card(g.id), _norm_card(g.short_name), _norm_card(g.name)}
            | {_norm_card(a) for a in g.aliases}
        ]
        found = exact or [g for g in gpus if key and _norm_card(g.id).startswith(key)]
        if not found:
            known = ", ".join(g.short_name for g in gpus)
            raise ToolError(f"card_facts: unknown card {name!r}; known: {known}")
        out += [g for g in found if g not in out]
    return out


@tool
def card_facts(deps: Any, args: CardArgs) -> dict[str, Any]:
    """Card specs as the site rents them: memory per card (GB) and the share a serving engine
    may use (90 %, as vLLM), memory bandwidth, FP8 tensor cores, form factor, NVLink links per
    card, and the nodes each card comes in with their exact monthly prices. Use for "how much
    VRAM does the H200 have", "which cards have 48 GB", "is the RTX 5090 an SXM card"."""
    from tools.memory import GPU_MEMORY_UTILIZATION, usable_gb

    cat = deps.catalog
    gpus = _cards(deps, args.cards) if args.cards else list(cat.gpus.values())
    if args.memory_gb is not None:
        gpus = [g for g in gpus if abs(g.memory_gb - args.memory_gb) < 0.5]
    cards = []
    for g in gpus:
        nodes = [c for c in cat.configurations.values() if c.gpu == g.id]
        cards.append(
            {
                "id": g.id,
                "name": g.name,
                "short_name": g.short_name,
                "memory_gb": g.memory_gb,
                "usable_gb": _r(usable_gb(g.memory_gb)),
                "memory_bandwidth_gb_s": g.memory_bandwidth_gb_s,
                "form_factor": g.form_factor,
                "pcie_gen": g.pcie_gen,
                "nvlink_links": g.nvlink_links,
                "fp8_native": g.fp8_native,
                "configurations": [
                    {
                        "configuration": c.id,
                        "label": c.label,
                        "count": c.count,
                        "usd_per_month": _money(c.usd_per_month),
                        "price_source": c.price_source,
                    }
                    for c in nodes
                ],
            }
        )
    return {"cards": cards, "gpu_memory_utilization": GPU_MEMORY_UTILIZATION}


# --------------------------------------------------------------------------- advice


class AdviceArgs(_Args):
    model: str | None = Field(
        default=None,
        description="model name or parameter count; decides whether it fits on one card. "
        "Omitted: give fits_one_card yourself",
    )
    precision: PrecisionArg | None = Field(default=None, description="omitted: native precision")
    context_tokens: int = Field(default=8192, ge=0, le=2_000_000)
    concurrency: int = Field(default=1, ge=1, le=4096)
    fits_one_card: bool | None = Field(default=None, description="only when no model is given")
    workload: Literal["llm_serving", "training", "image_video", "rendering"] = Field(
        default="llm_serving",
        description="serving an LLM, training/fine-tuning, image/video generation, or rendering",
    )
    traffic: Literal["low", "high"] = Field(
        default="low", description="serving: 'high' for real traffic, 'low' for few users"
    )
    parallelism: Literal["auto", "tensor", "pipeline", "replicas"] = Field(
        default="auto", description="how the job is split, if the user said"
    )
    independent_jobs: bool = Field(
        default=False, description="several independent models or jobs (one per card)"
    )
    cards_needed: int | None = Field(default=None, ge=1, le=1024, description="cards one job needs")
    planned_tensor_parallel: int | None = Field(
        default=None, ge=1, le=64, description="tensor-parallel size the user plans"
    )

    @field_validator("precision", mode="before")
    @classmethod
    def norm_precision(cls, v: Any) -> Any:
        return _norm_precision(v)


@tool
def purchase_advice(deps: Any, args: AdviceArgs) -> dict[str, Any]:
    """The site guide's purchase rule that applies (NVLink/SXM or PCIe or one card), with the guide
    section to cite: 1 fits one card -> one card; 2 independent models/jobs -> PCIe; 3 too big,
    low concurrency -> PCIe works, size for memory; 4 too big, real traffic or training -> NVLink,
    buy SXM; 5 more than eight cards -> needs a fabric between nodes (not offered). Also the cases
    where the link does not matter and the most expensive mistake."""
    from tools.advice import AdviceInput
    from tools.advice import purchase_advice as advise

    fits = args.fits_one_card
    cards_needed = args.cards_needed
    info = None
    if args.model is not None:
        m = _model(deps, args.model)
        info = _model_info(m)
        if args.workload == "training" and m.kind == "llm":
            mem = memory_need(deps, MemoryArgs(model=args.model, training=True))
            cat = deps.catalog
            # as for serving: "fits on one card" means a one-card node holds it
            single = [
                cat.gpus[c.gpu].memory_gb
                for c in cat.configurations.values()
                if c.count == 1 and cat.gpus[c.gpu].memory_gb * 0.9 >= mem["total_gb"]
            ]
            fits = bool(single)
            if not fits and cards_needed is None:
                best = max(g.memory_gb for g in cat.gpus.values())
                cards_needed = max(2, int(-(-mem["total_gb"] // (best * 0.9))))
        else:
            fit = fit_check(
                deps,
                FitArgs(
                    model=args.model,
                    precision=args.precision,
                    context_tokens=args.context_tokens,
                    concurrency=args.concurrency,
                ),
            )
            rows = fit["rows"]
            # "fits on one card" as the rule means it: a one-card node holds it (or nothing but
            # one card of a big multi-card node does); a model that needs an H200 or B200 card,
            # which come only in 4/8-card nodes, is otherwise split across smaller cards
            splits = [r["cards_needed"] for r in rows if r["verdict"] == "split"]
            one_card = [r for r in rows if r["verdict"] == "fits_one_card"]
            fits = any(r["count"] == 1 for r in one_card) or (bool(one_card) and not splits)
            if not fits and cards_needed is None:
                cards_needed = min(splits) if splits else 9
    if fits is None:
        raise ToolError("purchase_advice: give a model or fits_one_card")
    res = advise(
        AdviceInput(
            fits_one_card=fits,
            cards_needed=cards_needed,
            independent_jobs=args.independent_jobs,
            workload=args.workload,
            parallelism=args.parallelism,
            traffic=args.traffic,
            planned_tensor_parallel=args.planned_tensor_parallel,
        )
    )
    out = res.model_dump(mode="json")
    out.pop("inputs", None)
    out["model"] = info
    out["fits_one_card"] = fits
    out["cards_needed"] = cards_needed
    return out


# --------------------------------------------------------------------------- diagnostics


class TopologyArgs(_Args):
    text: str = Field(max_length=20_000, description="the pasted output of `nvidia-smi topo -m`")
    configuration: str | None = Field(
        default=None, description="the rented configuration id, e.g. '8x-h100-sxm5' (if known)"
    )
    node_kind: Literal["sxm", "pcie"] | None = Field(
        default=None, description="SXM (NVLink) or PCIe node, when no configuration is given"
    )


@tool
def check_topology_output(deps: Any, args: TopologyArgs) -> dict[str, Any]:
    """Read pasted `nvidia-smi topo -m` output: for every card pair the label (NV# = NVLink; PIX,
    PXB, PHB, NODE, SYS = PCIe paths, SYS the worst: across CPU sockets) and a verdict against
    what the rented node should show (on SXM nodes every pair NVLink, e.g. NV18 on H100)."""
    from tools.diagnostics import TopoInput, check_topology

    kind = args.node_kind
    expected_label = None
    expected_cards = None
    cfg = None
    if args.configuration:
        c = _configuration(deps, args.configuration)
        cfg = c.id
        gpu = deps.catalog.gpus[c.gpu]
        link = deps.catalog.links[c.interconnect]
        kind = "sxm" if link.kind == "nvlink" else "pcie"
        if gpu.nvlink_links:
            expected_label = f"NV{gpu.nvlink_links}"
        expected_cards = c.count
    res = check_topology(
        TopoInput(
            text=args.text,
            node_kind=kind or "pcie",
            expected_label=expected_label,
            expected_cards=expected_cards,
        )
    )
    out = res.model_dump(mode="json")
    out.pop("inputs", None)
    out["configuration"] = cfg
    out["node_kind"] = kind
    out["expected_label"] = expected_label
    return out


# --------------------------------------------------------------------------- capacity


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

    @field_validator("precision", mode="before")
    @classmethod
    def norm_precision(cls, v: Any) -> Any:
        return _norm_precision(v)


@tool
def capacity_check(deps: Any, args: CapacityArgs) -> dict[str, Any]:
    """Inverse sizing on one configuration: how much KV cache fits next to the weights, so the
    longest context for `concurrency` sequences and the most concurrent sequences of
    `context_tokens` each (split across all cards the node allows)."""
    from tools.fit import CapacityInput, capacity

    m = _model(deps, args.model)
    c = _configuration(deps, args.configuration)
    res = capacity(
        CapacityInput(
            model=m,
            gpu=deps.catalog.gpus[c.gpu],
            count=c.count,
            precision=args.precision,
            kv_precision=args.kv_precision,
            concurrency=args.concurrency,
            context_tokens=args.context_tokens,
        )
    )
    return {
        "model": _model_info(m),
        "configuration": c.id,
        "label": c.label,
        "precision": args.precision or m.native_precision,
        "kv_precision": args.kv_precision,
        "tensor_parallel": res.tensor_parallel,
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
        "fits": res.fits,
        "usd_per_month": _money(c.usd_per_month),
        "formula": res.formula,
        "notes": res.notes,
    }


class AllReduceOutputArgs(_Args):
    text: str = Field(max_length=50_000, description="pasted output of nccl-tests all_reduce_perf")
    configuration: str = Field(description="the rented configuration id, e.g. '8x-h100-sxm5'")


@tool
def check_allreduce_output(deps: Any, args: AllReduceOutputArgs) -> dict[str, Any]:
    """Read pasted `all_reduce_perf` (nccl-tests) output: peak bus bandwidth (busbw) compared
    with the rated per-direction figure of the node's link, and a verdict (ok / lower than
    expected / defect)."""
    from tools.diagnostics import AllReduceInput, check_all_reduce

    c = _configuration(deps, args.configuration)
    link = _node_link(deps, c)
    res = check_all_reduce(AllReduceInput(text=args.text, link=link))
    out = res.model_dump(mode="json", exclude={"inputs"})
    out["rows"] = out["rows"][-6:]
    out["configuration"] = c.id
    out["link"] = _link_info(link)
    out["rated_gb_s"] = _r(res.rated_gb_s, 1)
    out["peak_busbw_gb_s"] = _r(res.peak_busbw_gb_s, 1)
    out["ratio_to_rated_percent"] = _r(res.ratio_to_rated * 100, 0)
    return out
