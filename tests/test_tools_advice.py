"""The guide's five purchase rules, three no-link cases and the most expensive mistake."""

from __future__ import annotations

import pytest

from tools.advice import (
    ANCHORS,
    LINK_DOES_NOT_MATTER,
    MISTAKE,
    RULES,
    AdviceInput,
    guide_items,
    purchase_advice,
)


def test_five_rules_three_cases_one_mistake() -> None:
    assert sorted(RULES) == [1, 2, 3, 4, 5]
    assert set(LINK_DOES_NOT_MATTER) == {
        "one-model-per-card",
        "pipeline-parallelism",
        "diffusion-rendering",
    }
    items = guide_items()
    assert len(items) == 9
    assert len({i.key for i in items}) == 9
    for item in items:
        assert item.anchor in ANCHORS
        assert item.guide == "nvlink-vs-pcie"
        assert item.text_en and item.text_de
    assert all(r.anchor == "what-to-buy" for r in RULES.values())
    assert MISTAKE.anchor == "when-it-does-not-matter"


def test_urls() -> None:
    assert RULES[1].url("de") == "https://gpuserver.io/de/guides/nvlink-vs-pcie/#what-to-buy"
    assert RULES[1].url("en") == "https://gpuserver.io/en/guides/nvlink-vs-pcie/#what-to-buy"


@pytest.mark.parametrize(
    ("inp", "rule", "recommendation", "nvlink"),
    [
        (AdviceInput(fits_one_card=True, cards_needed=1), 1, "one_card", False),
        (
            AdviceInput(fits_one_card=True, cards_needed=1, independent_jobs=True),
            2, "pcie", False,
        ),
        (AdviceInput(fits_one_card=False, cards_needed=4, independent_jobs=True), 2, "pcie", False),
        (AdviceInput(fits_one_card=False, cards_needed=4), 3, "pcie_size_for_memory", False),
        (AdviceInput(fits_one_card=False, cards_needed=4, traffic="high"), 4, "sxm", True),
        (AdviceInput(fits_one_card=False, cards_needed=4, workload="training"), 4, "sxm", True),
        (AdviceInput(fits_one_card=False, cards_needed=16), 5, "not_offered", False),
        (
            AdviceInput(fits_one_card=False, cards_needed=16, workload="training"),
            5, "not_offered", False,
        ),
    ],
)  # fmt: skip
def test_rules(inp: AdviceInput, rule: int, recommendation: str, nvlink: bool) -> None:
    res = purchase_advice(inp)
    assert res.rule is not None
    assert res.rule.number == rule
    assert res.recommendation == recommendation
    assert res.needs_nvlink is nvlink
    assert res.reasons


def test_pipeline_parallelism_does_not_need_the_link() -> None:
    res = purchase_advice(
        AdviceInput(fits_one_card=False, cards_needed=4, parallelism="pipeline", traffic="high")
    )
    assert res.rule is not None and res.rule.number == 3
    assert LINK_DOES_NOT_MATTER["pipeline-parallelism"] in res.also
    assert not res.needs_nvlink


def test_diffusion_and_rendering() -> None:
    res = purchase_advice(AdviceInput(fits_one_card=True, workload="image_video"))
    assert res.rule is not None and res.rule.number == 1
    assert LINK_DOES_NOT_MATTER["diffusion-rendering"] in res.also
    farm = purchase_advice(
        AdviceInput(fits_one_card=True, workload="rendering", independent_jobs=True)
    )
    assert farm.rule is not None and farm.rule.number == 2
    assert not farm.needs_nvlink


def test_the_most_expensive_mistake() -> None:
    res = purchase_advice(
        AdviceInput(fits_one_card=True, cards_needed=1, planned_tensor_parallel=4)
    )
    assert res.rule is not None and res.rule.number == 1
    assert MISTAKE in res.also
    assert "slower" in MISTAKE.text_en
    fine = purchase_advice(
        AdviceInput(fits_one_card=False, cards_needed=4, planned_tensor_parallel=4)
    )
    assert MISTAKE not in fine.also


def test_one_model_per_card_case() -> None:
    res = purchase_advice(AdviceInput(fits_one_card=True, parallelism="replicas"))
    assert LINK_DOES_NOT_MATTER["one-model-per-card"] in res.also
    assert res.rule is not None and res.rule.number == 2
