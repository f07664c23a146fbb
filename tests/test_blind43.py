"""Readings for the families blind-43 found, in other words than its: "mind. 40 token/s" is a
speed asked; a staff prefix before a colon ("quick check before I reply: can they …?") leaves
the yes/no that follows it; a staff request for help above a quoted thread ("kann mir jemand
helfen? unten der Verlauf") does not hide the customer's questions in the thread."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.nlu import Understander
from assistant.nlu.asks import is_yes_no
from knowledge.catalog import load_catalog

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def nlu() -> Understander:
    return Understander(load_catalog(ROOT / "knowledge" / "catalog"))


def test_mind_is_at_least(nlu: Understander) -> None:
    u = nlu.understand("schafft qwen3 8b auf einer l4 mind. 25 token/s?")
    assert u.min_tokens_per_s == 25.0


def test_a_staff_prefix_before_a_colon_leaves_the_yes_no() -> None:
    assert is_yes_no("short check before i reply to them: can they run qwen3 32b on one l40s?")
    assert not is_yes_no(
        "short check before i reply to them: which card is cheapest for qwen3 32b?"
    )


def test_a_help_request_above_a_quoted_thread_keeps_the_thread(nlu: Understander) -> None:
    mail = (
        "kann mir wer beim antworten helfen? siehe unten\n\n"
        "Am 03.12.2026 um 09:10 schrieb Jan Kurz <jan@example.de>:\n"
        "> Hallo, was kostet 2x L40S im Monat? Und passt Qwen3 32B darauf?\n"
        "> Gruß Jan"
    )
    u = nlu.understand(mail)
    assert u.configurations == ["2x-l40s"] and u.model == "qwen3-32b"
    assert not u.outside


def test_a_yes_no_after_a_bare_follow_up() -> None:
    assert is_yes_no("und 4x l40s? liegt das noch unter 3.000 € im monat?")
    assert not is_yes_no("and 4x l40s? how fast is it?")


def test_a_price_asked_against_a_budget_is_answered_yes_or_no(deps) -> None:  # type: ignore[no-untyped-def]
    from assistant.service import Assistant
    from tests.answers import last_call

    a = Assistant(deps)
    first = a.ask("what does 2x l40s cost per month?")
    second = a.ask("and 4x l40s? is that still under $2,000 a month?", session_id=first.session_id)
    price = float(last_call(second, "price_quote").result["quotes"][0]["usd_per_month"])
    assert second.answer.startswith("**Yes" if price <= 2000 else "**No")
