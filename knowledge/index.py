"""The passage index on Chroma: open the client, and sync the parsed corpus into one collection.

* Embedded by default: ``chromadb.PersistentClient(<data_dir>/chroma)`` with telemetry off.
  ``SIZING_CHROMA_URL`` (e.g. ``http://127.0.0.1:8001``) switches to ``chromadb.HttpClient``.
* Chroma never embeds anything itself (its default embedding function downloads a model): the
  collection is created with ``embedding_function=None`` and we always pass vectors.
* Idempotent: every passage carries a content hash; only new or changed passages are embedded,
  passages of deleted guides/sections are removed, passages of a guide that fails to parse are
  kept as they were (and the error is reported with file and line).
* The collection metadata records the embedder; a different embedder rebuilds the collection.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from knowledge.embeddings import Embedder
from knowledge.guide_parser import Chunk, Corpus, load_corpus

COLLECTION = "guides"
SCHEMA = "1"
EMBED_BATCH = 16

Progress = Callable[[int, int], None]


class IndexProblem(RuntimeError):
    """Base for index problems that the CLI reports as a clear message."""


class IndexMissing(IndexProblem):
    pass


class IndexMismatch(IndexProblem):
    pass


class ChromaUnavailable(IndexProblem):
    pass


def open_client(data_dir: Path, chroma_url: str | None = None) -> Any:
    """The Chroma client: a server when chroma_url is set, else the embedded store."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    settings = ChromaSettings(anonymized_telemetry=False)
    if chroma_url:
        parsed = urlparse(chroma_url if "://" in chroma_url else f"http://{chroma_url}")
        if not parsed.hostname:
            raise ChromaUnavailable(f"SIZING_CHROMA_URL {chroma_url!r} has no host")
        ssl = parsed.scheme == "https"
        port = parsed.port or (443 if ssl else 8000)
        try:
            return chromadb.HttpClient(host=parsed.hostname, port=port, ssl=ssl, settings=settings)
        except Exception as exc:  # chromadb raises ValueError/ConnectionError variants
            raise ChromaUnavailable(
                f"cannot reach the Chroma server at {chroma_url}: {exc}"
            ) from exc
    path = Path(data_dir) / "chroma"
    path.mkdir(parents=True, exist_ok=True)
    return chromadb.PersistentClient(path=str(path), settings=settings)


def location(data_dir: Path, chroma_url: str | None) -> str:
    return chroma_url if chroma_url else str(Path(data_dir) / "chroma")


def get_collection(client: Any) -> Any | None:
    """The guides collection, or None when no index was built yet."""
    try:
        return client.get_collection(COLLECTION, embedding_function=None)
    except Exception as exc:
        if type(exc).__name__ in ("NotFoundError", "InvalidCollectionException") or (
            "does not exist" in str(exc)
        ):
            return None
        raise


def _create_collection(client: Any, embedder: Embedder) -> Any:
    return client.create_collection(
        COLLECTION,
        embedding_function=None,
        configuration={"hnsw": {"space": "cosine"}},
        metadata={"embedder": embedder.name, "schema": SCHEMA, "generation": uuid.uuid4().hex},
    )


@dataclass
class IndexReport:
    added: int = 0
    updated: int = 0
    removed: int = 0
    unchanged: int = 0
    kept: int = 0  # passages of guides that failed to parse, left as they were
    embedded: int = 0
    guides: int = 0
    passages: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    rebuilt: bool = False
    rebuild_reason: str | None = None
    embedder: str = ""
    location: str = ""
    seconds: float = 0.0
    embed_seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.removed or self.rebuilt)


