"""FastAPI dependencies: what the routes get injected (all built once in the app's lifespan)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Request

from api.concurrency import AnswerRunner, LaneRunner
from api.fairness import (
    CostLimiter,
    EmbedGate,
    LongQuestions,
    current_client,
    retry_after_header,
)
from api.metrics import Metrics
from api.ratelimit import RateLimiter
from assistant.settings import Settings
from store.db import StorageError
from store.feedback import FeedbackStore

log = logging.getLogger("api")


@dataclass
class AppState:
    """Everything the routes need, attached to `app.state.sizing` by the lifespan."""

    settings: Settings
    metrics: Metrics
    limiter: RateLimiter
    runner: AnswerRunner
    gate: EmbedGate
    long_questions: LongQuestions
    long_runner: AnswerRunner
    shared_limits: Any = None  # store.shared_state.RateBuckets (workers and replicas share)
    feedback: FeedbackStore | None = None
    deps: Any = None  # assistant.deps.Deps
    assistant: Any = None  # assistant.service.Assistant
    startup_error: str | None = None
    index_error: str | None = None
    extras: dict[str, Any] = field(default_factory=dict)

    @property
    def ready(self) -> bool:
        return self.assistant is not None and self.startup_error is None


# The getters are coroutines on purpose: FastAPI runs a plain `def` dependency in the thread
# pool, which costs a thread hand-off per dependency and request (issue 15: most of the server's
# CPU outside the answer); these only read attributes, so they run on the event loop.
async def get_state(request: Request) -> AppState:
    return request.app.state.sizing


State = Annotated[AppState, Depends(get_state)]


async def get_settings(state: State) -> Settings:
    return state.settings


async def get_metrics(state: State) -> Metrics:
    return state.metrics


def _require_ready(state: AppState) -> None:
    if not state.ready:
        from api.readiness import redact_paths

        reason = redact_paths(state.startup_error or "still starting", state.settings.data_dir)
        raise HTTPException(503, f"The assistant is not ready: {reason}")


async def get_runner(state: State) -> AnswerRunner:
    return state.runner


async def get_ready(request: Request) -> AppState:
    """The app state once the assistant is ready (503 before): one dependency for a route that
    needs several of its parts (each FastAPI dependency, even a cached one, costs CPU on every
    request; so the chat routes' dependencies read the state from the request themselves)."""
    state: AppState = request.app.state.sizing
    _require_ready(state)
    return state


async def get_assistant(state: State) -> Any:
    _require_ready(state)
    return state.assistant


async def get_deps(state: State) -> Any:
    _require_ready(state)
    return state.deps


async def get_feedback(state: State) -> FeedbackStore:
    if state.feedback is None:
        reason = state.extras.get("feedback_error") or state.startup_error or "not open"
        raise HTTPException(503, f"Feedback storage is unavailable: {reason}")
    return state.feedback


def client_key(request: Request, settings: Settings) -> str:
    """The client's address. Behind `trusted_proxy_hops` proxies (trust_forwarded_for), the
    address the nearest untrusted hop was seen from: X-Forwarded-For counted from the right
    (each proxy appends the peer it saw; everything further left is written by the client)."""
    peer = request.client.host if request.client else "unknown"
    if not settings.trust_forwarded_for:
        return peer
    hops = [h.strip() for h in request.headers.get("x-forwarded-for", "").split(",")]
    hops = [h for h in hops if h]
    if len(hops) < settings.trusted_proxy_hops:
        return peer  # did not come through all our proxies: the peer is the client
    return hops[-settings.trusted_proxy_hops]


def _take(state: AppState, key: str) -> float:
    if state.shared_limits is None:
        return state.limiter.take(key)
    try:
        return float(state.shared_limits.take(key))
    except StorageError as exc:  # the shared store is down: fall back to this process's buckets
        log.error("shared rate limit unavailable (%s): %s", exc.label, exc.detail)
        return state.limiter.take(key)


def _take_on_loop(state: AppState, key: str) -> float | None:
    """The bucket taken on the event loop (a local SQLite file: ~20 µs, cheaper than the hand-off
    to a thread), or None when that could wait (then `_take` runs in a store thread)."""
    if state.shared_limits is None:
        return state.limiter.take(key)
    try:
        wait = state.shared_limits.take_nowait(key)
    except StorageError as exc:
        log.error("shared rate limit unavailable (%s): %s", exc.label, exc.detail)
        return state.limiter.take(key)
    return None if wait is None else float(wait)


def _too_many(state: AppState, wait: float, reason: str, message: str) -> HTTPException:
    state.metrics.rate_limited.inc()
    state.metrics.shed.labels(reason=reason).inc()
    retry = RateLimiter.retry_after_header(wait)
    return HTTPException(429, message.format(retry=retry), headers={"Retry-After": retry})


async def rate_limit(request: Request) -> None:
    """Token bucket per client (shared by workers and replicas); 429 + Retry-After when empty.
    Also names the client for the embedder's cost accounting (api.fairness)."""
    state: AppState = request.app.state.sizing
    key = client_key(request, state.settings)
    current_client.set(key)
    wait = _take_on_loop(state, key)
    if wait is None:  # PostgreSQL, or another process holds the SQLite write lock
        wait = await state.runner.blocking(_take, state, key)
    if wait > 0:
        raise _too_many(state, wait, "requests", "Too many requests; try again in {retry} s.")


async def admit_answer(request: Request) -> None:
    """Before an answer starts: refuse a client that used up its embedder budget (429) and shed
    load when the embedder's queue is full (503), both with Retry-After."""
    state: AppState = request.app.state.sizing
    key = current_client.get() or client_key(request, state.settings)
    wait = state.gate.limiter.wait(key)
    if wait > 0:
        raise _too_many(
            state,
            wait,
            "cost",
            "This client used its share of the search engine; try again in {retry} s.",
        )
    if state.gate.full():
        state.metrics.shed.labels(reason="queue").inc()
        retry = retry_after_header(state.gate.retry_after_s())
        raise HTTPException(
            503, f"The assistant is busy; try again in {retry} s.", headers={"Retry-After": retry}
        )


async def answer_state(request: Request) -> AppState:
    """The routes that answer (`/api/chat`, `/v1/chat/completions`): the rate limit, then the
    embedder's admission, then the ready state, as one dependency (FastAPI's dependency solving
    costs ~30 µs per dependency and request, issue 15)."""
    await rate_limit(request)
    await admit_answer(request)
    return await get_ready(request)


def runner_for(state: AppState, text: str, total: int = 0) -> AnswerRunner:
    """The runner for a question: the long-question lane for a long text or conversation (503
    + Retry-After when long questions used their share of the server), else the normal one."""
    if not state.long_questions.is_long(text, total):
        return state.runner
    wait = state.long_questions.wait(current_client.get())
    if wait > 0:
        state.metrics.shed.labels(reason="long").inc()
        retry = retry_after_header(wait)
        share = f"{state.long_questions.share:.0%}"
        raise HTTPException(
            503,
            f"Your long questions (over {state.long_questions.chars} characters) used their "
            f"share of the server ({share} of its computing time); other senders are still "
            f"answered. Try again in {retry} s, or ask a shorter question now.",
            headers={"Retry-After": retry},
        )
    if state.long_questions.full():  # as many wait for the lane as may (issue 27)
        state.metrics.shed.labels(reason="long").inc()
        retry = retry_after_header(state.long_questions.lane_wait_s())
        raise HTTPException(
            503,
            f"Too many long questions (over {state.long_questions.chars} characters) are waiting; "
            f"try again in {retry} s, or ask a shorter question now.",
            headers={"Retry-After": retry},
        )
    return state.long_runner


def new_long_lane(settings: Settings) -> tuple[LongQuestions, AnswerRunner]:
    long_questions = LongQuestions(settings.long_question_chars, settings.long_question_share)
    runner = LaneRunner(
        long_questions.lane,
        lambda: current_client.get() or "anonymous",
        long_questions.charge,
    )
    runner.deadline_s = settings.llm_deadline_s if settings.llm_enabled else None
    return long_questions, runner


SettingsDep = Annotated[Settings, Depends(get_settings)]
MetricsDep = Annotated[Metrics, Depends(get_metrics)]
AssistantDep = Annotated[Any, Depends(get_assistant)]
DepsDep = Annotated[Any, Depends(get_deps)]
FeedbackDep = Annotated[FeedbackStore, Depends(get_feedback)]
RunnerDep = Annotated[AnswerRunner, Depends(get_runner)]
RateLimited = Depends(rate_limit)
# rate limited, admitted and ready: the state an answering route works with
AnswerState = Annotated[AppState, Depends(answer_state)]


def new_gate(settings: Settings) -> EmbedGate:
    limiter = CostLimiter(settings.embed_budget_s_per_minute)
    return EmbedGate(
        settings.embed_concurrency,
        settings.embed_queue,
        limiter,
        max_wait_s=settings.embed_max_wait_s,
        max_tokens=settings.embed_max_tokens,
        long_share=settings.embed_long_share,
    )
