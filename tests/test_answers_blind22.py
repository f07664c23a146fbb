"""Answers for the families blind-22 and blind-23 found, in other words than theirs: a fit and a
speed on two named cards leads with the faster; "which server would you recommend" under real
traffic leads with the guide's NVLink pick; a speed on a card that cannot hold the model says
the need and what is usable; "the full 128K on one card?" answers in the question's polarity; an
image model for several people after a first turn stays an image job; the cheapest pick and a
split for NVLink state the need per card; a model the catalog lacks, sized by the size in its
name, says so right after the lead; an image fit on a named card cites the guide's table."""

from __future__ import annotations

from typing import Any

from assistant.deps import Deps
from assistant.service import Assistant
from assistant.texts import gb, tokens
from tests.answers import ok as _ok


def _results(a: Any, name: str) -> list[dict[str, Any]]:
    return [c.result for c in a.tool_calls if c.name == name and isinstance(c.result, dict)]


def test_fit_and_speed_on_two_cards_leads_with_the_faster(assistant: Assistant) -> None:
    a = assistant.ask(
        "customer asks if llama 3.1 8b fits on a single l4, and how many tokens/s they would get "
        "vs a single rtx 4090"
    )
    text = _ok(a, "en")
    assert text.startswith("**Yes")
    speeds = {r["configuration"]: r["tokens_per_s"] for r in _results(a, "throughput_estimate")}
    fast = max(speeds, key=lambda c: speeds[c])
    assert fast == "1x-rtx-4090"
    assert f"is the faster one: about {tokens('en', speeds[fast])} tokens/s" in text
    assert "is the cheaper one" not in text  # the price was not asked


def test_a_recommendation_under_real_traffic_leads_with_the_nvlink_pick(
    assistant: Assistant,
) -> None:
    a = assistant.ask(
        "We run Llama 3.3 70B for about 300 staff, usually around 30 of them use it at the same "
        "time, budget $7,000 a month. Which server would you recommend?"
    )
    text = _ok(a, "en")
    nv = [r for r in _results(a, "cheapest_fit") if r.get("interconnect") == "nvlink"] or [
        r for r in _results(a, "cheapest_fit")
    ][1:]
    pick = nv[0]["cheapest"][0]["configuration"]
    assert text.startswith("**Recommended for Llama 3.3 70B in BF16: ")
    assert pick in {p.configuration for p in a.prices}
    assert a.reading.concurrent_sequences == 30


def test_a_speed_where_the_model_does_not_fit_states_the_need(assistant: Assistant) -> None:
    a = assistant.ask("How many tokens per second does Llama 3.3 70B get on one RTX 5090?")
    text = _ok(a, "en")
    row = next(
        r
        for f in _results(a, "fit_check")
        for r in f["rows"]
        if r["configuration"] == "1x-rtx-5090"
    )
    assert row["verdict"] == "does_not_fit"
    assert f"({gb('en', row['required_gb_per_card'])} needed per card" in text


def test_the_full_context_on_one_card_is_answered_in_polarity(assistant: Assistant) -> None:
    a = assistant.ask("can i run qwen3 8b with the full 128k context on one l4?")
    text = _ok(a, "en")
    cap = _results(a, "capacity_check")
    assert cap and not cap[0]["load_fits"]
    assert text.startswith("**No")


def test_an_image_follow_up_with_people_at_once_stays_an_image_job(deps: Deps) -> None:
    a = Assistant(deps)
    first = a.ask("does sdxl run on a single l4?")
    second = a.ask("and with 3 people generating at once?", session_id=first.session_id)
    assert second.reading.task == "images_video" and second.reading.concurrent_sequences == 3
    assert any(c.url.endswith("#many-cards") for c in second.citations)


