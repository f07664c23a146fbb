"""Memory a model needs: weights by precision, KV cache, runtime overhead, training state.

Pure functions over `tools.specs.ModelSpec`. GB = 10^9 bytes. Every result carries its inputs,
the constants it used and the formula as text, so an answer can show its work.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tools.specs import KvPrecision, ModelSpec, Precision

GB = 1e9

#: Bits per weight of each precision. AWQ/GPTQ: 4-bit weights plus, per group of 128 weights, a
#: 16-bit scale and a 4-bit zero point (4 + 16/128 + 4/128 = 4.156). GGUF k-quants are the
#: averages llama.cpp publishes for Llama 3.1 8B (tools/quantize/README.md):
#: Q4_K_M 4.89, Q5_K_M 5.70, Q8_0 8.50.
AWQ_GROUP_SIZE = 128
#: MXFP4 (OCP Microscaling spec v1.0): 4-bit E2M1 elements with one 8-bit E8M0 scale per block of
#: 32, so 4 + 8/32 = 4.25 bits. gpt-oss ships its MoE expert weights in it and keeps attention,
#: router and embeddings in BF16 (OpenAI gpt-oss model card).
MXFP4_BLOCK_SIZE = 32
MXFP4_BITS = 4.0 + 8 / MXFP4_BLOCK_SIZE
BITS_PER_WEIGHT: dict[str, float] = {
    "fp32": 32.0,
    "bf16": 16.0,
    "fp16": 16.0,
    "fp8": 8.0,
    "int8": 8.0,
    "mxfp4": MXFP4_BITS,
    "awq": 4.0 + 16 / AWQ_GROUP_SIZE + 4 / AWQ_GROUP_SIZE,
    "gptq": 4.0 + 16 / AWQ_GROUP_SIZE + 4 / AWQ_GROUP_SIZE,
    "gguf-q4_k_m": 4.89,
    "gguf-q5_k_m": 5.70,
    "gguf-q8_0": 8.50,
}
#: Formats that keep the token embeddings and the output head (lm_head) in 16-bit. GGUF averages
#: already include their mixed tensors; fp32/bf16/fp16 store everything at their own width.
KEEPS_EMBEDDINGS_16BIT = frozenset({"fp8", "int8", "awq", "gptq"})
KV_BYTES: dict[str, float] = {"fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0}

#: Share of card memory a serving engine may use (vLLM's gpu_memory_utilization; 0.9 was the
#: default for years, newer releases use 0.92).
GPU_MEMORY_UTILIZATION = 0.9
#: Per-card runtime overhead inside that share: CUDA context, NCCL and other non-torch buffers
#: (llm-d measured 0.15-0.6 GiB) plus an activation buffer for single-stream serving. llm-d measured
#: peaks of about 4.8 GiB (dense) and 8 GiB (MoE) at vLLM's default batch; ours are smaller,
#: single-stream figures and can be overridden per call.
NON_TORCH_GB = 0.6
ACTIVATION_GB_DENSE = 2.0
ACTIVATION_GB_MOE = 4.0
#: Mixed-precision training with Adam, bytes per parameter before activations:
#: bf16 weights 2 + gradients (fp32 4 or bf16 2) + fp32 master weights 4 + Adam moments 8.
TRAIN_WEIGHTS_BYTES = 2.0
TRAIN_MASTER_BYTES = 4.0
TRAIN_ADAM_BYTES = 8.0
TRAIN_GRAD_BYTES = {"fp32": 4.0, "bf16": 2.0}

#: Serving engines. vLLM (default): memory x gpu_memory_utilization usable, tensor parallel (KV
#: heads replicated when tp > kv_heads), per-card overhead as above. llama.cpp and ollama (which
#: runs llama.cpp): layers are split across cards (`--split-mode layer`, the default), each layer's
#: KV cache lives with its layer, so nothing is replicated and any card count works; nearly the
#: whole card is usable.
Runtime = Literal["vllm", "llama.cpp", "ollama"]
RUNTIMES: tuple[str, ...] = ("vllm", "llama.cpp", "ollama")
#: llama.cpp/ollama: memory kept free on every card. ollama leaves 457 MiB per CUDA card
#: (discover/gpu.go, cudaMinimumMemory = 457 MiB); we use it for llama.cpp too.
LLAMA_CPP_RESERVE_GB = 457 * 2**20 / 1e9
#: llama.cpp/ollama: per-card compute buffer and CUDA context (assumption; llama.cpp prints the
#: real figure at load time as "CUDA0 compute buffer size"; it grows with n_ubatch and context).
LLAMA_CPP_OVERHEAD_GB = 1.0


class MemoryModel(BaseModel):
    """One engine's memory rule: the share of each card it may fill, the memory it keeps free,
    and the per-card overhead it needs beside weights and KV cache (issue 24: one rule per
    runtime, used by every tool that judges a fit). Sources in docs/sizing-engine.md."""

    model_config = ConfigDict(frozen=True)

    runtime: str
    usable_share: float = Field(gt=0, le=1, description="share of card memory usable")
    reserve_gb: float = Field(ge=0, description="memory kept free per card, GB")
    overhead: str = Field(description="per-card overhead rule, as text")
    source: str


#: The one memory model per runtime. vLLM (and SGLang, TensorRT-LLM, TGI, which the reading maps
#: to it: each takes a fixed share of the card, vLLM's gpu_memory_utilization 0.9, SGLang's
#: --mem-fraction-static, TensorRT-LLM's KvCacheConfig.free_gpu_memory_fraction 0.9) keeps 10 %
#: free; llama.cpp and ollama fill the card but a 457 MiB reserve; diffusers pipelines are
#: judged by their published peak against the whole card; training by its state against
#: vLLM's share (no separate overhead: activations are not in the training figures).
MEMORY_MODELS: dict[str, MemoryModel] = {
    "vllm": MemoryModel(
        runtime="vllm",
        usable_share=GPU_MEMORY_UTILIZATION,
        reserve_gb=0.0,
        overhead=f"{NON_TORCH_GB:g} GB non-torch + {ACTIVATION_GB_DENSE:g} GB activations "
        f"(dense) or {ACTIVATION_GB_MOE:g} GB (MoE)",
        source="vLLM CacheConfig.gpu_memory_utilization; llm-d measured non-torch and "
        "activation peaks",
    ),
    "llama.cpp": MemoryModel(
        runtime="llama.cpp",
        usable_share=1.0,
        reserve_gb=LLAMA_CPP_RESERVE_GB,
        overhead=f"{LLAMA_CPP_OVERHEAD_GB:g} GB compute buffer and CUDA context",
        source="ollama discover/gpu.go cudaMinimumMemory (457 MiB); llama.cpp 'CUDA0 compute "
        "buffer size' (assumption)",
    ),
    "ollama": MemoryModel(
        runtime="ollama",
        usable_share=1.0,
        reserve_gb=LLAMA_CPP_RESERVE_GB,
        overhead=f"{LLAMA_CPP_OVERHEAD_GB:g} GB compute buffer and CUDA context",
        source="ollama discover/gpu.go cudaMinimumMemory (457 MiB)",
    ),
    "diffusers": MemoryModel(
        runtime="diffusers",
        usable_share=1.0,
        reserve_gb=0.0,
        overhead="none beside the published peak (it includes VAE, text encoders, activations)",
        source="the model cards' published VRAM peaks (knowledge/catalog/models.yaml)",
    ),
    "training": MemoryModel(
        runtime="training",
        usable_share=GPU_MEMORY_UTILIZATION,
        reserve_gb=0.0,
        overhead="none beside the training state (activations not modelled)",
        source="as vLLM's share; QLoRA paper (arXiv:2305.14314) and mixed-precision Adam state",
    ),
}


def memory_model(runtime: str) -> MemoryModel:
    """The memory rule of an engine (`vllm`, `llama.cpp`, `ollama`, `diffusers`, `training`)."""
    try:
        return MEMORY_MODELS[runtime]
    except KeyError:
        raise ValueError(
            f"unknown runtime {runtime!r}; known: {', '.join(MEMORY_MODELS)}"
        ) from None


def runtime_of(precision: str | None, runtime: str | None) -> str:
    """The serving engine to size for: the one asked for; else llama.cpp for GGUF files and vLLM
    for everything else."""
    if runtime:
        return runtime
    return "llama.cpp" if (precision or "").startswith("gguf") else "vllm"


def layer_split(runtime: str) -> bool:
    """True for engines that split layers across cards (llama.cpp, ollama), not tensors."""
    return runtime in ("llama.cpp", "ollama")


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Out(BaseModel):
    formula: str = Field(description="the formula used, as text")
    constants: dict[str, float] = Field(default={}, description="constants the formula used")
    notes: list[str] = Field(default=[], description="assumptions and caveats")


def precision_of(model: ModelSpec, precision: str | None) -> str:
    """The precision to size for: the one asked for, else the model's native precision."""
    chosen = precision or model.native_precision
    if chosen not in BITS_PER_WEIGHT:
        raise ValueError(f"unknown precision {chosen!r}; known: {', '.join(BITS_PER_WEIGHT)}")
    return chosen


