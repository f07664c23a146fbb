"""BASELINE for bench/bench_grounding.py: the number-level check from before issue 13.

Grounding check: every figure an answer states must be traceable.

Rules (issue 4, item 4), checked on every answer in both modes:

1. *price*: every monthly price stated ("$4,395/month", "4.395 $ pro Monat") equals the price of a
   configuration listed in `answer.prices`, and every listed PriceQuote equals the catalog's price.
   Any other dollar amount must occur in a money field of a tool result or in a cited passage.
2. *number*: every number with a unit (GB, GiB, TB, GB/s, tokens/s, s, ms, $, ×, %) occurs in a
   tool result or a cited passage. "4,395", "4.395" and "4395" are the same figure; a stated figure
   may be rounded ("141 GB" for 141.1, "~18 tokens/s" for 18.3), never more than its last digit
   allows.
3. *citation*: every marker [n] points to a citation of the answer.

    violations = check_answer(answer, catalog_prices(catalog))
"""

from __future__ import annotations

import bisect
import contextlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

from assistant.answer import Answer, GroundingViolation

# a number as people write it: 4,395 / 4.395 / 4395 / 141,1 / 0.16 / 1.800,5
_NUM = r"(?<![\w.,/])(\d+(?:[.,]\d+)*)"
_SP = r"[ \u00a0\u202f]?"
_UNIT = (
    r"(?P<unit>GB/s|GiB/s|TB/s|GB|GiB|TB|MB|"
    r"(?:tokens?|token|tok)(?:/s|/sec| per second| pro Sekunde|/Sekunde)|"
    r"ms|sec(?:onds?)?\b|Sekunden?\b|s\b|%|×|x\b|USD\b|\$|US-Dollar\b|dollars?\b)"
)
_NUMBER_UNIT_RX = re.compile(
    _NUM + r"(?:" + _SP + r"[–-]" + _SP + r"(\d+(?:[.,]\d+)*))?" + r"[ \u00a0\u202f-]?" + _UNIT,
    re.IGNORECASE,
)
_DOLLAR_FIRST_RX = re.compile(r"(?:US\$|\$|USD" + _SP + r")" + _SP + r"(\d+(?:[.,]\d+)*)")
_MONTHLY_RX = re.compile(
    r"^\s*(?:USD|\$|US-Dollar|dollars?)?\s*(?:/|per|pro|a|im|je|each)\s*(?:month|monat|mo\b|mon\b)",
    re.IGNORECASE,
)
# "4 × A100", "8x H200", "4 × 80 GB", "4x-a100-sxm4": a count, not a ratio
_COUNT_AFTER_X_RX = re.compile(
    r"^\s*(?:nvidia\s+)?(?:[a-z]{0,4}\d|rtx|gpu|karte|card|geforce|-[a-z]|\d)", re.IGNORECASE
)
_MARKER_RX = re.compile(r"\[(\d+)\](?!\()")
_MONEY_KEY_RX = re.compile(r"usd|price|cost|dollar|preis", re.IGNORECASE)


@lru_cache(maxsize=8192)
def _candidates(text: str) -> tuple[tuple[Decimal, int], ...]:
    return tuple(_number_candidates(text))


def number_candidates(text: str) -> list[tuple[Decimal, int]]:
    """Every value a written number may mean, with its decimal places (for rounding).

    "4,395" -> 4395 and 4.395; "141,1" -> 141.1; "1.800,5" -> 1800.5; "0.16" -> 0.16.
    """
    return list(_candidates(text.strip()))


