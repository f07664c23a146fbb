"""The HTTP API over the real app (uvicorn on a free port, the real offline Assistant)."""

from __future__ import annotations

import json
from decimal import Decimal

import httpx
import pytest

pytest.register_assert_rewrite("tests.server")

from api.sse import parse_sse  # noqa: E402
from assistant.answer import Answer  # noqa: E402
from store.feedback import FeedbackStore  # noqa: E402
from tests.server import TEST_ORIGIN, LiveServer, make_settings  # noqa: E402

# fixtures: api_data_dir, api_settings, live_api, live_api_factory
pytest_plugins = ["tests.server"]

pytestmark = pytest.mark.server

NVLINK_DE = "Brauche ich NVLink für Tensor-Parallelismus?"
PRICE_DE = "Was kostet 4 × A100 SXM4 im Monat?"


def chat(server: LiveServer, message: str, **fields: object) -> httpx.Response:
    return httpx.post(server.url + "/api/chat", json={"message": message, **fields}, timeout=60)


def error_of(response: httpx.Response) -> dict[str, str]:
    body = response.json()
    assert set(body) == {"error"}, body
    assert "Traceback" not in response.text
    return body["error"]


# --------------------------------------------------------------------------- chat (JSON)


def test_chat_returns_a_cited_answer(live_api: LiveServer) -> None:
    response = chat(live_api, NVLINK_DE)
    assert response.status_code == 200, response.text
    answer = Answer.model_validate(response.json())
    assert answer.question == NVLINK_DE
    assert answer.language == "de"
    assert answer.mode == "offline"
    assert answer.answer.strip()
    assert answer.citations, "an NVLink answer cites the guide"
    for citation in answer.citations:
        assert f"[{citation.n}]" in answer.answer
        assert citation.url.startswith("https://gpuserver.io/de/guides/")
    assert answer.session_id and answer.message_id
    assert answer.violations == []


def test_chat_quotes_the_exact_catalog_price(live_api: LiveServer) -> None:
    answer = Answer.model_validate(chat(live_api, PRICE_DE).json())
    quotes = {q.configuration: q for q in answer.prices}
    assert "4x-a100-sxm4" in quotes, answer.prices
    assert quotes["4x-a100-sxm4"].usd_per_month == Decimal(4395)
    assert quotes["4x-a100-sxm4"].url.startswith("https://gpuserver.io/")
    assert "4,395" in answer.answer or "4.395" in answer.answer
    # the short answer first (issue 26): the price in the summary too, within 60 words
    assert "$4,395/Monat" in answer.summary and len(answer.summary.split()) <= 60


def test_chat_keeps_the_session(live_api: LiveServer) -> None:
    first = chat(live_api, NVLINK_DE).json()
    second = chat(live_api, "Und was kostet das?", session_id=first["session_id"]).json()
    assert second["session_id"] == first["session_id"]
    assert second["message_id"] != first["message_id"]


def test_chat_answers_in_english_when_asked(live_api: LiveServer) -> None:
    answer = chat(live_api, "Do I need NVLink for tensor parallelism?", language="en").json()
    assert answer["language"] == "en"
    assert all("/en/guides/" in c["url"] for c in answer["citations"])


