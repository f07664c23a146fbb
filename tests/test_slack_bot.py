"""The Slack bot end to end: the real FastAPI app (Slack mounted) under uvicorn on a free port,
the real Bolt app and the real offline assistant; Slack's Web API and response URLs are a local
stub (tests/slack_stub.py). Requests are signed in the test with the signing secret, exactly as
Slack signs them (v0=HMAC-SHA256 over "v0:<timestamp>:<body>")."""

import hashlib
import hmac
import json
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest

from api.app import create_app
from assistant.settings import Settings
from store.feedback import FeedbackStore
from tests.server import LiveServer, make_settings
from tests.slack_stub import APP_TOKEN, BOT_ID, BOT_TOKEN, BOT_USER_ID, TEAM_ID, Call, SlackStub

pytestmark = pytest.mark.server
pytest_plugins = ["tests.server"]  # fixtures: api_data_dir (the guide index, built once)

SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
NVLINK_DE = "Brauche ich NVLink für Llama 3.3 70B in BF16 auf vier Karten für echten Traffic?"
TOPO = (
    "```\n"
    "\tGPU0\tGPU1\tGPU2\tGPU3\tCPU Affinity\tNUMA Affinity\n"
    "GPU0\t X \tNV12\tNV12\tNV12\t0-63\t0\n"
    "GPU1\tNV12\t X \tNV12\tNV12\t0-63\t0\n"
    "GPU2\tNV12\tNV12\t X \tNV12\t0-63\t0\n"
    "GPU3\tNV12\tNV12\tNV12\t X \t0-63\t0\n"
    "```"
)


@contextmanager
def slack_server(settings: Settings) -> Iterator[LiveServer]:
    """The real API app (create_app: Deps, Assistant, Slack mounted in its lifespan)."""
    app = create_app(settings)
    with LiveServer(app) as server:
        try:
            yield server
        finally:
            slack = getattr(app.state, "slack", None)
            if slack is not None:
                slack.close()


@pytest.fixture(scope="module")
def stub() -> Iterator[SlackStub]:
    with SlackStub() as stub:
        yield stub


@pytest.fixture(scope="module")
def data_dir(api_data_dir: Path) -> Path:
    return api_data_dir


@pytest.fixture(scope="module")
def server(stub: SlackStub, data_dir: Path) -> Iterator[LiveServer]:
    settings = make_settings(
        data_dir,
        slack_bot_token=BOT_TOKEN,
        slack_signing_secret=SECRET,
        slack_api_base_url=stub.base_url,
    )
    with slack_server(settings) as server:
        state = server.app.state.sizing
        assert getattr(server.app.state, "slack", None) is not None, (
            f"Slack was not mounted (start-up error: {state.startup_error})"
        )
        yield server


@pytest.fixture(autouse=True)
def _fresh_calls(stub: SlackStub) -> None:
    stub.reset()


# --------------------------------------------------------------------------- signed requests
def sign(body: str, timestamp: int, secret: str = SECRET) -> str:
    base = f"v0:{timestamp}:{body}".encode()
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


def post_slack(
    server: LiveServer,
    body: str,
    content_type: str,
    *,
    timestamp: float | None = None,
    secret: str = SECRET,
    headers: dict[str, str] | None = None,
) -> httpx.Response:
    ts = int(time.time() if timestamp is None else timestamp)
    all_headers = {
        "Content-Type": content_type,
        "X-Slack-Request-Timestamp": str(ts),
        "X-Slack-Signature": sign(body, ts, secret),
        **(headers or {}),
    }
    return httpx.post(f"{server.url}/slack/events", content=body, headers=all_headers, timeout=30)


def slash_command(
    server: LiveServer, stub: SlackStub, text: str, name: str, **kw: Any
) -> httpx.Response:
    body = urlencode(
        {
            "token": "legacy-unused",
            "team_id": TEAM_ID,
            "channel_id": "C0SUPPORT",
            "channel_name": "support",
            "user_id": "U0ANNA",
            "user_name": "anna",
            "command": "/sizing",
            "text": text,
            "response_url": stub.response_url(name),
            "trigger_id": "13345224609.738474920.8088930838d88f008e0",
            "api_app_id": "A0SIZING",
        }
    )
    return post_slack(server, body, "application/x-www-form-urlencoded", **kw)


_event_ids = iter(range(1, 10_000))


def event(
    server: LiveServer, inner: dict[str, Any], event_id: str | None = None, **kw: Any
) -> httpx.Response:
    payload = {
        "token": "legacy-unused",
        "team_id": TEAM_ID,
        "api_app_id": "A0SIZING",
        "type": "event_callback",
        "event_id": event_id or f"Ev{next(_event_ids):06d}",
        "event_time": int(time.time()),
        "authorizations": [{"team_id": TEAM_ID, "user_id": BOT_USER_ID, "is_bot": True}],
        "event": {"event_ts": inner.get("ts"), **inner},
    }
    return post_slack(server, json.dumps(payload), "application/json", **kw)


