"""BM25 over the passages with German and English Snowball stemming (bm25s + PyStemmer).

Each passage is stemmed with the stemmer of its own language. A query's language is not known
(English questions about German passages are normal), so a query is stemmed with both stemmers
and the union of the stems is scored: a German stem matches German passages, an English stem
English ones.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
LANGUAGES = {"de": "german", "en": "english"}


@cache
def _stemmer(language: str) -> Any:
    import Stemmer

    return Stemmer.Stemmer(LANGUAGES[language])


@cache
def _stopwords(language: str) -> frozenset[str]:
    from bm25s import stopwords

    words = stopwords.STOPWORDS_GERMAN if language == "de" else stopwords.STOPWORDS_EN
    return frozenset(words)


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def tokenize(text: str, language: str) -> list[str]:
    """Stems of the words of a passage in its language, stop words removed."""
    stop = _stopwords(language)
    return _stemmer(language).stemWords([w for w in words(text) if w not in stop])


def query_tokens(text: str) -> list[str]:
    """Stems of a query under both stemmers (deduplicated, order kept); a word that is a stop
    word in either language is dropped."""
    stop = _stopwords("de") | _stopwords("en")
    kept = [w for w in words(text) if w not in stop]
    out: dict[str, None] = {}
    for lang in LANGUAGES:
        for s in _stemmer(lang).stemWords(kept):
            out.setdefault(s, None)
    return list(out)


class BM25Index:
    """In-memory BM25 over (text, language) documents; scores every document for a query."""

    def __init__(self, docs: Sequence[tuple[str, str]]) -> None:
        import bm25s

        self.size = len(docs)
        self._bm25 = bm25s.BM25()
        tokens = [tokenize(text, lang) or [""] for text, lang in docs]
        if self.size:
            self._bm25.index(tokens, show_progress=False)
        self._vocab: dict[str, int] = dict(self._bm25.vocab_dict) if self.size else {}

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every document (0 where no query stem occurs)."""
        if not self.size:
            return np.zeros(0, dtype=np.float32)
        ids = [self._vocab[t] for t in query_tokens(query) if t in self._vocab and t]
        if not ids:
            return np.zeros(self.size, dtype=np.float32)
        return np.asarray(self._bm25.get_scores_from_ids(ids), dtype=np.float32)
