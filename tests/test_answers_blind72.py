"""Answers for the families blind-72 … blind-75 found, in other words than theirs: a paste with
the customer's "it all runs over NVLink, right?" or a reported "asks if this is normal" answers
that claim; a price asked beside a paste is quoted; "or do we really need NVLink?" is the link's
yes/no; "what about <other node> then, and what would that cost?" after a fit asks the fit
there too; a rhetorical "reicht nicht eine Karte?" is answered as the plain fit, and a one-card
pick that no one-card node gives says so with the need and the cheapest split; shipping and
attached storage are out of scope; "eli5 …? why does everyone say …" asks for an explanation."""

from __future__ import annotations

from typing import Any

import pytest

from assistant.reading.model import Ask, Reading
from assistant.service import Assistant
from tests.answers import last_call
from tests.answers import ok as _ok

_TOPO_SYS = """
        GPU0    GPU1    GPU2    GPU3    CPU Affinity    NUMA Affinity
GPU0     X      NV6     NV6     NV6     0-47            0
GPU1    NV6      X      NV6     NV6     0-47            0
GPU2    NV6     NV6      X      SYS     48-95           1
GPU3    NV6     NV6     SYS      X      48-95           1
"""


def _called(a: Any) -> list[str]:
    return [c.name for c in a.tool_calls]


def test_a_paste_answers_the_customers_all_over_nvlink_claim(assistant: Assistant) -> None:
    q = (
        'kunde mit 4x H100 SXM5 meint "es geht doch alles über nvlink, oder?" und schickt '
        "das hier. hat er recht?\n" + _TOPO_SYS
    )
    a = assistant.ask(q)
    text = _ok(a, "de")
    assert a.reading.claim == "healthy"
    assert last_call(a, "check_topology_output").result["status"] == "defect"
    assert text.startswith("**Nein")


def test_a_reported_yes_no_beside_a_paste_is_the_claim(assistant: Assistant) -> None:
    q = (
        "customer wants to know if this looks normal for their 4x h100 sxm5 box. "
        "what should i reply?\n" + _TOPO_SYS
    )
    a = assistant.ask(q)
    _ok(a, "en")
    assert a.reading.claim == "healthy"
    assert a.answer.startswith("**No")


def test_a_price_asked_beside_a_paste_is_quoted(assistant: Assistant) -> None:
    q = (
        "kunde hat 4x h100 sxm5, passt das so? und was bezahlt er eigentlich pro monat "
        "dafür?\n" + _TOPO_SYS
    )
    a = assistant.ask(q)
    text = _ok(a, "de")
    quote = last_call(a, "price_quote").result["quotes"][0]
    assert quote["configuration"] == "4x-h100-sxm5"
    assert "check_topology_output" in _called(a)
    assert f"{quote['usd_per_month']:,}" in text.replace(".", ",")


def test_or_do_we_really_need_nvlink_is_the_links_yes_no(assistant: Assistant) -> None:
    a = assistant.ask(
        "is pcie fine for qwen2.5 72b on 4x l40s or do we actually need nvlink? and the price?"
    )
    text = _ok(a, "en")
    assert a.reading.yes_no and a.reading.claim == "pcie_enough"
    advice = last_call(a, "purchase_advice").result
    assert text.startswith("**Yes" if not advice["needs_nvlink"] else "**No")
    assert "price_quote" in _called(a)


def test_what_about_another_node_then_asks_the_fit_there_too(assistant: Assistant) -> None:
    first = assistant.ask("does qwen2.5 32b fit on 1x l4?")
    a = assistant.ask("ok what about 1x l40s then, and what would that cost", first.session_id)
    _ok(a, "en")
    assert [x.kind for x in a.reading.asks] == ["fit", "price"]
    fit = last_call(a, "fit_check").result
    assert "1x-l40s" in {r["configuration"] for r in fit["rows"]}
    assert "price_quote" in _called(a)


def test_a_rhetorical_negative_is_answered_as_the_plain_fit(assistant: Assistant) -> None:
    a = assistant.ask("läuft llama 3.1 8b nicht einfach auf einer L4?")
    assert not a.reading.claim_negated
    rows = last_call(a, "fit_check").result["rows"]
    fits = any(r["verdict"] == "fits_one_card" for r in rows if r["configuration"] == "1x-l4")
    assert _ok(a, "de").startswith("**Ja" if fits else "**Nein")


