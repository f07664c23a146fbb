"""The second question of a message gets its own answer from its own tool.

A forwarded e-mail's signature and legal disclaimer are not part of the question, the precisions
it rules out are not the one it wants, and its NVLink question is answered beside the
recommendation (from `purchase_advice`, in the asker's polarity). A price asked beside a speed or
a fit is quoted by `price_quote` (with the difference when two nodes are named). Independent
copies ("eine eigene Kopie pro Karte", "jede Karte rendert für sich") get the independent-jobs
rule. Expected figures come from the tool results behind each answer.
"""

# ruff: noqa: E501  (an all_reduce_perf paste keeps its real row width)
from __future__ import annotations

import pytest

from assistant.answer import Answer
from assistant.nlu.mail import drop_earlier_messages, drop_signatures
from assistant.service import Assistant
from assistant.texts import gb
from tests.answers import last_call

WITH_GUIDE_INDEX = True  # tests/conftest.py builds the shipped guide index for `deps`

MAIL = """Hi team, forwarding a prospect's mail, can someone help me answer it?

---------- Forwarded message ---------
From: Ana Berg <a.berg@kanzlei.example>
Subject: GPU server

Hello,

we are a firm of 30 people and want to run Qwen2.5 72B unquantised, in BF16: FP8 or
4-bit is not an option for us. At most 3 people will be generating at the same time,
with 8k tokens of context. Our budget is 4,000 USD per month.

1. Which of your servers would you recommend within that budget?
2. Do we need NVLink for this, or is PCIe fine?

Kind regards,
Ana Berg
Head of IT | Berg Legal LLP

CONFIDENTIALITY NOTICE: This e-mail is confidential and may be legally
privileged. If you are not the intended recipient, please delete it.

On Mon, Nov 30, 2026 at 9:03 AM Sales <sales@gpuserver.io> wrote:
> Hello, which model and how many people at once?
> What is the context length per request?
"""


def _first_word(answer: Answer) -> str:
    return answer.answer.lstrip("*_ ").split()[0].strip(".,—*").lower()


def test_signature_disclaimer_and_quoted_history_are_not_read() -> None:
    text = drop_signatures(drop_earlier_messages(MAIL))
    assert "Qwen2.5 72B" in text and "Do we need NVLink" in text
    assert "legally" not in text and "Head of IT" not in text
    assert "context length per request" not in text


def test_a_forwarded_mail_gets_the_pick_within_budget_and_the_nvlink_answer(
    assistant: Assistant,
) -> None:
    a = assistant.ask(MAIL)
    assert a.reading is not None
    assert a.reading.task != "out_of_scope"  # "legally privileged" is a signature, not a goal
    assert a.reading.precision == "bf16"  # "FP8 or 4-bit is not an option"
    assert a.reading.claim == "nvlink_needed"  # the first alternative of its own sentence
    assert not a.reading.unread
    cheapest = last_call(a, "cheapest_fit")
    assert cheapest.arguments.get("interconnect") != "nvlink"  # asked about, not required
    pick = cheapest.result["cheapest"][0]
    assert pick["usd_per_month"] <= 4000
    advice = last_call(a, "purchase_advice").result
    assert advice["needs_nvlink"] is False
    assert f"${pick['usd_per_month']:,}" in a.answer
    assert "PCIe is enough" in a.answer
    assert not a.answer.lstrip("*").startswith(("Yes", "No"))  # the lead is the pick


@pytest.mark.parametrize(
    ("question", "first"),
    [
        ("Llama 3.1 405B in Ollama, just me: a PCIe box is fine for that, right? And which "
         "is the cheapest one that holds it?", "yes"),
        ("Llama 3.1 405B in Ollama, just me: do I need NVLink for that? And which is the "
         "cheapest one that holds it?", "no"),
    ],
)  # fmt: skip
def test_a_link_yes_no_asked_first_leads_in_its_polarity(
    assistant: Assistant, question: str, first: str
) -> None:
    a = assistant.ask(question)
    assert last_call(a, "purchase_advice").result["needs_nvlink"] is False
    assert _first_word(a) == first
    assert last_call(a, "cheapest_fit").result["cheapest"]
    assert a.reading is not None and not a.reading.unread


def test_a_price_asked_beside_a_fit_and_a_speed_is_quoted_by_the_price_tool(
    assistant: Assistant,
) -> None:
    a = assistant.ask(
        "Passt Mixtral 8x7B in FP8 auf eine H100 PCIe, wie viele Token/s kommen da ungefähr "
        "raus, und was kostet das im Monat?"
    )
    quote = last_call(a, "price_quote").result["quotes"]
    assert [q["configuration"] for q in quote] == ["1x-h100-pcie"]
    assert last_call(a, "throughput_estimate").arguments["configuration"] == "1x-h100-pcie"
    assert _first_word(a) == "ja"


