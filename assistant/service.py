"""The assistant service: one entry point used by every surface (CLI, HTTP, SSE, Slack, evals).

Interface (stable; surfaces depend on it):

    assistant = Assistant(deps)
    answer: Answer = assistant.ask(question, session_id=None, language=None)
    for event in assistant.stream(question, session_id=None, language=None):
        ...  # TokenEvent*, CitationEvent*, PricesEvent, then DoneEvent (or ErrorEvent)

Pipeline: validate the question -> understand it (deterministic NLU) -> fill missing slots from
the session ("and on an H200?") -> tools and guide passages -> compose -> grounding check -> save
the turn. With an LLM configured (`deps.llm`), `assistant.llm_answer.answer_with_llm` writes the
answer instead and falls back to the offline composer; the grounding check runs in both modes.

Errors the surfaces map to HTTP 422: `QuestionError` (empty, too long) and
`assistant.sessions.InvalidSessionId`; both are `InvalidRequest`.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
import queue
import re
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from assistant.answer import (
    Answer,
    Choice,
    CitationEvent,
    DoneEvent,
    ErrorEvent,
    GroundingViolation,
    Language,
    LiveTokenEvent,
    PricesEvent,
    ProgressEvent,
    ResetEvent,
    StreamEvent,
    TokenEvent,
)
from assistant.chart import with_chart
from assistant.deps import Deps
from assistant.errors import InvalidRequest, QuestionError, UnknownSession
from assistant.first_turns import FirstTurn, FirstTurns
from assistant.guide_search import with_notice as keyword_search_notice
from assistant.price_notes import add_currency_note, add_price_notes
from assistant.reading.convert import to_query
from assistant.reading.edit import apply_edits
from assistant.reading.line import understood_line
from assistant.reading.merge import merge_slots
from assistant.reading.model import Reading
from assistant.reading.paths import answer_llm_mode
from assistant.reading.rules import read_rules
from assistant.reading.start import model_choices, proposals, starting_point
from assistant.sessions import (
    InvalidSessionId,
    Session,
    SessionStore,
    Slots,
    check_session_id,
    new_session_id,
)
from assistant.situation import length_problem, prose_language
from assistant.texts import num, t

__all__ = ["Assistant", "InvalidRequest", "InvalidSessionId", "QuestionError", "answer_events"]

log = logging.getLogger("assistant.service")

STREAM_CHUNK_CHARS = 24


FALLBACK_TEXT = {
    "en": "I couldn't put together a verified answer to that. Please rephrase it, or ask about "
    "a model, a configuration, NVLink or prices.",
    "de": "Dazu konnte ich keine belegte Antwort zusammenstellen. Bitte formulieren Sie die Frage "
    "um, oder fragen Sie nach einem Modell, einer Konfiguration, NVLink oder Preisen.",
}


class Assistant:
    def __init__(self, deps: Deps) -> None:
        if deps.guides is None:
            from assistant.passages import GuideSections

            deps = dataclasses.replace(deps, guides=GuideSections.load(deps.settings.guides_dir))
        if deps.sessions is None:
            deps = dataclasses.replace(deps, sessions=SessionStore.from_settings(deps.settings))
        assert deps.sessions is not None
        self.deps = deps
        self.sessions: SessionStore = deps.sessions
        from assistant.compose import Composer
        from assistant.nlu import Understander
        from assistant.nlu.neighbours import Neighbours

        nlu = deps.extras.get("nlu") if hasattr(deps, "extras") else None
        if nlu is None:
            nlu = Understander(deps.catalog, Neighbours() if deps.settings.nlu_neighbours else None)
            if hasattr(deps, "extras"):
                deps.extras["nlu"] = nlu
        self.nlu: Understander = nlu
        self.composer = Composer(deps)
        self.first_turns = FirstTurns(deps.settings.first_turn_cache)

    # ------------------------------------------------------------------ public

    def using(self, sessions: Any, *, offline_only: bool = False) -> Assistant:
        """This assistant over another session store (e.g. one that lives for one request, for
        the stateless OpenAI surface); `offline_only` leaves the LLM out (replaying context)."""
        view = copy.copy(self)
        view.sessions = sessions
        if offline_only and self.deps.llm is not None:
            view.deps = dataclasses.replace(self.deps, llm=None)
        return view

    def ask(
        self,
        question: str,
        session_id: str | None = None,
        language: Language | None = None,
        *,
        max_chars: int | None = None,
        progress: Callable[[ProgressEvent], None] | None = None,
        edits: Mapping[str, Any] | None = None,
    ) -> Answer:
        """Answer one question (grounding-checked) and store the turn in the session.
        `max_chars` lets a surface that checked the parts itself allow a longer text (Slack: the
        question within `max_question_chars`, pasted material within `max_pasted_chars`).
        `progress` (LLM mode): called when a tool call starts and finishes. `edits`: reading
        fields the caller sets over what the question says (`sizing ask --set`), validated as
        `reanswer`'s."""
        question = self._validate(question, max_chars)
        if session_id is not None:
            check_session_id(session_id)
        if language is not None and language not in ("de", "en"):
            raise InvalidRequest("language must be 'de' or 'en'")
        session = self.sessions.get(session_id) if session_id else None
        sid = session_id or new_session_id()
        key = self._first_turn_key(question, language) if session is None else None
        key = None if edits else key
        kept = self.first_turns.get(key) if key else None
        if kept is not None:  # an opening question answered before: the same checked answer
            answer = kept.answer.model_copy(update={"session_id": sid, "message_id": _new_id()})
            self.sessions.save_turn(sid, answer, kept.slots, facts=kept.facts)
            return answer
        reading = self._read(question, session, language)
        if edits:
            reading = apply_edits(reading, edits, self.deps.catalog)
        answer, slots = self._planned(reading, sid)
        if session is not None:
            # (a price or fit answer about a node named chose no other: that node)
            prev = session.slots
            slots.answered_before = list(prev.answered or prev.configurations)
        if self.deps.llm is not None and not reading.outside:
            # a goal outside the domain is declined by the offline answer, not by a model; the
            # LLM reader chooses the path (assistant/reading/paths.py)
            answer, slots = answer_llm_mode(
                self, question, reading, session, sid, answer, slots, progress, edited=bool(edits)
            )
        return self._finished(answer, sid, slots, key)

    def answer_reading(
        self, reading: Reading, session_id: str | None = None, *, store: bool = True
    ) -> Answer:
        """The answer to a reading given whole (an eval's planner case, the LLM reader's
        reading): planned and composed from it alone, no text parsed. Stored as a turn of
        `session_id` (a new session when None) unless `store` is false."""
        if session_id is not None:
            check_session_id(session_id)
        sid = session_id or new_session_id()
        answer, slots = self._planned(self._refers_back(reading, session_id), sid)
        if not store:
            return self._summarised(answer)
        return self._finished(answer, sid, slots, None)

    def _refers_back(self, reading: Reading, session_id: str | None) -> Reading:
        """A reading given whole that asks a difference of one node ("und die A100? wie groß ist
        der Unterschied?") and says not what to: the session's node it differs from, as the
        rule reader's merge finds it (`refers_to`)."""
        asks_difference = "difference_asked" in reading.topics
        if not (session_id and asks_difference and len(reading.configurations) == 1):
            return reading
        if reading.refers_to:
            return reading
        session = self.sessions.get(session_id)
        before = list(session.slots.configurations) if session and session.slots else []
        back = [c for c in before if c not in reading.configurations][:1]
        return reading.model_copy(update={"refers_to": back}) if back else reading

    def reanswer(self, session_id: str, edits: Mapping[str, Any]) -> Answer:
        """The session's last question answered again from its reading with `edits` applied
        (a chip changed in the widget, `sizing ask --set`, `/api/chat` with `reading`, Slack's
        "Adjust"): no text is parsed again. Stored as a new turn. An unknown session, one with no
        reading yet, or a field that cannot change is an `InvalidRequest`."""
        check_session_id(session_id)
        session = self.sessions.get(session_id)
        if session is None:
            raise UnknownSession(f"there is no session {session_id!r}")
        stored = self.sessions.answer(session.turns[-1].message_id) if session.turns else None
        last = stored.reading if stored is not None else None
        if last is None:
            raise UnknownSession(f"no answered question in session {session_id!r} to adjust")
        edited = apply_edits(last, edits, self.deps.catalog)
        return self.answer_reading(edited, session_id)

    def _finished(
        self, answer: Answer, sid: str, slots: Slots, key: tuple[Any, ...] | None
    ) -> Answer:
        """Notes on the answer and its summary, then the turn stored (and an opening answer
        kept)."""
        answer = add_price_notes(answer)  # a cited guide price the catalog changed: say so
        answer = add_currency_note(answer)  # a euro budget is compared as dollars: say so
        answer = with_chart(self.deps, answer)  # fit / cheapest / comparison: the picture
        answer = keyword_search_notice(answer)  # the embedder was busy: say how we searched
        answer = self._summarised(answer)
        from assistant.grounding import facts_of

        facts = facts_of(answer)
        self.sessions.save_turn(sid, answer, slots, facts=facts)
        if key:
            self.first_turns.put(key, FirstTurn(answer, slots, facts))
        return answer

    def _summarised(self, answer: Answer) -> Answer:
        """The answer with its short summary (assistant/summary.py), built from its tool results
        and checked like the answer; a withheld answer gets none."""
        from assistant.grounding import catalog_prices
        from assistant.summary import build_summary

        if answer.violations or answer.summary:
            return answer
        summary = build_summary(answer, catalog_prices(self.deps.catalog))
        out = answer.model_copy(update={"summary": summary})
        out._chosen = list(answer._chosen)
        return out

    def stream(
        self,
        question: str,
        session_id: str | None = None,
        language: Language | None = None,
        *,
        edits: Mapping[str, Any] | None = None,
        live: bool = True,
    ) -> Iterator[StreamEvent]:
        """The checked answer as events: TokenEvent chunks, a CitationEvent per citation, one
        PricesEvent, then DoneEvent with the whole Answer. A bad request or failure yields one
        ErrorEvent (bad input raises InvalidRequest before the first event, so HTTP can 422).
        `edits`: reading fields set over the question's, as `ask`'s. `live` (LLM mode with a
        streaming model): each sentence as it passes the checks (LiveTokenEvent), a ResetEvent
        when shown text is withdrawn; false for a surface that cannot withdraw text (/v1)."""
        question = self._validate(question)
        if session_id is not None:
            check_session_id(session_id)
        if self.deps.llm is not None:
            yield from self._stream_with_progress(question, session_id, language, edits, live)
            return
        try:
            answer = self.ask(question, session_id=session_id, language=language, edits=edits)
        except InvalidRequest:
            raise
        except Exception as exc:  # never a traceback on a surface
            log.exception("answer failed: %s", exc)
            yield ErrorEvent(message="The assistant failed to answer; please try again.")
            return
        yield from answer_events(answer)

    def _stream_with_progress(
        self,
        question: str,
        session_id: str | None,
        language: Language | None,
        edits: Mapping[str, Any] | None = None,
        live: bool = True,
    ) -> Iterator[StreamEvent]:
        """LLM mode: ProgressEvents while the tools run, checked sentences as they pass (when
        `live`), then the checked answer's events (only what was not shown yet, or a ResetEvent
        and the whole answer when it is not what was shown)."""
        events: queue.Queue[StreamEvent | Answer | BaseException] = queue.Queue()
        sink = _LiveSink(events.put, live)

        def work() -> None:
            try:
                events.put(self.ask(question, session_id, language, progress=sink, edits=edits))
            except BaseException as exc:  # handed to the consumer below
                events.put(exc)

        threading.Thread(target=work, name="llm-answer", daemon=True).start()
        shown = ""
        while True:
            item = events.get()
            if isinstance(item, LiveTokenEvent):
                shown += item.text
            elif isinstance(item, ResetEvent):
                shown = ""
            if isinstance(item, Answer):
                if shown and not item.answer.startswith(shown):
                    yield ResetEvent()
                    shown = ""
                yield from answer_events(item, already=len(shown))
                return
            if isinstance(item, InvalidRequest):
                raise item
            if isinstance(item, BaseException):
                log.error("answer failed: %s", item, exc_info=item)
                yield ErrorEvent(message="The assistant failed to answer; please try again.")
                return
            yield item

    # ------------------------------------------------------------------ steps

    def _first_turn_key(self, question: str, language: Language | None) -> tuple[Any, ...] | None:
        """The key of an opening question's kept answer (assistant.first_turns), or None when
        it is not kept: an LLM writes the answers, or the guide index is not open yet or cannot
        say which generation its searches read (asking it must not open it)."""
        if self.deps.llm is not None or not self.first_turns.size:
            return None
        index = self.deps.index
        if index is None or getattr(index, "opened", True) is False:
            return None
        generation = getattr(index, "search_generation", None)
        if generation is None:
            return None
        return (question, language, generation())

    def _validate(self, question: Any, max_chars: int | None = None) -> str:
        if not isinstance(question, str):
            raise QuestionError("the question must be text")
        q = question.replace("\x00", "").strip()
        if not q:
            raise QuestionError("the question is empty")
        settings = self.deps.settings
        if max_chars is not None:  # the surface checked the parts itself (Slack)
            if len(q) > max_chars:
                raise QuestionError(
                    f"the question is too long ({len(q)} characters; at most {max_chars})"
                )
            return q
        problem = length_problem(q, settings.max_question_chars, settings.max_pasted_chars)
        if problem:
            raise QuestionError(problem)
        return q

    def _read(self, question: str, session: Session | None, language: Language | None) -> Reading:
        """The rule reader: the question parsed, merged with the session (a follow-up keeps
        what earlier turns established), as a `Reading`."""
        language = language or prose_language(question)  # a German question, an English paste
        u = self.nlu.understand(question, language=language)
        if language is None and not u.language_detected and session and session.language:
            u.language = session.language
        prev = session.slots if session else None
        if prev is None:
            return read_rules(u, self.nlu)
        merged = merge_slots(u, prev, self.deps.catalog)
        own = u.configurations or u.cards or u.card_families
        carried = [] if own else list(merged.configurations)
        return read_rules(merged, self.nlu, refers_to=carried)

    def _planned(self, reading: Reading, session_id: str) -> tuple[Answer, Slots]:
        """The planner's answer to a reading (it sees nothing else) and the slots the session
        keeps of it."""
        choices: list[Choice] = []
        flow = self.composer.plan(to_query(reading)).name
        if flow == "ask_model" or (flow in _GENERAL_FLOWS and _open_sizing(reading, flow)):
            reading, choices = self._without_model(reading)
        u = to_query(reading)
        offline = self._offline(u, session_id, reading.unread, assumed=self._assumed(reading))
        answer = _first_sentence_checked(
            _with_reading(offline, reading, self.deps.catalog), self.deps.catalog
        )
        answer.choices = choices
        slots = slots_of(u)
        slots.answered = list(answer._chosen)
        # the model asked back ("is a 4090 enough for our chatbot?"): the next turn that names
        # one answers it, and keeps the hardware and load said
        slots.model_assumed = "model" in reading.assumed or flow in _ASKS_MODEL
        if flow == "ask_model" and "recommend" in reading.topics and not u.configurations:
            slots.intent = "cheapest"  # "need a server for our chatbot, what should I get?"
        return answer, slots

    def _without_model(self, reading: Reading) -> tuple[Reading, list[Choice]]:
        """No model named: with a load or a budget said, the site's first proposal is sized as a
        starting point and the others are offered; otherwise every proposal is offered as a
        choice beside the question asked back."""
        if _sized_without_model(reading):
            return starting_point(reading, self.deps.catalog)
        return reading, model_choices(proposals(self.deps.catalog))

    def _assumed(self, reading: Reading) -> str:
        """The paragraph saying what a starting point assumed ("" when nothing was)."""
        if "model" not in reading.assumed:
            return ""
        spec = self.deps.catalog.models.get(reading.model or "")
        parts = [
            t(
                reading.language,
                "assumed_model",
                model=getattr(spec, "name", reading.model),
                precision=(reading.precision or "").upper(),
            )
        ]
        if "context_tokens" in reading.assumed and reading.context_tokens:
            parts.append(
                t(
                    reading.language,
                    "assumed_context",
                    tokens=num(reading.language, reading.context_tokens),
                )
            )
        return t(reading.language, "starting_point", assumed=", ".join(parts))

    def _offline(
        self, u: Any, session_id: str, unread: Sequence[str] = (), assumed: str = ""
    ) -> Answer:
        from assistant.grounding import catalog_prices, check_answer, unmarked

        composed = self.composer.compose(u)
        text = composed.text
        if assumed:  # ask back for the model, size a starting point, say what it assumed
            lead, _, rest = text.partition("\n\n")
            ask = f"**{t(u.language, 'ask_model')}** {t(u.language, 'starting_point_lead')}"
            text = f"{ask}\n\n{lead}\n\n{assumed}" + (f"\n\n{rest}" if rest else "")
        if unread:  # say what this answer does not cover rather than pass over it
            # (a "[7]" the user typed is no citation marker of this answer: quoted as "(7)")
            parts = "; ".join(f"“{unmarked(part)}”" for part in unread)
            text += "\n\n" + t(u.language, "not_covered", parts=parts)
        answer = Answer(
            question=u.question,
            language=u.language,
            answer=text,
            mode="offline",
            citations=composed.citations,
            prices=composed.prices,
            tool_calls=composed.tool_calls,
            follow_ups=composed.follow_ups,
            session_id=session_id,
            message_id=_new_id(),
        )
        answer._chosen = list(composed.result)
        violations = check_answer(answer, catalog_prices(self.deps.catalog))
        if violations:
            # the composer formats only tool figures: a violation here is a bug. Never show it.
            for v in violations:
                log.error(
                    "offline grounding violation kind=%s text=%r detail=%s question=%r",
                    v.kind,
                    v.text,
                    v.detail,
                    u.question[:200],
                )
            answer = _safe_fallback(answer, violations)
        return answer

    def _llm(
        self,
        question: str,
        session: Session | None,
        language: Language,
        offline: Answer,
        session_id: str,
        progress: Callable[[ProgressEvent], None] | None = None,
        reading: Reading | None = None,
    ) -> Answer:
        from assistant.grounding import GroundingFacts
        from assistant.llm_answer import answer_with_llm

        history: list[dict[str, str]] = []
        prior = GroundingFacts()
        for turn in session.turns if session else []:
            history.append({"role": "user", "content": turn.question})
            history.append({"role": "assistant", "content": turn.answer})
            prior = prior.merged(turn.facts)
        earlier = "\n".join(t.question for t in session.turns) if session else ""
        try:
            answer = answer_with_llm(
                self.deps,
                question,
                history,
                language,
                lambda: offline,
                prior=prior,
                user_text=earlier,
                progress=progress,
                reading=reading,
            )
        except Exception as exc:  # the LLM path promises not to raise; belt and braces
            log.exception("LLM mode failed: %s", exc)
            return offline
        return answer.model_copy(
            update={"session_id": session_id, "message_id": answer.message_id or _new_id()}
        )


