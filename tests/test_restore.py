"""A restore never makes things worse (issue 30): a damaged backup, another app's file, a
newer version's or a hand-edited one is refused before anything is replaced, with a clear
message and exit 1, the live database untouched; a good restore keeps the database it
replaces beside it (so the restore itself can be undone). `flask backup` checks what it
wrote, and `flask db copy` and `flask import` are guarded by the same checks."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from companion import games, names, stats
from companion.store import SqliteStore, check_games
from tests.test_backup import app_in, everything, play_samples


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> tuple[bytes, dict]:
    """A game of each kind played once for the module, backed up: the backup's bytes and
    each game's edit key."""
    folder = tmp_path_factory.mktemp("played")
    app = app_in(folder / "club")
    keys = play_samples(app.test_client())
    answer = app.test_cli_runner().invoke(args=["backup", str(folder / "backup.db")])
    assert answer.exit_code == 0, answer.output
    app.extensions["store"].close()
    return (folder / "backup.db").read_bytes(), keys


@pytest.fixture
def club(played, tmp_path):
    """A club's server with a game of each kind, its backup, and what every game reads
    (the server's database starts as that backup: the same games, keys and players)."""
    data, keys = played
    backup = tmp_path / "backup.db"
    backup.write_bytes(data)
    (tmp_path / "club").mkdir()
    (tmp_path / "club" / "c.db").write_bytes(data)
    return app_in(tmp_path / "club"), dict(keys), backup


def live(app) -> tuple[bytes, list]:
    """The live database's every row and its integrity: what a refused restore must leave."""
    path = app.config["DATABASE"]
    with sqlite3.connect(path) as db:
        rows = [
            repr(db.execute(f"SELECT * FROM [{t}] ORDER BY rowid").fetchall())
            for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        ]
        return db.execute("PRAGMA integrity_check").fetchone()[0], rows


