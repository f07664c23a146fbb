"""The typed records the catalog is made of: cards, links, rentable configurations, models.

Pure pydantic types (no I/O). `knowledge/catalog.py` loads the YAML files into them.
Units: GB = 10^9 bytes, GB/s = 10^9 bytes per second; field names carry their unit.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from tools.money import USD

FormFactor = Literal["pcie", "sxm"]
LinkKind = Literal["nvlink", "pcie"]
#: card generations (NVIDIA architecture), oldest first
Architecture = Literal["ampere", "ada", "hopper", "blackwell"]
ARCHITECTURES: tuple[Architecture, ...] = ("ampere", "ada", "hopper", "blackwell")
ModelKind = Literal["llm", "image", "video"]
Attention = Literal["gqa", "mla"]
PriceSource = Literal["published", "placeholder"]

#: Weight precisions the memory tool knows (see tools/memory.py for bits per weight).
Precision = Literal[
    "fp32",
    "bf16",
    "fp16",
    "fp8",
    "int8",
    "mxfp4",
    "awq",
    "gptq",
    "gguf-q4_k_m",
    "gguf-q5_k_m",
    "gguf-q8_0",
]
PRECISIONS: tuple[str, ...] = (
    "fp32",
    "bf16",
    "fp16",
    "fp8",
    "int8",
    "mxfp4",
    "awq",
    "gptq",
    "gguf-q4_k_m",
    "gguf-q5_k_m",
    "gguf-q8_0",
)
#: KV-cache precisions (vLLM's kv_cache_dtype: auto = 16-bit, or fp8).
KvPrecision = Literal["fp32", "bf16", "fp16", "fp8", "int8"]
KV_PRECISIONS: tuple[str, ...] = ("fp32", "bf16", "fp16", "fp8", "int8")


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Gpu(_Record):
    """One card model as the site rents it."""

    id: str = Field(description="stable id, e.g. a100-sxm4")
    name: str = Field(description="display name, e.g. NVIDIA A100 SXM4 80GB")
    short_name: str = Field(description="short display name, e.g. A100 SXM4")
    aliases: list[str] = Field(default=[], description="other names a visitor may type")
    memory_gb: float = Field(gt=0, description="card memory in vendor GB (10^9 bytes)")
    memory_bandwidth_gb_s: float = Field(gt=0, description="memory bandwidth, GB/s")
    form_factor: FormFactor
    pcie_gen: int | None = Field(
        default=None, ge=3, le=6, description="the card's own PCIe generation (None for SXM)"
    )
    nvlink_link: str | None = Field(
        default=None, description="link id of the card-to-card NVLink (links.yaml), None if none"
    )
    nvlink_links: int | None = Field(
        default=None, ge=1, description="NVLink links per card (nvidia-smi topo shows NV<n>)"
    )
    fp8_native: bool = Field(default=False, description="hardware FP8 tensor cores (Ada, Hopper+)")
    architecture: Architecture | None = Field(
        default=None, description="the card's generation (ampere, ada, hopper, blackwell)"
    )
    page: str = Field(description="slug of the card page on gpuserver.io, e.g. a100-sxm4")
    guide_listing: str | None = Field(
        default=None,
        description="the link row the site's guide lists this card under (kept as the guide says)",
    )
    sources: dict[str, str] = Field(description="where each fact comes from, keyed by field name")

    @model_validator(mode="after")
    def _check(self) -> Gpu:
        missing = [f for f in ("memory_gb", "memory_bandwidth_gb_s") if f not in self.sources]
        if missing:
            raise ValueError(f"sources must name a source for {', '.join(missing)}")
        if self.form_factor == "pcie" and self.pcie_gen is None:
            raise ValueError("a PCIe card needs pcie_gen")
        if self.form_factor == "sxm" and self.nvlink_link is None:
            raise ValueError("an SXM card needs nvlink_link")
        return self


class Link(_Record):
    """A card-to-card connection (NVLink generation or PCIe generation x16)."""

    id: str = Field(description="e.g. nvlink-4, pcie-gen5-x16")
    name: str = Field(description="display name, e.g. NVLink 4")
    kind: LinkKind
    generation: int = Field(ge=1)
    bandwidth_gb_s: float = Field(
        gt=0, description="the site's canonical figure (guide: 'per card, per direction')"
    )
    per_direction_gb_s: float = Field(
        gt=0, description="vendor rate per card in one direction (what nccl busbw is compared to)"
    )
    bandwidth_basis: str = Field(description="what the vendor's headline figure counts")
    measured_p2p_gb_s: float | None = Field(
        default=None, gt=0, description="typical measured one-direction peer-to-peer rate"
    )
    allreduce_latency_us: float = Field(
        gt=0, description="latency floor of one small all-reduce (assumption; measure it)"
    )
    topology: str = Field(description="the topology in words (English)")
    topology_de: str = Field(description="the topology in words (German, as the guide puts it)")
    topo_labels: list[str] = Field(
        description="what `nvidia-smi topo -m` shows between two cards joined by this link"
    )
    sources: dict[str, str]


class Configuration(_Record):
    """One rentable node: N cards of one model in one chassis, with its monthly price."""

    id: str = Field(description="stable id, e.g. 4x-a100-sxm4")
    label: str = Field(description="display label, e.g. 4 × NVIDIA A100 SXM4")
    label_de: str | None = Field(
        default=None, description="the label in German answers when it has words (default: label)"
    )
    gpu: str = Field(description="card id (gpus.yaml)")
    count: int = Field(ge=1, le=8, description="cards in the node")
    interconnect: str = Field(description="link id between the cards, as the site sells the node")
    usd_per_month: USD = Field(ge=0, description="monthly price in USD, exact")
    price_source: PriceSource
    url: str = Field(description="the configuration's page on gpuserver.io (German)")
    guide_interconnect: str | None = Field(
        default=None, description="how the site's guide labels this node's connection, verbatim"
    )
    board: str | None = Field(
        default=None,
        description="NVLink nodes: the baseboard, e.g. 'HGX A100 4-GPU' (direct NVLink between "
        "the cards) or 'HGX H100 8-GPU' (through NVSwitch)",
    )
    nvswitch: bool | None = Field(
        default=None, description="NVLink nodes: the cards talk through NVSwitch chips"
    )
    topo_label: str | None = Field(
        default=None,
        pattern=r"^NV\d+$",
        description="NVLink nodes: what `nvidia-smi topo -m` shows between every two cards: the "
        "card's links on an NVSwitch board (NV12 A100, NV18 H100/H200/B200), split over the "
        "other cards without one (4-GPU HGX A100: 12 links / 3 peers = NV4; H100: NV6)",
    )
    board_source: str | None = Field(default=None, description="where the board facts come from")

    @property
    def placeholder(self) -> bool:
        return self.price_source == "placeholder"

    @property
    def url_en(self) -> str:
        return self.url.replace("gpuserver.io/de/", "gpuserver.io/en/", 1)

    def label_in(self, lang: str) -> str:
        """The display label in an answer's language ('… (PCIe-Gen4-Gehäuse)' in German)."""
        return self.label_de if lang == "de" and self.label_de else self.label