def test_tool_results_are_opt_in(live_api: LiveServer) -> None:
    question = "Passt Llama 3.1 70B in FP8 auf 2 × H100?"
    default = chat(live_api, question)
    assert default.status_code == 200, default.text
    calls = default.json()["tool_calls"]
    assert calls and all(c["name"] and "arguments" in c for c in calls)
    assert all("result" not in c for c in calls)
    assert Answer.model_validate(default.json()).tool_calls[0].result is None
    assert len(default.content) <= 4096, len(default.content)
    full = httpx.post(
        live_api.url + "/api/chat",
        params={"include": "tool_calls"},
        json={"message": question},
        timeout=60,
    ).json()
    assert [c["name"] for c in full["tool_calls"]] == [c["name"] for c in calls]
    assert all(c["result"] is not None for c in full["tool_calls"])
    assert all(c.items() <= f["arguments"].items() for c, f in zip(
        [c["arguments"] for c in calls], full["tool_calls"], strict=True
    ))  # fmt: skip
    assert all("quote" not in c for c in default.json()["citations"] + full["citations"])
    both = httpx.post(
        live_api.url + "/api/chat",
        params=[("include", "tool_calls"), ("include", "quotes")],
        json={"message": question},
        timeout=60,
    ).json()
    assert both["citations"] and all(c["quote"].strip() for c in both["citations"])
    bad = httpx.post(
        live_api.url + "/api/chat", params={"include": "everything"}, json={"message": question}
    )
    assert bad.status_code == 422


# --------------------------------------------------------------------------- chat (SSE)


def test_chat_streams_server_sent_events(live_api: LiveServer) -> None:
    with httpx.stream(
        "POST",
        live_api.url + "/api/chat",
        json={"message": PRICE_DE},
        headers={"Accept": "text/event-stream"},
        timeout=60,
    ) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        body = "".join(response.iter_text())
    events = parse_sse(body)
    kinds = [e["event"] for e in events]
    assert kinds[-1] == "done", kinds
    calls = events[-1]["data"]["answer"]["tool_calls"]
    assert calls and all("result" not in c for c in calls)  # opt-in, as for JSON
    assert kinds.count("token") >= 2, "the answer arrives in several chunks"
    assert "error" not in kinds
    for event in events:
        assert event["data"]["type"] == event["event"]  # the data carries its own type
    # order: tokens, then citations, then prices, then done
    first_non_token = next(i for i, k in enumerate(kinds) if k != "token")
    assert set(kinds[:first_non_token]) == {"token"}
    assert "token" not in kinds[first_non_token:]
    answer = Answer.model_validate(events[-1]["data"]["answer"])
    streamed = "".join(e["data"]["text"] for e in events if e["event"] == "token")
    assert streamed == answer.answer
    cited = [e["data"]["citation"] for e in events if e["event"] == "citation"]
    assert cited == [c.model_dump(mode="json") for c in answer.citations]
    prices = [e["data"]["prices"] for e in events if e["event"] == "prices"]
    assert prices and prices[-1] == [p.model_dump(mode="json") for p in answer.prices]
    assert any(p["configuration"] == "4x-a100-sxm4" for p in prices[-1])
    assert "$4,395/Monat" in answer.summary  # the done event carries the summary (issue 26)


def test_stream_errors_are_json_before_the_stream_starts(live_api: LiveServer) -> None:
    response = httpx.post(
        live_api.url + "/api/chat",
        json={"message": "   "},
        headers={"Accept": "text/event-stream"},
    )
    assert response.status_code == 422
    assert "empty" in error_of(response)["message"]


# --------------------------------------------------------------------------- limits


def test_too_long_question_is_422_with_the_limit(api_settings, live_api_factory) -> None:
    server = live_api_factory(api_settings(max_question_chars=100))
    response = chat(server, "x" * 101)
    assert response.status_code == 422
    error = error_of(response)
    assert error["code"] == "invalid_request"
    assert "101" in error["message"] and "100" in error["message"]
    assert chat(server, "Brauche ich NVLink?").status_code == 200


def test_oversized_body_is_413(live_api: LiveServer) -> None:
    big = {"message": "NVLink?", "padding": "x" * 100_000}
    response = httpx.post(live_api.url + "/api/chat", content=json.dumps(big),
                          headers={"Content-Type": "application/json"})  # fmt: skip
    assert response.status_code == 413
    error = error_of(response)
    assert error["code"] == "request_too_large"
    assert "98304" in error["message"]


