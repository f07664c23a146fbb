"""The `sizing` catalog commands: tables, --json shapes, exit codes, errors without tracebacks."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import cli.catalog_cmds  # noqa: F401  (registers the commands)
from cli.app import app

ROOT = Path(__file__).resolve().parent.parent
CATALOG = ROOT / "knowledge" / "catalog"
TOPO_H100 = (  # a 4-GPU HGX H100 board: 18 links per card over 3 peers, NV6 per pair
    "\tGPU0\tGPU1\tGPU2\tGPU3\tCPU Affinity\tNUMA Affinity\n"
    "GPU0\t X \tNV6\tNV6\tNV6\t0-63\t0\n"
    "GPU1\tNV6\t X \tNV6\tNV6\t0-63\t0\n"
    "GPU2\tNV6\tNV6\t X \tSYS\t0-63\t0\n"
    "GPU3\tNV6\tNV6\tSYS\t X \t0-63\t0\n"
)


def _matrix(n: int, label: str, broken: tuple[int, int, str] | None = None) -> str:
    """`topo -m` for n cards, every pair `label`, one pair (a, b) showing another label."""
    rows = ["\t" + "\t".join(f"GPU{i}" for i in range(n)) + "\tCPU Affinity\tNUMA Affinity"]
    for i in range(n):
        cells = []
        for j in range(n):
            cell = " X " if i == j else label
            if broken and {i, j} == set(broken[:2]):
                cell = broken[2]
            cells.append(cell)
        rows.append(f"GPU{i}\t" + "\t".join(cells) + "\t0-63\t0")
    return "\n".join(rows) + "\n"


@pytest.fixture
def run() -> Any:
    runner = CliRunner()

    def invoke(*args: str, catalog: Path = CATALOG, stdin: str | None = None) -> Any:
        env = {"SIZING_CATALOG": str(catalog), "COLUMNS": "120"}
        return runner.invoke(app, list(args), env=env, input=stdin)

    return invoke


def _json(result: Any) -> Any:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_fit_table_lists_all_41(run: Any) -> None:
    result = run("fit", "Llama 3.3 70B")
    assert result.exit_code == 0, result.output
    for cid in ("1x-l4", "4x-a100-pcie", "4x-a100-sxm4", "8x-b200", "1x-l40s-gen4"):
        assert cid in result.stdout
    assert "$4,157" in result.stdout and "$4,395" in result.stdout
    assert "split x4" in result.stdout
    assert "327,680 B/token" in result.stdout
    assert "placeholder" in result.stdout


def test_fit_json(run: Any) -> None:
    data = _json(run("fit", "llama3.3:70b", "--precision", "bf16", "--json"))
    assert data["model_id"] == "llama-3.3-70b"
    assert len(data["rows"]) == 41
    rows = {r["configuration"]: r for r in data["rows"]}
    assert rows["4x-a100-pcie"]["verdict"] == "split"
    assert rows["4x-a100-pcie"]["cards_needed"] == 4
    assert rows["4x-a100-pcie"]["usd_per_month"] == 4157
    assert rows["4x-a100-sxm4"]["usd_per_month"] == 4395
    assert rows["1x-l4"]["verdict"] == "does_not_fit"
    assert sum(data["counts"].values()) == 41
    assert data["kv_bytes_per_token"] == 327680


def test_fit_options(run: Any) -> None:
    data = _json(
        run(
            "fit",
            "Llama 3.3 70B",
            "-p",
            "Q4_K_M",
            "-c",
            "32768",
            "-n",
            "4",
            "--json",
            "--sort",
            "price",
        )
    )
    assert data["precision"] == "gguf-q4_k_m"
    assert data["inputs"]["context_tokens"] == 32768
    assert data["inputs"]["concurrency"] == 4
    prices = [r["usd_per_month"] for r in data["rows"]]
    assert prices == sorted(prices)


def test_fit_image_model(run: Any) -> None:
    data = _json(run("fit", "FLUX.1 [dev]", "--json"))
    assert data["counts"]["split"] == 0
    assert data["weights_gb"] == 24


def test_unknown_model_exit_2_with_closest(run: Any) -> None:
    result = run("fit", "Llama 3.3 7B")
    assert result.exit_code == 2
    assert "Unknown model" in result.stderr
    assert "Llama 3.3 70B" in result.stderr
    assert "Traceback" not in result.output
    data = json.loads(run("fit", "Llama 3.3 7B", "--json").stdout)
    assert "Llama 3.3 70B" in data["closest"]


def test_bad_precision_exit_2(run: Any) -> None:
    result = run("fit", "Llama 3.3 70B", "--precision", "q3")
    assert result.exit_code == 2
    assert "unknown precision" in result.stderr


def test_nodes_json_shape(run: Any) -> None:
    data = _json(run("nodes", "--json"))
    assert len(data) == 41
    keys = {"id", "label", "gpu", "count", "memory_gb_per_card", "total_memory_gb",
            "interconnect", "usd_per_month", "url"}  # fmt: skip
    for row in data:
        assert keys <= set(row)
        assert row["total_memory_gb"] == row["memory_gb_per_card"] * row["count"]
    by_id = {r["id"]: r for r in data}
    assert by_id["4x-a100-sxm4"]["usd_per_month"] == 4395
    assert by_id["4x-a100-pcie"]["url"] == "https://gpuserver.io/de/gpu/a100-80gb"
    assert by_id["4x-a100-pcie"]["effective_interconnect"] == "pcie-gen4-x16"


def test_nodes_table(run: Any) -> None:
    result = run("nodes")
    assert result.exit_code == 0
    assert "41 configurations" in result.stdout


def test_price_and_compare(run: Any) -> None:
    data = _json(run("price", "4x-a100-pcie", "4 x A100 SXM4", "--json"))
    assert [q["usd_per_month"] for q in data["quotes"]] == [4157, 4395]
    assert data["comparison"]["spread_usd"] == 238
    table = run("price", "4x-a100-sxm4")
    assert "$4,395" in table.stdout and "published" in table.stdout
    bad = run("price", "4x-a100-sxm5")
    assert bad.exit_code == 2 and "4x-a100-sxm4" in bad.stderr


def test_throughput(run: Any) -> None:
    pcie = _json(run("throughput", "Llama 3.3 70B", "4x-a100-pcie", "--json"))
    sxm = _json(run("throughput", "Llama 3.3 70B", "4x-a100-sxm4", "--json"))
    assert round(pcie["tokens_per_s"]) == 18
    assert round(sxm["tokens_per_s"]) == 19
    assert pcie["cards"] == 4
    assert pcie["usd_per_million_tokens"] > 0
    text = run("throughput", "Llama 3.3 70B", "4x-a100-sxm4")
    assert "~19 tokens/s" in text.stdout
    assert run("throughput", "SDXL", "1x-l4").exit_code == 2


def test_allreduce(run: Any) -> None:
    data = _json(run("allreduce", "70B", "--json"))
    links = {r["link"]: r for r in data["links"]}
    assert links["pcie-gen5-x16"]["size_gb"] == 140
    assert links["pcie-gen5-x16"]["seconds"] == pytest.approx(2.1875)
    # per direction, as --check judges busbw: 140 GB / 450 GB/s (the guide: / 900 GB/s)
    assert links["nvlink-4"]["bandwidth_gb_s"] == 450
    assert links["nvlink-4"]["seconds"] == pytest.approx(140 / 450)
    assert links["nvlink-4"]["guide_seconds"] == pytest.approx(0.1556, abs=1e-3)
    assert data["ratio_nvlink4_to_pcie_gen5"] == pytest.approx(450 / 64)
    assert round(data["guide_ratio_nvlink4_to_pcie_gen5"]) == 14
    table = run("allreduce")
    assert "140 GB" in table.stdout and "7.0x per direction" in table.stdout


def test_allreduce_check(run: Any, tmp_path: Path) -> None:
    from tests.test_tools_diagnostics import NCCL

    path = tmp_path / "nccl.txt"
    path.write_text(NCCL)
    data = _json(run("allreduce", "--check", str(path), "--config", "8x-h100-sxm5", "--json"))
    assert data["status"] == "ok"
    assert data["peak_busbw_gb_s"] == 397.65
    assert run("allreduce", "--check", str(path)).exit_code == 2  # needs --config
    missing = run("allreduce", "--check", str(tmp_path / "nope.txt"), "--config", "8x-h100-sxm5")
    assert missing.exit_code == 2 and "cannot read" in missing.stderr


@pytest.mark.parametrize(
    ("config", "label"),
    [
        ("4x-a100-sxm4", "NV4"),  # HGX A100 4-GPU: 12 links / 3 peers, the normal layout
        ("8x-a100-sxm4", "NV12"),  # HGX A100 8-GPU: NVSwitch
        ("4x-h100-sxm5", "NV6"),  # HGX H100 4-GPU: 18 links / 3 peers
        ("8x-h100-sxm5", "NV18"),
        ("4x-h200", "NV6"),
        ("8x-h200", "NV18"),
        ("8x-b200", "NV18"),
    ],
)
def test_topo_judges_each_board_as_built(run: Any, config: str, label: str) -> None:
    n = int(config[0])
    healthy = run("topo", "-", "--config", config, "--json", stdin=_matrix(n, label))
    assert healthy.exit_code == 0, healthy.output
    assert json.loads(healthy.stdout)["status"] == "ok"
    fewer = f"NV{int(label[2:]) - 1}"  # a link down between GPU0 and GPU1
    down = run("topo", "-", "--config", config, "--json", stdin=_matrix(n, label, (0, 1, fewer)))
    assert down.exit_code == 1
    bad = [p for p in json.loads(down.stdout)["pairs"] if p["status"] != "ok"]
    assert [(p["a"], p["b"], p["status"]) for p in bad] == [("GPU0", "GPU1", "defect")]
    pcie = run("topo", "-", "--config", config, stdin=_matrix(n, label, (1, 2, "SYS")))
    assert pcie.exit_code == 1


def test_a_4_card_node_on_an_nvswitch_board_is_healthy_too(run: Any) -> None:
    # 4 cards of an 8-GPU NVSwitch board show every link per pair: not a defect
    ok = run("topo", "-", "--config", "4x-a100-sxm4", "--json", stdin=_matrix(4, "NV12"))
    assert ok.exit_code == 0 and json.loads(ok.stdout)["inputs"]["accepted_labels"] == ["NV12"]
    # NV12 on H100 cards is neither board's layout (NV6 direct, NV18 through NVSwitch)
    bad = run("topo", "-", "--config", "4x-h100-sxm5", "--json", stdin=_matrix(4, "NV12"))
    assert bad.exit_code == 1 and json.loads(bad.stdout)["status"] == "defect"
    # the board's label and the NVSwitch one are both listed as healthy
    h100 = run("topo", "-", "--config", "4x-h100-sxm5", "--json", stdin=_matrix(4, "NV6"))
    assert json.loads(h100.stdout)["inputs"]["healthy_labels"] == ["NV6", "NV18"]


def test_every_nvlink_node_says_its_board() -> None:
    from knowledge.catalog import load_catalog

    cat = load_catalog(CATALOG)
    for c in cat.configurations.values():
        if cat.links[c.interconnect].kind == "nvlink":
            assert c.board and c.nvswitch is not None and c.board_source, c.id
            assert cat.expected_topo_label(c) == c.topo_label
            assert c.nvswitch == (c.count == 8 or "8-GPU" in c.board)
        else:
            assert cat.expected_topo_label(c) is None
    # "every pair NV18" only where an NVSwitch joins the cards
    assert {c.topo_label for c in cat.configurations.values() if c.nvswitch is False} == {
        "NV4",
        "NV6",
    }


def test_allreduce_check_exits_non_zero_on_a_defect(run: Any, tmp_path: Path) -> None:
    from tests.test_tools_diagnostics import NCCL

    path = tmp_path / "nccl.txt"
    path.write_text(NCCL)
    ok = run("allreduce", "--check", str(path), "--config", "8x-h100-sxm5")
    assert ok.exit_code == 0, ok.output
    # the same run judged against NVLink 5 (900 GB/s per direction): 44 %, lower than expected
    warn = run("allreduce", "--check", str(path), "--config", "8x-b200", "--json")
    assert warn.exit_code == 0 and json.loads(warn.stdout)["status"] == "warning"
    slow = tmp_path / "slow.txt"
    low = {"397.44": "21.00", "397.65": "21.10", "365.25": "20.00", "365.98": "20.10"}
    text = NCCL
    for before, after in low.items():
        text = text.replace(before, after)
    slow.write_text(text)
    bad = run("allreduce", "--check", str(slow), "--config", "8x-h100-sxm5", "--json")
    assert bad.exit_code == 1
    assert json.loads(bad.stdout)["status"] == "defect"


def test_topo_from_stdin(run: Any) -> None:
    defect = run("topo", "-", "--config", "4x-h100-sxm5", "--json", stdin=TOPO_H100)
    assert defect.exit_code == 1  # a defect, as diagnostics tools do
    data = json.loads(defect.stdout)
    assert data["status"] == "defect"
    bad = [p for p in data["pairs"] if p["status"] != "ok"]
    assert [(p["a"], p["b"]) for p in bad] == [("GPU2", "GPU3")]
    assert data["inputs"]["expected_label"] == "NV6"
    assert data["inputs"]["board"] == "HGX H100 4-GPU"
    table = run("topo", "-", stdin=TOPO_H100.replace("SYS", "NV6"))
    assert table.exit_code == 0 and "overall: ok" in table.stdout
    garbage = run("topo", "-", stdin="nothing")
    assert garbage.exit_code == 2 and "GPU0" in garbage.stderr


def test_memory_and_capacity(run: Any) -> None:
    mem = _json(run("memory", "Llama 3.3 70B", "--json"))
    assert mem["kv"]["kv_bytes_per_token"] == 327680
    assert mem["inputs"]["model"] == "llama-3.3-70b"
    # a job that does not fit: flagged, and exit 1 as `throughput` (issue 24)
    no_fit = run("capacity", "Llama 3.3 70B", "1x-h100-pcie", "-p", "fp8", "--json")
    assert no_fit.exit_code == 1
    cap = json.loads(no_fit.stdout)
    assert cap["fits"] is False and cap["max_context_tokens"] == 0
    assert cap["load_fits"] is False and cap["fit"]["verdict"] == "does_not_fit"
    text = run("capacity", "Llama 3.3 70B", "1x-h100-pcie", "-p", "fp8")
    assert "No room for KV cache" in text.stdout and text.exit_code == 1
    train = _json(run("memory", "70B", "--training", "--json"))
    assert train["total_gb"] == pytest.approx(1260)


def test_memory_lora_and_qlora(run: Any) -> None:
    # PEFT's figure for Llama 3.1 8B, rank 16 on all linear layers
    lora = _json(run("memory", "Llama 3.1 8B", "--adapter", "lora", "--json"))
    assert lora["adapter_params"] == 41_943_040 and lora["base_precision"] == "bf16"
    attn = _json(run("memory", "llama3.1:8b", "--adapter", "lora", "--attention-only", "--json"))
    assert attn["targets"] == "attention" and attn["adapter_params"] < lora["adapter_params"]
    r8 = _json(run("memory", "Llama 3.1 8B", "--adapter", "lora", "--rank", "8", "--json"))
    assert r8["adapter_params"] * 2 == lora["adapter_params"]
    qlora = _json(run("memory", "Llama 3.3 70B", "--adapter", "qlora", "--json"))
    assert qlora["base_precision"] == "nf4" and 40 < qlora["total_gb"] < 50
    text = run("memory", "Llama 3.3 70B", "--adapter", "qlora")
    assert text.exit_code == 0 and "42.8 GB before activations" in text.stdout
    mla = run("memory", "DeepSeek V3", "--adapter", "qlora")
    assert mla.exit_code == 2 and "MLA" in mla.stderr and "Traceback" not in mla.output
    bad = run("memory", "Llama 3.1 8B", "--adapter", "dora")
    assert bad.exit_code == 2


def test_models_and_advice(run: Any) -> None:
    models = _json(run("models", "--json"))
    assert "deepseek-v3" in {m["id"] for m in models}
    advice = _json(run("advice", "Llama 3.1 8B", "--tp", "4", "--json"))
    assert advice["rule"]["number"] == 1
    assert any(a["key"] == "mistake.unneeded-tensor-parallelism" for a in advice["also"])
    anywhere = _json(run("advice", "Llama 3.3 70B", "--json"))
    # one 180 GB B200 holds it, but B200s come in 4/8-card nodes: as `sizing ask` says, it is
    # split across smaller cards, and at low concurrency PCIe works (issue 12, item 11)
    assert anywhere["rule"]["number"] == 3
    big = _json(
        run("advice", "Llama 3.3 70B", "--config", "4x-a100-sxm4", "--traffic", "high", "--json")
    )
    assert big["rule"]["number"] == 4
    low = _json(run("advice", "Llama 3.3 70B", "--config", "4x-a100-pcie", "--json"))
    assert low["rule"]["number"] == 3 and low["configuration_holds"]
    # a node that cannot hold the job is said to fall short, beside the rule for one that can
    short = _json(run("advice", "Llama 3.3 70B", "--config", "1x-l4", "--json"))
    assert not short["configuration_holds"] and short["cards_needed"] > 1
    assert (
        "note: 1x-l4 has 1 card; one copy needs"
        in run("advice", "Llama 3.3 70B", "--config", "1x-l4").output
    )
    assert (
        "note: one copy does not fit a card of 1x-l4"
        in run("advice", "wan-2.1-14b", "--config", "1x-l4").output
    )
    huge = _json(run("advice", "Llama 3.1 405B", "--config", "8x-h100-sxm5", "--json"))
    assert huge["rule"]["number"] == 5
    # 30 at once is real traffic (tools.load.traffic_of), as the answer path reads it
    busy = _json(run("advice", "qwen2.5-72b", "-n", "30", "--json"))
    assert busy["rule"]["number"] == 4
    assert (
        _json(run("advice", "qwen2.5-72b", "-n", "30", "--traffic", "low", "--json"))["rule"][
            "number"
        ]
        == 3
    )


def test_advice_says_when_no_pcie_node_holds_what_rule_3_allows(run: Any) -> None:
    # DeepSeek R1 in FP8 at low load: rule 3 (PCIe works), but only NVLink nodes hold it
    r1 = _json(run("advice", "deepseek-r1", "--json"))
    assert r1["rule"]["number"] == 3 and r1["pcie_holds"] is False
    assert set(r1["holding_configurations"]) == {"8x-h200", "8x-b200"}
    assert "note: no PCIe node in the catalog holds one copy" in run("advice", "deepseek-r1").output
    # Llama 3.3 70B: PCIe nodes hold it, no note
    llama = _json(run("advice", "Llama 3.3 70B", "--json"))
    assert llama["pcie_holds"] is True
    assert "no PCIe node" not in run("advice", "Llama 3.3 70B").output


def test_advice_for_a_fine_tune_takes_its_method(run: Any) -> None:
    full = _json(run("advice", "Llama 3.3 70B", "--training", "--json"))
    assert full["rule"]["number"] == 4  # 18 bytes per parameter: split, all-reduce each step
    qlora = _json(run("advice", "Llama 3.3 70B", "--training", "--method", "qlora", "--json"))
    assert qlora["rule"]["number"] == 1 and qlora["method"] == "qlora"  # ~43 GB: one card
    lora = _json(run("advice", "Llama 3.3 70B", "--training", "--method", "lora", "--json"))
    assert lora["rule"]["number"] == 4  # the BF16 base alone is ~141 GB
    bad = run("advice", "Llama 3.3 70B", "--method", "qlora")
    assert bad.exit_code == 2 and "--training" in bad.output


def test_broken_catalog_exit_2_one_line(run: Any, tmp_path: Path) -> None:
    broken = tmp_path / "catalog"
    shutil.copytree(CATALOG, broken)
    conf = broken / "configurations.yaml"
    conf.write_text(conf.read_text().replace("usd_per_month: 4395", "usd_per_month: -1"))
    for args in (("nodes",), ("fit", "Llama 3.3 70B"), ("price", "4x-a100-pcie")):
        result = run(*args, catalog=broken)
        assert result.exit_code == 2
        assert "Traceback" not in result.output
        message = result.stderr.strip()
        assert "configurations.yaml" in message and "4x-a100-sxm4" in message
        assert "usd_per_month" in message
    data = json.loads(run("nodes", "--json", catalog=broken).stdout)
    assert "usd_per_month" in data["error"]


def test_real_process_exit_codes(tmp_path: Path) -> None:
    """The real entry point in a child process: output, exit codes, no traceback."""
    env = {**os.environ, "SIZING_CATALOG": str(CATALOG), "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-c", "from cli import main; main()"]
    ok = subprocess.run(
        [*cmd, "nodes", "--json"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ok.returncode == 0, ok.stderr
    assert len(json.loads(ok.stdout)) == 41
    bad = subprocess.run(
        [*cmd, "price", "9x-h100"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2
    assert "Unknown configuration" in bad.stderr and "Traceback" not in bad.stderr


def test_the_assistants_topology_tool_judges_the_board_too() -> None:
    from assistant.deps import Deps
    from assistant.registry import call_tool
    from assistant.settings import Settings
    from knowledge.catalog import load_catalog

    deps = Deps(settings=Settings(), catalog=load_catalog(CATALOG), index=None)

    def check(config: str, text: str) -> dict[str, Any]:
        args = {"text": text, "configuration": config}
        return call_tool(deps, "check_topology_output", args).result  # type: ignore[no-any-return]

    ok = check("4x-a100-sxm4", _matrix(4, "NV4"))
    assert ok["status"] == "ok" and ok["expected_label"] == "NV4"
    assert ok["board"] == "HGX A100 4-GPU"
    assert check("4x-h100-sxm5", _matrix(4, "NV6"))["status"] == "ok"
    down = check("4x-a100-sxm4", _matrix(4, "NV4", (2, 3, "NV2")))
    assert down["status"] == "defect"
    assert check("8x-h100-sxm5", _matrix(8, "NV6"))["status"] == "defect"


def test_a_precision_read_as_another_says_so(run: Any) -> None:
    """`-p int4` is sized as AWQ; the table says "awq" and a note on stderr says why."""
    res = run("fit", "llama-3.1-8b", "-p", "int4")
    assert res.exit_code == 0 and "in awq" in res.stdout
    assert "note: 'int4' is sized as awq" in res.stderr
    assert "note:" not in run("fit", "llama-3.1-8b", "-p", "q4_k_m").stderr


def test_an_image_model_for_several_at_once_says_what_n_means(run: Any) -> None:
    res = run("fit", "flux.1-dev", "-n", "4")
    assert res.exit_code == 0
    assert "4 at once need 4 cards" in " ".join(res.stdout.split())
    assert "at once need" not in run("fit", "flux.1-dev").stdout


def test_a_name_the_catalog_lacks_with_a_size_is_sized_as_generic(run: Any) -> None:
    """`sizing fit "Pythia 12B"` sizes a generic 12B, as `sizing ask` does (blind-26's writer);
    a name close to a catalog model ("Llama 3.3 7B") still offers the closest."""
    res = run("fit", "Pythia 12B", "--json")
    assert res.exit_code == 0
    assert (
        json.loads(res.stdout)["inputs"]["model"]["id"]
        == json.loads(run("fit", "12B", "--json").stdout)["inputs"]["model"]["id"]
    )
    assert "not in the catalog; sized as a generic dense 12B model" in res.stderr
    assert run("fit", "Llama 3.3 7B").exit_code == 2


def test_capacity_beyond_the_models_own_context_is_no_fit(run: Any) -> None:
    """blind-27's writer: "1 x 65,536 tokens: fits" for Qwen2.5 72B, whose limit is 32,768."""
    res = run("capacity", "qwen2.5-72b", "2x-a100-pcie", "-p", "fp8", "-c", "65536")
    assert res.exit_code == 1
    assert "beyond the model's own limit of 32,768 tokens" in " ".join(res.stdout.split())
    data = json.loads(
        run("capacity", "qwen2.5-72b", "2x-a100-pcie", "-p", "fp8", "-c", "65536", "--json").stdout
    )
    assert data["beyond_model_context"] is True
    ok = run("capacity", "qwen2.5-72b", "2x-a100-pcie", "-p", "fp8", "-c", "16384")
    assert ok.exit_code == 0 and "beyond" not in ok.stdout


def test_fit_table_shows_the_rows_own_notes(run: Any) -> None:
    """blind-26 writer: the table left out the FP8 weight-only note of Ampere rows (--json had
    it)."""
    out = " ".join(run("fit", "qwen2.5-32b", "-p", "fp8").stdout.split())
    assert "fp8 not native on RTX A6000" in out and "W8A16" in out
    assert "not native" not in " ".join(run("fit", "qwen2.5-32b").stdout.split())


def test_throughput_times_a_batch(run: Any) -> None:
    """`--output-tokens`: the time one stream takes to write a batch and what that node time
    costs, the figures the assistant's batch answers state (throughput_estimate's)."""
    data = _json(run("throughput", "llama-3.1-8b", "1x-l4", "--output-tokens", "100000", "--json"))
    assert data["output_seconds"] == pytest.approx(100_000 / data["tokens_per_s"])
    assert data["usd_for_output"] == pytest.approx(
        290 * data["output_seconds"] / 3600 / 730, abs=0.01
    )
    text = run("throughput", "llama-3.1-8b", "1x-l4", "--output-tokens", "100000").output
    assert f"{data['output_seconds']:,.0f} s" in text and f"${data['usd_for_output']:.2f}" in text
    assert run("throughput", "llama-3.1-8b", "1x-l4", "--output-tokens", "0").exit_code == 2
