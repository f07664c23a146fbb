"""Fit: does a model fit each rentable configuration (`fit_check`), with constraint filters."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from assistant.registry.core import PrecisionArg, ToolResult, _Args, _norm_precision, tool
from assistant.registry.helpers import (
    _assumptions,
    _cards,
    _configuration,
    _model,
    _model_info,
    _money,
    _r,
)
from tools.specs import Architecture

KvPrecisionArg = Literal["bf16", "fp16", "fp8", "int8", "fp32"]
RuntimeArg = Literal["vllm", "llama.cpp", "ollama"]


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
    kv_precision: KvPrecisionArg = Field(
        default="bf16", description="KV-cache precision (vLLM kv_cache_dtype)"
    )
    runtime: RuntimeArg | None = Field(
        default=None,
        description="serving engine; omitted: llama.cpp for GGUF precisions, else vllm",
    )
    configurations: list[str] | None = Field(
        default=None,
        description="only these configuration ids (e.g. ['4x-a100-sxm4']); omitted: all 41",
    )
    max_price_usd_month: float | None = Field(
        default=None, ge=0, description="filter: budget, USD per month"
    )
    min_total_memory_gb: float | None = Field(
        default=None, ge=0, description="filter: at least this much memory in the node, GB"
    )
    exclude_cards: list[str] | None = Field(
        default=None, description="filter: leave out these cards, e.g. ['H100']"
    )
    exclude_configurations: list[str] | None = Field(
        default=None, description="filter: leave out these configuration ids"
    )
    require_link: Literal["nvlink", "pcie"] | None = Field(
        default=None, description="filter: only NVLink (SXM) or only PCIe nodes"
    )
    require_fp8: bool = Field(
        default=False, description="filter: only cards with FP8 tensor cores (no Ampere)"
    )
    architectures: list[Architecture] | None = Field(
        default=None, description="filter: only cards of these generations, e.g. ['hopper']"
    )
    exclude_architectures: list[Architecture] | None = Field(
        default=None, description="filter: leave out these card generations, e.g. ['ampere']"
    )
    min_memory_per_card_gb: float | None = Field(
        default=None, ge=0, description="filter: at least this much memory on each card, GB"
    )
    sort: Literal["catalog", "price"] = Field(default="catalog", description="row order")

    @field_validator("precision", mode="before")
    @classmethod
    def norm_precision(cls, v: Any) -> Any:
        return _norm_precision(v)


def _constraints(deps: Any, args: FitArgs, one_card: bool = False, link: str | None = None) -> Any:
    from decimal import Decimal

    from tools.constraints import Constraints

    cards = (
        [g.id for g in _cards(deps, args.exclude_cards, "exclude_cards", family=True)]
        if (args.exclude_cards)
        else []
    )
    configs = [_configuration(deps, c).id for c in args.exclude_configurations or []]
    return Constraints(
        max_price_usd_month=None
        if args.max_price_usd_month is None
        else Decimal(str(args.max_price_usd_month)),
        min_total_memory_gb=args.min_total_memory_gb,
        exclude_cards=cards,
        exclude_configurations=configs,
        require_link=args.require_link or link,
        require_fp8=args.require_fp8,
        architectures=args.architectures or [],
        exclude_architectures=args.exclude_architectures or [],
        min_memory_per_card_gb=args.min_memory_per_card_gb,
        one_card=one_card,
    )


class FitRow(ToolResult):
    """One configurator row."""

    _omit_when_none = frozenset({"room", "notes"})

    configuration: str
    label: str
    gpu: str
    count: int
    memory_gb_per_card: float
    total_memory_gb: float
    usable_gb_per_card: float
    verdict: str
    cards_needed: int | None
    required_gb_per_card: float
    headroom_gb: float = Field(description="per card: usable - required")
    headroom_total_gb: float
    replicas: int
    room: str | None = None
    interconnect: str = Field(description="the link the cards run at")
    sold_as: str
    fp8_native: bool
    usd_per_month: int | float
    price_source: str
    notes: list[str] | None = None


class Relaxed(ToolResult):
    constraint: str
    value: str
    row: FitRow


class FiltersInfo(ToolResult):
    _omit_when_none = frozenset({"emptied_by", "best_ignoring"})

    applied: dict[str, str]
    fitting: int
    fitting_unfiltered: int
    emptied_by: list[str] | None = None
    best_ignoring: list[Relaxed] | None = None


class FitCheckResult(ToolResult):
    model: dict[str, Any]
    precision: str
    kv_precision: str
    runtime: str
    context_tokens: int
    concurrency: int
    weights_gb: float
    kv_bytes_per_token: float
    kv_gb: float
    kv_bytes_per_token_high: float | None = Field(
        default=None, description="unknown architecture: KV per token without GQA"
    )
    kv_gb_high: float | None = Field(default=None, description="the same at this context, GB")
    constants: dict[str, float]
    counts: dict[str, int]
    rows: list[FitRow]
    filters: FiltersInfo
    assumptions: list[str]
    formula: str
    notes: list[str]


def fit_row(r: Any) -> FitRow:
    """One configurator row as the tools return it."""
    return FitRow(
        configuration=r.configuration,
        label=r.label,
        gpu=r.gpu,
        count=r.count,
        memory_gb_per_card=r.memory_gb_per_card,
        total_memory_gb=r.total_memory_gb,
        usable_gb_per_card=_r(r.usable_gb_per_card),
        verdict=r.verdict,
        cards_needed=r.cards_needed,
        required_gb_per_card=_r(r.required_gb_per_card),
        headroom_gb=_r(r.headroom_gb_per_card),
        headroom_total_gb=_r(r.headroom_total_gb),
        replicas=r.replicas,
        room=r.room,
        interconnect=r.interconnect,
        sold_as=r.sold_as,
        fp8_native=r.fp8_native,
        usd_per_month=_money(r.usd_per_month),
        price_source=r.price_source,
        notes=list(r.notes) or None,
    )


def filters_info(f: Any) -> FiltersInfo:
    """The filter outcome: what was applied and, if nothing fitting is left, why."""
    return FiltersInfo(
        applied=f.applied,
        fitting=f.fitting,
        fitting_unfiltered=f.fitting_unfiltered,
        emptied_by=f.emptied_by or None,
        best_ignoring=[
            Relaxed(constraint=x.constraint, value=x.value, row=fit_row(x.row))
            for x in f.relaxations
        ]
        or None,
    )


def run_fit(deps: Any, args: FitArgs) -> tuple[Any, Any]:
    """The configurator over the named (or all) configurations: (model, FitResult)."""
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
        kv_precision=args.kv_precision,
        runtime=args.runtime,
    )
    return m, fit_configurations(req, configs, cat.gpus, sort=args.sort, links=cat.links)


@tool
def fit_check(deps: Any, args: FitArgs) -> FitCheckResult:
    """The configurator: does a model fit each rentable configuration?

    Per configuration: verdict 'fits_one_card', 'split' (across cards_needed cards) or
    'does_not_fit'; required and usable GB per card (vllm: 90 % of the card; llama.cpp/ollama:
    the card minus 0.48 GB), headroom_gb per card, room ('tight': no room for a second request;
    say so), fp8_native, the link the cards run at, exact monthly price, row notes (e.g. FP8 on
    Ampere). Also weights GB and KV bytes per token. The
    filters drop rows; if no fitting row is left, `filters` names the constraint that emptied it
    and the best row ignoring it. For "does X fit on Y", "how many cards", "how much VRAM".
    """
    from tools.constraints import apply_constraints

    m, res = run_fit(deps, args)
    filtered = apply_constraints(res.rows, _constraints(deps, args))
    rows = [fit_row(r) for r in filtered.rows]
    counts = {"fits_one_card": 0, "split": 0, "does_not_fit": 0}
    for r in filtered.rows:
        counts[r.verdict] += 1
    from tools.memory import kv_bounds

    bounds = kv_bounds(m, args.kv_precision) if m.kind == "llm" else None
    high = bounds[1] if bounds and bounds[1] > res.kv_bytes_per_token else None
    return FitCheckResult(
        model=_model_info(m),
        precision=res.precision,
        kv_precision=args.kv_precision,
        runtime=res.runtime,
        context_tokens=args.context_tokens,
        concurrency=args.concurrency,
        weights_gb=_r(res.weights_gb),
        kv_bytes_per_token=res.kv_bytes_per_token,
        kv_gb=_r(res.kv_bytes_per_token * args.context_tokens * args.concurrency / 1e9),
        kv_bytes_per_token_high=_r(high, 0) if high else None,
        kv_gb_high=_r(high * args.context_tokens * args.concurrency / 1e9) if high else None,
        constants=res.constants,
        counts=counts,
        rows=rows,
        filters=filters_info(filtered),
        assumptions=_assumptions(m),
        formula=res.formula,
        notes=res.notes,
    )
