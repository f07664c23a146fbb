"""Deterministic question understanding (offline mode): language, model, precision, cards, workload,
intent, injection attempts. No LLM, no network; a few regular expressions over the question.

    nlu = Understander(catalog)          # built once (indexes the catalog's model aliases)
    u = nlu.understand("Brauche ich NVLink für Llama 3.3 70B in BF16 auf vier Karten?")
    u.language == "de"; u.model == "llama-3.3-70b"; u.precision == "bf16"; u.count == 4

Everything here is *understanding*: no figure in an answer comes from this package.

Package layout:

    query.py          the typed `Query` (slots, constraints, claim), `Intent` / `Workload`, card ids
    constraints.py    budget, minimum memory, users, exclusions, runtime, nodes, measurements, claim
    language.py       German / English function words, `detect_language`
    lexicon.py        number words, text folding, card / precision / model-family regexes
    entities.py       models, precision, cards and counts, context and concurrency
    workloads.py      workload regexes, LoRA / QLoRA
    intents.py        intent scoring, explain / injection / follow-up / off-topic signals
    scope.py          goals outside the sizing domain (mining, gaming, ...), read from the clauses
    understander.py   `Understander`: catalog index and the `understand()` orchestration
"""

from __future__ import annotations

from assistant.nlu.language import FUNCTION_WORDS, detect_language
from assistant.nlu.query import (
    CARD_FAMILIES,
    CARD_IDS,
    GEN4_CARDS,
    Intent,
    Query,
    Workload,
)
from assistant.nlu.understander import Understander

__all__ = [
    "CARD_FAMILIES",
    "CARD_IDS",
    "FUNCTION_WORDS",
    "GEN4_CARDS",
    "Intent",
    "Query",
    "Understander",
    "Workload",
    "detect_language",
]
