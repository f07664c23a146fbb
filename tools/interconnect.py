"""The link between cards: facts, ratios, tensor-parallel synchronisation and gradient all-reduce.

Link rates have a direction. NVIDIA's NVLink headline (NVLink 4: 900 GB/s) counts both directions;
PCIe's 64 GB/s (Gen5 x16) is one direction. A ring all-reduce sends and receives at the same time,
so its time is bounded by the rate in one direction, the figure nccl-tests' busbw is compared
with (`Link.per_direction_gb_s`, as `check_all_reduce` does): every all-reduce time here uses it.
The site's guide (nvlink-vs-pcie) divides by 900 GB/s for NVLink 4 (140 GB per step of a 70B
model: "about 0.16 s"; per direction it is 0.31 s) and compares 900 with 64 GB/s ("about 14x";
per direction 7x): results carry the guide's figure beside ours (`guide_*`). Tensor parallelism
synchronises once per layer per token (80 times for a 70B model), as the guide counts.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from tools.specs import Gpu, Link, ModelSpec

ACTIVATION_BYTES = 2  # bf16 partial sums exchanged by the all-reduce
GUIDE_ALLREDUCES_PER_LAYER = 1  # the guide counts one per layer; Megatron-style TP does two


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


def ring_factor(cards: int) -> float:
    """2(n-1)/n: the share of the data each card sends in a ring all-reduce (nccl busbw factor)."""
    return 2 * (cards - 1) / cards if cards > 1 else 0.0


def effective_link(gpu: Gpu, link: Link, links: list[Link]) -> Link:
    """The link the cards run at: a PCIe Gen4 card in a Gen5 node runs at the Gen4 rate."""
    if link.kind == "pcie" and gpu.pcie_gen is not None and gpu.pcie_gen < link.generation:
        for other in links:
            if other.kind == "pcie" and other.generation == gpu.pcie_gen:
                return other
    return link


# ---------------------------------------------------------------- ratio


class LinkRatioInput(_In):
    fast: Link
    slow: Link


class LinkRatioResult(BaseModel):
    inputs: LinkRatioInput
    fast_gb_s: float = Field(description="the guide's figure (NVLink: both directions)")
    slow_gb_s: float
    ratio: float = Field(description="the guide's ratio (NVLink 4 : PCIe Gen5 about 14x)")
    per_direction_ratio: float = Field(
        default=0.0, description="the same per direction, what an all-reduce sees (about 7x)"
    )
    formula: str = (
        "ratio = fast.bandwidth_gb_s / slow.bandwidth_gb_s (the guide's figures); "
        "per_direction_ratio = fast.per_direction_gb_s / slow.per_direction_gb_s"
    )


def link_ratio(inp: LinkRatioInput) -> LinkRatioResult:
    """How many times faster one link is than another: as the guide counts (NVLink 4 : PCIe Gen5
    about 14x, NVLink's both directions against PCIe's one) and per direction (about 7x)."""
    return LinkRatioResult(
        inputs=inp,
        fast_gb_s=inp.fast.bandwidth_gb_s,
        slow_gb_s=inp.slow.bandwidth_gb_s,
        ratio=inp.fast.bandwidth_gb_s / inp.slow.bandwidth_gb_s,
        per_direction_ratio=inp.fast.per_direction_gb_s / inp.slow.per_direction_gb_s,
    )


# ---------------------------------------------------------------- tensor parallel


class TensorParallelInput(_In):
    model: ModelSpec
    link: Link
    cards: int = Field(ge=2, description="cards the model is split across")
    batch_tokens: int = Field(default=1, ge=1, description="tokens decoded together")
    allreduces_per_layer: int = Field(default=GUIDE_ALLREDUCES_PER_LAYER, ge=1)


class TensorParallelResult(BaseModel):
    inputs: TensorParallelInput
    syncs_per_token: int = Field(description="all-reduces per generated token")
    message_bytes: float = Field(description="bytes each all-reduce sums")
    transfer_seconds_per_sync: float
    latency_seconds_per_sync: float
    seconds_per_sync: float = Field(description="max(latency floor, ring transfer)")
    seconds_per_token: float
    formula: str
    constants: dict[str, float]
    notes: list[str]


def tensor_parallel_sync(inp: TensorParallelInput) -> TensorParallelResult:
    """Time the all-reduces of one decoded token cost: layers x per-layer sync, latency floor."""
    model = inp.model
    if model.layers is None or model.hidden_size is None:
        raise ValueError(f"{model.name}: layers and hidden size are needed (architecture unknown)")
    syncs = model.layers * inp.allreduces_per_layer
    message = model.hidden_size * inp.batch_tokens * ACTIVATION_BYTES
    transfer = ring_factor(inp.cards) * message / (inp.link.per_direction_gb_s * 1e9)
    latency = inp.link.allreduce_latency_us * 1e-6
    per_sync = max(latency, transfer)
    return TensorParallelResult(
        inputs=inp,
        syncs_per_token=syncs,
        message_bytes=message,
        transfer_seconds_per_sync=transfer,
        latency_seconds_per_sync=latency,
        seconds_per_sync=per_sync,
        seconds_per_token=syncs * per_sync,
        formula="syncs_per_token = layers * allreduces_per_layer; message = hidden * batch * 2 B; "
        "seconds_per_sync = max(latency, 2(n-1)/n * message / per-direction bandwidth); "
        "seconds_per_token = syncs_per_token * seconds_per_sync",
        constants={
            "allreduces_per_layer": inp.allreduces_per_layer,
            "activation_bytes": ACTIVATION_BYTES,
            "latency_us": inp.link.allreduce_latency_us,
            "bandwidth_gb_s": inp.link.per_direction_gb_s,
        },
        notes=[
            "The guide counts one all-reduce per layer; Megatron-style tensor parallelism "
            "does two.",
            "Every sync waits for the slowest card; the latency figure is an assumption, "
            "measure it with all_reduce_perf.",
        ],
    )


# ---------------------------------------------------------------- gradient all-reduce


class GradientAllReduceInput(_In):
    params_b: float = Field(gt=0, description="parameters in billions (70 for a 70B model)")
    bytes_per_param: float = Field(default=2, gt=0, description="gradient width, BF16 = 2")
    link: Link
    cards: int = Field(default=4, ge=2)


class GradientAllReduceResult(BaseModel):
    inputs: GradientAllReduceInput
    size_gb: float = Field(description="gradient bytes per step")
    bandwidth_gb_s: float = Field(description="the link's rate per direction, GB/s")
    seconds: float = Field(description="size / per-direction bandwidth, as the guide counts it")
    ring_factor: float
    ring_seconds: float = Field(description="2(n-1)/n * size / bandwidth, as nccl-tests counts")
    guide_bandwidth_gb_s: float = Field(
        description="the guide's figure for the link (NVLink: both directions added)"
    )
    guide_seconds: float = Field(description="size / the guide's figure (NVLink: 2x optimistic)")
    formula: str
    notes: list[str]


def gradient_allreduce(inp: GradientAllReduceInput) -> GradientAllReduceResult:
    """Per-step gradient all-reduce time over the link's per-direction rate (the rate
    `check_all_reduce` compares busbw with): size / bandwidth and the ring figure; the guide's
    figure beside it."""
    size_gb = inp.params_b * inp.bytes_per_param
    bw = inp.link.per_direction_gb_s
    factor = ring_factor(inp.cards)
    notes = [
        "Sized by the parameter count, not the batch; paid at the end of every step.",
        "Pure transfer time; overlap with the backward pass can hide part of it.",
    ]
    if inp.link.bandwidth_gb_s != bw:
        notes.append(
            f"{inp.link.name}: {bw:,.0f} GB/s per direction; the guide's "
            f"{inp.link.bandwidth_gb_s:,.0f} GB/s adds both directions, so its "
            f"{size_gb / inp.link.bandwidth_gb_s:.2g} s is 2x optimistic."
        )
    return GradientAllReduceResult(
        inputs=inp,
        size_gb=size_gb,
        bandwidth_gb_s=bw,
        seconds=size_gb / bw,
        ring_factor=factor,
        ring_seconds=factor * size_gb / bw,
        guide_bandwidth_gb_s=inp.link.bandwidth_gb_s,
        guide_seconds=size_gb / inp.link.bandwidth_gb_s,
        formula="size_gb = params_b * bytes_per_param; seconds = size_gb / per_direction_gb_s; "
        "ring_seconds = 2(n-1)/n * size_gb / per_direction_gb_s; "
        "guide_seconds = size_gb / the guide's bandwidth_gb_s",
        notes=notes,
    )
