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
from assistant.registry.helpers import _assumptions, _configuration, _model_info, _money, _r


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


class CheapestFitResult(ToolResult):
    _omit_when_none = frozenset({"cheapest_fp8_native"})

    model: dict[str, Any]
    precision: str
    kv_precision: str
    runtime: str
    context_tokens: int
    concurrency: int
    weights_gb: float
    interconnect: str
    cheapest: list[FitRow]
    fitting_configurations: int
    cheapest_fp8_native: FitRow | None = None
    filters: FiltersInfo
    assumptions: list[str]
    notes: list[str]


@tool
def cheapest_fit(deps: Any, args: CheapestArgs) -> CheapestFitResult:
    """The cheapest configurations (exact monthly price) on which a model fits: up to five, the
    cheapest first, with verdict, cards needed and price. Takes fit_check's filters (budget,
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
    return CheapestFitResult(
        model=_model_info(m),
        precision=res.precision,
        kv_precision=args.kv_precision,
        runtime=res.runtime,
        context_tokens=args.context_tokens,
        concurrency=args.concurrency,
        weights_gb=_r(res.weights_gb),
        interconnect=args.interconnect,
        cheapest=[fit_row(r) for r in rows[:5]],
        fitting_configurations=len(rows),
        cheapest_fp8_native=fit_row(native) if native else None,
        filters=filters_info(filtered),
        assumptions=_assumptions(m),
        notes=notes,
    )
