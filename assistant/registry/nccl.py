"""Diagnostics, continued: reading pasted nccl-tests `all_reduce_perf` output
(`check_allreduce_output`). Registered last (after `capacity_check`) to keep the tool order."""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from assistant.registry.core import _Args, tool
from assistant.registry.helpers import _configuration, _r
from assistant.registry.interconnect import _link_info, _node_link


class AllReduceOutputArgs(_Args):
    text: str | None = Field(
        default=None, max_length=50_000, description="pasted output of nccl-tests all_reduce_perf"
    )
    busbw_gb_s: float | None = Field(
        default=None, gt=0, le=10_000, description="or one stated busbw figure, GB/s"
    )
    configuration: str = Field(description="the rented configuration id, e.g. '8x-h100-sxm5'")

    @model_validator(mode="after")
    def _one_input(self) -> AllReduceOutputArgs:
        if self.text is None and self.busbw_gb_s is None:
            raise ValueError("give the pasted output (text) or a busbw_gb_s figure")
        return self


@tool
def check_allreduce_output(deps: Any, args: AllReduceOutputArgs) -> dict[str, Any]:
    """Judge nccl-tests all_reduce_perf on a node: pasted output (its peak busbw) or one stated
    busbw_gb_s figure, against the rated per-direction rate of the link the node's cards run at
    (the busbw a healthy ring reaches), with a verdict: ok / lower than expected / defect."""
    from tools.diagnostics import AllReduceInput, BusbwInput, check_all_reduce, check_busbw

    c = _configuration(deps, args.configuration)
    link = _node_link(deps, c)
    if args.text is None:
        assert args.busbw_gb_s is not None
        b = check_busbw(BusbwInput(busbw_gb_s=args.busbw_gb_s, link=link, cards=max(c.count, 2)))
        out = b.model_dump(mode="json", exclude={"inputs"})
        out["configuration"] = c.id
        out["link"] = _link_info(link)
        out["peak_busbw_gb_s"] = _r(args.busbw_gb_s, 1)
        out["ratio_to_rated_percent"] = _r(b.ratio_to_rated * 100, 0)
        return out
    res = check_all_reduce(AllReduceInput(text=args.text, link=link))
    out = res.model_dump(mode="json", exclude={"inputs"})
    out["rows"] = out["rows"][-6:]
    out["configuration"] = c.id
    out["link"] = _link_info(link)
    out["rated_gb_s"] = _r(res.rated_gb_s, 1)
    out["peak_busbw_gb_s"] = _r(res.peak_busbw_gb_s, 1)
    out["ratio_to_rated_percent"] = _r(res.ratio_to_rated * 100, 0)
    return out
