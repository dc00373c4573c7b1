"""The store: games and their move logs in SQLite (DESIGN.md "The store"), or, for several
app servers sharing one database, the same :class:`Store` on PostgreSQL (``open_store`` with
a ``postgresql://`` URL: companion/store_pg.py, issue 19). The SQL below is written once,
for both; what only SQLite has (its file, pragmas, migrations) stays in this module.

>>> import tempfile, os
>>> store = Store(os.path.join(tempfile.mkdtemp(), "doc.db"))
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

Two tables:

* ``games``: one row per game, holding the engine's latest ``dump`` in ``state``, so
  reading a game is one row whatever its length (DESIGN.md: move 1,000 costs what move
  10 does). ``version`` counts every change, moves and undos alike, and only grows: it is
  the optimistic lock a client sends back with its next change.
* ``moves``: the log, ``(game_id, seq)`` its primary key. Undo marks a move ``undone``
  and never deletes it: the log is the audit trail a dispute is settled from. Each move
  keeps when it was entered (``time``) and by which referee phone (``referee``: the id of
  its ``referees`` row, never the key), or that it came from a transcript (``imported``);
  an undo keeps who undid it and when (``undone_by``, ``undone_time``).

Every change is one ``BEGIN IMMEDIATE`` transaction: the write lock is taken before the
row is read, so the version check, the engine's verdict and the write see the same row,
and a concurrent writer waits (busy timeout) instead of failing. Connections are per
thread and per process (safe for gunicorn's forked workers and Flask's threaded server).

The schema goes through sqlite-utils ``Migrations``; the hot path is plain SQL on the
same connection, so the transaction boundaries stay explicit.
"""

from __future__ import annotations

import dataclasses
import fcntl
import hashlib
import hmac
import json
import os
import secrets
import sqlite3
import threading
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone

import orjson
import sqlite_utils

from companion import games
from companion.errors import IllegalMove, InvalidMove, MoveError, OptionError, Reason

try:
    from sqlite_utils import Migrations
except ImportError as e:  # pragma: no cover - sqlite-utils 3.x
    raise ImportError("companion.store needs sqlite-utils 4.0 or later (for Migrations)") from e

__all__ = [
    "Store",
    "StoreError",
    "NotFound",
    "Conflict",
    "NothingToUndo",
    "NotReferee",
    "BadTranscript",
    "LinkUsedUp",
    "TRANSCRIPT_FORMAT",
    "BUSY_TIMEOUT",
    "LINK_KINDS",
    "SYNCHRONOUS",
    "migrations",
    "open_store",
    "copy_games",
    "UNAVAILABLE",
]

#: What a backend raises when its database can't be reached (a 503, "try again", rather than
#: a 500): SQLite's busy or unreadable file; PostgreSQL's lost server or an exhausted pool.
UNAVAILABLE: tuple[type[Exception], ...] = (sqlite3.OperationalError,)
#: Any error a backend's driver raises (a refused row, a lost connection, ...).
DATABASE_ERRORS: tuple[type[Exception], ...] = (sqlite3.Error,)
try:
    import psycopg
    import psycopg_pool

    UNAVAILABLE += (psycopg.OperationalError, psycopg_pool.PoolTimeout)
    DATABASE_ERRORS += (psycopg.Error,)
except ImportError:  # pragma: no cover - SQLite only
    pass

TRANSCRIPT_FORMAT = "companion-transcript/1"

#: Seconds a writer waits for another writer's transaction before giving up.
BUSY_TIMEOUT = 5.0

#: What a one-use referee link does: "add" makes one more referee phone; "handover"
#: makes the new phone the only referee (every other key is revoked).
LINK_KINDS = ("add", "handover", "confirm")
#: A move keeps the state after it at least this often (undo replays fewer moves than this).
SNAPSHOT_EVERY = 32

#: SQLite's ``synchronous`` settings a store may use (``COMPANION_SYNCHRONOUS``). With WAL,
#: NORMAL never corrupts the file and loses nothing when the server crashes, but a power
#: cut can take the last moves acknowledged before it; FULL waits for the disk at every
#: commit, so an acknowledged move survives a power cut too, at a cost per move that
#: `make bench` measures.
SYNCHRONOUS = ("NORMAL", "FULL")


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


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


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


class NothingToUndo(IllegalMove):
    """Undo with no move in effect; refused like any other move, and nothing changes."""


class BadTranscript(ValueError):
    """A transcript that can't be imported. ``.index`` is the 1-based failing move, or None."""

    def __init__(self, message: str, index: int | None = None):
        super().__init__(message)
        self.index = index


# ---------------------------------------------------------------------------
# Schema
# ---------------------------------------------------------------------------

migrations = Migrations("companion")


@migrations()
def m001_games_and_moves(db: sqlite_utils.Database) -> None:
    db.table("games").create(
        {
            "id": str,
            "game": str,
            "players": str,
            "options": str,
            "created": str,
            "updated": str,
            "version": int,
            "state": str,
            "key_hash": str,
            "finished": int,
            "status": str,
        },
        pk="id",
        not_null={"game", "players", "options", "created", "updated", "version", "state", "key_hash"},
        defaults={"version": 0, "finished": 0, "status": ""},
    )
    # The compound primary key is the (game_id, seq) index, and it makes a doubled
    # seq impossible even if the version check were bypassed.
    db.table("moves").create(
        {"game_id": str, "seq": int, "move": str, "time": str, "undone": int},
        pk=("game_id", "seq"),
        not_null={"move", "time", "undone"},
        defaults={"undone": 0},
        foreign_keys=[("game_id", "games", "id")],
    )


@migrations()
def m002_games_by_updated(db: sqlite_utils.Database) -> None:
    db.table("games").create_index(["updated"])  # list_games: newest first


@migrations()
def m003_referees_links_archive(db: sqlite_utils.Database) -> None:
    """Several referee phones per game, each with its own key, and one-use links.

    A game's keys move from ``games.key_hash`` to ``referees`` (one row a phone; a
    hand-over or "revoke" marks rows ``revoked``, never deletes them). ``links`` holds the
    hash of each "add a referee" / "hand over" token, its expiry and when it was used.
    """
    db.table("referees").create(
        {"id": str, "game_id": str, "key_hash": str, "created": str, "revoked": str},
        pk="id",
        not_null={"game_id", "key_hash", "created"},
        foreign_keys=[("game_id", "games", "id")],
    )
    db.table("referees").create_index(["game_id"])
    db.table("links").create(
        {"token_hash": str, "game_id": str, "kind": str, "created": str, "expires": str, "used": str},
        pk="token_hash",
        not_null={"game_id", "kind", "created", "expires"},
        foreign_keys=[("game_id", "games", "id")],
    )
    db.table("links").create_index(["game_id"])
    for row in db.execute("SELECT id, key_hash, created FROM games").fetchall():
        db.execute(
            "INSERT INTO referees (id, game_id, key_hash, created) VALUES (?, ?, ?, ?)",
            (secrets.token_urlsafe(6), row[0], row[1], row[2]),
        )
    db.table("games").transform(drop={"key_hash"})
    db.table("games").add_column("archived", int, not_null_default=0)


@migrations()
def m004_status_as_data(db: sqlite_utils.Database) -> None:
    """A game's status in the list was an English sentence ("Won by Ann"); it becomes
    data the pages word at render time (so it can be said in any language)."""
    for game_id, game, state in db.execute("SELECT id, game, state FROM games").fetchall():
        rules = games.get(game)
        finished, status = _summary(rules.view(rules.load(_load_state(state))))
        db.execute("UPDATE games SET finished = ?, status = ? WHERE id = ?", (finished, status, game_id))


