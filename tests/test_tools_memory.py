"""Memory formulas against published figures: KV per token, weights, FP8 70B on one H100."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from knowledge.catalog import Catalog, load_catalog
from tools.fit import CapacityInput, capacity
from tools.memory import (
    BITS_PER_WEIGHT,
    KvInput,
    PublishedVramInput,
    ServingInput,
    TrainingInput,
    WeightsInput,
    kv_bytes_per_token,
    kv_cache,
    normalize_precision,
    published_vram,
    serving_memory,
    training_memory,
    weights_memory,
)

CATALOG = Path(__file__).resolve().parent.parent / "knowledge" / "catalog"
GIB = 2**30


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog(CATALOG)


# KV bytes per token in BF16, as each model's config gives it (reference table):
# 2 * layers * kv_heads * head_dim * 2, MLA: layers * (kv_lora_rank + rope_dim) * 2.
@pytest.mark.parametrize(
    ("model_id", "layers", "kv_heads", "head_dim", "expected"),
    [
        ("llama-3.1-8b", 32, 8, 128, 131_072),
        ("llama-3.3-70b", 80, 8, 128, 327_680),
        ("llama-3.1-405b", 126, 8, 128, 516_096),
        ("mistral-small-24b", 40, 8, 128, 163_840),
        ("qwen2.5-72b", 80, 8, 128, 327_680),
        ("mixtral-8x7b", 32, 8, 128, 131_072),
        ("qwen3-235b-a22b", 94, 4, 128, 192_512),
    ],
)
def test_kv_bytes_per_token_gqa(
    cat: Catalog, model_id: str, layers: int, kv_heads: int, head_dim: int, expected: int
) -> None:
    m = cat.models[model_id]
    assert (m.layers, m.kv_heads, m.head_dim) == (layers, kv_heads, head_dim)
    assert kv_bytes_per_token(m, "bf16") == expected
    assert kv_bytes_per_token(m, "fp8") == expected / 2


def test_kv_bytes_per_token_mla(cat: Catalog) -> None:
    m = cat.models["deepseek-v3"]
    assert (m.layers, m.kv_lora_rank, m.rope_dim) == (61, 512, 64)
    assert kv_bytes_per_token(m, "bf16") == 70_272


def test_kv_cache_scales_with_context_and_concurrency(cat: Catalog) -> None:
    m = cat.models["llama-3.3-70b"]
    one = kv_cache(KvInput(model=m, context_tokens=8192))
    four = kv_cache(KvInput(model=m, context_tokens=8192, concurrency=4))
    assert one.kv_gb_total == pytest.approx(327_680 * 8192 / 1e9)
    assert four.kv_gb_total == pytest.approx(4 * one.kv_gb_total)
    assert "2 * layers * kv_heads * head_dim * bytes" in one.formula
    assert one.inputs.context_tokens == 8192


def test_kv_replicated_when_tp_exceeds_kv_heads(cat: Catalog) -> None:
    m = cat.models["qwen3-235b-a22b"]  # 4 KV heads
    tp4 = kv_cache(KvInput(model=m, context_tokens=1000, tensor_parallel=4))
    tp8 = kv_cache(KvInput(model=m, context_tokens=1000, tensor_parallel=8))
    assert tp4.kv_heads_per_card == 1 and not tp4.replicated
    assert tp8.kv_heads_per_card == 1 and tp8.replicated
    assert tp8.kv_bytes_per_token_per_card == tp4.kv_bytes_per_token_per_card
    assert tp8.kv_gb_total == pytest.approx(2 * tp4.kv_gb_total)
    # without replication the per-card share divides evenly
    llama = cat.models["llama-3.3-70b"]
    tp2 = kv_cache(KvInput(model=llama, context_tokens=1000, tensor_parallel=2))
    assert tp2.kv_bytes_per_token_per_card == 327_680 / 2
    assert tp2.kv_gb_total == pytest.approx(327_680 * 1000 / 1e9)


def test_mla_latent_is_on_every_card(cat: Catalog) -> None:
    m = cat.models["deepseek-v3"]
    r = kv_cache(KvInput(model=m, context_tokens=1000, tensor_parallel=8))
    assert r.kv_bytes_per_token_per_card == 70_272
    assert r.replicated


def test_weights_bf16_is_two_bytes_per_parameter(cat: Catalog) -> None:
    m = cat.models["llama-3.3-70b"]
    w = weights_memory(WeightsInput(model=m, precision="bf16"))
    assert w.weights_gb == pytest.approx(70_553_706_496 * 2 / 1e9)
    assert w.params_16bit == 0
    fp32 = weights_memory(WeightsInput(model=m, precision="fp32"))
    assert fp32.weights_gb == pytest.approx(2 * w.weights_gb)


def test_native_precision_default(cat: Catalog) -> None:
    ds = weights_memory(WeightsInput(model=cat.models["deepseek-v3"]))
    assert ds.precision == "fp8"
    assert 671 < ds.weights_gb < 680  # 1 byte per weight, embeddings 16-bit


def test_awq_group_overhead(cat: Catalog) -> None:
    assert BITS_PER_WEIGHT["awq"] == pytest.approx(4 + 16 / 128 + 4 / 128)
    assert BITS_PER_WEIGHT["gptq"] == BITS_PER_WEIGHT["awq"]
    m = cat.models["llama-3.3-70b"]
    w = weights_memory(WeightsInput(model=m, precision="awq"))
    emb = 128_256 * 8192 * 2  # embeddings + lm_head stay 16-bit
    assert w.params_16bit == emb
    expected = ((70_553_706_496 - emb) * (4 + 20 / 128) / 8 + emb * 2) / 1e9
    assert w.weights_gb == pytest.approx(expected)
    assert 38 < w.weights_gb < 42


@pytest.mark.parametrize(
    ("model_id", "published_gb"),
    [("llama-3.1-8b", 4.9), ("llama-3.3-70b", 43.1), ("llama-3.1-405b", 249.1)],
)
def test_gguf_q4_k_m_matches_llama_cpp_file_sizes(
    cat: Catalog, model_id: str, published_gb: float
) -> None:
    w = weights_memory(WeightsInput(model=cat.models[model_id], precision="gguf-q4_k_m"))
    assert w.bits_per_weight == 4.89
    assert w.weights_gb == pytest.approx(published_gb, rel=0.01)


def test_gguf_q8_0_bits(cat: Catalog) -> None:
    w = weights_memory(WeightsInput(model=cat.models["llama-3.1-8b"], precision="gguf-q8_0"))
    assert w.bits_per_weight == 8.5
    assert w.weights_gb == pytest.approx(8_030_261_248 * 8.5 / 8 / 1e9)
    q5 = weights_memory(WeightsInput(model=cat.models["llama-3.1-8b"], precision="gguf-q5_k_m"))
    assert w.weights_gb > q5.weights_gb > 4.9


def test_fp8_keeps_embeddings_16bit_and_matches_measured_load(cat: Catalog) -> None:
    # llm-d measured 67.7 GiB of weights for Llama 3.3 70B FP8 on one H100
    w = weights_memory(WeightsInput(model=cat.models["llama-3.3-70b"], precision="fp8"))
    assert w.weights_gb * 1e9 / GIB == pytest.approx(67.7, abs=0.2)


def test_llama_70b_fp8_leaves_no_kv_room_on_one_h100(cat: Catalog) -> None:
    m, h100 = cat.models["llama-3.3-70b"], cat.gpus["h100-sxm5"]
    one = capacity(CapacityInput(model=m, gpu=h100, count=1, precision="fp8"))
    assert one.usable_gb_per_card == pytest.approx(72.0)
    assert one.kv_room_gb_per_card < 0
    assert not one.fits
    assert one.kv_tokens == 0 and one.max_context_tokens == 0
    assert any("No room for KV cache" in n for n in one.notes)
    # at tensor parallel 2 there is room: llm-d measured about 32 GiB of KV per card
    two = capacity(CapacityInput(model=m, gpu=h100, count=2, precision="fp8"))
    assert two.tensor_parallel == 2 and two.fits
    assert two.kv_room_gb_per_card * 1e9 / GIB == pytest.approx(32, rel=0.1)


def test_moe_total_decides_memory_active_decides_reads(cat: Catalog) -> None:
    m = cat.models["mixtral-8x7b"]
    w = weights_memory(WeightsInput(model=m, precision="bf16"))
    assert w.weights_gb == pytest.approx(46.7 * 2)
    # the active count includes the input embedding table, of which a token reads one row
    assert w.active_weights_gb == pytest.approx((12.9e9 - 32000 * 4096) * 2 / 1e9)
    assert any("Mixture of experts" in n for n in w.notes)
    dense = weights_memory(WeightsInput(model=cat.models["llama-3.3-70b"], precision="bf16"))
    assert dense.active_weights_gb == dense.weights_gb


def test_serving_memory_per_card(cat: Catalog) -> None:
    m = cat.models["llama-3.3-70b"]
    s = serving_memory(ServingInput(model=m, context_tokens=8192, tensor_parallel=4))
    assert s.weights_gb_per_card == pytest.approx(141.107412992 / 4)
    assert s.kv_gb_per_card == pytest.approx(327_680 / 4 * 8192 / 1e9)
    assert s.required_gb_per_card == pytest.approx(
        s.weights_gb_per_card + s.kv_gb_per_card + s.overhead_gb_per_card
    )
    assert s.constants["gpu_memory_utilization"] == 0.9
    custom = serving_memory(ServingInput(model=m, overhead_gb_per_card=0, context_tokens=0))
    assert custom.required_gb_per_card == pytest.approx(141.107412992)


def test_generic_model_kv_is_estimated_from_the_nearest_catalog_model(cat: Catalog) -> None:
    m = cat.find_model("34B")
    s = serving_memory(ServingInput(model=m, context_tokens=100_000))
    assert s.weights.weights_gb == pytest.approx(68.0)
    dense = [
        x for x in cat.llm_models() if x.attention == "gqa" and not x.is_moe and x.has_architecture
    ]
    ref = min(dense, key=lambda x: abs(math.log(x.params_b / 34)))
    per_token = 2 * ref.layers * ref.kv_heads * ref.head_dim * 2  # type: ignore[operator]
    assert s.kv.kv_bytes_per_token == per_token
    assert s.kv_gb_per_card == pytest.approx(per_token * 100_000 / 1e9)
    assert m.estimate_basis and ref.name in m.estimate_basis
    assert any("KV cache estimated" in n for n in s.notes)


def test_training_memory_mixed_precision_adam(cat: Catalog) -> None:
    m = cat.find_model("70B")
    t = training_memory(TrainingInput(model=m))
    assert t.bytes_per_param == 18
    assert t.total_gb == pytest.approx(70 * 18)
    assert training_memory(TrainingInput(model=m, gradient_precision="bf16")).bytes_per_param == 16
    assert t.weights_gb + t.gradients_gb + t.master_weights_gb + t.optimizer_gb == pytest.approx(
        t.total_gb
    )


def test_published_vram(cat: Catalog) -> None:
    flux = cat.models["flux.1-dev"]
    assert published_vram(PublishedVramInput(model=flux)).vram_gb == 24
    fp8 = published_vram(PublishedVramInput(model=flux, precision="fp8"))
    assert (fp8.vram_gb_low, fp8.vram_gb) == (12, 16)
    sdxl = published_vram(PublishedVramInput(model=cat.models["sdxl"], precision="bf16"))
    assert sdxl.precision == "fp16" and sdxl.vram_gb == 8
    assert published_vram(PublishedVramInput(model=cat.models["wan-2.1-1.3b"])).vram_gb == 8.19
    with pytest.raises(ValueError, match="no published VRAM figure"):
        published_vram(PublishedVramInput(model=cat.models["sdxl"], precision="fp8"))
    with pytest.raises(ValueError):
        published_vram(PublishedVramInput(model=cat.models["llama-3.1-8b"]))


@pytest.mark.parametrize(
    ("text", "precision"),
    [("BF16", "bf16"), ("Q4_K_M", "gguf-q4_k_m"), ("gguf q8_0", "gguf-q8_0"), ("int4", "awq"),
     ("GPTQ", "gptq"), ("float16", "fp16")],
)  # fmt: skip
def test_normalize_precision(text: str, precision: str) -> None:
    assert normalize_precision(text) == precision


def test_unknown_precision() -> None:
    with pytest.raises(ValueError, match="unknown precision"):
        normalize_precision("q3")
