"""Mechanical migration of question sets to catalog-relative expectations (text-level, so comments,
flow style and key order stay as they were).

    python -m evals.migrate evals/datasets/*.yaml            # rewrite in place, print a summary
    python -m evals.migrate --check evals/heldout/*.yaml     # exit 1 if anything would change

- `prices: {4x-a100-sxm4: 4395, ...}` -> `prices: [4x-a100-sxm4, ...]` when every literal equals
  the price in the catalog the case was written against (`SIZING_CATALOG`, default the shipped
  one); a literal that differs stays a literal (and is reported).
- In `contains`, `patterns`, `forbidden` and `forbidden_patterns` a dollar figure equal to the
  catalog price of a configuration the case quotes becomes `{price:ID}`, and one equal to the
  difference of two of them `{price_diff:A,B}`. Other figures ("$99" in an injection test, the
  guide's "14×") are the point of the case and stay.

What a case expects does not change: under the catalog it was written against, the migrated file
checks the same figures (tests/test_evals.py runs both forms).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

_CASE_RX = re.compile(r"^\s*- id: ", re.MULTILINE)
_PRICES_RX = re.compile(r"(?P<head>\bprices: )\{(?P<body>[^{}\n]*)\}")
_PHRASE_LINE_RX = re.compile(r"^\s*(?:contains|patterns|forbidden|forbidden_patterns): \[")
_DOLLAR_RX = re.compile(r"(?P<esc>\\\\)?\$(?P<num>\d{1,3}(?:,\d{3})+|\d+)(?![\d,]*\.\d)(?!,?\d)")


@dataclass
class Migration:
    text: str
    prices: int = 0  # price mappings turned into lists
    templates: int = 0  # dollar figures turned into templates
    kept: list[str] = field(default_factory=list)  # literals left as they were (with why)


def _parse_prices(body: str) -> dict[str, Decimal] | None:
    out: dict[str, Decimal] = {}
    for part in body.split(","):
        if not part.strip():
            continue
        key, sep, value = part.partition(":")
        value = value.strip()
        if not sep or not re.fullmatch(r"\d+(?:\.\d+)?", value):
            return None  # already catalog-relative, or not a plain literal
        out[key.strip()] = Decimal(value)
    return out


def _migrate_block(block: str, catalog: dict[str, Decimal], result: Migration) -> str:
    quoted: dict[str, Decimal] = {}

    def prices(m: re.Match[str]) -> str:
        parsed = _parse_prices(m.group("body"))
        if parsed is None:
            return m.group(0)
        if not parsed:
            return m.group(0)
        quoted.update(parsed)
        stale = [k for k, v in parsed.items() if catalog.get(k) != v]
        if stale:
            result.kept.append(f"{m.group(0)}: {', '.join(stale)} differ from the catalog")
            return m.group(0)
        result.prices += 1
        return f"{m.group('head')}[{', '.join(parsed)}]"

    block = _PRICES_RX.sub(prices, block)
    by_value: dict[Decimal, list[str]] = {}
    for cid in quoted:
        by_value.setdefault(quoted[cid], []).append(cid)
    diffs: dict[Decimal, tuple[str, str]] = {}
    ids = list(quoted)
    for i, a in enumerate(ids):
        for b in ids[i + 1 :]:
            pair = (a, b) if quoted[a] > quoted[b] else (b, a)
            diffs.setdefault(abs(quoted[a] - quoted[b]), pair)

    def dollar(m: re.Match[str]) -> str:
        value = Decimal(m.group("num").replace(",", ""))
        if len(by_value.get(value, [])) == 1:
            result.templates += 1
            return "{price:" + by_value[value][0] + "}"
        if value in diffs and value not in by_value:
            result.templates += 1
            return "{price_diff:" + ",".join(diffs[value]) + "}"
        return m.group(0)

    lines = block.split("\n")
    for i, line in enumerate(lines):
        if _PHRASE_LINE_RX.match(line):
            lines[i] = _DOLLAR_RX.sub(dollar, line)
    return "\n".join(lines)


def migrate_text(text: str, catalog: dict[str, Decimal]) -> Migration:
    """The migrated file text (see the module docstring), with what was done."""
    result = Migration(text=text)
    starts = [m.start() for m in _CASE_RX.finditer(text)]
    if not starts:
        return result
    pieces = [text[: starts[0]]]
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(text)
        pieces.append(_migrate_block(text[start:end], catalog, result))
    result.text = "".join(pieces)
    return result


def main(argv: list[str]) -> int:
    from assistant.grounding import catalog_prices
    from assistant.settings import Settings
    from knowledge.catalog import load_catalog

    check = "--check" in argv
    paths = [Path(a) for a in argv if a != "--check"]
    catalog = catalog_prices(load_catalog(Settings().catalog))
    changed = 0
    for path in paths:
        before = path.read_text(encoding="utf-8")
        m = migrate_text(before, catalog)
        if m.text != before:
            changed += 1
            if not check:
                path.write_text(m.text, encoding="utf-8")
        print(f"{path}: {m.prices} price mapping(s) -> ids, {m.templates} figure(s) -> templates")
        for k in m.kept:
            print(f"  kept literal: {k}")
    return 1 if check and changed else 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main(sys.argv[1:]))
