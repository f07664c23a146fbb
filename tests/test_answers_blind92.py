"""Answers for the families the day session of 2026-12-07 found (old held-out cases and blind-92
… blind-95), in other words than the cases': a card named with no count before a counted one is
one card; a card named for serving after a fine-tune is judged for the serving; a fine-tune
within a budget is sized for the training; a count alone names the nodes of that count that hold
a training job; a measured speed within a tenth of the estimate is expected; small figures keep
two significant digits; "has to be an nvlink box" requires the link; "how many at once" asks the
capacity; "how much would we save" is the difference to the node priced before; a yes/no asked
again at another precision keeps its budget question; the most memory for a budget comes from
nodes_within; "can you run X without nvlink?" is a fit within that exclusion."""

from __future__ import annotations

from typing import Any

from assistant.service import Assistant
from tests.answers import last_call
from tests.answers import ok as _ok


def test_a_card_named_before_a_counted_one_is_one_card(nlu: Any) -> None:
    u = nlu.understand("what's the price gap between an l40s and 4x a100 sxm4?")
    assert u.configurations == ["1x-l40s", "4x-a100-sxm4"]


def test_a_count_said_first_is_shared_forward(nlu: Any) -> None:
    u = nlu.understand("4x h100 pcie or sxm5, which is cheaper?")
    assert u.configurations == ["4x-h100-pcie", "4x-h100-sxm5"]


def test_each_shares_the_count_back(nlu: Any) -> None:
    u = nlu.understand("l40s vs 4x a6000, four cards each: price?")
    assert "1x-l40s" not in u.configurations


def test_a_card_named_for_serving_after_a_full_fine_tune(assistant: Assistant) -> None:
    a = assistant.ask(
        "We'd like to fully fine-tune Llama 3.1 8B (no LoRA) and deploy it afterwards. "
        "How much memory for the training, and can we then serve it on one RTX 4090?"
    )
    text = _ok(a, "en")
    assert "serve_on_named" in a.reading.topics
    row = next(
        r for r in last_call(a, "fit_check").result["rows"] if r["configuration"] == "1x-rtx-4090"
    )
    assert text.startswith("**Yes" if row["verdict"] != "does_not_fit" else "**No")
    need = last_call(a, "memory_need").result["total_gb"]
    assert f"{need:,.1f} GB" in text


def test_a_card_named_for_the_training_is_judged_for_it(assistant: Assistant) -> None:
    a = assistant.ask(
        "wir wollen mistral 7b voll feintunen auf einer l40s und danach ausliefern, geht das?"
    )
    assert "serve_on_named" not in a.reading.topics
    assert _ok(a, "de").startswith("**Nein")
    assert last_call(a, "training_fit") is not None


def test_a_fine_tune_within_a_budget_is_sized_for_the_training(assistant: Assistant) -> None:
    a = assistant.ask("qlora von llama 3.3 70b, reicht eine einzelne gpu? max 1.200 $ im monat")
    text = _ok(a, "de")
    tf = last_call(a, "training_fit")
    assert tf is not None and a.tool_calls[-1].name != "fit_check"
    one = tf.result["cheapest_one_card"]
    assert one is not None and float(one["usd_per_month"]) <= 1200
    assert text.startswith("**Ja")
    assert one["configuration"] in {p.configuration for p in a.prices}


def test_a_fine_tune_nothing_within_the_budget_holds_says_so(assistant: Assistant) -> None:
    a = assistant.ask("full fine-tune of mistral 7b, we can spend at most $900 a month. which box?")
    text = _ok(a, "en")
    calls = [c for c in a.tool_calls if c.name == "training_fit"]
    assert len(calls) >= 2 and calls[0].arguments.get("configurations")
    assert text.startswith("**No")
    assert "Only configurations within your constraints" not in text


def test_a_training_at_a_count_names_the_sxm_nodes_that_hold_it(assistant: Assistant) -> None:
    a = assistant.ask(
        "brauchen wir nvlink, wenn wir qwen3 32b voll feintunen wollen, auf einem 8-gpu-server?"
    )
    text = _ok(a, "de")
    tf = [c for c in a.tool_calls if c.name == "training_fit"][-1]
    holding = [r["configuration"] for r in tf.result["rows"] if r["fits_node"]]
    assert holding and all("8x-" in c for c in holding)
    assert all(r["link_kind"] == "nvlink" for r in tf.result["rows"])
    assert holding[0] in {p.configuration for p in a.prices}
    assert text.startswith("**Ja")


