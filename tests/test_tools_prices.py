"""Prices: exact quotes of the two published nodes, comparison, cheapest configuration that fits."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from knowledge.catalog import Catalog, load_catalog
from tools.fit import Requirement, fit_configurations
from tools.prices import Quote, cheapest_fit, compare, quote

CATALOG = Path(__file__).resolve().parent.parent / "knowledge" / "catalog"


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog(CATALOG)


def _quote(cat: Catalog, cid: str) -> Quote:
    c = cat.configurations[cid]
    return quote(c, cat.gpus[c.gpu])


def test_published_quotes(cat: Catalog) -> None:
    pcie = _quote(cat, "4x-a100-pcie")
    sxm = _quote(cat, "4x-a100-sxm4")
    assert pcie.usd_per_month == Decimal("4157") and not pcie.placeholder
    assert sxm.usd_per_month == Decimal("4395") and not sxm.placeholder
    assert pcie.total_memory_gb == sxm.total_memory_gb == 320
    assert pcie.usd_per_card_month == Decimal("1039.25")
    assert sxm.url == "https://gpuserver.io/de/gpu/a100-sxm4"
    assert sxm.url_en == "https://gpuserver.io/en/gpu/a100-sxm4"
    assert pcie.model_dump(mode="json")["usd_per_month"] == 4157


def test_placeholder_flag(cat: Catalog) -> None:
    q = _quote(cat, "8x-h100-sxm5")
    assert q.placeholder and q.price_source == "placeholder"


def test_compare_the_guide_pair(cat: Catalog) -> None:
    cmp = compare([_quote(cat, "4x-a100-sxm4"), _quote(cat, "4x-a100-pcie")])
    assert cmp.cheapest == "4x-a100-pcie"
    assert cmp.spread_usd == Decimal(238)
    assert cmp.differences[1].more_than_cheapest_percent == pytest.approx(238 / 4157 * 100)
    assert not cmp.any_placeholder
    with pytest.raises(ValueError):
        compare([])


def test_cheapest_fit(cat: Catalog) -> None:
    req = Requirement(model=cat.models["llama-3.3-70b"])
    fit = fit_configurations(req, list(cat.configurations.values()), cat.gpus)
    best = cheapest_fit(fit)
    assert best.found and best.row is not None
    ok = [r for r in fit.rows if r.verdict != "does_not_fit"]
    assert best.row.usd_per_month == min(r.usd_per_month for r in ok)
    one = cheapest_fit(fit, one_card_only=True)
    assert one.row is not None and one.row.verdict == "fits_one_card"
    assert one.row.usd_per_month == min(
        r.usd_per_month for r in fit.rows if r.verdict == "fits_one_card"
    )


def test_cheapest_fit_none(cat: Catalog) -> None:
    req = Requirement(model=cat.find_model("2000B"))
    fit = fit_configurations(req, list(cat.configurations.values()), cat.gpus)
    res = cheapest_fit(fit)
    assert not res.found and res.row is None
