"""Answers for the families the afternoon session of 2026-12-07 found in blind-145 … blind-148, in
other words than the cases': two KV-cache precisions asked side by side (size and sequences at
once); full fine-tune vs LoRA vs QLoRA; a price per hour; a batch's time and its cost; "the PCIe
version vs the SXM4 version" of a card family; tensor parallelism "for speed" of a model that
fits one card; "something like ChatGPT" with a budget; the weights in each of two formats; a
named node whose cards would be more than eight for one training job; "the cheaper one with
4 L4s" as a follow-up; an either-or link question led by no yes or no. And of blind-149 …
blind-152: hyphenated batch items, "switch the KV cache to FP8", "…, correct?" confirmed with
yes, "16k convos", "LoRA (kein QLoRA)", "A100 mit NVLink" beside "A100 PCIe", a quoted
bandwidth is no measurement, "lohnt sich …" after a price question."""

from __future__ import annotations

import re
from typing import Any

from assistant.service import Assistant
from tests.answers import asked_after, last_call
from tests.answers import ok as _ok


def _calls(answer: Any, name: str) -> list[Any]:
    return [c for c in answer.tool_calls if c.name == name]


def test_the_kv_cache_with_another_precision_instead_is_sized_too(
    assistant: Assistant,
) -> None:
    a = assistant.ask(
        "What's the KV cache of Qwen2.5 7B for one session of 16k tokens? "
        "And how much with an FP8 KV cache instead?"
    )
    text = _ok(a, "en")
    assert a.reading.kv_precisions == ["bf16", "fp8"]
    assert a.reading.context_tokens == 16384
    kv = {c.result["kv_precision"]: c.result["kv_gb_total"] for c in _calls(a, "memory_need")}
    fit = last_call(a, "fit_check").result
    assert fit["kv_precision"] == "bf16" and "fp8" in kv
    assert kv["fp8"] < fit["kv_gb"]
    assert f"{kv['fp8']:.1f} GB" in text or f"{kv['fp8']:.2f} GB" in text


def test_sequences_at_once_with_both_kv_precisions(assistant: Assistant) -> None:
    a = assistant.ask(
        "mistral small 24b auf 2x l40s, 16k kontext: wie viele anfragen gleichzeitig mit "
        "bf16-kv-cache und wie viele mit fp8-kv?"
    )
    text = _ok(a, "de")
    assert a.reading.kv_precisions == ["bf16", "fp8"]
    caps = {
        c.result["kv_precision"]: c.result["max_concurrency"] for c in _calls(a, "capacity_check")
    }
    assert set(caps) == {"bf16", "fp8"} and caps["fp8"] > caps["bf16"]
    assert f"bis zu {caps['fp8']} gleichzeitige" in text
    assert f"bis zu {caps['bf16']} gleichzeitige" in text


def test_one_kv_precision_named_is_no_comparison(nlu: Any) -> None:
    u = nlu.understand("Does Llama 3.1 70B fit on 2x H100 PCIe with an FP8 KV cache?")
    assert u.kv_precision == "fp8" and u.kv_precisions == []


def test_full_lora_and_qlora_memory_each(assistant: Assistant) -> None:
    a = assistant.ask("Qwen2.5 14B: Speicherbedarf für volles Finetuning, LoRA und QLoRA jeweils?")
    _ok(a, "de")
    methods = {
        (bool(c.arguments.get("training")), c.arguments.get("adapter"))
        for c in _calls(a, "memory_need")
    }
    assert {(True, None), (False, "lora"), (False, "qlora")} <= methods


def test_a_price_per_hour_leads_with_the_hour(assistant: Assistant) -> None:
    a = assistant.ask("how much is one a100 pcie per hour?")
    text = _ok(a, "en")
    quote = last_call(a, "price_quote").result["quotes"][0]
    assert quote["usd_per_hour"] == round(quote["usd_per_month"] / 730, 2)
    first = text.split("\n")[0]
    assert f"${quote['usd_per_hour']:.2f} per hour" in first


def test_a_follow_up_naming_the_other_node_and_the_difference_is_fully_read(
    assistant: Assistant,
) -> None:
    a = asked_after(
        assistant, "was kostet eine l40s im monat?", "und die l4? was ist der unterschied?", "de"
    )
    _ok(a, "de")
    assert a.reading.unread == []
    assert last_call(a, "price_quote").result["difference_usd_per_month"] == 400