def sync_collection(
    client: Any,
    corpus: Corpus,
    embedder: Embedder,
    *,
    rebuild: bool = False,
    progress: Progress | None = None,
) -> IndexReport:
    """Bring the collection in line with the corpus; embed only what changed."""
    start = time.perf_counter()
    report = IndexReport(embedder=embedder.name)
    report.errors = [e.as_dict() for e in corpus.errors]
    report.warnings = corpus.warnings
    report.guides = len(corpus.guides)

    collection = get_collection(client)
    if collection is not None:
        meta = collection.metadata or {}
        reason = None
        if rebuild:
            reason = "rebuild requested"
        elif meta.get("embedder") != embedder.name:
            reason = f"embedder changed: {meta.get('embedder')!r} -> {embedder.name!r}"
        elif str(meta.get("schema")) != SCHEMA:
            reason = f"index schema changed: {meta.get('schema')!r} -> {SCHEMA!r}"
        if reason:
            client.delete_collection(COLLECTION)
            collection = None
            report.rebuilt = True
            report.rebuild_reason = reason
    if collection is None:
        collection = _create_collection(client, embedder)

    existing = collection.get(include=["metadatas"])
    old: dict[str, dict[str, Any]] = {
        i: (m or {}) for i, m in zip(existing["ids"], existing["metadatas"] or [], strict=False)
    }
    broken_paths = {e.path for e in corpus.errors}

    chunks = corpus.chunks
    wanted: dict[str, Chunk] = {}
    for c in chunks:
        wanted[c.id] = c
    to_embed: list[Chunk] = []
    meta_only: list[Chunk] = []
    for cid, c in wanted.items():
        prev = old.get(cid)
        if prev is None:
            to_embed.append(c)
            report.added += 1
        elif prev.get("hash") != c.content_hash:
            to_embed.append(c)
            report.updated += 1
        elif prev != c.metadata():
            meta_only.append(c)
            report.updated += 1
        else:
            report.unchanged += 1

    stale = []
    for cid, meta in old.items():
        if cid in wanted:
            continue
        if meta.get("path") in broken_paths:
            report.kept += 1
            continue
        stale.append(cid)
    if stale:
        collection.delete(ids=stale)
        report.removed = len(stale)

    if meta_only:
        collection.update(
            ids=[c.id for c in meta_only],
            metadatas=[c.metadata() for c in meta_only],
        )

    t_embed = time.perf_counter()
    total = len(to_embed)
    if progress:
        progress(0, total)
    for startpos in range(0, total, EMBED_BATCH):
        batch = to_embed[startpos : startpos + EMBED_BATCH]
        vectors = embedder.embed_passages([c.search_text for c in batch])
        collection.upsert(
            ids=[c.id for c in batch],
            embeddings=vectors,
            documents=[c.text for c in batch],
            metadatas=[c.metadata() for c in batch],
        )
        report.embedded += len(batch)
        if progress:
            progress(report.embedded, total)
    report.embed_seconds = round(time.perf_counter() - t_embed, 3)
    if report.added or report.updated or report.removed:
        # a new generation tells running retrievers to re-read the collection
        meta = {k: v for k, v in (collection.metadata or {}).items() if not k.startswith("hnsw:")}
        collection.modify(metadata={**meta, "generation": uuid.uuid4().hex})
    report.passages = collection.count()
    report.seconds = round(time.perf_counter() - start, 3)
    return report


def stored_vectors(client: Any) -> list[tuple[str, Any]]:
    """(embedded text, vector) of every passage in the collection; [] when there is none."""
    from knowledge.guide_parser import search_text

    collection = get_collection(client)
    if collection is None:
        return []
    got = collection.get(include=["documents", "metadatas", "embeddings"])
    out = []
    for doc, meta, vec in zip(got["documents"], got["metadatas"], got["embeddings"], strict=False):
        hp = str(meta.get("heading_path") or "")
        path = tuple(hp.split(" › ")) if hp else ()
        out.append((search_text(str(meta.get("title", "")), path, doc or ""), vec))
    return out


def build_index(
    guides_dir: Path | list[Path],
    data_dir: Path,
    embedder: Embedder,
    *,
    chroma_url: str | None = None,
    rebuild: bool = False,
    progress: Progress | None = None,
    client: Any = None,
) -> IndexReport:
    """Parse the guides and sync them into Chroma. Returns what changed (and the parse errors).

    ``seconds`` covers parsing, opening the store and syncing; not the one-off Python import
    of chromadb (~1-3 s cold), which happens before the clock starts."""
    import chromadb  # noqa: F401  (import cost is not index work)

    start = time.perf_counter()
    if isinstance(guides_dir, list):
        corpus = load_corpus([Path(p).resolve() for p in guides_dir])
    else:
        corpus = load_corpus(Path(guides_dir).resolve())
    if client is None:
        client = open_client(data_dir, chroma_url)
    report = sync_collection(client, corpus, embedder, rebuild=rebuild, progress=progress)
    report.location = location(data_dir, chroma_url)
    report.seconds = round(time.perf_counter() - start, 3)
    return report
