"""Issue 14, finding 2: abusive clients sending new long non-dictionary questions (each within the
default request limit) must not starve the others.

Two `sizing serve` processes on the same index, started side by side:
- "off": the protections switched off by settings (the embedder reads 512 tokens, no embedder
  budget, an unbounded queue, no bounded wait: a plain lock around the embedder, as before);
- "on": the defaults.
Both trust one proxy hop (SIZING_TRUST_FORWARDED_FOR), so this script plays the proxy and gives
each client its own address; the default request limit (30/min, burst 10) applies to everyone.

The others: CLIENTS threads asking a mix of rule questions (tools, no guide search) and guide
questions with new text (a real embedding each), each request from one of many addresses (many
users). The abusers: ABUSERS addresses, each with one thread on /api/chat and one on
/v1/chat/completions, sending new 2,000-character non-dictionary questions as fast as the limit
lets them (on 429/503 they wait the Retry-After).

Phases, repeated ROUNDS times in the order  normal(on) abuse(off) abuse(on) normal(off)  so load
drifting on the shared box weighs on every phase alike; the baseline pools both normal phases.

    .venv/bin/python bench/bench_fairness.py [seconds-per-phase] [rounds] [abusers]  (15 2 4)

Target: with the protections on, others keep >= 80 % of their throughput and p99 <= 2x normal.
"""

from __future__ import annotations

import itertools
import os
import random
import socket
import string
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.server import build_test_index  # noqa: E402