@migrations()
def m005_who_entered_each_move(db: sqlite_utils.Database) -> None:
    """The audit trail for disputes: which referee phone entered each move, and which
    phone undid it and when. Phones are ``referees`` rows (their ids, never their keys).

    Nullable columns, so older moves keep NULL ("not recorded") and the ALTERs are cheap
    whatever the log's length; ``imported`` tells a transcript's moves (no phone entered
    them) from those older ones. No foreign key: ``delete`` removes moves before referees.
    """
    moves = db.table("moves")
    moves.add_column("referee", str)
    moves.add_column("imported", int, not_null_default=0)
    moves.add_column("undone_by", str)
    moves.add_column("undone_time", str)


@migrations()
def m006_explanations_as_data(db: sqlite_utils.Database) -> None:
    """The engines' explanations kept in a game's state (why a deal was lost, how a sweep
    scored, a revoke, a warning) were English sentences; they become data (a code and its
    params) the pages word in the reader's language. Each game's state is rebuilt by
    replaying its moves in effect, as undo does."""
    _replay_every_game(db)


@migrations()
def m007_tallied_hands_say_how(db: sqlite_utils.Database) -> None:
    """A tallied hand of 100/99/98 said who lost it twice ("Ann loses the hand. Ann lost the
    hand (tallied)."); its explanation now says how it is known. Its games are replayed as in m006."""
    _replay_every_game(db, "hundred")


@migrations()
def m008_players_and_seats(db: sqlite_utils.Database) -> None:
    """The roster: each name typed once is a ``players`` row, offered again in the new-game
    form; ``seats`` links a game's seats to its players (renaming a player keeps their
    games) and keeps each side's figures for the statistics (``rules.figures``: deals,
    points, sweeps, cantes, marks, ...; ``won`` once the game is over), so the statistics
    are a SQL sum over seats, never a replay. Existing games are linked in the order they
    were created."""
    db.table("players").create(
        {"id": int, "name": str, "created": str, "last_played": str},
        pk="id",
        not_null={"name", "created", "last_played"},
    )
    db.execute("CREATE UNIQUE INDEX players_by_name ON players (name COLLATE NOCASE)")
    db.table("seats").create(
        {"game_id": str, "seat": int, "player_id": int, "side": str, "won": int, "draw": int}
        | dict.fromkeys(games.FIGURES, int),
        pk=("game_id", "seat"),
        not_null={"player_id", "side", "draw", *games.FIGURES},
        defaults={"draw": 0} | dict.fromkeys(games.FIGURES, 0),
        foreign_keys=[("game_id", "games", "id"), ("player_id", "players", "id")],
    )
    db.table("seats").create_index(["player_id"])
    rows = db.execute("SELECT id, game, state, created FROM games ORDER BY created, rowid").fetchall()
    for game_id, game, state, created in rows:
        rules = games.get(game)
        view = rules.view(rules.load(_load_state(state)))
        _seat_players(db.conn, game_id, view, created)
        _keep_figures(db.conn, rules, game_id, view, len(view["history"]), history=view["history"])


#: ``totals``' sums (and the statistics' over any seats), each of a seat's columns ({s}: the seat).
TOTALS = {
    "played": "1",
    "finished": "CASE WHEN {s}.won IS NULL THEN 0 ELSE 1 END",  # a sum of 0s and 1s on SQLite and PostgreSQL alike
    "won": "coalesce({s}.won, 0)",
    "drawn": "{s}.draw",
    "deals": "{s}.deals",
    "points": "{s}.points",
    "sweeps": "{s}.sweeps",
    "cantes": "{s}.cantes",
    "marks": "{s}.marks",
    "doubles": "{s}.double",
}


@migrations()
def m009_totals_for_standings(db: sqlite_utils.Database) -> None:
    """Standings at 10,000 games: each player's sums per game family are kept in ``totals``
    by triggers on ``seats``, so whatever writes seats (a deal's end, an undo, a merge, a
    deleted game, an import) keeps them right, and the standings read a row per player and
    family instead of summing every seat. The biggest sweep is a maximum: it is searched
    again only when the seat that held it changes. Games by ``created``: the new-game form's
    latest tables."""
    db.table("games").create_index(["created"], if_not_exists=True)
    sums = ", ".join(f"{k} INTEGER NOT NULL DEFAULT 0" for k in TOTALS)
    db.execute(
        f"CREATE TABLE totals (game TEXT NOT NULL, player_id INTEGER NOT NULL, {sums}, "
        "best_sweep INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (game, player_id))"
    )
    family = "(SELECT game FROM games WHERE id = {s}.game_id)"
    add = (
        f"INSERT INTO totals (game, player_id, {', '.join(TOTALS)}, best_sweep) VALUES ({family.format(s='NEW')}, "
        f"NEW.player_id, {', '.join(v.format(s='NEW') for v in TOTALS.values())}, NEW.best_sweep) "
        f"ON CONFLICT (game, player_id) DO UPDATE SET {', '.join(f'{k} = {k} + excluded.{k}' for k in TOTALS)}, "
        "best_sweep = max(best_sweep, excluded.best_sweep);"
    )
    best = (
        "(SELECT coalesce(max(s.best_sweep), 0) FROM seats s JOIN games g ON g.id = s.game_id "
        "WHERE s.player_id = OLD.player_id AND g.game = totals.game)"
    )
    mine = f"game = {family.format(s='OLD')} AND player_id = OLD.player_id"
    less = ", ".join(f"{k} = {k} - ({v.format(s='OLD')})" for k, v in TOTALS.items())
    remove = (
        f"UPDATE totals SET {less}, "
        f"best_sweep = CASE WHEN OLD.best_sweep < best_sweep OR OLD.best_sweep = 0 THEN best_sweep ELSE {best} END "
        f"WHERE {mine}; DELETE FROM totals WHERE {mine} AND played = 0;"
    )
    db.execute(f"CREATE TRIGGER seats_add_totals AFTER INSERT ON seats BEGIN {add} END")
    db.execute(f"CREATE TRIGGER seats_remove_totals AFTER DELETE ON seats BEGIN {remove} END")
    db.execute(f"CREATE TRIGGER seats_change_totals AFTER UPDATE ON seats BEGIN {remove} {add} END")
    summed = ", ".join(f"sum({v.format(s='s')})" for v in TOTALS.values())
    db.execute(
        f"INSERT INTO totals (game, player_id, {', '.join(TOTALS)}, best_sweep) SELECT g.game, s.player_id, "
        f"{summed}, max(s.best_sweep) "
        "FROM seats s JOIN games g ON g.id = s.game_id GROUP BY g.game, s.player_id"
    )


@migrations()
def m010_entries_applied_once(db: sqlite_utils.Database) -> None:
    """A phone that lost its connection sends its waiting entries again when it is back,
    each with the id it gave it when tapped (``entry``): a move whose answer was lost on the
    way back is then recognised, not applied twice. Unique per game; NULL for moves
    entered without one (the API, a transcript, older moves)."""
    db.table("moves").add_column("entry", str)
    db.execute("CREATE UNIQUE INDEX moves_by_entry ON moves (game_id, entry)")


@migrations()
def m011_deals_confirmed_by_the_other_side(db: sqlite_utils.Database) -> None:
    """Opponent confirmation, as Bridgemate does: a game whose referee asked the other side
    to confirm keeps how many of its finished deals that side confirmed (``confirmed``;
    NULL: not asked). The statistics count only those deals, and the game's result once
    every deal is confirmed."""
    db.table("games").add_column("confirmed", int)


@migrations()
def m012_snapshots_for_undo(db: sqlite_utils.Database) -> None:
    """Undo in constant time (issue 17): every ``SNAPSHOT_EVERY`` moves a move keeps the
    game's state after it (``snapshot``), so undo replays at most that many moves from the
    latest snapshot in effect instead of the whole game. The partial index finds that
    snapshot without reading the moves between. Older games have none until their next
    moves: their undo replays from the start, as before."""
    db.table("moves").add_column("snapshot", str)
    db.execute("CREATE INDEX moves_snapshots ON moves (game_id, seq) WHERE snapshot IS NOT NULL")


