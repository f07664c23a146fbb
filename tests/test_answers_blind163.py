"""Answers for the families the late-night session of 2026-12-07 found in blind-163 … 166, in
other words than the cases': amounts and counts written in words (a budget, a batch); "it should
have NVLink" after a pick; a negative asked verb first ("is one X not enough?"); "is that the
cheapest node that runs it?" about a node named; "how many chat sessions … at the same time";
a fit with more sequences than the node holds (how many it does); a batch run "one after
another" and a batch timed beside a fit; "full precision (bf16)"; "how fast is the link between
the cards"; two cards compared without counts when one of them holds the model alone; hardware
with its count after a pick; "max concurrent seqs?"; "is a gaming card like the 4090 enough for
our chatbot?" with no model, and the model named next. And of blind-167 … 171: a statement put
up for confirmation; "the sxm4 one" compared against the other; the KV cache from the memory
need; AI video without a model; a figure taken back; "back to the first option"; bucks in
words, a no-go card and "under the 2k"; a link rate per direction; a card number beside a batch;
a context in words; an unknown model with a variant word; "must be linked by NVLink"; "same w/
fp8 kv?"."""

from __future__ import annotations

from typing import Any

from assistant.service import Assistant
from tests.answers import asked_after, fit_row, last_call
from tests.answers import ok as _ok


def _calls(answer: Any, name: str) -> list[Any]:
    return [c for c in answer.tool_calls if c.name == name]


def test_a_budget_in_words_is_read(assistant: Assistant) -> None:
    a = assistant.ask(
        "Mistral Small 24B für unser Team, wir dürfen höchstens dreitausend Euro im Monat "
        "ausgeben. Was ist das günstigste?"
    )
    _ok(a, "de")
    assert a.reading.budget_usd_per_month == 3000
    assert a.reading.budget_currency == "EUR"


def test_nvlink_required_after_a_pick_picks_again_within_it(assistant: Assistant) -> None:
    a = asked_after(
        assistant,
        "cheapest server for mixtral 8x22b in fp8?",
        "hm, the box should have NVLink between the GPUs though",
        "en",
    )
    text = _ok(a, "en")
    assert a.reading.require_link == "nvlink"
    cheapest = last_call(a, "cheapest_fit")
    assert cheapest.arguments.get("interconnect") == "nvlink"
    top = cheapest.result["cheapest"][0]["configuration"]
    assert top.endswith(("sxm4", "sxm5", "h200", "b200"))
    assert text.startswith("**The cheapest NVLink (SXM) node")


def test_a_negative_asked_verb_first_is_agreed_with_yes(assistant: Assistant) -> None:
    a = assistant.ask("would a single L40S not be enough for Llama 3.3 70B in BF16?")
    text = _ok(a, "en")
    assert a.reading.claim_negated
    assert fit_row(a, "1x-l40s")["verdict"] == "does_not_fit"
    assert text.startswith("**Yes, right")


def test_is_the_named_node_the_cheapest_that_runs_it(assistant: Assistant) -> None:
    a = assistant.ask(
        "a customer was offered 8x l40s for qwen2.5 72b in bf16. is that really the cheapest "
        "box you have that runs it?"
    )
    text = _ok(a, "en")
    top = last_call(a, "cheapest_fit").result["cheapest"][0]["configuration"]
    assert top != "8x-l40s"
    assert text.startswith("**No")


def test_how_many_chat_sessions_at_the_same_time_is_a_capacity(assistant: Assistant) -> None:
    a = assistant.ask(
        "How many chat sessions with 32k tokens each can Qwen2.5 32B keep open on 2x A100 "
        "PCIe at the same time?"
    )
    text = _ok(a, "en")
    cap = last_call(a, "capacity_check").result
    assert cap["context_tokens"] == 32768
    assert f"up to {cap['max_concurrency']} concurrent sequences" in text


