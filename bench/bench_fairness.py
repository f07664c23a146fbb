"""Issue 14, finding 2: one client sending new 2,000-character non-dictionary questions (within the
request limit) must not starve the others. Prints the other clients' answers and p99 latency with
and without the abusive client, with the embedder's fairness off (no budget, unbounded queue) and
on (the defaults), as ratios against the run without abuse in the same process.

    .venv/bin/python bench/bench_fairness.py [seconds-per-phase]     (default 15)

Target: with fairness on, others keep >= 80 % of their throughput and p99 <= 2x normal.
"""

from __future__ import annotations

import itertools
import random
import string
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from api.app import create_app  # noqa: E402
from tests.server import LiveServer, build_test_index, make_settings  # noqa: E402

CLIENTS = 4
ABUSE_PER_MINUTE = 12
TOPICS = [
    "What is pipeline parallelism?",
    "How does the KV cache grow with context length?",
    "Why does my training job hang at NCCL init?",
    "What limits tokens per second when decoding?",
]


def normal_client(url: str, n: int, stop: float, latencies: list[float]) -> None:
    counter = itertools.count()
    with httpx.Client(base_url=url, timeout=60) as client:
        while time.monotonic() < stop:
            i = next(counter)
            question = f"{TOPICS[i % len(TOPICS)]} ({n}-{i})"  # new text: a real embedding
            start = time.perf_counter()
            r = client.post(
                "/api/chat", json={"message": question}, headers={"X-Forwarded-For": f"10.0.0.{n}"}
            )
            if r.status_code == 200:
                latencies.append(time.perf_counter() - start)


ABUSE_SEEDS = itertools.count(7)
ABUSE_LOG: list[tuple[int, float]] = []  # the abuser's (status, seconds)


def abuser(url: str, stop: float) -> None:
    rng = random.Random(next(ABUSE_SEEDS))  # new text in every phase: a cache never answers it
    with httpx.Client(base_url=url, timeout=120) as client:
        while time.monotonic() < stop:
            words = " ".join(
                "".join(rng.choice(string.ascii_letters) for _ in range(rng.randint(4, 9)))
                for _ in range(400)
            )
            text = f"What is pipeline parallelism? {words}"[:2000]
            start = time.perf_counter()
            r = client.post(
                "/api/chat", json={"message": text}, headers={"X-Forwarded-For": "10.6.6.6"}
            )
            ABUSE_LOG.append((r.status_code, time.perf_counter() - start))
            time.sleep(60 / ABUSE_PER_MINUTE)


def phase(url: str, seconds: float, abuse: bool) -> list[float]:
    stop = time.monotonic() + seconds
    latencies: list[float] = []
    threads = [
        threading.Thread(target=normal_client, args=(url, n, stop, latencies))
        for n in range(CLIENTS)
    ]
    if abuse:
        threads.append(threading.Thread(target=abuser, args=(url, stop)))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies


def p99(latencies: list[float]) -> float:
    ordered = sorted(latencies)
    return ordered[max(0, int(len(ordered) * 0.99) - 1)] if ordered else float("nan")


def compare(url: str, seconds: float) -> tuple[int, float, int, float]:
    """Without and with the abuser in the order N A A N (half the time each), so a load that
    drifts during the run (the box is shared) weighs on both sides alike."""
    normal: list[float] = []
    abused: list[float] = []
    for abuse in (False, True, True, False):
        (abused if abuse else normal).extend(phase(url, seconds / 2, abuse))
    return len(normal), p99(normal), len(abused), p99(abused)


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 15.0
    data = Path(tempfile.mkdtemp(prefix="bench-fair-"))
    build_test_index(data)
    base = dict(trust_forwarded_for=True, rate_limit_per_minute=0)
    runs = {
        "fairness off": make_settings(
            data, embed_budget_s_per_minute=0, embed_queue=10_000, embed_max_tokens=512, **base
        ),
        "on, 512 tok": make_settings(data, embed_max_tokens=512, **base),
        "fairness on": make_settings(data, **base),
    }
    for name, settings in runs.items():
        with LiveServer(create_app(settings)) as server:
            phase(server.url, 5, abuse=True)  # warm up (both paths)
            ABUSE_LOG.clear()
            normal_n, normal_p99, abused_n, abused_p99 = compare(server.url, seconds)
        print(
            f"{name:13}  others: {normal_n} answers, p99 {normal_p99 * 1000:.0f} ms  ->  "
            f"with abuser {abused_n} answers ({abused_n / max(normal_n, 1):.0%}), "
            f"p99 {abused_p99 * 1000:.0f} ms ({abused_p99 / normal_p99:.1f}x); abuser: "
            f"{sum(c == 200 for c, _ in ABUSE_LOG)}/{len(ABUSE_LOG)} answered, "
            f"{sum(t for _, t in ABUSE_LOG):.1f} s in all"
        )


if __name__ == "__main__":
    main()
