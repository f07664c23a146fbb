"""Citations on the page they cite (issue 26): the demo pages' ids are the guide's anchors the
citations link to, a citation of the page being read scrolls to its section instead of opening
a tab, and a source's number stays on the first line of a wrapped link. Real Chromium against
the real app."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.register_assert_rewrite("tests.server")

from knowledge.guide_parser import parse_guide  # noqa: E402
from tests.server import LiveServer  # noqa: E402
from tests.test_widget_browser import Widget, browser  # noqa: E402, F401  (the browser fixture)

pytest_plugins = ["tests.server"]

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("lang", ["de", "en"])
def test_the_demo_pages_ids_are_the_guides_anchors(lang: str) -> None:
    guide = parse_guide(
        (ROOT / "knowledge" / "guides" / lang / "nvlink-vs-pcie.txt").read_text(encoding="utf-8")
    )
    anchors = {s.anchor for s in guide.sections}
    page = (ROOT / "api" / "templates" / f"demo_{lang}.html").read_text(encoding="utf-8")
    ids = set(re.findall(r'\bid="([^"]+)"', page))
    assert ids and ids <= anchors, ids - anchors
    assert {"same-job-both-ways", "interconnects", "tldr"} <= ids  # the sections it shows
    canonical = re.search(r'<link rel="canonical" href="([^"]+)"', page)
    assert canonical and canonical.group(1).rstrip("/") == guide.url.rstrip("/")


@pytest.fixture
def phone(browser: Any, live_api: LiveServer) -> Iterator[Widget]:  # noqa: F811
    context = browser.new_context(
        viewport={"width": 375, "height": 740}, is_mobile=True, has_touch=True, locale="de-DE"
    )
    w = Widget(context.new_page(), live_api.url)
    yield w
    context.close()
    assert not w.errors, w.errors


@pytest.mark.browser
@pytest.mark.server
def test_a_citation_of_this_page_scrolls_and_the_number_stays_on_the_first_line(
    phone: Widget,
    browser: Any,  # noqa: F811
) -> None:
    page: Any = phone.page
    phone.open()
    bubble: Any = phone.ask("Was kostet 4 × A100 SXM4 im Monat?")
    bubble.locator("details.sw-details > summary").click()
    source = bubble.locator('a.sw-source[href*="#same-job-both-ways"]')
    source.wait_for()
    # the number and the first line of the link share a line, though the link wraps
    geometry = source.evaluate(
        "a => { const r = a.getBoundingClientRect(); const n = a.parentNode"
        ".querySelector('.sw-n').getBoundingClientRect(); return {top: r.top, height: r.height,"
        " n: n.top, line: n.height}; }"
    )
    assert geometry["height"] >= 1.8 * geometry["line"], geometry  # wrapped on a phone
    assert geometry["n"] - geometry["top"] < 0.8 * geometry["line"], geometry  # on the first line
    # a click on the citation of this page scrolls to the section, in this tab
    pages = len(page.context.pages)
    heading = page.locator("#same-job-both-ways")
    top_before = heading.evaluate("h => h.getBoundingClientRect().top")
    source.click()
    page.wait_for_function(
        "() => Math.abs(document.getElementById('same-job-both-ways')"
        ".getBoundingClientRect().top) < 40",
        timeout=5_000,
    )
    assert len(page.context.pages) == pages  # no new tab
    assert page.url.endswith("#same-job-both-ways")
    assert top_before > 100  # it was not in view before
