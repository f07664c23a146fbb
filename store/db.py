"""SQL storage for sessions, feedback, rate-limit buckets and Slack de-duplication.

Two ways to run:

- embedded (the default): one SQLite file per store under the data folder (`sessions.sqlite3`,
  `feedback.sqlite3`, `state.sqlite3`), WAL mode, one connection per thread. Several worker
  processes on one machine share the files.
- `SIZING_DATABASE_URL=postgresql://user:pass@host/db`: every store in one PostgreSQL database
  through a psycopg 3 connection pool, so N API replicas behind a load balancer share everything.

Stores write their SQL once with `?` placeholders; `Database.execute` adapts them per dialect.
Every driver error becomes `StorageError`, whose message names the store by a safe label (the file
name relative to the data folder, or the database URL without its password), never an absolute
path. Each store brings its migrations (`Migration` list); `Database.migrate` applies the missing
ones once, under a lock (SQLite: BEGIN IMMEDIATE around check-and-apply; PostgreSQL: an advisory
lock), and records them in `schema_migrations`. Concurrent opens of a new file are safe: the WAL
switch is retried while another opener holds the lock, and an `ALTER TABLE ... ADD COLUMN` whose
column exists already counts as applied.

    db = open_database(settings, "sessions")      # sessions.sqlite3 or the PostgreSQL database
    with db.transaction() as tx:
        rows = tx.execute("SELECT id FROM sessions WHERE id = ?", (sid,)).fetchall()
"""

from __future__ import annotations

import logging
import os
import re
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol
from urllib.parse import urlsplit, urlunsplit

from pydantic import SecretStr

log = logging.getLogger("store.db")

Dialect = Literal["sqlite", "postgresql"]
SQLITE_FILES = {
    "sessions": "sessions.sqlite3",
    "feedback": "feedback.sqlite3",
    "state": "state.sqlite3",
}

_MIGRATIONS_TABLE = (
    "CREATE TABLE IF NOT EXISTS schema_migrations ("
    "component TEXT NOT NULL, version INTEGER NOT NULL, PRIMARY KEY (component, version))"
)


_ADD_COLUMN = re.compile(r"\s*ALTER\s+TABLE\s+\S+\s+ADD\s+(COLUMN\s+)?", re.IGNORECASE)
# a new file switches to WAL once; a concurrent opener may find it locked for a moment (SQLite
# does not wait for that lock on its own): retry for up to about WAL_RETRY_S seconds
WAL_RETRY_S = 10.0


class DatabaseSettings(Protocol):
    """What `open_database` reads of the settings (the application's `Settings` has these:
    SIZING_DATA_DIR, SIZING_DATABASE_URL, SIZING_DATABASE_POOL_SIZE)."""

    @property
    def data_dir(self) -> Path: ...

    @property
    def database_url(self) -> SecretStr | None: ...

    @property
    def database_pool_size(self) -> int: ...


class StorageError(RuntimeError):
    """A store could not be read or written; the message names the store, never a full path.

    `public` is what a response may show: a SQLite file's name and the error (local, no
    path); for PostgreSQL only "the PostgreSQL database" and the error's class, never the URL,
    a host, a user or the server's message (those go to the log)."""

    def __init__(self, label: str, detail: str, public: str | None = None) -> None:
        super().__init__(f"{label}: {detail}")
        self.label = label
        self.detail = detail
        self.public_detail = detail if public is None else public

    @property
    def public(self) -> str:
        return self.public_detail


@dataclass(frozen=True)
class Migration:
    """One schema step of a store: `sqlite` and `postgresql` scripts (`;`-separated statements)."""

    version: int
    sqlite: str
    postgresql: str


