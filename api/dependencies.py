"""FastAPI dependencies: what the routes get injected (all built once in the app's lifespan)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Request

from api.concurrency import AnswerRunner
from api.metrics import Metrics
from api.ratelimit import RateLimiter
from assistant.feedback import FeedbackStore
from assistant.settings import Settings


@dataclass
class AppState:
    """Everything the routes need, attached to `app.state.sizing` by the lifespan."""

    settings: Settings
    metrics: Metrics
    limiter: RateLimiter
    runner: AnswerRunner
    feedback: FeedbackStore | None = None
    deps: Any = None  # assistant.deps.Deps
    assistant: Any = None  # assistant.service.Assistant
    startup_error: str | None = None
    index_error: str | None = None
    extras: dict[str, Any] = field(default_factory=dict)

    @property
    def ready(self) -> bool:
        return self.assistant is not None and self.startup_error is None


def get_state(request: Request) -> AppState:
    return request.app.state.sizing


State = Annotated[AppState, Depends(get_state)]


def get_settings(state: State) -> Settings:
    return state.settings


def get_metrics(state: State) -> Metrics:
    return state.metrics


def _require_ready(state: AppState) -> None:
    if not state.ready:
        reason = state.startup_error or "still starting"
        raise HTTPException(503, f"The assistant is not ready: {reason}")


def get_runner(state: State) -> AnswerRunner:
    return state.runner


def get_assistant(state: State) -> Any:
    _require_ready(state)
    return state.assistant


def get_deps(state: State) -> Any:
    _require_ready(state)
    return state.deps


def get_feedback(state: State) -> FeedbackStore:
    if state.feedback is None:
        raise HTTPException(503, f"Feedback storage is unavailable: {state.startup_error}")
    return state.feedback


def client_key(request: Request, settings: Settings) -> str:
    if settings.trust_forwarded_for:
        forwarded = request.headers.get("x-forwarded-for", "")
        first = forwarded.split(",")[0].strip()
        if first:
            return first
    return request.client.host if request.client else "unknown"


def rate_limit(request: Request, state: State) -> None:
    """Token bucket per client; refuses with 429 and Retry-After when the bucket is empty."""
    wait = state.limiter.take(client_key(request, state.settings))
    if wait > 0:
        state.metrics.rate_limited.inc()
        retry = RateLimiter.retry_after_header(wait)
        raise HTTPException(
            429,
            f"Too many requests; try again in {retry} s.",
            headers={"Retry-After": retry},
        )


SettingsDep = Annotated[Settings, Depends(get_settings)]
MetricsDep = Annotated[Metrics, Depends(get_metrics)]
AssistantDep = Annotated[Any, Depends(get_assistant)]
DepsDep = Annotated[Any, Depends(get_deps)]
FeedbackDep = Annotated[FeedbackStore, Depends(get_feedback)]
RunnerDep = Annotated[AnswerRunner, Depends(get_runner)]
RateLimited = Depends(rate_limit)
