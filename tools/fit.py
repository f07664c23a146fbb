"""The configurator: for one requirement, a verdict for every configuration in the catalog.

Verdicts, as the site's guide words them: fits on one card, must be split across N cards (the
smallest N up to the node's count), or does not fit. Plus the inverse questions: the longest
context and the most concurrent sequences a configuration holds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tools.interconnect import effective_link
from tools.memory import (
    GB,
    GPU_MEMORY_UTILIZATION,
    KvInput,
    PublishedVramInput,
    Runtime,
    ServingInput,
    kv_bytes_per_token_per_card,
    kv_cache,
    layer_split,
    precision_of,
    published_vram,
    runtime_of,
    runtime_overhead_gb,
    runtime_usable_gb,
    serving_memory,
    weight_bytes,
)
from tools.money import USD
from tools.specs import (
    Architecture,
    Configuration,
    Gpu,
    KvPrecision,
    Link,
    LinkKind,
    ModelSpec,
    Precision,
)

Verdict = Literal["fits_one_card", "split", "does_not_fit"]
VERDICT_TEXT = {
    "fits_one_card": "fits on one card",
    "split": "must be split across {n} cards",
    "does_not_fit": "does not fit",
}
SortKey = Literal["catalog", "price", "memory", "headroom"]
Room = Literal["ample", "tight"]
#: Image/video models: spare memory, as a share of the published need, below which a card that
#: holds the job is "tight". The guide marks FLUX.1 at BF16 (24 GB) on a 24 GB card "no
#: headroom", SD 3.5 Large (20 GB) on 24 GB and Wan 2.1 14B (80 GB) on 80 GB "tight", and the
#: RTX 5090 (32 GB) for FLUX.1, a 48 GB card and the H200 for Wan 14B as cards with room; a 25 %
#: margin reproduces every mark of its table (gpu-for-flux-sdxl#which-card).
IMAGE_ROOM_SHARE = 0.25
#: Language models: a fit whose spare memory per card is below the KV cache of one more sequence
#: of the asked context (a second request), and never below this floor, is "tight": no room
#: for a longer prompt, a second user or the activation peaks of a bigger batch (issue 24:
#: 70B FP8 on 4 x L4 with 0.2 GB spare per card, Mixtral Q4_K_M on an RTX 5090 with 0.9 GB).
LLM_ROOM_FLOOR_GB = 0.5
#: A card without FP8 tensor cores (Ampere: A100, RTX A6000) still loads FP8 checkpoints in vLLM,
#: as weight-only FP8 (W8A16) through its FP8 Marlin kernel: the same memory, but no FP8 compute,
#: so slower than on an FP8 card (vLLM docs, "FP8 W8A8"; vllm-project/vllm PR #5975).
FP8_NOT_NATIVE_NOTE = (
    "fp8 not native on {card}: vLLM runs it weight-only (W8A16) via its FP8 Marlin kernel, "
    "same memory but slower than on an FP8 card"
)


def fp8_row_note(model: ModelSpec, precision: str, gpu: Gpu) -> str | None:
    """The caveat for FP8 weights on a card without FP8 tensor cores (None: no caveat)."""
    if precision != "fp8" or gpu.fp8_native or model.kind != "llm":
        return None
    return FP8_NOT_NATIVE_NOTE.format(card=gpu.short_name)


class Requirement(BaseModel):
    """What has to fit: a model at a precision with a context and a number of sequences."""

    model_config = ConfigDict(extra="forbid")

    model: ModelSpec
    precision: Precision | None = Field(default=None, description="None: native precision")
    context_tokens: int = Field(default=8192, ge=0, description="tokens per sequence")
    concurrency: int = Field(default=1, ge=1, description="sequences at the same time")
    kv_precision: KvPrecision = "bf16"
    gpu_memory_utilization: float = Field(default=GPU_MEMORY_UTILIZATION, gt=0, le=1)
    overhead_gb_per_card: float | None = Field(default=None, ge=0)
    runtime: Runtime | None = Field(
        default=None, description="None: llama.cpp for GGUF precisions, else vLLM"
    )


class ConfigurationFit(BaseModel):
    configuration: str = Field(description="configuration id")
    label: str
    gpu: str
    count: int
    memory_gb_per_card: float
    usable_gb_per_card: float
    verdict: Verdict
    verdict_text: str
    cards_needed: int | None = Field(description="N cards the model is split across (1 = one card)")
    required_gb_per_card: float = Field(description="at cards_needed, or at the whole node")
    headroom_gb_per_card: float = Field(description="usable - required (negative: shortfall)")
    headroom_total_gb: float = Field(description="headroom over the cards used (all if no fit)")
    replicas: int = Field(description="independent copies the node holds (count // cards_needed)")
    room: Room | None = Field(
        default=None,
        description="'tight' when the spare memory leaves no room: image/video models below "
        "IMAGE_ROOM_SHARE of the published need; LLMs below one more sequence's KV cache per "
        "card (at least LLM_ROOM_FLOOR_GB); else 'ample' (None: does not fit)",
    )
    room_needed_gb_per_card: float | None = Field(
        default=None, description="spare memory per card below which the fit is 'tight'"
    )
    total_memory_gb: float = Field(description="memory of all cards of the node")
    interconnect: str = Field(description="the link the cards run at (Gen4 card: Gen4)")
    sold_as: str = Field(description="the link the node is sold with (configurations.yaml)")
    link_kind: LinkKind
    fp8_native: bool = Field(description="the card has FP8 tensor cores")
    architecture: Architecture | None = Field(default=None, description="the card's generation")
    usd_per_month: USD
    price_source: str
    url: str
    notes: list[str] = Field(default=[], description="caveats for this row (e.g. FP8 on Ampere)")


class FitResult(BaseModel):
    inputs: Requirement
    model_id: str
    precision: str
    weights_gb: float
    kv_bytes_per_token: float
    runtime: str = Field(default="vllm", description="the serving engine sized for")
    rows: list[ConfigurationFit]
    formula: str
    constants: dict[str, float]
    notes: list[str] = []

    def counts(self) -> dict[str, int]:
        out = {"fits_one_card": 0, "split": 0, "does_not_fit": 0}
        for r in self.rows:
            out[r.verdict] += 1
        return out


def split_candidates(model: ModelSpec, count: int) -> list[int]:
    """Tensor-parallel sizes 1..count a serving engine accepts: the attention heads divisible
    by N, and the KV heads divisible by N, or N a multiple of them (the heads replicated), as
    vLLM's QKV projection requires (8 KV heads: 1, 2, 4, 8, 16, never 3 or 6)."""
    return [n for n in range(1, count + 1) if _tensor_parallel_ok(model, n)]


