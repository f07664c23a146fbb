"""POST /api/feedback: 👍/👎 (for 👎 its reasons, and an optional comment) on an answer."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, HTTPException
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from api.dependencies import FeedbackDep, RateLimited, State
from api.questions import checked_text
from api.responses import errors
from store.db import StorageError
from store.feedback import MAX_COMMENT_CHARS, Feedback, FeedbackError, Reason, answer_exists

router = APIRouter(tags=["feedback"])


class FeedbackRequest(BaseModel):
    session_id: str = Field(min_length=1, max_length=128)
    message_id: str = Field(min_length=1, max_length=128)
    rating: Literal[1, -1, "up", "down", "+1", "-1"] = Field(description="+1/-1 or up/down")
    comment: str | None = Field(default=None, max_length=MAX_COMMENT_CHARS)
    reasons: list[Reason] = Field(
        default=[],
        max_length=4,
        description="with a 👎: what was wrong (wrong, unclear, too_long, missed_question)",
    )


@router.post(
    "/api/feedback",
    response_model=Feedback,
    status_code=201,
    dependencies=[RateLimited],
    summary="Rate an answer",
    responses=errors(
        404, 408, 413, 422, 429, 503, e404="no answer with this message_id in this session"
    ),
)
async def feedback(body: FeedbackRequest, store: FeedbackDep, state: State) -> Feedback:
    for name in ("session_id", "message_id", "comment"):
        checked_text(getattr(body, name) or "", name)
    sessions = getattr(state.deps, "sessions", None)
    known = await run_in_threadpool(answer_exists, sessions, body.session_id, body.message_id)
    if known is False:
        # not found because the session store cannot keep answers (read-only, full, down)?
        # then the fault is ours: 503 naming the store, not the client's 404 (issue 27)
        health = await run_in_threadpool(_session_store_health, sessions)
        if health is not None:
            raise HTTPException(
                503, f"Feedback could not be stored: the session store is unavailable ({health})."
            )
        raise HTTPException(404, "No answer with this message_id in this session.")
    try:
        return await run_in_threadpool(
            store.record,
            body.session_id,
            body.message_id,
            body.rating,
            body.comment,
            "web",
            None,
            body.reasons,
        )
    except FeedbackError as exc:
        raise HTTPException(422, str(exc)) from None
    except StorageError as exc:  # names the store, never a path, a URL or the server's text
        raise HTTPException(503, f"Feedback could not be stored: {exc.public}") from None


def _session_store_health(sessions: object) -> str | None:
    """None when the session store reads and writes, else what is wrong (no path, no URL)."""
    check = getattr(sessions, "check", None)
    if check is None:
        return None
    report = check()
    if report.get("ok"):
        return None
    return f"{report.get('store', 'sessions')}: {report.get('error', 'not writable')}"