def embedding_params(model: ModelSpec) -> float:
    """Parameters of the token embeddings plus the output head (one matrix if tied)."""
    if model.vocab_size is None or model.hidden_size is None:
        return 0.0
    return model.vocab_size * model.hidden_size * (1 if model.tied_embeddings else 2)


def input_embedding_params(model: ModelSpec) -> float:
    """Parameters of an untied input embedding table: a decoded token gathers one row of it, so
    it is held in memory but not streamed per token (a tied table is read whole as the head)."""
    if model.vocab_size is None or model.hidden_size is None or model.tied_embeddings:
        return 0.0
    return float(model.vocab_size * model.hidden_size)


def params_16bit(model: ModelSpec, precision: str) -> float:
    """Parameters a format keeps in BF16: embeddings and head for FP8/INT8/AWQ/GPTQ; for MXFP4
    everything outside the routed experts when their size is known (gpt-oss), else the
    embeddings and head."""
    if precision == "mxfp4":
        if model.expert_params_b is not None:
            return max(model.params - model.expert_params_b * 1e9, 0.0)
        return embedding_params(model)
    return embedding_params(model) if precision in KEEPS_EMBEDDINGS_16BIT else 0.0


# ---------------------------------------------------------------- weights


def read_params_per_token(model: ModelSpec) -> float:
    """Parameters a decoder streams per token. Dense: all of them (the guide's size / bandwidth
    figure). MoE: the active ones (from the expert sizes when known, else the model card's
    active count, which includes the embeddings) less the input embedding table, of which a
    token gathers only its own row."""
    if not model.is_moe:
        return model.params
    if model.expert_params_b is not None and model.experts and model.active_experts:
        experts = model.expert_params_b * 1e9
        used = model.params - experts + experts * model.active_experts / model.experts
    else:
        used = (model.active_params_b or model.params_b) * 1e9
    return max(used - input_embedding_params(model), 0.0)