def test_oversized_chunked_body_is_413(live_api: LiveServer) -> None:
    def chunks():  # no Content-Length: the server counts what arrives
        yield b'{"message": "'
        for _ in range(100):
            yield b"x" * 1000
        yield b'"}'

    response = httpx.post(live_api.url + "/api/chat", content=chunks(),
                          headers={"Content-Type": "application/json"})  # fmt: skip
    assert response.status_code == 413


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ({}, "message"),
        ({"message": ""}, "empty"),
        ({"message": "NVLink?", "language": "fr"}, "language"),
        ({"message": "NVLink?", "session_id": "<script>"}, "session_id"),
    ],
)
def test_invalid_requests_are_422_with_the_field(live_api: LiveServer, body, needle) -> None:
    response = httpx.post(live_api.url + "/api/chat", json=body)
    assert response.status_code == 422
    assert needle in error_of(response)["message"]


def test_invalid_json_is_422(live_api: LiveServer) -> None:
    response = httpx.post(live_api.url + "/api/chat", content=b"{not json",
                          headers={"Content-Type": "application/json"})  # fmt: skip
    assert response.status_code == 422
    assert "JSON" in error_of(response)["message"]


def test_rate_limit_is_429_with_retry_after(api_settings, live_api_factory) -> None:
    server = live_api_factory(api_settings(rate_limit_per_minute=6, rate_limit_burst=2))
    statuses = [chat(server, "Brauche ich NVLink?").status_code for _ in range(3)]
    assert statuses[:2] == [200, 200]
    refused = chat(server, "Brauche ich NVLink?")
    assert refused.status_code == 429
    retry_after = int(refused.headers["Retry-After"])
    assert 1 <= retry_after <= 10  # 6/min: one token every 10 s
    assert error_of(refused)["code"] == "rate_limited"
    # health checks are not rate limited
    assert httpx.get(server.url + "/healthz").status_code == 200


# --------------------------------------------------------------------------- CORS and headers


def test_cors_allows_listed_origins_only(live_api: LiveServer) -> None:
    preflight = {"Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "content-type"}  # fmt: skip
    ok = httpx.options(live_api.url + "/api/chat", headers={"Origin": TEST_ORIGIN, **preflight})
    assert ok.status_code == 200
    assert ok.headers["access-control-allow-origin"] == TEST_ORIGIN
    assert "access-control-allow-credentials" not in ok.headers

    evil = httpx.options(
        live_api.url + "/api/chat", headers={"Origin": "https://evil.example", **preflight}
    )
    assert evil.status_code == 400
    assert "access-control-allow-origin" not in evil.headers

    simple = (
        chat(live_api, "NVLink?")
        if False
        else httpx.get(live_api.url + "/healthz", headers={"Origin": "https://evil.example"})
    )
    assert "access-control-allow-origin" not in simple.headers


def test_wildcard_origin_is_never_combined_with_credentials(api_settings, live_api_factory) -> None:
    server = live_api_factory(api_settings(cors_origins=["*"]))
    response = httpx.get(server.url + "/healthz", headers={"Origin": "https://evil.example"})
    assert response.headers.get("access-control-allow-origin") != "*"
    assert "access-control-allow-credentials" not in response.headers


def test_pages_carry_security_headers(live_api: LiveServer) -> None:
    page = httpx.get(live_api.url + "/")
    assert page.status_code == 200
    csp = page.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]
    assert page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["x-frame-options"] == "DENY"
    assert page.headers["referrer-policy"] == "strict-origin-when-cross-origin"
    api = httpx.get(live_api.url + "/api/configurations")
    assert api.headers["x-content-type-options"] == "nosniff"
    assert api.headers["cache-control"] == "no-store"


