"""The reading is the contract (issue 23): the planner runs on `to_query(reading)` and plans and
composes exactly as on the rule reader's own parse, for every question in the eval sets."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.nlu.query import Query
from assistant.reading.convert import from_query, intents_of, to_query
from assistant.reading.model import Reading
from evals.schema import load_datasets

ROOT = Path(__file__).resolve().parent.parent
SETS = sorted((ROOT / "evals" / "datasets").glob("*.yaml")) + sorted(
    (ROOT / "evals" / "heldout").glob("*.yaml")
)


def _questions() -> list[str]:
    out: list[str] = []
    for ds in load_datasets(SETS):
        for case in ds.cases:
            if case.question:
                out.append(case.question)
            for turn in case.conversation or []:
                out.append(turn.question)
    return out


QUESTIONS = _questions()


def test_there_are_questions() -> None:
    assert len(QUESTIONS) > 400


def test_round_trip_is_lossless(nlu) -> None:  # type: ignore[no-untyped-def]
    lost = []
    for q in QUESTIONS:
        u = nlu.understand(q)
        back = to_query(from_query(u))
        keep = {"follow_up", "language_detected", "model_mention"}
        a = u.model_dump(exclude=keep)
        b = back.model_dump(exclude=keep)
        if a != b:
            lost.append((q[:60], {k for k in a if a[k] != b[k]}))
    assert not lost, lost[:5]


def test_the_planner_composes_the_same_from_the_reading(assistant) -> None:  # type: ignore[no-untyped-def]
    composer = assistant.composer
    differ = []
    for q in QUESTIONS[::7]:
        u = assistant.nlu.understand(q)
        direct = composer.compose(u.model_copy(deep=True))
        via = composer.compose(to_query(from_query(u)))
        if direct.text != via.text:
            differ.append(q[:60])
    assert not differ, differ[:5]


def test_a_reading_without_intents_gets_them_from_its_asks_and_task() -> None:
    r = Reading(task="price", asks=[{"kind": "speed"}, {"kind": "price"}])  # type: ignore[list-item]
    assert intents_of(r) == ["speed", "price"]
    assert intents_of(Reading(task="serve", model="llama-3.3-70b")) == ["fit"]
    assert intents_of(Reading(task="out_of_scope")) == ["off_topic"]
    assert to_query(Reading(task="compare")).intents == ["cheapest"]


def test_the_budget_and_concurrency_names_are_the_public_ones() -> None:
    q = Query(question="x", language="en", concurrency=12, users=80)
    q.constraints.budget_usd_month = 5000
    r = from_query(q)
    assert (r.budget_usd_per_month, r.concurrent_sequences, r.users) == (5000, 12, 80)
    assert to_query(r).constraints.budget_usd_month == 5000


@pytest.mark.parametrize(
    "field",
    [
        "model",
        "precision",
        "users",
        "concurrent_sequences",
        "context_tokens",
        "budget_usd_per_month",
        "asks",
        "unread",
    ],
)
def test_the_fields_outside_checks_rely_on_exist(field: str) -> None:
    assert field in Reading.model_fields
