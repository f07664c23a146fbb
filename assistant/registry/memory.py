"""Memory: what a model needs to serve, to fine-tune or to train with LoRA/QLoRA (`memory_need`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from assistant.registry.core import PrecisionArg, _Args, _norm_precision, tool
from assistant.registry.helpers import _assumptions, _model, _model_info, _r


class MemoryArgs(_Args):
    model: str = Field(description="model name, HF id, ollama tag, or a parameter count like '34B'")
    precision: PrecisionArg | None = Field(default=None, description="omitted: native precision")
    context_tokens: int = Field(default=8192, ge=0, le=2_000_000, description="tokens per sequence")
    concurrency: int = Field(default=1, ge=1, le=4096, description="sequences served at once")
    kv_precision: Literal["bf16", "fp16", "fp8", "int8", "fp32"] = Field(
        default="bf16", description="KV-cache precision (vLLM kv_cache_dtype)"
    )
    tensor_parallel: int = Field(default=1, ge=1, le=8, description="cards the model is split over")
    runtime: Literal["vllm", "llama.cpp", "ollama"] | None = Field(
        default=None,
        description="serving engine; omitted: llama.cpp for GGUF precisions, else vllm",
    )
    training: bool = Field(
        default=False,
        description="true: full fine-tuning memory (mixed precision + Adam) instead of serving",
    )
    adapter: Literal["lora", "qlora"] | None = Field(
        default=None,
        description="LoRA/QLoRA fine-tuning memory instead of serving: 'lora' (BF16 base) or "
        "'qlora' (NF4 base); frozen base weights + FP32 adapter weights, gradients, Adam",
    )
    lora_rank: int = Field(default=16, ge=1, le=4096, description="LoRA rank r (with adapter)")
    lora_targets: Literal["all_linear", "attention"] = Field(
        default="all_linear",
        description="with adapter: all linear layers (attention + MLP) or attention only",
    )

    @field_validator("precision", mode="before")
    @classmethod
    def norm_precision(cls, v: Any) -> Any:
        return _norm_precision(v)


@tool
def memory_need(deps: Any, args: MemoryArgs) -> dict[str, Any]:
    """Memory a model needs: weights at a precision, KV cache for context x concurrency, runtime
    overhead, per card when split over tensor_parallel cards (GB = 10^9 bytes). With
    training=true: full fine-tuning with mixed precision and Adam, 18 bytes per parameter
    (BF16 weights 2 + FP32 gradients 4 + FP32 master 4 + Adam 8) before activations. With
    adapter='lora'/'qlora': LoRA/QLoRA fine-tuning memory (frozen base weights in BF16 or NF4 +
    16 bytes per adapter parameter, before activations). Image/video models: their published
    VRAM need. A model known only by its size carries its `assumptions`.
    """
    from tools.memory import (
        PublishedVramInput,
        ServingInput,
        TrainingInput,
        published_vram,
        serving_memory,
        training_memory,
    )

    m = _model(deps, args.model)
    if args.adapter is not None:
        return _adapter_need(m, args)
    if m.kind != "llm":
        pv = published_vram(PublishedVramInput(model=m, precision=args.precision))
        return {
            "model": _model_info(m),
            "precision": pv.precision,
            "vram_gb": pv.vram_gb,
            "vram_gb_low": pv.vram_gb_low,
            "available_precisions": pv.available_precisions,
            "formula": pv.formula,
            "notes": pv.notes,
        }
    if args.training:
        t = training_memory(TrainingInput(model=m))
        return {
            "model": _model_info(m),
            "training": True,
            "bytes_per_param": t.bytes_per_param,
            "weights_gb": _r(t.weights_gb),
            "gradients_gb": _r(t.gradients_gb),
            "master_weights_gb": _r(t.master_weights_gb),
            "optimizer_gb": _r(t.optimizer_gb),
            "total_gb": _r(t.total_gb),
            "assumptions": _assumptions(m),
            "formula": t.formula,
            "notes": t.notes,
        }
    s = serving_memory(
        ServingInput(
            model=m,
            precision=args.precision,
            context_tokens=args.context_tokens,
            concurrency=args.concurrency,
            kv_precision=args.kv_precision,
            tensor_parallel=args.tensor_parallel,
            runtime=args.runtime,
        )
    )
    return {
        "model": _model_info(m),
        "precision": s.weights.precision,
        "bits_per_weight": _r(s.weights.bits_per_weight, 3),
        "weights_gb": _r(s.weights.weights_gb),
        "active_weights_gb": _r(s.weights.active_weights_gb),
        "kv_bytes_per_token": s.kv.kv_bytes_per_token,
        "kv_gb_total": _r(s.kv.kv_gb_total),
        "kv_gb_per_card": _r(s.kv_gb_per_card),
        "overhead_gb_per_card": _r(s.overhead_gb_per_card),
        "tensor_parallel": args.tensor_parallel,
        "runtime": s.runtime,
        "kv_precision": args.kv_precision,
        "required_gb_per_card": _r(s.required_gb_per_card),
        "required_gb_total": _r(s.required_gb_total),
        "context_tokens": args.context_tokens,
        "concurrency": args.concurrency,
        "constants": s.constants,
        "assumptions": _assumptions(m),
        "formula": s.formula,
        "notes": s.notes,
    }


def _adapter_need(m: Any, args: MemoryArgs) -> dict[str, Any]:
    from tools.memory import AdapterTrainingInput, adapter_training_memory

    assert args.adapter is not None
    a = adapter_training_memory(
        AdapterTrainingInput(
            model=m, method=args.adapter, rank=args.lora_rank, targets=args.lora_targets
        )
    )
    return {
        "model": _model_info(m),
        "adapter": a.method,
        "lora_rank": a.rank,
        "lora_targets": a.targets,
        "base_precision": a.base_precision,
        "base_bits_per_param": _r(a.base_bits_per_param, 3),
        "adapter_params": a.adapter_params,
        "adapter_params_m": _r(a.adapter_params / 1e6, 1),
        "adapter_share_percent": _r(a.adapter_share_percent, 2),
        "adapter_bytes_per_param": a.adapter_bytes_per_param,
        "base_weights_gb": _r(a.base_weights_gb),
        "adapter_weights_gb": _r(a.adapter_weights_gb),
        "adapter_gradients_gb": _r(a.adapter_gradients_gb),
        "adapter_optimizer_gb": _r(a.adapter_optimizer_gb),
        "adapter_state_gb": _r(a.adapter_state_gb),
        "total_gb": _r(a.total_gb),
        "activations_included": False,
        "constants": a.constants,
        "formula": a.formula,
        "notes": a.notes,
    }
