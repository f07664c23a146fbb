"""The Slack bot for support staff, as part of the API service.

    mount_slack(app, deps, assistant, settings) -> SlackIntegration | None

- SLACK_BOT_TOKEN + SLACK_SIGNING_SECRET: HTTP mode, Slack posts to `POST /slack/events`
  (slash command, events and interactivity all use this one URL).
- SLACK_BOT_TOKEN + SLACK_APP_TOKEN: Socket Mode (no public URL needed); started in the background.
- neither: disabled, with one log line.

See docs/slack.md for creating the Slack app from docs/slack-manifest.yaml.
"""

import logging
from dataclasses import dataclass
from typing import Any

from fastapi import Request
from slack_bolt.adapter.starlette.handler import to_bolt_request, to_starlette_response
from slack_sdk import WebClient
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from api.slack.bolt_app import SlackBot
from api.slack.socket_mode import SocketModeRunner
from assistant.answer import Answer
from assistant.settings import Settings

log = logging.getLogger("sizing.slack")

EVENTS_PATH = "/slack/events"
WEB_API_TIMEOUT_S = 10


@dataclass
class SlackIntegration:
    bot: SlackBot
    http: bool
    socket_mode: SocketModeRunner | None = None

    def close(self) -> None:
        if self.socket_mode is not None:
            self.socket_mode.close()
            self.socket_mode = None


def with_context(question: str, context: list[str], max_chars: int) -> str:
    """The question as the assistant sees it: the thread's earlier messages first, the question
    last (so "which node?" after "customer wants Mixtral 8x7B for 20 users" is understood).
    The oldest messages are dropped first to stay within the assistant's question limit."""
    kept: list[str] = []
    used = len(question) + 2
    for message in reversed(context):
        if used + len(message) + 1 > max_chars:
            break
        kept.insert(0, message)
        used += len(message) + 1
    if not kept:
        return question
    return "\n".join(kept) + "\n\n" + question


def make_ask(assistant: Any, metrics: Any = None, max_chars: int = 2000) -> Any:
    """The bot's `ask(question, session_id, context)` over `Assistant.ask`; answers (and
    failures) are counted in the API's metrics with surface="slack" when given."""

    def ask(question: str, session_id: str, context: list[str]) -> Answer:
        try:
            answer: Answer = assistant.ask(
                with_context(question, context, max_chars), session_id=session_id
            )
        except Exception:
            if metrics is not None:
                metrics.errors.labels(surface="slack").inc()
            raise
        if metrics is not None:
            metrics.record_answer(answer, "slack")
        if context:  # show the question that was asked, not the thread around it
            answer = answer.model_copy(update={"question": question})
        return answer

    return ask


def _feedback_recorder(settings: Settings) -> Any:
    try:
        from assistant.feedback import FeedbackStore

        return FeedbackStore.open(settings.data_dir).record
    except Exception as error:
        log.warning("slack: feedback buttons cannot store votes: %s", error)
        return None


def _answer_lookup(deps: Any, settings: Settings) -> Any:
    sessions = getattr(deps, "sessions", None)
    if sessions is not None and hasattr(sessions, "answer"):
        return sessions.answer
    try:
        from assistant.sessions import SessionStore

        return SessionStore.in_data_dir(settings.data_dir).answer
    except Exception as error:
        log.warning("slack: stored answers cannot be looked up: %s", error)
        return None


def build_slack_bot(
    deps: Any, assistant: Any, settings: Settings, metrics: Any = None
) -> SlackBot | None:
    """The Bolt app over the assistant, or None (logged) when Slack is not configured or its
    token is rejected."""
    if settings.slack_bot_token is None:
        configured = [
            name
            for name, value in (
                ("SLACK_SIGNING_SECRET", settings.slack_signing_secret),
                ("SLACK_APP_TOKEN", settings.slack_app_token),
            )
            if value is not None
        ]
        if configured:
            log.warning("Slack disabled: %s set but SLACK_BOT_TOKEN missing", ", ".join(configured))
        else:
            log.info("Slack disabled: no SLACK_BOT_TOKEN (see docs/slack.md)")
        return None
    if settings.slack_signing_secret is None and settings.slack_app_token is None:
        log.warning(
            "Slack disabled: SLACK_BOT_TOKEN set but neither SLACK_SIGNING_SECRET (HTTP mode) "
            "nor SLACK_APP_TOKEN (Socket Mode)"
        )
        return None
    client = WebClient(
        token=settings.slack_bot_token.get_secret_value(),
        base_url=settings.slack_api_base_url,
        timeout=WEB_API_TIMEOUT_S,
    )
    try:
        return SlackBot(
            settings,
            make_ask(assistant, metrics, settings.max_question_chars),
            _feedback_recorder(settings),
            client,
            lookup_answer=_answer_lookup(deps, settings),
        )
    except Exception as error:  # auth.test failed: bad token, Slack unreachable
        log.error("Slack disabled: the bot token was not accepted (%s)", error)
        return None


def _events_endpoint(bot: SlackBot) -> Any:
    async def slack_events(request: Request) -> Response:
        """Slack's Events API, slash command and interactivity requests (signed)."""
        body = await request.body()
        # Bolt is synchronous: dispatch in a worker thread, never on the event loop
        bolt_response = await run_in_threadpool(bot.app.dispatch, to_bolt_request(request, body))
        return to_starlette_response(bolt_response)

    return slack_events


def mount_slack(app: Any, deps: Any, assistant: Any, settings: Settings) -> SlackIntegration | None:
    """Add `POST /slack/events` to the FastAPI app (HTTP mode) and/or start Socket Mode.
    Returns the integration (also at `app.state.slack`; call `.close()` on shutdown) or None."""
    api_state = getattr(app.state, "sizing", None)  # the API's AppState, if mounted there
    bot = build_slack_bot(deps, assistant, settings, getattr(api_state, "metrics", None))
    app.state.slack = None
    if bot is None:
        return None
    integration = SlackIntegration(bot=bot, http=settings.slack_signing_secret is not None)
    if integration.http:
        app.add_api_route(
            EVENTS_PATH, _events_endpoint(bot), methods=["POST"], include_in_schema=False
        )
    if settings.slack_app_token is not None:
        integration.socket_mode = SocketModeRunner(
            bot.app, settings.slack_app_token.get_secret_value(), bot.app.client
        )
        integration.socket_mode.start()
    modes = [
        m
        for m, on in (
            ("HTTP at " + EVENTS_PATH, integration.http),
            ("Socket Mode", integration.socket_mode is not None),
        )
        if on
    ]
    log.info("Slack enabled: %s", " and ".join(modes))
    app.state.slack = integration
    return integration


__all__ = ["EVENTS_PATH", "SlackIntegration", "build_slack_bot", "mount_slack"]