def weight_bytes(model: ModelSpec, precision: str) -> tuple[float, float, float]:
    """(all weights, weights read per token, 16-bit parameters) in bytes; the fast core."""
    bpw = BITS_PER_WEIGHT[precision]
    p16 = params_16bit(model, precision)
    total = (model.params - p16) * bpw / 8 + p16 * 2
    read = read_params_per_token(model)
    # the 16-bit parameters read per token: all of them, for a MoE less the untied input table
    # (MXFP4: the non-expert part; FP8/AWQ/...: the output head)
    table = input_embedding_params(model) if model.is_moe else 0.0
    r16 = min(max(p16 - table, 0.0), read) if p16 else 0.0
    return total, (read - r16) * bpw / 8 + r16 * 2, p16


class WeightsInput(_In):
    model: ModelSpec
    precision: Precision | None = Field(default=None, description="None: the native precision")


class WeightsResult(_Out):
    inputs: WeightsInput
    model_id: str
    precision: str
    bits_per_weight: float
    params: float = Field(description="total parameters")
    params_16bit: float = Field(description="parameters kept in 16-bit (embeddings, lm_head)")
    weights_gb: float = Field(description="memory of all weights, GB")
    active_weights_gb: float = Field(
        description="weights read per token (MoE: active parameters; dense: all), GB"
    )


def weights_memory(inp: WeightsInput) -> WeightsResult:
    """Memory of a model's weights at a precision; MoE: total decides memory, active speed."""
    model = inp.model
    precision = precision_of(model, inp.precision)
    bpw = BITS_PER_WEIGHT[precision]
    params = model.params
    weights_bytes, active_bytes, p16 = weight_bytes(model, precision)
    notes: list[str] = []
    if model.is_moe:
        notes.append(
            f"Mixture of experts: all {model.params_b:g}B parameters must be in memory; "
            f"only {model.active_params_b:g}B are read per token."
        )
    if p16 and precision == "mxfp4" and model.expert_params_b is not None:
        notes.append(
            f"mxfp4: the experts are 4-bit with a shared scale per 32 weights ({bpw:g} bits); "
            f"attention, router and embeddings ({p16 / 1e9:.2f}B) stay BF16."
        )
    elif p16:
        notes.append(f"{precision}: embeddings and output head ({p16 / 1e9:.2f}B) stay 16-bit.")
    formula = (
        "weights_gb = (params - params_16bit) * bits_per_weight / 8 / 1e9 + params_16bit * 2 / 1e9"
        if p16
        else "weights_gb = params * bits_per_weight / 8 / 1e9"
    )
    return WeightsResult(
        inputs=inp,
        model_id=model.id,
        precision=precision,
        bits_per_weight=bpw,
        params=params,
        params_16bit=p16,
        weights_gb=weights_bytes / GB,
        active_weights_gb=active_bytes / GB,
        formula=formula,
        constants={"bits_per_weight": bpw, "bytes_16bit": 2.0},
        notes=notes,
    )


# ---------------------------------------------------------------- KV cache


class KvInput(_In):
    model: ModelSpec
    context_tokens: int = Field(ge=0, description="tokens per sequence (prompt + output)")
    concurrency: int = Field(default=1, ge=1, description="sequences held at the same time")
    kv_precision: KvPrecision = "bf16"
    tensor_parallel: int = Field(default=1, ge=1, description="cards the model is split across")
    split_layers: bool = Field(
        default=False, description="layers divided among the cards (llama.cpp): no replication"
    )


class KvResult(_Out):
    inputs: KvInput
    model_id: str
    known: bool = Field(description="False when the architecture is unknown (KV not counted)")
    kv_bytes_per_token: float = Field(description="KV bytes per token for the whole model")
    kv_bytes_per_token_per_card: float = Field(description="per card under tensor parallelism")
    kv_heads_per_card: float | None = Field(description="max(kv_heads / tp, 1); None for MLA")
    replicated: bool = Field(description="True when KV heads are copied onto several cards")
    tokens: int = Field(description="context_tokens * concurrency")
    kv_gb_per_card: float
    kv_gb_total: float = Field(description="KV over all cards, replication included")
    kv_layers: float = Field(
        default=0.0,
        description="layers' worth of KV per token at this context (sliding-window layers keep "
        "at most their window; kv_layers = layers - local + local * min(context, window) / "
        "context)",
    )
    kv_bytes_per_token_low: float | None = Field(
        default=None, description="unknown architecture: the grouped-query estimate (low end)"
    )
    kv_bytes_per_token_high: float | None = Field(
        default=None, description="unknown architecture: without grouped-query attention (high)"
    )