def block_action(
    server: LiveServer,
    stub: SlackStub,
    action: dict[str, Any],
    name: str,
    container: dict[str, Any],
    message: dict[str, Any] | None = None,
) -> httpx.Response:
    payload: dict[str, Any] = {
        "type": "block_actions",
        "team": {"id": TEAM_ID, "domain": "stub"},
        "user": {"id": "U0ANNA", "username": "anna", "team_id": TEAM_ID},
        "api_app_id": "A0SIZING",
        "token": "legacy-unused",
        "container": container,
        "trigger_id": "123.456.abc",
        "channel": {"id": container.get("channel_id", "C0SUPPORT"), "name": "support"},
        "response_url": stub.response_url(name),
        "actions": [
            {
                **action,
                "type": "button",
                "block_id": "sizing_actions",
                "action_ts": str(time.time()),
            }
        ],
    }
    if message is not None:  # Slack sends the clicked message along (not for ephemeral ones)
        payload["message"] = message
    body = urlencode({"payload": json.dumps(payload)})
    return post_slack(server, body, "application/x-www-form-urlencoded")


_ts = iter(range(1, 10_000))


def new_ts() -> str:
    return f"{int(time.time())}.{next(_ts):06d}"


# --------------------------------------------------------------------------- block helpers
def section_texts(blocks: list[dict[str, Any]]) -> list[str]:
    texts = []
    for block in blocks:
        if "text" in block and isinstance(block["text"], dict):
            texts.append(block["text"]["text"])
        for f in block.get("fields") or []:
            texts.append(f["text"])
        for e in block.get("elements") or []:
            if e.get("type") == "mrkdwn":
                texts.append(e["text"])
    return texts


