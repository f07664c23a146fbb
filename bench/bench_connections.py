"""Issue 27, connection starvation: idle and trickling connections against the real server.

Two servers on the same index, one after the other, in one run:
- "bare": plain uvicorn (`python -m uvicorn --factory api.app:create_app`), as before issue 27;
- "guarded": `sizing serve` (api.serving: header timeout, idle timeout, connection cap below the
  open-file limit).

Against each: IDLE connections that never send a byte, held by FLOODERS processes (a process
may not hold more descriptors than the open-file limit; each flooder reopens what the server
closes, as an attacker would), and TRICKLING connections that send one header line every
TRICKLE_EVERY_S seconds and never finish their headers. While they are held, a probe asks
`/healthz` and `/api/chat` every half second (5 s timeout) for HOLD_S seconds.

    .venv/bin/python bench/bench_connections.py [idle] [trickling] [hold-seconds]  (21000 300 30)

Reported per server: the idle connections established (client side: up to the accept queue,
2048, may be established but not yet accepted), the descriptors the server holds, probes
answered and their max latency, how long the trickling connections lived (max; the guarded
server's header timeout is SIZING_HEADER_TIMEOUT_S, 10 s by default). The bare server runs out
of descriptors when the flood exceeds the open-file limit plus the accept queue (try 23000).
Target (issue 27): guarded: every probe answered within 1 s, trickling ones closed within the
header timeout (+ 1 s for the client's polling). Needs `ulimit -n` >= 20000 in the server and
ephemeral ports: the flooders bind 127.0.0.2.. so each source address has its own port range.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import resource
import selectors
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_api import ensure_index, free_port, wait_ready  # noqa: E402

TRICKLE_EVERY_S = 5.0
PER_FLOODER = 7000
QUESTION = "Does Llama 3.3 70B in FP8 fit on 2x H100 SXM5?"


def _connect(port: int, source: str) -> socket.socket | None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    try:
        sock.bind((source, 0))
        sock.settimeout(1)
        sock.connect(("127.0.0.1", port))
    except OSError:
        sock.close()
        return None
    sock.setblocking(False)
    return sock


def _raise_limit() -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def _open_many(port: int, count: int, source: str, wait_s: float = 15.0) -> list[socket.socket]:
    """`count` connections opened at once (non-blocking); those established within `wait_s`
    (a server out of descriptors stops completing them: its accept queue stays full)."""
    sel = selectors.DefaultSelector()
    for _ in range(count):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        try:
            sock.bind((source, 0))
        except OSError:
            sock.close()
            break
        sock.setblocking(False)
        sock.connect_ex(("127.0.0.1", port))
        sel.register(sock, selectors.EVENT_WRITE)
    established: list[socket.socket] = []
    deadline = time.time() + wait_s
    while sel.get_map() and time.time() < deadline:
        for key, _ in sel.select(timeout=0.5):
            sock = key.fileobj
            sel.unregister(sock)
            if sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:  # type: ignore[union-attr]
                established.append(sock)  # type: ignore[arg-type]
            else:
                sock.close()  # type: ignore[union-attr]
    for key in list(sel.get_map().values()):
        key.fileobj.close()  # type: ignore[union-attr]
    return established


def flooder(
    port: int, count: int, source: str, until: float, ready: mp.Event, held: mp.Queue
) -> None:  # type: ignore[valid-type]
    """Hold `count` idle connections until `until`; reopen each one the server closes."""
    _raise_limit()
    sel = selectors.DefaultSelector()
    opened = _open_many(port, count, source)
    for sock in opened:
        sel.register(sock, selectors.EVENT_READ)
    held.put(len(opened))
    ready.set()
    while time.time() < until:
        for key, _ in sel.select(timeout=0.5):
            sock = key.fileobj
            sel.unregister(sock)
            sock.close()  # type: ignore[union-attr]
            again = _connect(port, source)
            if again is not None:
                sel.register(again, selectors.EVENT_READ)
    for key in list(sel.get_map().values()):
        key.fileobj.close()  # type: ignore[union-attr]


def trickler(port: int, count: int, until: float, ready: mp.Event, out: mp.Queue) -> None:  # type: ignore[valid-type]
    """`count` connections sending a header line every TRICKLE_EVERY_S; report their lifetimes
    (seconds from opening to the server closing them; HOLD for those still open at the end)."""
    _raise_limit()
    socks: dict[int, tuple[socket.socket, float]] = {}
    failed = 0
    for i in range(count):
        sock = _connect(port, "127.0.0.250")
        if sock is None:
            failed += 1
            if failed >= 5:
                break
        else:
            sock.send(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
            socks[i] = (sock, time.time())
    ready.set()
    lived: list[float] = []
    n = 0
    next_line = time.time() + TRICKLE_EVERY_S
    while socks and time.time() < until:
        for i, (sock, opened) in list(socks.items()):
            try:
                if sock.recv(1) == b"":
                    raise ConnectionResetError
            except BlockingIOError:
                continue
            except OSError:
                lived.append(time.time() - opened)
                sock.close()
                del socks[i]
        if time.time() >= next_line:
            n += 1
            for sock, _ in socks.values():
                with contextlib.suppress(OSError):
                    sock.send(f"X-Trickle-{n}: y\r\n".encode())
            next_line += TRICKLE_EVERY_S
        time.sleep(0.2)
    for sock, _ in socks.values():
        lived.append(float("inf"))
        sock.close()
    out.put(lived)


def probe(base: str, hold_s: float) -> dict[str, float]:
    """/healthz and /api/chat every 0.5 s on new connections; answered counts, max latency."""
    result = {"asked": 0, "answered": 0, "max_s": 0.0}
    until = time.time() + hold_s
    while time.time() < until:
        for method, path, body in (("GET", "/healthz", None), ("POST", "/api/chat", QUESTION)):
            result["asked"] += 1
            started = time.monotonic()
            try:
                with httpx.Client(timeout=5) as client:
                    json = {"message": body} if body else None
                    r = client.request(method, base + path, json=json)
                ok = r.status_code == 200
            except httpx.HTTPError:
                ok = False
            seconds = time.monotonic() - started
            result["max_s"] = max(result["max_s"], seconds if ok else 5.0)
            result["answered"] += ok and seconds <= 1.0
        time.sleep(0.5)
    return result


def run(kind: str, data_dir: Path, idle: int, trickling: int, hold_s: float) -> dict[str, object]:
    port = free_port()
    env = dict(os.environ)
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "SLACK_BOT_TOKEN", "SLACK_APP_TOKEN"):
        env.pop(var, None)
    env.update(
        SIZING_DATA_DIR=str(data_dir),
        SIZING_RATE_LIMIT_PER_MINUTE="0",
        ANONYMIZED_TELEMETRY="False",
        HF_HUB_OFFLINE="1",
    )
    if kind == "bare":
        cmd = [sys.executable, "-m", "uvicorn", "api.app:create_app", "--factory",
               "--host", "127.0.0.1", "--port", str(port), "--log-level", "critical",
               "--no-access-log"]  # fmt: skip
    else:
        cmd = [sys.executable, "-c", "import cli; cli.main()", "serve", "--port", str(port),
               "--log-level", "critical"]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_ready(base, proc)
        httpx.post(base + "/api/chat", json={"message": QUESTION}, timeout=30)  # warm
        until = time.time() + hold_s + 30
        ctx = mp.get_context("fork")
        out: mp.Queue = ctx.Queue()
        held: mp.Queue = ctx.Queue()
        readies = []
        procs = []
        flooders = (idle + PER_FLOODER - 1) // PER_FLOODER
        for i in range(flooders):
            count = min(PER_FLOODER, idle - i * PER_FLOODER)
            ready = ctx.Event()
            args = (port, count, f"127.0.0.{i + 2}", until, ready, held)
            procs.append(ctx.Process(target=flooder, args=args, daemon=True))
            readies.append(ready)
        ready = ctx.Event()
        procs.append(
            ctx.Process(target=trickler, args=(port, trickling, until, ready, out), daemon=True)
        )
        readies.append(ready)
        started = time.time()
        for p in procs:
            p.start()
        for r in readies:
            r.wait(timeout=120)
        opened_s = time.time() - started
        flood = sum(held.get(timeout=5) for _ in range(flooders))
        fds = len(os.listdir(f"/proc/{proc.pid}/fd"))  # what the server holds
        probes = probe(base, hold_s)
        lived = out.get(timeout=hold_s + 60)
        for p in procs:
            p.terminate()
            p.join(timeout=10)
        closed = [s for s in lived if s != float("inf")]
        return {
            "server": kind,
            "idle_established": flood,
            "server_fds": fds,
            "flood_opened_s": round(opened_s, 1),
            "probes": f"{probes['answered']}/{probes['asked']} within 1 s",
            "probe_max_s": round(probes["max_s"], 2),
            "trickling_closed": f"{len(closed)}/{len(lived)}",
            "trickling_max_life_s": round(max(closed), 1) if closed else None,
        }
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def main() -> None:
    idle = int(sys.argv[1]) if len(sys.argv) > 1 else 21000
    trickling = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    hold_s = float(sys.argv[3]) if len(sys.argv) > 3 else 30.0
    _raise_limit()
    given = os.environ.get("SIZING_DATA_DIR")
    data_dir, tmp = ensure_index(Path(given) if given else None)
    print(f"idle {idle}, trickling {trickling}, hold {hold_s:.0f} s, "
          f"open-file limit {resource.getrlimit(resource.RLIMIT_NOFILE)[0]}")  # fmt: skip
    try:
        for kind in ("bare", "guarded"):
            print(run(kind, data_dir, idle, trickling, hold_s), flush=True)
    finally:
        if tmp is not None:
            tmp.cleanup()


if __name__ == "__main__":
    main()
