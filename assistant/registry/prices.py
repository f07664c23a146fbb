"""Prices: exact monthly quotes (`price_quote`) and the cheapest fitting configurations
(`cheapest_fit`)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Literal

from pydantic import Field

from assistant.registry.core import _Args, tool
from assistant.registry.fit import FitArgs, fit_check
from assistant.registry.helpers import _configuration, _money


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
