"""The FastAPI application factory: `uvicorn --factory api.app:create_app` or `sizing serve`."""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline
from starlette.concurrency import run_in_threadpool
from starlette.middleware.cors import CORSMiddleware

from api.concurrency import AnswerRunner, answer_concurrency, answers_inline
from api.dependencies import AppState, new_gate, new_long_lane
from api.metrics import Metrics, MetricsMiddleware
from api.operations import attach, meter_embedder, open_stores, prune_periodically
from api.ratelimit import RateLimiter
from api.redoc import install_redoc
from api.routes import (
    catalog,
    chat,
    feedback,
    feedback_review,
    health,
    openai_compat,
    pages,
    reading,
)
from api.security import BodyLimitMiddleware, SecurityHeadersMiddleware, install_error_handlers
from assistant.settings import Settings

log = logging.getLogger("api")

SLACK_MAX_BYTES = 1_000_000
STATIC_DIR = Path(__file__).resolve().parent / "static"

DESCRIPTION = """
The gpuserver.io sizing assistant over HTTP: grounded answers with guide citations and exact
catalog prices (`/api/chat`, JSON or server-sent events), an OpenAI-compatible endpoint
(`/v1/chat/completions`, model `sizing-assistant`), the configurator (`/api/configurations`,
`/api/fit`), feedback, health and Prometheus metrics. The chat widget is `/static/widget.js`.
"""


def _start(app: FastAPI, state: AppState) -> None:
    """Build Deps and the Assistant; on failure keep serving with /readyz = 503 and the reason."""
    from assistant.deps import build_deps
    from assistant.service import Assistant

    settings = state.settings
    open_stores(state)
    try:
        deps = build_deps(settings)
        assistant = Assistant(deps)
    except Exception as exc:  # a precise message at /readyz and in the log, never a traceback
        state.startup_error = f"{type(exc).__name__}: {exc}"
        log.error("the assistant could not start: %s", state.startup_error)
        return
    state.deps, state.assistant = deps, assistant
    _open_index(state)
    meter_embedder(state)
    _mount_slack(app, state)
    mode = f"LLM {settings.llm_model}" if settings.llm_enabled else "offline"
    log.info("worker %d ready (%s)", os.getpid(), mode)


def _open_index(state: AppState) -> None:
    """Open the (lazily opened) retrieval index now, so the first question is fast and /readyz
    tells the truth. A missing index is reported at /readyz; questions are still answered."""
    index = state.deps.index
    try:
        if hasattr(index, "get"):
            index.get()
    except Exception as exc:
        state.index_error = f"{type(exc).__name__}: {exc}"
        log.error("the retrieval index is not available: %s", state.index_error)


def _mount_slack(app: FastAPI, state: AppState) -> None:
    if importlib.util.find_spec("api.slack") is None:
        return
    try:
        from api.slack import mount_slack
    except ImportError:
        return
    try:
        mount_slack(app, state.deps, state.assistant, state.settings)
    except Exception as exc:  # Slack is optional: the web surfaces keep working
        log.error("Slack could not be mounted: %s: %s", type(exc).__name__, exc)


def _stop(app: FastAPI) -> None:
    slack = getattr(app.state, "slack", None)
    if slack is not None and hasattr(slack, "close"):
        slack.close()


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the app. Deps, the Assistant and the feedback store are built in the lifespan."""
    settings = settings or Settings()
    metrics = Metrics()
    long_questions, long_runner = new_long_lane(settings)
    state = AppState(
        settings=settings,
        metrics=metrics,
        limiter=RateLimiter(settings.rate_limit_per_minute, settings.rate_limit_burst),
        runner=AnswerRunner(
            answer_concurrency(settings.answer_concurrency, settings.llm_enabled),
            inline=answers_inline(
                settings.inline_answers, settings.llm_enabled, settings.database_url is not None
            ),
            # an answer's LLM deadline counts from the request's arrival, slot wait included
            deadline_s=settings.llm_deadline_s if settings.llm_enabled else None,
        ),
        gate=new_gate(settings),
        long_questions=long_questions,
        long_runner=long_runner,
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await run_in_threadpool(_start, app, state)
        pruner = asyncio.create_task(prune_periodically(state))
        try:
            yield
        finally:
            pruner.cancel()
            await run_in_threadpool(_stop, app)
            state.runner.close()
            state.long_runner.close()

    # /docs and /redoc with Swagger UI and ReDoc served from the fastapi-offline wheel
    # (/static-offline-docs/): they work without network, as everything else here
    app = FastAPIOffline(
        title="gpuserver.io sizing assistant",
        version="0.1.0",
        description=DESCRIPTION,
        lifespan=lifespan,
        redoc_url=None,  # ours: the same ReDoc with its logo served here too (api/redoc.py)
    )
    install_redoc(app)
    app.state.sizing = state
    install_error_handlers(app)

    # The last added middleware is the outermost: metrics see everything, CORS headers reach 413s.
    app.add_middleware(
        BodyLimitMiddleware,
        max_bytes=settings.max_request_bytes,
        # Slack's interactivity payloads carry the whole message; they are signed and bounded
        overrides={"/slack/": max(settings.max_request_bytes, SLACK_MAX_BYTES)},
        timeout_s=settings.request_body_timeout_s,
    )
    app.add_middleware(
        CORSMiddleware,
        # an explicit allow-list; "*" is dropped and credentials are never allowed
        allow_origins=[o for o in settings.cors_origins if o != "*"],
        allow_credentials=False,
        allow_methods=["GET", "POST", "OPTIONS"],
        allow_headers=["Content-Type", "Accept", "Authorization"],
        expose_headers=["Retry-After"],
        max_age=600,
    )
    app.add_middleware(SecurityHeadersMiddleware)
    attach(app, state)  # /metrics and docs exposure, store and breaker metrics (api.operations)
    app.add_middleware(MetricsMiddleware, metrics=metrics)

    routers = (pages, chat, openai_compat, catalog, reading, feedback, feedback_review, health)
    for module in routers:
        app.include_router(module.router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    return app