def test_a_batch_with_how_long_and_what_it_costs_is_timed(assistant: Assistant) -> None:
    a = assistant.ask(
        "we have 800 reviews to classify, ~150 tokens of output each, phi-4 on one l40s. "
        "how long would that take and what would the box time cost?"
    )
    text = _ok(a, "en")
    assert a.reading.output_tokens == 120_000
    assert [k.kind for k in a.reading.asks][:1] == ["speed"]
    tput = last_call(a, "throughput_estimate").result
    assert tput["output_tokens"] == 120_000 and tput["usd_for_output"] > 0
    assert f"${tput['usd_for_output']:.2f}" in text


def test_the_pcie_and_the_sxm_version_of_a_family_are_both_cards(nlu: Any) -> None:
    u = nlu.understand(
        "Training Qwen2.5 14B on one of your 4-card H100 machines: gradient sync per step on "
        "the PCIe variant vs the SXM5 variant?"
    )
    assert u.cards == ["h100-pcie", "h100-sxm5"] and u.card_families == []


def test_splitting_a_small_model_for_speed_is_the_guides_no(assistant: Assistant) -> None:
    a = assistant.ask(
        "Customer wants Mistral 7B on the 4x L40S with tp=4 because more GPUs = faster. Is that "
        "right?"
    )
    text = _ok(a, "en")
    assert text.lstrip("* ").startswith("No")
    assert "slower" in text.split("\n")[0]


def test_a_chatgpt_like_job_with_a_budget_asks_which_model(assistant: Assistant) -> None:
    a = assistant.ask(
        "we'd like our own ChatGPT-style assistant for the office, budget maybe $3k per month. "
        "what do we need?"
    )
    text = _ok(a, "en")
    assert re.search(r"\bwhich model\b", text.split("\n")[0], re.I)
    assert "model" in a.reading.assumed and a.choices


def test_the_weights_in_each_format_are_sized(assistant: Assistant) -> None:
    a = assistant.ask(
        "mixtral 8x7b: GPTQ vs GGUF Q4_K_M – how much memory do the weights need in each "
        "format? we can't decide between vllm and ollama"
    )
    _ok(a, "en")
    assert not a.reading.explain
    sized = {c.result["precision"] for c in a.tool_calls if c.name in ("memory_need", "fit_check")}
    assert {"gptq", "gguf-q4_k_m"} <= sized


def test_a_named_node_short_by_more_than_eight_cards_gets_rule_5(assistant: Assistant) -> None:
    a = assistant.ask("Können wir Llama 3.1 70B auf eurer 8x A100 SXM4 voll finetunen?")
    text = _ok(a, "de")
    assert text.lstrip("* ").startswith("Nein")
    rules = {c.result["rule"]["number"] for c in _calls(a, "purchase_advice")}
    assert 5 in rules


def test_the_cheaper_one_with_a_node_named_keeps_the_yes_no(assistant: Assistant) -> None:
    a = asked_after(
        assistant,
        "is 2x rtx 5090 enough for qwen2.5 32b in fp8?",
        "and the cheaper one with 2 L40S?",
        "en",
    )
    text = _ok(a, "en")
    assert a.reading.yes_no and a.reading.claim == "fits"
    assert "cheapest" not in a.reading.intents
    assert text.lstrip("* ").startswith("Yes")


def test_an_either_or_link_question_gets_no_yes_or_no(assistant: Assistant) -> None:
    a = assistant.ask("NVLink or PCIe for Qwen2.5 7B?")
    text = _ok(a, "en")
    assert not re.match(r"^\W*(yes|no)\b", text, re.I)
    assert re.match(r"^\W*you don't need nvlink", text, re.I)


# ---- the second round (blind-149 … blind-152)


def test_a_batch_of_hyphenated_items_is_timed(nlu: Any) -> None:
    u = nlu.understand(
        "Wir brauchen ca. 600 Kunden-Mails, pro Mail etwa 200 Tokens Ausgabe, mit Llama 3.1 8B "
        "auf einer L40S. Wie lange dauert das?"
    )
    assert u.output_tokens == 120_000 and u.intents[0] == "speed"


def test_switching_the_kv_cache_to_fp8_compares_it(assistant: Assistant) -> None:
    a = assistant.ask(
        "how big does the kv cache get for one chat with mistral small 24b at 20,000 tokens of "
        "context? and how much if we switch the kv cache to fp8"
    )
    text = _ok(a, "en")
    assert a.reading.kv_precisions == ["bf16", "fp8"] and a.reading.intents[0] == "fit"
    assert "NVLink" not in text.split("\n")[0]
    fp8 = [c.result for c in _calls(a, "memory_need") if c.result["kv_precision"] == "fp8"]
    assert fp8 and fp8[0]["context_tokens"] == 20_000
    assert f"({int(fp8[0]['kv_bytes_per_token']):,} bytes per token)" in text