def test_a_measured_speed_a_little_under_the_estimate_is_expected(assistant: Assistant) -> None:
    first = assistant.ask("how fast is llama 3.1 8b on one rtx 4090?")
    est = last_call(first, "throughput_estimate").result["tokens_per_s"]
    measured = round(est * 0.95, 1)
    a = assistant.ask(
        f"we get about {measured} tokens/s with llama 3.1 8b on a single rtx 4090, is that normal?"
    )
    assert _ok(a, "en").startswith("**Yes")
    slow = assistant.ask(
        f"we get about {round(est * 0.6, 1)} tokens/s with llama 3.1 8b on a single rtx 4090, "
        "is that normal?"
    )
    assert _ok(slow, "en").startswith("**No")


def test_small_figures_keep_two_significant_digits() -> None:
    from assistant.texts import one_decimal, smart

    assert smart("en", 0.0658) == "0.066"
    assert smart("de", 0.04) == "0,04"
    assert smart("en", 0.156) == "0.16"
    assert one_decimal("en", 133.4) == "133.4"
    assert one_decimal("de", 141.0) == "141"


def test_it_has_to_be_an_nvlink_machine_is_required(nlu: Any) -> None:
    u = nlu.understand("our policy: it has to be an nvlink box. cheapest for llama 3.3 70b?")
    assert u.constraints.require_link == "nvlink"
    assert (
        nlu.understand("is an nvlink machine worth it for llama 70b?").constraints.require_link
        is None
    )


def test_how_many_at_once_without_a_noun_asks_the_capacity(nlu: Any) -> None:
    assert "capacity" in nlu.understand("qwen3 8b on an l4, how many at once with 4k?").intents
    assert "capacity" in nlu.understand("und wie viele passen dann gleichzeitig drauf?").intents
    assert "capacity" not in nlu.understand("how many gpus at once do i need?").intents


def test_how_much_do_i_save_is_the_difference_to_the_node_priced_before(
    assistant: Assistant,
) -> None:
    first = assistant.ask("what's the monthly price of 2x h100 pcie?")
    a = assistant.ask("and how much would we save with 2x l40s instead?", first.session_id)
    assert a.reading is not None and set(a.reading.configurations) == {"2x-h100-pcie", "2x-l40s"}
    quote = last_call(a, "price_quote").result
    assert quote["difference_usd_per_month"] > 0
    assert f"${quote['difference_usd_per_month']:,}" in _ok(a, "en")


def test_the_same_yes_no_again_at_a_lower_precision_keeps_the_budget_question(
    assistant: Assistant,
) -> None:
    first = assistant.ask("is 900 dollars a month enough for llama 3.3 70b?")
    a = assistant.ask("and if we take fp8, is it enough then?", first.session_id)
    pick = last_call(a, "cheapest_fit")
    assert a.reading is not None and a.reading.configurations == []
    assert pick is not None and pick.arguments.get("configurations")
    top = pick.result["cheapest"]
    verdict = bool(top) and float(top[0]["usd_per_month"]) <= 900
    assert _ok(a, "en").startswith("**Yes" if verdict else "**No")


def test_the_most_memory_for_a_budget_comes_from_the_constraint_tool(
    assistant: Assistant,
) -> None:
    a = assistant.ask("was ist das meiste vram, das ich für 2.000 € im monat bekomme?")
    within = last_call(a, "nodes_within")
    assert within is not None
    top = within.result["most_memory"][0]
    assert float(top["usd_per_month"]) <= 2000
    assert top["configuration"] in {p.configuration for p in a.prices}
    b = assistant.ask("passt mistral small 24b da drauf?", a.session_id)
    assert b.reading is not None and b.reading.configurations == [top["configuration"]]


def test_can_it_run_without_nvlink_is_a_fit_within_that_exclusion(assistant: Assistant) -> None:
    a = assistant.ask("can you run llama 3.1 405b on your servers without nvlink?")
    assert a.reading is not None and a.reading.claim == "fits"
    assert a.reading.exclude_link == "nvlink"
    fits = next(c.result for c in a.tool_calls if c.name == "fit_check")["rows"]
    pcie = [r for r in fits if r["verdict"] != "does_not_fit"]
    assert _ok(a, "en").startswith("**Yes" if pcie else "**No")


def test_is_pcie_enough_without_nvlink_stays_the_rule(nlu: Any) -> None:
    assert nlu.understand("reicht pcie, oder geht es ohne nvlink nicht?").claim == "pcie_enough"


# ---- blind-96 … blind-99: today's setup, then a change


def test_the_context_after_a_setup_is_the_one_asked(nlu: Any) -> None:
    u = nlu.understand(
        "our mistral 7b runs on one l40s with 4k context. we'd like to go to 16k, still ok?"
    )
    assert u.context_tokens == 16384