@pytest.mark.parametrize(
    ("question", "lead"),
    [
        # (", right?" is agreed with "Yes, right" since blind-160's writers asked for a yes)
        ("so llama 3.3 70b does not fit on one rtx 4090, right?", "**Yes, right"),
        # (a negative asked verb first is agreed the same way since blind-163's writer asked
        # for a yes)
        ("is one rtx 4090 not enough for llama 3.3 70b?", "**Yes, right"),
    ],
)
def test_a_negative_that_is_asked_is_still_the_negation(
    assistant: Assistant, question: str, lead: str
) -> None:
    a = assistant.ask(question)
    assert a.reading.claim_negated
    assert _ok(a, "en").startswith(lead)


def test_a_reader_marking_a_rhetorical_negative_negated_gets_the_plain_answer(
    assistant: Assistant,
) -> None:
    """An LLM or gold reading may mark "passt das nicht locker auf eine L40S?" negated; the
    words put no negative up for confirmation, so the answer is the plain fit's no."""
    reading = Reading(
        language="de",
        text="passt mixtral 8x7b dann nicht locker auf eine einzelne l40s?",
        task="serve",
        model="mixtral-8x7b",
        configurations=["1x-l40s"],
        cards=["l40s"],
        count=1,
        asks=[Ask(kind="fit")],
        claim="fits",
        claim_negated=True,
        yes_no=True,
    )
    a = assistant.answer_reading(reading, store=False)
    assert _ok(a, "de").startswith("**Nein")


def test_one_card_asked_that_no_one_card_node_gives(assistant: Assistant) -> None:
    a = assistant.ask(
        "wir sind 20 leute, 3 gleichzeitig, qwen3 32b, budget 1200 euro im monat. "
        "reicht da nicht eine karte?"
    )
    text = _ok(a, "de")
    need = last_call(a, "memory_need").result["required_gb_per_card"]
    split = [
        c.result for c in a.tool_calls if c.name == "cheapest_fit" and c.result.get("cheapest")
    ]
    assert text.startswith("**Nein")
    assert f"{need:.1f}".replace(".", ",") in text
    assert split and split[-1]["cheapest"][0]["count"] > 1
    assert split[-1]["cheapest"][0]["configuration"] in {p.configuration for p in a.prices}


def test_shipping_and_storage_are_out_of_scope(assistant: Assistant) -> None:
    a = assistant.ask("könnt ihr den server an unser büro in köln liefern, mit 10 tb nvme dazu?")
    assert a.reading.outside == ["logistics"]
    assert not a.prices


def test_eli5_with_a_why_asks_for_an_explanation(assistant: Assistant) -> None:
    a = assistant.ask("eli5 pipeline parallel? why do people say it doesnt need nvlink")
    assert a.reading.explain
    assert "purchase_advice" not in _called(a)


def test_if_it_has_to_be_nvlink_after_a_pick_is_the_cheapest_nvlink_node(
    assistant: Assistant,
) -> None:
    first = assistant.ask("cheapest way to serve qwen2.5 72b in fp8?")
    a = assistant.ask("ok and what if it has to be nvlink?", first.session_id)
    _ok(a, "en")
    assert a.reading.require_link == "nvlink" and not a.reading.yes_no
    pick = last_call(a, "cheapest_fit")
    assert pick.arguments.get("interconnect") == "nvlink"
    top = pick.result["cheapest"][0]["configuration"]
    assert top in {p.configuration for p in a.prices}


def test_the_cheapest_server_to_serve_a_fine_tune_afterwards(assistant: Assistant) -> None:
    a = assistant.ask(
        "wir wollen llama 3.1 8b mit qlora auf einer l4 feintunen. danach soll es mit 20 "
        "anfragen gleichzeitig laufen, was wäre dafür der günstigste server?"
    )
    _ok(a, "de")
    serve = [c for c in a.tool_calls if c.name == "cheapest_fit"]
    assert serve and serve[-1].arguments.get("concurrency") == 20
    top = serve[-1].result["cheapest"][0]["configuration"]
    assert top in {p.configuration for p in a.prices}
    assert "training_fit" in _called(a) or "memory_need" in _called(a)


def test_a_reading_that_states_the_fine_tune_task_sizes_the_training(
    assistant: Assistant,
) -> None:
    """A reader may say task fine_tune and no workload: the answer is the fine-tune's memory,
    not the serving fit."""
    reading = Reading(
        language="en",
        text="how much gpu memory to fully fine-tune llama 3.1 8b?",
        task="fine_tune",
        model="llama-3.1-8b",
        asks=[Ask(kind="memory")],
    )
    a = assistant.answer_reading(reading, store=False)
    mem = last_call(a, "memory_need")
    assert mem.arguments.get("training") is True
    assert f"{mem.result['total_gb']:.1f}" in a.answer