def kv_layers(model: ModelSpec, context_tokens: int | None = None) -> float:
    """Layers' worth of KV one token costs on average over a sequence of `context_tokens`:
    global layers keep every token, sliding-window layers at most `sliding_window` of them
    (Gemma 2/3, gpt-oss, Command A). None: every layer counted in full (the short-context
    figure, an upper bound)."""
    layers = float(model.layers or 0)
    local = model.sliding_window_layers
    if not local or not model.sliding_window or not context_tokens:
        return layers
    kept = min(context_tokens, model.sliding_window) / context_tokens
    return layers - local + local * kept


def kv_bytes_per_token(
    model: ModelSpec, kv_precision: str = "bf16", context_tokens: int | None = None
) -> float:
    """KV bytes one token adds: 2*layers*kv_heads*head_dim*bytes (MLA: layers*(rank+rope)*bytes);
    with sliding-window layers, the average over a sequence of `context_tokens`."""
    b = KV_BYTES[kv_precision]
    if not model.has_architecture or model.layers is None:
        return 0.0
    if model.attention == "mla":
        assert model.kv_lora_rank is not None and model.rope_dim is not None
        return model.layers * (model.kv_lora_rank + model.rope_dim) * b
    assert model.kv_heads is not None and model.head_dim is not None
    return 2 * kv_layers(model, context_tokens) * model.kv_heads * model.head_dim * b


def kv_bytes_per_token_per_card(
    model: ModelSpec,
    kv_precision: str,
    tensor_parallel: int,
    split_layers: bool = False,
    context_tokens: int | None = None,
) -> float:
    """KV bytes per token on one card under tensor parallelism (replication included); with
    split_layers (llama.cpp, ollama) the layers and their KV are divided among the cards."""
    if not model.has_architecture:
        return 0.0
    if split_layers:
        return kv_bytes_per_token(model, kv_precision, context_tokens) / tensor_parallel
    if model.attention == "mla":
        return kv_bytes_per_token(model, kv_precision)
    assert model.kv_heads is not None and model.head_dim is not None
    heads = max(model.kv_heads / tensor_parallel, 1.0)
    return 2 * kv_layers(model, context_tokens) * heads * model.head_dim * KV_BYTES[kv_precision]


def kv_bounds(model: ModelSpec, kv_precision: str = "bf16") -> tuple[float, float] | None:
    """A generic model's KV bytes per token from both sides: its assumed grouped-query layout
    (low) and the same layers without grouped-query attention (high, as Llama 2 13B): one KV
    head per query head, with the width a dense transformer of this size has
    (params ~ 12 * layers * width^2). None for a catalog model."""
    if not model.generic or not model.has_architecture or model.layers is None:
        return None
    low = kv_bytes_per_token(model, kv_precision)
    width = (model.params / (12 * model.layers)) ** 0.5
    high = 2 * model.layers * width * KV_BYTES[kv_precision]
    return low, max(low, high)


def kv_cache(inp: KvInput) -> KvResult:
    """KV cache for context x concurrency, with KV heads replicated when tp exceeds kv_heads."""
    model, tp = inp.model, inp.tensor_parallel
    b = KV_BYTES[inp.kv_precision]
    ctx = inp.context_tokens
    per_token = kv_bytes_per_token(model, inp.kv_precision, ctx)
    layers = kv_layers(model, ctx)
    tokens = inp.context_tokens * inp.concurrency
    notes: list[str] = []
    heads_per_card: float | None = None
    replicated = False
    bounds = kv_bounds(model, inp.kv_precision)
    lw = "layers"
    if model.sliding_window_layers and model.sliding_window:
        lw = "kv_layers"  # kv_layers = layers - local + local * min(context, window) / context
    if model.generic and model.has_architecture:
        notes.append(f"KV cache estimated: {model.estimate_basis}.")
    if bounds is not None:
        notes.append(
            f"Architecture unknown: KV between {bounds[0] / 1e3:,.0f} KB per token (grouped-query "
            f"attention, as assumed) and {bounds[1] / 1e3:,.0f} KB per token (no grouped-query "
            "attention); name the model for its own figure."
        )
    if model.sliding_window_layers and model.sliding_window and model.attention != "mla":
        notes.append(
            f"{model.sliding_window_layers} of {model.layers} layers use a "
            f"{model.sliding_window:,}-token sliding window and keep at most that many tokens"
            + (
                f"; at {ctx:,} tokens the cache costs {layers:.1f} layers' worth per token."
                if ctx
                else "."
            )
        )
    if not model.has_architecture:
        per_card_token = 0.0
        formula = "unknown architecture: KV cache not counted"
        notes.append(
            "Only the parameter count is known, so the KV cache is not counted; "
            "name the model to include it."
        )
    elif inp.split_layers:
        per_card_token = per_token / tp
        formula = (
            f"kv_bytes_per_token = 2 * {lw} * kv_heads * head_dim * bytes; per card: "
            "kv_bytes_per_token / cards (layers split across cards, no replication)"
        )
    elif model.attention == "mla":
        per_card_token = per_token  # the compressed latent is stored whole on every card
        replicated = tp > 1
        formula = (
            "kv_bytes_per_token = layers * (kv_lora_rank + rope_dim) * bytes; "
            "MLA latent replicated on every card"
        )
    else:
        assert model.kv_heads is not None and model.head_dim is not None
        heads_per_card = max(model.kv_heads / tp, 1.0)
        replicated = tp > model.kv_heads
        per_card_token = 2 * layers * heads_per_card * model.head_dim * b
        formula = (
            f"kv_bytes_per_token = 2 * {lw} * kv_heads * head_dim * bytes; "
            f"per card: 2 * {lw} * max(kv_heads / tp, 1) * head_dim * bytes"
        )
        if replicated:
            notes.append(
                f"Tensor parallel {tp} exceeds {model.kv_heads} KV heads: heads are replicated."
            )
    return KvResult(
        inputs=inp,
        model_id=model.id,
        known=model.has_architecture,
        kv_bytes_per_token=per_token,
        kv_bytes_per_token_per_card=per_card_token,
        kv_heads_per_card=heads_per_card,
        replicated=replicated,
        tokens=tokens,
        kv_gb_per_card=per_card_token * tokens / GB,
        kv_gb_total=per_card_token * tokens * tp / GB,
        kv_layers=layers,
        kv_bytes_per_token_low=bounds[0] if bounds else None,
        kv_bytes_per_token_high=bounds[1] if bounds else None,
        formula=formula
        + (
            "; kv_layers = layers - window_layers + window_layers * min(context, window) / context"
            if lw == "kv_layers"
            else ""
        )
        + "; kv_gb = bytes_per_token * context_tokens * concurrency / 1e9",
        constants={"kv_bytes_per_value": b},
        notes=notes,
    )


