"""Answers for the families blind-32 … blind-35 found, in other words than theirs: a measured
speed against the node's lower bound; the cheapest node for an image model with several people
at once has a card for each (or says none within the constraints has); a speed for a model that
does not fit in BF16 gives the FP8 speed where FP8 fits; a price asked after a fine-tune answer
quotes the node; a figure asked after a yes/no is no yes/no; a reading whose task is out of
scope plans nothing else."""

from __future__ import annotations

from typing import Any

from assistant.deps import Deps
from assistant.reading.convert import intents_of
from assistant.reading.model import Ask, Reading
from assistant.service import Assistant
from tests.answers import last_call
from tests.answers import ok as _ok


def _results(a: Any, name: str) -> list[dict[str, Any]]:
    return [c.result for c in a.tool_calls if c.name == name and isinstance(c.result, dict)]


def test_a_measured_speed_below_the_estimate_is_not_normal(assistant: Assistant) -> None:
    a = assistant.ask("we only get 7 tok/s with qwen2.5 72b on 4x a100 sxm4, is that normal?")
    text = _ok(a, "en")
    estimate = last_call(a, "throughput_estimate").result["tokens_per_s"]
    assert estimate > 7
    assert text.startswith("**No")
    assert any(c.url.endswith("#measure-it-yourself") for c in a.citations)


def test_a_measured_speed_above_the_estimate_is_fine(assistant: Assistant) -> None:
    a = assistant.ask("wir bekommen 60 token/s mit llama 3.1 8b auf einer h100 pcie, normal?")
    text = _ok(a, "de")
    assert last_call(a, "throughput_estimate").result["tokens_per_s"] <= 60
    assert text.startswith("**Ja")


def test_the_cheapest_for_images_at_once_has_a_card_for_each(assistant: Assistant) -> None:
    a = assistant.ask("cheapest server for flux schnell, 3 artists generating at the same time?")
    _ok(a, "en")
    top = _results(a, "cheapest_fit")[0]["cheapest"][0]
    assert top["count"] >= 3 and top["verdict"] == "fits_one_card"
    assert a.prices[0].configuration == top["configuration"]


def test_images_at_once_beyond_the_budget_say_so(assistant: Assistant) -> None:
    a = assistant.ask("sdxl for 6 people generating at once, budget $400 a month - which gpu?")
    text = _ok(a, "en")
    assert text.startswith("**No node within your constraints has a card for each of the 6")
    one = next(r for r in _results(a, "cheapest_fit") if r["concurrency"] == 1)["cheapest"][0]
    assert one["count"] == 1 and [p.configuration for p in a.prices] == [one["configuration"]]


def test_a_speed_that_does_not_fit_in_bf16_gives_the_fp8_speed(assistant: Assistant) -> None:
    a = assistant.ask("how many tokens/s does gemma 3 27b do on one l40s?")
    text = _ok(a, "en")
    fp8 = [c for c in a.tool_calls if c.name == "throughput_estimate"]
    assert fp8 and fp8[-1].arguments.get("precision") == "fp8"
    assert "In FP8 it fits" in text


def test_a_price_after_a_fine_tune_answer_quotes_its_node(deps: Deps) -> None:
    a = Assistant(deps)
    first = a.ask("smallest gpu for qlora on mistral 7b?")
    assert _results(first, "training_fit")
    second = a.ask("what would that be per month?", session_id=first.session_id)
    quote = last_call(second, "price_quote")
    assert quote.arguments["configurations"] == second.reading.configurations
    assert second.reading.configurations, "the node the first answer chose"


def test_a_figure_asked_after_a_yes_no_is_not_answered_yes(deps: Deps) -> None:
    a = Assistant(deps)
    first = a.ask("kann ich llama 3.1 8b mit lora auf einer l40s feintunen?")
    second = a.ask("und mit qlora, wie viel vram ist das?", session_id=first.session_id)
    text = _ok(second, "de")
    assert not text.startswith(("**Ja", "**Nein"))
    assert last_call(second, "memory_need")


def test_a_reading_out_of_scope_plans_no_price() -> None:
    r = Reading(task="out_of_scope", asks=[Ask(kind="price")])
    assert intents_of(r) == ["off_topic"]
