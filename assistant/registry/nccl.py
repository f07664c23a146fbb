"""Diagnostics, continued: reading pasted nccl-tests `all_reduce_perf` output
(`check_allreduce_output`). Registered last (after `capacity_check`) to keep the tool order."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from assistant.registry.core import _Args, tool
from assistant.registry.helpers import _configuration, _r
from assistant.registry.interconnect import _link_info, _node_link


class AllReduceOutputArgs(_Args):
    text: str = Field(max_length=50_000, description="pasted output of nccl-tests all_reduce_perf")
    configuration: str = Field(description="the rented configuration id, e.g. '8x-h100-sxm5'")


@tool
def check_allreduce_output(deps: Any, args: AllReduceOutputArgs) -> dict[str, Any]:
    """Read pasted `all_reduce_perf` (nccl-tests) output: peak bus bandwidth (busbw) compared
    with the rated per-direction figure of the node's link, and a verdict (ok / lower than
    expected / defect)."""
    from tools.diagnostics import AllReduceInput, check_all_reduce

    c = _configuration(deps, args.configuration)
    link = _node_link(deps, c)
    res = check_all_reduce(AllReduceInput(text=args.text, link=link))
    out = res.model_dump(mode="json", exclude={"inputs"})
    out["rows"] = out["rows"][-6:]
    out["configuration"] = c.id
    out["link"] = _link_info(link)
    out["rated_gb_s"] = _r(res.rated_gb_s, 1)
    out["peak_busbw_gb_s"] = _r(res.peak_busbw_gb_s, 1)
    out["ratio_to_rated_percent"] = _r(res.ratio_to_rated * 100, 0)
    return out