def buttons(blocks: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {
        e["action_id"]: e
        for b in blocks
        if b["type"] == "actions"
        for e in b["elements"]
        if e.get("type") == "button"
    }


def answer_posts(stub: SlackStub, method: str, count: int = 1, **match: Any) -> list[Call]:
    """Posts that carry an answer (blocks with the feedback buttons)."""
    deadline = time.monotonic() + 60
    while True:
        calls = [
            c for c in stub.calls_to(method, **match) if "sizing_feedback_up" in buttons(c.blocks)
        ]
        if len(calls) >= count or time.monotonic() > deadline:
            return calls
        time.sleep(0.05)


def details_in(stub: SlackStub, channel: str, thread_ts: str) -> list[Call]:
    """The details posted in a thread after an answer's summary (issue 26): the whole answer,
    its sources and follow-ups, led by a "*Details*" context."""
    deadline = time.monotonic() + 30
    while True:
        found = [
            c
            for c in stub.calls_to("chat.postMessage", channel=channel)
            if c.params.get("thread_ts") == thread_ts
            and c.blocks
            and c.blocks[0].get("elements", [{}])[0].get("text") == "*Details*"
        ]
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def placeholders_in(stub: SlackStub, channel: str) -> list[Call]:
    """The "⏳" placeholders posted in a channel (each answer replaces one in place)."""
    posts = stub.calls_to("chat.postMessage", channel=channel)
    return [c for c in posts if str(c.params.get("text", "")).startswith("⏳")]


def answers_in(stub: SlackStub, channel: str, count: int = 1) -> list[Call]:
    """The answers in a channel, in order: the placeholder replaced in place (`chat.update`;
    the result carries the placeholder's `thread_ts` and `ts`) or a message posted as such."""
    deadline = time.monotonic() + 60
    while True:
        found = []
        posts = stub.calls_to("chat.postMessage", channel=channel)
        placed = {c.reply.get("ts"): c for c in posts if isinstance(c.reply, dict)}
        for c in stub.calls:
            if c.params.get("channel") != channel or "sizing_feedback_up" not in buttons(c.blocks):
                continue
            if c.method == "chat.update":
                where = placed[c.params["ts"]].params
                params = {**c.params, "thread_ts": where.get("thread_ts")}
                found.append(Call("answer", params, c.headers, reply=c.reply))
            elif c.method == "chat.postMessage":
                found.append(Call("answer", {**c.params, "ts": c.reply["ts"]}, c.headers))
        if len(found) >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def assert_cited(blocks: list[dict[str, Any]]) -> None:
    """Every [n] marker in the answer text is a link to the URL listed as source [n]."""
    texts = section_texts(blocks)
    sources = next(t for t in texts if t.startswith(("*Sources*", "*Quellen*")))
    listed = dict(re.findall(r"\[(\d+)\] <(https://gpuserver\.io/[^|>]+)\|", sources))
    assert listed, sources
    body = "\n".join(t for t in texts if t is not sources)
    markers = re.findall(r"<(https://[^|>]+)\|\[(\d+)\]>", body)
    assert markers, body
    for url, n in markers:
        assert listed[n] == url


def prices(blocks: list[dict[str, Any]]) -> dict[str, str]:
    """Price table rows: configuration link text -> price cell."""
    cells = [f["text"] for b in blocks for f in b.get("fields") or []]
    return {
        re.sub(r"<[^|]+\|([^>]+)>", r"\1", cells[i]): cells[i + 1] for i in range(0, len(cells), 2)
    }


def sentinel_dm(server: LiveServer, stub: SlackStub) -> None:
    """A DM whose answer proves that everything sent before it has been processed."""
    channel = f"D0SENT{next(_ts)}"
    event(
        server,
        {
            "type": "message",
            "channel_type": "im",
            "channel": channel,
            "user": "U0ANNA",
            "text": "Was kostet 4 x A100 SXM4?",
            "ts": new_ts(),
        },
    )
    assert answers_in(stub, channel)
    time.sleep(0.3)


# --------------------------------------------------------------------------- signatures
def test_forged_and_stale_signatures_are_rejected(server: LiveServer, stub: SlackStub) -> None:
    forged = slash_command(server, stub, "Passt Llama 3.3 70B?", "forged", secret="not-the-secret")
    stale = slash_command(
        server, stub, "Passt Llama 3.3 70B?", "stale", timestamp=time.time() - 6 * 60
    )
    unsigned = httpx.post(
        f"{server.url}/slack/events",
        content="command=%2Fsizing&text=x",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert (forged.status_code, stale.status_code, unsigned.status_code) == (401, 401, 401)
    # a request signed 4 minutes ago is still inside Slack's 5-minute window
    fresh = slash_command(server, stub, "help", "fresh", timestamp=time.time() - 4 * 60)
    assert fresh.status_code == 200
    sentinel_dm(server, stub)
    assert not stub.calls_to("response_url")


def test_a_replayed_slash_command_is_answered_once(server: LiveServer, stub: SlackStub) -> None:
    """Issue 27: the same signed /sizing form posted 3 times within the 5-minute window."""
    form = {
        "team_id": TEAM_ID,
        "channel_id": "C0SUPPORT",
        "user_id": "U0ANNA",
        "command": "/sizing",
        "text": "What does 4 x A100 SXM4 cost per month?",
        "response_url": stub.response_url("cmd-replay"),
        "trigger_id": "555.666.replayed",
        "api_app_id": "A0SIZING",
    }
    body = urlencode(form)
    ts = int(time.time())
    replies = [
        post_slack(server, body, "application/x-www-form-urlencoded", timestamp=ts)
        for _ in range(3)
    ]
    assert [r.status_code for r in replies] == [200, 200, 200]
    assert "A100" in replies[0].json()["text"]  # the first is acknowledged ...
    assert [r.text for r in replies[1:]] == ["", ""]  # ... the replays only with an empty 200
    # a new command (its own trigger_id and timestamp) with the same text is answered
    again = urlencode({**form, "trigger_id": "555.666.new", "response_url": stub.response_url(
        "cmd-again")})  # fmt: skip
    assert post_slack(server, again, "application/x-www-form-urlencoded").status_code == 200
    stub.wait_for("response_url", path="/response/cmd-again")
    sentinel_dm(server, stub)
    assert len(stub.calls_to("response_url", path="/response/cmd-replay")) == 1


def test_a_slash_command_key_is_its_signed_request_over_http_and_its_trigger_in_socket_mode() -> (
    None
):
    """Socket Mode has no raw body: keying on it would make every later command a 'replay'."""
    from slack_bolt.request import BoltRequest

    from api.slack.bolt_app import _command_key

    one = {"command": "/sizing", "text": "a", "trigger_id": "1.1.a"}
    two = {"command": "/sizing", "text": "a", "trigger_id": "2.2.b"}
    socket = [_command_key(BoltRequest(mode="socket_mode", body=b), b) for b in (one, two)]
    assert socket[0] != socket[1] and None not in socket
    untriggered = {"command": "/sizing", "text": "a"}
    assert _command_key(BoltRequest(mode="socket_mode", body=untriggered), untriggered) is None
    raw = urlencode(one)
    headers = {"x-slack-request-timestamp": "1700000000"}
    same = [_command_key(BoltRequest(body=raw, headers=headers), one) for _ in range(2)]
    later = _command_key(BoltRequest(body=raw, headers={"x-slack-request-timestamp": "1"}), one)
    assert same[0] == same[1] != later


def test_url_verification_challenge(server: LiveServer) -> None:
    body = json.dumps(
        {
            "token": "x",
            "challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
            "type": "url_verification",
        }
    )
    response = post_slack(server, body, "application/json")
    assert response.status_code == 200
    assert "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" in response.text


# --------------------------------------------------------------------------- /sizing
def test_slash_command_acks_then_answers_ephemeral_with_prices_citations_and_buttons(
    server: LiveServer, stub: SlackStub
) -> None:
    response = slash_command(server, stub, NVLINK_DE, "cmd-nvlink")
    assert response.status_code == 200
    ack = response.json()
    assert ack["response_type"] == "ephemeral" and "Llama 3.3 70B" in ack["text"]

    call = stub.wait_for("response_url", path="/response/cmd-nvlink")[0]
    assert call.params["response_type"] == "ephemeral"
    blocks = call.blocks
    assert "Llama 3.3 70B" in section_texts(blocks)[0]  # the question, shown above the answer
    table = prices(blocks)
    assert any("A100 SXM4" in k and v.startswith("*$4,395*") for k, v in table.items()), table
    assert any("A100 PCIe" in k and v.startswith("*$4,157*") for k, v in table.items()), table
    assert "https://gpuserver.io/de/gpu/a100-sxm4" in json.dumps(blocks)
    assert_cited(blocks)
    ids = set(buttons(blocks))
    assert {"sizing_feedback_up", "sizing_feedback_down", "sizing_share"} <= ids
    assert "Quellen" in json.dumps(blocks, ensure_ascii=False)  # German question, German labels


def test_share_button_posts_the_answer_in_channel(server: LiveServer, stub: SlackStub) -> None:
    slash_command(server, stub, "What does 4 x A100 SXM4 cost per month?", "cmd-share")
    answer = stub.wait_for("response_url", path="/response/cmd-share")[0]
    share = buttons(answer.blocks)["sizing_share"]
    response = block_action(
        server,
        stub,
        {"action_id": "sizing_share", "value": share["value"]},
        "share-click",
        {
            "type": "message",
            "message_ts": "1700000000.000100",
            "channel_id": "C0SUPPORT",
            "is_ephemeral": True,
        },
    )
    assert response.status_code == 200
    posts = stub.wait_for("response_url", count=2, path="/response/share-click")
    shared, delete = posts[0].params, posts[1].params
    assert shared["response_type"] == "in_channel"
    assert "Shared by <@U0ANNA>" in json.dumps(shared["blocks"])
    assert "sizing_share" not in buttons(posts[0].blocks)  # no share button on the shared copy
    assert any(v.startswith("*$4,395*") for v in prices(posts[0].blocks).values())
    assert delete.get("delete_original") is True


def test_feedback_button_stores_feedback(
    server: LiveServer, stub: SlackStub, data_dir: Path
) -> None:
    slash_command(server, stub, "Does Llama 3.3 70B in BF16 fit on one H100?", "cmd-fb")
    answer = stub.wait_for("response_url", path="/response/cmd-fb")[0]
    down = buttons(answer.blocks)["sizing_feedback_down"]
    ref = json.loads(down["value"])
    block_action(
        server,
        stub,
        {"action_id": "sizing_feedback_down", "value": down["value"]},
        "fb-click",
        {
            "type": "message",
            "message_ts": "1700000000.000200",
            "channel_id": "C0SUPPORT",
            "is_ephemeral": True,
        },
    )
    thanks = stub.wait_for("response_url", path="/response/fb-click")[0]
    assert "👎" in thanks.params["text"]
    stored = FeedbackStore.open(data_dir).get(ref["s"], ref["m"])
    assert stored is not None
    assert (stored.rating, stored.source, stored.user) == (-1, "slack", "U0ANNA")
    # issue 26: the 👎 opens a form asking what was wrong; its answers are stored with the vote
    opened = stub.wait_for("views.open")[0]
    assert opened.params["trigger_id"] == "123.456.abc"
    view = (
        json.loads(opened.params["view"])
        if isinstance(opened.params["view"], str)
        else (opened.params["view"])
    )
    boxes = view["blocks"][0]["element"]
    assert [o["value"] for o in boxes["options"]] == [
        "wrong",
        "unclear",
        "too_long",
        "missed_question",
    ]
    values = {
        "why_reasons": {
            "reasons": {"type": "checkboxes", "selected_options": [{"value": "missed_question"}]}
        },
        "why_comment": {"comment": {"type": "plain_text_input", "value": "I asked about FP8"}},
    }
    assert view_submission(server, view, values).status_code == 200
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        stored = FeedbackStore.open(data_dir).get(ref["s"], ref["m"])
        if stored is not None and stored.reasons:
            break
        time.sleep(0.1)
    assert stored is not None and stored.reasons == ["missed_question"]
    assert stored.comment == "I asked about FP8" and stored.rating == -1


def test_empty_slash_command_shows_help(server: LiveServer, stub: SlackStub) -> None:
    response = slash_command(server, stub, "  ", "cmd-help")
    assert response.status_code == 200
    assert "/sizing" in response.json()["text"]
    sentinel_dm(server, stub)
    assert not stub.calls_to("response_url")


# --------------------------------------------------------------------------- mentions
def test_mention_in_thread_answers_in_thread_with_thread_as_context(
    server: LiveServer, stub: SlackStub
) -> None:
    root, other_bot, ts = new_ts(), new_ts(), new_ts()
    stub.threads[("C0SUPPORT", root)] = [
        {
            "type": "message",
            "user": "U0BEN",
            "text": "customer wants Llama 3.3 70B in BF16 on four cards, real traffic",
            "ts": root,
            "thread_ts": root,
        },
        {
            "type": "message",
            "subtype": "bot_message",
            "bot_id": "B0OTHER",
            "text": "Ticket #4711 created",
            "ts": other_bot,
            "thread_ts": root,
        },
        {
            "type": "message",
            "user": "U0ANNA",
            "text": f"<@{BOT_USER_ID}> do they need NVLink?",
            "ts": ts,
            "thread_ts": root,
        },
    ]
    response = event(
        server,
        {
            "type": "app_mention",
            "user": "U0ANNA",
            "channel": "C0SUPPORT",
            "text": f"<@{BOT_USER_ID}> do they need NVLink?",
            "ts": ts,
            "thread_ts": root,
        },
    )
    assert response.status_code == 200
    post = answers_in(stub, "C0SUPPORT")[0]
    assert post.params["thread_ts"] == root  # in the thread
    replies = stub.calls_to("conversations.replies")
    assert replies and replies[0].params["ts"] == root
    text = json.dumps(post.blocks, ensure_ascii=False)
    # the model and the four cards came from the thread, not from the question
    assert "Llama 3.3 70B" in text
    assert any(v.startswith("*$4,395*") for v in prices(post.blocks).values())
    # short first (issue 26): the summary here, the whole answer and its sources in the thread
    details = details_in(stub, "C0SUPPORT", root)
    assert len(details) == 1 and "sizing_feedback_up" not in buttons(details[0].blocks)
    assert_cited(post.blocks + details[0].blocks)
    assert "Ticket #4711" not in text


def test_top_level_mention_starts_a_thread(server: LiveServer, stub: SlackStub) -> None:
    ts = new_ts()
    event(
        server,
        {
            "type": "app_mention",
            "user": "U0ANNA",
            "channel": "C0TOP",
            "text": f"<@{BOT_USER_ID}> Does Llama 3.1 8B fit on one L4?",
            "ts": ts,
        },
    )
    post = answers_in(stub, "C0TOP")[0]
    assert post.params["thread_ts"] == ts
    assert not stub.calls_to("conversations.replies")  # nothing before it to read
    # short first (issue 26): the summary is also shown in the channel (the placeholder it
    # replaces was broadcast), the whole answer and its sources only in the thread
    placeholder = placeholders_in(stub, "C0TOP")[0]
    assert placeholder.params.get("reply_broadcast") is True
    summary = section_texts(post.blocks)
    lead = next(t for t in summary if t.startswith("*Yes*"))
    assert len(lead.split()) <= 60
    assert not any(t.startswith(("*Sources*", "*Quellen*")) for t in summary)
    details = details_in(stub, "C0TOP", ts)
    assert len(details) == 1 and details[0].params.get("reply_broadcast") is None
    shown = section_texts(details[0].blocks)
    assert any(t.startswith("*Sources*") for t in shown)
    assert "sizing_feedback_up" in buttons(post.blocks)  # the thumbs stay with the summary


def test_retries_and_duplicate_deliveries_are_answered_once(
    server: LiveServer, stub: SlackStub
) -> None:
    ts = new_ts()
    mention = {
        "type": "app_mention",
        "user": "U0ANNA",
        "channel": "C0DUP",
        "text": f"<@{BOT_USER_ID}> Does Mixtral 8x7B fit on 2 x L40S?",
        "ts": ts,
    }
    first = event(server, mention, event_id="EvDUP0001")
    retry = event(
        server,
        mention,
        event_id="EvDUP0001",
        headers={"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"},
    )
    again = event(
        server,
        mention,
        event_id="EvDUP0001",
        headers={"X-Slack-Retry-Num": "2", "X-Slack-Retry-Reason": "http_timeout"},
    )
    # the same message delivered as a second event type (different event id)
    as_message = event(
        server, {**mention, "type": "message", "channel_type": "channel"}, event_id="EvDUP0002"
    )
    assert {r.status_code for r in (first, retry, again, as_message)} == {200}
    assert answers_in(stub, "C0DUP")
    sentinel_dm(server, stub)
    assert len(answers_in(stub, "C0DUP")) == 1
    assert len(placeholders_in(stub, "C0DUP")) == 1  # one placeholder
    assert len(details_in(stub, "C0DUP", mention["ts"])) == 1  # and its details, once


def test_bot_messages_never_trigger_the_bot(server: LiveServer, stub: SlackStub) -> None:
    for inner in (
        {
            "type": "message",
            "channel_type": "im",
            "channel": "D0BOTS",
            "bot_id": "B0OTHER",
            "text": "Does Llama 3.3 70B fit on one H100?",
            "ts": new_ts(),
        },
        {
            "type": "message",
            "subtype": "bot_message",
            "channel_type": "im",
            "channel": "D0BOTS",
            "text": "Does Llama 3.3 70B fit on one H100?",
            "ts": new_ts(),
        },
        {
            "type": "message",
            "channel_type": "im",
            "channel": "D0BOTS",
            "user": BOT_USER_ID,
            "bot_id": BOT_ID,
            "text": "my own answer",
            "ts": new_ts(),
        },
        {
            "type": "app_mention",
            "channel": "C0BOTS",
            "bot_id": "B0OTHER",
            "user": "U0OTHERBOT",
            "text": f"<@{BOT_USER_ID}> Does Llama 3.3 70B fit on one H100?",
            "ts": new_ts(),
        },
    ):
        assert event(server, inner).status_code == 200
    sentinel_dm(server, stub)
    assert not stub.calls_to("chat.postMessage", channel="D0BOTS")
    assert not stub.calls_to("chat.postMessage", channel="C0BOTS")


# --------------------------------------------------------------------------- direct messages
def test_direct_message_is_answered_in_the_conversation(
    server: LiveServer, stub: SlackStub
) -> None:
    event(
        server,
        {
            "type": "message",
            "channel_type": "im",
            "channel": "D0ANNA",
            "user": "U0ANNA",
            "text": "What will 4 x A100 SXM4 cost?",
            "ts": new_ts(),
        },
    )
    post = answers_in(stub, "D0ANNA")[0]
    assert post.params.get("thread_ts") is None  # a DM is answered in the conversation itself
    assert any(v.startswith("*$4,395*") for v in prices(post.blocks).values())


def test_pasted_topology_is_diagnosed(server: LiveServer, stub: SlackStub) -> None:
    event(
        server,
        {
            "type": "message",
            "channel_type": "im",
            "channel": "D0TOPO",
            "user": "U0ANNA",
            "text": f"customer sent this, is it NVLink?\n{TOPO}",
            "ts": new_ts(),
        },
    )
    post = answers_in(stub, "D0TOPO")[0]
    text = " ".join(section_texts(post.blocks))
    assert "NVLink" in text and ("NV12" in text or "NVSwitch" in text or "4" in text)


def test_follow_up_button_in_a_thread_answers_in_the_thread(
    server: LiveServer, stub: SlackStub
) -> None:
    ts = new_ts()
    event(
        server,
        {
            "type": "app_mention",
            "user": "U0ANNA",
            "channel": "C0FOLLOW",
            "text": f"<@{BOT_USER_ID}> Does Llama 3.3 70B in BF16 fit on 4 x A100 SXM4?",
            "ts": ts,
        },
    )
    post = answers_in(stub, "C0FOLLOW")[0]
    follow = [b for k, b in buttons(post.blocks).items() if k.startswith("sizing_follow_up_")]
    if not follow:
        pytest.skip("this answer suggested no follow-up")
    block_action(
        server,
        stub,
        {"action_id": follow[0]["action_id"], "value": follow[0]["value"]},
        "follow-click",
        {
            "type": "message",
            "message_ts": post.params.get("ts", ts),
            "channel_id": "C0FOLLOW",
            "thread_ts": ts,
            "is_ephemeral": False,
        },
    )
    posts = answers_in(stub, "C0FOLLOW", count=2)
    assert len(posts) == 2 and posts[1].params["thread_ts"] == ts
    assert "<@U0ANNA>" in json.dumps(posts[1].blocks)


# --------------------------------------------------------------------------- Socket Mode
def test_socket_mode_answers_a_slash_command_without_an_http_endpoint(data_dir: Path) -> None:
    with SlackStub() as stub:
        stub.start_socket_mode()
        settings = make_settings(
            data_dir,
            slack_bot_token=BOT_TOKEN,
            slack_app_token=APP_TOKEN,
            slack_api_base_url=stub.base_url,
        )
        with slack_server(settings) as server:
            # no signing secret: no HTTP endpoint, everything arrives over the WebSocket
            assert httpx.post(f"{server.url}/slack/events", content="{}").status_code == 404
            stub.send_envelope(
                {
                    "envelope_id": "env-1",
                    "type": "slash_commands",
                    "accepts_response_payload": True,
                    "payload": {
                        "command": "/sizing",
                        "text": "What will 4 x A100 SXM4 cost?",
                        "team_id": TEAM_ID,
                        "channel_id": "C0SOCKET",
                        "user_id": "U0ANNA",
                        "response_url": stub.response_url("socket-cmd"),
                        "trigger_id": "1.2.3",
                    },
                }
            )
            ack = stub.wait_for_socket_ack("env-1")
            assert ack["payload"]["response_type"] == "ephemeral"
            call = stub.wait_for("response_url", path="/response/socket-cmd")[0]
            assert any(v.startswith("*$4,395*") for v in prices(call.blocks).values())
            assert "sizing_feedback_up" in buttons(call.blocks)


def test_too_long_questions_get_a_clear_message(server: LiveServer, stub: SlackStub) -> None:
    long_question = "Does Llama 3.3 70B fit? " + "x" * 2100
    response = slash_command(server, stub, long_question, "cmd-long")
    assert response.status_code == 200
    assert "too long" in response.json()["text"]
    event(
        server,
        {
            "type": "message",
            "channel_type": "im",
            "channel": "D0LONG",
            "user": "U0ANNA",
            "text": long_question,
            "ts": new_ts(),
        },
    )
    post = stub.wait_for("chat.postMessage", channel="D0LONG")[0]
    assert "too long" in post.params["text"] and "sizing_feedback_up" not in buttons(post.blocks)
    sentinel_dm(server, stub)
    assert not stub.calls_to("response_url", path="/response/cmd-long")


def test_button_on_a_long_channel_answer_is_accepted(
    server: LiveServer, stub: SlackStub, data_dir: Path
) -> None:
    """Slack sends the whole clicked message with a button click; a long answer makes that
    payload larger than the API's default body limit, which must not refuse it."""
    ts = new_ts()
    event(
        server,
        {
            "type": "app_mention",
            "user": "U0ANNA",
            "channel": "C0LONGMSG",
            "text": f"<@{BOT_USER_ID}> Brauche ich NVLink für Llama 3.3 70B in BF16 auf vier "
            "Karten für echten Traffic?",
            "ts": ts,
        },
    )
    post = answers_in(stub, "C0LONGMSG")[0]
    up = buttons(post.blocks)["sizing_feedback_up"]
    padding = [{"type": "section", "text": {"type": "mrkdwn", "text": "x" * 2900}}] * 12
    message = {
        "type": "message",
        "ts": ts,
        "bot_id": BOT_ID,
        "text": post.params["text"],
        "blocks": padding + post.blocks,
    }
    response = block_action(
        server,
        stub,
        {"action_id": "sizing_feedback_up", "value": up["value"]},
        "fb-long",
        {"type": "message", "message_ts": ts, "channel_id": "C0LONGMSG", "is_ephemeral": False},
        message=message,
    )
    assert response.status_code == 200
    stub.wait_for("response_url", path="/response/fb-long")
    ref = json.loads(up["value"])
    stored = FeedbackStore.open(data_dir).get(ref["s"], ref["m"])
    assert stored is not None and stored.rating == 1


# --------------------------------------------------------------------------- "Adjust"
SIZED = "Which node for Llama 3.3 70B in BF16, 60 users, 15 at once, budget $20,000 per month?"


def view_submission(server: LiveServer, view: dict[str, Any], values: dict[str, Any]) -> Any:
    """Submit a modal as Slack does (`view_submission`, the inputs' state by block and action)."""
    payload = {
        "type": "view_submission",
        "team": {"id": TEAM_ID, "domain": "stub"},
        "user": {"id": "U0ANNA", "username": "anna", "team_id": TEAM_ID},
        "api_app_id": "A0SIZING",
        "token": "legacy-unused",
        "trigger_id": "789.012.def",
        "view": {**view, "state": {"values": values}, "hash": "1700000000.abc"},
        "response_urls": [],
    }
    body = urlencode({"payload": json.dumps(payload)})
    return post_slack(server, body, "application/x-www-form-urlencoded")


def modal_state(view: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """The state Slack sends for `view` left as opened, with `changes` (by reading field: a
    select's option value, a list of values, or a number input's text; None empties it)."""
    values: dict[str, Any] = {}
    for block in view["blocks"]:
        if block["type"] != "input":
            continue
        element = block["element"]
        action, kind = element["action_id"], element["type"]
        changed = action in changes
        new = changes.get(action)
        if kind == "static_select":
            option = {"text": {"type": "plain_text", "text": str(new)}, "value": new}
            state = {"selected_option": option if changed else element.get("initial_option")}
        elif kind == "multi_static_select":
            chosen = [{"value": v} for v in new or []] if changed else None
            state = {"selected_options": chosen or element.get("initial_options") or []}
        else:
            state = {"value": new if changed else element.get("initial_value")}
        values[block["block_id"]] = {action: {"type": kind, **state}}
    return values


def initial_values(view: dict[str, Any]) -> dict[str, Any]:
    """What the modal shows, by reading field."""
    shown: dict[str, Any] = {}
    for block in view["blocks"]:
        if block["type"] != "input":
            continue
        element = block["element"]
        if element["type"] == "static_select":
            shown[element["action_id"]] = (element.get("initial_option") or {}).get("value")
        elif element["type"] == "multi_static_select":
            shown[element["action_id"]] = [o["value"] for o in element.get("initial_options", [])]
        else:
            shown[element["action_id"]] = element.get("initial_value")
    return shown


def stored(server: LiveServer, message_id: str) -> Any:
    answer = server.app.state.sizing.assistant.sessions.answer(message_id)
    assert answer is not None, message_id
    return answer


def understood(blocks: list[dict[str, Any]]) -> str:
    return next(b for b in blocks if b.get("block_id") == "sizing_understood")["elements"][0][
        "text"
    ]


def open_adjust(
    server: LiveServer, stub: SlackStub, channel: str, question: str
) -> tuple[Call, dict[str, Any]]:
    """Ask in a thread, click "Adjust" under the answer: the answer and the modal opened."""
    ts = new_ts()
    event(
        server,
        {
            "type": "app_mention",
            "user": "U0ANNA",
            "channel": channel,
            "text": f"<@{BOT_USER_ID}> {question}",
            "ts": ts,
        },
    )
    post = answers_in(stub, channel)[0]
    adjust = buttons(post.blocks)["sizing_adjust"]
    response = block_action(
        server,
        stub,
        {"action_id": "sizing_adjust", "value": adjust["value"]},
        f"adjust-{channel}",
        {"type": "message", "message_ts": ts, "channel_id": channel, "thread_ts": ts},
        message={"type": "message", "ts": ts, "thread_ts": ts, "text": post.params["text"]},
    )
    assert response.status_code == 200
    opened = stub.wait_for("views.open")[0]
    view = opened.params["view"]
    return post, json.loads(view) if isinstance(view, str) else view


def test_adjust_opens_a_modal_prefilled_from_the_answers_reading(
    server: LiveServer, stub: SlackStub
) -> None:
    post, view = open_adjust(server, stub, "C0ADJUST1", SIZED)
    ref = json.loads(buttons(post.blocks)["sizing_adjust"]["value"])
    reading = stored(server, ref["m"]).reading
    # the answer shows what it was sized for
    line = understood(post.blocks)
    assert "Llama 3.3 70B" in line and "BF16" in line and "15 at once of 60 users" in line
    assert stub.calls_to("views.open")[0].params["trigger_id"] == "123.456.abc"
    assert view["type"] == "modal" and view["callback_id"] == "sizing_adjust_view"
    meta = json.loads(view["private_metadata"])
    assert (meta["s"], meta["m"], meta["c"]) == (ref["s"], ref["m"], "C0ADJUST1")
    assert meta["t"] == post.params["thread_ts"]
    assert initial_values(view) == {
        "model": reading.model,
        "precision": reading.precision,
        "users": str(reading.users),
        "concurrent_sequences": str(reading.concurrent_sequences),
        "context_tokens": None,
        "configurations": [],
        "budget_usd_per_month": f"{reading.budget_usd_per_month:g}",
    }
    assert (reading.model, reading.precision, reading.users) == ("llama-3.3-70b", "bf16", 60)
    assert reading.concurrent_sequences == 15 and reading.budget_usd_per_month == 20000
    models = next(b for b in view["blocks"] if b.get("block_id") == "adjust_model")
    catalog = server.app.state.sizing.deps.catalog
    named = [m for m in catalog.models.values() if not getattr(m, "generic", False)]
    assert [o["value"] for o in models["element"]["options"]] == [m.id for m in named]


def test_adjust_submission_reanswers_in_the_thread_from_the_edited_reading(
    server: LiveServer, stub: SlackStub
) -> None:
    post, view = open_adjust(server, stub, "C0ADJUST2", SIZED)
    ref = json.loads(buttons(post.blocks)["sizing_adjust"]["value"])
    first = stored(server, ref["m"])
    response = view_submission(server, view, modal_state(view, precision="fp8"))
    assert response.status_code == 200 and not response.text  # the modal closes
    assert response.elapsed.total_seconds() < 3  # acked before the answer is computed
    again = answers_in(stub, "C0ADJUST2", count=2)
    assert len(again) == 2
    second = again[1]
    assert second.params["thread_ts"] == post.params["thread_ts"]  # in the same thread
    line = understood(second.blocks)
    assert "FP8" in line and "BF16" not in line and "15 at once of 60 users" in line
    assert "<@U0ANNA>" in json.dumps(second.blocks)  # who adjusted it
    new_ref = json.loads(buttons(second.blocks)["sizing_feedback_up"]["value"])
    assert new_ref["s"] == ref["s"] and new_ref["m"] != ref["m"]
    answer = stored(server, new_ref["m"])
    r = answer.reading
    # re-answered from the stored reading with only the precision changed (no re-parse)
    assert (r.reader, r.precision, r.model, r.users, r.concurrent_sequences) == (
        "user",
        "fp8",
        "llama-3.3-70b",
        60,
        15,
    )
    assert r.budget_usd_per_month == 20000 and r.text == first.reading.text
    assistant = server.app.state.sizing.assistant
    expected = assistant.answer_reading(
        first.reading.model_copy(update={"precision": "fp8", "precisions": ["fp8"]}), store=False
    )
    assert [(p.configuration, p.usd_per_month) for p in answer.prices] == [
        (p.configuration, p.usd_per_month) for p in expected.prices
    ]
    assert answer.prices and answer.prices[0].usd_per_month < first.prices[0].usd_per_month
    fit = [c for c in answer.tool_calls if c.arguments.get("precision")]
    assert fit and all(c.arguments["precision"] == "fp8" for c in fit)
    shown = prices(second.blocks)
    assert any(v.startswith(f"*${answer.prices[0].usd_per_month:,}*") for v in shown.values())


def test_adjust_submission_with_bad_values_returns_field_errors(
    server: LiveServer, stub: SlackStub
) -> None:
    _, view = open_adjust(server, stub, "C0ADJUST3", SIZED)
    cases = [
        ({"budget_usd_per_month": "-100"}, "adjust_budget_usd_per_month"),
        ({"users": "12.5"}, "adjust_users"),
        ({"context_tokens": "lots"}, "adjust_context_tokens"),
        ({"model": "no-such-model-zz"}, "adjust_model"),
        ({"precision": "fp9"}, "adjust_precision"),
        ({"configurations": ["3x-h100-sxm5"]}, "adjust_configurations"),
    ]
    for changes, block in cases:
        response = view_submission(server, view, modal_state(view, **changes))
        assert response.status_code == 200
        reply = response.json()
        assert reply["response_action"] == "errors", changes
        assert list(reply["errors"]) == [block] and reply["errors"][block], reply
    sentinel_dm(server, stub)
    assert len(answers_in(stub, "C0ADJUST3")) == 1  # nothing was answered again


def test_adjust_on_an_ephemeral_answer_reanswers_through_its_response_url(
    server: LiveServer, stub: SlackStub
) -> None:
    slash_command(server, stub, SIZED, "cmd-adjust")
    answer = stub.wait_for("response_url", path="/response/cmd-adjust")[0]
    assert "BF16" in understood(answer.blocks)
    adjust = buttons(answer.blocks)["sizing_adjust"]
    block_action(
        server,
        stub,
        {"action_id": "sizing_adjust", "value": adjust["value"]},
        "adjust-click",
        {"type": "message", "message_ts": "1", "channel_id": "C0SUPPORT", "is_ephemeral": True},
    )
    raw = stub.wait_for("views.open")[0].params["view"]
    view = json.loads(raw) if isinstance(raw, str) else raw
    assert json.loads(view["private_metadata"])["r"] == stub.response_url("adjust-click")
    response = view_submission(server, view, modal_state(view, users="120"))
    assert response.status_code == 200
    posted = stub.wait_for("response_url", path="/response/adjust-click")[0]
    assert posted.params["response_type"] == "ephemeral"
    line = understood(posted.blocks)
    assert "120 users" in line and "60 users" not in line
    ref = json.loads(buttons(posted.blocks)["sizing_feedback_up"]["value"])
    r = stored(server, ref["m"]).reading
    assert (r.users, r.reader, r.precision) == (120, "user", "bf16")
    assert r.concurrent_sequences is not None and r.concurrent_sequences < 120


def test_a_choice_button_reanswers_with_its_reading_in_the_thread(
    server: LiveServer, stub: SlackStub
) -> None:
    """No model named for a load: the answer sizes a starting point and offers the other
    proposals as buttons; a click re-answers the session's question with that model."""
    channel, ts = "C0CHOICE1", new_ts()
    event(
        server,
        {
            "type": "app_mention",
            "user": "U0ANNA",
            "channel": channel,
            "text": f"<@{BOT_USER_ID}> Customer wants a chatbot for 50 employees, what then?",
            "ts": ts,
        },
    )
    post = answers_in(stub, channel)[0]
    choices = {k: v for k, v in buttons(post.blocks).items() if k.startswith("sizing_choice_")}
    assert len(choices) >= 2
    pick = choices["sizing_choice_0"]
    ref = json.loads(pick["value"])
    response = block_action(
        server,
        stub,
        {"action_id": "sizing_choice_0", "value": pick["value"]},
        f"choice-{channel}",
        {"type": "message", "message_ts": ts, "channel_id": channel, "thread_ts": ts},
    )
    assert response.status_code == 200
    again = answers_in(stub, channel, count=2)
    assert len(again) == 2 and again[1].params["thread_ts"] == ts
    new_ref = json.loads(buttons(again[1].blocks)["sizing_feedback_up"]["value"])
    answer = stored(server, new_ref["m"])
    assert answer.reading.model == ref["e"]["model"] and answer.reading.reader == "user"
    assert answer.reading.users == 50
    assert "<@U0ANNA>" in json.dumps(again[1].blocks)
