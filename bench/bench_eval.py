"""Times the evaluation run and the audit the way CI and the site team use them.

    .venv/bin/python bench/bench_eval.py [--rounds 3]

Prints: `sizing eval evals/datasets/*.yaml --report <tmp>` wall time as a process (the issue's
target: under 60 s offline), the in-process runner split into index build and answers, answer
latency p50/p95, and `sizing audit` over the shipped corpus.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SIZING = str(Path(sys.executable).parent / "sizing")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    datasets = sorted(str(p) for p in (ROOT / "evals" / "datasets").glob("*.yaml"))
    walls = []
    for _ in range(args.rounds):
        with tempfile.TemporaryDirectory() as out:
            t0 = time.perf_counter()
            proc = subprocess.run(
                [SIZING, "eval", *datasets, "--report", out],
                capture_output=True,
                text=True,
                cwd=ROOT,
            )
            walls.append(time.perf_counter() - t0)
            if proc.returncode not in (0, 1):
                sys.exit(proc.stderr)
    print(
        f"sizing eval (process, {len(datasets)} datasets): "
        f"median {statistics.median(walls):.2f} s, "
        f"min {min(walls):.2f} s, max {max(walls):.2f} s (target < 60 s)"
    )

    from assistant.settings import Settings
    from evals.runner import RunOptions, run_eval
    from evals.schema import load_datasets

    loaded = load_datasets([Path(p) for p in datasets])
    with tempfile.TemporaryDirectory() as data:
        report = run_eval(loaded, Settings(data_dir=Path(data)), RunOptions(mode="offline"))
    m, t, c = report["metrics"], report["timing"], report["counts"]
    print(
        f"runner in-process: {t['wall_s']:.2f} s (index {t['setup_s']:.2f} s), {c['cases']} cases, "
        f"answer p50 {m['latency_ms_p50']:.1f} ms, p95 {m['latency_ms_p95']:.1f} ms, "
        f"pass rate {report['pass_rate']:.3f}"
    )

    t0 = time.perf_counter()
    subprocess.run([SIZING, "audit"], capture_output=True, cwd=ROOT)
    print(f"sizing audit (8 guides, process): {time.perf_counter() - t0:.2f} s")


if __name__ == "__main__":
    main()