def test_a_paste_yes_no_without_a_claim_asks_whether_it_is_healthy(
    assistant: Assistant,
) -> None:
    reading = Reading(
        language="de",
        text="kunde fragt was damit ist\n" + _TOPO_SYS,
        task="diagnose",
        configurations=["4x-h100-sxm5"],
        intents=["topology_paste"],
        yes_no=True,
        topo_text=_TOPO_SYS,
    )
    a = assistant.answer_reading(reading, store=False)
    assert last_call(a, "check_topology_output").result["status"] == "defect"
    assert a.answer.startswith("**Nein")


def test_todays_single_card_is_no_one_card_constraint_on_the_pick(
    assistant: Assistant,
) -> None:
    a = assistant.ask(
        "we run qwen2.5 72b awq on a single a100 today and it is maxed out, 10 at once. "
        "cheapest option without nvlink?"
    )
    _ok(a, "en")
    pick = last_call(a, "cheapest_fit")
    assert not pick.arguments.get("one_card")
    assert pick.result["cheapest"][0]["configuration"] in {p.configuration for p in a.prices}


def test_todays_inference_only_is_not_the_plan(assistant: Assistant) -> None:
    a = assistant.ask(
        "bisher läuft bei uns nur inferenz auf einer 4090. jetzt wollen wir llama 3.1 8b "
        "voll finetunen, wieviel speicher braucht das training?"
    )
    assert a.reading.task == "fine_tune"
    assert last_call(a, "memory_need").arguments.get("training") is True


def test_lora_instead_of_qlora_is_lora(assistant: Assistant) -> None:
    first = assistant.ask("wieviel vram brauch ich um qwen2.5 14b mit qlora zu finetunen?")
    a = assistant.ask("und mit lora statt qlora?", first.session_id)
    assert a.reading.adapter == "lora"
    assert last_call(a, "memory_need").arguments.get("adapter") == "lora"


def test_the_other_variants_price_without_a_model(assistant: Assistant) -> None:
    a = assistant.ask(
        "customer has 4x a100 pcie with us and thinks about the sxm4 variant. what does that "
        "cost per month and how much more is it?"
    )
    quotes = last_call(a, "price_quote").result
    assert {"4x-a100-pcie", "4x-a100-sxm4"} <= {q["configuration"] for q in quotes["quotes"]}
    diff = abs(quotes["difference_usd_per_month"])
    assert f"${diff:,.0f}" in a.answer


@pytest.mark.parametrize(
    "question",
    [
        "can you size a regular server for us? how many cpu cores for a mysql database?",
        "könnt ihr uns ein grafana dashboard json für die gpu temperaturen schreiben?",
    ],
)
def test_other_it_work_is_out_of_scope(assistant: Assistant, question: str) -> None:
    a = assistant.ask(question)
    assert a.reading.outside == ["other_it"]
    assert not a.prices


_TOPO_PCIE = """
        GPU0    GPU1    GPU2    GPU3    CPU Affinity    NUMA Affinity
GPU0     X      NODE    SYS     SYS     0-23            0
GPU1    NODE     X      SYS     SYS     0-23            0
GPU2    SYS     SYS      X      NODE    24-47           1
GPU3    SYS     SYS     NODE     X      24-47           1
"""


def test_bad_node_is_the_defect_claim(assistant: Assistant) -> None:
    a = assistant.ask("cust on 4x h100 sxm5, is this a bad node??\n" + _TOPO_SYS)
    assert a.reading.claim == "defect"
    assert _ok(a, "en").startswith("**Yes")


def test_connected_over_nvlink_asked_of_a_pcie_paste_is_no(assistant: Assistant) -> None:
    a = assistant.ask(
        "kunde auf 4x l40s will wissen, ob die karten über nvlink verbunden sind:\n" + _TOPO_PCIE
    )
    assert a.reading.claim == "link_is"
    assert _ok(a, "de").startswith("**Nein")


def test_asking_the_team_is_no_yes_no() -> None:
    from assistant.nlu.asks import is_yes_no

    assert not is_yes_no(
        "kunde hat den 4x a100 pcie knoten und will wissen, was die sxm4-variante im monat "
        "kostet. weiß das jemand?"
    )
    assert is_yes_no("passt llama 3.3 70b auf 2x l40s? weiß das jemand?")