def _tensor_parallel_ok(model: ModelSpec, n: int) -> bool:
    if model.heads is None:  # a model known by its size: its layout is borrowed, not its own
        return True
    if model.heads % n:
        return False
    kv = model.kv_heads
    if kv is None or model.attention == "mla":  # MLA: one latent shared by every head
        return True
    return kv % n == 0 if n < kv else n % kv == 0


def fit_configuration(
    req: Requirement,
    configuration: Configuration,
    gpu: Gpu,
    links: dict[str, Link] | None = None,
) -> ConfigurationFit:
    """The verdict for one configuration: one card, split across the smallest N, or no fit."""
    return _fit_one(req, _needs(req), configuration, gpu, links)


class _Needs:
    """Per-requirement figures computed once and reused for every configuration (hot path)."""

    __slots__ = (
        "candidates",
        "kv_cache",
        "overhead_gb",
        "precision",
        "published_gb",
        "runtime",
        "split_layers",
        "tokens",
        "weights_gb",
    )

    def __init__(
        self,
        weights_gb: float,
        overhead_gb: float,
        tokens: int,
        published_gb: float = 0.0,
        runtime: str = "vllm",
        precision: str = "bf16",
    ) -> None:
        self.weights_gb = weights_gb
        self.overhead_gb = overhead_gb
        self.tokens = tokens
        self.published_gb = published_gb
        self.runtime = runtime
        self.precision = precision
        self.split_layers = layer_split(runtime)
        self.kv_cache: dict[int, float] = {}
        self.candidates: dict[int, list[int]] = {}

    def split_candidates(self, model: ModelSpec, count: int) -> list[int]:
        found = self.candidates.get(count)
        if found is None:
            found = self.candidates[count] = (
                list(range(1, count + 1)) if self.split_layers else split_candidates(model, count)
            )
        return found

    def kv_per_card(self, req: Requirement, n: int) -> float:
        """KV cache of all sequences per card at n cards, GB."""
        kv = self.kv_cache.get(n)
        if kv is None:
            per_token = kv_bytes_per_token_per_card(
                req.model, req.kv_precision, n, self.split_layers, req.context_tokens
            )
            kv = per_token * self.tokens / GB
            self.kv_cache[n] = kv
        return kv

    def required_per_card(self, req: Requirement, n: int) -> float:
        """The one per-card need of every tool: weights/n + KV per card + overhead."""
        return self.weights_gb / n + self.kv_per_card(req, n) + self.overhead_gb

    def room_needed(self, req: Requirement, n: int) -> float:
        """Spare memory per card a second request of the same length needs (floor included)."""
        one_more = self.kv_per_card(req, n) / max(req.concurrency, 1)
        return max(one_more, LLM_ROOM_FLOOR_GB)


