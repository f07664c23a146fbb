"""Answers for the families the night session of 2026-12-07 found in blind-180 … 184, in other
words than the cases': a support bot for a web shop is a language-model job, not web hosting;
"which GPU should we take?" asks the model, then picks; a fine-tune said for later behind a
German abbreviation ("ggf.", "evtl."); a budget put to the node named after a dash ("– kommen
wir damit hin?"); a fit asked of a model beside a pasted `nvidia-smi topo -m`."""

from __future__ import annotations

from typing import Any

from assistant.service import Assistant
from tests.answers import asked_after, fit_row, last_call
from tests.answers import ok as _ok


def _calls(answer: Any, name: str) -> list[Any]:
    return [c for c in answer.tool_calls if c.name == name]


def _within(assistant: Assistant, call: Any, budget: float) -> None:
    """The pick was made among nodes priced within the budget, and only among those."""
    nodes = assistant.deps.catalog.configurations
    offered = call.arguments["configurations"]
    assert offered and all(float(nodes[c].usd_per_month) <= budget for c in offered)
    assert all(c in offered for c, n in nodes.items() if float(n.usd_per_month) <= budget)


def test_a_chatbot_for_a_web_shop_is_sized_not_refused(assistant: Assistant) -> None:
    first = assistant.ask(
        "Wir betreiben einen Webshop und wollen einen eigenen Chatbot für die Kundenberatung. "
        "Welche GPU sollten wir nehmen?"
    )
    text = _ok(first, "de")
    assert first.reading.task != "out_of_scope"
    assert first.reading.outside == []
    assert "Modell" in text.split("\n")[0] and "?" in text.split("\n")[0]
    then = assistant.ask("Mistral Small 24B, etwa 20 gleichzeitig", session_id=first.session_id)
    _ok(then, "de")
    assert then.reading.concurrent_sequences == 20
    cheapest = last_call(then, "cheapest_fit")
    assert cheapest.arguments["model"] == "mistral-small-24b"


def test_web_hosting_asked_beside_a_chatbot_is_still_out_of_scope(assistant: Assistant) -> None:
    a = assistant.ask("Do you also do plain website hosting for our shop? And a chatbot?")
    _ok(a, "en")
    assert "web_hosting" in a.reading.outside


def test_a_fine_tune_later_behind_an_abbreviation_only_requires_the_link(
    assistant: Assistant,
) -> None:
    a = asked_after(
        assistant,
        "günstigster knoten für llama 3.1 70b in fp8?",
        "Kunde besteht auf NVLink, die wollen irgendwann evtl. noch selbst finetunen.",
        "de",
    )
    _ok(a, "de")
    assert a.reading.require_link == "nvlink"
    assert a.reading.task == "serve"
    assert not {"fine_tuning", "training"} & set(a.reading.workloads)
    assert last_call(a, "cheapest_fit").arguments.get("interconnect") == "nvlink"


def test_a_budget_put_to_the_node_after_a_dash(assistant: Assistant) -> None:
    a = asked_after(
        assistant,
        "Passt Qwen2.5 32B in FP8 auf eine L40S?",
        "Ok, danke. Der Kunde hat für das Projekt höchstens 900 € im Monat eingeplant – kommen wir "
        "damit hin?",
        "de",
    )
    text = _ok(a, "de")
    assert a.reading.yes_no
    assert a.reading.budget_usd_per_month == 900
    quote = last_call(a, "price_quote").result["quotes"][0]
    assert quote["configuration"] == "1x-l40s"
    within = quote["usd_per_month"] <= 900
    assert text.startswith("**Ja" if within else "**Nein")


_TOPO = """GPU0\tGPU1\tCPU Affinity\tNUMA Affinity
GPU0\t X \tNODE\t0-47\t0
GPU1\tNODE\t X \t0-47\t0

Legend:

  X    = Self
  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges
  NV#  = Connection traversing a bonded set of # NVLinks
"""


