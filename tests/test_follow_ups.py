"""Follow-ups about what the previous answer chose, and the KV cache's precision as a slot.

A follow-up that asks a new kind of question (how many at once, how fast, what it costs) after
an answer that chose a configuration ("the cheapest single card is Z") runs on Z, with or without
a referring word; a follow-up that continues the previous question ("and in FP8?") does not.
The KV cache's precision ("FP8 KV cache", "KV cache in 8 bit") is its own slot, kept by the
session, passed to the sizing tools and stated with the KV figure.
Expected figures come from the tools behind each answer.
"""

from __future__ import annotations

import re

import pytest

from assistant.answer import Answer
from assistant.deps import Deps
from assistant.nlu import Understander
from assistant.registry import call_tool
from assistant.service import Assistant
from tests.answers import last_call, ok

WITH_GUIDE_INDEX = True  # tests/conftest.py builds the shipped guide index for `deps`


def _ask(assistant: Assistant, *questions: str, sid: str | None = None) -> list[Answer]:
    out: list[Answer] = []
    for q in questions:
        a = assistant.ask(q, session_id=sid)
        sid = a.session_id
        out.append(a)
    return out


def _chosen(answer: Answer) -> str:
    """The configuration a cheapest answer chose: the first row of its cheapest_fit call."""
    return str(last_call(answer, "cheapest_fit").result["cheapest"][0]["configuration"])


def _names(answer: Answer) -> list[str]:
    return [c.name for c in answer.tool_calls]


CAPACITY_CONVERSATIONS = [
    (
        "en",
        [
            "Does Qwen3 32B fit on one RTX 4090?",
            "and in FP8?",
            "which is the cheapest single card where it fits in FP8?",
            "and how many people could chat on it at the same time with 8k context?",
        ],
    ),
    (
        "en",
        [
            "Can I run Mistral Small 24B on a single L4?",
            "What about FP8?",
            "OK, what's the cheapest one-GPU server that holds it in FP8?",
            "How many users can it serve simultaneously at 8k tokens each?",
        ],
    ),
    (
        "de",
        [
            "Passt Qwen3 32B auf eine RTX 4090?",
            "und in FP8?",
            "Welche ist die günstigste einzelne Karte, auf die es in FP8 passt?",
            "Wie viele Leute könnten darauf gleichzeitig mit 8k Kontext chatten?",
        ],
    ),
    (
        "de",
        [
            "Läuft Gemma 3 27B auf einer einzelnen L4?",
            "Und mit FP8?",
            "Was ist die billigste einzelne Karte dafür in FP8?",
            "Wie viele Nutzer schafft die gleichzeitig bei 8k Kontext?",
        ],
    ),
]


@pytest.mark.parametrize(("lang", "turns"), CAPACITY_CONVERSATIONS)
def test_a_new_kind_of_question_runs_on_the_configuration_the_answer_chose(
    assistant: Assistant, lang: str, turns: list[str]
) -> None:
    answers = _ask(assistant, *turns)
    chosen = _chosen(answers[2])
    asked = answers[0].tool_calls[0].arguments.get("configurations") or []
    assert chosen not in asked  # the card the answer named, not the one the user named
    last = answers[3]
    text = ok(last, lang)
    assert "cheapest_fit" not in _names(last)
    cap = last_call(last, "capacity_check")
    assert cap.arguments["configuration"] == chosen
    assert cap.arguments["precision"] == "fp8" and cap.arguments["context_tokens"] == 8192
    first = text.split("\n\n")[0]
    n = cap.result["max_concurrency"]
    assert re.search(rf"\b{n} (?:concurrent sequences|gleichzeitige Sequenzen)", first), first


@pytest.mark.parametrize(
    ("lang", "follow_up", "tool"),
    [
        ("en", "and how fast would it be?", "throughput_estimate"),
        ("en", "How fast is it on that one?", "throughput_estimate"),
        ("en", "what does that one cost per month?", "price_quote"),
        ("de", "Wie schnell wäre es darauf?", "throughput_estimate"),
        ("de", "Und was kostet die Karte im Monat?", "price_quote"),
    ],
)
def test_speed_and_price_after_a_cheapest_answer_are_about_its_pick(
    assistant: Assistant, lang: str, follow_up: str, tool: str
) -> None:
    first = (
        "What is the cheapest node for Llama 3.3 70B in FP8?"
        if lang == "en"
        else "Was ist der günstigste Knoten für Llama 3.3 70B in FP8?"
    )
    a1, a2 = _ask(assistant, first, follow_up)
    chosen = _chosen(a1)
    ok(a2, lang)
    call = last_call(a2, tool)
    configs = call.arguments.get("configurations") or [call.arguments.get("configuration")]
    assert configs == [chosen]
    assert a2.prices and a2.prices[0].configuration == chosen


