"""The chat widget in headless Chromium (Debian package) against the real app and assistant.

Set SIZING_UPDATE_SCREENSHOT=1 to refresh docs/widget.png from the answered widget.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.register_assert_rewrite("tests.server")

from store.feedback import FeedbackStore  # noqa: E402
from tests.server import LiveServer  # noqa: E402

# fixtures: api_data_dir, api_settings, live_api, live_api_factory
pytest_plugins = ["tests.server"]

pytestmark = [pytest.mark.browser, pytest.mark.server]

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-quic",
    "--disable-sync",
]
DOCS_SCREENSHOT = Path(__file__).resolve().parent.parent / "docs" / "widget.png"

PRICE_QUESTION = "Was kostet 4 × A100 SXM4 im Monat?"
XSS = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>**fett**'


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run `make browser-deps` (Debian chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class Widget:
    """The page with the widget, plus the page errors seen so far."""

    def __init__(self, page: object, base: str) -> None:
        self.page = page
        self.base = base
        self.errors: list[str] = []
        page.on("pageerror", lambda e: self.errors.append(str(e)))  # type: ignore[attr-defined]
        page.on(  # type: ignore[attr-defined]
            "console", lambda m: m.type == "error" and self.errors.append(m.text)
        )

    def open(self, path: str = "/") -> None:
        self.page.goto(self.base + path)  # type: ignore[attr-defined]
        self.page.get_by_role("button", name="Sizing-Assistent öffnen").click()  # type: ignore[attr-defined]

    def ask(self, question: str) -> object:
        """Type and send a question; wait until its answer is complete; return the bubble."""
        page = self.page
        before = page.locator(".sw-bot:not(.sw-intro)").count()  # type: ignore[attr-defined]
        box = page.get_by_role("textbox", name="Ihre Frage")  # type: ignore[attr-defined]
        box.fill(question)
        box.press("Enter")
        return self.wait_answer(before)

    def wait_answer(self, before: int) -> object:
        bubble = self.page.locator(".sw-bot:not(.sw-intro)").nth(before)  # type: ignore[attr-defined]
        bubble.locator(".sw-feedback, .sw-error").first.wait_for(timeout=30_000)
        return bubble

    def state(self) -> dict[str, object]:
        raw = self.page.evaluate(  # type: ignore[attr-defined]
            "() => { const k = Object.keys(localStorage).find(k => k.startsWith('sizing-widget:'));"
            " return k ? localStorage.getItem(k) : null; }"
        )
        return json.loads(raw) if raw else {}


@pytest.fixture
def widget(browser: object, live_api: LiveServer) -> Iterator[Widget]:
    context = browser.new_context(viewport={"width": 1280, "height": 860}, locale="de-DE")  # type: ignore[attr-defined]
    page = context.new_page()
    w = Widget(page, live_api.url)
    yield w
    context.close()
    assert not w.errors, w.errors


def test_streamed_answer_with_citation_price_followup_and_feedback(
    widget: Widget, api_data_dir: Path, tmp_path: Path
) -> None:
    page = widget.page
    streams: list[object] = []
    page.on(  # type: ignore[attr-defined]
        "response",
        lambda r: r.url.endswith("/api/chat") and streams.append(r),
    )
    widget.open()
    assert page.get_by_role("dialog", name="Sizing-Assistent").is_visible()  # type: ignore[attr-defined]
    bubble = widget.ask(PRICE_QUESTION)

    # streamed: the widget asked for server-sent events and rendered them (its only path)
    response = streams[-1]
    assert response.request.headers["accept"] == "text/event-stream"  # type: ignore[attr-defined]
    assert response.headers["content-type"].startswith("text/event-stream")  # type: ignore[attr-defined]

    # the rendered answer: its summary first, the whole answer behind "Details" (Markdown, a
    # citation link to a guide section, the exact price)
    summary = bubble.locator(".sw-summary").inner_text()  # type: ignore[attr-defined]
    assert "$4,395/Monat" in summary and "**" not in summary
    bubble.locator(".sw-details > summary").click()  # type: ignore[attr-defined]
    text = bubble.locator(".sw-details .sw-md").inner_text()  # type: ignore[attr-defined]
    assert "$4,395/Monat" in text and "**" not in text
    cite = bubble.locator("a.sw-cite").first  # type: ignore[attr-defined]
    assert cite.get_attribute("href").startswith("https://gpuserver.io/de/guides/nvlink-vs-pcie/#")
    assert cite.get_attribute("target") == "_blank"
    assert "noopener" in cite.get_attribute("rel")
    price = bubble.locator(".sw-price").filter(has_text="A100 SXM4")  # type: ignore[attr-defined]
    assert "$4,395/Monat" in price.inner_text()
    assert price.locator("a").get_attribute("href") == "https://gpuserver.io/de/gpu/a100-sxm4"
    sources = bubble.locator(".sw-sources a")  # type: ignore[attr-defined]
    assert sources.count() >= 1

    shot = tmp_path / "widget.png"
    page.screenshot(path=str(shot))  # type: ignore[attr-defined]
    if os.environ.get("SIZING_UPDATE_SCREENSHOT") == "1":
        shutil.copyfile(shot, DOCS_SCREENSHOT)

    # feedback: 👍 lands in SQLite for this answer
    answer = widget.state()["turns"][-1]["answer"]  # type: ignore[index]
    bubble.get_by_role("button", name="Hilfreich", exact=True).click()  # type: ignore[attr-defined]
    bubble.get_by_text("Danke für Ihr Feedback!").wait_for()  # type: ignore[attr-defined]
    assert (
        bubble.get_by_role("button", name="Hilfreich", exact=True).get_attribute("aria-pressed")
        == "true"
    )  # type: ignore[attr-defined]
    stored = FeedbackStore.open(api_data_dir).get(answer["session_id"], answer["message_id"])
    assert stored is not None and stored.rating == 1

    # a follow-up chip asks its question in the same session
    chip = bubble.locator(".sw-chips .sw-chip").first  # type: ignore[attr-defined]
    follow_up = chip.inner_text()
    before = page.locator(".sw-bot:not(.sw-intro)").count()  # type: ignore[attr-defined]
    chip.click()
    second = widget.wait_answer(before)
    assert page.locator(".sw-user").last.inner_text() == follow_up  # type: ignore[attr-defined]
    assert second.locator(".sw-md").first.inner_text().strip()  # type: ignore[attr-defined]
    state = widget.state()
    assert len(state["turns"]) == 2  # type: ignore[arg-type]
    assert state["turns"][1]["answer"]["session_id"] == answer["session_id"]  # type: ignore[index]


def test_xss_payload_renders_as_text(widget: Widget) -> None:
    page = widget.page
    widget.open()
    widget.ask(XSS)
    user = page.locator(".sw-user").last  # type: ignore[attr-defined]
    assert user.inner_text() == XSS  # shown literally, not bold, not an image
    assert page.evaluate("() => window.__xss") is None  # type: ignore[attr-defined]
    root = page.locator("#sizing-widget")  # type: ignore[attr-defined]
    assert root.locator("img, script:not([src]), iframe").count() == 0
    assert (
        page.evaluate(  # type: ignore[attr-defined]
            "() => document.getElementById('sizing-widget').shadowRoot"
            ".querySelectorAll('.sw-log img, .sw-log script, .sw-log [onerror]').length"
        )
        == 0
    )


def test_markdown_renderer_is_safe(widget: Widget) -> None:
    widget.open()
    html = widget.page.evaluate(  # type: ignore[attr-defined]
        """() => window.SizingWidget.renderMarkdown(
            '**a** <b onmouseover=x>b</b> [x](javascript:alert(1)) [ok](https://gpuserver.io/a?b=1&c=2)'
            + ' [y](https://e.x/" onclick="z) `<i>` [1]\\n- item <script>alert(1)</script>',
            {"1": {"url": "https://gpuserver.io/de/guides/x/#y", "title": "T", "section": "S"}})"""
    )
    container = widget.page.evaluate(  # type: ignore[attr-defined]
        """(html) => { const d = document.createElement('div'); d.innerHTML = html;
            return { tags: [...d.querySelectorAll('*')].map(e => e.tagName.toLowerCase()),
                     hrefs: [...d.querySelectorAll('a')].map(a => a.getAttribute('href')),
                     attrs: [...d.querySelectorAll('*')].flatMap(e => e.getAttributeNames()) };
            }""",
        html,
    )
    assert set(container["tags"]) <= {"p", "strong", "em", "code", "a", "ul", "li", "br", "sup"}
    assert "script" not in container["tags"] and "b" not in container["tags"]
    assert all(h.startswith("https://") for h in container["hrefs"])
    assert "https://gpuserver.io/a?b=1&c=2" in container["hrefs"]
    assert "https://gpuserver.io/de/guides/x/#y" in container["hrefs"]
    assert not [a for a in container["attrs"] if a.startswith("on")]


def test_session_survives_a_reload_and_keyboard_works(widget: Widget) -> None:
    page = widget.page
    widget.open()
    widget.ask("Brauche ich NVLink?")
    session = widget.state()["session_id"]
    page.reload()  # type: ignore[attr-defined]
    log = page.get_by_role("log")  # type: ignore[attr-defined]
    log.locator(".sw-user").get_by_text("Brauche ich NVLink?", exact=True).wait_for()
    assert log.locator(".sw-feedback").count() == 1  # the earlier answer is shown again
    widget.ask("Und was kostet 4 × A100 PCIe?")
    assert widget.state()["session_id"] == session

    # Escape closes the panel and gives focus back to the launcher; Enter opens it again
    page.keyboard.press("Escape")  # type: ignore[attr-defined]
    launcher = page.get_by_role("button", name="Sizing-Assistent öffnen")  # type: ignore[attr-defined]
    assert launcher.get_attribute("aria-expanded") == "false"
    assert not page.get_by_role("dialog").is_visible()  # type: ignore[attr-defined]
    assert (
        page.evaluate(  # type: ignore[attr-defined]
            "() => document.getElementById('sizing-widget').shadowRoot.activeElement?.className"
        )
        == "sw-launcher"
    )
    page.keyboard.press("Enter")  # type: ignore[attr-defined]
    assert page.get_by_role("dialog").is_visible()  # type: ignore[attr-defined]
    assert (
        page.evaluate(  # type: ignore[attr-defined]
            "() => document.getElementById('sizing-widget').shadowRoot.activeElement?.tagName"
        )
        == "TEXTAREA"
    )


def test_phone_sized_layout(browser: object, live_api: LiveServer) -> None:
    context = browser.new_context(
        viewport={"width": 375, "height": 740}, is_mobile=True, has_touch=True
    )  # type: ignore[attr-defined]
    page = context.new_page()
    w = Widget(page, live_api.url)
    w.open()
    w.ask("Passt Llama 3.3 70B auf eine Karte?")
    box = page.get_by_role("dialog").bounding_box()  # type: ignore[attr-defined]
    assert box["width"] == pytest.approx(375, abs=1) and box["height"] == pytest.approx(740, abs=1)
    overflow = page.evaluate(  # type: ignore[attr-defined]
        "() => { const l = document.getElementById('sizing-widget').shadowRoot"
        ".querySelector('.sw-log'); return l.scrollWidth - l.clientWidth; }"
    )
    assert overflow <= 1, "no horizontal scrolling on a phone"
    context.close()
    assert not w.errors, w.errors


def test_english_page_and_rate_limit_message(
    browser: object, api_settings: object, live_api_factory: object
) -> None:
    server = live_api_factory(api_settings(rate_limit_per_minute=1, rate_limit_burst=1))  # type: ignore[operator]
    context = browser.new_context(viewport={"width": 1280, "height": 860})  # type: ignore[attr-defined]
    page = context.new_page()
    page.goto(server.url + "/?lang=en")
    page.get_by_role("button", name="Open the sizing assistant").click()
    box = page.get_by_role("textbox", name="Your question")
    box.fill("Do I need NVLink?")
    box.press("Enter")
    page.locator(".sw-feedback").first.wait_for(timeout=30_000)
    assert (
        page.locator(".sw-sources a")
        .first.get_attribute("href")
        .startswith("https://gpuserver.io/en/guides/")
    )
    box.fill("And for training?")
    box.press("Enter")
    alert = page.get_by_role("alert")
    alert.wait_for(timeout=30_000)
    assert "try again in" in alert.inner_text()
    context.close()
