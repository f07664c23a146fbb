"""Mounting the Slack bot: enabled only with complete settings, disabled cleanly (one log line)
otherwise, never crashing the API; the manifest in docs/ matches what the code listens to."""

import logging
from pathlib import Path

import pytest
import yaml
from fastapi import FastAPI

from api.slack import EVENTS_PATH, mount_slack
from api.slack.bolt_app import COMMAND
from assistant.settings import Settings
from tests.slack_stub import BOT_TOKEN, SlackStub

ROOT = Path(__file__).resolve().parent.parent


def _routes(app: FastAPI) -> set[str]:
    return {getattr(r, "path", "") for r in app.routes}


def _slack_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "sizing.slack"]


def test_disabled_without_slack_settings_with_one_log_line(
    caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    app = FastAPI()
    with caplog.at_level(logging.INFO, logger="sizing.slack"):
        assert mount_slack(app, None, None, Settings(data_dir=tmp_path)) is None
    records = _slack_records(caplog)
    assert len(records) == 1 and records[0].getMessage().startswith("Slack disabled")
    assert EVENTS_PATH not in _routes(app)
    assert app.state.slack is None


@pytest.mark.parametrize(
    ("env", "missing"),
    [
        ({"SLACK_SIGNING_SECRET": "s"}, "SLACK_BOT_TOKEN"),
        ({"SLACK_BOT_TOKEN": BOT_TOKEN}, "SLACK_SIGNING_SECRET"),
    ],
)
def test_incomplete_settings_name_what_is_missing(
    caplog: pytest.LogCaptureFixture, tmp_path: Path, env: dict[str, str], missing: str
) -> None:
    app = FastAPI()
    with caplog.at_level(logging.INFO, logger="sizing.slack"):
        assert mount_slack(app, None, None, Settings(data_dir=tmp_path, **env)) is None
    records = _slack_records(caplog)
    assert len(records) == 1 and missing in records[0].getMessage()
    assert EVENTS_PATH not in _routes(app)


def test_rejected_token_disables_slack_without_crashing(
    caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    with SlackStub(token="xoxb-the-real-one") as stub:  # answers invalid_auth to our token
        settings = Settings(
            data_dir=tmp_path,
            SLACK_BOT_TOKEN=BOT_TOKEN,
            SLACK_SIGNING_SECRET="secret",
            slack_api_base_url=stub.base_url,
        )
        app = FastAPI()
        with caplog.at_level(logging.INFO, logger="sizing.slack"):
            assert mount_slack(app, None, None, settings) is None
        assert [c.method for c in stub.calls] == ["auth.test"]
    records = _slack_records(caplog)
    assert len(records) == 1 and "invalid_auth" in records[0].getMessage()
    assert EVENTS_PATH not in _routes(app)


def test_http_mode_mounts_the_events_route(tmp_path: Path) -> None:
    with SlackStub() as stub:
        settings = Settings(
            data_dir=tmp_path,
            SLACK_BOT_TOKEN=BOT_TOKEN,
            SLACK_SIGNING_SECRET="secret",
            slack_api_base_url=stub.base_url,
        )
        app = FastAPI()
        integration = mount_slack(app, None, None, settings)
        assert integration is not None and integration.http and integration.socket_mode is None
        assert EVENTS_PATH in _routes(app)
        assert app.state.slack is integration


def test_manifest_matches_the_bot() -> None:
    manifest = yaml.safe_load((ROOT / "docs" / "slack-manifest.yaml").read_text())
    commands = manifest["features"]["slash_commands"]
    assert [c["command"] for c in commands] == [COMMAND]
    settings = manifest["settings"]
    assert set(settings["event_subscriptions"]["bot_events"]) == {"app_mention", "message.im"}
    assert settings["interactivity"]["is_enabled"] is True
    urls = [
        commands[0]["url"],
        settings["event_subscriptions"]["request_url"],
        settings["interactivity"]["request_url"],
    ]
    assert all(url.endswith(EVENTS_PATH) for url in urls)
    scopes = set(manifest["oauth_config"]["scopes"]["bot"])
    # events, chat.postMessage, the slash command, DMs and conversations.replies in channels
    assert {
        "app_mentions:read",
        "chat:write",
        "commands",
        "im:history",
        "channels:history",
        "groups:history",
    } <= scopes


def test_thread_context_keeps_the_opening_then_the_most_recent_within_the_budget() -> None:
    from api.slack.conversation import pick_context

    recent = ["old " * 100, "budget is $12,000 a month", "which node?"]
    assert pick_context(recent, "customer email: Qwen2.5 72B", 1000) == [
        "customer email: Qwen2.5 72B",
        *recent,
    ]
    # over budget: the oldest of the recent messages go first; the opening always stays
    assert pick_context(recent, "customer email: Qwen2.5 72B", 60) == [
        "customer email: Qwen2.5 72B",
        "budget is $12,000 a month",
        "which node?",
    ]
    assert pick_context([], None, 100) == []
