"""Draft eval cases from rated answers (`sizing feedback export --to FILE.yaml`).

Each selected answer becomes a case with its question (or the conversation that led to it), its
language and tags (`from-feedback`, `draft`, the rating, the surface). The expectations are left
for a person to write from the guides, the catalog and the tools; what the rated answer said is
listed in comments above the case (never copied into `expect`). The file loads as a dataset.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from evals.schema import Dataset


def _case_id(row: Any, seen: set[str]) -> str:
    base = "fb-" + re.sub(r"[^a-z0-9]+", "-", str(row.message_id).lower()).strip("-")
    cid, n = base, 2
    while cid in seen:
        cid, n = f"{base}-{n}", n + 1
    seen.add(cid)
    return cid


def draft_case(row: Any, cid: str) -> dict[str, Any]:
    rating = "down" if row.rating == -1 else "up"
    case: dict[str, Any] = {"id": cid}
    if row.conversation:
        case["conversation"] = [{"question": q} for q in [*row.conversation, row.question]]
    else:
        case["question"] = row.question
    case["language"] = row.language if row.language in ("de", "en") else "en"
    case["tags"] = ["from-feedback", "draft", f"rated-{rating}", f"surface-{row.surface}"]
    note = f"rated {rating} on {row.surface} at {row.rated_at}"
    if row.comment:
        note += f"; comment: {row.comment}"
    case["notes"] = note + ". TODO: write `expect` from the guides, catalog and tools."
    case["expect"] = {}
    return case


def _comments(row: Any) -> list[str]:
    lines = [f"# {row.session_id}/{row.message_id} · mode {row.mode} · rated {row.rating:+d}"]
    if row.notice:
        lines.append(f"# notice: {row.notice}")
    cites = ", ".join(c.url.rsplit("/", 2)[-2] + c.url[c.url.find("#") :] for c in row.citations)
    lines.append(f"# cited: {cites or 'nothing'}")
    for v in row.violations:
        lines.append(f"# violation: {v.kind} {v.text!r}")
    answer = (row.answer or "").strip().splitlines()
    lines.append("# the rated answer said (for reference only; do not copy it into expect):")
    lines.extend(f"#   {ln}"[:200] for ln in answer[:12])
    if len(answer) > 12:
        lines.append("#   …")
    return lines


def draft_dataset_text(rows: list[Any], name: str = "from-feedback") -> str:
    """The YAML text of a dataset with one draft case per row (validated before it is returned)."""
    if not rows:
        raise ValueError("no rated answers selected: nothing to export")
    seen: set[str] = set()
    cases = [(row, draft_case(row, _case_id(row, seen))) for row in rows]
    Dataset.model_validate(
        {"name": name, "cases": [c for _, c in cases]}
    )  # the draft must load as a dataset
    out = [
        "version: 1",
        f"name: {name}",
        "description: >",
        "  Draft cases from rated answers (sizing feedback export). Write each case's `expect`",
        "  from the guides, the catalog and the tools before adding it to the shipped sets.",
        "cases:",
    ]
    for row, case in cases:
        out.extend("  " + c for c in _comments(row))
        body = yaml.safe_dump([case], allow_unicode=True, sort_keys=False, width=100)
        out.extend("  " + ln for ln in body.rstrip("\n").splitlines())
    return "\n".join(out) + "\n"
