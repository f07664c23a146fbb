"""The Slack bot for support staff, as part of the API service.

    mount_slack(app, deps, assistant, settings) -> SlackIntegration | None

- SLACK_BOT_TOKEN + SLACK_SIGNING_SECRET: HTTP mode, Slack posts to `POST /slack/events`
  (slash command, events and interactivity all use this one URL).
- SLACK_BOT_TOKEN + SLACK_APP_TOKEN: Socket Mode (no public URL needed); started in the background.
- neither: disabled, with one log line.

See docs/slack.md for creating the Slack app from docs/slack-manifest.yaml.
"""

import inspect
import logging
from dataclasses import dataclass
from typing import Any

from fastapi import Request
from slack_bolt.adapter.starlette.handler import to_bolt_request, to_starlette_response
from slack_bolt.request.internals import parse_body
from slack_sdk import WebClient
from slack_sdk.signature import SignatureVerifier
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse, Response

from api.fairness import current_client
from api.slack.bolt_app import SlackBot
from api.slack.conversation import Prompt
from api.slack.socket_mode import SocketModeRunner
from assistant.answer import Answer, ProgressEvent
from assistant.errors import InvalidRequest
from assistant.offer import for_staff, with_offer
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


def make_ask(assistant: Any, metrics: Any = None, max_chars: int = 2000) -> Any:
    """The bot's `ask(prompt, session_id, progress)` over `Assistant.ask`; answers (and
    failures) are counted in the API's metrics with surface="slack" when given.

    The Slack surface has checked the parts of the prompt itself (question ≤ `max_chars`,
    pasted material ≤ `max_pasted_chars`), so the assistant may read the whole prompt. In LLM
    mode `Assistant.ask` reports each tool call (`progress=`, ProgressEvent): the bot gets the
    note of each tool that starts ("checking 41 configurations…") as `progress(text)`."""
    takes_progress = _takes(getattr(assistant, "ask", None), "progress")

    def ask(prompt: Prompt, session_id: str, progress: Any = None) -> Answer:
        options: dict[str, Any] = {
            "session_id": session_id,
            "language": prompt.language,
            "max_chars": max(len(prompt.text), max_chars),
        }
        if takes_progress and progress is not None:
            options["progress"] = _tool_notes(progress)
        # the embedder's cost accounting (api.fairness): a Slack conversation is one client;
        # over its budget its guide searches are by keywords only (a Slack answer is not refused)
        token = current_client.set(f"slack:{session_id}")
        try:
            answer: Answer = assistant.ask(prompt.text, **options)
        except Exception:
            if metrics is not None:
                metrics.errors.labels(surface="slack").inc()
            raise
        finally:
            current_client.reset(token)
        if metrics is not None:
            metrics.record_answer(answer, "slack")
        answer = for_staff(answer)  # staff read it: what to check, what to tell the customer
        deps = getattr(assistant, "deps", None)
        if prompt.offer and deps is not None:  # a customer's requirements: an offer
            answer = with_offer(deps, answer, prompt.customer_language)
        if prompt.question and answer.question != prompt.question:
            # show the question that was asked, not the thread and paste around it
            answer = answer.model_copy(update={"question": prompt.question})
        return answer

    return ask


def make_reanswer(assistant: Any, metrics: Any = None) -> Any:
    """The bot's `reanswer(session_id, edits)` over `Assistant.reanswer` (the "Adjust" modal:
    the session's last question answered again from its reading with `edits` applied, no text
    parsed); counted like `make_ask`'s answers. None when the assistant cannot re-answer."""
    if not callable(getattr(assistant, "reanswer", None)):
        return None

    def reanswer(session_id: str, edits: dict[str, Any]) -> Answer:
        token = current_client.set(f"slack:{session_id}")
        try:
            answer: Answer = assistant.reanswer(session_id, edits)
        except InvalidRequest:
            raise  # the user's edit or an expired session: said in Slack, not an error
        except Exception:
            if metrics is not None:
                metrics.errors.labels(surface="slack").inc()
            raise
        finally:
            current_client.reset(token)
        if metrics is not None:
            metrics.record_answer(answer, "slack")
        return answer

    return reanswer


def _tool_notes(progress: Any) -> Any:
    """The assistant's ProgressEvents as the bot's text notes: one per tool that starts (a
    finished tool is followed by the next one or by the answer, which replaces the note)."""

    def on_event(event: Any) -> None:
        if isinstance(event, ProgressEvent):
            if event.stage == "started":
                progress(event.message)
        elif event:
            progress(str(event))

    return on_event


def _takes(function: Any, parameter: str) -> bool:
    try:
        return parameter in inspect.signature(function).parameters
    except (TypeError, ValueError):  # None, or a builtin without a signature
        return False


