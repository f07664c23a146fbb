"""Advice: the site guide's purchase rule that applies (`purchase_advice`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from assistant.registry.core import PrecisionArg, ToolError, _Args, _norm_precision, tool
from assistant.registry.fit import FitArgs, KvPrecisionArg, RuntimeArg, fit_check
from assistant.registry.helpers import _model, _model_info
from assistant.registry.memory import MemoryArgs, memory_need


class AdviceArgs(_Args):
    model: str | None = Field(
        default=None,
        description="model name or parameter count; decides whether it fits on one card. "
        "Omitted: give fits_one_card yourself",
    )
    precision: PrecisionArg | None = Field(default=None, description="omitted: native precision")
    context_tokens: int = Field(default=8192, ge=0, le=2_000_000)
    concurrency: int = Field(default=1, ge=1, le=4096)
    kv_precision: KvPrecisionArg = Field(
        default="bf16", description="KV-cache precision (vLLM kv_cache_dtype)"
    )
    runtime: RuntimeArg | None = Field(
        default=None,
        description="serving engine; omitted: llama.cpp for GGUF precisions, else vllm",
    )
    fits_one_card: bool | None = Field(default=None, description="only when no model is given")
    workload: Literal["llm_serving", "training", "image_video", "rendering"] = Field(
        default="llm_serving",
        description="serving an LLM, training/fine-tuning, image/video generation, or rendering",
    )
    traffic: Literal["low", "high"] = Field(
        default="low", description="serving: 'high' for real traffic, 'low' for few users"
    )
    parallelism: Literal["auto", "tensor", "pipeline", "replicas"] = Field(
        default="auto", description="how the job is split, if the user said"
    )
    independent_jobs: bool = Field(
        default=False, description="several independent models or jobs (one per card)"
    )
    method: Literal["full", "lora", "qlora"] = Field(
        default="full",
        description="training only: full fine-tuning, LoRA or QLoRA (its memory decides one card "
        "or a split)",
    )
    cards_needed: int | None = Field(default=None, ge=1, le=1024, description="cards one job needs")
    planned_tensor_parallel: int | None = Field(
        default=None, ge=1, le=64, description="tensor-parallel size the user plans"
    )
    configuration: str | None = Field(
        default=None,
        description="judge against this configuration's card (does one of its cards hold the "
        "job, how many of them does it need); omitted: any configuration",
    )

    @field_validator("precision", mode="before")
    @classmethod
    def norm_precision(cls, v: Any) -> Any:
        return _norm_precision(v)


@tool
def purchase_advice(deps: Any, args: AdviceArgs) -> dict[str, Any]:
    """The site guide's purchase rule that applies (NVLink/SXM or PCIe or one card), with the guide
    section to cite: 1 fits one card -> one card; 2 independent models/jobs -> PCIe; 3 too big,
    low concurrency -> PCIe works, size for memory; 4 too big, real traffic or training -> NVLink,
    buy SXM; 5 more than eight cards -> needs a fabric between nodes (not offered). Also the cases
    where the link does not matter and the most expensive mistake."""
    from tools.advice import AdviceInput
    from tools.advice import purchase_advice as advise

    fits = args.fits_one_card
    cards_needed = args.cards_needed
    info = None
    holding: list[str] | None = None
    pcie: set[str] = set()
    if args.model is not None:
        m = _model(deps, args.model)
        info = _model_info(m)
        if args.workload == "training" and m.kind == "llm":
            fits, needed = _training_case(deps, args)
            cards_needed = cards_needed if cards_needed is not None else needed
        else:
            fit = fit_check(
                deps,
                FitArgs(
                    model=args.model,
                    precision=args.precision,
                    context_tokens=args.context_tokens,
                    concurrency=args.concurrency,
                    kv_precision=args.kv_precision,
                    runtime=args.runtime,
                    configurations=[args.configuration] if args.configuration else None,
                ),
            )
            rows = fit.rows
            # "fits on one card" as the rule means it: a one-card node holds it (or nothing but
            # one card of a big multi-card node does); a model that needs an H200 or B200 card,
            # which come only in 4/8-card nodes, is otherwise split across smaller cards
            splits = [r.cards_needed for r in rows if r.verdict == "split" and r.cards_needed]
            one_card = [r for r in rows if r.verdict == "fits_one_card"]
            fits = any(r.count == 1 for r in one_card) or (bool(one_card) and not splits)
            holding = [r.configuration for r in rows if r.verdict != "does_not_fit"]
            pcie = {r.configuration for r in rows if r.interconnect.startswith("pcie")}
            if not fits and cards_needed is None:
                cards_needed = min(splits) if splits else _cards_elsewhere(deps, args)
    if fits is None:
        raise ToolError("purchase_advice: give a model or fits_one_card")
    res = advise(
        AdviceInput(
            fits_one_card=fits,
            cards_needed=cards_needed,
            independent_jobs=args.independent_jobs,
            workload=args.workload,
            parallelism=args.parallelism,
            traffic=args.traffic,
            planned_tensor_parallel=args.planned_tensor_parallel,
        )
    )
    out = res.model_dump(mode="json")
    out.pop("inputs", None)
    out["model"] = info
    out["fits_one_card"] = fits
    out["cards_needed"] = cards_needed
    if holding is not None:
        # rule 3 says PCIe works; whether a PCIe node of the catalog holds one copy at all
        # (DeepSeek R1 in FP8: only 8x H200 and 8x B200 do, both NVLink)
        out["pcie_holds"] = any(c in pcie for c in holding)
        out["holding_configurations"] = holding
    return out


def _cards_elsewhere(deps: Any, args: AdviceArgs) -> int:
    """Cards of the named configuration's card one serving job needs when that configuration
    does not hold it, as fit_check splits it over the other nodes with that card (4 x L40S too
    small: the 8 of 8 x L40S); 9 (more than a node holds) when none of them holds it."""
    cfg = deps.catalog.configurations.get(args.configuration or "")
    if cfg is None:
        return 9
    same_card = [
        c.id for c in deps.catalog.configurations.values() if c.gpu == cfg.gpu and c.id != cfg.id
    ]
    if not same_card:
        return 9
    rows = fit_check(
        deps,
        FitArgs(
            model=args.model,
            precision=args.precision,
            context_tokens=args.context_tokens,
            concurrency=args.concurrency,
            kv_precision=args.kv_precision,
            runtime=args.runtime,
            configurations=same_card,
        ),
    ).rows
    needed = [r.cards_needed or 1 for r in rows if r.verdict != "does_not_fit"]
    return min(needed) if needed else 9


def _training_case(deps: Any, args: AdviceArgs) -> tuple[bool, int | None]:
    """(one card holds the fine-tune, cards one job needs) for training: the 18 bytes per
    parameter of `memory_need(training=true)` (or the LoRA/QLoRA memory, `method`) against 90 %
    of each card's memory — of the configuration's card when one is given, else of every card
    ("fits on one card" means a one-card node holds it, as for serving; the cards needed are
    counted on the biggest)."""
    if args.method == "full":
        mem = memory_need(deps, MemoryArgs(model=args.model, training=True))
    else:
        mem = memory_need(deps, MemoryArgs(model=args.model, adapter=args.method))
    cat = deps.catalog
    if args.configuration:
        if args.configuration not in cat.configurations:
            raise ToolError(f"unknown configuration {args.configuration!r}")
        cards = [cat.gpus[cat.configurations[args.configuration].gpu].memory_gb]
        fits = cards[0] * 0.9 >= mem["total_gb"]
    else:
        cards = [g.memory_gb for g in cat.gpus.values()]
        fits = any(
            c.count == 1 and cat.gpus[c.gpu].memory_gb * 0.9 >= mem["total_gb"]
            for c in cat.configurations.values()
        )
    if fits:
        return True, None
    return False, max(2, int(-(-mem["total_gb"] // (max(cards) * 0.9))))