def safe_url(url: str) -> str:
    """The database URL without the password (for logs, /readyz and error messages)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)[1]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc}" if user else netloc))


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]


class Database:
    """A SQLite file or a PostgreSQL pool behind one small interface (see the module docstring)."""

    dialect: Dialect
    # time.monotonic() when the store last came back after an outage (failures before it are over)
    recovered_at: float = 0.0

    def __init__(self, label: str) -> None:
        self.label = label
        self._migrated: set[str] = set()
        self._migrate_lock = threading.Lock()
        self._migrations: dict[str, Sequence[Migration]] = {}  # applied here, by component
        self._remigrate = False
        self.replaced = 0  # times the store's file was found deleted or replaced under us
        self.replaced_at: float | None = None

    def _before_transaction(self) -> None:
        """SQLite: notice a file deleted or replaced under the process (below)."""

    # -- to be provided per dialect
    @contextmanager
    def _raw(self) -> Iterator[Any]:  # pragma: no cover - abstract
        raise NotImplementedError
        yield

    def close(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _errors(self) -> tuple[type[BaseException], ...]:  # pragma: no cover - abstract
        raise NotImplementedError

    # -- shared
    def sql(self, statement: str) -> str:
        return statement if self.dialect == "sqlite" else statement.replace("?", "%s")

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """One transaction (committed on success, rolled back on error). Driver errors become
        StorageError naming this store."""
        self._before_transaction()
        if self._remigrate:
            self._apply_again()
        try:
            with self._raw() as con:
                yield Transaction(self, con)
        except self._errors() as exc:
            raise StorageError(self.label, _describe(exc), self.public_error(exc)) from exc

    @property
    def public_label(self) -> str:
        """The store's name as a response may show it (no URL, user or path)."""
        return self.label

    def public_error(self, exc: BaseException) -> str:
        """A driver error as a response may show it (see StorageError.public)."""
        return f"{self.public_label}: {_describe(exc)}"

    supports_nowait = False

    @contextmanager
    def transaction_nowait(self) -> Iterator[Transaction]:
        """A transaction that never waits for another writer (`Busy` at once instead), for
        callers on an event loop; only where `supports_nowait` (local SQLite files)."""
        raise NotImplementedError(f"{self.dialect} transactions may wait for the network")
        yield  # pragma: no cover

    def _apply_again(self) -> None:
        """The file was recreated: apply every component's migrations to it again."""
        with self._migrate_lock:
            if not self._remigrate:
                return
            self._remigrate = False
            self._migrated.clear()
            components = dict(self._migrations)
        for component, migrations in components.items():
            self.migrate(component, migrations)

    def migrate(self, component: str, migrations: Sequence[Migration]) -> None:
        """Apply the component's missing migrations (idempotent, safe across processes)."""
        self._before_transaction()
        self._migrations.setdefault(component, migrations)
        if self._remigrate:
            self._apply_again()
        if component in self._migrated:
            return
        with self._migrate_lock, self.transaction() as tx:
            if component in self._migrated:
                return
            tx.lock_for_migrations()
            tx.execute(_MIGRATIONS_TABLE)
            done = {
                int(r[0])
                for r in tx.execute(
                    "SELECT version FROM schema_migrations WHERE component = ?", (component,)
                ).fetchall()
            }
            for migration in sorted(migrations, key=lambda m: m.version):
                if migration.version in done:
                    continue
                script = migration.sqlite if self.dialect == "sqlite" else migration.postgresql
                for statement in _statements(script):
                    tx.apply(statement)
                tx.execute(
                    "INSERT INTO schema_migrations (component, version) VALUES (?, ?)",
                    (component, migration.version),
                )
        self._migrated.add(component)

    def check(self, replaced_window_s: float = 60.0) -> dict[str, Any]:
        """Readable and writable? {"ok": bool, "store": label, "error"?: str} (no full paths).
        Not ok for `replaced_window_s` after the file was found deleted or replaced."""
        try:
            with self.transaction() as tx:
                tx.execute(_MIGRATIONS_TABLE)
                tx.execute("SELECT COUNT(*) FROM schema_migrations").fetchone()
                tx.execute(
                    "INSERT INTO schema_migrations (component, version) VALUES (?, ?)",
                    ("readyz", 0),
                )
                tx.rollback_on_exit()
        except StorageError as exc:
            return {"ok": False, "store": self.public_label, "error": exc.public}
        if self.replaced_at is not None and time.monotonic() - self.replaced_at < replaced_window_s:
            error = (
                f"the file was deleted or replaced while open ({self.replaced} time(s)); "
                "recreated, what it held before is gone"
            )
            return {"ok": False, "store": self.public_label, "error": error}
        return {"ok": True, "store": self.public_label}


