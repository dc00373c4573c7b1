"""The store (DESIGN.md "The store"): games and their move logs, who may change them, the
roster and its figures, and copies of it all, in SQLite (the default) or PostgreSQL (for
several app servers on one database), one concern a module:

* ``interface``: :class:`Store`, the methods the rest of the app calls (a Protocol);
* ``writes``: games and their changes (the write path: moves, undo, snapshots, deals);
* ``access``: referee phones, keys and one-use links;
* ``roster``: players, renames and merges, and the figures the standings read;
* ``copies``: backup, restore, whole-database copies; ``checks``: what guards them;
* ``migrations``: the schema, one set for both databases; ``dialect``: where they differ;
* ``sqlite`` and ``postgres``: the two backends (connections, write lock, what only each has);
* ``rows`` and ``errors``: what the others share.

``open_store(url)`` opens either.
"""

from __future__ import annotations

import os

from companion.store.copies import backup_games, check_games, copy_games, verified_copy
from companion.store.errors import (
    DATABASE_ERRORS,
    UNAVAILABLE,
    AskFirst,
    BadTranscript,
    Conflict,
    LinkUsedUp,
    NameTaken,
    NotFound,
    NothingToUndo,
    NotReferee,
    SameGame,
    StoreError,
)
from companion.store.interface import Store
from companion.store.roster import TOTALS
from companion.store.rows import BUSY_TIMEOUT, LINK_KINDS, SNAPSHOT_EVERY, SYNCHRONOUS, TRANSCRIPT_FORMAT, safe_url
from companion.store.sqlite import SqliteStore, SqliteWatcher


def open_store(url: str, synchronous: str = "NORMAL", pool_size: int = 8, pool_timeout: float = 5.0) -> Store:
    """The store at ``url``: ``postgresql://...`` (or ``postgres://``) a PostgreSQL database
    (``pool_size`` connections per process, a request waits at most ``pool_timeout`` seconds
    for one), ``sqlite:///path`` or a plain path an SQLite file."""
    url = os.fspath(url)
    if url.startswith(("postgresql://", "postgres://")):
        from companion.store.postgres import PostgresStore

        return PostgresStore(url, pool_size=pool_size, pool_timeout=pool_timeout)
    if url.startswith("sqlite:///"):
        url = url.removeprefix("sqlite:///")
    elif "://" in url:
        raise ValueError(f"A database is postgresql://user@host:port/name or sqlite:///path, not {safe_url(url)!r}")
    return SqliteStore(url, synchronous=synchronous)


__all__ = [
    "Store",
    "SqliteStore",
    "SqliteWatcher",
    "StoreError",
    "NotFound",
    "Conflict",
    "AskFirst",
    "NothingToUndo",
    "NotReferee",
    "NameTaken",
    "SameGame",
    "BadTranscript",
    "LinkUsedUp",
    "TRANSCRIPT_FORMAT",
    "BUSY_TIMEOUT",
    "LINK_KINDS",
    "SNAPSHOT_EVERY",
    "SYNCHRONOUS",
    "TOTALS",
    "UNAVAILABLE",
    "DATABASE_ERRORS",
    "open_store",
    "backup_games",
    "copy_games",
    "check_games",
    "verified_copy",
]
