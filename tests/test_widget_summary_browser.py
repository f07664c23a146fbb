"""The short answer first on a phone (issue 26), in headless Chromium against the real app.

On a 390 x 844 phone a finished answer shows its summary, the reading line (chips), its prices and
the thumbs without scrolling; the whole answer and its sources sit behind "Details".
"""

from __future__ import annotations

import pytest

pytest.register_assert_rewrite("tests.server")

from tests.server import LiveServer  # noqa: E402
from tests.test_widget_browser import Widget, browser  # noqa: E402, F401 (the browser fixture)

pytest_plugins = ["tests.server"]

pytestmark = [pytest.mark.browser, pytest.mark.server]

# each element's box, and the box of the log it scrolls in (both in CSS pixels of the page)
_BOXES = """(bubble) => {
  const log = bubble.closest('.sw-log').getBoundingClientRect();
  const box = (sel) => { const n = bubble.querySelector(sel);
    if (!n) return null; const r = n.getBoundingClientRect();
    return {top: r.top, bottom: r.bottom, height: r.height}; };
  return {log: {top: log.top, bottom: log.bottom}, vh: window.innerHeight,
    summary: box('.sw-summary'), reading: box('.sw-reading'), prices: box('.sw-prices'),
    up: box('.sw-vote[data-rating="up"]'), down: box('.sw-vote[data-rating="down"]'),
    details: box('.sw-details'), open: bubble.querySelector('.sw-details').open,
    hidden: !bubble.querySelector('.sw-details .sw-md').checkVisibility()};
}"""


# the log scrolls smoothly: wait until its scroll position has not moved for 10 frames
SETTLED = """() => new Promise((done) => {
  const log = document.getElementById('sizing-widget').shadowRoot.querySelector('.sw-log');
  let last = -1, same = 0;
  const tick = () => {
    if (log.scrollTop === last) { if (++same >= 10) return done(true); } else { same = 0; }
    last = log.scrollTop; requestAnimationFrame(tick);
  };
  tick();
})"""


def settle(page: object) -> None:
    page.evaluate(SETTLED)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("question", "price"),
    [
        ("Passt Llama 3.3 70B in BF16 auf 4x A100 SXM4?", "$4,395/Monat"),
        ("Passt Llama 3.3 70B auf eine Karte?", "$14,857/Monat"),
    ],
)
def test_phone_shows_summary_reading_prices_and_thumbs_without_scrolling(
    browser: object,  # noqa: F811
    live_api: LiveServer,
    question: str,
    price: str,
) -> None:
    context = browser.new_context(  # type: ignore[attr-defined]
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, locale="de-DE"
    )
    page = context.new_page()
    w = Widget(page, live_api.url)
    w.open()
    bubble = w.ask(question)
    # finished: the log has scrolled to keep the question in view (nothing scrolled by hand)
    page.wait_for_function(  # type: ignore[attr-defined]
        "() => !document.getElementById('sizing-widget').shadowRoot.querySelector('.sw-pending')"
    )
    settle(page)
    boxes = bubble.evaluate(_BOXES)  # type: ignore[attr-defined]
    top, bottom = max(boxes["log"]["top"], 0), min(boxes["log"]["bottom"], boxes["vh"])
    for name in ("summary", "reading", "prices", "up", "down"):
        b = boxes[name]
        assert b is not None and b["height"] > 0, f"{name} is not shown"
        assert top - 1 <= b["top"] and b["bottom"] <= bottom + 1, (
            f"{name} is outside the first screen: {b} not within {top}..{bottom}"
        )
    # the details are closed: the whole answer takes no room until asked for
    assert boxes["open"] is False and boxes["hidden"] is True
    assert boxes["details"]["height"] < 60
    summary = bubble.locator(".sw-summary").inner_text()  # type: ignore[attr-defined]
    assert price in summary and len(summary.split()) <= 60
    assert price in bubble.locator(".sw-prices").inner_text()  # type: ignore[attr-defined]
    # "Details" opens the whole answer and its sources
    bubble.locator(".sw-details > summary").click()  # type: ignore[attr-defined]
    assert bubble.locator(".sw-details .sw-md").inner_text().strip()  # type: ignore[attr-defined]
    assert bubble.locator(".sw-details .sw-sources a").count() >= 1  # type: ignore[attr-defined]
    context.close()
    assert not w.errors, w.errors
