"""Broken catalog files fail at load with one message naming the file, the entry and the field."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from knowledge.catalog import CatalogError, load_catalog

CATALOG = Path(__file__).resolve().parent.parent / "knowledge" / "catalog"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    dest = tmp_path / "catalog"
    shutil.copytree(CATALOG, dest)
    return dest


def _sub(old: str, new: str) -> Callable[[str], str]:
    return lambda text: text.replace(old, new, 1)


def _edit(folder: Path, name: str, change: Callable[[str], str]) -> None:
    path = folder / name
    before = path.read_text(encoding="utf-8")
    after = change(before)
    assert after != before, "the edit did not apply"
    path.write_text(after, encoding="utf-8")


def _error(folder: Path) -> CatalogError:
    with pytest.raises(CatalogError) as info:
        load_catalog(folder)
    message = str(info.value)
    assert "\n" not in message
    return info.value


def test_copy_loads(folder: Path) -> None:
    assert len(load_catalog(folder).configurations) == 41


def test_bad_yaml(folder: Path) -> None:
    _edit(
        folder, "gpus.yaml", lambda t: t.replace("    memory_gb: 48\n", "    memory_gb: [48\n", 1)
    )
    err = _error(folder)
    assert "gpus.yaml" in str(err)
    assert "invalid YAML at line" in str(err)
    assert "near entry 'l40s'" in str(err)


def test_duplicate_id(folder: Path) -> None:
    _edit(folder, "configurations.yaml", _sub("id: 2x-l4\n", "id: 1x-l4\n"))
    err = _error(folder)
    assert "configurations.yaml" in str(err)
    assert "entry '1x-l4' (#2)" in str(err)
    assert "field 'id'" in str(err)
    assert "duplicate" in str(err)
    assert (err.entry, err.field) == ("1x-l4", "id")


def test_unknown_card(folder: Path) -> None:
    _edit(folder, "configurations.yaml", _sub("gpu: h200\n", "gpu: h201\n"))
    err = _error(folder)
    assert "configurations.yaml" in str(err)
    assert "entry '4x-h200'" in str(err)
    assert "field 'gpu'" in str(err)
    assert "unknown card 'h201'" in str(err)
    assert "h200" in str(err).split("unknown card")[1]  # the close match is suggested


def test_unknown_link(folder: Path) -> None:
    _edit(
        folder,
        "configurations.yaml",
        lambda t: t.replace("interconnect: nvlink-5", "interconnect: nvlink-6", 1),
    )
    err = _error(folder)
    assert "entry '4x-b200'" in str(err) and "field 'interconnect'" in str(err)


def test_negative_price(folder: Path) -> None:
    _edit(
        folder,
        "configurations.yaml",
        lambda t: t.replace("usd_per_month: 4395", "usd_per_month: -4395"),
    )
    err = _error(folder)
    assert "configurations.yaml" in str(err)
    assert "entry '4x-a100-sxm4'" in str(err)
    assert "field 'usd_per_month'" in str(err)
    assert "greater than or equal to 0" in str(err)


def test_missing_field(folder: Path) -> None:
    _edit(folder, "gpus.yaml", _sub("    memory_bandwidth_gb_s: 3350\n", ""))
    err = _error(folder)
    assert "gpus.yaml" in str(err)
    assert "entry 'h100-sxm5'" in str(err)
    assert "field 'memory_bandwidth_gb_s'" in str(err)
    assert "Field required" in str(err)


def test_missing_model_architecture(folder: Path) -> None:
    _edit(folder, "models.yaml", _sub("    kv_heads: 4\n", ""))
    err = _error(folder)
    assert "models.yaml" in str(err) and "entry 'qwen3-235b-a22b'" in str(err)


def test_unknown_field_is_rejected(folder: Path) -> None:
    _edit(
        folder,
        "links.yaml",
        lambda t: t.replace("    generation: 3\n", "    generation: 3\n    speed: 1\n", 1),
    )
    err = _error(folder)
    assert "entry 'nvlink-3'" in str(err) and "field 'speed'" in str(err)


def test_alias_of_two_models(folder: Path) -> None:
    _edit(
        folder,
        "models.yaml",
        _sub("mixtral 8x7b instruct]", "llama 3.3]"),
    )
    err = _error(folder)
    assert "entry 'mixtral-8x7b'" in str(err) and "field 'aliases'" in str(err)


def test_missing_file_and_folder(folder: Path, tmp_path: Path) -> None:
    (folder / "links.yaml").unlink()
    assert "links.yaml: file missing" in str(_error(folder))
    assert "does not exist" in str(_error(tmp_path / "nope"))


def test_empty_and_wrong_shape(folder: Path) -> None:
    (folder / "models.yaml").write_text("models: []\n", encoding="utf-8")
    assert "non-empty list" in str(_error(folder))
    (folder / "models.yaml").write_text("- id: x\n", encoding="utf-8")
    assert "top-level 'models:'" in str(_error(folder))


@pytest.mark.parametrize(
    ("value", "needle"),
    [
        ("1e400", "finite number"),
        (".nan", "finite number"),
        ("2500000000", "not a plausible price"),
    ],
)
def test_non_finite_and_absurd_prices_are_refused_at_load(
    folder: Path, value: str, needle: str
) -> None:
    # issue 14, finding 6: 1e400 loaded as infinity and every question about it was a 500
    _edit(folder, "configurations.yaml", _sub("usd_per_month: 290", f"usd_per_month: {value}"))
    error = _error(folder)
    assert needle in str(error)
    assert "usd_per_month" in str(error) and "configurations.yaml" in str(error)


def test_an_nvlink_node_states_its_board(folder: Path) -> None:
    # a 4-GPU HGX A100 board without NVSwitch shows NV4 per pair (12 links / 3 peers), not NV12
    _edit(folder, "configurations.yaml", _sub("    topo_label: NV4\n", "    topo_label: NV12\n"))
    err = _error(folder)
    assert err.entry == "4x-a100-sxm4" and err.field == "topo_label"
    assert "NV4" in str(err)


def test_an_nvlink_node_without_a_board_is_refused(folder: Path) -> None:
    _edit(folder, "configurations.yaml", _sub("    board: HGX H100 4-GPU\n", ""))
    err = _error(folder)
    assert err.entry == "4x-h100-sxm5" and err.field == "board"
