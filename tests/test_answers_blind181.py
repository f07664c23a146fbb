"""Answers for the families the night session of 2026-12-07 found in blind-180 … 184, in other
words than the cases': a support bot for a web shop is a language-model job, not web hosting;
"which GPU should we take?" asks the model, then picks; a fine-tune said for later behind a
German abbreviation ("ggf.", "evtl."); a budget put to the node named after a dash ("– kommen
wir damit hin?"); a fit asked of a model beside a pasted `nvidia-smi topo -m`."""

from __future__ import annotations

from typing import Any

from assistant.service import Assistant
from tests.answers import asked_after, fit_row, last_call
from tests.answers import ok as _ok


def _calls(answer: Any, name: str) -> list[Any]:
    return [c for c in answer.tool_calls if c.name == name]


def test_a_chatbot_for_a_web_shop_is_sized_not_refused(assistant: Assistant) -> None:
    first = assistant.ask(
        "Wir betreiben einen Webshop und wollen einen eigenen Chatbot für die Kundenberatung. "
        "Welche GPU sollten wir nehmen?"
    )
    text = _ok(first, "de")
    assert first.reading.task != "out_of_scope"
    assert first.reading.outside == []
    assert "Modell" in text.split("\n")[0] and "?" in text.split("\n")[0]
    then = assistant.ask("Mistral Small 24B, etwa 20 gleichzeitig", session_id=first.session_id)
    _ok(then, "de")
    assert then.reading.concurrent_sequences == 20
    cheapest = last_call(then, "cheapest_fit")
    assert cheapest.arguments["model"] == "mistral-small-24b"


def test_web_hosting_asked_beside_a_chatbot_is_still_out_of_scope(assistant: Assistant) -> None:
    a = assistant.ask("Do you also do plain website hosting for our shop? And a chatbot?")
    _ok(a, "en")
    assert "web_hosting" in a.reading.outside


def test_a_fine_tune_later_behind_an_abbreviation_only_requires_the_link(
    assistant: Assistant,
) -> None:
    a = asked_after(
        assistant,
        "günstigster knoten für llama 3.1 70b in fp8?",
        "Kunde besteht auf NVLink, die wollen irgendwann evtl. noch selbst finetunen.",
        "de",
    )
    _ok(a, "de")
    assert a.reading.require_link == "nvlink"
    assert a.reading.task == "serve"
    assert not {"fine_tuning", "training"} & set(a.reading.workloads)
    assert last_call(a, "cheapest_fit").arguments.get("interconnect") == "nvlink"


def test_a_budget_put_to_the_node_after_a_dash(assistant: Assistant) -> None:
    a = asked_after(
        assistant,
        "Passt Qwen2.5 32B in FP8 auf eine L40S?",
        "Ok, danke. Der Kunde hat für das Projekt höchstens 900 € im Monat eingeplant – kommen wir "
        "damit hin?",
        "de",
    )
    text = _ok(a, "de")
    assert a.reading.yes_no
    assert a.reading.budget_usd_per_month == 900
    quote = last_call(a, "price_quote").result["quotes"][0]
    assert quote["configuration"] == "1x-l40s"
    within = quote["usd_per_month"] <= 900
    assert text.startswith("**Ja" if within else "**Nein")


_TOPO = """GPU0\tGPU1\tCPU Affinity\tNUMA Affinity
GPU0\t X \tNODE\t0-47\t0
GPU1\tNODE\t X \t0-47\t0

Legend:

  X    = Self
  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges
  NV#  = Connection traversing a bonded set of # NVLinks
"""


def test_a_fit_asked_beside_a_pasted_topology_leads_and_the_check_follows(
    assistant: Assistant,
) -> None:
    a = assistant.ask(
        "Kunde hat uns das von seiner 2x RTX A6000 Kiste geschickt:\n\n"
        + _TOPO
        + "\nkann er Qwen2.5 32B in BF16 über die beiden Karten verteilt laufen lassen?"
    )
    text = _ok(a, "de")
    names = [c.name for c in a.tool_calls]
    assert "fit_check" in names and "check_topology_output" in names
    row = fit_row(a, "2x-rtx-a6000")
    assert row["verdict"] in ("fits_one_card", "split")
    assert text.startswith("**Ja")
    assert last_call(a, "check_topology_output").result["status"] == "ok"
    assert text.index("Topologie") > text.index("aufgeteilt")  # the check follows the fit
