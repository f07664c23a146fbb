"""Which catalog models a configuration holds (`models_for_configuration`): the inverse of
fit_check, for "I have 2x L40S, what can I run on it?"."""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from assistant.registry.core import PrecisionArg, ToolResult, _Args, _norm_precision, tool
from assistant.registry.helpers import _configuration, _money, _r
from tools.specs import ModelKind


class NodeModelsArgs(_Args):
    configuration: str = Field(description="configuration id or label, e.g. '2x-l40s'")
    precision: PrecisionArg | None = Field(
        default=None, description="weight precision for every model; omitted: each one's native"
    )
    context_tokens: int = Field(default=8192, ge=0, le=2_000_000, description="tokens per sequence")
    concurrency: int = Field(default=1, ge=1, le=4096, description="sequences served at once")
    kind: ModelKind | None = Field(
        default=None, description="only models of this kind (llm, image, video); omitted: all"
    )

    @field_validator("precision", mode="before")
    @classmethod
    def norm_precision(cls, v: Any) -> Any:
        return _norm_precision(v)


class NodeModelRow(ToolResult):
    model: str
    name: str
    kind: str
    precision: str
    verdict: str
    cards_needed: int | None
    required_gb_per_card: float
    usable_gb_per_card: float


class NodeModelsResult(ToolResult):
    configuration: str
    label: str
    usd_per_month: int | float
    context_tokens: int
    concurrency: int
    fits: list[NodeModelRow] = Field(description="models it holds, largest first")
    too_big: list[str] = Field(description="catalog models it does not hold at that precision")


@tool
def models_for_configuration(deps: Any, args: NodeModelsArgs) -> NodeModelsResult:
    """Which catalog models one configuration holds (native precision unless given): verdict,
    GB per card needed vs usable, largest first; and the models too big for it. For "what can I
    run on 2x L40S?", "which models fit a single RTX 4090?"."""
    from tools.fit import Requirement, fit_configurations

    cfg = _configuration(deps, args.configuration)
    cat = deps.catalog
    fits: list[NodeModelRow] = []
    too_big: list[str] = []
    for m in cat.models.values():
        if args.kind is not None and m.kind != args.kind:
            continue  # "enough for our chatbot?": the language models only
        if args.precision is not None and m.kind != "llm":
            continue  # image models have published figures at their own precisions only
        req = Requirement(
            model=m,
            precision=args.precision,
            context_tokens=args.context_tokens,
            concurrency=args.concurrency,
        )
        try:
            res = fit_configurations(req, [cfg], cat.gpus, links=cat.links)
        except ValueError:
            continue  # no figure for this model at that precision
        row = res.rows[0]
        if row.verdict == "does_not_fit":
            too_big.append(m.name)
            continue
        fits.append(
            NodeModelRow(
                model=m.id,
                name=m.name,
                kind=m.kind,
                precision=res.precision,
                verdict=row.verdict,
                cards_needed=row.cards_needed,
                required_gb_per_card=_r(row.required_gb_per_card),
                usable_gb_per_card=_r(row.usable_gb_per_card),
            )
        )
    fits.sort(key=lambda r: (-r.required_gb_per_card * (r.cards_needed or 1), r.model))
    return NodeModelsResult(
        configuration=cfg.id,
        label=cfg.label,
        usd_per_month=_money(cfg.usd_per_month),
        context_tokens=args.context_tokens,
        concurrency=args.concurrency,
        fits=fits,
        too_big=sorted(too_big),
    )
