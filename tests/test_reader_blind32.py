"""The rule reader in the phrasings blind-32 … blind-35 found (each reproduced here in other
words): a measured speed is a diagnosis; "all … at the same time" and a hedged number after the
cue ("at the same time maybe 6") are the people at once; "bucks"; a precision said with "then"
in a follow-up refits before its price; "mit lora und wie viel mit qlora" compares both; web
hosting and a licence question are out of scope; "reicht 4x L40S" for a training asks the link;
"nvlink then?" asks NVLink; a named card's "PCIe node" requires no link, and "have" far from a
link word is no link fact; "what exactly is …", "how is it different", "why do we need …"
ask for an explanation."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.deps import Deps
from assistant.nlu import Understander
from assistant.service import Assistant
from knowledge.catalog import load_catalog

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def nlu() -> Understander:
    return Understander(load_catalog(ROOT / "knowledge" / "catalog"))


def test_a_measured_speed_is_a_diagnosis(assistant: Assistant) -> None:
    r = assistant.ask("we're getting 9 tok/s from qwen2.5 72b on 2x h100 pcie, is that ok?").reading
    assert r.task == "diagnose" and r.measured.tokens_per_s == 9.0
    r = assistant.ask("wir messen 40 token/s mit llama 3.1 8b auf einer l40s, passt das?").reading
    assert r.measured.tokens_per_s == 40.0


@pytest.mark.parametrize(
    ("question", "users", "at_once"),
    [
        (
            "we're 4 illustrators and all of us will be generating with sdxl at the same time",
            None,
            4,
        ),
        ("5 redakteure, die alle mit flux schnell gleichzeitig bilder machen wollen", None, 5),
        ("we are 50 people, all use it daily, but at the same time maybe 6. qwen3 14b?", 50, 6),
        ("wir sind 30 leute, gleichzeitig vielleicht 4. mistral small 24b?", 30, 4),
    ],
)
def test_people_at_once_said_far_from_the_number_or_hedged(
    nlu: Understander, question: str, users: int | None, at_once: int
) -> None:
    u = nlu.understand(question)
    assert u.concurrency == at_once
    if users is not None:
        assert u.users == users


def test_bucks_are_dollars(nlu: Understander) -> None:
    u = nlu.understand("anything under 2 bucks an hour that runs mistral small 24b?")
    assert u.constraints.budget_usd_month == 1460.0
    u = nlu.understand("is there something below a buck per hour for llama 3.1 8b?")
    assert u.constraints.budget_usd_month == 730.0


def test_a_precision_with_then_refits_before_the_price(deps: Deps) -> None:
    a = Assistant(deps)
    first = a.ask("does llama 3.3 70b fit on 2x l40s?")
    second = a.ask("how about awq then, and what's the monthly price?", session_id=first.session_id)
    assert [k.kind for k in second.reading.asks] == ["fit", "price"]
    assert second.reading.precision == "awq"


def test_lora_and_qlora_each_are_compared(nlu: Understander) -> None:
    u = nlu.understand("llama 3.1 8b: how much vram with lora and how much with qlora?")
    assert u.adapters_compared


@pytest.mark.parametrize(
    ("question", "goal"),
    [
        ("bietet ihr auch webspace für unsere homepage an? was kostet der?", "web_hosting"),
        ("do you do wordpress hosting too?", "web_hosting"),
        ("dürfen wir qwen3 kommerziell in unserer app einsetzen? lizenz und so", "legal"),
    ],
)
def test_outside_goals(assistant: Assistant, question: str, goal: str) -> None:
    r = assistant.ask(question).reading
    assert r.task == "out_of_scope" and goal in r.outside


def test_a_model_for_a_website_is_sized(assistant: Assistant) -> None:
    r = assistant.ask("support bot for our wordpress shop with llama 3.1 8b, which card?").reading
    assert r.task == "serve" and not r.outside


def test_a_pcie_node_said_to_suffice_for_training_asks_the_link(assistant: Assistant) -> None:
    r = assistant.ask("would 4x L40S be enough to pretrain a 3B model from scratch?").reading
    assert r.claim == "pcie_enough" and r.intents[0] == "nvlink"
    # a LoRA on one card is a fit, not a link question
    r = assistant.ask("reicht eine L40S für LoRA auf llama 3.1 8b?").reading
    assert r.claim == "fits"


def test_nvlink_then_asks_nvlink(nlu: Understander) -> None:
    assert nlu.understand("full fine-tune of mistral small 24b. nvlink then?").intent == "nvlink"
    # a choice made ("ok, PCIe then.") asks nothing of the link
    assert nlu.understand("ok pcie then. how fast is llama 3.1 8b on 2x l4?").intent == "speed"


def test_a_named_cards_node_is_no_link_requirement(nlu: Understander) -> None:
    u = nlu.understand("what does the 2x H100 PCIe node cost compared to the 8x h200 one?")
    assert u.constraints.require_link is None
    u = nlu.understand(
        "i dont have the sheet here - what do the 4x h100 sxm5 node and the 4x a100 sxm4 cost?"
    )
    assert u.intent == "price"
    assert nlu.understand("do the a100 sxm4 cards have nvlink?").intent == "link_facts"


@pytest.mark.parametrize(
    "question",
    [
        "quick question, what exactly is nvswitch?",
        "how is fp8 different from awq?",
        "why do we need nvlink at all for tensor parallelism?",
    ],
)
def test_explanations(assistant: Assistant, question: str) -> None:
    assert assistant.ask(question).reading.task == "explain"


def test_a_negated_noun_phrase_is_no_negated_fit() -> None:
    from assistant.nlu.claims import negates_fit

    assert not negates_fit(
        "kunde sagt qwen3 235b (das ganze, nicht die kleine variante) läuft auf 4x h200?"
    )
    assert negates_fit("das passt doch nicht auf eine l40s, oder?")


def test_whats_without_an_apostrophe_asks_which() -> None:
    from assistant.nlu.asks import is_yes_no

    assert not is_yes_no("lora on mistral 7b. whats the smallest gpu that does it?")
    assert is_yes_no("lora on mistral 7b - does a single l4 do it?")
