"""How figures are written in answers: memory keeps the tools' one decimal at every size."""

from __future__ import annotations

import pytest

from assistant.texts import gb, tokens, usd


@pytest.mark.parametrize(
    ("lang", "value", "shown"),
    [
        (
            "en",
            123.5,
            "123.5 GB",
        ),  # `sizing fit` prints 123.5/126.9; a whole GB would hide the margin
        ("de", 123.5, "123,5 GB"),
        ("en", 141.0, "141 GB"),  # a card's capacity stays whole
        ("en", 1128.0, "1,128 GB"),
        ("de", 1128.04, "1.128 GB"),
        ("en", 40.3, "40.3 GB"),
        ("en", 0.156, "0.16 GB"),
    ],
)
def test_memory_keeps_one_decimal(lang: str, value: float, shown: str) -> None:
    assert gb(lang, value) == shown  # type: ignore[arg-type]


def test_tokens_and_money() -> None:
    assert tokens("en", 18.4) == "18"
    assert tokens("de", 2.46) == "2,5"
    assert usd(4157.5) == "$4,157.50"
