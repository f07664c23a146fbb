"""The planner measured on gold readings: each question answered from the rule reader's reading
with the turn's gold fields laid over it (`sizing eval --gold-readings`), so a case that passes
this way and fails end to end failed in the reader, and one that fails this way too failed in
the planner or the renderer (issue 23: "planner accuracy given the gold readings").

The overlay keeps what the gold leaves out (the rule reader's value: for most fields "not said")
and the paste text; when the gold's task or asks differ from the rule reader's, the intents are
derived anew from them (`assistant.reading.convert.intents_of`), unless the gold gives intents.
"""

from __future__ import annotations

import threading
from typing import Any

from assistant.reading.model import Reading
from assistant.service import Assistant
from evals.schema import normalise_asks


def overlay(reading: Reading, gold: dict[str, Any]) -> Reading:
    """`reading` with every gold field set (None: emptied)."""
    data = reading.model_dump()
    empty = Reading().model_dump()
    for field, value in gold.items():
        if value is None:
            data[field] = empty.get(field)
        else:
            data[field] = normalise_asks(value) if field == "asks" else value
    if gold.get("model"):
        data.update(models=[gold["model"]], model_name=None)
    asks = normalise_asks(gold.get("asks") or [])  # `asks: null`: none, as for an NVLink question
    kinds = [a["kind"] if isinstance(a, dict) else a for a in asks]
    derived = ("task" in gold and gold["task"] != reading.task) or (
        "asks" in gold and kinds != [a.kind for a in reading.asks]
    )
    if derived and not gold.get("intents"):  # intents the gold gives are kept
        data["intents"] = []
    return Reading.model_validate(data)


class GoldReadingAssistant(Assistant):
    """An `Assistant` whose rule reading gets the current turn's gold fields laid over it."""

    def __init__(self, deps: Any) -> None:
        super().__init__(deps)
        self._turn = threading.local()

    def use_gold(self, gold: dict[str, Any] | None) -> None:
        """The gold reading of the turn this thread answers next (None: the rule reading)."""
        self._turn.gold = gold

    def _read(self, question: str, session: Any, language: Any) -> Reading:
        reading = super()._read(question, session, language)
        gold = getattr(self._turn, "gold", None)
        return overlay(reading, gold) if gold else reading
