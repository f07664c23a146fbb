"""What a newcomer trips over in the `sizing` CLI (issue 16, item 7): ids are never cut at 80
columns, one configuration resolver where ambiguity is a question, `topo` exits 1 on a defect,
`search` prints no library chatter, English URLs in English output, flags that are flags."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

import cli  # noqa: F401  (registers every command)
from cli.app import app
from tests.test_cli_catalog import CATALOG, TOPO_H100


@pytest.fixture
def run() -> Any:
    runner = CliRunner()

    def invoke(*args: str, stdin: str | None = None, columns: int = 80) -> Any:
        env = {"SIZING_CATALOG": str(CATALOG), "COLUMNS": str(columns)}
        return runner.invoke(app, list(args), env=env, input=stdin)

    return invoke


def _ok_json(result: Any) -> Any:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


# ---------------------------------------------------------------- ids at 80 columns


@pytest.mark.parametrize(
    ("args", "ids_of"),
    [
        (["nodes"], lambda d: [r["id"] for r in d]),
        (["models"], lambda d: [m["id"] for m in d]),
        (["fit", "Llama 3.3 70B"], lambda d: [r["configuration"] for r in d["rows"]]),
        (
            ["price", "H100", "2x-rtx-a6000-gen4"],
            lambda d: [q["configuration"] for q in d["quotes"]],
        ),
    ],
)
def test_ids_are_never_cut_at_80_columns(run: Any, args: list[str], ids_of: Any) -> None:
    ids = ids_of(_ok_json(run(*args, "--json")))
    assert any(len(i) >= 16 for i in ids)  # long ones are in the set ('2x-rtx-a6000-gen4')
    table = run(*args, columns=80)
    assert table.exit_code == 0, table.output
    lines = table.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    for i in ids:
        assert re.search(rf"│ {re.escape(i)} +│", table.stdout), f"{i} cut or wrapped"


# ---------------------------------------------------------------- one resolver


@pytest.mark.parametrize(
    "args",
    [
        ["throughput", "Llama 3.1 8B", "4x-h100"],
        ["capacity", "Llama 3.1 8B", "4x H100"],
        ["advice", "Llama 3.1 8B", "--config", "4x-a100"],
        ["topo", "-", "--config", "4x-h100"],
    ],
)
def test_an_ambiguous_configuration_is_a_question(run: Any, args: list[str]) -> None:
    result = run(*args, stdin=TOPO_H100)
    assert result.exit_code == 2
    assert "fits 2 configurations" in result.stderr
    card = "h100" if "h100" in " ".join(args).lower() else "a100"
    variants = {"h100": ["4x-h100-pcie", "4x-h100-sxm5"], "a100": ["4x-a100-pcie", "4x-a100-sxm4"]}
    for cid in variants[card]:
        assert cid in result.stderr
    data = json.loads(run(*args, "--json", stdin=TOPO_H100).stdout)
    assert data["candidates"] == variants[card]


def test_a_named_variant_is_no_question(run: Any) -> None:
    data = _ok_json(run("throughput", "Llama 3.1 8B", "4x H100 SXM5", "--json"))
    assert data["configuration"] == "4x-h100-sxm5"
    assert _ok_json(run("price", "2x 4090", "--json"))["quotes"][0]["configuration"] == (
        "2x-rtx-4090"
    )


def test_price_lists_every_variant_of_a_name(run: Any) -> None:
    data = _ok_json(run("price", "4x-a100", "--json"))
    assert [q["configuration"] for q in data["quotes"]] == ["4x-a100-pcie", "4x-a100-sxm4"]
    assert data["comparison"]["spread_usd"] == 238
    h100 = [q["configuration"] for q in _ok_json(run("price", "H100", "--json"))["quotes"]]
    assert h100 and all("h100" in c for c in h100)
    assert {"4x-h100-pcie", "4x-h100-sxm5"} <= set(h100)


def test_price_urls_are_in_the_outputs_language(run: Any) -> None:
    result = run("price", "4x-a100", columns=120)
    assert result.exit_code == 0
    assert "https://gpuserver.io/en/gpu/a100-80gb" in result.stdout
    assert "gpuserver.io/de/" not in result.stdout


# ---------------------------------------------------------------- topo, search


def test_topo_exits_1_on_a_defect(run: Any) -> None:
    table = run("topo", "-", "--config", "4x-h100-sxm5", stdin=TOPO_H100)
    assert table.exit_code == 1 and "overall: defect" in table.stdout
    data = run("topo", "-", "--config", "4x-h100-sxm5", "--json", stdin=TOPO_H100)
    assert data.exit_code == 1 and json.loads(data.stdout)["status"] == "defect"
    assert run("topo", "-", stdin=TOPO_H100.replace("SYS", "NV6")).exit_code == 0


def test_a_library_debug_logger_prints_nothing_by_default(capsys: Any) -> None:
    """bm25s sets its logger to DEBUG when imported (after the CLI configured logging): its
    'Building index from tokens' must not reach a user's stderr without -vv."""
    from cli.logs import setup_logging

    chatty = logging.getLogger("some_library")
    try:
        setup_logging(0)
        chatty.setLevel(logging.DEBUG)
        chatty.debug("Building index from tokens")
        logging.getLogger("assistant").warning("LLM unreachable")
        err = capsys.readouterr().err
        assert "Building index" not in err and "warning: LLM unreachable" in err
        setup_logging(2)
        chatty.debug("Building index from tokens")
        assert "Building index" in capsys.readouterr().err
    finally:
        chatty.setLevel(logging.NOTSET)
        setup_logging(0)


# ---------------------------------------------------------------- flags and help


def _params() -> list[tuple[str, Any]]:
    """(command, parameter) for the global options and every command's (typer's own click)."""
    group: Any = typer.main.get_command(app)
    out: list[tuple[str, Any]] = [("sizing", p) for p in group.params]
    for name, command in group.commands.items():
        out += [(name, p) for p in command.params]
    return out


def test_flags_are_flags_and_v_means_verbose_everywhere() -> None:
    params = _params()
    jsons = [(c, p) for c, p in params if "--json" in p.opts]
    assert len(jsons) >= 15
    for command, p in jsons:
        assert p.is_flag, command
    for command, p in params:
        if "-v" in p.opts:
            assert p.count and "--verbose" in p.opts, command


@pytest.mark.parametrize("command", ["price", "search", "audit", "eval", "ask", "topo"])
def test_help_shows_no_value_after_a_flag(run: Any, command: str) -> None:
    text = run(command, "--help").stdout
    line = next(line for line in text.splitlines() if "--json" in line)
    assert "<bool>" not in line


def test_eval_judge_help_is_not_cut(run: Any) -> None:
    text = run("eval", "--help").stdout
    judge = text[text.index("--judge") : text.index("--data-dir")]
    assert "…" not in judge
    words = " ".join(w.strip("│ ") for w in judge.split())
    assert "faithfulness" in words and "relevancy" in words


def test_audit_lists_every_figure_with_all(tmp_path: Path) -> None:
    names = {o for c, p in _params() if c == "audit" for o in p.opts}
    assert {"--all", "-a"} <= names and "-v" not in names


@pytest.mark.parametrize(
    "args",
    [["fit", "flux.1-schnell"], ["memory", "flux.1-dev"], ["models"]],
)
def test_a_model_name_in_brackets_is_printed_not_read_as_markup(run: Any, args: list[str]) -> None:
    out = run(*args, columns=200).output
    assert "[schnell]" in out or "[dev]" in out
