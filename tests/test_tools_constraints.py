"""fit_check / cheapest_fit filters, kv_precision, runtimes, FP8 capability and one meaning per
field; every expectation is computed from the catalog, not copied from a result."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from assistant.deps import Deps
from assistant.registry import ToolError, call_tool
from assistant.settings import Settings
from knowledge.catalog import load_catalog
from tools.memory import GPU_MEMORY_UTILIZATION, LLAMA_CPP_RESERVE_GB

CAT = load_catalog(Settings().catalog)


@pytest.fixture(scope="module")
def deps() -> Deps:
    return Deps(settings=Settings(), catalog=CAT, index=None)


def run(deps: Deps, name: str, **args: Any) -> dict[str, Any]:
    return call_tool(deps, name, args).result  # type: ignore[no-any-return]


def _price(row: dict[str, Any]) -> Decimal:
    return Decimal(str(row["usd_per_month"]))


def test_budget_and_memory_filters_in_one_call(deps: Deps) -> None:
    base = {"model": "Llama 3.3 70B", "precision": "fp8", "concurrency": 16}
    every = run(deps, "fit_check", **base)["rows"]
    fitting = [r for r in every if r["verdict"] != "does_not_fit"]
    budget = sorted(_price(r) for r in fitting)[len(fitting) // 2]  # a budget some rows meet
    want = [r for r in fitting if r["total_memory_gb"] >= 160 and _price(r) <= budget]
    assert want, "the chosen budget must leave something"
    res = run(deps, "cheapest_fit", **base, min_total_memory_gb=160, max_price_usd_month=budget)
    got = res["cheapest"]
    assert (
        got[0]["configuration"]
        == min(want, key=lambda r: (_price(r), r["configuration"]))["configuration"]
    )
    assert res["fitting_configurations"] == len(want)
    assert all(r["total_memory_gb"] >= 160 and _price(r) <= budget for r in got)
    assert "emptied_by" not in res["filters"]


def test_emptied_filter_names_the_constraint_and_the_best_row_without_it(deps: Deps) -> None:
    base = {"model": "Llama 3.3 70B", "concurrency": 16}
    fitting = [r for r in run(deps, "fit_check", **base)["rows"] if r["verdict"] != "does_not_fit"]
    cheapest = min(_price(r) for r in fitting)
    budget = float(cheapest) - 1  # below every fitting node
    res = run(deps, "cheapest_fit", **base, max_price_usd_month=budget)
    assert res["cheapest"] == []
    assert res["filters"]["emptied_by"] == ["max_price_usd_month"]
    best = res["filters"]["best_ignoring"][0]
    assert best["constraint"] == "max_price_usd_month"
    assert _price(best["row"]) == cheapest
    # fit_check says the same
    fc = run(deps, "fit_check", **base, max_price_usd_month=budget)
    assert fc["filters"]["emptied_by"] == ["max_price_usd_month"]
    assert fc["counts"]["fits_one_card"] + fc["counts"]["split"] == 0


def test_every_binding_constraint_is_named(deps: Deps) -> None:
    # SXM cards excluded and NVLink required: dropping either one alone leaves a fit
    res = run(
        deps,
        "cheapest_fit",
        model="Llama 3.1 8B",
        exclude_cards=[g.id for g in CAT.gpus.values() if g.form_factor == "sxm"],
        require_link="nvlink",
    )
    assert res["cheapest"] == []
    assert set(res["filters"]["emptied_by"]) == {"exclude_cards", "require_link"}


def test_exclude_cards_by_family_and_configurations(deps: Deps) -> None:
    res = run(deps, "fit_check", model="Llama 3.1 8B", exclude_cards=["H100"])
    gpus = {r["gpu"] for r in res["rows"]}
    assert not {g for g in CAT.gpus if g.startswith("h100")} & gpus
    assert len(res["rows"]) == sum(
        not c.gpu.startswith("h100") for c in CAT.configurations.values()
    )
    res = run(deps, "fit_check", model="Llama 3.1 8B", exclude_configurations=["4x-a100-pcie"])
    assert "4x-a100-pcie" not in {r["configuration"] for r in res["rows"]}
    with pytest.raises(ToolError, match="unknown card"):
        run(deps, "fit_check", model="Llama 3.1 8B", exclude_cards=["Voodoo 5"])


@pytest.mark.parametrize("link", ["nvlink", "pcie"])
def test_require_link(deps: Deps, link: str) -> None:
    rows = run(deps, "fit_check", model="Llama 3.1 8B", require_link=link)["rows"]
    want = [c.id for c in CAT.configurations.values() if CAT.links[c.interconnect].kind == link]
    assert [r["configuration"] for r in rows] == want


def test_kv_precision_fp8_halves_the_kv_cache(deps: Deps) -> None:
    base = {"model": "Llama 3.3 70B", "context_tokens": 32768, "concurrency": 4}
    bf = run(deps, "fit_check", **base)
    f8 = run(deps, "fit_check", **base, kv_precision="fp8")
    assert f8["kv_precision"] == "fp8"
    assert f8["kv_gb"] == pytest.approx(bf["kv_gb"] / 2, abs=0.01)
    cap_bf = run(deps, "capacity_check", model="Llama 3.3 70B", configuration="4x-h100-sxm5")
    cap_f8 = run(
        deps,
        "capacity_check",
        model="Llama 3.3 70B",
        configuration="4x-h100-sxm5",
        kv_precision="fp8",
    )
    assert cap_f8["kv_tokens"] == pytest.approx(2 * cap_bf["kv_tokens"], rel=1e-6)
    ch = run(deps, "cheapest_fit", **base, kv_precision="fp8")
    assert ch["kv_precision"] == "fp8"


def test_gguf_defaults_to_llama_cpp_with_nearly_the_whole_card(deps: Deps) -> None:
    res = run(deps, "fit_check", model="Llama 3.3 70B", precision="q4_k_m")
    assert res["runtime"] == "llama.cpp"
    for r in res["rows"]:
        assert r["usable_gb_per_card"] == pytest.approx(
            r["memory_gb_per_card"] - LLAMA_CPP_RESERVE_GB, abs=0.01
        )
    vllm = run(deps, "fit_check", model="Llama 3.3 70B", precision="q4_k_m", runtime="vllm")
    assert vllm["runtime"] == "vllm"
    for r in vllm["rows"]:
        assert r["usable_gb_per_card"] == pytest.approx(
            r["memory_gb_per_card"] * GPU_MEMORY_UTILIZATION, abs=0.01
        )
    assert run(deps, "fit_check", model="Llama 3.3 70B")["runtime"] == "vllm"


def test_llama_cpp_splits_layers_over_any_card_count_without_kv_replication(deps: Deps) -> None:
    m = CAT.find_model("Llama 3.3 70B")
    args = {"model": m.name, "precision": "gguf-q4_k_m", "context_tokens": 8192}
    lc = run(deps, "memory_need", **args, tensor_parallel=3)
    kv_total = 2 * m.layers * m.kv_heads * m.head_dim * 2 * 8192 / 1e9  # type: ignore[operator]
    assert lc["kv_gb_per_card"] == pytest.approx(kv_total / 3, abs=0.01)
    # vLLM cannot split 64 heads over 3 cards; llama.cpp can: a 3-card split appears
    rows = run(deps, "fit_check", **args, configurations=["4x-l4"])["rows"]
    need = lc["weights_gb"] / 3 + kv_total / 3 + lc["overhead_gb_per_card"]
    usable = CAT.gpus["l4"].memory_gb - LLAMA_CPP_RESERVE_GB
    assert (rows[0]["cards_needed"] == 3) == (need <= usable)


def test_fp8_rows_are_marked_on_cards_without_fp8(deps: Deps) -> None:
    res = run(deps, "fit_check", model="Llama 3.1 8B", precision="fp8")
    for r in res["rows"]:
        assert r["fp8_native"] == CAT.gpus[r["gpu"]].fp8_native
        marked = any("not native" in n for n in r.get("notes", []))
        assert marked == (not r["fp8_native"])
    assert not any(r.get("notes") for r in run(deps, "fit_check", model="Llama 3.1 8B")["rows"])
    ch = run(deps, "cheapest_fit", model="Llama 3.3 70B", precision="fp8")
    if not ch["cheapest"][0]["fp8_native"]:
        native = ch["cheapest_fp8_native"]
        assert native["fp8_native"] and "Marlin" in ch["notes"][0]
        fitting = [
            r
            for r in run(deps, "fit_check", model="Llama 3.3 70B", precision="fp8")["rows"]
            if r["verdict"] != "does_not_fit" and r["fp8_native"]
        ]
        assert _price(native) == min(_price(r) for r in fitting)


def test_headroom_is_per_card_and_the_total_is_named(deps: Deps) -> None:
    for r in run(deps, "fit_check", model="Llama 3.3 70B")["rows"]:
        assert r["headroom_gb"] == pytest.approx(
            r["usable_gb_per_card"] - r["required_gb_per_card"], abs=0.02
        )
        n = r["cards_needed"] or r["count"]
        assert r["headroom_total_gb"] == pytest.approx(r["headroom_gb"] * n, abs=0.05)


def test_rows_name_the_link_the_cards_run_at(deps: Deps) -> None:
    rows = {r["configuration"]: r for r in run(deps, "fit_check", model="Llama 3.1 8B")["rows"]}
    facts = run(deps, "interconnect_facts", configurations=list(rows)[:8])
    for node in facts["nodes"]:
        assert rows[node["configuration"]]["interconnect"] == node["link"]["id"]
    a100 = rows["4x-a100-pcie"]
    assert a100["interconnect"] == "pcie-gen4-x16" and a100["sold_as"] == "pcie-gen5-x16"


@pytest.mark.parametrize(
    ("model", "config"),
    [
        ("Llama 3.1 8B", "8x-h100-sxm5"),
        ("Llama 3.3 70B", "8x-h100-sxm5"),
        ("Llama 3.3 70B", "4x-l40s"),
    ],
)
def test_capacity_and_throughput_assume_the_same_cards(deps: Deps, model: str, config: str) -> None:
    cap = run(deps, "capacity_check", model=model, configuration=config)
    speed = run(deps, "throughput_estimate", model=model, configuration=config)
    assert cap["cards"] == speed["cards"]
    assert cap["replicas"] == CAT.configurations[config].count // cap["cards"]
    assert cap["max_concurrency_node"] == cap["max_concurrency"] * cap["replicas"]


def test_memory_need_training_description_matches_the_result(deps: Deps) -> None:
    from assistant.registry import REGISTRY

    res = run(deps, "memory_need", model="Llama 3.1 8B", training=True)
    assert f"{res['bytes_per_param']:g} bytes per parameter" in REGISTRY["memory_need"].description


@pytest.mark.parametrize(
    "filters",
    [
        {"max_price_usd_month": 3000},
        {"min_total_memory_gb": 160, "require_link": "nvlink"},
        {"exclude_cards": ["h100-sxm5", "a100-sxm4"], "require_link": "pcie"},
        {"max_price_usd_month": 10**6, "min_total_memory_gb": 10**6},
    ],
)
def test_configurations_within_keeps_what_the_fit_rows_keep(
    deps: Deps, filters: dict[str, Any]
) -> None:
    """The composer's pre-filter and fit_check's row filter are the same predicates."""
    from tools.constraints import Constraints, configurations_within

    rows = run(deps, "fit_check", model="Llama 3.1 8B", precision="fp16")["rows"]
    c = Constraints(**filters)
    want = sorted(r["configuration"] for r in rows if all(f(_Row(r)) for f in c.active().values()))
    got = sorted(configurations_within(CAT.configurations.values(), CAT.gpus, CAT.links, c))
    assert got == want
    assert len(got) < len(rows)


class _Row:
    def __init__(self, row: dict[str, Any]) -> None:
        self.__dict__.update(row)
        self.link_kind = CAT.links[row["sold_as"]].kind
