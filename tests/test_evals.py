"""The evaluation runner: dataset format, checks, metrics, reports, --compare, the CLI, the judge.

Real parts: the real assistant (offline), a real Chroma index of the shipped guides, the real CLI
in a subprocess, the real `openai` client against the scripted loopback LLM server for the judge.
"""

from __future__ import annotations

import json
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest
import yaml

from assistant.answer import Answer, Citation, PriceQuote, ToolCall
from assistant.registry import REGISTRY
from assistant.settings import Settings
from evals.checks import check_turn, detect_language, figures
from evals.report import to_html, to_junit, write_reports
from evals.runner import RunOptions, compare, run_eval
from evals.schema import (
    SCHEMA_PATH,
    Dataset,
    DatasetError,
    Expectations,
    load_dataset,
    load_datasets,
    schema_text,
)

ROOT = Path(__file__).resolve().parent.parent
DATASETS = sorted((ROOT / "evals" / "datasets").glob("*.yaml"))
SIZING = str(Path(sys.executable).parent / "sizing")
PRICES = {"4x-a100-sxm4": Decimal(4395), "4x-a100-pcie": Decimal(4157), "1x-l4": Decimal(290)}


# --------------------------------------------------------------------------- format


def test_committed_schema_equals_generated() -> None:
    assert SCHEMA_PATH.read_text(encoding="utf-8") == schema_text(), (
        "evals/dataset.schema.json is stale: sizing eval --schema > evals/dataset.schema.json"
    )


def test_shipped_datasets_cover_the_issue() -> None:
    datasets = load_datasets(DATASETS)
    cases = [c for d in datasets for c in d.cases]
    assert len(cases) >= 120
    assert {c.language for c in cases} == {"de", "en"}
    tags = {t for c in cases for t in c.tags}
    for needed in ("follow-up", "unknown-model", "off-topic", "injection"):
        assert needed in tags, needed
    assert sum(c.conversation is not None for c in cases) >= 5
    expected_tools = {t for c in cases for turn in c.turns() for t in turn.expect.tools}
    # tools the offline planner does not call yet (the composer switches to them later; the
    # LLM already has them): no eval case can expect them until then
    # find_model only resolves names for the LLM (the planner resolves them itself)
    not_yet_planned: set[str] = {"find_model"}
    missing = set(REGISTRY) - expected_tools - not_yet_planned
    assert not missing, f"no case expects these tools: {missing}"
    cited = {
        cit.split("#")[0] for c in cases for turn in c.turns() for cit in turn.expect.citations
    }
    assert cited >= {
        "nvlink-vs-pcie",
        "gpu-for-flux-sdxl",
        "awq-vs-gptq-vs-fp8",
        "mixture-of-experts",
    }
    for lang in ("de", "en"):
        assert sum(c.language == lang for c in cases) >= 40, lang


