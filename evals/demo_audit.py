"""The demo page's tables audited against the catalog: the notes the page shows beside them.

The demo pages (`api/templates/demo_{de,en}.html`) copy the NVLink guide's tables, errors included
(A100 SXM4 under NVLink 4, all PCIe cards at Gen5, 900 GB/s "per direction"). `sizing audit`
finds those errors in the guide; this module runs the same audit over the pages' tables and writes
what it flags to `api/static/demo-audit.json`, which `api/static/demo-notes.js` reads to put a
note beside each flagged cell. The API does not import `evals` (a surface): the file is generated
and a test re-runs the audit and compares (`python -m evals.demo_audit` regenerates it).

    notes = demo_notes(templates_dir, catalog)   # {"de": [Note, ...], "en": [...]}
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from evals.audit import Finding, audit_text

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "api" / "templates"
OUTPUT = ROOT / "api" / "static" / "demo-audit.json"
LANGS = ("de", "en")


@dataclass
class Note:
    """One note beside one cell: table (0-based, in page order), row (0-based, in the body), col."""

    table: int
    row: int
    col: int
    cell: str  # the cell's text: the script puts the note only where the text still matches
    note: str
    findings: list[dict[str, Any]] = field(default_factory=list)


# --------------------------------------------------------------------------- page -> text


class _Tables(HTMLParser):
    """The page's h2 headings and tables (header row, body rows) as text cells."""

    def __init__(self) -> None:
        super().__init__()
        self.blocks: list[tuple[str, Any]] = []  # ("h2", text) | ("table", (header, rows))
        self._text: list[str] | None = None
        self._row: list[str] | None = None
        self._table: tuple[list[str], list[list[str]]] | None = None
        self._in_head = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self._table = ([], [])
        elif tag == "thead":
            self._in_head = True
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th", "h2"):
            self._text = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._row is not None and self._text is not None:
            self._row.append(" ".join("".join(self._text).split()))
            self._text = None
        elif tag == "h2" and self._text is not None:
            self.blocks.append(("h2", " ".join("".join(self._text).split())))
            self._text = None
        elif tag == "tr" and self._table is not None and self._row is not None:
            if self._in_head:
                self._table[0].extend(self._row)
            else:
                self._table[1].append(self._row)
            self._row = None
        elif tag == "thead":
            self._in_head = False
        elif tag == "table" and self._table is not None:
            self.blocks.append(("table", self._table))
            self._table = None

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)


def page_text(html: str) -> tuple[str, dict[int, tuple[int, int, list[str]]]]:
    """The page's headings and tables as guide text (pipe tables), and for each table row's line
    number its (table, row, cells)."""
    parser = _Tables()
    parser.feed(html)
    lines: list[str] = []
    where: dict[int, tuple[int, int, list[str]]] = {}
    tables = 0
    for kind, block in parser.blocks:
        if kind == "h2":
            lines += [f"## {block}", ""]
            continue
        header, rows = block
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "---|" * len(header))
        for r, cells in enumerate(rows):
            lines.append("| " + " | ".join(cells) + " |")
            where[len(lines)] = (tables, r, cells)
        lines.append("")
        tables += 1
    return "\n".join(lines), where


# --------------------------------------------------------------------------- findings -> notes


def _num(v: float, lang: str) -> str:
    s = f"{int(v):,}" if v == int(v) else f"{v:,.1f}"
    return s.replace(",", ".") if lang == "de" else s


def _join(items: list[str], lang: str) -> str:
    if len(items) < 2:
        return "".join(items)
    return ", ".join(items[:-1]) + (" und " if lang == "de" else " and ") + items[-1]


def _link_of(catalog: Any, f: Finding) -> Any:
    """The link the catalog gives the card of a 'link generation' finding."""
    g = next(g for g in catalog.gpus.values() if g.short_name == f.subject)
    lid = g.nvlink_link or f"pcie-gen{g.pcie_gen}-x16"
    return catalog.links[lid]


