"""Prices: exact monthly quotes (`price_quote`) and the cheapest fitting configurations
(`cheapest_fit`)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Literal

from pydantic import Field

from assistant.registry.core import ToolResult, _Args, tool
from assistant.registry.fit import (
    FiltersInfo,
    FitArgs,
    FitRow,
    _constraints,
    filters_info,
    fit_row,
    run_fit,
)
from assistant.registry.helpers import (
    _assumptions,
    _cards,
    _configuration,
    _model_info,
    _money,
    _r,
)
from tools.money import HOURS_PER_MONTH
from tools.specs import Architecture


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
    out: dict[str, Any] = {
        "quotes": [q.model_dump(mode="json") for q in quotes],
        "hours_per_month": HOURS_PER_MONTH,  # each quote's usd_per_hour is its month over these
    }
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


class CheapestFitResult(ToolResult):
    _omit_when_none = frozenset({"cheapest_fp8_native", "cheapest_with_room"})

    model: dict[str, Any]
    precision: str
    kv_precision: str
    runtime: str
    context_tokens: int
    concurrency: int
    weights_gb: float
    kv_gb: float = Field(description="KV cache of all concurrent sequences at the context")
    interconnect: str
    cheapest: list[FitRow]
    fitting_configurations: int
    cheapest_fp8_native: FitRow | None = None
    cheapest_with_room: FitRow | None = Field(
        default=None,
        description="when the cheapest fits only tightly (room 'tight'): the cheapest with room",
    )
    filters: FiltersInfo
    assumptions: list[str]
    notes: list[str]


@tool
def cheapest_fit(deps: Any, args: CheapestArgs) -> CheapestFitResult:
    """The cheapest configurations (exact monthly price) on which a model fits: up to five, the
    cheapest first, with verdict, cards needed, price and room ('tight': no room to spare; then
    `cheapest_with_room` names the cheapest with room). Takes fit_check's filters (budget,
    node memory, excluded cards/configurations, link) plus one_card. If the filters leave
    nothing, `filters.emptied_by` names the constraint and `filters.best_ignoring` the cheapest
    fit without it. FP8 on a card without FP8 tensor cores: a note, and `cheapest_fp8_native`
    names the cheapest card with them."""
    from tools.constraints import apply_constraints

    link = None if args.interconnect == "any" else args.interconnect
    fit_args = FitArgs(**args.model_dump(exclude={"interconnect", "one_card", "sort"}))
    m, res = run_fit(deps, fit_args)
    filtered = apply_constraints(res.rows, _constraints(deps, fit_args, args.one_card, link))
    rows = [r for r in filtered.rows if r.verdict != "does_not_fit"]
    rows.sort(key=lambda r: (Decimal(r.usd_per_month), r.configuration))
    notes: list[str] = []
    if m.kind != "llm" and args.concurrency > 1:
        # an image/video job per card (gpu-for-flux-sdxl#many-cards): N at once need N cards
        rows = [r for r in rows if r.verdict == "fits_one_card" and r.replicas >= args.concurrency]
        notes.append(
            f"{args.concurrency} at once: one copy per card, so only nodes with a card for each "
            "are listed."
        )
    native = None
    if res.precision == "fp8" and rows and not rows[0].fp8_native:
        native = next((r for r in rows if r.fp8_native), None)
        first = f"fp8: {rows[0].label} has no FP8 tensor cores (weight-only FP8 via Marlin, slower)"
        notes.append(
            first
            + (
                f"; the cheapest card with native FP8 is {native.label} "
                f"(${_money(native.usd_per_month):,}/month)."
                if native
                else "; no card with native FP8 fits within these filters."
            )
        )
    roomy = None
    if rows and rows[0].room == "tight":
        roomy = next((r for r in rows if r.room == "ample"), None)
        notes.append(
            f"tight: {rows[0].label} holds it with only {rows[0].headroom_gb_per_card:.1f} GB "
            "spare per card (no room for a second request or a longer prompt)"
            + (f"; the cheapest with room to spare is {roomy.label}." if roomy else ".")
        )
    return CheapestFitResult(
        model=_model_info(m),
        precision=res.precision,
        kv_precision=args.kv_precision,
        runtime=res.runtime,
        context_tokens=args.context_tokens,
        concurrency=args.concurrency,
        weights_gb=_r(res.weights_gb),
        kv_gb=_r(res.kv_bytes_per_token * args.context_tokens * args.concurrency / 1e9),
        interconnect=args.interconnect,
        cheapest=[fit_row(r) for r in rows[:5]],
        fitting_configurations=len(rows),
        cheapest_fp8_native=fit_row(native) if native else None,
        cheapest_with_room=fit_row(roomy) if roomy else None,
        filters=filters_info(filtered),
        assumptions=_assumptions(m),
        notes=notes,
    )


class WithinArgs(_Args):
    max_price_usd_month: float | None = Field(default=None, ge=0, description="budget, USD/month")
    min_total_memory_gb: float | None = Field(
        default=None, ge=0, description="at least this much memory in the node, GB"
    )
    min_memory_per_card_gb: float | None = Field(
        default=None, ge=0, description="at least this much memory on each card, GB"
    )
    exclude_cards: list[str] | None = Field(default=None, description="cards to leave out")
    require_link: Literal["nvlink", "pcie"] | None = Field(
        default=None, description="only NVLink (SXM) or only PCIe nodes"
    )
    require_fp8: bool = Field(default=False, description="only cards with FP8 tensor cores")
    architectures: list[Architecture] | None = Field(
        default=None, description="only these card generations, e.g. ['hopper', 'blackwell']"
    )
    exclude_architectures: list[Architecture] | None = Field(
        default=None, description="leave out these card generations, e.g. ['ampere']"
    )


class WithinRow(ToolResult):
    configuration: str
    label: str
    gpu: str
    count: int
    memory_gb_per_card: float
    total_memory_gb: float
    fp8_native: bool
    architecture: str | None
    link_kind: str
    usd_per_month: int | float
    price_source: str


class ExcludedRow(WithinRow):
    constraint: str = Field(description="the one constraint that leaves it out")
    same_as: list[str] = Field(
        default=[], description="constraints that leave out exactly the same cards"
    )


class NodesWithinResult(ToolResult):
    applied: dict[str, str]
    within: int
    cheapest: list[WithinRow]
    most_memory: list[WithinRow] = Field(
        default=[], description="up to three with the most memory in the node, cheaper first"
    )
    excluded_by_one: list[ExcludedRow]


def _within_row(deps: Any, cid: str, **extra: Any) -> dict[str, Any]:
    cat = deps.catalog
    c = cat.configurations[cid]
    g = cat.gpus[c.gpu]
    return {
        "configuration": cid,
        "label": c.label,
        "gpu": g.id,
        "count": c.count,
        "memory_gb_per_card": g.memory_gb,
        "total_memory_gb": g.memory_gb * c.count,
        "fp8_native": g.fp8_native,
        "architecture": g.architecture,
        "link_kind": cat.links[c.interconnect].kind,
        "usd_per_month": _money(c.usd_per_month),
        "price_source": c.price_source,
        **extra,
    }


@tool
def nodes_within(deps: Any, args: WithinArgs) -> NodesWithinResult:
    """The configurations that meet every constraint, without a model: budget, node memory,
    memory per card, excluded cards, link kind, FP8 tensor cores, card generation (ampere, ada,
    hopper, blackwell). Up to five, the cheapest first, with exact prices; the three with the
    most memory in the node ("the most VRAM I can get for $1,000"); and for each
    constraint the runner-up it excluded (of the cheaper configurations only that constraint
    leaves out, the dearest), e.g. 'NVLink, >= 300 GB, FP8' -> 4x H100 SXM5; 4x A100 SXM4 is
    cheaper but has no FP8 tensor cores."""
    from tools.constraints import Constraints
    from tools.constraints import nodes_within as within

    cat = deps.catalog
    cards = (
        [g.id for g in _cards(deps, args.exclude_cards, "exclude_cards", family=True)]
        if args.exclude_cards
        else []
    )
    c = Constraints(
        max_price_usd_month=None
        if args.max_price_usd_month is None
        else Decimal(str(args.max_price_usd_month)),
        min_total_memory_gb=args.min_total_memory_gb,
        min_memory_per_card_gb=args.min_memory_per_card_gb,
        exclude_cards=cards,
        require_link=args.require_link,
        require_fp8=args.require_fp8,
        architectures=args.architectures or [],
        exclude_architectures=args.exclude_architectures or [],
    )
    res = within(cat.configurations.values(), cat.gpus, cat.links, c)
    rows = [WithinRow(**_within_row(deps, cid)) for cid in res.kept]  # cheapest first
    most = sorted(rows, key=lambda r: -r.total_memory_gb)[:3]  # (a stable sort: cheaper first)
    return NodesWithinResult(
        applied={name: c.value(name) for name in c.active()},
        within=len(res.kept),
        cheapest=rows[:5],
        most_memory=most,
        excluded_by_one=[
            ExcludedRow(
                **_within_row(deps, e.configuration, constraint=e.constraint, same_as=e.same_as)
            )
            for e in res.excluded_by_one
        ],
    )
