"""LLM mode: answer a question with a tool-calling LLM, checked like every other answer.

    answer_with_llm(deps, question, history, language, offline_answer_fn) -> Answer

Flow:
1. System prompt + recent history + the fenced question; the model gets the registry tools and
   `search_guides` (`assistant.lc_tools`). Up to `llm_max_tool_rounds` rounds of tool calls, every
   call recorded as a `ToolCall`; then a final answer (tools withdrawn if the rounds run out).
2. The answer is assembled from the model text: citation markers renumbered [1], [2], ... in order
   of first use and mapped to the passages `search_guides` returned; `PriceQuote`s taken from the
   catalog for every configuration whose price the text states (a price that no tool returned gets
   no quote, and the grounding check rejects it).
3. Grounding check (`assistant.grounding`). On violations the model is asked once more, with the
   violations named; if that fails too, the offline answer is returned with a notice. Violations
   are logged.
4. Endpoint down, slow, 429, 5xx or garbage: the openai client retries transport errors
   (`llm_max_retries`, bounded timeout); a malformed response is retried the same number of times
   here; then the offline answer with a notice. Nothing raises out of this function.
"""

from __future__ import annotations

import json
import logging
import re
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from assistant.answer import Answer, Citation, GroundingViolation, Language, PriceQuote
from assistant.deps import Deps
from assistant.lc_tools import ToolSession, build_tools, dispatch
from assistant.llm_breaker import LLMDown, breaker_for, guarded_call
from assistant.prompts import LANGUAGE_NAMES, regenerate_message, system_prompt, user_message

log = logging.getLogger("assistant.llm")

HISTORY_TURNS = 6  # prior messages sent along (3 exchanges); older ones are dropped

NOTICES: dict[str, dict[str, str]] = {
    "unavailable": {
        "en": "The language model is unavailable right now; this is the offline answer.",
        "de": "Das Sprachmodell ist gerade nicht erreichbar; dies ist die Offline-Antwort.",
    },
    "language": {
        "en": "The language model answered in another language; this is the offline answer.",
        "de": "Das Sprachmodell antwortete in einer anderen Sprache; dies ist die Offline-Antwort.",
    },
    "ungrounded": {
        "en": "The language model's answer could not be verified; this is the offline answer.",
        "de": "Die Antwort des Sprachmodells ließ sich nicht belegen; "
        "dies ist die Offline-Antwort.",
    },
}


class LLMUnavailable(RuntimeError):
    """The LLM endpoint failed (after the client's bounded retries) or answered garbage."""


# --- text helpers -----------------------------------------------------------------------------

_MARKER = re.compile(r"\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]")
_NUMBER = r"\d{1,3}(?:[.,\u00a0\u202f ]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?"
_MONEY = re.compile(
    rf"(?:(?:US)?\$\s?(?P<a>{_NUMBER}))|(?:(?P<b>{_NUMBER})\s?(?:\$|USD\b|US-Dollar|Dollar))",
    re.IGNORECASE,
)


def parse_amount(token: str) -> Decimal | None:
    """'4,395' / '4.395' / '4 395' / '4395' -> 4395; '4,157.50' / '4.157,50' -> 4157.50."""
    token = token.strip()
    decimals = ""
    m = re.search(r"[.,](\d{1,2})$", token)
    if m:
        decimals = m.group(1)
        token = token[: m.start()]
    digits = re.sub(r"[.,\u00a0\u202f ]", "", token)
    if not digits.isdigit():
        return None
    try:
        return Decimal(f"{digits}.{decimals}" if decimals else digits)
    except InvalidOperation:  # pragma: no cover - guarded by isdigit
        return None


def stated_prices(text: str) -> list[tuple[str, Decimal]]:
    """Every money amount stated in the text, as (fragment, amount)."""
    out = []
    for m in _MONEY.finditer(text):
        amount = parse_amount(m.group("a") or m.group("b"))
        if amount is not None:
            out.append((m.group(0), amount))
    return out