def test_a_fit_with_more_sequences_than_the_node_holds_says_how_many_it_does(
    assistant: Assistant,
) -> None:
    a = asked_after(
        assistant,
        "Läuft Qwen2.5 14B in FP8 auf einer einzelnen L4?",
        "und wenn dreißig Leute gleichzeitig mit je 4k Kontext drauf gehen, reicht sie noch?",
        "de",
    )
    text = _ok(a, "de")
    assert a.reading.concurrent_sequences == 30
    assert fit_row(a, "1x-l4")["verdict"] == "does_not_fit"
    cap = last_call(a, "capacity_check").result
    assert 0 < cap["max_concurrency"] < 30
    held = cap["max_concurrency"]
    assert (f"höchstens **{held} gleichzeitige" in text) or (held == 1 and "nur **eine" in text)
    assert text.startswith("**Nein")


def test_a_batch_counted_in_words_is_timed(assistant: Assistant) -> None:
    a = assistant.ask(
        "Llama 3.1 8B on one L40S: we want to write three hundred product summaries of about "
        "four hundred tokens each, run one after another. How long does that take?"
    )
    text = _ok(a, "en")
    assert a.reading.output_tokens == 120_000
    tput = last_call(a, "throughput_estimate")
    assert tput.arguments.get("output_tokens") == 120_000
    assert f"{round(tput.result['output_seconds']):,} s" in text
    assert not any(k.kind == "fit" for k in a.reading.asks)  # "run one after another"


def test_a_batch_timed_beside_a_fit_question(assistant: Assistant) -> None:
    a = assistant.ask(
        "Does Qwen2.5 32B fit on one A100 PCIe, and how long would 500 answers of 200 tokens "
        "each take on it?"
    )
    text = _ok(a, "en")
    tput = last_call(a, "throughput_estimate")
    assert tput.arguments.get("output_tokens") == 100_000
    assert f"{round(tput.result['output_seconds']):,} s" in text
    assert text.startswith("**Yes")


def test_full_precision_with_the_format_in_brackets_is_that_format(nlu: Any) -> None:
    assert nlu.understand("mistral small 24b at full precision (bf16) on a 5090?").precision == (
        "bf16"
    )
    # "full precision" alone is the weights as published (three blind writers read it so)
    assert nlu.understand("mistral small 24b at full precision on a 5090?").precision == "bf16"
    assert nlu.understand("mistral small 24b in fp32 on a 5090?").precision == "fp32"


def test_how_fast_the_link_between_the_cards_is(assistant: Assistant) -> None:
    a = assistant.ask("how fast is the link between the cards on the 8x a100 sxm4?")
    text = _ok(a, "en")
    assert a.reading.intents[0] == "link_facts"
    assert "NVLink 3" in text and "600 GB/s" in text


def test_two_cards_without_counts_one_card_each_when_one_holds_it(
    assistant: Assistant,
) -> None:
    a = assistant.ask("gemma 3 27b in bf16, a100 or l40s: which of the two can hold it?")
    text = _ok(a, "en")
    fit = last_call(a, "fit_check")
    assert set(fit.arguments["configurations"]) == {"1x-a100-pcie", "1x-l40s"}
    rows = {r["configuration"]: r["verdict"] for r in fit.result["rows"]}
    assert rows["1x-a100-pcie"] == "fits_one_card" and rows["1x-l40s"] == "does_not_fit"
    assert text.startswith("**Only")


def test_hardware_with_its_count_after_a_pick_asks_the_fit_there(assistant: Assistant) -> None:
    a = asked_after(
        assistant,
        "What's the cheapest node for Llama 3.3 70B in FP8?",
        "and on a single h100?",
        "en",
    )
    text = _ok(a, "en")
    assert a.reading.yes_no and a.reading.intents[0] == "fit"
    rows = _calls(a, "fit_check")[0].result["rows"]
    fits = next(r for r in rows if r["configuration"] == "1x-h100-pcie")["verdict"] != (
        "does_not_fit"
    )
    assert text.startswith("**Yes" if fits else "**No")
    assert not _calls(a, "cheapest_fit")  # not the cheapest pick again


def test_max_concurrent_seqs_is_a_capacity_not_a_yes_no(assistant: Assistant) -> None:
    a = assistant.ask("qwen2.5 14b bf16, 8k ctx, 1x h100 pcie, vllm. max parallel requests?")
    text = _ok(a, "en")
    assert not a.reading.yes_no
    cap = last_call(a, "capacity_check").result
    assert cap["max_concurrency"] > 1
    assert text.startswith("**Qwen2.5 14B in BF16 on ")
    assert f"up to {cap['max_concurrency']} concurrent sequences" in text