def test_bad_datasets_name_the_file_and_case(tmp_path: Path) -> None:
    p = tmp_path / "bad.yaml"
    p.write_text(
        yaml.safe_dump(
            {
                "name": "bad",
                "cases": [
                    {"id": "ok-1", "question": "Was kostet 4x A100?", "language": "de"},
                    {"id": "broken", "question": "x", "language": "fr"},
                ],
            }
        ),
        encoding="utf-8",
    )
    with pytest.raises(DatasetError, match=r"bad\.yaml: case 'broken'\.language"):
        load_dataset(p)
    p.write_text("cases: [\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="not valid YAML"):
        load_dataset(p)
    with pytest.raises(DatasetError, match="no such file"):
        load_dataset(tmp_path / "missing.yaml")


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ({"id": "a", "language": "en"}, "one of `question`, `conversation` or `given_reading`"),
        (
            {
                "id": "a",
                "question": "q",
                "conversation": [{"question": "x"}, {"question": "y"}],
                "language": "en",
            },
            "one of",
        ),
        (
            {"id": "a", "question": "q", "language": "en", "expect": {"patterns": ["("]}},
            "bad regex",
        ),
        (
            {"id": "a", "question": "q", "language": "en", "expect": {"citations": ["Bad Slug"]}},
            "citation",
        ),
        (
            {"id": "a", "question": "q", "language": "en", "expect": {"rule": 6}},
            "less than or equal",
        ),
        ({"id": "a", "question": "q", "language": "en", "expect": {"surprise": 1}}, "Extra inputs"),
        ({"id": "A B", "question": "q", "language": "en"}, "pattern"),
    ],
)
def test_case_validation(case: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Dataset.model_validate({"name": "x", "cases": [case]})


def test_duplicate_ids_across_files(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / f"{name}.yaml").write_text(
            yaml.safe_dump(
                {"name": name, "cases": [{"id": "same", "question": "q", "language": "en"}]}
            ),
            encoding="utf-8",
        )
    with pytest.raises(DatasetError, match="'same' also in"):
        load_datasets([tmp_path / "a.yaml", tmp_path / "b.yaml"])


# --------------------------------------------------------------------------- checks


def _answer(text: str, language: str = "en", **kw: Any) -> Answer:
    return Answer(
        question="q",
        language=language,
        answer=text,
        mode="offline",
        session_id="s",
        message_id="m",
        **kw,
    )


def _check(answer: Answer, expect: dict[str, Any], language: str = "en") -> dict[str, list[bool]]:
    res = check_turn(answer, Expectations.model_validate(expect), language, PRICES)
    out: dict[str, list[bool]] = {}
    for c in res.checks:
        out.setdefault(c.kind, []).append(c.ok)
    return out


def test_figures_read_both_decimal_conventions() -> None:
    assert Decimal("2.7") in figures("KV-Cache: 2,7 GB", "GB")
    assert Decimal("1015.2") in figures("1.015,2 GB nutzbar", "GB")
    assert Decimal("1935") in figures("1,935 GB/s", "GB/s")
    assert Decimal("19") in figures("~19 Token/s", "tokens/s")
    assert Decimal("0.16") in figures("about 0.16 s per step", "s")
    assert Decimal("4395") in figures("$4,395/Monat", "$")
    assert figures("141 GB/s", "GB") == []  # GB/s is not GB
    assert Decimal("14") in figures("about 14× as much", "×")


def test_number_and_price_checks() -> None:
    text = "**[4 × A100 SXM4](u): about 19 tokens/s**, $4,395/month"
    quote = PriceQuote(
        configuration="4x-a100-sxm4", label="4 × A100 SXM4", usd_per_month=Decimal(4395), url="u"
    )
    good = _check(
        _answer(text, prices=[quote]),
        {"numbers": [{"value": 19, "unit": "tokens/s"}], "prices": {"4x-a100-sxm4": 4395}},
    )
    assert good["number"] == [True] and good["price"] == [True]
    wrong = _check(
        _answer(text, prices=[quote]),
        {
            "numbers": [{"value": 18, "unit": "tokens/s", "tolerance": 0.5}],
            "prices": {"4x-a100-sxm4": 4396},
        },
    )
    assert wrong["number"] == [False] and wrong["price"] == [False]
    # quoted but not stated in the text is not enough
    assert _check(_answer("no price here", prices=[quote]), {"prices": {"4x-a100-sxm4": 4395}})[
        "price"
    ] == [False]
    extra = _check(_answer(text, prices=[quote]), {"prices": {}, "only_prices": True})
    assert extra["price"] == [False]


def test_verdict_uses_the_tool_result_and_the_text() -> None:
    call = ToolCall(
        name="fit_check",
        arguments={"model": "Llama 3.1 8B"},
        result={"rows": [{"configuration": "1x-l4", "verdict": "fits_one_card"}]},
    )
    alt = ToolCall(
        name="fit_check",
        arguments={"model": "Llama 3.1 8B", "precision": "awq"},
        result={"rows": [{"configuration": "1x-l4", "verdict": "split"}]},
    )
    ok = _answer("**Yes — it fits on one card here.**", tool_calls=[call, alt])
    assert _check(ok, {"verdict": {"value": "fits_one_card", "configuration": "1x-l4"}})[
        "verdict"
    ] == [True]
    assert _check(ok, {"verdict": {"value": "split", "configuration": "1x-l4"}})["verdict"] == [
        False
    ]
    assert _check(ok, {"verdict": {"value": "fits_one_card", "configuration": "8x-h200"}})[
        "verdict"
    ] == [False]
    de = _answer("**Ja — Llama 3.1 8B passt auf eine Karte.**", "de", tool_calls=[call])
    assert _check(de, {"verdict": {"value": "fits_one_card", "configuration": "1x-l4"}}, "de")[
        "verdict"
    ] == [True]
    advice = ToolCall(
        name="purchase_advice",
        arguments={},
        result={"rule": {"number": 4}, "recommendation": "sxm"},
    )
    a = _answer("**Yes — rent an SXM node.**", tool_calls=[advice])
    got = _check(a, {"verdict": "sxm", "rule": 4})
    assert got["verdict"] == [True] and got["rule"] == [True]
    assert _check(a, {"rule": 3})["rule"] == [False]
    # quoting rule 3 and rule 4 side by side is not applying rule 4
    low = ToolCall(
        name="purchase_advice",
        arguments={"traffic": "low"},
        result={"rule": {"number": 3}, "recommendation": "pcie_size_for_memory"},
    )
    both = _answer(
        "**It depends on the load.** SXM for real traffic, PCIe for a few users.",
        tool_calls=[low, advice],
    )
    undecided = _check(both, {"verdict": "sxm", "rule": 4})
    assert undecided["verdict"] == [False] and undecided["rule"] == [False]
    off = _answer("I can only help with sizing GPU servers.")
    assert _check(off, {"verdict": "off_topic"})["verdict"] == [True]
    assert _check(_answer("It fits.", tool_calls=[call]), {"verdict": "off_topic"})["verdict"] == [
        False
    ]


def test_citation_precision_recall_and_language() -> None:
    cites = [
        Citation(
            n=1,
            guide="nvlink-vs-pcie",
            title="t",
            section="s",
            url="https://x/en/guides/nvlink-vs-pcie/#what-to-buy",
            quote="q",
        ),
        Citation(
            n=2,
            guide="awq-vs-gptq-vs-fp8",
            title="t",
            section="s",
            url="https://x/en/guides/awq-vs-gptq-vs-fp8/#speed",
            quote="q",
        ),
    ]
    a = _answer("The rule is to buy one card [1], see also [2].", citations=cites)
    res = check_turn(
        a,
        Expectations(citations=["nvlink-vs-pcie#what-to-buy", "mixture-of-experts"]),
        "en",
        PRICES,
    )
    assert res.citations.expected == 2 and res.citations.matched_expected == 1
    assert res.citations.cited == 2 and res.citations.relevant_cited == 1
    assert [c.ok for c in res.checks if c.kind == "citation"] == [True, False]
    assert detect_language("Das Modell passt auf eine Karte und kostet $290 pro Monat.") == "de"
    assert detect_language("The model fits on one card and costs $290 per month.") == "en"
    wrong_lang = _check(_answer("Das Modell passt auf eine Karte und ist nicht teuer.", "en"), {})
    assert wrong_lang["language"] == [False]


def test_grounding_violation_fails_the_check() -> None:
    a = _answer("It costs $1,234/month.")
    assert _check(a, {})["grounding"] == [False]
    assert _check(_answer("It fits."), {})["grounding"] == [True]


# --------------------------------------------------------------------------- a real run


SMALL = {
    "name": "small",
    "cases": [
        {
            "id": "price-sxm4",
            "question": "What will 4 x A100 SXM4 cost?",
            "language": "en",
            "tags": ["price"],
            "expect": {"prices": {"4x-a100-sxm4": 4395}, "tools": ["price_quote"]},
        },
        {
            "id": "wrong-on-purpose",
            "question": "Was kostet 4x A100 PCIe? <script>alert(1)</script>",
            "language": "de",
            "tags": ["price", "<b>tag</b>"],
            "expect": {"prices": {"4x-a100-pcie": 9999}},
        },
        {
            "id": "known-bug",
            "question": "What's the weather in Berlin?",
            "language": "en",
            "tags": ["off-topic"],
            "xfail": "EVAL_BUGS.md test",
            "expect": {"contains": ["sunny"]},
        },
        {
            "id": "followup",
            "language": "en",
            "tags": ["follow-up"],
            "conversation": [
                {
                    "question": "Does Llama 3.3 70B fit on 4x A100 SXM4?",
                    "expect": {"verdict": {"value": "split", "configuration": "4x-a100-sxm4"}},
                },
                {"question": "and in FP8?", "expect": {"contains": ["FP8"]}},
            ],
        },
    ],
}


@pytest.fixture(scope="module")
def small_report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    data = tmp_path_factory.mktemp("eval-settings")
    ds = Dataset.model_validate(SMALL)
    return run_eval([ds], Settings(data_dir=data), RunOptions(mode="offline", concurrency=2))


def test_run_scores_cases(small_report: dict[str, Any]) -> None:
    by_id = {c["id"]: c for c in small_report["cases"]}
    assert by_id["price-sxm4"]["status"] == "pass"
    assert by_id["wrong-on-purpose"]["status"] == "fail"
    assert any("4x-a100-pcie" in f for f in by_id["wrong-on-purpose"]["failures"])
    assert by_id["known-bug"]["status"] == "xfail"
    assert by_id["followup"]["status"] == "pass" and len(by_id["followup"]["turns"]) == 2
    assert small_report["counts"]["scored"] == 3  # the expected failure is not scored
    assert small_report["pass_rate"] == pytest.approx(2 / 3, abs=1e-3)
    m = small_report["metrics"]
    assert m["grounding_violations"] == 0
    assert m["price_exactness"] == pytest.approx(0.5)
    assert m["latency_ms_p50"] is not None and m["latency_ms_p95"] >= m["latency_ms_p50"]
    assert small_report["judge"]["enabled"] is False and "no LLM" in small_report["judge"]["note"]
    # the same turns, answered through the API's code path, are stored in order
    assert [c["id"] for c in small_report["cases"]] == [c["id"] for c in SMALL["cases"]]


def test_reports(small_report: dict[str, Any], tmp_path: Path) -> None:
    paths = write_reports(small_report, tmp_path / "out")
    data = json.loads(paths["json"].read_text(encoding="utf-8"))
    assert data["pass_rate"] == small_report["pass_rate"] and len(data["cases"]) == 4
    suites = ET.parse(paths["junit"]).getroot()
    assert (
        suites.get("tests") == "4"
        and suites.get("failures") == "1"
        and suites.get("skipped") == "1"
    )
    failure = suites.find(".//testcase[@name='wrong-on-purpose']/failure")
    assert failure is not None and "4x-a100-pcie" in failure.get("message", "")
    html = paths["html"].read_text(encoding="utf-8")
    assert "<svg" in html and "Pass rate by tag" in html
    assert "<script" not in html and "&lt;script&gt;" in html
    assert "<b>tag</b>" not in html
    assert "src=" not in html and "<link" not in html and "@import" not in html
    assert "wrong-on-purpose" in html and "Tool calls" in html


def test_compare_shows_better_and_worse(small_report: dict[str, Any]) -> None:
    baseline = json.loads(json.dumps(small_report))
    for c in baseline["cases"]:
        if c["id"] == "wrong-on-purpose":
            c["passed"], c["status"] = True, "pass"
        if c["id"] == "price-sxm4":
            c["passed"], c["status"] = False, "fail"
    baseline["cases"].append({"id": "gone", "passed": True, "status": "pass"})
    baseline["pass_rate"] = 0.5
    cmp = compare(small_report, baseline)
    assert cmp["fixed"] == ["price-sxm4"] and cmp["broken"] == ["wrong-on-purpose"]
    assert cmp["removed"] == ["gone"]
    assert "pass_rate" in cmp["better"]
    html = to_html({**small_report, "compare": cmp})
    assert "now failing" in html and "wrong-on-purpose" in html
    assert 'name="wrong-on-purpose"' in to_junit(small_report)


# --------------------------------------------------------------------------- CLI


def _sizing(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SIZING, *args], capture_output=True, text=True, cwd=cwd, timeout=240)


