"""Card facts: specs of the rented cards and the nodes they come in (`card_facts`)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from assistant.registry.core import _Args, tool
from assistant.registry.helpers import _cards, _money, _r


class CardArgs(_Args):
    cards: list[str] | None = Field(
        default=None,
        description="card ids or names ('H200', 'A100 SXM4', 'l40s'; 'A100' means both A100s); "
        "omitted: every card",
    )
    memory_gb: float | None = Field(
        default=None, gt=0, le=1000, description="only cards with this much memory, e.g. 48"
    )


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
