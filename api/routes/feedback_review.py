"""GET /api/feedback: rated answers for the site team's review (the same rows as
`sizing feedback list`). Bearer-token protected: `SIZING_FEEDBACK_API_TOKEN`; without one set the
route answers 404, with a missing or wrong token 401."""

from __future__ import annotations

import hmac
from typing import Annotated, Literal

from fastapi import APIRouter, Header, HTTPException, Query
from starlette.concurrency import run_in_threadpool

from api.dependencies import FeedbackDep, State
from api.responses import errors
from assistant.review import RatedAnswer, ReviewFilter, parse_when, rated_answers

router = APIRouter(tags=["feedback"])


def _authorise(state: State, authorization: str | None) -> None:
    token = state.settings.feedback_api_token
    if token is None:
        raise HTTPException(404, "Not Found")
    scheme, _, given = (authorization or "").partition(" ")
    expected = token.get_secret_value().encode()
    if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), expected):
        raise HTTPException(401, "A valid bearer token is required.")


@router.get(
    "/api/feedback",
    response_model=list[RatedAnswer],
    summary="Rated answers for review (bearer token)",
    responses=errors(
        401, 404, 422, 503, e404="the review API is off (no SIZING_FEEDBACK_API_TOKEN set)"
    ),
)
async def list_feedback(
    store: FeedbackDep,
    state: State,
    authorization: Annotated[str | None, Header()] = None,
    rating: Annotated[Literal["up", "down"] | None, Query()] = None,
    since: Annotated[str | None, Query(description="YYYY-MM-DD")] = None,
    until: Annotated[str | None, Query(description="YYYY-MM-DD")] = None,
    language: Annotated[Literal["de", "en"] | None, Query()] = None,
    surface: Annotated[str | None, Query(max_length=32)] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> list[RatedAnswer]:
    _authorise(state, authorization)
    sessions = getattr(state.deps, "sessions", None)
    if sessions is None:
        raise HTTPException(503, "The assistant is not ready.")
    try:
        flt = ReviewFilter(
            rating=None if rating is None else (1 if rating == "up" else -1),
            since=parse_when(since),
            until=parse_when(until),
            language=language,
            surface=surface,
            limit=limit,
        )
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from None
    return await run_in_threadpool(rated_answers, store, sessions, flt)
