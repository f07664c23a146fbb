"""A partial reading sent to /api/chat (issue 23): the request model and what the chips offer.

`ReadingEdit` has one optional field per `assistant.reading.model.EDITABLE` field, with the
`Reading`'s own types and bounds, so the OpenAPI spec documents what a client may change and a
value of the wrong type is a 422 naming `reading.<field>` before anything runs. Names (a model's
alias, a configuration's label, a precision alias) are resolved by `apply_edits`, whose errors are
422s too. `null` clears a field; a field left out is kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from assistant.errors import UnknownSession
from assistant.reading.edit import apply_edits
from assistant.reading.model import EDITABLE, Reading
from tools.specs import PRECISIONS

# besides the Reading's own descriptions: what an edit may give for the fields resolved by name
_NAMED = {
    "model": "a catalog model by id, name or alias (e.g. llama-3.3-70b, 'Llama 3.3 70B')",
    "precision": "weights precision: " + ", ".join(PRECISIONS) + " (also q4_k_m …)",
    "configurations": "catalog configurations by id or label (e.g. 4x-h200); sets their cards "
    "and count; a comma-separated string is split",
    "cards": "card ids or names; a comma-separated string is split",
    "exclude_cards": "card ids or names to leave out; a comma-separated string is split",
    "users": "people using it; without concurrent_sequences, the tool's share of them is sized "
    "as generating at once",
}
_LISTS = ("configurations", "cards", "exclude_cards")
# bounds a request may not exceed (the Reading has lower bounds only; a client's 10^30 users is
# no sizing question)
_MAX = {
    "users": 10_000_000,
    "concurrent_sequences": 1_000_000,
    "context_tokens": 10_000_000,
    "budget_usd_per_month": 1e9,
    "params_b": 100_000.0,
    "min_total_memory_gb": 1e6,
    "min_memory_per_card_gb": 1e4,
}
MAXIMA = _MAX  # public: Slack's "Adjust" modal bounds its number inputs the same way


def _edit_field(name: str) -> tuple[Any, Any]:
    source = Reading.model_fields[name]
    annotation: Any = source.annotation
    if name in _LISTS:
        annotation = list[str] | str
    constraints: dict[str, Any] = {}
    for meta in source.metadata:
        for bound in ("ge", "gt", "le", "lt"):
            if getattr(meta, bound, None) is not None:
                constraints[bound] = getattr(meta, bound)
    if name in _MAX:
        constraints["le"] = _MAX[name]
    description = _NAMED.get(name) or source.description
    return annotation | None, Field(default=None, description=description, **constraints)


ReadingEdit: type[BaseModel] = create_model(  # type: ignore[call-overload]
    "ReadingEdit",
    __config__=ConfigDict(extra="forbid"),
    __doc__="Reading fields to change (docs/reading.md): a field left out is kept, `null` "
    "clears it. With a `session_id` and no `message`, the session's last question is answered "
    "again from its reading with these fields replaced, without reading its text again; with a "
    "`message`, they are set over what the new question says.",
    **{name: _edit_field(name) for name in EDITABLE},
)


def edits_of(edit: BaseModel | None) -> dict[str, Any]:
    """The fields the client sent (explicit nulls included: they clear)."""
    return edit.model_dump(exclude_unset=True) if edit is not None else {}


def checked_edits(edits: Mapping[str, Any], catalog: Any) -> None:
    """Resolve the edits once over an empty reading, so a bad name is a 422 before a stream
    starts (the answer applies them again over the question's reading)."""
    if edits:
        apply_edits(Reading(), edits, catalog)


def no_session(session_id: str) -> UnknownSession:
    return UnknownSession(f"session_id: there is no conversation {session_id!r} to re-answer")


def reading_options(catalog: Any, lang: str) -> dict[str, Any]:
    """What a chip may be changed to: the catalog's models, precisions and configurations."""
    configs = sorted(
        catalog.configurations.values(), key=lambda c: (c.gpu, c.count, c.usd_per_month)
    )
    return {
        "models": [
            {"id": m.id, "name": m.name, "kind": m.kind}
            for m in catalog.models.values()
            if not getattr(m, "generic", False)
        ],
        "precisions": list(PRECISIONS),
        "configurations": [
            {
                "id": c.id,
                "label": (getattr(c, "label_de", None) or c.label) if lang == "de" else c.label,
                "usd_per_month": float(c.usd_per_month),
            }
            for c in configs
        ],
        "editable": list(EDITABLE),
    }