# ---------------------------------------------------------------- serving total


def default_overhead_gb(model: ModelSpec) -> float:
    """Runtime overhead per card: non-torch buffers plus a single-stream activation buffer."""
    return NON_TORCH_GB + (ACTIVATION_GB_MOE if model.is_moe else ACTIVATION_GB_DENSE)


class ServingInput(_In):
    model: ModelSpec
    precision: Precision | None = None
    context_tokens: int = Field(default=8192, ge=0)
    concurrency: int = Field(default=1, ge=1)
    kv_precision: KvPrecision = "bf16"
    tensor_parallel: int = Field(default=1, ge=1)
    gpu_memory_utilization: float = Field(default=GPU_MEMORY_UTILIZATION, gt=0, le=1)
    overhead_gb_per_card: float | None = Field(default=None, ge=0, description="None: default")
    runtime: Runtime | None = Field(
        default=None, description="None: llama.cpp for GGUF precisions, else vLLM"
    )


class ServingResult(_Out):
    inputs: ServingInput
    weights: WeightsResult
    kv: KvResult
    overhead_gb_per_card: float
    weights_gb_per_card: float
    kv_gb_per_card: float
    required_gb_per_card: float = Field(description="weights/tp + KV per card + overhead")
    required_gb_total: float
    runtime: str = Field(description="the serving engine sized for")


def runtime_overhead_gb(model: ModelSpec, runtime: str, override: float | None = None) -> float:
    """Per-card overhead of a serving engine (an explicit override wins)."""
    if override is not None:
        return override
    return LLAMA_CPP_OVERHEAD_GB if layer_split(runtime) else default_overhead_gb(model)


def runtime_constants(runtime: str, util: float, overhead: float) -> dict[str, float]:
    """The constants an engine's sizing used (for results)."""
    if layer_split(runtime):
        return {
            "gpu_memory_utilization": 1.0,
            "reserve_gb_per_card": LLAMA_CPP_RESERVE_GB,
            "overhead_gb_per_card": overhead,
        }
    return {
        "gpu_memory_utilization": util,
        "overhead_gb_per_card": overhead,
        "non_torch_gb": NON_TORCH_GB,
    }


def runtime_notes(runtime: str, precision: str) -> list[str]:
    """Caveats of sizing a precision on an engine."""
    if layer_split(runtime):
        notes = [
            f"{runtime}: layers (and their KV cache) are split across cards, nothing replicated; "
            f"usable = card memory - {LLAMA_CPP_RESERVE_GB:.2f} GB reserve, "
            f"{LLAMA_CPP_OVERHEAD_GB:g} GB compute buffer per card (assumption)."
        ]
        if not precision.startswith("gguf"):
            notes.append(f"{runtime} runs GGUF files; {precision} is sized as given.")
        return notes
    if precision.startswith("gguf"):
        return ["vLLM's GGUF support is experimental; llama.cpp or ollama is the usual runtime."]
    return []


