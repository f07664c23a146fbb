"""Answers for the families the evening session of 2026-12-07 found in blind-127 … blind-130, in
other words than the cases': a load said outright beats the kind of service; "no NVLink needed,
right?" (with or without its comma, and as a reading's negated claim); a refusal with a reason
after a pick within a budget; "would a 4090 do it?"; the model named after a starting point keeps
the load said before; "on top of what we pay now" prices the difference to the session's node."""

from __future__ import annotations

from typing import Any

from assistant.reading.model import Reading
from assistant.service import Assistant
from tests.answers import last_call
from tests.answers import ok as _ok


def _advice_rule(answer: Any) -> int:
    return int(last_call(answer, "purchase_advice").result["rule"]["number"])


def test_a_light_load_said_outright_beats_the_service_word(assistant: Assistant) -> None:
    a = assistant.ask(
        "We'd put Qwen2.5 72B on 4x L40S for a support bot, honestly light load. NVLink needed?"
    )
    text = _ok(a, "en")
    assert "traffic" not in a.reading.workloads and "low_concurrency" in a.reading.workloads
    assert _advice_rule(a) == 3
    assert text.lstrip("* ").startswith("No")


def test_a_heavy_load_beside_the_light_word_stays_traffic(nlu: Any) -> None:
    u = nlu.understand("support bot on qwen 72b, light load at night but heavy load by day")
    assert "traffic" in u.workloads


def test_no_nvlink_needed_right_is_confirmed_with_yes(assistant: Assistant) -> None:
    a = assistant.ask("llama 3.3 70b auf zwei a100 pcie, da brauchen wir doch kein nvlink oder?")
    text = _ok(a, "de")
    assert a.reading.yes_no and a.reading.claim == "pcie_enough"
    assert a.reading.exclude_link is None or a.reading.exclude_link == "nvlink"
    assert _advice_rule(a) == 3
    assert text.lstrip("* ").startswith("Richtig")


def test_no_nvlink_needed_is_no_refusal_of_nvlink(nlu: Any) -> None:
    u = nlu.understand("mixtral 8x22b over several cards, no nvlink needed right?")
    assert u.constraints.exclude_link is None
    assert u.claim == "pcie_enough" and u.yes_no


def test_a_reading_with_the_link_claim_negated_is_the_converse_claim(
    assistant: Assistant,
) -> None:
    reading = Reading(
        language="en",
        task="serve",
        model="mixtral-8x7b",
        intents=["nvlink"],
        claim="nvlink_needed",
        claim_negated=True,
        yes_no=True,
    )
    a = assistant.answer_reading(reading)
    assert _advice_rule(a) == 3
    assert _ok(a, "en").lstrip("* ").startswith("Yes")


def test_a_refusal_with_its_reason_after_a_budget_pick_picks_again(
    assistant: Assistant, deps: Any
) -> None:
    first = assistant.ask("llama 3.3 70b, we can spend about $3,000 a month. what do we get?")
    _ok(first, "en")
    a = assistant.ask(
        "not the a6000 boxes please, we had trouble with those before, never again",
        session_id=first.session_id,
    )
    _ok(a, "en")
    assert a.reading.intents[:1] == ["cheapest"]
    offered = last_call(a, "cheapest_fit").arguments["configurations"]
    assert offered and not any("a6000" in c for c in offered)
    prices = {c: float(deps.catalog.configurations[c].usd_per_month) for c in offered}
    assert max(prices.values()) <= 3000


def test_would_a_card_do_it_asks_the_fit_of_that_card(assistant: Assistant) -> None:
    first = assistant.ask("cheapest card for sdxl?")
    _ok(first, "en")
    a = assistant.ask("could one l4 handle that too?", session_id=first.session_id)
    text = _ok(a, "en")
    assert a.reading.intents[:1] == ["fit"] and a.reading.yes_no
    assert "1x-l4" in last_call(a, "fit_check").arguments.get("configurations", ["1x-l4"])
    assert text.lstrip("* ").startswith("Yes")
    assert "cheapest_fit" not in [c.name for c in a.tool_calls]


def test_the_model_named_after_a_starting_point_keeps_the_load(assistant: Assistant) -> None:
    first = assistant.ask(
        "we need something for an internal assistant, around 8 people at the same time. "
        "what would we need?"
    )
    _ok(first, "en")
    assert "model" in first.reading.assumed
    a = assistant.ask("gemma 3 27b. cheapest option?", session_id=first.session_id)
    _ok(a, "en")
    assert a.reading.model == "gemma-3-27b"
    assert a.reading.concurrent_sequences == 8
    assert last_call(a, "cheapest_fit").arguments["concurrency"] == 8


def test_on_top_of_what_we_pay_prices_the_difference_to_our_node(
    assistant: Assistant, deps: Any
) -> None:
    first = assistant.ask("does llama 3.1 70b fit on 4x l40s?")
    _ok(first, "en")
    a = assistant.ask(
        "what would the 4x h100 sxm5 box cost us on top of what we pay now?",
        session_id=first.session_id,
    )
    text = _ok(a, "en")
    assert set(a.reading.configurations) == {"4x-h100-sxm5", "4x-l40s"}
    prices = deps.catalog.configurations
    diff = prices["4x-h100-sxm5"].usd_per_month - prices["4x-l40s"].usd_per_month
    assert f"${diff:,.0f}" in text and "per month" in text
