"""Issue 27, finding 6: do abusive clients within the rate limit starve the others?

One real `sizing serve` (uvicorn, one worker, its default settings: the rate limit of 30
requests a minute with a burst of 10 per address, the embedder's and the long questions' shares)
on a free loopback port. Every client has its own address: the load generator binds its
connections to 127.x.y.z source addresses (all of 127.0.0.0/8 is loopback), so the server sees
real peers, no proxy and no forwarded header.

- The others (`--clients`, 8): ordinary questions, each from one of many addresses (one
  connection per question, as many users are): unseen sizing questions from
  `bench/distinct_questions.py` (no kept answer serves them) and, every third one, a guide
  question with new text (a new query embedding). Each client asks as soon as its previous
  answer came (`--rate 0`, the default: the server is the limit, so what the abusers take
  shows in the others' throughput) or at a steady `--rate` questions a second.
- An abuser: one address of its own, new for every phase (a fresh rate-limit bucket and
  budgets, the burst included), with one keep-alive connection on `/api/chat` and one on
  `/v1/chat/completions`, each sending new 2,000-character texts of non-dictionary words as
  fast as the limit lets it (on 429/503 it waits the `Retry-After`).

A round is five phases of `--seconds` each (default 6 s), interleaved: no abuser, 1 abuser, no
abuser, 4 abusers, no abuser (`--abusers 1 4`); the round's baseline pools its phases without
abusers. The others stop at the phase's end; the abusers' answers still in flight are waited
for (counted as "after the end"), so no work spills into the next phase. For each round and
each abusive phase the others' throughput and p99 are printed as ratios to the round's
baseline. Target (issue 27): throughput >= 80 % and p99 <= 2x, in every round. Beside them, for
reading a run on a shared machine: the CPU the server got in the phase (from /proc, up to the
phase's end) and the others' answers per server CPU second as a ratio to the baseline's (what
the box gave the server does not change it; what the abusers took from the server does).

`--server NAME[@TREE]:VAR=VALUE,...` adds a `sizing serve` with these settings, from another
source tree if given (e.g. a worktree of the commit before), beside this tree's; every phase
runs on each server in turn, so one run shows both sides:

    .venv/bin/python bench/bench_fairness.py                        # 3 rounds x 5 phases x 6 s
    git worktree add --detach /tmp/before <commit>
    .venv/bin/python bench/bench_fairness.py --server before@/tmp/before:
    .venv/bin/python bench/bench_fairness.py --rounds 5 --rate 3 --json

The box this was written on has 2 cores shared with other work (load average 2-8): the phases
are short (3 rounds take about 1.5 minutes per server, the server using about one core) and
the figures drift with the load average, which is printed; the ratios compare phases of the
same round.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import random
import string
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_api import ensure_index, free_port, wait_ready  # noqa: E402
from distinct_questions import DistinctQuestions  # noqa: E402

GUIDE_TOPICS = [
    "What is pipeline parallelism",
    "How does the KV cache grow with context length",
    "Why does my training job hang at NCCL init",
    "What limits tokens per second when decoding",
    "Wann lohnt sich NVLink gegenüber PCIe",
    "Wie viel Speicher braucht der KV-Cache",
]
TARGET_THROUGHPUT = 0.8
TARGET_P99 = 2.0
TICK = os.sysconf("SC_CLK_TCK")


class Peer:
    """A minimal HTTP/1.1 client on asyncio streams, its connection bound to a source address
    (httpx on 2 shared cores would spend more CPU than the server it measures)."""

    def __init__(self, host: str, port: int, source: str, keep_alive: bool = True) -> None:
        self.host, self.port, self.source, self.keep_alive = host, port, source, keep_alive
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, path: str, payload: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(
                self.host, self.port, local_addr=(self.source, 0)
            )
        assert self.reader is not None
        body = json.dumps(payload).encode()
        connection = "keep-alive" if self.keep_alive else "close"
        self.writer.write(
            f"POST {path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Type: application/json\r\n"
            f"Connection: {connection}\r\nContent-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        try:
            head = await self.reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            status = int(lines[0].split()[1])
            headers = {
                k.strip().lower(): v.strip()
                for k, _, v in (line.partition(":") for line in lines[1:] if line)
            }
            content = await self.reader.readexactly(int(headers.get("content-length", "0")))
        except BaseException:
            await self.close()
            raise
        if not self.keep_alive or headers.get("connection") == "close":
            await self.close()
        return status, headers, content

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.reader = self.writer = None


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    statuses: dict[str, int] = field(default_factory=dict)
    keyword_only: int = 0  # answers whose guide search ran on keywords alone (the notice)

    def add(self, status: str, seconds: float | None = None) -> None:
        self.statuses[status] = self.statuses.get(status, 0) + 1
        if seconds is not None:
            self.latencies.append(seconds)

    @property
    def answered(self) -> int:
        return len(self.latencies)

    def p(self, q: float) -> float:
        ordered = sorted(self.latencies)
        if not ordered:
            return float("nan")
        return ordered[min(len(ordered) - 1, int(len(ordered) * q))]

    def __iadd__(self, other: Tally) -> Tally:
        self.latencies += other.latencies
        self.keyword_only += other.keyword_only
        for k, v in other.statuses.items():
            self.statuses[k] = self.statuses.get(k, 0) + v
        return self


def abuse_text(rng: random.Random) -> str:
    words = " ".join(
        "".join(rng.choice(string.ascii_letters) for _ in range(rng.randint(4, 9)))
        for _ in range(400)
    )
    return f"What is pipeline parallelism? {words}"[:2000]


class Load:
    """The clients of one server: the others' questions and the abusers' texts, never repeated."""

    def __init__(self, host: str, port: int, seed: int) -> None:
        self.host, self.port = host, port
        self.questions = DistinctQuestions(seed)
        self.rng = random.Random(seed)
        self.count = itertools.count()

    def question(self) -> str:
        i = next(self.count)
        if i % 3 == 2:
            return f"{GUIDE_TOPICS[i // 3 % len(GUIDE_TOPICS)]} (case {i})?"
        return next(self.questions)[0]

    async def other(self, n: int, stop: float, rate: float, tally: Tally) -> None:
        next_at = time.monotonic()
        for i in itertools.count():
            if rate:  # a steady pace, never two questions at once
                await asyncio.sleep(max(0.0, next_at - time.monotonic()))
                next_at += 1 / rate
            if time.monotonic() >= stop:
                return
            # many users: 250 addresses per client, one connection per question
            peer = Peer(self.host, self.port, f"127.1.{n}.{i % 250 + 1}", keep_alive=False)
            started = time.perf_counter()
            try:
                status, _, content = await asyncio.wait_for(
                    peer.post("/api/chat", {"message": self.question()}), 60
                )
            except (TimeoutError, OSError, asyncio.IncompleteReadError) as exc:
                tally.add(type(exc).__name__)
                await peer.close()
                continue
            if status != 200:
                tally.add(str(status))
                continue
            tally.add("200", time.perf_counter() - started)
            notice = json.loads(content).get("notice") or ""
            tally.keyword_only += "keyword" in notice

    async def abuser(self, source: str, surface: str, stop: float, tally: Tally) -> None:
        peer = Peer(self.host, self.port, source)
        while time.monotonic() < stop:
            text = abuse_text(self.rng)
            if surface == "v1":
                path = "/v1/chat/completions"
                payload: dict[str, Any] = {
                    "model": "sizing-assistant",
                    "messages": [{"role": "user", "content": text}],
                }
            else:
                path, payload = "/api/chat", {"message": text}
            try:
                status, headers, _ = await peer.post(path, payload)
            except (OSError, asyncio.IncompleteReadError) as exc:
                tally.add(type(exc).__name__)
                continue
            # an answer that came after the phase's end computed while no other was measured
            tally.add(str(status) if time.monotonic() < stop else f"{status} after the end")
            if status in (429, 503):
                wait = float(headers.get("retry-after", "1"))
                await asyncio.sleep(max(0.0, min(wait, stop - time.monotonic())))
        await peer.close()


_PHASES = itertools.count(1)


async def phase(
    load: Load, seconds: float, clients: int, rate: float, abusers: int, pid: int | None = None
) -> dict:
    """The others and `abusers` for `seconds`; the server's and this process's CPU over them
    (read when the others stop: the abusers' answers still in flight are not counted)."""
    stop = time.monotonic() + seconds
    cpu, own = cpu_seconds(pid) if pid else 0.0, time.process_time()
    spent: dict[str, float] = {}

    async def at_stop() -> None:
        await asyncio.sleep(max(0.0, stop - time.monotonic()))
        spent["cpu"] = cpu_seconds(pid) - cpu if pid else 0.0
        spent["client_cpu"] = time.process_time() - own

    others, abused = Tally(), Tally()
    number = next(_PHASES)  # each phase's abusers are new addresses (fresh buckets, bursts)
    tasks = [load.other(n, stop, rate, others) for n in range(clients)]
    tasks += [
        load.abuser(f"127.6.{number % 250}.{k + 1}", surface, stop, abused)
        for k in range(abusers)
        for surface in ("chat", "v1")
    ]
    await asyncio.gather(at_stop(), *tasks)  # the abusers' last answers included
    return {"others": others, "abusers": abused, "seconds": seconds, **spent}


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def start(
    extra: dict[str, str], data_dir: Path, tree: Path = ROOT
) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SIZING_", "OPENAI_"))}
    env = {k: v for k, v in env.items() if not k.startswith("SLACK_")}
    env.update(SIZING_DATA_DIR=str(data_dir), SIZING_PRUNE_INTERVAL_S="0", **extra)
    env.update(ANONYMIZED_TELEMETRY="False", HF_HUB_OFFLINE="1", PYTHONPATH=str(tree))
    out = subprocess.DEVNULL
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import cli; cli.main()",
            "serve",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        cwd=tree,
        env=env,
        stdout=out,
        stderr=out,
    )
    wait_ready(f"http://127.0.0.1:{port}", proc)
    return proc, port


