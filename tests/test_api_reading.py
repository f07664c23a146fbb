"""/api/chat's `reading` (issue 23): a partial reading re-answers a session's last question with
those fields replaced, or is set over a new question's reading; JSON and server-sent events,
over the real app (uvicorn on a free port) and the real offline Assistant."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

pytest.register_assert_rewrite("tests.server")

from api.sse import parse_sse  # noqa: E402
from tests.server import LiveServer  # noqa: E402

# fixtures: api_data_dir, api_settings, live_api, live_api_factory
pytest_plugins = ["tests.server"]

pytestmark = pytest.mark.server

SERVE_DE = "Welcher Server für Llama 3.3 70B in BF16 für 60 Nutzer?"


def post(server: LiveServer, stream: bool = False, **body: Any) -> httpx.Response:
    headers = {"accept": "text/event-stream"} if stream else {}
    return httpx.post(server.url + "/api/chat", json=body, headers=headers, timeout=60)


def fit_args(answer: dict[str, Any]) -> dict[str, Any]:
    """The arguments of the call that sized the job: the fit, or the pick ("which server?")."""
    return next(t["arguments"] for t in answer["tool_calls"] if t["name"] in _SIZING)


_SIZING = ("fit_check", "cheapest_fit")


def prices(answer: dict[str, Any]) -> dict[str, float]:
    return {p["configuration"]: p["usd_per_month"] for p in answer["prices"]}


def done_answer(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    events = parse_sse(response.text)
    kinds = [e["event"] for e in events]
    assert kinds[-1] == "done", kinds
    tokens = "".join(e["data"]["text"] for e in events if e["event"] == "token")
    answer: dict[str, Any] = events[-1]["data"]["answer"]
    assert tokens == answer["answer"]
    return answer


@pytest.fixture
def first(live_api: LiveServer) -> dict[str, Any]:
    response = post(live_api, message=SERVE_DE)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    reading = answer["reading"]
    assert reading["model"] == "llama-3.3-70b" and reading["precision"] == "bf16"
    assert reading["users"] == 60
    assert fit_args(answer)["precision"] == "bf16"
    return answer


def test_a_reading_alone_reanswers_the_sessions_last_question(
    live_api: LiveServer, first: dict[str, Any]
) -> None:
    response = post(live_api, session_id=first["session_id"], reading={"precision": "FP8"})
    assert response.status_code == 200, response.text
    again = response.json()
    # the same question and conversation, a new turn, read from the stored reading
    assert again["question"] == first["question"]
    assert again["session_id"] == first["session_id"]
    assert again["message_id"] != first["message_id"]
    assert again["reading"]["precision"] == "fp8" and again["reading"]["reader"] == "user"
    assert again["reading"]["model"] == "llama-3.3-70b" and again["reading"]["users"] == 60
    assert "FP8" in again["understood"] and "BF16" not in again["understood"]
    # computed again at FP8: the tool ran at FP8 and the sized nodes and prices changed
    assert fit_args(again)["precision"] == "fp8"
    assert prices(again) != prices(first)

    # the re-answer is the session's last turn: the next change builds on it
    more = post(live_api, session_id=first["session_id"], reading={"users": 400}).json()
    assert more["reading"]["precision"] == "fp8" and more["reading"]["users"] == 400
    assert more["reading"]["concurrent_sequences"] > again["reading"]["concurrent_sequences"]


def test_a_reading_alone_over_server_sent_events(
    live_api: LiveServer, first: dict[str, Any]
) -> None:
    response = post(
        live_api,
        stream=True,
        session_id=first["session_id"],
        reading={"model": "Qwen2.5 72B", "precision": None},
    )
    again = done_answer(response)
    assert again["session_id"] == first["session_id"]
    assert again["reading"]["model"] == "qwen2.5-72b"
    assert "precision" not in again["reading"], "null clears a field"
    assert fit_args(again)["model"] == "qwen2.5-72b"


@pytest.mark.parametrize("stream", [False, True])
def test_a_reading_with_a_message_is_set_over_the_question(
    live_api: LiveServer, stream: bool
) -> None:
    response = post(
        live_api, stream=stream, message=SERVE_DE, reading={"precision": "fp8", "users": 20}
    )
    answer = done_answer(response) if stream else response.json()
    assert answer["question"] == SERVE_DE
    assert answer["reading"]["precision"] == "fp8" and answer["reading"]["users"] == 20
    assert answer["reading"]["model"] == "llama-3.3-70b"  # the rest as the question says
    assert fit_args(answer)["precision"] == "fp8"


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("reading", "named"),
    [
        ({"precision": "fp3"}, "reading.precision"),
        ({"model": "no such model 9000"}, "reading.model"),
        ({"configurations": ["17x-v100"]}, "reading.configurations"),
        ({"users": "many"}, "reading.users"),
        ({"users": 0}, "reading.users"),
        ({"text": "something else"}, "reading.text"),
    ],
)
def test_bad_fields_are_a_422_naming_the_field(
    live_api: LiveServer,
    first: dict[str, Any],
    stream: bool,
    reading: dict[str, Any],
    named: str,
) -> None:
    for body in (
        {"session_id": first["session_id"], "reading": reading},
        {"message": SERVE_DE, "reading": reading},
    ):
        response = post(live_api, stream=stream, **body)
        assert response.status_code == 422, (body, response.text)
        assert response.headers["content-type"].startswith("application/json")  # no stream
        error = response.json()["error"]
        assert named in error["message"] or any(
            f["field"] == named for f in error.get("fields") or []
        ), error


@pytest.mark.parametrize("stream", [False, True])
def test_an_unknown_session_is_a_404(live_api: LiveServer, stream: bool) -> None:
    for session_id in ("never-issued-0123456789abcdef", "C0123:1700000000.000100"):
        response = post(live_api, stream=stream, session_id=session_id, reading={"users": 5})
        assert response.status_code == 404, response.text
        error = response.json()["error"]
        assert error["code"] == "not_found" and "session_id" in error["message"]


def test_a_reading_needs_a_session_or_a_message(live_api: LiveServer) -> None:
    response = post(live_api, reading={"precision": "fp8"})
    assert response.status_code == 422 and "session_id" in response.json()["error"]["message"]
    response = post(live_api)
    assert response.status_code == 422 and "message" in response.json()["error"]["message"]
    response = post(live_api, session_id="abc", message="   ")
    assert response.status_code == 422


def test_reading_options_list_the_catalog(live_api: LiveServer) -> None:
    body = httpx.get(live_api.url + "/api/reading/options", params={"lang": "de"}).json()
    models = {m["id"]: m["name"] for m in body["models"]}
    assert models["llama-3.3-70b"] == "Llama 3.3 70B"
    assert {"bf16", "fp8", "awq"} <= set(body["precisions"])
    configs = {c["id"]: c for c in body["configurations"]}
    assert len(configs) == 41 and configs["4x-a100-sxm4"]["usd_per_month"] == 4395
    assert {"model", "precision", "users", "budget_usd_per_month"} <= set(body["editable"])


def test_openapi_documents_the_reading(live_api: LiveServer) -> None:
    schema = httpx.get(live_api.url + "/openapi.json").json()
    chat = schema["paths"]["/api/chat"]["post"]
    assert "404" in chat["responses"] and "422" in chat["responses"]
    request = schema["components"]["schemas"]["ChatRequest"]
    assert "reading" in request["properties"] and "message" not in request.get("required", [])
    edit = schema["components"]["schemas"]["ReadingEdit"]
    assert edit["additionalProperties"] is False
    for field in ("model", "precision", "users", "concurrent_sequences", "context_tokens"):
        assert field in edit["properties"], field
    assert "text" not in edit["properties"]
    assert "/api/reading/options" in schema["paths"]