def test_two_nodes_priced_beside_their_speeds_get_the_difference(assistant: Assistant) -> None:
    a = assistant.ask(
        "For Llama 3.1 8B in FP8: how many tokens/s on one H100 PCIe vs one L40S, and what's "
        "the monthly price difference between the two?"
    )
    pq = last_call(a, "price_quote").result
    assert {q["configuration"] for q in pq["quotes"]} == {"1x-h100-pcie", "1x-l40s"}
    assert f"${pq['difference_usd_per_month']:,}" in a.answer


@pytest.mark.parametrize(
    "question",
    [
        "Wir möchten Mistral Small 24B in FP8 viermal nebeneinander betreiben, also auf jeder "
        "der vier L40S eine eigene Kopie. Reicht da PCIe zwischen den Karten?",
        "We want four copies of Mistral Small 24B in FP8 side by side, each GPU works on its "
        "own, on 4x L40S. Is PCIe enough?",
    ],
)
def test_independent_copies_get_the_independent_jobs_rule(
    assistant: Assistant, question: str
) -> None:
    a = assistant.ask(question)
    advice = last_call(a, "purchase_advice")
    assert advice.arguments.get("independent_jobs") is True
    assert advice.result["rule"]["number"] == 2
    assert _first_word(a) in ("yes", "ja")


def test_four_of_those_in_a_follow_up_is_the_count(assistant: Assistant) -> None:
    first = assistant.ask("Läuft FLUX.1 dev auf einer L4?")
    second = assistant.ask(
        "Wir würden für eine Render-Warteschlange vier davon nehmen, jede Karte rendert für "
        "sich. Brauchen wir dann NVLink?",
        session_id=first.session_id,
    )
    assert second.reading is not None and second.reading.count == 4
    advice = last_call(second, "purchase_advice")
    assert advice.result["rule"]["number"] == 2
    assert _first_word(second) == "nein"


_ROWS = """```
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
   268435456      67108864     float     sum      -1   8512.0   31.54   47.30      0   8530.1   31.47   47.20      0
  1073741824     268435456     float     sum      -1  34050.2   31.53   47.30      0  34101.7   31.49   47.23      0
# Avg bus bandwidth    : 47.27
```"""


def test_a_german_paste_keeps_its_node_named_at_a_line_start(assistant: Assistant) -> None:
    a = assistant.ask(
        "Kunde hat seit Montag einen\n4x A100 SXM4 bei uns und sagt, sein Training laufe "
        "langsam. Ist der Knoten kaputt?\n\n" + _ROWS
    )
    call = last_call(a, "check_allreduce_output")
    assert call.arguments.get("configuration") == "4x-a100-sxm4"
    assert call.result["status"] == "defect"
    assert _first_word(a) == "ja"


def test_getting_what_they_pay_for_asks_whether_it_is_healthy(assistant: Assistant) -> None:
    a = assistant.ask(
        "Customer on 4x L40S ran nccl-tests, busbw tops out around 20 GB/s. Are they getting "
        "what they pay for?\n\n"
        # (every busbw column: an in-place 47.23 left beside 20.4 is no PCIe measurement)
        + _ROWS.replace("47.30", "20.40").replace("47.20", "20.30").replace("47.23", "20.33")
    )
    assert a.reading is not None and a.reading.claim == "healthy"
    assert last_call(a, "check_allreduce_output").result["status"] == "ok"
    assert _first_word(a) == "yes"


def test_a_price_asked_for_a_load_without_a_model_sizes_a_starting_point(
    assistant: Assistant,
) -> None:
    a = assistant.ask(
        "we're about 120 people and would like our own internal ChatGPT-like thing on a rented "
        "server. no idea about models yet. roughly what would that cost per month?"
    )
    call = last_call(a, "cheapest_fit")
    assert a.reading is not None and "model" in a.reading.assumed
    pick = call.result["cheapest"][0]
    assert f"${pick['usd_per_month']:,}" in a.answer