def test_a_fit_asked_beside_a_pasted_topology_leads_and_the_check_follows(
    assistant: Assistant,
) -> None:
    a = assistant.ask(
        "Kunde hat uns das von seiner 2x RTX A6000 Kiste geschickt:\n\n"
        + _TOPO
        + "\nkann er Qwen2.5 32B in BF16 über die beiden Karten verteilt laufen lassen?"
    )
    text = _ok(a, "de")
    names = [c.name for c in a.tool_calls]
    assert "fit_check" in names and "check_topology_output" in names
    row = fit_row(a, "2x-rtx-a6000")
    assert row["verdict"] in ("fits_one_card", "split")
    assert text.startswith("**Ja")
    assert last_call(a, "check_topology_output").result["status"] == "ok"
    assert text.index("Topologie") > text.index("aufgeteilt")  # the check follows the fit


def test_a_negative_verb_first_with_the_precision_said_after(assistant: Assistant) -> None:
    a = assistant.ask(
        "is a single L4 not enough for mixtral 8x7b in AWQ? talking about the normal 4-bit weights"
    )
    text = _ok(a, "en")
    assert a.reading.claim_negated
    assert fit_row(a, "1x-l4")["verdict"] == "does_not_fit"
    assert text.startswith("**Yes, right")


def test_a_model_asked_for_by_name_alone_is_unknown(assistant: Assistant) -> None:
    a = assistant.ask("Do you have anything for Reka Core? How much GPU memory would it need?")
    text = _ok(a, "en")
    assert a.reading.model_name == "Reka Core"
    assert "Reka Core" in text.split("\n")[0]
    assert not _calls(a, "fit_check")


def test_a_count_said_as_n_way(assistant: Assistant) -> None:
    a = assistant.ask("monthly price of the four-way L40S box?")
    _ok(a, "en")
    quote = last_call(a, "price_quote").result["quotes"][0]
    assert quote["configuration"] == "4x-l40s"


def test_tokens_each_in_words_are_the_context(assistant: Assistant) -> None:
    a = assistant.ask(
        "how many sequences of sixteen thousand tokens each can Qwen2.5 32B in FP8 keep on one "
        "H100 PCIe?"
    )
    _ok(a, "en")
    assert a.reading.context_tokens == 16000
    assert last_call(a, "capacity_check").arguments["context_tokens"] == 16000


def test_an_hourly_budget_after_an_abbreviation(assistant: Assistant) -> None:
    a = assistant.ask("Budget ca. 3 € pro Stunde für Qwen2.5 72B in FP8, was ist das günstigste?")
    _ok(a, "de")
    assert a.reading.budget_usd_per_month == 3 * 730
    _within(assistant, last_call(a, "cheapest_fit"), 3 * 730)


def test_a_budget_corrected_without_a_budget_word_picks_again(assistant: Assistant) -> None:
    a = asked_after(
        assistant,
        "Llama 3.3 70B in FP8, budget $3,000 a month. What's the cheapest node?",
        "sorry, my mistake: it's $1,200 a month, not 3k. is there still anything?",
        "en",
    )
    text = _ok(a, "en")
    assert a.reading.budget_usd_per_month == 1200
    assert a.reading.context_tokens in (None, 8192)  # "not 3k" is the budget taken back
    cheapest = last_call(a, "cheapest_fit")
    _within(assistant, cheapest, 1200)
    assert cheapest.result["cheapest"]
    assert text.startswith("**Yes") and "The cheapest" in text.split("\n")[0]


def test_sessions_open_at_a_context_are_sequences_at_once(assistant: Assistant) -> None:
    a = assistant.ask("how much KV cache for Qwen3 8B with 6 sessions open at 16k each?")
    _ok(a, "en")
    assert a.reading.concurrent_sequences == 6
    assert a.reading.context_tokens == 16 * 1024


def test_memory_asked_beside_the_active_parameters_premise(assistant: Assistant) -> None:
    a = assistant.ask(
        "wie viel VRAM brauche ich für Qwen3 235B A22B in FP8? sind doch nur 22B aktive Parameter"
    )
    text = _ok(a, "de")
    mem = last_call(a, "memory_need").result
    assert mem["precision"] == "fp8"
    assert a.reading.claim == "active_sets_memory"
    assert f"{mem['required_gb_total']:.1f} GB".replace(".", ",") in text