def renumber_citations(text: str, session: ToolSession) -> tuple[str, list[Citation]]:
    """Renumber markers of known passages [1], [2], ... by first use; build their citations.

    Markers that point to no passage are left as they are (the grounding check reports them).
    """
    mapping: dict[int, int] = {}
    by_url: dict[str, Citation] = {}  # one citation per passage: parts of one section share it

    def new_number(n: int) -> int | None:
        if n not in session.passages:
            return None
        if n not in mapping:
            citation = session.citation(n, as_n=len(by_url) + 1)
            assert citation is not None
            cited = by_url.setdefault(citation.url or f"#{n}", citation)
            if citation.quote not in cited.quote:
                cited.quote += "\n…\n" + citation.quote
            mapping[n] = cited.n
        return mapping[n]

    def replace(m: re.Match[str]) -> str:
        parts = [int(x) for x in re.split(r"\s*,\s*", m.group(1))]
        renumbered = [new_number(n) for n in parts]
        return "".join(
            f"[{r}]" if r is not None else f"[{n}]" for n, r in zip(parts, renumbered, strict=True)
        )

    text = re.sub(r"(\[\d+\])(?:\s?\1)+", r"\1", _MARKER.sub(replace, text))  # "[1][1]" -> "[1]"
    return text, list(by_url.values())


# --- catalog ---------------------------------------------------------------------------------


def _configurations(deps: Deps) -> dict[str, Any]:
    configs = getattr(deps.catalog, "configurations", None) or {}
    return dict(configs)


def _price_of(cfg: Any) -> Decimal | None:
    value = getattr(cfg, "usd_per_month", None)
    if value is None:
        value = getattr(getattr(cfg, "price", None), "usd_per_month", None)
    return None if value is None else Decimal(str(value))


def price_quote(config_id: str, cfg: Any, language: Language) -> PriceQuote:
    url = str(getattr(cfg, "url", "") or "")
    if language == "en":
        url = str(getattr(cfg, "url_en", "") or url.replace("gpuserver.io/de/", "gpuserver.io/en/"))
    placeholder = getattr(cfg, "price_source", None) == "placeholder" or bool(
        getattr(cfg, "placeholder", False)
    )
    price = _price_of(cfg)
    assert price is not None
    return PriceQuote(
        configuration=config_id,
        label=str(getattr(cfg, "label", None) or getattr(cfg, "name", None) or config_id),
        usd_per_month=price,
        url=url,
        placeholder=placeholder,
    )


def referenced_configurations(deps: Deps, session: ToolSession) -> list[str]:
    """Configuration ids that appear in tool arguments or results, in order of first appearance."""
    configs = _configurations(deps)
    if not configs:
        return []
    blob = " ".join(
        json.dumps([call.arguments, call.result], default=str, ensure_ascii=False)
        for call in session.tool_calls
    )
    found = []
    for cid in configs:
        m = re.search(rf"(?<![\w-]){re.escape(cid)}(?![\w-])", blob)
        if m:
            found.append((m.start(), cid))
    return [cid for _, cid in sorted(found)]


def _squash(text: str) -> str:
    """'4 × NVIDIA A100 SXM4' / '4x A100 SXM4' / '4x-a100-sxm4' -> '4a100sxm4'."""
    text = re.sub(r"nvidia|geforce", "", text.lower())
    text = re.sub(r"(\d)\s*[x×]\s*", r"\1", text)
    return re.sub(r"[\s\-_]+", "", text)


def quotes_for(deps: Deps, session: ToolSession, text: str, language: Language) -> list[PriceQuote]:
    """A catalog quote for each configuration whose price the text states and a tool returned.

    When several returned configurations share a stated price, the ones the text names win."""
    configs = _configurations(deps)
    referenced = referenced_configurations(deps, session)
    squashed = _squash(text)
    quotes: list[PriceQuote] = []
    seen: set[str] = set()
    for _, amount in stated_prices(text):
        matches = [c for c in referenced if c not in seen and _price_of(configs[c]) == amount]
        named = [
            c
            for c in matches
            if _squash(c) in squashed or _squash(str(getattr(configs[c], "label", ""))) in squashed
        ]
        for cid in named or matches:
            quotes.append(price_quote(cid, configs[cid], language))
            seen.add(cid)
    return quotes


# --- checks -----------------------------------------------------------------------------------

MIN_WORDS_FOR_LANGUAGE_CHECK = 6


def language_problem(text: str, language: Language) -> str | None:
    """A note when the answer is clearly in the other language (short answers are not judged)."""
    from assistant.nlu import detect_language

    if len(re.findall(r"[^\W\d_]{2,}", text)) < MIN_WORDS_FOR_LANGUAGE_CHECK:
        return None
    detected, confident = detect_language(text)
    if confident and detected != language:
        return f"the answer is in {LANGUAGE_NAMES[detected]}, not {LANGUAGE_NAMES[language]}"
    return None


def check(deps: Deps, answer: Answer) -> list[GroundingViolation]:
    from assistant.grounding import catalog_prices, check_answer

    return list(check_answer(answer, catalog_prices(deps.catalog)))


# --- the model loop ---------------------------------------------------------------------------


