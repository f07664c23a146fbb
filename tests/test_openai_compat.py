"""The official `openai` Python client against /v1/chat/completions and /v1/models."""

from __future__ import annotations

import httpx
import openai
import pytest

pytest.register_assert_rewrite("tests.server")

from api.sse import parse_sse  # noqa: E402
from tests.server import LiveServer  # noqa: E402

# fixtures: api_data_dir, api_settings, live_api, live_api_factory
pytest_plugins = ["tests.server"]

pytestmark = pytest.mark.server

MODEL = "sizing-assistant"


@pytest.fixture
def client(live_api: LiveServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=live_api.url + "/v1", api_key="not-needed", max_retries=0)


def test_models_list_the_assistant(client: openai.OpenAI) -> None:
    models = client.models.list()
    assert [m.id for m in models.data] == [MODEL]
    assert client.models.retrieve(MODEL).owned_by == "gpuserver.io"


def test_completion_answers_with_citations_and_prices(client: openai.OpenAI) -> None:
    response = client.chat.completions.create(
        model=MODEL,
        messages=[
            {"role": "system", "content": "You are helpful."},
            {"role": "user", "content": "Was kostet 4 × A100 SXM4 im Monat?"},
        ],
    )
    assert response.object == "chat.completion"
    assert response.model == MODEL
    choice = response.choices[0]
    assert choice.finish_reason == "stop"
    assert choice.message.role == "assistant"
    text = choice.message.content or ""
    assert "$4,395/Monat" in text  # the price list appended for plain chat front ends
    assert "https://gpuserver.io/de/gpu/a100-sxm4" in text
    sizing = response.model_extra["sizing"]
    assert sizing["mode"] == "offline"
    assert sizing["question"] == "Was kostet 4 × A100 SXM4 im Monat?"
    assert {"configuration": "4x-a100-sxm4", "usd_per_month": 4395}.items() <= next(
        p for p in sizing["prices"] if p["configuration"] == "4x-a100-sxm4"
    ).items()
    assert response.usage is not None and response.usage.total_tokens > 0


def test_completion_cites_guide_sections(client: openai.OpenAI) -> None:
    response = client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": "Do I need NVLink for tensor parallelism?"}],
    )
    text = response.choices[0].message.content or ""
    citations = response.model_extra["sizing"]["citations"]
    assert citations
    assert "**Sources**" in text
    for c in citations:
        assert f"[{c['n']}]" in text and c["url"] in text


def test_streaming_completion(client: openai.OpenAI) -> None:
    stream = client.chat.completions.create(
        model=MODEL,
        stream=True,
        messages=[{"role": "user", "content": "Was kostet 4 × A100 PCIe?"}],
    )
    chunks = list(stream)
    assert len(chunks) >= 3
    assert chunks[0].choices[0].delta.role == "assistant"
    assert all(c.object == "chat.completion.chunk" and c.model == MODEL for c in chunks)
    assert len({c.id for c in chunks}) == 1
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert "$4,157" in text
    last = chunks[-1]
    assert last.choices[0].finish_reason == "stop"
    sizing = last.model_extra["sizing"]
    assert any(p["configuration"] == "4x-a100-pcie" for p in sizing["prices"])


def test_stream_ends_with_done_marker(live_api: LiveServer) -> None:
    response = httpx.post(
        live_api.url + "/v1/chat/completions",
        json={"model": MODEL, "stream": True, "messages": [{"role": "user", "content": "NVLink?"}]},
        timeout=60,
    )
    assert response.status_code == 200
    assert response.text.rstrip().endswith("data: [DONE]")
    events = parse_sse(response.text)
    assert events[-1]["data"] == "[DONE]"


def test_earlier_messages_are_context(client: openai.OpenAI) -> None:
    first_q = "Does Llama 3.3 70B fit on one H100 SXM5?"
    first = client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": first_q}], user="ctx-test"
    )
    follow = client.chat.completions.create(
        model=MODEL,
        user="ctx-test",
        messages=[
            {"role": "user", "content": first_q},
            {"role": "assistant", "content": first.choices[0].message.content},
            {"role": "user", "content": "And on an H200?"},
        ],
    )
    sizing = follow.model_extra["sizing"]
    assert sizing["question"] == "And on an H200?"  # the last user message is the question
    # stateless: each request is its own conversation (the context came from the messages)
    assert sizing["session_id"] != first.model_extra["sizing"]["session_id"]
    text = follow.choices[0].message.content or ""
    assert "Llama 3.3 70B" in text and "H200" in text  # the model came from the context


def test_context_survives_a_fresh_conversation_store(client: openai.OpenAI) -> None:
    follow = client.chat.completions.create(
        model=MODEL,
        user="never-seen-before",
        messages=[
            {"role": "user", "content": "Does Llama 3.3 70B fit on one H100 SXM5?"},
            {"role": "assistant", "content": "(an answer from another server)"},
            {"role": "user", "content": "And on an H200?"},
        ],
    )
    assert "Llama 3.3 70B" in (follow.choices[0].message.content or "")


def test_unknown_model_is_a_not_found_error(client: openai.OpenAI) -> None:
    with pytest.raises(openai.NotFoundError) as info:
        client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "user", "content": "NVLink?"}]
        )
    assert "sizing-assistant" in str(info.value)


def test_invalid_requests_are_client_errors(client: openai.OpenAI) -> None:
    with pytest.raises(openai.UnprocessableEntityError):
        client.chat.completions.create(model=MODEL, messages=[])
    with pytest.raises(openai.UnprocessableEntityError) as info:
        client.chat.completions.create(
            model=MODEL, messages=[{"role": "system", "content": "no question here"}]
        )
    assert "empty" in str(info.value)
