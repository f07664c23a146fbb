"""New catalog models, sizing models that are not in the catalog, the resolver that offers only
same-family names, `training_fit` and the stated-busbw check."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

import pytest

from assistant.deps import Deps
from assistant.registry import ToolError, call_tool
from assistant.settings import Settings
from knowledge.catalog import load_catalog, size_in_name
from tools.memory import GPU_MEMORY_UTILIZATION

CAT = load_catalog(Settings().catalog)

# (id, layers, kv_heads, head_dim) from each model's public config.json
NEW = [
    ("gemma-3-4b", 34, 4, 256),
    ("gemma-3-12b", 48, 8, 256),
    ("gemma-3-27b", 62, 16, 128),
    ("phi-4", 40, 10, 128),
    ("qwen3-8b", 36, 8, 128),
    ("qwen3-14b", 40, 8, 128),
    ("qwen3-32b", 64, 8, 128),
    ("qwen3-30b-a3b", 48, 4, 128),
    ("llama-4-scout", 48, 8, 128),
    ("llama-4-maverick", 48, 8, 128),
    ("mistral-small-3.1-24b", 40, 8, 128),
    ("mistral-large-2", 88, 8, 128),
    ("mixtral-8x22b", 56, 8, 128),
    ("deepseek-r1-distill-qwen-32b", 64, 8, 128),
    ("deepseek-r1-distill-llama-70b", 80, 8, 128),
]


@pytest.fixture(scope="module")
def deps() -> Deps:
    return Deps(settings=Settings(), catalog=CAT, index=None)


def run(deps: Deps, name: str, **args: Any) -> dict[str, Any]:
    return call_tool(deps, name, args).result  # type: ignore[no-any-return]


@pytest.mark.parametrize(("mid", "layers", "kv_heads", "head_dim"), NEW)
def test_new_models_kv_bytes_from_their_config(
    deps: Deps, mid: str, layers: int, kv_heads: int, head_dim: int
) -> None:
    m = CAT.models[mid]
    assert m.source.startswith("https://huggingface.co/")
    res = run(deps, "memory_need", model=m.name, context_tokens=1000)
    assert res["kv_bytes_per_token"] == 2 * layers * kv_heads * head_dim * 2
    bytes_per_param = {"bf16": 2, "fp8": 1}[m.native_precision]
    assert res["weights_gb"] == pytest.approx(m.params_b * bytes_per_param, rel=0.01)
    if m.is_moe:
        assert m.active_params_b is not None and m.active_params_b < m.params_b


@pytest.mark.parametrize(
    ("text", "mid"),
    [
        ("gemma3:27b", "gemma-3-27b"),
        ("google/gemma-3-12b-it", "gemma-3-12b"),
        ("phi4", "phi-4"),
        ("Qwen/Qwen3-32B", "qwen3-32b"),
        ("qwen3:30b-a3b", "qwen3-30b-a3b"),
        ("llama4:scout", "llama-4-scout"),
        ("meta-llama/Llama-4-Maverick-17B-128E-Instruct", "llama-4-maverick"),
        ("mistral-small3.1:24b", "mistral-small-3.1-24b"),
        ("Mistral Large 2", "mistral-large-2"),
        ("mixtral:8x22b", "mixtral-8x22b"),
        ("deepseek-r1:32b", "deepseek-r1-distill-qwen-32b"),
        ("DeepSeek-R1-Distill-Llama-70B", "deepseek-r1-distill-llama-70b"),
        ("Mistral Small 24B", "mistral-small-24b"),  # the older 2501 keeps its names
        ("DeepSeek R1", "deepseek-r1"),
        ("deepseek-ai/DeepSeek-V3-0324", "deepseek-v3"),
    ],
)
def test_aliases(text: str, mid: str) -> None:
    assert CAT.find_model(text).id == mid


@pytest.mark.parametrize(
    ("text", "params_b", "moe"),
    [
        ("Gemma 4 27B", 27, False),
        ("Falcon 4 10B", 10, False),
        ("some 120B MoE", 120, True),
        ("Foo 8x7B", 56, True),
        ("Bar-30B-A3B", 30, True),
    ],
)
def test_unknown_model_with_a_size_is_sized_with_kv(
    deps: Deps, text: str, params_b: float, moe: bool
) -> None:
    assert size_in_name(text) == (params_b, moe)
    res = run(deps, "fit_check", model=text, configurations=["8x-h100-sxm5"])
    assert res["model"]["generic"] is True
    assert res["weights_gb"] == pytest.approx(params_b * 2, abs=0.01)
    pool = [
        m
        for m in CAT.llm_models()
        if m.attention == "gqa"
        and m.has_architecture
        and m.is_moe == moe
        and m.sliding_window_layers is None
        and m.head_dim == 128
    ]
    ref = min(pool, key=lambda m: (abs(math.log(m.params_b / params_b)), m.params_b))
    assert res["kv_bytes_per_token"] == 2 * ref.layers * ref.kv_heads * ref.head_dim * 2  # type: ignore[operator]
    assert any(ref.name in a for a in res["assumptions"])
    assert res["kv_gb"] > 0


def test_unknown_names_offer_only_the_same_family(deps: Deps) -> None:
    for text in ("GPT-5", "Claude 3 Opus"):
        with pytest.raises(ToolError) as info:
            run(deps, "fit_check", model=text)
        assert "Closest" not in str(info.value)
    res = CAT.resolve_model("Gemma 4 27B")
    assert res.status == "estimated"
    assert res.closest and all(n.startswith("Gemma") for n in res.closest)
    assert CAT.resolve_model("Lama 3.3 70B").closest[0] == "Llama 3.3 70B"  # a typo: same family
    assert CAT.resolve_model("Qwen3 32B").status == "found"


# ---------------------------------------------------------------- training_fit


@pytest.mark.parametrize(
    ("model", "method"),
    [
        ("Llama 3.1 8B", "full"),
        ("Llama 3.3 70B", "full"),
        ("Llama 3.1 8B", "qlora"),
        ("Llama 3.3 70B", "qlora"),
        ("Llama 3.3 70B", "lora"),
        ("Qwen3 32B", "lora"),
    ],
)
def test_training_fit_reproduces_the_holders_and_nodes(deps: Deps, model: str, method: str) -> None:
    mem_args: dict[str, Any] = {"training": True} if method == "full" else {"adapter": method}
    total = run(deps, "memory_need", model=model, **mem_args)["total_gb"]
    res = run(deps, "training_fit", model=model, method=method)
    assert res["total_gb"] == total
    util = GPU_MEMORY_UTILIZATION
    holders = [g for g in CAT.gpus.values() if g.memory_gb * util >= total]
    assert res["holders"] == [g.short_name for g in holders]
    singles = [
        c for c in CAT.configurations.values() if c.count == 1 and c.gpu in {g.id for g in holders}
    ]
    one = min(singles, key=lambda c: (c.usd_per_month, c.id)) if singles else None
    assert (res["cheapest_one_card"] or {}).get("configuration") == (one.id if one else None)
    if one is None:
        split = [
            c
            for c in CAT.configurations.values()
            if c.count > 1
            and CAT.links[c.interconnect].kind == "nvlink"
            and c.count * CAT.gpus[c.gpu].memory_gb * util >= total
        ]
        best = min(split, key=lambda c: (Decimal(c.usd_per_month), c.id))
        assert res["cheapest_split_nvlink"]["configuration"] == best.id
    for r in res["rows"]:
        usable = CAT.gpus[r["gpu"]].memory_gb * util
        assert r["cards_needed"] == math.ceil(total / usable - 1e-9)


def test_training_fit_refuses_lora_without_shapes(deps: Deps) -> None:
    with pytest.raises(ToolError):
        run(deps, "training_fit", model="DeepSeek V3", method="lora")


# ---------------------------------------------------------------- stated busbw


@pytest.mark.parametrize(("share", "status"), [(0.8, "ok"), (0.45, "warning"), (0.1, "defect")])
def test_check_allreduce_output_accepts_a_stated_busbw(
    deps: Deps, share: float, status: str
) -> None:
    c = CAT.configurations["8x-h100-sxm5"]
    rated = CAT.links[c.interconnect].per_direction_gb_s
    res = run(deps, "check_allreduce_output", busbw_gb_s=rated * share, configuration=c.id)
    assert res["status"] == status
    assert res["rated_gb_s"] == rated
    assert res["ring_factor"] == pytest.approx(2 * 7 / 8)
    # a Gen4 card in a Gen5 node is judged against Gen4
    res = run(deps, "check_allreduce_output", busbw_gb_s=20, configuration="4x-a100-pcie")
    assert res["link"]["id"] == "pcie-gen4-x16"
    with pytest.raises(ToolError, match="busbw_gb_s"):
        run(deps, "check_allreduce_output", configuration="4x-a100-pcie")


# ---------------------------------------------------------------- typed results


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("fit_check", {"model": "Llama 3.3 70B", "max_price_usd_month": 100}),
        ("cheapest_fit", {"model": "Llama 3.3 70B", "precision": "fp8"}),
        ("training_fit", {"model": "Llama 3.1 8B", "method": "qlora"}),
    ],
)
def test_typed_results_dump_to_the_recorded_dict(
    deps: Deps, name: str, args: dict[str, Any]
) -> None:
    from pydantic import BaseModel

    from assistant.registry.core import call_tool_typed

    record, typed = call_tool_typed(deps, name, args)
    assert isinstance(typed, BaseModel)
    assert typed.model_dump(mode="json") == record.result
    assert record.result == call_tool(deps, name, args).result
    if name == "fit_check":  # optional keys stay out of the dict when empty
        assert all("room" not in r for r in record.result["rows"])
        assert "best_ignoring" in record.result["filters"]