# --------------------------------------------------------------------------- helpers


def _new_id() -> str:
    return uuid.uuid4().hex[:16]


def _safe_fallback(answer: Answer, violations: list[GroundingViolation]) -> Answer:
    answer._chosen = []  # a withheld answer chose nothing
    return answer.model_copy(
        update={
            "answer": FALLBACK_TEXT[answer.language],
            "citations": [],
            "prices": [],
            "notice": "grounding check failed; answer withheld",
            "violations": violations,
        }
    )


class _LiveSink:
    """The progress listener of a stream: every event into the stream's queue; it takes the
    answer's live text (`accepts_live_text`) when the surface can withdraw it."""

    def __init__(self, put: Callable[[Any], None], live: bool) -> None:
        self.put = put
        self.accepts_live_text = live

    def __call__(self, event: Any) -> None:
        self.put(event)


def answer_events(answer: Answer, already: int = 0) -> Iterator[StreamEvent]:
    """An answer as stream events (TokenEvent chunks on word boundaries, citations, prices);
    `already`: characters of its text the stream showed before (live), not sent again."""
    for chunk in _chunks(answer.answer[already:]):
        yield TokenEvent(text=chunk)
    for c in answer.citations:
        yield CitationEvent(citation=c)
    yield PricesEvent(prices=answer.prices)
    yield DoneEvent(answer=answer)