def serving_memory(inp: ServingInput) -> ServingResult:
    """Per-card memory to serve a model split over `tensor_parallel` cards."""
    w = weights_memory(WeightsInput(model=inp.model, precision=inp.precision))
    runtime = runtime_of(w.precision, inp.runtime)
    split = layer_split(runtime)
    kv = kv_cache(
        KvInput(
            model=inp.model,
            context_tokens=inp.context_tokens,
            concurrency=inp.concurrency,
            kv_precision=inp.kv_precision,
            tensor_parallel=inp.tensor_parallel,
            split_layers=split,
        )
    )
    overhead = runtime_overhead_gb(inp.model, runtime, inp.overhead_gb_per_card)
    per_card = w.weights_gb / inp.tensor_parallel + kv.kv_gb_per_card + overhead
    usable_text = (
        f"usable_gb_per_card = memory_gb - {LLAMA_CPP_RESERVE_GB:.3f}"
        if split
        else "usable_gb_per_card = memory_gb * gpu_memory_utilization"
    )
    return ServingResult(
        inputs=inp,
        weights=w,
        kv=kv,
        overhead_gb_per_card=overhead,
        weights_gb_per_card=w.weights_gb / inp.tensor_parallel,
        kv_gb_per_card=kv.kv_gb_per_card,
        required_gb_per_card=per_card,
        required_gb_total=per_card * inp.tensor_parallel,
        runtime=runtime,
        formula="required_gb_per_card = weights_gb / tp + kv_gb_per_card + overhead_gb_per_card; "
        + usable_text,
        constants=runtime_constants(runtime, inp.gpu_memory_utilization, overhead),
        notes=[*w.notes, *kv.notes, *runtime_notes(runtime, w.precision)],
    )


def usable_gb(memory_gb: float, gpu_memory_utilization: float = GPU_MEMORY_UTILIZATION) -> float:
    """The share of a card's memory a serving engine may use."""
    return memory_gb * gpu_memory_utilization


def runtime_usable_gb(
    memory_gb: float, runtime: str, gpu_memory_utilization: float = GPU_MEMORY_UTILIZATION
) -> float:
    """Usable memory of a card under an engine (its `MemoryModel`): vLLM's share (a given
    `gpu_memory_utilization` replaces it), llama.cpp's card minus reserve, diffusers' card."""
    mm = memory_model(runtime)
    share = gpu_memory_utilization if mm.usable_share < 1 else mm.usable_share
    return memory_gb * share - mm.reserve_gb


# ---------------------------------------------------------------- image and video models


class PublishedVramInput(_In):
    model: ModelSpec
    precision: str | None = Field(default=None, description="None: the model's native precision")


class PublishedVramResult(_Out):
    inputs: PublishedVramInput
    model_id: str
    precision: str
    vram_gb: float
    vram_gb_low: float | None
    available_precisions: list[str]


def published_vram(inp: PublishedVramInput) -> PublishedVramResult:
    """An image or video model's published VRAM need at a precision (no multi-card split)."""
    model = inp.model
    if not model.vram:
        raise ValueError(f"{model.name} has no published VRAM needs (it is an LLM)")
    wanted = inp.precision or model.native_precision
    by_precision = {v.precision: v for v in model.vram}
    if wanted in ("bf16", "fp16") and wanted not in by_precision:
        wanted = "fp16" if "fp16" in by_precision else "bf16"
    if wanted not in by_precision:
        raise ValueError(
            f"{model.name}: no published VRAM figure for {wanted}; known: {', '.join(by_precision)}"
        )
    need = by_precision[wanted]
    return PublishedVramResult(
        inputs=inp,
        model_id=model.id,
        precision=wanted,
        vram_gb=need.vram_gb,
        vram_gb_low=need.vram_gb_low,
        available_precisions=list(by_precision),
        formula="vram_gb = the published figure (upper end of a range), no offloading",
        notes=[need.note] if need.note else [],
    )


# ---------------------------------------------------------------- training


class TrainingInput(_In):
    model: ModelSpec
    gradient_precision: Literal["fp32", "bf16"] = "fp32"


class TrainingResult(_Out):
    inputs: TrainingInput
    model_id: str
    bytes_per_param: float
    weights_gb: float
    gradients_gb: float
    master_weights_gb: float
    optimizer_gb: float
    total_gb: float = Field(description="before activations")


def training_memory(inp: TrainingInput) -> TrainingResult:
    """Full fine-tuning with mixed precision and Adam: 16-18 bytes per parameter + activations."""
    p = inp.model.params
    grad = TRAIN_GRAD_BYTES[inp.gradient_precision]
    per_param = TRAIN_WEIGHTS_BYTES + grad + TRAIN_MASTER_BYTES + TRAIN_ADAM_BYTES
    return TrainingResult(
        inputs=inp,
        model_id=inp.model.id,
        bytes_per_param=per_param,
        weights_gb=p * TRAIN_WEIGHTS_BYTES / GB,
        gradients_gb=p * grad / GB,
        master_weights_gb=p * TRAIN_MASTER_BYTES / GB,
        optimizer_gb=p * TRAIN_ADAM_BYTES / GB,
        total_gb=p * per_param / GB,
        formula=(
            f"total_gb = params * (bf16 weights 2 + {inp.gradient_precision} gradients {grad:g} "
            "+ fp32 master 4 + Adam 8) / 1e9"
        ),
        constants={
            "weights_bytes": TRAIN_WEIGHTS_BYTES,
            "gradient_bytes": grad,
            "master_bytes": TRAIN_MASTER_BYTES,
            "adam_bytes": TRAIN_ADAM_BYTES,
        },
        notes=["Activations come on top and grow with batch size and sequence length."],
    )


# ---------------------------------------------------------------- LoRA / QLoRA

