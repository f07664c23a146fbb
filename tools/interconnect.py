"""The link between cards: facts, ratios, tensor-parallel synchronisation and gradient all-reduce.

Figures follow the site's guide (nvlink-vs-pcie): NVLink 4 900 GB/s against PCIe Gen5 64 GB/s is
about 14x; tensor parallelism synchronises once per layer per token (80 times for a 70B model);
a 70B model in BF16 moves 140 GB per training step, about 2.2 s over PCIe Gen5 and about 0.16 s
over NVLink 4 (size / bandwidth). The ring figure 2(n-1)/n x size / bandwidth is the one
nccl-tests uses for bus bandwidth.
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
    fast_gb_s: float
    slow_gb_s: float
    ratio: float
    formula: str = "ratio = fast.bandwidth_gb_s / slow.bandwidth_gb_s"


def link_ratio(inp: LinkRatioInput) -> LinkRatioResult:
    """How many times faster one link is than another (NVLink 4 : PCIe Gen5 is about 14x)."""
    return LinkRatioResult(
        inputs=inp,
        fast_gb_s=inp.fast.bandwidth_gb_s,
        slow_gb_s=inp.slow.bandwidth_gb_s,
        ratio=inp.fast.bandwidth_gb_s / inp.slow.bandwidth_gb_s,
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
    transfer = ring_factor(inp.cards) * message / (inp.link.bandwidth_gb_s * 1e9)
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
        "seconds_per_sync = max(latency, 2(n-1)/n * message / bandwidth); "
        "seconds_per_token = syncs_per_token * seconds_per_sync",
        constants={
            "allreduces_per_layer": inp.allreduces_per_layer,
            "activation_bytes": ACTIVATION_BYTES,
            "latency_us": inp.link.allreduce_latency_us,
            "bandwidth_gb_s": inp.link.bandwidth_gb_s,
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
    bandwidth_gb_s: float
    seconds: float = Field(description="the guide's figure: size / bandwidth")
    ring_factor: float
    ring_seconds: float = Field(description="2(n-1)/n * size / bandwidth, as nccl-tests counts")
    formula: str
    notes: list[str]


def gradient_allreduce(inp: GradientAllReduceInput) -> GradientAllReduceResult:
    """Per-step gradient all-reduce time: the guide's size/bandwidth and the ring figure."""
    size_gb = inp.params_b * inp.bytes_per_param
    bw = inp.link.bandwidth_gb_s
    factor = ring_factor(inp.cards)
    return GradientAllReduceResult(
        inputs=inp,
        size_gb=size_gb,
        bandwidth_gb_s=bw,
        seconds=size_gb / bw,
        ring_factor=factor,
        ring_seconds=factor * size_gb / bw,
        formula="size_gb = params_b * bytes_per_param; seconds = size_gb / bandwidth_gb_s; "
        "ring_seconds = 2(n-1)/n * size_gb / bandwidth_gb_s",
        notes=[
            "Sized by the parameter count, not the batch; paid at the end of every step.",
            "Pure transfer time; overlap with the backward pass can hide part of it.",
        ],
    )
