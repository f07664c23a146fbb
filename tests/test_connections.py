"""Issue 27, connection starvation: idle and trickling connections cannot lock clients out.

Bounded counts here (a cap of 40 connections, 60 idle ones); bench/bench_connections.py holds
21,000 idle and 300 trickling connections against `sizing serve`.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

pytest.register_assert_rewrite("tests.server")

from api.serving import ConnectionLimits, default_max_connections, guarded_http  # noqa: E402
from tests.server import LiveServer  # noqa: E402

pytest_plugins = ["tests.server"]

QUESTION = "Does Llama 3.3 70B in FP8 fit on 2x H100 SXM5?"


def _open(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock.settimeout(0.05)
    return sock


def _closed_by_server(sock: socket.socket) -> bool:
    """True once the server closed the connection (recv sees EOF or a reset)."""
    try:
        return sock.recv(1) == b""
    except TimeoutError:
        return False
    except OSError:
        return True


@contextmanager
def _server(
    api_settings: Callable[..., Any], header_timeout_s: float, max_connections: int
) -> Iterator[LiveServer]:
    from api.app import create_app

    limits = ConnectionLimits(header_timeout_s=header_timeout_s, max_connections=max_connections)
    with LiveServer(create_app(api_settings()), http=guarded_http(limits)) as server:
        yield server


def _timed(client: httpx.Client, method: str, path: str, **kw: Any) -> tuple[int, float]:
    started = time.monotonic()
    r = client.request(method, path, **kw)
    return r.status_code, time.monotonic() - started


@pytest.mark.server
def test_an_idle_flood_past_the_cap_does_not_lock_new_clients_out(
    api_settings: Callable[..., Any],
) -> None:
    with _server(api_settings, header_timeout_s=60, max_connections=40) as server:
        with httpx.Client(base_url=server.url, timeout=10) as warm:  # first answer: cold caches
            assert warm.post("/api/chat", json={"message": QUESTION}).status_code == 200
        flood = [_open(server.port) for _ in range(60)]  # 1.5x the cap, none sends a byte
        try:
            time.sleep(0.3)
            for _ in range(3):
                with httpx.Client(base_url=server.url, timeout=5) as client:
                    status, seconds = _timed(client, "GET", "/healthz")
                    assert status == 200 and seconds < 1.0, (status, seconds)
                    body = {"message": QUESTION}
                    status, seconds = _timed(client, "POST", "/api/chat", json=body)
                    assert status == 200 and seconds < 1.0, (status, seconds)
            open_now = sum(not _closed_by_server(s) for s in flood)
            assert open_now < 40, open_now  # the cap holds: the oldest idle ones were closed
            assert _closed_by_server(flood[0])  # the longest idle went first
            assert not _closed_by_server(flood[-1])  # the newest is still held
        finally:
            for sock in flood:
                sock.close()


@pytest.mark.server
def test_idle_and_trickling_connections_are_closed_within_the_header_timeout(
    api_settings: Callable[..., Any],
) -> None:
    timeout_s = 1.5
    with _server(api_settings, header_timeout_s=timeout_s, max_connections=500) as server:
        idle = [_open(server.port) for _ in range(10)]
        trickling = [_open(server.port) for _ in range(10)]
        opened = time.monotonic()
        closed_at: dict[int, float] = {}
        stop = threading.Event()

        def trickle() -> None:  # a header line every 0.2 s, never the blank line that ends them
            for sock in trickling:
                sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
            n = 0
            while not stop.is_set():
                n += 1
                for i, sock in enumerate(trickling):
                    if i not in closed_at:
                        try:
                            sock.sendall(f"X-Trickle-{n}: y\r\n".encode())
                        except OSError:
                            closed_at.setdefault(i, time.monotonic() - opened)
                stop.wait(0.2)

        sender = threading.Thread(target=trickle, daemon=True)
        sender.start()
        try:
            # a client with a whole request meanwhile is answered at once
            with httpx.Client(base_url=server.url, timeout=5) as client:
                status, seconds = _timed(client, "GET", "/healthz")
                assert status == 200 and seconds < 1.0
            deadline = opened + timeout_s + 2.0
            idle_closed: dict[int, float] = {}
            while time.monotonic() < deadline and (
                len(idle_closed) < len(idle) or len(closed_at) < len(trickling)
            ):
                for i, sock in enumerate(idle):
                    if i not in idle_closed and _closed_by_server(sock):
                        idle_closed[i] = time.monotonic() - opened
                for i, sock in enumerate(trickling):
                    if i not in closed_at and _closed_by_server(sock):
                        closed_at.setdefault(i, time.monotonic() - opened)
            assert len(idle_closed) == len(idle), idle_closed
            assert len(closed_at) == len(trickling), closed_at
            slack = 1.0  # the poll loop, the shared CPU
            assert max(idle_closed.values()) <= timeout_s + slack
            assert max(closed_at.values()) <= timeout_s + slack
            assert min(closed_at.values()) >= timeout_s * 0.9  # not before the timeout
        finally:
            stop.set()
            sender.join(timeout=2)
            for sock in idle + trickling:
                sock.close()


@pytest.mark.server
def test_a_request_slower_than_the_header_timeout_is_not_cut(
    api_settings: Callable[..., Any],
) -> None:
    """The header clock stops when the headers are in; a keep-alive connection's clock restarts
    after each response."""
    with (
        _server(api_settings, header_timeout_s=0.5, max_connections=500) as server,
        httpx.Client(base_url=server.url, timeout=10) as client,
    ):
        for _ in range(3):
            r = client.post("/api/chat", json={"message": QUESTION})
            assert r.status_code == 200
            time.sleep(0.2)  # within the timeout: the same connection is reused
            assert client.get("/healthz").status_code == 200


def test_the_default_cap_stays_below_the_open_file_limit() -> None:
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    cap = default_max_connections()
    assert 16 <= cap < soft
    assert soft - cap >= min(128, soft - 16)