def test_a_card_for_a_chatbot_without_a_model_asks_which_model(assistant: Assistant) -> None:
    a = assistant.ask("would a consumer card like the rtx 5090 be enough for our support bot?")
    text = _ok(a, "en")
    assert a.reading.model is None and a.reading.count == 1
    assert "Which model" in text.split("\n")[0]
    node = last_call(a, "models_for_configuration")
    assert node.arguments.get("kind") == "llm"
    assert {r["kind"] for r in node.result["fits"]} == {"llm"}
    b = assistant.ask("qwen2.5 14b, about 8 people at once", session_id=a.session_id)
    _ok(b, "en")
    assert b.reading.model == "qwen2.5-14b" and b.reading.configurations == ["1x-rtx-5090"]
    assert fit_row(b, "1x-rtx-5090")["verdict"] in ("fits_one_card", "does_not_fit")
    assert b.answer.startswith(("**Yes", "**No"))


def test_counts_in_words_become_figures_and_nothing_else_does() -> None:
    from assistant.spelled import spelled_counts

    assert spelled_counts("wir wollen dreihundertfünfzig Texte") == "wir wollen 350 Texte"
    assert spelled_counts("two thousand five hundred emails") == "2500 emails"
    assert spelled_counts("a thousand answers") == "1000 answers"
    # an article alone, a card's name and a word that merely starts like a number stay
    assert spelled_counts("a few texts on one a100") == "a few texts on one a100"
    assert spelled_counts("eine l4 und zwei a100") == "eine l4 und 2 a100"
    assert spelled_counts("einfach achtsam") == "einfach achtsam"


# ---- the second round (blind-167 … blind-171)


def test_a_statement_put_up_for_confirmation_is_a_yes_no(assistant: Assistant) -> None:
    a = assistant.ask("We assume one L4 is not enough for Mistral Small 24B in BF16?")
    text = _ok(a, "en")
    assert a.reading.yes_no and a.reading.claim_negated
    rows = _calls(a, "fit_check")[0].result["rows"]
    assert next(r for r in rows if r["configuration"] == "1x-l4")["verdict"] == "does_not_fit"
    assert text.startswith("**Yes, right")
    b = assistant.ask(
        "Wir gehen davon aus, dass eine L4 für Mistral Small 24B in BF16 nicht reicht?"
    )
    assert _ok(b, "de").startswith("**Ja, stimmt")
    c = assistant.ask(
        "pls have a look\n\n-----Original Message-----\nFrom: Ana <ana@example.org>\n\nHello,\n"
        "we assume a single L4 is not enough for Mistral Small 24B in BF16?\n\nThanks, Ana"
    )
    assert _ok(c, "en").startswith("**Yes, right")


def test_a_pcie_node_said_not_enough_for_training_is_the_fit_negated(
    assistant: Assistant,
) -> None:
    a = assistant.ask("is 2x L40S not enough for a full fine-tune of Llama 3.1 8B?")
    text = _ok(a, "en")
    assert a.reading.claim == "fits" and a.reading.claim_negated
    row = last_call(a, "training_fit").result["rows"][0]
    assert row["configuration"] == "2x-l40s" and not row["fits_node"]
    assert text.startswith("**Yes, right")


def test_the_variant_named_in_a_follow_up_is_compared_against_the_other(
    assistant: Assistant,
) -> None:
    a = asked_after(
        assistant,
        "price difference per month, 8x a100 pcie vs 8x a100 sxm4?",
        "with qwen2.5 72b in bf16, is the sxm4 one a lot faster?",
        "en",
    )
    text = _ok(a, "en")
    assert a.reading.configurations[:1] == ["8x-a100-sxm4"]
    speeds = {
        c.arguments["configuration"]: c.result["tokens_per_s"]
        for c in _calls(a, "throughput_estimate")
    }
    much = speeds["8x-a100-sxm4"] >= 1.25 * speeds["8x-a100-pcie"]
    assert text.startswith("**Yes" if much else "**No")