def _chunks(text: str, size: int = STREAM_CHUNK_CHARS) -> Iterator[str]:
    buf = ""
    for piece in re.findall(r"\S+\s*|\s+", text):
        buf += piece
        if len(buf) >= size:
            yield buf
            buf = ""
    if buf:
        yield buf


def slots_of(u: Any) -> Slots:
    """What the session keeps of a query for the next turn's follow-up."""
    return Slots(
        model=u.model,
        params_b=u.params_b,
        unknown_model=u.unknown_model,
        precision=u.precision,
        workloads=list(u.workloads),
        cards=list(u.cards),
        card_families=list(u.card_families),
        count=u.count,
        memory_gb=u.memory_gb,
        configurations=list(u.configurations),
        context_tokens=u.context_tokens,
        concurrency=u.concurrency,
        intent=u.intent,
        adapter=u.adapter,
        lora_rank=u.lora_rank,
        lora_attention_only=u.lora_attention_only,
        constraints=u.constraints.model_dump(exclude_defaults=True),
        users=u.users,
        runtime=u.runtime,
        kv_precision=u.kv_precision,
        min_tokens_per_s=u.min_tokens_per_s,
        output_tokens=u.output_tokens,
        yes_no=u.yes_no,
        claim=u.claim,
        asked_memory=any(a.kind == "memory" for a in u.asks),
        asked_kv_size="kv_cache_size" in u.topics,
        asked_per_hour="per_hour" in u.topics,
        pasted_nccl=u.nccl_text,
        pasted_topo=u.topo_text,
    )