@pytest.mark.parametrize(
    ("follow_up", "factor"),
    [("und für doppelt so viele Nutzer?", 2), ("and for three times as many users?", 3)],
)
def test_a_follow_up_multiplies_the_users_said_before(
    assistant: Assistant, follow_up: str, factor: int
) -> None:
    first = assistant.ask("Was bräuchten wir für Qwen3 14B für unsere 50 Mitarbeiter?")
    second = assistant.ask(follow_up, session_id=first.session_id)
    assert second.reading is not None and second.reading.users == 50 * factor
    assert first.reading is not None and first.reading.concurrent_sequences
    sized = [c for c in second.tool_calls if c.name in ("fit_check", "cheapest_fit")]
    assert sized and sized[-1].arguments["concurrency"] > first.reading.concurrent_sequences


def test_never_many_at_once_is_low_concurrency(assistant: Assistant) -> None:
    a = assistant.ask(
        "Llama 3.3 70B in BF16 on 4x A100 PCIe, only 2-3 analysts sending requests, never many "
        "at once. Is PCIe good enough then?"
    )
    assert a.reading is not None and "low_concurrency" in a.reading.workloads
    assert last_call(a, "purchase_advice").result["rule"]["number"] == 3
    assert _first_word(a) == "yes"


@pytest.mark.parametrize(
    ("question", "first"),
    [
        ("Ist ein 2x H100 PCIe eigentlich teurer als ein 4x L40S? Um wie viel?", "ja"),
        ("Is 2x H100 PCIe cheaper than 4x L40S?", "no"),
    ],
)
def test_a_price_comparison_asked_yes_or_no_leads_with_the_difference(
    assistant: Assistant, question: str, first: str
) -> None:
    a = assistant.ask(question)
    pq = last_call(a, "price_quote").result
    prices = {q["configuration"]: q["usd_per_month"] for q in pq["quotes"]}
    assert prices["2x-h100-pcie"] > prices["4x-l40s"]
    assert _first_word(a) == first
    assert f"${pq['difference_usd_per_month']:,}" in a.answer.split("\n")[0]
    assert a.reading is not None and not a.reading.unread


def test_a_quoted_e_mail_with_a_disclaimer_inside_the_quote_is_still_read(
    assistant: Assistant,
) -> None:
    quoted = "fwd from a prospect, can the bot answer this?\n\n" + "\n".join(
        "> " + line if line else ">"
        for line in (
            "Hi team,",
            "",
            "We want to self-host Qwen2.5 72B in BF16 for about 250 engineers, steady",
            "traffic all day. Do we need the NVLink (SXM) nodes, and what would the cheapest",
            "suitable node cost per month?",
            "",
            "Thanks,",
            "Priya",
            "",
            "This e-mail may contain confidential information. If you are not the intended",
            "recipient, please notify the sender and delete it.",
        )
    )
    a = assistant.ask(quoted)
    assert a.reading is not None and a.reading.model == "qwen2.5-72b"
    assert a.reading.task != "out_of_scope"
    assert last_call(a, "purchase_advice").result["needs_nvlink"] is True


@pytest.mark.parametrize(
    ("question", "node", "first"),
    [
        ("Would StarCoder2 15B run on your L4 instance in bf16?", "1x-l4", "no"),
        ("Läuft Qwen3 14B auf eurer L40S-Instanz?", "1x-l40s", "ja"),
    ],
)
def test_a_card_instance_is_one_card(
    assistant: Assistant, question: str, node: str, first: str
) -> None:
    a = assistant.ask(question)
    assert a.reading is not None and a.reading.count == 1
    assert a.reading.configurations == [node]
    full = next(c for c in a.tool_calls if c.name == "fit_check")  # the precision asked
    rows = {r["configuration"]: r for r in full.result["rows"]}
    assert (rows[node]["verdict"] == "fits_one_card") == (first in ("yes", "ja"))
    assert _first_word(a) == first


def test_a_typo_cut_context_is_the_full_context_asked(assistant: Assistant) -> None:
    a = assistant.ask("can i run llama 3.1 8b on one rtx 4090 with the full 128k contex??")
    cap = last_call(a, "capacity_check")
    assert cap.result["configuration"] == "1x-rtx-4090"
    assert _first_word(a) == "no"


def test_a_fit_asked_beside_a_speed_gets_its_verdict(assistant: Assistant) -> None:
    a = assistant.ask(
        "How many tokens per second would gpt-oss-120b generate on one H100 PCIe? Does it even "
        "fit on that card?"
    )
    row = next(
        r for r in last_call(a, "fit_check").result["rows"] if r["configuration"] == "1x-h100-pcie"
    )
    assert row["verdict"] == "fits_one_card"
    assert "fits on one card" in a.answer


