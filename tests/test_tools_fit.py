"""The configurator: verdicts over the catalog, the guide's 320 GB case, capacity, properties."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from knowledge.catalog import Catalog, load_catalog
from tools.fit import (
    CapacityInput,
    FitResult,
    Requirement,
    SortKey,
    capacity,
    fit_configuration,
    fit_configurations,
    split_candidates,
)
from tools.memory import ServingInput, serving_memory
from tools.specs import Configuration, Gpu

CATALOG = Path(__file__).resolve().parent.parent / "knowledge" / "catalog"
FIXTURE_OK = [HealthCheck.function_scoped_fixture]
RANK = {"fits_one_card": 0, "split": 1, "does_not_fit": 2}


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog(CATALOG)


def _all(cat: Catalog, req: Requirement, sort: SortKey = "catalog") -> FitResult:
    return fit_configurations(req, list(cat.configurations.values()), cat.gpus, sort=sort)


def test_every_configuration_gets_a_row(cat: Catalog) -> None:
    res = _all(cat, Requirement(model=cat.models["llama-3.3-70b"]))
    assert [r.configuration for r in res.rows] == list(cat.configurations)
    assert sum(res.counts().values()) == 41
    assert res.kv_bytes_per_token == 327_680
    assert res.inputs.model.id == "llama-3.3-70b"
    assert "required_gb_per_card" in res.formula


def test_guide_case_320_gb_in_four_80_gb_cards(cat: Catalog) -> None:
    """Both nodes of the guide's comparison hold 320 GB in four 80-GB cards; 70B BF16 is split."""
    req = Requirement(model=cat.models["llama-3.3-70b"], precision="bf16")
    for cid in ("4x-a100-pcie", "4x-a100-sxm4"):
        c = cat.configurations[cid]
        g = cat.gpus[c.gpu]
        assert (c.count, g.memory_gb, c.count * g.memory_gb) == (4, 80, 320)
        row = fit_configuration(req, c, g)
        assert row.verdict == "split" and row.cards_needed == 4
        assert row.verdict_text == "must be split across 4 cards"
        assert row.headroom_gb_per_card > 0
    one = cat.configurations["1x-a100-pcie"]
    assert fit_configuration(req, one, cat.gpus["a100-pcie"]).verdict == "does_not_fit"


def test_verdict_agrees_with_serving_memory(cat: Catalog) -> None:
    m = cat.models["mistral-small-24b"]
    req = Requirement(model=m, context_tokens=16_384, concurrency=2)
    for row in _all(cat, req).rows:
        usable = row.usable_gb_per_card
        if row.cards_needed:
            need = serving_memory(
                ServingInput(
                    model=m, context_tokens=16_384, concurrency=2, tensor_parallel=row.cards_needed
                )
            ).required_gb_per_card
            assert need == pytest.approx(row.required_gb_per_card)
            assert need <= usable
            assert row.replicas == row.count // row.cards_needed
        else:
            assert row.required_gb_per_card > usable


def test_small_model_fits_one_card_everywhere_but_the_smallest(cat: Catalog) -> None:
    res = _all(cat, Requirement(model=cat.models["llama-3.1-8b"]))
    assert res.counts()["fits_one_card"] == 41  # 16 GB of weights fit a 24 GB card at 0.9
    big_ctx = _all(cat, Requirement(model=cat.models["llama-3.1-8b"], context_tokens=131_072))
    l4 = next(r for r in big_ctx.rows if r.configuration == "1x-l4")
    assert l4.verdict == "does_not_fit"


def test_405b_fp8_needs_eight_80gb_cards(cat: Catalog) -> None:
    """Meta serves 405B on 8 x 80 GB in FP8."""
    req = Requirement(model=cat.models["llama-3.1-405b"], precision="fp8")
    rows = {r.configuration: r for r in _all(cat, req).rows}
    assert rows["8x-h100-sxm5"].verdict == "split" and rows["8x-h100-sxm5"].cards_needed == 8
    assert rows["4x-h100-sxm5"].verdict == "does_not_fit"
    bf16 = {r.configuration: r for r in _all(cat, Requirement(model=req.model)).rows}
    assert bf16["8x-h100-sxm5"].verdict == "does_not_fit"  # BF16 needs 16 cards


