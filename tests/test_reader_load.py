"""The rule reader's load, exclusions and node references, in the phrasings blind-16 found:
people at the same time said after the number with words between ("3 of us hitting it at the
same time"), in number words ("zwei Anfragen gleichzeitig"), or after the cue ("gleichzeitig
höchstens 10 Anfragen"); a class of cards refused after its name; "your two 4x A100 nodes" as
the catalog's nodes, not a two-node job; a German attribution line with the name after the verb.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.nlu import Understander
from assistant.nlu.mail import drop_earlier_messages
from assistant.service import Assistant
from knowledge.catalog import load_catalog

ROOT = Path(__file__).resolve().parent.parent
WITH_GUIDE_INDEX = True  # tests/conftest.py builds the shipped guide index for `deps`


@pytest.fixture(scope="module")
def nlu() -> Understander:
    return Understander(load_catalog(ROOT / "knowledge" / "catalog"))


@pytest.mark.parametrize(
    ("question", "users", "at_once"),
    [
        ("can phi-4 run on one rtx 5090? there'd be 3 of us hitting it at the same time", None, 3),
        ("Schafft eine einzelne L4 Llama 3.1 8B mit 32k Kontext, wenn zwei Anfragen "
         "gleichzeitig laufen?", None, 2),
        ("Qwen2.5 72B AWQ: Zugriff haben rund 120 Mitarbeitende, gleichzeitig laufen aber "
         "höchstens 10 Anfragen. Was ist am günstigsten?", 120, 10),
        ("60 employees, usually 10-15 at the same time, Llama 3.3 70B: cheapest?", 60, 15),
        ("We run two H100 in parallel for Llama 3.1 8B, is that fast?", None, None),
    ],
)  # fmt: skip
def test_people_at_the_same_time_and_users(
    nlu: Understander, question: str, users: int | None, at_once: int | None
) -> None:
    u = nlu.understand(question)
    assert (u.users, u.concurrency if at_once else None) == (users, at_once)


@pytest.mark.parametrize(
    ("question", "excluded"),
    [
        ("Consumer-Karten (GeForce) lässt unsere IT-Sicherheit nicht zu. Günstigstes für "
         "Qwen2.5 32B?", True),
        ("GeForce kommt bei uns nicht in Frage. Was ist das günstigste für Qwen2.5 32B?", True),
        ("Consumer cards aren't allowed by our IT. Cheapest for Llama 3.3 70B?", True),
        ("we love gaming cards, is a 4090 ok for llama 3.1 8b?", False),
    ],
)  # fmt: skip
def test_a_class_of_cards_refused_after_its_name(
    nlu: Understander, question: str, excluded: bool
) -> None:
    u = nlu.understand(question)
    assert ("rtx-4090" in u.constraints.exclude_cards) is excluded


def test_your_two_nodes_are_the_catalogs_and_the_cheaper_one_is_one_of_them(
    assistant: Assistant,
) -> None:
    first = assistant.ask("what do your two 4x A100 nodes cost?")
    assert first.reading is not None and not first.reading.nodes
    assert {p.configuration for p in first.prices} == {"4x-a100-pcie", "4x-a100-sxm4"}
    second = assistant.ask(
        "ok the cheaper one - does llama 3.3 70b in bf16 fit on it?", session_id=first.session_id
    )
    assert second.reading is not None and second.reading.configurations == ["4x-a100-pcie"]


def test_a_german_attribution_line_with_the_name_after_the_verb_ends_the_reply() -> None:
    mail = (
        "Welcher Server ist der günstigste für Qwen2.5 72B?\n\n"
        "> Am 02.12.2026 schrieb Vertrieb gpuserver.io:\n"
        "> Welches Modell, wie viele gleichzeitige Anfragen, welcher Kontext?\n"
    )
    text = drop_earlier_messages(mail)
    assert "Welcher Server" in text and "gleichzeitige Anfragen" not in text


@pytest.mark.parametrize(
    ("question", "workload"),
    [
        ("only inference of llama 3.3 70b then, low traffic. is pcie enough for that?",
         "low_concurrency"),
        ("und bräuchte er für Llama 4 Scout eigentlich NVLink, nur Inferenz, wenig Last?",
         "low_concurrency"),
        ("Llama 3.3 70B, high traffic, do I need NVLink?", "traffic"),
        ("Llama 3.3 70B mit viel Traffic: brauche ich NVLink?", "traffic"),
    ],
)  # fmt: skip
def test_the_load_said_in_words(nlu: Understander, question: str, workload: str) -> None:
    u = nlu.understand(question)
    assert workload in u.workloads and u.claim in ("nvlink_needed", "pcie_enough") and u.yes_no


@pytest.mark.parametrize(
    "question",
    ["can grok-1 run on your 8x h100 sxm box?", "customer asks if grok 3 fits on our 8x h200 box"],
)
def test_a_model_family_the_catalog_lacks_is_unknown(nlu: Understander, question: str) -> None:
    u = nlu.understand(question)
    assert u.unknown_model and u.unknown_model.startswith("grok") and u.model is None


def test_a_budget_said_before_the_word_budget(nlu: Understander) -> None:
    u = nlu.understand("kunde hat 4.500 € im monat budget. geht sich 4x a100 sxm4 damit aus?")
    assert u.constraints.budget_usd_month == 4500 and u.yes_no


@pytest.mark.parametrize(
    "question",
    ["und wenn es NVLink haben soll?", "and if it has to be NVLink?"],
)
def test_a_link_required_after_the_cheapest_asks_for_the_cheapest_again(
    assistant: Assistant, question: str
) -> None:
    first = assistant.ask("Llama 3.3 70B in FP8 – what is the cheapest server for it?")
    second = assistant.ask(question, session_id=first.session_id)
    assert second.reading is not None and second.reading.require_link == "nvlink"
    call = [c for c in second.tool_calls if c.name == "cheapest_fit"][-1]
    assert call.arguments["interconnect"] == "nvlink"
    assert assistant.deps.catalog.configurations[call.result["cheapest"][0]["configuration"]]


def test_and_in_another_precision_with_a_price_refits_first(assistant: Assistant) -> None:
    first = assistant.ask("Does Qwen2.5 14B fit on one RTX 4090?")
    second = assistant.ask("and in awq? what would the card cost?", session_id=first.session_id)
    assert second.reading is not None
    assert [a.kind for a in second.reading.asks][:2] == ["fit", "price"]
    fit = next(c for c in second.tool_calls if c.name == "fit_check")
    assert fit.result["precision"] == "awq"
    assert second.answer.lstrip("*").startswith("Yes")


def test_the_cheaper_of_the_two_answers_picks(assistant: Assistant) -> None:
    first = assistant.ask("whats the cheapest node for qwen2.5 72b?")
    second = assistant.ask("and the cheapest one with nvlink?", session_id=first.session_id)
    third = assistant.ask(
        "ok the cheaper of the two - how fast would it be, tokens/s?", session_id=second.session_id
    )
    picks = [last_pick(first), last_pick(second)]
    prices = {c: assistant.deps.catalog.configurations[c].usd_per_month for c in picks}
    assert third.reading is not None and third.reading.configurations == [
        min(prices, key=prices.get)
    ]
    assert any(c.name == "throughput_estimate" for c in third.tool_calls)


def last_pick(answer: object) -> str:
    call = [c for c in answer.tool_calls if c.name == "cheapest_fit"][-1]  # type: ignore[attr-defined]
    return str(call.result["cheapest"][0]["configuration"])


def test_a_card_with_its_form_factor_in_brackets(nlu: Understander) -> None:
    u = nlu.understand(
        "Kann ich Llama 3.3 70B mit QLoRA auf einer einzigen A100 80GB (PCIe) feintunen?"
    )
    assert (u.cards, u.count) == (["a100-pcie"], 1)


@pytest.mark.parametrize(
    ("question", "claim"),
    [
        ("will flux dev run on an L4 or is that too small for image gen?", None),
        ("Is PCIe enough or do I need NVLink for Llama 3.3 70B?", "pcie_enough"),
    ],
)
def test_the_first_alternatives_claim(nlu: Understander, question: str, claim: str | None) -> None:
    assert nlu.understand(question).claim == claim


def test_my_card_is_one_card(nlu: Understander) -> None:
    u = nlu.understand(
        "qwen3 30b a3b only has 3b active params so it should fit on my 4090, right?"
    )
    assert (u.cards, u.count, u.claim) == (["rtx-4090"], 1, "active_sets_memory")


def test_other_hardware_asked_beside_a_speed_after_a_fit_refits(assistant: Assistant) -> None:
    first = assistant.ask("passt gemma 3 27b auf eine rtx 5090?")
    second = assistant.ask(
        "und auf einer a100 pcie? wie schnell wäre es da?", session_id=first.session_id
    )
    assert second.reading is not None
    assert [a.kind for a in second.reading.asks][:2] == ["fit", "speed"]
    assert second.tool_calls[0].name == "fit_check"
    assert second.answer.lstrip("*").startswith("Ja")


def test_what_does_it_cost_after_a_fit_anywhere_prices_the_node_it_named(
    assistant: Assistant,
) -> None:
    first = assistant.ask("welche Karte reicht für FLUX schnell, Bilder generieren für den Shop?")
    named = first.prices[0].configuration
    second = assistant.ask("und was kostet die im Monat?", session_id=first.session_id)
    quote = next(c for c in second.tool_calls if c.name == "price_quote")
    assert quote.arguments["configurations"] == [named]


@pytest.mark.parametrize(
    ("question", "model"),
    [
        ("cx asks: q3 235b a22b fp8 on 4x h200 - fits?", "qwen3-235b-a22b"),
        ("does the 30b-a3b fit on an l4?", "qwen3-30b-a3b"),  # the base model, not the Coder
        ("qwen3 coder 30b a3b on l4?", "qwen3-coder-30b-a3b"),
    ],
)
def test_a_moe_size_signature_names_its_one_model(
    nlu: Understander, question: str, model: str
) -> None:
    """Total and active parameters together ('235b a22b') name a model even in shorthand."""
    assert nlu.understand(question).model == model


def test_a_bare_size_stays_a_size(nlu: Understander) -> None:
    u = nlu.understand("a 70b model on 2 h100?")
    assert u.model is None and u.params_b == 70.0


@pytest.mark.parametrize(
    "question",
    [
        "what gpu do i need for a 70b model",
        "welche karte reicht für flux schnell, bilder generieren für unseren shop?",
        "Welche GPU brauche ich für Llama 3.1 8B?",
    ],
)
def test_the_least_that_does_the_job_is_the_cheapest(nlu: Understander, question: str) -> None:
    """'What GPU do I need?' asks for the least that holds it: the cheapest fit (as two blind
    writers expected)."""
    assert "cheapest" in nlu.understand(question).intents


def test_which_cards_can_run_it_stays_a_fit_list(nlu: Understander) -> None:
    assert "cheapest" not in nlu.understand("which gpus can run llama 3.3 70b?").intents
