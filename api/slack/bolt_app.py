"""The Bolt app: `/sizing` slash command, @mentions (answered in the thread, with the thread as
context), direct messages, and the buttons (👍/👎 feedback, share in channel, follow-ups).

Every listener acknowledges at once and answers in a lazy listener (a worker thread), so Slack
gets its 200 well within 3 seconds however long the answer takes. The answer is the one
`Answer` type, rendered by `api.slack.blocks`.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Protocol

from slack_bolt import App, BoltResponse
from slack_bolt.request import BoltRequest
from slack_sdk import WebClient

from api.slack.blocks import (
    ACTION_FEEDBACK_DOWN,
    ACTION_FEEDBACK_UP,
    ACTION_SHARE,
    FOLLOW_UP_ACTION,
    answer_messages,
    notice_message,
)
from api.slack.dedupe import Deduplicator
from api.slack.mrkdwn import escape, from_slack
from assistant.answer import Answer
from assistant.settings import Settings

log = logging.getLogger("sizing.slack")

COMMAND = "/sizing"


class AskFn(Protocol):
    def __call__(self, question: str, session_id: str, context: list[str]) -> Answer:
        """Answer `question` in session `session_id`; `context` holds earlier messages of the
        Slack thread (oldest first) that the assistant has not seen yet."""
        ...


RecordFeedbackFn = Callable[..., Any]

_TEXTS = {
    "en": {
        "help": (
            "*Ask the gpuserver.io sizing assistant*\n"
            "• `/sizing Does Llama 3.3 70B in BF16 fit on 4 x A100?` (only you see the answer;"
            " *Share in channel* posts it)\n"
            "• mention me in a channel: I answer in the thread and read the thread as context\n"
            "• send me a direct message\n"
            "• paste `nvidia-smi topo -m` output and I diagnose the topology"
        ),
        "working": "⏳ Working on it: _{question}_",
        "too_long": "That question is too long ({n} characters; at most {limit}).",
        "failed": "Sorry, I could not answer that just now. Please try again in a moment.",
        "thanks_up": "Thanks for the 👍, it is recorded.",
        "thanks_down": "Thanks for the 👎, it is recorded. What was wrong helps us most: reply in"
        " the thread or tell the docs team.",
        "feedback_failed": "Sorry, your feedback could not be stored.",
        "share_gone": "This answer is no longer available to share. Ask again with `/sizing`.",
        "asked_by": "<@{user}> asked: _{question}_",
    },
    "de": {
        "help": (
            "*Frag den Dimensionierungs-Assistenten von gpuserver.io*\n"
            "• `/sizing Passt Llama 3.3 70B in BF16 auf 4 x A100?` (nur du siehst die Antwort;"
            " *Im Kanal teilen* postet sie)\n"
            "• erwähne mich in einem Kanal: ich antworte im Thread (der Thread ist Kontext)\n"
            "• schick mir eine Direktnachricht\n"
            "• füge eine Ausgabe von `nvidia-smi topo -m` ein und ich werte die Topologie aus"
        ),
        "working": "⏳ Einen Moment: _{question}_",
        "too_long": "Die Frage ist zu lang ({n} Zeichen; höchstens {limit}). Bitte kürzen.",
        "failed": "Entschuldigung, das konnte ich gerade nicht beantworten. Bitte gleich nochmal.",
        "thanks_up": "Danke für das 👍, ist gespeichert.",
        "thanks_down": "Danke für das 👎, ist gespeichert. Was falsch war, hilft uns am meisten:"
        " antworte im Thread oder sag dem Docs-Team Bescheid.",
        "feedback_failed": "Entschuldigung, das Feedback konnte nicht gespeichert werden.",
        "share_gone": "Diese Antwort kann nicht mehr geteilt werden. Frag bitte neu mit `/sizing`.",
        "asked_by": "<@{user}> fragte: _{question}_",
    },
}

_GERMAN = re.compile(
    r"[äöüß]|\b(ich|wir|brauche|brauchen|passt|welche[rsn]?|wie ?viel|kostet|karten?|"
    r"und|oder|nicht|mit|auf|für|der|die|das|ist|hilfe)\b",
    re.I,
)


def guess_language(text: str) -> str:
    """A quick guess for the bot's own short messages (the assistant detects the answer's)."""
    return "de" if len(_GERMAN.findall(text)) >= 2 or re.search(r"[äöüß]", text) else "en"


def texts(language: str) -> dict[str, str]:
    return _TEXTS.get(language, _TEXTS["en"])


def is_from_bot(event: dict[str, Any], bot_user_id: str | None = None) -> bool:
    """Messages written by any bot (including this one) never trigger an answer."""
    return bool(
        event.get("bot_id")
        or event.get("bot_profile")
        or event.get("subtype") == "bot_message"
        or (bot_user_id and event.get("user") == bot_user_id)
    )


def _session_part(value: str | None) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", value or "_")


def thread_session_id(team: str | None, channel: str, thread_ts: str) -> str:
    """One assistant session per Slack thread."""
    return "slack-" + "-".join(_session_part(p) for p in (team, channel, thread_ts))


def command_session_id(team: str | None, channel: str, user: str) -> str:
    """`/sizing` in a channel: one session per user and channel, so follow-ups work."""
    return "slack-" + "-".join(_session_part(p) for p in (team, channel, "cmd", user))


class AnswerCache:
    """Recent answers by message id, for the "Share in channel" button of ephemeral answers
    (Slack does not send an ephemeral message's content back with the button click)."""

    def __init__(self, max_entries: int = 2000) -> None:
        self._items: OrderedDict[str, Answer] = OrderedDict()
        self._max = max_entries
        self._lock = threading.Lock()

    def put(self, answer: Answer) -> None:
        with self._lock:
            self._items[answer.message_id] = answer
            self._items.move_to_end(answer.message_id)
            while len(self._items) > self._max:
                self._items.popitem(last=False)

    def get(self, message_id: str) -> Answer | None:
        with self._lock:
            return self._items.get(message_id)


class SlackBot:
    """The Bolt `App` with its listeners, and the state they share (dedupe, answer cache)."""

    def __init__(
        self,
        settings: Settings,
        ask: AskFn,
        record_feedback: RecordFeedbackFn | None,
        client: WebClient,
        *,
        lookup_answer: Callable[[str], Answer | None] | None = None,
        token_verification: bool = True,
    ) -> None:
        self.settings = settings
        self.lookup_answer = lookup_answer
        self.ask = ask
        self.record_feedback = record_feedback
        self.events = Deduplicator()
        self.answers = AnswerCache()
        secret = settings.slack_signing_secret
        self.app = App(
            client=client,
            signing_secret=secret.get_secret_value() if secret else "",
            process_before_response=False,
            token_verification_enabled=token_verification,
            logger=logging.getLogger("sizing.slack.bolt"),
            name="sizing",
        )
        self._register()

    # ------------------------------------------------------------------ registration
    def _register(self) -> None:
        app = self.app
        app.middleware(self._dedupe_events)
        app.command(COMMAND)(ack=self._ack_command, lazy=[self._answer_command])
        app.event("app_mention")(ack=_ack, lazy=[self._answer_mention])
        app.event("message")(ack=_ack, lazy=[self._answer_direct_message])
        app.action(ACTION_FEEDBACK_UP)(ack=_ack, lazy=[self._feedback])
        app.action(ACTION_FEEDBACK_DOWN)(ack=_ack, lazy=[self._feedback])
        app.action(ACTION_SHARE)(ack=_ack, lazy=[self._share])
        app.action(FOLLOW_UP_ACTION)(ack=_ack, lazy=[self._follow_up])
        app.error(self._on_error)

    # ------------------------------------------------------------------ middleware
    def _dedupe_events(
        self, req: BoltRequest, body: dict[str, Any], next: Callable[[], None]
    ) -> BoltResponse | None:
        """Ack duplicate deliveries of an event (Slack retries, X-Slack-Retry-Num) without
        running the listeners again."""
        if not req.lazy_only and body.get("type") == "event_callback":
            event_id = body.get("event_id")
            if event_id and not self.events.first_time(f"event:{event_id}"):
                retry = (req.headers.get("x-slack-retry-num") or ["0"])[0]
                reason = (req.headers.get("x-slack-retry-reason") or [""])[0]
                log.info("slack: duplicate event %s ignored (retry %s %s)", event_id, retry, reason)
                return BoltResponse(status=200, body="")
        next()
        return None

    def _on_error(self, error: Exception, body: dict[str, Any]) -> None:
        log.error("slack: listener failed: %s", error, exc_info=error)

    # ------------------------------------------------------------------ helpers
    def _ask_safely(
        self, question: str, session_id: str, context: list[str] | None = None
    ) -> Answer | None:
        try:
            return self.ask(question, session_id, context or [])
        except Exception:
            log.exception("slack: the assistant failed on %r", question[:200])
            return None

    def _too_long(self, question: str) -> str | None:
        limit = self.settings.max_question_chars
        if len(question) > limit:
            return texts(guess_language(question))["too_long"].format(n=len(question), limit=limit)
        return None

    # ------------------------------------------------------------------ /sizing
    def _ack_command(self, ack: Callable[..., None], command: dict[str, Any]) -> None:
        question = from_slack(command.get("text") or "")
        language = guess_language(question)
        if not question or question.lower() in ("help", "hilfe", "?"):
            ack(**notice_message(texts(language)["help"]), response_type="ephemeral")
            return
        if message := self._too_long(question):
            ack(**notice_message(message), response_type="ephemeral")
            return
        short = escape(" ".join(question.split()))
        short = short if len(short) <= 200 else short[:199] + "…"
        ack(text=texts(language)["working"].format(question=short), response_type="ephemeral")

    def _answer_command(self, command: dict[str, Any], respond: Callable[..., Any]) -> None:
        question = from_slack(command.get("text") or "")
        if not question or question.lower() in ("help", "hilfe", "?") or self._too_long(question):
            return  # the acknowledgement already answered
        session = command_session_id(
            command.get("team_id"), command.get("channel_id", ""), command.get("user_id", "")
        )
        answer = self._ask_safely(question, session)
        if answer is None:
            respond(
                **notice_message(texts(guess_language(question))["failed"]),
                response_type="ephemeral",
                replace_original=False,
            )
            return
        self.answers.put(answer)
        for message in answer_messages(answer, share=True, show_question=True):
            respond(**message, response_type="ephemeral", replace_original=False)

    # ------------------------------------------------------------------ mentions and DMs
    def _thread_context(
        self, client: WebClient, channel: str, thread_ts: str, before_ts: str, bot_user_id: str
    ) -> list[str]:
        """What people said in the thread since the bot's last reply there (oldest first), as
        context for the question. The bot's own earlier answers in the thread are already in the
        thread's session; other bots and messages that were questions to the bot are skipped."""
        limit = self.settings.slack_thread_context_messages
        if limit <= 0:
            return []
        try:
            reply = client.conversations_replies(channel=channel, ts=thread_ts, limit=200)
        except Exception as error:  # missing scope, deleted thread: answer without context
            log.warning("slack: could not read thread %s/%s: %s", channel, thread_ts, error)
            return []
        context: list[str] = []
        mention = f"<@{bot_user_id}"
        for message in reply.get("messages") or []:
            if _ts(message.get("ts")) >= _ts(before_ts):
                continue
            if message.get("user") == bot_user_id or (
                message.get("bot_id") and message.get("bot_id") == self._bot_id(client)
            ):
                context = []  # the bot answered up to here
                continue
            if is_from_bot(message) or message.get("subtype"):
                continue
            raw = message.get("text") or ""
            if bot_user_id and mention in raw:
                continue  # a question to the bot, answered (or being answered) on its own
            text = from_slack(raw, bot_user_id)
            if text:
                context.append(text)
        return context[-limit:]

    def _bot_id(self, client: WebClient) -> str | None:
        if not hasattr(self, "_cached_bot_id"):
            try:
                self._cached_bot_id: str | None = client.auth_test().get("bot_id")
            except Exception:
                self._cached_bot_id = None
        return self._cached_bot_id

    def _answer_in_conversation(
        self,
        event: dict[str, Any],
        body: dict[str, Any],
        client: WebClient,
        context: dict[str, Any],
        *,
        threaded: bool,
    ) -> None:
        bot_user_id = context.get("bot_user_id") or ""
        if is_from_bot(event, bot_user_id):
            return
        channel = event.get("channel", "")
        ts = event.get("ts", "")
        if not self.events.first_time(f"message:{channel}:{ts}"):
            return  # the same message arrived as app_mention and as message
        question = from_slack(event.get("text") or "", bot_user_id)
        in_thread = event.get("thread_ts")
        reply_ts = in_thread or ts if threaded else in_thread
        language = guess_language(question)

        def post(message: dict[str, Any]) -> None:
            client.chat_postMessage(
                channel=channel,
                thread_ts=reply_ts,
                unfurl_links=False,
                unfurl_media=False,
                **message,
            )

        if not question:
            post(notice_message(texts(language)["help"]))
            return
        if too_long := self._too_long(question):
            post(notice_message(too_long))
            return
        team = body.get("team_id") or event.get("team")
        session = thread_session_id(team, channel, in_thread or (ts if threaded else "dm"))
        context_messages = (
            self._thread_context(client, channel, in_thread, ts, bot_user_id) if in_thread else []
        )
        answer = self._ask_safely(question, session, context_messages)
        if answer is None:
            post(notice_message(texts(language)["failed"]))
            return
        self.answers.put(answer)
        for message in answer_messages(answer):
            post(message)

    def _answer_mention(
        self,
        event: dict[str, Any],
        body: dict[str, Any],
        client: WebClient,
        context: dict[str, Any],
    ) -> None:
        self._answer_in_conversation(event, body, client, context, threaded=True)

    def _answer_direct_message(
        self,
        event: dict[str, Any],
        body: dict[str, Any],
        client: WebClient,
        context: dict[str, Any],
    ) -> None:
        if event.get("channel_type") != "im" or event.get("subtype"):
            return  # edits, joins, channel chatter: not questions to the bot
        self._answer_in_conversation(event, body, client, context, threaded=False)

    # ------------------------------------------------------------------ buttons
    def _feedback(
        self, body: dict[str, Any], action: dict[str, Any], respond: Callable[..., Any]
    ) -> None:
        user = (body.get("user") or {}).get("id")
        up = action.get("action_id") == ACTION_FEEDBACK_UP
        language = _message_language(body)
        try:
            ref = json.loads(action.get("value") or "{}")
            if self.record_feedback is None:
                raise RuntimeError("no feedback store configured")
            self.record_feedback(
                session_id=ref["s"],
                message_id=ref["m"],
                rating="up" if up else "down",
                source="slack",
                user=user,
            )
        except Exception:
            log.exception("slack: storing feedback failed")
            respond(
                **notice_message(texts(language)["feedback_failed"]),
                response_type="ephemeral",
                replace_original=False,
            )
            return
        log.info("slack: feedback %s on %s from %s", "up" if up else "down", ref.get("m"), user)
        respond(
            **notice_message(texts(language)["thanks_up" if up else "thanks_down"]),
            response_type="ephemeral",
            replace_original=False,
        )

    def _share(
        self, body: dict[str, Any], action: dict[str, Any], respond: Callable[..., Any]
    ) -> None:
        user = (body.get("user") or {}).get("id")
        message_id = action.get("value") or ""
        answer = self.answers.get(message_id)
        if answer is None and self.lookup_answer is not None:
            try:  # e.g. after a restart: the session store keeps every answer
                answer = self.lookup_answer(message_id)
            except Exception as error:
                log.warning("slack: looking up answer %s failed: %s", message_id, error)
        if answer is None:
            respond(
                **notice_message(texts(_message_language(body))["share_gone"]),
                response_type="ephemeral",
                replace_original=False,
            )
            return
        for message in answer_messages(answer, show_question=True, shared_by=user):
            respond(**message, response_type="in_channel", replace_original=False)
        respond(delete_original=True)  # remove the ephemeral copy

    def _follow_up(
        self,
        body: dict[str, Any],
        action: dict[str, Any],
        respond: Callable[..., Any],
        client: WebClient,
    ) -> None:
        try:
            ref = json.loads(action.get("value") or "{}")
            question, session = str(ref["q"]), str(ref["s"])
        except (ValueError, KeyError, TypeError):
            log.warning("slack: malformed follow-up button value")
            return
        user = (body.get("user") or {}).get("id", "")
        container = body.get("container") or {}
        answer = self._ask_safely(question, session)
        if container.get("is_ephemeral") or not container.get("channel_id"):
            if answer is None:
                respond(**notice_message(texts(guess_language(question))["failed"]))
                return
            self.answers.put(answer)
            for message in answer_messages(answer, share=True, show_question=True):
                respond(**message, response_type="ephemeral", replace_original=False)
            return
        message_info = body.get("message") or {}
        thread_ts = (
            container.get("thread_ts") or message_info.get("thread_ts") or container["message_ts"]
        )
        channel = container["channel_id"]
        if answer is None:
            client.chat_postMessage(
                channel=channel,
                thread_ts=thread_ts,
                **notice_message(texts(guess_language(question))["failed"]),
            )
            return
        self.answers.put(answer)
        asked = texts(answer.language)["asked_by"].format(user=user, question=escape(question))
        for i, message in enumerate(answer_messages(answer)):
            if i == 0:
                message["blocks"].insert(
                    0, {"type": "context", "elements": [{"type": "mrkdwn", "text": asked}]}
                )
            client.chat_postMessage(
                channel=channel,
                thread_ts=thread_ts,
                unfurl_links=False,
                unfurl_media=False,
                **message,
            )


def _ts(value: object) -> float:
    try:
        return float(str(value))
    except ValueError:
        return 0.0


def _ack(ack: Callable[..., None]) -> None:
    ack()


def _message_language(body: dict[str, Any]) -> str:
    """The language of the message whose button was clicked (from its text, if Slack sent it)."""
    text = (body.get("message") or {}).get("text") or ""
    return guess_language(text) if text else "en"
