"""LLM mode's two paths (issue 23, point 6), chosen from the LLM reader's reading.

    answer, slots = answer_llm_mode(assistant, question, rules_reading, session, sid,
                                    offline_answer, offline_slots, progress)

- **LLM reader → planner** when every ask of the LLM reading is one the flow table answers (fit,
  price, speed, context, cheapest, compare, nvlink), nothing is unread and there is a model or
  hardware to size (`planner_covers`). The answer is the planner's, computed from the LLM
  reading alone: `mode` stays "offline" (no model wrote a word of it), `reading.reader` is "llm"
  and `attempts` ends with one `read` attempt naming the path and the asks.
- **Free LLM answer** with tools, grounding-checked (`assistant/llm_answer.py`) otherwise:
  pastes of logs, open explanations, questions with unread parts, and a reader output that is
  still invalid after one retry. Its offline fallback is the rule reading's answer.
- The reader unreachable (transport error, breaker open, deadline): the rule reading's offline
  answer with the "unavailable" notice, at once (no second call to a provider that just failed).
With `SIZING_LLM_READER=false`, or when the user edited the reading (`--set`), no reader call
is made: the free answer over the rule reading, as before the reader existed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from assistant.answer import Answer, LLMAttempt, ProgressEvent
from assistant.reading.llm import ReaderResult, planner_covers, read_with_llm
from assistant.reading.model import Reading

PLANNER_DETAIL = "path: LLM reader -> planner (asks: {kinds})"


def answer_llm_mode(
    assistant: Any,
    question: str,
    rules: Reading,
    session: Any,
    sid: str,
    offline: Answer,
    slots: Any,
    progress: Callable[[ProgressEvent], None] | None = None,
    *,
    edited: bool = False,
) -> tuple[Answer, Any]:
    """The LLM-mode answer to `question` and the slots the session keeps (see the module doc)."""
    from assistant.service import _with_reading

    deps = assistant.deps
    result = ReaderResult()
    if deps.settings.llm_reader and not edited:
        previous, chosen, priced = last_reading(assistant.sessions, session)
        result = read_with_llm(
            deps, question, rules, previous=previous, chosen=chosen, priced=priced
        )
    if result.reading is not None and planner_covers(result):
        answer, slots = assistant._planned(result.reading, sid)
        return _noted(answer, result), slots
    if any(a.outcome == "unavailable" for a in result.attempts):
        return _unavailable(offline, result), slots
    reading = result.reading or rules  # names the tools its asks need (issue 25)
    answer = assistant._llm(question, session, rules.language, offline, sid, progress, reading)
    return _with_reading(answer, rules, deps.catalog), slots


def _noted(answer: Answer, result: ReaderResult) -> Answer:
    """The planner's answer, saying which path made it."""
    read = LLMAttempt(
        n=len(result.attempts) + 1,
        outcome="read",
        detail=PLANNER_DETAIL.format(kinds=", ".join(result.kinds)),
    )
    out = answer.model_copy(update={"attempts": [*result.attempts, read]})
    out._chosen = list(answer._chosen)
    return out


def _unavailable(offline: Answer, result: ReaderResult) -> Answer:
    from assistant.llm_answer import NOTICES

    out = offline.model_copy(
        update={"notice": NOTICES["unavailable"][offline.language], "attempts": result.attempts}
    )
    out._chosen = list(offline._chosen)
    return out


def last_reading(sessions: Any, session: Any) -> tuple[Reading | None, list[str], list[str]]:
    """The session's last reading, the configurations its answer chose and those it priced
    (what "that" and "the cheaper one" can mean)."""
    if session is None or not session.turns:
        return None, [], []
    stored = sessions.answer(session.turns[-1].message_id)
    if stored is None:
        return None, [], []
    priced = [f"{p.configuration} (${p.usd_per_month:,.0f}/month)" for p in stored.prices]
    return stored.reading, list(session.slots.answered), priced
