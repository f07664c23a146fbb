"""The result of understanding a question: the `Understanding` slots, the intent and workload
names, the card ids the slots use."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from assistant.answer import Language

Intent = Literal[
    "topology_paste",  # pasted `nvidia-smi topo -m` output
    "allreduce_paste",  # pasted nccl-tests `all_reduce_perf` output
    "capacity",  # longest context / most concurrent sequences on a node
    "link_facts",  # bandwidth of a link, NVLink vs PCIe ratio, which link a node has
    "tp_sync",  # all-reduces per token under tensor parallelism
    "off_topic",
    "cheapest",  # cheapest configuration that fits
    "price",  # what does configuration X cost
    "allreduce",  # gradient all-reduce / sync time
    "topology_howto",  # how do I check the topology / NVLink
    "nvlink",  # do I need NVLink? SXM or PCIe?
    "speed",  # tokens/s, throughput
    "fit",  # does it fit, how much VRAM, how many cards
    "general",  # anything else in scope: answered from the guides
]

Workload = Literal[
    "tensor_parallel",
    "pipeline_parallel",
    "training",
    "fine_tuning",
    "traffic",  # serving real traffic / high concurrency
    "low_concurrency",
    "independent",  # one model per card, independent copies or jobs
    "diffusion",
    "rendering",
    "multi_node",
]

# precisions are the engine's names (tools.specs.PRECISIONS); "4-bit" alone means AWQ-type

CARD_IDS = (
    "l4",
    "l40s",
    "rtx-4090",
    "rtx-5090",
    "rtx-a6000",
    "a100-pcie",
    "a100-sxm4",
    "h100-pcie",
    "h100-sxm5",
    "h200",
    "b200",
)
# a card named without its form factor: both variants are candidates
CARD_FAMILIES = {"a100": ("a100-pcie", "a100-sxm4"), "h100": ("h100-pcie", "h100-sxm5")}
GEN4_CARDS = ("rtx-4090", "rtx-a6000", "l40s")


class Understanding(BaseModel):
    """What the question asks, as slots. Empty slots mean "not said"."""

    question: str
    language: Language
    language_detected: bool = Field(
        default=True, description="false when the text gave no clue and a default was used"
    )
    intents: list[Intent] = Field(default_factory=list, description="primary first")
    model: str | None = Field(default=None, description="catalog model id")
    models: list[str] = Field(
        default_factory=list, description="every catalog model named, in order (model is first)"
    )
    model_mention: str | None = None
    unknown_model: str | None = Field(default=None, description="a model the catalog lacks")
    unknown_model_closest: list[str] = Field(default_factory=list)
    params_b: float | None = Field(default=None, description="'a 34B model': parameters, billions")
    precision: str | None = None
    cards: list[str] = Field(default_factory=list, description="card ids named, in order")
    card_families: list[str] = Field(default_factory=list, description="'A100' without SXM/PCIe")
    count: int | None = Field(default=None, description="number of cards")
    memory_gb: float | None = Field(default=None, description="'one 48 GB card'")
    gen4: bool = False
    one_node: bool = Field(default=False, description="'on one node / server / machine'")
    full_context: bool = Field(
        default=False, description="'at full / maximum context': the model's own limit"
    )
    explain: bool = Field(
        default=False, description="a why / what-happens / difference question: the guides answer"
    )
    configurations: list[str] = Field(default_factory=list, description="configuration ids named")
    workloads: list[Workload] = Field(default_factory=list)
    context_tokens: int | None = None
    concurrency: int | None = None
    topo_text: str | None = None
    nccl_text: str | None = None
    injection: bool = False
    follow_up: bool = Field(default=False, description="'and on an H200?' / 'und in FP8?'")
    adapter: Literal["lora", "qlora"] | None = Field(
        default=None, description="LoRA / QLoRA (PEFT adapter) fine-tuning named"
    )
    absent_nodes: list[tuple[int, str]] = Field(
        default=[], description="(count, card) said as a node the catalog lacks ('2x H200')"
    )
    lora_rank: int | None = Field(default=None, description="LoRA rank named ('rank 64')")
    lora_attention_only: bool = Field(
        default=False, description="adapters on the attention projections only"
    )

    @property
    def intent(self) -> Intent:
        return self.intents[0] if self.intents else "general"

    @property
    def has_subject(self) -> bool:
        return bool(self.model or self.params_b or self.unknown_model)
