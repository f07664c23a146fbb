"""The reading as chips under an answer (issue 23), in the real Chromium against the real app:
changing a chip re-answers from the edited reading ({session_id, reading}, no re-parse), by mouse
and by keyboard, on a desktop and on a 390-px phone, with labels in the answer's language."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

pytest.register_assert_rewrite("tests.server")

from tests.server import LiveServer  # noqa: E402
from tests.test_widget_browser import Widget, browser  # noqa: E402, F401  (the browser fixture)

pytest_plugins = ["tests.server"]
pytestmark = [pytest.mark.browser, pytest.mark.server]

SERVE_DE = "Welcher Server für Llama 3.3 70B in BF16 für 60 Nutzer?"
SERVE_EN = "Which server for Llama 3.3 70B in BF16 for 60 users?"
SHADOW = "document.getElementById('sizing-widget').shadowRoot"


@pytest.fixture
def widget(browser: Any, live_api: LiveServer) -> Iterator[Widget]:  # noqa: F811
    context = browser.new_context(viewport={"width": 1280, "height": 860}, locale="de-DE")
    w = Widget(context.new_page(), live_api.url)
    yield w
    context.close()
    assert not w.errors, w.errors


def _posts(page: Any) -> list[dict[str, Any]]:
    bodies: list[dict[str, Any]] = []
    page.on(
        "request",
        lambda r: r.url.endswith("/api/chat") and bodies.append(json.loads(r.post_data or "{}")),
    )
    return bodies


def _fit(answer: dict[str, Any]) -> dict[str, Any]:
    """The arguments of the call that sized the job: the fit, or the pick ("which server?")."""
    sizing = ("fit_check", "cheapest_fit")
    return next(t["arguments"] for t in answer["tool_calls"] if t["name"] in sizing)


def _prices(answer: dict[str, Any]) -> dict[str, float]:
    return {p["configuration"]: p["usd_per_month"] for p in answer["prices"]}


def _active(page: Any) -> dict[str, Any]:
    return page.evaluate(
        f"() => {{ const a = {SHADOW}.activeElement; return a && "
        "{tag: a.tagName, label: a.getAttribute('aria-label'), cls: a.className}; }"
    )


def test_changing_a_chip_reanswers_from_the_edited_reading(widget: Widget) -> None:
    from playwright.sync_api import expect

    page = widget.page
    posts = _posts(page)
    widget.open()
    first_bubble: Any = widget.ask(SERVE_DE)
    first = widget.state()["turns"][-1]["answer"]  # type: ignore[index]
    assert first["reading"]["precision"] == "bf16" and first["reading"]["users"] == 60

    # the reading as a labelled row of buttons: model (its catalog name), precision, load
    row = first_bubble.get_by_role("group", name=first["understood"])
    expect(row.get_by_role("button", name="Modell: Llama 3.3 70B")).to_be_visible()
    expect(row.get_by_role("button", name="Nutzer: 60 Nutzer")).to_be_visible()
    chip = row.get_by_role("button", name="Präzision: BF16")
    expect(chip).to_be_visible()

    # BF16 -> FP8: the chip becomes a select of the catalog's precisions
    chip.click()
    select = first_bubble.get_by_label("Präzision", exact=True)
    expect(select).to_be_enabled()
    assert "fp8" in select.evaluate("s => [...s.options].map(o => o.value)")
    select.select_option("fp8")
    first_bubble.get_by_role("button", name="Übernehmen").click()
    second_bubble: Any = widget.wait_answer(1)

    # posted as a reading change to the session, not as a question to read again
    assert posts[-1] == {"session_id": first["session_id"], "reading": {"precision": "fp8"}}
    second = widget.state()["turns"][-1]["answer"]  # type: ignore[index]
    assert second["question"] == first["question"] and second["session_id"] == first["session_id"]
    assert second["reading"]["precision"] == "fp8" and second["reading"]["users"] == 60
    assert _fit(second)["precision"] == "fp8" and _fit(first)["precision"] == "bf16"
    assert _prices(second) != _prices(first), "sized again at FP8: other nodes and prices"

    # the re-answer is shown as a new answer: the change as the user's turn, FP8 on its chips,
    # its prices rendered; the first answer's chips can no longer be changed
    log = page.get_by_role("log")
    expect(log.locator(".sw-user").last).to_have_text("✎ Präzision: FP8")
    expect(second_bubble.get_by_role("button", name="Präzision: FP8")).to_be_enabled()
    shown = second_bubble.locator(".sw-price-label").all_inner_texts()
    assert shown == [p["label"] for p in second["prices"]]
    expect(first_bubble.get_by_role("button", name="Präzision: BF16")).to_be_disabled()

    # keyboard: Enter on a chip opens its field, Escape gives the chip back (panel stays open),
    # a number typed and Enter re-answers
    users = second_bubble.get_by_role("button", name="Nutzer: 60 Nutzer")
    users.focus()
    page.keyboard.press("Enter")
    assert _active(page)["tag"] == "INPUT"
    page.keyboard.press("Escape")
    assert page.get_by_role("dialog").is_visible()
    assert (_active(page)["label"] or "").startswith("Nutzer: 60 Nutzer")
    page.keyboard.press("Enter")
    page.keyboard.press("Control+A")
    page.keyboard.type("400")
    page.keyboard.press("Enter")
    third_bubble: Any = widget.wait_answer(2)
    assert posts[-1]["reading"] == {"users": 400}
    third = widget.state()["turns"][-1]["answer"]  # type: ignore[index]
    assert third["reading"]["users"] == 400 and third["reading"]["precision"] == "fp8"
    assert third["reading"]["concurrent_sequences"] > second["reading"]["concurrent_sequences"]
    expect(third_bubble.get_by_role("button", name="Nutzer: 400 Nutzer")).to_be_visible()


def test_chips_on_a_phone_in_english(browser: Any, live_api: LiveServer) -> None:  # noqa: F811
    from playwright.sync_api import expect

    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    page = context.new_page()
    w = Widget(page, live_api.url)
    page.goto(live_api.url + "/?lang=en")
    page.get_by_role("button", name="Open the sizing assistant").click()
    box = page.get_by_role("textbox", name="Your question")
    box.fill(SERVE_EN)
    box.press("Enter")
    bubble = w.wait_answer(0)
    chip = bubble.get_by_role("button", name="Precision: BF16")  # the answer's language
    expect(chip).to_be_visible()
    expect(bubble.get_by_role("button", name="Context: add")).to_be_visible()
    for b in bubble.locator(".sw-reading button").all():
        rect = b.bounding_box()
        assert rect["height"] >= 44 and rect["x"] >= 0 and rect["x"] + rect["width"] <= 390, rect
    chip.tap()
    bubble.get_by_label("Precision", exact=True).select_option("awq")
    bubble.get_by_role("button", name="Apply").tap()
    again = w.wait_answer(1)
    expect(again.get_by_role("button", name="Precision: AWQ")).to_be_visible()
    overflow = page.evaluate(
        f"() => {{ const l = {SHADOW}.querySelector('.sw-log'); "
        "return l.scrollWidth - l.clientWidth; }"
    )
    assert overflow <= 1, "no horizontal scrolling on a phone"
    context.close()
    assert not w.errors, w.errors
