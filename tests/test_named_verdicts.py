"""Yes/no verdicts about the hardware the question names, from the tool that judges that job.

A full fine-tune asked about a named node is judged by `training_fit` on that node (not by the
serving fit), the yes/no of a relayed question is found in its question sentence, a follow-up that
continues a yes/no question is the same yes/no question, and "fine-tune" is no claim that
something is "fine". Expected verdicts come from the tools behind each answer.
"""

from __future__ import annotations

import pytest

from assistant.answer import Answer
from assistant.nlu.asks import is_yes_no
from assistant.service import Assistant
from tests.answers import last_call

WITH_GUIDE_INDEX = True  # tests/conftest.py builds the shipped guide index for `deps`


def _first_word(answer: Answer) -> str:
    return answer.answer.lstrip("*_ ").split()[0].strip(".,—*").lower()


def test_full_fine_tune_on_a_named_node_is_judged_by_training_fit(assistant: Assistant) -> None:
    a = assistant.ask(
        "Customer has our 4x RTX 4090 box and now wants to do a full fine-tune (not LoRA) of "
        "Llama 3.1 8B on it. Will that work memory-wise?"
    )
    call = last_call(a, "training_fit")
    assert call.arguments["configurations"] == ["4x-rtx-4090"]
    row = call.result["rows"][0]
    assert row["configuration"] == "4x-rtx-4090" and row["fits_node"] is False
    assert _first_word(a) == "no"
    assert a.reading is not None and a.reading.claim != "healthy"


def test_a_named_node_that_holds_the_training_job_gets_yes(assistant: Assistant) -> None:
    a = assistant.ask("Can we do a full fine-tune of Llama 3.1 8B on 8x H100 SXM5?")
    row = last_call(a, "training_fit").result["rows"][0]
    assert row["configuration"] == "8x-h100-sxm5" and row["fits_node"] is True
    assert _first_word(a) == "yes"


def test_a_follow_up_continuing_a_yes_no_question_is_answered_yes_or_no(
    assistant: Assistant,
) -> None:
    first = assistant.ask("Can I QLoRA fine-tune Llama 3.3 70B on one A100 80GB?")
    assert _first_word(first) == "yes"
    second = assistant.ask("and a full fine-tune, not LoRA?", session_id=first.session_id)
    row = last_call(second, "training_fit").result["rows"][0]
    assert row["count"] == 1 and row["fits_one_card"] is False
    assert _first_word(second) == "no"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Customer has a 4x RTX 4090 box. Will a full fine-tune of Llama 3.1 8B work?", True),
        ("Kunde hat 4x L40S. Reicht das für Llama 3.3 70B in FP8?", True),
        ("We run Llama 3.1 8B. What does 1x L4 cost per month?", False),
        ("What does 1x L4 cost? Does it hold Llama 3.1 8B?", False),
    ],
)
def test_the_yes_no_is_read_from_the_first_question_sentence(question: str, expected: bool) -> None:
    assert is_yes_no(question) is expected


def test_a_stated_price_asked_about_keeps_the_price_ask_first(assistant: Assistant) -> None:
    a = assistant.ask(
        '[Slack] Kunde schreibt: "Euer Vertrieb hat uns die 4x L40S für 1.890 $ im Monat '
        'angeboten. Stimmt das? Wir wollen darauf Llama 3.3 70B in FP8 laufen lassen."'
    )
    assert a.reading is not None
    assert [k.kind for k in a.reading.asks][:1] == ["price"]
    assert any(c.name == "price_quote" for c in a.tool_calls)


def test_a_yes_no_about_a_named_card_in_a_cheapest_question_is_answered_for_that_card(
    assistant: Assistant,
) -> None:
    """The cheapest flow's "something holds it" is not the answer to "Reicht eine RTX 5090?":
    the fit rows of the card named decide the first word, and they are stated."""
    a = assistant.ask(
        "wir möchten Phi-4 für 12 gleichzeitige Nutzer mit jeweils 16k Kontext betreiben. "
        "Reicht\ndafür eine einzelne RTX 5090? Falls nicht: welche Karte wäre die günstigste?"
    )
    rows = [
        r
        for c in a.tool_calls
        if c.name == "fit_check" and "configurations" not in c.arguments
        for r in c.result["rows"]
        if r["configuration"] == "1x-rtx-5090"
    ]
    assert rows and rows[0]["verdict"] == "does_not_fit"
    assert _first_word(a) == "nein"
    assert any(c.name == "cheapest_fit" for c in a.tool_calls)


def test_an_exclusion_said_with_words_between_card_and_verb_is_read(assistant: Assistant) -> None:
    a = assistant.ask(
        "Wir wollen Llama 3.3 70B in FP8 betreiben. Die RTX A6000 kommt für uns nicht in "
        "Frage. Was würden Sie empfehlen?"
    )
    assert a.reading is not None and a.reading.exclude_cards == ["rtx-a6000"]
    assert "rtx-a6000" not in a.reading.cards


def test_an_nvlink_yes_no_leads_and_the_price_asked_after_it_is_given(
    assistant: Assistant,
) -> None:
    a = assistant.ask(
        "Is PCIe enough for Llama 3.1 8B on the 2x L4 box for a few developers? And what does "
        "that box cost per month?"
    )
    assert a.reading is not None and a.reading.claim == "pcie_enough"
    assert [k.kind for k in a.reading.asks] == ["price"]
    assert _first_word(a) == "yes"  # 8B fits one L4: no NVLink needed
    assert "2x-l4" in {p.configuration for p in a.prices}
    assert not a.reading.unread


