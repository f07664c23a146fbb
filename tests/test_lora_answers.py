"""LoRA / QLoRA fine-tuning questions get the adapter memory (memory_need with adapter=...),
not the BF16 serving fit. Every expected figure is computed from the tools."""

from __future__ import annotations

from typing import Any

import pytest

from assistant.deps import Deps
from assistant.registry import call_tool
from assistant.service import Assistant
from assistant.texts import gb
from tests.answers import last_call as _call
from tests.answers import ok as _ok


def _need(deps: Deps, model: str, adapter: str) -> dict[str, Any]:
    return call_tool(deps, "memory_need", {"model": model, "adapter": adapter}).result


@pytest.mark.parametrize(
    ("question", "lang", "lead"),
    [
        ("Can I fine-tune Llama 3.1 8B with QLoRA on one L4?", "en", "**Yes"),
        ("Kann ich Llama 3.1 8B mit QLoRA auf einer L4 feintunen?", "de", "**Ja"),
    ],
)
def test_qlora_8b_fits_one_l4(
    question: str, lang: str, lead: str, assistant: Assistant, deps: Deps
) -> None:
    a = assistant.ask(question)
    text = _ok(a, lang)
    mem = _need(deps, "llama-3.1-8b", "qlora")
    assert text.startswith(lead), text[:200]
    assert _call(a, "memory_need").arguments["adapter"] == "qlora"
    for key in ("total_gb", "base_weights_gb", "adapter_state_gb"):
        assert gb(lang, mem[key]) in text, (key, text)
    assert "1x-l4" in {p.configuration for p in a.prices}
    assert _call(a, "purchase_advice").result["rule"]["number"] == 1
    assert ("rank 16" if lang == "en" else "Rang 16") in text
    assert "BF16 fits on one card" not in text  # not the serving fit


@pytest.mark.parametrize(
    ("question", "lang", "lead"),
    [
        ("Can I LoRA fine-tune Llama 3.3 70B on one 80 GB card?", "en", "**No"),
        ("Passt LoRA-Finetuning von Llama 3.3 70B auf eine 80-GB-Karte?", "de", "**Nein"),
    ],
)
def test_lora_70b_bf16_does_not_fit_one_80gb_card(
    question: str, lang: str, lead: str, assistant: Assistant, deps: Deps
) -> None:
    a = assistant.ask(question)
    text = _ok(a, lang)
    mem = _need(deps, "llama-3.3-70b", "lora")
    assert mem["total_gb"] > 80
    assert text.startswith(lead), text[:200]
    assert gb(lang, mem["total_gb"]) in text
    assert _call(a, "purchase_advice").result["rule"]["number"] == 4


@pytest.mark.parametrize(
    ("question", "lang", "lead"),
    [
        ("Can I QLoRA Llama 3.3 70B on one A100?", "en", "**Yes"),
        ("Passt QLoRA-Finetuning von Llama 3.3 70B auf eine 80-GB-Karte?", "de", "**Ja"),
    ],
)
def test_qlora_70b_fits_one_80gb_card(
    question: str, lang: str, lead: str, assistant: Assistant, deps: Deps
) -> None:
    a = assistant.ask(question)
    text = _ok(a, lang)
    mem = _need(deps, "llama-3.3-70b", "qlora")
    assert 40 <= mem["total_gb"] <= 50
    assert text.startswith(lead), text[:200]
    assert gb(lang, mem["total_gb"]) in text and "NF4" in text
    assert _call(a, "purchase_advice").result["rule"]["number"] == 1


def test_lora_memory_question_in_german(assistant: Assistant, deps: Deps) -> None:
    a = assistant.ask("Wie viel Speicher braucht LoRA-Finetuning von Llama 3.3 70B?")
    text = _ok(a, "de")
    mem = _need(deps, "llama-3.3-70b", "lora")
    assert text.startswith(f"**LoRA-Fine-Tuning von Llama 3.3 70B braucht etwa {gb('de', 144.42)}")
    assert gb("de", mem["base_weights_gb"]) in text and gb("de", mem["adapter_state_gb"]) in text
    assert "Aktivierungen sind nicht enthalten" in text
    assert "Volles Fine-Tuning" not in text


def test_lora_with_4bit_is_qlora_and_rank_and_targets_are_read(assistant: Assistant) -> None:
    a = assistant.ask(
        "LoRA fine-tune Llama 3.1 8B in 4-bit with rank 64 on an RTX 4090, attention only"
    )
    _ok(a, "en")
    args = _call(a, "memory_need").arguments
    assert (args["adapter"], args["lora_rank"], args["lora_targets"]) == ("qlora", 64, "attention")


def test_follow_up_keeps_the_adapter(assistant: Assistant, deps: Deps) -> None:
    first = assistant.ask("Can I QLoRA Llama 3.3 70B on one A100?")
    a = assistant.ask("and on an L40S?", session_id=first.session_id)
    text = _ok(a, "en")
    assert _call(a, "memory_need").arguments["adapter"] == "qlora"
    assert text.startswith("**Yes"), text[:200]  # 42.8 GB of 43.2 GB usable
    b = assistant.ask("and in BF16?", session_id=first.session_id)
    assert _call(b, "memory_need").arguments["adapter"] == "lora"
    full = assistant.ask(
        "How much memory does full fine-tuning of Llama 3.3 70B need?",
        session_id=first.session_id,
    )
    assert _call(full, "memory_need").arguments.get("training") is True


@pytest.mark.parametrize(
    "question", ["How much memory does LoRA fine-tuning of DeepSeek V3 need?", "QLoRA a 34B model?"]
)
def test_unmodelled_shapes_say_so(question: str, assistant: Assistant) -> None:
    a = assistant.ask(question)
    text = _ok(a, "en")
    assert "can't size" in text
    assert " GB" not in text