#: the flows that ask which model: the next turn that names one answers them
_ASKS_MODEL = ("ask_model", "node_enough_for_job")


def _with_reading(answer: Answer, reading: Reading, catalog: Any) -> Answer:
    """The answer carrying the reading it was computed from, and its one-line summary."""
    line = understood_line(reading, catalog, answer.language)
    out = answer.model_copy(update={"reading": reading, "understood": line})
    out._chosen = list(answer._chosen)
    return out


def _first_sentence_checked(answer: Answer, catalog: Any) -> Answer:
    """The offline answer with its first sentence agreeing with its own tool results
    (assistant/first_sentence.py): a disagreement is repaired before it is shown, and logged."""
    from assistant.first_sentence import disagreement, repaired
    from assistant.grounding import catalog_prices, check_answer

    if answer.violations:
        return answer
    problem = disagreement(answer)
    if not problem:
        return answer
    out = repaired(answer, catalog)
    if check_answer(out, catalog_prices(catalog)):  # a repair that fails the check: a bug
        log.error("first sentence repair not grounded: %s question=%r", problem, answer.question)
        return answer
    log.info("first sentence repaired: %s question=%r", problem, answer.question[:200])
    out._repaired = problem
    return out


# the rows a question with a load but no model falls to when it names no fit ("a chatbot for 50
# employees, what do we offer?"): the guides' general answer, NVLink by workload alone, or a
# price or cheapest ask with nothing to price ("120 people, an internal ChatGPT: what would it
# cost?")
_GENERAL_FLOWS = ("general", "nvlink", "price", "cheapest")