def test_a_healthy_pcie_topology_with_cross_socket_pairs_is_no_defect(
    assistant: Assistant,
) -> None:
    matrix = (
        "        GPU0    GPU1    GPU2    GPU3    CPU Affinity    NUMA Affinity\n"
        "GPU0     X      NODE    SYS     SYS     0-23            0\n"
        "GPU1    NODE     X      SYS     SYS     0-23            0\n"
        "GPU2    SYS     SYS      X      NODE    24-47           1\n"
        "GPU3    SYS     SYS     NODE     X      24-47           1\n"
    )
    a = assistant.ask(
        'Customer on 4x L40S says "GPUs are not connected with NVLink, node is broken". '
        "Is the node actually broken?\n\n" + matrix
    )
    res = last_call(a, "check_topology_output").result
    assert res["status"] == "warning"
    assert a.reading is not None and a.reading.require_link is None
    assert _first_word(a) == "no"


def test_nvlink_said_to_be_mandatory_is_a_requirement(assistant: Assistant) -> None:
    a = assistant.ask(
        "NVLink ist für uns Pflicht. Welcher ist der günstigste Knoten für Qwen2.5 72B in BF16, "
        "und was kostet der?"
    )
    assert a.reading is not None and a.reading.require_link == "nvlink"
    assert last_call(a, "cheapest_fit").arguments["interconnect"] == "nvlink"


def test_the_cheaper_one_is_the_cheaper_node_named_before(assistant: Assistant) -> None:
    first = assistant.ask(
        "For Qwen3 32B in FP8: 2x RTX 5090 or 1x A100 80GB - do both work, and which is cheaper?"
    )
    prices = {
        q["configuration"]: q["usd_per_month"]
        for q in last_call(first, "price_quote").result["quotes"]
    }
    cheaper = min(prices, key=prices.__getitem__)
    second = assistant.ask(
        "the cheaper one - how many 8k chats can it handle at once?", session_id=first.session_id
    )
    assert second.reading is not None and second.reading.configurations == [cheaper]
    assert last_call(second, "capacity_check").result["configuration"] == cheaper


def test_a_clause_continuing_an_out_of_scope_goal_is_declined_with_it(
    assistant: Assistant,
) -> None:
    a = assistant.ask(
        "Was kostet mich der Strom, wenn ich eine RTX 4090 zuhause rund um die Uhr laufen "
        "lasse? Lohnt sich das gegenüber eurer Miete?"
    )
    assert a.reading is not None and a.reading.task == "out_of_scope"
    assert a.tool_calls == []


@pytest.mark.parametrize(
    ("question", "workload"),
    [
        ("Wir wollen intern ein 70B-Modell anbieten, so ca. 20 Leute gleichzeitig. Was "
         "brauchen wir?", "traffic"),
        ("Llama 3.3 70B in BF16 auf 4x L40S, nur für 3 Leute im Team. PCIe reicht da doch, "
         "oder?", "low_concurrency"),
    ],
)  # fmt: skip
def test_a_number_of_people_decides_the_workload(
    assistant: Assistant, question: str, workload: str
) -> None:
    a = assistant.ask(question)
    assert a.reading is not None and workload in a.reading.workloads
    rules = {c.result["rule"]["number"] for c in a.tool_calls if c.name == "purchase_advice"}
    assert rules == ({4} if workload == "traffic" else {3})


def test_a_vague_german_request_for_own_hardware_is_sized(assistant: Assistant) -> None:
    a = assistant.ask(
        "Hallo, wir sind ein Architekturbüro mit 25 Leuten und hätten gern einen eigenen "
        "KI-Assistenten für Texte und Recherche, der bei uns auf eigener Hardware läuft. Was "
        "bräuchten wir da ungefähr?"
    )
    assert a.reading is not None and a.reading.users == 25
    assert a.reading.task != "out_of_scope"
    assert last_call(a, "cheapest_fit").result["cheapest"]


def test_our_own_quantised_finetune_is_served_not_trained(assistant: Assistant) -> None:
    a = assistant.ask(
        "I have a 34B model (our own finetune, AWQ 4-bit). Will it fit a single RTX 5090?"
    )
    assert a.reading is not None and a.reading.task == "serve"
    row = next(
        r for r in last_call(a, "fit_check").result["rows"] if r["configuration"] == "1x-rtx-5090"
    )
    assert row["verdict"] == "fits_one_card" and _first_word(a) == "yes"


