"""Answers for the families the evening session of 2026-12-07 found in blind-127 … blind-130, in
other words than the cases': a load said outright beats the kind of service; "no NVLink needed,
right?" (with or without its comma, and as a reading's negated claim); a refusal with a reason
after a pick within a budget; "would a 4090 do it?"; the model named after a starting point keeps
the load said before; "on top of what we pay now" prices the difference to the session's node."""

from __future__ import annotations

from typing import Any

from assistant.reading.model import Reading
from assistant.service import Assistant
from tests.answers import asked_after, last_call
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
    a = asked_after(
        assistant,
        "llama 3.3 70b, we can spend about $3,000 a month. what do we get?",
        "not the a6000 boxes please, we had trouble with those before, never again",
        "en",
    )
    _ok(a, "en")
    assert a.reading.intents[:1] == ["cheapest"]
    offered = last_call(a, "cheapest_fit").arguments["configurations"]
    assert offered and not any("a6000" in c for c in offered)
    prices = {c: float(deps.catalog.configurations[c].usd_per_month) for c in offered}
    assert max(prices.values()) <= 3000


def test_would_a_card_do_it_asks_the_fit_of_that_card(assistant: Assistant) -> None:
    a = asked_after(assistant, "cheapest card for sdxl?", "could one l4 handle that too?", "en")
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
    a = asked_after(
        assistant,
        "does llama 3.1 70b fit on 4x l40s?",
        "what would the 4x h100 sxm5 box cost us on top of what we pay now?",
        "en",
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


# ---- the third round (blind-136 … blind-140)


def test_a_german_fit_asked_first_or_too_small_is_the_fit(assistant: Assistant) -> None:
    a = assistant.ask(
        "wir haben mistral nemo 12b selbst angepasst. können wir das auf einer rtx 4090 "
        "betreiben oder ist die zu klein?"
    )
    text = _ok(a, "de")
    assert a.reading.yes_no and a.reading.claim in (None, "fits")
    assert text.lstrip("* ").startswith(("Ja", "Nein"))
    assert not text.lstrip("* ").startswith("Ja — ") or "passt" in text.split("\n")[0]


def test_a_card_hoped_for_is_no_exclusion(nlu: Any) -> None:
    u = nlu.understand("gemma 3 12b für unsere faq – reicht da nicht eine l4?")
    assert u.constraints.exclude_cards == [] and u.cards == ["l4"]
    assert nlu.understand(
        "bitte nicht die l4, was ist günstig für gemma 3 12b?"
    ).constraints.exclude_cards


def test_a_card_variant_in_brackets_is_that_card_not_a_link_question(nlu: Any) -> None:
    u = nlu.understand("passt mistral small 24b auf eine h100 (80gb pcie)?")
    assert u.cards == ["h100-pcie"] and "nvlink" not in u.intents


def test_a_training_clause_with_a_fit_word_is_covered(assistant: Assistant) -> None:
    a = assistant.ask(
        "Full fine-tune of Llama 3.2 3B. It's a small model, so two consumer cards should be "
        "plenty? Is your 2x RTX 5090 box enough, or do we need something bigger?"
    )
    text = _ok(a, "en")
    assert a.reading.unread == []
    assert "training_fit" in [c.name for c in a.tool_calls]
    assert text.lstrip("* ").startswith("No")


def test_a_named_node_short_for_training_leads_with_no_when_the_link_is_asked(
    assistant: Assistant,
) -> None:
    a = assistant.ask(
        "Is our 2x RTX 5090 enough for a full fine-tune of Llama 3.2 3B, or do we need NVLink?"
    )
    text = _ok(a, "en")
    rows = last_call(a, "training_fit").result["rows"]
    assert not any(r["fits_node"] for r in rows if r["configuration"] == "2x-rtx-5090")
    assert text.lstrip("* ").startswith("No")


def test_a_relayed_german_question_full_of_english_terms_is_german(assistant: Assistant) -> None:
    a = assistant.ask(
        "kunde meint mixtral 8x7b hat doch nur 13B aktive parameter, also reicht ne einzelne "
        "L40S locker. stimmt das? will ihm nix falsches sagen"
    )
    assert a.language == "de"


def test_or_does_it_work_as_is_is_a_yes_no(nlu: Any) -> None:
    u = nlu.understand(
        "Wir wollen Qwen 2.5 72B für 20 Leute gleichzeitig. Brauchen wir NVLink oder geht das so?"
    )
    assert u.yes_no


def test_the_difference_asked_after_a_price_prices_both(assistant: Assistant, deps: Any) -> None:
    a = asked_after(
        assistant,
        "what does the 4x h100 sxm5 box cost per month?",
        "and the 4x l40s, what's the difference per month?",
        "en",
    )
    text = _ok(a, "en")
    prices = deps.catalog.configurations
    diff = prices["4x-h100-sxm5"].usd_per_month - prices["4x-l40s"].usd_per_month
    assert f"${diff:,.0f}" in text and not a.reading.yes_no


def test_a_reaction_before_the_question_asks_nothing(nlu: Any) -> None:
    u = nlu.understand("oh ok, that is more than expected. is one l40s enough for it then?")
    assert u.intents[:1] == ["fit"] and u.claim is None and u.yes_no
    # a first sentence with content of its own is no reaction
    u = nlu.understand("hm they dont want the L40S (bad experience). next option?")
    assert "l40s" in u.constraints.exclude_cards


def test_a_speed_a_yes_no_asks_to_reach(nlu: Any) -> None:
    assert nlu.understand("will qwen 2.5 7b on one l4 give us 25 tokens/s?").min_tokens_per_s == 25
    assert nlu.understand("erreicht llama 3.1 8b auf einer l40s 40 token/s?").min_tokens_per_s == 40
    assert (
        nlu.understand("we get 12 tok/s with llama 70b on 4x a100, normal?").min_tokens_per_s
        is None
    )


def test_a_model_already_fine_tuned_is_served(nlu: Any) -> None:
    u = nlu.understand("we have a finetuned mistral 7b, would it fit on one l4?")
    assert "fine_tuning" not in u.workloads and "training" not in u.workloads


def test_on_an_nvlink_box_requires_nvlink(nlu: Any) -> None:
    u = nlu.understand("we want qwen 2.5 72b on an nvlink box. cheapest one?")
    assert u.constraints.require_link == "nvlink"
    assert (
        nlu.understand("is an nvlink box worth it for qwen 72b?").constraints.require_link is None
    )


def test_a_moe_claim_with_a_speed_ask_gives_the_speed(assistant: Assistant) -> None:
    a = assistant.ask(
        "mixtral 8x7b on 2x a100 pcie, how much memory and how fast? only 13b are active, "
        "so it should be quick"
    )
    _ok(a, "en")
    assert a.reading.claim == "active_sets_memory"
    assert "throughput_estimate" in [c.name for c in a.tool_calls]


# ---- the fourth round (blind-141 … blind-143)


def test_an_expectation_put_up_for_confirmation_is_a_yes_no(nlu: Any) -> None:
    assert nlu.understand(
        "Das Modell ist klein, zwei Karten sollten da doch reichen … oder brauchen wir mehr?"
    ).yes_no
    assert nlu.understand("one l40s should be plenty for qwen 2.5 7b, or not?").yes_no


def test_a_negated_german_claim_confirmed_says_ja_stimmt(assistant: Assistant) -> None:
    a = assistant.ask("stimmt es, dass qwen 2.5 72b in bf16 nicht auf eine h100 passt?")
    assert _ok(a, "de").lstrip("* ").startswith("Ja, stimmt")
    # a negative statement with its tag is agreed with "Stimmt", as before
    a = assistant.ask("qwen 2.5 72b passt in bf16 nicht auf eine h100, oder?")
    assert _ok(a, "de").lstrip("* ").startswith("Stimmt —")


def test_a_scraping_script_is_outside_sizing(assistant: Assistant) -> None:
    a = assistant.ask("could you write me a python script that scrapes ebay prices daily?")
    assert a.reading.outside == ["other_it"] and a.tool_calls == []


def test_the_eight_card_node_said_the_german_way(nlu: Any) -> None:
    u = nlu.understand("und was kostet die 8er a100 sxm4 im monat?")
    assert u.count == 8 and u.configurations == ["8x-a100-sxm4"]