def test_going_back_to_a_card_named_two_turns_ago(assistant: Assistant) -> None:
    first = assistant.ask("does Llama 3.1 8B fit on one L4?")
    _ok(first, "en")
    _ok(assistant.ask("and on 2x RTX 4090?", session_id=first.session_id), "en")
    a = assistant.ask(
        "ok let's go back to the L4 then, what's the price per hour?", session_id=first.session_id
    )
    _ok(a, "en")
    quote = last_call(a, "price_quote").result["quotes"][0]
    assert quote["configuration"] == "1x-l4"


def test_the_truth_of_a_false_negative_is_denied(assistant: Assistant) -> None:
    a = assistant.ask("Ist es wahr, dass Qwen2.5 7B nicht auf eine RTX 4090 passt?")
    text = _ok(a, "de")
    assert fit_row(a, "1x-rtx-4090")["verdict"] == "fits_one_card"
    assert text.startswith("**Nein, stimmt nicht")


def test_what_kind_of_server_with_a_load_is_the_pick(assistant: Assistant) -> None:
    a = assistant.ask(
        "Mistral Small 24B, so 15 Leute chatten gleichzeitig. Was brauchen wir dafür für einen "
        "Server?"
    )
    _ok(a, "de")
    call = last_call(a, "cheapest_fit")
    assert call.arguments["concurrency"] == 15


def test_a_speed_threshold_leads_over_a_relayed_does_it_fit(assistant: Assistant) -> None:
    a = assistant.ask(
        "Kunde schreibt, passt das so?\n> Wir wollen Mistral Small 24B in FP8 auf einer L40S. "
        "Kommen wir auf mindestens 25 Token pro Sekunde bei einem Nutzer?"
    )
    text = _ok(a, "de")
    speed = last_call(a, "throughput_estimate").result
    fast = speed["tokens_per_s"] >= 25
    assert text.startswith("**Ja" if fast else "**Nein")
    assert text.index("Token/s") < text.index("passt")  # the speed leads, the fit follows


def test_a_batch_whose_tokens_per_item_are_said_further_on(assistant: Assistant) -> None:
    a = assistant.ask(
        "two hundred reports to generate, each report comes out at roughly 1,000 tokens. "
        "Llama 3.1 8B on an L40S. How long will it take?"
    )
    _ok(a, "en")
    assert a.reading.output_tokens == 200_000
    assert last_call(a, "throughput_estimate").arguments["output_tokens"] == 200_000


def test_a_context_per_request_said_before_its_figure(assistant: Assistant) -> None:
    a = assistant.ask(
        "Llama 3.1 8B auf einer L40S, Kontext pro Anfrage 32.768 Tokens – wie viele Anfragen "
        "gleichzeitig?"
    )
    _ok(a, "de")
    assert last_call(a, "capacity_check").arguments["context_tokens"] == 32768


def test_how_long_the_context_can_be_at_most_is_asked_beside_the_fit(
    assistant: Assistant,
) -> None:
    a = assistant.ask(
        "Llama 3.3 70B in FP8 auf einer H100 PCIe mit 128k Kontext – geht das, und falls nicht, "
        "wie lang ginge es dann?"
    )
    text = _ok(a, "de")
    assert [k.kind for k in a.reading.asks] == ["fit", "context"]
    assert _calls(a, "capacity_check")
    assert text.startswith("**Nein")


def test_is_the_memory_enough_for_a_full_fine_tune_on_pcie_is_the_fit(
    assistant: Assistant,
) -> None:
    a = assistant.ask("Qwen2.5 7B voll finetunen auf eurem 2x A100 PCIe – reicht da der Speicher?")
    text = _ok(a, "de")
    assert a.reading.claim == "fits"
    fit = last_call(a, "training_fit").result
    row = next(r for r in fit["rows"] if r["configuration"] == "2x-a100-pcie")
    assert text.startswith("**Ja" if row["fits_node"] else "**Nein")


