"""The catalog data and its loader: counts, ids, published prices, lookups, relations."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest

from knowledge.catalog import (
    Catalog,
    UnknownConfiguration,
    UnknownModel,
    load_catalog,
    normalize,
)

ROOT = Path(__file__).resolve().parent.parent
CATALOG = ROOT / "knowledge" / "catalog"
SEED = ROOT.parent / "shared" / "seeds" / "000_2e590f235b41c23d.txt"

CARDS = [
    "l4", "l40s", "rtx-4090", "rtx-5090", "rtx-a6000", "a100-pcie",
    "a100-sxm4", "h100-pcie", "h100-sxm5", "h200", "b200",
]  # fmt: skip
PCIE_CARDS = ["l4", "l40s", "rtx-4090", "rtx-5090", "rtx-a6000", "a100-pcie", "h100-pcie"]
SXM_CARDS = ["a100-sxm4", "h100-sxm5", "h200", "b200"]
GEN4_CHASSIS = [
    "1x-rtx-4090-gen4", "2x-rtx-4090-gen4", "1x-rtx-a6000-gen4", "2x-rtx-a6000-gen4",
    "1x-l40s-gen4",
]  # fmt: skip


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog(CATALOG)


def test_counts_and_card_ids(cat: Catalog) -> None:
    assert list(cat.gpus) == CARDS
    assert set(cat.links) == {"nvlink-3", "nvlink-4", "nvlink-5", "pcie-gen5-x16", "pcie-gen4-x16"}
    assert len(cat.configurations) == 41


def test_configuration_ids_follow_the_scheme(cat: Catalog) -> None:
    expected = {f"{n}x-{c}" for c in PCIE_CARDS for n in (1, 2, 4, 8)}
    expected |= {f"{n}x-{c}" for c in SXM_CARDS for n in (4, 8)}
    expected |= set(GEN4_CHASSIS)
    assert set(cat.configurations) == expected
    for c in cat.configurations.values():
        m = re.fullmatch(r"(\d)x-([a-z0-9-]+?)(-gen4)?", c.id)
        assert m, c.id
        assert int(m.group(1)) == c.count
        assert m.group(2) == c.gpu
        if m.group(3):
            assert c.interconnect == "pcie-gen4-x16"


def test_sxm_nodes_use_the_cards_nvlink_and_pcie_nodes_pcie(cat: Catalog) -> None:
    for c in cat.configurations.values():
        g = cat.gpus[c.gpu]
        if g.form_factor == "sxm":
            assert c.interconnect == g.nvlink_link
            assert c.count in (4, 8)
        else:
            assert cat.links[c.interconnect].kind == "pcie"


def test_exactly_two_published_prices(cat: Catalog) -> None:
    published = {c.id: c.usd_per_month for c in cat.configurations.values() if not c.placeholder}
    assert published == {"4x-a100-pcie": Decimal(4157), "4x-a100-sxm4": Decimal(4395)}
    for c in cat.configurations.values():
        assert isinstance(c.usd_per_month, Decimal)
        assert c.usd_per_month > 0


@pytest.mark.skipif(not SEED.exists(), reason="the guide export is not on this machine")
def test_published_prices_and_bandwidths_are_the_guides() -> None:
    text = SEED.read_text(encoding="utf-8")
    cat = load_catalog(CATALOG)
    for cid in ("4x-a100-pcie", "4x-a100-sxm4"):
        c = cat.configurations[cid]
        assert f"${int(c.usd_per_month):,}/Monat" in text
        assert f"]({c.url})" in text  # the card-page link next to the price
        assert f"[{c.label}]({c.url})" in text
    for gid in ("a100-pcie", "a100-sxm4"):
        bw = int(cat.gpus[gid].memory_bandwidth_gb_s)
        assert f"{bw:,} GB/s" in text
    assert "NVLink 3 · 600 GB/s" in text
    assert cat.links["nvlink-3"].bandwidth_gb_s == 600


def test_urls(cat: Catalog) -> None:
    assert cat.configurations["4x-a100-pcie"].url == "https://gpuserver.io/de/gpu/a100-80gb"
    assert cat.configurations["4x-a100-sxm4"].url == "https://gpuserver.io/de/gpu/a100-sxm4"
    assert cat.configurations["4x-a100-sxm4"].url_en == "https://gpuserver.io/en/gpu/a100-sxm4"
    for c in cat.configurations.values():
        assert c.url == f"https://gpuserver.io/de/gpu/{cat.gpus[c.gpu].page}"


def test_vendor_facts(cat: Catalog) -> None:
    g = cat.gpus
    assert g["a100-sxm4"].nvlink_link == "nvlink-3"
    assert g["a100-sxm4"].nvlink_links == 12
    assert g["h100-sxm5"].nvlink_links == 18
    for card in ("a100-pcie", "l4", "l40s", "rtx-4090", "rtx-a6000"):
        assert g[card].pcie_gen == 4, card
    for card in ("h100-pcie", "rtx-5090"):
        assert g[card].pcie_gen == 5, card
    # the guide's own listing is kept verbatim, even where the vendor disagrees
    assert g["a100-sxm4"].guide_listing == "NVLink 4 über NVSwitch"
    assert g["a100-pcie"].guide_listing == "PCIe Gen5 ×16"
    for card in g.values():
        assert {"memory_gb", "memory_bandwidth_gb_s"} <= set(card.sources)


def test_effective_link_gen4_card_in_gen5_node(cat: Catalog) -> None:
    assert cat.link_of("4x-a100-pcie").id == "pcie-gen5-x16"
    assert cat.effective_link("4x-a100-pcie").id == "pcie-gen4-x16"
    assert cat.effective_link("4x-h100-pcie").id == "pcie-gen5-x16"
    assert cat.effective_link("8x-rtx-5090").id == "pcie-gen5-x16"
    assert cat.effective_link("4x-a100-sxm4").id == "nvlink-3"
    assert cat.effective_link("8x-b200").id == "nvlink-5"


@pytest.mark.parametrize(
    ("text", "model_id"),
    [
        ("Llama 3.3 70B", "llama-3.3-70b"),
        ("meta-llama/Llama-3.3-70B-Instruct", "llama-3.3-70b"),
        ("llama3.3:70b", "llama-3.3-70b"),
        ("LLAMA-3.3-70b", "llama-3.3-70b"),
        ("Llama-3.3-70B-Instruct-AWQ", "llama-3.3-70b"),
        ("llama3.1:8b", "llama-3.1-8b"),
        ("Qwen/Qwen2.5-72B-Instruct", "qwen2.5-72b"),
        ("mixtral:8x7b", "mixtral-8x7b"),
        ("Qwen3 235B-A22B", "qwen3-235b-a22b"),
        ("deepseek-ai/DeepSeek-V3", "deepseek-v3"),
        ("mistral-small:24b", "mistral-small-24b"),
        ("Llama 3.1 405B", "llama-3.1-405b"),
        ("FLUX.1 [dev]", "flux.1-dev"),
        ("flux schnell", "flux.1-schnell"),
        ("SDXL", "sdxl"),
        ("SD 3.5 Large", "sd-3.5-large"),
        ("sd3.5 medium", "sd-3.5-medium"),
        ("Wan 2.1 14B", "wan-2.1-14b"),
        ("Wan-AI/Wan2.1-T2V-1.3B", "wan-2.1-1.3b"),
    ],
)
def test_find_model(cat: Catalog, text: str, model_id: str) -> None:
    assert cat.find_model(text).id == model_id


def test_required_models_are_there(cat: Catalog) -> None:
    ids = set(cat.models)
    assert {
        "llama-3.1-8b", "llama-3.3-70b", "llama-3.1-405b", "mistral-small-24b", "qwen2.5-72b",
        "mixtral-8x7b", "qwen3-235b-a22b", "deepseek-v3", "flux.1-dev", "flux.1-schnell", "sdxl",
        "sd-3.5-large", "sd-3.5-medium", "wan-2.1-14b", "wan-2.1-1.3b",
    } <= ids  # fmt: skip
    assert cat.models["deepseek-v3"].attention == "mla"
    assert cat.models["mixtral-8x7b"].is_moe
    assert cat.models["qwen3-235b-a22b"].active_params_b == 22


@pytest.mark.parametrize(
    "text", ["a 34B model", "34B", "34b", "34 billion parameters", "ein 34B-Modell"]
)
def test_parameter_count_gives_a_generic_model(cat: Catalog, text: str) -> None:
    m = cat.find_model(text)
    assert m.generic
    assert m.params_b == 34
    assert m.params == 34e9
    assert m.has_architecture and m.estimate_basis  # KV estimated, and it says from what


def test_parameter_model_direct(cat: Catalog) -> None:
    assert cat.parameter_model(13).params_b == 13
    with pytest.raises(ValueError):
        cat.parameter_model(0)


def test_unknown_model_has_closest(cat: Catalog) -> None:
    with pytest.raises(UnknownModel) as info:
        cat.find_model("llama 3.3 7b")
    assert "Llama 3.3 70B" in info.value.closest
    assert "llama 3.3 7b" in str(info.value)


@pytest.mark.parametrize(
    ("text", "config_id"),
    [
        ("4x-a100-sxm4", "4x-a100-sxm4"),
        ("4 × NVIDIA A100 SXM4", "4x-a100-sxm4"),
        ("4x A100 SXM4", "4x-a100-sxm4"),
        ("4 x A100 80GB", "4x-a100-pcie"),
        ("a100 pcie x4", "4x-a100-pcie"),
        ("8x H100", "8x-h100-sxm5"),
        ("8 x H100 PCIe", "8x-h100-pcie"),
        ("2x RTX 4090", "2x-rtx-4090"),
        ("2x RTX 4090 gen4", "2x-rtx-4090-gen4"),
        ("1x-l40s-gen4", "1x-l40s-gen4"),
        ("8x B200", "8x-b200"),
    ],
)
def test_find_configuration(cat: Catalog, text: str, config_id: str) -> None:
    assert cat.find_configuration(text).id == config_id


def test_unknown_configuration_has_closest(cat: Catalog) -> None:
    with pytest.raises(UnknownConfiguration) as info:
        cat.find_configuration("4x a100 sxm5")
    assert "4x-a100-sxm4" in info.value.closest
    with pytest.raises(UnknownConfiguration) as info:
        cat.find_configuration("3x h100")
    assert any("h100" in c for c in info.value.closest)


def test_find_gpu(cat: Catalog) -> None:
    assert cat.find_gpu("H100").id == "h100-sxm5"
    assert cat.find_gpu("A100 80GB").id == "a100-pcie"
    assert cat.find_gpu("RTX 4090").id == "rtx-4090"


def test_normalize() -> None:
    assert normalize("Llama-3.3 70B") == "llama3370b"
    assert normalize("4 × A100") == "4xa100"


def test_model_aliases_unique(cat: Catalog) -> None:
    seen: dict[str, str] = {}
    for m in cat.models.values():
        for name in (m.id, m.name, *m.aliases):
            key = normalize(name)
            assert seen.setdefault(key, m.id) == m.id, name
