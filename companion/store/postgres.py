"""The store on PostgreSQL (issue 19), for a club that runs several app servers on one
database server: the same parts as SQLite's store (its SQL written once; the dialect's few
differences in companion/store/dialect.py), on other connections and another write lock.

``DATABASE_URL=postgresql://user@host:port/name`` chooses it (``create_app``); SQLite stays
the default. What differs from SQLite, and only here:

* **Connections** come from a psycopg_pool pool per process (``DATABASE_POOL_SIZE``); a
  thread takes one at its first query and gives it back at the end of its request
  (``release``: Flask's teardown), or when the thread ends. One idle a while is checked on
  the way out of the pool, so a database server restarted meanwhile costs no failed
  request. While the server is out of reach a request is a 503 at once, and a connection
  of its own, tried at most every :data:`PROBE` seconds, says when it is back: a new pool
  then serves at once.
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

#: While the database can't be reached, a request is answered 503 at once (it waits for no
#: pool), and at most every PROBE seconds one request tries a connection of its own: once one
#: is made, the database is back, and a new pool serves at once (the old one's reconnection,
#: backing off, could keep a worker waiting seconds more).
PROBE = 0.25


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
        #: The database found out of reach (see :data:`PROBE`), and when it was last tried.
        self._down = False
        self._tried = float("-inf")
        self._trying = threading.Lock()
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
                        name="companion",
                        open=False,
                    )
                    self._pool.open(wait=False)
                    self._pool_pid = pid
        return self._pool

    def _conn(self) -> Connection:
        self.pool()  # after a fork, this process's pool, and none of the parent's connections held
        held = getattr(self._local, "held", None)
        if held is None:
            held = self._local.held = self._take()
        return held.conn

    def _take(self) -> _Held:
        """A working connection from the pool, checked unless given back within
        :data:`FRESH`. One found broken says the server restarted or is gone: a connection
        of its own finds out which (:meth:`_reach`) at once, rather than the pool retrying
        for its timeout; restarted, a new pool serves. While the database is known to be
        out of reach, ``psycopg.OperationalError`` (a 503) at once."""
        if self._down:
            self._reach()
        for _ in range(2):  # the pool of now; once more on a new one, the server restarted
            pool = self.pool()
            conn = pool.getconn()
            if time.monotonic() - self._returned.get(conn, float("-inf")) <= FRESH:
                return _Held(pool, conn, self._returned)
            try:
                psycopg_pool.ConnectionPool.check_connection(conn)
                return _Held(pool, conn, self._returned)
            except psycopg.Error:
                pool.putconn(conn)  # dropped by the pool
                self._down = True
                self._reach(now=True)
        raise psycopg.OperationalError("The database's connections broke again as they were made")

    def _reach(self, now: bool = False) -> None:
        """The database was found out of reach: one thread at a time, at most every
        :data:`PROBE` seconds (or ``now``), tries a connection of its own; made, the
        database is back, and the pool is replaced by a new one, which connects at once.
        Otherwise, and for every other request meanwhile: ``psycopg.OperationalError``."""
        if (now or time.monotonic() - self._tried >= PROBE) and self._trying.acquire(blocking=now):
            try:
                self._tried = time.monotonic()
                if self._down:
                    psycopg.connect(self.dsn, connect_timeout=2).close()
                    self._down = False
                    self._replace_pool()
            except psycopg.Error as e:
                raise psycopg.OperationalError(f"The database can't be reached: {e}".strip()) from None
            finally:
                self._trying.release()
        if self._down:
            raise psycopg.OperationalError("The database can't be reached just now")

    def _replace_pool(self) -> None:
        """A new pool at the next use; the old one's connections are closed as they are given back."""
        with self._lock:
            old, self._pool = self._pool, None
        if old is not None and self._pool_pid == os.getpid():
            old.close(timeout=1.0)

    def release(self) -> None:
        """Give this thread's connection back to the pool (the end of every request). One
        that broke says the database may be out of reach: the next request finds out."""
        held = getattr(self._local, "held", None)
        if held is not None:
            self._local.held = None
            if held.conn.raw.broken:
                self._down = True
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
        self.conn = psycopg.connect(dsn, autocommit=True, connect_timeout=2)  # a host gone: the hub tries again
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
