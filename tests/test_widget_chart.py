"""A picture of the choice and feedback that explains (issue 26), in the real Chromium
against the real app, with every request that leaves the app's own origin blocked: a fit answer
shows the chart of the configurations that hold the job (inline SVG), the recommended point
highlighted, the same figures as a table for screen readers, and clicking a point answers again
for that node; a 👎 asks what was wrong and stores it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.register_assert_rewrite("tests.server")

from store.feedback import FeedbackStore  # noqa: E402
from tests.server import LiveServer  # noqa: E402
from tests.test_widget_browser import Widget, browser  # noqa: E402, F401  (the browser fixture)

pytest_plugins = ["tests.server"]
pytestmark = [pytest.mark.browser, pytest.mark.server]

FIT_QUESTION = "Passt Llama 3.1 8B auf eine L4?"


@pytest.fixture
def offline_widget(browser: Any, live_api: LiveServer) -> Iterator[tuple[Widget, list[str]]]:  # noqa: F811
    """The widget page with the network blocked: only the app's own origin answers."""
    context = browser.new_context(viewport={"width": 1280, "height": 860}, locale="de-DE")
    blocked: list[str] = []

    def route(r: Any) -> None:
        if r.request.url.startswith(live_api.url):
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()

    context.route("**/*", route)
    w = Widget(context.new_page(), live_api.url)
    yield w, blocked
    context.close()
    assert not w.errors, w.errors


def test_a_fit_answer_shows_its_chart_with_the_network_blocked(
    offline_widget: tuple[Widget, list[str]],
) -> None:
    widget, blocked = offline_widget
    page = widget.page

    def last_answer() -> dict[str, Any]:  # as the widget keeps it (the stream's done event)
        turns: Any = widget.state()["turns"]
        return dict(turns[-1]["answer"])

    widget.open()
    bubble: Any = widget.ask(FIT_QUESTION)
    chart = bubble.locator("figure.sw-chart")
    chart.wait_for(timeout=10_000)
    answer = last_answer()
    points = answer["chart"]["points"]
    assert len(points) >= 3  # the configurations that hold the job, not only the one asked

    # one SVG point per configuration, NVLink / PCIe marked, the recommended one highlighted
    assert chart.locator("svg .sw-pt").count() == len(points)
    rec = chart.locator("svg .sw-pt-rec")
    assert rec.count() == 1
    assert rec.get_attribute("data-configuration") == "1x-l4"  # the card asked about
    assert rec.locator("circle.sw-pt-ring").count() == 1  # ringed
    assert chart.locator("svg .sw-pt-pcie").count() == sum(p["link"] == "pcie" for p in points)
    assert rec.is_visible()

    # the table alternative: the same figures, for screen readers (visually hidden)
    table = chart.locator("table.sw-chart-table")
    rows = table.locator("tbody tr")
    assert rows.count() == len(points)
    first = points[0]
    texts = [rows.nth(i).text_content() or "" for i in range(rows.count())]
    assert first["label"] in texts[0] and f"${int(float(first['usd_per_month'])):,}" in texts[0]
    assert any("empfohlen" in t and "L4" in t for t in texts)
    box = chart.locator(".sw-sr-only").bounding_box()  # the clipping box around the table
    assert box is not None and box["width"] <= 1 and box["height"] <= 1  # not drawn on screen

    # clicking a point answers again for that node
    other = next(p for p in points if not p["recommended"])
    before = page.locator(".sw-bot:not(.sw-intro)").count()  # type: ignore[attr-defined]
    chart.locator(f'svg .sw-pt[data-configuration="{other["configuration"]}"]').click()
    widget.wait_answer(before)
    again = last_answer()
    assert again["reading"]["configurations"] == [other["configuration"]]
    assert other["configuration"] in {q["configuration"] for q in again["prices"]}

    assert not blocked, blocked  # nothing was fetched from anywhere else (no CDN)


def test_a_thumbs_down_asks_what_was_wrong_and_stores_it(
    offline_widget: tuple[Widget, list[str]], api_data_dir: Path
) -> None:
    """Issue 26: 👎 offers reasons (wrong, unclear, too long, missed my question) and a text box;
    what is picked is stored with the vote, which stays one row."""
    widget, _ = offline_widget
    widget.open()
    bubble: Any = widget.ask("Was kostet 4 × A100 SXM4 im Monat?")
    bubble.get_by_role("button", name="Nicht hilfreich").click()
    form = bubble.locator("form.sw-why")
    form.wait_for(timeout=10_000)
    assert form.get_by_role("group", name="Was war nicht gut?").is_visible()
    labels = [form.locator("label").nth(i).inner_text().strip() for i in range(4)]
    assert labels == ["Falsch", "Unklar", "Zu lang", "Frage verfehlt"]
    form.get_by_label("Unklar").check()
    form.get_by_label("Zu lang").check()
    form.get_by_role("textbox").fill("Ist das netto oder brutto?")
    form.get_by_role("button", name="Absenden").click()
    form.wait_for(state="detached", timeout=10_000)
    assert bubble.locator(".sw-thanks").inner_text() == "Danke für Ihr Feedback!"
    answer: Any = widget.state()["turns"]
    last = answer[-1]["answer"]
    stored = FeedbackStore.open(api_data_dir).get(last["session_id"], last["message_id"])
    assert stored is not None and stored.rating == -1
    assert stored.reasons == ["unclear", "too_long"]
    assert stored.comment == "Ist das netto oder brutto?"
