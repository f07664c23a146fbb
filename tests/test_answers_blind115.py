"""Answers for the families the second morning session of 2026-12-07 found (an old held-out case
and blind-115 … blind-125), in other words than the cases': a count said with a traffic phrase or
beside a service word decides the load; a number after a vague load is that load; a fine-tune on
NVLink nodes that one card holds is rule 1; "can you even run X?" asks the catalog for any
reader; a quick reply or today's slow setup asks no speed; the two nodes a conversation talked
about ("how much do I save", "which of the two", "auf beiden"); a lower-precision speed in a
"much faster?" claim; memory at several precisions; a reported dead link; web shops; an NVLink
yes/no after two prices; a condition before a yes/no; one-card preferences; a topology label of
a named node; a fine-tune judged by its training memory; a card said to hold a model split."""

from __future__ import annotations

from typing import Any

from assistant.service import Assistant
from tests.answers import fit_row, last_call
from tests.answers import ok as _ok


def test_a_few_counted_concurrent_users_are_low_concurrency(nlu: Any) -> None:
    u = nlu.understand("mixtral 8x22b for 6 concurrent users: is pcie ok or nvlink?")
    assert u.concurrency == 6
    assert "traffic" not in u.workloads
    assert "low_concurrency" in u.workloads


def test_many_counted_concurrent_users_stay_real_traffic(nlu: Any) -> None:
    u = nlu.understand("mixtral 8x22b for 40 concurrent users: is pcie ok or nvlink?")
    assert "traffic" in u.workloads


def test_the_phrase_without_a_count_is_still_traffic(nlu: Any) -> None:
    u = nlu.understand("qwen 2.5 72b für gleichzeitige Anfragen, brauchen wir nvlink?")
    assert "traffic" in u.workloads


def test_a_counted_load_takes_the_low_concurrency_rule(assistant: Assistant) -> None:
    a = assistant.ask(
        "Wir betreiben Qwen2.5 72B mit etwa 4 gleichzeitigen Anfragen. Brauchen wir NVLink?"
    )
    text = _ok(a, "de")
    advice = last_call(a, "purchase_advice")
    assert advice is not None
    assert advice.result["rule"]["number"] == 3
    assert advice.arguments.get("traffic") == "low"
    assert text.startswith("**Nein")


def test_a_vague_load_put_in_a_number_after_it_is_that_many(nlu: Any) -> None:
    u = nlu.understand(
        "around 60 staff, but only a couple of requests at the same time, maybe seven. "
        "qwen 2.5 72b: is pcie ok?"
    )
    assert u.concurrency == 7
    assert "traffic" not in u.workloads


def test_the_one_customer_a_staff_member_answers_is_no_traffic(nlu: Any) -> None:
    u = nlu.understand("was schreibe ich dem kunden? mixtral 8x22b, reicht pcie?")
    assert "traffic" not in u.workloads
    assert "traffic" in nlu.understand("mixtral 8x22b für unsere kunden, reicht pcie?").workloads


def test_sxm_machines_only_requires_the_link(nlu: Any) -> None:
    u = nlu.understand("gemma 3 27b lora, sxm/nvlink machines only please, cheapest?")
    assert u.constraints.require_link == "nvlink"


def test_an_adapter_job_one_card_of_the_required_nvlink_node_holds_is_rule_1(
    assistant: Assistant,
) -> None:
    a = assistant.ask(
        "we want a LoRA run on gemma 3 27b, nvlink machines only please. cheapest option? "
        "is the link actually needed?"
    )
    _ok(a, "en")
    need = last_call(a, "memory_need") or last_call(a, "training_fit")
    assert need is not None
    advice = last_call(a, "purchase_advice")
    assert advice is not None
    assert advice.arguments["fits_one_card"] is True
    assert advice.result["rule"]["number"] == 1
    quote = last_call(a, "price_quote")
    assert quote is not None
    assert "4x-a100-sxm4" in {q["configuration"] for q in quote.result["quotes"]}


def test_within_a_budget_no_card_alone_is_said_within_it(assistant: Assistant) -> None:
    a = assistant.ask("LoRA für Qwen2.5 72B, Budget 5000 € im Monat, welcher Server?")
    text = _ok(a, "de")
    assert "Im Rahmen Ihrer Vorgaben" in text
    assert "nur eine B200" not in text


def test_can_you_even_run_is_asked_of_the_catalog_by_any_reader() -> None:
    from assistant.nlu.topics import cue_topics

    assert "catalog_ask" in cue_topics("could you actually host llama 3.1 405b?")
    assert "catalog_ask" not in cue_topics("does llama 3.1 405b fit on one card?")


