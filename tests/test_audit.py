"""`sizing audit`: the seed's known contradictions are found, the shipped corpus audits clean, and
a wrong figure planted in a guide is reported with its file, line, the guide's and the data's
figure.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from evals.audit import audit_files, audit_text
from knowledge.catalog import load_catalog

ROOT = Path(__file__).resolve().parent.parent
GUIDES = ROOT / "knowledge" / "guides"
SIZING = str(Path(sys.executable).parent / "sizing")


@pytest.fixture(scope="module")
def catalog():  # type: ignore[no-untyped-def]
    return load_catalog(ROOT / "knowledge" / "catalog")


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_seed_shows_its_known_contradictions(catalog, seed_path: Path) -> None:  # type: ignore[no-untyped-def]
    text = seed_path.read_text(encoding="utf-8")
    report = audit_files([seed_path], catalog)
    bad = report.contradictions
    nvlink4_row = _line(text, "| NVLink 4 über NVSwitch")
    gen5_row = _line(text, "| PCIe Gen5 ×16 Aktuelle PCIe-Knoten")
    # A100 SXM4 listed under NVLink 4 / 900 GB/s while it is NVLink 3 / 600 GB/s
    a100 = [f for f in bad if f.subject == "A100 SXM4" and f.kind == "link generation"]
    assert len(a100) == 1 and a100[0].line == nvlink4_row
    assert "NVLink 4" in a100[0].guide and "900" in a100[0].guide
    assert "NVLink 3" in a100[0].data and "600" in a100[0].data
    assert a100[0].file == str(seed_path)
    # Gen4 cards listed under PCIe Gen5; the Gen5 cards of that row are fine
    gen4 = {f.subject for f in bad if f.kind == "link generation" and f.line == gen5_row}
    assert gen4 == {"L4", "L40S", "RTX 4090", "RTX A6000", "A100 PCIe"}
    assert all("Gen4" in f.data and "Gen5" in f.guide for f in bad if f.line == gen5_row)
    fine = {
        f.subject
        for f in report.findings
        if f.ok and f.line == gen5_row and f.kind == "link generation"
    }
    assert fine == {"RTX 5090", "H100 PCIe"}
    # the site's own figures that agree with the data are checked, not flagged
    ok_kinds = {f.kind for f in report.findings if f.ok}
    assert {"price", "tokens/s", "memory bandwidth", "link ratio", "node memory"} <= ok_kinds
    assert not [f for f in bad if f.kind in ("price", "tokens/s", "memory bandwidth")]


def test_shipped_corpus_audits_clean(catalog) -> None:  # type: ignore[no-untyped-def]
    paths = sorted(GUIDES.glob("*/*.txt"))
    assert len(paths) == 8
    report = audit_files(paths, catalog)
    assert report.checked > 300  # every guide carries figures the data can check
    assert {Path(f.file).stem for f in report.findings} == {p.stem for p in paths}
    bad = report.contradictions
    assert not bad, "\n".join(
        f"{f.file}:{f.line} {f.kind} {f.subject}: {f.guide} vs {f.data}" for f in bad
    )


MUTATIONS = [
    (
        "**Qwen3 235B-A22B:** FP8 (235 GB) on",
        "**Qwen3 235B-A22B:** FP8 (255 GB) on",
        "weights",
        "mixture-of-experts",
    ),
    (
        "| A100 PCIe | 80 GB | 1,935 GB/s |",
        "| A100 PCIe | 80 GB | 2,935 GB/s |",
        "memory bandwidth",
        "gpu-for-flux-sdxl",
    ),
    (
        "| Price | $4,157/month | $4,395/month |",
        "| Price | $4,157/month | $4,495/month |",
        "price",
        "nvlink-vs-pcie",
    ),
    (
        "| NVLink 3 via NVSwitch (Ampere) | HGX board, 4 or 8 GPUs: A100 SXM4 | 600 GB/s",
        "| NVLink 3 via NVSwitch (Ampere) | HGX board, 4 or 8 GPUs: A100 SXM4 | 800 GB/s",
        "link bandwidth",
        "nvlink-vs-pcie",
    ),
    (
        "| PCIe Gen5 ×16 | Current PCIe nodes with Gen5 cards: H100 PCIe, RTX 5090 |",
        "| PCIe Gen5 ×16 | Current PCIe nodes with Gen5 cards: H100 PCIe, RTX 5090, L40S |",
        "link generation",
        "nvlink-vs-pcie",
    ),
    ("roughly **14×** above", "roughly **20×** above", "link ratio", "nvlink-vs-pcie"),
    ("about 0.16 s", "about 0.26 s", "all-reduce time", "nvlink-vs-pcie"),
    ("| BF16 | 16 | 141.1 GB |", "| BF16 | 16 | 151.1 GB |", "weights", "awq-vs-gptq-vs-fp8"),
    ("| GGUF Q4_K_M | 4.89 |", "| GGUF Q4_K_M | 4.5 |", "bits per weight", "awq-vs-gptq-vs-fp8"),
    (
        "| 8K (8,192 tokens) | 2.7 GB | 1.3 GB |",
        "| 8K (8,192 tokens) | 3.7 GB | 1.3 GB |",
        "KV per sequence",
        "awq-vs-gptq-vs-fp8",
    ),
    (
        "| 2 · 94 · 4 · 128 · 2 | 192,512 |",
        "| 2 · 94 · 4 · 128 · 2 | 192,000 |",
        "KV bytes per token",
        "mixture-of-experts",
    ),
    (
        "| DeepSeek V3, FP8 | 671 GB | 8 × H200 | 1,015.2 GB |",
        "| DeepSeek V3, FP8 | 671 GB | 8 × H200 | 1,128 GB |",
        "usable memory",
        "mixture-of-experts",
    ),
    ("H200 (141 GB)", "H200 (150 GB)", "memory", "gpu-for-flux-sdxl"),
    (
        "| Wan 2.1 T2V 1.3B | 1.3B | 2.6 GB | 8.19 GB for 480p |",
        "| Wan 2.1 T2V 1.3B | 1.3B | 2.6 GB | 6.19 GB for 480p |",
        "published VRAM",
        "gpu-for-flux-sdxl",
    ),
    (
        "every pair of cards shows `NV18`",
        "every pair of cards shows `NV12`",
        "topo label",
        "nvlink-vs-pcie",
    ),
    (
        "| DeepSeek V3 | 671B | 37B |",
        "| DeepSeek V3 | 671B | 47B |",
        "active parameters",
        "mixture-of-experts",
    ),
    (
        "| ~18 tokens/s | ~19 tokens/s |",
        "| ~18 tokens/s | ~25 tokens/s |",
        "tokens/s",
        "nvlink-vs-pcie",
    ),
]


@pytest.mark.parametrize(("old", "new", "kind", "guide"), MUTATIONS, ids=[m[2] for m in MUTATIONS])
def test_a_planted_wrong_figure_is_reported(
    catalog, old: str, new: str, kind: str, guide: str
) -> None:  # type: ignore[no-untyped-def]
    text = (GUIDES / "en" / f"{guide}.txt").read_text(encoding="utf-8")
    assert old in text, f"the guide changed: {old!r} not found"
    before = [f for f in audit_text("g.txt", text, catalog) if not f.ok]
    changed = text.replace(old, new, 1)
    after = [f for f in audit_text("g.txt", changed, catalog) if not f.ok]
    new_findings = [
        f
        for f in after
        if (f.line, f.kind, f.subject) not in {(b.line, b.kind, b.subject) for b in before}
    ]
    line = _line(changed, new.strip("|").strip()[:30])
    assert any(f.kind == kind and f.line == line for f in new_findings), (kind, line, new_findings)


def test_cli_audit(seed_path: Path, tmp_path: Path) -> None:
    proc = subprocess.run(
        [SIZING, "audit", str(seed_path), "--json"], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 1, proc.stderr
    data = json.loads(proc.stdout)
    assert data["clean"] is False and len(data["contradictions"]) >= 6
    row = data["contradictions"][0]
    assert {"file", "line", "kind", "subject", "guide", "data"} <= set(row)
    table = subprocess.run(
        [SIZING, "audit", str(seed_path)], capture_output=True, text=True, timeout=120
    )
    assert table.returncode == 1 and "A100 SXM4" in table.stdout and "contradiction" in table.stdout
    clean = tmp_path / "ok.txt"
    clean.write_text(
        "# Guide\n\nThe RTX 5090 (32 GB) costs $560/month as 1 × RTX 5090.\n", encoding="utf-8"
    )
    ok = subprocess.run([SIZING, "audit", str(clean)], capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "0 contradiction" in ok.stdout
    missing = subprocess.run(
        [SIZING, "audit", "no-such-guide"], capture_output=True, text=True, timeout=120
    )
    assert missing.returncode == 2 and "no such file" in missing.stderr


LINK_TABLE = """## What each link is