def _history_pairs(history: Sequence[Any]) -> list[tuple[str, str]]:
    """(role, content) pairs from whatever the session gives: (role, content) tuples, dicts with
    role/content, or turns with question/answer (assistant.sessions.Turn)."""
    pairs: list[tuple[Any, Any]] = []
    for turn in history:
        if isinstance(turn, dict):
            if "question" in turn:
                pairs += [("user", turn.get("question")), ("assistant", turn.get("answer"))]
            else:
                pairs.append((turn.get("role"), turn.get("content")))
        elif isinstance(turn, tuple | list):
            pairs.append((turn[0], turn[1]))
        elif hasattr(turn, "question"):
            pairs += [("user", turn.question), ("assistant", getattr(turn, "answer", None))]
        else:
            pairs.append((getattr(turn, "role", None), getattr(turn, "content", None)))
    return [(str(r), str(c)) for r, c in pairs if r and c]


def _history_messages(history: Sequence[Any]) -> list[Any]:
    from langchain_core.messages import AIMessage, HumanMessage

    out: list[Any] = []
    for role, content in _history_pairs(history)[-HISTORY_TURNS:]:
        if role in ("user", "human"):
            out.append(HumanMessage(user_message(content)))
        elif role in ("assistant", "ai"):
            out.append(AIMessage(content))
    return out


def _is_transport_error(exc: Exception) -> bool:
    import openai

    return isinstance(exc, openai.APIConnectionError | openai.APIStatusError)


def _invoke(model: Any, messages: list[Any], streaming: bool, attempts: int) -> Any:
    """One model call. Transport errors were already retried by the openai client; a malformed
    response (bad JSON, missing fields) is retried here, `attempts` times in all."""
    last: Exception | None = None
    for _ in range(max(attempts, 1)):
        try:
            if streaming:
                message = None
                for chunk in model.stream(messages):
                    message = chunk if message is None else message + chunk
                if message is None:
                    raise ValueError("empty stream")
                return message
            return model.invoke(messages)
        except Exception as exc:
            if _is_transport_error(exc):
                raise LLMUnavailable(f"{type(exc).__name__}: {exc}") from exc
            last = exc
            log.info("LLM returned a malformed response: %s: %s", type(exc).__name__, exc)
    raise LLMUnavailable(f"malformed response: {type(last).__name__}: {last}") from last


def _run_tools(deps: Deps, session: ToolSession, ai: Any) -> list[Any]:
    from langchain_core.messages import ToolMessage

    replies = []
    for call in ai.tool_calls:
        content = dispatch(deps, session, call["name"], dict(call.get("args") or {}))
        replies.append(ToolMessage(content=content, tool_call_id=call["id"], name=call["name"]))
    for bad in getattr(ai, "invalid_tool_calls", None) or []:
        replies.append(
            ToolMessage(
                content=f"error: could not parse the arguments of {bad.get('name')!r}: "
                f"{bad.get('error') or 'invalid JSON'}",
                tool_call_id=bad.get("id") or "invalid",
                name=bad.get("name") or "unknown",
            )
        )
    return replies


def _final_text(ai: Any) -> str:
    text = getattr(ai, "text", None)
    if isinstance(text, str):  # langchain-core 1.x: a str property (callable, deprecated)
        text = str(text)
    elif callable(text):  # older langchain-core
        text = text()
    if not isinstance(text, str):
        text = ai.content if isinstance(ai.content, str) else ""
    return text.strip()


def _converse(
    deps: Deps,
    session: ToolSession,
    llm: Any,
    tools: list[Any],
    messages: list[Any],
    deadline: float,
) -> str:
    """Run tool rounds until the model answers in text; returns the answer text."""
    settings = deps.settings
    attempts = settings.llm_max_retries + 1

    def call(model: Any) -> Any:
        if time.monotonic() > deadline:
            raise LLMUnavailable(f"no answer within {settings.llm_deadline_s:g} s")
        try:  # circuit breaker + hard deadline (assistant.llm_breaker)
            return guarded_call(
                breaker_for(deps),
                lambda: _invoke(model, messages, settings.llm_streaming, attempts),
                deadline,
            )
        except LLMDown as exc:
            raise LLMUnavailable(str(exc)) from exc

    bound = llm.bind_tools(tools)
    for _ in range(max(settings.llm_max_tool_rounds, 0)):
        ai = call(bound)
        messages.append(ai)
        if not ai.tool_calls and not getattr(ai, "invalid_tool_calls", None):
            text = _final_text(ai)
            if not text:
                raise LLMUnavailable("the model returned an empty answer")
            return text
        messages.extend(_run_tools(deps, session, ai))
    # rounds used up: ask for the answer without tools
    ai = call(llm)
    messages.append(ai)
    text = _final_text(ai)
    if not text:
        raise LLMUnavailable("the model returned no answer after the tool rounds")
    return text


