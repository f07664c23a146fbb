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

import sqlite3
import time
import uuid
from collections.abc import Callable
from contextlib import closing
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import numpy as np

from knowledge.embeddings import Embedder
from knowledge.guide_parser import Chunk, Corpus, load_corpus
from knowledge.packed import FORMAT as PACKED_FORMAT
from knowledge.packed import PackedRows, pack_rows

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
    """Bring the collection in line with the corpus; embed only what changed.

    Never half-done: all vectors are computed before the collection is touched, and a rebuild
    fills a new collection that replaces the old one only when it is complete. If embedding
    fails (EmbeddingError), the index stays as it was."""
    start = time.perf_counter()
    report = IndexReport(embedder=embedder.name)
    report.errors = [e.as_dict() for e in corpus.errors]
    report.warnings = corpus.warnings
    report.guides = len(corpus.guides)

    current = get_collection(client)
    reason = None
    if current is not None:
        meta = current.metadata or {}
        if rebuild:
            reason = "rebuild requested"
        elif meta.get("embedder") != embedder.name:
            reason = f"embedder changed: {meta.get('embedder')!r} -> {embedder.name!r}"
        elif str(meta.get("schema")) != SCHEMA:
            reason = f"index schema changed: {meta.get('schema')!r} -> {SCHEMA!r}"
    fresh = current is None or reason is not None

    old: dict[str, dict[str, Any]] = {}
    if current is not None and not fresh:
        existing = current.get(include=["metadatas"])
        old = {
            i: (m or {}) for i, m in zip(existing["ids"], existing["metadatas"] or [], strict=False)
        }
    broken_paths = {e.path for e in corpus.errors}

    wanted: dict[str, Chunk] = {c.id: c for c in corpus.chunks}
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

    # 1. embed (the step that can fail), nothing written yet
    t_embed = time.perf_counter()
    total = len(to_embed)
    vectors: list[Any] = []
    if progress:
        progress(0, total)
    for startpos in range(0, total, EMBED_BATCH):
        batch = to_embed[startpos : startpos + EMBED_BATCH]
        vectors.extend(embedder.embed_passages([c.search_text for c in batch]))
        if progress:
            progress(len(vectors), total)
    report.embedded = len(vectors)
    report.embed_seconds = round(time.perf_counter() - t_embed, 3)

    # 2. write
    if fresh:
        target = _fresh_collection(client, embedder)
        # passages of broken guides survive a rebuild only if their vectors can be re-made
        if current is not None:
            _kept_from_old(current, broken_paths, target, embedder, report)
    else:
        target = current
    if stale:
        target.delete(ids=stale)
        report.removed = len(stale)
    if meta_only:
        target.update(ids=[c.id for c in meta_only], metadatas=[c.metadata() for c in meta_only])
    for startpos in range(0, total, 256):
        batch = to_embed[startpos : startpos + 256]
        target.upsert(
            ids=[c.id for c in batch],
            embeddings=vectors[startpos : startpos + 256],
            documents=[c.text for c in batch],
            metadatas=[c.metadata() for c in batch],
        )
    if fresh:
        if current is not None:
            client.delete_collection(COLLECTION)
            report.rebuilt = True
            report.rebuild_reason = reason
        target.modify(name=COLLECTION)
        target = get_collection(client)
    elif report.added or report.updated or report.removed:
        # a new generation tells running retrievers to re-read the collection
        meta = {k: v for k, v in (target.metadata or {}).items() if not k.startswith("hnsw:")}
        target.modify(metadata={**meta, "generation": uuid.uuid4().hex})
    report.passages = target.count()
    report.seconds = round(time.perf_counter() - start, 3)
    return report


def _fresh_collection(client: Any, embedder: Embedder) -> Any:
    """An empty collection under a temporary name (renamed to COLLECTION when complete)."""
    for c in client.list_collections():
        name = c if isinstance(c, str) else c.name
        if name.startswith(f"{COLLECTION}-building-"):
            client.delete_collection(name)  # leftovers of an interrupted build
    return client.create_collection(
        f"{COLLECTION}-building-{uuid.uuid4().hex[:12]}",
        embedding_function=None,
        configuration={"hnsw": {"space": "cosine"}},
        metadata={"embedder": embedder.name, "schema": SCHEMA, "generation": uuid.uuid4().hex},
    )