def damaged(backup: Path, tmp_path: Path, how: str) -> Path:
    """A copy of ``backup`` spoiled as a disk, a cut-short download or a wrong file would."""
    data = bytearray(backup.read_bytes())
    if how == "cut short by 1,000 bytes":
        data = data[:-1000]
    elif how == "200 bytes flipped":  # the last of the middle page: where its cells are, not its free space
        end = (len(data) // 2 // 4096 + 1) * 4096
        for i in range(end - 200, end):
            data[i] ^= 0xFF
    elif how == "64 KiB zeroed":
        data[4096 : 4096 + 65536] = bytes(min(65536, len(data) - 4096))
    elif how == "a table page's header flipped":
        for i in range(4096, 4096 + 200):
            data[i] ^= 0xFF
    spoiled = tmp_path / f"{how.replace(' ', '-')}.db"
    spoiled.write_bytes(bytes(data))
    return spoiled


DAMAGE = ["cut short by 1,000 bytes", "200 bytes flipped", "64 KiB zeroed", "a table page's header flipped"]


@pytest.mark.parametrize("how", DAMAGE)
def test_a_damaged_backup_is_refused_and_the_games_stay(club, tmp_path, how):
    app, keys, backup = club
    assert len(backup.read_bytes()) > 4096 + 65536  # the damage lands inside the file
    spoiled = damaged(backup, tmp_path, how)
    before, pages = live(app), everything(app.test_client(), keys)
    answer = app.test_cli_runner().invoke(args=["restore", "--yes", str(spoiled)])
    assert answer.exit_code == 1, answer.output
    assert "Nothing was changed" in answer.output and "Restored" not in answer.output
    assert re.search(r"damaged|not a backup|does not replay|not numbered|version", answer.output), answer.output
    assert live(app) == before and before[0] == "ok"
    assert everything(app.test_client(), keys) == pages
    folder = Path(app.config["DATABASE"]).parent
    assert sorted(p.name for p in folder.iterdir() if p.suffix == ".db") == ["c.db"]  # no copy left, none kept


def another_apps_file(path: Path, tables: str) -> Path:
    with sqlite3.connect(path) as db:
        db.executescript(tables)
    return path


def edited(backup: Path, tmp_path: Path, sql: str) -> Path:
    """The backup with one row changed by hand (a tool that edits SQLite files, a bug)."""
    copy = tmp_path / "edited.db"
    copy.write_bytes(backup.read_bytes())
    with sqlite3.connect(copy) as db:
        db.execute(sql)
    return copy


@pytest.mark.parametrize(
    "make, said",
    [
        (lambda t, b: another_apps_file(t / "notes.db", "CREATE TABLE notes (body TEXT);"), "not a backup"),
        (
            lambda t, b: another_apps_file(
                t / "shop.db",
                "CREATE TABLE games (sku TEXT); CREATE TABLE moves (sku TEXT); CREATE TABLE _sqlite_migrations "
                "(id INTEGER PRIMARY KEY, migration_set TEXT, name TEXT, applied_at TEXT);",
            ),
            "not a backup",
        ),
        (
            lambda t, b: edited(
                b, t, "INSERT INTO companion_migrations (name, applied_at) VALUES ('m999_from_the_future', '')"
            ),
            "newer version",
        ),
        (lambda t, b: edited(b, t, "UPDATE games SET version = version + 1"), "version"),
        (lambda t, b: edited(b, t, "UPDATE moves SET undone = 1 - undone WHERE seq = 1"), "version"),
        (lambda t, b: edited(b, t, "UPDATE games SET state = replace(state, '\"Ann\"', '\"Zoe\"')"), "does not replay"),
        (
            lambda t, b: edited(b, t, 'UPDATE moves SET move = \'{"type": "nonsense"}\' WHERE seq = 1'),
            "does not replay",
        ),
        (lambda t, b: edited(b, t, "UPDATE games SET deals = deals + 1"), "does not replay"),
    ],
)
def test_a_file_that_is_not_this_apps_backup_is_refused(club, tmp_path, make, said):
    app, keys, backup = club
    spoiled = make(tmp_path, backup)
    before = live(app)
    answer = app.test_cli_runner().invoke(args=["restore", "--yes", str(spoiled)])
    assert answer.exit_code == 1 and said in answer.output and "Nothing was changed" in answer.output, answer.output
    assert live(app) == before


def test_a_restore_keeps_what_it_replaced_and_can_be_undone(club, tmp_path):
    app, keys, backup = club
    client = app.test_client()
    restored = everything(client, keys)
    later = client.post("/api/games", json={"game": "tute", "players": ["Ann", "Ben", "Cat"]}).get_json()
    replaced = everything(client, [*keys, later["id"]])
    answer = app.test_cli_runner().invoke(args=["restore", "--yes", str(backup)])
    assert answer.exit_code == 0, answer.output
    kept = Path(re.search(r"kept in (\S+) \(", answer.output).group(1))
    assert kept.parent == Path(app.config["DATABASE"]).parent and kept.name.startswith("companion-before-restore-")
    assert everything(client, keys) == restored and client.get(f"/api/games/{later['id']}").status_code == 404
    undo = app.test_cli_runner().invoke(args=["restore", "--yes", str(kept)])
    assert undo.exit_code == 0, undo.output
    assert everything(client, [*keys, later["id"]]) == replaced


def test_an_older_versions_backup_is_migrated_on_a_copy_never_in_place(club, tmp_path):
    """A backup lacking the latest migration restores (migrated on a copy) and the file
    itself is left as it was."""
    app, keys, backup = club
    old = tmp_path / "old.db"
    old.write_bytes(backup.read_bytes())
    with sqlite3.connect(old) as db:
        db.execute("DROP INDEX players_by_key")
        db.execute("DROP INDEX seats_one_per_player")
        db.execute("DROP TABLE roster_changes")
        db.execute("ALTER TABLE players DROP COLUMN name_key")
        db.execute("CREATE UNIQUE INDEX players_by_name ON players (name COLLATE NOCASE)")
        db.execute("DELETE FROM companion_migrations WHERE name = 'm015_one_person_one_name'")
    untouched = old.read_bytes()
    answer = app.test_cli_runner().invoke(args=["restore", "--yes", str(old)])
    assert answer.exit_code == 0, answer.output
    assert old.read_bytes() == untouched
    assert everything(app.test_client(), keys)


def test_a_backup_checks_what_it_wrote(club, tmp_path):
    """A live database with a game that no longer replays (edited by hand) gives no backup
    that would be refused later: `flask backup` says so and leaves no file."""
    app, keys, backup = club
    with sqlite3.connect(app.config["DATABASE"]) as db:
        db.execute("UPDATE games SET version = version + 5 WHERE rowid = 1")
    target = tmp_path / "new-backup.db"
    answer = app.test_cli_runner().invoke(args=["backup", str(target)])
    assert answer.exit_code == 1 and "did not check out" in answer.output and "version" in answer.output
    assert not target.exists()


@pytest.mark.parametrize("how", DAMAGE[:2])
def test_db_copy_refuses_a_damaged_source(club, tmp_path, how):
    app, keys, backup = club
    spoiled = damaged(backup, tmp_path, how)
    target = tmp_path / "target.db"
    answer = app.test_cli_runner().invoke(
        args=["db", "copy", "--from", f"sqlite:///{spoiled}", "--to", f"sqlite:///{target}"]
    )
    assert answer.exit_code == 1 and "Nothing was copied" in answer.output, answer.output
    assert not target.exists() or SqliteStore(target).game_ids() == []


def test_db_copy_over_games_keeps_them(club, tmp_path):
    app, keys, backup = club
    target = tmp_path / "target.db"
    other = SqliteStore(target)
    other.create("tute", ["Ann", "Ben", "Cat"])
    other.close()
    answer = app.test_cli_runner().invoke(
        args=["db", "copy", "--from", f"sqlite:///{backup}", "--to", f"sqlite:///{target}", "--replace"]
    )
    assert answer.exit_code == 0, answer.output
    kept = Path(re.search(r"kept in (\S+)\.$", answer.output.strip()).group(1))
    assert kept.parent == tmp_path and len(SqliteStore(kept).game_ids()) == 1
    assert sorted(SqliteStore(target).game_ids()) == sorted(keys)


def test_flask_import_keeps_what_it_replaced(club, tmp_path):
    app, keys, backup = club
    export = tmp_path / "all.json"
    assert app.test_cli_runner().invoke(args=["export", "--json", str(export)]).exit_code == 0
    answer = app.test_cli_runner().invoke(args=["import", "--yes", str(export)])
    assert answer.exit_code == 0, answer.output
    kept = Path(re.search(r"kept in (\S+) \(", answer.output).group(1))
    assert sorted(SqliteStore(kept).game_ids()) == sorted(keys)


def test_check_games_passes_every_sample(club):
    app, keys, backup = club
    conn = sqlite3.connect(app.config["DATABASE"])
    conn.row_factory = sqlite3.Row
    assert check_games(conn) == len(keys) == 4
    conn.close()
    json.dumps(keys)


@pytest.mark.postgres
def test_a_damaged_backup_is_refused_on_postgresql(club, tmp_path, pg_url):
    from companion.store import open_store

    app, keys, backup = club
    store = open_store(pg_url)
    try:
        store.create("tute", ["Ann", "Ben", "Cat"])
        before = store.rows()
        kept_folder = tmp_path / "kept"
        kept_folder.mkdir()
        with pytest.raises(ValueError, match="damaged"):
            store.restore(damaged(backup, tmp_path, "64 KiB zeroed"), keep_in=kept_folder)
        assert store.rows() == before and list(kept_folder.iterdir()) == []
    finally:
        store.close()


def tampered(backup: Path, tmp_path: Path, script: str, name: str = "tampered.db") -> Path:
    """The backup with its schema or rows changed by a script, as sqlite3 on the command line would."""
    copy = tmp_path / name
    copy.write_bytes(backup.read_bytes())
    db = sqlite3.connect(copy, isolation_level=None)
    try:
        db.executescript(script)
    finally:
        db.close()
    return copy


TABLANETTE_SEAT_0 = "seat = 0 AND game_id = (SELECT id FROM games WHERE game = 'tablanette')"

#: A backup's schema or data changed by hand, and a word of what the refusal says.
TAMPERED = {
    "an extra trigger": (
        "CREATE TRIGGER evil AFTER INSERT ON moves BEGIN DELETE FROM deals; UPDATE players SET name = 'pwned'; END;",
        "trigger evil",
    ),
    "the totals triggers dropped": (
        "DROP TRIGGER seats_add_totals; DROP TRIGGER seats_remove_totals; DROP TRIGGER seats_change_totals;",
        "seats_add_totals is missing",
    ),
    "every name made Ann": ("DROP INDEX players_by_key; UPDATE players SET name = 'Ann';", "players_by_key is missing"),
    "seats without foreign keys, and an orphan seat": (
        "CREATE TABLE loose AS SELECT * FROM seats; DROP TABLE seats; ALTER TABLE loose RENAME TO seats; "
        "INSERT INTO seats (game_id, seat, player_id, side) VALUES ('ghost', 0, 424242, 'x');",
        "seats",
    ),
    "a seat given to a player of another game": (
        f"UPDATE seats SET player_id = (SELECT id FROM players WHERE name = 'Wes') WHERE {TABLANETTE_SEAT_0};",
        "not one of its players",
    ),
    "an unrelated table": ("CREATE TABLE notes (body TEXT);", "table notes"),
    "a name that is not its key's": ("UPDATE players SET name = 'Zoe' WHERE name = 'Wes';", "key"),
    "a move nested 100,000 deep": (
        f"UPDATE moves SET move = '{'[' * 100_000}{']' * 100_000}' WHERE seq = 1;",
        "nested too deeply",
    ),
    "a move's words nested 100,000 deep": (
        f"UPDATE moves SET said = '{'[' * 100_000}{']' * 100_000}' WHERE seq = 1;",
        "nested too deeply",
    ),
    "a move's words without their text": ("""UPDATE moves SET said = '[{"code": "x"}]' WHERE seq = 1;""", "text"),
    "a snapshot without its state": ("""UPDATE moves SET snapshot = '{"deals": 0}' WHERE seq = 1;""", "state"),
}


@pytest.mark.parametrize("how", TAMPERED)
def test_a_backup_edited_by_hand_is_refused(club, tmp_path, how):
    """Nothing of a backup's schema but this version's own, and no data the schema can't
    check (names and their keys, seats and players), reaches the live database."""
    app, keys, backup = club
    script, said = TAMPERED[how]
    spoiled = tampered(backup, tmp_path, script)
    before = live(app)
    answer = app.test_cli_runner().invoke(args=["restore", "--yes", str(spoiled)])
    assert answer.exit_code == 1 and "Nothing was changed" in answer.output, answer.output
    assert said in answer.output and "Traceback" not in answer.output, answer.output
    assert live(app) == before
    folder = Path(app.config["DATABASE"]).parent
    assert sorted(p.name for p in folder.iterdir() if p.suffix == ".db") == ["c.db"]  # no copy left, none kept


def test_db_copy_refuses_a_source_edited_by_hand(club, tmp_path):
    app, keys, backup = club
    spoiled = tampered(backup, tmp_path, TAMPERED["an extra trigger"][0])
    target = tmp_path / "target.db"
    answer = app.test_cli_runner().invoke(
        args=["db", "copy", "--from", f"sqlite:///{spoiled}", "--to", f"sqlite:///{target}"]
    )
    assert answer.exit_code == 1 and "trigger evil" in answer.output and "Nothing was copied" in answer.output
    assert SqliteStore(target).game_ids() == []


def sqlite_master(path) -> list:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").fetchall()


def test_an_older_versions_backup_restores_with_this_versions_schema(club, tmp_path):
    """tests/data/before-issue-30.db wrote its tables with sqlite-utils (other quotes,
    ``DEFAULT '0'``) and its totals triggers in other words: it restores, and the live
    database then has exactly the schema this version makes (its rows, in this version's
    tables), with the standings it had."""
    app, keys, backup = club
    old = tmp_path / "old.db"
    old.write_bytes((Path(__file__).parent / "data" / "before-issue-30.db").read_bytes())
    (tmp_path / "in-place.db").write_bytes(old.read_bytes())
    in_place = SqliteStore(tmp_path / "in-place.db")  # the same file migrated as a server would
    standings = in_place.query("SELECT * FROM totals ORDER BY game, player_id")
    answer = app.test_cli_runner().invoke(args=["restore", "--yes", str(old)])
    assert answer.exit_code == 0 and "Restored 7 game(s)" in answer.output, answer.output
    fresh = SqliteStore(tmp_path / "fresh.db")
    assert sqlite_master(app.config["DATABASE"]) == sqlite_master(fresh.path)
    store = app.extensions["store"]
    assert [tuple(r) for r in store.query("SELECT * FROM totals ORDER BY game, player_id")] == [
        tuple(r) for r in standings
    ]


def test_a_backup_is_read_without_writing_beside_it(club, tmp_path):
    """A backup (here one as versions before this one wrote it, marked for WAL) is read,
    never written: restore, db copy and backup's own check leave no -wal or -shm file beside
    it, and its bytes as they were."""
    app, keys, backup = club
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    marked = shelf / "wal-marked.db"
    marked.write_bytes(backup.read_bytes())
    with sqlite3.connect(marked) as db:
        assert db.execute("PRAGMA journal_mode = WAL").fetchone()[0] == "wal"
    db.close()
    assert sorted(p.name for p in shelf.iterdir()) == ["wal-marked.db"]
    untouched = marked.read_bytes()
    runner = app.test_cli_runner()
    assert runner.invoke(args=["restore", "--yes", str(marked)]).exit_code == 0
    copied = runner.invoke(
        args=["db", "copy", "--from", f"sqlite:///{marked}", "--to", f"sqlite:///{tmp_path / 't.db'}"]
    )
    assert copied.exit_code == 0, copied.output
    assert sorted(p.name for p in shelf.iterdir()) == ["wal-marked.db"] and marked.read_bytes() == untouched
    made = runner.invoke(args=["backup", str(shelf / "new.db")])
    assert made.exit_code == 0, made.output
    assert sorted(p.name for p in shelf.iterdir()) == ["new.db", "wal-marked.db"]
    assert (shelf / "new.db").read_bytes()[18:20] == b"\x01\x01"  # a rollback journal: no -wal, -shm to read it


def test_a_backup_on_read_only_storage_checks_out(club, tmp_path):
    """A backup in a folder nobody may write (a read-only disk) checks out: read by a
    process that may not write there (as root: one without the capability to override
    permissions), in another folder."""
    app, keys, backup = club
    shelf, work = tmp_path / "shelf", tmp_path / "work"
    shelf.mkdir()
    work.mkdir()
    stored = shelf / "backup.db"
    stored.write_bytes(backup.read_bytes())
    with sqlite3.connect(stored) as db:  # as the versions before this one wrote a backup
        db.execute("PRAGMA journal_mode = WAL")
    db.close()
    shelf.chmod(0o555)
    # Root writes anywhere: then the check runs without the capabilities that allow it.
    prefix = ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner", "--"] if os.geteuid() == 0 else []
    try:
        probe = subprocess.run([*prefix, "touch", str(shelf / "probe")], capture_output=True)
        command = [*prefix, sys.executable, "-c", CHECK, str(stored), str(work)]
        done = subprocess.run(command, capture_output=True, text=True, cwd=Path(__file__).parent.parent, timeout=120)
    finally:
        shelf.chmod(0o755)
    assert probe.returncode != 0  # the folder is read-only to that process
    assert done.returncode == 0 and done.stdout.split() == ["4"], done.stderr
    assert sorted(p.name for p in shelf.iterdir()) == ["backup.db"]


CHECK = "import sys; from companion.store import verified_copy; print(verified_copy(sys.argv[1], sys.argv[2])[1])"


def test_renames_and_merges_restore_and_import(club, tmp_path):
    """A seat whose player was renamed, merged into another, or merged and taken back
    (into a new player of the same name) is still its game's: the backup restores, the
    export imports."""
    app, keys, backup = club
    store = app.extensions["store"]
    ids = {p["name"]: p["id"] for p in store.roster()}
    store.rename_player(ids["Eve"], "Evie")
    merge = store.merge_players(ids["Eve"], ids["Ben"])
    client = app.test_client()
    assert client.post("/api/games", json={"game": "tablanette", "players": ["Evie", "Cat"]}).status_code == 201
    store.undo_merge(merge)  # Eve's games go to the new Evie
    store.rename_player(ids["Ann"], "Anne")
    runner = app.test_cli_runner()
    again = tmp_path / "again.db"
    assert runner.invoke(args=["backup", str(again)]).exit_code == 0
    answer = runner.invoke(args=["restore", "--yes", str(again)])
    assert answer.exit_code == 0 and "Restored 5 game(s)" in answer.output, answer.output
    export = tmp_path / "all.json"
    assert runner.invoke(args=["export", "--json", str(export)]).exit_code == 0
    answer = runner.invoke(args=["import", "--yes", str(export)])
    assert answer.exit_code == 0, answer.output


def nested(depth: int = 100_000) -> str:
    return "[" * depth + "]" * depth


def with_player(name: str):
    """An export's first player renamed by hand, its key made to match (so only the name's own check can refuse it)."""

    def edit(tables):
        tables["players"][0].update(name=name, name_key=names.key(name))

    return edit


def seat_to_stranger(tables):
    game = next(g for g in tables["games"] if g["game"] == "tablanette")
    seated = {s["player_id"] for s in tables["seats"] if s["game_id"] == game["id"]}
    seat = next(s for s in tables["seats"] if s["game_id"] == game["id"] and s["seat"] == 0)
    seat["player_id"] = next(p["id"] for p in tables["players"] if p["id"] not in seated)


def every_name_ann(tables):
    for player in tables["players"]:
        player["name"] = "Ann"


#: An export edited by hand, and a word of what the refusal says.
EDITED_EXPORTS = {
    "a name 10,000 characters long": (with_player("A" * 10_000), "longer than 24"),
    "a zero-width space in a name": (with_player("A\u200bnn"), "U+200B"),
    "every player named Ann": (every_name_ann, "key"),
    "a seat given to a player of another game": (seat_to_stranger, "not one of its players"),
    "a move nested 100,000 deep": (lambda t: t["moves"][0].update(move=nested()), "nested too deeply"),
    "options nested 100,000 deep": (lambda t: t["games"][0].update(options=nested()), "nested too deeply"),
}


def imported(app, path: Path):
    """`flask import --yes` of ``path``, and the files kept beside the database after it."""
    answer = app.test_cli_runner().invoke(args=["import", "--yes", str(path)])
    folder = Path(app.config["DATABASE"]).parent
    return answer, sorted(p.name for p in folder.iterdir() if p.suffix == ".db")


@pytest.mark.parametrize("how", EDITED_EXPORTS)
def test_an_export_edited_by_hand_is_refused(club, tmp_path, how):
    app, keys, backup = club
    edit, said = EDITED_EXPORTS[how]
    export = tmp_path / "all.json"
    assert app.test_cli_runner().invoke(args=["export", "--json", str(export)]).exit_code == 0
    data = json.loads(export.read_text(encoding="utf-8"))
    edit(data["tables"])
    export.write_text(json.dumps(data), encoding="utf-8")
    before = live(app)
    answer, files = imported(app, export)
    assert answer.exit_code == 1 and "Nothing was changed" in answer.output, answer.output
    assert said in answer.output and "Traceback" not in answer.output, answer.output
    assert live(app) == before and files == ["c.db"]  # nothing kept, nothing left behind


def test_a_file_of_nested_arrays_is_refused_by_import(club, tmp_path):
    app, keys, backup = club
    deep = tmp_path / "deep.json"
    deep.write_text(nested(), encoding="utf-8")
    before = live(app)
    answer, files = imported(app, deep)
    assert answer.exit_code == 1 and "nested too deeply" in answer.output, answer.output
    assert live(app) == before and files == ["c.db"]


def test_an_import_that_fails_unforeseen_leaves_nothing_behind(club, tmp_path, monkeypatch):
    """Whatever stops an import (here an error no check foresaw), the copy kept before it
    goes, as nothing was replaced."""
    from companion import export as exporting

    app, keys, backup = club
    path = tmp_path / "all.json"
    assert app.test_cli_runner().invoke(args=["export", "--json", str(path)]).exit_code == 0

    def broken(store, data):
        raise MemoryError("out of memory")

    monkeypatch.setattr(exporting, "load", broken)
    answer, files = imported(app, path)
    assert answer.exit_code != 0 and files == ["c.db"]


@pytest.mark.postgres
def test_db_copy_checks_players_and_seats_on_postgresql(club, tmp_path, pg_url):
    """The data checks hold on PostgreSQL as a source: a seat given to a stranger there is
    refused, and nothing is copied out of it."""
    from companion.store import open_store

    app, keys, backup = club
    runner = app.test_cli_runner()
    done = runner.invoke(args=["db", "copy", "--from", f"sqlite:///{backup}", "--to", pg_url])
    assert done.exit_code == 0, done.output
    store = open_store(pg_url)
    try:
        with store._write() as conn:
            conn.execute(
                f"UPDATE seats SET player_id = (SELECT id FROM players WHERE name = 'Wes') WHERE {TABLANETTE_SEAT_0}"
            )
    finally:
        store.close()
    target = tmp_path / "back.db"
    answer = runner.invoke(args=["db", "copy", "--from", pg_url, "--to", f"sqlite:///{target}"])
    assert answer.exit_code == 1 and "not one of its players" in answer.output, answer.output
    assert "Nothing was copied" in answer.output and SqliteStore(target).game_ids() == []


# -- what a restore or an import works out again (issue 44) ------------------------------


@pytest.fixture(scope="module")
def scored(tmp_path_factory) -> bytes:
    """A backup whose games have finished deals and figures to check: a 100 game of 35
    tallied hands (a snapshot at move 32), one over (Dan won), and one whose deals the other
    side confirms (2 of its 3 confirmed)."""
    folder = tmp_path_factory.mktemp("scored")
    app = app_in(folder / "club")
    store = app.extensions["store"]
    long, key = store.create("hundred", ["Ann", "Ben"], {"match_format": "loss_tally", "hands": 40})
    for version in range(35):
        store.play(long["id"], version, {"type": "tally", "loser": ["Ann", "Ben", "Ben"][version % 3]}, key)
    over, key = store.create("hundred", ["Cat", "Dan"])
    for version in range(3):
        store.play(over["id"], version, {"type": "tally", "loser": "Cat"}, key)
    confirmed, key = store.create("hundred", ["Eve", "Fay"])
    store.make_link(confirmed["id"], "confirm")
    for version, loser in enumerate(["Eve", "Eve"]):
        store.play(confirmed["id"], version, {"type": "tally", "loser": loser}, key)
    assert store.confirm(confirmed["id"], 2) == 2
    store.play(confirmed["id"], 2, {"type": "tally", "loser": "Fay"}, key)
    answer = app.test_cli_runner().invoke(args=["backup", str(folder / "backup.db")])
    assert answer.exit_code == 0, answer.output
    store.close()
    return (folder / "backup.db").read_bytes()


@pytest.fixture
def scored_club(scored, tmp_path):
    """A club's server started from the ``scored`` backup, and that backup."""
    backup = tmp_path / "scored.db"
    backup.write_bytes(scored)
    (tmp_path / "club").mkdir()
    (tmp_path / "club" / "c.db").write_bytes(scored)
    return app_in(tmp_path / "club"), backup


#: Which game a column is spoiled in: the one over, the long one, the confirmed one.
OVER = "(SELECT id FROM games WHERE players LIKE '%Dan%')"
LONG = "(SELECT id FROM games WHERE players LIKE '%Ann%')"
CONFIRMED = "(SELECT id FROM games WHERE players LIKE '%Eve%')"

#: Every column worked out from the move log: (table, column, which row, what the refusal names).
DERIVED = [
    ("games", "finished", f"id = {OVER}", "finished"),
    ("games", "status", f"id = {OVER}", "status"),
    ("games", "status", f"id = {LONG}", "status"),
    ("games", "deals", f"id = {LONG}", "does not replay"),
    ("games", "version", f"id = {LONG}", "version"),
    ("games", "state", f"id = {LONG}", "replay"),
    ("games", "confirmed", f"id = {CONFIRMED}", "seat 0's deals"),  # 2 confirmed -> 3: the seats count 2
    ("seats", "side", f"game_id = {OVER} AND seat = 0", "seat 0's side"),
    ("seats", "won", f"game_id = {OVER} AND seat = 0", "seat 0's won"),
    ("seats", "draw", f"game_id = {OVER} AND seat = 1", "seat 1's draw"),
    *(("seats", f, f"game_id = {LONG} AND seat = 1", f"seat 1's {f}") for f in games.FIGURES),
    ("seats", "deals", f"game_id = {CONFIRMED} AND seat = 0", "seat 0's deals"),
    ("moves", "snapshot", f"game_id = {LONG} AND snapshot IS NOT NULL", "snapshot"),
    ("deals", "record", f"game_id = {LONG} AND n = 7", "does not replay"),
]


def flipped(value):
    """``value`` with bits flipped as a failing disk flips them: 3 in text (the low bit of
    3 of its characters, spread over it), 1 in a number."""
    if isinstance(value, int):
        return value ^ 1
    data = bytearray(value.encode())
    for at in (len(data) // 4, len(data) // 2, 3 * len(data) // 4):
        data[at] ^= 1
    return data.decode()


def spoiled_column(backup: Path, tmp_path: Path, table: str, column: str, where: str) -> Path:
    copy = tmp_path / "spoiled.db"
    copy.write_bytes(backup.read_bytes())
    with sqlite3.connect(copy) as db:
        (value,) = db.execute(f'SELECT "{column}" FROM {table} WHERE {where}').fetchone()
        assert value is not None and db.execute(f"SELECT count(*) FROM {table} WHERE {where}").fetchone()[0] == 1
        db.execute(f'UPDATE {table} SET "{column}" = ? WHERE {where}', (flipped(value),))
    db.close()
    return copy


@pytest.mark.parametrize("table, column, where, said", DERIVED, ids=[f"{t}.{c}" for t, c, _, _ in DERIVED])
def test_a_backup_with_bits_flipped_in_what_the_moves_make_is_refused(
    scored_club, tmp_path, table, column, where, said
):
    """A backup with bits flipped in any column worked out from the move log (a game's
    status, whether it is over, a seat's figures, a snapshot for undo) is refused, naming
    the game and what of it, and the live database stays as it was."""
    app, backup = scored_club
    spoiled = spoiled_column(backup, tmp_path, table, column, where)
    before = live(app)
    answer = app.test_cli_runner().invoke(args=["restore", "--yes", str(spoiled)])
    assert answer.exit_code == 1 and "Nothing was changed" in answer.output, answer.output
    assert said in answer.output and "Traceback" not in answer.output, answer.output
    with sqlite3.connect(spoiled) as db:
        (game_id,) = db.execute(
            f"SELECT {'id' if table == 'games' else 'game_id'} FROM {table} WHERE {where}"
        ).fetchone()
    db.close()
    assert f"Game {game_id}" in answer.output
    assert live(app) == before
    assert app.test_client().get("/export/games.csv").status_code == 200


def test_three_bits_flipped_in_a_status_leave_the_exports_working(scored_club, tmp_path):
    """Issue 44's case: a status spoiled so that it is no JSON is refused, so the CSV export
    and `flask export` that read it keep working."""
    app, backup = scored_club
    spoiled = spoiled_column(backup, tmp_path, "games", "status", f"id = {OVER}")
    answer = app.test_cli_runner().invoke(args=["restore", "--yes", str(spoiled)])
    assert answer.exit_code == 1 and "status" in answer.output, answer.output
    assert app.test_client().get("/export/games.csv").status_code == 200
    done = app.test_cli_runner().invoke(args=["export", str(tmp_path / "csv")])
    assert done.exit_code == 0, done.output


def test_the_standings_are_summed_again_from_the_seats_on_a_restore(scored_club, tmp_path):
    """``totals`` is summed by this version's triggers from the seats restored: a backup's
    totals spoiled by hand give the standings the seats say."""
    app, backup = scored_club
    store = app.extensions["store"]
    standings = [tuple(r) for r in store.query("SELECT * FROM totals ORDER BY game, player_id")]
    spoiled = tampered(backup, tmp_path, "UPDATE totals SET won = won + 1, points = 999, played = 50;")
    answer = app.test_cli_runner().invoke(args=["restore", "--yes", str(spoiled)])
    assert answer.exit_code == 0, answer.output
    assert [tuple(r) for r in store.query("SELECT * FROM totals ORDER BY game, player_id")] == standings


def game_of(tables, who: str) -> dict:
    return next(g for g in tables["games"] if who in json.loads(g["players"]))


def seat_of(tables, who: str, seat: int) -> dict:
    game = game_of(tables, who)
    return next(s for s in tables["seats"] if s["game_id"] == game["id"] and s["seat"] == seat)


def won_by_mallory(tables):
    """The long game, at deal 36 of 40, marked over and won by someone who is not a player."""
    game_of(tables, "Ann").update(finished=1, status=json.dumps({"winners": ["Mallory"], "draw": False}))


def perfect_record(tables):
    seat_of(tables, "Ann", 0).update(won=1, points=999)


def renamed_game(game_id: str):
    """The long game's id changed everywhere it is named, as a hand edit would."""

    def edit(tables):
        old = game_of(tables, "Ann")["id"]
        game_of(tables, "Ann")["id"] = game_id
        for table in ("seats", "moves", "referees", "links", "deals"):
            for row in tables[table]:
                if row["game_id"] == old:
                    row["game_id"] = game_id

    return edit


def edited_field(table: str, column: str, who: str, seat: int | None = None, value=None):
    def edit(tables):
        if table == "games":
            row = game_of(tables, who)
        elif table == "seats":
            row = seat_of(tables, who, seat)
        else:
            game = game_of(tables, who)
            row = next(r for r in tables[table] if r["game_id"] == game["id"] and r[column] is not None)
        row[column] = flipped(row[column]) if value is None else value

    return edit


def a_snapshot_behind(tables):
    """The long game's snapshot (JSON as it was) saying one deal fewer was over: an undo
    after it would count the game's deals one short."""
    game = game_of(tables, "Ann")
    move = next(m for m in tables["moves"] if m["game_id"] == game["id"] and m["snapshot"] is not None)
    snapshot = json.loads(move["snapshot"])
    move["snapshot"] = json.dumps({**snapshot, "deals": snapshot["deals"] - 1})


#: An export's field worked out from the move log, edited by hand, and what the refusal names.
EDITED_DERIVED = {
    "a game at deal 36 marked over, won by Mallory": (won_by_mallory, "finished"),
    "a seat's figures set to won=1, points=999": (perfect_record, "seat 0's"),
    "a game's id no address can reach": (renamed_game("../../etc/x"), "no address can reach"),
    "a game's id with a NUL": (renamed_game("abc\u0000def"), "no address can reach"),
    "finished": (edited_field("games", "finished", "Dan"), "finished"),
    "status": (edited_field("games", "status", "Ann"), "status"),
    "winners": (edited_field("games", "status", "Dan", value='{"winners":["Cat"],"draw":false}'), "status"),
    "deals": (edited_field("games", "deals", "Ann"), "does not replay"),
    "confirmed": (edited_field("games", "confirmed", "Eve", value=3), "seat 0's deals"),
    "confirmed out of range": (edited_field("games", "confirmed", "Eve", value=7), "confirmed"),
    "seat side": (edited_field("seats", "side", "Dan", 1), "seat 1's side"),
    "seat won": (edited_field("seats", "won", "Dan", 1), "seat 1's won"),
    "seat won while not over": (edited_field("seats", "won", "Ann", 0, value=1), "seat 0's won"),
    "seat draw": (edited_field("seats", "draw", "Dan", 0), "seat 0's draw"),
    **{f"seat {f}": (edited_field("seats", f, "Ann", 1), f"seat 1's {f}") for f in games.FIGURES},
    "a deal not confirmed counted": (edited_field("seats", "deals", "Eve", 0, value=3), "seat 0's deals"),
    "snapshot": (edited_field("moves", "snapshot", "Ann"), "snapshot"),
    "a snapshot a deal behind": (a_snapshot_behind, "snapshot its moves do not make"),
    "a deal's record": (edited_field("deals", "record", "Ann"), "does not replay"),
}


@pytest.mark.parametrize("how", EDITED_DERIVED)
def test_an_export_with_what_the_moves_make_edited_is_refused(scored_club, tmp_path, how):
    """What an import takes is what its moves make: a field worked out from the move log
    and edited by hand is refused, naming the game and the field, and nothing changes (the
    standings stay as they were)."""
    app, backup = scored_club
    edit, said = EDITED_DERIVED[how]
    export = tmp_path / "all.json"
    assert app.test_cli_runner().invoke(args=["export", "--json", str(export)]).exit_code == 0
    data = json.loads(export.read_text(encoding="utf-8"))
    edit(data["tables"])
    export.write_text(json.dumps(data), encoding="utf-8")
    before, standings = live(app), stats.standings(app.extensions["store"])
    answer, files = imported(app, export)
    assert answer.exit_code == 1 and "Nothing was changed" in answer.output, answer.output
    assert said in answer.output and "Traceback" not in answer.output, answer.output
    assert live(app) == before and files == ["c.db"]
    assert stats.standings(app.extensions["store"]) == standings


def test_the_restore_s_question_says_what_it_replaces(club, tmp_path):
    """Asked before anything is replaced: how many games go and how many come (an empty
    backup over a club's games says so), and a No changes nothing."""
    app, keys, backup = club
    empty = tmp_path / "empty.db"
    fresh = app_in(tmp_path / "fresh")
    assert fresh.test_cli_runner().invoke(args=["backup", str(empty)]).exit_code == 0
    before = live(app)
    answer = app.test_cli_runner().invoke(args=["restore", str(empty)], input="n\n")
    assert "Replace the 4 game(s)" in answer.output and "with the 0 game(s) of the" in answer.output, answer.output
    assert answer.exit_code == 1 and live(app) == before
    answer = app.test_cli_runner().invoke(args=["restore", str(empty)], input="y\n")
    assert answer.exit_code == 0 and "Restored 0 game(s)" in answer.output, answer.output
    answer = app.test_cli_runner().invoke(args=["restore", str(backup)], input="y\n")
    assert "Replace the 0 game(s)" in answer.output and "with the 4 game(s) of the" in answer.output, answer.output
    assert answer.exit_code == 0
    notes = another_apps_file(tmp_path / "notes.db", "CREATE TABLE notes (body TEXT);")
    answer = app.test_cli_runner().invoke(args=["restore", str(notes)], input="y\n")
    assert answer.exit_code == 1 and "not a backup" in answer.output and "Replace" not in answer.output


def test_the_import_s_question_says_what_it_replaces(club, tmp_path):
    app, keys, backup = club
    export = tmp_path / "all.json"
    fresh = app_in(tmp_path / "fresh")
    assert fresh.test_cli_runner().invoke(args=["export", "--json", str(export)]).exit_code == 0
    before = live(app)
    answer = app.test_cli_runner().invoke(args=["import", str(export)], input="n\n")
    assert "(its 4 game(s)) with" in answer.output and "(its 0 game(s))?" in answer.output, answer.output
    assert answer.exit_code == 1 and live(app) == before


def test_an_import_sums_the_standings_again(scored_club, tmp_path):
    """An import's standings are its seats' sums, whatever the database it replaces held in
    ``totals`` (here a hand edit that gave every player 5 games more and 50 won)."""
    app, backup = scored_club
    store = app.extensions["store"]
    standings = [tuple(r) for r in store.query("SELECT * FROM totals ORDER BY game, player_id")]
    export = tmp_path / "all.json"
    assert app.test_cli_runner().invoke(args=["export", "--json", str(export)]).exit_code == 0
    with sqlite3.connect(app.config["DATABASE"]) as db:
        db.execute("UPDATE totals SET won = 50, points = 999, played = played + 5")
    db.close()
    answer, _ = imported(app, export)
    assert answer.exit_code == 0, answer.output
    assert [tuple(r) for r in store.query("SELECT * FROM totals ORDER BY game, player_id")] == standings
