"""Readings and answers for the families blind-38 … blind-40 found, in other words than theirs:
a yes/no asked after a figure gets its word; a fine-tune then served on the same card states the
serving need; "only inference then" and "sorry, I meant …" continue the conversation; "llama
70" and "the 30b one with 3b active" name catalog models; "overkill" asks whether a cheaper node
holds the job; a firm "auf jeden Fall NVLink" requires it; "r1 I mean" and "the big one" pick a
family's model; "can you guys run X?" is answered yes or no; "what would I need" asks the
cheapest; a card's SXM name is no NVLink claim; "32k-token sequences" is the context; "tp=4" is
the split capacity and speed use."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from assistant.deps import Deps
from assistant.nlu import Understander
from assistant.service import Assistant
from knowledge.catalog import load_catalog
from tests.answers import last_call
from tests.answers import ok as _ok

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def nlu() -> Understander:
    return Understander(load_catalog(ROOT / "knowledge" / "catalog"))


def test_a_yes_no_after_a_figure_gets_its_word(assistant: Assistant) -> None:
    a = assistant.ask("Wie viel VRAM braucht ein volles Finetuning von Qwen3 8B? Reicht eine L40S?")
    text = _ok(a, "de")
    holds = last_call(a, "training_fit").result["rows"][0]["fits_one_card"]
    # the yes/no asked after the figure gets its word: first, since the question asked one
    # after the memory question is read as a yes/no (blind-154's family), or beside the figure
    word = "Ja" if holds else "Nein"
    assert re.search(rf"\*\*{word}(?:\*\* —|\.\*\*)", text), text[:200]


def test_a_fine_tune_then_served_states_the_serving_need(assistant: Assistant) -> None:
    a = assistant.ask(
        "we want to lora fine-tune llama 3.1 8b first and then serve it on the same box. "
        "is one l40s enough?"
    )
    text = _ok(a, "en")
    row = next(
        r for r in last_call(a, "fit_check").result["rows"] if r["configuration"] == "1x-l40s"
    )
    assert "Serving Llama 3.1 8B afterwards" in text
    assert f"{row['required_gb_per_card']:.1f} GB of" in text


def test_only_inference_then_continues_the_sizing(deps: Deps) -> None:
    a = Assistant(deps)
    first = a.ask("full fine-tune of qwen3 14b on a single h100 pcie, possible?")
    second = a.ask("ok, only inference then", session_id=first.session_id)
    assert second.reading.task == "serve" and second.reading.intents[0] == "fit"
    assert last_call(second, "fit_check").result["model"]["id"] == "qwen3-14b"


def test_a_correction_keeps_the_hardware_and_the_load(deps: Deps) -> None:
    a = Assistant(deps)
    first = a.ask("does qwen3 8b fit on an l40s with 6 people at once?")
    second = a.ask("sorry, i meant qwen2.5 72b in fp8", session_id=first.session_id)
    r = second.reading
    assert r.model == "qwen2.5-72b" and r.configurations == ["1x-l40s"]
    assert r.concurrent_sequences == 6


@pytest.mark.parametrize(
    ("question", "model"),
    [
        ("does llama 70 fit on two a100s?", "llama-3.3-70b"),
        ("gemma 27 auf einer l40s?", "gemma-3-27b"),
        ("the qwen moe, the 235b one with 22b active - 4x h200 ok?", "qwen3-235b-a22b"),
    ],
)
def test_model_names_people_shorten(nlu: Understander, question: str, model: str) -> None:
    assert nlu.understand(question).model == model


def test_llama_3_stays_a_version(nlu: Understander) -> None:
    assert nlu.understand("does llama 3 run on an l4?").model is None


def test_overkill_asks_whether_a_cheaper_node_holds_it(assistant: Assistant) -> None:
    a = assistant.ask("is a 4x h100 sxm5 node overkill for qwen3 8b?")
    assert a.reading.claim == "oversized"
    assert _ok(a, "en").startswith("**Yes — ")
    b = assistant.ask("is one l4 overkill for qwen3 8b?")
    top = last_call(b, "cheapest_fit").result["cheapest"][0]["configuration"]
    assert _ok(b, "en").startswith("**No — " if top == "1x-l4" else "**Yes — ")


def test_a_firm_nvlink_is_required(nlu: Understander) -> None:
    u = nlu.understand("wir brauchen auf jeden Fall NVLink. welcher server für qwen2.5 72b?")
    assert u.constraints.require_link == "nvlink"


def test_a_family_follow_up_and_the_big_one(deps: Deps) -> None:
    a = Assistant(deps)
    first = a.ask("can we run deepseek on your servers?")
    assert first.reading.model is None and first.reading.model_name
    second = a.ask("v3 i mean. what does that cost?", session_id=first.session_id)
    assert second.reading.model == "deepseek-v3"
    assert a.ask("can we run llama on 8x h200? the biggest one").reading.model == "llama-3.1-405b"


def test_can_you_run_it_is_answered_yes_or_no(assistant: Assistant) -> None:
    a = assistant.ask("can you guys run llama 3.1 405b?")
    assert "catalog_ask" in a.reading.topics
    assert _ok(a, "en").startswith("**Yes")


def test_what_would_i_need_asks_the_cheapest(nlu: Understander) -> None:
    assert nlu.understand("what would i need for qwen2.5 72b in awq?").intent == "cheapest"


def test_a_cards_sxm_name_is_no_nvlink_claim(nlu: Understander) -> None:
    u = nlu.understand("can we serve qwen3 235b a22b on one 8x h100 sxm node, or do we need two?")
    assert u.claim != "nvlink_needed"


def test_token_sequences_and_tp(assistant: Assistant) -> None:
    a = assistant.ask("llama 3.1 70b fp8 with tp=4 on 4x h100 sxm5: how many 16k-token sequences?")
    assert a.reading.context_tokens == 16384 and a.reading.tensor_parallel == 4
    assert last_call(a, "capacity_check").arguments["cards"] == 4


def test_a_reading_with_a_goal_outside_still_answers_its_own_asks(assistant: Assistant) -> None:
    """A reading the rules did not cut into clauses (an LLM's, a gold reading) with a goal
    outside the domain: its asks about its model answered, the goal declined after them."""
    from assistant.reading.model import Ask, Reading

    reading = Reading(
        language="en",
        task="serve",
        model="gemma-3-27b",
        cards=["l40s"],
        count=1,
        asks=[Ask(kind="fit")],
        yes_no=True,
        claim="fits",
        outside=["mining"],
        text="does gemma 3 27b fit on one l40s? and can we mine crypto on it at night?",
    )
    a = assistant.answer_reading(reading)
    text = _ok(a, "en")
    assert last_call(a, "fit_check")
    assert text.startswith("**No") and "On the rest of your question:" in text