def test_the_kv_cache_asked_comes_from_the_memory_need(assistant: Assistant) -> None:
    a = assistant.ask("How big does the KV cache of Qwen2.5 14B get at 32k context, one sequence?")
    text = _ok(a, "en")
    mem = last_call(a, "memory_need")
    assert mem.arguments["context_tokens"] == 32768
    assert f"{mem.result['kv_gb_total']:.1f} GB" in text.split("\n")[0]


def test_ai_for_videos_without_a_model_is_asked_back_not_declined(assistant: Assistant) -> None:
    a = assistant.ask("I'd like to generate short clips with AI, what hardware would I need?")
    text = _ok(a, "en")
    assert "off_topic" not in a.reading.intents
    assert "?" in text.split("\n")[0]


def test_a_context_taken_back_is_replaced_by_the_new_one(assistant: Assistant) -> None:
    a = asked_after(
        assistant,
        "mistral small 24b bf16 on 1x a100 pcie, 32k ctx, 10 at once – fits?",
        "my bad, 32k was wrong – our requests are 8k max. how many at once then?",
        "en",
    )
    _ok(a, "en")
    assert a.reading.context_tokens == 8192
    assert last_call(a, "capacity_check").arguments["context_tokens"] == 8192


def test_back_to_the_first_option(assistant: Assistant) -> None:
    first = assistant.ask("qwen2.5 32b – what does 1x a100 pcie cost per month?")
    second = assistant.ask("and 1x h100 pcie?", session_id=first.session_id)
    a = assistant.ask(
        "ok, back to the first option: does qwen fit there in bf16 with 16k context?",
        session_id=second.session_id,
    )
    _ok(a, "en")
    assert a.reading.configurations == ["1x-a100-pcie"]


def test_bucks_in_words_a_no_go_card_and_under_the_2k(assistant: Assistant) -> None:
    a = asked_after(
        assistant,
        "cheapest server for qwen2.5 32b in bf16? we have three thousand bucks a month",
        "L40S are a no-go for us. still something under the 3k?",
        "en",
    )
    _ok(a, "en")
    assert a.reading.budget_usd_per_month == 3000
    assert "l40s" in a.reading.exclude_cards
    assert a.reading.context_tokens is None


def test_a_link_rate_per_direction_is_no_memory_pooling(assistant: Assistant) -> None:
    a = assistant.ask(
        "the 600 GB/s for NVLink 3 on your A100 SXM4 boxes – is that per direction or both "
        "directions added up?"
    )
    text = _ok(a, "en")
    assert a.reading.claim != "memory_adds_up"
    assert "300 GB/s per direction" in text


def test_a_card_number_is_no_batch_count(nlu: Any) -> None:
    u = nlu.understand(
        "auf einer RTX 4090 dreihundert E-Mails à zweihundert Tokens schreiben lassen, "
        "nacheinander: wie lange dauert das?"
    )
    assert u.output_tokens == 60_000


def test_a_context_in_words(nlu: Any) -> None:
    u = nlu.understand("wie viele Chats mit je zwölftausend Tokens Kontext schafft eine H100?")
    assert u.context_tokens == 12_000


def test_an_unknown_model_with_a_variant_word(assistant: Assistant) -> None:
    a = assistant.ask("could we serve Arctic instruct on the 2x L40S?")
    text = _ok(a, "en")
    assert a.reading.model is None and a.reading.model_name == "Arctic instruct"
    assert "not in the catalog" in text


def test_cards_that_must_be_linked_by_nvlink_narrow_the_pick(assistant: Assistant) -> None:
    a = asked_after(
        assistant,
        "Welcher Server ist der günstigste für Qwen2.5 72B in FP8?",
        "Die GPUs müssen über NVLink verbunden sein.",
        "de",
    )
    _ok(a, "de")
    assert a.reading.require_link == "nvlink" and a.reading.claim is None
    assert last_call(a, "cheapest_fit").arguments.get("interconnect") == "nvlink"


def test_same_with_another_kv_precision_keeps_the_capacity_question(
    assistant: Assistant,
) -> None:
    a = asked_after(
        assistant,
        "llama-3.1-8b bf16 | 1x l40s | 32k ctx. max concurrent seqs?",
        "same w/ fp8 kv?",
        "en",
    )
    text = _ok(a, "en")
    assert not a.reading.yes_no and a.reading.kv_precision == "fp8"
    cap = last_call(a, "capacity_check").result
    assert f"up to {cap['max_concurrency']} concurrent sequences" in text