def test_they_are_also_pricing_a_node_asks_the_same_thing_there(assistant: Assistant) -> None:
    a = assistant.ask(
        "client fine-tunes llama 3.1 8b on 4x h100 sxm5, how long is the gradient all-reduce per "
        "step? they're also pricing 4x l40s for it - what would it be there?"
    )
    _ok(a, "en")
    assert a.reading.intents[0] == "allreduce"
    assert _calls(a, "gradient_allreduce_time")


def test_the_surcharge_to_another_node_is_a_price_difference(assistant: Assistant) -> None:
    a = asked_after(
        assistant,
        "Was kostet der 4x H100 SXM5 im Monat?",
        "und der Mehrpreis zum 8x H100 SXM5?",
        "de",
    )
    _ok(a, "de")
    assert "difference_asked" in a.reading.topics
    quotes = last_call(a, "price_quote").result
    assert {q["configuration"] for q in quotes["quotes"]} == {"4x-h100-sxm5", "8x-h100-sxm5"}
    assert quotes["difference_usd_per_month"]


def test_shard_it_over_all_eight_is_the_node_talked_about(assistant: Assistant) -> None:
    a = asked_after(
        assistant,
        "does your 8x l40s box have nvlink?",
        "ok, would llama 3.1 70b in bf16 fit if we shard it over all eight?",
        "en",
    )
    _ok(a, "en")
    assert a.reading.configurations == ["8x-l40s"]
    assert fit_row(a, "8x-l40s")["verdict"] == "split"


_SMI = """\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 560.35.03              Driver Version: 560.35.03      CUDA Version: 12.6     |
|=========================================+========================+======================|
|   0  NVIDIA RTX A6000               Off |   00000000:17:00.0 Off |                  Off |
| 30%   33C    P8             22W /  300W |       4MiB /  49140MiB |      0%      Default |
+-----------------------------------------+------------------------+----------------------+
|   1  NVIDIA RTX A6000               Off |   00000000:65:00.0 Off |                  Off |
| 30%   31C    P8             19W /  300W |       4MiB /  49140MiB |      0%      Default |
+-----------------------------------------+------------------------+----------------------+
"""


def test_a_pasted_nvidia_smi_names_the_node_and_a_fit_is_asked(assistant: Assistant) -> None:
    a = assistant.ask(
        "Kunde hat uns sein nvidia-smi geschickt, er will wissen ob Qwen2.5 32B in BF16 darauf "
        "läuft\n" + _SMI
    )
    text = _ok(a, "de")
    assert a.reading.configurations == ["2x-rtx-a6000"]
    assert a.reading.yes_no
    assert "topology_howto" not in a.reading.intents
    assert fit_row(a, "2x-rtx-a6000")["verdict"] == "split"
    assert text.startswith("**Ja")


def test_how_long_may_it_be_at_most_asks_the_longest_context(assistant: Assistant) -> None:
    a = asked_after(
        assistant,
        "Qwen3 14B auf einer L40S, wie viele Anfragen mit je 16k Kontext gleichzeitig?",
        "und wenn nur ein Nutzer drauf ist, wie lang kann der dann höchstens sein?",
        "de",
    )
    _ok(a, "de")
    assert "longest_context" in a.reading.topics
    assert a.reading.intents[0] == "capacity"


def test_an_hourly_price_is_kept_for_the_next_node(assistant: Assistant) -> None:
    a = asked_after(
        assistant, "what does one L4 cost per hour?", "and the box with eight of them?", "en"
    )
    text = _ok(a, "en")
    quote = last_call(a, "price_quote").result["quotes"][0]
    assert quote["configuration"] == "8x-l4"
    assert f"${quote['usd_per_hour']:.2f}" in text.split("\n")[0]


def test_a_lora_rank_in_words(assistant: Assistant) -> None:
    a = asked_after(
        assistant,
        "QLoRA von Qwen2.5 14B auf einer L4, geht das?",
        "und mit Rang zweiunddreißig, wie viel Speicher ist das?",
        "de",
    )
    _ok(a, "de")
    assert a.reading.lora_rank == 32
    assert last_call(a, "memory_need").arguments["lora_rank"] == 32


