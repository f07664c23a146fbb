"""Readings for the families blind-41 and blind-42 found, in other words than theirs: "wieviele
… gleichzeitig" asks the capacity; ">30 token/s" is a speed asked; a repository name with its
quantisation ("…-Instruct-AWQ") names the model and the precision; a bare card after "auf" /
"on" is one card; a German question with an English aside is answered in German; "und in
fp8?" after a memory question asks the memory again."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.deps import Deps
from assistant.nlu import Understander
from assistant.nlu.language import detect_language
from assistant.service import Assistant
from knowledge.catalog import load_catalog
from tests.answers import last_call

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def nlu() -> Understander:
    return Understander(load_catalog(ROOT / "knowledge" / "catalog"))


def test_wieviele_gleichzeitig_asks_the_capacity(nlu: Understander) -> None:
    u = nlu.understand(
        "wieviele chats mit je 16k kontext schafft qwen3 8b gleichzeitig auf einer l40s?"
    )
    assert u.intent == "capacity" and u.context_tokens == 16384


def test_a_speed_asked_with_a_sign(nlu: Understander) -> None:
    u = nlu.understand("qwen3 8b auf ner l4, schafft das >15 token/s?")
    assert u.min_tokens_per_s == 15.0 and u.claim == "faster"


@pytest.mark.parametrize(
    ("question", "model", "precision"),
    [
        ("llama-3.3-70b-instruct-awq auf 2x l40s?", "llama-3.3-70b", "awq"),
        ("Qwen/Qwen2.5-72B-Instruct-GPTQ-Int4 on 2x A6000?", "qwen2.5-72b", "gptq"),
    ],
)
def test_a_repository_name_with_its_quantisation(
    nlu: Understander, question: str, model: str, precision: str
) -> None:
    u = nlu.understand(question)
    assert (u.model, u.precision) == (model, precision)


def test_a_bare_card_after_on_is_one_card(nlu: Understander) -> None:
    assert nlu.understand("mistral small 24b on l40s?").configurations == ["1x-l40s"]
    assert nlu.understand("läuft gemma 3 27b auf rtx5090?").count == 1
    assert nlu.understand("llama 70b on h100s?").count is None  # several cards
    assert nlu.understand("qwen3 8b on l4 node?").count is None  # a node, not a card


def test_a_german_question_with_an_english_aside_is_german() -> None:
    assert (
        detect_language("passt qwen3 32b auf eine l40s? need it for a pilot next week")[0] == "de"
    )
    assert detect_language("does qwen3 32b fit on one l40s? brauchen es bald")[0] == "en"


def test_a_precision_after_a_memory_question_asks_the_memory(deps: Deps) -> None:
    a = Assistant(deps)
    first = a.ask("how much vram does qwen2.5 72b need?")
    second = a.ask("and in fp8?", session_id=first.session_id)
    assert [k.kind for k in second.reading.asks] == ["memory"]
    assert last_call(second, "memory_need").result["precision"] == "fp8"