def _needs(req: Requirement) -> _Needs:
    model = req.model
    if model.kind != "llm":
        pv = published_vram(PublishedVramInput(model=model, precision=req.precision))
        return _Needs(0.0, 0.0, 0, published_gb=pv.vram_gb, precision=pv.precision)
    precision = precision_of(model, req.precision)
    weights, _, _ = weight_bytes(model, precision)
    runtime = runtime_of(precision, req.runtime)
    overhead = runtime_overhead_gb(model, runtime, req.overhead_gb_per_card)
    return _Needs(
        weights / GB,
        overhead,
        req.context_tokens * req.concurrency,
        runtime=runtime,
        precision=precision,
    )


def _smallest_split(
    req: Requirement, needs: _Needs, usable: float, count: int
) -> tuple[Verdict, int | None, float]:
    """The fit verdict on `count` cards of `usable` GB: the smallest valid N whose per-card need
    fits, that N and its need; or does_not_fit, None and the need at the largest valid N."""
    required = 0.0
    for n in needs.split_candidates(req.model, count):
        required = needs.required_per_card(req, n)
        if required <= usable:
            return ("fits_one_card" if n == 1 else "split"), n, required
    return "does_not_fit", None, required


class CardVerdict(BaseModel):
    """The one fit verdict for a job on `count` cards of one kind (what `fit` says of a node)."""

    verdict: Verdict
    cards_needed: int | None
    required_gb_per_card: float = Field(description="at cards_needed, else at the largest N")
    usable_gb_per_card: float
    runtime: str


def card_verdict(req: Requirement, gpu: Gpu, count: int) -> CardVerdict:
    """`fit`'s verdict for `req` on `count` x `gpu`: capacity and throughput judge with it."""
    needs = _needs(req)
    if req.model.kind != "llm":
        usable = runtime_usable_gb(gpu.memory_gb, "diffusers")
        ok = needs.published_gb <= usable
        return CardVerdict(
            verdict="fits_one_card" if ok else "does_not_fit",
            cards_needed=1 if ok else None,
            required_gb_per_card=needs.published_gb,
            usable_gb_per_card=usable,
            runtime="diffusers",
        )
    usable = runtime_usable_gb(gpu.memory_gb, needs.runtime, req.gpu_memory_utilization)
    verdict, n, required = _smallest_split(req, needs, usable, count)
    return CardVerdict(
        verdict=verdict,
        cards_needed=n,
        required_gb_per_card=required,
        usable_gb_per_card=usable,
        runtime=needs.runtime,
    )


def need_on(req: Requirement, gpu: Gpu, n: int) -> tuple[float, float]:
    """(required, usable) GB per card for `req` split over n cards of `gpu`: fit's figures."""
    needs = _needs(req)
    if req.model.kind != "llm":
        return needs.published_gb, runtime_usable_gb(gpu.memory_gb, "diffusers")
    usable = runtime_usable_gb(gpu.memory_gb, needs.runtime, req.gpu_memory_utilization)
    return needs.required_per_card(req, n), usable