@migrations()
def m013_moves_say_themselves(db: sqlite_utils.Database) -> None:
    """The move log without replaying the game (issue 17): each move keeps its words as the
    engine said them when it was entered (``said``: its narration, as data the pages word in
    the reader's language). Existing games are replayed once here to fill it, as the log
    page replayed them on every visit; a move the engine no longer accepts keeps NULL (the
    log shows the move as stored)."""
    db.table("moves").add_column("said", str)
    for game_id, game, players, options in db.execute("SELECT id, game, players, options FROM games").fetchall():
        rules = games.get(game)
        state = rules.start(json.loads(players), json.loads(options))
        rows = db.execute("SELECT seq, move, undone FROM moves WHERE game_id = ? ORDER BY seq", (game_id,))
        for seq, move, undone in rows.fetchall():
            try:
                after = rules.apply(state, json.loads(move))
            except ValueError:
                continue
            db.execute(
                "UPDATE moves SET said = ? WHERE game_id = ? AND seq = ?",
                (_said(rules, after, json.loads(move)), game_id, seq),
            )
            if not undone:
                state = after


@migrations()
def m014_finished_deals_stored_once(db: sqlite_utils.Database) -> None:
    """A move that does not grow (issue 17): a finished deal's record is written once, in
    ``deals`` (``n`` counts from 1), and the game row keeps how many there are (``deals``)
    and, in its state, the last one only (what the engines read of it), so a move reads
    and writes the same few bytes at move 1,000 as at move 10. Snapshots keep the same
    trimmed state with the count it ends at: ``{"deals": n, "state": ...}``."""
    db.execute(
        "CREATE TABLE deals (game_id TEXT NOT NULL REFERENCES games(id), n INTEGER NOT NULL, "
        "record TEXT NOT NULL, PRIMARY KEY (game_id, n))"
    )
    db.table("games").add_column("deals", int, not_null_default=0)
    for game_id, state in db.execute("SELECT id, state FROM games").fetchall():
        data = _load_state(state)
        history = data.get("history") or []
        _add_deals(db.conn, game_id, history, 1)
        db.execute("UPDATE games SET state = ?, deals = ? WHERE id = ?", (_trimmed(data), len(history), game_id))
    rows = db.execute("SELECT game_id, seq, snapshot FROM moves WHERE snapshot IS NOT NULL").fetchall()
    for game_id, seq, snapshot in rows:
        data = _load_state(snapshot)
        db.execute(
            "UPDATE moves SET snapshot = ? WHERE game_id = ? AND seq = ?",
            (_snapshot_text(data, len(data.get("history") or [])), game_id, seq),
        )


def _replay_every_game(db: sqlite_utils.Database, only: str | None = None) -> None:
    """Rebuild each game's state (of the game ``only``, if given) by replaying its moves in
    effect, as undo does, so what the engines keep in it is as they now write it."""
    apart = "deals" in db.table_names()  # finished deals kept apart since m014
    rows = db.execute("SELECT id, game, players, options FROM games WHERE ? IS NULL OR game = ?", (only, only))
    for game_id, game, players, options in rows.fetchall():
        rules = games.get(game)
        state = rules.start(json.loads(players), json.loads(options))
        try:
            for (move,) in db.execute(
                "SELECT move FROM moves WHERE game_id = ? AND undone = 0 ORDER BY seq", (game_id,)
            ).fetchall():
                state = rules.apply(state, json.loads(move))
        except ValueError:  # a log the engine no longer accepts: its state stays (the pages show old words as they are)
            continue
        finished, status = _summary(rules.view(state))
        text = _dump_state(rules.dump(state))
        if apart:
            db.execute("DELETE FROM deals WHERE game_id = ?", (game_id,))
            _add_deals(db.conn, game_id, state.history, 1)
            text = _trimmed(rules.dump(state))
        db.execute(
            "UPDATE games SET state = ?, finished = ?, status = ? WHERE id = ?", (text, finished, status, game_id)
        )


# ---------------------------------------------------------------------------
# The store
# ---------------------------------------------------------------------------

_GAME_COLUMNS = (
    "id, game, players, options, created, updated, version, state, finished, status, archived, confirmed, deals"
)
_LIST_COLUMNS = "id, game, players, created, updated, version, finished, status, archived"


