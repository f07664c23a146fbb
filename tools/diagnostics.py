"""Check a rented node: parse `nvidia-smi topo -m` and `all_reduce_perf` output, give verdicts.

The guide asks every customer to run both on day one: `topo -m` shows whether two cards talk over
NVLink (NV#) or PCIe (PIX, PXB, PHB, NODE, SYS); an all-reduce across every card shows the bus
bandwidth (busbw) to compare with the link's rated figure. On the site's SXM nodes every pair
must show NVLink with the label of the node's board (the catalog's `topo_label`): NV18 (H100,
H200, B200) or NV12 (A100) through NVSwitch on 8-GPU boards, NV6 (H100, H200) or NV4 (A100) on
4-GPU HGX boards, whose 18 or 12 links per card are split over 3 peers. Fewer links than that,
or a PCIe path, is a defect to report.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tools.interconnect import ring_factor
from tools.specs import Link

Status = Literal["ok", "warning", "defect"]
NodeKind = Literal["sxm", "pcie"]

TOPO_LEGEND = {
    "X": "the card itself",
    "NV": "connected by a bonded set of NVLinks (NV<n> = n links)",
    "PIX": "at most one PCIe switch between the cards",
    "PXB": "several PCIe switches, without crossing the host bridge",
    "PHB": "through a PCIe host bridge (the CPU)",
    "NODE": "across PCIe host bridges within one NUMA node",
    "SYS": "across the inter-socket link (QPI/UPI): the worst case on the machine",
}
PCIE_LABELS = ("PIX", "PXB", "PHB", "NODE", "SYS")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_LABEL = re.compile(r"^(X|NV\d+|PIX|PXB|PHB|NODE|SYS|SOC)$")


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


# ---------------------------------------------------------------- topo -m


class TopoInput(_In):
    text: str = Field(description="pasted output of `nvidia-smi topo -m`")
    node_kind: NodeKind = Field(description="what was rented: an SXM (NVLink) or a PCIe node")
    expected_label: str | None = Field(
        default=None, description="what every pair should show on an SXM node, e.g. NV18"
    )
    accepted_labels: list[str] = Field(
        default=[],
        description="other labels that are healthy too: NV18 on a 4-card H100 node means its "
        "cards sit on an 8-GPU NVSwitch board (all links through the switches)",
    )
    expected_cards: int | None = Field(default=None, ge=1, description="cards the node should have")


class PairVerdict(BaseModel):
    a: str
    b: str
    label: str
    meaning: str
    status: Status
    message: str


class TopoResult(BaseModel):
    inputs: TopoInput
    gpus: list[str]
    pairs: list[PairVerdict]
    status: Status = Field(description="the worst status over all pairs and checks")
    problems: list[str]
    summary: str


class TopoParseError(ValueError):
    """The text holds no GPU matrix."""


def _meaning(label: str) -> str:
    if label.startswith("NV"):
        return f"NVLink, {label[2:]} links bonded"
    if label == "SOC":
        return TOPO_LEGEND["SYS"]
    return TOPO_LEGEND.get(label, "unknown")


_GPU_RX = re.compile(r"\bGPU\d+\b")

#: e-mail quote markers before a pasted line ("> GPU0  X  NV4", ">> # Rank 0 ...")
_QUOTE = re.compile(r"^\s*(?:>\s?)+")


def _clean(line: str) -> str:
    """A pasted line without colour codes and without the quote markers of a forwarded mail."""
    return _QUOTE.sub("", _ANSI.sub("", line))


def _is_header(line: str) -> bool:
    toks = line.split()
    return "GPU0" in toks and not (len(toks) > 1 and toks[0] == "GPU0" and _LABEL.match(toks[1]))


def parse_topo_matrix(text: str) -> tuple[list[str], dict[tuple[str, str], str]]:
    """The GPU names and the label of every ordered pair, from `nvidia-smi topo -m` output.

    The matrix may sit inside prose that names GPUs ("the customer says GPU0 and GPU5 are
    slow"): every line that could be its header is tried, the first that heads a whole matrix
    wins; when none does, the problem of the widest header (the likeliest matrix) is raised."""
    lines = [_clean(line).rstrip() for line in text.splitlines()]
    headers = [i for i, line in enumerate(lines) if _is_header(line)]
    if not headers:
        headerless = _rows_without_header(lines)
        if headerless is not None:
            return headerless
        raise TopoParseError("no `nvidia-smi topo -m` matrix found (expected a GPU0 header)")
    problems: list[tuple[int, TopoParseError]] = []
    for header_idx in headers:
        try:
            return _matrix_below(lines, header_idx)
        except TopoParseError as exc:
            problems.append((-len(_GPU_RX.findall(lines[header_idx])), exc))
    raise min(problems, key=lambda p: p[0])[1]


def _rows_without_header(
    lines: list[str],
) -> tuple[list[str], dict[tuple[str, str], str]] | None:
    """A matrix pasted without its header line ("the header was GPU0 GPU1 …" said in prose):
    consecutive rows GPU0, GPU1, … whose own cell is "X" name the columns themselves."""
    rows = [line for line in lines if re.match(r"^GPU\d+\s", line.strip())]
    names = [line.split()[0] for line in rows]
    if len(rows) < 2 or names != [f"GPU{i}" for i in range(len(rows))]:
        return None
    if any(line.split()[1 + i] != "X" for i, line in enumerate(rows) if len(line.split()) > i + 1):
        return None
    return _matrix_below(["\t".join(names), *rows], 0)


def _matrix_below(
    lines: list[str], header_idx: int
) -> tuple[list[str], dict[tuple[str, str], str]]:
    gpus = [tok for tok in lines[header_idx].split() if _GPU_RX.fullmatch(tok)]
    cells: dict[tuple[str, str], str] = {}
    for line in lines[header_idx + 1 :]:
        toks = line.split()
        if not toks or not re.fullmatch(r"GPU\d+", toks[0]):
            if toks and toks[0].lower().startswith("legend"):
                break
            continue
        row, values = toks[0], toks[1 : 1 + len(gpus)]
        if len(values) < len(gpus) or not all(_LABEL.match(v) for v in values):
            raise TopoParseError(f"row {row}: expected {len(gpus)} labels, got {' '.join(values)}")
        for col, value in zip(gpus, values, strict=True):
            cells[(row, col)] = value
        if len(cells) == len(gpus) ** 2:
            break  # the whole matrix: prose after it may name GPUs too
    rows = {a for a, _ in cells}
    if rows != set(gpus):
        missing = sorted(set(gpus) - rows)
        raise TopoParseError(f"matrix incomplete: no row for {', '.join(missing)}")
    return gpus, cells


def check_topology(inp: TopoInput) -> TopoResult:
    """A verdict for every card pair against what the rented node should show."""
    gpus, cells = parse_topo_matrix(inp.text)
    pairs: list[PairVerdict] = []
    problems: list[str] = []
    for i, a in enumerate(gpus):
        for b in gpus[i + 1 :]:
            label = cells[(a, b)]
            pairs.append(_pair_verdict(a, b, label, inp))
    if inp.expected_cards is not None and len(gpus) != inp.expected_cards:
        problems.append(f"{len(gpus)} cards visible, the node should have {inp.expected_cards}")
    problems += _uniform_shortfall(pairs, inp) or [
        f"{p.a}-{p.b}: {p.message}" for p in pairs if p.status != "ok"
    ]
    order = {"ok": 0, "warning": 1, "defect": 2}
    worst: Status = "ok"
    for p in pairs:
        if order[p.status] > order[worst]:
            worst = p.status
    if inp.expected_cards is not None and len(gpus) != inp.expected_cards:
        worst = "defect"
    bad = sum(1 for p in pairs if p.status != "ok")
    summary = (
        f"{len(gpus)} cards, {len(pairs)} pairs: all as expected"
        if worst == "ok"
        else f"{len(gpus)} cards, {len(pairs)} pairs: {bad} not as expected"
    )
    return TopoResult(
        inputs=inp, gpus=gpus, pairs=pairs, status=worst, problems=problems, summary=summary
    )


def _uniform_shortfall(pairs: list[PairVerdict], inp: TopoInput) -> list[str]:
    """Every pair short of the board's links by the same count ("NV12" on all 28 pairs of an
    8x H100 SXM5, whose board shows NV18): one problem naming the likelier cause, another board
    or the wrong machine, rather than a dropped link on each pair."""
    labels = {p.label for p in pairs}
    if len(pairs) < 2 or len(labels) != 1 or any(p.status != "defect" for p in pairs):
        return []
    label = labels.pop()
    if not label.startswith("NV"):
        return []
    return [
        f"every pair shows {label} where this node's board shows {inp.expected_label}: the "
        f"same shortfall on all {len(pairs)} pairs points to another board or the wrong machine "
        "rather than a link down on each pair; check which node printed this, then report it"
    ]


def _pair_verdict(a: str, b: str, label: str, inp: TopoInput) -> PairVerdict:
    meaning = _meaning(label)
    if inp.node_kind == "sxm":
        expected = inp.expected_label
        if label.startswith("NV"):
            if expected is None or label == expected or label in inp.accepted_labels:
                return PairVerdict(
                    a=a,
                    b=b,
                    label=label,
                    meaning=meaning,
                    status="ok",
                    message="NVLink as expected",
                )
            got = int(label[2:])
            wants = [int(x[2:]) for x in (expected, *inp.accepted_labels) if x.startswith("NV")]
            # below the board's count, or between it and NVSwitch's full count: links are down
            want = min((w for w in wants if w > got), default=0)
            shown = " or ".join([expected, *inp.accepted_labels])
            if got < want:
                return PairVerdict(
                    a=a,
                    b=b,
                    label=label,
                    meaning=meaning,
                    status="defect",
                    message=f"only {got} of {want} NVLinks: a link is down; report it",
                )
            return PairVerdict(
                a=a,
                b=b,
                label=label,
                meaning=meaning,
                status="warning",
                message=f"shows {label}, expected {shown}",
            )
        return PairVerdict(
            a=a,
            b=b,
            label=label,
            meaning=meaning,
            status="defect",
            message=f"{label}: traffic goes over PCIe, not NVLink; on an SXM node this is a defect",
        )
    if label.startswith("NV"):
        return PairVerdict(
            a=a,
            b=b,
            label=label,
            meaning=meaning,
            status="ok",
            message="NVLink bridge between these cards (better than PCIe)",
        )
    if label in ("SYS", "SOC"):
        return PairVerdict(
            a=a,
            b=b,
            label=label,
            meaning=meaning,
            status="warning",
            message="the cards talk across CPU sockets: worst case for tensor parallelism; "
            "fine for one model per card",
        )
    return PairVerdict(
        a=a,
        b=b,
        label=label,
        meaning=meaning,
        status="ok",
        message="PCIe path as expected for a PCIe node",
    )


# ---------------------------------------------------------------- all_reduce_perf


class AllReduceInput(_In):
    text: str = Field(description="pasted output of nccl-tests all_reduce_perf")
    link: Link = Field(description="the link the node was sold with (effective rate)")
    min_bytes_for_peak: int = Field(
        default=64 * 2**20, ge=0, description="sizes below this are latency-bound and not compared"
    )


class AllReduceRow(BaseModel):
    size_bytes: int
    time_us: float
    algbw_gb_s: float
    busbw_gb_s: float
    in_place_busbw_gb_s: float | None


class AllReduceResult(BaseModel):
    inputs: AllReduceInput
    rows: list[AllReduceRow]
    ranks: int | None = Field(description="cards in the test (from the '# Rank' lines)")
    peak_busbw_gb_s: float
    peak_size_bytes: int
    avg_busbw_gb_s: float | None = Field(description="the tool's own '# Avg bus bandwidth'")
    rated_gb_s: float = Field(description="the link's rate per direction (vendor)")
    guide_gb_s: float = Field(description="the guide's headline figure for the link")
    ratio_to_rated: float
    ring_factor: float | None
    status: Status
    message: str
    formula: str = "busbw = algbw * 2(n-1)/n (nccl-tests); ratio = peak busbw / rated per direction"


class AllReduceParseError(ValueError):
    """The text holds no all_reduce_perf result rows."""


def parse_all_reduce(text: str) -> tuple[list[AllReduceRow], int | None, float | None]:
    """Rows, rank count and average bus bandwidth from all_reduce_perf output."""
    rows: list[AllReduceRow] = []
    ranks = 0
    avg: float | None = None
    for raw in text.splitlines():
        line = _clean(raw).strip()
        if not line:
            continue
        if line.startswith("#"):
            if re.match(r"#\s*Rank\s+\d+", line):
                ranks += 1
            m = re.search(r"Avg bus bandwidth\s*:\s*([0-9.]+)", line)
            if m:
                avg = float(m.group(1))
            continue
        toks = line.split()
        if len(toks) < 10 or not toks[0].isdigit() or not toks[1].isdigit():
            continue
        try:
            oop = [float(t) for t in toks[-8:-5]]
            ip_busbw = _float_or_none(toks[-2])
        except ValueError:
            continue
        rows.append(
            AllReduceRow(
                size_bytes=int(toks[0]),
                time_us=oop[0],
                algbw_gb_s=oop[1],
                busbw_gb_s=oop[2],
                in_place_busbw_gb_s=ip_busbw,
            )
        )
    if not rows:
        raise AllReduceParseError("no all_reduce_perf result rows found")
    return rows, (ranks or None), avg


def _float_or_none(tok: str) -> float | None:
    try:
        return float(tok)
    except ValueError:
        return None


#: a bus bandwidth this far above the link's per-direction rate was not measured over that link
#: (NVLink SHARP on NVSwitch nodes reaches a little above the rate; a quarter above is another link)
ABOVE_RATED = 1.25


def judge_busbw(busbw_gb_s: float, link: Link) -> tuple[float, Status, str]:
    """(ratio, status, message): a bus bandwidth against the link's rated per-direction rate
    (>= 60 % ok, 30-60 % lower than expected, below that a defect; more than a quarter above
    the rate is suspect: measured elsewhere)."""
    ratio = busbw_gb_s / link.per_direction_gb_s
    status: Status
    if ratio > ABOVE_RATED:
        status = "warning"
        msg = (
            f"{ratio:.0%} of the {link.name} rate: more than this link carries; was it measured "
            "on this node (check the configuration and topo -m)?"
        )
    elif ratio >= 0.6:
        status, msg = "ok", f"{ratio:.0%} of the {link.name} rate: healthy"
    elif ratio >= 0.3:
        status, msg = "warning", f"{ratio:.0%} of the {link.name} rate: lower than expected"
    else:
        status = "defect"
        msg = (
            f"{ratio:.0%} of the {link.name} rate: traffic is not using the link it should "
            "(check topo -m)"
        )
    return ratio, status, msg


class BusbwInput(_In):
    busbw_gb_s: float = Field(gt=0, description="a measured all-reduce bus bandwidth, GB/s")
    link: Link = Field(description="the link the cards run at")
    cards: int = Field(default=2, ge=2, description="cards in the all-reduce")


class BusbwResult(BaseModel):
    inputs: BusbwInput
    rated_gb_s: float = Field(description="the link's rate per direction = expected ring busbw")
    guide_gb_s: float
    ratio_to_rated: float
    ring_factor: float = Field(description="2(n-1)/n for the node's cards")
    algbw_gb_s: float = Field(description="the algorithm bandwidth that busbw implies")
    status: Status
    message: str
    formula: str = (
        "a healthy ring all-reduce reaches busbw close to the link's per-direction rate; "
        "ratio = busbw / rated; algbw = busbw / (2(n-1)/n)"
    )


def check_busbw(inp: BusbwInput) -> BusbwResult:
    """Judge one stated bus-bandwidth figure (no pasted output) against the node's link."""
    ratio, status, msg = judge_busbw(inp.busbw_gb_s, inp.link)
    factor = ring_factor(inp.cards)
    return BusbwResult(
        inputs=inp,
        rated_gb_s=inp.link.per_direction_gb_s,
        guide_gb_s=inp.link.bandwidth_gb_s,
        ratio_to_rated=ratio,
        ring_factor=factor,
        algbw_gb_s=inp.busbw_gb_s / factor,
        status=status,
        message=msg,
    )


def check_all_reduce(inp: AllReduceInput) -> AllReduceResult:
    """Compare the measured peak bus bandwidth with the link's rated per-direction figure."""
    rows, ranks, avg = parse_all_reduce(inp.text)
    big = [r for r in rows if r.size_bytes >= inp.min_bytes_for_peak] or rows
    best = max(big, key=lambda r: max(r.busbw_gb_s, r.in_place_busbw_gb_s or 0.0))
    peak = max(best.busbw_gb_s, best.in_place_busbw_gb_s or 0.0)
    rated = inp.link.per_direction_gb_s
    ratio, status, msg = judge_busbw(peak, inp.link)
    return AllReduceResult(
        inputs=inp,
        rows=rows,
        ranks=ranks,
        peak_busbw_gb_s=peak,
        peak_size_bytes=best.size_bytes,
        avg_busbw_gb_s=avg,
        rated_gb_s=rated,
        guide_gb_s=inp.link.bandwidth_gb_s,
        ratio_to_rated=ratio,
        ring_factor=ring_factor(ranks) if ranks else None,
        status=status,
        message=msg,
    )