def test_image_models_are_not_split(cat: Catalog) -> None:
    res = _all(cat, Requirement(model=cat.models["wan-2.1-14b"]))
    assert res.counts()["split"] == 0
    rows = {r.configuration: r for r in res.rows}
    assert rows["1x-rtx-4090"].verdict == "does_not_fit"
    assert rows["4x-h100-sxm5"].verdict == "fits_one_card"
    assert rows["4x-h100-sxm5"].replicas == 4


def test_sort_by_price(cat: Catalog) -> None:
    res = _all(cat, Requirement(model=cat.models["llama-3.3-70b"]), sort="price")
    prices = [r.usd_per_month for r in res.rows]
    assert prices == sorted(prices)
    assert len(prices) == 41


def test_split_candidates_divide_heads(cat: Catalog) -> None:
    assert split_candidates(cat.models["llama-3.3-70b"], 8) == [1, 2, 4, 8]
    assert split_candidates(cat.find_model("34B"), 3) == [1, 2, 3]  # its layout is borrowed
    # 96 attention heads divide by 3 and 6, its 8 KV heads do not: vLLM refuses TP 3 and 6
    assert split_candidates(cat.models["mistral-large-2"], 8) == [1, 2, 4, 8]
    assert split_candidates(cat.models["phi-4"], 8) == [1, 2, 5]  # 40 heads, 10 KV heads
    assert split_candidates(cat.models["gemma-3-1b"], 8) == [1, 2, 4]  # 1 KV head: replicated


def test_no_split_offered_that_the_engine_refuses(cat: Catalog) -> None:
    res = _all(cat, Requirement(model=cat.models["command-r-plus-104b"], precision="fp8"))
    for r in res.rows:
        if r.verdict == "split":
            assert 8 % r.cards_needed == 0, (r.configuration, r.cards_needed)


def test_capacity_inverse(cat: Catalog) -> None:
    m = cat.models["llama-3.1-8b"]
    r = capacity(CapacityInput(model=m, gpu=cat.gpus["h100-sxm5"], count=1, context_tokens=8192))
    expected_tokens = int((72.0 - 16.06052 - 2.6) * 1e9 // 131_072)
    assert r.kv_tokens == pytest.approx(expected_tokens, abs=2)
    assert r.max_context_tokens == r.kv_tokens
    assert r.max_context_capped == 131_072
    assert r.max_concurrency == r.kv_tokens // 8192
    two = capacity(CapacityInput(model=m, gpu=cat.gpus["h100-sxm5"], count=1, concurrency=2))
    assert two.max_context_tokens == r.kv_tokens // 2


def test_capacity_uses_the_whole_node_by_default(cat: Catalog) -> None:
    m = cat.models["llama-3.3-70b"]
    r = capacity(CapacityInput(model=m, gpu=cat.gpus["a100-sxm4"], count=4))
    assert r.tensor_parallel == 4
    with pytest.raises(ValueError):
        capacity(CapacityInput(model=m, gpu=cat.gpus["a100-sxm4"], count=4, tensor_parallel=3))


# ---------------------------------------------------------------- properties


def _node(memory_gb: float, count: int) -> tuple[Configuration, Gpu]:
    gpu = Gpu(
        id="test-card",
        name="Test card",
        short_name="Test",
        memory_gb=memory_gb,
        memory_bandwidth_gb_s=1000,
        form_factor="pcie",
        pcie_gen=5,
        page="test",
        sources={"memory_gb": "test", "memory_bandwidth_gb_s": "test"},
    )
    config = Configuration(
        id=f"{count}x-test-card",
        label="test",
        gpu="test-card",
        count=count,
        interconnect="pcie-gen5-x16",
        usd_per_month=1,
        price_source="placeholder",
        url="https://gpuserver.io/de/gpu/test",
    )
    return config, gpu


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    model_id=st.sampled_from(
        ["llama-3.1-8b", "llama-3.3-70b", "mixtral-8x7b", "qwen3-235b-a22b", "deepseek-v3",
         "flux.1-dev", "wan-2.1-14b"]
    ),
    precision=st.sampled_from([None, "fp8", "awq", "gguf-q4_k_m"]),
    context=st.integers(min_value=0, max_value=131_072),
    count=st.sampled_from([1, 2, 4, 8]),
    memory=st.floats(min_value=8, max_value=300),
    more=st.floats(min_value=0, max_value=300),
)  # fmt: skip
def test_more_card_memory_never_worsens_the_verdict(
    cat: Catalog,
    model_id: str,
    precision: str | None,
    context: int,
    count: int,
    memory: float,
    more: float,
) -> None:
    m = cat.models[model_id]
    if m.kind != "llm":
        precision = None
    req = Requirement(model=m, precision=precision, context_tokens=context)
    small_c, small_g = _node(memory, count)
    big_c, big_g = _node(memory + more, count)
    small = fit_configuration(req, small_c, small_g)
    big = fit_configuration(req, big_c, big_g)
    assert RANK[big.verdict] <= RANK[small.verdict]
    if small.cards_needed and big.cards_needed:
        assert big.cards_needed <= small.cards_needed
    if big.cards_needed == small.cards_needed:  # same split: more memory, more headroom
        assert big.headroom_gb_per_card >= small.headroom_gb_per_card - 1e-9


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    context=st.integers(min_value=0, max_value=65_536),
    extra=st.integers(min_value=0, max_value=65_536),
    count=st.sampled_from([1, 2, 4, 8]),
    memory=st.floats(min_value=16, max_value=200),
)
def test_longer_context_never_improves_the_verdict(
    cat: Catalog, context: int, extra: int, count: int, memory: float
) -> None:
    m = cat.models["llama-3.3-70b"]
    c, g = _node(memory, count)
    short = fit_configuration(Requirement(model=m, context_tokens=context), c, g)
    long = fit_configuration(Requirement(model=m, context_tokens=context + extra), c, g)
    assert RANK[long.verdict] >= RANK[short.verdict]


