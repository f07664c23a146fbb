"""Which cards and nodes hold a training job: full fine-tuning or LoRA/QLoRA memory (from
`tools.memory`) against each card's usable memory (memory x utilization, no separate runtime
overhead, as for the training figures themselves), with the split across a node.

Reproduces the composer's figures (assistant/compose/fit.py): a card holds the job when
memory_gb x 0.9 >= total_gb; the cheapest one-card node among those cards; and, when no card
holds it alone, the cheapest multi-card NVLink node whose cards together hold it
(count x memory_gb x 0.9 >= total_gb), since a split training job wants NVLink (guide rule 4).
"""

from __future__ import annotations

import math
from decimal import Decimal

from pydantic import BaseModel, ConfigDict, Field

from tools.memory import GPU_MEMORY_UTILIZATION, runtime_usable_gb
from tools.money import USD
from tools.specs import Configuration, Gpu, Link, LinkKind


class TrainingFitInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    total_gb: float = Field(gt=0, description="training memory before activations, GB")
    gpu_memory_utilization: float = Field(default=GPU_MEMORY_UTILIZATION, gt=0, le=1)


class TrainingRow(BaseModel):
    configuration: str
    label: str
    gpu: str
    count: int
    memory_gb_per_card: float
    usable_gb_per_card: float
    usable_gb_node: float = Field(description="count x usable per card")
    fits_one_card: bool = Field(description="one card of this node holds the whole job")
    fits_node: bool = Field(description="the node's cards together hold it (sharded, e.g. FSDP)")
    cards_needed: int | None = Field(description="cards the job is sharded across; None: too big")
    link_kind: LinkKind
    usd_per_month: USD
    price_source: str


class TrainingFitResult(BaseModel):
    inputs: TrainingFitInput
    holders: list[str] = Field(description="card ids whose usable memory holds the job alone")
    cheapest_one_card: TrainingRow | None = Field(
        description="the cheapest one-card node whose card holds it"
    )
    cheapest_split_nvlink: TrainingRow | None = Field(
        description="when no one-card node holds it: the cheapest NVLink node whose cards "
        "together hold it"
    )
    rows: list[TrainingRow]
    formula: str
    notes: list[str] = []


def _row(inp: TrainingFitInput, c: Configuration, gpu: Gpu, kind: LinkKind) -> TrainingRow:
    usable = runtime_usable_gb(gpu.memory_gb, "training", inp.gpu_memory_utilization)
    need = math.ceil(inp.total_gb / usable - 1e-9)
    return TrainingRow(
        configuration=c.id,
        label=c.label,
        gpu=gpu.id,
        count=c.count,
        memory_gb_per_card=gpu.memory_gb,
        usable_gb_per_card=usable,
        usable_gb_node=usable * c.count,
        fits_one_card=usable >= inp.total_gb,
        fits_node=c.count * usable >= inp.total_gb,
        cards_needed=need if need <= c.count else None,
        link_kind=kind,
        usd_per_month=c.usd_per_month,
        price_source=c.price_source,
    )


def _cheapest(rows: list[TrainingRow]) -> TrainingRow | None:
    return min(rows, key=lambda r: (Decimal(r.usd_per_month), r.configuration), default=None)


def training_fit(
    inp: TrainingFitInput,
    configurations: list[Configuration],
    gpus: dict[str, Gpu],
    links: dict[str, Link],
) -> TrainingFitResult:
    """Per configuration: does one card hold the job, do the node's cards together; the cheapest
    one-card node, and the cheapest NVLink node for a split."""
    util = inp.gpu_memory_utilization
    rows = [_row(inp, c, gpus[c.gpu], links[c.interconnect].kind) for c in configurations]
    holders = [g.id for g in gpus.values() if g.memory_gb * util >= inp.total_gb]
    one = _cheapest([r for r in rows if r.count == 1 and r.gpu in holders])
    split = None
    if one is None:
        split = _cheapest(
            [r for r in rows if r.count > 1 and r.link_kind == "nvlink" and r.fits_node]
        )
    notes = ["Activations come on top; the split assumes sharded training (FSDP / ZeRO-3)."]
    if one is None and holders:
        notes.append("Only cards that come in multi-card nodes hold the job alone.")
    return TrainingFitResult(
        inputs=inp,
        holders=holders,
        cheapest_one_card=one,
        cheapest_split_nvlink=split,
        rows=rows,
        formula="fits_one_card: memory_gb * utilization >= total_gb; fits_node: count * "
        "memory_gb * utilization >= total_gb; cards_needed = ceil(total_gb / usable_gb_per_card)",
        notes=notes,
    )