@pytest.mark.parametrize(
    ("lang", "first", "follow_up"),
    [
        (
            "en",
            "What is the cheapest node for Llama 3.3 70B in FP8?",
            "Does it still fit there with 32k context?",
        ),
        (
            "en",
            "Cheapest single GPU for Qwen3 32B in FP8?",
            "would that one also hold a 32k context?",
        ),
        (
            "de",
            "Was ist der günstigste Knoten für Llama 3.3 70B in FP8?",
            "Passt es darauf auch mit 32k Kontext?",
        ),
    ],
)
def test_a_fit_question_about_the_pick_checks_the_pick(
    assistant: Assistant, lang: str, first: str, follow_up: str
) -> None:
    """A fit asked with a referring word after a cheapest answer checks the chosen node at the
    new context (it repeated the cheapest search)."""
    a1, a2 = _ask(assistant, first, follow_up)
    ok(a2, lang)
    assert "cheapest_fit" not in _names(a2)
    fit = a2.tool_calls[0]
    assert fit.name == "fit_check" and fit.arguments["context_tokens"] == 32768
    assert _chosen(a1) in [r["configuration"] for r in fit.result["rows"]]
    assert a2.prices[0].configuration == _chosen(a1)


def test_a_continued_question_is_not_pinned_to_the_pick(assistant: Assistant) -> None:
    """'and in AWQ?' after 'the cheapest in FP8?' asks the cheapest again, in AWQ."""
    _, a2 = _ask(assistant, "What is the cheapest node for Llama 3.3 70B in FP8?", "and in AWQ?")
    ok(a2, "en")
    assert last_call(a2, "cheapest_fit").arguments["precision"] == "awq"


def test_a_new_model_on_it_after_a_cheapest_answer(assistant: Assistant) -> None:
    a1, a2 = _ask(
        assistant,
        "Cheapest single GPU for Qwen3 32B in FP8?",
        "How fast is Llama 3.1 8B on it?",
    )
    tput = last_call(a2, "throughput_estimate")
    assert tput.arguments["model"] == "llama-3.1-8b"
    assert tput.arguments["configuration"] == _chosen(a1)


def test_the_pick_survives_a_kept_opening_answer(deps: Deps) -> None:
    """An opening question answered from the first-turn cache keeps what it chose."""
    fresh = Assistant(deps)
    q = "Which is the cheapest single card for Qwen3 14B in BF16?"
    (a1,) = _ask(fresh, q)
    (again,) = _ask(fresh, q)
    assert again.session_id != a1.session_id and again.answer == a1.answer
    (a2,) = _ask(
        fresh, "How many people can chat on it at once with 8k context?", sid=again.session_id
    )
    assert last_call(a2, "capacity_check").arguments["configuration"] == _chosen(a1)


# ------------------------------------------------------------------ the KV cache's precision


@pytest.mark.parametrize(
    ("question", "precision", "kv"),
    [
        ("and with an FP8 KV cache?", None, "fp8"),
        ("mit fp8 kv-cache", None, "fp8"),
        ("KV cache in 8 bit", None, "int8"),
        ("und mit 8-Bit-KV-Cache?", None, "int8"),
        ("Llama 3.3 70B in AWQ with the KV cache quantized to fp8 on 2x L40S", "awq", "fp8"),
        ("Llama 3.1 8B in BF16 weights, KV-Cache als FP8, auf einer L4?", "bf16", "fp8"),
        ("and if I also put the KV cache in FP8?", "fp8", "fp8"),
        ("Passt Llama 3.1 8B in FP8 auf eine L4?", "fp8", None),
        ("with kv_cache_dtype=fp8_e5m2", None, "fp8"),
        ("What if the KV cache is fp16?", None, "fp16"),
        ("Llama 3.1 8B with q8_0 KV cache in llama.cpp on one L4", None, "int8"),
        ("Was, wenn ich den KV-Cache auf FP8 quantisiere?", None, "fp8"),
    ],
)
def test_the_kv_cache_precision_is_its_own_slot(
    nlu: Understander, question: str, precision: str | None, kv: str | None
) -> None:
    u = nlu.understand(question)
    assert (u.precision, u.kv_precision) == (precision, kv)