#: QLoRA (Dettmers et al. 2023, "QLoRA: Efficient Finetuning of Quantized LLMs", arXiv:2305.14314,
#: section 3): the frozen base weights are stored as 4-bit NormalFloat (NF4) in blocks of 64, and
#: double quantisation stores each block's constant in 8 bits with one 32-bit constant per 256
#: blocks: 4 + 8/64 + 32/(64*256) = 4.127 bits per quantised parameter. The token embeddings and
#: the output head stay in BF16 (bitsandbytes quantises the linear layers only).
QLORA_BLOCK_SIZE = 64
QLORA_SECOND_BLOCK_SIZE = 256
QLORA_BITS_PER_PARAM = (
    4.0 + 8 / QLORA_BLOCK_SIZE + 32 / (QLORA_BLOCK_SIZE * QLORA_SECOND_BLOCK_SIZE)
)
#: LoRA (Hu et al. 2021, arXiv:2106.09685): the frozen base weights stay in BF16.
LORA_BASE_BYTES = 2.0
#: The adapters train in FP32 with Adam: weights 4 + gradients 4 + two moments 8 = 16 bytes each.
ADAPTER_WEIGHT_BYTES = 4.0
ADAPTER_GRAD_BYTES = 4.0
ADAPTER_ADAM_BYTES = TRAIN_ADAM_BYTES
DEFAULT_LORA_RANK = 16

AdapterMethod = Literal["lora", "qlora"]
AdapterTargets = Literal["all_linear", "attention"]


class AdapterTrainingInput(_In):
    model: ModelSpec
    method: AdapterMethod = "lora"
    rank: int = Field(default=DEFAULT_LORA_RANK, ge=1, le=4096, description="LoRA rank r")
    targets: AdapterTargets = Field(
        default="all_linear",
        description="all_linear: attention and MLP projections (the QLoRA paper's choice); "
        "attention: q, k, v, o only",
    )


class AdapterTrainingResult(_Out):
    inputs: AdapterTrainingInput
    model_id: str
    method: str
    rank: int
    targets: str
    base_precision: str = Field(description="bf16 (LoRA) or nf4 (QLoRA, double quantised)")
    base_bits_per_param: float = Field(description="bits per frozen base parameter")
    params: float = Field(description="total base parameters")
    params_16bit: float = Field(description="base parameters kept in BF16 (QLoRA: embeddings)")
    adapter_params: int = Field(description="trainable LoRA parameters, all layers")
    adapter_params_per_layer: int
    adapter_share_percent: float = Field(description="adapter params / base params * 100")
    adapter_bytes_per_param: float = Field(description="FP32 weights + gradients + Adam moments")
    base_weights_gb: float = Field(description="frozen base weights, GB")
    adapter_weights_gb: float
    adapter_gradients_gb: float
    adapter_optimizer_gb: float
    adapter_state_gb: float = Field(description="adapter weights + gradients + Adam moments, GB")
    total_gb: float = Field(description="base weights + adapter state, before activations")


def lora_matrices(model: ModelSpec, targets: str) -> list[tuple[str, int, int, int]]:
    """The matrices LoRA adapts in one layer: (name, d_in, d_out, copies); ValueError if the
    model's shapes are not modelled."""
    if model.kind != "llm":
        raise ValueError(f"{model.name} is not an LLM: LoRA sizing covers language models only")
    if model.generic or not model.has_architecture:
        raise ValueError(
            f"{model.name}: only the parameter count is known, not the layer shapes, so the "
            "LoRA adapter size can't be computed; name the model"
        )
    if model.attention == "mla":
        raise ValueError(
            f"{model.name} uses multi-head latent attention (MLA), whose low-rank projections "
            "are not modelled here, so its LoRA adapter size can't be computed"
        )
    hidden, heads, kv_heads, head_dim = (
        model.hidden_size,
        model.heads,
        model.kv_heads,
        model.head_dim,
    )
    if hidden is None or heads is None or kv_heads is None or head_dim is None:
        raise ValueError(f"{model.name}: hidden size or attention heads unknown")
    mats = [
        ("q_proj", hidden, heads * head_dim, 1),
        ("k_proj", hidden, kv_heads * head_dim, 1),
        ("v_proj", hidden, kv_heads * head_dim, 1),
        ("o_proj", heads * head_dim, hidden, 1),
    ]
    if targets == "all_linear":
        inter = model.intermediate_size
        if inter is None:
            raise ValueError(f"{model.name}: MLP width (intermediate_size) unknown")
        experts = model.experts or 1
        mats += [
            ("gate_proj", hidden, inter, experts),
            ("up_proj", hidden, inter, experts),
            ("down_proj", inter, hidden, experts),
        ]
    return mats


