"""/redoc with no network, logo included (issue 26): ReDoc's standalone bundle from the
fastapi-offline wheel, served with the one address it would fetch from a CDN (the "API docs by
Redocly" logo, https://cdn.redoc.ly/redoc/logo-mini.svg) pointed at a copy served here.

    install_redoc(app)   # GET /redoc and /redoc-assets/{redoc.standalone.js,logo-mini.svg}
"""

from __future__ import annotations

import functools
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html
from fastapi.responses import HTMLResponse, Response

ASSETS = "/redoc-assets"
CDN_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"
# a small neutral mark in the logo's place (ReDoc shows it beside "API docs by Redocly")
LOGO_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" width="32" height="32">'
    '<rect x="2" y="2" width="28" height="28" rx="6" fill="#ef4823"/>'
    '<path d="M10 9h8a5 5 0 0 1 1.5 9.8L23 23h-4l-3-4h-2v4h-4z M14 13v3h4a1.5 1.5 0 0 0 0-3z" '
    'fill="#fff" fill-rule="evenodd"/></svg>'
)


@functools.cache
def redoc_bundle() -> bytes:
    """The wheel's redoc.standalone.js with the CDN logo address replaced by ours."""
    import fastapi_offline

    path = Path(fastapi_offline.__file__).parent / "static" / "redoc.standalone.js"
    text = path.read_text(encoding="utf-8")
    return text.replace(CDN_LOGO, f"{ASSETS}/logo-mini.svg").encode("utf-8")


def install_redoc(app: FastAPI, favicon: str = "/static-offline-docs/favicon.png") -> None:
    """The /redoc page and its two assets (the app is built with `redoc_url=None`)."""

    @app.get("/redoc", include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return get_redoc_html(
            openapi_url=f"{root}{app.openapi_url}",
            title=app.title + " - ReDoc",
            redoc_js_url=f"{root}{ASSETS}/redoc.standalone.js",
            with_google_fonts=False,
            redoc_favicon_url=f"{root}{favicon}",
        )

    @app.get(f"{ASSETS}/redoc.standalone.js", include_in_schema=False)
    async def bundle() -> Response:
        return Response(
            redoc_bundle(),
            media_type="application/javascript",
            headers={"Cache-Control": "public, max-age=86400"},
        )

    @app.get(f"{ASSETS}/logo-mini.svg", include_in_schema=False)
    async def logo() -> Response:
        return Response(
            LOGO_SVG,
            media_type="image/svg+xml",
            headers={"Cache-Control": "public, max-age=86400"},
        )