class Store:
    """Games and their moves in one SQLite file.

    ``Store(path)`` creates the file if needed, turns WAL on and applies pending
    migrations. ``synchronous`` is one of :data:`SYNCHRONOUS`, set on every connection.
    Every method is safe to call from any thread or worker process.
    """

    def __init__(self, path, synchronous: str = "NORMAL"):
        path = os.fspath(path)
        if path == ":memory:" or path.startswith("file:"):
            raise ValueError("Store needs a file path: each connection would see its own in-memory database")
        if synchronous not in SYNCHRONOUS:
            raise ValueError(f"synchronous must be one of {', '.join(SYNCHRONOUS)}, not {synchronous!r}")
        self.path = path
        self.synchronous = synchronous
        self._local = threading.local()
        self._inherited: list[sqlite3.Connection] = []
        self.migrate()

    def __repr__(self) -> str:
        return f"Store({self.path!r})"

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
        """This thread's connection, opened on first use (and again after a fork)."""
        local, pid = self._local, os.getpid()
        if getattr(local, "pid", None) != pid:
            if getattr(local, "conn", None) is not None:
                # Inherited across fork: never use it, and never let garbage collection
                # close it in this process (SQLite: no connection carried over a fork).
                self._inherited.append(local.conn)
            local.conn, local.pid = self._connect(), pid
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
    def _write(self):
        """One write transaction; the write lock is held from the first read."""
        conn = self._conn()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    def migrate(self) -> list[str]:
        """Apply pending migrations; return the names of those applied (opening twice is harmless).

        Processes opening the database together (gunicorn's workers on a fresh instance) do
        it one at a time, switching to WAL included: SQLite may refuse that switch at once,
        busy timeout or not, while another connection reads the file (issue 30): they take
        turns holding a lock on the database's folder."""
        with one_at_a_time(self.path):
            return self._migrate()

    def _migrate(self) -> list[str]:
        conn = self._connect()
        try:
            db = sqlite_utils.Database(conn, execute_plugins=False)
            db.enable_wal()  # persistent in the file; can't be changed inside a transaction
            # BEGIN IMMEDIATE: each sees what the previous one applied (Migrations nests as
            # savepoints), and any other writer of the file waits.
            conn.execute("BEGIN IMMEDIATE")
            try:
                pending = [m.name for m in migrations.pending(db)]
                migrations.apply(db)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            return pending
        finally:
            conn.close()  # nothing stays open in a process that may fork workers

    # -- backups ------------------------------------------------------------------
    def backup(self, target) -> int:
        """Copy the whole database to the new SQLite file ``target`` with SQLite's online
        backup, consistent and safe while other connections write; return its game count."""
        source, copy = self._connect(), sqlite3.connect(os.fspath(target))
        try:
            source.backup(copy)
            return int(copy.execute("SELECT count(*) FROM games").fetchone()[0])
        finally:
            copy.close()
            source.close()

    def restore(self, source) -> int:
        """Replace the whole database with the backup at ``source`` (made by :meth:`backup`,
        perhaps by an older version: its pending migrations are applied); return its game
        count. ``ValueError`` if ``source`` is not a backup of this app: nothing changes."""
        try:
            backup = sqlite3.connect(f"file:{os.fspath(source)}?mode=ro", uri=True)
            tables = {r[0] for r in backup.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError as e:
            raise ValueError(f"{source} is not an SQLite file: {e}") from None
        if not {"games", "moves"} <= tables:
            backup.close()
            raise ValueError(f"{source} is not a backup of this app's games")
        target = self._connect()
        try:
            backup.backup(target)
        finally:
            target.close()
            backup.close()
        self.migrate()
        return int(self._conn().execute("SELECT count(*) FROM games").fetchone()[0])

    # -- whole-server export --------------------------------------------------------
    #: The tables a whole-server export carries, parents first (the order rows are inserted).
    TABLES = ("players", "games", "seats", "moves", "referees", "links", "deals")

    def schema(self) -> dict[str, list[str]]:
        """Each exported table's columns, in order (the same on every backend)."""
        conn = self._conn()
        return {t: [r["name"] for r in conn.execute(f"PRAGMA table_info({t})")] for t in self.TABLES}

    def game_ids(self) -> list[str]:
        """Every game's id, oldest first."""
        return [r[0] for r in self._conn().execute("SELECT id FROM games ORDER BY created, id")]

    def applied_migrations(self) -> list[str]:
        return [r[0] for r in self._conn().execute("SELECT name FROM _sqlite_migrations ORDER BY id")]

    def rows(self) -> dict[str, list[dict]]:
        """Every row of every exported table, read in one transaction (a consistent copy)."""
        conn = self._conn()
        conn.execute("BEGIN")
        try:
            return {t: [dict(r) for r in conn.execute(self._select_all(t))] for t in self.TABLES}
        finally:
            conn.execute("COMMIT")

    def _select_all(self, table: str) -> str:
        """Every row of ``table``, its exported columns, in the order they were written."""
        return f"SELECT * FROM {table} ORDER BY rowid"

    def _foreign_key_problems(self, conn) -> list:
        """Rows that refer to a missing row, as ``(table, rowid, parent)`` (SQLite checks
        foreign keys only when asked; PostgreSQL refuses such a row as it is written)."""
        return conn.execute("PRAGMA foreign_key_check").fetchall()

    def _after_copy(self, conn) -> None:
        """After rows were written with their own ids (PostgreSQL moves its id sequence on)."""

    def replace_rows(self, tables: dict[str, list[dict]], check) -> int:
        """Replace every exported table's rows with ``tables`` in one transaction; ``check``
        (called inside it, after the inserts) raises to refuse: then nothing is changed.
        Returns the number of games."""
        columns = self.schema()
        with self._write() as conn:
            for t in reversed(self.TABLES):
                conn.execute(f"DELETE FROM {t}")
            for t in self.TABLES:
                cols = columns[t]
                conn.executemany(
                    f"INSERT INTO {t} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                    [tuple(row[c] for c in cols) for row in tables[t]],
                )
            self._after_copy(conn)
            bad = self._foreign_key_problems(conn)
            if bad:
                raise ValueError(f"Row {bad[0][1]} of {bad[0][0]} refers to a missing {bad[0][2]} row")
            check(self, conn)
            return int(conn.execute("SELECT count(*) FROM games").fetchone()[0])

    # -- games --------------------------------------------------------------------
    def create(self, game: str, players, options=None) -> tuple[dict, str]:
        """Start a game; return its row (as :meth:`get`) and its edit key.

        The rules validate players and options (``OptionError`` propagates). The edit
        key is returned this once; only a salted hash of it is kept.
        """
        rules = games.get(game)
        players = _plain(players, OptionError, "players")
        options = _plain(options, OptionError, "options")
        state = rules.start(players, options)
        key = secrets.token_urlsafe(16)
        with self._write() as conn:
            row = self._insert_game(conn, rules, game, players, options, state, key, version=0)
        return row, key

    def get(self, game_id: str, history: bool = False) -> dict | None:
        """The game, with its latest ``state`` loaded; ``None`` for an unknown id.

        One row is read and no move is replayed, however long the game. ``deals`` is how
        many deals are finished; the state's ``history`` holds the last of them only (all
        an engine reads of it), or every one with ``history=True`` (one more read).
        """
        conn = self._conn()
        row = conn.execute(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            return None
        return _game_dict(row, _finished_deals(conn, game_id) if history else None)

    def history(self, game_id: str) -> list[dict]:
        """Every finished deal's record, in order (what a view's ``history`` lists)."""
        return _finished_deals(self._conn(), game_id)

    def version(self, game_id: str) -> int | None:
        """The game's version (None for an unknown game): what a poll compares, one indexed read."""
        row = self._conn().execute("SELECT version FROM games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else row[0]

    def check_key(self, game_id: str, key) -> bool:
        """Whether ``key`` is one of the game's referee keys still in force (False for an unknown game)."""
        return self.referee_id(game_id, key) is not None

    def referee_id(self, game_id: str, key) -> str | None:
        """The id of the referee phone whose key this is, if it is in force: what the move
        log records as the phone that entered a move (the key itself is never stored)."""
        return self._referee(self._conn(), game_id, key)

    def phone_numbers(self, game_id: str) -> dict[str, int]:
        """The game's referee phones numbered 1, 2, ... in the order they became referees
        (1 created the game), revoked ones included: ``{referee id: number}``."""
        rows = (
            self._conn()
            .execute("SELECT id FROM referees WHERE game_id = ? ORDER BY created, rowid", (game_id,))
            .fetchall()
        )
        return {row["id"]: number for number, row in enumerate(rows, 1)}

    def list_games(self, limit: int | None = None, ids=None) -> list[dict]:
        """Games newest first (by last change): id, game, players, created, updated,
        version, finished, status, archived. No state is loaded. ``ids`` limits the list
        to those games (the ones a phone knows); unknown ids are left out."""
        sql, params = f"SELECT {_LIST_COLUMNS} FROM games", []
        if ids is not None:
            ids = list(ids)
            sql += f" WHERE id IN ({', '.join('?' * len(ids))})"
            params += ids
        sql += " ORDER BY updated DESC, rowid DESC"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return [
            {
                **dict(r),
                "players": json.loads(r["players"]),
                "finished": bool(r["finished"]),
                "archived": bool(r["archived"]),
                "status": _status(r["status"]),
            }
            for r in self._conn().execute(sql, params)
        ]

    # -- referees -----------------------------------------------------------------
    def make_link(self, game_id: str, kind: str, minutes: float = 10) -> str:
        """A one-use token for an "add a referee" or "hand over" link, good for ``minutes``.

        Only its hash is kept; the token goes in the link (it is single-use and expires,
        so an access log that records it records nothing that still works).
        """
        if kind not in LINK_KINDS:
            raise ValueError(f"kind must be one of {LINK_KINDS}")
        token = secrets.token_urlsafe(16)
        now = datetime.now(timezone.utc)
        with self._write() as conn:
            self._require(conn, game_id)
            conn.execute(
                "INSERT INTO links (token_hash, game_id, kind, created, expires) VALUES (?, ?, ?, ?, ?)",
                (_token_hash(token), game_id, kind, _stamp(now), _stamp(now + timedelta(minutes=minutes))),
            )
            if kind == "confirm":  # from now on a deal counts once the other side confirms it
                row = self._require(conn, game_id)
                if row["confirmed"] is None:
                    conn.execute("UPDATE games SET confirmed = ? WHERE id = ?", (row["deals"], game_id))
        return token

    def link_kind(self, game_id: str, token) -> str:
        """What the link does ("add" or "handover"); ``LinkUsedUp`` if it no longer works."""
        return self._usable_link(self._conn(), game_id, token)["kind"]

    def redeem_link(self, game_id: str, token) -> str | None:
        """Use the link once: return a new referee key for the phone that opened it, or
        None for a confirm link (that phone confirms deals for the other side; the session
        remembers it, as it remembers a referee's key).

        A hand-over link also revokes every other key of the game and every other
        unused link (the old referee stops being one). ``LinkUsedUp`` otherwise.
        """
        with self._write() as conn:
            link = self._usable_link(conn, game_id, token)
            now = _now()
            conn.execute("UPDATE links SET used = ? WHERE token_hash = ?", (now, link["token_hash"]))
            if link["kind"] == "confirm":
                return None
            if link["kind"] == "handover":
                self._revoke_all(conn, game_id, now)
            return self._add_referee(conn, game_id, now)

    def confirm(self, game_id: str, version: int) -> int:
        """The other side confirms every deal finished at ``version`` (what its phone showed):
        they count from now on. Returns how many are confirmed. ``Conflict`` if the game has
        changed since (a deal they did not see could be confirmed); ``NotFound`` if no
        confirmation was asked for this game."""
        with self._write() as conn:
            row = self._current(conn, game_id, version)
            if row["confirmed"] is None:
                raise NotFound(f"{game_id!r} asks for no confirmation")
            rules = games.get(row["game"])
            view = rules.view(rules.load(_load_state(row["state"])))
            confirmed = row["deals"]
            conn.execute("UPDATE games SET confirmed = ? WHERE id = ?", (confirmed, game_id))
            _keep_figures(conn, rules, game_id, view, confirmed, confirmed)
            return confirmed

    def rotate_key(self, game_id: str, key) -> str:
        """Revoke every other referee of the game and every unused link, and replace the
        caller's key (the old one stops working); return the new key. The caller stays
        the same phone in the move log (its ``referees`` row is kept, with the new key's
        hash). ``NotFound`` unless ``key`` is in force."""
        with self._write() as conn:
            me = self._referee(conn, game_id, key)
            if me is None:
                raise NotFound(f"{game_id!r} has no referee with that key")
            self._revoke_all(conn, game_id, _now(), keep=me)
            new_key = secrets.token_urlsafe(16)
            conn.execute("UPDATE referees SET key_hash = ? WHERE id = ?", (_hash_key(new_key), me))
            return new_key

    def referees(self, game_id: str) -> int:
        """How many referee keys of the game are in force."""
        return (
            self._conn()
            .execute("SELECT COUNT(*) FROM referees WHERE game_id = ? AND revoked IS NULL", (game_id,))
            .fetchone()[0]
        )

    # -- archive and delete -------------------------------------------------------
    def archive(self, game_id: str, archived: bool = True) -> None:
        """Hide the game from the lists (it stays reachable by its link), or show it again."""
        with self._write() as conn:
            self._require(conn, game_id)
            conn.execute("UPDATE games SET archived = ? WHERE id = ?", (int(archived), game_id))

    def delete(self, game_id: str) -> None:
        """Remove the game with its moves, referees and links, in one transaction."""
        with self._write() as conn:
            self._require(conn, game_id)
            for table in ("moves", "links", "referees", "seats", "deals"):
                conn.execute(f"DELETE FROM {table} WHERE game_id = ?", (game_id,))
            conn.execute("DELETE FROM games WHERE id = ?", (game_id,))

    # -- players ------------------------------------------------------------------
    def roster(self) -> list[dict]:
        """The players on this server, who played last first: id, name, created, last_played, games."""
        sql = (
            "SELECT p.id, p.name, p.created, p.last_played, (SELECT coalesce(sum(t.played), 0) FROM totals t "
            "WHERE t.player_id = p.id) AS games FROM players p ORDER BY p.last_played DESC, p.id"
        )
        return [dict(r) for r in self._conn().execute(sql)]

    def recent_tables(self, limit: int = 3) -> list[list[str]]:
        """The players of the latest games, each table once, the last one first: names in
        seat order, as the roster spells them now (one tap fills a new game's seats)."""
        sql = (
            "SELECT s.game_id, p.name FROM (SELECT id, created FROM games ORDER BY created DESC, rowid DESC LIMIT ?) g "
            "JOIN seats s ON s.game_id = g.id JOIN players p ON p.id = s.player_id ORDER BY g.created DESC, s.seat"
        )
        tables: dict[str, list[str]] = {}
        for row in self._conn().execute(sql, (limit * 10,)):
            tables.setdefault(row["game_id"], []).append(row["name"])
        out: list[list[str]] = []
        for names in tables.values():
            if names not in out:
                out.append(names)
        return out[:limit]

    def player(self, player_id) -> dict | None:
        """A player of the roster (id, name, created, last_played), or None."""
        row = self._conn().execute("SELECT * FROM players WHERE id = ?", (player_id,)).fetchone()
        return None if row is None else dict(row)

    def rename_player(self, player_id: int, name: str) -> None:
        """Rename a player: their games stay theirs (seats link the id, not the name; each
        game keeps the name it was played under). ``NameTaken`` if someone else has it."""
        name = name.strip()
        with self._write() as conn:
            if conn.execute("SELECT 1 FROM players WHERE id = ?", (player_id,)).fetchone() is None:
                raise NotFound(player_id)
            other = conn.execute(
                "SELECT id FROM players WHERE name = ? COLLATE NOCASE AND id != ?", (name, player_id)
            ).fetchone()
            if other is not None:
                raise NameTaken(name, other[0])
            conn.execute("UPDATE players SET name = ? WHERE id = ?", (name, player_id))

    def merge_players(self, player_id: int, into: int) -> None:
        """One person typed under two names: ``player_id``'s games become ``into``'s, and
        ``player_id`` leaves the roster."""
        if player_id == into:
            return
        with self._write() as conn:
            rows = conn.execute("SELECT id, last_played FROM players WHERE id IN (?, ?)", (player_id, into)).fetchall()
            if len(rows) != 2:
                raise NotFound(player_id)
            conn.execute("UPDATE seats SET player_id = ? WHERE player_id = ?", (into, player_id))
            conn.execute("UPDATE players SET last_played = ? WHERE id = ?", (max(r["last_played"] for r in rows), into))
            conn.execute("DELETE FROM players WHERE id = ?", (player_id,))

    def query(self, sql: str, params=()) -> list[sqlite3.Row]:
        """Rows of a read-only query on this thread's connection (the statistics)."""
        return self._conn().execute(sql, params).fetchall()

    # -- changes ------------------------------------------------------------------
    def play(
        self, game_id: str, version: int, move: dict, key: str | None = None, entry: str | None = None
    ) -> tuple[int, object]:
        """Apply ``move`` if ``version`` is current; return ``(new_version, state)``, as
        :meth:`play_and_read` does."""
        game = self.play_and_read(game_id, version, move, key, entry)
        return game["version"], game["state"]

    def play_and_read(
        self, game_id: str, version: int, move: dict, key: str | None = None, entry: str | None = None
    ) -> dict:
        """Apply ``move`` if ``version`` is current; return the game after it, as :meth:`get`
        reads it, with its ``view`` (so the answer to a move needs no second read).

        ``Conflict`` for a stale version, the engine's ``MoveError`` for a refused move:
        either way nothing is written. The move is stored as given (after a JSON round
        trip, which is also what the engine sees, so replaying the log gives this state).
        ``key``, the referee key the request carried, is resolved in the same transaction
        to the phone recorded as entering the move (``NotReferee`` if it is not in force);
        without it the move is stored with no phone. ``entry``, the id a phone gave this tap:
        if a move with it is already stored (sent again after its answer was lost), nothing
        is applied and the game as it is now is returned, whatever the version.
        """
        move = _plain(move, InvalidMove, "The move")
        with self._write() as conn:
            if (
                entry is not None
                and conn.execute("SELECT 1 FROM moves WHERE game_id = ? AND entry = ?", (game_id, entry)).fetchone()
            ):
                return _game_dict(self._require(conn, game_id))
            row = self._current(conn, game_id, version)
            referee = self._device(conn, game_id, key)
            rules = games.get(row["game"])
            before = _load_state(row["state"])
            state = rules.apply(rules.load(before), move)
            seq = conn.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM moves WHERE game_id = ?", (game_id,)).fetchone()[
                0
            ]
            deals = self._keep_deals(conn, game_id, state, row["deals"] - len(before["history"]), row["deals"])
            snapshot = None
            if seq - self._snapshot(conn, game_id)[0] >= SNAPSHOT_EVERY:
                snapshot = _snapshot_text(rules.dump(state), deals)
            now = _now()
            conn.execute(
                "INSERT INTO moves (game_id, seq, move, time, undone, referee, entry, snapshot, said) "
                "VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?)",
                (game_id, seq, _dumps(move), now, referee, entry, snapshot, _said(rules, state, move)),
            )
            return self._save(conn, rules, row, game_id, state, now, deals)

    def undo(self, game_id: str, version: int, key: str | None = None) -> tuple[int, object]:
        """Undo the latest move in effect; return ``(new_version, state)``, as
        :meth:`undo_and_read` does."""
        game = self.undo_and_read(game_id, version, key)
        return game["version"], game["state"]

    def undo_and_read(self, game_id: str, version: int, key: str | None = None) -> dict:
        """Mark the latest move in effect undone and rebuild the state: from the latest
        snapshot in effect, replaying the moves in effect after it (fewer than
        ``SNAPSHOT_EVERY``), so undo costs the same at move 1,000 as at move 10.

        ``NothingToUndo`` (an ``IllegalMove``) when no move is in effect; ``Conflict``
        for a stale version. Returns the game after it, as :meth:`play_and_read` does. The move
        keeps who undid it (the phone of ``key``, as in :meth:`play`) and when.
        """
        with self._write() as conn:
            row = self._current(conn, game_id, version)
            referee = self._device(conn, game_id, key)
            rules = games.get(row["game"])
            last = conn.execute(
                "SELECT seq FROM moves WHERE game_id = ? AND undone = 0 ORDER BY seq DESC LIMIT 1", (game_id,)
            ).fetchone()
            if last is None:
                raise NothingToUndo("nothing_to_undo", "Nothing to undo: no move is in effect.")
            now = _now()
            conn.execute(
                "UPDATE moves SET undone = 1, undone_by = ?, undone_time = ? WHERE game_id = ? AND seq = ?",
                (referee, now, game_id, last["seq"]),
            )
            since, snapshot = self._snapshot(conn, game_id)
            if snapshot is None:
                state, base = rules.start(json.loads(row["players"]), json.loads(row["options"])), 0
            else:
                kept = _load_state(snapshot)
                state, base = rules.load(kept["state"]), kept["deals"] - len(kept["state"]["history"])
            for (move,) in conn.execute(
                "SELECT move FROM moves WHERE game_id = ? AND undone = 0 AND seq > ? ORDER BY seq", (game_id, since)
            ).fetchall():
                state = rules.apply(state, json.loads(move))
            deals = self._keep_deals(conn, game_id, state, base, row["deals"])
            return self._save(conn, rules, row, game_id, state, now, deals)

    # -- the log ----------------------------------------------------------------
    def moves(self, game_id: str, first: int = 1, last: int | None = None, latest: int | None = None) -> list[dict]:
        """Every stored move in order, undone ones included: seq, move, time, undone, and
        the audit trail: referee (the id of the phone that entered it, or None: imported,
        or stored before phones were recorded), imported, undone_by (a phone id or None)
        and undone_time (None when not undone, or undone before undos were recorded).

        Those numbered ``first`` to ``last`` only (a page of the log), or the ``latest``
        moves in effect (what a watcher sees): an indexed range, whatever the game's length.
        """
        conn = self._conn()
        self._require(conn, game_id)
        columns = "seq, move, time, undone, referee, imported, undone_by, undone_time, said"
        if latest is not None:
            rows = conn.execute(
                f"SELECT {columns} FROM moves WHERE game_id = ? AND undone = 0 ORDER BY seq DESC LIMIT ?",
                (game_id, latest),
            ).fetchall()[::-1]
        else:
            rows = conn.execute(
                f"SELECT {columns} FROM moves WHERE game_id = ? AND seq >= ? AND seq <= ? ORDER BY seq",
                (game_id, first, 2**62 if last is None else last),
            ).fetchall()
        return [
            {
                "seq": r["seq"],
                "move": json.loads(r["move"]),
                "time": r["time"],
                "undone": bool(r["undone"]),
                "referee": r["referee"],
                "imported": bool(r["imported"]),
                "undone_by": r["undone_by"],
                "undone_time": r["undone_time"],
                "said": None if r["said"] is None else [Reason.from_json(x) for x in json.loads(r["said"])],
            }
            for r in rows
        ]

    def move_count(self, game_id: str) -> int:
        """How many moves are stored, undone ones included (the log's length). One indexed read."""
        row = self._conn().execute("SELECT max(seq) FROM moves WHERE game_id = ?", (game_id,)).fetchone()
        return row[0] or 0

    def last_move(self, game_id: str) -> dict | None:
        """The latest move in effect (what Undo would take back), or None. One indexed row."""
        row = (
            self._conn()
            .execute("SELECT move FROM moves WHERE game_id = ? AND undone = 0 ORDER BY seq DESC LIMIT 1", (game_id,))
            .fetchone()
        )
        return None if row is None else json.loads(row["move"])

    def transcript(self, game_id: str) -> dict:
        """The game as a transcript: the moves in effect, undone ones left out."""
        conn = self._conn()
        # One read transaction: the game row and its moves from the same snapshot.
        conn.execute("BEGIN")
        try:
            return self._transcript(conn, game_id)
        finally:
            conn.execute("COMMIT")

    def _transcript(self, conn, game_id: str) -> dict:
        """:meth:`transcript`, read on ``conn`` (inside a transaction of the caller's)."""
        row = self._require(conn, game_id)
        moves = [
            json.loads(m)
            for (m,) in conn.execute("SELECT move FROM moves WHERE game_id = ? AND undone = 0 ORDER BY seq", (game_id,))
        ]
        return {
            "format": TRANSCRIPT_FORMAT,
            "game": row["game"],
            "players": json.loads(row["players"]),
            "options": json.loads(row["options"]),
            "moves": moves,
        }

    def import_transcript(self, data) -> tuple[dict, str]:
        """Store a transcript as a new game; return its row and edit key.

        Every move is replayed first; the first one refused raises ``BadTranscript``
        naming it (1-based) with the engine's message, and nothing is stored.
        """
        if not isinstance(data, dict):
            raise BadTranscript("A transcript is a JSON object")
        if data.get("format") != TRANSCRIPT_FORMAT:
            raise BadTranscript(f"Not a transcript: 'format' must be {TRANSCRIPT_FORMAT!r}")
        missing = [k for k in ("game", "players", "moves") if k not in data]
        if missing:
            raise BadTranscript(f"The transcript has no {missing[0]!r}")
        moves = data["moves"]
        if not isinstance(moves, list):
            raise BadTranscript("The transcript's 'moves' must be a list")
        try:
            if not isinstance(data["game"], str):
                raise OptionError("transcript_game", "The transcript's 'game' must be a game's name")
            rules = games.get(data["game"])
            players = _plain(data["players"], OptionError, "players")
            options = _plain(data.get("options"), OptionError, "options")
            state = rules.start(players, options)
        except OptionError as e:
            raise BadTranscript(f"The transcript's game can't be set up: {e}") from None
        plain, said = [], []
        for i, move in enumerate(moves, 1):
            try:
                move = _plain(move, InvalidMove, "The move")
                state = rules.apply(state, move)
            except MoveError as e:
                raise BadTranscript(f"Move {i} of {len(moves)} is refused: {e}", index=i) from None
            plain.append(move)
            said.append(_said(rules, state, move))
        key = secrets.token_urlsafe(16)
        with self._write() as conn:
            row = self._insert_game(conn, rules, data["game"], players, options, state, key, version=len(plain))
            conn.executemany(
                "INSERT INTO moves (game_id, seq, move, time, undone, imported, said) VALUES (?, ?, ?, ?, 0, 1, ?)",
                [(row["id"], i, _dumps(m), row["created"], w) for i, (m, w) in enumerate(zip(plain, said), 1)],
            )
        return row, key

    # -- helpers ----------------------------------------------------------------
    def _referee(self, conn, game_id: str, key) -> str | None:
        """The id of the referee whose key this is, if it is in force."""
        if not isinstance(key, str) or not key:
            return None
        for row in conn.execute("SELECT id, key_hash FROM referees WHERE game_id = ? AND revoked IS NULL", (game_id,)):
            if _key_matches(row["key_hash"], key):
                return row["id"]
        return None

    def _device(self, conn, game_id: str, key: str | None) -> str | None:
        """The phone a change is recorded against: None without a key, else the id of the
        referee whose key it is; ``NotReferee`` if it is not in force (revoked since the
        view checked it). One indexed read of the game's referee rows."""
        if key is None:
            return None
        referee = self._referee(conn, game_id, key)
        if referee is None:
            raise NotReferee("This phone is no longer a referee of this game.")
        return referee

    def _add_referee(self, conn, game_id: str, now: str, key: str | None = None) -> str:
        """A new referee row; return its key (a fresh one unless given)."""
        key = key or secrets.token_urlsafe(16)
        conn.execute(
            "INSERT INTO referees (id, game_id, key_hash, created) VALUES (?, ?, ?, ?)",
            (secrets.token_urlsafe(6), game_id, _hash_key(key), now),
        )
        return key

    def _revoke_all(self, conn, game_id: str, now: str, keep: str | None = None) -> None:
        """Revoke the game's referees (all but ``keep``) and its unused links."""
        conn.execute(
            "UPDATE referees SET revoked = ? WHERE game_id = ? AND revoked IS NULL AND id IS NOT ?",
            (now, game_id, keep),
        )
        conn.execute("DELETE FROM links WHERE game_id = ? AND used IS NULL", (game_id,))

    def _usable_link(self, conn, game_id: str, token) -> sqlite3.Row:
        row = None
        if isinstance(token, str) and token:
            row = conn.execute(
                "SELECT token_hash, kind, expires, used FROM links WHERE token_hash = ? AND game_id = ?",
                (_token_hash(token), game_id),
            ).fetchone()
        if row is None or row["used"] is not None or row["expires"] <= _now():
            raise LinkUsedUp("This link has expired or was already used.")
        return row

    def _require(self, conn, game_id: str) -> sqlite3.Row:
        row = conn.execute(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise NotFound(f"No game {game_id!r}")
        return row

    def _snapshot(self, conn, game_id: str) -> tuple[int, str | None]:
        """The latest snapshot in effect: its move's seq and the state after it, or (0, None)."""
        row = conn.execute(
            "SELECT seq, snapshot FROM moves WHERE game_id = ? AND snapshot IS NOT NULL AND undone = 0 "
            "ORDER BY seq DESC LIMIT 1",
            (game_id,),
        ).fetchone()
        return (0, None) if row is None else (row[0], row[1])

    def _current(self, conn, game_id: str, version) -> sqlite3.Row:
        """The game row, if ``version`` is its current version (inside the write transaction)."""
        row = self._require(conn, game_id)
        if isinstance(version, bool) or version != row["version"]:
            raise Conflict(row["version"], version)
        return row

    def _keep_deals(self, conn, game_id: str, state, base: int, stored: int) -> int:
        """Write the deals ``state`` finished that are not stored yet, and drop stored ones it
        has not (an undo); return how many it has. Its ``history`` starts at deal ``base + 1``
        (a state read back holds the last deal only); ``stored`` deals are kept so far."""
        count = base + len(state.history)
        if count < stored:
            conn.execute("DELETE FROM deals WHERE game_id = ? AND n > ?", (game_id, count))
        new = max(0, stored - base)  # the first record not stored yet
        _add_deals(conn, game_id, state.history[new:], base + new + 1)
        return count

    def _save(self, conn, rules, row: sqlite3.Row, game_id: str, state, now: str, deals: int) -> dict:
        """Write ``state`` (``deals`` finished) as the game's latest; return the game as :meth:`get`
        reads it, with its ``view`` (built once: the answer to the change shows it)."""
        trimmed = dataclasses.replace(state, history=state.history[-1:])
        view = rules.view(trimmed)
        finished, status = _summary(view)
        # A confirmed deal undone is no longer confirmed: entered again, it is confirmed again.
        confirmed = None if row["confirmed"] is None else min(row["confirmed"], deals)
        text = _trimmed(rules.dump(state))
        version = row["version"] + 1
        # Conditional on the version read: the write lock already makes this the only writer,
        # and a version moved on meanwhile (by anything) would change no row: a Conflict then.
        written = conn.execute(
            "UPDATE games SET state = ?, version = ?, updated = ?, finished = ?, status = ?, confirmed = ?, deals = ? "
            "WHERE id = ? AND version = ?",
            (text, version, now, finished, status, confirmed, deals, game_id, row["version"]),
        ).rowcount
        if written != 1:  # pragma: no cover - the write lock prevents it
            raise Conflict(self.version(game_id) or 0, row["version"])
        _keep_figures(conn, rules, game_id, view, deals, confirmed)
        changed = {"version": version, "updated": now, "finished": finished, "status": status, "confirmed": confirmed}
        return _game_dict({**dict(row), **changed, "deals": deals}, state=trimmed) | {"view": view}

    def _insert_game(self, conn, rules, game, players, options, state, key, version) -> dict:
        now = _now()
        view = rules.view(state)
        finished, status = _summary(view)
        row = {
            "game": game,
            "players": players,
            "options": options,
            "created": now,
            "updated": now,
            "version": version,
            "finished": bool(finished),
            "status": _status(status),
        }
        values = (
            game,
            _dumps(players),
            _dumps(options),
            now,
            now,
            version,
            _trimmed(rules.dump(state)),
            finished,
            status,
            len(state.history),
        )
        while True:
            game_id = secrets.token_urlsafe(9)  # 72 random bits; a clash is retried, not overwritten
            try:
                conn.execute(
                    "INSERT INTO games (id, game, players, options, created, updated, version, "
                    "state, finished, status, deals) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (game_id, *values),
                )
            except sqlite3.IntegrityError:  # pragma: no cover - astronomically rare
                continue
            self._add_referee(conn, game_id, now, key)
            _seat_players(conn, game_id, view, now)
            deals = self._keep_deals(conn, game_id, state, 0, 0)
            _keep_figures(conn, rules, game_id, view, deals)
            trimmed = dataclasses.replace(state, history=state.history[-1:])
            return {"id": game_id, **row, "archived": False, "confirmed": None, "deals": deals, "state": trimmed}


class SqliteWatcher:
    """What live.py's hub asks the database, on a read connection of its own: whether any
    connection has committed since it last asked (``PRAGMA data_version``, answered from
    shared memory, so asking is nearly free), and the versions of the games watched."""

    def __init__(self, path: str):
        self.conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False)
        self.committed: int | None = None

    def changed(self) -> bool:
        now = self.conn.execute("PRAGMA data_version").fetchone()[0]
        changed, self.committed = now != self.committed, now
        return changed

    def versions(self, ids: list[str]) -> list[tuple[str, int]]:
        """The games' versions, in one query (read to the end: no read stays open)."""
        marks = ", ".join("?" * len(ids))
        return self.conn.execute(f"SELECT id, version FROM games WHERE id IN ({marks})", ids).fetchall()

    def close(self) -> None:
        self.conn.close()


def open_store(url: str, synchronous: str = "NORMAL", pool_size: int = 8, pool_timeout: float = 5.0) -> Store:
    """The store at ``url``: ``postgresql://...`` (or ``postgres://``) a PostgreSQL database
    (companion/store_pg.py; ``pool_size`` connections per process, a request waits at most
    ``pool_timeout`` seconds for one), ``sqlite:///path`` or a plain path an SQLite file."""
    url = os.fspath(url)
    if url.startswith(("postgresql://", "postgres://")):
        from companion.store_pg import PostgresStore

        return PostgresStore(url, pool_size=pool_size, pool_timeout=pool_timeout)
    if url.startswith("sqlite:///"):
        url = url.removeprefix("sqlite:///")
    elif "://" in url:
        raise ValueError(f"A database is postgresql://user@host:port/name or sqlite:///path, not {url!r}")
    return Store(url, synchronous=synchronous)


def copy_games(source: Store, target: Store, replace: bool = False) -> int:
    """Every row of ``source`` written into ``target`` in one transaction of ``target``'s,
    then every game's transcript read back inside it and compared with the source's: any
    difference (or a ``target`` that already has games, unless ``replace``) raises
    ``ValueError`` and leaves ``target`` as it was. Returns the number of games copied."""
    if source.applied_migrations() != target.applied_migrations():
        raise ValueError("The two databases are at different schema versions: open both with this version first")
    if not replace and target.game_ids():
        raise ValueError(f"{target.url} already has games: nothing was copied (--replace replaces them)")
    tables = source.rows()  # one read transaction: the source should not be serving meanwhile
    expected = {row["id"]: source.transcript(row["id"]) for row in tables["games"]}

    def same_transcripts(store: Store, conn) -> None:
        for game_id, transcript in expected.items():
            if store._transcript(conn, game_id) != transcript:
                raise ValueError(f"Game {game_id}'s transcript differs after the copy: nothing was copied")

    return target.replace_rows(tables, same_transcripts)


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def _now() -> str:
    return _stamp(datetime.now(timezone.utc))


def _stamp(when: datetime) -> str:
    """UTC times as ISO text, which sorts and compares as the times do."""
    return when.isoformat(timespec="microseconds")


def _dumps(data) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _dump_state(data: dict) -> str:
    """The latest state, written at every move: orjson, because the stdlib encoder's time
    grows with the finished deals a state carries, and a move must cost the same at move
    1,000 as at move 10 (DESIGN.md quality bar; `make bench` measures it)."""
    return orjson.dumps(data).decode()


def _load_state(text: str) -> dict:
    return orjson.loads(text)


def _add_deals(conn, game_id: str, records: list[dict], first: int) -> None:
    """Store ``records`` as the game's finished deals ``first``, ``first + 1``, ..."""
    conn.executemany(
        "INSERT INTO deals (game_id, n, record) VALUES (?, ?, ?)",
        [(game_id, n, _dump_state(r)) for n, r in enumerate(records, first)],
    )


def _finished_deals(conn, game_id: str) -> list[dict]:
    """The game's finished deals' records, in order."""
    rows = conn.execute("SELECT record FROM deals WHERE game_id = ? ORDER BY n", (game_id,))
    return [_load_state(r) for (r,) in rows]


def _trimmed(data: dict) -> str:
    """A state as the game row keeps it: its finished deals but the last are in ``deals``."""
    return _dump_state({**data, "history": data["history"][-1:]})


def _snapshot_text(data: dict, deals: int) -> str:
    """A state as a move keeps it for undo: trimmed, with how many deals it has finished."""
    return _dump_state({"deals": deals, "state": {**data, "history": data["history"][-1:]}})


def _plain(data, error: type[MoveError | OptionError], what: str):
    """``data`` as it will read back from the database (tuples become lists, ...).

    The engine is given this copy, so replaying the stored JSON reproduces its verdict.
    """
    try:
        return json.loads(_dumps(data))
    except (TypeError, ValueError):
        raise error(
            "not_json", "%(what)s must be plain JSON data (text, numbers, lists, mappings)", what=what
        ) from None


def _game_dict(row, history: list[dict] | None = None, state=None) -> dict:
    """A game row as :meth:`Store.get` returns it; its state read from the row (its
    ``history`` replaced by ``history`` when given) unless ``state`` is given."""
    rules = games.get(row["game"])
    if state is None:
        data = _load_state(row["state"])
        state = rules.load(data if history is None else {**data, "history": history})
    return {
        "id": row["id"],
        "game": row["game"],
        "players": json.loads(row["players"]),
        "options": json.loads(row["options"]),
        "created": row["created"],
        "updated": row["updated"],
        "version": row["version"],
        "finished": bool(row["finished"]),
        "status": _status(row["status"]),
        "archived": bool(row["archived"]),
        "confirmed": row["confirmed"],
        "deals": row["deals"],
        "state": state,
    }


def _player_id(conn, name: str, now: str) -> int:
    """The roster's player of this name (any case), added if new; marked as playing now."""
    row = conn.execute("SELECT id FROM players WHERE name = ? COLLATE NOCASE", (name,)).fetchone()
    if row is None:
        return conn.execute(
            "INSERT INTO players (name, created, last_played) VALUES (?, ?, ?) RETURNING id", (name, now, now)
        ).fetchone()[0]
    conn.execute("UPDATE players SET last_played = ? WHERE id = ?", (now, row[0]))
    return row[0]


def _seat_players(conn, game_id: str, view: dict, now: str) -> None:
    """Link each seat of a new game to its player on the roster, with the side it scores for."""
    side_of = {name: games.side_label(side) for side in view["sides"] for name in side}
    conn.executemany(
        "INSERT INTO seats (game_id, seat, player_id, side) VALUES (?, ?, ?, ?)",
        [(game_id, i, _player_id(conn, name, now), side_of[name]) for i, name in enumerate(view["players"])],
    )


def _keep_figures(
    conn, rules, game_id: str, view: dict, deals: int, confirmed: int | None = None, history: list | None = None
) -> None:
    """Each side's figures and result in its seats, when a deal or the game has ended or
    been undone (or confirmed) since they were written (one indexed read otherwise). With
    ``confirmed`` deals of the game confirmed by the other side, only those count, and the
    result once they all are. ``view`` is of the game's state, ``deals`` finished; their
    records are read from ``deals`` then (or given: ``history``)."""
    counted = deals if confirmed is None else min(confirmed, deals)
    result = view["result"] if counted == deals else None
    kept = conn.execute("SELECT deals, won FROM seats WHERE game_id = ? LIMIT 1", (game_id,)).fetchone()
    if kept is None or (kept[0] == counted and (kept[1] is None) == (result is None)):
        return
    if history is None:
        history = _finished_deals(conn, game_id)
    history = history[:counted]
    draw = bool(result and result.get("draw"))
    winners = result.get("winners", []) if result else []
    for side, figures in rules.figures({**view, "history": history, "result": result}).items():
        won = None if result is None else int(side in winners and not draw)
        conn.execute(
            f"UPDATE seats SET {', '.join(f'{k} = ?' for k in games.FIGURES)}, won = ?, draw = ? "
            "WHERE game_id = ? AND side = ?",
            (*(figures[k] for k in games.FIGURES), won, int(draw and side in winners), game_id, side),
        )


def _said(rules, state, move: dict) -> str:
    """A move's words as the engine says them from the state it led to (``rules.narrate``),
    kept with it as data (JSON) for the move log."""
    return json.dumps([r.as_data() for r in rules.narrate(state, move)], ensure_ascii=False)


def _summary(view: dict) -> tuple[int, str]:
    """``(finished, status)`` for the list of games, from the engine's view: data (JSON),
    not words, which the pages write at render time (``status_text``).

    Kept in the row at each change, so listing games loads no state.
    """
    result = view.get("result")
    if result:
        return 1, _dumps({"winners": result.get("winners", []), "draw": bool(result.get("draw"))})
    status: dict = {"deal": view.get("deal")}
    if isinstance(view.get("scores"), dict):
        status["scores"] = view["scores"]
    elif isinstance(view.get("losses"), dict):
        status["losses"] = view["losses"]
    return 0, _dumps(status)


def _status(text: str) -> dict:
    """A row's status as data (a row from before m004, or an empty one, reads as {})."""
    try:
        data = json.loads(text or "{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _hash_key(key: str) -> str:
    """``salt$hmac``: HMAC-SHA256 of the key under a random per-game salt."""
    salt = secrets.token_hex(16)
    return f"{salt}${_digest(salt, key)}"


def _key_matches(stored: str, key: str) -> bool:
    salt, _, digest = stored.partition("$")
    return hmac.compare_digest(_digest(salt, key), digest)


def _token_hash(token: str) -> str:
    """A link token's lookup hash: tokens are 128 random bits, so no salt is needed."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def _digest(salt: str, key: str) -> str:
    return hmac.new(salt.encode(), key.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()
