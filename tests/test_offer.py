"""The offer builder (assistant/offer.py, issue 26) over the real assistant and tools: options
priced from fit_check, the trade-offs in words, the forward text grounding-checked, and what it
leaves out for image models and for answers that sized nothing."""

from __future__ import annotations

import pytest

from assistant.deps import build_deps
from assistant.grounding import catalog_prices, check_answer
from assistant.offer import for_staff, offer_for
from assistant.service import Assistant
from assistant.settings import Settings
from assistant.texts import t


@pytest.fixture(scope="module")
def assistant(tmp_path_factory: pytest.TempPathFactory) -> Assistant:
    return Assistant(build_deps(Settings(data_dir=tmp_path_factory.mktemp("offer"))))


def test_fp8_on_a_card_without_fp8_tensor_cores_is_said(assistant: Assistant) -> None:
    answer = assistant.ask(
        "Customer wants Qwen2.5 72B in FP8 for 40 users at 32k context, budget 15000 USD a month"
    )
    offer = offer_for(assistant.deps, answer)
    assert offer is not None and offer.text
    rec = offer.recommended
    rows = {r["configuration"]: r for c in offer.tool_calls if c.name == "fit_check"
            for r in c.result["rows"]}  # fmt: skip
    assert float(rec.usd_per_month) == float(rows[rec.configuration]["usd_per_month"])
    assert rec.fp8_weight_only is (not rows[rec.configuration]["fp8_native"])
    if rec.fp8_weight_only:
        assert "weight-only" in offer.text
    for option in (offer.cheaper, offer.safer):
        assert option is None or option.trade_off  # every alternative says what it trades
    probe = answer.model_copy(
        update={"answer": offer.text, "tool_calls": answer.tool_calls + offer.tool_calls}
    )
    assert check_answer(probe, catalog_prices(assistant.deps.catalog)) == []


def test_an_image_model_offer_has_no_speed_and_no_request_load(assistant: Assistant) -> None:
    answer = assistant.ask("The customer wants FLUX.1 dev for image generation, what do we offer?")
    offer = offer_for(assistant.deps, answer)
    assert offer is not None and offer.recommended.tokens_per_s is None
    assert "tokens" not in offer.text.lower() and "requests" not in offer.text
    assert answer.chart is None  # no images/hour figure in the tools (docs/bugs.md)


def test_no_offer_when_nothing_was_sized(assistant: Assistant) -> None:
    assert offer_for(assistant.deps, assistant.ask("What will 4 x A100 SXM4 cost?")) is None


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_defect_reads_as_staff_need_it(assistant: Assistant, lang: str) -> None:
    from assistant.answer import Answer

    text = f"**Defect.** {t(lang, 'topo_report')}"
    shown = for_staff(
        Answer(
            question="q", language=lang, answer=text, mode="offline", session_id="s", message_id="m"
        )
    )
    assert t(lang, "topo_report") not in shown.answer
    assert t(lang, "topo_report_staff") in shown.answer


def test_a_comparison_chart_shows_both_configurations_compared(assistant: Assistant) -> None:
    """Issue 26: the chart's points are the configurations that hold the job, the cheapest
    first, and always the ones the answer names (a comparison's pair), the pick highlighted."""
    answer = assistant.ask("What's faster for Llama 3.3 70B: 4x A100 SXM4 or 4x H200?")
    assert answer.chart is not None
    points = {p.configuration: p for p in answer.chart.points}
    assert {"4x-a100-sxm4", "4x-h200"} <= set(points)
    assert points["4x-h200"].link == points["4x-a100-sxm4"].link == "nvlink"
    prices = [p.usd_per_month for p in answer.chart.points]
    assert prices == sorted(prices) and len(points) <= 12 < answer.chart.holding
    assert sum(p.recommended for p in answer.chart.points) == 1
    speeds = {
        c.arguments["configuration"]: c.result["tokens_per_s"]
        for c in answer.tool_calls
        if c.name == "throughput_estimate"
    }
    for cid, tps in speeds.items():  # the chart's figures are the answer's own tool results
        assert points[cid].tokens_per_s == tps
