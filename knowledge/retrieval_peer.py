"""The LangChain peer our retrieval is measured against: what a LangChain RAG tutorial builds.

    store = build_peer(load_corpus(GUIDES_DIR).chunks, embedder)   # Chroma.from_documents
    peer, ours = score_peer(store, questions), score_ours(retriever, questions)

The peer gets the same passages (each passage's search text, the text our index embeds, as the
document's content, our metadata beside it) and the same embedder (wrapped as LangChain
`Embeddings`: Chroma's default embedding function would download a model), in an in-memory
Chroma collection, queried through ``vectorstore.as_retriever(search_kwargs={"k": 10})``;
questions that search one language pass Chroma's ``filter``. Scores are recall@1/@3 and MRR over
the top 10, as `knowledge.retrieval_eval.evaluate`, plus the time per query (query embeddings
computed beforehand on both sides).

`langchain-chroma` is in the optional `bench` dependency group (installed by `make install`);
`peer_missing()` says why the comparison cannot run.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from knowledge.embeddings import Embedder
from knowledge.guide_parser import Chunk
from knowledge.retrieval import Retriever
from knowledge.retrieval_eval import ModeScore, Question, evaluate

DEPTH = 10


def peer_missing() -> str | None:
    """None when the peer can be built, else the reason it cannot."""
    try:
        import langchain_chroma  # noqa: F401
    except ImportError:
        return "langchain-chroma is not installed (the `bench` dependency group: make install)"
    return None


class QueryCache:
    """An embedder whose query vectors are computed once, so neither side's timing includes the
    model (both sides get this same object)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name
        self._queries: dict[str, np.ndarray] = {}

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self.inner.embed_passages(texts), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        vec = self._queries.get(text)
        if vec is None:
            vec = self._queries[text] = self.inner.embed_query(text)
        return vec


def _langchain_embeddings(embedder: Embedder) -> Any:
    """Our embedder as LangChain `Embeddings` (e5's query/passage prefixes stay ours)."""
    from langchain_core.embeddings import Embeddings

    class OurEmbeddings(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [[float(x) for x in v] for v in embedder.embed_passages(texts)]

        def embed_query(self, text: str) -> list[float]:
            return [float(x) for x in embedder.embed_query(text)]

    return OurEmbeddings()


def build_peer(chunks: Iterable[Chunk], embedder: Embedder) -> Any:
    """A langchain-chroma vector store over the passages, as the tutorials build it."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings
    from langchain_chroma import Chroma
    from langchain_core.documents import Document

    documents = [
        Document(page_content=c.search_text, metadata=c.metadata(), id=c.id) for c in chunks
    ]
    client = chromadb.EphemeralClient(settings=ChromaSettings(anonymized_telemetry=False))
    return Chroma.from_documents(
        documents,
        embedding=_langchain_embeddings(embedder),
        client=client,
        collection_name=f"langchain-peer-{uuid.uuid4().hex[:8]}",
    )


def _rank(found: Iterable[tuple[str, str]], q: Question) -> int | None:
    """1-based rank of the first (guide, anchor) that answers q."""
    return next(
        (i for i, (g, a) in enumerate(found, start=1) if g == q.guide and a in q.anchors), None
    )


def score_peer(store: Any, questions: Sequence[Question], embedder: Embedder) -> ModeScore:
    """recall@1/@3, MRR and ms per query of the peer's retriever (top DEPTH)."""
    retrievers: dict[str | None, Any] = {}
    score = ModeScore("langchain-chroma", n=len(questions))
    hits1 = hits3 = 0
    rr = elapsed = 0.0
    for q in questions:
        if q.search_lang not in retrievers:
            kwargs: dict[str, Any] = {"k": DEPTH}
            if q.search_lang:
                kwargs["filter"] = {"language": q.search_lang}
            retrievers[q.search_lang] = store.as_retriever(search_kwargs=kwargs)
        embedder.embed_query(q.q)  # not what this measures
        t = time.perf_counter()
        docs = retrievers[q.search_lang].invoke(q.q)
        elapsed += time.perf_counter() - t
        rank = _rank(((d.metadata.get("guide"), d.metadata.get("anchor")) for d in docs), q)
        if rank is not None:
            rr += 1.0 / rank
            hits1 += rank == 1
            hits3 += rank <= 3
    n = max(len(questions), 1)
    score.recall_at_1, score.recall_at_3, score.mrr = hits1 / n, hits3 / n, rr / n
    score.ms_per_query = 1000 * elapsed / n
    return score


def score_ours(retriever: Retriever, questions: Sequence[Question]) -> ModeScore:
    """The same figures for our hybrid retrieval (top DEPTH, one passage per section)."""
    return evaluate(retriever, list(questions), modes=("hybrid",), depth=DEPTH)["hybrid"]
