"""The store in one SQLite file (the default): its connections (one per thread and
process, safe for gunicorn's forked workers and Flask's threaded server), its write lock
(``BEGIN IMMEDIATE``: the lock is taken before the row is read, so a concurrent writer
waits, busy timeout, instead of failing), WAL, and what only a file has (its backup, its
restore, its foreign-key check, ``PRAGMA data_version`` for the live hub).

>>> import tempfile, os
>>> store = SqliteStore(os.path.join(tempfile.mkdtemp(), "doc.db"))
>>> row, key = store.create("tablanette", ["Ann", "Ben"], None)
>>> version, state = store.play(row["id"], 0, {"type": "layout", "cards": ["2C", "3D", "4H", "8S"]})
>>> version, state = store.play(row["id"], version, {"type": "play", "card": "QH", "capture": ["2C", "3D", "8S"]})
>>> version, store.get(row["id"])["version"], [m["seq"] for m in store.moves(row["id"])]
(2, 2, [1, 2])
>>> try:
...     store.undo(row["id"], 1)
... except Conflict as e:
...     print(e)
Stale version 1: the game is at version 2
>>> store.undo(row["id"], 2)[0], [m["undone"] for m in store.moves(row["id"])]
(3, [False, True])
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import threading
from contextlib import contextmanager
from pathlib import Path

import sqlite_utils

from companion.store import migrations
from companion.store.copies import Copies, _remove_database, sqlite_schema, verified_copy
from companion.store.dialect import SQLITE
from companion.store.errors import Conflict  # noqa: F401 (the doctest above)
from companion.store.roster import Roster
from companion.store.rows import BUSY_TIMEOUT, SYNCHRONOUS
from companion.store.states import StateCache


class SqliteStore(Copies, Roster):
    """Games and their moves in one SQLite file.

    ``SqliteStore(path)`` creates the file if needed, turns WAL on and applies pending
    migrations. ``synchronous`` is one of :data:`SYNCHRONOUS`, set on every connection.
    Every method is safe to call from any thread or worker process.
    """

    dialect = SQLITE

    def __init__(self, path, synchronous: str = "NORMAL"):
        path = os.fspath(path)
        if path == ":memory:" or path.startswith("file:"):
            raise ValueError("The store needs a file path: each connection would see its own in-memory database")
        if synchronous not in SYNCHRONOUS:
            raise ValueError(f"synchronous must be one of {', '.join(SYNCHRONOUS)}, not {synchronous!r}")
        self.path = path
        self.synchronous = synchronous
        self._local = threading.local()
        self._inherited: list[sqlite3.Connection] = []
        self._states = StateCache()
        self.migrate()

    def __repr__(self) -> str:
        return f"SqliteStore({self.path!r})"

    # -- connections ------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        # isolation_level=None: the sqlite3 module issues no implicit BEGIN, so the
        # transactions below are exactly the BEGIN IMMEDIATE ... COMMIT written here.
        conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False)
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT * 1000)}")
        conn.execute(f"PRAGMA synchronous = {self.synchronous}")  # one of SYNCHRONOUS: no injection
        conn.execute("PRAGMA foreign_keys = ON")
        return conn

    def _conn(self) -> sqlite3.Connection:
        """This thread's connection, opened on first use (and again after a fork).

        SQLite opens a file that can't be written at that moment (a read-only spell)
        read-only, without a word, and the connection stays read-only after the file can be
        written again: such a connection is marked (``read_only``), and the next write
        opens another (:meth:`_write`). Reads are served by it meanwhile."""
        shared_memory_writable(self.path)
        local, pid = self._local, os.getpid()
        if getattr(local, "pid", None) != pid:
            if getattr(local, "conn", None) is not None:
                # Inherited across fork: never use it, and never let garbage collection
                # close it in this process (SQLite: no connection carried over a fork).
                self._inherited.append(local.conn)
            local.conn, local.pid = self._connect(), pid
            local.read_only = not os.access(self.path, os.W_OK)  # asked after the open: never later than it
        return local.conn

    @property
    def url(self) -> str:
        """Where the games are, as ``flask db copy`` names a database."""
        return f"sqlite:///{self.path}"

    def release(self) -> None:
        """The end of a request: a pooled backend gives its connection back; SQLite keeps
        the thread's connection open (opening one costs more than a move)."""

    def watcher(self) -> SqliteWatcher:
        """A new watcher of committed changes, for live.py's hub (one per hub thread)."""
        return SqliteWatcher(self.path)

    def close(self) -> None:
        """Close this thread's connection (others close when their thread ends)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None and getattr(self._local, "pid", None) == os.getpid():
            conn.close()
        self._local.conn = self._local.pid = None

    @contextmanager
    def _write(self, game_id: str | None = None):
        """One write transaction; the write lock (the file's, whatever ``game_id``) is held
        from the first read. A connection that was read-only (:meth:`_conn`) is opened again
        first: once the file can be written, the first change after the spell is saved;
        while it can't, SQLite refuses it (a 503). A connection found read-only by a write
        (the spell ended between its open and the check) is marked so too."""
        if getattr(self._local, "read_only", False) and getattr(self._local, "pid", None) == os.getpid():
            self.close()
        conn = self._conn()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException as e:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if isinstance(e, sqlite3.OperationalError) and e.sqlite_errorcode & 0xFF == sqlite3.SQLITE_READONLY:
                self._local.read_only = True
            raise

    def migrate(self) -> list[str]:
        """Apply pending migrations (companion/store/migrations.py); return the names of
        those applied (opening twice is harmless).

        Processes opening the database together (gunicorn's workers on a fresh instance) do
        it one at a time, switching to WAL included: SQLite may refuse that switch at once,
        busy timeout or not, while another connection reads the file (issue 30): they take
        turns holding a lock on the database's folder."""
        with one_at_a_time(self.path):
            conn = self._connect()
            try:
                sqlite_utils.Database(conn, execute_plugins=False).enable_wal()  # kept in the file
                conn.execute("BEGIN IMMEDIATE")  # and any other writer of the file waits
                try:
                    applied = migrations.migrate(conn, self.dialect)
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
                return applied
            finally:
                conn.close()  # nothing stays open in a process that may fork workers

    # -- what only a file has ------------------------------------------------------
    def _copy_to(self, target) -> None:
        """The database as it is now into the new SQLite file ``target``, unchecked
        (SQLite's online backup: consistent, and safe while other connections write)."""
        source, copy = self._connect(), sqlite3.connect(os.fspath(target))
        try:
            source.backup(copy)
        finally:
            copy.close()
            source.close()

    def restore(self, source, keep_in=None) -> tuple[int, Path]:
        """Replace the whole database with the backup at ``source``, made by :meth:`backup`
        (perhaps by an older version: a copy of it is migrated). Nothing is replaced before
        the backup checks out (:func:`verified_copy`: SQLite's integrity and foreign keys,
        exactly this version's schema, every game replaying to the state it stores, its
        seats and players), and what replaces the database is the backup's rows in a
        database this version made; ``ValueError`` says what is wrong, and then nothing
        changed. The database replaced is first kept beside it (:meth:`keep`); the
        replacement is one step of SQLite's backup, so every other connection sees the old
        games or the new, never a mix. Returns the game count and where the replaced
        database was kept (``keep_in`` is for a database without a folder of its own:
        PostgreSQL)."""
        folder = Path(self.path).parent
        page_size = int(self._conn().execute("PRAGMA page_size").fetchone()[0])
        copy, count = verified_copy(source, folder, page_size=page_size)
        try:
            kept = self.keep(folder, "restore")
            verified, live = sqlite3.connect(copy), self._connect()
            try:
                verified.backup(live)
            finally:
                live.close()
                verified.close()
        finally:
            _remove_database(copy)
        self._states.drop()  # (another worker's keeps no entry of them that matches: states.py)
        return count, kept

    def schema(self) -> dict[str, list[str]]:
        """Each exported table's columns, in order (the same on every backend)."""
        return sqlite_schema(self._conn())

    def _foreign_key_problems(self, conn) -> list:
        """Rows that refer to a missing row, as ``(table, rowid, parent)`` (SQLite checks
        foreign keys only when asked; PostgreSQL refuses such a row as it is written)."""
        return conn.execute("PRAGMA foreign_key_check").fetchall()

    def _after_copy(self, conn) -> None:
        """After rows were written with their own ids (PostgreSQL moves its id sequence on)."""


class SqliteWatcher:
    """What live.py's hub asks the database, on a read connection of its own: whether any
    connection has committed since it last asked (``PRAGMA data_version``, answered from
    shared memory, so asking is nearly free), and the versions of the games watched."""

    def __init__(self, path: str):
        self.path = path
        self.conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False)
        self.committed: int | None = None

    def changed(self) -> bool:
        shared_memory_writable(self.path)
        now = self.conn.execute("PRAGMA data_version").fetchone()[0]
        changed, self.committed = now != self.committed, now
        return changed

    def versions(self, ids: list[str]) -> list[tuple[str, int]]:
        """The games' versions, in one query (read to the end: no read stays open)."""
        shared_memory_writable(self.path)
        marks = ", ".join("?" * len(ids))
        return self.conn.execute(f"SELECT id, version FROM games WHERE id IN ({marks})", ids).fetchall()

    def close(self) -> None:
        self.conn.close()


def shared_memory_writable(database: str) -> None:
    """Raise ``sqlite3.OperationalError`` (a 503) when the SQLite file ``database``'s
    ``-shm`` file is there but can't be written (its immutable flag set, its permissions
    changed, its disk read-only): SQLite writes the index of its log straight into that
    file's memory, and a process whose memory of it can no longer be written is killed
    there (SIGBUS) at its next read or write. Asked before each use of a connection (one
    system call; a change of the file in the instant after it can't be helped)."""
    shm = f"{database}-shm"
    if not os.access(shm, os.W_OK) and os.path.exists(shm):
        raise sqlite3.OperationalError(f"The database's shared memory can't be written: {shm}")


@contextmanager
def one_at_a_time(database: str):
    """Held by one process (and one thread) at a time for the SQLite file ``database``: an
    exclusive ``flock`` on the folder it is in (no lock file to make, or to leave behind,
    and a read-only folder works too). Closing it lets go, and so does a process that dies."""
    fd = os.open(os.path.dirname(os.path.abspath(database)), os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