def _kept_from_old(
    old: Any, broken_paths: set[str], target: Any, embedder: Embedder, report: IndexReport
) -> None:
    """On a rebuild, carry over the passages of guides that fail to parse now (re-embedded)."""
    if not broken_paths:
        return
    got = old.get(include=["documents", "metadatas"])
    from knowledge.guide_parser import search_text

    ids, docs, metas = [], [], []
    for i, d, m in zip(got["ids"], got["documents"], got["metadatas"], strict=False):
        if m and m.get("path") in broken_paths:
            ids.append(i)
            docs.append(d or "")
            metas.append(m)
    if not ids:
        return
    texts = []
    for d, m in zip(docs, metas, strict=True):
        hp = str(m.get("heading_path") or "")
        texts.append(search_text(str(m.get("title", "")), tuple(hp.split(" › ")) if hp else (), d))
    target.upsert(
        ids=ids, embeddings=embedder.embed_passages(texts), documents=docs, metadatas=metas
    )
    report.kept += len(ids)


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
    if not chroma_url:
        generation = store_generation(data_dir)
        snap = snapshot_path(data_dir)
        if generation and (report.changed or snapshot_generation(snap) != generation):
            collection = get_collection(client)
            if collection is not None:
                write_snapshot(collection_rows(collection), snap)
    report.location = location(data_dir, chroma_url)
    report.seconds = round(time.perf_counter() - start, 3)
    return report


# --- the snapshot: what a retriever reads, without importing chromadb ---------------------------
#
# Importing chromadb costs more than a whole `sizing ask`, and reading 14.5k passages through it
# holds ~400 MB. The embedded store therefore keeps beside it one .npz with everything a retriever
# reads (ids, texts, metadata, vectors) and the collection's generation; `store_generation` reads
# the live generation from Chroma's SQLite file (read-only), so a retriever knows whether the
# snapshot is current without chromadb. Any doubt (no file, other generation or format,
# unreadable) falls back to reading the collection through chromadb, which rewrites the snapshot.
#
# The passages are packed (`knowledge.packed.PackedRows`): records, vectors, the columns a search
# filters by and the BM25 index, all numpy arrays. Reading the snapshot allocates those arrays
# and nothing per passage; a retriever decodes a passage's record only when it returns it.

SNAPSHOT = "guides-snapshot.npz"
SNAPSHOT_FORMAT = PACKED_FORMAT


def snapshot_path(data_dir: Path) -> Path:
    return Path(data_dir) / "chroma" / SNAPSHOT


def store_generation(data_dir: Path) -> str | None:
    """The guides collection's generation in the embedded store, or None (no store, no
    collection, or a Chroma schema this query does not know)."""
    db = Path(data_dir) / "chroma" / "chroma.sqlite3"
    if not db.exists():
        return None
    try:
        with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=2)) as con:
            row = con.execute(
                "SELECT m.str_value FROM collections c JOIN collection_metadata m"
                " ON m.collection_id = c.id WHERE c.name = ? AND m.key = 'generation'",
                (COLLECTION,),
            ).fetchone()
    except sqlite3.Error:
        return None
    return str(row[0]) if row and row[0] else None


def collection_rows(collection: Any) -> dict[str, Any]:
    """What a retriever needs of a collection: metadata, ids, documents, metadatas, vectors."""
    got = collection.get(include=["documents", "metadatas", "embeddings"])
    rows = got["embeddings"]
    vectors = (
        np.asarray(rows, dtype=np.float32)
        if rows is not None and len(rows)
        else np.zeros((0, 0), np.float32)
    )
    return {
        "metadata": dict(collection.metadata or {}),
        "ids": list(got["ids"]),
        "documents": [d or "" for d in got["documents"] or []],
        "metadatas": [dict(m or {}) for m in got["metadatas"] or []],
        "vectors": vectors,
    }


def write_snapshot(rows: dict[str, Any] | PackedRows, path: Path) -> None:
    """Write rows (collection_rows' or packed) atomically."""
    packed = rows if isinstance(rows, PackedRows) else pack_rows(rows)
    tmp = path.with_name(f"{path.name}.{uuid.uuid4().hex[:8]}.tmp.npz")
    arrays: dict[str, Any] = packed.arrays()
    np.savez(tmp, **arrays)
    tmp.replace(path)


def _current_format(data: Any) -> bool:
    return "format" in data.files and str(data["format"]) == SNAPSHOT_FORMAT


def snapshot_generation(path: Path) -> str | None:
    """The generation of the snapshot at path (None: missing, unreadable or an older format)."""
    try:
        with np.load(path) as data:
            return str(data["generation"]) if _current_format(data) else None
    except (OSError, KeyError, ValueError):
        return None


def read_snapshot(path: Path, generation: str) -> PackedRows | None:
    """The packed rows of the snapshot at path if it is of `generation`, else None."""
    try:
        with np.load(path) as data:
            if not _current_format(data) or str(data["generation"]) != generation:
                return None
            return PackedRows.from_arrays({name: data[name] for name in data.files})
    except (OSError, KeyError, ValueError):
        return None
