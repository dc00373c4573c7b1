"""The store on PostgreSQL (issue 19): the same :class:`~companion.store.Store`, its SQL
written once, for a club that runs several app servers on one database server.

``DATABASE_URL=postgresql://user@host:port/name`` chooses it (``create_app``); SQLite stays
the default. What differs from SQLite, and only here:

* **Connections** come from a psycopg_pool pool per process (``DATABASE_POOL_SIZE``); a
  thread takes one at its first query and gives it back at the end of its request
  (``release``: Flask's teardown), or when the thread ends. Each is checked on the way out
  of the pool, so a database server restarted meanwhile costs no failed request.
* **A change** is one transaction that first takes a transaction-level advisory lock, the
  equivalent of SQLite's ``BEGIN IMMEDIATE`` (one writer at a time, the version check,
  the engine's verdict and the write seeing the same rows), so two app servers racing on
  one game give exactly one winner and the other a ``Conflict``. The lock is the
  database's, so it holds across servers. (A lock per game, ``SELECT ... FOR UPDATE`` on
  its row, would let different games' moves commit in parallel, but the roster and the
  ``totals`` rows two games share would then need deadlock retries; one writer at a time
  is what SQLite does, and commits thousands of moves a second.)
* **SQL**: the store's statements are SQLite's; each is translated once (cached): ``?``
  placeholders, ``name = ? COLLATE NOCASE`` (PostgreSQL: ``lower(name) = lower(?)``, with
  a unique index on ``lower(name)``), ``IS NOT ?`` (``IS DISTINCT FROM``), and a bare
  ``BEGIN`` (a consistent read: ``REPEATABLE READ``). ``games`` and ``referees`` carry a
  ``rowid`` identity column, so "in the order they were written" reads as it does on SQLite.
* **Schema**: SQLite's is built by migrations m001..m014 through sqlite-utils (table
  rebuilds, data rewrites) that cannot run on PostgreSQL, so a new PostgreSQL database is
  created at the latest schema at once (:data:`SCHEMA`, the same tables and columns in the
  same order, which tests/test_store.py checks) and records those migrations as applied.
  A later migration needs its PostgreSQL statements in :data:`LATER` (opening refuses a
  database that lacks one); the totals triggers are PL/pgSQL built from the same
  ``TOTALS`` as SQLite's.
* **Live push**: a trigger notifies ``companion_games`` whenever a game's version changes;
  live.py's hub listens (:class:`PostgresWatcher`) instead of asking SQLite's
  ``data_version``.
"""

from __future__ import annotations

import os
import re
import tempfile
import threading
import weakref
from collections.abc import Callable
from contextlib import contextmanager
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path

import psycopg
import psycopg_pool
from psycopg.rows import RowMaker

from companion import games
from companion.store import ONE_PERSON_ONE_NAME, ROSTER_CHANGES, TOTALS, Store, migrations, one_person_one_name

#: The channel every change of a game's version is notified on.
CHANNEL = "companion_games"
#: The advisory lock every write transaction takes (any constant shared by all servers).
WRITE_LOCK = 0x636F6D70  # "comp"

# ---------------------------------------------------------------------------
# The schema at its latest version (SQLite's after m014), for a new database
# ---------------------------------------------------------------------------

_FIGURE_COLUMNS = ", ".join(f'"{k}" INTEGER NOT NULL DEFAULT 0' for k in games.FIGURES)
_SUMS = ", ".join(f"{k} INTEGER NOT NULL DEFAULT 0" for k in TOTALS)


