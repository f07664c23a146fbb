"""What changes for visitors (issue 17): `--compare` and `sizing eval diff` show, per case whose
answer changed, old and new side by side with changed prices, verdicts, cited sections and
recommendations, and a summary line. Tested on real runs: one guide edit, one price change."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from assistant.settings import Settings
from evals.diff import diff_reports, word_diff
from evals.report import to_html
from evals.runner import RunOptions, run_eval
from evals.schema import Dataset
from tests.test_eval_catalog import changed_catalog

ROOT = Path(__file__).resolve().parent.parent
SIZING = str(Path(sys.executable).parent / "sizing")
CASES = {
    "name": "diffset",
    "cases": [
        {
            "id": "sxm4-price",
            "question": "What will 4 x A100 SXM4 cost?",
            "language": "en",
            "expect": {"prices": ["4x-a100-sxm4"]},
        },
        {
            "id": "a100-compare",
            "question": "Compare the price of 4x A100 PCIe and 4x A100 SXM4.",
            "language": "en",
            "expect": {"prices": ["4x-a100-pcie", "4x-a100-sxm4"]},
        },
        {
            "id": "nvlink-70b",
            "question": "Do I need NVLink for Llama 3.3 70B on 4x A100 with real traffic?",
            "language": "en",
            "expect": {"verdict": "sxm"},
        },
        {
            "id": "l4-price",
            "question": "What is the price of a single L4?",
            "language": "en",
            "expect": {"prices": ["1x-l4"]},
        },
    ],
}


def _run(tmp: Path, name: str, **settings: Any) -> dict[str, Any]:
    ds = Dataset.model_validate(CASES)
    report = run_eval([ds], Settings(data_dir=tmp / f"d-{name}", **settings), RunOptions())
    (tmp / f"{name}.json").write_text(json.dumps(report, default=str), encoding="utf-8")
    return report


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("diff")
    cat = changed_catalog(tmp / "catalog")
    guides = tmp / "guides"
    shutil.copytree(ROOT / "knowledge" / "guides", guides)
    page = guides / "en" / "nvlink-vs-pcie.txt"
    text = page.read_text(encoding="utf-8")
    assert "| $4,157/month | $4,395/month |" in text
    page.write_text(text.replace("$4,395/month |", "$3,999/month |"), encoding="utf-8")
    return {
        "tmp": tmp,
        "shipped": _run(tmp, "shipped"),
        "price": _run(tmp, "price", catalog=cat),
        "guide": _run(tmp, "guide", catalog=cat, guides_dir=guides),
    }


def test_a_price_change_reads_as_the_new_price_not_a_regression(runs: dict[str, Any]) -> None:
    d = diff_reports(runs["shipped"], runs["price"])
    assert runs["price"]["pass_rate"] == 1.0
    assert d["counts"]["new_price"] == 3 and d["counts"]["worse"] == 0
    assert d["summary_line"].startswith("3 answer(s) changed: 3 answers now quote the new price")
    assert "0 got worse" in d["summary_line"]
    sxm = next(c for c in d["cases"] if c["id"] == "sxm4-price")
    (p,) = sxm["turns"][0]["changes"]["prices"]
    assert p == {
        "configuration": "4x-a100-sxm4",
        "before": "4395",
        "after": "3999",
        "follows_catalog": True,
    }
    assert "l4-price" not in {c["id"] for c in d["cases"]}  # unchanged answers are not listed


def test_one_guide_edit_shows_answer_level_differences(runs: dict[str, Any]) -> None:
    d = diff_reports(runs["price"], runs["guide"])
    ids = {c["id"] for c in d["cases"]}
    assert "sxm4-price" in ids and d["counts"]["worse"] == 0
    turn = next(c for c in d["cases"] if c["id"] == "sxm4-price")["turns"][0]
    assert "The guide shows $4,395" in turn["before"] and "The guide shows" not in turn["after"]
    removed = "".join(t for op, t in word_diff(turn["before"], turn["after"]) if op == "delete")
    assert "$4,395" in removed
    html = to_html({**runs["guide"], "compare": {"answers": d, **_empty_compare()}})
    assert "What changes for visitors" in html and "<del>" in html
    assert d["summary_line"] in html.replace("&#x27;", "'")


def _empty_compare() -> dict[str, Any]:
    return {"fixed": [], "broken": [], "new": [], "removed": [], "metrics": {}, "better": [],
            "worse": [], "baseline_created": "x"}  # fmt: skip


def test_a_wrong_change_is_worse(runs: dict[str, Any]) -> None:
    broken = json.loads(json.dumps(runs["price"]))
    case = next(c for c in broken["cases"] if c["id"] == "l4-price")
    case["passed"], case["status"], case["failures"] = False, "fail", ["turn 1: [price] …"]
    case["turns"][0]["prices"] = case["turns"][0]["facts"]["prices"] = {"1x-l4": "999"}
    case["turns"][0]["answer"] = case["turns"][0]["answer"].replace("$290", "$999")
    d = diff_reports(runs["price"], broken)
    l4 = next(c for c in d["cases"] if c["id"] == "l4-price")
    assert l4["kinds"][:2] == ["worse", "price"] and d["cases"][0]["id"] == "l4-price"
    assert l4["turns"][0]["changes"]["prices"][0]["follows_catalog"] is False
    assert "1 got worse" in d["summary_line"]


def test_cli_diff_and_compare(runs: dict[str, Any], tmp_path: Path) -> None:
    tmp = runs["tmp"]
    out = subprocess.run(
        [SIZING, "eval", "diff", str(tmp / "shipped.json"), str(tmp / "price.json"),
         "--report", str(tmp_path / "d")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "3 answers now quote the new price" in out.stdout and "0 got worse" in out.stdout
    assert "sxm4-price" in out.stdout and "$4,395 → $3,999" in out.stdout
    page = (tmp_path / "d" / "diff.html").read_text(encoding="utf-8")
    assert "<ins>" in page and "sxm4-price" in page and "<script" not in page
    data = json.loads((tmp_path / "d" / "diff.json").read_text(encoding="utf-8"))
    assert data["counts"]["new_price"] == 3
    js = subprocess.run(
        [SIZING, "eval", "diff", str(tmp / "shipped.json"), str(tmp / "price.json"), "--json"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert json.loads(js.stdout)["counts"]["worse"] == 0
    bad = subprocess.run(
        [SIZING, "eval", "diff", str(tmp / "shipped.json")], capture_output=True, text=True
    )
    assert bad.returncode == 2
    ds = tmp_path / "ds.yaml"
    ds.write_text(yaml.safe_dump(CASES), encoding="utf-8")
    cmp = subprocess.run(
        [SIZING, "eval", str(ds), "--compare", str(tmp / "price.json"), "--report",
         str(tmp_path / "r")],
        capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert cmp.returncode == 0, cmp.stderr
    assert "answer(s) changed" in cmp.stdout  # the shipped catalog vs the changed one
    assert "What changes for visitors" in (tmp_path / "r" / "report.html").read_text("utf-8")
