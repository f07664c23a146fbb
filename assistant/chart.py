"""A picture of the choice: the configurations that hold the job an answer sized, as points of
monthly price against single-stream tokens/s, marked NVLink or PCIe, the recommended one
highlighted (issue 26). The widget draws it (inline SVG, with a table for screen readers) and
the HTML eval report's answer view shows the same chart.

Every figure is a tool's typed result: which configurations hold the job and their prices come
from the answer's own `fit_check` / `cheapest_fit` call (its arguments: the model, precision,
load and the question's constraints), re-run as `fit_check` for every row; tokens/s from
`throughput_estimate` on each of them. Image and video models have no tokens/s, and the tools
have no images/hour figure: they get no chart (docs/bugs.md).

    chart = chart_of(deps, answer)   # None when the answer sized no language model
"""

from __future__ import annotations

import logging
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from tools.money import USD

if TYPE_CHECKING:  # answer.py imports the models below
    from assistant.answer import Answer

log = logging.getLogger("assistant.chart")

#: the tools whose call says which job an answer sized
SIZING_TOOLS = ("cheapest_fit", "fit_check")
#: the most points a chart shows (the cheapest ones, plus the recommended one)
MAX_POINTS = 12
_FIT_ARGS = (
    "model",
    "precision",
    "context_tokens",
    "concurrency",
    "kv_precision",
    "runtime",
    "configurations",
    "max_price_usd_month",
    "min_total_memory_gb",
    "exclude_cards",
    "exclude_configurations",
    "require_link",
    "require_fp8",
    "architectures",
)

Link = Literal["nvlink", "pcie"]


class ChartPoint(BaseModel):
    configuration: str = Field(description="configuration id, e.g. 4x-a100-sxm4")
    label: str
    usd_per_month: USD = Field(description="the catalog's monthly price")
    tokens_per_s: float = Field(description="single-stream decode speed (throughput_estimate)")
    link: Link = Field(description="NVLink (SXM) or PCIe")
    cards_needed: int | None = Field(default=None, description="cards the model is split across")
    recommended: bool = False
    placeholder: bool = Field(default=False, description="the catalog price is a placeholder")


class Chart(BaseModel):
    """The configurations that hold the job, for a small price / speed chart."""

    model: str = Field(description="model id the points were sized for")
    model_name: str
    x: Literal["usd_per_month"] = "usd_per_month"
    y: Literal["tokens_per_s"] = "tokens_per_s"
    points: list[ChartPoint] = Field(description="cheapest first")
    holding: int = Field(description="configurations that hold the job (points may be fewer)")
    tools: list[str] = Field(
        default=["fit_check", "throughput_estimate"], description="where the figures come from"
    )


def link_of(sold_as: str) -> Link:
    return "nvlink" if sold_as.lower().startswith("nvlink") else "pcie"


#: the context the speed figures are read at, when the answer's own speed calls said one
SPEED_CONTEXT = "speed_context_tokens"


def sizing_call(answer: Answer) -> dict[str, Any] | None:
    """The arguments of the answer's first fit_check / cheapest_fit call (the job it sized),
    plus the context its own throughput_estimate calls of that model used (`SPEED_CONTEXT`), so
    the chart's tokens/s are the figures the answer states."""
    for call in answer.tool_calls:
        if call.name in SIZING_TOOLS and call.arguments.get("model"):
            args = {k: v for k, v in call.arguments.items() if k in _FIT_ARGS}
            for other in answer.tool_calls:
                if other.name == "throughput_estimate" and _same_model(other, args):
                    args[SPEED_CONTEXT] = int(other.arguments.get("context_tokens", 0))
                    break
            return args
    return None


def _same_model(call: Any, args: dict[str, Any]) -> bool:
    return bool(
        call.arguments.get("model") == args["model"]
        and call.arguments.get("precision") == args.get("precision")
    )


def fit_args(args: dict[str, Any]) -> dict[str, Any]:
    """The job's arguments as fit_check takes them."""
    return {k: v for k, v in args.items() if k in _FIT_ARGS}