def test_a_negative_asked_as_correct_is_confirmed_with_yes(assistant: Assistant) -> None:
    a = assistant.ask(
        "just to double-check: qwen2.5 72b in bf16 does not fit on a single h100 pcie, correct?"
    )
    text = _ok(a, "en")
    assert text.lstrip("* ").startswith("Yes, correct")


def test_k_convos_are_a_context(nlu: Any) -> None:
    u = nlu.understand("gemma 3 27b on 2x l40s - how many 32k convos at the same time?")
    assert u.context_tokens == 32768


def test_lora_with_the_other_adapter_refused_stays_lora(nlu: Any) -> None:
    u = nlu.understand(
        "LoRA-Training von Llama 3.1 8B, bitte kein QLoRA, auf einer L4 – passt das?"
    )
    assert u.adapter == "lora"
    full = nlu.understand("full fine-tune of mistral 7b (no LoRA) on 2x a100 sxm4?")
    assert full.adapter is None and "fine_tuning" in full.workloads


def test_a_family_with_nvlink_beside_its_pcie_twin_names_both(nlu: Any) -> None:
    u = nlu.understand(
        "Angebot bitte für acht H100 mit NVLink und acht H100 PCIe, was kosten die jeweils?"
    )
    assert set(u.cards) == {"h100-sxm5", "h100-pcie"}
    assert u.constraints.require_link is None


def test_a_bandwidth_quoted_from_the_calculator_is_no_measurement(assistant: Assistant) -> None:
    a = assistant.ask(
        "the datasheet says 900 GB/s for the NVLink, but the allreduce calculator says 450 GB/s "
        "per direction. which is right for the 4x h100 sxm5?"
    )
    text = _ok(a, "en")
    assert a.reading.measured.busbw_gb_s is None
    assert "450 GB/s per direction" in text and "900 GB/s" in text


def test_a_worth_it_clause_after_a_price_question_is_a_yes_no(assistant: Assistant) -> None:
    a = assistant.ask(
        "Kunde fragt: was kosten 8x H100 PCIe und 8x H100 SXM5 im Monat, und lohnt sich der "
        "Aufpreis für Qwen2.5 72B in BF16 mit ca. 40 parallelen Anfragen? bitte mit preisen, "
        "er gibt das weiter"
    )
    text = _ok(a, "de")
    assert a.reading.claim == "worth_it" and a.reading.yes_no
    assert a.reading.intents[0] == "nvlink" and text.lstrip("* ").startswith("Ja")


def test_a_given_reading_asking_a_difference_refers_back_to_the_session(
    assistant: Assistant,
) -> None:
    from assistant.reading.model import Reading

    first = assistant.answer_reading(
        Reading(language="en", task="price", asks=[{"kind": "price"}], configurations=["4x-l40s"])
    )
    then = assistant.answer_reading(
        Reading(
            language="en",
            task="price",
            asks=[{"kind": "price"}],
            topics=["difference_asked"],
            configurations=["4x-a100-pcie"],
        ),
        first.session_id,
    )
    text = _ok(then, "en")
    quote = last_call(then, "price_quote").result
    assert {q["configuration"] for q in quote["quotes"]} == {"4x-a100-pcie", "4x-l40s"}
    assert f"${quote['difference_usd_per_month']:,}" in text


# ---- the third round (blind-153 … blind-155)


def test_a_memory_question_then_would_one_card_do_it_is_a_yes_no(assistant: Assistant) -> None:
    a = assistant.ask(
        "how much gpu memory do we need to lora-tune mistral 7b? would a single l4 do it?"
    )
    text = _ok(a, "en")
    assert a.reading.yes_no
    holds = last_call(a, "memory_need").result["total_gb"] <= 21.6
    assert text.lstrip("* ").startswith("Yes" if holds else "No")


def test_the_cards_memory_between_count_and_card_keeps_the_count(nlu: Any) -> None:
    u = nlu.understand("would gemma 3 27b fit on a single 32gb 5090 in fp8?")
    assert u.count == 1 and u.configurations == ["1x-rtx-5090"]


def test_a_mixture_of_experts_memory_answer_says_total_and_active(assistant: Assistant) -> None:
    a = assistant.ask(
        "How much VRAM does Qwen3 30B-A3B need in BF16, and how many params are active?"
    )
    text = _ok(a, "en")
    model = last_call(a, "memory_need").result["model"]
    assert f"{model['active_params_b']:g}B" in text and f"{model['params_b']:g}B" in text


