"""Pastes in the widget (issue 26 "Done when"), in headless Chromium against the real app: a
2,500-character `nvidia-smi topo -m` and a 5,000-character `all_reduce_perf` run pasted into the
question box are sent whole, answered in the language of the prose around them, judged by their
tools, and folded behind their size in the question's bubble so that on a 390 x 844 phone the
answer's summary is in view without scrolling."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.register_assert_rewrite("tests.server")

from tests.server import LiveServer  # noqa: E402
from tests.test_pastes_surfaces import nccl_message, topo_message  # noqa: E402
from tests.test_widget_browser import Widget, browser  # noqa: E402, F401 (the browser fixture)
from tests.test_widget_summary_browser import settle  # noqa: E402

pytest_plugins = ["tests.server"]
pytestmark = [pytest.mark.browser, pytest.mark.server]

_IN_VIEW = """(bubble) => {
  const log = bubble.closest('.sw-log').getBoundingClientRect();
  const s = bubble.querySelector('.sw-summary').getBoundingClientRect();
  const top = Math.max(log.top, 0), bottom = Math.min(log.bottom, window.innerHeight);
  return s.height > 0 && s.top >= top - 1 && s.bottom <= bottom + 1;
}"""

_BOXES = """(bubble) => {
  const r = (n) => { const b = n.getBoundingClientRect(); return [b.top, b.bottom]; };
  const log = bubble.closest('.sw-log');
  return {log: r(log), scroll: log.scrollTop, vh: window.innerHeight,
    summary: r(bubble.querySelector('.sw-summary')), bubble: r(bubble),
    question: r(bubble.previousElementSibling)};
}"""


def test_pasted_outputs_are_sent_whole_and_answered_in_the_prose_s_language(
    browser: Any,  # noqa: F811
    live_api: LiveServer,
) -> None:
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, locale="de-DE"
    )
    page = context.new_page()
    sent: list[str] = []
    page.on(
        "request",
        lambda r: (
            r.url.endswith("/api/chat")
            and r.method == "POST"
            and sent.append(json.loads(r.post_data or "{}").get("message", ""))
        ),
    )
    w = Widget(page, live_api.url)
    w.open()
    box = page.get_by_role("textbox", name="Ihre Frage")
    for n, (message, (tool, said)) in enumerate(
        [
            (topo_message(), ("check_topology_output", ["**Nein**", "`GPU2`–`GPU5`", "`NV12`"])),
            (nccl_message(), ("check_allreduce_output", ["**Ja**", "359,7 GB/s"])),
        ]
    ):
        before = page.locator(".sw-bot:not(.sw-intro)").count()
        box.focus()
        page.keyboard.insert_text(message)  # as a paste arrives: the box's maxlength applies
        assert box.input_value() == message, len(box.input_value())
        box.press("Enter")
        bubble = w.wait_answer(before)
        page.wait_for_function(
            "() => !document.getElementById('sizing-widget').shadowRoot"
            ".querySelector('.sw-pending')"
        )
        assert sent[n] == message.strip()  # the whole paste went to the API
        answer: Any = w.state()["turns"][-1]["answer"]  # as the stream's done event gave it
        assert answer["language"] == "de"  # the prose's, not the English paste's
        assert [c["name"] for c in answer["tool_calls"]] == [tool]  # results: test_pastes_surfaces
        for part in said:
            assert part in answer["summary"], answer["summary"]
        # the question's bubble: the prose, the paste folded behind its size
        question = page.locator(".sw-user").nth(n)
        paste = question.locator("details.sw-paste")
        assert paste.count() == 1 and paste.get_attribute("open") is None
        assert question.locator("p").first.inner_text() == message.split("\n")[0]
        shown = paste.locator("summary").inner_text()
        assert shown.startswith("Eingefügt:") and "Zeichen" in shown
        # the answer's summary is on the first screen, nothing scrolled by hand
        settle(page)
        assert bubble.evaluate(_IN_VIEW), "outside the first screen: " + json.dumps(
            bubble.evaluate(_BOXES)
        )
    context.close()
    assert not w.errors, w.errors