def _number_candidates(text: str) -> list[tuple[Decimal, int]]:
    """Every value a written number may mean, with its decimal places (for rounding).

    "4,395" -> 4395 and 4.395; "141,1" -> 141.1; "1.800,5" -> 1800.5; "0.16" -> 0.16.
    """
    text = text.strip()
    out: list[tuple[Decimal, int]] = []
    seps = re.findall(r"[.,]", text)
    groups = re.split(r"[.,]", text)

    def add(s: str, places: int) -> None:
        with contextlib.suppress(InvalidOperation):  # the regex guarantees digits
            out.append((Decimal(s), places))

    if not seps:
        add(text, 0)
        return out
    # all separators are thousands separators: 4,395 / 1.800 / 1,234,567
    if all(len(g) == 3 for g in groups[1:]) and len(set(seps)) == 1:
        add("".join(groups), 0)
    if len(seps) == 1:
        add(groups[0] + "." + groups[1], len(groups[1]))
    elif len(set(seps)) == 2:
        # mixed: the last separator is the decimal mark (1.800,5 / 4,157.50)
        dec = seps[-1]
        whole, frac = text.rsplit(dec, 1)
        add(re.sub(r"[.,]", "", whole) + "." + frac, len(frac))
    return out


@dataclass
class Sources:
    """The figures an answer may state: from tool results and cited passages."""

    numbers: list[Decimal] = field(default_factory=list)
    money: list[Decimal] = field(default_factory=list)

    def finish(self) -> Sources:
        self.numbers = sorted(set(self.numbers))
        self.money = sorted(set(self.money))
        return self

    @staticmethod
    def _near(values: list[Decimal], value: Decimal, tol: Decimal) -> bool:
        i = bisect.bisect_left(values, value - tol)
        return i < len(values) and values[i] <= value + tol

    def has(self, value: Decimal, places: int, *, money: bool = False) -> bool:
        values = self.money if money else self.numbers
        tol = Decimal(5) / (Decimal(10) ** (places + 1))
        return self._near(values, value, tol)


_TEXT_NUMBER_RX = re.compile(r"(?<![\w])(\d+(?:[.,]\d+)*)")


@lru_cache(maxsize=4096)
def _text_numbers(text: str) -> tuple[Decimal, ...]:
    out: list[Decimal] = []
    for raw in _TEXT_NUMBER_RX.findall(text):
        out.extend(v for v, _ in _candidates(raw))
    return tuple(out)


def _add_text_numbers(text: str, into: list[Decimal]) -> None:
    into.extend(_text_numbers(text))


def _walk(value: Any, src: Sources, money: bool) -> None:
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, int | float | Decimal):
        try:
            d = Decimal(str(value))
        except InvalidOperation:
            return
        src.numbers.append(d)
        if money:
            src.money.append(d)
        return
    if isinstance(value, str):
        _add_text_numbers(value, src.numbers)
        if money or "$" in value:
            for m in re.finditer(r"\$\s?(\d+(?:[.,]\d+)*)|(\d+(?:[.,]\d+)*)\s?\$", value):
                src.money.extend(v for v, _ in number_candidates(m.group(1) or m.group(2)))
            if money:
                _add_text_numbers(value, src.money)
        return
    if isinstance(value, Mapping):
        for k, v in value.items():
            _walk(v, src, money or bool(_MONEY_KEY_RX.search(str(k))))
        return
    if isinstance(value, Iterable):
        for v in value:
            _walk(v, src, money)
        return
    if hasattr(value, "model_dump"):
        _walk(value.model_dump(mode="json"), src, money)


def collect_sources(answer: Answer) -> Sources:
    src = Sources()
    for call in answer.tool_calls:
        result = call.result
        if isinstance(result, str):
            with contextlib.suppress(ValueError):
                result = json.loads(result)
        _walk(result, src, money=False)
        _walk(call.arguments, src, money=False)
    for c in answer.citations:
        _walk(c.quote, src, money=False)
        for m in re.finditer(r"\$\s?(\d+(?:[.,]\d+)*)|(\d+(?:[.,]\d+)*)\s?\$", c.quote):
            src.money.extend(v for v, _ in number_candidates(m.group(1) or m.group(2)))
    for p in answer.prices:
        src.money.append(p.usd_per_month)
    return src.finish()


def catalog_prices(catalog: Any) -> dict[str, Decimal]:
    """Configuration id -> exact monthly price, from a knowledge.catalog.Catalog."""
    configs = getattr(catalog, "configurations", {}) or {}
    return {cid: Decimal(str(c.usd_per_month)) for cid, c in configs.items()}


