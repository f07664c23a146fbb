"""What the server runs besides answering: the stores it opens at start-up, the metrics it
exports from them, the periodic prune (retention), and who may see /metrics and the API docs."""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import logging
from typing import Any

from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily, Metric
from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Receive, Scope, Send

from api.dependencies import AppState
from api.fairness import meter_retriever
from api.readiness import redact_paths
from api.security import error_response
from assistant.settings import Settings
from store.db import StorageError, open_database
from store.feedback import FeedbackStore

log = logging.getLogger("api")

BREAKER_STATES = {"closed": 0.0, "half_open": 0.5, "open": 1.0}


def open_stores(state: AppState) -> None:
    """Feedback and the shared rate-limit buckets. A store that cannot be opened is reported
    at /readyz and by its routes (503); answers do not depend on it."""
    settings = state.settings
    try:
        state.feedback = FeedbackStore.from_settings(settings)
    except StorageError as exc:
        state.extras["feedback_error"] = exc.public  # shown by /readyz: no URL, no path
        log.error("feedback store unavailable: %s", exc)
    if settings.rate_limit_per_minute > 0 and settings.rate_limit_burst > 0:
        from store.shared_state import RateBuckets

        try:
            state.shared_limits = RateBuckets(
                open_database(settings, "state"),
                settings.rate_limit_per_minute,
                settings.rate_limit_burst,
            )
        except StorageError as exc:  # per-process buckets instead
            log.error("shared rate limits unavailable, per process instead: %s", exc)


def meter_embedder(state: AppState) -> None:
    """Route the retriever's query embeddings through the app's EmbedGate (api.fairness)."""
    index = getattr(state.deps, "index", None)
    if index is None or getattr(index, "opened", True) is False:
        return
    retriever = index.get() if hasattr(index, "get") else index
    meter_retriever(retriever, state.gate)


def watched_metrics(state: AppState) -> list[Metric]:
    out: list[Metric] = []
    sessions = getattr(state.deps, "sessions", None)
    failures = CounterMetricFamily(
        "sizing_session_store_failures",
        "Session store reads and writes that failed (the answer was still given)",
        labels=["operation"],
    )
    for operation in ("open", "read", "write"):
        count = getattr(sessions, "failures", {}).get(operation, 0) if sessions else 0
        failures.add_metric([operation], float(count))
    out.append(failures)
    breaker = state.deps.extras.get("llm_breaker") if state.deps is not None else None
    out.append(
        GaugeMetricFamily(
            "sizing_llm_breaker_state",
            "LLM circuit breaker: 0 closed, 0.5 half-open, 1 open",
            value=BREAKER_STATES[breaker.state] if breaker else 0.0,
        )
    )
    out.append(
        GaugeMetricFamily(
            "sizing_embed_queue",
            "Query embeddings waiting for the embedder",
            value=state.gate.queued,
        )
    )
    skipped = CounterMetricFamily(
        "sizing_embed_skipped",
        "Queries searched by keywords only because the embedder was not available to them "
        "(wait: its lane was busy, share: long queries used their share, budget: the client's "
        "embedder budget was spent, queue: its queue was full)",
        labels=["reason"],
    )
    for reason in ("wait", "share", "budget", "queue"):
        skipped.add_metric([reason], float(state.gate.skipped.get(reason, 0)))
    out.append(skipped)
    on_loop = CounterMetricFamily(
        "sizing_answers_on_event_loop",
        "Calls tried on the event loop (SIZING_INLINE_ANSWERS): outcome 'inline' when answered "
        "there, else the step that sent the call to a worker thread",
        labels=["outcome"],
    )
    for outcome, count in sorted(state.runner.on_loop.items()):
        on_loop.add_metric([outcome], float(count))
    out.append(on_loop)
    return out


async def prune_periodically(state: AppState) -> None:
    """Every prune_interval_s: delete what is past the retention age (store.retention)."""
    from store.retention import prune

    interval = state.settings.prune_interval_s
    while interval > 0:
        await asyncio.sleep(interval)
        if state.deps is None:
            continue
        try:
            report = await run_in_threadpool(
                prune, state.settings, state.deps.sessions, state.feedback
            )
            log.info("pruned: %s", report)
        except Exception as exc:  # never let the loop die
            log.error("pruning failed: %s", redact_paths(str(exc), state.settings.data_dir))


def _is_loopback(host: str) -> bool:
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def metrics_public(settings: Settings) -> bool:
    """/metrics without a token: as configured, else only when bound to loopback."""
    if settings.expose_metrics is not None:
        return settings.expose_metrics
    return _is_loopback(settings.host)


def docs_public(settings: Settings) -> bool:
    """/docs, /redoc and /openapi.json without a token: as configured, else only when bound to
    loopback (issue 27: they were public on any bind)."""
    if settings.expose_docs is not None:
        return settings.expose_docs
    return _is_loopback(settings.host)


def bearer_matches(authorization: str, token: str) -> bool:
    """`Authorization: Bearer <token>`; the scheme is case-insensitive (RFC 7235)."""
    scheme, _, given = authorization.strip().partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(
        given.strip().encode(), token.encode()
    )


DOCS_PATHS = ("/docs", "/redoc", "/openapi.json")


class TokenGateMiddleware:
    """/metrics and the API docs: 404 when turned off, 401 without the configured bearer token."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.rules: list[tuple[tuple[str, ...], bool, str | None]] = []
        metrics_token = (
            settings.metrics_token.get_secret_value() if settings.metrics_token else None
        )
        self.rules.append((("/metrics",), metrics_public(settings), metrics_token))
        docs_token = settings.docs_token.get_secret_value() if settings.docs_token else None
        self.rules.append((DOCS_PATHS, docs_public(settings), docs_token))

    def _verdict(self, path: str, headers: dict[bytes, bytes]) -> int | None:
        for prefixes, public, token in self.rules:
            if not any(path == p or path.startswith(p + "/") for p in prefixes):
                continue
            if token:
                given = headers.get(b"authorization", b"").decode("latin-1")
                return None if bearer_matches(given, token) else 401
            return None if public else 404
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            verdict = self._verdict(str(scope.get("path", "")), dict(scope.get("headers") or []))
            if verdict is not None:
                message = "Not Found" if verdict == 404 else "a bearer token is required"
                headers = {"WWW-Authenticate": "Bearer"} if verdict == 401 else None
                response = error_response(verdict, message, headers=headers)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def attach(app: Any, state: AppState) -> None:
    state.metrics.watch(lambda: watched_metrics(state))
    app.add_middleware(TokenGateMiddleware, settings=state.settings)
