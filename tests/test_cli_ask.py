"""`sizing ask`: the answer as Markdown or JSON, sessions, clear errors with exit code 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli import app

ROOT = Path(__file__).resolve().parent.parent
DONE_WHEN = "Brauche ich NVLink für Llama 3.3 70B in BF16 auf vier Karten für echten Traffic?"


@pytest.fixture
def runner(tmp_path: Path) -> tuple[CliRunner, dict[str, str]]:
    return CliRunner(), {"SIZING_DATA_DIR": str(tmp_path)}


def test_json_answer(runner: tuple[CliRunner, dict[str, str]]) -> None:
    cli, env = runner
    res = cli.invoke(app, ["ask", "--json", "What will 4 x A100 SXM4 cost?"], env=env)
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    for key in (
        "question",
        "language",
        "answer",
        "mode",
        "citations",
        "prices",
        "tool_calls",
        "follow_ups",
        "session_id",
    ):
        assert key in data
    assert data["language"] == "en" and data["mode"] == "offline"
    assert data["prices"] == [
        {
            "configuration": "4x-a100-sxm4",
            "label": "4 × NVIDIA A100 SXM4",
            "usd_per_month": 4395,
            "url": "https://gpuserver.io/en/gpu/a100-sxm4",
            "placeholder": False,
        }
    ]
    assert {"n", "guide", "title", "section", "url", "quote"} <= set(data["citations"][0])
    assert {"name", "arguments", "result"} <= set(data["tool_calls"][0])


def test_session_continues(runner: tuple[CliRunner, dict[str, str]]) -> None:
    cli, env = runner
    first = json.loads(cli.invoke(app, ["ask", "--json", DONE_WHEN], env=env).output)
    res = cli.invoke(
        app, ["ask", "--json", "--session", first["session_id"], "und in FP8?"], env=env
    )
    assert res.exit_code == 0, res.output
    second = json.loads(res.output)
    assert second["session_id"] == first["session_id"]
    fit = next(t for t in second["tool_calls"] if t["name"] == "fit_check")
    assert fit["arguments"]["model"] == "llama-3.3-70b" and fit["arguments"]["precision"] == "fp8"


def test_lang_option(runner: tuple[CliRunner, dict[str, str]]) -> None:
    cli, env = runner
    res = cli.invoke(
        app, ["ask", "--json", "--lang", "de", "What will 4 x A100 SXM4 cost?"], env=env
    )
    assert json.loads(res.output)["language"] == "de"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ask", ""], "empty"),
        (["ask", "x" * 2001], "too long"),
        (["ask", "--lang", "fr", "hi"], "--lang"),
        (["ask", "--session", "no spaces", "hi"], "session id"),
    ],
)
def test_errors_exit_2(
    runner: tuple[CliRunner, dict[str, str]], args: list[str], message: str
) -> None:
    cli, env = runner
    res = cli.invoke(app, args, env=env)
    assert res.exit_code == 2
    assert message in res.output
    assert "Traceback" not in res.output
    res = cli.invoke(app, [*args[:1], "--json", *args[1:]], env=env)
    assert res.exit_code == 2 and message in json.loads(res.output)["error"]


def test_broken_catalog_is_a_clear_error(
    runner: tuple[CliRunner, dict[str, str]], tmp_path: Path
) -> None:
    cli, env = runner
    res = cli.invoke(app, ["ask", "hi"], env={**env, "SIZING_CATALOG": str(tmp_path / "none")})
    assert res.exit_code == 2 and "catalog" in res.output and "Traceback" not in res.output


def test_done_when_in_a_real_process(tmp_path: Path) -> None:
    """The issue's done-when check through the real console entry point, Markdown output."""
    env = {
        **os.environ,
        "SIZING_DATA_DIR": str(tmp_path),
        "PYTHONPATH": str(ROOT),
        "COLUMNS": "200",
    }
    proc = subprocess.run(
        [sys.executable, "-c", "from cli import main; main()", "ask", DONE_WHEN],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "muss aufgeteilt werden" in out
    assert "SXM" in out and "NVLink" in out
    assert "$4,395/Monat" in out and "$4,157/Monat" in out
    assert "Was Sie mieten sollten" in out  # the cited guide section
    assert "https://gpuserver.io/de/guides/nvlink-vs-pcie/#what-to-buy" in out
    assert "sizing ask --session" in out


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _ask_in_process(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "SIZING_DATA_DIR": str(tmp_path),
        "PYTHONPATH": str(ROOT),
        "COLUMNS": "200",
        "OPENAI_API_KEY": "test-key",
        "OPENAI_BASE_URL": f"http://127.0.0.1:{_closed_port()}/v1",  # nobody listens
        "SIZING_LLM_MAX_RETRIES": "0",
    }
    return subprocess.run(
        [sys.executable, "-c", "from cli import main; main()", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_unreachable_llm_is_one_warning_line(tmp_path: Path) -> None:
    proc = _ask_in_process(tmp_path, "ask", "Do I need NVLink?")
    assert proc.returncode == 0, proc.stderr
    assert "offline answer" in proc.stdout  # the answer's notice
    lines = proc.stderr.strip().splitlines()
    assert "warning: LLM unreachable, answered offline (-v for details)" in lines, proc.stderr
    assert all(line.startswith(("warning: ", "error: ")) for line in lines), proc.stderr
    assert "Traceback" not in proc.stderr and "Connection" not in proc.stderr


@pytest.mark.parametrize(
    "args", [["ask", "-v", "Do I need NVLink?"], ["-v", "ask", "Do I need NVLink?"]]
)
def test_verbose_shows_the_details(tmp_path: Path, args: list[str]) -> None:
    proc = _ask_in_process(tmp_path, *args)
    assert proc.returncode == 0, proc.stderr
    assert "warning assistant.llm: LLM unavailable, answering offline:" in proc.stderr
    assert "Connection" in proc.stderr and "Traceback" not in proc.stderr


# --------------------------------------------------------------------------- --set (issue 23)

SERVE_EN = "Which server for Llama 3.3 70B in BF16 for 60 users?"


def _fit(answer: dict[str, object]) -> dict[str, object]:
    calls = answer["tool_calls"]
    assert isinstance(calls, list)
    # the call that sized the job: the fit, or the pick ("which server?" with a load)
    return next(t["arguments"] for t in calls if t["name"] in ("fit_check", "cheapest_fit"))


def test_parse_sets_reads_numbers_and_lists() -> None:
    from cli.ask_cmds import parse_sets

    assert parse_sets(
        [
            "users=60",
            "budget_usd_per_month=$6,000",
            "params_b=34.5",
            "precision=FP8",
            "model=Llama 3.3 70B",
            "configurations=4x-h200, 8x-h100",
            "cards=h200",
            "context_tokens=",
        ]
    ) == {
        "users": 60,
        "budget_usd_per_month": 6000,
        "params_b": 34.5,
        "precision": "FP8",
        "model": "Llama 3.3 70B",
        "configurations": ["4x-h200", "8x-h100"],
        "cards": ["h200"],
        "context_tokens": None,
    }
    with pytest.raises(ValueError, match="FIELD=VALUE"):
        parse_sets(["precision"])


def test_json_has_the_reading_and_set_changes_it(
    runner: tuple[CliRunner, dict[str, str]],
) -> None:
    cli, env = runner
    plain = json.loads(cli.invoke(app, ["ask", "--json", SERVE_EN], env=env).output)
    assert plain["reading"]["precision"] == "bf16" and plain["reading"]["users"] == 60
    assert plain["understood"].startswith("Sized for: Llama 3.3 70B · BF16")
    res = cli.invoke(
        app, ["ask", "--json", "--set", "precision=fp8", "--set", "users=20", SERVE_EN], env=env
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["question"] == SERVE_EN
    assert data["reading"]["precision"] == "fp8" and data["reading"]["users"] == 20
    assert data["reading"]["model"] == "llama-3.3-70b"
    assert _fit(data)["precision"] == "fp8"


def test_set_with_a_session_reanswers_its_last_question(
    runner: tuple[CliRunner, dict[str, str]],
) -> None:
    cli, env = runner
    first = json.loads(cli.invoke(app, ["ask", "--json", SERVE_EN], env=env).output)
    sid = first["session_id"]
    res = cli.invoke(app, ["ask", "--json", "--session", sid, "--set", "precision=fp8"], env=env)
    assert res.exit_code == 0, res.output
    again = json.loads(res.output)
    assert again["session_id"] == sid and again["question"] == SERVE_EN
    assert again["message_id"] != first["message_id"]
    assert again["reading"]["precision"] == "fp8" and again["reading"]["reader"] == "user"
    assert _fit(again)["precision"] == "fp8"
    prices = {p["configuration"]: p["usd_per_month"] for p in again["prices"]}
    assert prices != {p["configuration"]: p["usd_per_month"] for p in first["prices"]}

    # Markdown output: the summary first, then the understood line, then the answer as its
    # details, and how to adjust it
    res = cli.invoke(
        app,
        ["ask", "--json", "--session", sid, "--set", "configurations=4x-h200"],
        env=env,
    )
    summary = json.loads(res.output)["summary"]
    assert summary and "4 × NVIDIA H200" in summary
    res = cli.invoke(
        app,
        ["ask", "--session", sid, "--set", "configurations=4x-h200"],
        env={**env, "COLUMNS": "400"},
    )
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0] == summary.replace("**", "")
    assert lines[1].startswith("Sized for: Llama 3.3 70B · FP8") and "4 × NVIDIA H200" in lines[1]
    assert lines.index("Details") > 1
    assert f"sizing ask --session {sid} --set FIELD=VALUE" in res.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ask", "--set", "precision=fp8"], "--session ID with --set"),
        (["ask", "--session", "abc123"], "--session ID with --set"),
        (["ask", "--set", "precision", "hi"], "FIELD=VALUE"),
        (["ask", "--set", "precision=fp3", "Does Llama 3.3 70B fit?"], "reading.precision"),
        (["ask", "--set", "text=hi", "Does Llama 3.3 70B fit?"], "cannot change text"),
        (["ask", "--session", "never-issued-123", "--set", "users=5"], "no session"),
    ],
)
def test_set_errors_exit_2(
    runner: tuple[CliRunner, dict[str, str]], args: list[str], message: str
) -> None:
    cli, env = runner
    res = cli.invoke(app, ["ask", "--json", *args[1:]], env=env)
    assert res.exit_code == 2, res.output
    assert message in json.loads(res.output)["error"]


def test_choices_are_printed_with_the_command_that_picks_them(
    runner: tuple[CliRunner, dict[str, str]],
) -> None:
    cli, env = runner
    res = cli.invoke(
        app, ["ask", "We want a chatbot for our 50 employees, what do we need?"], env=env
    )
    assert res.exit_code == 0, res.output
    assert "Or choose" in res.output
    command = next(line for line in res.output.splitlines() if "--set model=" in line)
    sid = command.split("--session ")[1].split()[0]
    sets = [part for part in command.split("--set ")[1:]]
    args = ["ask", "--json", "--session", sid]
    for part in sets:
        args += ["--set", part.split()[0]]
    picked = json.loads(cli.invoke(app, args, env=env).output)
    assert picked["reading"]["model"] == sets[0].split()[0].split("=")[1]
    assert picked["reading"]["users"] == 50


def test_unknown_session_is_reported(runner: tuple[CliRunner, dict[str, str]]) -> None:
    """Issue 26: a mistyped or expired --session is said, not silently replaced by a new one."""
    cli, env = runner
    res = cli.invoke(app, ["ask", "--session", "doesnotexist", "and in FP8?"], env=env)
    assert res.exit_code == 2
    assert "no session 'doesnotexist'" in " ".join(res.output.split())
    as_json = cli.invoke(app, ["ask", "--json", "-s", "doesnotexist", "and in FP8?"], env=env)
    assert as_json.exit_code == 2 and "no session" in json.loads(as_json.output)["error"]


def test_offer_for_a_customer_request(runner: tuple[CliRunner, dict[str, str]]) -> None:
    """Issue 26: `--offer` answers a customer's requirements with recommended / cheaper / safer
    configurations priced from the catalog and a text to forward."""
    cli, env = runner
    question = "Kunde möchte Llama 3.3 70B für 100 Nutzer, Budget 9000 Euro im Monat"
    res = cli.invoke(app, ["ask", "--json", "--offer", question], env=env)
    assert res.exit_code == 0, res.output
    offer = json.loads(res.output)["offer"]
    rec, cheaper, safer = offer["recommended"], offer["cheaper"], offer["safer"]
    assert rec["link"] == "nvlink" and rec["cards_needed"] > 1  # split, real traffic: buy SXM
    assert float(cheaper["usd_per_month"]) < float(rec["usd_per_month"])
    assert float(rec["usd_per_month"]) <= float(safer["usd_per_month"]) <= 9000
    assert "PCIe" in cheaper["trade_off"]
    assert any("1:1" in a and "€9.000" in a for a in offer["assumptions"])  # euro budget said
    text = offer["text"]
    assert text.startswith("Guten Tag,") and rec["label"] in text and "9.000" not in text
    names = {c["name"] for c in offer["tool_calls"]}
    assert names == {"fit_check", "throughput_estimate"}
    printed = cli.invoke(app, ["ask", "--offer", question], env=env)
    assert "Angebot" in printed.output and "Zum Weiterleiten" in printed.output
    plain = cli.invoke(app, ["ask", "--json", "What will 4 x A100 SXM4 cost?", "--offer"], env=env)
    assert json.loads(plain.output)["offer"] is None  # nothing sized: no offer