def ratio_line(label: str, phase_: dict, base: dict) -> tuple[str, bool]:
    others: Tally = phase_["others"]
    rate = others.answered / phase_["seconds"]
    base_rate = base["others"].answered / base["seconds"]
    through = rate / base_rate if base_rate else float("nan")
    p99 = others.p(0.99) / base["others"].p(0.99)
    ok = through >= TARGET_THROUGHPUT and p99 <= TARGET_P99
    refused = sum(v for k, v in others.statuses.items() if k != "200")
    line = (
        f"{label:<12} {rate:7.1f}/s {through:6.0%}  p50 {others.p(0.5) * 1000:5.0f} ms"
        f"  p99 {others.p(0.99) * 1000:5.0f} ms {p99:5.2f}x  {'ok' if ok else 'FAIL':4}"
        f"  refused {refused}  keyword-only {others.keyword_only}"
    )
    abusers: Tally = phase_["abusers"]
    if abusers.statuses:
        codes = ", ".join(f"{k}: {v}" for k, v in sorted(abusers.statuses.items()))
        line += f"  | abusers {codes}"
    if phase_.get("cpu"):
        # what the box gave the server; answers per CPU second do not depend on it
        per_cpu = others.answered / phase_["cpu"]
        base_per_cpu = base["others"].answered / base["cpu"]
        line += f"  | server CPU {phase_['cpu'] / phase_['seconds']:.0%}"
        line += f", answers per CPU-s {per_cpu / base_per_cpu:.0%}"
        line += f"; load generator CPU {phase_['client_cpu'] / phase_['seconds']:.0%}"
    return line, ok