def _open_sizing(reading: Reading, flow: str) -> bool:
    """A request to size something for a load or a budget with no model or hardware named, and
    not a yes/no or explanation question (those the general rows answer). A price or cheapest
    ask needs a load said, or a language-model job ("something like ChatGPT in-house, budget $5k":
    the topic llm_job); a budget with hardware limits alone lists the nodes within them."""
    job = "llm_job" in reading.topics
    if flow in ("price", "cheapest") and not (_load_said(reading) or job):
        return False
    named = reading.has_subject or reading.configurations or reading.cards
    closed = reading.yes_no or reading.claim or reading.explain or reading.outside
    pasted = reading.topo_text or reading.nccl_text or reading.measured.busbw_gb_s
    return _sized_without_model(reading) and not (named or closed or pasted)


def _load_said(reading: Reading) -> bool:
    said_sequences = "concurrent_sequences" not in reading.assumed
    return (reading.users or 0) > 1 or (bool(reading.concurrent_sequences) and said_sequences)


def _sized_without_model(reading: Reading) -> bool:
    """A load or a budget was said but no model ("a chatbot for our 50 employees"): a starting
    point is sized. A question that says neither ("Which GPU do I need?") is only asked back."""
    # one person ("mit nur einem Nutzer") is no load to size a node for, nor the sequences
    # assumed from it
    return _load_said(reading) or bool(reading.budget_usd_per_month)