def test_can_you_even_run_a_model_only_a_node_holds_is_yes(assistant: Assistant) -> None:
    a = assistant.ask("could you actually host llama 3.1 405b?")
    text = _ok(a, "en")
    rows = last_call(a, "fit_check").result["rows"]
    assert any(r["verdict"] == "split" for r in rows)
    assert not any(r["verdict"] == "fits_one_card" for r in rows)
    assert text.startswith("**Yes")


def test_a_quick_reply_or_quick_context_asks_no_speed(nlu: Any) -> None:
    u = nlu.understand(
        "thx for the quick response yesterday! quick question: we run gemma 3 27b today, "
        "would it fit on one l40s?"
    )
    assert "speed" not in u.intents
    assert "speed" in nlu.understand("will gemma 3 27b run fast enough on one l40s?").intents


def _session(assistant: Assistant, *questions: str) -> Any:
    a = assistant.ask(questions[0])
    for q in questions[1:]:
        a = assistant.ask(q, session_id=a.session_id)
    return a


def test_how_much_do_i_save_after_two_prices_is_their_difference(assistant: Assistant) -> None:
    a = _session(
        assistant,
        "what does 4x h100 sxm5 cost a month?",
        "and the pcie version of it?",
        "so how much do i save exactly",
    )
    quote = last_call(a, "price_quote")
    assert quote is not None
    assert {q["configuration"] for q in quote.result["quotes"]} == {"4x-h100-sxm5", "4x-h100-pcie"}
    first, second = (q["usd_per_month"] for q in quote.result["quotes"])
    diff = abs(first - second)
    assert f"${diff:,.0f}" in _ok(a, "en")


def test_which_of_the_two_after_two_nodes_compares_them(assistant: Assistant) -> None:
    a = _session(
        assistant,
        "what do 2x l40s and a single h100 pcie cost per month?",
        "does qwen2.5 32b run on both?",
        "which of the two would you take then?",
    )
    text = _ok(a, "en")
    assert not text.startswith(("**Yes", "**No"))
    fit = last_call(a, "fit_check")
    assert fit is not None
    assert set(fit.arguments["configurations"]) == {"2x-l40s", "1x-h100-pcie"}
    assert last_call(a, "price_quote") is not None


def test_much_faster_against_a_node_that_runs_it_only_at_a_lower_precision(
    assistant: Assistant,
) -> None:
    a = _session(
        assistant,
        "how fast does gemma 3 27b go on a single rtx 5090?",
        "and in fp8?",
        "would one a100 pcie in bf16 be a lot quicker?",
    )
    text = _ok(a, "en")
    speeds = {
        c.arguments["configuration"]: (c.arguments.get("precision"), c.result["tokens_per_s"])
        for c in a.tool_calls
        if c.name == "throughput_estimate"
    }
    a100 = speeds["1x-a100-pcie"][1]
    rtx = speeds["1x-rtx-5090"][1]
    much = a100 >= 1.25 * rtx
    assert text.startswith("**Yes" if much else "**No")


def test_memory_asked_at_three_precisions_is_answered_at_each(assistant: Assistant) -> None:
    a = assistant.ask("how much memory do qwen2.5 72b's weights take in bf16, fp8 and awq?")
    _ok(a, "en")
    asked = [c.arguments.get("precision") for c in a.tool_calls if c.name == "memory_need"]
    assert {"bf16", "fp8", "awq"} <= set(asked)


def test_how_long_to_write_a_batch_asks_the_speed(assistant: Assistant) -> None:
    a = assistant.ask("how long will mistral 7b on a single l40s take to generate 2000 summaries?")
    text = _ok(a, "en")
    tput = last_call(a, "throughput_estimate")
    assert tput is not None
    assert f"{tput.result['tokens_per_s']:.0f} tokens/s" in text


def test_a_reported_dead_link_asked_is_he_right_is_the_defect_claim(nlu: Any) -> None:
    u = nlu.understand("client claims a link is down on their 8x h100 box. is she right?")
    assert u.claim == "defect"
    assert nlu.understand("kunde sagt, ein nvlink ist tot. hat er recht?").claim == "defect"


def test_hosting_a_web_shop_is_outside_sizing(nlu: Any) -> None:
    u = nlu.understand("can you also host regular websites? need something for our shopify store")
    assert "web_hosting" in u.outside


def test_still_ok_on_pcie_is_the_pcie_enough_claim(nlu: Any) -> None:
    assert nlu.understand("now it's 25 at once. still fine over pcie?").claim == "pcie_enough"
    assert nlu.understand("passt das mit pcie noch bei 25 gleichzeitig?").claim == "pcie_enough"