def test_demo_page_embeds_the_widget(live_api: LiveServer) -> None:
    page = httpx.get(live_api.url + "/").text
    assert '<script src="/static/widget.js"' in page and 'data-lang="de"' in page
    assert "NVLink" in page
    english = httpx.get(live_api.url + "/?lang=en").text
    assert 'data-lang="en"' in english and '<html lang="en">' in english
    widget = httpx.get(live_api.url + "/static/widget.js")
    assert widget.status_code == 200
    assert "javascript" in widget.headers["content-type"]
    # issue 26 added the chart of a fit answer (inline SVG) and the reasons of a 👎
    assert len(widget.content) < 50_000, "the widget stays small"


def test_unknown_paths_are_json_404(live_api: LiveServer) -> None:
    response = httpx.get(live_api.url + "/api/nope")
    assert response.status_code == 404
    assert error_of(response)["code"] == "not_found"


def test_openapi_docs(live_api: LiveServer) -> None:
    assert httpx.get(live_api.url + "/docs").status_code == 200
    schema = httpx.get(live_api.url + "/openapi.json").json()
    for path in ("/api/chat", "/v1/chat/completions", "/v1/models", "/api/configurations",
                 "/api/fit", "/api/feedback", "/healthz", "/readyz", "/metrics"):  # fmt: skip
        assert path in schema["paths"], path


# --------------------------------------------------------------------------- configurator


def test_configurations_list_all_41_with_exact_prices(live_api: LiveServer) -> None:
    body = httpx.get(live_api.url + "/api/configurations").json()
    assert body["count"] == 41 == len(body["configurations"])
    by_id = {c["id"]: c for c in body["configurations"]}
    assert by_id["4x-a100-pcie"]["usd_per_month"] == 4157
    assert by_id["4x-a100-sxm4"]["usd_per_month"] == 4395
    assert by_id["4x-a100-sxm4"]["placeholder"] is False
    assert by_id["4x-a100-sxm4"]["url"] == "https://gpuserver.io/de/gpu/a100-sxm4"
    assert by_id["1x-l4"]["placeholder"] is True
    only = httpx.get(live_api.url + "/api/configurations", params={"gpu": "h200"}).json()
    assert {c["id"] for c in only["configurations"]} == {"4x-h200", "8x-h200"}
    unknown = httpx.get(live_api.url + "/api/configurations", params={"gpu": "v100"})
    assert unknown.status_code == 404 and "h200" in error_of(unknown)["message"]


def test_fit_runs_the_configurator(live_api: LiveServer) -> None:
    body = httpx.post(live_api.url + "/api/fit", json={"model": "Llama 3.3 70B"}).json()
    rows = {r["configuration"]: r for r in body["rows"]}
    assert len(rows) == 41
    assert rows["1x-l4"]["verdict"] == "does_not_fit"
    assert rows["4x-a100-sxm4"]["verdict"] in ("split", "fits_one_card")
    assert rows["4x-a100-sxm4"]["usd_per_month"] == 4395
    assert body["weights_gb"] == pytest.approx(141, abs=1.5)  # 70.6B params x 2 bytes


def test_fit_errors_are_precise(live_api: LiveServer) -> None:
    unknown = httpx.post(live_api.url + "/api/fit", json={"model": "Llama 3.3 70C"})
    assert unknown.status_code == 422
    assert "Llama" in error_of(unknown)["message"]
    bad = httpx.post(live_api.url + "/api/fit", json={"model": "Llama 3.3 70B", "concurrency": 0})
    assert bad.status_code == 422
    assert "concurrency" in error_of(bad)["message"]


# --------------------------------------------------------------------------- feedback


def test_feedback_is_stored_in_sqlite(live_api: LiveServer, api_data_dir) -> None:
    answer = chat(live_api, NVLINK_DE).json()
    vote = {"session_id": answer["session_id"], "message_id": answer["message_id"]}
    response = httpx.post(live_api.url + "/api/feedback", json={**vote, "rating": "down",
                                                                 "comment": "zu lang"})  # fmt: skip
    assert response.status_code == 201, response.text
    stored = FeedbackStore.open(api_data_dir).get(vote["session_id"], vote["message_id"])
    assert stored is not None and stored.rating == -1 and stored.comment == "zu lang"
    httpx.post(live_api.url + "/api/feedback", json={**vote, "rating": 1})
    stored = FeedbackStore.open(api_data_dir).get(vote["session_id"], vote["message_id"])
    assert stored is not None and stored.rating == 1  # a second vote replaces the first


