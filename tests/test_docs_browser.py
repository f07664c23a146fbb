"""/docs (Swagger UI) and /redoc render in the real Chromium with no network but the app itself:
their assets come from the fastapi-offline wheel, not from a CDN; ReDoc's logo is served by the
app (api/redoc.py)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest

pytest.register_assert_rewrite("tests.server")

from tests.server import LiveServer  # noqa: E402
from tests.test_widget_browser import browser  # noqa: E402, F401  (the browser fixture)

pytest_plugins = ["tests.server"]
pytestmark = [pytest.mark.browser, pytest.mark.server]


def _offline_page(browser: Any, server: LiveServer) -> tuple[Any, list[str]]:  # noqa: F811
    """A page that can reach the app and nothing else; the list collects what it tried."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    outside: list[str] = []
    app_host = urlsplit(server.url).netloc

    def gate(route: Any) -> None:
        url = route.request.url
        if urlsplit(url).scheme in ("data", "blob") or urlsplit(url).netloc == app_host:
            route.continue_()
        else:
            outside.append(url)
            route.abort()

    ctx.route("**/*", gate)
    return ctx, outside


def test_swagger_ui_renders_offline(browser: Any, live_api: LiveServer) -> None:  # noqa: F811
    ctx, outside = _offline_page(browser, live_api)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(live_api.url + "/docs")
    page.locator(".swagger-ui .info .title").filter(
        has_text="gpuserver.io sizing assistant"
    ).wait_for(timeout=30_000)
    operation = page.locator(".opblock-summary-path").filter(has_text="/api/chat").first
    operation.wait_for(timeout=30_000)
    assert page.locator(".opblock").count() >= 8  # the endpoints are listed
    ctx.close()
    assert outside == [] and errors == [], (outside, errors)


def test_redoc_renders_offline(browser: Any, live_api: LiveServer) -> None:  # noqa: F811
    ctx, outside = _offline_page(browser, live_api)
    page = ctx.new_page()
    page.goto(live_api.url + "/redoc")
    page.get_by_role("heading", name="gpuserver.io sizing assistant").first.wait_for(timeout=30_000)
    page.get_by_text("/api/chat").first.wait_for(timeout=30_000)
    # the "API docs by Redocly" logo too is served by the app (issue 26), and it loads
    logo = page.get_by_alt_text("redocly logo")
    logo.wait_for(timeout=30_000)
    assert logo.get_attribute("src") == "/redoc-assets/logo-mini.svg"
    page.wait_for_function(
        "() => { const i = document.querySelector('img[alt=\"redocly logo\"]');"
        " return i && i.complete && i.naturalWidth > 0; }",
        timeout=10_000,
    )
    ctx.close()
    assert outside == [], outside
