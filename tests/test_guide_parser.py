"""The guide export parser and chunker: the seed, the shipped corpus, and malformed guides."""

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from knowledge.guide_parser import (
    MAX_CHUNK_CHARS,
    GuideError,
    guide_files,
    is_source_list,
    load_corpus,
    load_guide,
    parse_guide,
    slugify,
)

ROOT = Path(__file__).resolve().parent.parent
GUIDES = ROOT / "knowledge" / "guides"


def _guide(body: str, source: str = "Quelle: https://gpuserver.io/de/guides/demo/.") -> str:
    return f"Dimensionierung-Guide · 3 Min. Lesezeit\n\n# Demo-Guide\n\n{body}\n\n---\n\n{source}\n"


# --- the seed -------------------------------------------------------------------------------


def test_seed_parses(seed_path: Path) -> None:
    guide = load_guide(seed_path)
    assert guide.slug == "nvlink-vs-pcie"
    assert guide.language == "de"
    assert guide.title == "NVLink oder PCIe: Was Ihr Job braucht."
    assert guide.url == "https://gpuserver.io/de/guides/nvlink-vs-pcie/"
    assert guide.reading_minutes == 7
    anchors = [s.anchor for s in guide.sections]
    assert anchors[:4] == [
        "",
        "die-kurzfassung",
        "was-jede-verbindung-ist",
        "wann-es-ihre-geschwindigkeit-bestimmt",
    ]
    assert "tensor-parallelismus" in anchors and "wann-es-nichts-ändert" in anchors
    tp = next(s for s in guide.sections if s.anchor == "tensor-parallelismus")
    assert tp.heading_path == ("Wann es Ihre Geschwindigkeit bestimmt", "Tensor-Parallelismus")
    assert not guide.warnings


def test_seed_chunks_keep_tables_code_and_pseudo_headings(seed_path: Path) -> None:
    guide = load_guide(seed_path)
    by_path = {c.heading_path: c for c in guide.chunks}
    # the bold lead-in paragraph becomes its own passage under the section's anchor
    pipeline = by_path[("Wann es nichts ändert", "Pipeline-Parallelismus")]
    assert pipeline.text.startswith("**Pipeline-Parallelismus.**")
    assert pipeline.url == "https://gpuserver.io/de/guides/nvlink-vs-pcie/#wann-es-nichts-ändert"
    # the short-answer caption line + list stays together
    short = by_path[("Die kurze Antwort",)]
    assert short.anchor == "" and "Pipeline-Parallelismus:" in short.text
    # the price table keeps its header and both prices
    prices = next(c for c in guide.chunks if "$4,395/Monat" in c.text)
    assert "|---|---|---|" in prices.text and "$4,157/Monat" in prices.text
    # the code block is whole, fences included
    code = next(c for c in guide.chunks if "nvidia-smi topo -m" in c.text)
    assert code.text.count("```") == 2 and "all_reduce_perf -b 8 -e 4G -f 2 -g 4" in code.text
    # navigation ('Weitere Guides' link list) is not indexed
    assert not any("Guide lesen" in c.text for c in guide.chunks)
    assert len({c.id for c in guide.chunks}) == len(guide.chunks)


# --- the shipped corpus -------------------------------------------------------------------------


def test_shipped_corpus_parses_with_shared_anchors() -> None:
    corpus = load_corpus(GUIDES)
    assert not corpus.errors, [str(e) for e in corpus.errors]
    slugs = {(g.language, g.slug) for g in corpus.guides}
    for slug in ("nvlink-vs-pcie", "gpu-for-flux-sdxl", "awq-vs-gptq-vs-fp8", "mixture-of-experts"):
        assert {("de", slug), ("en", slug)} <= slugs
    for slug in {s for _, s in slugs}:
        de = next(g for g in corpus.guides if g.slug == slug and g.language == "de")
        en = next(g for g in corpus.guides if g.slug == slug and g.language == "en")
        assert [s.anchor for s in de.sections] == [s.anchor for s in en.sections], slug
        assert en.url == f"https://gpuserver.io/en/guides/{slug}/"
    nv = next(g for g in corpus.guides if g.slug == "nvlink-vs-pcie" and g.language == "de")
    anchors = {s.anchor for s in nv.sections}
    assert {
        "short-answer",
        "tldr",
        "interconnects",
        "when-it-matters",
        "tensor-parallelism",
        "large-batch-training",
        "when-it-does-not-matter",
        "same-job-both-ways",
        "measure-it-yourself",
        "what-to-buy",
    } <= anchors
    # explicit anchors are stripped from titles
    assert all("{#" not in s.title for g in corpus.guides for s in g.sections)