def test_feedback_for_unknown_answers_is_404(live_api: LiveServer) -> None:
    answer = chat(live_api, NVLINK_DE).json()
    for vote in (
        {"session_id": answer["session_id"], "message_id": "0000000000000000"},
        {"session_id": "another-session", "message_id": answer["message_id"]},
    ):
        response = httpx.post(live_api.url + "/api/feedback", json={**vote, "rating": "up"})
        assert response.status_code == 404
        assert "message_id" in error_of(response)["message"]


def test_feedback_rejects_bad_ratings(live_api: LiveServer) -> None:
    response = httpx.post(live_api.url + "/api/feedback",
                          json={"session_id": "s", "message_id": "m", "rating": 5})  # fmt: skip
    assert response.status_code == 422
    assert "rating" in error_of(response)["message"]


# --------------------------------------------------------------------------- operations


def test_health_and_readiness(live_api: LiveServer) -> None:
    assert httpx.get(live_api.url + "/healthz").json() == {"status": "ok"}
    ready = httpx.get(live_api.url + "/readyz")
    assert ready.status_code == 200
    body = ready.json()
    assert body["ready"] is True
    assert body["checks"]["catalog"]["configurations"] == 41
    assert body["checks"]["index"]["passages"] > 0


def test_not_ready_without_an_index(tmp_path, live_api_factory) -> None:
    server = live_api_factory(make_settings(tmp_path))
    ready = httpx.get(server.url + "/readyz")
    assert ready.status_code == 503
    index = ready.json()["checks"]["index"]
    assert index["ok"] is False and "sizing index" in index["error"]
    assert httpx.get(server.url + "/healthz").status_code == 200


def test_broken_catalog_gives_503_with_the_reason(tmp_path, live_api_factory) -> None:
    (tmp_path / "catalog").mkdir()
    (tmp_path / "catalog" / "gpus.yaml").write_text("gpus: [oops\n")
    server = live_api_factory(make_settings(tmp_path, catalog=tmp_path / "catalog"))
    ready = httpx.get(server.url + "/readyz")
    assert ready.status_code == 503 and ready.json()["ready"] is False
    response = chat(server, "Brauche ich NVLink?")
    assert response.status_code == 503
    error = error_of(response)
    assert error["code"] == "not_ready" and "not ready" in error["message"]


def test_metrics_count_requests_answers_and_latency(live_api: LiveServer) -> None:
    chat(live_api, NVLINK_DE)
    httpx.post(live_api.url + "/api/chat", json={"message": "NVLink?"},
               headers={"Accept": "text/event-stream"})  # fmt: skip
    text = httpx.get(live_api.url + "/metrics").text

    def value(prefix: str) -> float:
        lines = [ln for ln in text.splitlines() if ln.startswith(prefix)]
        assert lines, f"no metric line starts with {prefix}"
        return sum(float(ln.rsplit(" ", 1)[1]) for ln in lines)

    assert value('sizing_http_requests_total{method="POST",route="/api/chat",status="200"}') >= 2
    assert (
        value(
            'sizing_http_request_duration_seconds_bucket{le="+Inf",method="POST",route="/api/chat"}'
        )
        >= 2
    )
    assert value('sizing_answers_total{mode="offline",surface="chat"}') >= 1
    assert value('sizing_answers_total{mode="offline",surface="sse"}') >= 1
    assert "sizing_grounding_violations_total" in text
    assert (
        "sizing_fallbacks_total" in text
        or "sizing_fallbacks_created" in text
        or ("# TYPE sizing_fallbacks counter" in text)
    )
