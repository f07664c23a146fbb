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

from assistant.answer import (
    Answer,
    AttemptOutcome,
    Citation,
    GroundingViolation,
    Language,
    LiveTokenEvent,
    LLMAttempt,
    PriceQuote,
    ProgressEvent,
    ResetEvent,
)
from assistant.deps import Deps
from assistant.grounding import GroundingFacts
from assistant.lc_tools import ToolSession, bound_tools, dispatch, select_tools
from assistant.llm_breaker import LLMDown, breaker_for, guarded_call
from assistant.prompts import LANGUAGE_NAMES, regenerate_message, system_prompt, user_message

Progress = Callable[[Any], None]  # ProgressEvents; Live/Reset events when it `accepts_live_text`

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
    "truncated": {
        "en": "The language model's answer was cut off before it finished; this is the offline "
        "answer.",
        "de": "Die Antwort des Sprachmodells brach vor ihrem Ende ab; dies ist die "
        "Offline-Antwort.",
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


def quotes_for(
    deps: Deps, session: ToolSession, text: str, language: Language, also: Sequence[str] = ()
) -> list[PriceQuote]:
    """A catalog quote for each configuration whose price the text states and a tool returned
    (this turn's tools, then `also`: the session's earlier turns' configurations).

    When several returned configurations share a stated price, the ones the text names win."""
    configs = _configurations(deps)
    referenced = referenced_configurations(deps, session)
    referenced += [c for c in also if c in configs and c not in referenced]
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


def check(
    deps: Deps, answer: Answer, prior: GroundingFacts | None = None, user_text: str = ""
) -> list[GroundingViolation]:
    from assistant.grounding import catalog_prices, check_answer

    return list(
        check_answer(answer, catalog_prices(deps.catalog), prior=prior, user_text=user_text)
    )


# tool-call markup or raw JSON instead of an answer (small local models do this when the tools
# are withdrawn, or when their chat template's tool parser does not match)
_MARKUP_RX = re.compile(
    r"</?(?:tools?|tool_calls?|tool_response|function_calls?|functions?|invoke|parameter)\b[^>]*>"
    r"|<\|(?:python_tag|tool_calls?|im_start|im_end|eot_id|start_header_id|eom_id)\|>"
    r"|\[TOOL_CALLS\]|\[TOOL_REQUEST\]|<function=|```(?:json|tool_code|tool_call)?\s*\{\s*\"name\""
    r"|\{\s*\"(?:name|tool|function)\"\s*:\s*\"\w+\"\s*,\s*\"(?:arguments|parameters|args)\"",
    re.IGNORECASE,
)


def markup_problem(text: str) -> str | None:
    """Why a model text is not an answer: tool-call markup, or nothing but JSON."""
    if _MARKUP_RX.search(text):
        return "the answer contains tool-call markup, not an answer"
    stripped = text.strip().strip("`").removeprefix("json").strip()
    if stripped[:1] in "{[":
        try:
            json.loads(stripped)
        except ValueError:
            return None
        return "the answer is JSON, not an answer"
    return None


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


def strip_markers(text: str) -> str:
    """An earlier answer without its citation markers: its [n] pointed at that turn's passages,
    and this turn numbers its own from [1], so an old [2] would point at a different passage."""
    if "[" not in text:
        return text
    return re.sub(r"[ \t]+(?=[.,;:!?)])", "", _MARKER.sub("", text))


def _history_messages(history: Sequence[Any]) -> list[Any]:
    from langchain_core.messages import AIMessage, HumanMessage

    out: list[Any] = []
    for role, content in _history_pairs(history)[-HISTORY_TURNS:]:
        if role in ("user", "human"):
            out.append(HumanMessage(user_message(content)))
        elif role in ("assistant", "ai"):
            out.append(AIMessage(strip_markers(content)))
    return out


def _is_transport_error(exc: Exception) -> bool:
    import openai

    return isinstance(exc, openai.APIConnectionError | openai.APIStatusError)


def _invoke(
    model: Any,
    messages: list[Any],
    streaming: bool,
    attempts: int,
    on_text: Callable[[str], None] | None = None,
) -> Any:
    """One model call. Transport errors were already retried by the openai client; a malformed
    response (bad JSON, missing fields) is retried here, `attempts` times in all. `on_text`: the
    text so far after each streamed chunk of a message that calls no tool."""
    last: Exception | None = None
    for _ in range(max(attempts, 1)):
        try:
            if streaming:
                message = None
                for chunk in model.stream(messages):
                    message = chunk if message is None else message + chunk
                    if on_text is not None and not getattr(message, "tool_call_chunks", None):
                        on_text(_final_text(message))
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


_PROGRESS = {
    "search_guides": ("searching the guides…", "durchsuche die Guides…"),
    "fit_check": ("checking {n} configurations…", "prüfe {n} Konfigurationen…"),
    "cheapest_fit": ("checking {n} configurations…", "prüfe {n} Konfigurationen…"),
    "price_quote": ("looking up prices…", "suche Preise heraus…"),
    "throughput_estimate": ("estimating the speed…", "schätze die Geschwindigkeit…"),
    "memory_need": ("computing the memory…", "berechne den Speicher…"),
    "capacity_check": ("checking the capacity…", "prüfe die Kapazität…"),
}


def progress_message(deps: Deps, tool: str, args: dict[str, Any], language: str | None) -> str:
    en, de = _PROGRESS.get(tool, ("running {tool}…", "führe {tool} aus…"))
    n = len(args.get("configurations") or []) or len(_configurations(deps))
    return (de if language == "de" else en).format(n=n, tool=tool)


def _notify(progress: Progress | None, event: Any) -> None:
    if progress is None:
        return
    try:
        progress(event)
    except Exception:  # a listener never breaks an answer
        log.exception("progress listener failed")


def _run_tools(
    deps: Deps, session: ToolSession, ai: Any, progress: Progress | None = None
) -> list[Any]:
    from langchain_core.messages import ToolMessage

    replies = []
    for call in ai.tool_calls:
        name, args = call["name"], dict(call.get("args") or {})
        message = progress_message(deps, name, args, session.language)
        _notify(progress, ProgressEvent(tool=name, stage="started", message=message))
        content = dispatch(deps, session, name, args)
        _notify(progress, ProgressEvent(tool=name, stage="finished", message=message))
        replies.append(ToolMessage(content=content, tool_call_id=call["id"], name=name))
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


class Truncated(ValueError):
    """The model's text is unfinished: it hit its token limit, or its stream closed before the
    finish reason (a dropped connection: never shown as a verified answer)."""

    def __init__(self, text: str, why: str = "the answer was cut off at the token limit") -> None:
        super().__init__(text)
        self.why = why


CUT_STREAM = "the answer's stream closed before the model's finish reason"


def _finished_text(ai: Any, streaming: bool = False) -> str:
    text = _final_text(ai)
    _check_finished(ai, streaming)
    return text


def _check_finished(ai: Any, streaming: bool) -> None:
    """Raise Truncated for a message the model did not finish."""
    finish = (getattr(ai, "response_metadata", None) or {}).get("finish_reason")
    if finish == "length":
        raise Truncated(_final_text(ai))
    if streaming and not finish:
        raise Truncated(_final_text(ai), CUT_STREAM)


def _converse(
    deps: Deps,
    session: ToolSession,
    llm: Any,
    tools: list[Any],
    messages: list[Any],
    deadline: float,
    progress: Progress | None = None,
    live: _Live | None = None,
) -> str:
    """Run tool rounds until the model answers in text; returns the answer text."""
    settings = deps.settings
    attempts = settings.llm_max_retries + 1
    on_text = live.feed if live is not None else None

    def call(model: Any) -> Any:
        if time.monotonic() > deadline:
            raise LLMUnavailable(f"no answer within {settings.llm_deadline_s:g} s")
        try:  # circuit breaker + hard deadline (assistant.llm_breaker)
            return guarded_call(
                breaker_for(deps),
                lambda: _invoke(model, messages, settings.llm_streaming, attempts, on_text),
                deadline,
            )
        except LLMDown as exc:
            raise LLMUnavailable(str(exc)) from exc

    bound = llm.bind_tools(tools)
    streaming = settings.llm_streaming
    for _ in range(max(settings.llm_max_tool_rounds, 0)):
        ai = call(bound)
        _check_finished(ai, streaming)  # a cut stream's tool calls are not run either
        messages.append(ai)
        if not ai.tool_calls and not getattr(ai, "invalid_tool_calls", None):
            text = _finished_text(ai)
            if not text:
                raise LLMUnavailable("the model returned an empty answer")
            return text
        messages.extend(_run_tools(deps, session, ai, progress))
    # rounds used up: ask for the answer without tools
    ai = call(llm)
    messages.append(ai)
    text = _finished_text(ai, streaming)
    if not text:
        raise LLMUnavailable("the model returned no answer after the tool rounds")
    return text


def _build_answer(
    deps: Deps,
    session: ToolSession,
    question: str,
    language: Language,
    text: str,
    prior: GroundingFacts | None = None,
) -> Answer:
    text, citations = renumber_citations(text, session)
    earlier = prior.configurations if prior is not None else ()
    return Answer(
        question=question,
        language=language,
        answer=text,
        mode="llm",
        citations=citations,
        prices=quotes_for(deps, session, text, language, earlier),
        tool_calls=list(session.tool_calls),
        session_id="",
        message_id=uuid.uuid4().hex,
    )


def _fallback(
    offline_answer_fn: Callable[[], Answer],
    language: Language,
    reason: str,
    attempts: list[LLMAttempt],
) -> Answer:
    """The offline answer with a notice, the LLM attempts made and the violations of the last
    one (so every surface can tell why the LLM answer was not shown)."""
    offline = offline_answer_fn()
    notice = NOTICES[reason].get(offline.language or language) or NOTICES[reason]["en"]
    last = next((a.violations for a in reversed(attempts) if a.violations), [])
    return offline.model_copy(
        update={"notice": notice, "attempts": attempts, "violations": list(last)}
    )


def _short_label(deps: Deps, config_id: str) -> str:
    cfg = _configurations(deps).get(config_id)
    label = str(getattr(cfg, "label", None) or config_id)
    label = re.sub(r"\s*\(PCIe Gen4 chassis\)", " Gen4", label.replace("NVIDIA ", ""))
    return re.sub(r"(\d+) × ", r"\1x ", label)


_FOLLOW_UPS = {
    "speed": ("How fast is {m} on {c}?", "Wie schnell ist {m} auf {c}?"),
    "nvlink": ("Do I need NVLink for {m} on {c}?", "Brauche ich NVLink für {m} auf {c}?"),
    "fit": ("Does {m} fit on {c}?", "Passt {m} auf {c}?"),
    "fp8": ("How much VRAM does {m} need in FP8?", "Wie viel VRAM braucht {m} in FP8?"),
    "price": ("What does {c} cost?", "Was kostet {c}?"),
    "vram": ("How much VRAM does the {card} have?", "Wie viel VRAM hat die {card}?"),
    "cheapest": ("What is the cheapest node for {m}?", "Was ist der günstigste Knoten für {m}?"),
}


def _model_named(deps: Deps, text: str) -> str | None:
    models = getattr(deps.catalog, "models", None) or {}
    found = [
        (text.find(str(m.name)), str(m.name))
        for m in models.values()
        if getattr(m, "name", None) and str(m.name) in text
    ]
    return min(found)[1] if found else None


def _used(deps: Deps, answer: Answer) -> tuple[str | None, list[str]]:
    """The model and the configurations the shown answer's tool calls were about (configurations
    the text names first); the model may also be one the answer names."""
    model = None
    for call in answer.tool_calls:
        result = call.result if isinstance(call.result, dict) else {}
        named = result.get("model")
        if isinstance(named, dict) and named.get("name"):
            model = model or str(named["name"])
    model = model or _model_named(deps, answer.answer)
    blob = json.dumps(
        [c.result for c in answer.tool_calls if c.name != "search_guides"], default=str
    )
    configs = [c for c in _configurations(deps) if c in blob]
    squashed = _squash(answer.answer)
    named_first = sorted(configs, key=lambda c: _squash(_short_label(deps, c)) not in squashed)
    return model, named_first


def follow_ups_for(deps: Deps, answer: Answer, limit: int = 3) -> list[str]:
    """Next questions derived from what the shown LLM answer used: its tool calls, model and
    configurations (not from the offline understanding of the question)."""
    model, configs = _used(deps, answer)
    de = answer.language == "de"
    used = {c.name for c in answer.tool_calls}
    kinds: list[str] = []
    if model and configs:
        kinds += [k for k in ("speed", "nvlink", "fit") if not _already(k, used)]
    if model and "memory_need" not in used:
        kinds.append("fp8")
    if model and not configs and "cheapest_fit" not in used:
        kinds.append("cheapest")
    if configs and "price_quote" not in used:
        kinds.append("price")
    if configs and not model and "card_facts" not in used:
        kinds.append("vram")
    out: list[str] = []
    for i, kind in enumerate(kinds):
        c = _short_label(deps, configs[min(i, len(configs) - 1)]) if configs else ""
        card = re.sub(r"^\d+x ", "", c)
        q = _FOLLOW_UPS[kind][1 if de else 0].format(m=model, c=c, card=card)
        if q.lower() != answer.question.lower() and q not in out:
            out.append(q)
    return out[:limit]


def _already(kind: str, used: set[str]) -> bool:
    return {
        "speed": "throughput_estimate" in used,
        "nvlink": "purchase_advice" in used or "tensor_parallel_cost" in used,
        "fit": "fit_check" in used or "cheapest_fit" in used,
    }[kind]


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


def _judge(
    deps: Deps,
    session: ToolSession,
    question: str,
    language: Language,
    text: str,
    n: int,
    prior: GroundingFacts | None,
    user_text: str,
) -> tuple[Answer | None, LLMAttempt]:
    """One attempt: the answer if it may be shown, and the record of the attempt."""
    names = [c.name for c in session.tool_calls]
    markup = markup_problem(text)
    if markup:
        return None, LLMAttempt(n=n, outcome="markup", detail=markup, tool_calls=names)
    answer = _build_answer(deps, session, question, language, text, prior)
    violations = check(deps, answer, prior, user_text)
    if violations:
        _log_violations("first answer" if n == 1 else "regenerated answer", question, violations)
        attempt = LLMAttempt(n=n, outcome="ungrounded", violations=violations, tool_calls=names)
        return None, attempt
    wrong_language = language_problem(answer.answer, language)
    if wrong_language:
        log.warning("LLM answer language (attempt %d): %s", n, wrong_language)
        return None, LLMAttempt(
            n=n, outcome="wrong_language", detail=wrong_language, tool_calls=names
        )
    return answer, LLMAttempt(n=n, outcome="accepted", tool_calls=names)


_REASONS: dict[AttemptOutcome, str] = {
    "ungrounded": "ungrounded",
    "wrong_language": "language",
    "markup": "ungrounded",
    "truncated": "truncated",
}


# a sentence ends at . ! ? after a letter, a bracket, a quote or %, before a space or the end of
# the text so far ("$4." is not an end: the figure may go on), or at a line break
_LIVE_END_RX = re.compile(r"(?:(?<=[^\W\d_])|(?<=[)\]*%\"'`]))[.!?]\**(?=\s|$)|\n")


class _Live:
    """The answer being written, shown sentence by sentence as each passes the checks (issue 25):
    the text up to its last finished sentence is checked like a whole answer (markup, grounding)
    and what is new of it is sent as a LiveTokenEvent. The first failing prefix stops the stream
    for this attempt; the finished answer is still checked whole before it counts."""

    def __init__(self, emit: Progress, judge: Callable[[str], Answer | None]) -> None:
        self.emit = emit
        self.judge = judge
        self.shown = ""
        self.upto = 0
        self.stopped = False

    def feed(self, text: str) -> None:
        if self.stopped:
            return
        ends = [m.end() for m in _LIVE_END_RX.finditer(text, self.upto)]
        if not ends:
            return
        end = ends[-1]
        checked = self.judge(text[:end].strip())
        self.upto = end
        if checked is None or not checked.answer.startswith(self.shown):
            self.stopped = True
            return
        new = checked.answer[len(self.shown) :]
        self.shown = checked.answer
        if new:
            _notify(self.emit, LiveTokenEvent(text=new))

    def withdraw(self, message: str) -> None:
        """The shown text is no longer the answer (the attempt failed): say so, start over."""
        if self.shown:
            _notify(self.emit, ResetEvent(message=message))
        self.shown, self.upto, self.stopped = "", 0, False


def _attempt_text(
    deps: Deps,
    session: ToolSession,
    llm: Any,
    tools: list[Any],
    messages: list[Any],
    deadline: float,
    progress: Progress | None,
    live: _Live | None = None,
) -> tuple[str | None, str | None]:
    """(text, None) or (None, why it is unfinished) for one model answer."""
    try:
        return _converse(deps, session, llm, tools, messages, deadline, progress, live), None
    except Truncated as cut:
        log.warning("LLM answer unfinished (%s): %r", cut.why, str(cut)[-80:])
        return None, f"{cut.why} (unfinished)"


_REVISING = {"en": "checking the figures… revising the answer…",
             "de": "prüfe die Zahlen… überarbeite die Antwort…"}  # fmt: skip


def _revising(progress: Progress | None, live: _Live | None, language: Language) -> None:
    """An attempt failed: a progress event, and the live text withdrawn."""
    message = _REVISING.get(language, _REVISING["en"])
    if live is not None:
        live.withdraw(message)
    _notify(progress, ProgressEvent(tool="check", stage="started", message=message))


def _live(
    deps: Deps,
    session: ToolSession,
    question: str,
    language: Language,
    prior: GroundingFacts | None,
    user_text: str,
    progress: Progress | None,
) -> _Live | None:
    """Sentence-by-sentence display, when the listener takes live text and the model streams."""
    if progress is None or not getattr(progress, "accepts_live_text", False):
        return None
    if not deps.settings.llm_streaming:
        return None

    def judge(text: str) -> Answer | None:
        if not text or markup_problem(text):
            return None
        answer = _build_answer(deps, session, question, language, text, prior)
        return None if check(deps, answer, prior, user_text) else answer

    return _Live(progress, judge)


def answer_with_llm(
    deps: Deps,
    question: str,
    history: Sequence[Any],
    language: Language,
    offline_answer_fn: Callable[[], Answer],
    *,
    prior: GroundingFacts | None = None,
    user_text: str = "",
    progress: Progress | None = None,
    reading: Any = None,
) -> Answer:
    """The LLM-mode answer (mode="llm"), or the offline answer with a `notice`, the `attempts`
    made and the last attempt's `violations` when the LLM is unavailable or its answer fails the
    checks twice (tool-call markup, JSON, an unfinished text, ungrounded, other language).
    `prior`/`user_text`: the session's earlier facts and questions (follow-ups may use them);
    `progress`: called when a tool call starts and finishes; `reading`: the question's reading,
    whose asks name the tools the user message points to. Never raises for LLM failures."""
    from langchain_core.messages import HumanMessage, SystemMessage

    llm = deps.llm
    if llm is None:
        return offline_answer_fn()
    if breaker_for(deps).state == "open":  # known to be down: offline at once, no call
        down = LLMAttempt(n=1, outcome="unavailable", detail="circuit breaker open")
        return _fallback(offline_answer_fn, language, "unavailable", [down])
    session = ToolSession(language=language)
    deadline = time.monotonic() + deps.settings.llm_deadline_s
    attempts: list[LLMAttempt] = []
    try:
        tools = bound_tools(deps, session)
        messages: list[Any] = [
            SystemMessage(system_prompt(language)),
            *_history_messages(history),
            HumanMessage(user_message(question, select_tools(question, history, reading))),
        ]
        live = _live(deps, session, question, language, prior, user_text, progress)
        for n in (1, 2):
            text, unfinished = _attempt_text(
                deps, session, llm, tools, messages, deadline, progress, live
            )
            if text is None:
                attempt = LLMAttempt(n=n, outcome="truncated", detail=unfinished)
                shown = None
            else:
                shown, attempt = _judge(
                    deps, session, question, language, text, n, prior, user_text
                )
            attempts.append(attempt)
            if shown is not None:
                return shown.model_copy(
                    update={"follow_ups": follow_ups_for(deps, shown), "attempts": attempts}
                )
            if n == 1:
                _revising(progress, live, language)
                extra = attempt.detail if attempt.outcome != "ungrounded" else None
                messages.append(
                    HumanMessage(regenerate_message(attempt.violations, language, extra=extra))
                )
        return _fallback(offline_answer_fn, language, _REASONS[attempts[-1].outcome], attempts)
    except LLMUnavailable as exc:
        log.warning(
            "LLM unavailable, answering offline: %s",
            exc,
            extra={"short": "LLM unreachable, answered offline (-v for details)"},
        )
        attempts.append(LLMAttempt(n=len(attempts) + 1, outcome="unavailable", detail=str(exc)))
        return _fallback(offline_answer_fn, language, "unavailable", attempts)
    except Exception as exc:  # never a traceback for the user
        log.exception(
            "LLM mode failed, answering offline: %s",
            exc,
            extra={"short": "LLM failed, answered offline (-v for details)"},
        )
        detail = f"{type(exc).__name__}: {exc}"
        attempts.append(LLMAttempt(n=len(attempts) + 1, outcome="unavailable", detail=detail))
        return _fallback(offline_answer_fn, language, "unavailable", attempts)
