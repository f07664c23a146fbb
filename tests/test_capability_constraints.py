"""Every constraint a user gives is honoured when a node is picked: card capabilities (FP8 tensor
cores, generation, NVLink, memory per card and in total) as typed Query constraints applied by
the tools; people at the same time as concurrent sequences in the cheapest fit; traffic said in
words mapped to the traffic level of the purchase advice. Asserted on Query fields, tool
arguments, chosen configurations and prices (from the catalog), rule numbers and first words."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from assistant.nlu import Understander
from assistant.registry import call_tool
from tools.constraints import Constraints, configurations_within, nodes_within

WITH_GUIDE_INDEX = True  # tests/conftest.py builds the shipped guide index for `deps`


def _calls(answer: Any, name: str) -> list[Any]:
    return [c for c in answer.tool_calls if c.name == name]


def _cheapest_by_hand(deps: Any, **c: Any) -> str:
    """The cheapest catalog configuration meeting the constraints, by brute force."""
    cat = deps.catalog
    ok = configurations_within(cat.configurations.values(), cat.gpus, cat.links, Constraints(**c))
    return min(ok, key=lambda cid: (Decimal(cat.configurations[cid].usd_per_month), cid))


# ------------------------------------------------------------------ tools (pure, catalog data)


def test_every_card_has_a_generation_and_fp8_follows_it(deps: Any) -> None:
    gpus = deps.catalog.gpus
    assert all(g.architecture for g in gpus.values())
    assert {g.id for g in gpus.values() if g.architecture == "ampere"} == {
        g.id for g in gpus.values() if not g.fp8_native
    }


def test_capability_filters(deps: Any) -> None:
    cat = deps.catalog
    rows = lambda **c: configurations_within(  # noqa: E731
        cat.configurations.values(), cat.gpus, cat.links, Constraints(**c)
    )
    assert all(cat.gpus[cat.configurations[c].gpu].fp8_native for c in rows(require_fp8=True))
    assert {
        cat.gpus[cat.configurations[c].gpu].architecture for c in rows(architectures=["hopper"])
    } == {"hopper"}
    assert not {cat.configurations[c].gpu for c in rows(exclude_architectures=["ampere"])} & {
        "a100-pcie",
        "a100-sxm4",
        "rtx-a6000",
    }
    assert all(
        cat.gpus[cat.configurations[c].gpu].memory_gb >= 80 for c in rows(min_memory_per_card_gb=80)
    )


def test_nodes_within_names_the_runner_up_and_the_constraint_that_excluded_it(deps: Any) -> None:
    cat = deps.catalog
    c = Constraints(require_link="nvlink", min_total_memory_gb=300, require_fp8=True)
    res = nodes_within(cat.configurations.values(), cat.gpus, cat.links, c)
    assert res.kept[0] == _cheapest_by_hand(
        deps, require_link="nvlink", min_total_memory_gb=300, require_fp8=True
    )
    fp8 = next(e for e in res.excluded_by_one if e.constraint == "require_fp8")
    # without the FP8 requirement this node would have won: cheaper, and it meets the rest
    assert Decimal(fp8.usd_per_month) < Decimal(cat.configurations[res.kept[0]].usd_per_month)
    assert fp8.configuration == _cheapest_by_hand(
        deps, require_link="nvlink", min_total_memory_gb=300
    )
    # "no Ampere" leaves out exactly the cards without FP8: one reason, not two
    c2 = c.model_copy(update={"exclude_architectures": ["ampere"]})
    res2 = nodes_within(cat.configurations.values(), cat.gpus, cat.links, c2)
    same = next(e for e in res2.excluded_by_one if e.configuration == fp8.configuration)
    assert {same.constraint, *same.same_as} == {"require_fp8", "exclude_architectures"}


def test_the_runner_up_is_the_dearest_node_below_the_pick(deps: Any) -> None:
    """'FP8 cards, >= 96 GB': the node only the memory excludes is the one just below the pick
    in price, not the cheapest card in the catalog."""
    cat = deps.catalog
    c = Constraints(require_fp8=True, min_total_memory_gb=96)
    res = nodes_within(cat.configurations.values(), cat.gpus, cat.links, c)
    pick = Decimal(cat.configurations[res.kept[0]].usd_per_month)
    memory = next(e for e in res.excluded_by_one if e.constraint == "min_total_memory_gb")
    below = [
        Decimal(cfg.usd_per_month)
        for cfg in cat.configurations.values()
        if Decimal(cfg.usd_per_month) < pick
        and cat.gpus[cfg.gpu].fp8_native
        and cat.gpus[cfg.gpu].memory_gb * cfg.count < 96
    ]
    assert Decimal(memory.usd_per_month) == max(below)


def test_registry_tools_take_the_capability_filters(deps: Any) -> None:
    res = call_tool(
        deps,
        "cheapest_fit",
        {
            "model": "llama-3.3-70b",
            "precision": "fp8",
            "require_link": "nvlink",
            "require_fp8": True,
        },
    ).result
    assert res["cheapest"][0]["fp8_native"] and "require_fp8" in res["filters"]["applied"]
    res = call_tool(deps, "nodes_within", {"architectures": ["blackwell"]}).result
    assert {r["architecture"] for r in res["cheapest"]} == {"blackwell"}


# ------------------------------------------------------------------ understanding


@pytest.mark.parametrize(
    ("question", "fields"),
    [
        (
            "We need NVLink, at least 300 GB of GPU memory in total and FP8 support (Ampere is "
            "out). Which is the cheapest node?",
            {
                "require_link": "nvlink",
                "min_total_memory_gb": 300,
                "require_fp8": True,
                "exclude_architectures": ["ampere"],
            },
        ),
        (
            "Wir brauchen NVLink, mindestens 320 GB Grafikspeicher insgesamt und FP8-Tensorkerne. "
            "Welcher Knoten ist am günstigsten?",
            {"require_link": "nvlink", "min_total_memory_gb": 320, "require_fp8": True},
        ),
        ("Hopper or newer only, cheapest server?", {"architectures": ["hopper", "blackwell"]}),
        ("What's the cheapest Blackwell node?", {"architectures": ["blackwell"]}),
        ("Günstigster Hopper-Knoten?", {"architectures": ["hopper"]}),
        (
            "Nur Hopper oder Blackwell, was ist am billigsten?",
            {"architectures": ["hopper", "blackwell"]},
        ),
        ("Cheapest node for Qwen2.5 72B, at least 48 GB per card", {"min_memory_per_card_gb": 48}),
        (
            "Karten mit mindestens 80 GB, günstigster Knoten für Llama 3.3 70B?",
            {"min_memory_per_card_gb": 80},
        ),
    ],
)
def test_capabilities_are_typed_constraints(
    nlu: Understander, question: str, fields: dict[str, Any]
) -> None:
    c = nlu.understand(question).constraints
    for name, value in fields.items():
        assert getattr(c, name) == value, name


@pytest.mark.parametrize(
    "question",
    [
        "Does the A100 support FP8?",
        "Hat die RTX A6000 FP8 wie eine L40S?",
        "Do we need NVLink for Llama 3.3 70B?",
    ],
)
def test_a_question_about_a_capability_is_not_a_requirement(
    nlu: Understander, question: str
) -> None:
    c = nlu.understand(question).constraints
    assert not c.require_fp8 and c.require_link is None


@pytest.mark.parametrize(
    ("question", "concurrency"),
    [
        ("About 20 people hitting Qwen3 14B at the same time, 8k context each", 20),
        ("20 Leute gleichzeitig auf Qwen3 14B mit 8k Kontext", 20),
        ("30 concurrent users on Llama 3.1 8B", 30),
        ("für 24 Entwickler, die parallel mit Qwen3 14B arbeiten", 24),
        ("300 users at a time on Llama 3.3 70B", 300),
    ],
)
def test_people_at_the_same_time_are_concurrent_sequences(
    nlu: Understander, question: str, concurrency: int
) -> None:
    assert nlu.understand(question).concurrency == concurrency


@pytest.mark.parametrize(
    ("question", "workload"),
    [
        (
            "Is PCIe ok for 405B on 8 cards for a public-facing product with a few hundred users?",
            "traffic",
        ),
        (
            "Reicht PCIe für DeepSeek V3 auf 8 Karten, wenn ein paar hundert Nutzer zugreifen?",
            "traffic",
        ),
        ("Llama 3.3 70B auf 4x L40S für Tausende Nutzer unserer öffentlichen App", "traffic"),
        (
            "Is PCIe enough for 70B on 4x A100 PCIe? Only a few concurrent requests.",
            "low_concurrency",
        ),
        ("Reicht PCIe für 70B auf 4x L40S? Nur wenige gleichzeitige Nutzer.", "low_concurrency"),
        (
            "Do we need NVLink for 70B on 4 GPUs? It's for a handful of colleagues.",
            "low_concurrency",
        ),
    ],
)
def test_traffic_said_in_words(nlu: Understander, question: str, workload: str) -> None:
    w = nlu.understand(question).workloads
    assert workload in w and not {"traffic", "low_concurrency"} <= set(w)


@pytest.mark.parametrize(
    ("question", "count"),
    [
        ("they insist on real FP8 tensor cores, so no A100. cheapest single card then?", 1),
        ("ohne A100, welche einzelne Karte ist am günstigsten für Qwen3 14B?", 1),
        ("no 4x H100, cheapest node for Llama 3.3 70B?", None),
    ],
)
def test_excluding_a_card_keeps_a_card_count_said_apart_from_it(
    nlu: Understander, question: str, count: int | None
) -> None:
    assert nlu.understand(question).count == count


def test_dont_want_excludes_cards(nlu: Understander) -> None:
    q = nlu.understand("70B in FP8, at most $1,450 a month, we don't want RTX A6000 or L4 cards")
    assert set(q.constraints.exclude_cards) == {"rtx-a6000", "l4"}


# ------------------------------------------------------------------ answers


@pytest.mark.parametrize(
    ("question", "constraints"),
    [
        (
            "We need NVLink, at least 300 GB of GPU memory in total and FP8 tensor cores (so no "
            "Ampere). Cheapest node that ticks all three?",
            {"require_link": "nvlink", "min_total_memory_gb": 300, "require_fp8": True},
        ),
        (
            "NVLink-Knoten mit FP8-Unterstützung und mindestens 300 GB insgesamt – welcher ist am "
            "billigsten?",
            {"require_link": "nvlink", "min_total_memory_gb": 300, "require_fp8": True},
        ),
        (
            "Cheapest server with NVLink and at least 600 GB of VRAM, Hopper or Blackwell only?",
            {
                "require_link": "nvlink",
                "min_total_memory_gb": 600,
                "architectures": ["hopper", "blackwell"],
            },
        ),
    ],
)
def test_cheapest_node_meets_every_capability(
    assistant: Any, deps: Any, question: str, constraints: dict[str, Any]
) -> None:
    a = assistant.ask(question)
    expected = _cheapest_by_hand(deps, **constraints)
    assert _calls(a, "nodes_within") and not a.violations
    assert a.prices[0].configuration == expected
    assert a.prices[0].usd_per_month == deps.catalog.configurations[expected].usd_per_month
    first_line = a.answer.split("\n")[0]
    assert deps.catalog.configurations[expected].label_in(a.language) in first_line


def test_the_runner_up_and_its_reason_are_named(assistant: Any, deps: Any) -> None:
    a = assistant.ask("We need NVLink, 300 GB in total at least, and FP8 support. Cheapest node?")
    runner = _cheapest_by_hand(deps, require_link="nvlink", min_total_memory_gb=300)
    assert runner in [p.configuration for p in a.prices]
    assert "FP8" in next(
        p for p in a.answer.split("\n\n") if deps.catalog.configurations[runner].label in p
    )


def test_a_model_is_sized_only_on_cards_with_fp8(assistant: Any, deps: Any) -> None:
    a = assistant.ask(
        "Llama 3.3 70B in FP8 on an NVLink node whose cards have native FP8 support: "
        "which is cheapest?"
    )
    calls = _calls(a, "cheapest_fit")
    allowed = set(calls[0].arguments["configurations"])
    assert allowed and all(
        deps.catalog.gpus[deps.catalog.configurations[c].gpu].fp8_native for c in allowed
    )
    top = calls[0].result["cheapest"][0]["configuration"]
    assert a.prices[0].configuration == top and top != "4x-a100-sxm4"


@pytest.mark.parametrize(
    ("question", "concurrency"),
    [
        (
            "Around 25 people will use Qwen3 14B at the same time with roughly 8k context each. "
            "What's the cheapest single GPU that handles it?",
            25,
        ),
        (
            "20 Leute gleichzeitig auf Qwen3 14B mit je 8k Kontext – welche einzelne Karte ist am "
            "günstigsten?",
            20,
        ),
    ],
)
def test_cheapest_single_card_holds_the_kv_cache_of_everyone_at_once(
    assistant: Any, deps: Any, question: str, concurrency: int
) -> None:
    a = assistant.ask(question)
    call = _calls(a, "cheapest_fit")[0]
    assert call.arguments["concurrency"] == concurrency and call.arguments["context_tokens"] == 8192
    assert call.arguments["one_card"] is True
    expected = call_tool(
        deps,
        "cheapest_fit",
        {
            "model": "qwen3-14b",
            "context_tokens": 8192,
            "concurrency": concurrency,
            "one_card": True,
        },
    ).result["cheapest"][0]["configuration"]
    weights_only = call_tool(deps, "cheapest_fit", {"model": "qwen3-14b", "one_card": True}).result[
        "cheapest"
    ][0]["configuration"]
    assert a.prices[0].configuration == expected != weights_only


@pytest.mark.parametrize(
    ("question", "rule", "first"),
    [
        (
            "We'd run Llama 3.1 405B in FP8 on 8 cards for a public-facing product with a few "
            "hundred users at a time. Is PCIe ok?",
            4,
            "no",
        ),
        (
            "Reicht PCIe für DeepSeek V3 über 8 Karten, wenn ein paar hundert Nutzer gleichzeitig "
            "drauf zugreifen?",
            4,
            "nein",
        ),
        (
            "Is PCIe enough for Llama 3.3 70B in BF16 on 4x A100 PCIe? Only a few concurrent "
            "requests from our team.",
            3,
            "yes",
        ),
    ],
)
def test_traffic_words_pick_one_rule(assistant: Any, question: str, rule: int, first: str) -> None:
    a = assistant.ask(question)
    rules = {
        c.result["rule"]["number"] for c in _calls(a, "purchase_advice") if c.result.get("rule")
    }
    assert rules == {rule}
    assert a.answer.lstrip("*").lower().startswith(first)


def test_rule_4_on_a_pcie_node_names_the_nvlink_node_with_its_price(
    assistant: Any, deps: Any
) -> None:
    a = assistant.ask(
        "A client rented 4x A100 PCIe and wants Llama 3.3 70B with vLLM tp=4 for roughly 250 "
        "agents in their support hotline. Is that setup fine?"
    )
    assert "4x-a100-sxm4" in [p.configuration for p in a.prices]
    assert "$4,395" in a.answer


@pytest.mark.parametrize(
    "question",
    [
        "For 20 devs using Qwen3 14B with 8k context, which single card is cheapest?",
        "Für 30 Mitarbeiter mit Llama 3.1 8B, 8k Kontext: günstigste einzelne Karte?",
    ],
)
def test_users_as_people_are_sized_by_the_stated_share_and_the_answer_says_so(
    assistant: Any, nlu: Understander, question: str
) -> None:
    from tools.load import concurrent_sequences

    users = nlu.understand(question).users
    assert users
    a = assistant.ask(question)
    conc = _calls(a, "cheapest_fit")[0].arguments["concurrency"]
    assert conc == concurrent_sequences(users) and not a.violations
    assert any(p.startswith(f"{users} ") and f" {conc} " in p for p in a.answer.split("\n\n")), (
        a.answer
    )
