"""The agent-facing tools: one registry for the offline composer and the LLM.

Each tool is a plain typed function `fn(deps, args: SomeArgs) -> dict` over the engine's pure tools
(`tools/`) and the catalog. Arguments are simple (model name, precision, context, concurrency,
configuration id); the result is a JSON-able dict that carries the figures, the assumptions and
the formula, so an answer can show its work and the grounding check can find every number.

    call_tool(deps, "fit_check", {"model": "Llama 3.3 70B", "precision": "bf16"}) -> ToolCall

`call_tool` validates the arguments (pydantic), runs the tool and records the call. Bad arguments,
an unknown tool, model or configuration raise `ToolError` with a message that names the problem
and the closest known names (the LLM sees that message and can correct itself).

The docstrings and field descriptions are what an LLM sees: keep them precise.

The package:

- `core`: `ToolError`, the args base class and precision aliases, `ToolSpec`, `@tool`,
  `REGISTRY` and `call_tool`;
- `helpers`: model/configuration lookup, `_model_info`, `quote`, rounding;
- one module per tool family: `fit`, `memory`, `prices`, `speed`, `interconnect`, `cards`,
  `advice`, `diagnostics`, `capacity`, `nccl`, `training`, `node_models`, `models`.

`@tool` registers a tool when its module is imported, so the import order below IS the tool
order in `REGISTRY` (and in the LLM's tool list): keep it.
"""

from __future__ import annotations

from assistant.registry.core import (
    REGISTRY,
    PrecisionArg,
    ToolError,
    ToolSpec,
    call_tool,
    tool,
)
from assistant.registry.helpers import quote

# Registration order: each import below registers its module's tools in REGISTRY, so this order
# is the tool order (and the LLM's tool list). Keep it; do not let an import sorter reorder it.
# isort: off
from assistant.registry.fit import FitArgs, fit_check
from assistant.registry.memory import MemoryArgs, memory_need
from assistant.registry.prices import (
    CheapestArgs,
    PriceArgs,
    WithinArgs,
    cheapest_fit,
    nodes_within,
    price_quote,
)
from assistant.registry.speed import ThroughputArgs, throughput_estimate
from assistant.registry.interconnect import (
    DEFAULT_LINKS,
    AllReduceArgs,
    LinkArgs,
    LinkId,
    TensorParallelArgs,
    gradient_allreduce_time,
    interconnect_facts,
    tensor_parallel_cost,
)
from assistant.registry.cards import CardArgs, card_facts
from assistant.registry.advice import AdviceArgs, purchase_advice
from assistant.registry.diagnostics import TopologyArgs, check_topology_output
from assistant.registry.capacity import CapacityArgs, capacity_check
from assistant.registry.nccl import AllReduceOutputArgs, check_allreduce_output
from assistant.registry.training import TrainingFitArgs, training_fit
from assistant.registry.node_models import NodeModelsArgs, models_for_configuration
from assistant.registry.models import FindModelArgs, find_model
# isort: on

__all__ = [
    "DEFAULT_LINKS",
    "REGISTRY",
    "AdviceArgs",
    "AllReduceArgs",
    "AllReduceOutputArgs",
    "CapacityArgs",
    "CardArgs",
    "CheapestArgs",
    "FindModelArgs",
    "FitArgs",
    "LinkArgs",
    "LinkId",
    "MemoryArgs",
    "NodeModelsArgs",
    "PrecisionArg",
    "PriceArgs",
    "TensorParallelArgs",
    "ThroughputArgs",
    "ToolError",
    "ToolSpec",
    "TopologyArgs",
    "TrainingFitArgs",
    "WithinArgs",
    "call_tool",
    "capacity_check",
    "card_facts",
    "cheapest_fit",
    "check_allreduce_output",
    "check_topology_output",
    "find_model",
    "fit_check",
    "gradient_allreduce_time",
    "interconnect_facts",
    "memory_need",
    "models_for_configuration",
    "nodes_within",
    "price_quote",
    "purchase_advice",
    "quote",
    "tensor_parallel_cost",
    "throughput_estimate",
    "tool",
    "training_fit",
]
