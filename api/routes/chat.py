"""POST /api/chat: the answer as JSON, or as server-sent events with Accept: text/event-stream."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Query, Request, Response
from pydantic import BaseModel, Field
from sse_starlette import EventSourceResponse

from api.answer_json import Include, answer_json
from api.dependencies import AnswerState, runner_for
from api.questions import checked_question, checked_session_id, continued_session
from api.responses import errors
from api.sse import assistant_events, sse_events
from assistant.answer import Answer

router = APIRouter(tags=["chat"])


class ChatRequest(BaseModel):
    message: str = Field(
        min_length=1,
        pattern=r"\S",
        description="the question (not empty or only spaces; at most SIZING_MAX_QUESTION_CHARS)",
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
        default=None, description="answer language; detected from the question when absent"
    )


INCLUDE_DOC = (
    "what to send besides the default answer (repeat for both): 'tool_calls' sends each tool "
    "call's result and every argument (by default a call has its name and the arguments that "
    "differ from the tool's defaults); 'quotes' sends each citation's quote, the cited passage's "
    "text (by default a citation has its number, guide, title, section and URL; the event "
    "stream always has them). Without them an answer stays under 4 KB."
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
        **errors(408, 413, 422, 429, 503),
    },
)
async def chat(
    body: ChatRequest,
    request: Request,
    state: AnswerState,
    include: list[Include] = Query(default=[], description=INCLUDE_DOC),
) -> Response:
    assistant, settings, metrics = state.assistant, state.settings, state.metrics
    question = checked_question(body.message, settings)
    checked_session_id(body.session_id)
    runner = runner_for(state, question)  # long questions: their own lane (api.fairness)
    sessions = getattr(assistant, "sessions", None)
    session_id = None
    if body.session_id is not None:  # a store lookup, only when asked
        session_id = await state.runner.run_inline_first(
            continued_session, body.session_id, sessions
        )
    if wants_stream(request):
        events = assistant_events(
            lambda: assistant.stream(question, session_id=session_id, language=body.language),
            runner,
            on_answer=lambda answer: metrics.record_answer(answer, "sse"),
            on_error=lambda _msg: metrics.errors.labels(surface="sse").inc(),
        )
        return EventSourceResponse(
            # the stream keeps the quotes: its citation events are the done answer's citations
            sse_events(events, {*include, "quotes"}),
            ping=settings.sse_ping_s,
            sep="\n",
            headers={"X-Accel-Buffering": "no"},
        )
    # on the event loop when no step blocks, else in an answer thread (api.concurrency)
    answer: Answer = await runner.run_inline_first(
        assistant.ask, question, session_id=session_id, language=body.language
    )
    metrics.record_answer(answer, "chat")
    # already a validated Answer: serialise it once (response_model documents the schema)
    return Response(answer_json(answer, include), media_type="application/json")