def adapter_training_memory(inp: AdapterTrainingInput) -> AdapterTrainingResult:
    """LoRA / QLoRA fine-tuning: frozen base weights (BF16, or NF4 with double quantisation)
    plus FP32 adapter weights, gradients and Adam moments (16 bytes per adapter parameter),
    before activations. ValueError when the model's layer shapes are not modelled."""
    model, r = inp.model, inp.rank
    mats = lora_matrices(model, inp.targets)
    if model.layers is None:
        raise ValueError(f"{model.name}: number of layers unknown")
    per_layer = sum(r * (d_in + d_out) * n for _, d_in, d_out, n in mats)
    adapter = per_layer * model.layers
    params = model.params
    if inp.method == "qlora":
        base_precision, bits = "nf4", QLORA_BITS_PER_PARAM
        p16 = embedding_params(model)
        base_bytes = (params - p16) * bits / 8 + p16 * LORA_BASE_BYTES
        base_formula = (
            "base_weights_gb = ((params - params_16bit) * (4 + 8/64 + 32/(64*256)) / 8 "
            "+ params_16bit * 2) / 1e9"
        )
    else:
        base_precision, bits = "bf16", LORA_BASE_BYTES * 8
        p16 = params
        base_bytes = params * LORA_BASE_BYTES
        base_formula = "base_weights_gb = params * 2 / 1e9"
    per_adapter = ADAPTER_WEIGHT_BYTES + ADAPTER_GRAD_BYTES + ADAPTER_ADAM_BYTES
    state = adapter * per_adapter
    names = ", ".join(name for name, *_ in mats)
    notes = [
        f"LoRA rank {r} on {names} in each of {model.layers} layers"
        + (
            f" (the MLP of all {model.experts} experts)"
            if model.experts and mats[-1][3] > 1
            else ""
        )
        + f": {adapter:,} trainable parameters.",
        "Activations are not included: they grow with batch size and sequence length; "
        "gradient checkpointing keeps them small.",
    ]
    if inp.method == "qlora":
        notes.append(
            f"QLoRA: NF4 with double quantisation, {QLORA_BITS_PER_PARAM:.3f} bits per quantised "
            f"parameter (Dettmers et al. 2023, arXiv:2305.14314); embeddings and output head "
            f"({p16 / 1e9:.2f}B parameters) stay in BF16."
        )
    if model.is_moe:
        notes.append("Mixture of experts: the router stays frozen and is not adapted.")
    return AdapterTrainingResult(
        inputs=inp,
        model_id=model.id,
        method=inp.method,
        rank=r,
        targets=inp.targets,
        base_precision=base_precision,
        base_bits_per_param=bits,
        params=params,
        params_16bit=p16,
        adapter_params=adapter,
        adapter_params_per_layer=per_layer,
        adapter_share_percent=adapter / params * 100,
        adapter_bytes_per_param=per_adapter,
        base_weights_gb=base_bytes / GB,
        adapter_weights_gb=adapter * ADAPTER_WEIGHT_BYTES / GB,
        adapter_gradients_gb=adapter * ADAPTER_GRAD_BYTES / GB,
        adapter_optimizer_gb=adapter * ADAPTER_ADAM_BYTES / GB,
        adapter_state_gb=state / GB,
        total_gb=(base_bytes + state) / GB,
        formula=base_formula
        + "; adapter_params = layers * sum over target matrices W (d_in x d_out, x experts) of "
        "rank * (d_in + d_out); adapter_state_gb = adapter_params * (4 + 4 + 8) / 1e9; "
        "total_gb = base_weights_gb + adapter_state_gb",
        constants={
            "base_bits_per_param": bits,
            "bytes_16bit": LORA_BASE_BYTES,
            "adapter_weight_bytes": ADAPTER_WEIGHT_BYTES,
            "adapter_gradient_bytes": ADAPTER_GRAD_BYTES,
            "adapter_adam_bytes": ADAPTER_ADAM_BYTES,
            "rank": float(r),
        },
        notes=notes,
    )


# ---------------------------------------------------------------- precision names

PRECISION_ALIASES: dict[str, str] = {
    "float32": "fp32",
    "f32": "fp32",
    "bfloat16": "bf16",
    "float16": "fp16",
    "f16": "fp16",
    "half": "fp16",
    "16bit": "bf16",
    "e4m3": "fp8",
    "float8": "fp8",
    "w8a8": "int8",
    "8bit": "int8",
    "int4": "awq",
    "4bit": "awq",
    "awqint4": "awq",
    "gptqint4": "gptq",
    "q4km": "gguf-q4_k_m",
    "q4_k_m": "gguf-q4_k_m",
    "ggufq4km": "gguf-q4_k_m",
    "gguf": "gguf-q4_k_m",
    "q5km": "gguf-q5_k_m",
    "q5_k_m": "gguf-q5_k_m",
    "ggufq5km": "gguf-q5_k_m",
    "q80": "gguf-q8_0",
    "q8_0": "gguf-q8_0",
    "ggufq80": "gguf-q8_0",
}


def normalize_precision(text: str) -> str:
    """'BF16', 'Q4_K_M', 'int4', 'gguf q8_0' -> a known precision id; ValueError if unknown."""
    raw = text.strip().lower()
    if raw in BITS_PER_WEIGHT:
        return raw
    squashed = raw.replace(" ", "").replace("-", "").replace(".", "")
    for key in (raw, squashed, squashed.replace("_", "")):
        if key in PRECISION_ALIASES:
            return PRECISION_ALIASES[key]
        if key in BITS_PER_WEIGHT:
            return key
    raise ValueError(f"unknown precision {text!r}; known: {', '.join(BITS_PER_WEIGHT)}")


def precisions_for(model: ModelSpec) -> list[str]:
    """Precisions a model can be sized at: all weight formats for an LLM, published ones else."""
    if model.kind == "llm":
        return list(BITS_PER_WEIGHT)
    return [v.precision for v in model.vram]
