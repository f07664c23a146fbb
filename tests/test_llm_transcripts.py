"""Replayed model transcripts (tests/transcripts/): real model behaviour as regression tests.

The scripted OpenAI-compatible server (tests/llm_server.py) plays the recorded responses back;
the real `openai` client (through LangChain), the real tools, catalog, retrieval and grounding
answer. `hostile.json`: a model that states a wrong claim twice; every one must be rejected on
the JSON, SSE and /v1 surfaces (the offline answer shown, with the attempts and violations).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.register_assert_rewrite("tests.server")

from tests.llm_server import ScriptedLLMServer, replay_steps  # noqa: E402
from tests.server import LiveServer  # noqa: E402

# fixtures: api_data_dir, api_settings, live_api, live_api_factory
pytest_plugins = ["tests.server"]

HERE = Path(__file__).parent / "transcripts"
HOSTILE = json.loads((HERE / "hostile.json").read_text(encoding="utf-8"))["cases"]
WRONG_FIGURES = ("$1/", "€", "Euro", "one dollar", "einen Dollar", "per year", "/hour", "EUR",
                 "$3,999", "USD 1", "$4.4k", "＄", "fits on one RTX 4090", "PCIe is enough",
                 "Rule 1 applies")  # fmt: skip


def _assert_rejected(case: dict[str, Any], answer: dict[str, Any]) -> None:
    assert answer["mode"] == "offline", case["id"]
    assert answer["notice"], case["id"]
    assert [a["outcome"] for a in answer["attempts"]] == ["ungrounded", "ungrounded"], case["id"]
    assert answer["violations"], case["id"]
    shown = case["responses"][-1]["content"]
    assert shown not in answer["answer"], case["id"]


@pytest.fixture(scope="module")
def hostile_api(api_settings: Any, live_api_factory: Any) -> Any:
    server = ScriptedLLMServer([]).start()
    settings = api_settings(
        openai_api_key="test-key",
        openai_base_url=server.base_url,
        llm_model="scripted-model",
        llm_timeout_s=5.0,
        llm_max_retries=0,
    )
    api: LiveServer = live_api_factory(settings)
    yield server, api
    server.stop()


@pytest.mark.server
@pytest.mark.parametrize("case", HOSTILE, ids=[c["id"] for c in HOSTILE])
def test_hostile_model_is_rejected_on_every_surface(hostile_api: Any, case: dict[str, Any]) -> None:
    import httpx

    from api.sse import parse_sse

    server, api = hostile_api
    question = case["question"]
    with httpx.Client(base_url=api.url, timeout=60) as client:
        server.add(*replay_steps(case["responses"]))
        body = client.post("/api/chat", json={"message": question}).json()
        _assert_rejected(case, body)

        server.add(*replay_steps(case["responses"]))
        sse = client.post(
            "/api/chat", json={"message": question}, headers={"accept": "text/event-stream"}
        )
        events = parse_sse(sse.text)
        done = next(e["data"]["answer"] for e in events if e.get("event") == "done")
        _assert_rejected(case, done)
        assert any(e.get("event") == "progress" for e in events), "tool progress is streamed"

        server.add(*replay_steps(case["responses"]))
        completion = client.post(
            "/v1/chat/completions",
            json={"model": "sizing-assistant", "messages": [{"role": "user", "content": question}]},
        ).json()
        sizing = dict(completion["sizing"], answer=completion["choices"][0]["message"]["content"])
        _assert_rejected(case, sizing)
    assert server.remaining == 0
    assert len(HOSTILE) == 23


# --- recorded transcripts: a capable model, played honestly through llm_relay.py ----------------

RECORDED = sorted(p for p in HERE.glob("*.json") if p.name != "hostile.json")


@pytest.fixture(scope="module")
def replay_assistant(api_data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """An Assistant over a scripted server that replays transcripts; the real guide index (of
    the API tests' data folder), its own session store."""
    import dataclasses

    from assistant.deps import build_deps
    from assistant.service import Assistant
    from assistant.settings import Settings
    from knowledge.retrieval import open_retriever

    server = ScriptedLLMServer([]).start()
    settings = Settings(
        data_dir=tmp_path_factory.mktemp("replay-data"),
        openai_api_key="test-key",
        openai_base_url=server.base_url,
        llm_model="scripted-model",
        llm_timeout_s=5.0,
        llm_max_retries=0,
    )
    deps = dataclasses.replace(build_deps(settings), index=open_retriever(api_data_dir))
    yield server, Assistant(deps)
    server.stop()


def test_at_least_twenty_transcripts_are_committed() -> None:
    honest = [p for p in RECORDED if p.stem != "markup-small-model"]
    assert len(honest) >= 20
    tools = {
        name
        for p in honest
        for turn in json.loads(p.read_text(encoding="utf-8"))["turns"]
        for name in turn["expect"].get("tool_calls", [])
    }
    assert {"models_for_configuration", "training_fit", "cheapest_fit", "fit_check"} <= tools
    languages = {json.loads(p.read_text(encoding="utf-8"))["language"] for p in RECORDED}
    assert languages == {"de", "en"}
    assert any(len(json.loads(p.read_text(encoding="utf-8"))["turns"]) > 1 for p in RECORDED), (
        "a follow-up conversation"
    )


@pytest.mark.parametrize("path", RECORDED, ids=[p.stem for p in RECORDED])
def test_recorded_transcript_replays(replay_assistant: Any, path: Path) -> None:
    server, assistant = replay_assistant
    record = json.loads(path.read_text(encoding="utf-8"))
    session_id = None
    for turn in record["turns"]:
        server.add(*replay_steps(turn["responses"]))
        answer = assistant.ask(turn["question"], session_id=session_id)
        session_id = answer.session_id
        expect = turn["expect"]
        assert answer.mode == expect["mode"], (path.stem, answer.attempts)
        if expect["mode"] == "llm":
            assert answer.violations == [], path.stem
            # a recorded first answer the check rejected (rightly or not: see the transcript's
            # `expect.rejected` and docs/llm-mode.md), then the regenerated one shown
            assert [a.outcome for a in answer.attempts] == expect.get("outcomes", ["accepted"])
            rejected = [[v.kind, v.text] for a in answer.attempts for v in a.violations]
            assert rejected == expect.get("rejected", []), path.stem
            assert [c.name for c in answer.tool_calls] == expect["tool_calls"]
            assert all("error" not in str(c.result)[:20] for c in answer.tool_calls)
            assert answer.answer == turn["responses"][-1]["content"]
            assert answer.follow_ups, "follow-ups from what the answer used"
        else:
            assert [a.outcome for a in answer.attempts] == expect["outcomes"]
            assert answer.notice and "<tools>" not in answer.answer
    assert server.remaining == 0
