"""What the routes return besides their success, for the OpenAPI spec (FastAPI `responses=`):
every error is the one JSON shape of api.security.error_body, and the spec names each status a
route can answer with (tests/test_api_fuzz.py checks the responses against it)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class FieldError(BaseModel):
    field: str = Field(description="the request field, e.g. message or messages.0.content")
    message: str


class ErrorDetail(BaseModel):
    message: str = Field(description="what was wrong, for a person")
    type: str = Field(description="invalid_request_error, rate_limit_error or server_error")
    code: str = Field(description="e.g. not_found, invalid_request, rate_limited, not_ready")
    fields: list[FieldError] | None = Field(default=None, description="on a 422: each bad field")


class ErrorResponse(BaseModel):
    """The error body of every route (also what the `openai` client reads)."""

    error: ErrorDetail


RETRY_AFTER = {
    "Retry-After": {"description": "seconds to wait before retrying", "schema": {"type": "string"}}
}

DESCRIPTIONS = {
    400: "malformed request",
    401: "a valid bearer token is required",
    404: "not found",
    408: "the request body did not arrive in time (SIZING_REQUEST_BODY_TIMEOUT_S)",
    413: "request body too large",
    422: "invalid fields (a question that is empty, too long or not valid text included)",
    429: "rate limited, or this client used its share of the search engine (see Retry-After)",
    503: "not ready, storage unavailable, or busy (then with Retry-After)",
}


def errors(*codes: int, **descriptions: str) -> dict[int | str, dict[str, Any]]:
    """`responses=` entries for these status codes; `descriptions` overrides by `e404=...`."""
    out: dict[int | str, dict[str, Any]] = {}
    for code in codes:
        entry: dict[str, Any] = {
            "model": ErrorResponse,
            "description": descriptions.get(f"e{code}", DESCRIPTIONS[code]),
        }
        if code in (429, 503):
            entry["headers"] = RETRY_AFTER
        out[code] = entry
    return out


#: one server-sent event, as the OpenAPI media-type registry models `text/event-stream` (each
#: event an object of its fields; OpenAPI 3.2's `itemSchema`, which 3.0/3.1 tools such as
#: schemathesis read from `schema`): the stream is a sequence of these, its `data` a JSON chunk
#: or `[DONE]`
EVENT_STREAM = {
    "text/event-stream": {
        "schema": {
            "type": "object",
            "properties": {
                "event": {"type": "string"},
                "data": {"type": "string"},
                "id": {"type": "string"},
                "retry": {"type": "integer", "minimum": 0},
            },
        }
    }
}