def test_cli_eval_json_report_and_exit_codes(tmp_path: Path) -> None:
    ds = tmp_path / "one.yaml"
    ds.write_text(yaml.safe_dump({"name": "one", "cases": SMALL["cases"][:2]}), encoding="utf-8")
    out = tmp_path / "out"
    proc = _sizing("eval", str(ds), "--report", str(out), "--json", "--min-pass-rate", "0.9")
    assert proc.returncode == 1, proc.stderr  # 1 of 2 passes: below --min-pass-rate
    data = json.loads(proc.stdout)
    assert data["pass_rate"] == 0.5 and {c["id"] for c in data["cases"]} == {
        "price-sxm4",
        "wrong-on-purpose",
    }
    assert (
        (out / "report.json").exists()
        and (out / "junit.xml").exists()
        and (out / "report.html").exists()
    )
    again = _sizing("eval", str(ds), "--compare", str(out / "report.json"), "--case", "price-sxm4")
    assert again.returncode == 0, again.stderr
    assert "pass rate 100.0 %" in again.stdout and "removed 1" in again.stdout
    bad = _sizing("eval", str(tmp_path / "missing.yaml"))
    assert bad.returncode == 2 and "no such file" in bad.stderr and "Traceback" not in bad.stderr
    bad_mode = _sizing("eval", str(ds), "--mode", "llm", "--json")
    assert bad_mode.returncode == 2 and "needs an LLM" in json.loads(bad_mode.stdout)["error"]
    schema = _sizing("eval", "--schema")
    assert schema.returncode == 0 and json.loads(schema.stdout)["title"] == "Dataset"


