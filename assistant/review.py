"""The site team's review loop: rated answers and content gaps, read from the session and feedback
stores through their public methods (so it works on whatever store they use).

    rows = rated_answers(feedback_store, session_store, ReviewFilter(rating=-1, language="de"))
    gaps = content_gaps(session_store, embedder)   # clarifying questions, unknown models, ...

Used by `sizing feedback list/export/gaps` and `GET /api/feedback`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, get_args

from pydantic import BaseModel, Field

from assistant.answer import Answer, Citation, GroundingViolation

Rating = Literal[1, -1]
GapKind = Literal[
    "clarify",
    "unknown_model",
    "off_topic",
    "no_citation",
    "llm_fallback",
    "rated_wrong",
    "rated_unclear",
    "rated_too_long",
    "rated_missed",
    "rated_down",
]
GAP_KINDS: tuple[GapKind, ...] = get_args(GapKind)
# a 👎's reason (store.feedback.REASONS) as the gap it points at; a 👎 without one: rated_down
RATED_KINDS: dict[str, GapKind] = {
    "wrong": "rated_wrong",
    "unclear": "rated_unclear",
    "too_long": "rated_too_long",
    "missed_question": "rated_missed",
}


class RatedAnswer(BaseModel):
    """One rated answer with everything a reviewer needs to judge it."""

    session_id: str
    message_id: str
    rating: Rating
    comment: str | None = None
    reasons: list[str] = Field(
        default=[],
        description="what a 👎 said was wrong: wrong, unclear, too_long, missed_question",
    )
    surface: str = Field(description="where the vote came from: web, api, slack, ...")
    rated_at: str
    question: str
    answer: str | None = Field(default=None, description="None: the turn is no longer stored")
    language: str | None = None
    mode: str | None = None
    citations: list[Citation] = []
    violations: list[GroundingViolation] = []
    notice: str | None = None
    conversation: list[str] = Field(
        default=[], description="the earlier questions of the session, oldest first"
    )


@dataclass
class ReviewFilter:
    rating: Rating | None = None
    since: str | None = None  # ISO date or timestamp (inclusive)
    until: str | None = None  # ISO date or timestamp (inclusive: the whole day for a date)
    language: str | None = None
    surface: str | None = None
    limit: int = 200

    def keeps(self, row: RatedAnswer) -> bool:
        if self.rating is not None and row.rating != self.rating:
            return False
        if self.language and row.language != self.language:
            return False
        if self.surface and row.surface != self.surface:
            return False
        day = row.rated_at[:10]
        if self.since and row.rated_at < self.since and day < self.since:
            return False
        return not (self.until and row.rated_at > self.until and day > self.until)


def rated_answers(
    feedback: Any, sessions: Any, flt: ReviewFilter | None = None, scan: int = 100_000
) -> list[RatedAnswer]:
    """Rated answers, newest vote first, joined with the stored answer and its conversation."""
    flt = flt or ReviewFilter()
    out: list[RatedAnswer] = []
    for fb in feedback.all(limit=scan):
        if flt.rating is not None and fb.rating != flt.rating:
            continue
        if flt.surface and fb.source != flt.surface:
            continue
        row = _join(fb, sessions)
        if flt.keeps(row):
            out.append(row)
            if len(out) >= flt.limit:
                break
    return out


def _join(fb: Any, sessions: Any) -> RatedAnswer:
    answer: Answer | None = sessions.answer(fb.message_id)
    base = {
        "session_id": fb.session_id,
        "message_id": fb.message_id,
        "rating": fb.rating,
        "comment": fb.comment,
        "reasons": list(getattr(fb, "reasons", []) or []),
        "surface": fb.source,
        "rated_at": fb.created_at,
    }
    if answer is None:
        return RatedAnswer(**base, question="(answer no longer stored)")
    return RatedAnswer(
        **base,
        question=answer.question,
        answer=answer.answer,
        language=answer.language,
        mode=answer.mode,
        citations=answer.citations,
        violations=answer.violations,
        notice=answer.notice,
        conversation=_earlier_questions(sessions, fb.session_id, fb.message_id),
    )


def _earlier_questions(sessions: Any, session_id: str, message_id: str) -> list[str]:
    try:
        session = sessions.get(session_id, max_turns=50)
    except Exception:  # an id the store no longer accepts: no conversation
        return []
    if session is None:
        return []
    out: list[str] = []
    for turn in session.turns:
        if turn.message_id == message_id:
            return out
        out.append(turn.question)
    return out


# --------------------------------------------------------------------------- content gaps


def _phrase_rx(*keys: str) -> re.Pattern[str] | None:
    """A regex for the offline composer's phrases `keys` (placeholders match anything); a key
    `scope.K` is phrase K of the out-of-scope answer (assistant/compose/scope.py)."""
    from assistant.compose import scope
    from assistant.texts import PHRASES

    alts = []
    for key in keys:
        table, name = (scope.PHRASES, key[6:]) if key.startswith("scope.") else (PHRASES, key)
        for text in table.get(name, ()):
            head = re.split(r"\{[^}]*\}", text.replace("**", ""))
            parts = [re.escape(p.strip()[:40]) for p in head if p.strip()][:2]
            if parts:
                alts.append(r".{0,80}?".join(parts))
    return re.compile("|".join(alts), re.IGNORECASE) if alts else None


_UNKNOWN_EXTRA = re.compile(r"don't know the model|kenne ich nicht|not in the catalog", re.I)


def gap_kinds(answer: Answer) -> list[GapKind]:
    """Why an answer points at missing content (empty: it does not)."""
    text = answer.answer.replace("**", "")
    kinds: list[GapKind] = []
    unknown = _phrase_rx("unknown_model")
    off = _phrase_rx("off_topic", "scope.outside")
    ask = _phrase_rx("ask_model", "ask_workload", "ask_configuration", "speed_which_model")
    if (unknown and unknown.search(text)) or _UNKNOWN_EXTRA.search(text):
        kinds.append("unknown_model")
    elif off and off.search(text) and not answer.tool_calls:
        kinds.append("off_topic")
    elif (ask and ask.search(text)) or (
        not answer.tool_calls and not answer.prices and text.rstrip().endswith("?")
    ):
        kinds.append("clarify")
    if not answer.citations and "off_topic" not in kinds:
        kinds.append("no_citation")
    if answer.mode == "offline" and answer.notice and "grounding" not in answer.notice.lower():
        kinds.append("llm_fallback")
    return kinds


def rated_kinds(votes: Sequence[Any]) -> list[GapKind]:
    """The gaps the 👎 votes on one answer point at: one per reason given, else rated_down."""
    kinds: list[GapKind] = []
    for vote in votes:
        if vote.rating != -1:
            continue
        for reason in vote.reasons or []:
            kind = RATED_KINDS.get(reason)
            if kind and kind not in kinds:
                kinds.append(kind)
        if not vote.reasons and "rated_down" not in kinds:
            kinds.append("rated_down")
    return kinds


class GapGroup(BaseModel):
    kind: GapKind
    count: int = Field(description="questions in this group")
    example: str = Field(description="the most typical question of the group")
    questions: list[str] = Field(description="distinct questions, most frequent first")
    languages: dict[str, int] = {}
    comments: list[str] = Field(default=[], description="what the 👎 votes wrote (rated kinds)")


def content_gaps(
    answers: Iterable[Answer],
    embedder: Any,
    threshold: float = 0.9,
    max_questions: int = 10,
    feedback: Iterable[Any] = (),
) -> list[GapGroup]:
    """Answers that point at missing content, grouped per kind by question similarity (cosine of
    the embedder's query vectors >= threshold), largest group first. `feedback`: the stored
    votes (`store.feedback.Feedback`); a 👎 adds its answer to the kind of each reason given
    (rated_wrong, rated_unclear, rated_too_long, rated_missed; rated_down without one), its
    comment to the group."""
    import numpy as np

    votes: dict[str, list[Any]] = {}
    for vote in feedback:
        votes.setdefault(vote.message_id, []).append(vote)
    by_kind: dict[GapKind, list[Answer]] = {k: [] for k in GAP_KINDS}
    for a in answers:
        for k in gap_kinds(a) + rated_kinds(votes.get(a.message_id, [])):
            by_kind[k].append(a)
    groups: list[GapGroup] = []
    for kind, items in by_kind.items():
        if not items:
            continue
        questions = [a.question.strip() for a in items]
        distinct = sorted(set(questions), key=lambda q: (-questions.count(q), q))
        vectors = np.stack([embedder.embed_query(q) for q in distinct])
        for members in _cluster(vectors, threshold):
            qs = [distinct[i] for i in members]
            langs: dict[str, int] = {}
            said: list[str] = []
            for a in items:
                if a.question.strip() in qs:
                    langs[a.language] = langs.get(a.language, 0) + 1
                    if kind.startswith("rated_"):
                        said += [v.comment for v in votes.get(a.message_id, []) if v.comment]
            groups.append(
                GapGroup(
                    kind=kind,
                    count=sum(questions.count(q) for q in qs),
                    example=qs[0],
                    questions=qs[:max_questions],
                    languages=langs,
                    comments=list(dict.fromkeys(said))[:max_questions],
                )
            )
    groups.sort(key=lambda g: (-g.count, GAP_KINDS.index(g.kind), g.example))
    return groups


def _cluster(vectors: Any, threshold: float) -> list[list[int]]:
    """Greedy single pass: each vector joins the first group whose leader is similar enough."""
    leaders: list[int] = []
    groups: list[list[int]] = []
    for i in range(len(vectors)):
        for g, lead in enumerate(leaders):
            if float(vectors[i] @ vectors[lead]) >= threshold:
                groups[g].append(i)
                break
        else:
            leaders.append(i)
            groups.append([i])
    return groups


def parse_when(value: str | None) -> str | None:
    """'2026-12-03' or an ISO timestamp, as the stores write it (UTC); None stays None."""
    if not value:
        return None
    try:
        dt = datetime.fromisoformat(value)
    except ValueError as exc:
        raise ValueError(f"not a date: {value!r} (use YYYY-MM-DD)") from exc
    if len(value) <= 10:
        return value
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.astimezone(UTC).isoformat(timespec="seconds")


def stored_answers(sessions: Any, limit: int = 100_000) -> Sequence[Answer]:
    """Every stored answer, newest first (the session store's `recent_answers`)."""
    return [a for _, a in sessions.recent_answers(limit=limit)]
