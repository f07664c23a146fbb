"""Shared helpers of the tools: model and configuration lookup, model info, prices, rounding."""

from __future__ import annotations

from decimal import Decimal
from typing import Any


def _model(deps: Any, text: str) -> Any:
    """A catalog model; an estimate when the name carries its size ('Gemma 4 27B'); else
    UnknownModel with same-family names only."""
    from knowledge.catalog import UnknownModel

    res = deps.catalog.resolve_model(text)
    if res.model is None:
        raise UnknownModel(text, list(res.closest))
    return res.model


def _configuration(deps: Any, text: str) -> Any:
    return deps.catalog.find_configuration(text)


def _norm_card(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum()).removeprefix("nvidia")


def _cards(
    deps: Any, names: list[str], tool: str = "card_facts", family: bool = False
) -> list[Any]:
    """Cards by id, name or alias; a prefix names every match ('A100': both A100s). family:
    always every card whose id starts with the name too ('H100': PCIe and SXM5)."""
    from assistant.registry.core import ToolError

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
        prefixed = [g for g in gpus if key and _norm_card(g.id).startswith(key)]
        found = exact + [g for g in prefixed if g not in exact] if family else exact or prefixed
        if not found:
            known = ", ".join(g.short_name for g in gpus)
            raise ToolError(f"{tool}: unknown card {name!r}; known: {known}")
        out += [g for g in found if g not in out]
    return out


def _assumptions(m: Any) -> list[str]:
    """What a result assumes about the model (models known only by their size)."""
    if not m.generic:
        return []
    out = [
        f"{m.name}: only the parameter count ({m.params_b:g}B) is known; weights = "
        "parameters x bytes per weight."
    ]
    if m.estimate_basis:
        out.append(f"KV cache estimated: {m.estimate_basis}.")
    else:
        out.append("KV cache not counted (architecture unknown).")
    return out


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


def _node_cards(deps: Any, m: Any, c: Any, **requirement: Any) -> tuple[int, Any]:
    """The card count capacity_check and throughput_estimate both assume on a node: the fewest
    cards the model fits on (fit_check's cards_needed), else the whole node; with the fit row."""
    from tools.fit import Requirement, fit_configuration

    cat = deps.catalog
    req = Requirement(model=m, **{k: v for k, v in requirement.items() if v is not None})
    row = fit_configuration(req, c, cat.gpus[c.gpu], cat.links)
    return row.cards_needed or c.count, row


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
