"""What the store refuses with, and what a backend's driver raises when its database can't
be reached (views answer 503 for :data:`UNAVAILABLE`)."""

from __future__ import annotations

import sqlite3

import psycopg
import psycopg_pool

from companion.errors import IllegalMove

#: What a backend raises when its database can't be reached or written (a 503, "try again",
#: rather than a 500): SQLite's busy, full, read-only or unreadable file; PostgreSQL's lost
#: server or an exhausted pool.
UNAVAILABLE: tuple[type[Exception], ...] = (
    sqlite3.OperationalError,
    psycopg.OperationalError,
    psycopg_pool.PoolTimeout,
)
#: Any error a backend's driver raises (a refused row, a lost connection, ...).
DATABASE_ERRORS: tuple[type[Exception], ...] = (sqlite3.Error, psycopg.Error)
#: A row refused for a key another row has (an id drawn twice).
UNIQUE_VIOLATIONS: tuple[type[Exception], ...] = (sqlite3.IntegrityError, psycopg.errors.UniqueViolation)


class StoreError(Exception):
    """Something the store refuses that is not about the rules of a game."""


class NotFound(StoreError, LookupError):
    """No game has this id."""


class Conflict(StoreError):
    """The client's version is stale: someone else changed the game first.

    ``.version`` is the game's current version, so the client can reload and retry.
    """

    def __init__(self, version: int, given=None):
        super().__init__(f"Stale version {given!r}: the game is at version {version}")
        self.version = version
        self.given = given


class AskFirst(StoreError):
    """A move the game asks about before it is entered (its engine's ``confirm_needed``,
    asked for with ``ask``): nothing is written. ``.move`` is the move as the engine sees
    it, ``.question`` the engine's question (a ``Reason``)."""

    def __init__(self, move: dict, question):
        super().__init__(str(question))
        self.move, self.question = move, question


class LinkUsedUp(StoreError):
    """A referee link that is unknown, expired or already used."""


class NotReferee(StoreError, PermissionError):
    """A change made with a key that is not (or no longer) one of the game's referee keys.

    The views check the key first; the store checks it again inside the write transaction,
    so a phone handed over or revoked a moment earlier changes nothing (a 403).
    """


class NameTaken(StoreError):
    """A rename to a name another player on the roster has (any case). ``.other`` is that
    player's id: the two may be one person typed twice, whom :meth:`Store.merge_players` joins."""

    def __init__(self, name: str, other: int):
        super().__init__(f"There is already a player named {name!r}")
        self.name = name
        self.other = other


class SameGame(StoreError, ValueError):
    """Two players who sat in one game are two people: they can't be merged."""

    def __init__(self, name: str, other: str, game_id: str):
        super().__init__(f"{name} and {other} played in the same game ({game_id}): they are two people")
        self.name, self.other, self.game_id = name, other, game_id


class NothingToUndo(IllegalMove):
    """Undo with no move in effect; refused like any other move, and nothing changes."""


class BadTranscript(ValueError):
    """A transcript that can't be imported. ``.index`` is the 1-based failing move, or None."""

    def __init__(self, message: str, index: int | None = None):
        super().__init__(message)
        self.index = index