def test_a_budget_put_to_the_node_named_before(assistant: Assistant) -> None:
    a = asked_after(
        assistant,
        "Does Qwen2.5 32B fit on one H100 PCIe?",
        "the customer's ceiling is fifteen hundred dollars a month. do we stay below that?",
        "en",
    )
    text = _ok(a, "en")
    assert a.reading.configurations == ["1x-h100-pcie"] and a.reading.yes_no
    quote = last_call(a, "price_quote").result["quotes"][0]
    within = quote["usd_per_month"] <= 1500
    assert text.startswith("**Yes" if within else "**No")
    assert not _calls(a, "cheapest_fit")
    # after a cheapest pick the budget stays the pick's question
    b = asked_after(
        assistant, "cheapest node for Qwen2.5 32B?", "our budget is $900, does that work?", "en"
    )
    _ok(b, "en")
    assert _calls(b, "cheapest_fit")


# ---- the third round (blind-172 … blind-176)


def test_a_grand_in_bucks_not_euros(nlu: Any, assistant: Assistant) -> None:
    a = assistant.ask(
        "cheapest node for mistral small 24b? we can spend a grand a month, dollars not euro"
    )
    _ok(a, "en")
    assert a.reading.budget_usd_per_month == 1000 and a.reading.budget_currency == "USD"


def test_a_card_ruled_out_by_a_bad_experience_is_excluded_not_diagnosed(
    assistant: Assistant,
) -> None:
    a = asked_after(
        assistant,
        "cheapest server for qwen2.5 32b in bf16? budget 1,000 dollars a month",
        "they had a bad time with the RTX A6000 before, those are a no-go. anything under that?",
        "en",
    )
    text = _ok(a, "en")
    assert "rtx-a6000" in a.reading.exclude_cards and a.reading.claim != "defect"
    assert text.startswith("**No")


def test_gpus_that_need_to_be_connected_via_nvlink_narrow_the_pick(
    assistant: Assistant,
) -> None:
    a = asked_after(
        assistant,
        "cheapest box for mixtral 8x7b?",
        "Our GPUs need to be connected through NVLink, though.",
        "en",
    )
    _ok(a, "en")
    assert a.reading.claim is None and a.reading.require_link == "nvlink"
    assert last_call(a, "cheapest_fit").arguments.get("interconnect") == "nvlink"


def test_a_batch_counted_as_n_of_them(nlu: Any) -> None:
    u = nlu.understand(
        "we'd let qwen2.5 7b summarise support tickets on one l4, three hundred of them, each "
        "summary around 250 tokens. how long would that take?"
    )
    assert u.output_tokens == 75_000


def test_the_kv_size_again_with_another_kv_precision(assistant: Assistant) -> None:
    a = asked_after(
        assistant,
        "how large is the kv cache of qwen2.5 72b at 32k context for a single sequence?",
        "and with an fp8 kv cache?",
        "en",
    )
    text = _ok(a, "en")
    mem = last_call(a, "memory_need")
    assert mem.arguments.get("kv_precision") == "fp8"
    assert text.startswith("**KV cache in FP8 of Qwen2.5 72B")


def test_a_bare_context_taken_back_in_a_follow_up(assistant: Assistant) -> None:
    a = asked_after(
        assistant,
        "does qwen2.5 14b fit on one l40s with 16k context and 12 requests at the same time?",
        "sorry, 16k was a typo, it's 4k. how many at once then?",
        "en",
    )
    _ok(a, "en")
    assert a.reading.context_tokens == 4096


def test_those_two_cards_are_the_node_talked_about(assistant: Assistant) -> None:
    a = asked_after(
        assistant,
        "our 2x l40s box shows PHB between GPU0 and GPU1 in topo -m. is that normal?",
        "ok. could we run qwen2.5 72b in awq split over those two cards?",
        "en",
    )
    _ok(a, "en")
    assert a.reading.configurations == ["2x-l40s"]


def test_nvlink_against_a_pcie_generation_named(assistant: Assistant) -> None:
    a = assistant.ask(
        "how fast is the link on the 8x h200, and how does that compare with pcie gen5?"
    )
    text = _ok(a, "en")
    assert "PCIe Gen5 ×16**: 64 GB/s" in text
    assert "NVLink 4 moves about 14×" in text


