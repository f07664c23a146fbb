"""The widget for a newcomer (issue 16), in the real Chromium against the real app: a question is
never lost when the server is unreachable, feedback given while it is down is queued, the dialog
is modal for the keyboard, tap targets are big enough on a phone, and the typing indicator shows
within 100 ms of sending in every mode."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.register_assert_rewrite("tests.server")

from store.feedback import FeedbackStore  # noqa: E402
from tests.llm_server import ScriptedLLMServer, text  # noqa: E402
from tests.server import LiveServer  # noqa: E402
from tests.test_widget_browser import Widget, browser  # noqa: E402, F401  (the browser fixture)

pytest_plugins = ["tests.server"]
pytestmark = [pytest.mark.browser, pytest.mark.server]

SHADOW = "document.getElementById('sizing-widget').shadowRoot"


@pytest.fixture
def page_for(browser: Any) -> Iterator[Callable[..., Widget]]:  # noqa: F811
    contexts: list[Any] = []
    widgets: list[Widget] = []

    def make(server: LiveServer, **context: Any) -> Widget:
        options = {"viewport": {"width": 1280, "height": 860}, "locale": "de-DE", **context}
        ctx = browser.new_context(**options)
        contexts.append(ctx)
        w = Widget(ctx.new_page(), server.url)
        widgets.append(w)
        return w

    yield make
    for ctx in contexts:
        ctx.close()
    for w in widgets:
        # an aborted request is logged by Chromium as a console error: that one is expected
        assert not [e for e in w.errors if "ERR_FAILED" not in e], w.errors


def _active(page: Any) -> Any:
    return page.evaluate(
        f"() => {{ const a = {SHADOW}.activeElement; return a && "
        "{cls: a.className, tag: a.tagName, label: a.getAttribute('aria-label'),"
        " inPanel: !!a.closest('.sw-panel')}; }"
    )


def test_unreachable_server_keeps_the_question_and_offers_retry(
    page_for: Callable[..., Widget], live_api: LiveServer
) -> None:
    w = page_for(live_api)
    page = w.page
    w.open()
    page.route("**/api/chat", lambda route: route.abort())  # type: ignore[attr-defined]
    question = "Passt Llama 3.3 70B auf eine Karte?"
    box = page.get_by_role("textbox", name="Ihre Frage")  # type: ignore[attr-defined]
    box.fill(question)
    box.press("Enter")
    error = page.locator(".sw-error")  # type: ignore[attr-defined]
    error.wait_for(timeout=30_000)
    assert "nicht erreichbar" in error.inner_text()
    assert box.input_value() == question  # the question stays in the input
    retry = page.get_by_role("button", name="Erneut senden")  # type: ignore[attr-defined]
    assert retry.is_visible()

    page.unroute("**/api/chat")  # type: ignore[attr-defined]
    retry.click()
    page.locator(".sw-feedback").first.wait_for(timeout=30_000)  # type: ignore[attr-defined]
    assert page.locator(".sw-error").count() == 0  # type: ignore[attr-defined]
    asked = page.locator(".sw-user").filter(has_text=question)  # type: ignore[attr-defined]
    assert asked.count() == 1  # the failed turn is replaced, not repeated
    assert box.input_value() == ""
    assert [t.get("error") for t in w.state()["turns"]] == [None]  # type: ignore[union-attr]


def test_feedback_while_the_server_is_down_is_queued_then_sent(
    page_for: Callable[..., Widget], live_api: LiveServer, api_data_dir: Path
) -> None:
    w = page_for(live_api)
    page = w.page
    w.open()
    bubble = w.ask("Brauche ich NVLink?")
    answer = w.state()["turns"][-1]["answer"]  # type: ignore[index]
    page.route("**/api/feedback", lambda route: route.abort())  # type: ignore[attr-defined]
    down = bubble.get_by_role("button", name="Nicht hilfreich")  # type: ignore[attr-defined]
    down.click()
    status = bubble.get_by_role("status")  # type: ignore[attr-defined]
    status.filter(has_text="nicht erreichbar").wait_for(timeout=10_000)
    assert down.get_attribute("aria-pressed") == "true"
    assert w.state()["feedback_queue"] == [
        {"session_id": answer["session_id"], "message_id": answer["message_id"], "rating": "down"}
    ]
    store = FeedbackStore.open(api_data_dir)
    assert store.get(answer["session_id"], answer["message_id"]) is None

    page.unroute("**/api/feedback")  # type: ignore[attr-defined]
    w.ask("Und was kostet 4 × A100 PCIe?")  # the server answers again: the queue is sent
    status.filter(has_text="Danke").wait_for(timeout=10_000)
    stored = store.get(answer["session_id"], answer["message_id"])
    assert stored is not None and stored.rating == -1
    assert w.state().get("feedback_queue") == []


def test_launcher_first_in_tab_order_and_focus_trapped_in_the_dialog(
    page_for: Callable[..., Widget], live_api: LiveServer
) -> None:
    w = page_for(live_api)
    page = w.page
    page.goto(live_api.url + "/")  # type: ignore[attr-defined]
    page.keyboard.press("Tab")  # type: ignore[attr-defined]
    assert _active(page)["cls"] == "sw-launcher"  # the first stop, before the page's links
    page.keyboard.press("Enter")  # type: ignore[attr-defined]
    dialog = page.get_by_role("dialog", name="Sizing-Assistent")  # type: ignore[attr-defined]
    assert dialog.is_visible() and dialog.get_attribute("aria-modal") == "true"
    assert _active(page)["tag"] == "TEXTAREA"
    w.ask("Was kostet 4 × A100 SXM4 im Monat?")  # links, votes and chips to tab through

    seen = set()
    for key in ["Tab"] * 40 + ["Shift+Tab"] * 40:
        page.keyboard.press(key)  # type: ignore[attr-defined]
        active = _active(page)
        assert active and active["inPanel"], f"{key} left the dialog: {active}"
        seen.add(active["label"] or active["cls"])
    assert {"Chat schließen", "Senden", "Nicht hilfreich"} <= seen  # it cycles through all

    page.keyboard.press("Escape")  # type: ignore[attr-defined]
    assert not dialog.is_visible()
    assert _active(page)["cls"] == "sw-launcher"


TARGETS = """() => {
  const root = __ROOT__;
  const nodes = root.querySelectorAll(
    'button, a.sw-cite, a.sw-source, a.sw-price-label, textarea');
  return Array.from(nodes).filter(n => n.getClientRects().length).map(n => {
    const r = n.getBoundingClientRect();
    return {cls: n.className, label: n.getAttribute('aria-label') || n.textContent.trim(),
            w: r.width, h: r.height};
  });
}""".replace("__ROOT__", SHADOW)


def test_tap_targets_on_a_phone(page_for: Callable[..., Widget], live_api: LiveServer) -> None:
    w = page_for(live_api, viewport={"width": 375, "height": 740}, is_mobile=True, has_touch=True)
    page = w.page
    w.open()
    assert page.evaluate("() => matchMedia('(pointer: coarse)').matches")  # type: ignore[attr-defined]
    w.ask("Was kostet 4 × A100 SXM4 im Monat?")
    targets = page.evaluate(TARGETS)  # type: ignore[attr-defined]
    kinds = {t["cls"].split()[0] for t in targets}
    assert {"sw-cite", "sw-source", "sw-vote", "sw-send", "sw-icon", "sw-chip"} <= kinds
    small = [t for t in targets if t["w"] < 24 or t["h"] < 24]
    assert not small, small
    thumbs = [t for t in targets if t["cls"].split()[0] in ("sw-send", "sw-vote")]
    thumbs += [t for t in targets if t["label"] == "Chat schließen"]
    assert len(thumbs) == 4
    too_small = [t for t in thumbs if t["w"] < 44 or t["h"] < 44]
    assert not too_small, too_small


TYPING_PROBE = """() => {
  window.__typing = [];
  const root = __ROOT__;
  let sent = null;
  window.addEventListener('keydown', e => { if (e.key === 'Enter') sent = performance.now(); },
                          true);
  new MutationObserver(() => {
    const shown = root.querySelector('.sw-pending .sw-typing');
    if (shown && sent !== null) { window.__typing.push(performance.now() - sent); sent = null; }
  }).observe(root, {childList: true, subtree: true});
}""".replace("__ROOT__", SHADOW)


def _typing_delay(w: Widget, question: str) -> float:
    page = w.page
    page.evaluate(TYPING_PROBE)  # type: ignore[attr-defined]
    w.ask(question)
    delays = page.evaluate("() => window.__typing")  # type: ignore[attr-defined]
    assert len(delays) == 1, delays
    return float(delays[0])


def test_typing_indicator_within_100_ms_offline(
    page_for: Callable[..., Widget], live_api: LiveServer
) -> None:
    w = page_for(live_api)
    w.open()
    assert _typing_delay(w, "Brauche ich NVLink?") < 100
    assert w.page.locator(".sw-typing").count() == 0  # type: ignore[attr-defined]  # gone when done


def test_typing_indicator_within_100_ms_with_a_slow_llm(
    page_for: Callable[..., Widget], api_settings: Any, live_api_factory: Any
) -> None:
    reply = "NVLink lohnt sich, wenn ein Modell auf mehrere Karten aufgeteilt wird."
    with ScriptedLLMServer([text(reply, delay_s=1.0) for _ in range(3)]) as llm:
        settings = api_settings(
            openai_api_key="test-key",
            openai_base_url=llm.base_url,
            llm_max_retries=0,
            llm_timeout_s=10,
        )
        w = page_for(live_api_factory(settings))
        w.open()
        page = w.page
        page.evaluate(TYPING_PROBE)  # type: ignore[attr-defined]
        box = page.get_by_role("textbox", name="Ihre Frage")  # type: ignore[attr-defined]
        box.fill("Brauche ich NVLink?")
        started = time.monotonic()
        box.press("Enter")
        indicator = page.locator(".sw-pending .sw-typing")  # type: ignore[attr-defined]
        assert indicator.is_visible()  # still there while the LLM thinks
        w.wait_answer(0)
        assert time.monotonic() - started >= 0.9  # the LLM was slow indeed
        delays = page.evaluate("() => window.__typing")  # type: ignore[attr-defined]
        assert len(delays) == 1 and delays[0] < 100, delays
        assert len(llm.requests) >= 1
        assert page.locator(".sw-typing").count() == 0  # type: ignore[attr-defined]


PROGRESS_PROBE = """() => {
  window.__progress = [];
  const root = __ROOT__;
  new MutationObserver(() => {
    const shown = root.querySelector('.sw-pending .sw-typing');
    if (!shown) return;
    const label = shown.querySelector('.sw-typing-text').textContent;
    const seen = window.__progress;
    if (!seen.length || seen[seen.length - 1].label !== label)
      seen.push({label: label, live: shown.getAttribute('aria-live')});
  }).observe(root, {childList: true, subtree: true, characterData: true});
}""".replace("__ROOT__", SHADOW)


def test_llm_tool_progress_shown_while_answering_and_gone_after(
    page_for: Callable[..., Widget], api_settings: Any, live_api_factory: Any
) -> None:
    from tests.llm_server import delay
    from tests.test_llm_mode import PRICE_CALL, QUESTION_DE, ROUND_TRIP_DE, SEARCH_CALL

    script = [delay(0.6, PRICE_CALL), delay(0.6, SEARCH_CALL), delay(0.6, text(ROUND_TRIP_DE))]
    with ScriptedLLMServer(script) as llm:
        settings = api_settings(
            openai_api_key="test-key",
            openai_base_url=llm.base_url,
            llm_model="scripted-model",
            llm_max_retries=0,
            llm_timeout_s=10,
        )
        w = page_for(live_api_factory(settings))
        w.open()
        page = w.page
        page.evaluate(PROGRESS_PROBE)  # type: ignore[attr-defined]
        bubble = w.ask(QUESTION_DE)
        assert len(llm.requests) == 3, "both tool calls ran"
    seen = page.evaluate("() => window.__progress")  # type: ignore[attr-defined]
    labels = [s["label"] for s in seen]
    # the widget's German texts per tool, in order, in the polite live region
    assert "Suche Preise heraus …" in labels and "Durchsuche die Guides …" in labels, labels
    assert labels.index("Suche Preise heraus …") < labels.index("Durchsuche die Guides …")
    assert {s["live"] for s in seen} == {"polite"}
    # after the answer: no indicator, no stale progress text, nothing of it stored
    assert page.locator(".sw-typing").count() == 0  # type: ignore[attr-defined]
    shown = bubble.inner_text()  # type: ignore[attr-defined]
    assert "Suche Preise" not in shown and "Durchsuche" not in shown and "Denke nach" not in shown
    assert "4,395" in shown or "4.395" in shown
    assert all("progress" not in turn for turn in w.state()["turns"])  # type: ignore[union-attr]