@pytest.mark.parametrize(
    ("lang", "turns", "kv"),
    [
        (
            "en",
            ["Does Llama 3.1 8B fit on one L4 with 32k context?", "and with an FP8 KV cache?"],
            "fp8",
        ),
        (
            "de",
            ["Passt Llama 3.1 8B mit 32k Kontext auf eine L4?", "und mit 8-Bit-KV-Cache?"],
            "int8",
        ),
    ],
)
def test_a_kv_cache_follow_up_sizes_the_kv_cache_at_that_precision(
    assistant: Assistant, deps: Deps, lang: str, turns: list[str], kv: str
) -> None:
    a1, a2 = _ask(assistant, *turns)
    text = ok(a2, lang)
    fit = last_call(a2, "fit_check")
    assert fit.arguments["kv_precision"] == kv
    assert fit.arguments.get("precision") in (None, "bf16")  # the weights stay as they were
    before = last_call(a1, "fit_check").result["kv_gb"]
    assert fit.result["kv_gb"] == pytest.approx(before / 2, abs=0.06)
    label = {"fp8": "FP8", "int8": "INT8"}[kv]
    assert re.search(rf"KV[- ]cache in {label}:", text, re.IGNORECASE), text
    assert re.match(r"\*\*(Yes|Ja) — ", text), text[:120]  # BF16 weights + 1-byte KV fit
    # the session keeps it: the next follow-up sizes the KV cache at that precision too
    (a3,) = _ask(
        assistant,
        "and on an RTX 4090?" if lang == "en" else "und auf einer RTX 4090?",
        sid=a2.session_id,
    )
    assert last_call(a3, "fit_check").arguments["kv_precision"] == kv


@pytest.mark.parametrize(
    ("lang", "question", "kv", "polarity"),
    [
        ("en", "full 128K context of Llama 3.1 8B on one L4?", "bf16", "No"),
        ("en", "Can I use the whole 128k context of Llama 3.1 8B on a single L4?", "bf16", "No"),
        ("de", "Geht der volle 128K-Kontext von Llama 3.1 8B auf einer L4?", "bf16", "Nein"),
        # the converse asked: "too small?" is answered yes when it does not fit
        ("en", "Is one L4 too small for the full 128K context of Llama 3.1 8B?", "bf16", "Yes"),
        ("de", "Ist eine L4 zu klein für Llama 3.1 8B mit vollem 128K-Kontext?", "bf16", "Ja"),
        (
            "de",
            "Passt Llama 3.1 8B in FP8 mit FP8-KV-Cache und vollem 128K-Kontext auf eine L4?",
            "fp8",
            "Ja",
        ),
    ],
)
def test_a_full_context_question_answers_yes_or_no_with_the_kv_figure(
    assistant: Assistant, deps: Deps, lang: str, question: str, kv: str, polarity: str
) -> None:
    (a,) = _ask(assistant, question)
    text = ok(a, lang)
    assert text.startswith(f"**{polarity} — "), text[:120]
    fit = last_call(a, "fit_check")
    assert fit.arguments["context_tokens"] == 131072 and fit.arguments["kv_precision"] == kv
    kv_gb = call_tool(
        deps,
        "fit_check",
        {
            "model": "llama-3.1-8b",
            "context_tokens": 131072,
            "kv_precision": kv,
            "configurations": ["1x-l4"],
        },
    ).result["kv_gb"]
    shown = f"{kv_gb:.1f}" if lang == "en" else f"{kv_gb:.1f}".replace(".", ",")
    head = "\n\n".join(text.split("\n\n")[:6])  # with the lead, not at the end
    assert f"{shown} GB" in head, head


@pytest.mark.parametrize(
    ("lang", "turns"),
    [
        (
            "en",
            [
                "Is 2x L40S or 1x H100 PCIe better for Qwen3 32B in FP8?",
                "How many parallel chats with 4k context would it handle?",
            ],
        ),
        (
            "de",
            [
                "Was ist für Qwen3 32B in FP8 besser, 2x L40S oder 1x H100 PCIe?",
                "Wie viele Leute könnten da mit 4k Kontext gleichzeitig chatten?",
            ],
        ),
    ],
)
def test_after_a_comparison_the_follow_up_is_about_the_winner(
    assistant: Assistant, lang: str, turns: list[str]
) -> None:
    a1, a2 = _ask(assistant, *turns)
    cheaper = last_call(a1, "price_quote").result["cheapest"]
    ok(a2, lang)
    caps = [c for c in a2.tool_calls if c.name == "capacity_check"]
    assert [c.arguments["configuration"] for c in caps] == [cheaper]
