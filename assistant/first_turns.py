"""Answers to first questions, kept: the same opening question gets the same checked answer.

A conversation's first turn depends only on the question, the requested language and what the
assistant knows (the catalog and guides of this Assistant, the index generation its searches
read). Visitors open with the same few questions (the widget's suggestions, "Do I need
NVLink?"), and evaluation runs ask them again and again; composing and checking such an answer
again costs ~0.5 ms of the ~0.7 ms a warm answer takes (issue 15). So an offline first turn's
checked answer is kept (a bounded LRU, `SIZING_FIRST_TURN_CACHE`; 0 turns it off), and a repeat
gets a copy with its own session and message id; its turn is stored as any other.

Not kept: answers written by an LLM, answers with a notice (the embedder was busy and the
guides were searched by keywords only, the grounding check withheld the answer: those say
something about this moment), and follow-ups (they depend on the conversation).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from assistant.answer import Answer
from knowledge.lru import LRU


@dataclass(frozen=True)
class FirstTurn:
    """A checked first answer and what its turn stores besides it."""

    answer: Answer
    slots: Any  # assistant.sessions.Slots
    facts: Any  # assistant.grounding.GroundingFacts


class FirstTurns:
    """Kept first turns by (question, language, index generation); `size` 0 keeps none."""

    def __init__(self, size: int) -> None:
        self.size = max(0, size)
        self._kept = LRU(self.size)
        self.hits = 0

    def get(self, key: tuple[Any, ...]) -> FirstTurn | None:
        turn: FirstTurn | None = self._kept.get(key) if self.size else None
        if turn is not None:
            self.hits += 1
        return turn

    def put(self, key: tuple[Any, ...], turn: FirstTurn) -> None:
        if self.size and keepable(turn.answer):
            self._kept.put(key, turn)

    def __len__(self) -> int:
        return len(self._kept)


def keepable(answer: Answer) -> bool:
    """An offline answer that says nothing about this moment (no notice, no violation)."""
    return answer.mode == "offline" and not answer.notice and not answer.violations
