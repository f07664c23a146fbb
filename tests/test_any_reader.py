"""A reading planned the same way whoever wrote it (issue 23): a gold reading, the LLM reader's or
a user's edit states what was asked in its own order and detail; the planner does not depend on
the rule reader's habits (the order of intents, a workload it derived, an ask it implied)."""

from __future__ import annotations

from typing import Any

from assistant.reading.convert import canonical_intents, intents_of, to_query
from assistant.reading.model import Reading
from tools.load import FEW_AT_ONCE, TRAFFIC_AT_ONCE, concurrent_sequences


def _calls(answer: Any, name: str) -> list[dict[str, Any]]:
    return [c.result for c in answer.tool_calls if c.name == name]


def test_a_cheapest_pick_leads_whatever_order_the_reader_wrote() -> None:
    assert canonical_intents(["nvlink", "cheapest"]) == ["cheapest", "nvlink"]
    assert canonical_intents(["fit", "cheapest"]) == ["cheapest", "fit"]
    # "the cheaper one: how many chats can it take?" refers to a node; it picks none
    assert canonical_intents(["capacity", "cheapest"]) == ["capacity", "cheapest"]
    assert canonical_intents(["price", "cheapest"]) == ["price", "cheapest"]


def test_the_load_a_count_implies_is_derived_as_the_rule_reader_does() -> None:
    q = to_query(Reading(task="serve", model="llama-3.1-8b", users=200))
    assert q.concurrency == concurrent_sequences(200)
    assert "concurrent_sequences" in q.assumed
    assert "traffic" in q.workloads
    alone = to_query(Reading(task="serve", model="llama-3.3-70b", concurrent_sequences=1))
    assert alone.workloads == ["low_concurrency"]
    said = to_query(
        Reading(task="serve", model="llama-3.3-70b", concurrent_sequences=1, workloads=["traffic"])
    )
    assert said.workloads == ["traffic"]  # what the reader said is kept
    # one threshold: fewer than TRAFFIC_AT_ONCE at once is a few, that many real traffic
    for n, load in ((FEW_AT_ONCE, "low_concurrency"), (TRAFFIC_AT_ONCE, "traffic")):
        q = to_query(Reading(task="serve", model="llama-3.1-8b", concurrent_sequences=n))
        assert q.workloads == [load]
    assert FEW_AT_ONCE + 1 == TRAFFIC_AT_ONCE  # no load left undecided in between


def test_a_pair_claim_is_compared_with_what_it_refers_back_to() -> None:
    r = Reading(
        task="compare",
        model="llama-3.3-70b",
        precision="awq",
        claim="faster",
        yes_no=True,
        configurations=["1x-h100-pcie"],
        refers_to=["1x-a100-pcie"],
        asks=[{"kind": "speed"}],
    )  # type: ignore[list-item]
    assert to_query(r).configurations == ["1x-h100-pcie", "1x-a100-pcie"]


def test_a_fit_with_a_price_or_budget_and_no_hardware_is_the_cheapest_pick() -> None:
    priced = Reading(task="serve", model="qwen3-14b", asks=[{"kind": "fit"}, {"kind": "price"}])  # type: ignore[list-item]
    assert intents_of(priced)[0] == "cheapest"
    budget = Reading(
        task="serve", model="mistral-small-24b", asks=[{"kind": "fit"}], budget_usd_per_month=1460
    )  # type: ignore[list-item]
    assert intents_of(budget)[0] == "cheapest"
    named = Reading(
        task="serve",
        model="qwen3-14b",
        configurations=["1x-l40s"],
        asks=[{"kind": "fit"}, {"kind": "price"}],
    )  # type: ignore[list-item]
    assert intents_of(named)[0] == "fit"


def test_a_yes_no_fit_at_a_context_leads_with_the_verdict(assistant) -> None:  # type: ignore[no-untyped-def]
    r = Reading(
        task="serve",
        model="gemma-3-27b",
        context_tokens=32768,
        configurations=["1x-l40s"],
        cards=["l40s"],
        count=1,
        claim="fits",
        yes_no=True,
        asks=[{"kind": "context"}],
    )  # type: ignore[list-item]
    a = assistant.answer_reading(r, store=False)
    fit = _calls(a, "fit_check")[0]
    row = next(x for x in fit["rows"] if x["configuration"] == "1x-l40s")
    assert row["verdict"] == "does_not_fit"
    assert a.answer.lstrip("*# ").startswith("No")
    assert _calls(a, "capacity_check"), "the context ask is still answered"


def test_a_context_given_leads_the_capacity_with_how_many_at_once(assistant) -> None:  # type: ignore[no-untyped-def]
    r = Reading(
        task="serve",
        model="qwen3-14b",
        context_tokens=32768,
        configurations=["1x-a100-pcie"],
        cards=["a100-pcie"],
        count=1,
        asks=[{"kind": "context"}],
    )  # type: ignore[list-item]
    a = assistant.answer_reading(r, store=False)
    cap = _calls(a, "capacity_check")[0]
    assert cap["max_concurrency"] >= 2
    lead = a.answer.split("\n")[0]
    assert f"up to {cap['max_concurrency']} concurrent sequences" in lead
    # asked for the length, the longest context leads
    longest = r.model_copy(update={"context_tokens": None, "text": "how long a context?"})
    b = assistant.answer_reading(longest, store=False)
    cap = _calls(b, "capacity_check")[0]
    assert f"{cap['max_context_capped']:,} tokens of context" in b.answer.split("\n")[0]


def test_a_fit_claim_argued_from_active_parameters_is_the_moe_claim(assistant) -> None:  # type: ignore[no-untyped-def]
    r = Reading(
        task="serve",
        model="qwen3-30b-a3b",
        configurations=["1x-rtx-4090"],
        cards=["rtx-4090"],
        count=1,
        claim="fits",
        yes_no=True,
        asks=[{"kind": "fit"}],
        text="customer says qwen3 30b-a3b runs on one 4090 because only 3B params are active",
    )  # type: ignore[list-item]
    a = assistant.answer_reading(r, store=False)
    assert [c.name for c in a.tool_calls][:2] == ["memory_need", "fit_check"]
    assert a.answer.lstrip("*# ").startswith("No")
    assert any("total-vs-active" in c.url for c in a.citations)


def test_a_bare_size_in_a_follow_up_is_the_context(assistant) -> None:  # type: ignore[no-untyped-def]
    first = assistant.ask("wie viele anfragen gleichzeitig schafft qwen2.5 7b auf einer L4 bei 8k?")
    then = assistant.ask("und wenns 32k sein sollen?", session_id=first.session_id)
    assert then.reading.context_tokens == 32768
    cap = _calls(then, "capacity_check")[0]
    assert cap["context_tokens"] == 32768
    people = assistant.ask("and for 10k users?", session_id=first.session_id)
    assert people.reading.context_tokens != 10240


def test_traffic_on_a_split_pick_names_no_nvlink_node_when_one_card_holds_it(assistant) -> None:  # type: ignore[no-untyped-def]
    a = assistant.ask("cheapest server for llama 3.1 8b with 32 requests at the same time?")
    rows = _calls(a, "cheapest_fit")[0]["cheapest"]
    assert rows[0]["verdict"] == "split"
    assert any(r["verdict"] == "fits_one_card" and r["count"] == 1 for r in rows)
    assert len(_calls(a, "cheapest_fit")) == 1, "no NVLink search beside a one-card holder"
    assert "NVLink (SXM) node that holds it" not in a.answer
