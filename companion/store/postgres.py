"""The store on PostgreSQL (issue 19), for a club that runs several app servers on one
database server: the same parts as SQLite's store (its SQL written once; the dialect's few
differences in companion/store/dialect.py), on other connections and another write lock.

``DATABASE_URL=postgresql://user@host:port/name`` chooses it (``create_app``); SQLite stays
the default. What differs from SQLite, and only here:

* **Connections** come from a psycopg_pool pool per process (``DATABASE_POOL_SIZE``); a
  thread takes one at its first query and gives it back at the end of its request
  (``release``: Flask's teardown), or when the thread ends. Each is checked on the way out
  of the pool, so a database server restarted meanwhile costs no failed request.
* **A change** is one transaction that first takes transaction-level advisory locks, the
  equivalent of SQLite's ``BEGIN IMMEDIATE`` (one writer at a time, the version check,
  the engine's verdict and the write seeing the same rows), so two app servers racing on
  one game give exactly one winner and the other a ``Conflict``. The locks are the
  database's, so they hold across servers. A change of one game (a move, an undo, a
  confirmation, a link, a key, archiving, deleting) takes that game's lock, and the whole
  database's shared: changes of two games do not wait for each other (issue 34). What
  is not one game's (new games and imports, which add players; the roster; a restore or
  copy; migrations) takes the whole database's lock alone, so it waits for every change
  under way and every change waits for it. The seats' figures feed every player's totals
  (triggers), rows two games' changes could both write: a change takes one more lock
  before it writes them (:data:`FIGURES_LOCK`, rarely: when a deal ends, is undone or is
  confirmed). Locks are always taken in that order (the database's, the game's, the
  figures'), so no two changes ever wait for each other in a circle.
* **Round trips**: a change's statements go in psycopg's pipeline mode: a statement
  whose rows are not read at once travels with the next, so a move is two round trips
  (its locks and reads; its writes and COMMIT), where it was ten, one a statement.
* **The schema** is built by the same migrations as SQLite's (companion/store/migrations.py),
  under the same lock, so servers starting together take turns. ``games`` and ``referees``
  carry a ``rowid`` identity column, so "in the order they were written" reads as on SQLite.
* **Live push**: a trigger notifies ``companion_games`` whenever a game's version changes;
  live.py's hub listens (:class:`PostgresWatcher`) instead of asking SQLite's
  ``data_version``.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
import time
import weakref
from contextlib import contextmanager
from pathlib import Path

import psycopg
import psycopg_pool
from psycopg.rows import RowMaker

from companion.store import migrations
from companion.store.copies import Copies, copy_games, verified_copy
from companion.store.dialect import POSTGRES
from companion.store.roster import Roster
from companion.store.rows import safe_url
from companion.store.sqlite import SqliteStore
from companion.store.states import StateCache

#: The channel every change of a game's version is notified on (migration m001's trigger).
CHANNEL = "companion_games"
#: The advisory lock of the whole database (any constant shared by all servers): taken by
#: every write transaction, alone by those that are not one game's (new games, the roster,
#: a restore, migrations), shared by a game's changes, which take their game's too.
WRITE_LOCK = 0x636F6D70  # "comp"
#: The advisory lock a game's change takes before it writes figures into its seats (see
#: :meth:`PostgresStore._lock_figures`).
FIGURES_LOCK = 0x66696773  # "figs"


def game_lock(game_id: str) -> int:
    """The second key of the game's advisory lock, ``(WRITE_LOCK, game_lock(id))``: 32 bits
    of a hash of its id (a two-key lock is never the one-key :data:`WRITE_LOCK`; two games
    sharing a key only wait for each other, as all games did before issue 34)."""
    return int.from_bytes(hashlib.blake2b(game_id.encode(), digest_size=4).digest(), "big", signed=True)


#: A pooled connection given back less than this many seconds ago is taken without a check:
#: a server answering phones makes no extra round trip a request. One idle longer (the
#: database may have restarted meanwhile) is checked first, and replaced if it is broken;
#: one that broke within the window fails its request with a 503, and is replaced.
FRESH = 2.0


class Row(tuple):
    """A row read by name or by position, as ``sqlite3.Row`` is (``dict(row)`` too)."""

    _index: dict[str, int]

    def __getitem__(self, key):
        if isinstance(key, str):
            return tuple.__getitem__(self, self._index[key])
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        return list(self._index)


def _rows(cursor) -> RowMaker[Row]:
    index = {c.name: i for i, c in enumerate(cursor.description or ())}

    def make(values) -> Row:
        row = Row(values)
        row._index = index
        return row

    return make


class Connection:
    """A pooled psycopg connection speaking the store's SQL as sqlite3's connection does."""

    def __init__(self, conn: psycopg.Connection):
        self.raw = conn

    def execute(self, sql: str, params=()):
        return self.raw.execute(POSTGRES.sql(sql, bool(params)), params or None)

    def executemany(self, sql: str, rows) -> None:
        rows = list(rows)
        if rows:
            with self.raw.cursor() as cur:
                cur.executemany(POSTGRES.sql(sql), rows)

    @property
    def in_transaction(self) -> bool:
        return self.raw.info.transaction_status != psycopg.pq.TransactionStatus.IDLE


class _Held:
    """A thread's connection taken from the pool; given back when released or when the
    thread ends (its thread-local slot is dropped)."""

    def __init__(self, pool: psycopg_pool.ConnectionPool, conn: psycopg.Connection, returned):
        self.conn = Connection(conn)
        self._finalizer = weakref.finalize(self, _give_back, pool, conn, returned)

    def give_back(self) -> None:
        self._finalizer()


def _give_back(pool: psycopg_pool.ConnectionPool, conn: psycopg.Connection, returned) -> None:
    """Back to the pool, noting when (``returned``: the store's, for :data:`FRESH`)."""
    returned[conn] = time.monotonic()
    try:
        pool.putconn(conn)
    except Exception:  # pragma: no cover - the pool is closed already
        conn.close()


def _roll_back(conn: Connection) -> None:
    """End a failed transaction; a connection lost meanwhile has nothing to roll back (the
    server did), and the pool drops it when it comes back."""
    try:
        if conn.in_transaction and not conn.raw.closed:
            conn.execute("ROLLBACK")
    except psycopg.Error:
        pass


def _configure(conn: psycopg.Connection) -> None:
    conn.row_factory = _rows  # type: ignore[assignment]


def _safe(url: str) -> str:
    """The URL without its password, for messages."""
    return safe_url(url)


class PostgresStore(Copies, Roster):
    """The store on a PostgreSQL database (``url``)."""

    dialect = POSTGRES

    def __init__(self, url: str, pool_size: int = 8, pool_timeout: float = 5.0):
        self.dsn = url
        self.path = _safe(url)
        self.synchronous = "NORMAL"
        self.pool_size = int(pool_size)
        self.pool_timeout = float(pool_timeout)
        self._local = threading.local()
        self._lock = threading.Lock()
        self._pool: psycopg_pool.ConnectionPool | None = None
        self._pool_pid: int | None = None
        self._inherited: list = []
        #: When each pooled connection was last given back (see :data:`FRESH`).
        self._returned: weakref.WeakKeyDictionary[psycopg.Connection, float] = weakref.WeakKeyDictionary()
        self._states = StateCache()
        self.migrate()

    def __repr__(self) -> str:
        return f"PostgresStore({self.path!r})"

    @property
    def url(self) -> str:
        return self.path

    # -- connections ------------------------------------------------------------
    def _connect(self) -> Connection:
        """A connection of its own, outside the pool (migrations; closed by the caller)."""
        conn = psycopg.connect(self.dsn, autocommit=True, connect_timeout=max(1, int(self.pool_timeout)))
        _configure(conn)
        return Connection(conn)

    def pool(self) -> psycopg_pool.ConnectionPool:
        """This process's pool, opened on first use (and again after a fork: a forked
        worker never uses its parent's connections)."""
        pid = os.getpid()
        if self._pool is None or self._pool_pid != pid:
            with self._lock:
                if self._pool is None or self._pool_pid != pid:
                    if self._pool is not None:
                        self._inherited.append(self._pool)  # the parent's: never touched here
                    self._local = threading.local()
                    self._pool = psycopg_pool.ConnectionPool(
                        self.dsn,
                        min_size=1,
                        max_size=max(1, self.pool_size),
                        timeout=self.pool_timeout,
                        kwargs={"autocommit": True},
                        configure=_configure,
                        check=self._check_unless_fresh,
                        name="companion",
                        open=False,
                    )
                    self._pool.open(wait=False)
                    self._pool_pid = pid
        return self._pool

    def _conn(self) -> Connection:
        pool = self.pool()
        held = getattr(self._local, "held", None)
        if held is None:
            held = self._local.held = _Held(pool, pool.getconn(), self._returned)
        return held.conn

    def _check_unless_fresh(self, conn: psycopg.Connection) -> None:
        """The pool's check of a connection it hands out, skipped within :data:`FRESH`."""
        if time.monotonic() - self._returned.get(conn, float("-inf")) > FRESH:
            psycopg_pool.ConnectionPool.check_connection(conn)

    def release(self) -> None:
        """Give this thread's connection back to the pool (the end of every request)."""
        held = getattr(self._local, "held", None)
        if held is not None:
            self._local.held = None
            held.give_back()

    def close(self) -> None:
        """Give back this thread's connection and close the pool (a new one opens on next use)."""
        self.release()
        if self._pool is not None and self._pool_pid is not None:
            if self._pool_pid == os.getpid():
                self._pool.close()
            self._pool = None

    @contextmanager
    def _write(self, game_id: str | None = None):
        """One write transaction, under the write lock of the game ``game_id`` (and the
        whole database's, shared), or the whole database's alone (see the module); its
        statements sent in psycopg's pipeline mode, so those whose rows are not read before
        the next go together: a move is two round trips, one for what it reads (the locks
        with it) and one for what it writes and its COMMIT."""
        conn = self._conn()
        try:
            with conn.raw.pipeline():
                # READ COMMITTED (not the consistent reads' REPEATABLE READ): every statement
                # after the lock sees what the previous writer committed before letting go of it.
                conn.execute("BEGIN")
                if game_id is None:
                    conn.execute(f"SELECT pg_advisory_xact_lock({WRITE_LOCK:d})")
                else:
                    conn.execute(
                        f"SELECT pg_advisory_xact_lock_shared({WRITE_LOCK:d}), "
                        f"pg_advisory_xact_lock({WRITE_LOCK:d}, CAST(? AS INTEGER))",
                        (game_lock(game_id),),
                    )
                yield conn
                conn.execute("COMMIT")
        except BaseException:
            _roll_back(conn)
            raise

    def _lock_figures(self, conn) -> None:
        conn.execute(f"SELECT pg_advisory_xact_lock({FIGURES_LOCK:d})")

    def watcher(self) -> PostgresWatcher:
        return PostgresWatcher(self.dsn)

    # -- schema ---------------------------------------------------------------------
    def migrate(self) -> list[str]:
        """Apply the migrations a database lacks (all of them to a new one); return their
        names. Servers starting together take turns (the write lock)."""
        try:
            conn = self._connect()
        except psycopg.OperationalError as e:
            raise RuntimeError(f"Can't reach the PostgreSQL database {self.path}: {e}".strip()) from None
        try:
            conn.raw.execute(f"BEGIN; SELECT pg_advisory_xact_lock({WRITE_LOCK:d})")
            applied = migrations.migrate(conn, self.dialect)
            conn.execute("COMMIT")
            return applied
        except BaseException:
            _roll_back(conn)
            raise
        finally:
            conn.raw.close()

    def schema(self) -> dict[str, list[str]]:
        conn = self._conn()
        out = {}
        for t in self.TABLES:
            rows = conn.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() "
                "AND table_name = ? AND column_name != 'rowid' ORDER BY ordinal_position",
                (t,),
            )
            out[t] = [r[0] for r in rows]
        return out

    def _foreign_key_problems(self, conn) -> list:
        return []  # PostgreSQL refused any such row as it was written

    def _after_copy(self, conn) -> None:
        for table in ("players", "roster_changes"):  # their ids were written as they were
            conn.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), coalesce(max(id), 0) + 1, false) FROM {table}"
            )

    # -- backups ----------------------------------------------------------------------
    def _copy_to(self, target) -> None:
        """Every game into the new SQLite file ``target`` (a consistent read, each game's
        transcript compared). (``pg_dump`` backs up the database server itself.)"""
        copy = SqliteStore(target)
        try:
            copy_games(self, copy)
        finally:
            copy.close()

    def restore(self, source, keep_in=None) -> tuple[int, Path]:
        """Replace every game with those of the SQLite backup at ``source``, once a copy of
        it checks out (:func:`~companion.store.verified_copy`); what it replaces is kept
        first as an SQLite file in the folder ``keep_in``."""
        if keep_in is None:
            raise ValueError("A restore into PostgreSQL keeps the games it replaces in a folder: give keep_in")
        with tempfile.TemporaryDirectory(prefix="companion-restore-") as folder:
            copy, count = verified_copy(source, folder)
            kept = self.keep(keep_in, "restore")
            original = SqliteStore(copy)
            try:
                copy_games(original, self, replace=True)
            finally:
                original.close()
        return count, kept


class PostgresWatcher:
    """What live.py's hub asks on PostgreSQL: a connection of its own listening on
    :data:`CHANNEL`; ``changed`` takes the notifications already received (no round trip)."""

    def __init__(self, dsn: str):
        self.conn = psycopg.connect(dsn, autocommit=True)
        self.conn.execute(f"LISTEN {CHANNEL}")

    def changed(self) -> bool:
        received = False
        for _ in self.conn.notifies(timeout=0):
            received = True
        return received

    def versions(self, ids: list[str]) -> list[tuple[str, int]]:
        return self.conn.execute("SELECT id, version FROM games WHERE id = ANY(%s)", (ids,)).fetchall()

    def close(self) -> None:
        self.conn.close()