class Busy(Exception):
    """Another connection holds the write lock (raised only by `transaction_nowait`)."""


class Transaction:
    """What a store sees inside `Database.transaction()`."""

    def __init__(self, db: Database, con: Any) -> None:
        self.db = db
        self.con = con
        self._rollback = False

    def execute(self, statement: str, params: Sequence[Any] = ()) -> Any:
        return self.con.execute(self.db.sql(statement), tuple(params))

    def apply(self, statement: str) -> None:
        """A migration statement. SQLite has no `ADD COLUMN IF NOT EXISTS`: a column that is
        already there (another process added it first) counts as done, not as a failure."""
        try:
            self.execute(statement)
        except sqlite3.OperationalError as exc:
            if not (_ADD_COLUMN.match(statement) and "duplicate column name" in str(exc)):
                raise
            log.info("migration of %s: column already there (%s)", self.db.label, exc)

    def lock_for_write(self) -> None:
        """SQLite: take the write lock now (BEGIN IMMEDIATE), so read-then-write is atomic
        across processes. PostgreSQL locks rows with SELECT ... FOR UPDATE instead."""
        if self.db.dialect == "sqlite" and not self.con.in_transaction:
            self.con.execute("BEGIN IMMEDIATE")

    def allow_slow(self) -> None:
        """Lift PostgreSQL's statement timeout for this transaction (migrations, pruning)."""
        if self.db.dialect == "postgresql":
            self.con.execute("SET LOCAL statement_timeout = 0")

    def lock_for_migrations(self) -> None:
        if self.db.dialect == "postgresql":
            self.allow_slow()  # another replica may be migrating: wait for its lock
            self.con.execute("SELECT pg_advisory_xact_lock(7310041)")
        elif not self.con.in_transaction:
            self.con.execute("BEGIN IMMEDIATE")

    def rollback_on_exit(self) -> None:
        """Undo this transaction's writes at the end (used by the write probe of /readyz)."""
        self._rollback = True
        raise _Rollback


class _Rollback(Exception):
    pass


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return re.sub(r"(/[^\s:'\"]+)+", "<path>", text)  # never an absolute path


