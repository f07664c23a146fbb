"""A user's correction of a reading: a partial `Reading` merged over the session's last one.

    edited = apply_edits(reading, {"precision": "fp8", "users": 40}, catalog)

Only `EDITABLE` fields may change. Names are resolved the way the catalog resolves them (a model
by id, name or alias; a configuration by id or label; a card by id or name), so a chip, a CLI
`--set model=llama 3.3 70b` and the API take the same values. Changing the configurations sets
the cards and count they imply; changing the users without the concurrent sequences sizes for
the share of them generating at once (tools.load.concurrent_sequences). An empty value clears a
field. Anything else is an `InvalidRequest` naming the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from assistant.errors import InvalidRequest
from assistant.reading.model import EDITABLE, Reading
from tools.load import concurrent_sequences
from tools.specs import PRECISIONS

_LISTS = ("configurations", "cards", "exclude_cards", "workloads")


def apply_edits(reading: Reading, edits: Mapping[str, Any], catalog: Any) -> Reading:
    """`reading` with `edits` applied (validated and resolved), marked as the user's."""
    unknown = sorted(set(edits) - set(EDITABLE))
    if unknown:
        raise InvalidRequest(
            f"cannot change {', '.join(unknown)}; the fields a reading can change are: "
            + ", ".join(EDITABLE)
        )
    data = reading.model_dump()
    for field, value in edits.items():
        data.update(_resolved(field, _cleared(field, value), catalog))
    if "users" in edits and "concurrent_sequences" not in edits:
        data["concurrent_sequences"] = _at_once(data.get("users"))
    if "task" in edits:
        data["intents"] = []  # the planner derives them from the new task and the asks
    elif _names_hardware(edits) and (data.get("intents") or [None])[0] == "cheapest":
        # a pick answered, then a node set ("which server?" → 4x H200): the job on that node
        data["intents"] = ["fit", *(i for i in data["intents"] if i != "cheapest")]
    data["reader"] = "user"
    data["assumed"] = [f for f in data.get("assumed", []) if f not in edits]  # now said
    if "users" in edits and "concurrent_sequences" not in edits and data["users"]:
        data["assumed"].append("concurrent_sequences")  # the share of them at once
    try:
        return Reading.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InvalidRequest(f"reading.{where}: {first['msg']}") from None


def _names_hardware(edits: Mapping[str, Any]) -> bool:
    return any(edits.get(f) for f in ("configurations", "cards"))


def _at_once(users: Any) -> int | None:
    """The sequences generating at once for `users` people (the tool's share), or None."""
    if users in (None, ""):
        return None
    try:
        return concurrent_sequences(int(users))
    except (TypeError, ValueError):
        raise InvalidRequest(
            f"reading.users: {users!r} is not a number of people (1 or more)"
        ) from None


def _cleared(field: str, value: Any) -> Any:
    if value in ("", None):
        return [] if field in _LISTS else None
    if field in _LISTS and isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return value


def _resolved(field: str, value: Any, catalog: Any) -> dict[str, Any]:
    resolve = _RESOLVERS.get(field)
    if resolve is None or value in (None, []):
        return {field: value}
    try:
        return resolve(value, catalog)
    except (KeyError, ValueError, LookupError) as exc:
        raise InvalidRequest(f"reading.{field}: {value!r} is not known ({exc})") from None


def _model(value: Any, catalog: Any) -> dict[str, Any]:
    spec = catalog.find_model(str(value))
    if getattr(spec, "generic", False):
        return {"model": None, "models": [], "model_name": None, "params_b": spec.params_b}
    return {"model": spec.id, "models": [spec.id], "model_name": None, "params_b": None}


def _configurations(value: Any, catalog: Any) -> dict[str, Any]:
    configs = [catalog.find_configuration(str(v)) for v in value]
    return {
        "configurations": [c.id for c in configs],
        "cards": list(dict.fromkeys(c.gpu for c in configs)),
        "card_families": [],
        "count": configs[0].count,
    }


def _cards(value: Any, catalog: Any) -> dict[str, Any]:
    return {"cards": [catalog.find_gpu(str(v)).id for v in value], "card_families": []}


def _exclude_cards(value: Any, catalog: Any) -> dict[str, Any]:
    return {"exclude_cards": [catalog.find_gpu(str(v)).id for v in value]}


def _precision(value: Any, catalog: Any) -> dict[str, Any]:
    p = str(value).strip().lower().replace(" ", "_")
    if p not in PRECISIONS and f"gguf-{p}" in PRECISIONS:
        p = f"gguf-{p}"  # "q4_k_m"
    if p not in PRECISIONS:
        raise ValueError(f"one of {', '.join(PRECISIONS)}")
    return {"precision": p, "precisions": [p]}


_RESOLVERS = {
    "model": _model,
    "configurations": _configurations,
    "cards": _cards,
    "exclude_cards": _exclude_cards,
    "precision": _precision,
}
