"""BM25 over the passages with German and English Snowball stemming (PyStemmer; bm25s's
stop-word lists and scoring, in compact numpy arrays).

Each passage is stemmed with the stemmer of its own language. A query's language is not known
(English questions about German passages are normal), so a query is stemmed with both stemmers
and the union of the stems is scored: a German stem matches German passages, an English stem
English ones.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterable, Mapping
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
    """BM25 (Lucene variant, k1=1.5, b=0.75: bm25s's defaults and scores) over (text, language)
    documents, kept as one compressed sparse matrix in numpy arrays.

    Per stem, the documents it occurs in (``indices``, int32) and its BM25 weight there
    (``weights``, float32), rows delimited by ``indptr``: no per-document Python objects, so
    14.5k passages take ~5 MB and building the index holds no token lists beyond one document's.
    A query adds up the rows of its stems."""

    def __init__(self, docs: Iterable[tuple[str, str]], k1: float = 1.5, b: float = 0.75) -> None:
        vocab: dict[str, int] = {"": 0}  # "": the one token of a document without any
        seen: dict[str, dict[str, int]] = {lang: {} for lang in LANGUAGES}  # word -> id, -1: stop
        terms = array("i")  # the stem id of every token, documents one after the other
        lengths = array("i")  # tokens per document
        for text, lang in docs:
            ws = words(text)
            table = seen[lang]
            new = [w for w in set(ws) if w not in table]
            if new:  # stem each distinct word once per language
                stop = _stopwords(lang)
                for w, s in zip(new, _stemmer(lang).stemWords(new), strict=True):
                    table[w] = -1 if w in stop else vocab.setdefault(s, len(vocab))
            before = len(terms)
            terms.extend(filter((-1).__ne__, map(table.__getitem__, ws)))
            if len(terms) == before:
                terms.append(0)
            lengths.append(len(terms) - before)
        self.size = len(lengths)
        self._vocab = vocab
        self._build(np.frombuffer(terms, dtype=np.int32), np.frombuffer(lengths, np.int32), k1, b)

    def _build(self, terms: np.ndarray, lengths: np.ndarray, k1: float, b: float) -> None:
        n = max(self.size, 1)
        docs = np.repeat(np.arange(self.size, dtype=np.int64), lengths)
        # one entry per (stem, document) with its term frequency, sorted by stem then document
        pairs, tf = np.unique(terms.astype(np.int64) * n + docs, return_counts=True)
        term, doc = pairs // n, pairs % n
        df = np.bincount(term, minlength=len(self._vocab))
        idf = np.log(1 + (self.size - df + 0.5) / (df + 0.5))
        avg = float(lengths.mean()) if self.size else 1.0
        norm = k1 * ((1 - b) + b * lengths[doc] / avg)
        self._weights = (idf[term] * tf / (norm + tf)).astype(np.float32)
        self._indices = doc.astype(np.int32)
        self._indptr = np.concatenate(([0], np.cumsum(df))).astype(np.int64)

    def arrays(self) -> dict[str, np.ndarray]:
        """The index as named arrays (the vocabulary as one string, stems in id order);
        `from_arrays` reads them back."""
        return {
            "vocab": np.array("\n".join(self._vocab)),  # a stem never holds a newline
            "weights": self._weights,
            "indices": self._indices,
            "indptr": self._indptr,
            "size": np.array(self.size),
        }

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray]) -> BM25Index:
        index = cls.__new__(cls)
        index.size = int(arrays["size"])
        stems = str(arrays["vocab"]).split("\n")
        index._vocab = dict(zip(stems, range(len(stems)), strict=True))
        index._weights = arrays["weights"]
        index._indices = arrays["indices"]
        index._indptr = arrays["indptr"]
        return index

    @property
    def nbytes(self) -> int:
        """Memory of the index's arrays (the vocabulary's strings not counted)."""
        return self._weights.nbytes + self._indices.nbytes + self._indptr.nbytes

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every document (0 where no query stem occurs)."""
        out = np.zeros(self.size, dtype=np.float32)
        for t in query_tokens(query):
            term = self._vocab.get(t) if t else None
            if term is not None:
                start, end = self._indptr[term], self._indptr[term + 1]
                out[self._indices[start:end]] += self._weights[start:end]  # unique per stem
        return out
