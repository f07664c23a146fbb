"""OpenAI-compatible endpoints: POST /v1/chat/completions (stream or not), GET /v1/models."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, HTTPException
from sse_starlette import EventSourceResponse, ServerSentEvent

from api import openai_format as oa
from api.conversation import stateless_assistant
from api.dependencies import AnswerState, runner_for
from api.questions import checked_question, checked_text
from api.responses import EVENT_STREAM, errors
from api.security import error_body
from api.sse import assistant_events
from assistant.answer import Answer, DoneEvent, ErrorEvent, TokenEvent

router = APIRouter(tags=["openai-compatible"])


def _data(payload: dict[str, Any]) -> ServerSentEvent:
    return ServerSentEvent(data=json.dumps(payload, ensure_ascii=False), sep="\n")


@router.get("/v1/models", summary="List the models (one: sizing-assistant)")
async def list_models() -> dict[str, Any]:
    return oa.models_list()


@router.get(
    "/v1/models/{model_id}",
    summary="Describe a model",
    responses=errors(404, e404="no such model (the one model is sizing-assistant)"),
)
async def get_model(model_id: str) -> dict[str, Any]:
    if model_id != oa.MODEL_ID:
        raise HTTPException(404, f"The model {model_id!r} does not exist; use {oa.MODEL_ID!r}.")
    return oa.model_card()


@router.post(
    "/v1/chat/completions",
    summary="OpenAI-compatible chat completion (the last user message is the question)",
    responses={
        200: {
            "description": "a chat.completion, or chat.completion.chunk events with stream=true",
            "content": EVENT_STREAM,
        },
        **errors(404, 408, 413, 422, 429, 503, e404="no such model (use sizing-assistant)"),
    },
)
async def chat_completions(
    body: oa.ChatCompletionRequest,
    state: AnswerState,
) -> Any:
    assistant, settings, metrics = state.assistant, state.settings, state.metrics
    if body.model != oa.MODEL_ID:
        raise HTTPException(404, f"The model {body.model!r} does not exist; use {oa.MODEL_ID!r}.")
    for n, message in enumerate(body.messages):
        checked_text(message.text(), f"messages.{n}.content")
    question, history = oa.split_conversation(body.messages)
    question = checked_question(question, settings, field="messages")
    texts = [m.text() for m in body.messages]
    # a long message or conversation: the long-question lane (api.fairness)
    runner = runner_for(state, max(texts, key=len), sum(map(len, texts)))
    prompt_text = "\n".join(texts)
    # stateless: the request's own messages are the history (never another conversation's)
    assistant, session_id = await runner.run_inline_first(
        stateless_assistant, assistant, history, body.language
    )
    kwargs: dict[str, Any] = {"session_id": session_id, "language": body.language}

    if not body.stream:
        answer: Answer = await runner.run_inline_first(assistant.ask, question, **kwargs)
        metrics.record_answer(answer, "openai")
        return oa.completion(answer, prompt_text)

    events = assistant_events(
        lambda: assistant.stream(question, live=False, **kwargs),  # chunks cannot be withdrawn
        runner,
        on_answer=lambda answer: metrics.record_answer(answer, "openai"),
        on_error=lambda _msg: metrics.errors.labels(surface="openai").inc(),
    )
    return EventSourceResponse(_completion_chunks(events), ping=settings.sse_ping_s, sep="\n")


async def _completion_chunks(events: AsyncIterator[Any]) -> AsyncIterator[ServerSentEvent]:
    completion_id = f"chatcmpl-{uuid.uuid4().hex}"
    created = int(time.time())
    yield _data(oa.chunk(completion_id, created, {"role": "assistant", "content": ""}))
    async for event in events:
        if isinstance(event, TokenEvent) and event.text:
            yield _data(oa.chunk(completion_id, created, {"content": event.text}))
        elif isinstance(event, DoneEvent):
            extra = oa.appendix(event.answer)
            if extra:
                yield _data(oa.chunk(completion_id, created, {"content": extra}))
            yield _data(
                oa.chunk(
                    completion_id,
                    created,
                    {},
                    finish_reason="stop",
                    sizing=oa.sizing_extra(event.answer),
                )
            )
        elif isinstance(event, ErrorEvent):
            yield _data(error_body(500, event.message, code="answer_failed"))
            return
    yield ServerSentEvent(data="[DONE]", sep="\n")
