"""The Bolt app: `/sizing` slash command, @mentions (answered in the thread, with the thread as
context), direct messages, and the buttons (👍/👎 feedback, share in channel, follow-ups, and
"Adjust", whose modal re-answers from the edited reading: `api.slack.adjust`).

Every listener acknowledges at once and answers in a lazy listener (a worker thread), so Slack
gets its 200 well within 3 seconds however long the answer takes. The answer is the one
`Answer` type, rendered by `api.slack.blocks`.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from slack_bolt import App, BoltResponse
from slack_bolt.request import BoltRequest
from slack_sdk import WebClient
from slack_sdk.webhook import WebhookClient

from api.slack.adjust import (
    ADJUST_CALLBACK_ID,
    adjust_modal,
    describe_edits,
    edits_between,
    field_errors,
    submitted,
)
from api.slack.adjust import (
    labels as adjust_labels,
)
from api.slack.blocks import (
    ACTION_ADJUST,
    ACTION_FEEDBACK_DOWN,
    ACTION_FEEDBACK_UP,
    ACTION_OFFER_COPY,
    ACTION_SHARE,
    CHOICE_ACTION,
    FOLLOW_UP_ACTION,
    answer_messages,
    notice_message,
    offer_text_message,
    summary_messages,
)
from api.slack.conversation import (
    ConversationIndex,
    MemoryConversations,
    Prompt,
    Scope,
    Scoper,
    StoredConversations,
    build_prompt,
    pick_context,
)
from api.slack.dedupe import Deduplicator, SharedDeduplicator
from api.slack.mrkdwn import escape, from_slack
from api.slack.why import WHY_CALLBACK_ID, why_modal, why_submitted
from assistant.answer import Answer
from assistant.errors import InvalidRequest
from assistant.reading.edit import apply_edits
from assistant.settings import Settings
from assistant.situation import Situation, read_situation, split_reset
from store.db import StorageError

log = logging.getLogger("sizing.slack")

COMMAND = "/sizing"
PROGRESS_MIN_INTERVAL_S = 1.0
# a response_url takes 5 messages in 30 minutes: /sizing progress uses at most 2 of them
RESPONSE_URL_PROGRESS_MAX = 2

ProgressFn = Callable[[str], None]


class AskFn(Protocol):
    def __call__(self, prompt: Prompt, session_id: str, progress: ProgressFn | None) -> Answer:
        """Answer `prompt` in session `session_id`; `progress(text)` may be called with short
        progress notes (tool calls in LLM mode) when the assistant offers them."""
        ...


DescribeFn = Callable[[str], "str | None"]
ReanswerFn = Callable[[str, dict[str, Any]], Answer]
LookupFn = Callable[[str], "Answer | None"]
RecordFeedbackFn = Callable[..., Any]

_TEXTS = {
    "en": {
        "help": (
            "*Ask the gpuserver.io sizing assistant*\n"
            "• `/sizing Does Llama 3.3 70B in BF16 fit on 4 x A100?` (only you see the answer;"
            " *Share in channel* posts it). Each `/sizing` starts fresh; `/sizing and in FP8?`"
            " right after an answer continues it\n"
            "• mention me in a channel: I answer in the thread and read the thread as context"
            " (its first message always)\n"
            "• send me a direct message\n"
            "• paste what the customer sent: a forwarded email (or quote it with `>`), "
            "`nvidia-smi topo -m` output in a code block; put your question on top\n"
            "• start with `new` to leave earlier context behind"
        ),
        "working": "⏳ Working on it: _{question}_",
        "placeholder": "⏳ Working on it…",
        "too_long": "That question is too long ({n} characters; at most {limit}). Paste the"
        " customer's email or tool output as a quote (`>`) or a code block: up to {pasted}"
        " characters of that are fine.",
        "pasted_too_long": "That is too much pasted material ({n} characters; at most {limit}).",
        "failed": "Sorry, I could not answer that just now. Please try again in a moment.",
        "thanks_up": "Thanks for the 👍, it is recorded.",
        "thanks_down": "Thanks for the 👎, it is recorded. What was wrong helps us most: the form"
        " asks, or reply in the thread.",
        "feedback_failed": "Sorry, your feedback could not be stored.",
        "share_gone": "This answer is no longer available to share. Ask again with `/sizing`.",
        "adjust_gone": "This answer can no longer be adjusted. Ask again.",
        "adjust_failed": "Sorry, I could not answer that again: {error}",
        "asked_by": "<@{user}> asked: _{question}_",
        "continuing": "↪ continuing: {what}",
        "thread_read": "↪ read from the thread: the first message and {n} more",
        "thread_read_first": "↪ read from the thread: the first message",
        "plans": "📌 noted for later, not sized: {plans}",
        "offer_gone": "This offer is no longer available. Ask again with the customer's e-mail.",
    },
    "de": {
        "help": (
            "*Frag den Dimensionierungs-Assistenten von gpuserver.io*\n"
            "• `/sizing Passt Llama 3.3 70B in BF16 auf 4 x A100?` (nur du siehst die Antwort;"
            " *Im Kanal teilen* postet sie). Jedes `/sizing` beginnt neu; `/sizing und in FP8?`"
            " direkt nach einer Antwort setzt sie fort\n"
            "• erwähne mich in einem Kanal: ich antworte im Thread (der Thread ist Kontext,"
            " seine erste Nachricht immer)\n"
            "• schick mir eine Direktnachricht\n"
            "• füge ein, was der Kunde geschickt hat: eine weitergeleitete E-Mail (oder als"
            " Zitat mit `>`), `nvidia-smi topo -m` in einem Codeblock; deine Frage obendrüber\n"
            "• beginne mit `neu`, um früheren Kontext hinter dir zu lassen"
        ),
        "working": "⏳ Einen Moment: _{question}_",
        "placeholder": "⏳ Einen Moment…",
        "too_long": "Die Frage ist zu lang ({n} Zeichen; höchstens {limit}). Füge die E-Mail des"
        " Kunden oder Tool-Ausgaben als Zitat (`>`) oder Codeblock ein: davon sind bis zu"
        " {pasted} Zeichen in Ordnung.",
        "pasted_too_long": "Das ist zu viel eingefügtes Material ({n} Zeichen; höchstens {limit}).",
        "failed": "Entschuldigung, das konnte ich gerade nicht beantworten. Bitte gleich nochmal.",
        "thanks_up": "Danke für das 👍, ist gespeichert.",
        "thanks_down": "Danke für das 👎, ist gespeichert. Was falsch war, hilft uns am meisten:"
        " das Formular fragt danach, oder antworte im Thread.",
        "feedback_failed": "Entschuldigung, das Feedback konnte nicht gespeichert werden.",
        "share_gone": "Diese Antwort kann nicht mehr geteilt werden. Frag bitte neu mit `/sizing`.",
        "adjust_gone": "Diese Antwort kann nicht mehr angepasst werden. Frag bitte neu.",
        "adjust_failed": "Entschuldigung, das konnte ich nicht neu beantworten: {error}",
        "asked_by": "<@{user}> fragte: _{question}_",
        "continuing": "↪ Fortsetzung: {what}",
        "thread_read": "↪ aus dem Thread gelesen: die erste Nachricht und {n} weitere",
        "thread_read_first": "↪ aus dem Thread gelesen: die erste Nachricht",
        "plans": "📌 für später notiert, nicht berechnet: {plans}",
        "offer_gone": "Dieses Angebot ist nicht mehr verfügbar. Frag bitte neu mit der E-Mail.",
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


def _command_key(req: BoltRequest, body: dict[str, Any]) -> str | None:
    """A slash command delivery's identity: over HTTP its signed timestamp and body (hashed);
    in Socket Mode (no raw body, no signature) its `trigger_id`; None when it has neither."""
    if req.mode == "http" and req.raw_body:
        stamp = (req.headers.get("x-slack-request-timestamp") or [""])[0]
        digest = hashlib.sha256(f"{stamp}:{req.raw_body}".encode()).hexdigest()
        return f"command:{digest}"
    trigger = body.get("trigger_id")
    return f"command:trigger:{trigger}" if trigger else None


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


class _Reply:
    """Where an answer goes in a conversation: a placeholder ("working on it…") posted at once,
    updated with progress notes and finally replaced in place by the answer (`chat.update`).
    If the placeholder cannot be posted or updated, the answer is posted as a new message."""

    def __init__(
        self, client: WebClient, channel: str, thread_ts: str | None, *, broadcast: bool = False
    ) -> None:
        self.client = client
        self.channel = channel
        self.thread_ts = thread_ts
        # a top-level mention: the answer (its summary) is also shown in the channel
        # (`reply_broadcast`), its details stay in the thread
        self.broadcast = broadcast and thread_ts is not None
        self.ts: str | None = None
        self._last_progress = 0.0

    def post(self, message: dict[str, Any], *, broadcast: bool = False) -> str | None:
        result = self.client.chat_postMessage(
            channel=self.channel,
            thread_ts=self.thread_ts,
            reply_broadcast=True if broadcast and self.broadcast else None,
            unfurl_links=False,
            unfurl_media=False,
            **message,
        )
        return str(result.get("ts") or "") or None

    def start(self, text: str) -> None:
        try:
            self.ts = self.post(notice_message(text), broadcast=True)
        except Exception as error:  # the answer is still posted afterwards
            log.warning("slack: could not post the placeholder in %s: %s", self.channel, error)

    def progress(self, text: str) -> None:
        """A progress note in the placeholder (at most one update per second)."""
        now = time.monotonic()
        if self.ts is None or now - self._last_progress < PROGRESS_MIN_INTERVAL_S:
            return
        self._last_progress = now
        try:
            self.client.chat_update(channel=self.channel, ts=self.ts, **notice_message(text))
        except Exception as error:
            log.debug("slack: progress update failed: %s", error)

    def finish(
        self, messages: list[dict[str, Any]], details: Sequence[dict[str, Any]] = ()
    ) -> None:
        """The answer in place of the placeholder; `details` (the whole answer behind its
        summary, issue 26) follow in the thread: the conversation's, or the first message's."""
        first: str | None = None
        for i, message in enumerate(messages):
            if i == 0 and self.ts is not None:
                try:
                    self.client.chat_update(channel=self.channel, ts=self.ts, **message)
                    first = self.ts
                    continue
                except Exception as error:
                    log.warning("slack: could not replace the placeholder: %s", error)
            ts = self.post(message, broadcast=i == 0)
            first = first or ts
        thread = self.thread_ts or first
        for message in details if thread else ():
            try:
                self.client.chat_postMessage(
                    channel=self.channel,
                    thread_ts=thread,
                    unfurl_links=False,
                    unfurl_media=False,
                    **message,
                )
            except Exception as error:  # the summary is shown; the details are lost, logged
                log.warning("slack: could not post the details in %s: %s", self.channel, error)


def shared_state(
    settings: Settings,
) -> tuple[SharedDeduplicator | None, StoredConversations | None]:
    """Event de-duplication and the conversation index in the shared state store (SQLite under
    the data folder, or PostgreSQL with SIZING_DATABASE_URL). (None, None), with an error log
    naming the store, when it cannot be opened: the bot then keeps both in process memory."""
    try:
        events = SharedDeduplicator.from_settings(settings)
        return events, StoredConversations.from_settings(settings)
    except StorageError as error:
        log.error(
            "slack: shared state store unavailable (%s); de-duplication and conversations are "
            "per process until restart",
            error,
        )
        return None, None


class SlackBot:
    """The Bolt `App` with its listeners, and the state they share (dedupe, answer cache, the
    current session of each thread / slash-command user / DM)."""

    def __init__(
        self,
        settings: Settings,
        ask: AskFn,
        record_feedback: RecordFeedbackFn | None,
        client: WebClient,
        *,
        lookup_answer: LookupFn | None = None,
        describe_session: DescribeFn | None = None,
        reanswer: ReanswerFn | None = None,
        last_answer: LookupFn | None = None,
        catalog: Any = None,
        conversations: ConversationIndex | None = None,
        events: Deduplicator | SharedDeduplicator | None = None,
        token_verification: bool = True,
    ) -> None:
        self.settings = settings
        self.lookup_answer = lookup_answer
        self.describe_session = describe_session
        self.reanswer = reanswer  # Assistant.reanswer: "Adjust" (no button without it)
        self.last_answer = last_answer  # a session's last answer, by session id
        self.catalog = catalog  # the modal's options and the check of a submission
        self.ask = ask
        self.record_feedback = record_feedback
        shared_events, shared_conversations = (
            shared_state(settings) if events is None or conversations is None else (None, None)
        )
        self.events = events or shared_events or Deduplicator()
        self.answers = AnswerCache()
        self.scoper = Scoper(
            conversations or shared_conversations or MemoryConversations(),
            settings.slack_follow_up_minutes * 60,
        )
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
        app.action(ACTION_OFFER_COPY)(ack=_ack, lazy=[self._copy_offer])
        app.action(FOLLOW_UP_ACTION)(ack=_ack, lazy=[self._follow_up])
        app.action(ACTION_ADJUST)(ack=_ack, lazy=[self._open_adjust])
        app.action(CHOICE_ACTION)(ack=_ack, lazy=[self._choice])
        app.view(ADJUST_CALLBACK_ID)(ack=self._ack_adjust, lazy=[self._answer_adjust])
        app.view(WHY_CALLBACK_ID)(ack=_ack, lazy=[self._feedback_why])
        app.error(self._on_error)

    # ------------------------------------------------------------------ middleware
    def _dedupe_events(
        self, req: BoltRequest, body: dict[str, Any], next: Callable[[], None]
    ) -> BoltResponse | None:
        """Ack duplicate deliveries of an event (Slack retries, X-Slack-Retry-Num) without
        running the listeners again, and a slash command replayed within the signature's
        5-minute window (the same signed body and timestamp: a replay, never a new command,
        which has its own trigger_id), across workers and replicas."""
        command = body.get("command") if not req.lazy_only else None
        key = _command_key(req, body) if command else None
        if key and not self.events.first_time(key):
            log.warning("slack: replayed slash command %s ignored", command)
            return BoltResponse(status=200, body="")
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
    @property
    def can_adjust(self) -> bool:
        """Answers get an "Adjust" button when the bot can re-answer from an edited reading."""
        return self.reanswer is not None

    def _find_answer(self, message_id: str) -> Answer | None:
        """A recent answer by message id: the in-memory cache, else the session store (after a
        restart, or an answer given by another worker)."""
        answer = self.answers.get(message_id)
        if answer is None and self.lookup_answer is not None and message_id:
            try:
                answer = self.lookup_answer(message_id)
            except Exception as error:
                log.warning("slack: looking up answer %s failed: %s", message_id, error)
        return answer

    def _ask_safely(
        self, prompt: Prompt, session_id: str, progress: ProgressFn | None = None
    ) -> Answer | None:
        try:
            return self.ask(prompt, session_id, progress)
        except Exception:
            log.exception("slack: the assistant failed on %r", prompt.question[:200])
            return None

    def _limit_message(self, situation: Situation) -> str | None:
        """The 2,000-character limit applies to the question; pasted material (the customer's
        email, code blocks, tool output) may be up to `max_pasted_chars`."""
        limit, pasted = self.settings.max_question_chars, self.settings.max_pasted_chars
        words = texts(situation.language)
        if len(situation.question) > limit:
            return words["too_long"].format(n=len(situation.question), limit=limit, pasted=pasted)
        if situation.pasted_chars > pasted:
            return words["pasted_too_long"].format(n=situation.pasted_chars, limit=pasted)
        return None

    def _describe(self, session_id: str) -> str | None:
        if self.describe_session is None:
            return None
        try:
            return self.describe_session(session_id)
        except Exception as error:
            log.warning("slack: could not describe session %s: %s", session_id, error)
            return None

    def _notes(self, language: str, prompt: Prompt, continued: str | None) -> list[str]:
        """One line saying what context the answer carried, and the customer's plans."""
        words = texts(language)
        notes = []
        if continued:
            notes.append(words["continuing"].format(what=escape(continued)))
        elif prompt.context_messages > 1:
            notes.append(words["thread_read"].format(n=prompt.context_messages - 1))
        elif prompt.context_messages == 1:
            notes.append(words["thread_read_first"])
        if prompt.plans:
            notes.append(words["plans"].format(plans=escape(" ".join(prompt.plans))))
        return notes

    # ------------------------------------------------------------------ /sizing
    def _ack_command(self, ack: Callable[..., None], command: dict[str, Any]) -> None:
        raw = from_slack(command.get("text") or "")
        situation = read_situation(split_reset(raw)[1])
        words = texts(situation.language if situation.language_detected else guess_language(raw))
        if situation.empty or raw.lower() in ("help", "hilfe", "?"):
            ack(**notice_message(words["help"]), response_type="ephemeral")
            return
        if message := self._limit_message(situation):
            ack(**notice_message(message), response_type="ephemeral")
            return
        shown = situation.question or situation.customer or situation.pasted[0].text
        short = escape(" ".join(shown.split()))
        short = short if len(short) <= 200 else short[:199] + "…"
        ack(text=words["working"].format(question=short), response_type="ephemeral")

    def _answer_command(self, command: dict[str, Any], respond: Callable[..., Any]) -> None:
        raw = from_slack(command.get("text") or "")
        probe = read_situation(split_reset(raw)[1])
        if probe.empty or raw.lower() in ("help", "hilfe", "?") or self._limit_message(probe):
            return  # the acknowledgement already answered
        base = command_session_id(
            command.get("team_id"), command.get("channel_id", ""), command.get("user_id", "")
        )
        scope = self.scoper.for_recent(f"cmd:{base}", base, raw)
        prompt = build_prompt(read_situation(scope.question))
        continued = self._describe(scope.session_id)
        last_progress = [0.0]
        sent = [0]

        def progress(text: str) -> None:  # replaces the ⏳ message with the progress note
            now = time.monotonic()
            if sent[0] >= RESPONSE_URL_PROGRESS_MAX:
                return
            if now - last_progress[0] >= PROGRESS_MIN_INTERVAL_S:
                last_progress[0] = now
                sent[0] += 1
                respond(text=f"⏳ {text}", response_type="ephemeral", replace_original=True)

        answer = self._ask_safely(prompt, scope.session_id, progress)
        if answer is None:
            respond(
                **notice_message(texts(probe.language)["failed"]),
                response_type="ephemeral",
                replace_original=True,
            )
            return
        self.scoper.answered(scope)
        self.answers.put(answer)
        notes = self._notes(answer.language, prompt, continued)
        messages = answer_messages(
            answer, share=True, show_question=True, notes=notes, adjust=self.can_adjust
        )
        for i, message in enumerate(messages):  # the first replaces the ⏳ acknowledgement
            respond(**message, response_type="ephemeral", replace_original=i == 0)

    # ------------------------------------------------------------------ mentions and DMs
    def _thread_context(
        self,
        client: WebClient,
        channel: str,
        thread_ts: str,
        before_ts: str,
        bot_user_id: str,
        since_ts: str | None = None,
    ) -> list[str]:
        """The thread as context (oldest first): its opening message always, then the most
        recent human messages since the bot's last reply there, within `slack_context_chars`.
        Other bots' messages and earlier questions to the bot are skipped (the bot's own
        answers are in the thread's session); after a "new" only messages from there on."""
        budget = self.settings.slack_context_chars
        if budget <= 0:
            return []
        messages = self._replies(client, channel, thread_ts)
        opening: str | None = None
        context: list[str] = []
        mention = f"<@{bot_user_id}"
        for message in messages:
            ts = _ts(message.get("ts"))
            if ts >= _ts(before_ts) or (since_ts and ts < _ts(since_ts)):
                continue
            if self._is_own(message, client, bot_user_id):
                context = []  # the bot answered up to here
                continue
            if is_from_bot(message) or message.get("subtype"):
                continue
            raw = message.get("text") or ""
            text = from_slack(raw, bot_user_id)
            if not text:
                continue
            if since_ts is None and message.get("ts") == thread_ts:
                opening = text[: self.settings.max_pasted_chars]
            elif not (bot_user_id and mention in raw):  # questions to the bot: in the session
                context.append(text)
        return pick_context(context, opening, budget)

    def _replies(self, client: WebClient, channel: str, thread_ts: str) -> list[dict[str, Any]]:
        """All messages of a thread (oldest first; paginated, at most 1,000)."""
        messages: list[dict[str, Any]] = []
        cursor: str | None = None
        try:
            while len(messages) < 1000:
                reply = client.conversations_replies(
                    channel=channel, ts=thread_ts, limit=200, cursor=cursor
                )
                messages += reply.get("messages") or []
                cursor = (reply.get("response_metadata") or {}).get("next_cursor")
                if not reply.get("has_more") or not cursor:
                    break
        except Exception as error:  # missing scope, deleted thread: answer without context
            log.warning("slack: could not read thread %s/%s: %s", channel, thread_ts, error)
        return messages

    def _is_own(self, message: dict[str, Any], client: WebClient, bot_user_id: str) -> bool:
        return message.get("user") == bot_user_id or bool(
            message.get("bot_id") and message.get("bot_id") == self._bot_id(client)
        )

    def _bot_id(self, client: WebClient) -> str | None:
        if not hasattr(self, "_cached_bot_id"):
            try:
                self._cached_bot_id: str | None = client.auth_test().get("bot_id")
            except Exception:
                self._cached_bot_id = None
        return self._cached_bot_id

    def _conversation_scope(
        self, team: str | None, channel: str, thread_root: str | None, ts: str, question: str
    ) -> Scope:
        if thread_root:  # a thread: one conversation
            base = thread_session_id(team, channel, thread_root)
            return self.scoper.for_thread(f"thread:{base}", base, question, ts)
        base = thread_session_id(team, channel, "dm")  # a DM outside threads: like /sizing
        return self.scoper.for_recent(f"dm:{base}", base, question)

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
        raw = from_slack(event.get("text") or "", bot_user_id)
        in_thread = event.get("thread_ts")
        reply = _Reply(
            client,
            channel,
            (in_thread or ts) if threaded else in_thread,
            broadcast=threaded and not in_thread,
        )
        team = body.get("team_id") or event.get("team")
        thread_root = in_thread or (ts if threaded else None)
        scope = self._conversation_scope(team, channel, thread_root, ts, raw)
        situation = read_situation(scope.question)
        words = texts(situation.language)
        if situation.empty:
            reply.post(notice_message(words["help"]))
            return
        if too_long := self._limit_message(situation):
            reply.post(notice_message(too_long))
            return
        reply.start(words["placeholder"])
        earlier = (
            self._thread_context(client, channel, in_thread, ts, bot_user_id, scope.since_ts)
            if in_thread
            else []
        )
        prompt = build_prompt(situation, [read_situation(text) for text in earlier])
        continued = self._describe(scope.session_id)
        answer = self._ask_safely(prompt, scope.session_id, _progress_note(reply.progress))
        if answer is None:
            reply.finish([notice_message(words["failed"])])
            return
        self.scoper.answered(scope)
        self.answers.put(answer)
        notes = self._notes(answer.language, prompt, continued)
        reply.finish(*summary_messages(answer, notes=notes, adjust=self.can_adjust))

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
        self,
        body: dict[str, Any],
        action: dict[str, Any],
        respond: Callable[..., Any],
        client: WebClient,
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
        if not up and body.get("trigger_id"):  # ask what was wrong (issue 26)
            try:
                meta = {"s": ref["s"], "m": ref["m"]}
                client.views_open(trigger_id=body["trigger_id"], view=why_modal(language, meta))
            except Exception as error:  # the vote is stored; the question is a bonus
                log.warning("slack: could not ask what was wrong: %s", error)
        respond(
            **notice_message(texts(language)["thanks_up" if up else "thanks_down"]),
            response_type="ephemeral",
            replace_original=False,
        )

    def _feedback_why(self, body: dict[str, Any], view: dict[str, Any]) -> None:
        """The 👎 modal submitted: its reasons and text stored with the vote."""
        user = (body.get("user") or {}).get("id")
        try:
            meta = json.loads(view.get("private_metadata") or "{}")
            reasons, comment = why_submitted((view.get("state") or {}).get("values") or {})
            if self.record_feedback is None:
                raise RuntimeError("no feedback store configured")
            self.record_feedback(
                session_id=meta["s"],
                message_id=meta["m"],
                rating="down",
                comment=comment,
                source="slack",
                user=user,
                reasons=reasons,
            )
        except Exception:
            log.exception("slack: storing the reasons of a 👎 failed")

    def _share(
        self, body: dict[str, Any], action: dict[str, Any], respond: Callable[..., Any]
    ) -> None:
        user = (body.get("user") or {}).get("id")
        answer = self._find_answer(action.get("value") or "")
        if answer is None:
            respond(
                **notice_message(texts(_message_language(body))["share_gone"]),
                response_type="ephemeral",
                replace_original=False,
            )
            return
        shared = answer_messages(answer, show_question=True, shared_by=user, adjust=self.can_adjust)
        for message in shared:
            respond(**message, response_type="in_channel", replace_original=False)
        respond(delete_original=True)  # remove the ephemeral copy

    def _copy_offer(
        self, body: dict[str, Any], action: dict[str, Any], respond: Callable[..., Any]
    ) -> None:
        """ "Copy as text": the offer's forward text posted on its own (only the clicker sees
        it), verbatim in a code block, ready to copy into an e-mail."""
        try:
            ref = json.loads(action.get("value") or "{}")
            message_id, carried = str(ref["m"]), ref.get("t")
        except (ValueError, KeyError, TypeError, AttributeError):
            log.warning("slack: malformed copy button value")
            return
        language = str(ref.get("l") or _message_language(body))
        if isinstance(carried, str) and carried:  # the text came with the click
            message = offer_text_message(carried, language)
            respond(**message, response_type="ephemeral", replace_original=False)
            return
        answer = self._find_answer(message_id)
        if answer is None or answer.offer is None or not answer.offer.text:
            respond(
                **notice_message(texts(language)["offer_gone"]),
                response_type="ephemeral",
                replace_original=False,
            )
            return
        message = offer_text_message(answer.offer.text, answer.language)
        respond(**message, response_type="ephemeral", replace_original=False)

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
        prompt = build_prompt(read_situation(question))
        language = guess_language(question)
        place = _clicked_thread(body)
        if place is None:
            answer = self._ask_safely(prompt, session)
            if answer is None:
                respond(**notice_message(texts(language)["failed"]), replace_original=False)
                return
            self.answers.put(answer)
            shown = answer_messages(answer, share=True, show_question=True, adjust=self.can_adjust)
            for message in shown:
                respond(**message, response_type="ephemeral", replace_original=False)
            return
        reply = _Reply(client, *place)
        reply.start(texts(language)["placeholder"])
        answer = self._ask_safely(prompt, session, _progress_note(reply.progress))
        if answer is None:
            reply.finish([notice_message(texts(language)["failed"])])
            return
        self.answers.put(answer)
        asked = texts(answer.language)["asked_by"].format(user=user, question=escape(question))
        reply.finish(*summary_messages(answer, notes=[asked], adjust=self.can_adjust))

    # ------------------------------------------------------------------ "Adjust"
    def _open_adjust(
        self,
        body: dict[str, Any],
        action: dict[str, Any],
        respond: Callable[..., Any],
        client: WebClient,
    ) -> None:
        """Open the modal for the clicked answer, prefilled from its reading (views.open with
        the click's trigger_id, which Slack accepts for 3 seconds)."""
        try:
            ref = json.loads(action.get("value") or "{}")
            session, message_id = str(ref["s"]), str(ref["m"])
        except (ValueError, KeyError, TypeError):
            log.warning("slack: malformed adjust button value")
            return
        answer = self._find_answer(message_id)
        if answer is None or answer.reading is None or self.reanswer is None:
            respond(
                **notice_message(texts(_message_language(body))["adjust_gone"]),
                response_type="ephemeral",
                replace_original=False,
            )
            return
        metadata = {"s": session, "m": message_id, **_where_to_answer(body)}
        view = adjust_modal(answer, self.catalog, metadata)
        client.views_open(trigger_id=body.get("trigger_id", ""), view=view)

    def _adjustment(self, view: dict[str, Any]) -> _Adjustment:
        """The submitted modal as edits of the reading they will be applied to (the session's
        last, which `reanswer` edits; the clicked answer's when that cannot be read), checked
        with `apply_edits`: an `InvalidRequest` becomes an error on the field's block."""
        try:
            meta = json.loads(view.get("private_metadata") or "{}")
            clicked = self._find_answer(str(meta["m"]))
        except (ValueError, KeyError, TypeError):
            meta, clicked = {}, None
        if clicked is None or clicked.reading is None:
            gone = texts(clicked.language if clicked else "en")["adjust_gone"]
            return _Adjustment(meta, None, errors={"adjust_model": gone})
        values, errors = submitted((view.get("state") or {}).get("values") or {}, clicked.language)
        base = self._last_reading(str(meta.get("s") or "")) or clicked.reading
        edits = edits_between(base, values)
        if not errors and edits and self.catalog is not None:
            try:
                apply_edits(base, edits, self.catalog)
            except InvalidRequest as error:
                errors = field_errors(str(error), edits)
        return _Adjustment(meta, clicked, edits, errors)

    def _last_reading(self, session_id: str) -> Any:
        if self.last_answer is None or not session_id:
            return None
        try:
            last = self.last_answer(session_id)
        except Exception as error:
            log.warning("slack: could not read session %s: %s", session_id, error)
            return None
        return last.reading if last is not None else None

    def _choice(
        self,
        body: dict[str, Any],
        action: dict[str, Any],
        respond: Callable[..., Any],
        client: WebClient,
    ) -> None:
        """One of an answer's choices clicked: the session's question re-answered with the
        choice's reading fields (`reanswer`), posted where the clicked answer is."""
        try:
            ref = json.loads(action.get("value") or "{}")
            session, edits, label = str(ref["s"]), dict(ref["e"]), str(ref.get("l", ""))
        except (ValueError, KeyError, TypeError):
            log.warning("slack: malformed choice button value")
            return
        if self.reanswer is None:
            return
        language = _message_language(body)
        user = (body.get("user") or {}).get("id", "")
        try:
            answer: Answer | None = self.reanswer(session, edits)
        except Exception:
            log.exception("slack: a choice on session %s failed", session)
            answer = None
        if answer is None:
            messages = [notice_message(texts(language)["failed"])]
        else:
            self.answers.put(answer)
            note = f"↪ <@{user}>: {escape(label)}"
            messages = answer_messages(answer, notes=[note], adjust=self.can_adjust)
        place = _clicked_thread(body)
        if place is None:
            for message in messages:
                respond(**message, response_type="ephemeral", replace_original=False)
            return
        _Reply(client, *place).finish(messages)

    def _ack_adjust(self, ack: Callable[..., None], view: dict[str, Any]) -> None:
        """Field errors go back with the acknowledgement (the modal stays open); otherwise the
        modal closes and the re-answer follows in the lazy listener."""
        adjustment = self._adjustment(view)
        if adjustment.errors:
            ack(response_action="errors", errors=adjustment.errors)
        else:
            ack()

    def _answer_adjust(self, body: dict[str, Any], view: dict[str, Any], client: WebClient) -> None:
        """Re-answer from the edited reading (`reanswer`: no text parsed again) and post it
        where the adjusted answer is: its thread, or ephemerally through the click's
        response_url. Nothing changed: nothing to answer."""
        adjustment = self._adjustment(view)
        clicked, meta, edits = adjustment.clicked, adjustment.meta, adjustment.edits
        if adjustment.errors or clicked is None or not edits or self.reanswer is None:
            return
        language = clicked.language
        user = (body.get("user") or {}).get("id", "")
        changes = describe_edits(edits, self.catalog, language)
        note = adjust_labels(language)["adjusted"].format(user=user, changes=changes)
        ephemeral = meta.get("r")
        reply = None if ephemeral else _Reply(client, str(meta.get("c") or ""), meta.get("t"))
        if reply is not None:
            reply.start(texts(language)["placeholder"])
        try:
            answer: Answer | None = self.reanswer(str(meta["s"]), edits)
        except InvalidRequest as error:  # e.g. the session expired meanwhile
            failure = texts(language)["adjust_failed"].format(error=escape(str(error)))
            answer = None
        except Exception:
            log.exception("slack: re-answering session %s failed", meta.get("s"))
            failure, answer = texts(language)["failed"], None
        if answer is None:
            messages = [notice_message(failure)]
        else:
            answer = answer.model_copy(update={"question": clicked.question})
            self.answers.put(answer)
            messages = answer_messages(
                answer,
                share=bool(ephemeral),
                show_question=bool(ephemeral),
                notes=[note],
                adjust=self.can_adjust,
            )
        if reply is not None:
            reply.finish(messages)
            return
        hook = WebhookClient(str(ephemeral), timeout=10)
        for message in messages:
            hook.send_dict({**message, "response_type": "ephemeral", "replace_original": False})


