"""Diagnostics: reading pasted `nvidia-smi topo -m` output (`check_topology_output`).

The nccl-tests check (`check_allreduce_output`) lives in `nccl.py`: it registers after
`capacity_check`, as it always has, so the tool order stays the same."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from assistant.registry.core import _Args, tool
from assistant.registry.helpers import _configuration


class TopologyArgs(_Args):
    text: str = Field(max_length=20_000, description="the pasted output of `nvidia-smi topo -m`")
    configuration: str | None = Field(
        default=None, description="the rented configuration id, e.g. '8x-h100-sxm5' (if known)"
    )
    node_kind: Literal["sxm", "pcie"] | None = Field(
        default=None, description="SXM (NVLink) or PCIe node, when no configuration is given"
    )


@tool
def check_topology_output(deps: Any, args: TopologyArgs) -> dict[str, Any]:
    """Read pasted `nvidia-smi topo -m` output: for every card pair the label (NV# = NVLink; PIX,
    PXB, PHB, NODE, SYS = PCIe paths, SYS the worst: across CPU sockets) and a verdict against
    what the rented node should show: every pair NVLink on SXM nodes, with its board's label
    (NV18 on an 8-GPU HGX H100, NV4 on a 4-GPU HGX A100 whose 12 links go to 3 peers)."""
    from tools.diagnostics import TopoInput, check_topology

    kind = args.node_kind
    expected_label = None
    accepted: list[str] = []
    expected_cards = None
    cfg = None
    board = None
    if args.configuration:
        c = _configuration(deps, args.configuration)
        cfg, board = c.id, c.board
        link = deps.catalog.links[c.interconnect]
        kind = "sxm" if link.kind == "nvlink" else "pcie"
        expected_label = deps.catalog.expected_topo_label(c)  # the board's: NV4 on 4-GPU A100
        accepted = deps.catalog.accepted_topo_labels(c)  # NV12: cards of an NVSwitch board
        expected_cards = c.count
    res = check_topology(
        TopoInput(
            text=args.text,
            node_kind=kind or "pcie",
            expected_label=expected_label,
            accepted_labels=accepted,
            expected_cards=expected_cards,
        )
    )
    out = res.model_dump(mode="json")
    out.pop("inputs", None)
    out["configuration"] = cfg
    out["node_kind"] = kind
    out["expected_label"] = expected_label
    out["accepted_labels"] = accepted
    # every label that is healthy on this node, the board's first (NV6 and NV18 on 4x H100 SXM5):
    # `accepted_labels` alone reads as if the board's own label were not accepted
    out["healthy_labels"] = [x for x in (expected_label, *accepted) if x]
    out["board"] = board
    return out