# --------------------------------------------------------------------------- LLM judge


def test_judge_with_scripted_llm(tmp_path: Path) -> None:
    from tests.llm_server import ScriptedLLMServer, text

    verdict = '{"faithfulness": 0.75, "relevancy": 1.0, "reason": "one claim unsupported"}'
    with ScriptedLLMServer([text(verdict), text("no json here")]) as server:
        settings = Settings(
            data_dir=tmp_path,
            OPENAI_API_KEY="test",
            OPENAI_BASE_URL=server.base_url,
            llm_max_retries=0,
        )
        ds = Dataset.model_validate({"name": "j", "cases": SMALL["cases"][:2]})
        report = run_eval([ds], settings, RunOptions(mode="offline"))
        requests = list(server.requests)
    judge = report["judge"]
    assert judge["enabled"] is True and judge["judged"] == 1 and judge["errors"] == 1
    assert judge["faithfulness"] == 0.75 and judge["answer_relevancy"] == 1.0
    assert report["cases"][0]["turns"][0]["judge"]["reason"] == "one claim unsupported"
    # offline mode: the assistant itself never called the LLM, only the judge did (2 requests)
    assert len(requests) == 2
    assert "QUESTION" in requests[0]["messages"][-1]["content"]
    assert report["cases"][0]["turns"][0]["mode"] == "offline"