def test_the_cheapest_pick_states_its_need_per_card(assistant: Assistant) -> None:
    a = assistant.ask("cheapest node for qwen2.5 72b unquantized on one gpu?")
    text = _ok(a, "en")
    top = _results(a, "cheapest_fit")[0]["cheapest"][0]
    need = gb("en", top["required_gb_per_card"])
    assert f"{need} of {gb('en', top['usable_gb_per_card'])} per card" in text.split("\n")[0]


def test_a_split_for_an_nvlink_question_states_its_need(assistant: Assistant) -> None:
    a = assistant.ask(
        "customer wants qwen2.5 32b in awq with 32k context on 2x l4, pcie is enough, right?"
    )
    text = _ok(a, "en")
    row = next(
        r for f in _results(a, "fit_check") for r in f["rows"] if r["configuration"] == "2x-l4"
    )
    assert row["verdict"] == "split"
    assert f"{gb('en', row['required_gb_per_card'])} of" in text.split("\n")[0]


def test_a_model_the_catalog_lacks_says_so_after_its_lead(assistant: Assistant) -> None:
    a = assistant.ask("does falcon mamba 7b fit on an L4?")
    paras = _ok(a, "en").split("\n\n")
    assert "not in the catalog" in paras[1] and "generic dense 7B" in paras[1]
    assert "Falcon3 7B" in paras[1]


def test_an_image_fit_on_a_named_card_cites_the_guides_table(assistant: Assistant) -> None:
    a = assistant.ask("does stable diffusion 3.5 large run on an rtx 4090?")
    assert any(c.url.endswith("#which-card") for c in a.citations)


def test_the_active_parameters_do_not_set_the_memory(assistant: Assistant) -> None:
    a = assistant.ask(
        "deepseek v3 is moe, so we only need memory for the 37b active parameters, correct?"
    )
    text = _ok(a, "en")
    mem = _results(a, "memory_need")[0]
    assert text.startswith("**No**") and gb("en", mem["weights_gb"]) in text


def test_a_negated_fit_claim_is_answered_in_its_polarity(assistant: Assistant) -> None:
    a = assistant.ask("stimmt es dass qwen3 14b NICHT auf eine einzelne 4090 passt?")
    row = next(
        r
        for f in _results(a, "fit_check")
        for r in f["rows"]
        if r["configuration"] == "1x-rtx-4090"
    )
    assert row["verdict"] == "does_not_fit"
    assert _ok(a, "de").startswith("**Ja, stimmt")  # "yes, it is true that it does not fit"
    b = assistant.ask("ist es richtig, dass llama 3.1 8b nicht auf eine einzelne l4 passt?")
    # it does fit: the negative asked about is not true (blind-185's writer: "Nein")
    assert _ok(b, "de").startswith("**Nein, stimmt nicht")


def test_pcie_for_the_load_says_when_no_pcie_node_holds_the_model(assistant: Assistant) -> None:
    """blind-24's writer: rule 3 ("PCIe works") for DeepSeek R1, which only NVLink nodes hold."""
    a = assistant.ask("do i need nvlink for deepseek r1?")
    text = _ok(a, "en")
    rows = [
        r for f in _results(a, "fit_check") for r in f["rows"] if r["verdict"] != "does_not_fit"
    ]
    assert rows and not any(r["interconnect"].startswith("pcie") for r in rows)
    assert "No PCIe node in the catalog holds DeepSeek-R1" in text
    b = assistant.ask("do i need nvlink for llama 3.3 70b?")
    assert "No PCIe node in the catalog" not in _ok(b, "en")


def test_both_adapters_get_their_memory(assistant: Assistant) -> None:
    a = assistant.ask("lora or qlora for qwen2.5 72b - how much memory do i need for each?")
    text = _ok(a, "en")
    mems = {r["adapter"]: r["total_gb"] for r in _results(a, "memory_need") if r.get("adapter")}
    assert set(mems) == {"lora", "qlora"}
    assert all(gb("en", v) in text for v in mems.values())


