"""`Reading`: what the assistant understood a question to ask. The one contract between the
readers (rules, an LLM, the user's edit) and the planner.

Every answer is computed from a `Reading` (the planner receives nothing else) and carries it, so
every surface can show it ("Sized for: …") and the user can correct it. The field names below are
public: evals, the API (`/api/chat` accepts a partial reading), the CLI (`--set FIELD=VALUE`), the
widget chips, Slack's "Adjust" modal and the LLM reader's JSON schema use them.

Empty fields mean "not said". A reader never computes a figure: it places what the user said.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from assistant.language import Language
from assistant.nlu.query import Ask, Claim, Intent, Measured, Runtime, Topic, Workload
from assistant.nlu.scope import OutsideGoal
from tools.specs import Architecture, KvPrecision

#: the task the question is about, for the reading line and the LLM reader; the planner's choice
#: of answer follows `intents` (derived from `task` and `asks` when a reader leaves it empty)
Task = Literal[
    "serve",  # run a model for inference (chat, API, RAG, agents)
    "fine_tune",  # LoRA / QLoRA / full fine-tuning
    "train",  # pre-training or full training runs
    "images_video",  # diffusion / video models, rendering
    "diagnose",  # a measurement or pasted output (nvidia-smi topo -m, all_reduce_perf)
    "explain",  # how or why something works: the guides answer
    "price",  # what a configuration costs
    "compare",  # two or more options side by side
    "out_of_scope",  # mining, gaming, tax ...: declined
    "other",
]
Currency = Literal["USD", "EUR"]
Reader = Literal["rules", "llm", "user", "session"]


class Reading(BaseModel):
    """What the question asks, as understood. Readers fill it; the planner reads only this."""

    model_config = ConfigDict(extra="forbid")

    # ------------------------------------------------------------- what it is about
    language: Language = "en"
    task: Task = Field(default="other", description="what the question is about")
    asks: list[Ask] = Field(
        default_factory=list,
        description="every ask (fit, price, speed, context), in the order the question makes "
        "them; the first is answered first",
    )
    intents: list[Intent] = Field(
        default_factory=list,
        description="the kinds of answer the question calls for, primary first (derived from "
        "task and asks when a reader leaves it empty)",
    )
    claim: Claim | None = Field(
        default=None, description="the yes/no claim asked about; the first word answers it"
    )
    claim_by_much: bool = Field(
        default=False,
        description="a comparison claim (faster, cheaper, costlier) asks for a large "
        "difference ('much faster?', 'deutlich schneller?'): a few percent answers no",
    )
    claim_negated: bool = Field(
        default=False,
        description="the question asks the claim the other way round ('is PCIe enough?' for "
        "'nvlink_needed' is claim pcie_enough; 'is FP8 lossless?' negates 'fp8 loses quality')",
    )
    concept: str | None = Field(
        default=None, description="the guide concept a yes/no question asks about"
    )
    explain: bool = Field(default=False, description="a why / how / difference question")
    yes_no: bool = Field(default=False, description="asked as a yes/no question")
    topics: list[Topic] = Field(
        default_factory=list,
        description="what the words ask about that no other field carries: versus, recommend, "
        "most_vram, vram_per_dollar, price_sources, per_token, topology_described, fp8_support, "
        "architecture_named, what_runs, card_spec, spec_has, which_cards, tag_question",
    )
    compare: bool = Field(default=False, description="'A or B?', 'A vs B', 'which is better'")

    # ------------------------------------------------------------- the model(s)
    model: str | None = Field(default=None, description="catalog model id (sizing find_model)")
    models: list[str] = Field(
        default_factory=list, description="every catalog model named, in order"
    )
    model_name: str | None = Field(
        default=None, description="a model named that the catalog lacks, as the user said it"
    )
    model_candidates: list[str] = Field(
        default_factory=list, description="catalog models closest to `model_name`"
    )
    params_b: float | None = Field(
        default=None, gt=0, description="parameters in billions ('a 34B')"
    )
    precision: str | None = Field(default=None, description="weights: bf16, fp8, awq, q4_k_m …")
    precisions: list[str] = Field(default_factory=list, description="every precision named")
    runtime: Runtime | None = None
    kv_precision: KvPrecision | None = None
    kv_precisions: list[KvPrecision] = Field(
        default_factory=list,
        description="two KV-cache precisions asked side by side ('with an FP8 KV cache instead?', "
        "'wie viele mit FP8-KV, wie viele mit BF16-KV?'), in the order asked; each is answered",
    )
    formats: list[str] = Field(
        default_factory=list, description="weight formats a size claim compares"
    )

    # ------------------------------------------------------------- the load
    users: int | None = Field(default=None, ge=1, description="people using it (not all at once)")
    concurrent_sequences: int | None = Field(
        default=None, ge=1, description="requests generating at the same time"
    )
    context_tokens: int | None = Field(default=None, ge=1, description="tokens per request")
    tensor_parallel: int | None = Field(
        default=None, ge=1, le=8, description="'tp=4': the cards one instance is split over"
    )
    min_tokens_per_s: float | None = Field(
        default=None, gt=0, description="'more than 20 tokens/s?': the speed a yes/no asks for"
    )
    output_tokens: int | None = Field(
        default=None,
        ge=1,
        le=10**12,
        description="tokens a batch writes in total, when the question asks how long it takes "
        "('200 texts of about 500 tokens each': 100000)",
    )
    full_context: bool = Field(default=False, description="the model's own maximum context")
    workloads: list[Workload] = Field(default_factory=list)
    adapter: Literal["lora", "qlora"] | None = None
    adapters_compared: bool = Field(
        default=False,
        description="'LoRA oder QLoRA, wie viel Speicher jeweils?': both methods asked about",
    )
    lora_rank: int | None = None
    lora_attention_only: bool = False

    # ------------------------------------------------------------- the hardware named
    configurations: list[str] = Field(
        default_factory=list, description="catalog configuration ids, e.g. 4x-a100-sxm4"
    )
    cards: list[str] = Field(default_factory=list, description="card ids named, in order")
    card_families: list[str] = Field(default_factory=list, description="'A100' without SXM / PCIe")
    subject_cards: list[str] = Field(default_factory=list)
    links: list[str] = Field(
        default_factory=list,
        description="link ids named outright ('over PCIe Gen4': pcie-gen4-x16, 'NVLink 4': "
        "nvlink-4), in question order",
    )

    @field_validator("configurations", "cards", "card_families", "subject_cards", mode="before")
    @classmethod
    def _ids_lower_case(cls, value: object) -> object:
        """Ids as the catalog writes them: "H100" from a reader or a gold file is "h100"."""
        if isinstance(value, list):
            return [v.strip().lower() if isinstance(v, str) else v for v in value]
        return value

    count: int | None = Field(default=None, ge=1, le=64, description="cards in one node")
    memory_gb: float | None = Field(default=None, description="'one 48 GB card'")
    one_node: bool = False
    nodes: int | None = None
    total_cards: int | None = None
    gen4: bool = False
    absent_nodes: list[tuple[int, str]] = Field(
        default_factory=list, description="(count, card) the catalog does not rent as a node"
    )

    # ------------------------------------------------------------- constraints
    budget_usd_per_month: float | None = Field(
        default=None, gt=0, description="the most the user will pay per month, in USD"
    )
    budget_currency: Currency | None = Field(
        default=None, description="the currency the budget was said in (EUR is compared 1:1)"
    )
    min_total_memory_gb: float | None = None
    min_memory_per_card_gb: float | None = None
    exclude_cards: list[str] = Field(default_factory=list)
    exclude_link: Literal["nvlink", "pcie"] | None = None
    require_link: Literal["nvlink", "pcie"] | None = None
    require_fp8: bool = False
    architectures: list[Architecture] = Field(default_factory=list)
    exclude_architectures: list[Architecture] = Field(default_factory=list)
    one_card: bool = Field(
        default=False,
        description="the cheapest pick must hold the model on one card ('das günstigste mit nur "
        "einer Karte', 'cheapest single-GPU option')",
    )

    # ------------------------------------------------------------- measurements, pastes, scope
    measured: Measured = Field(default_factory=Measured)
    topo_text: str | None = Field(default=None, description="pasted nvidia-smi topo -m")
    nccl_text: str | None = Field(default=None, description="pasted all_reduce_perf output")
    outside: list[OutsideGoal] = Field(
        default_factory=list, description="goals outside the sizing domain (declined)"
    )
    injection: bool = False

    # ------------------------------------------------------------- coverage and provenance
    refers_to: list[str] = Field(
        default_factory=list,
        description="configurations a follow-up points at ('that', 'the cheaper one', 'da drauf')",
    )
    unread: list[str] = Field(
        default_factory=list,
        description="parts of the question the reader could not place (shown as not covered)",
    )
    text: str = Field(
        default="",
        description="the question's words: the guide search and the paste parsers read them",
    )
    asked_text: str = Field(default="", description="the in-domain clauses, when `outside`")
    asks_fit: bool = False
    reader: Reader = Field(default="rules", description="who filled this reading last")
    assumed: list[str] = Field(
        default_factory=list,
        description="fields the planner filled because the question did not say them (a "
        "starting point: the model, the context); shown as assumptions, each one editable",
    )

    @property
    def intent(self) -> Intent:
        return self.intents[0] if self.intents else "general"

    @property
    def has_subject(self) -> bool:
        return bool(self.model or self.params_b or self.model_name)


#: fields a user may change (chips, `--set`, `/api/chat` `reading`, Slack's modal); the others
#: are the reader's own (pastes, spans, provenance)
EDITABLE: tuple[str, ...] = (
    "task",
    "model",
    "params_b",
    "precision",
    "runtime",
    "kv_precision",
    "users",
    "concurrent_sequences",
    "context_tokens",
    "configurations",
    "cards",
    "count",
    "budget_usd_per_month",
    "budget_currency",
    "min_total_memory_gb",
    "min_memory_per_card_gb",
    "exclude_cards",
    "require_link",
    "exclude_link",
    "workloads",
    "adapter",
    "language",
)


def schema_text() -> str:
    """The reading's JSON schema as committed in docs/reading.schema.json (for the LLM reader's
    hosts, eval writers and anyone who fills a reading by hand)."""
    import json

    return json.dumps(Reading.model_json_schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":  # python -m assistant.reading.model > docs/reading.schema.json
    print(schema_text(), end="")
