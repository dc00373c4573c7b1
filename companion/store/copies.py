"""Copies of the whole database, and the checks that guard them (issue 30): a backup into
an SQLite file, a restore, a whole-server export's rows, a copy between two databases.
Nothing is replaced before what replaces it checks out (:func:`verified_copy`,
:func:`check_games`), and what is replaced is kept first (``keep``)."""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path

from companion import games
from companion.store import migrations
from companion.store.dialect import SQLITE
from companion.store.rows import _GAME_COLUMNS, _dump_state, _finished_deals, _load_state
from companion.store.writes import Games


class Copies(Games):
    """Whole-database copies, on either backend (the backend says how it copies itself into
    an SQLite file: ``_copy_to``)."""

    #: The tables a whole-server export carries, parents first (the order rows are inserted).
    TABLES: tuple[str, ...] = ("players", "games", "seats", "moves", "referees", "links", "deals", "roster_changes")

    def game_ids(self) -> list[str]:
        """Every game's id, oldest first."""
        return [r[0] for r in self._conn().execute("SELECT id FROM games ORDER BY created, id")]

    def applied_migrations(self) -> list[str]:
        return migrations.recorded(self._conn(), self.dialect)

    def rows(self) -> dict[str, list[dict]]:
        """Every row of every exported table, read in one transaction (a consistent copy)."""
        with self._read() as conn:
            return {t: [dict(r) for r in conn.execute(self._select_all(t))] for t in self.TABLES}

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
        return kept


def check_games(conn) -> int:
    """Every game on ``conn`` (either database, inside a transaction of the caller's) is as
    its move log says: moves numbered 1, 2, ...; its version its moves and undos; its moves
    in effect replayed by its engine from the start give exactly the state it stores, with
    its finished deals. Returns the number of games; ``ValueError`` names the first game
    that is not (a damaged or hand-edited database)."""
    rows = conn.execute(f"SELECT {_GAME_COLUMNS} FROM games ORDER BY created, id").fetchall()
    for row in rows:
        game_id = row["id"]
        if row["game"] not in games.GAMES:
            raise ValueError(f"Game {game_id} is of a game this version does not know ({row['game']!r})")
        rules = games.get(row["game"])
        moves = conn.execute(
            "SELECT seq, move, undone FROM moves WHERE game_id = ? ORDER BY seq", (game_id,)
        ).fetchall()
        if [m["seq"] for m in moves] != list(range(1, len(moves) + 1)):
            raise ValueError(f"Game {game_id}'s moves are not numbered 1 to {len(moves)}")
        undos = sum(1 for m in moves if m["undone"])
        if row["version"] != len(moves) + undos:
            raise ValueError(
                f"Game {game_id} is at version {row['version']}, not its {len(moves)} moves and {undos} undos"
            )
        try:
            state = rules.start(json.loads(row["players"]), json.loads(row["options"]))
            for m in moves:
                if not m["undone"]:
                    state = rules.apply(state, json.loads(m["move"]))
            stored = {**_load_state(row["state"]), "history": _finished_deals(conn, game_id)}
            # Read as the engine reads it: an option added since the game was stored takes
            # its default there (its dataclass field's), so the two states compare alike.
            stored = _load_state(_dump_state(rules.dump(rules.load(stored))))
        except (ValueError, TypeError, KeyError) as e:
            raise ValueError(f"Game {game_id} does not replay: {e}") from None
        if row["deals"] != len(stored["history"]) or _load_state(_dump_state(rules.dump(state))) != stored:
            raise ValueError(f"Game {game_id} does not replay to the state it stores")
    return len(rows)


def verified_copy(source, folder, page_size: int | None = None) -> tuple[Path, int]:
    """A checked copy of the SQLite file ``source`` (a backup), made in ``folder``: SQLite's
    own copy of it (the file itself is never written), then on the copy SQLite's integrity
    check and foreign-key check, this app's tables, migrations this version knows (those an
    older version lacked are applied to the copy), the schema of this version, and every
    game replaying to its stored state (:func:`check_games`). Returns the copy's path and
    its game count; ``ValueError`` (the copy removed) says what is wrong. ``page_size``:
    the copy's pages are made that size (SQLite's backup into a WAL database needs it)."""
    fd, name = tempfile.mkstemp(prefix=".companion-check-", suffix=".db", dir=folder)
    os.close(fd)
    copy = Path(name)
    try:
        count = _check_copy(source, copy, page_size)
    except BaseException:
        _remove_database(copy)
        raise
    return copy, count


def _check_copy(source, copy: Path, page_size: int | None) -> int:
    what = f"{source} is not a backup of this app's games"
    try:
        original = sqlite3.connect(f"file:{Path(source).resolve()}?mode=ro", uri=True)
        conn = sqlite3.connect(copy, isolation_level=None)
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
            if page_size and conn.execute("PRAGMA page_size").fetchone()[0] != page_size:
                conn.execute("PRAGMA journal_mode = DELETE")
                conn.execute(f"PRAGMA page_size = {int(page_size)}")
                conn.execute("VACUUM")
            conn.row_factory = sqlite3.Row
            conn.execute("BEGIN IMMEDIATE")
            migrations.migrate(conn, SQLITE)  # an older version's backup: its pending migrations, on the copy
            if sqlite_schema(conn) != _fresh_schema():
                raise ValueError(f"{what}: its tables are not this version's")
            count = check_games(conn)
            conn.execute("COMMIT")
            conn.execute("PRAGMA journal_mode = WAL")  # as the live database it may replace
            return count
        finally:
            conn.close()
    except migrations.NewerDatabase as e:
        raise ValueError(f"{source}: {e}") from None
    except sqlite3.DatabaseError as e:
        raise ValueError(f"{source} is damaged, or not this app's backup: SQLite says {e}") from None


def sqlite_schema(conn) -> dict[str, list[str]]:
    """Each exported table's columns, in order, in an SQLite database."""
    return {t: [r[1] for r in conn.execute(f"PRAGMA table_info({t})")] for t in Copies.TABLES}


@lru_cache(maxsize=1)
def _fresh_schema() -> dict[str, list[str]]:
    """Each exported table's columns in an SQLite database this version makes."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        migrations.migrate(conn, SQLITE)
        return sqlite_schema(conn)
    finally:
        conn.close()


def _remove_database(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def copy_games(source, target, replace: bool = False) -> int:
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

    def same_transcripts(store, conn) -> None:
        for game_id, transcript in expected.items():
            if store._transcript(conn, game_id) != transcript:
                raise ValueError(f"Game {game_id}'s transcript differs after the copy: nothing was copied")
        check_games(conn)  # and every game replays in the copy as in a restore

    return target.replace_rows(tables, same_transcripts)
