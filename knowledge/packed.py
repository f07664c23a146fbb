"""The passages as a retriever holds them: a few numpy arrays, no Python object per passage.

`pack_rows` turns what Chroma returns (ids, texts, metadata dicts, vectors) into `PackedRows`,
sorted by (language, guide, order):

* ``records``/``offsets``: one UTF-8 JSON record ``[id, text, metadata]`` per passage, back to
  back in one byte array; a retriever decodes a record only for a passage it returns.
* ``vectors``: one contiguous float32 matrix.
* the columns a search filters and groups by: language, guide (a number), section (a number per
  language, guide and anchor), searchable (not a source list), intro (the guide intro).
* the BM25 index over the passages' search texts (`knowledge.bm25.BM25Index`, arrays too).

The arrays are what the snapshot beside the embedded store holds (`knowledge.index`), so a
retriever opens 14.5k passages by reading ~15 arrays: no tokenising, no temporary Python
objects, whose freed memory the allocator would keep (that was 40% of the server's RSS at 100x).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from knowledge.bm25 import BM25Index
from knowledge.guide_parser import is_source_list, search_text

# bumped whenever what is packed changes (fields, tokenising, BM25 parameters): a snapshot of
# another format is not read
FORMAT = "2"


def heading_path(meta: Mapping[str, Any]) -> tuple[str, ...]:
    hp = str(meta.get("heading_path") or "")
    return tuple(hp.split(" › ")) if hp else ()


@dataclass(frozen=True)
class PackedRows:
    """A collection's passages in arrays, sorted by (language, guide, order); passage i is row i
    of every array."""

    metadata: dict[str, Any]  # the collection's metadata (embedder, generation, ...)
    records: np.ndarray  # uint8: JSON records back to back
    offsets: np.ndarray  # int64: record i is records[offsets[i]:offsets[i + 1]]
    vectors: np.ndarray  # float32 (passages, dimensions), read-only
    lang: np.ndarray  # "<U2"
    guide: np.ndarray  # int32: index into guide_names
    guide_names: tuple[str, ...]
    section: np.ndarray  # int32: one number per (language, guide, anchor)
    searchable: np.ndarray  # bool: False for source lists (indexed, never returned)
    intro: np.ndarray  # bool: the guide intro (anchor "")
    bm25: BM25Index

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def record(self, i: int) -> tuple[str, str, dict[str, Any]]:
        """(id, text, metadata) of passage i."""
        pid, text, meta = json.loads(self.records[self.offsets[i] : self.offsets[i + 1]].tobytes())
        return str(pid), str(text), dict(meta)

    def arrays(self) -> dict[str, np.ndarray]:
        """Everything as named arrays (for np.savez); `from_arrays` reads them back."""
        names = json.dumps(list(self.guide_names), ensure_ascii=False)
        out = {
            "format": np.array(FORMAT),
            "generation": np.array(str(self.metadata.get("generation") or "")),
            "metadata": np.array(json.dumps(self.metadata, ensure_ascii=False)),
            "records": self.records,
            "offsets": self.offsets,
            "vectors": self.vectors,
            "lang": self.lang,
            "guide": self.guide,
            "guide_names": np.array(names),
            "section": self.section,
            "searchable": self.searchable,
            "intro": self.intro,
        }
        out.update({f"bm25_{k}": v for k, v in self.bm25.arrays().items()})
        return out

    @classmethod
    def from_arrays(cls, data: Mapping[str, np.ndarray]) -> PackedRows:
        vectors = np.asarray(data["vectors"], dtype=np.float32)
        vectors.setflags(write=False)
        bm25 = {k[5:]: data[k] for k in data if k.startswith("bm25_")}
        return cls(
            metadata=json.loads(str(data["metadata"])),
            records=data["records"],
            offsets=data["offsets"],
            vectors=vectors,
            lang=data["lang"],
            guide=data["guide"],
            guide_names=tuple(json.loads(str(data["guide_names"]))),
            section=data["section"],
            searchable=data["searchable"],
            intro=data["intro"],
            bm25=BM25Index.from_arrays(bm25),
        )


def _search_text(text: str, meta: Mapping[str, Any]) -> str:
    return search_text(str(meta.get("title", "")), heading_path(meta), text)


def _order_key(meta: Mapping[str, Any]) -> tuple[str, str, int]:
    return (str(meta.get("language", "")), str(meta.get("guide", "")), int(meta.get("order", 0)))


def pack_rows(rows: Mapping[str, Any]) -> PackedRows:
    """PackedRows of `knowledge.index.collection_rows` rows."""
    metas = rows["metadatas"]
    order = sorted(range(len(rows["ids"])), key=lambda n: _order_key(metas[n]))
    parts = [
        json.dumps([rows["ids"][n], rows["documents"][n], metas[n]], ensure_ascii=False).encode()
        for n in order
    ]
    offsets = np.zeros(len(parts) + 1, dtype=np.int64)
    np.cumsum([len(p) for p in parts], out=offsets[1:])
    vectors = np.asarray(rows["vectors"], dtype=np.float32)
    vectors = np.ascontiguousarray(vectors[order]) if order else np.zeros((0, 0), np.float32)
    vectors.setflags(write=False)

    guides: dict[str, int] = {}
    sections: dict[tuple[str, str, str], int] = {}
    lang, guide, section, searchable, intro = [], [], [], [], []
    for n in order:
        m = metas[n]
        key = (str(m.get("language", "")), str(m.get("guide", "")), str(m.get("anchor", "")))
        lang.append(key[0])
        guide.append(guides.setdefault(key[1], len(guides)))
        section.append(sections.setdefault(key, len(sections)))
        searchable.append(not is_source_list(str(m.get("section", "")), key[2]))
        intro.append(not key[2])
    texts = (_search_text(rows["documents"][n], metas[n]) for n in order)
    bm25 = BM25Index(zip(texts, lang, strict=True))
    return PackedRows(
        metadata=dict(rows["metadata"]),
        records=np.frombuffer(b"".join(parts), dtype=np.uint8),
        offsets=offsets,
        vectors=vectors,
        lang=np.array(lang, dtype="<U2"),
        guide=np.array(guide, dtype=np.int32),
        guide_names=tuple(guides),
        section=np.array(section, dtype=np.int32),
        searchable=np.array(searchable, dtype=bool),
        intro=np.array(intro, dtype=bool),
        bm25=bm25,
    )
