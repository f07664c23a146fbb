"""Slack on the shared store (issue 14 for the Slack surface), on real SQLite and a real
PostgreSQL: event de-duplication, feedback and the conversation index are shared by every Bolt
app that uses the same store, and survive a restart. Each server is the real API app with Slack
mounted under uvicorn; Slack's Web API is the local stub; requests are signed."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from api.slack.conversation import Conversation, StoredConversations
from api.slack.dedupe import SharedDeduplicator
from assistant.settings import Settings
from store.db import SQLiteDatabase, open_database
from store.feedback import FeedbackStore
from store.shared_state import KeyValues, SeenKeys
from tests.server import LiveServer, make_settings
from tests.slack_stub import BOT_TOKEN, BOT_USER_ID, SlackStub
from tests.test_slack_bot import (
    SECRET,
    answers_in,
    block_action,
    buttons,
    event,
    new_ts,
    placeholders_in,
    sentinel_dm,
    slack_server,
    slash_command,
)
from tests.test_slack_staff import context_lines, slash, slash_answer, text_of

pytestmark = pytest.mark.server
pytest_plugins = ["tests.server", "tests.pg"]


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, api_data_dir: Path) -> dict[str, Any]:
    """Settings overrides naming the shared store: the data folder's SQLite files, or a fresh
    PostgreSQL database (SIZING_DATABASE_URL)."""
    if request.param == "sqlite":
        return {}
    return {"database_url": request.getfixturevalue("pg_url")}


@pytest.fixture
def stub() -> Iterator[SlackStub]:
    with SlackStub() as stub:
        yield stub


def slack_settings(data_dir: Path, stub: SlackStub, store: dict[str, Any]) -> Settings:
    return make_settings(
        data_dir,
        slack_bot_token=BOT_TOKEN,
        slack_signing_secret=SECRET,
        slack_api_base_url=stub.base_url,
        **store,
    )


def test_two_bolt_apps_sharing_one_store_answer_a_retried_event_once(
    store: dict[str, Any], api_data_dir: Path, stub: SlackStub
) -> None:
    settings = slack_settings(api_data_dir, stub, store)
    channel = f"C0TWO{new_ts().replace('.', '')}"
    mention = {
        "type": "app_mention",
        "user": "U0ANNA",
        "channel": channel,
        "text": f"<@{BOT_USER_ID}> Does Mixtral 8x7B fit on 2 x L40S?",
        "ts": new_ts(),
    }
    event_id = "EvTWO" + channel[-8:]
    with slack_server(settings) as one, slack_server(settings) as two:
        codes: list[int] = []
        barrier = threading.Barrier(4)

        def deliver(server: LiveServer, retry: int) -> None:
            headers = {"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_timeout"}
            barrier.wait()
            codes.append(
                event(
                    server, mention, event_id=event_id, headers=headers if retry else None
                ).status_code
            )

        threads = [
            threading.Thread(target=deliver, args=(server, n))
            for n, server in enumerate((one, two, one, two))
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        # the same message as a second event type, to the other app
        event(two, {**mention, "type": "message", "channel_type": "channel"})
        assert codes == [200] * 4
        assert answers_in(stub, channel)
        sentinel_dm(one, stub)
        sentinel_dm(two, stub)
        assert len(answers_in(stub, channel)) == 1
        assert len(placeholders_in(stub, channel)) == 1  # one placeholder
    assert not SeenKeys(open_database(settings, "state"), "slack").first_time(f"event:{event_id}")


def test_slack_feedback_lands_in_the_configured_store(
    store: dict[str, Any], api_data_dir: Path, stub: SlackStub
) -> None:
    settings = slack_settings(api_data_dir, stub, store)
    with slack_server(settings) as server:
        slash_command(server, stub, "Does Llama 3.3 70B in BF16 fit on one H100?", "fb-store")
        answer = stub.wait_for("response_url", path="/response/fb-store", timeout=60)[0]
        up = buttons(answer.blocks)["sizing_feedback_up"]
        container = {"type": "message", "message_ts": new_ts(), "channel_id": "C0SUPPORT"}
        block_action(
            server,
            stub,
            {"action_id": "sizing_feedback_up", "value": up["value"]},
            "fb-store-click",
            {**container, "is_ephemeral": True},
        )
        assert (
            "👍" in stub.wait_for("response_url", path="/response/fb-store-click")[0].params["text"]
        )
    ref = json.loads(up["value"])
    stored = FeedbackStore.from_settings(settings).get(ref["s"], ref["m"])
    assert stored is not None
    assert (stored.rating, stored.source, stored.user) == (1, "slack", "U0ANNA")
    in_sqlite = FeedbackStore.open(api_data_dir).get(ref["s"], ref["m"])
    assert (in_sqlite is not None) == (not store)  # with PostgreSQL, nothing in the data folder


def test_a_slash_follow_up_continues_across_a_restart(
    store: dict[str, Any], api_data_dir: Path, stub: SlackStub
) -> None:
    settings = slack_settings(api_data_dir, stub, store)
    user = "U0RS" + new_ts()[-6:]
    with slack_server(settings) as before:
        slash(before, stub, "Does Llama 3.3 70B in BF16 fit on 4 x A100 SXM4?", "rs-1", user=user)
        assert "Llama 3.3 70B" in text_of(slash_answer(stub, "rs-1"))
    with slack_server(settings) as after:  # a new process' bot: nothing in memory
        slash(after, stub, "and in FP8?", "rs-2", user=user)
        follow = slash_answer(stub, "rs-2")
    assert any("continuing: Llama 3.3 70B, BF16" in line for line in context_lines(follow))
    assert "Llama 3.3 70B" in text_of(follow) and "FP8" in text_of(follow)


# --------------------------------------------------------------------------- the stores
def test_the_conversation_index_is_shared_and_last_write_wins(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    one = StoredConversations(KeyValues(SQLiteDatabase(path), "slack-conversations"))
    two = StoredConversations(KeyValues(SQLiteDatabase(path), "slack-conversations"))
    assert one.get("cmd:x") is None
    one.put("cmd:x", Conversation("s-1", 1700000000.5))
    two.put("thread:y", Conversation("s-2", 1700000001.0, since_ts="1.2"))
    assert two.get("cmd:x") == Conversation("s-1", 1700000000.5, None)
    two.put("cmd:x", Conversation("s-3", 1700000002.0))
    assert one.get("cmd:x") == Conversation("s-3", 1700000002.0, None)
    assert one.get("thread:y") == Conversation("s-2", 1700000001.0, "1.2")
    other = KeyValues(SQLiteDatabase(path), "another-namespace")
    assert other.get("cmd:x") is None
    assert other.prune(-1) == 0 and one.values.prune(3600) == 0  # other namespace; all recent
    assert one.values.prune(-1) == 2 and one.get("cmd:x") is None


def test_a_broken_store_costs_memory_not_answers(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "state.sqlite3"
    conversations = StoredConversations(KeyValues(SQLiteDatabase(path), "slack-conversations"))
    events = SharedDeduplicator(SeenKeys(SQLiteDatabase(path), "slack"))
    conversations.put("cmd:x", Conversation("s-1", 1.0))
    for suffix in ("", "-wal", "-shm"):
        tmp_path.joinpath("state.sqlite3" + suffix).unlink(missing_ok=True)
    path.write_bytes(b"this is not a database" * 100)
    conversations.values.db.close()
    events.seen.db.close()
    assert conversations.get("cmd:x") is None  # start fresh
    conversations.put("cmd:x", Conversation("s-2", 2.0))  # skipped, logged
    assert events.first_time("event:Ev1") and not events.first_time("event:Ev1")  # in memory
    logged = " ".join(r.getMessage() for r in caplog.records)
    assert "state.sqlite3" in logged and str(tmp_path) not in logged


def test_a_store_that_cannot_be_opened_leaves_the_bot_in_process_memory(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from api.slack.bolt_app import shared_state

    (tmp_path / "state.sqlite3").write_bytes(b"garbage" * 1000)
    assert shared_state(Settings(data_dir=tmp_path)) == (None, None)
    assert "shared state store unavailable" in caplog.text


def test_retention_deletes_old_conversation_entries_with_the_sessions(tmp_path: Path) -> None:
    from store.retention import prune

    settings = Settings(data_dir=tmp_path)
    db = open_database(settings, "state")
    KeyValues(db, "slack-conversations", clock=lambda: 1000.0).put("cmd:old", {"session_id": "o"})
    KeyValues(db, "slack-conversations").put("cmd:new", {"session_id": "n"})
    assert prune(settings, days=0)["state"]["slack_conversations"] == 0  # 0: keep
    assert prune(settings, days=1)["state"]["slack_conversations"] == 1
    left = KeyValues(db, "slack-conversations")
    assert left.get("cmd:old") is None and left.get("cmd:new") == {"session_id": "n"}