def _generation_note(catalog: Any, found: list[Finding], lang: str) -> str:
    link = _link_of(catalog, found[0])
    cards = [f.subject for f in found]
    listed = re.sub(r"^listed under | \(.*$", "", found[0].guide)
    bw, per_dir = _num(link.bandwidth_gb_s, lang), _num(link.per_direction_gb_s, lang)
    many = len(cards) > 1
    if lang == "de":
        rate = (
            f"{per_dir} GB/s je Richtung"
            if link.kind == "pcie"
            else f"{bw} GB/s in beide Richtungen ({per_dir} GB/s je Richtung)"
        )
        verb = "haben" if many else "hat"
        tail = " (ein Gen5-Steckplatz betreibt sie mit Gen4)" if link.kind == "pcie" else ""
        name = link.name.replace(" ×16", "")
        return f"{_join(cards, lang)} {verb} {name}: {rate}, nicht {listed}{tail}."
    rate = (
        f"{per_dir} GB/s per direction"
        if link.kind == "pcie"
        else f"{bw} GB/s both directions ({per_dir} GB/s per direction)"
    )
    verb = "are" if many else "is an" if link.name[0] in "AEIOUN" else "is a"
    kind = f"{link.name.replace(' ×16', '')} card" + ("s" if many else "")
    tail = " (a Gen5 slot runs them at Gen4)" if link.kind == "pcie" else ""
    return f"{_join(cards, lang)} {verb} {kind}: {rate}, not {listed}{tail}."


def _basis_note(catalog: Any, f: Finding, lang: str) -> str:
    link = next(li for li in catalog.links.values() if li.name == f.subject)
    raw = f.guide.split(" GB/s")[0]
    per_dir = _num(link.per_direction_gb_s, lang)
    if lang == "de":
        return (
            f"{link.name} überträgt {per_dir} GB/s je Richtung; "
            f"{raw} GB/s sind beide Richtungen zusammen."
        )
    return f"{link.name} carries {per_dir} GB/s per direction; {raw} GB/s counts both directions."


def _other_note(f: Finding, lang: str) -> str:
    if lang == "de":
        return f"{f.subject}: {f.data} (hier: {f.guide})."
    return f"{f.subject}: {f.data} (here: {f.guide})."


def _note_text(catalog: Any, found: list[Finding], lang: str) -> str:
    parts: list[str] = []
    generation = [f for f in found if f.kind == "link generation"]
    if generation:
        by_link: dict[str, list[Finding]] = {}
        for f in generation:
            by_link.setdefault(_link_of(catalog, f).id, []).append(f)
        parts += [_generation_note(catalog, fs, lang) for fs in by_link.values()]
    for f in found:
        if f.kind == "link bandwidth basis":
            parts.append(_basis_note(catalog, f, lang))
        elif f.kind != "link generation":
            parts.append(_other_note(f, lang))
    return " ".join(parts)


def page_notes(html: str, catalog: Any, lang: str) -> list[Note]:
    text, where = page_text(html)
    cells: dict[tuple[int, int, int], list[Finding]] = {}
    for f in audit_text(f"demo_{lang}.html", text, catalog):
        if f.ok:
            continue
        if f.line not in where:
            raise ValueError(f"a flagged figure outside the page's tables: {f}")
        table, row, _ = where[f.line]
        cells.setdefault((table, row, max(f.cell, 0)), []).append(f)
    out = []
    for (table, row, col), found in sorted(cells.items()):
        out.append(
            Note(
                table,
                row,
                col,
                where_cell(where, table, row, col),
                _note_text(catalog, found, lang),
                [_finding(f, lang) for f in found],
            )
        )
    return out


def _finding(f: Finding, lang: str) -> dict[str, Any]:
    d = f.as_dict()
    del d["line"], d["cell"]  # the line is the generated text's; the note says where
    return d | {"file": f"api/templates/demo_{lang}.html"}


def where_cell(where: dict[int, tuple[int, int, list[str]]], table: int, row: int, col: int) -> str:
    return next(c[col] for t, r, c in where.values() if (t, r) == (table, row))


def demo_notes(catalog: Any, templates: Path = TEMPLATES) -> dict[str, Any]:
    pages = {
        lang: [
            asdict(n)
            for n in page_notes(
                (templates / f"demo_{lang}.html").read_text(encoding="utf-8"), catalog, lang
            )
        ]
        for lang in LANGS
    }
    return {
        "about": "figures on the demo page that the content audit (evals/audit.py) flags against "
        "the catalog; generated by `python -m evals.demo_audit`, "
        "checked by tests/test_demo_audit.py",
        "pages": pages,
    }


def render(notes: dict[str, Any]) -> str:
    return json.dumps(notes, ensure_ascii=False, indent=2) + "\n"


def main() -> None:
    from knowledge.catalog import load_catalog

    OUTPUT.write_text(render(demo_notes(load_catalog(ROOT / "knowledge" / "catalog"))), "utf-8")
    print(f"wrote {OUTPUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
