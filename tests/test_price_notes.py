"""Answers that follow the data (issue 17): when the catalog's price differs from the figure in a
cited guide passage, the answer says so instead of citing the guide as the source of the new
price. Real assistant offline, a changed copy of the catalog; the note is also applied to an LLM
answer (the post-processing step reads only the finished Answer)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from assistant.answer import Answer, Citation, PriceQuote
from assistant.grounding import catalog_prices, check_answer
from assistant.price_notes import add_price_notes, guide_figures
from assistant.service import Assistant
from assistant.settings import Settings
from evals.runner import RunOptions, prepare_deps
from tests.test_eval_catalog import changed_catalog

TABLE = (
    "|  | [4 × NVIDIA A100 PCIe](https://x/a100-80gb) "
    "| [4 × NVIDIA A100 SXM4](https://x/a100-sxm4) |\n"
    "|---|---|---|\n"
    "| Total VRAM | 320 GB | 320 GB |\n"
    "| Price | $4,157/month | $4,395/month |"
)


def _assistant(tmp: Path, catalog: Path | None) -> Assistant:
    settings = Settings(data_dir=tmp / "data", **({"catalog": catalog} if catalog else {}))
    return Assistant(prepare_deps(settings, RunOptions(), tmp))


@pytest.fixture(scope="module")
def changed(tmp_path_factory: pytest.TempPathFactory) -> Assistant:
    tmp = tmp_path_factory.mktemp("notes")
    return _assistant(tmp, changed_catalog(tmp / "catalog"))


@pytest.fixture(scope="module")
def shipped(tmp_path_factory: pytest.TempPathFactory) -> Assistant:
    return _assistant(tmp_path_factory.mktemp("shipped"), None)


def test_figures_of_a_node_in_a_table_and_in_prose() -> None:
    labels = ["4 × NVIDIA A100 PCIe", "4 × NVIDIA A100 SXM4"]
    assert guide_figures(TABLE, labels[1], labels) == [Decimal(4395)]
    assert guide_figures(TABLE, labels[0], labels) == [Decimal(4157)]
    prose = "The 4 × A100 SXM4 node costs $4,395 a month. An L4 costs $290."
    assert guide_figures(prose, labels[1], labels) == [Decimal(4395)]
    assert guide_figures("No prices here.", labels[1], labels) == []


@pytest.mark.parametrize(
    ("question", "lang", "expected"),
    [
        ("What will 4 x A100 SXM4 cost?", "en", "The guide shows $4,395"),
        ("Was kostet 4x A100 SXM4?", "de", "Im Guide steht für 4 × NVIDIA A100 SXM4 noch $4,395"),
        ("Compare the price of 4x A100 PCIe and 4x A100 SXM4.", "en", "The guide shows $4,395"),
    ],
)
def test_a_changed_price_is_noted_not_credited_to_the_guide(
    changed: Assistant, question: str, lang: str, expected: str
) -> None:
    a = changed.ask(question)
    assert a.language == lang
    assert expected in a.answer and "$3,999" in a.answer
    assert "publishes this price" not in a.answer and "veröffentlicht die Seite" not in a.answer
    assert any("4,395" in c.quote for c in a.citations)  # the guide figure is the cited one
    assert check_answer(a, catalog_prices(changed.deps.catalog)) == []
    if "PCIe" in question:
        assert "$4,157" in a.answer and "for 4 × NVIDIA A100 PCIe" not in a.answer


def test_no_note_when_guide_and_catalog_agree(shipped: Assistant) -> None:
    a = shipped.ask("What will 4 x A100 SXM4 cost?")
    assert "$4,395/month" in a.answer and "The guide shows" not in a.answer


def test_an_llm_answer_gets_the_note_too() -> None:
    quote = PriceQuote(
        configuration="4x-a100-sxm4",
        label="4 × NVIDIA A100 SXM4",
        usd_per_month=Decimal(3999),
        url="https://x/a100-sxm4",
    )
    cite = Citation(n=1, guide="nvlink-vs-pcie", title="t", section="s", url="u#a", quote=TABLE)
    llm: Any = Answer(
        question="q",
        language="en",
        answer="4 × NVIDIA A100 SXM4 costs **$3,999/month**, as the guide lists it [1].",
        mode="llm",
        citations=[cite],
        prices=[quote],
        session_id="s",
        message_id="m",
    )
    noted = add_price_notes(llm)
    assert noted.answer.startswith(llm.answer)
    assert "The guide shows $4,395 for 4 × NVIDIA A100 SXM4 [1]" in noted.answer
    assert check_answer(noted, {"4x-a100-sxm4": Decimal(3999)}) == []
    assert add_price_notes(noted).answer == noted.answer  # idempotent


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("Cheapest node for Llama 3.3 70B in FP8 under 5000 EUR per month?", True),
        ("Günstigster Knoten für Llama 3.3 70B in FP8 bis 5.000 € im Monat?", True),
        ("Cheapest node for Llama 3.3 70B in FP8 under $5000 per month?", False),
    ],
)
def test_a_euro_budget_is_said_to_be_compared_as_dollars(
    tmp_path: Path, question: str, said: bool
) -> None:
    """Issue 26: a budget in euros is compared 1:1 with the dollar prices, and the answer says
    so; the configurations it offers are within the amount either way."""
    from assistant.deps import build_deps
    from assistant.price_notes import EURO_NOTE

    deps = build_deps(Settings(data_dir=tmp_path))
    answer = Assistant(deps).ask(question)
    assert answer.reading is not None and answer.reading.budget_usd_per_month == 5000
    assert (EURO_NOTE[answer.language] in answer.answer) is said
    assert check_answer(answer, catalog_prices(deps.catalog)) == []  # the note too is grounded
    assert answer.prices and all(p.usd_per_month <= 5000 for p in answer.prices)