def _link_fields(
    configuration: Configuration, gpu: Gpu, links: dict[str, Link] | None
) -> dict[str, object]:
    """The link the cards run at (a Gen4 card in a Gen5 node: Gen4) and the one sold."""
    sold = configuration.interconnect
    if links is None or sold not in links:
        kind = "nvlink" if gpu.form_factor == "sxm" else "pcie"
        return {"interconnect": sold, "sold_as": sold, "link_kind": kind}
    eff = effective_link(gpu, links[sold], list(links.values()))
    return {"interconnect": eff.id, "sold_as": sold, "link_kind": eff.kind}


def _fit_one(
    req: Requirement,
    needs: _Needs,
    configuration: Configuration,
    gpu: Gpu,
    links: dict[str, Link] | None = None,
) -> ConfigurationFit:
    """One row of the configurator."""
    model = req.model
    note = fp8_row_note(model, needs.precision, gpu)
    common = {
        "configuration": configuration.id,
        "label": configuration.label,
        "gpu": gpu.id,
        "count": configuration.count,
        "memory_gb_per_card": gpu.memory_gb,
        "total_memory_gb": gpu.memory_gb * configuration.count,
        **_link_fields(configuration, gpu, links),
        "fp8_native": gpu.fp8_native,
        "architecture": gpu.architecture,
        "usd_per_month": configuration.usd_per_month,
        "price_source": configuration.price_source,
        "url": configuration.url,
        "notes": [note] if note else [],
    }
    if model.kind != "llm":
        # Published figures are peaks measured on a whole card; each card renders its own job.
        need = needs.published_gb
        usable_card = runtime_usable_gb(gpu.memory_gb, "diffusers")
        headroom = usable_card - need
        fits = headroom >= 0
        room: Room | None = None
        if fits:
            room = "tight" if headroom < IMAGE_ROOM_SHARE * need else "ample"
        return ConfigurationFit(
            **common,
            usable_gb_per_card=usable_card,
            room_needed_gb_per_card=IMAGE_ROOM_SHARE * need,
            verdict="fits_one_card" if fits else "does_not_fit",
            verdict_text=VERDICT_TEXT["fits_one_card" if fits else "does_not_fit"],
            cards_needed=1 if fits else None,
            required_gb_per_card=need,
            headroom_gb_per_card=headroom,
            headroom_total_gb=headroom,
            replicas=configuration.count if fits else 0,
            room=room,
        )
    usable = runtime_usable_gb(gpu.memory_gb, needs.runtime, req.gpu_memory_utilization)
    verdict, n, required = _smallest_split(req, needs, usable, configuration.count)
    if n is not None:
        spare = needs.room_needed(req, n)
        return ConfigurationFit(
            **common,
            room="tight" if usable - required < spare else "ample",
            room_needed_gb_per_card=spare,
            usable_gb_per_card=usable,
            verdict=verdict,
            verdict_text=VERDICT_TEXT[verdict].format(n=n),
            cards_needed=n,
            required_gb_per_card=required,
            headroom_gb_per_card=usable - required,
            headroom_total_gb=(usable - required) * n,
            replicas=configuration.count // n,
        )
    return ConfigurationFit(
        **common,
        usable_gb_per_card=usable,
        verdict="does_not_fit",
        verdict_text=VERDICT_TEXT["does_not_fit"],
        cards_needed=None,
        required_gb_per_card=required,
        headroom_gb_per_card=usable - required,
        headroom_total_gb=(usable - required) * configuration.count,
        replicas=0,
    )