def describe_slots(slots: Any, catalog: Any) -> str | None:
    """ "Llama 3.3 70B, FP8, 4 × NVIDIA H100 SXM5": what a session carries into the next turn."""
    parts: list[str] = []
    model = getattr(slots, "model", None)
    if model:
        spec = catalog.models.get(model) if catalog is not None else None
        parts.append(spec.name if spec is not None else model)
    elif getattr(slots, "unknown_model", None):
        parts.append(str(slots.unknown_model))
    elif getattr(slots, "params_b", None):
        parts.append(f"{slots.params_b:g}B")
    if getattr(slots, "precision", None):
        parts.append(str(slots.precision).upper())
    configs = list(getattr(slots, "configurations", []) or [])
    if configs and catalog is not None and configs[0] in catalog.configurations:
        parts.append(catalog.configurations[configs[0]].label)
    return ", ".join(parts) or None


def _session_describer(deps: Any, settings: Settings) -> Any:
    sessions = getattr(deps, "sessions", None)
    if sessions is None or not hasattr(sessions, "get"):
        return None
    catalog = getattr(deps, "catalog", None)

    def describe(session_id: str) -> str | None:
        session = sessions.get(session_id, max_turns=1)
        if session is None or not session.turns:
            return None
        return describe_slots(session.slots, catalog)

    return describe


def _last_answer(deps: Any) -> Any:
    """A session's last answer (the reading `reanswer` edits), or None."""
    sessions = getattr(deps, "sessions", None)
    if sessions is None or not hasattr(sessions, "get") or not hasattr(sessions, "answer"):
        return None

    def last(session_id: str) -> Answer | None:
        session = sessions.get(session_id, max_turns=1)
        if session is None or not session.turns:
            return None
        answer: Answer | None = sessions.answer(session.turns[-1].message_id)
        return answer

    return last


def _feedback_recorder(settings: Settings) -> Any:
    try:
        from store.feedback import FeedbackStore

        return FeedbackStore.from_settings(settings).record
    except Exception as error:
        log.warning("slack: feedback buttons cannot store votes: %s", error)
        return None


def _answer_lookup(deps: Any, settings: Settings) -> Any:
    sessions = getattr(deps, "sessions", None)
    if sessions is not None and hasattr(sessions, "answer"):
        return sessions.answer
    try:
        from assistant.sessions import SessionStore

        return SessionStore.from_settings(settings).answer
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
            describe_session=_session_describer(deps, settings),
            reanswer=make_reanswer(assistant, metrics),
            last_answer=_last_answer(deps),
            catalog=getattr(deps, "catalog", None),
        )
    except Exception as error:  # auth.test failed: bad token, Slack unreachable
        log.error("Slack disabled: the bot token was not accepted (%s)", error)
        return None


def check_request(verifier: SignatureVerifier, body: bytes, headers: Any) -> Response | None:
    """A clean 401/400 for what Bolt would turn into a 500: a timestamp that is not a number,
    and (once the signature is valid) a body that is not UTF-8, not JSON where JSON is due, a
    garbage `payload` form field, or JSON that is not an object. None: hand it to Bolt."""
    timestamp = headers.get("x-slack-request-timestamp") or ""
    signature = headers.get("x-slack-signature") or ""
    if not timestamp.strip().isdigit():
        return JSONResponse({"error": "invalid or missing X-Slack-Request-Timestamp"}, 401)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return JSONResponse({"error": "the body is not UTF-8"}, 400)
    if not verifier.is_valid(body=text, timestamp=timestamp.strip(), signature=signature):
        return JSONResponse({"error": "invalid signature"}, 401)
    try:
        parsed = parse_body(text, headers.get("content-type"))
    except ValueError:
        return JSONResponse({"error": "the body is not a valid Slack request"}, 400)
    if not isinstance(parsed, dict):
        return JSONResponse({"error": "the body is not a valid Slack request"}, 400)
    return None


def _events_endpoint(bot: SlackBot, signing_secret: str) -> Any:
    verifier = SignatureVerifier(signing_secret)

    async def slack_events(request: Request) -> Response:
        """Slack's Events API, slash command and interactivity requests (signed)."""
        body = await request.body()
        if refused := check_request(verifier, body, request.headers):
            return refused
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
    secret = settings.slack_signing_secret
    if integration.http and secret is not None:
        app.add_api_route(
            EVENTS_PATH,
            _events_endpoint(bot, secret.get_secret_value()),
            methods=["POST"],
            include_in_schema=False,
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


__all__ = [
    "EVENTS_PATH",
    "SlackIntegration",
    "build_slack_bot",
    "describe_slots",
    "make_ask",
    "make_reanswer",
    "mount_slack",
]