CLIENTS = 4
ABUSERS = 4
RULE_QUESTIONS = [
    "Does Llama 3.3 70B in FP8 fit on 2x H100 SXM5?",
    "Passt Qwen 2.5 72B in FP16 auf 4x A100 80GB?",
    "What does 8x H200 cost per month?",
    "How much memory does Mistral 7B need in BF16?",
]
GUIDE_TOPICS = [
    "What is pipeline parallelism",
    "How does the KV cache grow with context length",
    "Why does my training job hang at NCCL init",
    "What limits tokens per second when decoding",
]
PROTECTIONS_OFF = {
    "SIZING_EMBED_MAX_TOKENS": "512",  # the model's whole window
    "SIZING_EMBED_BUDGET_S_PER_MINUTE": "0",  # no per-client embedder budget
    "SIZING_EMBED_QUEUE": "100000",  # nobody is refused
    "SIZING_EMBED_MAX_WAIT_S": "0",  # everybody waits for the embedder, however long
    "SIZING_EMBED_LONG_SHARE": "0",  # long queries may take all of the embedder's time
    "SIZING_LONG_QUESTION_CHARS": "0",  # long questions share the normal lane, no limit
}


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    guide: list[float] = field(default_factory=list)  # latencies of the guide questions
    statuses: dict[int, int] = field(default_factory=dict)
    degraded: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, status: int, seconds: float, degraded: bool = False, guide: bool = False) -> None:
        with self.lock:
            self.statuses[status] = self.statuses.get(status, 0) + 1
            if status == 200:
                self.latencies.append(seconds)
                self.degraded += degraded
                if guide:
                    self.guide.append(seconds)

    @property
    def answered(self) -> int:
        return len(self.latencies)

    def p(self, q: float, guide: bool = False) -> float:
        ordered = sorted(self.guide if guide else self.latencies)
        return ordered[max(0, int(len(ordered) * q) - 1)] if ordered else float("nan")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(data: Path, extra: dict[str, str]) -> tuple[subprocess.Popen[bytes], str]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("SIZING_", "OPENAI_", "SLACK_"))
    }
    port = free_port()
    env.update(
        SIZING_DATA_DIR=str(data),
        SIZING_TRUST_FORWARDED_FOR="true",
        SIZING_PRUNE_INTERVAL_S="0",
        HF_HUB_OFFLINE="1",
        ANONYMIZED_TELEMETRY="False",
        **extra,
    )
    sizing = str(Path(sys.executable).with_name("sizing"))
    proc = subprocess.Popen(
        [sizing, "serve", "--port", str(port), "--log-level", "warning"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    proc.kill()
    raise RuntimeError(f"server with {extra} did not become ready")


def normal_client(url: str, n: int, stop: float, tally: Tally) -> None:
    counter = itertools.count()
    with httpx.Client(base_url=url, timeout=60) as client:
        while time.monotonic() < stop:
            i = next(counter)
            if i % 2:  # new text: a real embedding
                question = f"{GUIDE_TOPICS[i // 2 % len(GUIDE_TOPICS)]} (case {n}-{i})?"
            else:
                question = RULE_QUESTIONS[i // 2 % len(RULE_QUESTIONS)]
            address = f"10.1.{n}.{i % 250}"  # many users behind the proxy
            start = time.perf_counter()
            try:
                r = client.post(
                    "/api/chat", json={"message": question}, headers={"X-Forwarded-For": address}
                )
            except httpx.TimeoutException:  # no answer within a minute: counted as refused
                tally.add(0, time.perf_counter() - start)
                continue
            notice = r.json().get("notice") or "" if r.status_code == 200 else ""
            tally.add(r.status_code, time.perf_counter() - start, "keyword" in notice, i % 2 == 1)


def abuse_text(rng: random.Random) -> str:
    words = " ".join(
        "".join(rng.choice(string.ascii_letters) for _ in range(rng.randint(4, 9)))
        for _ in range(400)
    )
    return f"What is pipeline parallelism? {words}"[:2000]


SEEDS = itertools.count(7)


def abuser(url: str, address: str, surface: str, stop: float, tally: Tally) -> None:
    rng = random.Random(next(SEEDS))  # new text every time: no cache answers it
    # no client timeout: a phase ends when the server has answered all of its requests (an
    # abandoned request would still be computed, and weigh on the next phase)
    with httpx.Client(base_url=url, timeout=600) as client:
        while time.monotonic() < stop:
            text = abuse_text(rng)
            if surface == "v1":
                path = "/v1/chat/completions"
                body: dict[str, object] = {
                    "model": "sizing-assistant",
                    "messages": [{"role": "user", "content": text}],
                }
            else:
                path, body = "/api/chat", {"message": text}
            start = time.perf_counter()
            try:
                r = client.post(path, json=body, headers={"X-Forwarded-For": address})
            except httpx.TimeoutException:
                tally.add(0, time.perf_counter() - start)
                continue
            tally.add(r.status_code, time.perf_counter() - start)
            if r.status_code in (429, 503):
                wait = float(r.headers.get("retry-after", "1"))
                time.sleep(max(0.0, min(wait, stop - time.monotonic())))


def phase(url: str, seconds: float, abuse: bool, count: int = ABUSERS) -> tuple[Tally, Tally]:
    stop = time.monotonic() + seconds
    others, abusers = Tally(), Tally()
    threads = [
        threading.Thread(target=normal_client, args=(url, n, stop, others)) for n in range(CLIENTS)
    ]
    if abuse:
        threads += [
            threading.Thread(target=abuser, args=(url, f"10.6.6.{k}", surface, stop, abusers))
            for k in range(count)
            for surface in ("chat", "v1")
        ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return others, abusers


def merge(tallies: list[Tally]) -> Tally:
    out = Tally()
    for t in tallies:
        out.latencies += t.latencies
        out.guide += t.guide
        out.degraded += t.degraded
        for k, v in t.statuses.items():
            out.statuses[k] = out.statuses.get(k, 0) + v
    return out


def report(name: str, others: Tally, abusers: Tally | None, seconds: float, base: Tally) -> None:
    """`base`: the pooled normal phases (twice as long as each abuse phase)."""
    rate = others.answered / seconds
    base_rate = base.answered / (2 * seconds) if abusers is not None else rate
    line = (
        f"{name:24} others {rate:5.1f} answers/s ({rate / base_rate:4.0%})"
        f"  p50 {others.p(0.5) * 1000:4.0f} ms  p99 {others.p(0.99) * 1000:5.0f} ms"
        f" ({others.p(0.99) / base.p(0.99):4.1f}x)"
    )
    refused = sum(v for k, v in others.statuses.items() if k != 200)
    line += f"  (guide questions p99 {others.p(0.99, guide=True) * 1000:5.0f} ms)"
    line += f"  refused {refused}  keyword-only {others.degraded}"
    if abusers is not None:
        codes = ", ".join(f"{k or 'timeout'}: {v}" for k, v in sorted(abusers.statuses.items()))
        line += f"  | abusers {codes}"
    print(line, flush=True)


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 15.0
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    count = int(sys.argv[3]) if len(sys.argv) > 3 else ABUSERS
    data = Path(tempfile.mkdtemp(prefix="bench-fair-"))
    build_test_index(data)
    servers = {"off": start_server(data, PROTECTIONS_OFF), "on": start_server(data, {})}
    try:
        for _, url in servers.values():
            phase(url, seconds, abuse=False)  # warm up (caches, the embedder)
        print(f"load average before: {os.getloadavg()}", flush=True)
        results: dict[str, list[tuple[Tally, Tally]]] = {}
        order = [("normal", "on", False), ("abuse", "off", True)]
        order += [("abuse", "on", True), ("normal", "off", False)]
        for _ in range(rounds):
            for kind, which, abuse in order:
                others, abusers = phase(servers[which][1], seconds, abuse, count)
                results.setdefault(f"{kind} {which}", []).append((others, abusers))
                print(
                    f"  {kind} ({which}): others {others.answered / seconds:5.1f}/s, "
                    f"p99 {others.p(0.99) * 1000:.0f} ms; load {os.getloadavg()[0]:.1f}",
                    flush=True,
                )
        print(f"load average after:  {os.getloadavg()}", flush=True)
    finally:
        for proc, _ in servers.values():
            proc.terminate()
            proc.wait(10)
    total = seconds * rounds
    normal = merge([o for key in ("normal on", "normal off") for o, _ in results[key]])
    print(f"{CLIENTS} clients; {count} abusive addresses x (/api/chat + /v1); {total:.0f} s each")
    report("no abuser", normal, None, 2 * total, normal)
    for key, label in (
        ("abuse off", "abusers, protections off"),
        ("abuse on", "abusers, protections on"),
    ):
        others = merge([o for o, _ in results[key]])
        abusers = merge([a for _, a in results[key]])
        report(label, others, abusers, total, normal)


if __name__ == "__main__":
    main()
