"""Fit: does a model fit each rentable configuration (`fit_check`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from assistant.registry.core import PrecisionArg, _Args, _norm_precision, tool
from assistant.registry.helpers import _configuration, _model, _model_info, _money, _r


class FitArgs(_Args):
    model: str = Field(
        description="model name, Hugging Face id or ollama tag (e.g. 'Llama 3.3 70B', "
        "'meta-llama/Llama-3.3-70B-Instruct', 'llama3.3:70b'), or a parameter count like '34B'"
    )
    precision: PrecisionArg | None = Field(
        default=None, description="weight precision; omitted: the model's native precision"
    )
    context_tokens: int = Field(default=8192, ge=0, le=2_000_000, description="tokens per sequence")
    concurrency: int = Field(default=1, ge=1, le=4096, description="sequences served at once")
    configurations: list[str] | None = Field(
        default=None,
        description="only these configuration ids (e.g. ['4x-a100-sxm4']); omitted: all 41",
    )
    sort: Literal["catalog", "price"] = Field(default="catalog", description="row order")

    @field_validator("precision", mode="before")
    @classmethod
    def norm_precision(cls, v: Any) -> Any:
        return _norm_precision(v)


@tool
def fit_check(deps: Any, args: FitArgs) -> dict[str, Any]:
    """The configurator: does a model fit each rentable configuration?

    For every configuration (or the ones named) the verdict is 'fits_one_card', 'split' (must be
    split across cards_needed cards with tensor parallelism) or 'does_not_fit', with the memory
    required per card, the usable memory per card (90% of the card, as vLLM), the headroom and the
    exact monthly price. Also returns the weights (GB) and the KV bytes per token. Use it for
    "does X fit on Y", "how many cards", "how much VRAM".
    """
    from tools.fit import Requirement, fit_configurations

    m = _model(deps, args.model)
    cat = deps.catalog
    if args.configurations:
        configs = [_configuration(deps, c) for c in args.configurations]
    else:
        configs = list(cat.configurations.values())
    req = Requirement(
        model=m,
        precision=args.precision,
        context_tokens=args.context_tokens,
        concurrency=args.concurrency,
    )
    res = fit_configurations(req, configs, cat.gpus, sort=args.sort)
    rows = [
        {
            "configuration": r.configuration,
            "label": r.label,
            "gpu": r.gpu,
            "count": r.count,
            "memory_gb_per_card": r.memory_gb_per_card,
            "usable_gb_per_card": _r(r.usable_gb_per_card),
            "verdict": r.verdict,
            "cards_needed": r.cards_needed,
            "required_gb_per_card": _r(r.required_gb_per_card),
            "headroom_gb": _r(r.headroom_gb),
            "replicas": r.replicas,
            **({"room": r.room} if r.room else {}),
            "interconnect": r.interconnect,
            "usd_per_month": _money(r.usd_per_month),
            "price_source": r.price_source,
        }
        for r in res.rows
    ]
    return {
        "model": _model_info(m),
        "precision": res.precision,
        "context_tokens": args.context_tokens,
        "concurrency": args.concurrency,
        "weights_gb": _r(res.weights_gb),
        "kv_bytes_per_token": res.kv_bytes_per_token,
        "kv_gb": _r(res.kv_bytes_per_token * args.context_tokens * args.concurrency / 1e9),
        "constants": res.constants,
        "counts": res.counts(),
        "rows": rows,
        "formula": res.formula,
        "notes": res.notes,
    }