def holding_rows(deps: Any, args: dict[str, Any]) -> list[Any]:
    """fit_check's rows that hold the job, cheapest first (typed `FitRow`s)."""
    from assistant.registry.core import ToolError, call_tool_typed

    try:
        _, result = call_tool_typed(deps, "fit_check", fit_args(args))
    except ToolError as exc:
        log.info("no chart: %s", exc)
        return []
    rows = [r for r in result.rows if r.verdict != "does_not_fit"]
    rows = list({r.configuration: r for r in rows}.values())  # a node named twice: one point
    rows.sort(key=lambda r: (Decimal(str(r.usd_per_month)), r.configuration))
    return rows


def speed(deps: Any, args: dict[str, Any], configuration: str) -> float | None:
    """Single-stream tokens/s of the job's model on a configuration, as throughput_estimate
    states it (None: no figure, e.g. not a language model). Only the figure is computed
    (`registry.speed.tokens_per_s`): a chart has up to a dozen points."""
    from pydantic import ValidationError

    from assistant.registry.core import ToolError
    from assistant.registry.speed import ThroughputArgs, tokens_per_s

    try:
        return tokens_per_s(deps, ThroughputArgs.model_validate(speed_call(args, configuration)))
    except (ToolError, LookupError, ValueError, ValidationError):
        return None


def speed_call(args: dict[str, Any], configuration: str) -> dict[str, Any]:
    """throughput_estimate's arguments for the job on a configuration."""
    context = args.get(SPEED_CONTEXT, args.get("context_tokens", 0))
    call = {"model": args["model"], "configuration": configuration, "context_tokens": context}
    if args.get("precision"):
        call["precision"] = args["precision"]
    return call


def chart_of(deps: Any, answer: Answer, recommended: list[str] | None = None) -> Chart | None:
    """The chart of an answer that sized a language model on configurations (fit, cheapest,
    comparison answers); None otherwise. `recommended`: the configuration(s) the answer chose
    (default: its first price quote that holds the job)."""
    args = sizing_call(answer)
    if args is None:
        return None
    rows = holding_rows(deps, args)
    if not rows:
        return None
    priced = [q.configuration for q in answer.prices]
    chosen = recommended or priced
    ids = [r.configuration for r in rows]
    pick = next((c for c in chosen if c in ids), None)
    # the configurations the answer names (a comparison's pair, the pick) always, then the
    # cheapest others up to MAX_POINTS; cheapest first
    named = [r for r in rows if r.configuration in {*priced, *chosen}][:MAX_POINTS]
    others = [r for r in rows if r not in named][: max(0, MAX_POINTS - len(named))]
    shown = sorted(
        [*named, *others], key=lambda r: (Decimal(str(r.usd_per_month)), r.configuration)
    )
    catalog = deps.catalog.configurations
    points = []
    for row in shown:
        tps = speed(deps, args, row.configuration)
        if tps is None:
            return None  # not a language model (or no speed figure): no chart
        points.append(
            ChartPoint(
                configuration=row.configuration,
                label=row.label,
                usd_per_month=row.usd_per_month,
                tokens_per_s=tps,
                link=link_of(row.sold_as),
                cards_needed=row.cards_needed,
                recommended=row.configuration == pick,
                placeholder=bool(getattr(catalog.get(row.configuration), "placeholder", False)),
            )
        )
    model = deps.catalog.models.get(args["model"])
    return Chart(
        model=args["model"],
        model_name=getattr(model, "name", args["model"]),
        points=points,
        holding=len(rows),
    )


def with_chart(deps: Any, answer: Answer) -> Answer:
    """The answer carrying its chart (unchanged when it has one or gets none). Never raises: a
    failing chart leaves the answer as it was."""
    if answer.chart is not None:
        return answer
    try:
        chart = chart_of(deps, answer, list(answer._chosen))
    except Exception as exc:  # the answer is shown without the picture, never dropped
        log.exception("chart failed: %s", exc)
        return answer
    if chart is None:
        return answer
    out = answer.model_copy(update={"chart": chart})
    out._chosen = list(answer._chosen)
    return out