# the guide's table "Which card holds which model" (gpu-for-flux-sdxl#which-card): each column's
# model and precision, and what its marks mean for fit_check's `room`
GUIDE_EN = CATALOG.parent / "guides" / "en" / "gpu-for-flux-sdxl.txt"
TABLE_COLUMNS = {
    "SDXL, SD 3.5 Medium, Wan 1.3B": [
        ("sdxl", None),
        ("sd-3.5-medium", None),
        ("wan-2.1-1.3b", None),
    ],
    "SD 3.5 Large": [("sd-3.5-large", None)],
    "FLUX.1 BF16": [("flux.1-dev", "bf16"), ("flux.1-schnell", "bf16")],
    "FLUX.1 FP8": [("flux.1-dev", "fp8"), ("flux.1-schnell", "fp8")],
    "Wan 2.1 14B, 720p": [("wan-2.1-14b", None)],
}


def _guide_table() -> list[dict[str, str]]:
    lines = [ln for ln in GUIDE_EN.read_text().splitlines() if ln.startswith("| ")]
    start = next(i for i, ln in enumerate(lines) if ln.startswith("| Card | VRAM"))
    header = [c.strip() for c in lines[start].strip("|").split("|")]
    rows = []
    for ln in lines[start + 1 :]:  # the |---| line is filtered out above
        cells = [c.strip() for c in ln.strip("|").split("|")]
        if len(cells) != len(header):
            break
        rows.append(dict(zip(header, cells, strict=True)))
    return rows


def _expected_room(mark: str) -> str | None:
    if mark.startswith("–"):
        return None  # does not fit without offloading
    return "tight" if ("tight" in mark or "no headroom" in mark) else "ample"


def test_image_room_reproduces_every_mark_of_the_guides_card_table(cat: Catalog) -> None:
    """`room` (tight below 25 % spare) says what the guide's table says for every card and
    image/video model: "✓ no headroom" / "✓ tight" -> tight, "✓ ..." -> ample, "–" -> no fit."""
    table = _guide_table()
    assert len(table) == 11 and set(TABLE_COLUMNS) <= set(table[0])
    by_name = {g.short_name: g for g in cat.gpus.values()}
    checked = 0
    for row in table:
        gpu = by_name[row["Card"]]
        config = next(
            c for c in cat.configurations.values() if c.gpu == gpu.id and c.count in (1, 4, 8)
        )
        for column, models in TABLE_COLUMNS.items():
            for model_id, precision in models:
                req = Requirement(model=cat.models[model_id], precision=precision)
                fit = fit_configuration(req, config, gpu)
                expected = _expected_room(row[column])
                got = fit.room if fit.verdict != "does_not_fit" else None
                assert got == expected, (row["Card"], column, model_id, row[column], fit)
                checked += 1
    assert checked == 11 * 9


def test_llm_rows_carry_room_and_no_fit_none(cat: Catalog) -> None:
    res = _all(cat, Requirement(model=cat.models["llama-3.1-8b"]))
    assert {r.room for r in res.rows if r.verdict != "does_not_fit"} == {"ample"}
    assert {r.room for r in res.rows if r.verdict == "does_not_fit"} <= {None}
