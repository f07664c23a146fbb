"""Content audit: the figures in a guide checked against the catalog and the sizing tools.

    report = audit_files([Path("knowledge/guides/en/nvlink-vs-pcie.txt")], catalog)
    report.contradictions -> [Finding(file, line, kind, subject, guide, data, detail)]

What is checked (every figure the data or the tools can produce):

- interconnect tables: the link generation each listed card really has (NVLink 3/4/5, PCIe
  Gen4/Gen5 - a Gen4 card in a Gen5 slot runs at Gen4), the bandwidth, and what the figure
  counts ("per direction" vs both directions);
- node comparison tables (a column per configuration): link, total VRAM, memory bandwidth per
  card, decode tokens/s (throughput tool), price (catalog, exact);
- card tables and card mentions in the text: memory, usable memory (0.9), memory bandwidth;
  node mentions: total and usable memory;
- prices ($/month): the exact catalog price of the configuration named next to it;
- the NVLink 4 : PCIe Gen5 ratio, gradient all-reduce times (size / link bandwidth), the size of
  a 70B model's gradients, all-reduces per token (layers), `topo -m` labels (NV12 / NV18);
- weights tables (parameters x bits per weight), bits per weight of the formats, published VRAM
  of image/video models, KV bytes per token and KV per sequence, usable memory and what is left
  on the nodes of the "which node" tables, total/active parameters of MoE models, the number of
  configurations.

A figure may be rounded as far as its last digit allows ("141.1 GB" for 141.107). Figures the audit
cannot attribute (no card, model or link next to them) are not counted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from evals.checks import number_values

# --------------------------------------------------------------------------- results


@dataclass
class Finding:
    file: str
    line: int
    kind: str
    subject: str
    guide: str
    data: str
    ok: bool
    detail: str = ""
    cell: int = -1  # the table cell (column) the figure is in, -1 when not in a table or unknown

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class AuditReport:
    files: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    @property
    def contradictions(self) -> list[Finding]:
        return [f for f in self.findings if not f.ok]

    @property
    def checked(self) -> int:
        return len(self.findings)

    def as_dict(self) -> dict[str, Any]:
        kinds: dict[str, dict[str, int]] = {}
        for f in self.findings:
            k = kinds.setdefault(f.kind, {"checked": 0, "contradictions": 0})
            k["checked"] += 1
            k["contradictions"] += not f.ok
        return {
            "files": self.files,
            "checked": self.checked,
            "contradictions": [f.as_dict() for f in self.contradictions],
            "by_kind": dict(sorted(kinds.items())),
            "clean": not self.contradictions,
        }


# --------------------------------------------------------------------------- numbers

_NUM = r"(\d+(?:[.,]\d+)*)"
_SP = r"[ \u00a0\u202f]?"


def _matches(raw: str, value: float, *, rel: float = 0.0) -> bool:
    """Does the written figure equal `value` as far as its last digit allows?"""
    for cand in number_values(raw):
        places = max(0, -cand.as_tuple().exponent)  # type: ignore[operator]
        tol = 0.5 * 10 ** (-places) + 1e-9 + rel * abs(value)
        if abs(float(cand) - value) <= tol:
            return True
    return False


def _value(raw: str) -> float:
    """The most likely value of a written figure (English thousands first)."""
    vals = number_values(raw)
    return float(vals[0]) if vals else float("nan")


def _fmt(v: float) -> str:
    if v == int(v):
        return f"{int(v):,}"
    return f"{v:,.2f}".rstrip("0").rstrip(".")


# --------------------------------------------------------------------------- entities


class Entities:
    """Cards, links, configurations and models as they are written in the guides."""

    def __init__(self, catalog: Any) -> None:
        self.catalog = catalog
        self.links = catalog.links
        names: list[tuple[str, str]] = []
        for gid, g in catalog.gpus.items():
            names.append((g.short_name, gid))
        names.append(("A6000", "rtx-a6000"))
        names.append(("RTX A6000", "rtx-a6000"))
        # longest first, so "A100 SXM4" wins over "A100"
        names.sort(key=lambda t: -len(t[0]))
        self._cards = [
            # case-sensitive: exports glue words ("KartenL4", "KnotenA100 SXM4")
            (
                re.compile(
                    r"(?<![A-Z0-9-])" + re.escape(n).replace(r"\ ", r"[ \u00a0-]?") + r"(?![\w])"
                ),
                gid,
            )
            for n, gid in names
            if len(n) >= 2
        ]
        mnames: list[tuple[str, str]] = []
        for mid, m in catalog.models.items():
            for n in {m.name, *m.aliases}:
                if len(n) >= 4:
                    mnames.append((n, mid))
        mnames.append(("FLUX.1 [dev]", "flux.1-dev"))
        mnames.append(("FLUX.1", "flux.1-dev"))
        mnames.append(("SDXL", "sdxl"))
        mnames.append(("SD 3.5 Large", "sd-3.5-large"))
        mnames.append(("SD 3.5 Medium", "sd-3.5-medium"))
        mnames.append(("Wan 2.1 T2V 14B", "wan-2.1-14b"))
        mnames.append(("Wan 2.1 14B", "wan-2.1-14b"))
        mnames.append(("Wan 2.1 T2V 1.3B", "wan-2.1-1.3b"))
        mnames.append(("Wan 2.1 1.3B", "wan-2.1-1.3b"))
        mnames.append(("Qwen 3 235B", "qwen3-235b-a22b"))
        mnames.sort(key=lambda t: -len(t[0]))
        self._models = [
            (
                re.compile(
                    r"(?<![\w.])" + re.escape(n).replace(r"\ ", r"[ \u00a0-]?") + r"(?![\w])", re.I
                ),
                mid,
            )
            for n, mid in mnames
        ]

    # cards ---------------------------------------------------------------

    @staticmethod
    def _expand(text: str) -> str:
        # "RTX 4090/5090" -> "RTX 4090, RTX 5090"
        return re.sub(r"RTX (\d{4})/(\d{4})", r"RTX \1, RTX \2", text)

    def cards(self, text: str) -> list[tuple[int, str]]:
        """(position, card id) of every card named, longest names first, no overlaps."""
        text = self._expand(text)
        taken: list[tuple[int, int]] = []
        out: list[tuple[int, str]] = []
        for rx, gid in self._cards:
            for m in rx.finditer(text):
                if any(a < m.end() and m.start() < b for a, b in taken):
                    continue
                taken.append((m.start(), m.end()))
                out.append((m.start(), gid))
        return sorted(out)

    def card_spans(self, text: str) -> list[tuple[int, int, str]]:
        taken: list[tuple[int, int, str]] = []
        for rx, gid in self._cards:
            for m in rx.finditer(text):
                if any(a < m.end() and m.start() < b for a, b, _ in taken):
                    continue
                taken.append((m.start(), m.end(), gid))
        return sorted(taken)

    def configurations(self, text: str) -> list[tuple[int, int, str]]:
        """(start, end, configuration id) of 'N × card' mentions that exist in the catalog."""
        out = []
        for start, end, gid in self.card_spans(text):
            m = re.search(r"(\d)\s?[×x]\s?(?:NVIDIA\s)?$", text[max(0, start - 12) : start])
            if not m:
                continue
            cid = f"{m.group(1)}x-{gid}"
            if cid in self.catalog.configurations:
                out.append((start - len(m.group(0)), end, cid))
        return out

    # links ---------------------------------------------------------------

    _LINK_RX = re.compile(
        r"NVLink[ \u00a0-]?(?P<nv>[345])\b|PCIe[ \u00a0]?(?:Gen[ \u00a0]?)?(?P<pcie>[45])(?:\.0)?\b"
        r"|\bGen[ \u00a0]?(?P<gen>[45])\b"
    )

    def links_in(self, text: str) -> list[tuple[int, str]]:
        out = []
        for m in self._LINK_RX.finditer(text):
            if m.group("nv"):
                lid = f"nvlink-{m.group('nv')}"
            else:
                lid = f"pcie-gen{m.group('pcie') or m.group('gen')}-x16"
            if lid in self.links:
                out.append((m.start(), lid))
        return out

    def card_link(self, gid: str) -> str:
        g = self.catalog.gpus[gid]
        if g.nvlink_link:
            return str(g.nvlink_link)
        return f"pcie-gen{g.pcie_gen}-x16"

    def config_link(self, cid: str) -> str:
        from tools.interconnect import effective_link

        c = self.catalog.configurations[cid]
        g = self.catalog.gpus[c.gpu]
        return str(effective_link(g, self.links[c.interconnect], list(self.links.values())).id)

    def link_label(self, lid: str) -> str:
        link = self.links[lid]
        return f"{link.name} ({_fmt(link.bandwidth_gb_s)} GB/s)"

    # models --------------------------------------------------------------

    def models(self, text: str) -> list[tuple[int, str]]:
        taken: list[tuple[int, int]] = []
        out = []
        for rx, mid in self._models:
            for m in rx.finditer(text):
                if any(a < m.end() and m.start() < b for a, b in taken):
                    continue
                taken.append((m.start(), m.end()))
                out.append((m.start(), mid))
        return sorted(out)

    def model(self, text: str) -> str | None:
        found = self.models(text)
        return found[0][1] if found else None


# --------------------------------------------------------------------------- precisions

_PRECISIONS = [
    (re.compile(r"Q4_K_M", re.I), "gguf-q4_k_m"),
    (re.compile(r"Q5_K_M", re.I), "gguf-q5_k_m"),
    (re.compile(r"Q8_0", re.I), "gguf-q8_0"),
    (re.compile(r"\bAWQ\b|\bGPTQ\b", re.I), "awq"),
    (re.compile(r"\b4[- ]?bits?\b|\b4 Bit\b|\bINT4\b", re.I), "int4-raw"),
    (re.compile(r"\bFP8\b|\bINT8\b", re.I), "fp8"),
    (re.compile(r"\bBF16\b|\bFP16\b|\b16[- ]?bits?\b|\b16 Bit\b", re.I), "bf16"),
    (re.compile(r"\bFP32\b", re.I), "fp32"),
]


def precision_in(text: str) -> str | None:
    for rx, p in _PRECISIONS:
        if rx.search(text):
            return p
    return None


def bits_of(precision: str) -> float:
    from tools.memory import BITS_PER_WEIGHT

    if precision == "int4-raw":
        return 4.0
    return float(BITS_PER_WEIGHT[precision])


# --------------------------------------------------------------------------- the auditor


@dataclass
class _Table:
    start: int  # line number (1-based) of the header
    header: list[str]
    rows: list[tuple[int, list[str]]]
    title: str
    section: str


class Auditor:
    def __init__(self, catalog: Any) -> None:
        self.catalog = catalog
        self.e = Entities(catalog)
        self.findings: list[Finding] = []
        self.file = ""

    # -- helpers

    def add(
        self,
        line: int,
        kind: str,
        subject: str,
        guide: str,
        data: str,
        ok: bool,
        detail: str = "",
        cell: int = -1,
    ) -> None:
        self.findings.append(Finding(self.file, line, kind, subject, guide, data, ok, detail, cell))

    def gpu(self, gid: str) -> Any:
        return self.catalog.gpus[gid]

    def model_spec(self, mid: str) -> Any:
        return self.catalog.models[mid]

    def params(self, mid: str) -> float:
        m = self.model_spec(mid)
        return float(m.params_exact) if m.params_exact else float(m.params_b) * 1e9

    def weights_gb(self, mid: str, precision: str) -> float:
        """The guide's arithmetic: parameters x bits per weight / 8 (GB = 10^9 bytes)."""
        return self.params(mid) * bits_of(precision) / 8 / 1e9

    def kv_bytes(self, mid: str) -> float:
        from tools.memory import kv_bytes_per_token

        return float(kv_bytes_per_token(self.model_spec(mid), "bf16"))

    def node_memory(self, cid: str) -> float:
        c = self.catalog.configurations[cid]
        return float(c.count * self.gpu(c.gpu).memory_gb)

    # -- entry point

    def audit_text(self, name: str, text: str) -> None:
        self.file = name
        lines = text.splitlines()
        in_code = False
        section = ""
        title = ""
        i = 0
        while i < len(lines):
            line = lines[i]
            stripped = line.strip()
            if stripped.startswith("```"):
                in_code = not in_code
                i += 1
                continue
            if in_code:
                i += 1
                continue
            if stripped.startswith("#"):
                section = re.sub(r"\{#[^}]*\}", "", stripped.lstrip("#")).strip()
                i += 1
                continue
            if (
                stripped.startswith("|")
                and i + 1 < len(lines)
                and re.match(r"^\|[\s|:-]+\|$", lines[i + 1].strip())
            ):
                table = _Table(i + 1, _cells(stripped), [], title, section)
                j = i + 2
                while j < len(lines) and lines[j].strip().startswith("|"):
                    table.rows.append((j + 1, _cells(lines[j].strip())))
                    j += 1
                self.table(table)
                i = j
                continue
            if re.match(r"^\*\*[^*]+\*\*$", stripped):
                title = stripped.strip("*")
            elif stripped:
                self.prose(i + 1, stripped, section)
            i += 1

    # -- tables

    def table(self, t: _Table) -> None:
        header = [h.lower() for h in t.header]
        config_cols = {
            k: self.e.configurations(h)[0][2]
            for k, h in enumerate(t.header)
            if k > 0 and len(self.e.configurations(h)) == 1
        }
        if config_cols:
            self.node_columns(t, config_cols)
            return
        first = header[0] if header else ""
        if re.search(r"^(link|verbindung|interconnect)", first):
            self.link_rows(t)
            return
        title_model = self.e.model(t.title) or self.e.model(t.section)
        for n, cells in t.rows:
            if not cells:
                continue
            row_cards = self.e.cards(cells[0])
            row_model = self.e.model(cells[0])
            if re.fullmatch(r"[\w .-]+", cells[0]) and len(row_cards) == 1 and not row_model:
                self.card_row(n, row_cards[0][1], cells, header)
                continue
            self.data_row(n, cells, header, row_model or title_model)

    def link_rows(self, t: _Table) -> None:
        header = [h.lower() for h in t.header]
        for n, cells in t.rows:
            links = self.e.links_in(cells[0])
            if not links:
                continue
            lid = links[0][1]
            for k, gid in self.row_cards(cells):
                self.link_generation(n, lid, gid, k)
            for k, cell in enumerate(cells[1:], 1):
                head = header[k] if k < len(header) else ""
                for m in re.finditer(_NUM + _SP + r"GB/s", cell):
                    self.link_bandwidth(n, lid, m.group(1), head, cell.lower(), k)

    _ALL_PCIE = re.compile(r"\b(?:all|alle)\s+PCIe[ -]?(?:cards|Karten|GPUs)\b", re.I)

    def row_cards(self, cells: list[str]) -> list[tuple[int, str]]:
        """(cell, card id) of the cards a link row lists; "all PCIe cards" means every card
        without NVLink in the catalog."""
        out: list[tuple[int, str]] = []
        for k, cell in enumerate(cells[1:], 1):
            found = [gid for _, gid in self.e.cards(cell)]
            if not found and self._ALL_PCIE.search(cell):
                found = [gid for gid, g in self.catalog.gpus.items() if not g.nvlink_link]
            out += [(k, gid) for gid in found]
        return out

    def link_generation(self, n: int, lid: str, gid: str, k: int) -> None:
        actual = self.e.card_link(gid)
        ok = actual == lid
        name = self.gpu(gid).short_name
        detail = ""
        if not ok:
            detail = f"{name} is a {self.e.links[actual].name} card"
            if actual.startswith("pcie-gen4") and lid.startswith("pcie-gen5"):
                detail += " (a Gen5 slot runs it at Gen4)"
        self.add(
            n,
            "link generation",
            name,
            f"listed under {self.e.link_label(lid)}",
            self.e.link_label(actual),
            ok,
            detail,
            k,
        )

    _PER_DIRECTION = re.compile(r"je richtung|per direction|each direction|pro richtung")
    _BOTH = re.compile(r"both directions|beide richtungen|zusammen")

    def link_bandwidth(self, n: int, lid: str, raw: str, head: str, cell: str, k: int) -> None:
        link = self.e.links[lid]
        if self._PER_DIRECTION.search(head + " " + cell) and not self._BOTH.search(cell):
            want = link.per_direction_gb_s
            ok = _matches(raw, want)
            self.add(
                n,
                "link bandwidth basis" if link.kind == "nvlink" else "link bandwidth",
                link.name,
                f"{raw} GB/s per card, per direction",
                f"{_fmt(want)} GB/s per direction "
                f"({_fmt(link.bandwidth_gb_s)} GB/s both directions)",
                ok,
                "" if ok else "the figure counts both directions",
                k,
            )
            return
        ok = _matches(raw, link.bandwidth_gb_s)
        self.add(
            n,
            "link bandwidth",
            link.name,
            f"{raw} GB/s",
            f"{_fmt(link.bandwidth_gb_s)} GB/s",
            ok,
            cell=k,
        )

    def node_columns(self, t: _Table, cols: dict[int, str]) -> None:
        from tools.throughput import DecodeInput, decode_throughput

        for n, cells in t.rows:
            label = cells[0].lower() if cells else ""
            for k, cid in cols.items():
                if k >= len(cells):
                    continue
                cell = cells[k]
                conf = self.catalog.configurations[cid]
                g = self.gpu(conf.gpu)
                links = self.e.links_in(cell)
                if links:
                    actual = self.e.config_link(cid)
                    ok = any(lid == actual for _, lid in links)
                    self.add(
                        n,
                        "link generation",
                        conf.label,
                        self.e.link_label(links[0][1]) + f" ({cell.strip()})",
                        self.e.link_label(actual),
                        ok,
                        "" if ok else f"{g.short_name} is a {self.e.links[actual].name} card",
                        k,
                    )
                    for m in re.finditer(_NUM + _SP + r"GB/s", cell):
                        want = self.e.links[actual].bandwidth_gb_s
                        self.add(
                            n,
                            "link bandwidth",
                            conf.label,
                            f"{m.group(1)} GB/s",
                            f"{_fmt(want)} GB/s",
                            _matches(m.group(1), want),
                            cell=k,
                        )
                    continue
                for m in re.finditer(r"\$" + _SP + _NUM, cell):
                    want = float(conf.usd_per_month)
                    self.add(
                        n,
                        "price",
                        conf.label,
                        f"${m.group(1)}",
                        f"${_fmt(want)} ({conf.price_source})",
                        _value(m.group(1)) == want,
                    )
                for m in re.finditer(r"~?" + _NUM + _SP + r"(?:Token|tokens?)/s", cell):
                    mid = self.e.model(cells[0])
                    prec = precision_in(cells[0])
                    if not mid:
                        continue
                    res = decode_throughput(
                        DecodeInput(
                            model=self.model_spec(mid),
                            gpu=g,
                            cards=conf.count,
                            precision=prec if prec in ("bf16", "fp8") else None,
                        )
                    )
                    got = res.tokens_per_s
                    ok = abs(_value(m.group(1)) - got) <= 0.5 + 1e-9
                    self.add(
                        n,
                        "tokens/s",
                        f"{self.model_spec(mid).name} on {conf.label}",
                        f"~{m.group(1)} tokens/s",
                        f"{got:.1f} tokens/s (throughput_estimate)",
                        ok,
                    )
                if re.search(r"bandbreite|bandwidth", label):
                    for m in re.finditer(_NUM + _SP + r"GB/s", cell):
                        want = g.memory_bandwidth_gb_s
                        self.add(
                            n,
                            "memory bandwidth",
                            g.short_name,
                            f"{m.group(1)} GB/s",
                            f"{_fmt(want)} GB/s",
                            _matches(m.group(1), want),
                        )
                elif re.search(r"vram|memory|speicher", label):
                    for m in re.finditer(_NUM + _SP + r"GB(?!/)", cell):
                        want = self.node_memory(cid)
                        self.add(
                            n,
                            "node memory",
                            conf.label,
                            f"{m.group(1)} GB",
                            f"{_fmt(want)} GB",
                            _matches(m.group(1), want),
                        )

    def card_row(self, n: int, gid: str, cells: list[str], header: list[str]) -> None:
        g = self.gpu(gid)
        for k, cell in enumerate(cells[1:], 1):
            head = header[k] if k < len(header) else ""
            for m in re.finditer(_NUM + _SP + r"GB/s", cell):
                want = [g.memory_bandwidth_gb_s, self.e.links[self.e.card_link(gid)].bandwidth_gb_s]
                self.add(
                    n,
                    "memory bandwidth",
                    g.short_name,
                    f"{m.group(1)} GB/s",
                    f"{_fmt(want[0])} GB/s",
                    any(_matches(m.group(1), w) for w in want),
                )
            for m in re.finditer(_NUM + _SP + r"GB(?!/)", cell):
                if not re.search(r"vram|memory|speicher", head):
                    continue
                want = [g.memory_gb, g.memory_gb * 0.9]
                self.add(
                    n,
                    "card memory",
                    g.short_name,
                    f"{m.group(1)} GB",
                    f"{_fmt(g.memory_gb)} GB",
                    any(_matches(m.group(1), w) for w in want),
                )

    def data_row(self, n: int, cells: list[str], header: list[str], mid: str | None) -> None:
        first = cells[0]
        row_prec = precision_in(first)
        row_values: dict[str, float] = {}
        nodes = self.e.configurations(" | ".join(cells[1:]))
        for k, cell in enumerate(cells[1:], 1):
            head = header[k] if k < len(header) else ""
            gb = re.search(r"(?<![\d.,])" + _NUM + _SP + r"GB(?!/)", cell)
            if re.search(r"bits? per weight|bit pro gewicht", head) and row_prec:
                m = re.search(r"(?<![\d.,])" + _NUM + r"(?!\s?GB)", cell)
                if m:
                    want = bits_of(row_prec)
                    self.add(
                        n,
                        "bits per weight",
                        first,
                        m.group(1),
                        f"{want:.4g}",
                        _matches(m.group(1), want, rel=0.003),
                    )
                continue
            if not mid:
                continue
            name = self.model_spec(mid).name
            head_prec = precision_in(head)
            if re.search(r"^(total|gesamt)$", head.strip()):
                m = re.search(_NUM + r"\s?B\b", cell)
                if m:
                    want = float(self.model_spec(mid).params_b)
                    self.add(
                        n,
                        "parameters",
                        name,
                        f"{m.group(1)}B",
                        f"{_fmt(want)}B",
                        _matches(m.group(1), want),
                    )
                continue
            if re.search(r"^(active|aktiv)", head.strip()):
                m = re.search(_NUM + r"\s?B\b", cell)
                act = self.model_spec(mid).active_params_b
                if m and act:
                    self.add(
                        n,
                        "active parameters",
                        name,
                        f"{m.group(1)}B",
                        f"{_fmt(act)}B",
                        _matches(m.group(1), float(act)),
                    )
                continue
            if re.search(r"share|anteil", head):
                m = re.search(_NUM + r"\s?%", cell)
                spec = self.model_spec(mid)
                if m and spec.active_params_b:
                    want = 100 * float(spec.active_params_b) / float(spec.params_b)
                    self.add(
                        n,
                        "active share",
                        name,
                        f"{m.group(1)} %",
                        f"{want:.1f} %",
                        _matches(m.group(1), want),
                    )
                continue
            if re.search(r"bytes (per|pro) token", head):
                m = re.search(_NUM, cell)
                if m:
                    want = self.kv_bytes(mid)
                    self.add(
                        n,
                        "KV bytes per token",
                        name,
                        m.group(1),
                        f"{_fmt(want)} (tools.memory)",
                        _value(m.group(1)) == want,
                    )
                continue
            if re.search(r"8k", head) and gb:
                want = self.kv_bytes(mid) * 8192 / 1e9
                self.add(
                    n,
                    "KV per sequence",
                    f"{name}, 8K",
                    f"{gb.group(1)} GB",
                    f"{want:.3g} GB",
                    _matches(gb.group(1), want, rel=0.002),
                )
                continue
            if re.search(r"full context|voller kontext", head) and gb:
                tok = re.search(r"\(" + _NUM + r"\s?(?:tokens|Token)", cell)
                if tok:
                    want = self.kv_bytes(mid) * _value(tok.group(1)) / 1e9
                    self.add(
                        n,
                        "KV per sequence",
                        f"{name}, {tok.group(1)} tokens",
                        f"{gb.group(1)} GB",
                        f"{want:.3g} GB",
                        _matches(gb.group(1), want, rel=0.002),
                    )
                continue
            if re.search(r"^kv in", head) and gb:
                tok = re.search(r"\(" + _NUM + r"\s?(?:tokens|Token)", first)
                if tok:
                    factor = 0.5 if head_prec == "fp8" else 1.0
                    want = self.kv_bytes(mid) * _value(tok.group(1)) * factor / 1e9
                    self.add(
                        n,
                        "KV per sequence",
                        f"{name}, {tok.group(1)} tokens, {head.strip()}",
                        f"{gb.group(1)} GB",
                        f"{want:.3g} GB",
                        _matches(gb.group(1), want, rel=0.002),
                    )
                continue
            if re.search(r"published|veröffentlich", head):
                spec = self.model_spec(mid)
                allowed = [v.vram_gb for v in spec.vram] + [
                    v.vram_gb_low for v in spec.vram if v.vram_gb_low
                ]
                if not allowed:
                    continue
                for m in re.finditer(
                    _NUM + r"(?:\s?[–-]\s?" + _NUM + r")?" + _SP + r"GB(?!/)", cell
                ):
                    for raw in (m.group(1), m.group(2)):
                        if raw:
                            ok = any(_matches(raw, float(a)) for a in allowed)
                            self.add(
                                n,
                                "published VRAM",
                                name,
                                f"{raw} GB",
                                ", ".join(f"{_fmt(float(a))} GB" for a in sorted(set(allowed))),
                                ok,
                            )
                continue
            prec = head_prec if head_prec and not re.search(r"weights|gewichte", head) else None
            if re.search(r"weights|gewichte", head) or head_prec:
                prec = prec or (head_prec if re.search(r"16", head) else row_prec) or row_prec
                if re.search(r"16 ?bit", head):
                    prec = "bf16"
                if gb and prec:
                    want = self.weights_gb(mid, prec)
                    ok = _matches(gb.group(1), want)
                    row_values["weights"] = _value(gb.group(1))
                    self.add(
                        n,
                        "weights",
                        f"{name} in {prec}",
                        f"{gb.group(1)} GB",
                        f"{want:.4g} GB (parameters x {bits_of(prec):.4g} bit)",
                        ok,
                    )
                continue
            if re.search(r"usable|nutzbar", head) and gb:
                row_values["usable"] = _value(gb.group(1))
                if nodes:
                    # llama.cpp has no 0.9 cap: the whole card is the budget there
                    share = 1.0 if re.search(r"llama\.cpp", " ".join(cells)) else 0.9
                    wants = {round(share * self.node_memory(c), 1) for _, _, c in nodes}
                    ok = all(_matches(gb.group(1), w) for w in wants)
                    self.add(
                        n,
                        "usable memory",
                        " / ".join(c for _, _, c in nodes),
                        f"{gb.group(1)} GB",
                        " / ".join(f"{_fmt(w)} GB" for w in sorted(wants)) + " (0.9 x node memory)",
                        ok,
                    )
                continue
            if re.search(r"left|rest|remainder|übrig", head) and gb:
                if "usable" in row_values and "weights" in row_values:
                    want = row_values["usable"] - row_values["weights"]
                    self.add(
                        n,
                        "memory left",
                        first,
                        f"{gb.group(1)} GB",
                        f"{want:.4g} GB (usable - weights)",
                        _matches(gb.group(1), want, rel=0.001),
                    )
                continue

    # -- prose

    def prose(self, n: int, text: str, section: str) -> None:
        e = self.e
        text_x = e._expand(text)
        plain = re.sub(r"\]\([^)]*\)", "]", text_x)
        # card and node mentions followed by a figure: "RTX 5090 (32 GB)",
        # "8 × H200 (1,015.2 GB usable)"
        nodes = e.configurations(plain)
        node_spans = {(s, en) for s, en, _ in nodes}
        for _start, end, gid in e.card_spans(plain):
            node = next((c for s, en, c in nodes if en == end), None)
            tail = plain[end : end + 40]
            # only a figure that belongs to the mention: "(32 GB)", " with 141 GB",
            # " reaches 300 GB/s"
            m = re.match(
                r"^(?:\s?\(|\s(?:with|mit|reaches|kommt auf|erreicht|has|hat)?\s?)"
                + _NUM
                + _SP
                + r"(GB/s|GB)(?![\w/])([^,;)]{0,12})",
                tail,
            )
            if not m:
                continue
            raw, unit, after = m.group(1), m.group(2), m.group(3)
            if re.search(
                r"left|übrig|frei|rest|needed|nötig|more|mehr", after + tail[: m.start(1)], re.I
            ):
                continue
            g = self.gpu(gid)
            if unit == "GB/s":
                wants = [g.memory_bandwidth_gb_s, e.links[e.card_link(gid)].bandwidth_gb_s]
                self.add(
                    n,
                    "memory bandwidth",
                    g.short_name,
                    f"{raw} GB/s",
                    f"{_fmt(wants[0])} GB/s",
                    any(_matches(raw, w) for w in wants),
                )
            else:
                if node:
                    total = self.node_memory(node)
                    wants = [total, 0.9 * total]
                    subject = self.catalog.configurations[node].label
                else:
                    wants = [g.memory_gb, 0.9 * g.memory_gb]
                    subject = g.short_name
                self.add(
                    n,
                    "memory",
                    subject,
                    f"{raw} GB",
                    f"{_fmt(wants[0])} GB (usable {_fmt(wants[1])} GB)",
                    any(_matches(raw, w) for w in wants),
                )
        del node_spans
        # weights in the text: "DeepSeek V3 in FP8 (671 GB)", "In BF16 (470 GB)", "FP8: 671 GB"
        prec_rx = (
            r"(?<![\w-])(BF16|FP16|FP8|INT8|AWQ|GPTQ|Q4_K_M|Q5_K_M|Q8_0|4 ?bits?|4[- ]Bit)"
            r"(?:\s?\(|:\s|\s+(?:it would be|wären es|sind es)\s)"
        )
        for m in re.finditer(prec_rx + _NUM + _SP + r"GB(?!/)", plain, re.I):
            before = [mid for pos, mid in e.models(plain) if pos < m.start()]
            mid = before[-1] if before else e.model(section)
            prec = precision_in(m.group(1).replace("4 bit", "4-bit"))
            if not mid or not prec or self.model_spec(mid).kind != "llm":
                continue
            want = self.weights_gb(mid, prec)
            self.add(
                n,
                "weights",
                f"{self.model_spec(mid).name} in {prec}",
                f"{m.group(2)} GB",
                f"{want:.4g} GB (parameters x {bits_of(prec):.4g} bit)",
                _matches(m.group(2), want),
            )
        # prices
        for m in re.finditer(
            r"\$" + _SP + _NUM + r"(?:" + _SP + r"(?:/|per |pro |a |im )(?:month|Monat))?", plain
        ):
            value = _value(m.group(1))
            named = [c for _, _, c in nodes]
            prices = {cid: float(c.usd_per_month) for cid, c in self.catalog.configurations.items()}
            if named:
                ok = any(prices[c] == value for c in named)
                data = ", ".join(f"{c}: ${_fmt(prices[c])}" for c in named)
            else:
                if not re.search(r"month|monat", m.group(0), re.I):
                    continue  # a difference or a cost figure, not a node's price
                ok = value in prices.values()
                data = "a catalog price" if ok else "no configuration has this price"
            self.add(n, "price", ", ".join(named) or "price", f"${m.group(1)}", data, ok)
        # link ratio: "14× between NVLink 4 and PCIe Gen5"
        links = e.links_in(plain)
        for m in re.finditer(r"(?<![\d.,])(\d+(?:[.,]\d+)?)\s?×(?!\s?\d)", plain):
            uniq = []
            for _, lid in links:
                if lid not in uniq:
                    uniq.append(lid)
            if len(uniq) != 2 or not re.search(
                r"\*\*\d", plain[max(0, m.start() - 2) : m.end()] + "**0"
            ):
                continue
            a, b = (e.links[x] for x in uniq)
            fast, slow = (a, b) if a.bandwidth_gb_s >= b.bandwidth_gb_s else (b, a)
            want = fast.bandwidth_gb_s / slow.bandwidth_gb_s
            ok = round(want) == round(_value(m.group(1)))
            per_dir = fast.per_direction_gb_s / slow.per_direction_gb_s
            mixed = round(per_dir) != round(want)  # NVLink's both directions : PCIe's one
            self.add(
                n,
                "link ratio",
                f"{fast.name} : {slow.name}",
                f"{m.group(1)}×",
                f"{want:.2f}× ({_fmt(fast.bandwidth_gb_s)} ÷ {_fmt(slow.bandwidth_gb_s)} GB/s)",
                ok,
                (
                    f"the guide's figures: {fast.name} counts both directions, {slow.name} one; "
                    f"per direction {per_dir:.1f}× ({_fmt(fast.per_direction_gb_s)} ÷ "
                    f"{_fmt(slow.per_direction_gb_s)} GB/s)"
                )
                if ok and mixed
                else "",
            )
        # gradient size of an N-B model in BF16: "70B model in BF16 ... 140 GB"
        mb = re.search(r"(\d+)\s?B[- ](?:model|Modell)", plain)
        if (
            mb
            and re.search(r"BF16", plain)
            and re.search(r"all-reduce|gradient|schritt|step", plain + section, re.I)
        ):
            for m in re.finditer(r"(?<![\d.,])" + _NUM + _SP + r"GB(?!/)", plain):
                want = float(mb.group(1)) * 2
                self.add(
                    n,
                    "gradient size",
                    f"{mb.group(1)}B model in BF16",
                    f"{m.group(1)} GB",
                    f"{_fmt(want)} GB (parameters x 2 bytes)",
                    _matches(m.group(1), want),
                )
                break
        # all-reduce times: "PCIe Gen5 (64 GB/s) ... about 2.2 s"
        if re.search(r"all-reduce|gradient|training|trainings", plain + " " + section, re.I):
            size = self.allreduce_size(section)
            for m in re.finditer(r"(?<![\d.,])" + _NUM + r"\s?s\b(?!/)", plain):
                before = [lid for pos, lid in links if pos < m.start()]
                if not before or size is None:
                    continue
                link = e.links[before[-1]]
                want = size / link.per_direction_gb_s  # what the tools compute (issue 24)
                guide_way = size / link.bandwidth_gb_s  # NVLink: both directions added
                ok = _matches(m.group(1), want)
                # the guide's convention is known and noted, not a contradiction of its figures
                both = not ok and _matches(m.group(1), guide_way)
                self.add(
                    n,
                    "all-reduce time",
                    f"{_fmt(size)} GB over {link.name}",
                    f"{m.group(1)} s",
                    f"{want:.3g} s ({_fmt(size)} GB ÷ {_fmt(link.per_direction_gb_s)} GB/s "
                    "per direction)",
                    ok or both,
                    (
                        f"the guide divides by {_fmt(link.bandwidth_gb_s)} GB/s, both directions "
                        f"added: 2x optimistic (docs/bugs.md)"
                    )
                    if both
                    else "",
                )
        # all-reduces per token: "80 synchronisations per token" for a 70B model
        ms = re.search(r"(\d+)\s(?:Synchronisationen|synchroni[sz]ations|Abgleiche)", plain)
        if ms:
            mid = e.model(plain) or ("llama-3.3-70b" if re.search(r"70B", plain) else None)
            layers = self.model_spec(mid).layers if mid else None
            if layers and mid:
                self.add(
                    n,
                    "all-reduces per token",
                    self.model_spec(mid).name,
                    ms.group(1),
                    f"{layers} (one per layer)",
                    int(ms.group(1)) == layers,
                )
        # topo -m labels: NV18 / NV12
        for m in re.finditer(r"\bNV(\d+)\b", plain):
            label = f"NV{m.group(1)}"
            cards = [gid for pos, gid in e.cards(plain) if pos < m.start()]
            prev_labels = [
                x.start() for x in re.finditer(r"\bNV\d+\b", plain) if x.start() < m.start()
            ]
            if prev_labels:
                cards = [gid for pos, gid in e.cards(plain) if prev_labels[-1] < pos < m.start()]
            if not cards and re.search(r"SXM", plain):
                cards = [gid for gid, g in self.catalog.gpus.items() if g.nvlink_link]
            for gid in cards:
                lid = e.card_link(gid)
                labels = e.links[lid].topo_labels
                if not labels:
                    continue
                self.add(
                    n,
                    "topo label",
                    self.gpu(gid).short_name,
                    label,
                    "/".join(labels),
                    label in labels,
                )
        # configuration count
        mc = re.search(r"(\d+)\s(?:Konfigurationen|configurations)\b", plain)
        if mc:
            want = len(self.catalog.configurations)
            self.add(
                n, "configurations", "catalog", mc.group(1), str(want), int(mc.group(1)) == want
            )

    def allreduce_size(self, section: str) -> float | None:
        return self._sizes.get(section)

    _sizes: dict[str, float] = {}  # noqa: RUF012 - set per text by audit_text