def test_a_moe_claim_that_fits_anyway_states_where_it_fits(assistant: Assistant) -> None:
    a = _session(
        assistant,
        "does qwen3 30b a3b run on one rtx 4090? only 3b are active anyway",
        "and in fp8 on one a100 pcie?",
    )
    text = _ok(a, "en")
    row = fit_row(a, "1x-a100-pcie")
    assert row["verdict"] == "fits_one_card"
    assert text.startswith("**Yes")
    assert "fits on one card" in text.split("\n")[0]


def test_an_nvlink_yes_no_after_two_prices_leads_in_its_polarity(assistant: Assistant) -> None:
    a = assistant.ask(
        "What do 4x A100 PCIe and 4x A100 SXM4 cost a month? We'd serve Llama 3.3 70B with "
        "about 3 requests at once. Is NVLink worth it for that, or is it a waste of money?"
    )
    text = _ok(a, "en")
    advice = last_call(a, "purchase_advice")
    assert advice is not None
    assert advice.result["rule"]["number"] == 3
    assert text.startswith("**No")
    quote = last_call(a, "price_quote")
    assert {"4x-a100-pcie", "4x-a100-sxm4"} <= {q["configuration"] for q in quote.result["quotes"]}


def test_a_vague_load_then_a_number_after_at_once_is_that_many(nlu: Any) -> None:
    u = nlu.understand(
        "~200 staff but only a few use the bot at the same time, like five. "
        "llama 3.3 70b: nvlink needed or overkill?"
    )
    assert u.concurrency == 5
    assert "traffic" not in u.workloads


def test_todays_slow_setup_asks_no_speed_of_the_change(nlu: Any) -> None:
    u = nlu.understand(
        "today we run gemma 3 27b on two old 3090s, it's noisy and slow. would it fit on one l40s?"
    )
    assert "speed" not in u.intents


def test_how_much_more_do_i_pay_after_two_prices_is_their_difference(
    assistant: Assistant,
) -> None:
    a = _session(
        assistant,
        "what's the monthly price of 8x h100 pcie?",
        "and the sxm5 one?",
        "how much more do i pay for that then?",
    )
    quote = last_call(a, "price_quote")
    assert {q["configuration"] for q in quote.result["quotes"]} == {"8x-h100-pcie", "8x-h100-sxm5"}


def test_what_if_then_a_yes_no_is_a_yes_no(nlu: Any) -> None:
    from assistant.nlu.asks import is_yes_no

    assert is_yes_no("and what if we switch to awq, does one a100 do it then?")
    assert is_yes_no("was wäre, wenn wir fp8 nehmen, reicht dann eine l40s?")
    assert not is_yes_no("what if we switch to awq, what would it cost?")


def test_rather_on_one_card_after_a_pick_picks_again_on_one_card(assistant: Assistant) -> None:
    a = _session(
        assistant,
        "qwen3 32b, about $900 a month - what can we get?",
        "how fast is it on that?",
        "hmm we'd rather have everything on a single gpu, budget can go to $1,100",
    )
    pick = last_call(a, "cheapest_fit")
    assert pick is not None
    assert pick.arguments.get("one_card") or pick.arguments.get("constraints", {}).get("one_card")
    assert pick.result["cheapest"][0]["verdict"] == "fits_one_card"


def test_how_much_more_expensive_after_two_fits_prices_both(assistant: Assistant) -> None:
    a = _session(
        assistant,
        "Reicht für DeepSeek V3 ein Knoten mit 8x H200?",
        "er fragt jetzt noch, ob es auch auf 8x b200 geht",
        "und wie viel teurer ist der b200-knoten im monat?",
    )
    quote = last_call(a, "price_quote")
    assert {q["configuration"] for q in quote.result["quotes"]} == {"8x-h200", "8x-b200"}
    first, second = (q["usd_per_month"] for q in quote.result["quotes"])
    assert f"${abs(first - second):,.0f}" in _ok(a, "de")


def test_a_number_then_a_hedge_after_at_once_is_the_load(nlu: Any) -> None:
    u = nlu.understand(
        "~500 staff, only a few on the bot at the same time, eight or so. qwen2.5 72b: need nvlink?"
    )
    assert u.concurrency == 8


def test_a_condition_then_a_yes_no_in_german_is_a_yes_no() -> None:
    from assistant.nlu.asks import is_yes_no

    assert is_yes_no("und falls wir fp8 nehmen, reicht dann eine h100?")
    assert not is_yes_no("und wenn es auf eine karte passen soll, ohne aufteilen?")


