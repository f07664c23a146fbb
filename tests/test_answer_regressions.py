"""Regressions for assistant bugs found by the evaluations and the lead (docs/bugs.md).

Every expected figure is computed from the tools, not written down here.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from assistant.answer import Answer
from assistant.deps import Deps
from assistant.registry import call_tool
from assistant.service import Assistant
from assistant.texts import gb
from tests.answers import ok as _ok

WITH_GUIDE_INDEX = True  # tests/conftest.py builds the shipped guide index for `deps`


def _tools(answer: Answer) -> list[str]:
    return [t.name for t in answer.tool_calls]


def _tps(deps: Deps, model: str, cid: str, precision: str | None = None) -> float:
    args: dict[str, Any] = {"model": model, "configuration": cid}
    if precision:
        args["precision"] = precision
    return float(call_tool(deps, "throughput_estimate", args).result["tokens_per_s"])


# lead-1: a combined price + speed question answers both halves
def test_price_and_speed_with_a_model(assistant: Assistant, deps: Deps) -> None:
    a = assistant.ask("Wie schnell ist Llama 3.3 70B auf 4 × A100 SXM4 und was kostet das?")
    text = _ok(a, "de")
    assert "throughput_estimate" in _tools(a)
    assert f"etwa {round(_tps(deps, 'llama-3.3-70b', '4x-a100-sxm4'))} Token/s" in text
    assert "$4,395/Monat" in text and "4x-a100-sxm4" in {p.configuration for p in a.prices}


def test_price_and_speed_without_a_model(assistant: Assistant, deps: Deps) -> None:
    a = assistant.ask("What will 4 × A100 SXM4 cost me and how fast will it be?")
    text = _ok(a, "en")
    assert "$4,395/month" in text
    tps = round(_tps(deps, "llama-3.3-70b", "4x-a100-sxm4", "bf16"))
    assert f"about {tps} tokens/s" in text and "example model, Llama 3.3 70B" in text
    assert "Which model" in text
    assert any(c.url.endswith("#same-job-both-ways") for c in a.citations)


# lead-2: "on one node" is answered per node, not per card
@pytest.mark.parametrize(
    "question,lang,model",
    [
        ("Passt DeepSeek V3 auf einen Knoten?", "de", "deepseek-v3"),
        ("Does Qwen3 235B fit on one server?", "en", "qwen3-235b-a22b"),
    ],
)
def test_fits_on_one_node(
    question: str, lang: str, model: str, assistant: Assistant, deps: Deps
) -> None:
    a = assistant.ask(question)
    text = _ok(a, lang)
    assert re.match(r"\*\*(Yes|Ja) — ", text), text[:200]
    rows = call_tool(deps, "fit_check", {"model": model}).result["rows"]
    holding = sorted(
        (r for r in rows if r["verdict"] != "does_not_fit"),
        key=lambda r: (r["usd_per_month"], r["configuration"]),
    )
    listed = [p.configuration for p in a.prices]
    assert listed == [r["configuration"] for r in holding][: len(listed)]  # cheapest first
    assert len(listed) == min(6, len(holding))


# lead-3: unknown workload and a split model: both split rules (or none), never just one
def test_fit_unknown_workload_quotes_both_split_rules(assistant: Assistant) -> None:
    from tools.advice import RULES

    text = _ok(assistant.ask("Does Llama 3.3 70B fit on one card?"), "en")
    assert "real traffic" in text  # the clarifying question
    assert RULES[3].text_en in text and RULES[4].text_en in text


# evals-1 / evals-15: TP over several cards for a model that fits one card is "no", not "yes"
@pytest.mark.parametrize(
    "question,lang,no",
    [
        (
            "I plan to serve Llama 3.1 8B with --tensor-parallel-size 4 on 4x L40S. Good idea?",
            "en",
            "**No —",
        ),
        (
            "Lohnt es sich, Llama 3.1 8B mit Tensor-Parallelismus über vier H100-Karten zu "
            "verteilen?",
            "de",
            "**Nein —",
        ),
    ],
)
def test_tensor_parallel_for_a_one_card_model_is_no(
    question: str, lang: str, no: str, assistant: Assistant
) -> None:
    a = assistant.ask(question)
    text = _ok(a, lang)
    assert text.startswith(no), text[:200]
    assert any(c.url.endswith("#most-expensive-mistake") for c in a.citations)


# evals-2: "rent SXM for rendering?" asks what to rent, not for a price
def test_rent_sxm_for_rendering(assistant: Assistant) -> None:
    a = assistant.ask("Should I rent SXM for rendering with Blender?")
    text = _ok(a, "en")
    assert text.startswith("**No")
    assert any(c.url.endswith("#diffusion-and-rendering") for c in a.citations)
    advice = next(t for t in a.tool_calls if t.name == "purchase_advice")
    assert advice.result["recommendation"] == "pcie"


# evals-3 / evals-3b: full fine-tuning memory, not the serving fit
@pytest.mark.parametrize(
    "question,model",
    [
        ("How much memory do I need to fully fine-tune Llama 3.1 8B?", "llama-3.1-8b"),
        ("How much memory does full fine-tuning of Llama 3.3 70B need?", "llama-3.3-70b"),
    ],
)
def test_full_fine_tuning_memory(
    question: str, model: str, assistant: Assistant, deps: Deps
) -> None:
    a = assistant.ask(question)
    text = _ok(a, "en")
    mem = call_tool(deps, "memory_need", {"model": model, "training": True}).result
    total = mem["total_gb"]
    shown = gb("en", total)  # one decimal at every size (144.5 GB)
    assert shown in text, (shown, text[:300])
    assert "18 bytes per parameter" in text
    advice = [t for t in a.tool_calls if t.name == "purchase_advice"][-1]
    assert advice.arguments["workload"] == "training"
    assert advice.result["rule"]["number"] == 4  # no one-card node holds it: split -> NVLink


# evals-4: which NVLink generation a node uses
def test_nvlink_generation_of_a_node(assistant: Assistant) -> None:
    a = assistant.ask("Which NVLink generation does the A100 SXM4 use?")
    text = _ok(a, "en")
    assert "interconnect_facts" in _tools(a)
    assert "NVLink 3" in text and "600 GB/s" in text


# evals-5: the link the question names, German wording
def test_allreduce_over_the_named_link_in_german(assistant: Assistant, deps: Deps) -> None:
    a = assistant.ask(
        "Wie lange dauert der Gradienten-All-Reduce eines 70B-Modells über PCIe Gen4?"
    )
    text = _ok(a, "de")
    call = next(t for t in a.tool_calls if t.name == "gradient_allreduce_time")
    assert "pcie-gen4-x16" in call.arguments["links"]
    gen4 = next(r for r in call.result["rows"] if r["link"] == "pcie-gen4-x16")
    assert f"{gen4['seconds']:.1f}".replace(".", ",") + " s" in text
    assert "70B-Modell" in text and "70B model" not in text
    assert any(c.url.endswith("#large-batch-training") for c in a.citations)


# evals-6: "how many concurrent 8k sequences" is a capacity question
def test_capacity_with_a_context_in_the_question(assistant: Assistant, deps: Deps) -> None:
    a = assistant.ask(
        "How many concurrent 8k sequences of Llama 3.3 70B in BF16 fit on 4x H100 SXM5?"
    )
    text = _ok(a, "en")
    cap = next(t for t in a.tool_calls if t.name == "capacity_check")
    assert cap.arguments["configuration"] == "4x-h100-sxm5"
    assert f"up to {cap.result['max_concurrency']} concurrent sequences" in text
    assert any(c.url.endswith("#worked-example") for c in a.citations)


# evals-7: "the cheapest NVLink node" only looks at NVLink nodes
def test_cheapest_nvlink_node(assistant: Assistant, deps: Deps) -> None:
    a = assistant.ask("What is the cheapest NVLink node for Llama 3.3 70B in FP8?")
    text = _ok(a, "en")
    call = next(t for t in a.tool_calls if t.name == "cheapest_fit")
    assert call.arguments["interconnect"] == "nvlink"
    top = call.result["cheapest"][0]["configuration"]
    links = deps.catalog.links
    assert links[deps.catalog.configurations[top].interconnect].kind == "nvlink"
    assert text.startswith("**The cheapest NVLink (SXM) node")
    assert a.prices[0].configuration == top


# evals-17: "the cheapest single card" only looks where it fits on one card
def test_cheapest_single_card(assistant: Assistant, deps: Deps) -> None:
    a = assistant.ask("Was ist die günstigste einzelne Karte für Llama 3.3 70B in AWQ?")
    text = _ok(a, "de")
    call = next(t for t in a.tool_calls if t.name == "cheapest_fit")
    assert call.arguments["one_card"] is True
    top = call.result["cheapest"][0]
    assert top["verdict"] == "fits_one_card"
    assert a.prices[0].configuration == top["configuration"]
    assert "auf eine einzelne Karte passt" in text.splitlines()[0]


# evals-18: one card, not "1 cards"
@pytest.mark.parametrize(
    "question,lang,want,wrong",
    [
        ("What does 1x L4 cost?", "en", "1 card with", "1 cards"),
        ("Was kostet 1x L4?", "de", "1 Karte mit", "1 Karten"),
    ],
)
def test_one_card_node_facts(
    question: str, lang: str, want: str, wrong: str, assistant: Assistant
) -> None:
    text = _ok(assistant.ask(question), lang)
    assert want in text and wrong not in text


# evals-10 / evals-10b: the whole unknown name, and only relatives as "similar names"
@pytest.mark.parametrize(
    "question,name,relatives",
    [
        ("Does Llama 4 Behemoth fit on 8x B200?", "Llama 4 Behemoth", True),
        ("How much VRAM does Claude 3 Opus need?", "Claude 3 Opus", False),
    ],
)
def test_unknown_model_full_name(
    question: str, name: str, relatives: bool, assistant: Assistant
) -> None:
    text = _ok(assistant.ask(question), "en")
    assert f"I don't know the model {name}**" in text, text[:200]
    assert ("similar names" in text) is relatives


# issue 12: a name that carries the size is sized from it, called by its name, and says so
def test_unknown_model_with_a_size_is_sized_by_name(assistant: Assistant) -> None:
    a = assistant.ask("Does Llama 9 900B fit on 8x H200?")
    text = _ok(a, "en")
    assert text.startswith("**No — Llama 9 900B in BF16 does not fit"), text[:120]
    assert "Llama 9 900B is not in the catalog" in text
    fit = next(c for c in a.tool_calls if c.name == "fit_check")
    assert fit.arguments["model"] == "900B"


def _conversation(assistant: Assistant, *questions: str) -> list[Answer]:
    out: list[Answer] = []
    sid = None
    for q in questions:
        a = assistant.ask(q, session_id=sid)
        sid = a.session_id
        out.append(a)
    return out


# evals-9: "und 8x?" after a price question: the same card at the new count
def test_price_follow_up_with_a_new_count(assistant: Assistant, deps: Deps) -> None:
    _, a2 = _conversation(assistant, "Was kostet 4x A100 SXM4?", "und 8x?")
    text = _ok(a2, "de")
    assert [p.configuration for p in a2.prices] == ["8x-a100-sxm4"]
    price = deps.catalog.configurations["8x-a100-sxm4"].usd_per_month
    assert f"${price:,}/Monat" in text


# evals-12: "on it" after a price question is the node priced before
def test_speed_on_it_after_a_price_question(assistant: Assistant, deps: Deps) -> None:
    _, a2 = _conversation(
        assistant, "What does 4x A100 PCIe cost?", "How fast is Llama 3.3 70B on it?"
    )
    text = _ok(a2, "en")
    tput = next(t for t in a2.tool_calls if t.name == "throughput_estimate")
    assert tput.arguments["configuration"] == "4x-a100-pcie"
    assert f"about {round(tput.result['tokens_per_s'])} tokens/s" in text
    assert "$4,157/month" in text


@pytest.mark.parametrize(
    ("price_question", "fit_question", "node"),
    [
        ("Was kostet 4x L40S?", "Passt da Llama 3.3 70B in FP8 drauf?", "4x-l40s"),
        (
            "How much is 2x H100 PCIe a month?",
            "does Llama 3.1 70B in FP8 fit there?",
            "2x-h100-pcie",
        ),
        ("What's 2x RTX 5090 per month?", "Would Qwen3 32B in BF16 fit on there?", "2x-rtx-5090"),
    ],
)
def test_there_and_drauf_after_a_price_question_are_the_node(
    assistant: Assistant, price_question: str, fit_question: str, node: str
) -> None:
    """ "da drauf", "there", "on there": the node the previous turn priced, not every node."""
    _, a2 = _conversation(assistant, price_question, fit_question)
    fits = [c for c in a2.tool_calls if c.name == "fit_check"]
    rows = [r["configuration"] for c in fits for r in c.result["rows"]]
    assert node in rows
    assert a2.prices[0].configuration == node  # the node asked about first, alternatives after


def test_a_follow_up_asking_whether_a_new_model_fits_is_a_fit_question(
    assistant: Assistant,
) -> None:
    """'Und passt X da drauf?' after a price question asks whether X fits that node; 'und X?'
    after a speed question stays a speed question."""
    _, a2 = _conversation(
        assistant, "Was kostet der Server mit 4x L40S?", "Und passt Mixtral 8x7B in BF16 da drauf?"
    )
    fits = [c for c in a2.tool_calls if c.name == "fit_check"]
    assert fits and "4x-l40s" in [r["configuration"] for c in fits for r in c.result["rows"]]
    _, b2 = _conversation(
        assistant, "How fast is Llama 3.3 70B on 4x A100 PCIe?", "and Mixtral 8x7B?"
    )
    speed = [c for c in b2.tool_calls if c.name == "throughput_estimate"]
    assert speed and speed[0].arguments["configuration"] == "4x-a100-pcie"


# evals-13: answering our clarifying question continues the NVLink question
def test_answer_to_the_clarifying_question(assistant: Assistant) -> None:
    from tools.advice import RULES

    a1, a2 = _conversation(
        assistant,
        "Do I need NVLink for Llama 3.3 70B on four cards?",
        "Only a few users, low concurrency.",
    )
    assert "real traffic" in a1.answer
    text = _ok(a2, "en")
    advice = [t for t in a2.tool_calls if t.name == "purchase_advice"][-1]
    assert advice.result["recommendation"] == "pcie_size_for_memory"
    assert RULES[3].text_en in text and RULES[4].text_en not in text


# evals-11: no 3-card H100 node: say so, quote the nearest ones
def test_price_for_a_count_that_does_not_exist(assistant: Assistant, deps: Deps) -> None:
    a = assistant.ask("What will 3x H100 cost?")
    text = _ok(a, "en")
    assert "There is no 3-card H100 node" in text and "Which configuration" not in text
    assert a.prices and all(
        deps.catalog.configurations[p.configuration].count != 3 for p in a.prices
    )
    counts = {deps.catalog.configurations[p.configuration].count for p in a.prices}
    assert counts == {2, 4}


# evals-14: image-model fit answers cite the image guide
def test_sdxl_fit_cites_the_image_guide(assistant: Assistant) -> None:
    a = assistant.ask("Does SDXL run on an L4?")
    _ok(a, "en")
    assert "gpu-for-flux-sdxl" in {c.guide for c in a.citations}


# evals-8 / evals-16: open guide questions are answered from the guide section about them
@pytest.mark.parametrize(
    "question,lang,url_end",
    [
        (
            "Why is the KV cache not quantised with the weights?",
            "en",
            "awq-vs-gptq-vs-fp8/#kv-cache",
        ),
        (
            "Why is the cheapest card that fits rarely the right one for image generation?",
            "en",
            "gpu-for-flux-sdxl/#cheapest-is-rarely-right",
        ),
        ("What is busbw in nccl-tests?", "en", "nvlink-vs-pcie/#measure-it-yourself"),
        (
            "What happens at 128K context with an AWQ model on an 80 GB card?",
            "en",
            "awq-vs-gptq-vs-fp8/#why-smallest-is-not-smallest",
        ),
        (
            "How much faster is FP8 than BF16 for token generation?",
            "en",
            "awq-vs-gptq-vs-fp8/#speed",
        ),
        ("Warum braucht DeepSeek V3 so wenig KV-Cache?", "de", "mixture-of-experts/#kv-cache"),
        (
            "What is the difference between the L4 and the RTX 4090 for image generation?",
            "en",
            "gpu-for-flux-sdxl/#cheapest-is-rarely-right",
        ),
        (
            "Was passiert beim Tensor-Parallelismus zwischen den Karten?",
            "de",
            "nvlink-vs-pcie/#tensor-parallelism",
        ),
        (
            "What peer-to-peer bandwidth do PCIe Gen4 cards really reach?",
            "en",
            "nvlink-vs-pcie/#measure-it-yourself",
        ),
        ("What is the difference between AWQ and GPTQ?", "en", "awq-vs-gptq-vs-fp8/#formats"),
        ("Was ist der Unterschied zwischen AWQ und GPTQ?", "de", "awq-vs-gptq-vs-fp8/#formats"),
        (
            "How many active parameters does DeepSeek V3 have?",
            "en",
            "mixture-of-experts/#total-vs-active",
        ),
        (
            "Why does a mixture-of-experts model need memory for all its experts?",
            "en",
            "mixture-of-experts/#total-vs-active",
        ),
        (
            "Why does an MoE model need NVLink when experts are spread across cards?",
            "en",
            "mixture-of-experts/#interconnect",
        ),
        ("Welche Karten unterstützen FP8?", "de", "awq-vs-gptq-vs-fp8/#speed"),
        (
            "Wie viel vom Kartenspeicher nutzt vLLM standardmäßig?",
            "de",
            "awq-vs-gptq-vs-fp8/#why-smallest-is-not-smallest",
        ),
    ],
)
def test_guide_questions_quote_the_section(
    question: str, lang: str, url_end: str, assistant: Assistant
) -> None:
    a = assistant.ask(question)
    _ok(a, lang)
    assert "search_guides" in _tools(a)
    assert a.citations and a.citations[0].url.endswith(url_end), [c.url for c in a.citations]


def test_flux_on_four_small_cards_is_answered_from_the_guide(assistant: Assistant) -> None:
    a = assistant.ask("Do four 24 GB cards add up to 96 GB for FLUX?")
    _ok(a, "en")
    assert not a.answer.startswith("**Yes")
    assert any(c.url.endswith("gpu-for-flux-sdxl/#many-cards") for c in a.citations)


def test_pinned_sections_quote_the_part_that_answers(assistant: Assistant) -> None:
    active = assistant.ask("How many active parameters does DeepSeek V3 have?").answer
    assert "37B" in active  # the table row, not the section's first paragraph
    formats = assistant.ask("What is the difference between AWQ and GPTQ?").answer
    assert "calibration data" in formats and "activations" in formats
    vllm = assistant.ask("Wie viel vom Kartenspeicher nutzt vLLM standardmäßig?").answer
    assert "gpu_memory_utilization" in vllm and "0,9" in vllm


# quotes hold the answer: the paragraph that matches the question, a whole section when the
# best chunk is one closing line, list items rather than a cut-off list
def test_quotes_hold_the_answer(assistant: Assistant) -> None:
    a = assistant.ask("What happens at 128K context with an AWQ model on an 80 GB card?")
    assert "79.6 GB" in _ok(a, "en")
    b = assistant.ask(
        "Why is the cheapest card that fits rarely the right one for image generation?"
    )
    assert "Headroom" in _ok(b, "en")
    c = assistant.ask("What does SYS mean in nvidia-smi topo -m?")
    assert re.search(r"`SYS`[^\n]{0,80}(?:socket|QPI|UPI)", _ok(c, "en"))
    e = assistant.ask("Does the A100 support FP8?")
    assert "W8A16" in _ok(e, "en")


def test_two_links_compared_are_link_facts(assistant: Assistant) -> None:
    a = assistant.ask("Wie groß ist der Unterschied zwischen NVLink 4 und PCIe Gen5?")
    assert "interconnect_facts" in _tools(a)
    assert "14×" in _ok(a, "de")


# a "why" question about a model's sizing keeps the sizing flow (numbers, rule, prices)
def test_why_questions_about_sizing_keep_the_tools(assistant: Assistant) -> None:
    a = assistant.ask("Why do I need NVLink for Llama 3.3 70B on four cards for real traffic?")
    text = _ok(a, "en")
    assert "rent an SXM node" in text and "$4,395/month" in text
    b = assistant.ask("Why does Llama 3.3 70B not fit on one H100?")
    _ok(b, "en")
    assert "fit_check" in _tools(b)


# a card count the catalog doesn't have is said, not silently replaced
@pytest.mark.parametrize(
    "question,lang,note",
    [
        ("Wie schnell ist Mixtral 8x7B auf 2x H100 SXM5?", "de", "Einen Knoten mit 2 H100 SXM5"),
        ("Does Llama 3.3 70B fit on 2x H200?", "en", "There is no 2-card H200 node"),
        (
            "How long is the context I can fit for Llama 3.3 70B on 2x H100 SXM5?",
            "en",
            "There is no 2-card H100 SXM5 node",
        ),
    ],
)
def test_missing_card_count_is_said(
    question: str, lang: str, note: str, assistant: Assistant, deps: Deps
) -> None:
    a = assistant.ask(question)
    assert note in _ok(a, lang)
    assert all(deps.catalog.configurations[p.configuration].count != 2 for p in a.prices)


def test_training_from_scratch_says_training(assistant: Assistant) -> None:
    text = _ok(assistant.ask("I want to train a 7B model from scratch, which node?"), "en")
    assert text.startswith("**Training") and "fine-tuning" not in text.split("\n")[0]


def test_which_of_two_nodes_is_cheaper(assistant: Assistant) -> None:
    a = assistant.ask("Was ist günstiger: 4x A100 PCIe oder 4x A100 SXM4?")
    text = _ok(a, "de")
    assert {p.configuration for p in a.prices} == {"4x-a100-pcie", "4x-a100-sxm4"}
    assert "$238" in text


def test_which_of_two_nodes_is_better_for_a_model(assistant: Assistant) -> None:
    a = assistant.ask("Is 4x A100 PCIe or 4x A100 SXM4 better for Llama 3.3 70B?")
    _ok(a, "en")
    assert [t for t in _tools(a) if t == "throughput_estimate"] == ["throughput_estimate"] * 2
    assert {p.configuration for p in a.prices} >= {"4x-a100-pcie", "4x-a100-sxm4"}


def test_bare_node_name_gets_its_facts(assistant: Assistant) -> None:
    a = assistant.ask("4x H100")
    _ok(a, "en")
    assert {p.configuration for p in a.prices} == {"4x-h100-pcie", "4x-h100-sxm5"}


def test_single_card_price_for_a_card_sold_only_in_nodes(assistant: Assistant) -> None:
    a = assistant.ask("Was kostet eine H200?")
    text = _ok(a, "de")
    assert "nicht als einzelne Karte" in text and "1 H200-Karten" not in text
    assert [p.configuration for p in a.prices] == ["4x-h200"]


def test_image_card_question_is_not_an_nvlink_answer(assistant: Assistant) -> None:
    a = assistant.ask("Ist die L4 gut für Bildgenerierung?")
    text = _ok(a, "de")
    assert "NVLink" not in text.splitlines()[0]
    assert a.citations[0].guide == "gpu-for-flux-sdxl"


@pytest.mark.parametrize(
    "question,pattern",
    [
        ("What does PHB mean in topo -m output?", r"host bridge"),
        ("What does NODE mean in nvidia-smi topo?", r"`NODE` different host bridges"),
        ("What is NV12 in topo -m?", r"bonded NVLink links"),
        ("What is algbw vs busbw?", r"2\(n\s?[−-]\s?1\)/n"),
        ("What is busbw in nccl-tests?", r"algbw"),
    ],
)
def test_diagnostic_terms_are_explained(question: str, pattern: str, assistant: Assistant) -> None:
    a = assistant.ask(question)
    assert re.search(pattern, _ok(a, "en"))
    assert any(c.url.endswith("#measure-it-yourself") for c in a.citations)


def test_short_follow_ups_keep_the_subject(assistant: Assistant) -> None:
    _, a2, a3 = _conversation(
        assistant,
        "Does Llama 3.3 70B fit on 4x A100 SXM4?",
        "how fast?",
        "what does it cost?",
    )
    assert "throughput_estimate" in _tools(a2) and "tokens/s" in _ok(a2, "en")
    assert [p.configuration for p in a3.prices] == ["4x-a100-sxm4"]
    alone = assistant.ask("how fast?")
    assert alone.answer.startswith("I can only help")


@pytest.mark.parametrize(
    "question,lang,lead",
    [
        ("Do H200s have NVLink?", "en", "**Yes —"),
        ("Is the RTX 5090 connected with NVLink?", "en", "**No —"),
        ("Hat die A100 PCIe NVLink?", "de", "**Nein —"),
    ],
)
def test_does_this_card_have_nvlink(
    question: str, lang: str, lead: str, assistant: Assistant
) -> None:
    a = assistant.ask(question)
    assert _ok(a, lang).startswith(lead)
    assert "interconnect_facts" in _tools(a)


def test_fit_numbers_include_kv_bytes_per_token(assistant: Assistant, deps: Deps) -> None:
    a = assistant.ask("How many GB does the KV cache of Llama 3.3 70B take per token?")
    fit = next(t for t in a.tool_calls if t.name == "fit_check").result
    assert f"{fit['kv_bytes_per_token']:,.0f} bytes per token" in _ok(a, "en")


# evals-22: one model per card needs no SXM, no model name needed for that
def test_sxm_for_one_model_per_card(assistant: Assistant) -> None:
    a = assistant.ask("Lohnt sich ein SXM-Knoten, wenn jede Karte ihr eigenes Modell bedient?")
    text = _ok(a, "de")
    assert text.startswith("**Nein") and "Welches Modell" not in text
    assert any(c.url.endswith("#one-model-per-card") for c in a.citations)
    advice = next(t for t in a.tool_calls if t.name == "purchase_advice")
    assert advice.result["rule"]["number"] == 2


# evals-23: the German legend sentence
def test_pix_meaning_in_german(assistant: Assistant) -> None:
    a = assistant.ask("Was heißt PIX in nvidia-smi topo -m?")
    assert "`PIX` höchstens einen PCIe-Switch" in _ok(a, "de")


# evals-24: two models in one question: both answered
def test_two_models_in_one_fit_question(assistant: Assistant) -> None:
    a = assistant.ask("Passen Wan 2.1 1.3B und SDXL auf eine L4?")
    text = _ok(a, "de")
    fits = [t for t in a.tool_calls if t.name == "fit_check"]
    assert {t.arguments["model"] for t in fits} == {"wan-2.1-1.3b", "sdxl"}
    assert "Wan 2.1" in text and "Stable Diffusion XL" in text
    assert text.count("Regel aus dem Guide: Das Modell passt auf eine Karte") == 1


# evals-25: "which is cheaper for X: A or B" compares A and B
def test_which_named_node_is_cheaper_for_a_model(assistant: Assistant, deps: Deps) -> None:
    a = assistant.ask("Which is cheaper for Llama 3.3 70B in BF16: 4x A100 PCIe or 4x A100 SXM4?")
    text = _ok(a, "en")
    assert text.startswith("**[4 × NVIDIA A100 PCIe]") and "$238 less per month" in text
    assert {p.configuration for p in a.prices} == {"4x-a100-pcie", "4x-a100-sxm4"}
    assert "~18 tokens/s" in text and "~19 tokens/s" in text


@pytest.mark.parametrize(
    "question,lang",
    [
        ("Does it make sense to rent NVLink if I run a separate model on every GPU?", "en"),
        ("Brauche ich SXM, wenn ich vier kleine Modelle parallel betreibe?", "de"),
    ],
)
def test_independent_models_in_other_words(question: str, lang: str, assistant: Assistant) -> None:
    a = assistant.ask(question)
    assert _ok(a, lang).startswith(("**No", "**Nein"))
    assert any(c.url.endswith("#one-model-per-card") for c in a.citations)


def test_each_card_keeps_its_own_count(assistant: Assistant) -> None:
    a = assistant.ask("Was ist billiger für Mixtral 8x7B: 2x H100 PCIe oder 4x L40S?")
    _ok(a, "de")
    assert {p.configuration for p in a.prices} == {"2x-h100-pcie", "4x-l40s"}


def test_an_rtx_5090_is_one_card(assistant: Assistant) -> None:
    a = assistant.ask("Do Llama 3.1 8B and Mistral Small 24B both fit on an RTX 5090?")
    text = _ok(a, "en")
    fits = [
        t for t in a.tool_calls if t.name == "fit_check" and "configurations" not in t.arguments
    ]
    assert {t.arguments["model"] for t in fits} == {"llama-3.1-8b", "mistral-small-24b"}
    assert "**Yes — Llama 3.1 8B" in text and "**No — Mistral Small 24B" in text


def test_follow_up_on_a_card_that_holds_it_alone(assistant: Assistant) -> None:
    _, _, a3 = _conversation(
        assistant,
        "Brauche ich NVLink für Llama 3.3 70B in BF16 auf vier Karten für echten Traffic?",
        "und in FP8?",
        "and on an H200?",
    )
    text = _ok(a3, "en")
    assert text.startswith("**No — you don't need NVLink.**")
    assert "must be split" not in text and "4x-h200" in {p.configuration for p in a3.prices}


@pytest.mark.parametrize(
    "question,lang,url_end",
    [
        ("Kann ich auf einer A6000 FP8 nutzen?", "de", "awq-vs-gptq-vs-fp8/#speed"),
        (
            "Does quantising the KV cache to FP8 help at long context?",
            "en",
            "awq-vs-gptq-vs-fp8/#kv-cache",
        ),
        (
            "How many experts does Qwen3 235B activate per token?",
            "en",
            "mixture-of-experts/#total-vs-active",
        ),
    ],
)
def test_concept_questions_without_a_model(
    question: str, lang: str, url_end: str, assistant: Assistant
) -> None:
    a = assistant.ask(question)
    _ok(a, lang)
    assert a.citations[0].url.endswith(url_end), [c.url for c in a.citations]


# evals-26: "viele parallele Anfragen" is real traffic, and continues the NVLink question
def test_answer_real_traffic_to_the_clarifying_question(assistant: Assistant) -> None:
    _, a2 = _conversation(
        assistant,
        "Brauche ich NVLink für Mixtral 8x7B?",
        "Wir wollen viele parallele Anfragen bedienen.",
    )
    text = _ok(a2, "de")
    rules = {t.result["rule"]["number"] for t in a2.tool_calls if t.name == "purchase_advice"}
    assert rules == {4} and text.startswith("**Ja")


# evals-27: a topology described in words is judged against the named node
@pytest.mark.parametrize(
    "question,lang,lead",
    [
        ("My 4x A100 PCIe shows PHB between all cards in topo -m. Is that a defect?", "en", "**No"),
        (
            "Mein 8x H100 SXM5 zeigt in nvidia-smi topo -m überall SYS. Ist das schlecht?",
            "de",
            "**Ja",
        ),
    ],
)
def test_described_topology(question: str, lang: str, lead: str, assistant: Assistant) -> None:
    a = assistant.ask(question)
    assert _ok(a, lang).startswith(lead)
    assert "check_topology_output" in _tools(a)
    assert any(c.url.endswith("#measure-it-yourself") for c in a.citations)


# evals-28: "SXM or PCIe?" for image models on several cards: PCIe, rule 2
def test_image_model_on_eight_cards_sxm_or_pcie(assistant: Assistant) -> None:
    a = assistant.ask(
        "Ich will Stable Diffusion XL auf 8 Karten parallel betreiben. SXM oder PCIe?"
    )
    assert _ok(a, "de").startswith("**PCIe")
    rules = {t.result["rule"]["number"] for t in a.tool_calls if t.name == "purchase_advice"}
    assert rules == {2}


def test_cost_per_million_tokens(assistant: Assistant) -> None:
    a = assistant.ask("What does one million tokens cost with Llama 3.3 70B on 4x A100 SXM4?")
    text = _ok(a, "en")
    tput = next(t for t in a.tool_calls if t.name == "throughput_estimate").result
    assert "per million output tokens" in text
    assert f"${tput['usd_per_million_tokens']:,.2f}" in text


def test_two_cards_compared_for_a_model(assistant: Assistant) -> None:
    a = assistant.ask("Lohnt sich die H200 gegenüber der H100 für Llama 3.3 70B?")
    _ok(a, "de")
    gpus = {p.configuration.split("-", 1)[1] for p in a.prices}
    assert "h200" in gpus and ({"h100-pcie", "h100-sxm5"} & gpus)
    assert _tools(a).count("throughput_estimate") == len(a.prices)


def test_training_advice_agrees_between_fit_and_nvlink_flows(assistant: Assistant) -> None:
    fit = assistant.ask("How much memory do I need to fully fine-tune Llama 3.1 8B?")
    nv = assistant.ask("Is NVLink worth it for fine-tuning Llama 3.1 8B?")
    rule = {t.result["rule"]["number"] for t in fit.tool_calls if t.name == "purchase_advice"}
    rule_nv = {t.result["rule"]["number"] for t in nv.tool_calls if t.name == "purchase_advice"}
    assert rule == rule_nv == {4}
    assert _ok(nv, "en").startswith("**Yes")


def test_cheapest_node_with_nvlink_without_a_model(assistant: Assistant, deps: Deps) -> None:
    a = assistant.ask("Was kostet der günstigste Knoten mit NVLink?")
    text = _ok(a, "de")
    cid = a.prices[0].configuration
    links = deps.catalog.links
    assert links[deps.catalog.configurations[cid].interconnect].kind == "nvlink"
    assert "NVLink-Knoten" in text


def test_german_step_sync_is_an_allreduce_question(assistant: Assistant) -> None:
    a = assistant.ask(
        "Wie lange dauert ein Trainingsschritt-Abgleich über NVLink 3 für Llama 3.1 8B?"
    )
    _ok(a, "de")
    call = next(t for t in a.tool_calls if t.name == "gradient_allreduce_time")
    assert "nvlink-3" in call.arguments["links"]


def test_one_user_needs_no_sxm_rule(assistant: Assistant) -> None:
    from tools.advice import RULES

    text = _ok(assistant.ask("Was bringt NVLink bei Inferenz mit nur einem Nutzer?"), "de")
    assert RULES[4].text_de not in text and RULES[3].text_de in text


def test_pcie_gen4_for_tensor_parallelism_is_an_nvlink_question(assistant: Assistant) -> None:
    a = assistant.ask("Ist PCIe Gen4 ein Problem für Tensor-Parallelismus?")
    _ok(a, "de")
    assert "interconnect_facts" not in _tools(a) and "purchase_advice" in _tools(a)


def test_vram_per_dollar(assistant: Assistant) -> None:
    a = assistant.ask("Which node gives the most VRAM per dollar?")
    _ok(a, "en")
    quotes = next(t for t in a.tool_calls if t.name == "price_quote").result["quotes"]
    best = min(quotes, key=lambda q: (q["usd_per_gb_month"], q["configuration"]))
    assert a.prices[0].configuration == best["configuration"]


@pytest.mark.parametrize(
    "question,lang",
    [("Are the prices in the catalog real?", "en"), ("Sind die Preise verbindlich?", "de")],
)
def test_which_prices_are_published(question: str, lang: str, assistant: Assistant) -> None:
    a = assistant.ask(question)
    _ok(a, lang)
    assert {p.configuration for p in a.prices} == {"4x-a100-pcie", "4x-a100-sxm4"}
    assert "price_quote" in _tools(a)


def test_price_per_card(assistant: Assistant) -> None:
    a = assistant.ask("Price per GPU for 4x H200?")
    q = next(t for t in a.tool_calls if t.name == "price_quote").result["quotes"][0]
    assert f"${q['usd_per_card_month']:,.2f} per card" in _ok(a, "en")


# evals-29 / evals-30: card specs need no model
def test_cards_with_48_gb(assistant: Assistant, deps: Deps) -> None:
    a = assistant.ask("Which GPUs have 48 GB?")
    text = _ok(a, "en")
    want = sorted(g.short_name for g in deps.catalog.gpus.values() if g.memory_gb == 48)
    assert "card_facts" in _tools(a)
    assert all(name in text.splitlines()[0] for name in want)


def test_vram_of_one_card(assistant: Assistant, deps: Deps) -> None:
    a = assistant.ask("Wie viel VRAM hat die H200?")
    text = _ok(a, "de")
    mem = deps.catalog.gpus["h200"].memory_gb
    assert text.startswith(f"**H200: {mem:.0f} GB pro Karte**")
    assert {p.configuration for p in a.prices} == {"4x-h200", "8x-h200"}


# evals-31: pipeline or tensor parallelism over PCIe: pipeline
def test_pipeline_or_tensor_over_pcie(assistant: Assistant) -> None:
    a = assistant.ask("Should I use pipeline or tensor parallelism over PCIe for Llama 3.3 70B?")
    text = _ok(a, "en")
    assert text.startswith("**Over PCIe: pipeline parallelism.**")
    assert any(c.url.endswith("#pipeline-parallelism") for c in a.citations)
    tp = next(t for t in a.tool_calls if t.name == "tensor_parallel_cost").result
    assert f"{tp['syncs_per_token']} synchronisations per token" in text
    rules = {t.result["rule"]["number"] for t in a.tool_calls if t.name == "purchase_advice"}
    assert rules == {3}


# evals-32..36
def test_memory_bandwidth_of_a_card(assistant: Assistant, deps: Deps) -> None:
    a = assistant.ask("What is the memory bandwidth of the L40S?")
    bw = deps.catalog.gpus["l40s"].memory_bandwidth_gb_s
    assert _ok(a, "en").startswith(f"**L40S: memory bandwidth {bw:,.0f} GB/s**")


def test_layers_and_allreduces_per_token(assistant: Assistant) -> None:
    a = assistant.ask(
        "Wie viele Layer hat Llama 3.3 70B und wie viele All-Reduces pro Token sind das?"
    )
    text = _ok(a, "de")
    tp = next(t for t in a.tool_calls if t.name == "tensor_parallel_cost").result
    assert f"{tp['model']['layers']} Layer" in text
    assert f"{tp['syncs_per_token']} Abgleiche pro Token" in text
    assert "gradient_allreduce_time" not in _tools(a)


def test_node_with_the_most_vram(assistant: Assistant, deps: Deps) -> None:
    a = assistant.ask("Which node has the most VRAM?")
    _ok(a, "en")
    best = max(
        deps.catalog.configurations.values(),
        key=lambda c: deps.catalog.gpus[c.gpu].memory_gb * c.count,
    )
    assert a.prices[0].configuration == best.id


def test_gen4_card_in_a_gen5_node(assistant: Assistant) -> None:
    a = assistant.ask(
        "Is 2x RTX 4090 in the Gen4 chassis slower for tensor parallelism than a Gen5 node?"
    )
    text = _ok(a, "en")
    assert text.startswith("**No difference")
    nodes = next(t for t in a.tool_calls if t.name == "interconnect_facts").result["nodes"]
    assert {n["configuration"] for n in nodes} == {"2x-rtx-4090-gen4", "2x-rtx-4090"}


def test_kv_cache_at_full_context(assistant: Assistant, deps: Deps) -> None:
    a = assistant.ask("How much does the KV cache of Qwen3 235B take at full context?")
    text = _ok(a, "en")
    fit = next(t for t in a.tool_calls if t.name == "fit_check")
    assert fit.arguments["context_tokens"] == deps.catalog.models["qwen3-235b-a22b"].max_context
    assert text.startswith("**KV cache of Qwen3 235B-A22B at 40,960 tokens")
    assert a.citations[0].url.endswith("mixture-of-experts/#kv-cache")


@pytest.mark.parametrize(
    ("question", "lang", "tight"),
    [
        ("Which is better for FLUX.1 dev: L40S or RTX 4090?", "en", "1x-rtx-4090"),
        ("Which card for FLUX.1 dev?", "en", "1x-l4"),
        ("Passt Wan 2.1 14B auf eine H100?", "de", "1x-h100-pcie"),
    ],
)
def test_image_card_without_room_gets_the_guides_advice(
    question: str, lang: str, tight: str, assistant: Assistant, deps: Deps
) -> None:
    """A card that holds an image/video model only tightly (fit_check's room) is named, with the
    guide's 'the cheapest card that fits is rarely the right one' cited."""
    a = assistant.ask(question)
    text = _ok(a, lang)
    fit = next(c for c in a.tool_calls if c.name == "fit_check").result
    row = next(r for r in fit["rows"] if r["configuration"] == tight)
    assert row["room"] == "tight"
    label = deps.catalog.configurations[tight].label
    assert (f"On {label} it fills" if lang == "en" else f"Auf {label} füllt") in text
    assert any(c.url.endswith("#cheapest-is-rarely-right") for c in a.citations)


def test_image_card_with_room_gets_no_warning(assistant: Assistant) -> None:
    a = assistant.ask("Does SDXL run on an L4?")
    text = _ok(a, "en")
    assert "no headroom" not in text and "is left" not in text
    assert not any(c.url.endswith("#cheapest-is-rarely-right") for c in a.citations)


@pytest.mark.parametrize(
    ("question", "lang", "count"),
    [("What does 2x H100 cost?", "en", 2), ("Was kostet 4x H100?", "de", 4)],
)
def test_card_family_price_says_both_variants_only_when_both_exist(
    question: str, lang: str, count: int, assistant: Assistant, deps: Deps
) -> None:
    a = assistant.ask(question)
    text = _ok(a, lang)
    family = [
        c.id
        for c in deps.catalog.configurations.values()
        if c.gpu in ("h100-pcie", "h100-sxm5") and c.count == count
    ]
    assert sorted(p.configuration for p in a.prices) == sorted(family)
    both = ("both prices" if lang == "en" else "beide Preise") in text
    assert both == (len(family) > 1), text[:200]


@pytest.mark.parametrize(
    ("question", "lang"),
    [
        ("What's faster for Llama 3.3 70B: 4x A100 SXM4 or 2x H200?", "en"),
        ("Welcher ist schneller für Llama 3.3 70B: 4x A100 SXM4 oder 2x H200?", "de"),
    ],
)
def test_a_node_the_catalog_lacks_is_answered_with_the_nearest_and_said(
    question: str, lang: str, assistant: Assistant, deps: Deps
) -> None:
    """'2x H200' does not exist (H200 nodes have 4 or 8 cards): both halves of the question are
    answered, the H200 half on the smallest H200 node that holds the model, and the answer says
    so, instead of silently dropping it."""
    assert not any(c.gpu == "h200" and c.count == 2 for c in deps.catalog.configurations.values())
    a = assistant.ask(question)
    text = _ok(a, lang)
    speeds = {c.arguments["configuration"] for c in a.tool_calls if c.name == "throughput_estimate"}
    assert "4x-a100-sxm4" in speeds
    h200 = [s for s in speeds if deps.catalog.configurations[s].gpu == "h200"]
    assert len(h200) == 1
    assert ("no 2-card H200 node" if lang == "en" else "mit 2 H200-Karten gibt es") in text


def test_compare_lead_names_the_node_that_holds_it_when_the_cheaper_does_not(
    assistant: Assistant, deps: Deps
) -> None:
    a = assistant.ask("Which is cheaper for Llama 3.3 70B: 2x H100 PCIe or 4x H100 SXM5?")
    text = _ok(a, "en")
    fit = next(c for c in a.tool_calls if c.name == "fit_check").result
    verdicts = {r["configuration"]: r["verdict"] for r in fit["rows"]}
    assert verdicts["2x-h100-pcie"] == "does_not_fit" and verdicts["4x-h100-sxm5"] == "split"
    label = deps.catalog.configurations["4x-h100-sxm5"].label
    assert text.startswith(f"**Only [{label}]")
    assert "is the cheaper one" not in text


@pytest.mark.parametrize(
    ("question", "lang", "phrase"),
    [
        (
            "Braucht man bei MoE Modellen mehr VRAM als bei dichten Modellen?",
            "de",
            "Gesamtparameter",
        ),
        ("Do MoE models need more VRAM than dense models?", "en", "total parameters"),
        (
            "Do mixture-of-experts models need more memory than a dense model of the same speed?",
            "en",
            "total parameters",
        ),
    ],
)
def test_moe_versus_dense_memory_is_answered_from_the_moe_guide(
    question: str, lang: str, phrase: str, assistant: Assistant
) -> None:
    """qa-sweep: a general MoE-vs-dense memory question got "which model?" and rule 1; the MoE
    guide's short answer says it (every expert sits in VRAM: size with the total parameters)."""
    a = assistant.ask(question)
    text = _ok(a, lang)
    assert "purchase_advice" not in _tools(a)
    assert any(c.guide == "mixture-of-experts" and "short-answer" in c.url for c in a.citations)
    assert phrase in text


@pytest.mark.parametrize(
    ("question", "lang", "named"),
    [
        (
            "Compare 2x L40S vs 1x H100 PCIe for Mistral Small 24B",
            "en",
            ["2x-l40s", "1x-h100-pcie"],
        ),
        ("Compare 2x L40S vs 1x A100 for Mistral Small 24B", "en", ["2x-l40s", "1x-a100-pcie"]),
        ("Vergleich 2x L40S mit 1x A100 für Mistral Small 24B", "de", ["2x-l40s", "1x-a100-pcie"]),
    ],
)
def test_two_pcie_nodes_compared_for_a_model_are_both_answered(
    question: str, lang: str, named: list[str], assistant: Assistant, deps: Deps
) -> None:
    """qa-sweep: two PCIe nodes compared for a model went to the NVLink flow ("No, you don't
    need NVLink", neither node priced) or dropped the '1x A100' half. Both nodes are sized,
    priced and timed; the lead names the cheaper one; the rule is rule 1 when one of them is
    a one-card node that holds it (not the rules for a model too big for one card)."""
    a = assistant.ask(question)
    text = _ok(a, lang)
    assert sorted(p.configuration for p in a.prices) == sorted(named)
    speeds = {c.arguments["configuration"] for c in a.tool_calls if c.name == "throughput_estimate"}
    assert speeds == set(named)
    pq = call_tool(deps, "price_quote", {"configurations": named}).result
    cheap = pq["cheapest"]
    label = deps.catalog.configurations[cheap].label
    assert text.startswith(f"**[{label}]"), text[:120]
    fit = call_tool(
        deps, "fit_check", {"model": "mistral-small-24b", "configurations": named}
    ).result
    one = [r for r in fit["rows"] if r["verdict"] == "fits_one_card" and r["count"] == 1]
    advice = [c.result for c in a.tool_calls if c.name == "purchase_advice"]
    assert one and len(advice) == 1 and advice[0]["rule"]["number"] == 1
    assert "NVLink" not in text.split("\n")[0]


@pytest.mark.parametrize(
    ("first", "follow", "lang", "want"),
    [
        ("Was kostet eine L40S?", "und 4 davon?", "de", "4x-l40s"),
        ("Wieviel kostet eine RTX A6000 pro Monat?", "und zwei davon?", "de", "2x-rtx-a6000"),
        ("What does one RTX 4090 cost?", "and two of them?", "en", "2x-rtx-4090"),
        ("Passt Llama 3.3 70B auf 2x A100 PCIe?", "und auf vier?", "de", "4x-a100-pcie"),
    ],
)
def test_a_count_that_ends_a_follow_up_is_the_new_card_count(
    first: str, follow: str, lang: str, want: str, assistant: Assistant, deps: Deps
) -> None:
    """qa-sweep: "und 4 davon?", "and two of them?", "und auf vier?" repeated the previous
    node (the count was read only as "4x"); the count now picks the node with that many cards."""
    a1 = assistant.ask(first)
    a2 = assistant.ask(follow, session_id=a1.session_id)
    text = _ok(a2, lang)
    assert want in {p.configuration for p in a2.prices}
    price = deps.catalog.configurations[want].usd_per_month
    assert f"${int(price):,}/" in text


def test_a_large_number_ending_a_follow_up_is_not_a_card_count(assistant: Assistant) -> None:
    u = assistant.nlu.understand("und bei 50?")
    assert u.count is None


def test_worth_it_over_compares_the_two_cards(assistant: Assistant, deps: Deps) -> None:
    """qa-sweep: "Is the B200 worth it over the H200 for DeepSeek V3?" got "Yes, it fits here"
    (a different question); it is the comparison: both nodes priced and timed. Issue 12: its
    yes/no comes first, by the criterion it names (cost per million tokens), then the winner."""
    a = assistant.ask("Is the B200 worth it over the H200 for DeepSeek V3?")
    text = _ok(a, "en")
    cost = {
        deps.catalog.configurations[c.arguments["configuration"]].gpu: c.result[
            "usd_per_million_tokens"
        ]
        for c in a.tool_calls
        if c.name == "throughput_estimate"
    }
    assert set(cost) == {"b200", "h200"}
    b200_wins = cost["b200"] < cost["h200"]
    assert text.startswith("**Yes.**" if b200_wins else "**No.**"), text[:80]
    winner = next(
        c.label
        for c in deps.catalog.configurations.values()
        if c.gpu == ("b200" if b200_wins else "h200") and c.label in text.split("\n")[0]
    )
    assert "per million" in text.split("\n")[0] and winner