def _build_answer(
    deps: Deps, session: ToolSession, question: str, language: Language, text: str
) -> Answer:
    text, citations = renumber_citations(text, session)
    return Answer(
        question=question,
        language=language,
        answer=text,
        mode="llm",
        citations=citations,
        prices=quotes_for(deps, session, text, language),
        tool_calls=list(session.tool_calls),
        session_id="",
        message_id=uuid.uuid4().hex,
    )


def _fallback(offline_answer_fn: Callable[[], Answer], language: Language, reason: str) -> Answer:
    offline = offline_answer_fn()
    notice = NOTICES[reason].get(offline.language or language) or NOTICES[reason]["en"]
    return offline.model_copy(update={"notice": notice})


def _with_follow_ups(answer: Answer, offline_answer_fn: Callable[[], Answer]) -> Answer:
    """Suggested next questions come from the deterministic understanding of the question (the
    offline answer, which the service has already composed)."""
    try:
        offline = offline_answer_fn()
    except Exception:  # follow-ups are a nicety; never lose the answer over them
        log.exception("offline follow-ups failed")
        return answer
    return answer.model_copy(
        update={
            "follow_ups": list(offline.follow_ups),
            "session_id": answer.session_id or offline.session_id,
        }
    )


def _log_violations(stage: str, question: str, violations: Iterable[GroundingViolation]) -> None:
    for v in violations:
        log.warning(
            "grounding violation (%s) kind=%s text=%r detail=%s question=%r",
            stage,
            v.kind,
            v.text,
            v.detail,
            question[:200],
            extra={"short": f"LLM answer not grounded ({stage}): {v.kind} {v.text!r}"},
        )


def answer_with_llm(
    deps: Deps,
    question: str,
    history: Sequence[Any],
    language: Language,
    offline_answer_fn: Callable[[], Answer],
) -> Answer:
    """The LLM-mode answer (mode="llm"), or the offline answer with a `notice` when the LLM is
    unavailable or its answer fails the grounding check twice. Never raises for LLM failures."""
    from langchain_core.messages import HumanMessage, SystemMessage

    llm = deps.llm
    if llm is None:
        return offline_answer_fn()
    if breaker_for(deps).state == "open":  # known to be down: offline at once, no call
        return _fallback(offline_answer_fn, language, "unavailable")
    session = ToolSession(language=language)
    deadline = time.monotonic() + deps.settings.llm_deadline_s
    try:
        tools = build_tools(deps, session)
        messages: list[Any] = [
            SystemMessage(system_prompt(language)),
            *_history_messages(history),
            HumanMessage(user_message(question)),
        ]
        text = _converse(deps, session, llm, tools, messages, deadline)
        answer = _build_answer(deps, session, question, language, text)
        violations = check(deps, answer)
        wrong_language = language_problem(answer.answer, language)
        if not violations and not wrong_language:
            return _with_follow_ups(answer, offline_answer_fn)
        _log_violations("first answer", question, violations)
        if wrong_language:
            log.warning("LLM answer language (first answer): %s", wrong_language)
        messages.append(
            HumanMessage(regenerate_message(violations, language, extra=wrong_language))
        )
        text = _converse(deps, session, llm, tools, messages, deadline)
        answer = _build_answer(deps, session, question, language, text)
        violations = check(deps, answer)
        wrong_language = language_problem(answer.answer, language)
        if not violations and not wrong_language:
            return _with_follow_ups(answer, offline_answer_fn)
        _log_violations("regenerated answer", question, violations)
        if violations:
            return _fallback(offline_answer_fn, language, "ungrounded")
        log.warning("LLM answer language (regenerated answer): %s", wrong_language)
        return _fallback(offline_answer_fn, language, "language")
    except LLMUnavailable as exc:
        log.warning(
            "LLM unavailable, answering offline: %s",
            exc,
            extra={"short": "LLM unreachable, answered offline (-v for details)"},
        )
        return _fallback(offline_answer_fn, language, "unavailable")
    except Exception as exc:  # never a traceback for the user
        log.exception(
            "LLM mode failed, answering offline: %s",
            exc,
            extra={"short": "LLM failed, answered offline (-v for details)"},
        )
        return _fallback(offline_answer_fn, language, "unavailable")
