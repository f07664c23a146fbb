"""What the assistant gets from a Slack message, and which session it continues.

- **Scope** (`Scoper`): a thread is one conversation; `/sizing` and top-level DMs start fresh
  unless the question clearly follows up a turn of the last few minutes
  (`SIZING_SLACK_FOLLOW_UP_MINUTES`); "new"/"neu" at the start always starts fresh.
- **Thread context** (`pick_context`): the thread's opening message always, then the most recent
  human messages within a character budget (`SIZING_SLACK_CONTEXT_CHARS`).
- **The prompt** (`build_prompt`): every message is read with `assistant.situation`; the customer's
  requirements come first (model, users, context, budget, plans), then other remarks, the pasted
  material, and the staff member's question last. The language comes from the prose.

The session index (`ConversationIndex`) is `StoredConversations`: a key-value table in the shared
state store (`state.sqlite3` under the data folder, or PostgreSQL with SIZING_DATABASE_URL), so a
follow-up continues after a restart and on any worker or replica. `MemoryConversations` (process
memory) is for tests.
"""

from __future__ import annotations

import logging
import re
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from assistant.answer import Language
from assistant.nlu import detect_language
from assistant.settings import Settings
from assistant.situation import (
    REQUIREMENT_ORDER,
    Requirement,
    Situation,
    looks_like_follow_up,
    sort_sentences,
    split_reset,
)
from store.db import StorageError
from store.shared_state import SLACK_CONVERSATIONS, KeyValues

log = logging.getLogger("sizing.slack")

DEFAULT_QUESTION = {"en": "What should we offer them?", "de": "Was sollen wir anbieten?"}


# --------------------------------------------------------------------------- sessions


@dataclass
class Conversation:
    session_id: str
    at: float  # wall-clock time of the last answer
    since_ts: str | None = None  # a thread reset at this message: read nothing before it


class ConversationIndex(Protocol):
    """Where the current session of a thread / a user's slash commands / a DM is kept."""

    def get(self, key: str) -> Conversation | None: ...

    def put(self, key: str, conversation: Conversation) -> None: ...


class MemoryConversations:
    """The index in process memory (bounded, thread-safe). After a restart, or on another
    worker, slash commands and DMs simply start fresh."""

    def __init__(self, max_entries: int = 20_000) -> None:
        self._items: OrderedDict[str, Conversation] = OrderedDict()
        self._max = max_entries
        self._lock = threading.Lock()

    def get(self, key: str) -> Conversation | None:
        with self._lock:
            return self._items.get(key)

    def put(self, key: str, conversation: Conversation) -> None:
        with self._lock:
            self._items[key] = conversation
            self._items.move_to_end(key)
            while len(self._items) > self._max:
                self._items.popitem(last=False)


class StoredConversations:
    """The index in the shared state store (`store.shared_state.KeyValues`). A store that
    cannot be read or written costs memory, not answers: `get` then says "no current session"
    (the question starts fresh) and `put` is skipped, each with a log line naming the store."""

    def __init__(self, values: KeyValues) -> None:
        self.values = values

    @classmethod
    def from_settings(cls, settings: Settings) -> StoredConversations:
        return cls(KeyValues.from_settings(settings, SLACK_CONVERSATIONS))

    def get(self, key: str) -> Conversation | None:
        try:
            stored: Any = self.values.get(key)
        except StorageError as error:
            log.warning("slack: conversation index unreadable (%s), starting fresh", error)
            return None
        if not isinstance(stored, dict) or not stored.get("session_id"):
            return None
        return Conversation(
            str(stored["session_id"]), float(stored.get("at") or 0.0), stored.get("since_ts")
        )

    def put(self, key: str, conversation: Conversation) -> None:
        value = {
            "session_id": conversation.session_id,
            "at": conversation.at,
            "since_ts": conversation.since_ts,
        }
        try:
            self.values.put(key, value)
        except StorageError as error:
            log.warning("slack: conversation index not saved (%s)", error)


@dataclass
class Scope:
    key: str
    session_id: str
    question: str  # without a leading "new"/"neu"
    reset: bool
    since_ts: str | None = None


@dataclass
class Scoper:
    index: ConversationIndex
    follow_up_s: float
    clock: Callable[[], float] = field(default=time.time)

    def for_thread(self, key: str, base_session: str, question: str, ts: str) -> Scope:
        """A thread continues its session; "new"/"neu" starts a new one from this message."""
        reset, question = split_reset(question)
        if reset:
            return Scope(key, _fresh(base_session), question, True, since_ts=ts)
        current = self.index.get(key)
        if current is None:
            return Scope(key, base_session, question, False)
        return Scope(key, current.session_id, question, False, since_ts=current.since_ts)

    def for_recent(self, key: str, base_session: str, question: str) -> Scope:
        """`/sizing` and DMs: the previous session only for a clear follow-up within minutes."""
        reset, question = split_reset(question)
        current = self.index.get(key)
        if (
            not reset
            and current is not None
            and self.clock() - current.at <= self.follow_up_s
            and looks_like_follow_up(question)
        ):
            return Scope(key, current.session_id, question, False)
        return Scope(key, _fresh(base_session), question, reset)

    def answered(self, scope: Scope) -> None:
        self.index.put(scope.key, Conversation(scope.session_id, self.clock(), scope.since_ts))