def test_the_precision_and_card_after_a_setup_are_the_ones_asked(nlu: Any) -> None:
    u = nlu.understand(
        "wir betreiben llama 3.3 70b in bf16 auf 4x l40s. wenn wir auf awq umstellen, reicht "
        "dann eine einzige l40s?"
    )
    assert u.precision == "awq" and u.configurations == ["1x-l40s"]


def test_the_load_after_a_setup_is_the_one_asked(nlu: Any) -> None:
    u = nlu.understand(
        "we run qwen3 8b on a single l4 for 3 people at once. next month it will be 12 at the "
        "same time, does the l4 still do?"
    )
    assert u.concurrency == 12 and "traffic" in u.workloads


def test_what_a_move_leaves_behind_is_not_asked_about(nlu: Any) -> None:
    u = nlu.understand("we're moving our bot from llama 3.1 8b to qwen3 14b, fits on our l40s?")
    assert u.model == "qwen3-14b"
    v = nlu.understand("kunde zieht von 2x l40s auf unseren 4x a100 sxm4 um, passt llama 70b?")
    assert v.configurations == ["4x-a100-sxm4"]
    w = nlu.understand("a quote from our cto to the board: we need llama 70b on 2x h100 pcie")
    assert w.model == "llama-3.3-70b" or w.model is not None


def test_lora_with_qlora_refused_is_lora(nlu: Any) -> None:
    assert nlu.understand("LoRA (not QLoRA) for qwen3 8b on one l4?").adapter == "lora"


def test_a_training_refused_is_no_training(nlu: Any) -> None:
    u = nlu.understand("we don't do any training, just serve llama 3.1 8b. cheapest box?")
    assert not {"training", "fine_tuning"} & set(u.workloads)


def test_only_80_gb_cards_is_a_memory_per_card(nlu: Any) -> None:
    u = nlu.understand("cheapest for qwen 72b, only 80 GB cards please")
    assert u.constraints.min_memory_per_card_gb == 80


def test_much_faster_asked_before_a_price_is_the_claim(assistant: Assistant) -> None:
    a = assistant.ask(
        "Kunde hat Llama 3.1 8B auf einer L4 und findet's zu langsam. Er überlegt, auf eine "
        "RTX 4090 zu wechseln: ist die deutlich schneller, und was kostet die?"
    )
    assert a.reading is not None and a.reading.claim == "faster" and a.reading.claim_by_much
    assert set(a.reading.configurations) == {"1x-rtx-4090", "1x-l4"}
    speeds = {
        c.arguments["configuration"]: c.result["tokens_per_s"]
        for c in a.tool_calls
        if c.name == "throughput_estimate"
    }
    much = speeds["1x-rtx-4090"] >= 1.25 * speeds["1x-l4"]
    assert _ok(a, "de").startswith("**Ja" if much else "**Nein")


def test_not_one_sequence_at_the_context_says_so(assistant: Assistant) -> None:
    a = assistant.ask("how many 64k sequences of llama 3.1 8b fit on one l4?")
    cap = last_call(a, "capacity_check").result
    assert cap["max_concurrency"] == 0
    assert "does not fit" in _ok(a, "en").split("\n")[0]


def test_reichts_is_a_yes_no(nlu: Any) -> None:
    assert nlu.understand("und mit fp8, reichts dann für qwen 32b auf der l40s?").yes_no


def test_a_measured_speed_they_get_is_read(nlu: Any) -> None:
    u = nlu.understand("they get about 14.5 tokens/s with qwen3 14b on one l40s, normal?")
    assert u.measured.tokens_per_s == 14.5


def test_the_cheaper_of_two_nodes_priced_turn_by_turn(assistant: Assistant) -> None:
    first = assistant.ask("what does 4x h100 sxm5 cost a month?")
    second = assistant.ask("and the pcie one?", first.session_id)
    a = assistant.ask("how much do i save going with the cheaper one?", second.session_id)
    assert a.reading is not None
    assert set(a.reading.configurations) == {"4x-h100-sxm5", "4x-h100-pcie"}
    diff = last_call(a, "price_quote").result["difference_usd_per_month"]
    assert f"${diff:,}" in _ok(a, "en")


# ---- blind-100 … blind-103


def test_a_condition_after_a_yes_no_asks_it_again(assistant: Assistant) -> None:
    first = assistant.ask("reichen 600 € im monat für mistral small 24b?")
    a = assistant.ask("und wenn wir awq nehmen?", first.session_id)
    assert a.reading is not None and a.reading.yes_no and a.reading.claim == "fits"
    b = assistant.ask("und wenn wir awq nehmen, wie viel vram braucht es dann?", first.session_id)
    assert b.reading is not None and not b.reading.yes_no


