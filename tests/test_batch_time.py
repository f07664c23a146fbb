"""A batch's duration: "how long for 200 texts of about 500 tokens each?" is answered with the time
one stream takes (from `throughput_estimate`'s `output_tokens`), not with a speed alone."""

from __future__ import annotations

from typing import Any

import pytest

from assistant.nlu.batch import output_tokens_of
from assistant.reading.model import Reading
from assistant.registry.core import call_tool
from assistant.service import Assistant
from tests.answers import last_call
from tests.answers import ok as _ok
from tools.throughput import DecodeInput, decode_throughput


@pytest.mark.parametrize(
    ("question", "total"),
    [
        ("how long to write 1,500 product descriptions with roughly 250 tokens each?", 375_000),
        ("wie lange dauert es, 40 berichte à 2k token zu erzeugen?", 80_000),
        ("300 tokens per reply and 5.000 replies — how long will that take?", 1_500_000),
        ("wie lange brauche ich, um 2 mio token zu generieren?", 2_000_000),
    ],
)
def test_the_reader_places_a_batch_said_many_ways(question: str, total: int) -> None:
    assert output_tokens_of(question.lower()) == total


@pytest.mark.parametrize(
    "question",
    [
        "how long does it take with 16 requests of 4k tokens context each?",
        "how many tokens per second for 300 answers?",
        "is 8k tokens of context enough for 20 requests?",
    ],
)
def test_a_context_or_a_speed_alone_is_no_batch(question: str) -> None:
    assert output_tokens_of(question.lower()) is None


def test_the_tool_times_the_batch_from_its_own_speed(deps: Any) -> None:
    plain = call_tool(
        deps, "throughput_estimate", {"model": "qwen2.5-7b", "configuration": "1x-l4"}
    )
    timed = call_tool(
        deps,
        "throughput_estimate",
        {"model": "qwen2.5-7b", "configuration": "1x-l4", "output_tokens": 250_000},
    )
    assert "output_seconds" not in plain.result
    r = timed.result
    assert r["tokens_per_s"] == plain.result["tokens_per_s"]
    spec = deps.catalog.models["qwen2.5-7b"]
    exact = decode_throughput(
        DecodeInput(model=spec, gpu=deps.catalog.gpus["l4"], output_tokens=250_000)
    )
    assert exact.output_seconds == pytest.approx(250_000 / exact.tokens_per_s)
    assert r["output_seconds"] == round(exact.output_seconds)
    assert r["output_hours"] == round(exact.output_seconds / 3600, 1)
    price = float(deps.catalog.configurations["1x-l4"].usd_per_month)
    assert r["usd_for_output"] == pytest.approx(price / 730 * exact.output_seconds / 3600, abs=0.01)


def test_a_batch_question_is_answered_with_its_duration(assistant: Assistant) -> None:
    a = assistant.ask(
        "How long would Qwen2.5 7B need on one L4 to write 1,500 product descriptions of "
        "about 250 tokens each?"
    )
    text = _ok(a, "en")
    call = last_call(a, "throughput_estimate")
    assert call.arguments["output_tokens"] == 375_000
    first = text.split("\n")[0]
    hours = call.result["output_hours"]
    assert f"{hours:.1f} hours" in first and "375,000 tokens" in first
    assert a.reading is not None and a.reading.output_tokens == 375_000
    assert "375,000 tokens to write" in a.understood


def test_the_batch_is_kept_when_a_follow_up_changes_the_card(assistant: Assistant) -> None:
    first = assistant.ask("wie lange braucht llama 3.1 8b auf einer l4 für 400 texte à 500 token?")
    _ok(first, "de")
    a = assistant.ask("und auf einer h100?", session_id=first.session_id)
    text = _ok(a, "de")
    call = last_call(a, "throughput_estimate")
    assert call.arguments["output_tokens"] == 200_000
    assert (
        call.arguments["configuration"].endswith("h100")
        or "h100" in call.arguments["configuration"]
    )
    assert f"{call.result['output_minutes']:.0f} Minuten" in text.replace(".", "")


def test_an_edited_batch_re_answers_with_the_new_total(assistant: Assistant) -> None:
    reading = Reading(
        language="en",
        task="serve",
        model="qwen2.5-7b",
        configurations=["1x-l4"],
        asks=[],
        intents=["speed"],
        output_tokens=10_000,
    )
    a = assistant.answer_reading(reading)
    call = last_call(a, "throughput_estimate")
    assert call.arguments["output_tokens"] == 10_000
    assert call.result["output_seconds"] < 7200
    assert "minutes" in _ok(a, "en").split("\n")[0]


def test_a_stated_duration_no_tool_gave_is_rejected() -> None:
    from assistant.answer import Answer, ToolCall
    from assistant.grounding import check_answer

    call = ToolCall(
        name="throughput_estimate",
        arguments={"output_tokens": 100_000},
        result={"tokens_per_s": 11.8, "output_seconds": 8475, "output_hours": 2.4},
    )

    def answer(text: str) -> Answer:
        return Answer(
            question="q", language="en", mode="offline", session_id="s", message_id="m",
            answer=text, tool_calls=[call],
        )  # fmt: skip

    assert check_answer(answer("100,000 tokens take about 2.4 hours."), {}) == []
    wrong = check_answer(answer("100,000 tokens take about 1.2 hours."), {})
    assert [v.kind for v in wrong] == ["number"]
    assert [v.kind for v in check_answer(answer("It takes about 3 Stunden."), {})] == ["number"]