def test_stimmt_da_was_nicht_asks_whether_it_is_broken(assistant: Assistant) -> None:
    a = assistant.ask(
        "Unser all_reduce_perf auf der 4x H100 SXM5 – 362 GB/s busbw. Stimmt da was nicht?\n\n"
        + _ROWS.replace("47.30", "362.00").replace("47.20", "361.00")
    )
    assert a.reading is not None and a.reading.claim == "defect"
    assert last_call(a, "check_allreduce_output").result["status"] == "ok"
    assert _first_word(a) == "nein"


def test_a_follow_up_about_the_server_talked_about_keeps_it(assistant: Assistant) -> None:
    first = assistant.ask("Was kostet der Server mit 2x RTX A6000?")
    second = assistant.ask(
        "Reicht der für Llama 3.3 70B als AWQ mit 4 gleichzeitigen Nutzern?",
        session_id=first.session_id,
    )
    assert second.reading is not None and second.reading.configurations == ["2x-rtx-a6000"]
    third = assistant.ask(
        "Und was kostet die günstigere Gen4-Variante davon?", session_id=first.session_id
    )
    quoted = {q["configuration"] for q in last_call(third, "price_quote").result["quotes"]}
    assert "2x-rtx-a6000-gen4" in quoted


def test_would_the_other_card_be_faster_compares_both(assistant: Assistant) -> None:
    first = assistant.ask("Was kostet eine einzelne A100 bei euch?")
    second = assistant.ask(
        "Passt da Llama 3.3 70B als AWQ für 10 gleichzeitige Chats mit 8k drauf?",
        session_id=first.session_id,
    )
    third = assistant.ask("Und wäre die H100 PCIe dafür schneller?", session_id=second.session_id)
    timed = {
        c.arguments["configuration"]: c.result["tokens_per_s"]
        for c in third.tool_calls
        if c.name == "throughput_estimate"
    }
    assert set(timed) == {"1x-h100-pcie", "1x-a100-pcie"}
    faster = timed["1x-h100-pcie"] > timed["1x-a100-pcie"]
    assert _first_word(third) == ("ja" if faster else "nein")


def test_a_topology_paste_keeps_the_prose_that_names_labels(assistant: Assistant) -> None:
    matrix = (
        "        GPU0    GPU1    GPU2    GPU3    CPU Affinity    NUMA Affinity\n"
        "GPU0     X      PIX     SYS     SYS     0-31            0\n"
        "GPU1    PIX      X      SYS     SYS     0-31            0\n"
        "GPU2    SYS     SYS      X      PIX     32-63           1\n"
        "GPU3    SYS     SYS     PIX      X      32-63           1\n"
    )
    a = assistant.ask(
        'Ticket von einem Kunden mit 4x H100 PCIe: "In nvidia-smi topo -m sehe ich kein '
        'einziges NV, nur PIX und SYS. Ist der Server defekt?" Sein Output:\n\n' + matrix
    )
    assert a.reading is not None and a.reading.configurations == ["4x-h100-pcie"]
    assert a.reading.claim == "defect" and a.reading.yes_no
    assert last_call(a, "check_topology_output").result["status"] != "defect"
    assert _first_word(a) == "nein"


def test_is_a_faster_than_b_is_answered_yes_or_no_from_both_speeds(
    assistant: Assistant,
) -> None:
    a = assistant.ask(
        "@sizing customer in the chat asks: is the L40S faster than the RTX 5090 for Qwen3 14B "
        "in FP8 (single user)? and how much more does the L40S cost per month?"
    )
    speeds = {
        c.arguments["configuration"]: c.result["tokens_per_s"]
        for c in a.tool_calls
        if c.name == "throughput_estimate"
    }
    assert _first_word(a) == ("yes" if speeds["1x-l40s"] > speeds["1x-rtx-5090"] else "no")


def test_insisting_on_nvlink_is_a_requirement_and_doubting_it_is_a_question(
    assistant: Assistant,
) -> None:
    a = assistant.ask(
        "Wir wollen Qwen2.5 72B in BF16 betreiben und bestehen auf NVLink zwischen den Karten. "
        "Was ist der günstigste Knoten dafür?"
    )
    assert a.reading is not None and a.reading.require_link == "nvlink"
    b = assistant.ask(
        "Llama 3.3 70B in FP8 for 25 lawyers, 16k context, EUR 4,000 a month at most. Which "
        "server would you recommend? Our IT consultant insists we need NVLink. Do we?"
    )
    assert b.reading is not None and b.reading.require_link is None
    assert b.reading.claim == "nvlink_needed" and not b.reading.unread
    assert last_call(b, "purchase_advice").result["needs_nvlink"] is False
    assert "PCIe is enough" in b.answer