def fit_configurations(
    req: Requirement,
    configurations: list[Configuration],
    gpus: dict[str, Gpu],
    sort: SortKey = "catalog",
    links: dict[str, Link] | None = None,
) -> FitResult:
    """The configurator over every configuration given (the whole catalog), optionally sorted.
    With `links`, rows name the link the cards really run at."""
    model = req.model
    needs = _needs(req)
    rows = [_fit_one(req, needs, c, gpus[c.gpu], links) for c in configurations]
    if sort == "price":
        rows.sort(key=lambda r: r.usd_per_month)
    elif sort == "memory":
        rows.sort(key=lambda r: r.memory_gb_per_card * r.count)
    elif sort == "headroom":
        rows.sort(key=lambda r: -r.headroom_total_gb)
    if model.kind == "llm":
        one = serving_memory(
            ServingInput(
                model=model,
                precision=req.precision,
                context_tokens=req.context_tokens,
                concurrency=req.concurrency,
                kv_precision=req.kv_precision,
                gpu_memory_utilization=req.gpu_memory_utilization,
                overhead_gb_per_card=req.overhead_gb_per_card,
                runtime=req.runtime,
            )
        )
        return FitResult(
            inputs=req,
            model_id=model.id,
            precision=one.weights.precision,
            weights_gb=one.weights.weights_gb,
            kv_bytes_per_token=one.kv.kv_bytes_per_token,
            runtime=one.runtime,
            rows=rows,
            formula=one.formula + "; verdict: smallest N <= count with required <= usable",
            constants=one.constants,
            notes=one.notes,
        )
    need = published_vram(PublishedVramInput(model=model, precision=req.precision))
    return FitResult(
        inputs=req,
        model_id=model.id,
        precision=need.precision,
        weights_gb=need.vram_gb,
        kv_bytes_per_token=0.0,
        rows=rows,
        formula="fits one card when published vram_gb <= card memory_gb; "
        "image and video jobs are not split: each card renders its own image or frame; "
        "room = tight when memory_gb - vram_gb < image_room_share * vram_gb",
        constants={"gpu_memory_utilization": 1.0, "image_room_share": IMAGE_ROOM_SHARE},
        runtime="n/a",
        notes=need.notes,
    )


# ---------------------------------------------------------------- inverse: capacity


class CapacityInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: ModelSpec
    gpu: Gpu
    count: int = Field(ge=1, description="cards in the node")
    precision: Precision | None = None
    tensor_parallel: int | None = Field(
        default=None, description="cards to split across; None: the largest valid N <= count"
    )
    kv_precision: KvPrecision = "bf16"
    concurrency: int = Field(default=1, ge=1, description="sequences, for the longest context")
    context_tokens: int = Field(default=8192, ge=1, description="tokens, for the most sequences")
    gpu_memory_utilization: float = Field(default=GPU_MEMORY_UTILIZATION, gt=0, le=1)
    overhead_gb_per_card: float | None = Field(default=None, ge=0)
    runtime: Runtime | None = Field(
        default=None, description="None: llama.cpp for GGUF precisions, else vLLM"
    )


class CapacityResult(BaseModel):
    inputs: CapacityInput
    tensor_parallel: int
    usable_gb_per_card: float
    weights_gb_per_card: float
    overhead_gb_per_card: float
    kv_room_gb_per_card: float = Field(description="usable - weights - overhead (<= 0: no room)")
    kv_bytes_per_token_per_card: float
    kv_tokens: int = Field(description="tokens of KV cache the cards hold in all")
    max_context_tokens: int = Field(description="longest context for `concurrency` sequences")
    max_context_capped: int = Field(description="the same, capped at the model's max context")
    max_concurrency: int = Field(description="most sequences of `context_tokens` each")
    fits: bool = Field(description="weights and overhead fit with any room for KV")
    load_required_gb_per_card: float = Field(
        description="per-card need of `concurrency` sequences of `context_tokens` at "
        "tensor_parallel (fit's figure)"
    )
    load_fits: bool = Field(description="that load fits at tensor_parallel (fit's verdict)")
    fit: CardVerdict = Field(description="fit's verdict for that load on this node")
    runtime: str = Field(default="vllm", description="the serving engine sized for")
    formula: str
    notes: list[str] = []


def longest_context(budget_bytes: float, sequence_bytes: Callable[[int], float]) -> int:
    """The most tokens one sequence can hold within `budget_bytes`, for a KV size that grows
    with the sequence (`sequence_bytes(n)`, monotone; sliding-window layers make it grow slower
    past their window). Bisection over whole tokens."""
    lo, hi = 0, 1
    while sequence_bytes(hi) <= budget_bytes and hi < 2**40:
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if sequence_bytes(mid) <= budget_bytes:
            lo = mid
        else:
            hi = mid
    return lo


