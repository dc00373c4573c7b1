"""Copies of the whole database, and the checks that guard them (issue 30): a backup into
an SQLite file, a restore, a whole-server export's rows, a copy between two databases.
Nothing is replaced before what replaces it checks out (:func:`verified_copy`,
:func:`check_games`), and what is replaced is kept first (``keep``)."""

from __future__ import annotations

import os
import sqlite3
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from companion.store import migrations
from companion.store.checks import _UNREADABLE, check_games, schema_difference
from companion.store.dialect import SQLITE
from companion.store.writes import Games

#: A row of a game's, in its game's order (:data:`Copies.ORDER`); ``{t}``: its table.
_BY_GAME = "(SELECT g.rowid FROM games g WHERE g.id = {t}.game_id)"


class Copies(Games):
    """Whole-database copies, on either backend (the backend says how it copies itself into
    an SQLite file: ``_copy_to``)."""

    #: The tables a whole-server export carries, parents first (the order rows are inserted).
    TABLES: tuple[str, ...] = (
        "players",
        "games",
        "seats",
        "moves",
        "referees",
        "links",
        "deals",
        "roster_changes",
        "corrections",
    )
    #: The order each table's rows are read in (:meth:`rows`), the same on either database
    #: (so two exports of one server's copies compare line by line): in the order written,
    #: by integers both databases keep alike (a game's rows by their game's ``rowid``, a
    #: column of its own on PostgreSQL), not by a game's id, which PostgreSQL may sort by
    #: its locale's collation (a link's time and hash, digits and small letters written
    #: alike, sort alike in any).
    ORDER: dict[str, str] = {
        "players": "id",
        "games": "rowid",
        "seats": f"{_BY_GAME.format(t='seats')}, seat",
        "moves": f"{_BY_GAME.format(t='moves')}, seq",
        "referees": "rowid",
        "links": f"{_BY_GAME.format(t='links')}, created, token_hash",
        "deals": f"{_BY_GAME.format(t='deals')}, n",
        "roster_changes": "id",
        "corrections": f"{_BY_GAME.format(t='corrections')}, version, seq",
    }

    def game_ids(self) -> list[str]:
        """Every game's id, oldest first."""
        return [r[0] for r in self._conn().execute("SELECT id FROM games ORDER BY created, id")]

    def held(self) -> dict[str, int]:
        """How many rows each exported table holds, those that hold any (a database that
        holds nothing: ``{}``): what a copy over it would replace."""
        with self._read() as conn:
            counts = {t: int(conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]) for t in self.TABLES}
        return {t: n for t, n in counts.items() if n}

    def applied_migrations(self) -> list[str]:
        return migrations.recorded(self._conn(), self.dialect)

    def rows(self) -> dict[str, list[dict]]:
        """Every row of every exported table, its exported columns, read in one transaction
        (a consistent copy), in :data:`ORDER`."""
        columns = self.schema()
        with self._read() as conn:
            return {t: [dict(r) for r in conn.execute(self._select_all(t, columns[t]))] for t in self.TABLES}

    def _select_all(self, table: str, columns: list[str]) -> str:
        quoted = ", ".join('"' + c + '"' for c in columns)
        return f"SELECT {quoted} FROM {table} ORDER BY {self.ORDER[table]}"

    def check(self) -> int:
        """Every game replays to the state it stores (:func:`check_games`), read in one
        transaction; the number of games, or ``ValueError`` naming the first that does not."""
        with self._read() as conn:
            return check_games(conn)

    def replace_rows(self, tables: dict[str, list[dict]], check) -> int:
        """Replace every exported table's rows with ``tables`` in one transaction; ``check``
        (called inside it, after the inserts) raises to refuse: then nothing is changed.
        Returns the number of games."""
        columns = self.schema()
        with self._write() as conn:
            for t in reversed(self.TABLES):
                conn.execute(f"DELETE FROM {t}")
            conn.execute("DELETE FROM totals")  # summed again from the seats written, whatever it held
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
            count = int(conn.execute("SELECT count(*) FROM games").fetchone()[0])
        self._states.drop()  # (another worker's keeps no entry of them that matches: states.py)
        return count

    def backup(self, target) -> int:
        """Copy the whole database to the new SQLite file ``target`` with SQLite's online
        backup, consistent and safe while other connections write, then check the copy as a
        restore would (:func:`verified_copy`); return its game count. ``ValueError`` if the
        copy does not check out: it is removed, and says why."""
        self._copy_to(target)
        _rollback_journal(target)
        try:
            with tempfile.TemporaryDirectory(prefix="companion-check-") as folder:
                return verified_copy(target, folder)[1]
        except ValueError:
            Path(target).unlink(missing_ok=True)
            raise

    def keep(self, folder, why: str) -> Path:
        """The database as it is now, kept in ``folder`` as a dated SQLite file before
        something replaces it (a restore, an import, a copy over it): its path, to undo that."""
        kept = Path(folder) / f"companion-before-{why}-{datetime.now(timezone.utc):%Y%m%dT%H%M%S%fZ}.db"
        self._copy_to(kept)
        _rollback_journal(kept)
        return kept


