"""OpenAI chat-completions wire format over the assistant's Answer (request parsing, responses)."""

from __future__ import annotations

import math
import time
from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from api.answer_json import public_answer
from assistant.answer import Answer, PriceQuote

MODEL_ID = "sizing-assistant"
MODEL_CREATED = 1764633600  # 2025-12-02, fixed so /v1/models is stable


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[dict[str, Any]] | None = None

    def text(self) -> str:
        if isinstance(self.content, str):
            return self.content
        if isinstance(self.content, list):
            return "\n".join(
                str(part.get("text", ""))
                for part in self.content
                if isinstance(part, dict) and part.get("type") in ("text", "input_text")
            )
        return ""


class ChatCompletionRequest(BaseModel):
    """The part of the OpenAI request the assistant uses; other fields are accepted, ignored."""

    model_config = ConfigDict(extra="allow")

    model: str = Field(default=MODEL_ID, description=f"must be {MODEL_ID!r}")
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    user: str | None = Field(
        default=None, description="accepted and ignored (the messages are the conversation)"
    )
    language: Literal["de", "en"] | None = Field(
        default=None, description="extension: answer language (default: detected)"
    )


def split_conversation(messages: list[ChatMessage]) -> tuple[str, list[dict[str, str]]]:
    """The last user message is the question; earlier user/assistant turns are the history."""
    last_user = max((i for i, m in enumerate(messages) if m.role == "user"), default=None)
    if last_user is None:
        return "", []
    question = messages[last_user].text().strip()
    history = [
        {"role": m.role, "content": m.text()}
        for m in messages[:last_user]
        if m.role in ("user", "assistant") and m.text().strip()
    ]
    return question, history


def format_usd(amount: Decimal) -> str:
    if amount == amount.to_integral_value():
        return f"${int(amount):,}"
    return f"${amount:,.2f}"


def price_line(quote: PriceQuote, language: str) -> str:
    per = "Monat" if language == "de" else "month"
    note = ""
    if quote.placeholder:
        note = " (Platzhalterpreis)" if language == "de" else " (placeholder price)"
    return f"- [{quote.label}]({quote.url}): {format_usd(quote.usd_per_month)}/{per}{note}"


def appendix(answer: Answer) -> str:
    """Sources and prices as Markdown, appended to the answer text for plain chat front ends."""
    de = answer.language == "de"
    parts: list[str] = []
    if answer.citations:
        lines = [f"**{'Quellen' if de else 'Sources'}**"]
        for c in answer.citations:
            lines.append(f"[{c.n}] [{c.title} – {c.section}]({c.url})")
        parts.append("\n".join(lines))
    if answer.prices:
        lines = [f"**{'Preise' if de else 'Prices'}**"]
        lines += [price_line(q, answer.language) for q in answer.prices]
        parts.append("\n".join(lines))
    if answer.notice:
        parts.append(f"_{answer.notice}_")
    return ("\n\n" + "\n\n".join(parts)) if parts else ""


def sizing_extra(answer: Answer) -> dict[str, Any]:
    """The extra `sizing` field: the structured parts of the answer (no upstream error text)."""
    return public_answer(answer).model_dump(
        mode="json",
        include={
            "question",
            "session_id",
            "message_id",
            "mode",
            "language",
            "citations",
            "prices",
            "follow_ups",
            "notice",
            "violations",
            "attempts",
        },
    )


def _tokens(text: str) -> int:
    return max(1, math.ceil(len(text) / 4)) if text else 0


def completion(answer: Answer, prompt_text: str) -> dict[str, Any]:
    content = answer.answer + appendix(answer)
    prompt_tokens, completion_tokens = _tokens(prompt_text), _tokens(content)
    return {
        "id": f"chatcmpl-{answer.message_id}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": MODEL_ID,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
        "sizing": sizing_extra(answer),
    }


def chunk(
    completion_id: str,
    created: int,
    delta: dict[str, Any],
    finish_reason: str | None = None,
    sizing: dict[str, Any] | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": completion_id,
        "object": "chat.completion.chunk",
        "created": created,
        "model": MODEL_ID,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason, "logprobs": None}],
    }
    if sizing is not None:
        body["sizing"] = sizing
    return body


def models_list() -> dict[str, Any]:
    return {"object": "list", "data": [model_card()]}


def model_card() -> dict[str, Any]:
    return {"id": MODEL_ID, "object": "model", "created": MODEL_CREATED, "owned_by": "gpuserver.io"}