class SQLiteDatabase(Database):
    dialect: Dialect = "sqlite"

    def __init__(self, path: Path, label: str | None = None) -> None:
        super().__init__(label or Path(path).name)
        self.path = Path(path)
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        # the file's identity (device, inode) when opened, and a generation that every
        # thread's connection must match (bumped when the file is found deleted or replaced)
        self._identity: tuple[int, int] | None = None
        self._generation = 0

    def _file_identity(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_dev, st.st_ino)

    def _before_transaction(self) -> None:
        """A file deleted or replaced under the process (an operator's `rm`, a restore) would
        take every later write into a file nobody reads again: a write acknowledged, then lost
        on restart. Each transaction first compares the file's identity with the one opened
        (a stat); on a change every thread reconnects (a new file is created, the migrations
        applied again) and /readyz reports it (`check`)."""
        if self._identity is None or self._file_identity() == self._identity:
            return
        with self._lock:
            now = self._file_identity()
            if self._identity is None or now == self._identity:
                return  # another thread handled it
            self._identity = None
            self._generation += 1
        self.replaced += 1
        self.replaced_at = time.monotonic()
        self._remigrate = True
        log.error(
            "%s was deleted or replaced while open: reconnecting (a new file if it is gone)",
            self.label,
        )

    def _errors(self) -> tuple[type[BaseException], ...]:
        return (sqlite3.Error, OSError)

    supports_nowait = True

    def _connection(self, nowait: bool = False) -> sqlite3.Connection:
        slot = "nowait" if nowait else "con"
        con: sqlite3.Connection | None = getattr(self._local, slot, None)
        if con is not None and getattr(self._local, slot + "_generation", 0) != self._generation:
            self._drop(con, slot)  # opened on a file since deleted or replaced
            con = None
        if con is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # a nowait connection gets SQLITE_BUSY at once where the others wait up to 10 s
            con = sqlite3.connect(self.path, timeout=0 if nowait else 10, check_same_thread=False)
            try:
                _use_wal(con)
                # a committed write survives a process crash; only an OS crash may lose the last
                con.execute("PRAGMA synchronous=NORMAL")
            except sqlite3.Error:
                con.close()
                raise
            setattr(self._local, slot, con)
            with self._lock:
                self._all.append(con)
                setattr(self._local, slot + "_generation", self._generation)
                if self._identity is None:
                    self._identity = self._file_identity()
        return con

    @contextmanager
    def transaction_nowait(self) -> Iterator[Transaction]:
        self._before_transaction()
        if self._remigrate:
            self._apply_again()
        con = self._connection(nowait=True)
        try:
            with con:  # commit on success, roll back on error
                yield Transaction(self, con)
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
                raise Busy(self.label) from exc
            self._drop(con, "nowait")
            raise StorageError(self.label, _describe(exc)) from exc
        except (sqlite3.Error, OSError) as exc:
            raise StorageError(self.label, _describe(exc)) from exc

    @contextmanager
    def _raw(self) -> Iterator[Any]:
        con = self._connection()
        try:
            with con:  # commit on success, roll back on error
                yield con
        except _Rollback:
            pass
        except sqlite3.DatabaseError:
            self._drop(con)  # a broken file: reconnect next time (it may be repaired)
            raise

    def _drop(self, con: sqlite3.Connection, slot: str = "con") -> None:
        setattr(self._local, slot, None)
        with self._lock:
            if con in self._all:
                self._all.remove(con)
        con.close()

    def close(self) -> None:
        with self._lock:
            for con in self._all:
                con.close()
            self._all.clear()
        self._local = threading.local()


def _use_wal(con: sqlite3.Connection) -> None:
    """PRAGMA journal_mode=WAL, retried while another opener of a new file holds the lock."""
    deadline = time.monotonic() + WAL_RETRY_S
    delay = 0.005
    while True:
        try:
            con.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.1)


class StoreDown(Exception):
    """The PostgreSQL database failed a moment ago and is being retried in the background:
    callers fail at once instead of waiting for a connection (`PostgresDatabase`)."""


