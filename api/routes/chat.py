"""POST /api/chat: the answer as JSON, or as server-sent events with Accept: text/event-stream."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Literal

from fastapi import APIRouter, HTTPException, Query, Request, Response
from pydantic import BaseModel, Field
from sse_starlette import EventSourceResponse

from api.answer_json import Include, answer_json
from api.dependencies import AnswerState, AppState, runner_for
from api.questions import checked_question, checked_session_id, continued_session
from api.reading_edits import ReadingEdit, checked_edits, edits_of, no_session
from api.responses import errors
from api.sse import assistant_events, sse_events
from assistant.answer import Answer, StreamEvent
from assistant.service import answer_events

router = APIRouter(tags=["chat"])


class ChatRequest(BaseModel):
    message: str | None = Field(
        default=None,
        min_length=1,
        pattern=r"\S",
        description="the question (not empty or only spaces; at most SIZING_MAX_QUESTION_CHARS); "
        "required unless `reading` re-answers a session",
        examples=["Brauche ich NVLink?"],
    )
    session_id: str | None = Field(
        default=None,
        max_length=128,
        pattern=r"^[A-Za-z0-9_.:\-]+$",
        description="continue a conversation (the id returned by an earlier answer; an id the "
        "server did not issue starts a new session with a fresh id)",
    )
    language: Literal["de", "en"] | None = Field(
        default=None,
        description="answer language; detected from the question when absent (not used with "
        "`reading` alone: the reading has its language, `reading.language` changes it)",
    )
    reading: ReadingEdit | None = Field(
        default=None,
        description="reading fields to change (docs/reading.md). Without `message`: re-answer "
        "the `session_id`'s last question from its reading with these fields replaced (no text "
        "is read again; an unknown session is a 404). With `message`: set them over what the "
        "question says. A field that cannot change or a name the catalog lacks is a 422 naming "
        "`reading.<field>`",
        examples=[{"precision": "fp8"}, {"users": 40, "budget_usd_per_month": 6000}],
    )


INCLUDE_DOC = (
    "what to send besides the default answer (repeat for both): 'tool_calls' sends each tool "
    "call's result and every argument (by default a call has its name and the arguments that "
    "differ from the tool's defaults); 'quotes' sends each citation's quote, the cited passage's "
    "text (by default a citation has its number, guide, title, section and URL; the event "
    "stream always has them); 'chart' sends the answer's chart (the configurations that hold "
    "the job, price against tokens/s; the event stream always has it). Without them an answer "
    "stays under 4 KB."
)


def wants_stream(request: Request) -> bool:
    return "text/event-stream" in request.headers.get("accept", "")


@router.post(
    "/api/chat",
    response_model=Answer,
    summary="Ask the sizing assistant",
    responses={
        200: {
            "content": {
                "text/event-stream": {
                    "description": "events token, citation, prices, done (the full answer), error"
                }
            }
        },
        **errors(
            404,
            408,
            413,
            422,
            429,
            503,
            e404="`reading` without `message`: no conversation with that session_id to re-answer",
        ),
    },
)
async def chat(
    body: ChatRequest,
    request: Request,
    state: AnswerState,
    include: list[Include] = Query(default=[], description=INCLUDE_DOC),
) -> Response:
    assistant, settings, metrics = state.assistant, state.settings, state.metrics
    edits = edits_of(body.reading)
    if body.message is None:
        if body.reading is None:
            raise HTTPException(422, "message: a question is required (or a `reading` to change)")
        return await _reanswered(body, request, state, edits, include)
    question = checked_question(body.message, settings)
    checked_session_id(body.session_id)
    checked_edits(edits, assistant.deps.catalog)
    runner = runner_for(state, question)  # long questions: their own lane (api.fairness)
    sessions = getattr(assistant, "sessions", None)
    session_id = None
    if body.session_id is not None:  # a store lookup, only when asked
        session_id = await state.runner.run_inline_first(
            continued_session, body.session_id, sessions
        )
    if wants_stream(request):
        events = assistant_events(
            lambda: assistant.stream(
                question, session_id=session_id, language=body.language, edits=edits
            ),
            runner,
            on_answer=lambda answer: metrics.record_answer(answer, "sse"),
            on_error=lambda _msg: metrics.errors.labels(surface="sse").inc(),
        )
        return _event_stream(events, include, settings.sse_ping_s)
    # on the event loop when no step blocks, else in an answer thread (api.concurrency)
    answer: Answer = await runner.run_inline_first(
        assistant.ask, question, session_id=session_id, language=body.language, edits=edits
    )
    metrics.record_answer(answer, "chat")
    # already a validated Answer: serialise it once (response_model documents the schema)
    return Response(answer_json(answer, include), media_type="application/json")


async def _reanswered(
    body: ChatRequest,
    request: Request,
    state: AppState,
    edits: dict[str, Any],
    include: list[Include],
) -> Response:
    """`reading` without `message`: the session's last question answered again from its
    reading with `edits` (Assistant.reanswer); errors are JSON 404/422 before any event."""
    if body.session_id is None:
        raise HTTPException(422, "session_id: `reading` without `message` re-answers a session")
    checked_session_id(body.session_id)
    assistant = state.assistant
    sessions = getattr(assistant, "sessions", None)
    session_id = await state.runner.run_inline_first(continued_session, body.session_id, sessions)
    if session_id is None:
        raise no_session(body.session_id)
    answer: Answer = await state.runner.run_inline_first(assistant.reanswer, session_id, edits)
    if wants_stream(request):
        state.metrics.record_answer(answer, "sse")
        events = assistant_events(lambda: answer_events(answer), state.runner)
        return _event_stream(events, include, state.settings.sse_ping_s)
    state.metrics.record_answer(answer, "chat")
    return Response(answer_json(answer, include), media_type="application/json")


def _event_stream(
    events: AsyncIterator[StreamEvent], include: list[Include], ping_s: float
) -> EventSourceResponse:
    return EventSourceResponse(
        # the stream keeps the quotes (its citation events are the done answer's citations) and
        # the chart (the widget, which reads the stream, draws it)
        sse_events(events, {*include, "quotes", "chart"}),
        ping=ping_s,
        sep="\n",
        headers={"X-Accel-Buffering": "no"},
    )