def test_ausdruecklich_asks_no_price(nlu: Any) -> None:
    assert "price" not in nlu.understand("ausdrücklich kein qlora, nur lora bitte").intents


def test_fits_on_both_is_a_yes_no(assistant: Assistant) -> None:
    a = assistant.ask("qwen3 14b on an l40s or an a6000 - does it fit on both?")
    rows = [
        r
        for r in last_call(a, "fit_check").result["rows"]
        if r["configuration"] in ("1x-l40s", "1x-rtx-a6000")
    ]
    both = len(rows) == 2 and all(r["verdict"] != "does_not_fit" for r in rows)
    assert _ok(a, "en").startswith("**Yes" if both else "**No")


def test_the_model_a_setup_steps_up_to_is_asked(nlu: Any) -> None:
    u = nlu.understand("we run sdxl on an l4 today. want to move up to flux dev, fits the l4?")
    assert u.model == "flux.1-dev"


def test_a_setup_on_gguf_then_bf16_drops_the_runtime(nlu: Any) -> None:
    u = nlu.understand(
        "wir nutzen gerade mistral 7b als gguf q4 mit ollama auf dem laptop und wollen auf eine "
        "gemietete karte, dann in bf16. passt das auf eine l4?"
    )
    assert u.precision == "bf16" and u.runtime is None


def test_two_nodes_for_a_fine_tune_are_judged_for_the_training(assistant: Assistant) -> None:
    a = assistant.ask("for a full fine-tune of qwen2.5 7b: 4x l40s or 4x a100 sxm4, which one?")
    tf = last_call(a, "training_fit")
    assert set(tf.arguments["configurations"]) == {"4x-l40s", "4x-a100-sxm4"}
    advice = last_call(a, "purchase_advice").result
    holding = [r for r in tf.result["rows"] if r["fits_node"]]
    linked = [r["configuration"] for r in holding if r["link_kind"] == "nvlink"]
    assert advice["needs_nvlink"] and linked  # a split training job: the SXM node holds it
    assert linked == ["4x-a100-sxm4"] and "4x-a100-sxm4" in {p.configuration for p in a.prices}
    assert "A100 SXM4" in _ok(a, "en").split("\n")[0]


# ---- blind-104 … blind-106


def test_reichen_uns_reads_the_budget(nlu: Any) -> None:
    u = nlu.understand("reichen uns 900 € im monat für mistral small 24b?")
    assert u.constraints.budget_usd_month == 900


def test_what_i_run_locally_then_rent_is_a_setup_then_a_change(nlu: Any) -> None:
    u = nlu.understand(
        "i run gemma 3 12b as a q4 gguf on my laptop. if i rent an l4, can i run it in bf16?"
    )
    assert u.precision == "bf16" and u.runtime is None and u.configurations == ["1x-l4"]


def test_a_complaint_beside_a_paste_asks_whether_it_is_broken(nlu: Any) -> None:
    from tests.pastes import allreduce_perf_8x_h100

    u = nlu.understand(
        "kd sagt, das training läuft viel langsamer als vorher. all_reduce_perf:\n"
        + allreduce_perf_8x_h100(peak_busbw=40.0)
    )
    assert u.yes_no and u.claim == "defect"


def test_renting_asks_no_price_and_geht_das_asks_the_fit(nlu: Any) -> None:
    u = nlu.understand("wir würden euren 2x l40s mieten für qwen3 32b. geht das?")
    assert "price" not in u.intents
    assert [a.kind for a in u.asks] == ["fit"]


def test_a_lora_across_a_named_nodes_cards(assistant: Assistant) -> None:
    a = assistant.ask("lora fine-tune of llama 3.3 70b on your 4x a100 pcie, does that work?")
    need = last_call(a, "memory_need").result["total_gb"]
    assert need > 72 and need < 4 * 72  # more than one card, less than the node
    assert _ok(a, "en").startswith("**Yes")


def test_mining_a_coin_and_selling_cards_are_out_of_scope(nlu: Any) -> None:
    assert nlu.understand("how much btc could i mine per day on 4x l40s?").outside == ["mining"]
    u = nlu.understand("would you sell us two of the l40s cards outright instead of renting?")
    assert "hardware_trade" in u.outside


def test_gradient_sync_of_a_fine_tune_is_the_allreduce(nlu: Any) -> None:
    u = nlu.understand(
        "full fine-tune of llama 3.1 8b on 4x l40s or 4x h100 sxm5: how long is the gradient "
        "sync per step on each?"
    )
    assert "allreduce" in u.intents