def test_full_fine_tune_named_beside_lora_and_qlora(assistant: Assistant) -> None:
    a = assistant.ask("for llama 3.1 8b, roughly how much gpu memory: full FT vs LoRA vs QLoRA?")
    text = _ok(a, "en")
    needs = {
        c.arguments.get("adapter") or "full": c.result["total_gb"] for c in _calls(a, "memory_need")
    }
    assert set(needs) == {"full", "lora", "qlora"}
    assert text.count(f"{needs['full']:,.1f} GB") == 1  # stated once


def test_how_big_is_the_gap_after_a_price(assistant: Assistant) -> None:
    a = asked_after(
        assistant, "price of 8x a100 sxm4 per month?", "and 8x a100 pcie? how big is the gap?", "en"
    )
    _ok(a, "en")
    assert "difference_asked" in a.reading.topics
    assert last_call(a, "price_quote").result["difference_usd_per_month"]


def test_what_if_we_use_a_format_asks_the_fit_again(assistant: Assistant) -> None:
    a = asked_after(
        assistant,
        "does qwen2.5 32b fit on one rtx 4090?",
        "what if we use AWQ? how many users at once with 8k then?",
        "en",
    )
    text = _ok(a, "en")
    assert a.reading.asks[0].kind == "fit"
    row = fit_row(a, "1x-rtx-4090")
    assert last_call(a, "fit_check").result["precision"] == "awq"
    assert text.startswith("**Yes" if row["verdict"] == "fits_one_card" else "**No")


def test_an_all_reduce_follow_up_on_other_hardware(assistant: Assistant) -> None:
    a = asked_after(
        assistant,
        "how long is the gradient all-reduce per step for a 13B model in BF16 on 8x A100 SXM4?",
        "and on 8x L40S with Gen4?",
        "en",
    )
    _ok(a, "en")
    assert a.reading.intents[0] == "allreduce"
    assert _calls(a, "gradient_allreduce_time")


def test_a_topology_pasted_with_a_fit_asked_without_a_question_mark(
    assistant: Assistant,
) -> None:
    a = assistant.ask(
        "customer sent this from their 2x RTX A6000 box, they want to know if Qwen2.5 32B in "
        "BF16 can run split across these cards\n\n" + _TOPO
    )
    text = _ok(a, "en")
    assert [k.kind for k in a.reading.asks] == ["fit"]
    assert _calls(a, "check_topology_output") and _calls(a, "fit_check")
    assert text.startswith("**Yes")


def test_which_server_would_we_have_to_rent_asks_the_model_then_picks(
    assistant: Assistant,
) -> None:
    first = assistant.ask(
        "Wir sind ein Steuerbüro und möchten einen KI-Assistenten für unsere Mandanten. "
        "Welchen Server müssten wir dafür mieten?"
    )
    _ok(first, "de")
    then = assistant.ask("Llama 3.1 8B, so 10 gleichzeitig", session_id=first.session_id)
    _ok(then, "de")
    assert last_call(then, "cheapest_fit").arguments["concurrency"] == 10


def test_insists_on_nvlink_then_which_node_and_how_fast(assistant: Assistant) -> None:
    a = asked_after(
        assistant,
        "günstigster server für qwen2.5 72b in fp8?",
        "der kunde besteht auf sxm. welcher knoten wäre das und wie schnell ist er?",
        "de",
    )
    _ok(a, "de")
    assert a.reading.require_link == "nvlink"
    pick = last_call(a, "cheapest_fit")
    assert pick.arguments.get("interconnect") == "nvlink"
    top = pick.result["cheapest"][0]["configuration"]
    assert last_call(a, "throughput_estimate").arguments["configuration"] == top


def test_what_an_fp8_kv_cache_saves_in_the_same_sentence(assistant: Assistant) -> None:
    a = assistant.ask(
        "Qwen2.5 32B with 10 chats open, 8000 tokens each: how big is the kv cache, and what "
        "would an fp8 kv cache save?"
    )
    _ok(a, "en")
    assert a.reading.kv_precisions == ["bf16", "fp8"]


def test_items_in_words_with_their_length_said_far_after(assistant: Assistant) -> None:
    a = assistant.ask(
        "Wir wollen fünfhundert Newsletter-Texte mit Llama 3.1 8B auf einer einzelnen L40S "
        "schreiben lassen, jeder davon etwa 600 Tokens. Wie lange braucht das?"
    )
    _ok(a, "de")
    assert a.reading.output_tokens == 300_000


