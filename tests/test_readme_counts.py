"""README counts (issue 26): what the README counts of the catalog is checked against the catalog;
totals that change with every commit (tests, eval cases) are left out, not left to go stale."""

from __future__ import annotations

import re
from pathlib import Path

from knowledge.catalog import load_catalog

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _stated(pattern: str) -> list[int]:
    return [int(n.replace(",", "")) for n in re.findall(pattern, README)]


def test_the_catalog_counts_in_the_readme_are_the_catalogs() -> None:
    catalog = load_catalog(ROOT / "knowledge" / "catalog")
    llms = sum(m.kind == "llm" for m in catalog.models.values())
    assert _stated(r"`gpus\.yaml` \((\d+) cards\)") == [len(catalog.gpus)]
    assert _stated(r"\((\d+) rentable configurations\)") == [len(catalog.configurations)]
    assert _stated(r"`models\.yaml` \((\d+) LLMs") == [llms]
    assert _stated(r"LLMs, (\d+) image/video models") == [len(catalog.models) - llms]
    for n in _stated(r"all (\d+) configurations"):
        assert n == len(catalog.configurations)


def test_the_readme_states_no_running_totals() -> None:
    assert not re.search(r"about [\d,]+ tests", README)  # pytest --collect-only counts them
    assert not re.search(r"\b(?:now|currently) [\d,]+ cases", README)
    assert not re.search(r"[\d,]+ in \d+ datasets now", README)
