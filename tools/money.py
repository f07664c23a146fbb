"""Exact money amounts: Decimal in Python, a JSON number on the wire."""

from decimal import Decimal
from typing import Annotated

from pydantic import PlainSerializer


def _usd_json(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else float(value)


#: the hours a monthly price covers: 8,760 hours a year / 12 (a price or budget per hour is a
#: month's over these)
HOURS_PER_MONTH = 730.0

USD = Annotated[Decimal, PlainSerializer(_usd_json, return_type=int | float, when_used="json")]
"""US dollars, kept exact as Decimal; serialised to JSON as a number (4395 or 4157.5)."""
