"""What an answer to a new question costs (issue 23's server-CPU target): repeated tool work is
done once. A call that spells a default out and one that leaves it out are one tool call, and the
chart's speeds are throughput_estimate's figures without running the whole tool per point."""

from __future__ import annotations

from typing import Any

import pytest

from assistant.chart import chart_of, sizing_call, speed_call
from assistant.deps import Deps
from assistant.registry.core import ToolError, call_tool_typed
from assistant.service import Assistant


class CountingDeps:
    """Deps with the catalog and a fresh, empty tool cache."""

    def __init__(self, deps: Deps) -> None:
        self.catalog = deps.catalog
        self.extras: dict[str, Any] = {}


def test_a_default_spelled_out_is_the_same_call(deps: Deps) -> None:
    d = CountingDeps(deps)
    short, _ = call_tool_typed(d, "fit_check", {"model": "llama-3.1-8b", "precision": "bf16"})
    defaults = {"context_tokens": 8192, "concurrency": 1, "kv_precision": "bf16"}
    spelled, _ = call_tool_typed(
        d, "fit_check", {"model": "llama-3.1-8b", "precision": "BF16", **defaults}
    )
    assert spelled is short  # one recorded call, run once
    other, _ = call_tool_typed(d, "fit_check", {"model": "llama-3.1-8b", "context_tokens": 4096})
    assert other is not short
    assert other.arguments["context_tokens"] == 4096


def test_bad_arguments_are_a_clear_error_before_the_cache(deps: Deps) -> None:
    d = CountingDeps(deps)
    with pytest.raises(ToolError, match="concurrency"):
        call_tool_typed(d, "fit_check", {"model": "llama-3.1-8b", "concurrency": 0})
    with pytest.raises(ToolError, match="unknown tool"):
        call_tool_typed(d, "fit_chekc", {"model": "llama-3.1-8b"})


@pytest.mark.parametrize(
    "question",
    [
        "Does Llama 3.3 70B fit on 4x A100 PCIe?",
        "What is the cheapest node for Qwen2.5 72B in FP8 with 32k context?",
        "Passt Mixtral 8x7B auf 2x L40S?",
        "How much VRAM does Llama 3.1 8B need for 20 users at 16k?",
    ],
)
def test_the_charts_speeds_are_the_tools_figures(deps: Deps, question: str) -> None:
    answer = Assistant(deps).ask(question)
    assert answer.chart is not None and len(answer.chart.points) >= 2
    args = sizing_call(answer)
    assert args is not None
    fresh = CountingDeps(deps)
    for point in answer.chart.points:
        _, result = call_tool_typed(
            fresh, "throughput_estimate", speed_call(args, point.configuration)
        )
        assert point.tokens_per_s == result["tokens_per_s"]
    assert chart_of(fresh, answer) == answer.chart


def test_no_chart_for_an_image_model(deps: Deps) -> None:
    answer = Assistant(deps).ask("Does FLUX.1 dev fit on one RTX 4090?")
    assert answer.chart is None