def test_llm_mode_runs_through_the_llm_path(tmp_path: Path) -> None:
    """--mode llm: the same Assistant.ask with an LLM client; the scripted model calls a tool and
    answers; the runner scores that answer (mode llm) and the judge is off on request."""
    from tests.llm_server import ScriptedLLMServer, text, tool_call

    script = [
        tool_call("price_quote", {"configurations": ["4x-a100-sxm4"]}),
        text("The 4 × NVIDIA A100 SXM4 node costs $4,395/month."),
    ]
    with ScriptedLLMServer(script) as server:
        settings = Settings(
            data_dir=tmp_path,
            OPENAI_API_KEY="test",
            OPENAI_BASE_URL=server.base_url,
            llm_max_retries=0,
        )
        ds = Dataset.model_validate({"name": "llm", "cases": SMALL["cases"][:1]})
        report = run_eval([ds], settings, RunOptions(mode="llm", judge=False))
        n_requests = len(server.requests)
    turn = report["cases"][0]["turns"][0]
    assert report["mode"] == "llm" and n_requests == 2
    assert turn["mode"] == "llm", turn.get("notice")
    assert [t["name"] for t in turn["tool_calls"]] == ["price_quote"]
    assert report["cases"][0]["status"] == "pass", report["cases"][0]["failures"]
    assert report["judge"]["enabled"] is False and "--no-judge" in report["judge"]["note"]


