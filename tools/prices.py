"""Exact catalog prices: quote a configuration, compare several, find the cheapest that fits.

Prices are Decimal USD per month exactly as in the catalog. Only two are published by the site
(4 x A100 PCIe $4,157 and 4 x A100 SXM4 $4,395); every quote says whether its price is a
placeholder.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from pydantic import BaseModel, Field

from tools.fit import ConfigurationFit, FitResult
from tools.money import HOURS_PER_MONTH, USD
from tools.specs import Configuration, Gpu

CENT = Decimal("0.01")


class Quote(BaseModel):
    configuration: str
    label: str
    gpu: str
    count: int
    usd_per_month: USD
    price_source: str
    placeholder: bool
    url: str
    url_en: str
    interconnect: str
    total_memory_gb: float
    usd_per_card_month: USD
    usd_per_gb_month: USD = Field(description="price per GB of card memory per month")
    usd_per_hour: USD = Field(
        description="the monthly price over the 730 hours a month has (an hour's share)"
    )


def quote(configuration: Configuration, gpu: Gpu) -> Quote:
    """The catalog price of one configuration, with per-card and per-GB figures."""
    total = gpu.memory_gb * configuration.count
    price = Decimal(configuration.usd_per_month)
    return Quote(
        configuration=configuration.id,
        label=configuration.label,
        gpu=gpu.id,
        count=configuration.count,
        usd_per_month=price,
        price_source=configuration.price_source,
        placeholder=configuration.placeholder,
        url=configuration.url,
        url_en=configuration.url_en,
        interconnect=configuration.interconnect,
        total_memory_gb=total,
        usd_per_card_month=(price / configuration.count).quantize(CENT, ROUND_HALF_UP),
        usd_per_gb_month=(price / Decimal(str(total))).quantize(CENT, ROUND_HALF_UP),
        usd_per_hour=(price / Decimal(str(HOURS_PER_MONTH))).quantize(CENT, ROUND_HALF_UP),
    )


class PriceDifference(BaseModel):
    configuration: str
    usd_per_month: USD
    more_than_cheapest_usd: USD
    more_than_cheapest_percent: float


class Comparison(BaseModel):
    quotes: list[Quote] = Field(description="sorted by price, cheapest first")
    cheapest: str
    most_expensive: str
    spread_usd: USD = Field(description="most expensive minus cheapest, per month")
    differences: list[PriceDifference]
    any_placeholder: bool
    formula: str = "difference = usd_per_month - cheapest usd_per_month"


def compare(quotes: list[Quote]) -> Comparison:
    """Compare quotes by monthly price (e.g. 4 x A100 SXM4 costs $238 more than 4 x A100 PCIe)."""
    if not quotes:
        raise ValueError("nothing to compare")
    ordered = sorted(quotes, key=lambda q: q.usd_per_month)
    low = Decimal(ordered[0].usd_per_month)
    diffs = [
        PriceDifference(
            configuration=q.configuration,
            usd_per_month=q.usd_per_month,
            more_than_cheapest_usd=Decimal(q.usd_per_month) - low,
            more_than_cheapest_percent=float((Decimal(q.usd_per_month) - low) / low * 100)
            if low
            else 0.0,
        )
        for q in ordered
    ]
    return Comparison(
        quotes=ordered,
        cheapest=ordered[0].configuration,
        most_expensive=ordered[-1].configuration,
        spread_usd=Decimal(ordered[-1].usd_per_month) - low,
        differences=diffs,
        any_placeholder=any(q.placeholder for q in ordered),
    )


class CheapestFit(BaseModel):
    model_id: str
    one_card_only: bool
    found: bool
    row: ConfigurationFit | None
    candidates: int = Field(description="configurations that qualified")
    tight: bool = Field(default=False, description="the pick fits with no room to spare")
    with_room: ConfigurationFit | None = Field(
        default=None, description="when the pick is tight: the cheapest fit with room to spare"
    )
    note: str


def cheapest_fit(fit: FitResult, one_card_only: bool = False) -> CheapestFit:
    """The cheapest configuration whose verdict is a fit (optionally: on one card)."""
    ok = [
        r
        for r in fit.rows
        if r.verdict == "fits_one_card" or (r.verdict == "split" and not one_card_only)
    ]
    if not ok:
        return CheapestFit(
            model_id=fit.model_id,
            one_card_only=one_card_only,
            found=False,
            row=None,
            candidates=0,
            note="no configuration in the catalog fits this requirement",
        )
    best = min(ok, key=lambda r: (r.usd_per_month, r.count))
    tight = best.room == "tight"
    roomy = [r for r in ok if r.room != "tight"]
    with_room = min(roomy, key=lambda r: (r.usd_per_month, r.count)) if tight and roomy else None
    note = f"{best.label}: {best.verdict_text}" + (
        " (placeholder price)" if best.price_source == "placeholder" else ""
    )
    if tight:
        note += f"; tight: {best.headroom_gb_per_card:.1f} GB spare per card"
        if with_room is not None:
            note += f"; the cheapest with room to spare is {with_room.label}"
    return CheapestFit(
        model_id=fit.model_id,
        one_card_only=one_card_only,
        found=True,
        row=best,
        candidates=len(ok),
        tight=tight,
        with_room=with_room,
        note=note,
    )