def test_can_i_rent_a_model_asks_the_catalog(nlu: Any) -> None:
    assert "catalog_ask" in nlu.understand("kann ich deepseek v3 bei euch mieten?").topics


# ---- blind-107 … blind-108


def test_a_new_model_after_a_setup_leaves_todays_card(nlu: Any) -> None:
    u = nlu.understand(
        "today we run llama 3.1 8b on one l4, getting too slow. we'd like to move to qwen3 32b "
        "for 30 people. what's the cheapest server for that?"
    )
    assert u.model == "qwen3-32b" and u.configurations == [] and u.claim is None
    v = nlu.understand("we run qwen3 8b on a 4090 today. would qwen3 14b fit on an l40s?")
    assert v.model == "qwen3-14b" and v.configurations == ["1x-l40s"]


def test_a_setup_switching_node_asking_the_difference_keeps_both(nlu: Any) -> None:
    u = nlu.understand(
        "we're currently on your 4x h100 pcie. thinking about the 4x h100 sxm5 instead. how "
        "much more per month is that?"
    )
    assert set(u.configurations) == {"4x-h100-pcie", "4x-h100-sxm5"}


def test_a_later_training_plan_is_no_training_now(nlu: Any) -> None:
    u = nlu.understand(
        "kunde will nvlink (trainiert vielleicht später). qwen 72b, was ist das günstigste?"
    )
    assert not {"training", "fine_tuning"} & set(u.workloads)


def test_a_load_after_the_cheapest_asks_the_cheapest_again(assistant: Assistant) -> None:
    first = assistant.ask("cheapest server for mistral small 24b?")
    a = assistant.ask("and with 32k context and 6 at once?", first.session_id)
    pick = last_call(a, "cheapest_fit")
    assert pick.arguments["context_tokens"] == 32768 and pick.arguments["concurrency"] == 6


def test_an_adapter_on_a_named_card_is_judged_by_training_fit(assistant: Assistant) -> None:
    a = assistant.ask("can we qlora qwen2.5 72b on one l40s?")
    row = next(
        r for r in last_call(a, "training_fit").result["rows"] if r["configuration"] == "1x-l40s"
    )
    assert _ok(a, "en").startswith("**Yes" if row["fits_one_card"] else "**No")


# ---- blind-110/111


def test_me_and_two_colleagues_testing_is_three_users_at_low_load(nlu: Any) -> None:
    u = nlu.understand("need nvlink for qwen 72b? just me and 3 colleagues testing, not production")
    assert u.users == 4 and "traffic" not in u.workloads and "low_concurrency" in u.workloads


def test_one_person_at_a_time_after_a_load_is_low_concurrency(assistant: Assistant) -> None:
    first = assistant.ask("qwen 72b in fp8 for 30 people at once, do we need nvlink?")
    a = assistant.ask("and if only one person at a time uses it, is pcie enough?", first.session_id)
    assert a.reading is not None and a.reading.concurrent_sequences == 1
    assert "traffic" not in a.reading.workloads


def test_an_exclusion_after_the_cheapest_keeps_the_budget(assistant: Assistant) -> None:
    first = assistant.ask("mistral small 24b, max 900 € im monat, was ist das günstigste?")
    a = assistant.ask("keine l4 bitte. geht dann noch was im budget?", first.session_id)
    assert a.reading is not None and a.reading.budget_usd_per_month == 900
    assert "l4" in a.reading.exclude_cards


def test_a_refused_card_then_next_option_is_the_cheapest_again(assistant: Assistant) -> None:
    first = assistant.ask("cheapest node for qwen3 14b in bf16?")
    a = assistant.ask("they say no L40S (had a bad experience). next option?", first.session_id)
    assert a.reading is not None and a.reading.intents[:1] == ["cheapest"]
    assert a.reading.claim is None and "l40s" in a.reading.exclude_cards
    assert last_call(a, "cheapest_fit") is not None


def test_only_one_at_a_time_without_a_noun_is_one_at_once(nlu: Any) -> None:
    u = nlu.understand("und wenn immer nur einer gleichzeitig damit arbeitet, reicht dann pcie?")
    assert u.concurrency == 1


def test_an_exclusion_asked_yes_no_within_the_budget_stays_a_yes_no(assistant: Assistant) -> None:
    first = assistant.ask("qwen3 14b, budget max 800 € im monat. was ist das günstigste?")
    a = assistant.ask("bitte keine l4, ist dann noch was im budget drin?", first.session_id)
    assert a.reading is not None and a.reading.yes_no
    assert a.reading.budget_usd_per_month == 800
