"""Readings and answers for the families blind-36 and blind-37 found, in other words than
theirs: a context raised "up to 64k" is no budget; people at once said as a number make the
load; "how many of those chats at once" asks the capacity; "plenty" claims a fit; a precision
said after a fit in a conversation is the same sizing, not the concept; "a single A100" is the
family's one-card node; a speed yes/no over two nodes answers the speed asked; an NVLink
follow-up after a fit on one card answers the yes/no first."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.deps import Deps
from assistant.nlu import Understander
from assistant.service import Assistant
from knowledge.catalog import load_catalog
from tests.answers import last_call
from tests.answers import ok as _ok

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def nlu() -> Understander:
    return Understander(load_catalog(ROOT / "knowledge" / "catalog"))


def test_a_context_raised_up_to_a_size_is_no_budget(nlu: Understander) -> None:
    u = nlu.understand("qwen3 8b on one l4 - still ok if we push the context up to 64k?")
    assert u.context_tokens == 65536 and u.constraints.budget_usd_month is None
    u = nlu.understand("budget up to 2k a month, mistral small 24b")
    assert u.constraints.budget_usd_month == 2000.0


def test_people_at_once_as_a_number_make_the_load(nlu: Understander) -> None:
    u = nlu.understand("reicht pcie für llama 3.3 70b wenn so 25 anfragen gleichzeitig kommen?")
    assert u.concurrency == 25 and "traffic" in u.workloads
    u = nlu.understand("is pcie enough for qwen2.5 72b with 2 requests at once?")
    assert "low_concurrency" in u.workloads


def test_how_many_of_those_asks_the_capacity(deps: Deps) -> None:
    a = Assistant(deps)
    first = a.ask("qwen3 8b with 16k context on one l40s, ok?")
    second = a.ask("good. how many of those 16k chats can it take at once?", first.session_id)
    assert second.reading.intents[0] == "capacity"
    assert last_call(second, "capacity_check")


def test_plenty_claims_a_fit(nlu: Understander) -> None:
    u = nlu.understand("qwen3 30b a3b only has 3b active, so one l4 is plenty, right?")
    assert [a.kind for a in u.asks][:1] == ["fit"]


def test_a_precision_said_later_resizes_the_sessions_model(deps: Deps) -> None:
    a = Assistant(deps)
    first = a.ask("passt qwen3 14b mit 16k kontext auf eine l4?")
    second = a.ask("achso, wir nehmen eigentlich fp8. klappt es dann?", session_id=first.session_id)
    assert second.reading.task == "serve" and second.reading.precision == "fp8"
    fits = [c.result for c in second.tool_calls if c.name == "fit_check"]
    assert fits[0]["precision"] == "fp8"


def test_a_single_card_of_a_family_is_its_one_card_node(assistant: Assistant) -> None:
    a = assistant.ask("mistral small 24b on a single a100, will it do more than 10 tokens/s?")
    text = _ok(a, "en")
    timed = [c.arguments["configuration"] for c in a.tool_calls if c.name == "throughput_estimate"]
    assert timed == ["1x-a100-pcie"]
    speed = last_call(a, "throughput_estimate").result["tokens_per_s"]
    assert text.startswith("**Yes" if speed > 10 else "**No")


def test_a_speed_yes_no_over_two_nodes_answers_the_speed_asked(assistant: Assistant) -> None:
    a = assistant.ask("qwen3 8b on an l4 or an rtx 4090 - more than 3 tokens/s?")
    text = _ok(a, "en")
    speeds = [c.result["tokens_per_s"] for c in a.tool_calls if c.name == "throughput_estimate"]
    assert len(speeds) == 2 and all(s > 3 for s in speeds)
    assert text.startswith("**Yes")


def test_an_nvlink_follow_up_after_a_fit_on_one_card_answers_first(deps: Deps) -> None:
    a = Assistant(deps)
    first = a.ask("does qwen2.5 72b in bf16 fit on one h100?")
    second = a.ask("and do we need nvlink for it with lots of users?", session_id=first.session_id)
    assert _ok(second, "en").startswith("**Yes")


def test_pcie_for_real_traffic_is_no(assistant: Assistant) -> None:
    a = assistant.ask("reicht pcie für llama 3.3 70b bei 20 anfragen gleichzeitig?")
    assert _ok(a, "de").startswith("**Nein")


def test_a_need_that_rounds_to_the_usable_memory_keeps_two_decimals() -> None:
    from assistant.compose.base import need_usable

    row = {"required_gb_per_card": 21.6401792, "usable_gb_per_card": 21.6}
    assert need_usable("en", row) == {"need": "21.64 GB", "usable": "21.6 GB"}
    row = {"required_gb_per_card": 19.7, "usable_gb_per_card": 21.6}
    assert need_usable("de", row) == {"need": "19,7 GB", "usable": "21,6 GB"}


def test_a_quoted_mail_wrapped_mid_sentence_is_read_as_one_line(nlu: Understander) -> None:
    mail = (
        "kunde schreibt:\n\n> Hallo,\n> wir wollen Qwen3 32B per LoRA feintunen. Reicht dafür eine"
        " einzelne\n> H100 80GB (PCIe)?\n> Gruß, Tim"
    )
    u = nlu.understand(mail)
    assert u.count == 1 and u.configurations == ["1x-h100-pcie"]


def test_a_hyphenated_group_and_the_same_moment(nlu: Understander) -> None:
    u = nlu.understand(
        "We are a 40-lawyer firm; at most 6 people would query it at the same moment. "
        "Qwen2.5 32B in AWQ?"
    )
    assert (u.users, u.concurrency) == (40, 6)
    assert u.outside == []  # lawyers as users size a model; no legal question
    assert nlu.understand("do I need a lawyer to rent a server from you?").outside == ["legal"]
    u = nlu.understand("only 2-3 analysts, never many at once. llama 3.1 8b on an l4?")
    assert u.concurrency == 3
