"""Training fit: which cards and nodes hold a full fine-tune or a LoRA/QLoRA job
(`training_fit`)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Literal

from pydantic import Field

from assistant.registry.core import ToolResult, _Args, tool
from assistant.registry.helpers import _configuration, _model, _model_info, _money, _r
from assistant.registry.memory import MemoryArgs, memory_need


class TrainingFitArgs(_Args):
    model: str = Field(description="model name, HF id or ollama tag (LoRA/QLoRA need its shapes)")
    method: Literal["full", "lora", "qlora"] = Field(
        default="full", description="full fine-tuning (mixed precision + Adam), LoRA or QLoRA"
    )
    lora_rank: int = Field(default=16, ge=1, le=4096, description="LoRA rank r (lora/qlora)")
    lora_targets: Literal["all_linear", "attention"] = Field(
        default="all_linear", description="lora/qlora: all linear layers or attention only"
    )
    configurations: list[str] | None = Field(
        default=None, description="only these configuration ids; omitted: all"
    )


class TrainingRow(ToolResult):
    configuration: str
    label: str
    gpu: str
    count: int
    usable_gb_per_card: float
    usable_gb_node: float
    fits_one_card: bool
    fits_node: bool
    cards_needed: int | None
    link_kind: str
    usd_per_month: int | float
    price_source: str


class TrainingFitResult(ToolResult):
    _omit_when_none = frozenset({"bytes_per_param", "lora_rank", "lora_targets"})

    model: dict[str, Any]
    method: str
    total_gb: float
    bytes_per_param: float | None = None
    lora_rank: int | None = None
    lora_targets: str | None = None
    gpu_memory_utilization: float
    holders: list[str]
    cheapest_one_card: TrainingRow | None
    cheapest_split_nvlink: TrainingRow | None
    rows: list[TrainingRow]
    fitting_configurations: int
    formula: str
    notes: list[str]


def _row(r: Any) -> TrainingRow:
    return TrainingRow(
        configuration=r.configuration,
        label=r.label,
        gpu=r.gpu,
        count=r.count,
        usable_gb_per_card=_r(r.usable_gb_per_card),
        usable_gb_node=_r(r.usable_gb_node),
        fits_one_card=r.fits_one_card,
        fits_node=r.fits_node,
        cards_needed=r.cards_needed,
        link_kind=r.link_kind,
        usd_per_month=_money(r.usd_per_month),
        price_source=r.price_source,
    )


@tool
def training_fit(deps: Any, args: TrainingFitArgs) -> TrainingFitResult:
    """Which cards and nodes hold a training job: full fine-tuning (18 bytes per parameter) or
    LoRA/QLoRA memory (as memory_need) against 90 % of each card, before activations. Returns
    the total GB, the cards that hold it alone, the cheapest one-card node that does, else the
    cheapest NVLink node whose cards together hold it (sharded), and the nodes that hold it,
    cheapest first, with cards_needed and price (with `configurations`: those nodes, each
    judged, whether or not they hold it)."""
    from tools.memory import GPU_MEMORY_UTILIZATION
    from tools.training import TrainingFitInput
    from tools.training import training_fit as fit_training

    m = _model(deps, args.model)
    if args.method == "full":
        mem = memory_need(deps, MemoryArgs(model=args.model, training=True))
    else:
        mem = memory_need(
            deps,
            MemoryArgs(
                model=args.model,
                adapter=args.method,
                lora_rank=args.lora_rank,
                lora_targets=args.lora_targets,
            ),
        )
    cat = deps.catalog
    configs = (
        [_configuration(deps, c) for c in args.configurations]
        if args.configurations
        else list(cat.configurations.values())
    )
    res = fit_training(
        TrainingFitInput(total_gb=mem["total_gb"], gpu_memory_utilization=GPU_MEMORY_UTILIZATION),
        configs,
        cat.gpus,
        cat.links,
    )
    fitting = sorted(
        (r for r in res.rows if r.fits_node),
        key=lambda r: (Decimal(r.usd_per_month), r.configuration),
    )
    full = args.method == "full"
    return TrainingFitResult(
        model=_model_info(m),
        method=args.method,
        total_gb=mem["total_gb"],
        bytes_per_param=mem["bytes_per_param"] if full else None,
        lora_rank=None if full else args.lora_rank,
        lora_targets=None if full else args.lora_targets,
        gpu_memory_utilization=GPU_MEMORY_UTILIZATION,
        holders=[cat.gpus[g].short_name for g in res.holders],
        cheapest_one_card=_row(res.cheapest_one_card) if res.cheapest_one_card else None,
        cheapest_split_nvlink=_row(res.cheapest_split_nvlink)
        if res.cheapest_split_nvlink
        else None,
        # the nodes asked about, each judged; else the nodes that hold it, cheapest first
        rows=[_row(r) for r in (res.rows if args.configurations else fitting[:8])],
        fitting_configurations=len(fitting),
        formula=res.formula,
        notes=[*mem["notes"], *res.notes],
    )
