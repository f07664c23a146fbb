"""Diagnostics: `nvidia-smi topo -m` and `all_reduce_perf` output parsed into verdicts."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge.catalog import Catalog, load_catalog
from tools.diagnostics import (
    AllReduceInput,
    AllReduceParseError,
    TopoInput,
    TopoParseError,
    check_all_reduce,
    check_topology,
    parse_all_reduce,
    parse_topo_matrix,
)

CATALOG = Path(__file__).resolve().parent.parent / "knowledge" / "catalog"


def topo(labels: list[list[str]], extra_cols: str = "\tNIC0\tCPU Affinity\tNUMA Affinity") -> str:
    """A `topo -m` matrix like nvidia-smi prints it (tabs, ANSI underline on the header)."""
    n = len(labels)
    head = "\t\x1b[4m" + "\t".join(f"GPU{i}" for i in range(n)) + extra_cols + "\x1b[0m"
    rows = [
        f"GPU{i}\t"
        + "\t".join(" X " if i == j else labels[i][j] for j in range(n))
        + "\tSYS\t0-63\t0"
        for i in range(n)
    ]
    legend = "\nLegend:\n\n  X    = Self\n  SYS  = Connection traversing PCIe as well as the SMP\n"
    return "\n".join([head, *rows]) + "\n" + legend


def full(n: int, label: str) -> list[list[str]]:
    return [[label] * n for _ in range(n)]


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog(CATALOG)


def test_parse_matrix() -> None:
    gpus, cells = parse_topo_matrix(topo(full(4, "NV12")))
    assert gpus == ["GPU0", "GPU1", "GPU2", "GPU3"]
    assert cells[("GPU0", "GPU0")] == "X"
    assert cells[("GPU2", "GPU3")] == "NV12"


def test_h100_sxm_node_every_pair_nv18() -> None:
    r = check_topology(
        TopoInput(
            text=topo(full(8, "NV18")), node_kind="sxm", expected_label="NV18", expected_cards=8
        )
    )
    assert r.status == "ok"
    assert len(r.pairs) == 28
    assert all(p.status == "ok" for p in r.pairs)


def test_a100_sxm_node_shows_nv12() -> None:
    r = check_topology(
        TopoInput(text=topo(full(4, "NV12")), node_kind="sxm", expected_label="NV12")
    )
    assert r.status == "ok"


def test_the_same_shortfall_on_every_pair_is_one_problem_naming_another_board() -> None:
    r = check_topology(
        TopoInput(
            text=topo(full(8, "NV12")), node_kind="sxm", expected_label="NV18", expected_cards=8
        )
    )
    assert r.status == "defect" and len(r.pairs) == 28
    assert len(r.problems) == 1 and "another board or the wrong machine" in r.problems[0]
    one_down = full(8, "NV18")
    one_down[0][1] = one_down[1][0] = "NV12"
    r = check_topology(
        TopoInput(text=topo(one_down), node_kind="sxm", expected_label="NV18", expected_cards=8)
    )
    assert r.problems == ["GPU0-GPU1: only 12 of 18 NVLinks: a link is down; report it"]


def test_sxm_pair_over_pcie_is_a_defect() -> None:
    labels = full(4, "NV18")
    labels[1][3] = labels[3][1] = "SYS"
    r = check_topology(TopoInput(text=topo(labels), node_kind="sxm", expected_label="NV18"))
    assert r.status == "defect"
    bad = [p for p in r.pairs if p.status != "ok"]
    assert [(p.a, p.b, p.label) for p in bad] == [("GPU1", "GPU3", "SYS")]
    assert "PCIe" in bad[0].message


def test_fewer_nvlinks_than_expected() -> None:
    labels = full(4, "NV18")
    labels[0][2] = labels[2][0] = "NV12"
    r = check_topology(TopoInput(text=topo(labels), node_kind="sxm", expected_label="NV18"))
    assert r.status == "defect"
    assert "12 of 18" in r.problems[0]


def test_pcie_node_sys_pairs_warn() -> None:
    labels = [["X", "PIX", "SYS", "SYS"], ["PIX", "X", "SYS", "SYS"], ["SYS", "SYS", "X", "PIX"],
              ["SYS", "SYS", "PIX", "X"]]  # fmt: skip
    r = check_topology(TopoInput(text=topo(labels), node_kind="pcie", expected_cards=4))
    assert r.status == "warning"
    assert sum(p.status == "warning" for p in r.pairs) == 4
    assert all(p.status == "ok" for p in r.pairs if p.label == "PIX")
    assert "sockets" in next(p for p in r.pairs if p.label == "SYS").message


def test_wrong_card_count() -> None:
    r = check_topology(
        TopoInput(
            text=topo(full(4, "NV18")), node_kind="sxm", expected_label="NV18", expected_cards=8
        )
    )
    assert r.status == "defect"
    assert "4 cards visible" in r.problems[0]


@pytest.mark.parametrize("text", ["", "hello", "GPU0 X NV12\n"])
def test_topo_garbage(text: str) -> None:
    with pytest.raises(TopoParseError):
        parse_topo_matrix(text)


def test_topo_truncated_row() -> None:
    text = topo(full(4, "NV18")).replace("\tNV18\tNV18\tSYS\t0-63\t0\nGPU2", "\nGPU2", 1)
    with pytest.raises(TopoParseError):
        parse_topo_matrix(text)


def _nccl_row(size: int, oop: tuple[str, str, str], ip: tuple[str, str, str]) -> str:
    count = size // 4
    return (
        f"{size:>12} {count:>13} {'float':>9} {'sum':>7} {-1:>7} "
        f"{oop[0]:>8} {oop[1]:>7} {oop[2]:>7} {0:>6} {ip[0]:>8} {ip[1]:>7} {ip[2]:>7} {0:>6}"
    )


# all_reduce_perf output as nccl-tests prints it (4 x H100 over NVLink 4)
NCCL = "\n".join(
    [
        "# nThread 1 nGpus 4 minBytes 8 maxBytes 4294967296 step: 2(factor) warmup iters: 5",
        "#",
        "# Using devices",
        *(
            f"#  Rank  {i} Group  0 Pid   1234 on    node1 device  {i} [0x18] NVIDIA H100 80GB HBM3"
            for i in range(4)
        ),
        "#" + " " * 62 + "out-of-place" + " " * 23 + "in-place",
        "#       size         count      type   redop    root     time   algbw   busbw #wrong"
        "     time   algbw   busbw #wrong",
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)"
        "            (us)  (GB/s)  (GB/s)",
        _nccl_row(8, ("18.91", "0.00", "0.00"), ("18.62", "0.00", "0.00")),
        _nccl_row(1048576, ("40.12", "26.14", "39.21"), ("39.80", "26.35", "39.52")),
        _nccl_row(134217728, ("551.2", "243.50", "365.25"), ("550.1", "243.99", "365.98")),
        _nccl_row(4294967296, ("16210", "264.96", "397.44"), ("16201", "265.10", "397.65")),
        "# Out of bounds values : 0 OK",
        "# Avg bus bandwidth    : 200.512",
        "#",
    ]
)


def test_parse_all_reduce() -> None:
    rows, ranks, avg = parse_all_reduce(NCCL)
    assert ranks == 4
    assert avg == pytest.approx(200.512)
    assert [r.size_bytes for r in rows] == [8, 1048576, 134217728, 4294967296]
    assert rows[-1].busbw_gb_s == 397.44
    assert rows[-1].algbw_gb_s == 264.96
    assert rows[-1].busbw_gb_s == pytest.approx(rows[-1].algbw_gb_s * 1.5, rel=1e-3)


def test_all_reduce_healthy_on_nvlink4(cat: Catalog) -> None:
    r = check_all_reduce(AllReduceInput(text=NCCL, link=cat.links["nvlink-4"]))
    assert r.peak_busbw_gb_s == 397.65
    assert r.peak_size_bytes == 4294967296
    assert r.rated_gb_s == 450
    assert r.guide_gb_s == 900
    assert r.ratio_to_rated == pytest.approx(397.65 / 450)
    assert r.status == "ok"
    assert r.ring_factor == 1.5


def test_all_reduce_well_above_the_links_rate_was_measured_elsewhere(cat: Catalog) -> None:
    # the same NVLink 4 result judged against PCIe Gen4: 397 GB/s is no PCIe figure
    r = check_all_reduce(AllReduceInput(text=NCCL, link=cat.links["pcie-gen4-x16"]))
    assert r.ratio_to_rated > 1.25
    assert r.status == "warning" and "measured" in r.message
    ok = check_all_reduce(AllReduceInput(text=NCCL, link=cat.links["nvlink-4"]))
    assert ok.status == "ok"  # 88 % of its own rate


def test_all_reduce_far_below_rate_is_a_defect(cat: Catalog) -> None:
    slow = NCCL.replace("397.44", "20.11").replace("397.65", "20.30").replace("365.25", "19.0")
    slow = slow.replace("365.98", "19.2")
    r = check_all_reduce(AllReduceInput(text=slow, link=cat.links["nvlink-4"]))
    assert r.status == "defect"
    assert "topo -m" in r.message
    gen4 = check_all_reduce(AllReduceInput(text=slow, link=cat.links["pcie-gen4-x16"]))
    assert gen4.status == "ok"  # 20 GB/s is fine for PCIe Gen4 (32 GB/s per direction)


def test_all_reduce_garbage(cat: Catalog) -> None:
    with pytest.raises(AllReduceParseError):
        check_all_reduce(AllReduceInput(text="no results here", link=cat.links["nvlink-4"]))


def test_a_matrix_pasted_without_its_header_is_read_from_its_rows() -> None:
    from tools.diagnostics import parse_topo_matrix

    text = (
        "customer sent this, header was cut off:\n"
        "> GPU0     X      PIX     SYS     SYS     0-31            0\n"
        "> GPU1    PIX      X      SYS     SYS     0-31            0\n"
        "> GPU2    SYS     SYS      X      PIX     32-63           1\n"
        "> GPU3    SYS     SYS     PIX      X      32-63           1\n"
    )
    gpus, cells = parse_topo_matrix(text)
    assert gpus == ["GPU0", "GPU1", "GPU2", "GPU3"]
    assert cells[("GPU0", "GPU1")] == "PIX" and cells[("GPU1", "GPU3")] == "SYS"
    # rows that do not start at GPU0 with X on the diagonal are no matrix
    with pytest.raises(TopoParseError):
        parse_topo_matrix("GPU1 says PIX\nGPU2 says SYS\n")