def capacity(inp: CapacityInput) -> CapacityResult:
    """Inverse sizing: how much KV cache (context x sequences) fits next to the weights."""
    model = inp.model
    if model.kind != "llm":
        raise ValueError("capacity applies to language models (KV cache)")
    runtime = runtime_of(precision_of(model, inp.precision), inp.runtime)
    split = layer_split(runtime)
    candidates = list(range(1, inp.count + 1)) if split else split_candidates(model, inp.count)
    tp = inp.tensor_parallel or max(candidates)
    if tp not in candidates:
        raise ValueError(f"tensor_parallel {tp} is not valid for {model.name} on {inp.count} cards")
    base = serving_memory(
        ServingInput(
            model=model,
            precision=inp.precision,
            context_tokens=0,
            kv_precision=inp.kv_precision,
            tensor_parallel=tp,
            gpu_memory_utilization=inp.gpu_memory_utilization,
            overhead_gb_per_card=inp.overhead_gb_per_card,
            runtime=runtime,
        )
    )
    usable = runtime_usable_gb(inp.gpu.memory_gb, runtime, inp.gpu_memory_utilization)
    room = usable - base.required_gb_per_card
    per_token = kv_cache(
        KvInput(
            model=model,
            context_tokens=inp.context_tokens,  # sliding-window layers: the average at it
            kv_precision=inp.kv_precision,
            tensor_parallel=tp,
            split_layers=split,
        )
    ).kv_bytes_per_token_per_card
    notes = list(base.notes)
    if room <= 0:
        tokens = 0
        notes.append(
            f"No room for KV cache: weights ({base.weights_gb_per_card:.1f} GB per card) and "
            f"overhead exceed the usable {usable:.1f} GB per card."
        )
    elif per_token == 0:
        tokens = 0
        notes.append("KV cache size unknown for this model (architecture not given).")
    else:
        tokens = int(room * 1e9 // per_token)
    max_ctx = tokens // inp.concurrency
    if tokens and model.sliding_window_layers and model.sliding_window:
        # a longer sequence costs fewer bytes per token (the windowed layers stop growing)
        max_ctx = longest_context(
            room * 1e9 / inp.concurrency,
            lambda n: n * kv_bytes_per_token_per_card(model, inp.kv_precision, tp, split, n),
        )
        notes.append(
            f"Longest context counts the sliding-window layers at that length: "
            f"{max_ctx:,} tokens per sequence; at {inp.context_tokens:,} tokens a token costs "
            f"{per_token:,.0f} B per card."
        )
    req = Requirement(
        model=model,
        precision=inp.precision,
        context_tokens=inp.context_tokens,
        concurrency=inp.concurrency,
        kv_precision=inp.kv_precision,
        gpu_memory_utilization=inp.gpu_memory_utilization,
        overhead_gb_per_card=inp.overhead_gb_per_card,
        runtime=runtime,
    )
    load_need = _needs(req).required_per_card(req, tp)
    verdict = card_verdict(req, inp.gpu, inp.count)
    if load_need > usable and room > 0:
        notes.append(
            f"{inp.concurrency} x {inp.context_tokens:,} tokens does not fit on {tp} card(s): "
            f"{load_need:.1f} GB per card needed, {usable:.1f} GB usable."
        )
    return CapacityResult(
        inputs=inp,
        tensor_parallel=tp,
        usable_gb_per_card=usable,
        weights_gb_per_card=base.weights_gb_per_card,
        overhead_gb_per_card=base.overhead_gb_per_card,
        kv_room_gb_per_card=room,
        kv_bytes_per_token_per_card=per_token,
        kv_tokens=tokens,
        max_context_tokens=max_ctx,
        max_context_capped=min(max_ctx, model.max_context or max_ctx),
        max_concurrency=tokens // inp.context_tokens,
        fits=room > 0,
        load_required_gb_per_card=load_need,
        load_fits=load_need <= usable,
        fit=verdict,
        runtime=runtime,
        formula="kv_room_gb = usable_gb - weights_gb / tp - overhead_gb; "
        "kv_tokens = kv_room_gb * 1e9 / kv_bytes_per_token_per_card; "
        "max_context = kv_tokens / concurrency; max_concurrency = kv_tokens / context_tokens",
        notes=notes,
    )
