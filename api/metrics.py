"""Prometheus metrics, one registry per app (so several apps in one process never collide)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from assistant.answer import Answer

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)


class Metrics:
    """Counters and histograms the API exposes at /metrics (Slack records answers here too)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "sizing_http_requests",
            "HTTP requests by method, route template and status code",
            ["method", "route", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "sizing_http_request_duration_seconds",
            "HTTP request latency (until the last byte of the response) by route template",
            ["method", "route"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.answers = Counter(
            "sizing_answers",
            "Answers given, by mode (offline, llm) and surface (chat, sse, openai, slack)",
            ["mode", "surface"],
            registry=self.registry,
        )
        self.violations = Counter(
            "sizing_grounding_violations",
            "Grounding violations found by the checker, by kind (number, price, citation)",
            ["kind"],
            registry=self.registry,
        )
        self.fallbacks = Counter(
            "sizing_fallbacks",
            "Answers that fell back to the offline composer (LLM unavailable or ungrounded)",
            ["surface"],
            registry=self.registry,
        )
        self.errors = Counter(
            "sizing_answer_errors",
            "Questions that ended in an error instead of an answer",
            ["surface"],
            registry=self.registry,
        )
        self.rate_limited = Counter(
            "sizing_rate_limited", "Requests refused with 429", registry=self.registry
        )
        self.shed = Counter(
            "sizing_load_shed",
            "Requests refused before answering, by reason (requests: rate limit, cost: embedder "
            "budget used up, queue: embedder queue full, long: long questions used their share)",
            ["reason"],
            registry=self.registry,
        )
        for kind in ("number", "price", "citation"):
            self.violations.labels(kind=kind)

    def record_answer(self, answer: Answer, surface: str) -> None:
        self.answers.labels(mode=answer.mode, surface=surface).inc()
        for violation in answer.violations:
            self.violations.labels(kind=violation.kind).inc()
        if answer.notice:
            self.fallbacks.labels(surface=surface).inc()

    def watch(self, source: Callable[[], list[Metric]]) -> None:
        """Export what `source` reports at each scrape (the app's stores, breaker, embedder)."""
        self.registry.register(_Watched(source))

    def render(self) -> bytes:
        return generate_latest(self.registry)


class _Watched(Collector):
    def __init__(self, source: Callable[[], list[Metric]]) -> None:
        self.source = source

    def collect(self) -> Iterator[Metric]:
        yield from self.source()

    def describe(self) -> list[Metric]:
        return []


def _route_template(scope: Scope) -> str:
    route: Any = scope.get("route")
    path = getattr(route, "path", None)
    if path:
        return str(path)
    return "static" if str(scope.get("path", "")).startswith("/static/") else "unmatched"


CLIENT_CLOSED = 499


class MetricsMiddleware:
    """Counts every HTTP request and times it until the response body is complete."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics
        self._children: dict[tuple[str, str, int], tuple[Any, Any]] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500
        started = gone = False

        async def send_wrapper(message: Message) -> None:
            nonlocal status, started
            if message["type"] == "http.response.start":
                status, started = int(message["status"]), True
            await send(message)

        async def receive_wrapper() -> Message:
            nonlocal gone
            message = await receive()
            gone = gone or message["type"] == "http.disconnect"
            return message

        try:
            await self.app(scope, receive_wrapper, send_wrapper)
        finally:
            if gone and not started:
                # the client left before any response (e.g. mid-upload): nginx's 499, not a
                # server error anyone could inflate by hanging up (issue 27)
                status = CLIENT_CLOSED
            key = (scope.get("method", "GET"), _route_template(scope), status)
            children = self._children.get(key) or self._labelled(key)
            children[0].inc()
            children[1].observe(time.perf_counter() - start)

    def _labelled(self, key: tuple[str, str, int]) -> tuple[Any, Any]:
        """The counter and histogram children of one method, route and status, looked up once
        (prometheus_client's labels() takes a lock and builds the key on every call)."""
        method, route, status = key
        children = (
            self.metrics.requests.labels(method=method, route=route, status=str(status)),
            self.metrics.latency.labels(method=method, route=route),
        )
        self._children[key] = children
        return children
