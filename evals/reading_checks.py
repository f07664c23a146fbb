"""Gold reading fields against the reading an answer carries (issue 23, "measure the layers apart").

    results = check_reading({"model": "qwen2.5-72b", "asks": ["fit", "price"]}, answer.reading)
    [r.field for r in results if not r.ok]          # the fields the reader got wrong

Only the fields the gold gives are scored. The rules:
- numbers: a float on either side is equal within 1 % (budgets, memory); ints exactly (users,
  concurrent sequences, counts), except `context_tokens`: "8k" is 8,000 or 8,192 tokens, so a
  context agrees within 2.5 % (the k read as 1,000 or 1,024);
- booleans exactly; strings equal ignoring case;
- lists as sets (configurations, cards, exclusions ...), except `asks`: the ordered list of ask
  kinds (gold `[fit, price]`, or objects; an object's `precision` is compared when the gold gives
  it);
- a mapping (`measured`) field by field, only the keys the gold gives;
- `None` in the gold: the field must be empty (None, [], false, ""), or listed in the reading's
  `assumed` (filled by the assistant, not said: the sequences at once derived from the users, a
  starting point's model).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

REL_TOLERANCE = 0.01
# "8k": 8,000 or 8,192 tokens (2.4 % apart)
CONTEXT_K_TOLERANCE = 0.025


@dataclass(frozen=True)
class FieldResult:
    field: str
    ok: bool
    gold: Any
    actual: Any

    def as_dict(self) -> dict[str, Any]:
        return {"field": self.field, "ok": self.ok, "gold": self.gold, "actual": self.actual}


def plain(value: Any) -> Any:
    """A reading value as JSON-able data (models dumped, tuples as lists)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def actual_value(reading: Any, field: str) -> Any:
    """The reading's value of `field` (None when there is no reading), as plain data; `asks` as
    the list of kinds (with the precision when an ask carries one)."""
    if reading is None:
        return None
    value = plain(getattr(reading, field, None))
    if field == "asks" and isinstance(value, list):
        return [_ask_shown(a) for a in value]
    return value


def _ask_shown(ask: Any) -> Any:
    if isinstance(ask, dict):
        return ask["kind"] if not ask.get("precision") else f"{ask['kind']}@{ask['precision']}"
    return ask


def is_empty(value: Any) -> bool:
    if isinstance(value, dict):
        return all(is_empty(v) for v in value.values())
    return value is None or value is False or value == "" or value == []


def field_matches(field: str, gold: Any, actual: Any) -> bool:
    """Does the actual value of a reading field agree with its gold value (rules above)?"""
    if gold is None:
        return is_empty(actual)
    if field == "asks":
        return _asks_match(gold, actual)
    if field == "context_tokens" and isinstance(actual, int) and isinstance(gold, int | float):
        return abs(actual - gold) <= CONTEXT_K_TOLERANCE * gold
    return same(gold, actual)


def same(gold: Any, actual: Any) -> bool:
    if gold is None:
        return is_empty(actual)
    if isinstance(gold, bool) or isinstance(actual, bool):
        return gold is actual
    if isinstance(gold, dict):
        return isinstance(actual, dict) and all(same(v, actual.get(k)) for k, v in gold.items())
    if isinstance(gold, list | tuple):
        return isinstance(actual, list | tuple) and {_key(g) for g in gold} == {
            _key(a) for a in actual
        }
    if isinstance(gold, int | float) and isinstance(actual, int | float):
        if isinstance(gold, int) and isinstance(actual, int):
            return gold == actual
        return abs(actual - gold) <= REL_TOLERANCE * abs(gold)
    if isinstance(gold, str) and isinstance(actual, str):
        return gold.strip().casefold() == actual.strip().casefold()
    return bool(gold == actual)


def _key(value: Any) -> Any:
    """A hashable, case-blind key for comparing list items as sets."""
    if isinstance(value, str):
        return value.strip().casefold()
    if isinstance(value, list | tuple):
        return tuple(_key(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _key(v)) for k, v in value.items()))
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _asks_match(gold: Any, actual: Any) -> bool:
    """The ordered list of ask kinds; a gold object's precision is compared when it gives one.
    A gold list without the `memory` kind (written before it existed, when "how much VRAM
    does it need" was a fit ask) reads a `memory` ask as `fit`, each kind once."""
    if not isinstance(actual, list):
        return False
    kinds = [g if isinstance(g, str) else g["kind"] for g in gold]
    if "memory" not in kinds:
        actual = list(dict.fromkeys(_as_fit(a) for a in actual))
    if len(gold) != len(actual):
        return False
    for g, a in zip(gold, actual, strict=True):
        g_kind, g_prec = (g, None) if isinstance(g, str) else (g["kind"], g.get("precision"))
        a_kind, _, a_prec = str(a).partition("@")
        if g_kind != a_kind or (g_prec is not None and not same(g_prec, a_prec)):
            return False
    return True


def _as_fit(ask: Any) -> Any:
    kind, at, prec = str(ask).partition("@")
    return ("fit" + at + prec) if kind == "memory" else ask


def check_reading(gold: dict[str, Any], reading: Any) -> list[FieldResult]:
    """One result per gold field, in the gold's order. `reading` is the answer's `Reading` (or
    None: every field the gold wants filled is wrong)."""
    out = []
    assumed = set(getattr(reading, "assumed", None) or ())
    for field, want in gold.items():
        got = actual_value(reading, field)
        # a field the reading marks as assumed was not said: it agrees with a gold "not said"
        ok = (want is None and field in assumed) or field_matches(field, want, got)
        out.append(FieldResult(field, ok, want, got))
    return out


def reader_result(results: list[FieldResult]) -> dict[str, Any]:
    """A turn's reader result for the report: right/total, and the wrong fields."""
    return {
        "right": sum(r.ok for r in results),
        "total": len(results),
        "fields": {r.field: r.ok for r in results},
        "wrong": [r.as_dict() for r in results if not r.ok],
    }
