"""Which catalog models a name means (`find_model`): a name, a size ('70B'), an alias, an ollama
tag or a Hugging Face id resolved to catalog models, with close matches, so a model never has to
guess the names the other tools accept."""

from __future__ import annotations

import difflib
import re
from typing import Any, Literal

from pydantic import Field

from assistant.registry.core import ToolResult, _Args, tool

MAX_MATCHES = 8
SIZE_TOLERANCE = 0.15  # '70B' finds the catalog models within 15 % of 70B parameters
_SIZE_RX = re.compile(r"^\s*~?(\d+(?:[.,]\d+)?)\s*([bm])\s*$", re.IGNORECASE)


class FindModelArgs(_Args):
    query: str = Field(
        min_length=1,
        max_length=200,
        description="a model name, size, alias or Hugging Face id, e.g. 'llama 70b', '70B', "
        "'meta-llama/Llama-3.3-70B-Instruct', 'qwen2.5:32b'",
    )
    limit: int = Field(default=5, ge=1, le=MAX_MATCHES, description="most matches returned")


class ModelMatch(ToolResult):
    id: str
    name: str
    kind: str
    params_b: float
    active_params_b: float | None
    native_precision: str
    match: Literal["exact", "size", "close"]


class FindModelResult(ToolResult):
    query: str
    status: Literal["found", "estimated", "unknown"] = Field(
        description="found: a catalog model; estimated: only a size is known; unknown: no model"
    )
    matches: list[ModelMatch] = Field(description="catalog models, best first")
    note: str


def _row(m: Any, match: Literal["exact", "size", "close"]) -> ModelMatch:
    return ModelMatch(
        id=m.id,
        name=m.name,
        kind=m.kind,
        params_b=m.params_b,
        active_params_b=m.active_params_b,
        native_precision=m.native_precision,
        match=match,
    )


def _by_size(models: list[Any], size_b: float, family: str | None = None) -> list[Any]:
    """Models of about this size, the named family's first ('Gemma 4 27B': Gemmas, then the
    rest)."""
    from knowledge.catalog import family_of

    near = [m for m in models if abs(m.params_b - size_b) <= SIZE_TOLERANCE * size_b]
    return sorted(
        near,
        key=lambda m: (
            family is not None and family_of(m.name) != family,
            abs(m.params_b - size_b),
        ),
    )


def _close(deps: Any, query: str) -> list[Any]:
    """Catalog models whose names, aliases or ids are near the query (same family first)."""
    cat = deps.catalog
    by_name = {m.name: m for m in cat.models.values()}
    names = [n for n in cat.same_family(query) if n in by_name]
    keys: dict[str, Any] = {}
    for m in cat.models.values():
        for key in (m.id, m.name, *m.aliases):
            keys.setdefault(key.lower(), m)
    low = query.lower().strip()
    hits = [keys[k] for k in difflib.get_close_matches(low, list(keys), n=20, cutoff=0.5)]
    hits += [m for k, m in keys.items() if low and (low in k or (len(k) > 3 and k in low))]
    out = [by_name[n] for n in names]
    for m in hits:
        if m not in out:
            out.append(m)
    return out


@tool
def find_model(deps: Any, args: FindModelArgs) -> FindModelResult:
    """Resolve a model name, size ('70B'), alias, ollama tag or Hugging Face id to the catalog's
    models (id, name, parameters, native precision), best first, with close matches. Use it
    before other tools when unsure which name a model has in the catalog."""
    from knowledge.catalog import size_in_name

    cat = deps.catalog
    models = [m for m in cat.models.values() if not m.generic]
    res = cat.resolve_model(args.query)
    rows: list[ModelMatch] = []
    if res.status == "found" and res.model is not None:
        rows.append(_row(res.model, "exact"))
    size = _SIZE_RX.match(args.query)
    size_b = None
    if size:
        size_b = float(size.group(1).replace(",", ".")) / (1000 if size.group(2) in "mM" else 1)
    elif res.status != "found":
        found = size_in_name(args.query)
        size_b = found[0] if found else None
    if size_b:
        from knowledge.catalog import family_of

        family = family_of(args.query) if res.status != "found" else None
        rows += [_row(m, "size") for m in _by_size(models, size_b, family)]
    rows += [_row(m, "close") for m in _close(deps, args.query)]
    unique: list[ModelMatch] = []
    for row in rows:
        if row.id not in {u.id for u in unique}:
            unique.append(row)
    unique = unique[: args.limit]
    if res.status == "found" and res.model is not None:
        note = f"{args.query!r} is {res.model.name} (id {res.model.id}) in the catalog."
        status: Literal["found", "estimated", "unknown"] = "found"
    elif size_b:
        note = (
            f"{args.query!r} is not a catalog model; the other tools accept it as a "
            f"{size_b:g}B model estimated from its size, or use one of the matches."
        )
        status = "estimated"
    else:
        note = f"{args.query!r} is not a catalog model; use one of the matches, or none fits."
        status = "unknown"
    return FindModelResult(query=args.query, status=status, matches=unique, note=note)