def test_or_do_we_need_the_one_with_nvlink_requires_nothing(nlu: Any) -> None:
    u = nlu.understand(
        "full fine-tune of qwen2.5 7b: is the 2x h100 pcie enough, or do we need the box with "
        "nvlink?"
    )
    assert u.constraints.require_link is None
    assert nlu.understand(
        "we need a box with nvlink. cheapest for qwen 7b?"
    ).constraints.require_link


def test_a_full_fine_tune_on_a_named_pcie_node_is_judged_by_its_training_memory(
    assistant: Assistant,
) -> None:
    a = assistant.ask(
        "Full fine-tune of Qwen2.5 7B: is the 2x H100 PCIe enough for that, or do we need the "
        "SXM5 one?"
    )
    _ok(a, "en")
    tf = last_call(a, "training_fit")
    assert tf is not None
    assert "2x-h100-pcie" in {r["configuration"] for r in tf.result["rows"]}
    assert last_call(a, "memory_need").arguments.get("training") is True


def test_a_bare_card_then_a_price_asks_the_yes_no_again_and_the_price(
    assistant: Assistant,
) -> None:
    a = _session(
        assistant,
        "60 users, at most 6 at once, qwen2.5 7b. is one l4 enough?",
        "and an l40s? what would that cost?",
    )
    text = _ok(a, "en")
    row = fit_row(a, "1x-l40s")
    assert text.startswith("**Yes" if row["verdict"] != "does_not_fit" else "**No")
    assert "$" in text


def test_what_a_named_node_should_show_comes_from_its_board(assistant: Assistant) -> None:
    a = _session(
        assistant,
        "what does 4x a100 sxm4 cost per month?",
        "what should GPU1-GPU2 show on that node in nvidia-smi topo -m?",
    )
    text = _ok(a, "en")
    facts = last_call(a, "interconnect_facts")
    node = next(n for n in facts.result["nodes"] if n["configuration"] == "4x-a100-sxm4")
    assert node["topo_label"] and f"`{node['topo_label']}`" in text.split("\n")[0]


def test_how_long_can_the_prompts_get_asks_the_context(nlu: Any) -> None:
    u = nlu.understand("what does 2x l40s cost and how long can the prompts get with qwen 7b?")
    assert "context" in {a.kind for a in u.asks}


def test_does_that_work_on_a_card_asks_the_fit(nlu: Any) -> None:
    u = nlu.understand(
        "quick sanity check before i answer a client: qwen3 14b for their helpdesk, 300 users "
        "total, they measured at most ~12 people at the same time. does that work on one L40S?"
    )
    assert u.intents[:1] == ["fit"]


def test_a_few_said_at_once_beside_a_service_word_is_low_concurrency(nlu: Any) -> None:
    u = nlu.understand(
        "it's a customer support chatbot, but only ~5 at the same time. llama 3.3 70b: "
        "do we need nvlink?"
    )
    assert u.concurrency == 5
    assert "traffic" not in u.workloads and "low_concurrency" in u.workloads


def test_is_this_what_they_should_expect_or_is_something_off_asks_if_healthy(nlu: Any) -> None:
    u = nlu.understand("they ran nccl-tests: is this what we should expect, or is something off?")
    assert u.claim == "healthy"


def test_enough_or_do_we_need_the_sxm_machine_with_nvlink_is_pcie_enough(nlu: Any) -> None:
    u = nlu.understand(
        "full fine-tune of qwen3 4b: is your 2x l40s box enough, or do we need the 4x h100 sxm "
        "machine with nvlink?"
    )
    assert u.claim == "pcie_enough"


def test_lieber_auf_ner_einzigen_karte_is_a_one_card_pick(nlu: Any) -> None:
    u = nlu.understand("hm, lieber auf ner einzigen karte, budget bis 1.200 €")
    assert u.constraints.one_card


def test_a_fit_yes_no_after_a_price_leads_with_the_fit(assistant: Assistant) -> None:
    a = _session(
        assistant,
        "passt qwen2.5 72b auf 4x l40s?",
        "und was kostet die kiste im monat?",
        "und falls wir auf fp8 gehen, reichen dann auch 2 davon?",
    )
    text = _ok(a, "de")
    assert last_call(a, "fit_check").arguments.get("precision") == "fp8"
    row = fit_row(a, "2x-l40s")
    assert text.startswith("**Ja —" if row["verdict"] != "does_not_fit" else "**Nein —")


def test_a_card_said_to_hold_the_model_split_names_its_multi_card_nodes(nlu: Any) -> None:
    u = nlu.understand(
        "sie wollen auf rtx 5090 gehen, da muss qwen2.5 32b ja aufgeteilt werden. nvlink nötig?"
    )
    assert u.count is None and "1x-rtx-5090" not in u.configurations
    assert nlu.understand("passt qwen2.5 32b auf eine rtx 5090?").count == 1
