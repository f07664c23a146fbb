"""What visitors will read differently: an answer-level diff of two eval reports.

    d = diff_reports(baseline_report, current_report)
    d["summary_line"]  # "12 answers now quote the new price; 1 now recommends a different node; …"
    d["cases"]         # per changed case: old and new answer, changed prices, verdicts,
                       # cited sections and recommendation

A price change that follows the catalog (the new figure is the current catalog's price) is an
expected change, not a regression; "got worse" counts only cases that passed and now fail, or
answers with a new grounding violation. `sizing eval … --compare BASELINE` adds this to the run's
report (terminal and report.html); `sizing eval diff A.json B.json` compares two saved runs.
"""

from __future__ import annotations

import difflib
import re
from decimal import Decimal, InvalidOperation
from typing import Any

# --------------------------------------------------------------------------- facts of an answer


def turn_facts(answer: Any) -> dict[str, Any]:
    """The visitor-visible facts of an answer: prices, verdicts per quoted node, the purchase
    advice, the recommended node and the cited sections (stored per turn in report.json)."""
    quoted = [p.configuration for p in answer.prices]
    verdicts: dict[str, str] = {}
    advice: str | None = None
    recommended: str | None = None
    for call in answer.tool_calls:
        res = call.result if isinstance(call.result, dict) else {}
        cheapest = res.get("cheapest")
        if call.name == "cheapest_fit" and recommended is None and isinstance(cheapest, list):
            recommended = str(cheapest[0].get("configuration")) if cheapest else None
        if call.name == "purchase_advice" and advice is None:
            rule = (res.get("rule") or {}).get("number")
            advice = f"{res.get('recommendation')}" + (f" (rule {rule})" if rule else "")
        rows = [
            r
            for key in ("rows", "cheapest")
            if isinstance(res.get(key), list)
            for r in res[key]
            if isinstance(r, dict)
        ]
        for r in rows:
            cid = r.get("configuration")
            if cid in quoted and cid not in verdicts and r.get("verdict"):
                verdicts[str(cid)] = str(r["verdict"])
    if recommended is None and quoted:
        recommended = _headline_node(answer.answer, answer.prices)
    return {
        "prices": {p.configuration: str(p.usd_per_month) for p in answer.prices},
        "verdicts": verdicts,
        "advice": advice,
        "recommended": recommended,
        "cited": _cited(answer.citations),
    }


def _headline_node(text: str, prices: list[Any]) -> str | None:
    head = next((p for p in re.split(r"\n\s*\n", text.strip()) if p.strip()), "")
    found = [(head.find(p.label), p.configuration) for p in prices if p.label in head]
    return min(found)[1] if found else None


def _cited(citations: list[Any]) -> list[str]:
    out: list[str] = []
    for c in citations:
        url = c.url if hasattr(c, "url") else c.get("url", "")
        guide = c.guide if hasattr(c, "guide") else c.get("guide", "")
        key = guide + ("#" + url.split("#", 1)[1] if "#" in url else "")
        if key not in out:
            out.append(key)
    return out


def _facts(turn: dict[str, Any]) -> dict[str, Any]:
    """Facts of a stored turn (older reports have no `facts`: what prices/citations give)."""
    f = dict(turn.get("facts") or {})
    f.setdefault("prices", dict(turn.get("prices") or {}))
    f.setdefault("cited", _cited(turn.get("citations") or []))
    f.setdefault("verdicts", {})
    f.setdefault("advice", None)
    f.setdefault("recommended", None)
    return f


# --------------------------------------------------------------------------- the diff


def _dec(v: Any) -> Decimal | None:
    try:
        return Decimal(str(v))
    except (InvalidOperation, ValueError):
        return None


def _price_changes(
    old: dict[str, Any], new: dict[str, Any], catalog: dict[str, Any]
) -> list[dict[str, Any]]:
    out = []
    for cid in sorted(set(old) | set(new)):
        a, b = _dec(old.get(cid)), _dec(new.get(cid))
        if a == b:
            continue
        current = _dec(catalog.get(cid)) if cid in catalog else None
        out.append(
            {
                "configuration": cid,
                "before": None if a is None else str(a),
                "after": None if b is None else str(b),
                "follows_catalog": b is not None and a is not None and b == current,
            }
        )
    return out


def _map_changes(old: dict[str, Any], new: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"key": k, "before": old.get(k), "after": new.get(k)}
        for k in sorted(set(old) | set(new))
        if old.get(k) != new.get(k)
    ]


def turn_diff(old: dict[str, Any], new: dict[str, Any], catalog: dict[str, Any]) -> dict[str, Any]:
    fo, fn = _facts(old), _facts(new)
    changes: dict[str, Any] = {}
    prices = _price_changes(fo["prices"], fn["prices"], catalog)
    if prices:
        changes["prices"] = prices
    verdicts = _map_changes(fo["verdicts"], fn["verdicts"])
    if fo["advice"] != fn["advice"]:
        verdicts.append({"key": "advice", "before": fo["advice"], "after": fn["advice"]})
    if verdicts:
        changes["verdicts"] = verdicts
    if fo["recommended"] != fn["recommended"]:
        changes["recommended"] = {"before": fo["recommended"], "after": fn["recommended"]}
    added = [c for c in fn["cited"] if c not in fo["cited"]]
    removed = [c for c in fo["cited"] if c not in fn["cited"]]
    if added or removed:
        changes["cited"] = {"added": added, "removed": removed}
    return {
        "question": new.get("question") or old.get("question"),
        "before": old.get("answer", ""),
        "after": new.get("answer", ""),
        "text_changed": old.get("answer", "") != new.get("answer", ""),
        "changes": changes,
        "grounding_before": old.get("grounding_violations", 0),
        "grounding_after": new.get("grounding_violations", 0),
    }


