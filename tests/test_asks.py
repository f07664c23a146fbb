"""Questions with several asks (Query.asks): each ask is found, gets its own tool call and its
answer, and the first sentence answers the first ask. Asserted on Query fields, the planner's
flow, tool calls and arguments, verdicts, prices and figures (computed from the tools)."""

from __future__ import annotations

from typing import Any

import pytest

from assistant.answer import Answer
from assistant.compose.polarity import lead_polarity
from assistant.compose.table import plan
from assistant.deps import Deps
from assistant.nlu import Understander
from assistant.registry import call_tool
from assistant.service import Assistant
from tests.answers import ok as _ok


def _calls(a: Answer, name: str) -> list[Any]:
    return [c for c in a.tool_calls if c.name == name]


def _row(deps: Deps, cid: str, **args: Any) -> dict[str, Any]:
    res = call_tool(deps, "fit_check", {**args, "configurations": [cid]}).result
    row: dict[str, Any] = res["rows"][0]
    return row


def _tps(deps: Deps, model: str, cid: str, precision: str) -> float:
    args = {"model": model, "configuration": cid, "precision": precision}
    return float(call_tool(deps, "throughput_estimate", args).result["tokens_per_s"])


# ---------------------------------------------------------------- understanding


@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        (
            "Kunde möchte Mixtral 8x7B auf 4x L40S betreiben – was kostet der Knoten?",
            ["fit", "price"],
        ),
        (
            "How much is the 2x A100 PCIe box per month, and would Llama 3.3 70B in FP8 run on it?",
            ["price", "fit"],
        ),
        ("Llama 3.3 70B, 8x H200, monthly price please", ["fit", "price"]),
        ("Does the complete context of Llama 3.1 8B fit on an RTX 4090?", ["fit", "context"]),
        (
            "Läuft Qwen2.5 72B in FP8 mit maximaler Kontextlänge auf 4x H100 SXM5?",
            ["fit", "context"],
        ),
        ("Llama 3.1 8B on an L4, FP8 versus BF16: tokens/s?", ["speed", "speed"]),
        (
            "How much context can Mixtral 8x7B use on 2x A100 PCIe, and would 32K fit?",
            ["context", "fit"],
        ),
        # the sequences of a context are asked, not the context; "schafft" asks how many (the
        # capacity flow answers it), not whether it fits
        ("Wie viele Sequenzen mit 16k Kontext schafft Mixtral 8x7B auf 2x A100 PCIe?", []),
        # one ask: nothing changes
        ("Does Llama 3.1 8B fit on one L4?", ["fit"]),
        ("Passt Llama 3.1 8B mit 32k Kontext auf eine L4?", ["fit"]),
        ("What does 4x A100 SXM4 cost?", []),
    ],
)
def test_every_ask_in_the_order_asked(nlu: Understander, question: str, kinds: list[str]) -> None:
    assert [a.kind for a in nlu.understand(question).asks] == kinds


def test_precisions_compared_are_asked_each(nlu: Understander) -> None:
    q = nlu.understand("Llama 3.1 8B on an L4, FP8 versus BF16: tokens/s?")
    assert q.precisions == ["fp8", "bf16"]
    assert [a.precision for a in q.asks] == ["fp8", "bf16"]
    # the KV cache's precision is not a precision of the weights compared
    q = nlu.understand("How fast is Llama 3.3 70B in BF16 with an FP8 KV cache on 2x H100 PCIe?")
    assert q.precisions == ["bf16"] and q.kv_precision == "fp8"
    assert len(q.asks) == 1


@pytest.mark.parametrize(
    ("question", "tokens"),
    [
        ("Passt Llama 3.1 8B mit 64.000 Token Kontext auf eine L4?", 64000),
        ("Llama 3.1 8B mit vollem Kontext (32K) auf einer L4?", 32768),
        ("Llama 3.1 8B with a context of 100,000 tokens on one L40S?", 100000),
    ],
)
def test_context_figures(nlu: Understander, question: str, tokens: int) -> None:
    assert nlu.understand(question).context_tokens == tokens


def test_a_bare_figure_in_a_context_question_is_the_context(nlu: Understander) -> None:
    q = nlu.understand("How much context can Mixtral 8x7B use on 2x A100 PCIe, and would 32K fit?")
    assert q.context_tokens == 32 * 1024
    q = nlu.understand(
        "Longest context for Mixtral 8x7B on 2x A100 PCIe with a budget of 3k/month?"
    )
    assert q.context_tokens is None


def test_full_context_in_german(nlu: Understander) -> None:
    q = nlu.understand("Geht Llama 3.1 8B mit vollem Kontext auf eine L40S?")
    assert q.full_context and q.context_tokens is None


def test_the_planner_runs_the_flow_of_the_first_ask(nlu: Understander) -> None:
    mail = nlu.understand("Wir wollen Qwen2.5 72B in FP8 auf 2x H100 PCIe hosten. Preis pro Monat?")
    flow, led = plan(mail)
    assert flow.name == "fit" and led.intent == "fit"
    price_first = nlu.understand(
        "What's the monthly price of 2x H100 PCIe, and does Qwen2.5 72B fit?"
    )
    assert plan(price_first)[0].name == "price"


# ---------------------------------------------------------------- answers


