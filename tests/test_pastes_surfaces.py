"""Pastes on the CLI and `/api/chat` (issue 26 "Done when"): a 2,500-character `nvidia-smi topo -m`
and a 5,000-character `all_reduce_perf` run are answered, judged by their tools, in the language
of the prose around them (a German question with an English paste is answered in German). The
widget's test is tests/test_widget_pastes_browser.py; Slack's tests/test_slack_staff.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

pytest.register_assert_rewrite("tests.server")

from api.sse import parse_sse  # noqa: E402
from cli import app  # noqa: E402
from tests.pastes import allreduce_perf_8x_h100, topo_8x_h100  # noqa: E402
from tests.server import LiveServer  # noqa: E402

pytest_plugins = ["tests.server"]

TOPO_DE = "Unser Kunde hat 8x H100 SXM5 gemietet. Ist die Topologie in Ordnung?"
NCCL_DE = "Ist das normal für unseren 8x H100 SXM5 Server?"
NCCL_EN = "Is this normal for our 8x H100 SXM5 server?"


def topo_message() -> str:
    paste = topo_8x_h100()  # GPU2-GPU5 shows NV12 where the board has NV18
    assert len(paste) >= 2500
    return f"{TOPO_DE}\n```\n{paste}\n```"


def nccl_message(prose: str = NCCL_DE) -> str:
    paste = allreduce_perf_8x_h100(peak_busbw=360.0)
    assert len(paste) >= 5000
    return f"{prose}\n{paste}"


def call_of(answer: dict[str, Any], name: str) -> dict[str, Any]:
    calls = [c for c in answer["tool_calls"] if c["name"] == name]
    assert len(calls) == 1, [c["name"] for c in answer["tool_calls"]]
    return dict(calls[0])


def assert_topology_answer(answer: dict[str, Any]) -> None:
    assert answer["language"] == "de"
    result = call_of(answer, "check_topology_output")["result"]
    assert result["status"] == "defect"
    bad = [(p["a"], p["b"], p["label"]) for p in result["pairs"] if p["status"] != "ok"]
    assert bad == [("GPU2", "GPU5", "NV12")]
    assert "GPU2" in answer["summary"] and "GPU5" in answer["summary"]
    assert "zu lang" not in answer["answer"]


def assert_allreduce_answer(answer: dict[str, Any], language: str) -> None:
    assert answer["language"] == language
    result = call_of(answer, "check_allreduce_output")["result"]
    assert result["status"] == "ok" and round(result["peak_busbw_gb_s"]) == 360
    shown = f"{result['peak_busbw_gb_s']:.1f}"  # the figure as pasted, one decimal
    assert f"{shown.replace('.', ',') if language == 'de' else shown} GB/s" in answer["summary"]
    assert answer["summary"].startswith("**Ja**" if language == "de" else "**Yes**")


# --------------------------------------------------------------------------------- /api/chat
@pytest.mark.server
def test_api_chat_answers_a_topo_and_an_all_reduce_paste(live_api: LiveServer) -> None:
    def chat(message: str) -> dict[str, Any]:
        r = httpx.post(
            live_api.url + "/api/chat",
            json={"message": message},
            params={"include": "tool_calls"},
            timeout=60,
        )
        assert r.status_code == 200, r.text
        return dict(r.json())

    assert_topology_answer(chat(topo_message()))
    assert_allreduce_answer(chat(nccl_message()), "de")
    assert_allreduce_answer(chat(nccl_message(NCCL_EN)), "en")


@pytest.mark.server
def test_api_chat_streams_the_answer_to_a_paste(live_api: LiveServer) -> None:
    r = httpx.post(
        live_api.url + "/api/chat",
        json={"message": nccl_message()},
        headers={"Accept": "text/event-stream"},
        timeout=60,
    )
    assert r.status_code == 200, r.text
    done = [e["data"]["answer"] for e in parse_sse(r.text) if e["event"] == "done"]
    assert len(done) == 1 and done[0]["language"] == "de"
    assert "359,7 GB/s" in done[0]["summary"] and done[0]["summary"].startswith("**Ja**")


@pytest.mark.server
def test_api_chat_takes_a_20000_character_paste_and_refuses_more(live_api: LiveServer) -> None:
    """The body limit holds the question and pasted-material limits (issue 26): a paste just
    within 20,000 characters is no 413; one over it is a 422 that names the paste's limit."""
    lines = topo_8x_h100().splitlines()
    paste = "\n".join(lines)
    while len(paste) + 2000 < 20_000:  # more NIC lines, as a node with many NICs shows
        paste += "\n" + lines[9]
    assert 18_000 < len(paste) <= 20_000
    ok = httpx.post(
        live_api.url + "/api/chat",
        json={"message": f"{TOPO_DE}\n```\n{paste}\n```"},
        timeout=60,
    )
    assert ok.status_code == 200, ok.text
    over = httpx.post(
        live_api.url + "/api/chat",
        json={"message": f"{TOPO_DE}\n```\n{paste}\n{paste[:3000]}\n```"},
        timeout=60,
    )
    assert over.status_code == 422, over.text
    assert "pasted material" in over.json()["error"]["message"]


# ------------------------------------------------------------------------------------- CLI
@pytest.fixture
def cli(tmp_path: Path) -> tuple[CliRunner, dict[str, str]]:
    return CliRunner(), {"SIZING_DATA_DIR": str(tmp_path)}


def test_cli_answers_a_topo_paste_in_the_question(cli: tuple[CliRunner, dict[str, str]]) -> None:
    runner, env = cli
    res = runner.invoke(app, ["ask", "--json", topo_message()], env=env)
    assert res.exit_code == 0, res.output
    assert_topology_answer(json.loads(res.output))


def test_cli_answers_an_all_reduce_paste_from_stdin_and_from_a_file(
    cli: tuple[CliRunner, dict[str, str]], tmp_path: Path
) -> None:
    runner, env = cli
    paste = allreduce_perf_8x_h100(peak_busbw=360.0)
    res = runner.invoke(app, ["ask", "--json", NCCL_DE, "--paste", "-"], input=paste, env=env)
    assert res.exit_code == 0, res.output
    assert_allreduce_answer(json.loads(res.output), "de")
    out = tmp_path / "nccl.txt"
    out.write_text(paste, encoding="utf-8")
    res = runner.invoke(app, ["ask", "--json", NCCL_EN, "--paste", str(out)], env=env)
    assert res.exit_code == 0, res.output
    assert_allreduce_answer(json.loads(res.output), "en")
    # the summary first, in the rich output too
    res = runner.invoke(app, ["ask", NCCL_DE, "--paste", str(out)], env=env)
    assert res.exit_code == 0, res.output
    first = " ".join(res.output.strip().split("\n\n")[0].split())  # wrapped by the console
    assert first.startswith("Ja.") and "359,7 GB/s" in first
    missing = runner.invoke(app, ["ask", NCCL_DE, "--paste", str(tmp_path / "nope.txt")], env=env)
    assert missing.exit_code == 2 and "--paste" in missing.output