def _totals_trigger() -> str:
    """``totals`` kept by a trigger on ``seats``, as SQLite's m009 triggers keep it."""
    family = "(SELECT game FROM games WHERE id = {s}.game_id)"
    add = (
        f"INSERT INTO totals (game, player_id, {', '.join(TOTALS)}, best_sweep) VALUES ({family.format(s='NEW')}, "
        f"NEW.player_id, {', '.join(v.format(s='NEW') for v in TOTALS.values())}, NEW.best_sweep) "
        f"ON CONFLICT (game, player_id) DO UPDATE SET "
        f"{', '.join(f'{k} = totals.{k} + excluded.{k}' for k in TOTALS)}, "
        "best_sweep = greatest(totals.best_sweep, excluded.best_sweep);"
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
    return (
        "CREATE FUNCTION seats_totals() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        f"IF TG_OP IN ('DELETE', 'UPDATE') THEN {remove} END IF; "
        f"IF TG_OP IN ('INSERT', 'UPDATE') THEN {add} END IF; "
        "RETURN NULL; END $$"
    )


SCHEMA = [
    "CREATE TABLE games (id TEXT PRIMARY KEY, game TEXT NOT NULL, players TEXT NOT NULL, options TEXT NOT NULL, "
    "created TEXT NOT NULL, updated TEXT NOT NULL, version INTEGER NOT NULL DEFAULT 0, state TEXT NOT NULL, "
    "finished INTEGER DEFAULT 0, status TEXT DEFAULT '', archived INTEGER NOT NULL DEFAULT 0, confirmed INTEGER, "
    "deals INTEGER NOT NULL DEFAULT 0, rowid BIGINT GENERATED ALWAYS AS IDENTITY)",
    "CREATE INDEX idx_games_updated ON games (updated)",
    "CREATE INDEX idx_games_created ON games (created)",
    "CREATE TABLE moves (game_id TEXT REFERENCES games (id), seq INTEGER, move TEXT NOT NULL, time TEXT NOT NULL, "
    "undone INTEGER NOT NULL DEFAULT 0, referee TEXT, imported INTEGER NOT NULL DEFAULT 0, undone_by TEXT, "
    "undone_time TEXT, entry TEXT, snapshot TEXT, said TEXT, PRIMARY KEY (game_id, seq))",
    "CREATE UNIQUE INDEX moves_by_entry ON moves (game_id, entry)",
    "CREATE INDEX moves_snapshots ON moves (game_id, seq) WHERE snapshot IS NOT NULL",
    "CREATE TABLE referees (id TEXT PRIMARY KEY, game_id TEXT NOT NULL REFERENCES games (id), "
    "key_hash TEXT NOT NULL, created TEXT NOT NULL, revoked TEXT, rowid BIGINT GENERATED ALWAYS AS IDENTITY)",
    "CREATE INDEX idx_referees_game_id ON referees (game_id)",
    "CREATE TABLE links (token_hash TEXT PRIMARY KEY, game_id TEXT NOT NULL REFERENCES games (id), "
    "kind TEXT NOT NULL, created TEXT NOT NULL, expires TEXT NOT NULL, used TEXT)",
    "CREATE INDEX idx_links_game_id ON links (game_id)",
    "CREATE TABLE players (id INTEGER GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, name TEXT NOT NULL, "
    "created TEXT NOT NULL, last_played TEXT NOT NULL)",
    "CREATE UNIQUE INDEX players_by_name ON players (lower(name))",
    "CREATE TABLE seats (game_id TEXT REFERENCES games (id), seat INTEGER, "
    "player_id INTEGER NOT NULL REFERENCES players (id), side TEXT NOT NULL, won INTEGER, "
    f"draw INTEGER NOT NULL DEFAULT 0, {_FIGURE_COLUMNS}, PRIMARY KEY (game_id, seat))",
    "CREATE INDEX idx_seats_player_id ON seats (player_id)",
    f"CREATE TABLE totals (game TEXT NOT NULL, player_id INTEGER NOT NULL, {_SUMS}, "
    "best_sweep INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (game, player_id))",
    "CREATE TABLE deals (game_id TEXT NOT NULL REFERENCES games (id), n INTEGER NOT NULL, record TEXT NOT NULL, "
    "PRIMARY KEY (game_id, n))",
    _totals_trigger(),
    "CREATE TRIGGER seats_totals AFTER INSERT OR UPDATE OR DELETE ON seats "
    "FOR EACH ROW EXECUTE FUNCTION seats_totals()",
    "CREATE FUNCTION games_notify() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
    f"PERFORM pg_notify('{CHANNEL}', NEW.id); RETURN NULL; END $$",
    "CREATE TRIGGER games_notify AFTER INSERT OR UPDATE OF version ON games "
    "FOR EACH ROW EXECUTE FUNCTION games_notify()",
]

#: The SQLite migrations :data:`SCHEMA` stands for.
BASELINE = "m014_finished_deals_stored_once"


def _m015(conn: Connection) -> None:
    """m015 on PostgreSQL: its statements and its data step, as SQLite runs them."""
    conn.execute("ALTER TABLE players ADD COLUMN name_key TEXT")
    conn.execute(ROSTER_CHANGES.format(id="id INTEGER GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"))
    for statement in ONE_PERSON_ONE_NAME:
        conn.execute(statement)
    one_person_one_name(conn)


#: Migrations after the baseline: name -> what PostgreSQL runs for it.
LATER: dict[str, Callable[[Connection], None]] = {"m015_one_person_one_name": _m015}

MIGRATIONS_TABLE = "companion_migrations"

#: The order "as written" of each exported table (its rowid on SQLite).
_ORDER = {"players": "id", "games": "rowid", "referees": "rowid", "seats": "game_id, seat", "moves": "game_id, seq"}
_ORDER |= {"links": "created, token_hash", "deals": "game_id, n", "roster_changes": "id"}


# ---------------------------------------------------------------------------
# SQLite's SQL on PostgreSQL
# ---------------------------------------------------------------------------

_NOCASE = re.compile(r"([\w.]+) = \? COLLATE NOCASE")


@lru_cache(maxsize=1024)
def translate(sql: str, with_params: bool = True) -> str:
    """A statement of the store's, as PostgreSQL reads it (see the module's docstring).

    >>> translate("SELECT id FROM players WHERE name = ? COLLATE NOCASE AND id != ?")
    'SELECT id FROM players WHERE lower(name) = lower(%s) AND id != %s'
    """
    if sql.strip().upper() == "BEGIN":
        return "BEGIN ISOLATION LEVEL REPEATABLE READ"
    sql = _NOCASE.sub(r"lower(\1) = lower(?)", sql).replace("IS NOT ?", "IS DISTINCT FROM ?")
    if with_params:
        sql = sql.replace("%", "%%").replace("?", "%s")
    return sql


class Row(tuple):
    """A row read by name or by position, as ``sqlite3.Row`` is (``dict(row)`` too)."""

    _index: dict[str, int]

    def __getitem__(self, key):  # type: ignore[override]
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
        if params:
            return self.raw.execute(translate(sql), params)
        return self.raw.execute(translate(sql, False))

    def executemany(self, sql: str, rows) -> None:
        rows = list(rows)
        if rows:
            with self.raw.cursor() as cur:
                cur.executemany(translate(sql), rows)

    @property
    def in_transaction(self) -> bool:
        return self.raw.info.transaction_status != psycopg.pq.TransactionStatus.IDLE


class _Held:
    """A thread's connection taken from the pool; given back when released or when the
    thread ends (its thread-local slot is dropped)."""

    def __init__(self, pool: psycopg_pool.ConnectionPool, conn: psycopg.Connection):
        self.conn = Connection(conn)
        self._finalizer = weakref.finalize(self, _give_back, pool, conn)

    def give_back(self) -> None:
        self._finalizer()


def _give_back(pool: psycopg_pool.ConnectionPool, conn: psycopg.Connection) -> None:
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
    return re.sub(r"//([^:/@]+):[^@/]*@", r"//\1:***@", url)


class PostgresStore(Store):
    """:class:`~companion.store.Store` on a PostgreSQL database (``url``)."""

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
        self.migrate()

    def __repr__(self) -> str:
        return f"PostgresStore({self.path!r})"

    @property
    def url(self) -> str:
        return self.path

    # -- connections ------------------------------------------------------------
    def _connect(self) -> Connection:  # type: ignore[override]
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
                        check=psycopg_pool.ConnectionPool.check_connection,
                        name="companion",
                        open=False,
                    )
                    self._pool.open(wait=False)
                    self._pool_pid = pid
        return self._pool

    def _conn(self) -> Connection:  # type: ignore[override]
        pool = self.pool()
        held = getattr(self._local, "held", None)
        if held is None:
            held = self._local.held = _Held(pool, pool.getconn())
        return held.conn

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
    def _write(self):
        """One write transaction, writers one at a time across every server (see the module)."""
        conn = self._conn()
        # READ COMMITTED (not the consistent reads' REPEATABLE READ): every statement after
        # the lock sees what the previous writer committed before letting go of it.
        conn.raw.execute(f"BEGIN; SELECT pg_advisory_xact_lock({WRITE_LOCK:d})")  # one round trip
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException:
            _roll_back(conn)
            raise

    def watcher(self) -> PostgresWatcher:  # type: ignore[override]
        return PostgresWatcher(self.dsn)

    # -- schema ---------------------------------------------------------------------
    def migrate(self) -> list[str]:
        """Create the schema at its latest version in a new database, or apply the later
        migrations it lacks; return the names applied. Servers starting together take
        turns (the write lock)."""
        try:
            conn = self._connect()
        except psycopg.OperationalError as e:
            raise RuntimeError(f"Can't reach the PostgreSQL database {self.path}: {e}".strip()) from None
        try:
            names = [m.name for m in migrations._migrations]
            if BASELINE not in names:  # pragma: no cover - a rename in store.py
                raise RuntimeError(f"store_pg.BASELINE names no migration: {BASELINE}")
            conn.raw.execute("BEGIN")
            conn.raw.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
            conn.execute(f"CREATE TABLE IF NOT EXISTS {MIGRATIONS_TABLE} (name TEXT PRIMARY KEY, applied_at TEXT)")
            applied = {r[0] for r in conn.execute(f"SELECT name FROM {MIGRATIONS_TABLE}")}
            pending = [n for n in names if n not in applied]
            now = datetime.now(timezone.utc).isoformat()
            if pending and not applied:
                for statement in SCHEMA:
                    conn.raw.execute(statement)
                baseline = names[: names.index(BASELINE) + 1]
                conn.executemany(f"INSERT INTO {MIGRATIONS_TABLE} VALUES (?, ?)", [(n, now) for n in baseline])
                pending_later = names[len(baseline) :]
            else:
                pending_later = pending
            for name in pending_later:
                if name not in LATER:
                    raise RuntimeError(f"Migration {name} has no PostgreSQL statements (store_pg.LATER)")
                LATER[name](conn)
                conn.execute(f"INSERT INTO {MIGRATIONS_TABLE} VALUES (?, ?)", (name, now))
            conn.execute("COMMIT")
            return pending
        except BaseException:
            _roll_back(conn)
            raise
        finally:
            conn.raw.close()

    def applied_migrations(self) -> list[str]:
        applied = {r[0] for r in self._conn().execute(f"SELECT name FROM {MIGRATIONS_TABLE}")}
        return [m.name for m in migrations._migrations if m.name in applied]

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

    def _select_all(self, table: str) -> str:
        columns = ", ".join(f'"{c}"' for c in self.schema()[table])
        return f"SELECT {columns} FROM {table} ORDER BY {_ORDER[table]}"

    def _foreign_key_problems(self, conn) -> list:
        return []  # PostgreSQL refused any such row as it was written

    def _after_copy(self, conn) -> None:
        conn.execute(
            "SELECT setval(pg_get_serial_sequence('players', 'id'), coalesce(max(id), 0) + 1, false) FROM players"
        )

    # -- backups ----------------------------------------------------------------------
    def _copy_to(self, target) -> None:
        """Every game into the new SQLite file ``target`` (a consistent read, each game's
        transcript compared). (``pg_dump`` backs up the database server itself.)"""
        from companion.store import copy_games

        copy = Store(target)
        try:
            copy_games(self, copy)
        finally:
            copy.close()

    def restore(self, source, keep_in=None) -> tuple[int, Path]:
        """Replace every game with those of the SQLite backup at ``source``, once a copy of
        it checks out (:func:`~companion.store.verified_copy`); what it replaces is kept
        first as an SQLite file in the folder ``keep_in``."""
        from companion.store import copy_games, verified_copy

        if keep_in is None:
            raise ValueError("A restore into PostgreSQL keeps the games it replaces in a folder: give keep_in")
        with tempfile.TemporaryDirectory(prefix="companion-restore-") as folder:
            copy, count = verified_copy(source, folder)
            kept = self.keep(keep_in, "restore")
            original = Store(copy)
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