def _fresh(base_session: str) -> str:
    return f"{base_session}-{uuid.uuid4().hex[:10]}"


# --------------------------------------------------------------------------- thread context


def pick_context(messages: Sequence[str], opening: str | None, budget: int) -> list[str]:
    """The opening message (always), then the most recent of `messages` (oldest first) that fit
    in `budget` characters; returned oldest first."""
    kept: list[str] = []
    used = 0
    for message in reversed(messages):
        if used + len(message) > budget:
            break
        kept.insert(0, message)
        used += len(message)
    return ([opening] if opening else []) + kept


# --------------------------------------------------------------------------- the prompt


@dataclass
class Prompt:
    text: str  # what the assistant reads
    question: str  # what the answer shows as the question
    language: Language | None  # from the prose; None: let the assistant decide
    context_messages: int = 0  # earlier messages folded in
    plans: list[str] = field(default_factory=list)  # "might fine-tune later": shown, not sized
    # the message carries a customer's requirements (a forwarded e-mail, a budget, users, a
    # model): the answer carries an offer (assistant/offer.py) in the customer's language
    offer: bool = False
    customer_language: Language | None = None


def build_prompt(current: Situation, context: Sequence[Situation] = ()) -> Prompt:
    """Requirements first (model, users, context, budget; from the earlier messages and the
    quoted customer text), then other remarks, pasted material, the question last. Plans are
    returned apart (`Prompt.plans`)."""
    language = _language(current, context)
    requirements: list[Requirement] = []
    notes: list[str] = []
    pasted: list[str] = []
    for earlier in context:  # everything said before is the situation
        reqs, other = sort_sentences(
            "\n".join(p for p in (earlier.question, earlier.customer) if p)
        )
        requirements += reqs
        notes += other
        pasted += [p.text for p in earlier.pasted]
    requirements += current.requirements
    notes += current.notes
    pasted += [p.text for p in current.pasted]
    question = current.question
    if not question and (current.customer or context):
        question = DEFAULT_QUESTION[language or "en"]
    plans = [r.text for r in requirements if r.kind == "plans"]
    lines = _requirement_lines([r for r in requirements if r.kind != "plans"]) + notes
    parts = ["\n".join(lines)] if lines else []
    parts += [f"```\n{block}\n```" for block in pasted]
    if question:
        parts.append(question)
    shown = question or (current.pasted[0].text.split("\n")[0] if current.pasted else "")
    customer = "\n".join(s.customer for s in (*context, current) if s.customer)
    return Prompt(
        text="\n\n".join(parts),
        question=shown,
        language=language,
        context_messages=len(context),
        plans=list(dict.fromkeys(plans)),
        offer=_asks_offer(
            requirements + sort_sentences(current.question)[0], customer, [current.question]
        ),
        customer_language=detect_language(customer)[0] if customer.strip() else language,
    )


# a staff message about a customer's request ("the customer wants …, what do we offer?")
_ABOUT_CUSTOMER = re.compile(
    r"\b(?:customers?|clients?|offer|quote|propose|kunden?|angebot|anbieten|vorschlagen)\b", re.I
)


def _asks_offer(requirements: list[Requirement], customer: str, said: list[str]) -> bool:
    """The customer's requirements are there (in a forwarded or quoted text, or a staff message
    about the customer's request): answer with an offer."""
    needs = [r for r in requirements if r.kind != "plans"]
    if not needs:
        return False
    return bool(customer.strip()) or any(_ABOUT_CUSTOMER.search(text) for text in said)


def _requirement_lines(requirements: list[Requirement]) -> list[str]:
    """Today's requirements in order. Plans ("might fine-tune later") are left out: the offline
    understanding would size them as today's workload; the answer shows them as a note."""
    ordered = sorted(requirements, key=lambda r: REQUIREMENT_ORDER.index(r.kind))
    return list(dict.fromkeys(r.text for r in ordered))


def _language(current: Situation, context: Sequence[Situation]) -> Language | None:
    if current.language_detected:
        return current.language
    for earlier in reversed(context):
        if earlier.language_detected:
            return earlier.language
    return None


__all__ = [
    "Conversation",
    "ConversationIndex",
    "MemoryConversations",
    "Prompt",
    "Scope",
    "Scoper",
    "StoredConversations",
    "build_prompt",
    "pick_context",
]
