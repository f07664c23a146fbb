"""The configurator as JSON: catalog configurations and the registry's fit tool."""

from __future__ import annotations

from typing import Any

from assistant.registry import call_tool


def configuration_rows(catalog: Any, gpu: str | None = None) -> list[dict[str, Any]]:
    """Every rentable configuration with its card, link and exact price, in catalog order."""
    rows = []
    for c in catalog.configurations.values():
        card = catalog.gpus[c.gpu]
        if gpu and gpu not in (card.id, c.gpu):
            continue
        link = catalog.effective_link(c)
        rows.append(
            {
                "id": c.id,
                "label": c.label,
                "gpu": card.id,
                "gpu_name": card.name,
                "count": c.count,
                "memory_gb_per_card": card.memory_gb,
                "memory_gb_total": card.memory_gb * c.count,
                "memory_bandwidth_gb_s": card.memory_bandwidth_gb_s,
                "interconnect": link.id,
                "interconnect_name": link.name,
                "interconnect_gb_s": link.bandwidth_gb_s,
                "usd_per_month": c.usd_per_month,
                "price_source": c.price_source,
                "placeholder": c.placeholder,
                "url": c.url,
                "url_en": c.url_en,
            }
        )
    return rows


def fit(deps: Any, arguments: dict[str, Any]) -> dict[str, Any]:
    """Run the same `fit_check` tool the assistant calls (raises registry.ToolError)."""
    return call_tool(deps, "fit_check", arguments).result
