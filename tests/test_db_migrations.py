"""Migrations under concurrent opens: several processes and threads open the same new SQLite
file at once (real files, real sqlite3); every migration is applied exactly once and no opener
fails (once: "duplicate column name: facts", "database is locked")."""

from __future__ import annotations

import multiprocessing as mp
import sqlite3
import threading
from pathlib import Path
from typing import Any

from assistant.sessions import SessionStore
from store import feedback, sessions
from store.db import Migration, SQLiteDatabase

OPENERS = 6
ROUNDS = 12


def _open_stores(path: str, start: Any, results: Any) -> None:
    start.wait(timeout=30)  # all openers released together
    try:
        store = SessionStore(SQLiteDatabase(Path(path) / "sessions.sqlite3"))
        votes = SQLiteDatabase(Path(path) / "feedback.sqlite3")
        votes.migrate("feedback", feedback.MIGRATIONS)  # raises if it fails
        results.put(dict(store.failures) or "ok")
        store.close()
        votes.close()
    except Exception as exc:  # reported to the test, not lost in the child
        results.put(f"{type(exc).__name__}: {exc}")


def _check_schema(data_dir: Path) -> None:
    con = sqlite3.connect(data_dir / "sessions.sqlite3")
    rows = con.execute("SELECT component, version FROM schema_migrations").fetchall()
    columns = [r[1] for r in con.execute("PRAGMA table_info(turns)")]
    con.close()
    expected = [("sessions", m.version) for m in sessions.MIGRATIONS]
    assert sorted(rows) == expected  # each exactly once
    assert columns.count("facts") == 1
    con = sqlite3.connect(data_dir / "feedback.sqlite3")
    rows = con.execute("SELECT component, version FROM schema_migrations").fetchall()
    con.close()
    assert sorted(rows) == [("feedback", m.version) for m in feedback.MIGRATIONS]


def test_processes_open_the_same_new_files_at_once(tmp_path: Path) -> None:
    context = mp.get_context("fork")  # starts at once, so the openers collide
    for round_ in range(ROUNDS):  # a race shows only sometimes: several fresh files
        data_dir = tmp_path / f"round{round_}"
        data_dir.mkdir()
        start, results = context.Event(), context.Queue()
        workers = [
            context.Process(target=_open_stores, args=(str(data_dir), start, results))
            for _ in range(OPENERS)
        ]
        for worker in workers:
            worker.start()
        start.set()
        outcomes = [results.get(timeout=60) for _ in workers]
        for worker in workers:
            worker.join(timeout=30)
        assert outcomes == ["ok"] * OPENERS, outcomes
        _check_schema(data_dir)


def test_threads_open_the_same_new_file_at_once(tmp_path: Path) -> None:
    import queue

    start, results = threading.Event(), queue.Queue()  # type: ignore[var-annotated]
    threads = [
        threading.Thread(target=_open_stores, args=(str(tmp_path), start, results))
        for _ in range(OPENERS)
    ]
    for thread in threads:
        thread.start()
    start.set()
    for thread in threads:
        thread.join(timeout=60)
    assert [results.get_nowait() for _ in threads] == ["ok"] * OPENERS
    _check_schema(tmp_path)


def test_a_column_added_already_counts_as_applied(tmp_path: Path) -> None:
    """A file where another opener added the column but the record is missing: no failure."""
    path = tmp_path / "x.sqlite3"
    steps = [
        Migration(1, sqlite="CREATE TABLE t (a TEXT)", postgresql=""),
        Migration(2, sqlite="ALTER TABLE t ADD COLUMN facts TEXT", postgresql=""),
    ]
    con = sqlite3.connect(path)
    con.executescript("CREATE TABLE t (a TEXT, facts TEXT)")
    con.close()
    db = SQLiteDatabase(path)
    db.migrate("x", steps[1:])
    with db.transaction() as tx:
        assert tx.execute("SELECT version FROM schema_migrations").fetchall() == [(2,)]
    db.close()


def test_other_migration_errors_still_fail(tmp_path: Path) -> None:
    import pytest

    from store.db import StorageError

    db = SQLiteDatabase(tmp_path / "y.sqlite3")
    with pytest.raises(StorageError, match="no such table"):
        db.migrate("y", [Migration(1, sqlite="ALTER TABLE nope ADD COLUMN c TEXT", postgresql="")])
    db.close()