@dataclass
class _Adjustment:
    """A submitted "Adjust" modal: where to answer (private_metadata), the answer it adjusts,
    the reading edits (only the changed fields) and field errors by block id."""

    meta: dict[str, Any]
    clicked: Answer | None
    edits: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)


def _clicked_thread(body: dict[str, Any]) -> tuple[str, str] | None:
    """(channel, thread ts) of the message whose button was clicked, or None for an ephemeral
    message (answered through the click's response_url)."""
    container = body.get("container") or {}
    if container.get("is_ephemeral") or not container.get("channel_id"):
        return None
    thread_ts = (
        container.get("thread_ts")
        or (body.get("message") or {}).get("thread_ts")
        or container["message_ts"]
    )
    return str(container["channel_id"]), str(thread_ts)


def _progress_note(update: Callable[[str], None]) -> ProgressFn:
    """Progress notes from the assistant shown as "⏳ <note>"."""

    def progress(text: str) -> None:
        update(f"⏳ {text}")

    return progress


def _ts(value: object) -> float:
    try:
        return float(str(value))
    except ValueError:
        return 0.0


def _ack(ack: Callable[..., None]) -> None:
    ack()


def _where_to_answer(body: dict[str, Any]) -> dict[str, Any]:
    """Where the re-answer of a clicked answer goes (private_metadata of the modal): an
    ephemeral answer's response_url ("r"), else its channel ("c") and thread ("t"; in a direct
    message an answer outside a thread is followed in the conversation)."""
    container = body.get("container") or {}
    channel = container.get("channel_id") or (body.get("channel") or {}).get("id")
    if container.get("is_ephemeral") or not channel:
        return {"r": body.get("response_url")}
    message = body.get("message") or {}
    thread = container.get("thread_ts") or message.get("thread_ts")
    if not thread and not str(channel).startswith("D"):
        thread = container.get("message_ts")
    return {"c": channel, "t": thread}


def _message_language(body: dict[str, Any]) -> str:
    """The language of the message whose button was clicked (from its text, if Slack sent it)."""
    text = (body.get("message") or {}).get("text") or ""
    return guess_language(text) if text else "en"