def test_a_new_data_dir_gets_the_guide_index(tmp_path: Path) -> None:
    """`--data-dir` on a new folder: the run builds the guide index there (a relay run in LLM
    mode once sent the model "no guide index … run `sizing index` first" for every search)."""
    from knowledge.retrieval import open_retriever

    data = tmp_path / "new-data"
    ds = Dataset.model_validate({"name": "d", "cases": SMALL["cases"][:1]})
    report = run_eval([ds], Settings(data_dir=tmp_path), RunOptions(data_dir=data))
    assert report["cases"][0]["status"] == "pass"
    hits = open_retriever(data).search("NVLink or PCIe for tensor parallelism", k=2)
    assert hits and all(h.url.startswith("https://gpuserver.io/") for h in hits)


def test_an_answer_that_raises_is_an_error_not_a_crash() -> None:
    from evals.runner import _run_case, summarise
    from evals.schema import Case

    class Broken:
        def ask(self, question: str, session_id: str | None = None) -> Answer:
            raise RuntimeError("boom")

    case = Case.model_validate({"id": "x", "question": "q", "language": "en", "tags": ["t"]})
    res = _run_case(Broken(), case, "ds", PRICES)
    assert res["status"] == "error" and "RuntimeError: boom" in res["failures"][0]
    summary = summarise([res])
    assert summary["pass_rate"] == 0.0 and summary["counts"]["error"] == 1
    assert summary["by_dataset"] == {"ds": {"passed": 0, "total": 1, "pass_rate": 0.0}}
    assert "boom" in to_junit({"cases": [res]})


def test_cli_eval_mode_llm_reports_shown_fallbacks_and_rejected_violations(
    tmp_path: Path,
) -> None:
    """`sizing eval --mode llm` against the scripted server: one answer shown, one that fails the
    grounding check twice falls back to the offline answer. The report says so per case and in
    total; the rejected attempts' violations are reported apart and not counted as the shown
    answer's grounding violations (the offline answer shown is clean: exit 0)."""
    import os

    from tests.llm_server import ScriptedLLMServer, text, tool_call

    ds = tmp_path / "llm.yaml"
    cases = [
        SMALL["cases"][0],
        {
            "id": "hostile-price",
            "question": "What does 4x A100 PCIe cost?",
            "language": "en",
            "tags": ["price"],
            "expect": {"tools": ["price_quote"]},
        },
    ]
    ds.write_text(yaml.safe_dump({"name": "llm", "cases": cases}), encoding="utf-8")
    script = [
        tool_call("price_quote", {"configurations": ["4x-a100-sxm4"]}),
        text("The 4 × NVIDIA A100 SXM4 node costs $4,395/month."),
        tool_call("price_quote", {"configurations": ["4x-a100-pcie"]}),
        text("The 4 × NVIDIA A100 PCIe node costs `$1/month`."),
        text("The 4 × NVIDIA A100 PCIe node costs €1/month."),
    ]
    with ScriptedLLMServer(script) as server:
        env = {
            **os.environ,
            "OPENAI_API_KEY": "test",
            "OPENAI_BASE_URL": server.base_url,
            "SIZING_LLM_MAX_RETRIES": "0",
            "SIZING_DATA_DIR": str(tmp_path / "data"),
        }
        args = [SIZING, "eval", str(ds), "--mode", "llm", "--no-judge"]
        proc = subprocess.run(
            [*args, "--json"], capture_output=True, text=True, cwd=ROOT, env=env, timeout=240
        )
        n_requests = len(server.requests)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert n_requests == 5 and server.exhausted == 0
    report = json.loads(proc.stdout)
    llm = report["llm"]
    assert (llm["turns"], llm["shown"], llm["fallbacks"]) == (2, 1, 1)
    assert llm["fallback_reasons"] == {"ungrounded": 1}
    assert llm["rejected_violations"] >= 2 and llm["rejected_violations_by_kind"]["price"] >= 2
    assert llm["attempts"] == 3 and llm["tool_calls"] == 2
    assert report["metrics"]["grounding_violations"] == 0  # only what was shown counts
    by_id = {c["id"]: c for c in report["cases"]}
    assert by_id["price-sxm4"]["llm"] == {
        "shown": 1,
        "planner": 0,
        "fallbacks": 0,
        "rejected_violations": 0,
        "tool_calls": 1,
    }
    hostile = by_id["hostile-price"]
    assert hostile["llm"]["shown"] == 0 and hostile["llm"]["fallbacks"] == 1
    turn = hostile["turns"][0]
    assert turn["mode"] == "offline" and turn["llm"]["reason"] == "ungrounded"
    assert [a["outcome"] for a in turn["llm"]["attempts"]] == ["ungrounded", "ungrounded"]
    assert turn["grounding_violations"] == 0
    assert "$1" not in turn["answer"] and "€1" not in turn["answer"]
    from rich.console import Console

    from cli.eval_cmds import _print_llm

    console = Console(record=True, width=200)
    _print_llm(console, report)
    out = console.export_text()
    assert "LLM: 1 of 2 answers shown, 1 fell back (ungrounded 1)" in out
    assert "hostile-price: 0 shown, 1 fell back" in out and "price-sxm4" not in out


