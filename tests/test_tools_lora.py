"""LoRA / QLoRA fine-tuning memory: adapter counts from the architecture, NF4 base weights."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.registry import REGISTRY, ToolError, call_tool
from knowledge.catalog import Catalog, load_catalog
from tools.memory import (
    QLORA_BITS_PER_PARAM,
    AdapterTrainingInput,
    adapter_training_memory,
    embedding_params,
)

CATALOG = Path(__file__).resolve().parent.parent / "knowledge" / "catalog"
LLMS = [
    "llama-3.1-8b",
    "llama-3.3-70b",
    "llama-3.1-405b",
    "mistral-small-24b",
    "qwen2.5-72b",
    "mixtral-8x7b",
    "qwen3-235b-a22b",
]


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog(CATALOG)


def test_llama_8b_rank_16_all_linear_is_peft_figure(cat: Catalog) -> None:
    # PEFT's print_trainable_parameters for Llama 3.1 8B, r=16, all linear: 41,943,040
    a = adapter_training_memory(AdapterTrainingInput(model=cat.models["llama-3.1-8b"]))
    assert a.adapter_params == 41_943_040
    assert a.adapter_params_per_layer * 32 == a.adapter_params
    assert a.adapter_state_gb == pytest.approx(41_943_040 * 16 / 1e9)
    assert a.rank == 16 and a.targets == "all_linear" and a.adapter_bytes_per_param == 16


def test_llama_8b_attention_only_and_rank_scale(cat: Catalog) -> None:
    m = cat.models["llama-3.1-8b"]
    attn = adapter_training_memory(AdapterTrainingInput(model=m, targets="attention"))
    # q, o: 4096 + 4096; k, v: 4096 + 1024; r = 16; 32 layers
    assert attn.adapter_params == 16 * (2 * 8192 + 2 * 5120) * 32 == 13_631_488
    r64 = adapter_training_memory(AdapterTrainingInput(model=m, rank=64))
    assert r64.adapter_params == 4 * 41_943_040


def test_qlora_bits_are_nf4_with_double_quantisation() -> None:
    assert round(QLORA_BITS_PER_PARAM, 3) == 4.127


def test_qlora_70b_total_in_range(cat: Catalog) -> None:
    m = cat.models["llama-3.3-70b"]
    q = adapter_training_memory(AdapterTrainingInput(model=m, method="qlora"))
    assert 40 <= q.total_gb <= 50
    p16 = embedding_params(m)
    assert q.params_16bit == p16
    expected = ((m.params - p16) * QLORA_BITS_PER_PARAM / 8 + p16 * 2) / 1e9
    assert q.base_weights_gb == pytest.approx(expected)
    assert q.total_gb == pytest.approx(q.base_weights_gb + q.adapter_state_gb)
    assert q.adapter_state_gb == pytest.approx(
        q.adapter_weights_gb + q.adapter_gradients_gb + q.adapter_optimizer_gb
    )
    assert any("Activations are not included" in n for n in q.notes)


@pytest.mark.parametrize("model_id", LLMS)
def test_lora_above_qlora_and_attention_below_all_linear(cat: Catalog, model_id: str) -> None:
    m = cat.models[model_id]
    lora = adapter_training_memory(AdapterTrainingInput(model=m, method="lora"))
    qlora = adapter_training_memory(AdapterTrainingInput(model=m, method="qlora"))
    attn = adapter_training_memory(AdapterTrainingInput(model=m, targets="attention"))
    assert lora.total_gb > qlora.total_gb
    assert lora.base_weights_gb == pytest.approx(m.params * 2 / 1e9)
    assert attn.adapter_params < lora.adapter_params
    assert lora.adapter_params == qlora.adapter_params
    assert 0 < lora.adapter_share_percent < 2


def test_moe_adapts_every_expert(cat: Catalog) -> None:
    m = cat.models["mixtral-8x7b"]
    a = adapter_training_memory(AdapterTrainingInput(model=m))
    attn = 16 * ((4096 + 4096) * 2 + (4096 + 1024) * 2)
    mlp = 16 * 3 * (4096 + 14336) * 8
    assert a.adapter_params == (attn + mlp) * 32


@pytest.mark.parametrize("model", ["deepseek-v3", "34B"])
def test_unmodelled_shapes_raise(cat: Catalog, model: str) -> None:
    m = cat.find_model(model)
    with pytest.raises(ValueError, match="can't be computed"):
        adapter_training_memory(AdapterTrainingInput(model=m, method="qlora"))


def test_registry_memory_need_adapter() -> None:
    from assistant.deps import build_deps
    from assistant.settings import Settings

    deps = build_deps(Settings())
    assert "adapter" in REGISTRY["memory_need"].args_model.model_fields
    r = call_tool(deps, "memory_need", {"model": "Llama 3.1 8B", "adapter": "qlora"}).result
    assert r["adapter_params"] == 41_943_040
    assert r["base_precision"] == "nf4" and r["activations_included"] is False
    with pytest.raises(ToolError, match="MLA"):
        call_tool(deps, "memory_need", {"model": "DeepSeek V3", "adapter": "lora"})