def test_a_message_that_corrects_its_model_sizes_the_corrected_one(
    assistant: Assistant,
) -> None:
    a = assistant.ask("does qwen2.5 7b fit on one l40s?? oops sorry, i meant 72B not 7B. same card")
    assert a.reading.model == "qwen2.5-72b"
    assert last_call(a, "fit_check").arguments["model"] == "qwen2.5-72b"


def test_the_fit_asked_first_leads_a_message_of_several_questions(
    assistant: Assistant,
) -> None:
    a = assistant.ask(
        "we want qwen2.5 32b in fp8. does it fit on 1x L40S? what does that box cost, do we "
        "need nvlink, and how fast would it be?"
    )
    text = _ok(a, "en")
    assert a.reading.claim == "fits"
    rows = last_call(a, "fit_check").result["rows"]
    fits = any(r["verdict"] != "does_not_fit" for r in rows if r["configuration"] == "1x-l40s")
    assert text.startswith("**Yes" if fits else "**No")
    assert {"price_quote", "throughput_estimate"} <= set(_called(a))


def test_a_load_said_after_a_price_asks_the_fit_again(assistant: Assistant) -> None:
    first = assistant.ask("does llama 3.1 8b fit on one L4?")
    second = assistant.ask("and what would that cost?", first.session_id)
    a = assistant.ask("ok and if 6 people use it at the same time?", second.session_id)
    fit = last_call(a, "fit_check")
    assert fit.arguments.get("concurrency") == 6
    assert [x.kind for x in a.reading.asks] == ["fit"]


def test_the_longest_context_and_how_many_at_once_both_answered(assistant: Assistant) -> None:
    a = assistant.ask(
        "llama 3.1 8b on 1x L4: longest context for a single chat? and how many 8k chats at "
        "once would it hold?"
    )
    cap = last_call(a, "capacity_check").result
    assert f"{cap['max_context_capped']:,}" in a.answer
    assert f"{cap['max_concurrency']} sequences at once" in a.answer


def test_a_head_count_said_of_a_company_is_users_and_ok_or_not_is_the_fit(
    nlu: Any,
) -> None:
    u = nlu.understand(
        "we're a 40-person studio, 8 of us at the same time. qwen2.5 32b in fp8 on one "
        "l40s — ok or not?"
    )
    assert (u.users, u.concurrency, u.claim) == (40, 8, "fits")


def test_a_disclaimer_glued_to_a_quoted_mail_keeps_its_question(nlu: Any) -> None:
    q = (
        "kd fragt per mail:\n\n> Hallo,\n> passt Qwen2.5 72B in FP8 auf eine einzelne H100 PCIe?\n"
        "> Gruß\n> Max Muster | CTO\n> Diese E-Mail kann vertrauliche Informationen enthalten. "
        "Wenn Sie nicht der richtige Adressat sind, löschen Sie sie bitte.\n\nwas sag ich ihm?"
    )
    u = nlu.understand(q)
    assert u.model == "qwen2.5-72b" and "1x-h100-pcie" in u.configurations


def test_domains_and_mailboxes_are_web_hosting(assistant: Assistant) -> None:
    a = assistant.ask("bietet ihr auch domainregistrierung und exchange-postfächer für 8 leute an?")
    assert a.reading.outside == ["web_hosting"]
    assert not a.tool_calls


def test_the_other_adapter_asked_for_comparison(assistant: Assistant) -> None:
    a = assistant.ask(
        "ich will qwen2.5 7b mit qlora finetunen auf einer l4. wie viel vram brauch ich – und "
        "zum vergleich normales lora?"
    )
    adapters = {c.arguments.get("adapter") for c in a.tool_calls if c.name == "memory_need"}
    assert {"qlora", "lora"} <= adapters


@pytest.mark.parametrize(
    ("question", "configurations"),
    [
        (
            "was kostet 2x A100 PCIe und was 4x A100 PCIe pro Monat?",
            ["2x-a100-pcie", "4x-a100-pcie"],
        ),
        (
            "does llama 3.3 70b fit on 2x h100 pcie or 4x h100 pcie?",
            ["2x-h100-pcie", "4x-h100-pcie"],
        ),
    ],
)
def test_one_card_named_twice_with_two_counts_is_two_nodes(
    nlu: Any, question: str, configurations: list[str]
) -> None:
    assert nlu.understand(question).configurations == configurations