def pooled(phases: list[dict]) -> dict:
    others = Tally()
    for p in phases:
        others += p["others"]
    return {
        "others": others,
        "abusers": Tally(),
        "seconds": sum(p["seconds"] for p in phases),
        "cpu": sum(p.get("cpu", 0.0) for p in phases),
        "client_cpu": sum(p.get("client_cpu", 0.0) for p in phases),
    }


def summary(phase_: dict, base: dict) -> dict[str, Any]:
    others: Tally = phase_["others"]
    rate = others.answered / phase_["seconds"]
    base_rate = base["others"].answered / base["seconds"]
    return {
        "answers_per_s": round(rate, 2),
        "throughput_ratio": round(rate / base_rate, 3) if base_rate else None,
        "p50_ms": round(others.p(0.5) * 1000, 1),
        "p99_ms": round(others.p(0.99) * 1000, 1),
        "p99_ratio": round(others.p(0.99) / base["others"].p(0.99), 3),
        "others_statuses": others.statuses,
        "keyword_only": others.keyword_only,
        "abusers_statuses": phase_["abusers"].statuses,
        "server_cpu_of_a_core": round(phase_["cpu"] / phase_["seconds"], 3),
        "answers_per_cpu_s_ratio": (
            round(others.answered / phase_["cpu"] / (base["others"].answered / base["cpu"]), 3)
            if phase_["cpu"] and base["cpu"] and base["others"].answered
            else None
        ),
    }


