"""Interconnect: card-to-card links (`interconnect_facts`), the tensor-parallel sync cost
(`tensor_parallel_cost`) and the gradient all-reduce time (`gradient_allreduce_time`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from assistant.registry.core import ToolError, _Args, tool
from assistant.registry.helpers import _configuration, _model, _model_info, _r


def _node_link(deps: Any, configuration: Any) -> Any:
    from tools.interconnect import effective_link

    cat = deps.catalog
    return effective_link(
        cat.gpus[configuration.gpu], cat.links[configuration.interconnect], list(cat.links.values())
    )


def _link_info(link: Any, language: str = "en") -> dict[str, Any]:
    return {
        "id": link.id,
        "name": link.name,
        "kind": link.kind,
        "bandwidth_gb_s": link.bandwidth_gb_s,
        # NVLink is sold by both directions added, PCIe per direction (tools.specs Link)
        "per_direction_gb_s": link.per_direction_gb_s,
        "topology": link.topology,
        "topology_de": link.topology_de,
        "topo_labels": list(link.topo_labels),
    }


class LinkArgs(_Args):
    configurations: list[str] = Field(
        default_factory=list,
        max_length=8,
        description="configuration ids to describe (e.g. ['4x-a100-pcie', '4x-a100-sxm4']); "
        "empty: all link types",
    )


@tool
def interconnect_facts(deps: Any, args: LinkArgs) -> dict[str, Any]:
    """The card-to-card link of configurations (NVLink generation or PCIe generation, bandwidth in
    GB/s, topology, what `nvidia-smi topo -m` shows), the link a PCIe Gen4 card really runs at,
    and the bandwidth ratio NVLink 4 : PCIe Gen5 (about 14x)."""
    from tools.interconnect import LinkRatioInput, link_ratio

    cat = deps.catalog
    out: dict[str, Any] = {}
    if args.configurations:
        nodes = []
        for text in args.configurations:
            c = _configuration(deps, text)
            eff = _node_link(deps, c)
            nodes.append(
                {
                    "configuration": c.id,
                    "label": c.label,
                    "count": c.count,
                    "link": _link_info(eff),
                    "sold_as": c.interconnect,
                    # what `topo -m` should show between every two of its cards (None: PCIe)
                    "topo_label": cat.expected_topo_label(c),
                    "accepted_topo_labels": cat.accepted_topo_labels(c),
                }
            )
        out["nodes"] = nodes
    else:
        out["links"] = [_link_info(link) for link in cat.links.values()]
    if "nvlink-4" in cat.links and "pcie-gen5-x16" in cat.links:
        r = link_ratio(LinkRatioInput(fast=cat.links["nvlink-4"], slow=cat.links["pcie-gen5-x16"]))
        out["ratio_nvlink4_to_pcie_gen5"] = _r(r.ratio, 1)
    return out


class TensorParallelArgs(_Args):
    model: str = Field(description="model name (needs a known architecture: layers, hidden size)")
    configuration: str = Field(description="configuration id, e.g. '4x-a100-pcie'")
    cards: int | None = Field(default=None, ge=2, le=8, description="omitted: the node's count")


@tool
def tensor_parallel_cost(deps: Any, args: TensorParallelArgs) -> dict[str, Any]:
    """What tensor parallelism costs per generated token on a node: all-reduces per token (one
    per layer as the guide counts: 80 for a 70B model), time per sync on the node's link and
    time per token spent synchronising."""
    from tools.interconnect import TensorParallelInput, tensor_parallel_sync

    m = _model(deps, args.model)
    c = _configuration(deps, args.configuration)
    cards = args.cards or c.count
    if cards < 2:
        raise ToolError(f"{c.id} has one card: nothing to split across")
    link = _node_link(deps, c)
    r = tensor_parallel_sync(TensorParallelInput(model=m, link=link, cards=cards))
    return {
        "model": _model_info(m),
        "configuration": c.id,
        "link": _link_info(link),
        "cards": cards,
        "syncs_per_token": r.syncs_per_token,
        "seconds_per_sync": r.seconds_per_sync,
        "seconds_per_token": r.seconds_per_token,
        "ms_per_token": _r(r.seconds_per_token * 1000, 3),
        "constants": r.constants,
        "formula": r.formula,
        "notes": r.notes,
    }


LinkId = Literal["pcie-gen4-x16", "pcie-gen5-x16", "nvlink-3", "nvlink-4", "nvlink-5"]
DEFAULT_LINKS: tuple[LinkId, ...] = ("pcie-gen5-x16", "nvlink-4")


class AllReduceArgs(_Args):
    model: str | None = Field(
        default=None, description="model name or parameter count ('70B'); or give params_b"
    )
    params_b: float | None = Field(
        default=None, gt=0, le=10_000, description="parameters, billions"
    )
    links: list[LinkId] = Field(
        default_factory=lambda: list(DEFAULT_LINKS),
        description="links to compare (default: PCIe Gen5 and NVLink 4, as the guide does)",
    )
    cards: int = Field(default=4, ge=2, le=8, description="cards in the all-reduce (ring figure)")
    bytes_per_param: float = Field(default=2, gt=0, le=4, description="gradient width: BF16 = 2")


@tool
def gradient_allreduce_time(deps: Any, args: AllReduceArgs) -> dict[str, Any]:
    """Time of the gradient all-reduce at the end of every training step: size = parameters x 2
    bytes (BF16), time = size / the link's per-direction rate (70B: 140 GB, about 2.2 s over PCIe
    Gen5, 0.31 s over NVLink 4 at 450 GB/s; the guide's 0.16 s divides by 900 GB/s, both
    directions: guide_seconds), plus the ring figure 2(n-1)/n x size / bandwidth."""
    from tools.interconnect import GradientAllReduceInput, gradient_allreduce

    if args.params_b is not None:
        params_b = args.params_b
        info: dict[str, Any] | None = None
    elif args.model:
        m = _model(deps, args.model)
        params_b, info = m.params_b, _model_info(m)
    else:
        raise ToolError("gradient_allreduce_time: give a model or params_b")
    rows = []
    for lid in args.links:
        link = deps.catalog.links[lid]
        r = gradient_allreduce(
            GradientAllReduceInput(
                params_b=params_b,
                bytes_per_param=args.bytes_per_param,
                link=link,
                cards=args.cards,
            )
        )
        rows.append(
            {
                "link": lid,
                "name": link.name,
                "bandwidth_gb_s": r.bandwidth_gb_s,
                "seconds": _r(r.seconds, 3),
                "ring_seconds": _r(r.ring_seconds, 3),
                "ring_factor": _r(r.ring_factor, 3),
                "guide_bandwidth_gb_s": r.guide_bandwidth_gb_s,
                "guide_seconds": _r(r.guide_seconds, 3),
            }
        )
    return {
        "model": info,
        "params_b": params_b,
        "size_gb": _r(params_b * args.bytes_per_param),
        "cards": args.cards,
        "rows": rows,
        "formula": "seconds = size_gb / bandwidth_gb_s (per direction); ring_seconds = "
        "2(n-1)/n * size_gb / bandwidth_gb_s; guide_seconds = size_gb / guide_bandwidth_gb_s "
        "(the guide's NVLink figure adds both directions)",
    }
