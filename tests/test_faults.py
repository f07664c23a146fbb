"""Issue 27: the faults an operator meets. No internals in responses (an upstream error that
echoes the API key, a store's URL)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

pytest.register_assert_rewrite("tests.server")

from tests.llm_server import ScriptedLLMServer, status  # noqa: E402
from tests.server import LiveServer  # noqa: E402

pytest_plugins = ["tests.server"]

QUESTION = "Does Llama 3.3 70B in FP8 fit on 2x H100 SXM5?"
SECRET_KEY = "sk-live-h27SECRETkey0123456789"
UPSTREAM = f"Incorrect API key provided: {SECRET_KEY}. You can find your API key at https://x"


@pytest.mark.server
def test_an_upstream_error_that_echoes_the_key_reaches_no_client(
    api_settings: Callable[..., Any], live_api_factory: Callable[..., LiveServer]
) -> None:
    script = [status(401, UPSTREAM) for _ in range(40)]
    with ScriptedLLMServer(script) as llm:
        settings = api_settings(
            openai_api_key=SECRET_KEY,
            openai_base_url=llm.base_url,
            llm_model="scripted-model",
            llm_max_retries=0,
            llm_timeout_s=5.0,
        )
        server = live_api_factory(settings)
        with httpx.Client(base_url=server.url, timeout=30) as client:
            answer = client.post("/api/chat", json={"message": QUESTION})
            stream = client.post(
                "/api/chat", json={"message": QUESTION}, headers={"accept": "text/event-stream"}
            )
            v1 = client.post(
                "/v1/chat/completions",
                json={
                    "model": "sizing-assistant",
                    "messages": [{"role": "user", "content": QUESTION}],
                },
            )
        assert llm.requests, "the provider was asked"
    assert answer.status_code == stream.status_code == v1.status_code == 200
    for body in (answer.text, stream.text, v1.text):
        assert SECRET_KEY not in body
        assert "Incorrect API key" not in body
    attempts = answer.json()["attempts"]
    assert attempts and {a["outcome"] for a in attempts} <= {"unavailable", "invalid"}
    assert {a["detail"] for a in attempts} <= {
        "the language model was unavailable",
        "the language model's reading was not valid",
    }
    sizing = v1.json()["sizing"]
    assert [a["detail"] for a in sizing["attempts"]] == [a["detail"] for a in attempts]
    done = [line for line in stream.text.splitlines() if line.startswith("data:")][-1]
    assert json.loads(done[5:])["answer"]["attempts"] == attempts