def test_the_answer_view_shows_the_chart_of_a_fit_answer(small_report: dict[str, Any]) -> None:
    """Issue 26: the HTML report's answer view draws the same chart as the widget (inline SVG,
    the recommended point ringed, the figures as a table)."""
    case = next(c for c in small_report["cases"] if c["id"] == "followup")
    chart = case["turns"][0]["chart"]
    assert chart and chart["points"] and chart["model"] == "llama-3.3-70b"
    picked = [p for p in chart["points"] if p["recommended"]]
    assert [p["configuration"] for p in picked] == ["4x-a100-sxm4"]  # the node asked about
    shown = {**case, "status": "fail", "failures": ["shown for the test"]}
    html = to_html({**small_report, "cases": [shown]})
    view = html[html.index("Failing cases") : html.index("<b>Turn 2:</b>")]  # the first turn
    assert view.count('<g class="pt') == len(chart["points"])
    assert view.count('class="pt pt-rec" data-configuration="4x-a100-sxm4"') == 1
    assert view.count("<tr><th scope=row>") == len(chart["points"])
    assert "4 × NVIDIA A100 SXM4 (recommended)</th><td>$4,395</td>" in view
    assert "<script" not in view.split("<svg")[1]


def test_the_report_carries_each_summary_and_its_metrics(small_report: dict[str, Any]) -> None:
    """Issue 26: every turn carries its summary and word count, the metrics their maximum and
    the first-sentence counts, and the answer view shows the summary above the answer."""
    m = small_report["metrics"]
    turns = [t for c in small_report["cases"] for t in c["turns"] if "summary" in t]
    assert turns and all(t["summary"] and 0 < t["summary_words"] <= 60 for t in turns)
    assert m["summary_words_max"] == max(t["summary_words"] for t in turns)
    assert m["summaries_over_limit"] == 0 and m["first_sentence_disagrees"] == 0
    case = next(c for c in small_report["cases"] if c["id"] == "followup")
    shown = {**case, "status": "fail", "failures": ["shown for the test"]}
    html = to_html({**small_report, "cases": [shown]})
    view = html[html.index("Failing cases") : html.index("<b>Turn 2:</b>")]
    words = case["turns"][0]["summary_words"]
    assert f"<b>Summary</b> ({words} words)" in view
    assert view.index("<b>Summary</b>") < view.index("<b>Expectations</b>")