def test_split_across_all_n_is_the_tensor_parallel_size(assistant: Assistant) -> None:
    a = asked_after(
        assistant,
        "do the 4x L40S have nvlink?",
        "and if we split llama 3.1 8b across all 4 of them, how fast is it?",
        "en",
    )
    _ok(a, "en")
    assert a.reading.tensor_parallel == 4
    assert "4 cards" in a.answer.split("\n")[0]


def test_is_the_pcie_path_a_problem_for_one_copy_per_card(assistant: Assistant) -> None:
    a = assistant.ask(
        "customer runs four separate qwen2.5 7b copies on the 4x l40s, one per card. is the pcie "
        "path a problem then?"
    )
    text = _ok(a, "en")
    assert a.reading.claim == "nvlink_needed"
    assert not last_call(a, "purchase_advice").result["needs_nvlink"]
    assert text.startswith("**No")


_NCCL = """\
#  size   count  type  redop  root   time  algbw  busbw #wrong   time  algbw  busbw #wrong
#   (B) (elements)                   (us) (GB/s) (GB/s)          (us) (GB/s) (GB/s)
 1073741824 268435456 float sum -1  28100  38.21  57.32  0  28090  38.23  57.34  0
 4294967296 1073741824 float sum -1 111900  38.38  57.58  0 111880  38.39  57.59  0
# Avg bus bandwidth    : 57.40
"""


def test_a_paste_checked_again_against_the_corrected_node(assistant: Assistant) -> None:
    a = asked_after(
        assistant,
        "all_reduce_perf vom Kunden auf dem 8x A100 PCIe, passt das so?\n" + _NCCL,
        "Korrektur: der Kunde ist auf dem 8x A100 SXM4, nicht PCIe. Gleiche Werte. Immer noch ok?",
        "de",
    )
    text = _ok(a, "de")
    check = last_call(a, "check_allreduce_output")
    assert check.arguments["configuration"] == "8x-a100-sxm4"
    assert check.result["status"] == "defect"
    assert text.startswith("**Nein")


def test_if_each_one_has_n_tokens_is_the_context(assistant: Assistant) -> None:
    a = asked_after(
        assistant,
        "Llama 3.1 8B auf einer L40S, wie lang darf der Kontext maximal sein?",
        "und wie viele gleichzeitig, wenn jede zwölftausend Tokens hat?",
        "de",
    )
    _ok(a, "de")
    assert last_call(a, "capacity_check").arguments["context_tokens"] == 12000


def test_how_many_context_sized_requests_in_parallel_is_a_capacity(assistant: Assistant) -> None:
    a = assistant.ask("llama 3.1 8b on 1x l4, how many 8k-context chats can it run in parallel?")
    _ok(a, "en")
    assert a.reading.intents[0] == "capacity"
    assert last_call(a, "capacity_check").arguments["context_tokens"] == 8192


def test_a_negative_with_right_and_more_after_it(assistant: Assistant) -> None:
    a = assistant.ask("so qwen2.5 32b doesnt fit on one l40s right? unquantized i mean")
    text = _ok(a, "en")
    bf16 = next(c for c in _calls(a, "fit_check") if c.result["precision"] == "bf16")
    row = next(r for r in bf16.result["rows"] if r["configuration"] == "1x-l40s")
    assert row["verdict"] == "does_not_fit"
    assert text.startswith("**Yes, right")


def test_a_topology_question_after_a_setup_that_runs_a_model_asks_no_fit(
    assistant: Assistant,
) -> None:
    a = assistant.ask(
        "Kunde auf dem 2x RTX A6000 will Qwen2.5 32B per Tensor-Parallel über beide Karten "
        "laufen lassen. Er hat das geschickt – ist die Maschine defekt?\n\n" + _TOPO
    )
    text = _ok(a, "de")
    assert not [k for k in a.reading.asks if k.kind == "fit"]
    assert last_call(a, "check_topology_output").result["status"] != "defect"
    assert text.startswith("**Nein")


