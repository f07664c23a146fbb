"""Answers for the families the day session of 2026-12-07 found, in other words than the cases':
a card named with no count before a counted one is one card ("h100 pcie vs 4x h100 sxm5"), and
a card named for serving after a fine-tune ("… and then serve it on an L4?") is judged for the
serving, not the training."""

from __future__ import annotations

from typing import Any

from assistant.service import Assistant
from tests.answers import last_call
from tests.answers import ok as _ok


def test_a_card_named_before_a_counted_one_is_one_card(nlu: Any) -> None:
    u = nlu.understand("what's the price gap between an l40s and 4x a100 sxm4?")
    assert u.configurations == ["1x-l40s", "4x-a100-sxm4"]


def test_a_count_said_first_is_shared_forward(nlu: Any) -> None:
    u = nlu.understand("4x h100 pcie or sxm5, which is cheaper?")
    assert u.configurations == ["4x-h100-pcie", "4x-h100-sxm5"]


def test_each_shares_the_count_back(nlu: Any) -> None:
    u = nlu.understand("l40s vs 4x a6000, four cards each: price?")
    assert "1x-l40s" not in u.configurations


def test_a_card_named_for_serving_after_a_full_fine_tune(assistant: Assistant) -> None:
    a = assistant.ask(
        "We'd like to fully fine-tune Llama 3.1 8B (no LoRA) and deploy it afterwards. "
        "How much memory for the training, and can we then serve it on one RTX 4090?"
    )
    text = _ok(a, "en")
    assert "serve_on_named" in a.reading.topics
    row = next(
        r for r in last_call(a, "fit_check").result["rows"] if r["configuration"] == "1x-rtx-4090"
    )
    assert text.startswith("**Yes" if row["verdict"] != "does_not_fit" else "**No")
    need = last_call(a, "memory_need").result["total_gb"]
    assert f"{need:,.1f} GB" in text


def test_a_card_named_for_the_training_is_judged_for_it(assistant: Assistant) -> None:
    a = assistant.ask(
        "wir wollen mistral 7b voll feintunen auf einer l40s und danach ausliefern, geht das?"
    )
    assert "serve_on_named" not in a.reading.topics
    assert _ok(a, "de").startswith("**Nein")
    assert last_call(a, "training_fit") is not None