# --- format details -------------------------------------------------------------------------------


def test_explicit_anchor_and_slug_fallback() -> None:
    g = parse_guide(
        _guide(
            "## Tensor-Parallelismus {#tensor-parallelism}\n\nText.\n\n"
            "## Wann es nichts ändert\n\nMehr."
        )
    )
    assert [(s.title, s.anchor) for s in g.sections[1:]] == [
        ("Tensor-Parallelismus", "tensor-parallelism"),
        ("Wann es nichts ändert", "wann-es-nichts-ändert"),
    ]
    assert g.chunks[0].url == "https://gpuserver.io/de/guides/demo/#tensor-parallelism"
    assert g.slug == "demo" and g.language == "de"


def test_english_source_line_and_duplicate_heading_slugs() -> None:
    g = parse_guide(
        _guide(
            "## Speed\n\nOne.\n\n## Speed\n\nTwo.", "Source: https://gpuserver.io/en/guides/demo/"
        )
    )
    assert g.language == "en"
    assert [s.anchor for s in g.sections[1:]] == ["speed", "speed-1"]


def test_long_table_is_split_and_every_piece_repeats_the_header() -> None:
    rows = "\n".join(
        f"| card {i} | {i * 10} GB | some longer description of card number {i} |"
        for i in range(60)
    )
    g = parse_guide(
        _guide(
            f"## Karten {{#cards}}\n\n**Alle Karten**\n\n"
            f"| Karte | VRAM | Notiz |\n|---|---|---|\n{rows}"
        )
    )
    pieces = [c for c in g.chunks if c.anchor == "cards"]
    assert len(pieces) > 2
    seen_rows = []
    for c in pieces:
        lines = c.text.splitlines()
        assert lines[0] == "**Alle Karten**"
        assert "| Karte | VRAM | Notiz |" in lines and "|---|---|---|" in lines
        assert len(c.text) <= MAX_CHUNK_CHARS + 200
        seen_rows += [ln for ln in lines if ln.startswith("| card ")]
    assert len(seen_rows) == 60 and len(set(seen_rows)) == 60  # every row once, none split


def test_long_code_block_is_never_split() -> None:
    code = "\n".join(f"echo line {i} with some padding text to make it long" for i in range(80))
    g = parse_guide(
        _guide(f"## Befehle {{#cmds}}\n\nSo geht es:\n\n```\n{code}\n```\n\nDanach fertig.")
    )
    blocks = [c for c in g.chunks if "```" in c.text]
    assert len(blocks) == 1 and blocks[0].text.count("```") == 2
    assert "echo line 0 " in blocks[0].text and "echo line 79 " in blocks[0].text


def test_slugify() -> None:
    assert slugify("Derselbe Job, auf beide Arten") == "derselbe-job-auf-beide-arten"
    assert slugify("Which format?") == "which-format"


def test_source_lists_are_recognised_by_heading_or_anchor() -> None:
    assert is_source_list("Quellen", "sources") and is_source_list("Sources", "sources")
    assert is_source_list("References", "refs") and is_source_list("Belege", "quellen")
    assert not is_source_list("Die kurze Antwort", "short-answer")
    assert not is_source_list("Woher die Zahlen kommen", "where-the-numbers-come-from")
    # every shipped guide has one, in both languages
    corpus = load_corpus(GUIDES)
    found = {(c.language, c.guide) for c in corpus.chunks if is_source_list(c.section, c.anchor)}
    assert found == {(g.language, g.slug) for g in corpus.guides}