def parse_server(text: str) -> tuple[str, dict[str, str], Path]:
    """NAME:VAR=VALUE,... or NAME@TREE:VAR=VALUE,... (TREE: another source tree, e.g. a
    worktree of the commit before)."""
    name, _, assignments = text.partition(":")
    name, _, tree = name.partition("@")
    settings = dict(a.split("=", 1) for a in assignments.split(",") if a)
    return name, settings, Path(tree).resolve() if tree else ROOT


async def run(args: argparse.Namespace, servers: dict[str, tuple[Any, int]]) -> dict:
    loads = {
        name: Load("127.0.0.1", port, seed=i) for i, (name, (_, port)) in enumerate(servers.items())
    }
    for load in loads.values():  # warm: caches, the index, the embedder
        await phase(load, 2.0, args.clients, args.rate, 0)
    results: dict[str, list[dict[str, dict]]] = {name: [] for name in servers}
    order = [0]  # each abusive phase between two without abusers
    for count in args.abusers:
        order += [count, 0]
    pace = f"{args.rate:g}/s each" if args.rate else "each as fast as answered"
    print(
        f"{args.clients} other clients ({pace}), abusers {args.abusers}, {args.rounds} rounds x"
        f" {len(order)} phases x {args.seconds:g} s; load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    for r in range(args.rounds):
        rounds = {name: {} for name in servers}
        for k, abusers in enumerate(order):
            for name, (proc, _) in servers.items():
                p = await phase(
                    loads[name], args.seconds, args.clients, args.rate, abusers, proc.pid
                )
                key = f"{abusers} abusers" if abusers else f"baseline {k}"
                rounds[name][key] = p
                await asyncio.sleep(0.3)
        for name in servers:
            results[name].append(rounds[name])
        print(f"round {r + 1}, load average {os.getloadavg()[0]:.1f}", flush=True)
        for name in servers:
            phases = rounds[name]
            base = pooled([v for k, v in phases.items() if k.startswith("baseline")])
            base_line, _ = ratio_line("no abuser", base, base)
            print(f"  {name}")
            print(f"    {base_line}")
            for abusers in args.abusers:
                line, _ = ratio_line(
                    f"{abusers} abuser{'s' * (abusers > 1)}", phases[f"{abusers} abusers"], base
                )
                print(f"    {line}", flush=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=6.0, help="per phase")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", type=int, default=8, help="the other (normal) clients")
    parser.add_argument(
        "--rate",
        type=float,
        default=0.0,
        help="questions/s per other client (0: as fast as answered)",
    )
    parser.add_argument("--abusers", type=int, nargs="+", default=[1, 4])
    parser.add_argument(
        "--server",
        action="append",
        default=[],
        help="NAME[@TREE]:VAR=VALUE,... another server (TREE: another source tree)",
    )
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    data_dir, tmp = ensure_index(args.data_dir)
    wanted = [("this tree", {}, ROOT), *(parse_server(s) for s in args.server)]
    servers: dict[str, tuple[Any, int]] = {}
    try:
        for name, extra, tree in wanted:
            servers[name] = start(extra, data_dir, tree)
        results = asyncio.run(run(args, servers))
    finally:
        for proc, _ in servers.values():
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        if tmp is not None:
            tmp.cleanup()
    verdicts: dict[str, bool] = {}
    report: dict[str, Any] = {}
    for name, rounds in results.items():
        report[name] = []
        ok = True
        for phases in rounds:
            base = pooled([v for k, v in phases.items() if k.startswith("baseline")])
            row = {"baseline": summary(base, base)}
            for abusers in args.abusers:
                p = phases[f"{abusers} abusers"]
                row[f"{abusers} abusers"] = summary(p, base)
                ok &= ratio_line("", p, base)[1]
            report[name].append(row)
        verdicts[name] = ok
    if args.json:
        print(json.dumps({"rounds": report, "met_in_every_round": verdicts}, indent=2))
    for name, ok in verdicts.items():
        target = f"throughput >= {TARGET_THROUGHPUT:.0%} and p99 <= {TARGET_P99:g}x"
        print(f"{name}: {target} in every round: {'met' if ok else 'NOT met'}")


if __name__ == "__main__":
    main()
