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


# ---- the second round (blind-131 … blind-135)


def test_a_batch_timed_before_the_question_is_still_a_speed_ask(assistant: Assistant) -> None:
    a = assistant.ask(
        "we need to produce 3,000 summaries of ~150 tokens each with llama 3.1 8b on an l40s. "
        "roughly how long would that take?"
    )
    _ok(a, "en")
    assert a.reading.intents[:1] == ["speed"]
    assert last_call(a, "throughput_estimate").arguments["output_tokens"] == 450_000


def test_a_context_said_with_a_hedge_or_as_prompt_and_answer(nlu: Any) -> None:
    assert nlu.understand("qwen2.5 32b, context roughly 12k per request").context_tokens == 12288
    u = nlu.understand("how many chats fit on one l40s if input plus output is about 6k tokens")
    assert u.context_tokens == 6144
    # "for context:" is the idiom, and no context is a few dozen tokens
    assert nlu.understand("for context: about 40 users, 8 at once").context_tokens is None


def test_a_shorthand_requirement_is_required(nlu: Any) -> None:
    u = nlu.understand("need nvlink, no l40s. cheapest for qwen 2.5 72b?")
    assert u.constraints.require_link == "nvlink"
    assert nlu.understand("need nvlink? qwen 2.5 72b on 4x l40s").constraints.require_link is None


def test_a_training_job_offered_something_bigger_is_judged_by_its_memory(
    assistant: Assistant,
) -> None:
    a = assistant.ask(
        "Is 2x RTX 5090 enough for a full fine-tune of Mistral 7B, or do we need something bigger?"
    )
    text = _ok(a, "en")
    assert a.reading.claim != "pcie_enough"
    assert "training_fit" in [c.name for c in a.tool_calls]
    assert text.lstrip("* ").startswith("No")


def test_a_fit_asked_first_in_a_clause_is_the_claim(assistant: Assistant) -> None:
    a = assistant.ask(
        "we trained falcon mamba 7b ourselves, can we host it on one l4 or is it too small"
    )
    text = _ok(a, "en")
    assert a.reading.claim in (None, "fits")
    assert a.reading.model_name and not a.reading.model_name.lower().startswith("trained")
    assert text.lstrip("* ").startswith(("Yes", "No"))


def test_a_gpu_server_is_no_single_card(nlu: Any) -> None:
    assert nlu.understand("we need a gpu server for mistral small 24b").count is None
    assert nlu.understand("wir suchen einen GPU-Server für Qwen 32B").count is None
    assert nlu.understand("does mistral small 24b fit on a gpu?").count == 1


def test_a_reading_with_the_difference_and_what_it_refers_to_prices_both(
    assistant: Assistant, deps: Any
) -> None:
    reading = Reading(
        language="en",
        task="price",
        configurations=["4x-h100-sxm5"],
        refers_to=["4x-l40s"],
        asks=[{"kind": "price"}],
        text="and what would the 4x h100 sxm5 cost them on top of what they pay now?",
    )
    a = assistant.answer_reading(reading)
    text = _ok(a, "en")
    prices = deps.catalog.configurations
    diff = prices["4x-h100-sxm5"].usd_per_month - prices["4x-l40s"].usd_per_month
    assert f"${diff:,.0f}" in text


def test_an_image_model_on_a_multi_card_node_it_does_not_fit_is_not_split(
    assistant: Assistant,
) -> None:
    a = assistant.ask("can wan 2.1 14b be spread over our 4x l40s? that would be 192 gb")
    text = _ok(a, "en")
    assert text.lstrip("* ").startswith("No")
    assert any(c.guide == "gpu-for-flux-sdxl" and "many-cards" in c.url for c in a.citations)
    assert "whole model" in text


def test_a_rhetorical_negative_after_a_dash_is_the_plain_fit(assistant: Assistant) -> None:
    a = assistant.ask("llama 3.1 8b für unser kleines team – reicht da nicht eine l4?")
    assert _ok(a, "de").lstrip("* ").startswith("Ja")


def test_memory_beyond_the_models_context_gives_the_figure_asked_too(
    assistant: Assistant,
) -> None:
    a = assistant.ask("how much memory does phi-4 need with 64k context?")
    text = _ok(a, "en")
    beyond = [c for c in a.tool_calls if c.name == "memory_need"]
    assert any(c.arguments.get("context_tokens") == 65536 for c in beyond)
    need = next(c for c in beyond if c.arguments.get("context_tokens") == 65536)
    assert f"{need.result['required_gb_total']:.1f} GB" in text
    assert text.startswith("**Phi-4")  # the lead is still the model's own limit