class PostgresDatabase(Database):
    """A psycopg pool that fails fast (issue 27): connections within `timeout_s` (the pool's
    wait; libpq's connect timeout is at least 2 s), statements within `timeout_s` (migrations
    and pruning lift it: `Transaction.allow_slow`). A connection failure opens a breaker: every
    call fails at once (`StoreDown`) while one background thread tries to connect every
    `retry_s`; when it can, the pool's idle connections are checked and calls go through again,
    without a restart."""

    dialect: Dialect = "postgresql"

    def __init__(
        self,
        url: str,
        min_size: int = 1,
        max_size: int = 10,
        timeout_s: float = 1.0,
        retry_s: float = 1.0,
    ) -> None:
        super().__init__(safe_url(url))
        from psycopg_pool import ConnectionPool

        self._url = url
        self.timeout_s = timeout_s
        self.retry_s = retry_s
        self._connect_kwargs: dict[str, Any] = {
            "connect_timeout": max(2, int(timeout_s + 0.999)),  # libpq's minimum is 2 s
            "options": f"-c statement_timeout={int(timeout_s * 1000)}",
        }
        self.pool = ConnectionPool(
            url,
            min_size=min_size,
            max_size=max_size,
            open=False,
            timeout=timeout_s,
            kwargs=self._connect_kwargs,
            name="sizing",
        )
        self._opened = False
        self._open_lock = threading.Lock()
        self._down: str | None = None  # why, while the breaker is open
        self._down_lock = threading.Lock()
        self.outages = 0
        self._closed = False

    def _errors(self) -> tuple[type[BaseException], ...]:
        import psycopg
        from psycopg_pool import PoolTimeout

        return (psycopg.Error, PoolTimeout, OSError, StoreDown)

    @property
    def down(self) -> bool:
        return self._down is not None

    def _connection_failed(self, exc: BaseException) -> bool:
        import psycopg
        from psycopg_pool import PoolTimeout

        return isinstance(exc, (psycopg.OperationalError, PoolTimeout, OSError)) and not (
            isinstance(exc, psycopg.errors.QueryCanceled)  # a slow statement, not a dead server
        )

    def _trip(self, exc: BaseException) -> None:
        with self._down_lock:
            if self._down is not None:
                return
            self._down = _describe(exc)
            self.outages += 1
        log.error("PostgreSQL unavailable, failing fast and retrying: %s", self._down)
        threading.Thread(target=self._retry, name="sizing-pg-retry", daemon=True).start()

    def _retry(self) -> None:
        import psycopg

        while not self._closed:
            time.sleep(self.retry_s)
            try:
                with psycopg.connect(self._url, **self._connect_kwargs) as con:
                    con.execute("SELECT 1")
            except Exception as exc:  # still down
                log.debug("PostgreSQL still unavailable: %s", _describe(exc))
                continue
            try:
                self.pool.check()  # drop the idle connections the outage broke
            except Exception as exc:  # pragma: no cover - the pool reconnects on its own
                log.warning("checking the pool after the outage failed: %s", exc)
            with self._down_lock:
                self._down = None
                self.recovered_at = time.monotonic()
            log.info("PostgreSQL is back")
            return

    def public_error(self, exc: BaseException) -> str:
        return f"{self.public_label} is unavailable ({type(exc).__name__})"

    @property
    def public_label(self) -> str:
        return "the PostgreSQL database"

    @contextmanager
    def _raw(self) -> Iterator[Any]:
        if self._down is not None:
            raise StoreDown(f"down ({self._down}); retried in the background")
        if not self._opened:
            with self._open_lock:
                if not self._opened:
                    self.pool.open(wait=False)
                    self._opened = True
        try:
            with self.pool.connection() as con:
                try:
                    with con.transaction():
                        yield con
                except _Rollback:
                    pass
        except self._errors() as exc:
            if self._connection_failed(exc):
                self._trip(exc)
            raise

    def close(self) -> None:
        self._closed = True  # ends the background retry
        if self._opened:
            self.pool.close()
            self._opened = False


_shared: dict[str, PostgresDatabase] = {}
_shared_lock = threading.Lock()


def open_database(settings: DatabaseSettings, store: str) -> Database:
    """The database of one store (`sessions`, `feedback` or `state`): its SQLite file under the
    data folder, or the one PostgreSQL database (one pool per URL and process) when
    SIZING_DATABASE_URL is set."""
    url = settings.database_url.get_secret_value() if settings.database_url else ""
    if url:
        if not url.startswith(("postgresql://", "postgres://")):
            raise StorageError(safe_url(url), "SIZING_DATABASE_URL must be postgresql://...")
        with _shared_lock:
            db = _shared.get(url)
            if db is None:
                timeout_s = getattr(settings, "database_timeout_s", 1.0)
                db = _shared[url] = PostgresDatabase(
                    url, max_size=settings.database_pool_size, timeout_s=timeout_s
                )
            return db
    return SQLiteDatabase(Path(settings.data_dir) / SQLITE_FILES[store])


def close_shared_url(url: str) -> None:
    """Close the PostgreSQL pool of one URL (tests that stop their own server)."""
    with _shared_lock:
        db = _shared.pop(url, None)
    if db is not None:
        db.close()


def close_shared() -> None:
    """Close the PostgreSQL pools (tests, shutdown)."""
    with _shared_lock:
        for db in _shared.values():
            db.close()
        _shared.clear()
