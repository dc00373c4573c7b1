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


class Base:
    """The backend's part, and a game's row."""

    dialect: Dialect
    #: The database, as messages name it (a file's path; a URL without its password).
    path: str

    def _conn(self) -> Any:
        """This thread's connection (speaking the store's SQL: ``?`` placeholders)."""
        raise NotImplementedError

    def _write(self) -> AbstractContextManager[Any]:
        """One write transaction, the database's write lock held from its first read."""
        raise NotImplementedError

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

    def _select_all(self, table: str) -> str:
        """Every row of ``table``, its exported columns, in the order they were written."""
        raise NotImplementedError

    def schema(self) -> dict[str, list[str]]:
        """Each exported table's columns, in order (the same on every backend)."""
        raise NotImplementedError

    def _require(self, conn, game_id: str) -> Row:
        row = conn.execute(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise NotFound(f"No game {game_id!r}")
        return row