def _kinds(turns: list[dict[str, Any]]) -> list[str]:
    kinds: list[str] = []
    for t in turns:
        ch = t["changes"]
        prices = ch.get("prices", [])
        if prices and all(p["follows_catalog"] for p in prices):
            kinds.append("new_price")
        elif prices:
            kinds.append("price")
        for k in ("verdicts", "recommended", "cited"):
            if k in ch:
                kinds.append(k)
        if t["text_changed"] and not ch:
            kinds.append("wording")
    return sorted(set(kinds), key=KIND_ORDER.index)


KIND_ORDER = ["worse", "price", "verdicts", "recommended", "new_price", "cited", "wording"]


def diff_reports(baseline: dict[str, Any], current: dict[str, Any]) -> dict[str, Any]:
    """Every case whose answer changed, with what changed, and the counts by kind."""
    catalog = (current.get("catalog") or {}).get("prices") or {}
    base = {c["id"]: c for c in baseline.get("cases", [])}
    cases = []
    for c in current.get("cases", []):
        b = base.get(c["id"])
        if b is None:
            continue
        turns = [
            turn_diff(ot, nt, catalog)
            for ot, nt in zip(b.get("turns", []), c.get("turns", []), strict=False)
        ]
        turns = [t for t in turns if t["text_changed"] or t["changes"]]
        worse = bool(b.get("passed") and not c.get("passed")) or any(
            t["grounding_after"] > t["grounding_before"] for t in turns
        )
        if not turns and not worse:
            continue
        kinds = (["worse"] if worse else []) + _kinds(turns)
        cases.append(
            {
                "id": c["id"],
                "dataset": c.get("dataset"),
                "status_before": b.get("status"),
                "status_after": c.get("status"),
                "kinds": kinds,
                "failures": c.get("failures", []) if worse else [],
                "turns": turns,
            }
        )
    cases.sort(key=lambda x: (KIND_ORDER.index(x["kinds"][0]) if x["kinds"] else 99, x["id"]))
    counts = {k: sum(k in x["kinds"] for x in cases) for k in KIND_ORDER}
    return {
        "baseline_created": baseline.get("created"),
        "current_created": current.get("created"),
        "changed": len(cases),
        "counts": counts,
        "summary_line": summary_line(counts, len(cases)),
        "cases": cases,
    }


def summary_line(counts: dict[str, int], changed: int) -> str:
    def n(k: str, one: str, many: str) -> str:
        return f"{counts.get(k, 0)} {one if counts.get(k, 0) == 1 else many}"

    parts = [
        n("new_price", "answer now quotes the new price", "answers now quote the new price"),
        n("recommended", "now recommends a different node", "now recommend a different node"),
        n("verdicts", "has a different verdict", "have a different verdict"),
        n("price", "quotes a non-catalog price", "quote a non-catalog price"),
        n("cited", "cites other sections", "cite other sections"),
        n("wording", "is reworded only", "are reworded only"),
        n("worse", "got worse", "got worse"),
    ]
    keep = [p for p in parts if not p.startswith("0 ") or "worse" in p or "new price" in p]
    return f"{changed} answer(s) changed: " + "; ".join(keep)


# --------------------------------------------------------------------------- word diff


def word_diff(before: str, after: str) -> list[tuple[str, str]]:
    """The two texts as (op, text) pieces, op in equal / delete / insert, on word boundaries."""
    a = re.findall(r"\s+|[^\s]+", before)
    b = re.findall(r"\s+|[^\s]+", after)
    out: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(("equal", "".join(a[i1:i2])))
            continue
        if i2 > i1:
            out.append(("delete", "".join(a[i1:i2])))
        if j2 > j1:
            out.append(("insert", "".join(b[j1:j2])))
    return out


def change_lines(turn: dict[str, Any]) -> list[str]:
    """The facts that changed in one turn, one line each (for terminal and HTML)."""
    ch = turn["changes"]
    lines = []
    for p in ch.get("prices", []):
        why = "follows the catalog" if p["follows_catalog"] else "NOT the catalog price"
        lines.append(
            f"price {p['configuration']}: {_usd(p['before'])} → {_usd(p['after'])} ({why})"
        )
    for v in ch.get("verdicts", []):
        lines.append(f"verdict {v['key']}: {v['before'] or '–'} → {v['after'] or '–'}")
    if "recommended" in ch:
        r = ch["recommended"]
        lines.append(f"recommends: {r['before'] or '–'} → {r['after'] or '–'}")
    if "cited" in ch:
        c = ch["cited"]
        lines.append(
            "cited: " + ", ".join([f"+{x}" for x in c["added"]] + [f"−{x}" for x in c["removed"]])
        )
    return lines


def _usd(v: Any) -> str:
    d = _dec(v)
    if d is None:
        return "none"
    return f"${int(d):,}" if d == d.to_integral_value() else f"${d:,.2f}"