def test_a_mail_with_a_model_a_node_and_a_price_gets_the_fit_and_the_price(
    assistant: Assistant, deps: Deps
) -> None:
    a = assistant.ask(
        "FYI from a customer: 'We would host Qwen2.5 72B in BF16 on 4x L40S. "
        "How much is that per month?'"
    )
    text = _ok(a, "en")
    row = _row(deps, "4x-l40s", model="qwen2.5-72b", precision="bf16")
    fit = _calls(a, "fit_check")[0].result
    assert {r["configuration"]: r["verdict"] for r in fit["rows"]}["4x-l40s"] == row["verdict"]
    assert "4x-l40s" in {p.configuration for p in a.prices}
    price = deps.catalog.configurations["4x-l40s"].usd_per_month
    assert f"${price:,}/month" in text
    assert lead_polarity(text) is (row["verdict"] != "does_not_fit")


def test_price_first_then_fit(assistant: Assistant, deps: Deps) -> None:
    a = assistant.ask("Was kostet 1x RTX 4090 im Monat, und läuft Llama 3.1 8B in BF16 darauf?")
    text = _ok(a, "de")
    assert a.tool_calls[0].name == "price_quote"
    assert _calls(a, "fit_check"), "the fit asked second has its own tool call"
    row = _row(deps, "1x-rtx-4090", model="llama-3.1-8b", precision="bf16")
    assert text.index("$390/Monat") < text.index("RTX 4090](", text.index("\n"))
    expected = {"fits_one_card": "passt auf eine Karte", "does_not_fit": "passt nicht"}
    assert expected[row["verdict"]] in text
    assert [p.configuration for p in a.prices].count("1x-rtx-4090") == 1


def test_full_context_on_a_node_gets_the_fit_at_that_context_and_the_room(
    assistant: Assistant, deps: Deps
) -> None:
    a = assistant.ask("Kriege ich den ganzen Kontext von Llama 3.1 8B auf einer RTX 4090 unter?")
    text = _ok(a, "de")
    limit = deps.catalog.models["llama-3.1-8b"].max_context
    fit = _calls(a, "fit_check")[0]
    assert fit.arguments["context_tokens"] == limit
    cap = _calls(a, "capacity_check")
    assert cap and cap[0].arguments["context_tokens"] == limit
    assert cap[0].arguments["configuration"] == "1x-rtx-4090"
    row = _row(deps, "1x-rtx-4090", model="llama-3.1-8b", context_tokens=limit)
    assert lead_polarity(text) is (row["verdict"] != "does_not_fit")
    assert f"{cap[0].result['max_context_capped']:,}".replace(",", ".") in text


def test_two_precisions_get_a_figure_each(assistant: Assistant, deps: Deps) -> None:
    a = assistant.ask("Wie schnell ist Llama 3.1 8B auf einer L40S, einmal FP8, einmal BF16?")
    text = _ok(a, "de")
    timed = {c.arguments.get("precision") for c in _calls(a, "throughput_estimate")}
    assert {"fp8", "bf16"} <= timed
    for prec in ("fp8", "bf16"):
        tps = _tps(deps, "llama-3.1-8b", "1x-l40s", prec)
        assert f"etwa {tps:.0f} Token/s" in text
    assert text.index("in FP8") < text.index("in BF16")  # the first named first


def test_one_ask_is_answered_as_before(assistant: Assistant) -> None:
    a = assistant.ask("What does 4x A100 SXM4 cost?")
    assert not _calls(a, "fit_check") and not _calls(a, "capacity_check")


def test_a_context_beyond_the_model_is_no_and_sized_at_the_limit(
    assistant: Assistant, deps: Deps
) -> None:
    limit = deps.catalog.models["mixtral-8x7b"].max_context
    a = assistant.ask("Läuft Mixtral 8x7B mit 100.000 Token Kontext auf 2x L40S?")
    text = _ok(a, "de")
    assert limit < 100_000
    assert lead_polarity(text) is False  # beyond the model itself, on any node
    assert f"{limit:,}".replace(",", ".") in text.split("\n")[0]
    assert all(c.arguments["context_tokens"] == limit for c in _calls(a, "fit_check"))
    # within the limit nothing is added
    a = assistant.ask("Läuft Mixtral 8x7B mit 16.000 Token Kontext auf 2x L40S?")
    assert _calls(a, "fit_check")[0].arguments["context_tokens"] == 16000
    assert "über das Modell hinaus" not in a.answer


def test_a_follow_up_asks_about_the_sessions_model(assistant: Assistant, deps: Deps) -> None:
    first = assistant.ask("Does Mixtral 8x7B fit on 2x H100 PCIe?")
    a = assistant.ask("And how fast, FP8 compared with BF16?", session_id=first.session_id)
    text = _ok(a, "en")
    timed = [c.arguments.get("precision") for c in _calls(a, "throughput_estimate")]
    assert timed[:2] == ["fp8", "bf16"]
    for prec in ("fp8", "bf16"):
        assert f"about {_tps(deps, 'mixtral-8x7b', '2x-h100-pcie', prec):.0f} tokens/s" in text
    # "and what does it cost?" after a fit answer asks the price only: no fit ask of its own
    a = assistant.ask("and what does that node cost?", session_id=first.session_id)
    assert [c.name for c in a.tool_calls][:1] == ["price_quote"]
    assert not _calls(a, "fit_check")
