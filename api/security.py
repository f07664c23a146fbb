"""Protection: request size limit, security headers, JSON errors without stack traces."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from assistant.errors import InvalidRequest, UnknownSession
from store.db import StorageError

log = logging.getLogger("api")

PAGE_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
# Swagger UI and ReDoc load their assets from jsDelivr and start with an inline script.
DOCS_CSP = (
    "default-src 'none'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net https://fonts.googleapis.com; "
    "font-src https://fonts.gstatic.com; img-src 'self' data: https://fastapi.tiangolo.com; "
    "connect-src 'self'; worker-src blob:; base-uri 'none'; "
    "frame-ancestors 'none'"
)
DOCS_PATHS = ("/docs", "/redoc")
PERMISSIONS = b"camera=(), microphone=(), geolocation=()"

STATUS_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    408: "request_timeout",
    409: "conflict",
    413: "request_too_large",
    415: "unsupported_media_type",
    422: "invalid_request",
    429: "rate_limited",
    500: "internal_error",
    503: "not_ready",
}


def error_body(status: int, message: str, code: str | None = None, **extra: Any) -> dict[str, Any]:
    """The one error shape (also what the `openai` client reads): {"error": {...}}."""
    kind = "invalid_request_error" if 400 <= status < 500 else "server_error"
    if status == 429:
        kind = "rate_limit_error"
    body: dict[str, Any] = {
        "message": message,
        "type": kind,
        "code": code or STATUS_CODES.get(status, "error"),
    }
    body.update(extra)
    return {"error": body}


def error_response(
    status: int,
    message: str,
    code: str | None = None,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> JSONResponse:
    return JSONResponse(error_body(status, message, code, **extra), status, headers=headers)


def _field_name(loc: tuple[Any, ...] | list[Any]) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path", "header")]
    return ".".join(parts) or "body"


def _is_blank(err: dict[str, Any]) -> bool:
    """An empty or whitespace-only string refused by min_length / a non-blank pattern."""
    value = err.get("input")
    blank_types = ("string_too_short", "string_pattern_mismatch")
    return err.get("type") in blank_types and isinstance(value, str) and not value.strip()


def _validation_message(errors: list[dict[str, Any]]) -> tuple[str, list[dict[str, str]]]:
    fields = []
    for err in errors:
        name = _field_name(err.get("loc", ()))
        msg = str(err.get("msg", "invalid value"))
        if err.get("type") == "json_invalid":
            name, msg = "body", "request body is not valid JSON"
        elif _is_blank(err):
            msg = "the text is empty"
        elif err.get("type") == "string_unicode":  # a lone surrogate meets a pattern check
            msg = "the text contains an invalid character (not valid Unicode)"
        fields.append({"field": name, "message": msg})
    summary = "; ".join(f"{f['field']}: {f['message']}" for f in fields[:5])
    return summary or "invalid request", fields


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        message, fields = _validation_message(list(exc.errors()))
        return error_response(422, message, fields=fields)

    @app.exception_handler(InvalidRequest)
    async def _invalid(request: Request, exc: InvalidRequest) -> JSONResponse:
        return error_response(422, str(exc))

    @app.exception_handler(UnknownSession)
    async def _unknown_session(request: Request, exc: UnknownSession) -> JSONResponse:
        return error_response(404, str(exc))  # nothing to re-answer (an InvalidRequest elsewhere)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        detail = exc.detail if isinstance(exc.detail, str) else "request failed"
        return error_response(exc.status_code, detail, headers=getattr(exc, "headers", None))

    @app.exception_handler(StorageError)
    async def _storage(request: Request, exc: StorageError) -> JSONResponse:
        # a store that is down is a 503 with the security headers (the Exception handler below
        # answers outside the middleware), naming the store but never its URL or path
        log.error("%s %s: store failed (%s): %s", request.method, request.url.path, exc.label,
                  exc.detail)  # fmt: skip
        message = f"A store is unavailable: {exc.public}"
        return error_response(503, message, headers={"Retry-After": "5"})

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return error_response(500, "Internal error; the request was logged.")


class BodyLimitMiddleware:
    """Refuses request bodies over `max_bytes` with a 413 JSON error.

    Requests with a body are read fully here (bounded by the limit) and replayed to the app, so a
    chunked upload without Content-Length is refused just like one that declares its size.
    A body that has not fully arrived within `timeout_s` of the request's headers gets a 408 and
    the connection is closed (a client that sends headers and part of a body no longer holds a
    connection and a task open; issue 14, finding 8).
    """

    def __init__(
        self,
        app: ASGIApp,
        max_bytes: int,
        overrides: dict[str, int] | None = None,
        timeout_s: float = 10.0,
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.overrides = overrides or {}
        self.timeout_s = timeout_s

    def limit_for(self, path: str) -> int:
        for prefix, limit in self.overrides.items():
            if path.startswith(prefix):
                return limit
        return self.max_bytes

    async def _refuse(self, send: Send, limit: int) -> None:
        response = error_response(413, f"Request body is larger than the limit of {limit} bytes.")
        await response({"type": "http"}, _empty_receive, send)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(str(scope.get("path", "")))
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is not None:
            try:
                too_big = int(declared) > limit
            except ValueError:
                too_big = False
            if too_big:
                await self._refuse(send, limit)
                return
        try:
            async with asyncio.timeout(self.timeout_s):  # half the CPU of anyio.fail_after
                body = await _read_body(receive, limit)
        except TimeoutError:
            log.warning("request body not received within %s s: %s", self.timeout_s, scope["path"])
            response = error_response(
                408,
                f"The request body did not arrive within {self.timeout_s:g} s.",
                headers={"Connection": "close"},
            )
            await response({"type": "http"}, _empty_receive, send)
            return
        if body is None:  # the client went away
            return
        if len(body) > limit:
            await self._refuse(send, limit)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


async def _read_body(receive: Receive, limit: int) -> bytes | None:
    """The whole body; None if the client disconnected. Stops reading once over `limit` (the
    caller refuses it)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        chunks.append(chunk)
        if size > limit or not message.get("more_body", False):
            return b"".join(chunks)


async def _empty_receive() -> Message:
    return {"type": "http.disconnect"}


class SecurityHeadersMiddleware:
    """nosniff and a referrer policy everywhere; CSP and frame policy on HTML pages."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = str(scope.get("path", ""))

        async def send_wrapper(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                content_type = b""
                for key, value in headers:
                    if key.lower() == b"content-type":
                        content_type = value
                headers.append((b"x-content-type-options", b"nosniff"))
                headers.append((b"referrer-policy", b"strict-origin-when-cross-origin"))
                if content_type.startswith(b"text/html"):
                    csp = DOCS_CSP if path.startswith(DOCS_PATHS) else PAGE_CSP
                    headers.append((b"content-security-policy", csp.encode()))
                    headers.append((b"x-frame-options", b"DENY"))
                    headers.append((b"permissions-policy", PERMISSIONS))
                elif path.startswith(("/api/", "/v1/")):
                    headers.append((b"cache-control", b"no-store"))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_wrapper)