@pytest.mark.parametrize(
    ("question", "lang", "adapter", "rule"),
    [
        ("Do I need NVLink for QLoRA fine-tuning of Llama 3.3 70B?", "en", "qlora", 1),
        ("Brauche ich NVLink für LoRA-Finetuning von Llama 3.3 70B?", "de", "lora", 4),
    ],
)
def test_nvlink_question_about_lora_uses_the_adapter_memory(
    question: str, lang: str, adapter: str, rule: int, assistant: Assistant
) -> None:
    a = assistant.ask(question)
    text = _ok(a, lang)
    assert _call(a, "memory_need").arguments["adapter"] == adapter
    assert _call(a, "purchase_advice").result["rule"]["number"] == rule
    assert "1,270 GB" not in text and "1.270 GB" not in text  # not full fine-tuning


@pytest.mark.parametrize(
    ("question", "lang"),
    [
        ("What is the cheapest node for QLoRA fine-tuning of Llama 3.3 70B?", "en"),
        ("Was ist der günstigste Server für QLoRA-Finetuning von Llama 3.3 70B?", "de"),
    ],
)
def test_cheapest_for_qlora_sizes_the_adapter_job(
    question: str, lang: str, assistant: Assistant, deps: Deps
) -> None:
    """A price question about QLoRA sizes the QLoRA job, not the BF16 serving split."""
    a = assistant.ask(question)
    text = _ok(a, lang)
    mem = _need(deps, "llama-3.3-70b", "qlora")
    assert _call(a, "memory_need").arguments["adapter"] == "qlora"
    assert gb(lang, mem["total_gb"]) in text
    util = 0.9
    cat = deps.catalog
    holders = [
        c
        for c in cat.configurations.values()
        if c.count == 1 and cat.gpus[c.gpu].memory_gb * util >= mem["total_gb"]
    ]
    cheapest = min(holders, key=lambda c: (c.usd_per_month, c.id))
    assert [p.configuration for p in a.prices] == [cheapest.id]
    assert "cheapest_fit" not in {c.name for c in a.tool_calls}


def test_cheapest_for_lora_70b_names_the_cheapest_sxm_node_that_holds_it(
    assistant: Assistant, deps: Deps
) -> None:
    """LoRA of a 70B model in BF16 is split across cards; training wants NVLink (rule 4), so
    the answer names the cheapest SXM node whose cards together hold it, with its price."""
    a = assistant.ask("Cheapest node for LoRA of Llama 3.3 70B?")
    text = _ok(a, "en")
    mem = _need(deps, "llama-3.3-70b", "lora")
    cat = deps.catalog
    sxm = [
        c
        for c in cat.configurations.values()
        if c.count > 1
        and cat.links[c.interconnect].kind == "nvlink"
        and c.count * cat.gpus[c.gpu].memory_gb * 0.9 >= mem["total_gb"]
    ]
    cheapest = min(sxm, key=lambda c: (c.usd_per_month, c.id))
    assert cheapest.id in {p.configuration for p in a.prices}
    assert f"cheapest SXM node that holds it is [{cheapest.label}]" in text
    assert _call(a, "purchase_advice").result["rule"]["number"] == 4


def test_follow_up_keeps_the_rank_and_targets(assistant: Assistant, deps: Deps) -> None:
    """'und mit Rang 64?' then 'und auf einer RTX 4090?': the second follow-up sizes the same
    rank-64 adapters (sessions carry lora_rank and attention-only)."""
    first = assistant.ask("Kann ich QLoRA mit Llama 3.3 70B auf einer L40S machen?")
    r64 = assistant.ask("und mit Rang 64?", session_id=first.session_id)
    again = assistant.ask("und auf einer RTX 4090?", session_id=first.session_id)
    want = call_tool(
        deps, "memory_need", {"model": "llama-3.3-70b", "adapter": "qlora", "lora_rank": 64}
    ).result
    for a in (r64, again):
        text = _ok(a, "de")
        assert _call(a, "memory_need").arguments["lora_rank"] == 64
        assert gb("de", want["total_gb"]) in text
    assert "1x-rtx-4090" in {p.configuration for p in again.prices}
    attn = assistant.ask("QLoRA of Llama 3.1 8B with rank 8 on attention only on an L4?")
    nxt = assistant.ask("and on an RTX 4090?", session_id=attn.session_id)
    args = _call(nxt, "memory_need").arguments
    assert (args["lora_rank"], args["lora_targets"]) == (8, "attention")


@pytest.mark.parametrize(
    ("question", "lang", "lead"),
    [
        ("Do I need NVLink to QLoRA fine-tune Llama 3.3 70B?", "en", "**No"),
        ("Reicht PCIe für QLoRA von Llama 3.3 70B?", "de", "**Ja"),
        ("Do I need NVLink for LoRA on Llama 3.3 70B?", "en", "**Yes"),
    ],
)
def test_the_link_question_for_an_adapter_fine_tune_is_answered_first(
    question: str, lang: str, lead: str, assistant: Assistant
) -> None:
    # the adapter memory decides one card or a split, and the purchase rule the link: the
    # yes/no comes first, in the asker's polarity (QLoRA 70B ~43 GB: one card, no NVLink;
    # LoRA 70B: a BF16 base over one card, split, NVLink)
    a = assistant.ask(question)
    text = _ok(a, lang)
    advice = _call(a, "purchase_advice").result
    assert text.startswith(lead), text[:200]
    assert advice["needs_nvlink"] is (lead in ("**Yes", "**Nein"))
