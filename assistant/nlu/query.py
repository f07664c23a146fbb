"""The typed `Query`: everything a question says (model, precision, cards and counts, workload,
context, users and concurrency, the constraints it sets, the claim it asks about and in which
polarity, measurements given in words), the intent and workload names, the card ids."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from assistant.language import Language
from assistant.nlu.scope import OutsideGoal
from tools.specs import Architecture, KvPrecision

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


Runtime = Literal["vllm", "llama.cpp"]

# what a yes/no question asks about; the first word of the answer answers it in this polarity
Claim = Literal[
    "nvlink_needed",  # "Do I need NVLink?", "Is SXM required?"
    "pcie_enough",  # "Reicht PCIe?", "Is NVLink overkill?", "Can I avoid SXM?"
    "fits",  # "Does it fit?", "70B on a single H200?"
    "too_small",  # "Is one L4 too small for the full context?": the converse of fits
    "worth_it",  # "Is the B200 worth it over the H200?"
    "faster",  # "Is the RTX 4090 faster than the L4?"
    "costlier",  # "Ist ein 2x H100 PCIe teurer als ein 4x L40S?"
    "cheaper",  # "Is 4x L40S cheaper than 2x H100 PCIe?": the converse of costlier
    "oversized",  # "Is an H100 overkill for Llama 8B?": a cheaper node holds the job
    "link_is",  # "Is the H100 PCIe a Gen5 card?": the link named is the one it runs
    "guide",  # a yes/no question a guide section settles
    "defect",  # "Is that broken?", "Ein Defekt?"
    "healthy",  # "Is that normal / correct?", "Passt das?"
    # claims the user states about a mechanism (assistant/nlu/claims.py), checked by a tool
    "memory_adds_up",  # "do the 4 x 32 GB add up to 128 GB for one job?"
    "active_sets_memory",  # "only 3B active, so it needs that little memory?"
    "same_size",  # "Q4_K_M and AWQ are both 4-bit, so the GGUF is just as small?"
    "larger",  # "is the GGUF bigger than the AWQ?"
]


#: what the words of a question ask about that no entity carries (assistant/nlu/topics.py)
Topic = Literal[
    "versus",  # "A or B?", "A vs B", "is it worth it"
    "recommend",  # "what do you suggest / recommend?"
    "most_vram",  # "the node with the most VRAM", "the biggest server"
    "vram_per_dollar",  # "most GB per dollar", "cheapest per GB"
    "price_sources",  # "are the prices real / placeholders?"
    "per_token",  # "price per million tokens"
    "topology_described",  # "topo -m shows PHB between all cards"
    "fp8_support",  # "does the A100 support FP8?"
    "architecture_named",  # Ampere, Hopper, Ada, Blackwell named
    "what_runs",  # "what can I run on 2x L40S?"
    "catalog_ask",  # "can you guys run DeepSeek?", "könnt ihr Llama 70B betreiben?": on any node
    "serve_after",  # "fine-tune it, then serve it on the same box": served after the training
    "serve_on_named",  # "… und reicht zum Ausliefern danach eine L4?": the card named serves it
    "card_spec",  # asks about memory or bandwidth, not a link or a price
    "spec_has",  # "how much … does it have", "what is", "welche"
    "which_cards",  # "which GPUs …", "welche Karten …"
    "tag_question",  # "…, oder?", "…, right?"
    # cues for how an answer leads (assistant/nlu/topics.py CUES; derived from the text for any
    # reader by reading/convert.to_query, so the planner reads no text)
    "longest_context",  # "what's the max context …", "wie lang darf der Kontext sein"
    "how_many",  # "how many at once", "wie viele gleichzeitig"
    "is_the_cheapest",  # "is 4x L40S the cheapest you have?": the node named is the pick asked
    "difference_asked",  # "Preisunterschied", "by how much": the difference of two prices
    "kv_cache",  # the KV cache named
    "kv_cache_size",  # "how much does the KV cache take": its size asked
    "bandwidth",  # a card's bandwidth asked
    "layers",  # the model's layers named
    "wh_question",  # "why …", "what …": a reason or a figure asked, not a yes or no
    "difference",  # "what is the difference between …": the concept asked beside a claim
    "ampere",  # the Ampere generation named ("FP8 on Ampere?")
    "qlora_named",  # "QLoRA" said in this question (a 4-bit base, whatever precision is named)
    "full_named",  # "full FT vs LoRA vs QLoRA": a full fine-tune named beside the adapters
    "gen5_named",  # PCIe Gen5 named beside a Gen4 chassis
    "nvlink_named",  # NVLink or SXM named
    "link_either_or",  # "SXM or PCIe?", "PCIe vs NVLink"
    "per_card",  # "per GPU", "pro Karte": a price per card asked
    "per_hour",  # "pro Stunde", "per hour", "hourly": a price per hour asked (month / 730 h)
    "verb_first",  # "Do H200s have NVLink?", "Hat die …": a question opened by its verb
    "image_job",  # "images", "video", "diffusion", "render": the job is image or video work
    "llm_job",  # "LLM", "chat", "tokens": the job is a language model
    "rhetorical_negative",  # "Reicht da nicht eine Karte?": a negative hoping for the claim
    "no_need_stated",  # "we don't need NVLink, right?": the negative stated, to be confirmed
]


# what the user asks for, one of possibly several asks in one question ("Does it fit on 4x H100,
# and what does that node cost?"): each is answered, the first (primary) one first
AskKind = Literal[
    "fit",  # does the model fit the hardware named (at the context and precision asked)
    "price",  # the exact monthly price of the hardware named
    "speed",  # tokens/s on the hardware named (or where it fits)
    "context",  # how long a context (how many tokens of KV cache) the hardware named holds
    "memory",  # how much GPU memory the model needs (weights + KV cache at the load asked)
]


class Ask(BaseModel):
    """One thing the question asks for. A question that compares precisions ("BF16 vs FP8")
    asks once per precision."""

    model_config = ConfigDict(frozen=True)

    kind: AskKind
    at: int = Field(default=0, description="where the question asks it (offset in its text)")
    precision: str | None = Field(
        default=None, description="the precision it is asked at, when the question names several"
    )


class Measured(BaseModel):
    """Measurements the user reports in words ("busbw around 22 GB/s", "GPU0-GPU5 shows SYS")."""

    busbw_gb_s: float | None = None
    tokens_per_s: float | None = None
    topo_label: str | None = Field(default=None, description="PHB, SYS, NODE, PIX, PXB, NV12...")
    topo_pair: tuple[int, int] | None = None


class Constraints(BaseModel):
    """What the user rules in or out. Each is a filter on the configurations considered."""

    budget_usd_month: float | None = Field(default=None, description="'budget 8k/month'")
    min_total_memory_gb: float | None = Field(default=None, description="'at least 160 GB'")
    exclude_cards: list[str] = Field(default_factory=list, description="'no H100', 'ohne 4090'")
    exclude_link: Literal["nvlink", "pcie"] | None = Field(
        default=None, description="'without NVLink' (pcie only), 'no PCIe' (nvlink only)"
    )
    require_link: Literal["nvlink", "pcie"] | None = Field(
        default=None, description="'an NVLink node', 'PCIe only', 'we need NVLink'"
    )
    require_fp8: bool = Field(
        default=False, description="'FP8 tensor cores', 'needs FP8 support', 'FP8-fähig'"
    )
    architectures: list[Architecture] = Field(
        default_factory=list, description="'Hopper or Blackwell only', 'Ada or newer'"
    )
    exclude_architectures: list[Architecture] = Field(
        default_factory=list, description="'no Ampere', 'ohne Ampere-Karten'"
    )
    min_memory_per_card_gb: float | None = Field(
        default=None, description="'at least 48 GB per card', 'Karten mit mindestens 80 GB'"
    )
    one_card: bool = Field(
        default=False,
        description="'das günstigste mit nur einer Karte', 'cheapest single-GPU box': the pick "
        "holds the model on one card (it depends on the model, so it filters the pick, not the "
        "configurations considered)",
    )

    def active(self) -> bool:
        return bool(
            self.budget_usd_month
            or self.min_total_memory_gb
            or self.exclude_cards
            or self.exclude_link
            or self.require_link
            or self.require_fp8
            or self.architectures
            or self.exclude_architectures
            or self.min_memory_per_card_gb
        )


class Query(BaseModel):
    """What the question asks, typed. Empty fields mean "not said"."""

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
    precisions: list[str] = Field(
        default_factory=list, description="every precision named, in order ('BF16 vs FP8')"
    )
    cards: list[str] = Field(default_factory=list, description="card ids named, in order")
    card_families: list[str] = Field(default_factory=list, description="'A100' without SXM/PCIe")
    subject_cards: list[str] = Field(
        default_factory=list,
        description="the cards a comparison asks about ('Has the A6000 FP8 like the L40S?': "
        "rtx-a6000); empty when no card is compared with another",
    )
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
    # "tp=4", "--tensor-parallel-size 4": the cards one instance is split over
    tensor_parallel: int | None = None
    # "mehr als 20 Token pro Sekunde?": the speed a yes/no asks for (claim "faster")
    min_tokens_per_s: float | None = None
    # "200 texts of ~500 tokens each, how long?": the tokens a batch writes in total
    output_tokens: int | None = None
    topo_text: str | None = None
    nccl_text: str | None = None
    injection: bool = False
    follow_up: bool = Field(default=False, description="'and on an H200?' / 'und in FP8?'")
    refers_to: list[str] = Field(
        default_factory=list,
        description="the configurations of the session a follow-up points back to (the reading's)",
    )
    asks_fit: bool = Field(
        default=False,
        description="the words ask whether it fits or runs ('passt', 'fits', 'reicht', 'läuft'), "
        "not only a model named",
    )
    adapter: Literal["lora", "qlora"] | None = Field(
        default=None, description="LoRA / QLoRA (PEFT adapter) fine-tuning named"
    )
    absent_nodes: list[tuple[int, str]] = Field(
        default=[], description="(count, card) said as a node the catalog lacks ('2x H200')"
    )
    adapters_compared: bool = Field(
        default=False, description="both LoRA and QLoRA asked about ('LoRA or QLoRA?')"
    )
    lora_rank: int | None = Field(default=None, description="LoRA rank named ('rank 64')")
    lora_attention_only: bool = Field(
        default=False, description="adapters on the attention projections only"
    )
    users: int | None = Field(
        default=None, description="'for 200 users': people, not simultaneous sequences"
    )
    constraints: Constraints = Field(default_factory=Constraints)
    runtime: Runtime | None = Field(default=None, description="llama.cpp / Ollama / GGUF, vLLM")
    kv_precision: KvPrecision | None = Field(
        default=None,
        description="the KV cache's precision when the question names it ('FP8 KV cache', 'KV "
        "cache in 8 bit' -> int8); the weights' precision is `precision`",
    )
    kv_precisions: list[KvPrecision] = Field(
        default_factory=list,
        description="two KV-cache precisions asked side by side, in the order asked",
    )
    nodes: int | None = Field(
        default=None, description="servers asked for together ('two nodes', '16 GPUs')"
    )
    total_cards: int | None = Field(default=None, description="cards asked for over all nodes")
    measured: Measured = Field(default_factory=Measured)
    links: list[str] = Field(
        default_factory=list,
        description="link ids named outright ('over PCIe Gen4', 'NVLink 4'), in question order",
    )
    claim: Claim | None = Field(default=None, description="the yes/no claim asked about")
    claim_by_much: bool = Field(
        default=False,
        description="a comparison claim asks for a large difference ('much faster?', 'deutlich "
        "günstiger?'): a few percent answers no",
    )
    claim_negated: bool = Field(
        default=False,
        description="the question states the converse of `claim` / `concept` ('is FP8 "
        "practically lossless?' for the concept 'FP8 loses noticeable quality')",
    )
    concept: str | None = Field(
        default=None,
        description="the guide concept a yes/no question asks about (assistant/nlu/claims.py "
        "CONCEPTS: fp8_quality_loss, kv_follows_weights...), settled by a cited passage",
    )
    formats: list[str] = Field(
        default_factory=list,
        description="the weight formats a size claim compares, the one the claim is about first",
    )
    compare: bool = Field(default=False, description="'A or B?', 'A vs B', 'which is better'")
    outside: list[OutsideGoal] = Field(
        default_factory=list,
        description="what the question asks for outside the sizing domain (crypto-mining "
        "earnings, gaming, electricity, investments, buying used hardware, legal or tax "
        "matters; assistant/nlu/scope.py), read from its asks, not from the entities it names; "
        "it wins over the flows those entities would trigger",
    )
    asked_text: str = Field(
        default="",
        description="when `outside` is set: the question's clauses that ask within the domain "
        "(folded), which its intents and asks are read from",
    )
    asks: list[Ask] = Field(
        default_factory=list,
        description="every ask the question makes, in the order it makes them (the primary "
        "first); two or more: each is answered (assistant/nlu/asks.py)",
    )
    topics: list[Topic] = Field(
        default_factory=list, description="what the words ask about (assistant/nlu/topics.py)"
    )
    yes_no: bool = Field(default=False, description="asked as a yes/no question")
    assumed: list[str] = Field(
        default_factory=list,
        description="reading fields filled by assumption, not said (Reading.assumed)",
    )

    @property
    def intent(self) -> Intent:
        return self.intents[0] if self.intents else "general"

    @property
    def has_subject(self) -> bool:
        return bool(self.model or self.params_b or self.unknown_model)
