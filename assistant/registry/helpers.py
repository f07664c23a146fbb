"""Shared helpers of the tools: model and configuration lookup, model info, prices, rounding."""

from __future__ import annotations

from decimal import Decimal
from typing import Any


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
