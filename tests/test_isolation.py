"""Issue 14, finding 1: no conversation is shared between clients.

/v1/chat/completions is stateless (the request's messages are the history), and session ids are
drawn by the server (unguessable, never computed from content, never chosen by a client).
"""

from __future__ import annotations

import httpx
import pytest

pytest.register_assert_rewrite("tests.server")

from assistant.sessions import new_session_id  # noqa: E402
from tests.server import LiveServer  # noqa: E402

pytest_plugins = ["tests.server"]

MODEL = "sizing-assistant"


def complete(server: LiveServer, messages: list[dict[str, str]], **extra: object) -> dict:
    response = httpx.post(
        server.url + "/v1/chat/completions",
        json={"model": MODEL, "messages": messages, **extra},
        timeout=60,
    )
    assert response.status_code == 200, response.text
    return response.json()


def text_of(completion: dict) -> str:
    return completion["choices"][0]["message"]["content"]


def test_session_ids_are_random_and_unguessable() -> None:
    ids = {new_session_id() for _ in range(1000)}
    assert len(ids) == 1000
    assert all(len(i) >= 22 for i in ids)  # 128 random bits


@pytest.mark.server
def test_two_users_opening_with_hi_share_nothing(live_api: LiveServer) -> None:
    a_first = complete(live_api, [{"role": "user", "content": "Hi"}])
    b_first = complete(live_api, [{"role": "user", "content": "Hi"}])
    assert a_first["sizing"]["session_id"] != b_first["sizing"]["session_id"]
    assert not a_first["sizing"]["session_id"].startswith("oa-")
    # user A talks about Llama 3.3 70B ...
    a = complete(
        live_api,
        [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": text_of(a_first)},
            {"role": "user", "content": "Does Llama 3.3 70B fit on one H100 SXM5?"},
        ],
    )
    assert "Llama 3.3 70B" in text_of(a)
    complete(
        live_api,
        [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": text_of(a_first)},
            {"role": "user", "content": "Does Llama 3.3 70B fit on one H100 SXM5?"},
            {"role": "assistant", "content": text_of(a)},
            {"role": "user", "content": "and in GGUF Q4_K_M?"},
        ],
    )
    # ... user B's follow-up must not inherit A's model or precision
    b = complete(
        live_api,
        [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": text_of(b_first)},
            {"role": "user", "content": "And on an H200?"},
        ],
    )
    assert "Llama" not in text_of(b)
    assert "Q4_K_M" not in text_of(b)


@pytest.mark.server
def test_the_user_field_does_not_join_conversations(live_api: LiveServer) -> None:
    first = "Does Llama 3.3 70B fit on one H100 SXM5?"
    complete(live_api, [{"role": "user", "content": first}], user="same-user")
    # same user, same first message, but this request's history says nothing about Llama
    other = complete(live_api, [{"role": "user", "content": "And on an H200?"}], user="same-user")
    assert "Llama" not in text_of(other)


@pytest.mark.server
def test_a_client_cannot_choose_or_join_a_session_id(live_api: LiveServer) -> None:
    chosen = "victim-session-1"
    response = httpx.post(
        live_api.url + "/api/chat",
        json={"message": "Does Llama 3.3 70B fit on one H100 SXM5?", "session_id": chosen},
        timeout=60,
    )
    assert response.status_code == 200
    issued = response.json()["session_id"]
    assert issued != chosen and len(issued) >= 22
    # the former computable ids of /v1 and Slack's namespace are refused the same way
    for forged in ("oa-0123456789abcdef01234567", "C123:1712345678.000100"):
        r = httpx.post(
            live_api.url + "/api/chat",
            json={"message": "And on an H200?", "session_id": forged},
            timeout=60,
        )
        assert r.json()["session_id"] != forged
        assert "Llama" not in r.json()["answer"]
    # the issued id continues the conversation
    follow = httpx.post(
        live_api.url + "/api/chat",
        json={"message": "And on an H200?", "session_id": issued},
        timeout=60,
    ).json()
    assert follow["session_id"] == issued and "Llama 3.3 70B" in follow["answer"]