def test_a_german_compound_item_is_a_batch(nlu: Any) -> None:
    u = nlu.understand(
        "wir wollen ca. 400 Newslettertexte mit je etwa 250 Tokens mit Gemma 3 12B auf einer "
        "L40S erzeugen, wie lange dauert das?"
    )
    assert u.output_tokens == 100_000


def test_per_hour_after_a_pick_prices_the_pick_by_the_hour(assistant: Assistant) -> None:
    a = asked_after(
        assistant,
        "cheapest node for llama 3.1 8b under $500 a month?",
        "ok, and what is that per hour?",
        "en",
    )
    text = _ok(a, "en")
    quote = last_call(a, "price_quote").result["quotes"][0]
    assert f"${quote['usd_per_hour']:.2f} per hour" in text.split("\n")[0]


def test_a_batch_time_states_its_seconds_too(assistant: Assistant) -> None:
    a = assistant.ask("How long do 500 summaries of 300 tokens each take with Phi-4 on one L40S?")
    text = _ok(a, "en")
    seconds = last_call(a, "throughput_estimate").result["output_seconds"]
    assert f"({round(seconds):,} s)" in text


def test_a_memory_question_after_a_greeting_then_would_one_card_do(nlu: Any) -> None:
    u = nlu.understand(
        "quick question: how much vram for a lora of gemma 3 12b? and would a single l40s do it?"
    )
    assert u.yes_no


def test_what_you_charge_is_a_price_and_the_difference_follows(assistant: Assistant) -> None:
    a = asked_after(
        assistant,
        "what do you charge for 2x a100 pcie?",
        "and 4x rtx 4090? how big is the difference per month?",
        "en",
    )
    text = _ok(a, "en")
    quote = last_call(a, "price_quote").result
    assert {q["configuration"] for q in quote["quotes"]} == {"2x-a100-pcie", "4x-rtx-4090"}
    assert f"${abs(quote['difference_usd_per_month']):,}" in text


def test_a_lead_in_to_a_colon_before_the_memory_question(nlu: Any) -> None:
    u = nlu.understand(
        "Moin, eine Sache vorweg: wie viel Speicher braucht QLoRA für Mistral Small 24B? "
        "Reicht dafür eine einzelne L4?"
    )
    assert u.yes_no


# ---- the fourth round (blind-159, blind-160)


def test_k_seqs_are_a_context(nlu: Any) -> None:
    assert (
        nlu.understand(
            "how many 32k seqs fit on 2x h100 pcie with llama 3.1 70b fp8?"
        ).context_tokens
        == 32768
    )


def test_the_kv_size_asked_again_with_fp8_is_compared(nlu: Any) -> None:
    u = nlu.understand(
        "How big is the KV cache of Mistral Small 24B for 3 requests at 16k each? And how large "
        "with an FP8 KV cache?"
    )
    assert u.kv_precisions == ["bf16", "fp8"]


def test_a_negative_with_right_is_agreed_with_yes_right(assistant: Assistant) -> None:
    a = assistant.ask("so llama 3.1 405b in bf16 won't fit on 4x h200, right?")
    text = _ok(a, "en")
    assert text.lstrip("* ").startswith("Yes, right")


def test_the_kv_cache_of_several_sequences_is_said_as_their_total(assistant: Assistant) -> None:
    a = assistant.ask(
        "How big does the KV cache of Llama 3.1 8B get with 6 requests at once, 16k tokens each? "
        "And how big with an FP8 KV cache?"
    )
    text = _ok(a, "en")
    fit = last_call(a, "fit_check").result
    fp8 = next(c.result for c in _calls(a, "memory_need") if c.result["kv_precision"] == "fp8")
    assert fit["concurrency"] == 6 and fp8["concurrency"] == 6
    assert "for 6 sequences" in text.split("\n")[0] and "per sequence" not in text.split("\n")[0]
    assert fp8["kv_gb_total"] < fit["kv_gb"]


def test_german_k_seqs_at_once_is_a_capacity_ask(nlu: Any) -> None:
    u = nlu.understand("wie viele 16k seqs schafft die 2x l40s gleichzeitig mit mistral small 24b?")
    assert u.intents[0] == "capacity" and u.context_tokens == 16384


def test_a_right_tag_before_more_words_is_still_agreed_with_yes(assistant: Assistant) -> None:
    a = assistant.ask(
        "so qwen2.5 72b in bf16 won't fit on one h100 pcie, right? just double-checking for a "
        "customer"
    )
    text = _ok(a, "en")
    assert text.lstrip("* ").startswith("Yes, right")