def test_correct_as_a_tag_in_the_middle(assistant: Assistant) -> None:
    a = assistant.ask(
        "so llama 3.1 405b does not fit on the 4x h100 sxm5, correct? asking before i reply"
    )
    assert _ok(a, "en").startswith("**Yes, correct")


def test_what_server_to_get_without_a_model_then_the_model(assistant: Assistant) -> None:
    a = asked_after(
        assistant,
        "we need a server for an internal assistant. what should we get?",
        "mistral small 24b, around 6 people at once",
        "en",
    )
    _ok(a, "en")
    assert a.reading.intents[0] == "cheapest"
    assert _calls(a, "cheapest_fit")


def test_rtx_cards_and_datacenter_only(nlu: Any) -> None:
    u = nlu.understand("cheapest node for qwen2.5 14b, keine RTX-Karten bitte")
    assert set(u.constraints.exclude_cards) == {"rtx-4090", "rtx-5090", "rtx-a6000"}
    v = nlu.understand("cheapest node for qwen2.5 14b? data center GPUs only")
    assert set(v.constraints.exclude_cards) == {"rtx-4090", "rtx-5090", "rtx-a6000"}
    w = nlu.understand("cheapest node for qwen2.5 14b, no RTX 4090")
    assert w.constraints.exclude_cards == ["rtx-4090"]


def test_requests_per_minute_are_no_sequences_at_once(nlu: Any) -> None:
    u = nlu.understand(
        "qwen3 8b for 200 staff, at most 8 chatting at the same time, about 60 requests/min"
    )
    assert u.concurrency == 8


def test_which_server_for_a_model_is_the_pick(assistant: Assistant) -> None:
    a = assistant.ask("which box would you suggest for gemma 3 27b with 5 users at once?")
    _ok(a, "en")
    assert a.reading.intents[0] == "cheapest"
    assert _calls(a, "cheapest_fit")
    b = assistant.ask("which node holds deepseek v3 in bf16?")
    assert b.reading.intents[0] == "fit"  # no load: where it fits, and why not


# ---- the fourth round (blind-177 … blind-179)


def test_the_n_card_one_in_german(assistant: Assistant) -> None:
    a = asked_after(
        assistant, "passt qwen3 235b-a22b in fp8 auf den 2x H200?", "und auf den 4er?", "de"
    )
    _ok(a, "de")
    assert a.reading.configurations == ["4x-h200"]


def test_training_said_for_later_only_motivates_the_link(assistant: Assistant) -> None:
    a = asked_after(
        assistant,
        "cheapest server for qwen2.5 72b in bf16?",
        "it has to be sxm though, maybe we fine-tune on it at some point later",
        "en",
    )
    _ok(a, "en")
    assert not {"training", "fine_tuning"} & set(a.reading.workloads)
    assert last_call(a, "cheapest_fit").arguments.get("interconnect") == "nvlink"


def test_what_should_we_take_in_german_then_the_model(assistant: Assistant) -> None:
    a = asked_after(
        assistant,
        "wir brauchen einen server für unseren internen assistenten. was sollten wir mieten?",
        "mistral small 24b, etwa 5 leute gleichzeitig",
        "de",
    )
    _ok(a, "de")
    assert a.reading.intents[0] == "cheapest" and _calls(a, "cheapest_fit")


def test_a_topology_warning_agreed_as_normal_says_yes_not_yes_defect(
    assistant: Assistant,
) -> None:
    paste = (
        "        GPU0    GPU1    CPU Affinity    NUMA Affinity\n"
        "GPU0     X      SYS     0-15            0\n"
        "GPU1    SYS      X      16-31           1\n"
    )
    a = assistant.ask("topo -m of our 2x RTX A6000 box:\n" + paste + "is this normal?")
    text = _ok(a, "en")
    assert last_call(a, "check_topology_output").result["status"] == "warning"
    assert text.startswith("**Yes.** **Not a defect")


def test_staff_shorthand_with_a_german_customer_is_german(nlu: Any) -> None:
    u = nlu.understand("preisunterschied 2x l40s vs 4x l4 pro monat? kunde will vergleichen")
    assert u.language == "de"