class VramNeed(_Record):
    """A published VRAM need of an image or video model at one precision."""

    precision: str
    vram_gb: float = Field(gt=0, description="the figure used for fitting (upper end if a range)")
    vram_gb_low: float | None = Field(default=None, gt=0, description="lower end of a range")
    note: str | None = None


class StartingPoint(_Record):
    """A model the assistant proposes when a question names none ("a chatbot for 50 people"):
    the site's order of proposals and the precision proposed."""

    rank: int = Field(ge=1, description="1: proposed first; the others are offered as choices")
    precision: str = Field(description="the precision proposed, e.g. fp8")


class ModelSpec(_Record):
    """A model: LLM architecture facts, or an image/video model's published VRAM needs."""

    id: str = Field(description="stable id, e.g. llama-3.3-70b")
    name: str = Field(description="display name")
    kind: ModelKind = "llm"
    aliases: list[str] = Field(default=[], description="HF ids, ollama tags, plain names")
    params_b: float = Field(gt=0, description="total parameters, billions")
    params_exact: int | None = Field(default=None, gt=0, description="exact parameter count")
    active_params_b: float | None = Field(
        default=None, gt=0, description="parameters used per token (MoE), billions"
    )
    experts: int | None = Field(default=None, ge=1)
    active_experts: int | None = Field(default=None, ge=1)
    layers: int | None = Field(default=None, ge=1)
    hidden_size: int | None = Field(default=None, ge=1)
    intermediate_size: int | None = Field(
        default=None, ge=1, description="MLP width (MoE: per expert), from config.json"
    )
    heads: int | None = Field(default=None, ge=1)
    kv_heads: int | None = Field(default=None, ge=1)
    head_dim: int | None = Field(default=None, ge=1)
    attention: Attention = "gqa"
    kv_lora_rank: int | None = Field(default=None, ge=1, description="MLA latent size")
    rope_dim: int | None = Field(default=None, ge=1, description="MLA decoupled RoPE key size")
    sliding_window: int | None = Field(
        default=None, ge=1, description="tokens a local (sliding-window) attention layer keeps"
    )
    sliding_window_layers: int | None = Field(
        default=None, ge=1, description="layers with sliding-window attention (the rest global)"
    )
    expert_params_b: float | None = Field(
        default=None,
        gt=0,
        description="parameters in the routed experts' MLPs, billions (MXFP4 quantises only "
        "these; attention, router and embeddings stay BF16)",
    )
    vocab_size: int | None = Field(default=None, ge=1)
    tied_embeddings: bool = False
    max_context: int | None = Field(default=None, ge=1, description="tokens")
    native_precision: str = "bf16"
    vram: list[VramNeed] = Field(default=[], description="image/video: published VRAM needs")
    generic: bool = Field(default=False, description="built from a parameter count only")
    starting_point: StartingPoint | None = Field(
        default=None, description="proposed when a question names no model (its rank)"
    )
    estimate_basis: str | None = Field(
        default=None,
        description="generic models: where the estimated architecture (KV cache) comes from",
    )
    source: str

    @property
    def params(self) -> float:
        """Total parameters as a number (exact count when known)."""
        return float(self.params_exact) if self.params_exact else self.params_b * 1e9

    @property
    def is_moe(self) -> bool:
        return self.active_params_b is not None

    @property
    def has_architecture(self) -> bool:
        if self.attention == "mla":
            return self.layers is not None and self.kv_lora_rank is not None
        return None not in (self.layers, self.kv_heads, self.head_dim)

    @model_validator(mode="after")
    def _check(self) -> ModelSpec:
        if self.kind == "llm" and not self.generic and not self.has_architecture:
            raise ValueError("an LLM needs layers, kv_heads and head_dim (MLA: kv_lora_rank)")
        if self.attention == "mla" and (self.kv_lora_rank is None or self.rope_dim is None):
            raise ValueError("MLA attention needs kv_lora_rank and rope_dim")
        if self.kind != "llm" and not self.vram:
            raise ValueError("an image or video model needs its published vram needs")
        if self.active_params_b is not None and self.active_params_b > self.params_b:
            raise ValueError("active_params_b exceeds params_b")
        if (self.sliding_window is None) != (self.sliding_window_layers is None):
            raise ValueError("sliding_window and sliding_window_layers go together")
        if self.sliding_window_layers is not None and (
            self.layers is None or self.sliding_window_layers > self.layers
        ):
            raise ValueError("sliding_window_layers exceeds layers")
        if self.expert_params_b is not None and self.expert_params_b > self.params_b:
            raise ValueError("expert_params_b exceeds params_b")
        return self
