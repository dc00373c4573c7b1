"""What every part of the store stands on: the backend's hooks (its connections, its write
transaction, how it copies itself into an SQLite file), which companion/store/sqlite.py
and postgres.py give; a read transaction, the same on both but for the dialect's BEGIN;
and the one read every part makes (a game's row, or ``NotFound``). The parts build on it
in one line: ``Access`` (referees and links), ``Changes`` (moves and undos) on it,
``Games`` on that, ``Copies`` on ``Games``, and ``Roster`` beside them on ``Access``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from companion.store.dialect import Dialect
from companion.store.errors import NotFound
from companion.store.rows import _GAME_COLUMNS, Row
from companion.store.states import StateCache


class Base:
    """The backend's part, and a game's row."""

    dialect: Dialect
    #: The database, as messages name it (a file's path; a URL without its password).
    path: str
    #: Each game's latest state, kept in this process (companion/store/states.py).
    _states: StateCache

    def _conn(self) -> Any:
        """This thread's connection (speaking the store's SQL: ``?`` placeholders)."""
        raise NotImplementedError

    def _write(self, game_id: str | None = None) -> AbstractContextManager[Any]:
        """One write transaction, a write lock held from its first read: the lock of the
        game ``game_id`` for a change of that game alone (its rows, and the figures in its
        seats: :meth:`_lock_figures`), else the whole database's. (SQLite has one lock, the
        file's; PostgreSQL one per game, so changes of two games do not wait for each other.)"""
        raise NotImplementedError

    def _lock_figures(self, conn) -> None:
        """Inside a change of one game: before it writes its seats' figures (kept with every
        player's totals by triggers, rows other games' changes write too), the lock of the
        figures, so two such writes never wait for each other's rows (PostgreSQL; on SQLite
        the file's lock is held already)."""

    @contextmanager
    def _read(self) -> Iterator[Any]:
        """One read transaction: every read inside it sees the same moment (the dialect's
        BEGIN: a deferred one on SQLite, REPEATABLE READ on PostgreSQL)."""
        conn = self._conn()
        conn.execute(self.dialect.begin_read)
        try:
            yield conn
        finally:
            conn.execute("COMMIT")

    def _copy_to(self, target) -> None:
        """The whole database, as it is now, into the new SQLite file ``target``."""
        raise NotImplementedError

    def _after_copy(self, conn) -> None:
        """After rows were written with their own ids (PostgreSQL moves its id sequences on)."""

    def _foreign_key_problems(self, conn) -> list:
        """Rows that refer to a missing row (SQLite checks only when asked)."""
        return []

    def schema(self) -> dict[str, list[str]]:
        """Each exported table's columns, in order (the same on every backend)."""
        raise NotImplementedError

    def _require(self, conn, game_id: str) -> Row:
        row = conn.execute(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise NotFound(f"No game {game_id!r}")
        return row