def _cells(line: str) -> list[str]:
    inner = line.strip()
    if inner.startswith("|"):
        inner = inner[1:]
    if inner.endswith("|"):
        inner = inner[:-1]
    return [c.strip() for c in inner.split("|")]


def _section_sizes(text: str) -> dict[str, float]:
    """The gradient size ("140 GB") stated in each section that talks about all-reduces."""
    out: dict[str, float] = {}
    section = ""
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("#"):
            section = re.sub(r"\{#[^}]*\}", "", s.lstrip("#")).strip()
            continue
        if section in out:
            continue
        m = re.search(r"(\d+)\s?B[- ](?:model|Modell).{0,80}?" + _NUM + _SP + r"GB(?!/)", s)
        if m and re.search(r"BF16", s):
            out[section] = _value(m.group(2))
    return out


def audit_text(name: str, text: str, catalog: Any) -> list[Finding]:
    a = Auditor(catalog)
    a._sizes = _section_sizes(text)
    a.audit_text(name, text)
    return a.findings


def guide_files(paths: Iterable[Path], guides_dir: Path) -> list[Path]:
    """Resolve the command's arguments: files, folders, or guide slugs (both languages)."""
    out: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            out += sorted(p.rglob("*.txt"))
        elif p.exists():
            out.append(p)
        else:
            found = sorted(guides_dir.glob(f"*/{p.name.removesuffix('.txt')}.txt"))
            if not found:
                raise FileNotFoundError(f"{p}: no such file, folder or guide slug")
            out += found
    return out


def audit_files(paths: list[Path], catalog: Any) -> AuditReport:
    report = AuditReport(files=[str(p) for p in paths])
    for p in paths:
        text = Path(p).read_text(encoding="utf-8")
        report.findings += audit_text(str(p), text, catalog)
    return report