def test_the_node_they_chose_decides_the_link_when_it_splits_the_model(
    assistant: Assistant,
) -> None:
    a = assistant.ask(
        "brauch ich nvlink für mistral smal 24b wenn wir 2 l40s nehmen? sind nur ich und n kollege"
    )
    assert a.reading is not None and a.reading.model == "mistral-small-24b"
    assert last_call(a, "purchase_advice").result["rule"]["number"] == 3
    assert _first_word(a) == "nein"


@pytest.mark.parametrize(
    ("question", "concurrency", "count"),
    [
        ("cheapest node for Llama 3.1 8B with 64k context and 4 requests running in parallel?",
         4, None),
        ("Llama 3.3 70B on 4 GPUs running in parallel, does it fit?", None, 4),
    ],
)  # fmt: skip
def test_requests_in_parallel_are_sequences_and_gpus_are_cards(
    assistant: Assistant, question: str, concurrency: int | None, count: int | None
) -> None:
    a = assistant.ask(question)
    assert a.reading is not None
    assert a.reading.concurrent_sequences == concurrency and a.reading.count == count


def test_deepseek_r1_names_no_lora_rank(assistant: Assistant) -> None:
    a = assistant.ask("cheapest way to run DeepSeek-R1-Distill-Qwen-32B for 10 concurrent users?")
    assert a.reading is not None and a.reading.lora_rank is None


def test_mining_and_whether_it_pays_at_our_prices_is_declined_whole(
    assistant: Assistant,
) -> None:
    a = assistant.ask(
        "Kann man auf euren H100-Servern Krypto minen, und lohnt sich das bei euren Preisen?"
    )
    assert a.reading is not None and a.reading.task == "out_of_scope"
    assert a.tool_calls == []


def test_only_a_few_active_parameters_fine_on_a_card_is_the_active_memory_claim(
    assistant: Assistant,
) -> None:
    a = assistant.ask(
        "Phi-3.5-MoE only has 6.6B active params, so it should be fine on a 4090 in bf16, right?"
    )
    assert a.reading is not None and a.reading.claim == "active_sets_memory"
    row = next(
        r for r in last_call(a, "fit_check").result["rows"] if r["configuration"] == "1x-rtx-4090"
    )
    assert row["verdict"] == "does_not_fit" and _first_word(a) == "no"


def test_which_one_is_cheaper_compares_both_and_the_card_named_then_is_its_node(
    assistant: Assistant,
) -> None:
    first = assistant.ask(
        "For Llama 3.3 70B AWQ, one user: 2x L40S or a single A100 PCIe, do both work?"
    )
    second = assistant.ask(
        "which one is cheaper per month, and by how much?", session_id=first.session_id
    )
    pq = last_call(second, "price_quote").result
    assert {q["configuration"] for q in pq["quotes"]} == {"2x-l40s", "1x-a100-pcie"}
    assert f"${pq['difference_usd_per_month']:,}" in second.answer
    third = assistant.ask(
        "ok, the A100 then. how fast would that be for a single stream?",
        session_id=first.session_id,
    )
    timed = [
        c.arguments["configuration"] for c in third.tool_calls if c.name == "throughput_estimate"
    ]
    assert timed == ["1x-a100-pcie"]


def test_a_price_difference_asked_beside_a_worth_it_is_stated(assistant: Assistant) -> None:
    a = assistant.ask(
        "Kunde fragt im Chat: Was ist der Preisunterschied zwischen 4x A100 PCIe und 4x A100 "
        "SXM4, und lohnt sich SXM für Llama 3.3 70B in FP8 mit nur 2 Nutzern?"
    )
    pq = next(
        c.result
        for c in a.tool_calls
        if c.name == "price_quote" and "difference_usd_per_month" in c.result
    )
    assert f"${pq['difference_usd_per_month']:,}" in a.answer


def test_a_typo_fixed_topology_paste_is_read_as_pasted(assistant: Assistant) -> None:
    header = "\tGPU0\tGPU1\tGPU2\tGPU3\tCPU Affinity\tNUMA Affinity\n"
    rows = "".join(
        f"GPU{i}" + "".join("\t X" if i == j else "\tNV18" for j in range(4)) + "\t0-47\t0\n"
        for i in range(4)
    )
    a = assistant.ask(
        "Kunde auf 4x H100 SXM5 will vor dem Training sicher sein, dass alle NVLinks da sind. "
        "Seine Ausgabe von nvidia-smi topo -m, ist das in Ordnung?\n\n" + header + rows
    )
    assert last_call(a, "check_topology_output").result["status"] == "ok"
    assert _first_word(a) == "ja"