# --- malformed guides -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        (
            "Guide · 3 Min.\n\nNur Text ohne Titel.\n\nQuelle: https://gpuserver.io/de/guides/x/",
            3,
            "before the '# ' title",
        ),
        ("Guide · 3 Min.\n\n## Abschnitt\n\nText.\n", 3, "before the '# ' title"),
        ("", 1, "no '# ' title"),
        ("Guide · 3 Min.\n\n# Titel\n\nText.\n\n## A\n\nMehr.\n", 9, "no closing 'Quelle:'"),
        (
            "# Titel\n\n## A\n\n```\ncode\n\nQuelle: https://gpuserver.io/de/guides/x/\n",
            5,
            "never closed",
        ),
        (
            "# Titel\n\n| a | b |\n| c | d |\n\nQuelle: https://gpuserver.io/de/guides/x/\n",
            4,
            "|---| row",
        ),
        (
            "# Titel\n\n| a | b |\n|---|---|\n| 1 | 2 | 3 |\n\nQuelle: https://gpuserver.io/de/guides/x/\n",
            5,
            "3 cells",
        ),
        ("# Titel\n\nText.\n\nQuelle: https://example.com/page\n", 5, "not a /<de|en>/guides/"),
        (
            "# Titel\n\n## {#leer}\n\nQuelle: https://gpuserver.io/de/guides/x/\n",
            3,
            "empty section heading",
        ),
        (
            "# Titel\n\n## A {#a}\n\n## B {#a}\n\nQuelle: https://gpuserver.io/de/guides/x/\n",
            5,
            "used twice",
        ),
    ],
)
def test_malformed_guide_reports_file_and_line(text: str, line: int, fragment: str) -> None:
    with pytest.raises(GuideError) as info:
        parse_guide(text, "de/broken.txt")
    assert info.value.line == line, str(info.value)
    assert fragment in info.value.message
    assert str(info.value).startswith(f"de/broken.txt:{line}: ")


def test_corpus_keeps_loading_past_a_broken_guide(tmp_path: Path) -> None:
    (tmp_path / "de").mkdir()
    (tmp_path / "de" / "good.txt").write_text(
        _guide("## Gut {#good}\n\nText.", "Quelle: https://gpuserver.io/de/guides/good/"),
        encoding="utf-8",
    )
    (tmp_path / "de" / "bad.txt").write_text("# Titel\n\n```\nnie geschlossen\n", encoding="utf-8")
    (tmp_path / "de" / "binary.txt").write_bytes(b"\xff\xfe\x00bad")
    corpus = load_corpus(tmp_path)
    assert [g.slug for g in corpus.guides] == ["good"]
    messages = {Path(e.path).name: (e.line, e.message) for e in corpus.errors}
    assert messages["bad.txt"][0] == 3 and "never closed" in messages["bad.txt"][1]
    assert "UTF-8" in messages["binary.txt"][1]
    assert len(guide_files(tmp_path)) == 3


def test_slug_and_language_mismatch_is_a_warning(tmp_path: Path) -> None:
    (tmp_path / "en").mkdir()
    p = tmp_path / "en" / "other-name.txt"
    p.write_text(_guide("Text."), encoding="utf-8")
    g = load_guide(p)
    assert any("language" in w for w in g.warnings) and any("slug" in w for w in g.warnings)


def test_a_source_line_inside_the_text_is_not_the_closing_line() -> None:
    g = parse_guide(
        _guide(
            "## Quellen {#sources}\n\nSource: NVIDIA datasheet, https://nvidia.com/a100\n\nMore."
        )
    )
    assert g.url == "https://gpuserver.io/de/guides/demo/"
    assert "NVIDIA datasheet" in g.chunks[-1].text and "More." in g.chunks[-1].text


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "# T",
                "## S {#s}",
                "### x",
                "```",
                "| a | b |",
                "|---|---|",
                "| 1 |",
                "- item",
                "**Bold.** text",
                "",
                "text line",
                "Quelle: https://gpuserver.io/de/guides/g/",
                "Source: https://example.com",
                "{#}",
                "## ",
                "---",
                "Guide · 3 Min.",
            ]
        ),
        max_size=25,
    )
)
def test_any_input_parses_or_raises_guide_error(lines: list[str]) -> None:
    try:
        g = parse_guide("\n".join(lines), "x.txt")
    except GuideError as exc:
        assert exc.line >= 1 and str(exc).startswith("x.txt:")
    else:
        assert g.slug == "g" and all(c.text for c in g.chunks)