def test_a_fit_yes_no_inside_an_nvlink_conversation_is_answered_as_a_fit(
    assistant: Assistant,
) -> None:
    first = assistant.ask("Do I need NVLink for Llama 3.3 70B with 40 concurrent users?")
    second = assistant.ask(
        "and in FP8 on a single L40S, does it fit then?", session_id=first.session_id
    )
    rows = [
        r
        for c in second.tool_calls
        if c.name == "fit_check"
        for r in c.result["rows"]
        if r["configuration"] == "1x-l40s"
    ]
    assert rows and rows[0]["verdict"] == "does_not_fit"
    assert _first_word(second) == "no"


@pytest.mark.parametrize(("budget", "word"), [(600, "yes"), (200, "no")])
def test_anything_within_a_budget_is_answered_yes_or_no(
    assistant: Assistant, budget: int, word: str
) -> None:
    a = assistant.ask(
        f"Under ${budget}/month, is there anything of yours that runs Mistral 7B in FP8?"
    )
    assert _first_word(a) == word


@pytest.mark.parametrize(
    ("question", "first"),
    [
        (
            "We need at least 80 GB per GPU and NVLink, at most $9,000 a month. Which nodes?",
            "4x-a100-sxm4",
        ),
        ("Mindestens 40 GB pro Karte, unter 700 $ im Monat. Was habt ihr da?", "1x-rtx-a6000-gen4"),
    ],
)
def test_hardware_constraints_without_a_model_list_the_nodes_within(
    assistant: Assistant, question: str, first: str
) -> None:
    a = assistant.ask(question)
    res = last_call(a, "nodes_within").result
    assert res["cheapest"][0]["configuration"] == first
    assert first in {p.configuration for p in a.prices}


def test_must_have_nvlink_is_a_requirement_not_a_yes_no(assistant: Assistant) -> None:
    a = assistant.ask("Must have NVLink and at least 300 GB of GPU memory. Cheapest node?")
    assert a.reading is not None
    assert a.reading.require_link == "nvlink" and a.reading.claim is None
    assert last_call(a, "nodes_within").result["cheapest"][0]["configuration"] == "4x-a100-sxm4"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("they fine-tuned Qwen3 14B on their tickets and want to serve it to 25 agents", True),
        ("Wir haben Llama 3.1 8B feingetunt und wollen es jetzt für 40 Nutzer betreiben", True),
        ("und danach nur Inferenz, kein Training mehr?", True),
        ("and afterwards only inference – cheapest server?", True),
        ("We want to fine-tune Llama 3.1 8B and then serve it", False),
        ("Full fine-tune of Llama 3.1 8B on 8x H100?", False),
    ],
)
def test_serving_a_tuned_model_is_not_training(question: str, expected: bool) -> None:
    from assistant.nlu.lexicon import _fold
    from assistant.nlu.workloads import serving_only

    assert serving_only(_fold(question)) is expected


def test_only_inference_after_a_fine_tuning_turn_sizes_serving(assistant: Assistant) -> None:
    first = assistant.ask("How much memory does a LoRA fine-tune of Llama 3.1 8B need?")
    assert any(c.name == "training_fit" for c in first.tool_calls)
    second = assistant.ask(
        "and afterwards only inference, no training – cheapest server for 5 chats at once?",
        session_id=first.session_id,
    )
    assert second.reading is not None and second.reading.task == "serve"
    assert not any(c.name in ("training_fit", "memory_need") for c in second.tool_calls)
    cheapest = last_call(second, "cheapest_fit").result["cheapest"][0]["configuration"]
    assert cheapest in {p.configuration for p in second.prices}


def test_a_fine_tuned_model_to_serve_is_sized_for_serving(assistant: Assistant) -> None:
    a = assistant.ask(
        "They fine-tuned Qwen3 14B on their support tickets and want to serve it to about 25 "
        "agents at the same time. What is the cheapest option?"
    )
    assert a.reading is not None and a.reading.task == "serve"
    assert "fine_tuning" not in a.reading.workloads
    assert not any(c.name == "training_fit" for c in a.tool_calls)
    assert last_call(a, "cheapest_fit").arguments["concurrency"] == 25


def test_nothing_within_the_budget_names_the_cheapest_above_it_keeping_exclusions(
    assistant: Assistant,
) -> None:
    a = assistant.ask("Mixtral 8x7B in BF16, at most $1,500 a month, and no RTX A6000 please.")
    call = last_call(a, "cheapest_fit")
    allowed = call.arguments.get("configurations") or []
    assert allowed and not any("a6000" in c for c in allowed)
    top = call.result["cheapest"][0]["configuration"]
    assert "a6000" not in top and top in {p.configuration for p in a.prices}
    assert call.result["cheapest"][0]["usd_per_month"] > 1500


def test_how_much_memory_is_its_own_ask_answered_from_memory_need(assistant: Assistant) -> None:
    a = assistant.ask(
        "How much VRAM does Qwen2.5 72B need in FP8 with a 32k context, and what's the cheapest "
        "node that holds it?"
    )
    assert a.reading is not None
    assert [k.kind for k in a.reading.asks][:1] == ["memory"]
    mem = last_call(a, "memory_need").result
    assert mem["precision"] == "fp8" and mem["context_tokens"] == 32768
    assert f"{mem['required_gb_total']:.1f} GB" in a.answer
    assert any(c.name == "cheapest_fit" for c in a.tool_calls)
    assert a.violations == []