def test_image_setup_for_several_at_once_comes_right_after_the_lead(
    assistant: Assistant,
) -> None:
    a = assistant.ask(
        "we are 5 designers and want to run flux schnell all at the same time, what do we need?"
    )
    paras = _ok(a, "en").split("\n\n")
    assert paras[1].startswith("5 at once:")


def test_a_family_without_a_size_offers_its_models_and_a_size_answers(deps: Deps) -> None:
    """ "Can I run Falcon on an A100?" (b9-063's family): the catalog's Falcon models to pick
    from, never a node price; "the 40B one" then sizes Falcon 40B on the A100 asked about."""
    a = Assistant(deps)
    first = a.ask("can I run Falcon on an A100?")
    text = _ok(first, "en")
    assert text.startswith("**Which Falcon?") and "Falcon 40B" in text
    assert not first.prices and not first.tool_calls
    assert any("Falcon 40B" in s and "A100" in s for s in first.follow_ups)
    second = a.ask("the 40B one, bf16", session_id=first.session_id)
    assert second.reading.model == "falcon-40b"
    assert "a100" in second.reading.card_families  # the card asked about is kept
    assert "does not fit" in _ok(second, "en").split("\n\n")[1].split("\n")[0]
    assert "A100" in _ok(second, "en").split("\n\n")[1].split("\n")[0]


def test_a_negative_question_is_answered_right_no_stimmt_or_doch(assistant: Assistant) -> None:
    """blind-28: "phi 4 wont fit on a single 4090 will it?" is answered "Right — … does not fit"
    ("Ja, stimmt — …" to a German "Stimmt es, dass …?", "Stimmt — …" to a tag)
    (not "Yes — … does not fit"); a false negative claim gets "No" (en) / "Doch" (de)."""
    cases = [
        ("qwen3 14b wont fit on a single 4090 will it?", "en", "**Right — "),
        ("pretty sure llama 3.1 8b wont fit on a single L4 right?", "en", "**No — "),
        ("stimmt es dass qwen3 14b NICHT auf eine einzelne 4090 passt?", "de", "**Ja, stimmt — "),
        ("llama 3.1 8b passt nicht auf eine l4, oder?", "de", "**Doch — "),
    ]
    for question, lang, lead in cases:
        assert _ok(assistant.ask(question), lang).startswith(lead), question


def test_ctx_is_the_context(assistant: Assistant) -> None:
    a = assistant.ask("llama 3.1 8b, 32k ctx, on an l4?")
    assert a.reading.context_tokens == 32768


def test_a_training_job_bigger_than_a_node_is_rule_5(assistant: Assistant) -> None:
    """ho2-29's family: a full training of Llama 3.1 405B (about 7.3 TB) needs more cards than
    a node holds: rule 5 (a fabric between nodes, not offered), not rule 4."""
    a = assistant.ask(
        "We want to fully train Llama 3.1 405B on two of your 8x B200 nodes together. Possible?"
    )
    rules = {c.result["rule"]["number"] for c in a.tool_calls if c.name == "purchase_advice"}
    assert rules == {5}
    small = assistant.ask("how much memory does a full fine-tune of llama 3.3 70b need?")
    assert {
        c.result["rule"]["number"] for c in small.tool_calls if c.name == "purchase_advice"
    } == {4}


def test_a_count_of_a_card_family_is_judged_on_that_count(assistant: Assistant) -> None:
    """ "Does Command R+ fit on 2x A100?" said "Yes": the 4x A100 SXM4 shown for the absent 2-card
    SXM4 variant held it, while the 2x A100 asked about does not."""
    a = assistant.ask("Does Command R+ fit on 2x A100?")
    fit = _results(a, "fit_check")[0]
    two = [r for r in fit["rows"] if r["gpu"].startswith("a100") and r["count"] == 2]
    assert two and all(r["verdict"] == "does_not_fit" for r in two)
    assert _ok(a, "en").startswith("**No")
