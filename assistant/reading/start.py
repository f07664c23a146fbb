"""A starting point for a question that names no model ("We want a chatbot for our 50 employees,
what do we need?"): instead of only asking back, the planner sizes the site's first proposal and
offers the others as choices.

    reading, choices = starting_point(reading, catalog)

The proposals are catalog data (`models.yaml`: `starting_point: {rank, precision}`), the context
assumed is `tools.load.DEFAULT_CONTEXT_TOKENS`, and people are turned into sequences at once by
the reader as always. Every assumed field is listed in `Reading.assumed`, shown as an assumption
and editable; the question's own fields (users, budget, exclusions) are kept.
"""

from __future__ import annotations

from typing import Any

from assistant.answer import Choice
from assistant.reading.model import Reading
from tools.load import DEFAULT_CONTEXT_TOKENS


def proposals(catalog: Any) -> list[Any]:
    """The catalog's starting-point models, first proposal first."""
    models = [m for m in catalog.models.values() if m.starting_point is not None]
    return sorted(models, key=lambda m: m.starting_point.rank)


def starting_point(reading: Reading, catalog: Any) -> tuple[Reading, list[Choice]]:
    """`reading` with the first proposal assumed (intent: the cheapest that fits) and the
    other proposals as choices; `reading` unchanged when the catalog proposes nothing."""
    models = proposals(catalog)
    if not models:
        return reading, []
    first = models[0]
    update: dict[str, Any] = {
        "model": first.id,
        "models": [first.id],
        "precision": first.starting_point.precision,
        "intents": ["cheapest"],
        "asks": [],
        "assumed": [*reading.assumed, "model", "precision"],
    }
    if reading.context_tokens is None:
        update["context_tokens"] = DEFAULT_CONTEXT_TOKENS
        update["assumed"] = [*update["assumed"], "context_tokens"]
    return reading.model_copy(update=update), model_choices(models[1:])


def model_choices(models: list[Any]) -> list[Choice]:
    """The proposals as choices: each sets the model and the precision proposed with it."""
    return [
        Choice(
            label=f"{m.name} · {m.starting_point.precision.upper()}",
            reading={"model": m.id, "precision": m.starting_point.precision},
        )
        for m in models
    ]