def _rollback_journal(path) -> None:
    """The SQLite file at ``path`` (a backup just written: a WAL database's copy says WAL)
    marked for a rollback journal, so reading it needs no ``-wal`` or ``-shm`` file beside
    it: it reads on a read-only disk, and an older version's restore reads it there too."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = DELETE")
    finally:
        conn.close()


def verified_copy(source, folder, page_size: int | None = None) -> tuple[Path, int]:
    """A checked copy of the SQLite file ``source`` (a backup), made in ``folder``. The
    backup is read, never written (:func:`_read_only`), into a first copy: there SQLite's
    integrity check and foreign-key check, this app's tables, migrations this version knows
    (those an older version lacked are applied to that copy), then its schema, which must be
    exactly this version's (:func:`~companion.store.checks.schema_difference`: no table,
    index, trigger or view more or less). Its rows are then written into a new database made
    by this version's migrations (so nothing of the backup's schema is installed, and the
    standings' totals are summed again by this version's triggers), where every game must
    replay and every seat and player check out (:func:`check_games`). Returns that new
    database's path and its game count; ``ValueError`` (no copy left) says what is wrong.
    ``page_size``: the new database's (SQLite's backup into a WAL database needs the same)."""
    read, copy = _new_file(folder), _new_file(folder)
    try:
        count = _check_copy(source, read, copy, page_size)
    except BaseException:
        _remove_database(copy)
        raise
    finally:
        _remove_database(read)
    return copy, count


def _new_file(folder) -> Path:
    fd, name = tempfile.mkstemp(prefix=".companion-check-", suffix=".db", dir=folder)
    os.close(fd)
    return Path(name)


def _check_copy(source, read: Path, copy: Path, page_size: int | None) -> int:
    what = f"{source} is not a backup of this app's games"
    if cut := _cut_short(source):
        raise ValueError(f"{source} is damaged: {cut}")
    try:
        original = _read_only(source)
        conn = sqlite3.connect(read, isolation_level=None)
        try:
            original.backup(conn)
        finally:
            original.close()
        try:
            if not {"games", "moves"} <= set(SQLITE.tables(conn)):
                raise ValueError(f"{what}: it has no table of games and moves")
            damage = [line for (r,) in conn.execute("PRAGMA integrity_check") for line in r.splitlines()]
            if damage != ["ok"]:
                found = next((line for line in damage if not line.startswith("***")), damage[0])
                raise ValueError(f"{source} is damaged: SQLite's integrity check says {found}")
            orphan = conn.execute("PRAGMA foreign_key_check").fetchone()
            if orphan is not None:
                raise ValueError(
                    f"{source} is damaged: row {orphan[1]} of {orphan[0]} refers to a missing {orphan[2]} row"
                )
            if migrations.recorded(conn, SQLITE)[:1] != migrations.known()[:1]:
                raise ValueError(f"{what}: it records none of this app's migrations")
            _migrate(conn, source)  # an older version's backup: its pending migrations, on the copy
            if difference := schema_difference(conn):
                raise ValueError(f"{what}: {difference}")
        finally:
            conn.close()
        return _rebuilt(read, copy, page_size)
    except migrations.NewerDatabase as e:
        raise ValueError(f"{source}: {e}") from None
    except sqlite3.DatabaseError as e:
        raise ValueError(f"{source} is damaged, or not this app's backup: SQLite says {e}") from None


def _cut_short(source) -> str | None:
    """What is missing of an SQLite file cut short (a download or a copy that stopped), or
    None. Its header says how many pages it has (when the header is current: its change
    counter is the one that count was written at); SQLite reads the missing end as zeros,
    which its integrity check does not notice where the last page held little (an empty
    table's)."""
    try:
        with open(source, "rb") as f:
            header = f.read(100)
            size = os.fstat(f.fileno()).st_size
    except OSError:
        return None  # said by SQLite, which opens it next
    if len(header) < 100 or not header.startswith(b"SQLite format 3\x00") or header[24:28] != header[92:96]:
        return None
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    if size < page_size * pages:
        return f"it is cut short ({size:,} bytes of its {page_size * pages:,})"
    return None


def backup_games(source) -> int:
    """How many games the SQLite file ``source`` (a backup) holds, read without writing
    (what a restore's question says it brings); ``ValueError`` if it can't tell: then it is
    no backup a restore would take."""
    try:
        conn = _read_only(source)
        try:
            if "games" not in SQLITE.tables(conn):
                raise ValueError(f"{source} is not a backup of this app's games: it has no table of games")
            return int(conn.execute("SELECT count(*) FROM games").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.DatabaseError as e:
        raise ValueError(f"{source} is damaged, or not this app's backup: SQLite says {e}") from None


def _read_only(source) -> sqlite3.Connection:
    """The SQLite file ``source`` opened so that nothing is written, beside it or in it: a
    backup (no log beside it) as ``immutable``, so SQLite takes no lock and makes no
    ``-wal`` or ``-shm`` file, and a read-only disk or folder reads as well; a database with
    a log beside it (in use, or not closed cleanly) read through that log, read-only."""
    path = Path(source).resolve()
    in_use = any(Path(f"{path}{log}").exists() for log in ("-wal", "-journal"))
    return sqlite3.connect(f"{path.as_uri()}?mode=ro{'' if in_use else '&immutable=1'}", uri=True)


def _migrate(conn, source) -> None:
    """The copy ``conn`` brought to this version, in one transaction (a migration replays
    the games as stored: a hand-edited one may not)."""
    conn.row_factory = sqlite3.Row
    conn.execute("BEGIN IMMEDIATE")
    try:
        migrations.migrate(conn, SQLITE)
    except (migrations.NewerDatabase, sqlite3.DatabaseError):
        raise
    except RecursionError:
        raise ValueError(f"{source} does not migrate to this version: its stored JSON is nested too deeply") from None
    except _UNREADABLE as e:
        raise ValueError(f"{source} does not migrate to this version: {e}") from None
    conn.execute("COMMIT")


def _rebuilt(read: Path, copy: Path, page_size: int | None) -> int:
    """The rows of the checked copy ``read`` written into ``copy``, a new database made by
    this version's migrations, in the order they were written; there every game replays and
    every seat and player checks out (:func:`check_games`). Returns the number of games."""
    conn = sqlite3.connect(copy, isolation_level=None)
    try:
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA page_size = {int(page_size or 4096)}")
        conn.execute("BEGIN IMMEDIATE")
        migrations.migrate(conn, SQLITE)
        conn.execute("COMMIT")
        conn.execute("ATTACH DATABASE ? AS backup", (str(read),))
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(f"DELETE FROM {migrations.TABLE}")
        for table in (migrations.TABLE, *Copies.TABLES):  # parents first; totals: summed by the triggers
            columns = ", ".join(f'"{r[1]}"' for r in conn.execute(f"PRAGMA main.table_info({table})"))
            conn.execute(f"INSERT INTO main.{table} ({columns}) SELECT {columns} FROM backup.{table} ORDER BY rowid")
        orphan = conn.execute("PRAGMA main.foreign_key_check").fetchone()
        if orphan is not None:
            raise ValueError(f"Row {orphan[1]} of {orphan[0]} refers to a missing {orphan[2]} row")
        count = check_games(conn)
        conn.execute("COMMIT")
        conn.execute("DETACH DATABASE backup")
        conn.execute("PRAGMA journal_mode = WAL")  # as the live database it may replace
        return count
    finally:
        conn.close()


def sqlite_schema(conn) -> dict[str, list[str]]:
    """Each exported table's columns, in order, in an SQLite database."""
    return {t: [r[1] for r in conn.execute(f"PRAGMA table_info({t})")] for t in Copies.TABLES}


def _remove_database(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def copy_games(source, target, replace: bool = False) -> int:
    """Every row of ``source`` written into ``target`` in one transaction of ``target``'s,
    then every game's transcript read back inside it and compared with the source's: any
    difference (or a ``target`` that holds any data, a player without games too, unless
    ``replace``) raises ``ValueError`` and leaves ``target`` as it was. Returns the number
    of games copied."""
    if source.applied_migrations() != target.applied_migrations():
        raise ValueError("The two databases are at different schema versions: open both with this version first")
    if not replace and (held := target.held()):
        rows = ", ".join(f"{n} row(s) of {table}" for table, n in held.items())
        raise ValueError(f"{target.url} already has data ({rows}): nothing was copied (--replace replaces it)")
    tables = source.rows()  # one read transaction: the source should not be serving meanwhile
    expected = {row["id"]: source.transcript(row["id"]) for row in tables["games"]}

    def same_transcripts(store, conn) -> None:
        for game_id, transcript in expected.items():
            if store._transcript(conn, game_id) != transcript:
                raise ValueError(f"Game {game_id}'s transcript differs after the copy: nothing was copied")
        check_games(conn)  # and every game replays in the copy as in a restore

    return target.replace_rows(tables, same_transcripts)