| Link | Where you get it | Per card, {basis} |
|---|---|---|
| NVLink 4 via NVSwitch | SXM cards on an HGX board (H100 SXM5, H200) | {nv4} GB/s |
| PCIe Gen5 ×16 | {cards} | 64 GB/s |
| PCIe Gen4 ×16 | Some 1- and 2-GPU chassis | 32 GB/s |
"""


@pytest.mark.parametrize("basis", ["each direction", "per direction", "je Richtung"])
def test_a_both_directions_figure_labelled_each_direction_is_flagged(catalog, basis: str) -> None:  # type: ignore[no-untyped-def]
    def bad(nv4: str) -> list:  # type: ignore[type-arg]
        text = LINK_TABLE.format(basis=basis, nv4=nv4, cards="RTX 5090, H100 PCIe")
        return [f for f in audit_text("g.txt", text, catalog) if not f.ok]

    found = bad("900")
    assert [(f.kind, f.subject, f.line, f.cell) for f in found] == [
        ("link bandwidth basis", "NVLink 4", 5, 2)
    ]
    assert "450" in found[0].data
    assert bad("450") == []  # the true per-direction figure passes


@pytest.mark.parametrize(
    ("cards", "flagged"),
    [
        ("All PCIe cards", {"L4", "L40S", "RTX 4090", "RTX A6000", "A100 PCIe"}),
        ("Alle PCIe-Karten", {"L4", "L40S", "RTX 4090", "RTX A6000", "A100 PCIe"}),
        ("RTX 5090, H100 PCIe", set()),
    ],
)
def test_all_pcie_cards_under_gen5_names_the_gen4_cards(catalog, cards: str, flagged: set) -> None:  # type: ignore[no-untyped-def,type-arg]
    text = LINK_TABLE.format(basis="both directions", nv4="900", cards=cards)
    findings = [f for f in audit_text("g.txt", text, catalog) if f.line == 6]
    gen = [f for f in findings if f.kind == "link generation"]
    assert {f.subject for f in gen if not f.ok} == flagged
    assert {f.subject for f in gen if f.ok} == {"RTX 5090", "H100 PCIe"}  # the Gen5 cards
    assert all(f.cell == 1 and "Gen4" in f.data for f in gen if not f.ok)
