"""The rate limits' counts in an SQLite file that every worker process of a server shares
(issue 30), so a budget such as ``CREATE_LIMIT`` is counted once per server, whatever the
number of workers (with ``memory://`` each process counted its own: make run's 2 workers
let 60 of 80 creations in a row past a limit of 30 a minute).

Flask-Limiter stays the interface: this is a storage of its ``limits`` library, chosen by
``RATELIMIT_STORAGE_URI = "companion-sqlite:///path/to/limits.sqlite"`` (create_app's default:
``limits.sqlite`` in the instance folder, on SQLite and PostgreSQL deployments alike). ``limits``
ships no SQLite storage (its issue 227 asked for one; none was contributed) and no maintained
package provides one, hence these few lines.

Only the fixed window, Flask-Limiter's default strategy, is supported: a key's count and
the time its window ends, one row. A hit is one atomic upsert (a window that has ended
starts again at the hit). Expired rows are dropped as hits come.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time

from limits.storage import Storage

from companion.store.sqlite import one_at_a_time, shared_memory_writable

#: Seconds a hit waits for another process's write before giving up (then: 503).
BUSY_TIMEOUT = 5.0
#: The table: a key's count, and when its window ends.
_TABLE = "CREATE TABLE IF NOT EXISTS hits (key TEXT PRIMARY KEY, count INTEGER NOT NULL, expires REAL NOT NULL)"

_HIT = """
INSERT INTO hits (key, count, expires) VALUES (:key, :amount, :now + :expiry)
ON CONFLICT (key) DO UPDATE SET
    count = CASE WHEN expires > :now THEN count + excluded.count ELSE excluded.count END,
    expires = CASE WHEN expires > :now THEN expires ELSE excluded.expires END
RETURNING count
"""


def uri(path) -> str:
    """``RATELIMIT_STORAGE_URI`` for counts kept in the SQLite file ``path``."""
    return f"{SqliteStorage.STORAGE_SCHEME[0]}://{os.fspath(path)}"


class SqliteStorage(Storage):
    """``limits`` storage in the SQLite file named by ``companion-sqlite:///<path>``."""

    STORAGE_SCHEME = ["companion-sqlite"]

    def __init__(self, uri: str, wrap_exceptions: bool = False, **options: float | str | bool):
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)
        self.path = uri.split("://", 1)[1]
        self._local = threading.local()

    @property
    def base_exceptions(self) -> type[Exception] | tuple[type[Exception], ...]:
        return sqlite3.Error

    def _conn(self, write: bool = False) -> sqlite3.Connection:
        """This thread's connection, opened on first use (and again after a fork). The file
        is made then, not before: an app that never counts a hit writes nothing. One opened
        while the file could not be written is read-only for good (SQLite's silent
        fallback): a ``write`` opens another, as the store's do (companion/store/sqlite.py)."""
        shared_memory_writable(self.path)
        local, pid = self._local, os.getpid()
        if write and getattr(local, "read_only", False) and getattr(local, "pid", None) == pid:
            local.conn.close()
            local.pid = None
        if getattr(local, "pid", None) != pid:
            os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False)
            with one_at_a_time(self.path):  # WAL's switch, as the store's migrate
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute(_TABLE)
            conn.execute("PRAGMA synchronous = NORMAL")  # a power cut may lose counts, never the file
            local.conn, local.pid = conn, pid
            local.read_only = not os.access(self.path, os.W_OK)
        return local.conn

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        now = time.time()
        conn = self._conn(write=True)
        conn.execute("DELETE FROM hits WHERE expires <= ?", (now,))
        # Read to the end: the statement (and its write lock) ends with its last row.
        rows = conn.execute(_HIT, {"key": key, "amount": amount, "now": now, "expiry": expiry}).fetchall()
        return int(rows[0][0])

    def get(self, key: str) -> int:
        now = time.time()
        row = self._conn().execute("SELECT count FROM hits WHERE key = ? AND expires > ?", (key, now)).fetchall()
        return int(row[0][0]) if row else 0

    def get_expiry(self, key: str) -> float:
        now = time.time()
        row = self._conn().execute("SELECT expires FROM hits WHERE key = ? AND expires > ?", (key, now)).fetchall()
        return float(row[0][0]) if row else now

    def check(self) -> bool:
        try:
            self._conn().execute("SELECT 1").fetchall()
            return True
        except sqlite3.Error:
            return False

    def reset(self) -> int | None:
        return self._conn(write=True).execute("DELETE FROM hits").rowcount

    def clear(self, key: str) -> None:
        self._conn(write=True).execute("DELETE FROM hits WHERE key = ?", (key,))