def test_the_hourly_rate_of_a_server_is_a_price(assistant: Assistant) -> None:
    a = asked_after(
        assistant,
        "what's the hourly rate on a single L40S server?",
        "and the node with 4 of them?",
        "en",
    )
    text = _ok(a, "en")
    quote = last_call(a, "price_quote").result["quotes"][0]
    assert quote["configuration"] == "4x-l40s"
    assert f"${quote['usd_per_hour']:.2f}" in text.split("\n")[0]


def test_what_an_fp8_kv_cache_would_save_is_memory_not_the_cheapest(
    assistant: Assistant,
) -> None:
    a = assistant.ask(
        "Wie groß ist der KV-Cache bei Qwen2.5 32B mit 8 offenen Chats à 8k, und wie viel sparen "
        "wir mit dem KV-Cache in FP8?"
    )
    _ok(a, "de")
    assert "cheapest" not in a.reading.intents
    assert not _calls(a, "cheapest_fit")
    assert a.reading.kv_precisions == ["bf16", "fp8"]


def test_a_batch_whose_each_item_length_comes_after_a_long_clause(assistant: Assistant) -> None:
    a = assistant.ask(
        "We need short descriptions for about four hundred listings on our site, using Llama 3.1 "
        "8B on one L4, fine to run it during the night, and each listing text should be roughly "
        "250 tokens. How long would that take?"
    )
    _ok(a, "en")
    assert a.reading.output_tokens == 100_000
    assert last_call(a, "throughput_estimate").arguments["output_tokens"] == 100_000


def test_the_hourly_rate_of_every_node_of_a_card(assistant: Assistant) -> None:
    a = assistant.ask("hi, whats the hourly rate on your l4 servers?")
    text = _ok(a, "en")
    quotes = last_call(a, "price_quote").result["quotes"]
    assert len(quotes) > 1
    for q in quotes:
        assert f"${q['usd_per_hour']:.2f} per hour" in text


def test_would_it_still_matter_after_a_topology_paste(assistant: Assistant) -> None:
    a = asked_after(
        assistant,
        "kunde auf 2x rtx a6000 hat das geschickt, was sagt uns das?\n\n" + _TOPO,
        "würde das noch eine rolle spielen, wenn er zwei getrennte qwen2.5 7b instanzen fährt, "
        "eine pro karte?",
        "de",
    )
    text = _ok(a, "de")
    assert a.reading.claim == "nvlink_needed"
    assert not last_call(a, "purchase_advice").result["needs_nvlink"]
    assert text.startswith("**Nein")


def test_yes_or_no_said_outright_is_a_yes_no(assistant: Assistant) -> None:
    a = assistant.ask(
        "kunde fragt ob er qwen2.5 7b (full finetune, kein lora) auf einer einzelnen l40s "
        "trainieren kann. ja oder nein?"
    )
    text = _ok(a, "de")
    assert a.reading.yes_no
    assert text.startswith(("**Ja", "**Nein"))


def test_a_model_size_in_words(assistant: Assistant) -> None:
    a = assistant.ask("does qwen2.5 seventy-two b fit on 2x h100 pcie in fp8?")
    _ok(a, "en")
    assert a.reading.model == "qwen2.5-72b"


def test_transcripts_are_batch_items(assistant: Assistant) -> None:
    a = assistant.ask(
        "we need summaries of about three hundred meeting transcripts with qwen2.5 7b on one "
        "l4, one at a time because our pipeline is sequential and writes each one to a wiki, and "
        "each summary should be roughly 500 tokens. how long will that run?"
    )
    _ok(a, "en")
    assert a.reading.output_tokens == 150_000


def test_what_do_we_need_with_a_load_is_the_pick(assistant: Assistant) -> None:
    a = assistant.ask(
        "gemma 3 27b in fp8 für die firma, 80 leute, davon so 12 gleichzeitig, in der spitze "
        "vielleicht 50 anfragen pro minute. was brauchen wir dafür?"
    )
    _ok(a, "de")
    call = last_call(a, "cheapest_fit")
    assert call.arguments["concurrency"] == 12