def test_an_ok_before_a_follow_up_keeps_the_conversation(assistant: Assistant) -> None:
    first = assistant.ask("and would Llama 4 Scout in fp8 fit on 2x H100 PCIe?")
    second = assistant.ask(
        "ok and with 8 requests at once, 16k tokens each?", session_id=first.session_id
    )
    assert second.reading is not None
    assert (second.reading.concurrent_sequences, second.reading.context_tokens) == (8, 16384)
    fit = last_call(second, "fit_check")
    assert fit.arguments["concurrency"] == 8 and fit.arguments["context_tokens"] == 16384


def test_the_claim_is_read_from_the_question_not_the_context_before_it(
    assistant: Assistant,
) -> None:
    a = assistant.ask(
        "customer thinks the NVLink is broken because the NIC column shows SYS. Is the topology "
        "fine?"
    )
    assert a.reading is not None and a.reading.claim == "healthy"
    b = assistant.ask(
        'Freelancer says: "for four GPUs you absolutely need NVLink". Is that true? SDXL, one '
        "copy per card on 4x L40S."
    )
    assert b.reading is not None and b.reading.claim == "nvlink_needed"


def test_a_price_difference_is_a_price_and_a_choice_is_no_new_ask(assistant: Assistant) -> None:
    first = assistant.ask(
        "Llama 3.1 70B in FP8 for an internal tool, at most 4 users at once. 4x A100 PCIe or 4x "
        "A100 SXM4?"
    )
    second = assistant.ask(
        "what's the price difference between the two?", session_id=first.session_id
    )
    pq = last_call(second, "price_quote").result
    assert {q["configuration"] for q in pq["quotes"]} == {"4x-a100-pcie", "4x-a100-sxm4"}
    assert f"${pq['difference_usd_per_month']:,}" in second.answer
    third = assistant.ask(
        "ok, PCIe it is. how fast will it generate for a single user?", session_id=first.session_id
    )
    assert third.reading is not None and [a.kind for a in third.reading.asks] == ["speed"]
    assert "nvlink" not in third.reading.intents
    assert last_call(third, "throughput_estimate").arguments["configuration"] == "4x-a100-pcie"


def test_the_one_that_fits_is_a_reference_not_a_fit_ask(assistant: Assistant) -> None:
    first = assistant.ask(
        "4x L40S oder 4x A100 PCIe für Llama 3.3 70B in BF16 mit 10 gleichzeitigen Anfragen – "
        "welcher geht?"
    )
    second = assistant.ask(
        "Dann nehmen wir den, der passt. Was kostet der im Monat?", session_id=first.session_id
    )
    assert second.reading is not None and [a.kind for a in second.reading.asks] == ["price"]
    assert [p.configuration for p in second.prices] == ["4x-a100-pcie"]


def test_forget_the_training_serves_the_model_and_instructs_nothing(assistant: Assistant) -> None:
    first = assistant.ask("Can I QLoRA Qwen2.5 14B on one RTX 4090?")
    second = assistant.ask(
        "actually forget the training. we'd just serve it, AWQ, for 10 people at the same time. "
        "cheapest box?",
        session_id=first.session_id,
    )
    assert second.reading is not None and second.reading.task == "serve"
    assert not second.reading.injection
    call = last_call(second, "cheapest_fit")
    assert call.arguments["precision"] == "awq" and call.arguments["concurrency"] == 10


def test_a_reading_takes_ids_in_any_case() -> None:
    from assistant.reading.model import Reading

    r = Reading.model_validate({"card_families": ["H100"], "cards": ["L40S"]})
    assert (r.card_families, r.cards) == (["h100"], ["l40s"])


@pytest.mark.parametrize(
    ("question", "threshold"),
    [
        ("Schafft eine L4 mit Qwen3 14B in FP8 mehr als 20 Token pro Sekunde für einen "
         "einzelnen Nutzer?", 20.0),
        ("Does Llama 3.1 8B in FP8 on one H100 PCIe do at least 50 tokens/s?", 50.0),
    ],
)  # fmt: skip
def test_a_speed_asked_yes_or_no_is_answered_from_the_tokens_per_second(
    assistant: Assistant, question: str, threshold: float
) -> None:
    a = assistant.ask(question)
    assert a.reading is not None and a.reading.min_tokens_per_s == threshold
    assert a.reading.claim == "faster"
    tps = last_call(a, "throughput_estimate").result["tokens_per_s"]
    assert _first_word(a) == ({True: "yes", False: "no"} if a.language == "en" else
                              {True: "ja", False: "nein"})[tps > threshold]  # fmt: skip