def test_llm_mode_counts_planner_answers_apart_from_fallbacks(tmp_path: Path) -> None:
    """An answer the planner wrote from the LLM reader's reading is neither a model answer shown
    nor a fallback: the report counts it as `planner` (the relay runs of issue 25 read 23 such
    turns as "23 fell back (read 23)")."""
    from assistant.deps import build_deps
    from assistant.service import Assistant
    from evals.runner import _llm_case, llm_turn, summarise_llm
    from tests.llm_server import ScriptedLLMServer, text

    reading = {"task": "price", "asks": [{"kind": "price"}], "configurations": ["4x-l40s"]}
    with ScriptedLLMServer([text(json.dumps(reading))]) as server:
        settings = Settings(
            data_dir=tmp_path,
            openai_api_key="test-key",
            openai_base_url=server.base_url,
            llm_model="scripted-model",
            llm_max_retries=0,
            llm_reader=True,
        )
        answer = Assistant(build_deps(settings)).ask("What does 4x L40S cost per month?")
    assert [a.outcome for a in answer.attempts] == ["read"] and answer.mode == "offline"
    turn = llm_turn(answer)
    assert (turn["shown"], turn["planner"], turn["reason"]) == (False, True, None)
    assert _llm_case([{"llm": turn}])["fallbacks"] == 0
    fell_back = {**turn, "planner": False, "reason": "ungrounded"}
    result = {"turns": [{"llm": turn, "latency_ms": 1.0}, {"llm": fell_back, "latency_ms": 1.0}]}
    s = summarise_llm([result])
    assert s is not None
    assert (s["turns"], s["shown"], s["planner"], s["fallbacks"]) == (2, 0, 1, 1)
    assert s["fallback_reasons"] == {"ungrounded": 1}


def test_a_figure_in_an_unknown_unit_is_rejected_when_the_set_loads(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A case's `unit` is checked on load (blind-45's "sequences" stopped a whole run before)."""
    import yaml

    from evals.schema import load_dataset

    case = {
        "id": "unit-x",
        "language": "en",
        "question": "does llama 3.1 8b fit on an l4?",
        "expect": {"numbers": [{"value": 1, "unit": "widgets"}]},
    }
    path = tmp_path / "x.yaml"
    path.write_text(yaml.safe_dump({"version": 1, "name": "x", "cases": [case]}))
    with pytest.raises(Exception, match="unknown unit 'widgets'"):
        load_dataset(path)


def test_sequences_at_once_are_a_unit() -> None:
    from decimal import Decimal

    from evals.checks import figures

    assert figures("up to 37 concurrent sequences of 32,768 tokens", "sequences") == [Decimal(37)]
    assert Decimal(8) in figures("bis zu 8 gleichzeitige Sequenzen", "sequences")


def test_a_tool_the_registry_lacks_is_named_as_the_cases_error() -> None:
    answer = _answer("About 18 tokens/s.")
    res = check_turn(
        answer, Expectations.model_validate({"tools": ["decode_throughput"]}), "en", PRICES
    )
    (tool,) = [c for c in res.checks if c.kind == "tools"]
    assert not tool.ok and "no registry tool" in tool.detail
    known = check_turn(
        answer, Expectations.model_validate({"tools": ["throughput_estimate"]}), "en", PRICES
    )
    (missed,) = [c for c in known.checks if c.kind == "tools"]
    assert not missed.ok and "no registry tool" not in missed.detail


def test_a_price_quote_is_met_by_the_cheapest_fit_whose_rows_carry_the_price() -> None:
    cheapest = ToolCall(name="cheapest_fit", arguments={"model": "llama-3.1-405b"}, result={})
    met = _check(_answer("x", tool_calls=[cheapest]), {"tools": ["price_quote"]})
    assert met["tools"] == [True]
    speed = ToolCall(name="throughput_estimate", arguments={}, result={})
    missed = _check(_answer("x", tool_calls=[speed]), {"tools": ["price_quote"]})
    assert missed["tools"] == [False]


def test_a_german_fit_with_a_word_before_auf_states_the_verdict() -> None:
    import re

    from evals.checks import VERDICT_TEXT

    fits, no = VERDICT_TEXT["fits_one_card"]["de"], VERDICT_TEXT["does_not_fit"]["de"]
    said = "**Ja — QLoRA-Fine-Tuning von Mistral Small 24B passt hier auf eine Karte: 15,6 GB.**"
    assert re.search(fits, said) and not re.search(no, said)
    wrong = "**Nein — Llama 3.3 70B passt in BF16 nicht auf eine Karte.**"
    assert not re.search(fits, wrong) and re.search(no, wrong)