def _strip_code(text: str) -> str:
    """Code blocks and inline code are quoted commands, not claims: blank them out."""
    text = re.sub(r"```.*?```", lambda m: " " * len(m.group(0)), text, flags=re.S)
    text = re.sub(r"`[^`\n]*`", lambda m: " " * len(m.group(0)), text)
    # link targets are URLs, not figures
    return re.sub(r"\]\((?:[^)]*)\)", lambda m: " " * len(m.group(0)), text)


def check_answer(answer: Answer, prices: Mapping[str, Decimal]) -> list[GroundingViolation]:
    """All grounding violations of an answer (empty list: the answer may be shown)."""
    violations: list[GroundingViolation] = []
    text = _strip_code(answer.answer)
    src = collect_sources(answer)
    listed = {p.usd_per_month for p in answer.prices}

    # --- price quotes against the catalog
    for p in answer.prices:
        if p.configuration not in prices:
            violations.append(
                GroundingViolation(
                    kind="price",
                    text=p.configuration,
                    detail=f"{p.configuration} is not a configuration in the catalog",
                )
            )
        elif Decimal(p.usd_per_month) != prices[p.configuration]:
            violations.append(
                GroundingViolation(
                    kind="price",
                    text=f"{p.configuration}: ${p.usd_per_month}",
                    detail=f"the catalog price of {p.configuration} is ${prices[p.configuration]}",
                )
            )

    seen_spans: list[tuple[int, int]] = []

    def dollar(span: tuple[int, int], raw: str, fragment: str) -> None:
        seen_spans.append(span)
        cands = number_candidates(raw)
        after = text[span[1] : span[1] + 24]
        if _MONTHLY_RX.match(after) or re.match(r"\s*(?:/|per|pro)\s*(?:month|monat)", after, re.I):
            if not any(v in listed for v, _ in cands):
                violations.append(
                    GroundingViolation(
                        kind="price",
                        text=fragment + after.split("\n")[0][:12],
                        detail="monthly price that matches no configuration listed in prices",
                    )
                )
            return
        if not any(src.has(v, places, money=True) for v, places in cands):
            violations.append(
                GroundingViolation(
                    kind="price",
                    text=fragment,
                    detail="dollar amount found in no tool result, price quote or cited passage",
                )
            )

    for m in _DOLLAR_FIRST_RX.finditer(text):
        dollar((m.start(), m.end()), m.group(1), m.group(0))

    for m in _NUMBER_UNIT_RX.finditer(text):
        unit = m.group("unit")
        if any(s <= m.start() < e for s, e in seen_spans):
            continue
        if unit.lower() in ("$", "usd", "us-dollar", "dollar", "dollars"):
            dollar((m.start(), m.end()), m.group(1), m.group(0))
            continue
        if unit in ("×", "x", "X") and _COUNT_AFTER_X_RX.match(text[m.end() : m.end() + 12]):
            continue
        if unit in ("x", "X") and m.group(0)[-2:-1].isspace():
            continue  # "4 x A100"-style count written with a spaced x
        raws = [m.group(1)] + ([m.group(2)] if m.group(2) else [])
        for raw in raws:
            cands = number_candidates(raw)
            ok = any(src.has(v, places) for v, places in cands)
            if not ok and unit.lower() == "ms":
                ok = any(src.has(v / 1000, places + 3) for v, places in cands)
            if not ok and unit == "%":
                ok = any(src.has(v / 100, places + 2) for v, places in cands)
            if not ok:
                violations.append(
                    GroundingViolation(
                        kind="number",
                        text=m.group(0),
                        detail=f"{raw} {unit} found in no tool result or cited passage",
                    )
                )

    # --- citation markers
    numbers = {c.n for c in answer.citations}
    for m in _MARKER_RX.finditer(answer.answer):
        n = int(m.group(1))
        if n not in numbers:
            violations.append(
                GroundingViolation(
                    kind="citation", text=m.group(0), detail=f"marker [{n}] has no citation"
                )
            )
    for c in answer.citations:
        if not c.quote.strip():
            violations.append(
                GroundingViolation(
                    kind="citation", text=f"[{c.n}]", detail="citation without a quoted passage"
                )
            )
    return violations
