"""An answer about a model cites the guide sub-section headed by that model's name
(`GuideSections.about`): "### FLUX.1", "### Wan 2.1", "### SD 3.5", "### DeepSeek V3"."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.passages import GuideSections
from assistant.service import Assistant

GUIDES = Path(__file__).resolve().parents[1] / "knowledge" / "guides"
WITH_GUIDE_INDEX = True  # tests/conftest.py builds the shipped guide index for `deps`


@pytest.fixture(scope="module")
def sections() -> GuideSections:
    return GuideSections.load(GUIDES)


@pytest.mark.parametrize(
    ("guide", "names", "anchor"),
    [
        ("gpu-for-flux-sdxl", ["FLUX.1", "flux dev"], "flux"),
        ("gpu-for-flux-sdxl", ["Stable Diffusion 3.5 Large", "sd 3.5 large"], "sd35"),
        ("gpu-for-flux-sdxl", ["Wan 2.1 T2V 14B", "wan 2.1 14b"], "wan21"),
        ("mixture-of-experts", ["Qwen3 235B-A22B"], "qwen3-235b"),
        ("mixture-of-experts", ["DeepSeek R1"], "deepseek-v3"),  # the family's one section
        ("mixture-of-experts", ["Mixtral 8x7B"], "mixtral"),
    ],
)
def test_the_section_headed_by_the_model(
    sections: GuideSections, guide: str, names: list[str], anchor: str
) -> None:
    for lang in ("en", "de"):
        found = sections.about(guide, lang, names)
        assert found is not None and found.anchor == anchor and found.language == lang


def test_no_heading_names_it(sections: GuideSections) -> None:
    assert sections.about("gpu-for-flux-sdxl", "en", ["Llama 3.3 70B"]) is None


@pytest.mark.parametrize(
    ("question", "anchor"),
    [
        ("Does FLUX.1 dev in BF16 fit on an RTX 4090?", "gpu-for-flux-sdxl#flux"),
        ("Passt Wan 2.1 14B auf eine RTX 5090?", "gpu-for-flux-sdxl#wan21"),
        ("Does Qwen3 235B-A22B fit on 4x H200?", "mixture-of-experts#qwen3-235b"),
    ],
)
def test_a_fit_answer_cites_the_models_own_section(
    assistant: Assistant, question: str, anchor: str
) -> None:
    a = assistant.ask(question)
    cited = {f"{c.guide}#{c.url.rsplit('#', 1)[-1]}" for c in a.citations}
    assert anchor in cited, cited