def test_a_node_named_after_a_required_link_is_asked_about(assistant: Assistant) -> None:
    first = assistant.ask("qwen2.5 72b with 10 people at once, it has to be nvlink. cheapest?")
    a = assistant.ask("what would 4x l40s cost instead, would that even work?", first.session_id)
    assert a.reading.require_link is None
    rows = [c.result for c in a.tool_calls if c.name == "fit_check"][-1]["rows"]
    assert "4x-l40s" in {r["configuration"] for r in rows}
    assert "4x-l40s" in {p.configuration for p in a.prices}


def test_a_bare_fit_follow_up_continues_the_session(assistant: Assistant) -> None:
    first = assistant.ask("passt qwen2.5 72b in fp8 auf eine einzelne h100 pcie?")
    a = assistant.ask("ok schade. passt es dann auf zwei davon?", first.session_id)
    assert a.reading.intents == ["fit"] and a.reading.task == "serve"
    assert "2x-h100-pcie" in a.reading.configurations


def test_is_my_budget_enough_is_the_cheapest_within_it(assistant: Assistant) -> None:
    a = assistant.ask("hab so 900 dollar im monat, reicht das für qwen2.5 32b?")
    assert a.reading.budget_usd_per_month == 900
    pick = last_call(a, "cheapest_fit").result["cheapest"]
    assert _ok(a, "de").startswith("**Ja" if pick else "**Nein")


def test_how_many_ppl_at_once_asks_the_capacity(nlu: Any) -> None:
    assert (
        "capacity" in nlu.understand("how many ppl can use it at the same time, each 8k?").intents
    )


def test_two_counts_of_one_card_in_one_phrase(nlu: Any) -> None:
    u = nlu.understand("wir überlegen zwischen 2 und 4 L40S, was kosten die pro monat?")
    assert set(u.configurations) == {"2x-l40s", "4x-l40s"}


def test_got_about_dollars_to_spend_is_a_budget(assistant: Assistant) -> None:
    a = assistant.ask("got about $400 a month to spend, is that enough to run llama 3.1 8b?")
    assert a.reading.budget_usd_per_month == 400
    assert "cheapest_fit" in _called(a)


def test_a_node_taken_instead_after_a_pick_is_answered_with_the_link(
    assistant: Assistant,
) -> None:
    first = assistant.ask("we need nvlink, no pcie boxes. cheapest node for llama 3.3 70b?")
    a = assistant.ask(
        "ok and if we took the 4x a100 pcie instead? what does that one cost and would it even "
        "work without nvlink",
        first.session_id,
    )
    assert a.reading.claim == "pcie_enough"
    assert "4x-a100-pcie" in {p.configuration for p in a.prices}
    assert "purchase_advice" in _called(a)


def test_the_server_named_above_the_budget_is_timed_after(assistant: Assistant) -> None:
    first = assistant.ask(
        "wir wollen qwen2.5 32b für 40 mitarbeiter, davon 8 gleichzeitig. geht das unter 1500 € "
        "im monat?"
    )
    a = assistant.ask("ok und wie schnell wäre das dann auf dem server?", first.session_id)
    over = [c for c in first.tool_calls if c.name == "cheapest_fit"][-1].result["cheapest"][0]
    assert a.reading.budget_usd_per_month is None
    assert last_call(a, "throughput_estimate").arguments["configuration"] == over["configuration"]


def test_how_many_seqs_asks_the_capacity(nlu: Any) -> None:
    assert "capacity" in nlu.understand("llama 3.1 8b on 1x l40s with 32k, how many seqs?").intents


def test_is_a_load_still_ok_after_a_capacity_answer_is_a_yes_no(assistant: Assistant) -> None:
    first = assistant.ask("longest context for gemma 3 27b on a single a100 pcie?")
    a = assistant.ask("and if 3 people use it at once, is 16k each still ok?", first.session_id)
    rows = [c.result for c in a.tool_calls if c.name == "fit_check"][-1]["rows"]
    holds = any(
        r["verdict"] != "does_not_fit" for r in rows if r["configuration"] == "1x-a100-pcie"
    )
    assert _ok(a, "en").startswith("**Yes" if holds else "**No")


def test_the_smallest_machine_that_holds_it_is_the_cheapest_pick(nlu: Any) -> None:
    assert nlu.understand("which machines can hold deepseek v3? the smallest one pls").intents[
        :1
    ] == ["cheapest"]


def test_the_cheapest_for_a_moe_argued_from_its_active_params(assistant: Assistant) -> None:
    a = assistant.ask("cheapest server for qwen3 30b a3b? only 3b active so tiny right")
    pick = last_call(a, "cheapest_fit").result["cheapest"][0]["configuration"]
    assert pick in {p.configuration for p in a.prices}
