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
    """Assistants over one scripted server that replays transcripts; the real guide index (of
    the API tests' data folder), their own session stores. `assistants[True]` reads with the
    LLM reader on (a transcript's `"llm_reader": true`: recorded as in production, the reader's
    JSON first), `assistants[False]` with the rule reading (the older recordings)."""
    import dataclasses

    from assistant.deps import build_deps
    from assistant.service import Assistant
    from assistant.settings import Settings
    from knowledge.retrieval import open_retriever

    server = ScriptedLLMServer([]).start()
    index = open_retriever(api_data_dir)
    assistants = {}
    for reader in (False, True):
        settings = Settings(
            data_dir=tmp_path_factory.mktemp("replay-data"),
            openai_api_key="test-key",
            openai_base_url=server.base_url,
            llm_model="scripted-model",
            llm_timeout_s=5.0,
            llm_max_retries=0,
            llm_reader=reader,
        )
        assistants[reader] = Assistant(dataclasses.replace(build_deps(settings), index=index))
    yield server, assistants
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
    server, assistants = replay_assistant
    record = json.loads(path.read_text(encoding="utf-8"))
    assistant = assistants[bool(record.get("llm_reader", False))]
    session_id = None
    for n, turn in enumerate(record["turns"], 1):
        where = f"{path.stem} turn {n}"
        server.add(*replay_steps(turn["responses"]))
        answer = assistant.ask(turn["question"], session_id=session_id)
        session_id = answer.session_id
        expect = turn["expect"]
        assert answer.mode == expect["mode"], (where, answer.attempts)
        if expect.get("path") == "planner":
            _check_planner_turn(assistant, answer, expect, where)
        elif expect["mode"] == "llm":
            assert answer.violations == [], where
            # a recorded first answer the check rejected (rightly or not: see the transcript's
            # `expect.rejected` and docs/llm-mode.md), then the regenerated one shown
            assert [a.outcome for a in answer.attempts] == expect.get("outcomes", ["accepted"])
            rejected = [[v.kind, v.text] for a in answer.attempts for v in a.violations]
            assert rejected == expect.get("rejected", []), where
            assert [c.name for c in answer.tool_calls] == expect["tool_calls"], where
            assert all("error" not in str(c.result)[:20] for c in answer.tool_calls)
            # `shown`: the reply as shown when the answer rewrites it (citation markers
            # renumbered to the passages cited)
            assert answer.answer == expect.get("shown", turn["responses"][-1]["content"]), where
            assert answer.follow_ups, "follow-ups from what the answer used"
            if "prices" in expect:
                assert [p.configuration for p in answer.prices] == expect["prices"], where
        else:
            assert [a.outcome for a in answer.attempts] == expect["outcomes"], where
            assert answer.notice and "<tools>" not in answer.answer
    assert server.remaining == 0


def _check_planner_turn(assistant: Any, answer: Any, expect: dict[str, Any], where: str) -> None:
    """The LLM reader's reading answered by the planner: no model wrote a word of it, so the
    tools it ran, the prices it named (exact catalog figures) and its yes/no are asserted."""
    assert [a.outcome for a in answer.attempts] == expect["outcomes"], where
    assert (answer.attempts[-1].detail or "").startswith("path: LLM reader -> planner"), where
    assert answer.reading.reader == "llm", where
    assert answer.notice is None, where
    assert [c.name for c in answer.tool_calls] == expect["tool_calls"], where
    assert [p.configuration for p in answer.prices] == expect["prices"], where
    configs = assistant.deps.catalog.configurations
    for quote in answer.prices:
        assert float(quote.usd_per_month) == float(configs[quote.configuration].usd_per_month)
    if expect.get("verdict"):
        assert answer.answer.lstrip("*# ").startswith(expect["verdict"]), (where, answer.answer)
