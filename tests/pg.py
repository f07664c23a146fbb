"""A real PostgreSQL server for tests: the `pgserver` wheel (bundles PostgreSQL), else Debian's
`postgresql` package (initdb + pg_ctl as the `postgres` user when running as root). Tests skip
with the reason only when neither can start.

    postgres_url  (session fixture) -> "postgresql://..." on a unix socket or 127.0.0.1
    pg_url        (per test) -> a fresh database on that server, dropped afterwards
"""

from __future__ import annotations

import glob
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _pgserver(folder: Path) -> tuple[str, object]:
    import pgserver

    server = pgserver.get_server(folder, cleanup_mode="stop")
    return server.get_uri(), server


def _debian(folder: Path) -> tuple[str, subprocess.Popen[bytes] | None, list[str]]:
    binaries = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
    if not binaries:
        raise RuntimeError("Debian's postgresql package is not installed (make pg-deps)")
    bin_dir = Path(binaries[-1])
    as_user: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    data = folder / "data"
    subprocess.run(
        [*as_user, str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust"],
        check=True,
        capture_output=True,
    )
    port = _free_port()
    options = f"-c listen_addresses=127.0.0.1 -p {port} -k {folder}"
    subprocess.run(
        [*as_user, str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options, "-w", "start",
         "-l", str(folder / "log")],
        check=True,
        capture_output=True,
    )  # fmt: skip
    stop = [*as_user, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "fast", "stop"]
    return f"postgresql://postgres@127.0.0.1:{port}/postgres", None, stop


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    folder = Path(tempfile.mkdtemp(prefix="sizing-pg-"))
    os.chmod(folder, 0o755)
    problems = []
    try:
        url, server = _pgserver(folder / "pgserver")
    except Exception as exc:
        problems.append(f"pgserver: {type(exc).__name__}: {exc}")
    else:
        yield url
        server.cleanup()  # type: ignore[attr-defined]
        shutil.rmtree(folder, ignore_errors=True)
        return
    try:
        os.makedirs(folder / "debian")
        url, _, stop = _debian(folder / "debian")
    except Exception as exc:
        problems.append(f"Debian postgresql: {type(exc).__name__}: {exc}")
        shutil.rmtree(folder, ignore_errors=True)
        pytest.skip("no PostgreSQL could be started: " + "; ".join(problems))
    yield url
    subprocess.run(stop, capture_output=True)
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def pg_url(postgres_url: str) -> Iterator[str]:
    """A fresh database on the session's PostgreSQL server, for one test."""
    import psycopg

    from store.db import close_shared

    name = "t_" + secrets.token_hex(6)
    with psycopg.connect(postgres_url, autocommit=True) as con:
        con.execute(f"CREATE DATABASE {name}")
    parts = urlsplit(postgres_url)
    yield urlunsplit(parts._replace(path="/" + name))
    close_shared()
    with psycopg.connect(postgres_url, autocommit=True) as con:
        con.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


class StoppablePostgres:
    """A PostgreSQL server of one test's own (pgserver), which the test may stop and start
    again on the same socket (an outage and its end)."""

    def __init__(self, folder: Path) -> None:
        import pgserver

        self.server = pgserver.get_server(folder, cleanup_mode="stop")
        self.url: str = self.server.get_uri()

    def stop(self) -> None:
        from pgserver._commands import pg_ctl

        pg_ctl(
            ["-w", "-m", "fast", "stop"], pgdata=self.server.pgdata, user=self.server.system_user
        )

    def start(self) -> None:
        with self.server._lock:
            self.server.ensure_postgres_running()


@pytest.fixture
def stoppable_postgres(tmp_path: Path) -> Iterator[StoppablePostgres]:
    from store.db import close_shared_url

    folder = Path(tempfile.mkdtemp(prefix="sizing-pg-own-"))
    os.chmod(folder, 0o755)
    try:
        pg = StoppablePostgres(folder / "data")
    except Exception as exc:
        shutil.rmtree(folder, ignore_errors=True)
        pytest.skip(f"pgserver could not start a PostgreSQL of the test's own: {exc}")
    yield pg
    close_shared_url(pg.url)
    pg.server.cleanup()
    shutil.rmtree(folder, ignore_errors=True)