@pytest.mark.parametrize(
    "question",
    [
        "Wir wollen Llama 3.1 8B komplett fine-tunen, ausdrücklich kein LoRA. Passt das auf eine Karte?",
        "Cheapest node to fully fine-tune Mistral 7B?",
    ],
)
def test_a_full_fine_tune_asked_with_a_price_is_sized_for_training(
    assistant: Assistant, question: str
) -> None:
    a = assistant.ask(question)
    mem = last_call(a, "memory_need")
    assert mem.arguments.get("training") is True
    assert "cheapest_fit" not in [c.name for c in a.tool_calls]  # no serving sizing
    holders = last_call(a, "training_fit").result["holders"]
    # only cards that hold the training memory alone may be called "one card"
    assert holders and all(h.startswith("B200") for h in holders)


def test_memory_asked_beside_a_price_for_a_fine_tune_is_the_training_memory(
    assistant: Assistant,
) -> None:
    a = assistant.ask(
        "What does 8x H100 SXM cost per month, and how much memory does a full fine-tune of "
        "Llama 3.1 8B need?"
    )
    mem = last_call(a, "memory_need")
    assert mem.arguments.get("training") is True
    assert gb("en", mem.result["total_gb"]) in a.answer  # 144.5 GB, not the 19.7 GB of serving


def test_an_image_model_memory_ask_gets_its_published_need(assistant: Assistant) -> None:
    a = assistant.ask(
        "Wie viel VRAM braucht FLUX.1 Kontext [dev] in FP8 mit 128k Kontext bei 102 "
        "gleichzeitigen Nutzern?"
    )
    need = last_call(a, "memory_need").result["vram_gb"]
    assert f"{need:.0f} GB" in a.answer


def test_a_failing_flow_degrades_to_the_guides_and_is_logged(
    deps: object, caplog: pytest.LogCaptureFixture
) -> None:
    from assistant.compose.composer import Composer

    class Broken(Composer):
        def _fit_answer(self, d: object, u: object) -> None:
            raise KeyError("required_gb_total")

    broken = Assistant(deps)  # type: ignore[arg-type]
    broken.composer = Broken(deps)  # type: ignore[arg-type]
    with caplog.at_level("ERROR", logger="assistant.compose"):
        a = broken.ask("Does Llama 3.3 70B fit on one H100?")
    assert a.answer and "failed on our side" in a.answer
    assert any("flow failed" in r.getMessage() for r in caplog.records)


def test_nv12_on_every_pair_of_an_h100_node_names_another_board(assistant: Assistant) -> None:
    head = "\t" + "\t".join(f"GPU{i}" for i in range(8)) + "\tCPU Affinity\tNUMA Affinity"
    rows = [
        f"GPU{i}\t" + "\t".join("X" if i == j else "NV12" for j in range(8)) + "\t0-63\t0"
        for i in range(8)
    ]
    a = assistant.ask("Customer on 8x H100 SXM5 sent this, is it ok?\n" + "\n".join([head, *rows]))
    topo = last_call(a, "check_topology_output").result
    assert topo["status"] == "defect" and _first_word(a) == "no"
    assert "another board or the wrong machine" in a.answer


@pytest.mark.parametrize(
    "question",
    ["wie viel vram braucht deepseek v3 eigentlich?",
     "how much vram does qwen2.5 72b need at fp8 with 32k context?"],
)  # fmt: skip
def test_how_much_vram_leads_with_the_memory_need(assistant: Assistant, question: str) -> None:
    a = assistant.ask(question)
    assert a.tool_calls[0].name == "memory_need"
    total = a.tool_calls[0].result["required_gb_total"]
    first = a.answer.split("\n")[0]
    assert f"{total:,.0f}" in first.replace(".", ",") or f"{total:.1f}" in first


@pytest.mark.parametrize(
    ("question", "word"),
    [("kunde hat 4.500 € im monat budget. geht sich 4x a100 sxm4 damit aus?", "ja"),
     ("Our budget is $3,000 a month. Can we afford 4x A100 SXM4?", "no")],
)  # fmt: skip
def test_a_node_asked_yes_or_no_against_a_budget(
    assistant: Assistant, question: str, word: str
) -> None:
    a = assistant.ask(question)
    price = last_call(a, "price_quote").result["quotes"][0]["usd_per_month"]
    assert _first_word(a) == word
    assert (price <= 4500) if word == "ja" else (price > 3000)
