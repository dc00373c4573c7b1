"""The store (companion/store.py): one SQLite file per test, sqlite-utils style, and the
same tests on a PostgreSQL database (companion/store/postgres.py; the ``database`` fixture in
conftest.py runs each test asking for it on both, the PostgreSQL cases marked ``postgres``).

Plain functions and parametrized cases; the engine is Tablanette throughout.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import sqlite3
import threading
from datetime import datetime
from pathlib import Path

import pytest
import sqlite_utils

from companion import games
from companion.cards import PACK_52
from companion.errors import AmbiguousMove, IllegalMove, InvalidMove, MoveError, OptionError
from companion.store import (
    TOTALS,
    TRANSCRIPT_FORMAT,
    AskFirst,
    BadTranscript,
    Conflict,
    NotFound,
    NothingToUndo,
    SqliteStore,
    StoreError,
    migrations,
    open_store,
)
from companion.store.dialect import POSTGRES, SQLITE
from companion.views.common import status_text

rules = games.get("tablanette")

MIGRATIONS = [
    "m001_games_and_moves",
    "m002_games_by_updated",
    "m003_referees_links_archive",
    "m004_status_as_data",
    "m005_who_entered_each_move",
    "m006_explanations_as_data",
    "m007_tallied_hands_say_how",
    "m008_players_and_seats",
    "m009_totals_for_standings",
    "m010_entries_applied_once",
    "m011_deals_confirmed_by_the_other_side",
    "m012_snapshots_for_undo",
    "m013_moves_say_themselves",
    "m014_finished_deals_stored_once",
    "m015_one_person_one_name",
    "m016_names_compared_as_they_look",
    "m017_names_of_one_script_kept_apart",
    "m018_hundred_variants_keep_their_rules",
    "m019_corrections",
    "m020_time_played",
]

LAYOUT = {"type": "layout", "cards": ["2C", "3D", "4H", "8S"]}
# Ann deals and lays out; Ben's queen (13) takes 2+3+8; Ann lays down the 5; Ben's 9
# takes 4+5 (a sweep); Ann lays down a king, Ben's king takes it (another sweep).
MOVES = [
    LAYOUT,
    {"type": "play", "card": "QH", "capture": ["2C", "3D", "8S"]},
    {"type": "play", "card": "5C", "capture": []},
    {"type": "play", "card": "9D", "capture": ["4H", "5C"]},
    {"type": "play", "card": "KS", "capture": []},
    {"type": "play", "card": "KH", "capture": ["KS"]},
]

# Every counting card (standard scale), for a tally that gives them all to one side.
COUNTERS = [f"{r}{s}" for r in ("A", "K", "Q", "J", "10") for s in "SHDC"] + ["2C"]


def replay(players, options, moves):
    state = rules.start(players, options)
    for m in moves:
        state = rules.apply(state, m)
    return state


@pytest.fixture
def store(database):
    s = open_store(database)
    yield s
    s.close()


@pytest.fixture
def game(store):
    row, key = store.create("tablanette", ["Ann", "Ben"], None)
    return row["id"]


def play_all(store, game_id, moves, version=0):
    for m in moves:
        version, _ = store.play(game_id, version, m)
    return version


def last_deal_only(state):
    """A state as the store reads it back: its finished deals but the last are in ``deals``."""
    return dataclasses.replace(state, history=state.history[-1:])


def snapshot(store, game_id):
    """Everything a change could touch."""
    row = store.get(game_id)
    return row["version"], row["updated"], rules.dump(row["state"]), store.moves(game_id)


# ---------------------------------------------------------------------------
# Opening the file: WAL, pragmas, migrations
# ---------------------------------------------------------------------------


@pytest.mark.sqlite_only
def test_wal_is_on(store, tmp_path):
    conn = sqlite3.connect(tmp_path / "test.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


@pytest.mark.parametrize(
    "pragma,expected",
    [
        ("synchronous", 1),  # NORMAL
        ("busy_timeout", 5000),
        ("foreign_keys", 1),
    ],
)
@pytest.mark.sqlite_only
def test_connection_pragmas(store, pragma, expected):
    assert store._conn().execute(f"PRAGMA {pragma}").fetchone()[0] == expected


@pytest.mark.parametrize("opens", [2, 3])
def test_migrations_are_idempotent(tmp_path, opens):
    path = tmp_path / "twice.db"
    first = SqliteStore(path)
    row, key = first.create("tablanette", ["Ann", "Ben"], None)
    first.play(row["id"], 0, LAYOUT)
    for _ in range(opens - 1):
        again = SqliteStore(path)
        assert again.migrate() == []
    conn = sqlite3.connect(path)
    applied = [r[0] for r in conn.execute("SELECT name FROM companion_migrations ORDER BY rowid")]
    conn.close()
    assert applied == MIGRATIONS
    assert again.get(row["id"])["version"] == 1
    assert again.check_key(row["id"], key)


def test_first_open_applies_every_migration(tmp_path):
    assert migrations.known() == MIGRATIONS
    store = SqliteStore(tmp_path / "fresh.db")
    assert store.applied_migrations() == MIGRATIONS
    assert store.migrate() == []


@pytest.mark.parametrize(
    "table,columns",
    [
        (
            "games",
            {
                "id",
                "game",
                "players",
                "options",
                "created",
                "updated",
                "version",
                "state",
                "finished",
                "status",
                "archived",
                "confirmed",
                "deals",
                "seconds_played",
            },
        ),
        (
            "moves",
            {
                "game_id",
                "seq",
                "move",
                "time",
                "undone",
                "referee",
                "imported",
                "undone_by",
                "undone_time",
                "entry",
                "snapshot",
                "said",
            },
        ),
        ("referees", {"id", "game_id", "key_hash", "created", "revoked"}),
        ("links", {"token_hash", "game_id", "kind", "created", "expires", "used"}),
        (
            "corrections",
            {"game_id", "version", "seq", "time", "referee", "before", "before_said", "after", "after_said"},
        ),
    ],
)
def test_schema(store, table, columns):
    assert set(store.schema()[table]) == columns


@pytest.mark.postgres
def test_one_set_of_migrations_builds_the_same_schema_on_both(tmp_path, pg_url):
    """The schema is written once (issue 33): a fresh SQLite database and a fresh PostgreSQL
    one, built by the same migrations, have the same tables with the same columns in the
    same order, the same indexes and triggers, and the same migrations recorded, so a
    whole-server export or copy moves between the two. PostgreSQL alone notifies other
    servers of each change (games_notify: live push across servers)."""
    lite, pg = SqliteStore(tmp_path / "lite.db"), open_store(pg_url)
    try:
        assert pg.schema() == lite.schema()
        assert pg.applied_migrations() == lite.applied_migrations() == MIGRATIONS
        assert pg.migrate() == []  # opening again applies nothing
        tables = set(lite.TABLES) | {"totals", "companion_migrations"}
        assert set(SQLITE.tables(lite._conn())) - {"sqlite_sequence"} == set(POSTGRES.tables(pg._conn())) == tables
        lite_triggers = {
            (r[0], r[1]) for r in lite.query("SELECT name, tbl_name FROM sqlite_master WHERE type = 'trigger'")
        }
        pg_triggers = {
            (r[0], r[1])
            for r in pg.query(
                "SELECT DISTINCT trigger_name, event_object_table FROM information_schema.triggers "
                "WHERE trigger_schema = current_schema()"
            )
        }
        assert lite_triggers == pg_triggers - {("games_notify", "games")} != set()
        lite_indexes = {
            r[0] for r in lite.query("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
        }
        pg_indexes = {
            r[0]
            for r in pg.query("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()")
            if not r[0].endswith("_pkey")
        }
        assert lite_indexes == pg_indexes
    finally:
        pg.close()


def sqlite_schema(path) -> list[tuple]:
    """Everything SQLite keeps of a database's schema: each table, index and trigger as made."""
    with sqlite3.connect(path) as db:
        return db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").fetchall()


def oldest_with_a_game(path: Path) -> None:
    """A database as the first version left it (m001 alone), holding a game of Tablanette
    with its moves, the last one undone."""
    state = replay(["Ann", "Ben"], None, MOVES[:-1])
    with sqlite3.connect(path) as db:
        migrations.migrate(db, SQLITE, stop_before="m002_games_by_updated")
        db.execute(
            "INSERT INTO games (id, game, players, options, created, updated, version, state, key_hash) "
            "VALUES ('old', 'tablanette', '[\"Ann\",\"Ben\"]', 'null', ?, ?, ?, ?, 'x$y')",
            ("2026-01-01T20:00:00+00:00", "2026-01-01T20:09:00+00:00", len(MOVES) + 1, json.dumps(rules.dump(state))),
        )
        db.executemany(
            "INSERT INTO moves (game_id, seq, move, time, undone) VALUES ('old', ?, ?, ?, ?)",
            [(i, json.dumps(m), f"2026-01-01T20:0{i}:00+00:00", int(i == len(MOVES))) for i, m in enumerate(MOVES, 1)],
        )


def test_a_database_upgraded_from_the_first_version_has_a_fresh_ones_schema(tmp_path):
    """Every migration, applied one by one to a database the first version made (a game
    in it), builds exactly the tables, indexes and triggers a fresh database gets, and
    the game still replays to what it stores."""
    oldest_with_a_game(tmp_path / "old.db")
    upgraded, fresh = SqliteStore(tmp_path / "old.db"), SqliteStore(tmp_path / "fresh.db")
    assert upgraded.applied_migrations() == fresh.applied_migrations() == MIGRATIONS
    assert sqlite_schema(upgraded.path) == sqlite_schema(fresh.path)
    assert upgraded.check() == 1 and upgraded.moves("old")[-1]["undone"]


def test_migrations_are_history_not_the_apps_constants(tmp_path, monkeypatch):
    """Migrations are history (issue 44): a migration recorded as applied made the same
    tables whenever it ran. The app's figures (``games.FIGURES``) and the standings' sums
    (``TOTALS``) grow with the app (a new figure comes with a migration of its own); a
    migration that built its tables from them would give a database upgraded before the
    figure came and one made after it the same migrations recorded and other columns.
    With a figure added to both, a fresh database and one upgraded from the first
    version have exactly the schema the migrations gave before."""
    before = SqliteStore(tmp_path / "before.db")
    oldest_with_a_game(tmp_path / "old.db")
    monkeypatch.setattr(games, "FIGURES", (*games.FIGURES, "tricks"))
    monkeypatch.setattr(games.common, "FIGURES", games.FIGURES)  # what the engines' ``figures`` count
    monkeypatch.setitem(TOTALS, "tricks", "{s}.tricks")
    fresh, upgraded = SqliteStore(tmp_path / "fresh.db"), SqliteStore(tmp_path / "old.db")
    assert fresh.applied_migrations() == upgraded.applied_migrations() == before.applied_migrations()
    assert sqlite_schema(fresh.path) == sqlite_schema(upgraded.path) == sqlite_schema(before.path)
    # A figure added without its own migration has no column to keep it in: the checks of
    # what the moves make (issue 44 item 1) can't pass then. With the app as it is, the
    # upgraded database's game checks.
    monkeypatch.undo()
    assert upgraded.check() == 1


def test_the_standings_sums_are_the_totals_tables_columns(tmp_path):
    """``TOTALS`` (what the statistics sum) names exactly the columns the migrations gave
    ``totals`` between its key and the biggest sweep, in their order."""
    store = SqliteStore(tmp_path / "fresh.db")
    columns = [r[1] for r in store.query("PRAGMA table_info(totals)")]
    assert columns == ["game", "player_id", *TOTALS, "best_sweep"]


def test_a_tap_sent_again_is_applied_once(store):
    """A phone that lost the answer to a tap sends it again with the same entry id (issue 16):
    the second time nothing is applied, whatever version it carries, and the game is as the
    first time left it; the same id in another game is another tap."""
    row, key = store.create("hundred", ["Ann", "Ben"])
    entry = "0123456789abcdef0123456789abcdef"
    assert store.play(row["id"], 0, {"type": "play", "card": "5S"}, key, entry=entry)[0] == 1
    version, state = store.play(row["id"], 0, {"type": "play", "card": "5S"}, key, entry=entry)
    assert version == 1 and [m["move"] for m in store.moves(row["id"])] == [{"type": "play", "card": "5S"}]
    with pytest.raises(Conflict):
        store.play(row["id"], 0, {"type": "play", "card": "6S"}, key, entry="f" * 32)
    other, other_key = store.create("hundred", ["Ann", "Ben"])
    assert store.play(other["id"], 0, {"type": "play", "card": "5S"}, other_key, entry=entry)[0] == 1


@pytest.mark.sqlite_only
def test_moves_are_keyed_by_game_and_seq(store):
    pk = {r["name"]: r["pk"] for r in store._conn().execute("PRAGMA table_info(moves)")}
    assert (pk["game_id"], pk["seq"]) == (1, 2)


def test_workers_opening_a_new_file_together(database):
    """gunicorn workers start at once: migrations run one at a time, once."""
    errors, opened = [], []
    barrier = threading.Barrier(8)

    def open_it():
        barrier.wait()
        try:
            opened.append(open_store(database))
        except Exception as e:  # pragma: no cover - the failure being tested for
            errors.append(e)

    threads = [threading.Thread(target=open_it) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert opened[0].applied_migrations() == MIGRATIONS
    for store in opened:
        store.close()


@pytest.mark.parametrize("path", [":memory:", "file:x?mode=memory"])
def test_needs_a_file(path):
    with pytest.raises(ValueError):
        SqliteStore(path)


# ---------------------------------------------------------------------------
# Creating and reading
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "players,options",
    [
        (["Ann", "Ben"], None),
        (["Ann", "Ben"], {}),
        (["Ann", "Ben"], {"dealer": "Ben"}),
        (["Ann", "Ben", "Cy"], {"target": 151}),
        (["Ann", "Ben", "Cy", "Di"], {"partnership": True}),
        (["Ann", "Ben"], {"preset": "tablic"}),
        (["Ann", "Ben"], {"hand_size": 8, "max_group_size": None}),
        (["Zoë", "<b>Ben</b>"], {"fixed_deals": 2}),
    ],
)
def test_create_get_round_trip(store, players, options):
    row, key = store.create("tablanette", players, options)
    got = store.get(row["id"])
    assert got == row
    assert got["players"] == players and got["options"] == options
    assert got["version"] == 0 and got["game"] == "tablanette"
    assert got["state"] == rules.start(players, options)
    assert got["created"] == got["updated"]
    assert datetime.fromisoformat(got["created"]).utcoffset().total_seconds() == 0
    assert got["finished"] is False and got["status"]
    assert store.moves(row["id"]) == []


def test_ids_and_keys_are_random_and_url_safe(store):
    made = [store.create("tablanette", ["Ann", "Ben"], None) for _ in range(20)]
    ids, keys = {r["id"] for r, _ in made}, {k for _, k in made}
    assert len(ids) == len(keys) == 20
    for text in ids | keys:
        assert text.replace("-", "").replace("_", "").isalnum()
    assert all(len(k) >= 20 for k in keys)


@pytest.mark.parametrize(
    "game,players,options",
    [
        ("tablanette", ["Ann"], None),
        ("tablanette", ["Ann", "Ann"], None),
        ("tablanette", "Ann, Ben", None),
        ("tablanette", ["Ann", "Ben"], {"colour": "red"}),
        ("tablanette", ["Ann", "Ben"], {"target": -1}),
        ("tablanette", ["Ann", "Ben"], {"dealer": "Cy"}),
        ("tablanette", ["Ann", "Ben"], {"target": float("nan")}),
        ("tablanette", ["Ann", "Ben"], {"target": {1, 2}}),
        ("skat", ["Ann", "Ben", "Cy"], None),
    ],
)
def test_create_refuses_bad_setups(store, game, players, options):
    with pytest.raises(OptionError):
        store.create(game, players, options)
    assert store.list_games() == []


def test_get_unknown_is_none(store):
    assert store.get("nope") is None


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.play("nope", 0, LAYOUT),
        lambda s: s.undo("nope", 0),
        lambda s: s.moves("nope"),
        lambda s: s.transcript("nope"),
    ],
)
def test_unknown_game_is_not_found(store, call):
    with pytest.raises(NotFound) as e:
        call(store)
    assert isinstance(e.value, StoreError) and isinstance(e.value, LookupError)


# ---------------------------------------------------------------------------
# The edit key
# ---------------------------------------------------------------------------


def test_key_checks(store):
    row, key = store.create("tablanette", ["Ann", "Ben"], None)
    other, other_key = store.create("tablanette", ["Ann", "Ben"], None)
    assert store.check_key(row["id"], key)
    assert store.check_key(other["id"], other_key)
    assert not store.check_key(row["id"], other_key)
    assert not store.check_key("nope", key)


@pytest.mark.parametrize("wrong", ["", "x", "A" * 22, None, 12, ["k"], "\ud800", "é"])
def test_wrong_keys(store, game, wrong):
    assert store.check_key(game, wrong) is False


def test_only_a_salted_hash_of_the_key_is_stored(store, tmp_path):
    made = [store.create("tablanette", ["Ann", "Ben"], None) for _ in range(2)]
    conn = store._conn()
    hashes = [r[0] for r in conn.execute("SELECT key_hash FROM referees")]
    for _, key in made:
        assert all(key not in h for h in hashes)
    assert len(set(hashes)) == 2
    assert len({h.split("$")[0] for h in hashes}) == 2  # a salt each
    if (tmp_path / "test.db").exists():  # SQLite: the file itself
        raw = (tmp_path / "test.db").read_bytes() + (tmp_path / "test.db-wal").read_bytes()
    else:  # PostgreSQL: every row of every table
        raw = json.dumps(store.rows()).encode()
    assert all(key.encode() not in raw for _, key in made)


def test_the_key_is_not_in_the_row(store):
    row, key = store.create("tablanette", ["Ann", "Ben"], None)
    assert key not in json.dumps({k: v for k, v in row.items() if k != "state"})
    assert "key_hash" not in store.get(row["id"])


# ---------------------------------------------------------------------------
# Playing
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("count", range(1, len(MOVES) + 1))
def test_play_moves(store, game, count):
    created = store.get(game)
    version = 0
    for i, m in enumerate(MOVES[:count], 1):
        version, state = store.play(game, version, m)
        assert version == i
        assert state == last_deal_only(replay(["Ann", "Ben"], None, MOVES[:i]))
    row = store.get(game, history=True)
    assert row["version"] == count
    assert row["state"] == replay(["Ann", "Ben"], None, MOVES[:count])
    assert row["created"] == created["created"] and row["updated"] >= created["updated"]
    log = store.moves(game)
    assert [m["seq"] for m in log] == list(range(1, count + 1))
    assert [m["move"] for m in log] == MOVES[:count]
    assert not any(m["undone"] for m in log)
    assert all(datetime.fromisoformat(m["time"]) for m in log)


def test_the_queen_takes_two_three_and_eight(store, game):
    store.play(game, 0, LAYOUT)
    _, state = store.play(game, 1, {"type": "play", "card": "QH", "capture": ["2C", "3D", "8S"]})
    view = rules.view(state)
    assert view["table"] == ["4H"]
    assert sorted(view["captured"]["Ben"]) == sorted(["2C", "3D", "8S", "QH"])


@pytest.mark.parametrize(
    "move,stored",
    [
        # Stored as given, after a JSON round trip (what the engine was shown).
        ({"type": "layout", "cards": ("2C", "3D", "4H", "8S")}, {"type": "layout", "cards": ["2C", "3D", "4H", "8S"]}),
        ({"type": "layout", "cards": ["2c", "3♦", "4h", "8S"]}, {"type": "layout", "cards": ["2c", "3♦", "4h", "8S"]}),
        (
            {"type": "layout", "cards": ["2C", "3D", "4H", "8S"], "player": "Ann"},
            {"type": "layout", "cards": ["2C", "3D", "4H", "8S"], "player": "Ann"},
        ),
    ],
)
def test_moves_are_stored_as_given(store, game, move, stored):
    _, state = store.play(game, 0, move)
    assert store.moves(game)[0]["move"] == stored
    assert replay(["Ann", "Ben"], None, [stored]) == state


def test_a_play_without_capture_when_only_one_outcome(store, game):
    store.play(game, 0, LAYOUT)
    version, state = store.play(game, 1, {"type": "play", "card": "KS"})  # only 2+4+8 make 14
    assert version == 2 and rules.view(state)["table"] == ["3D"]
    assert store.moves(game)[1]["move"] == {"type": "play", "card": "KS"}
    assert replay(["Ann", "Ben"], None, [m["move"] for m in store.moves(game)]) == state


@pytest.mark.parametrize("stale", [0, 2, 7, -1, None, "1", True, 1.5])
def test_stale_version_is_a_conflict_and_writes_nothing(store, game, stale):
    store.play(game, 0, LAYOUT)  # now at version 1
    before = snapshot(store, game)
    for change in (lambda: store.play(game, stale, MOVES[1]), lambda: store.undo(game, stale)):
        with pytest.raises(Conflict) as e:
            change()
        assert e.value.version == 1
        assert isinstance(e.value, StoreError)
    assert snapshot(store, game) == before


@pytest.mark.parametrize(
    "move,error",
    [
        ({"type": "play", "card": "QH", "capture": ["2C", "3D"]}, IllegalMove),  # 2+3 is not 13
        ({"type": "play", "card": "QH", "capture": []}, IllegalMove),  # must take (P4)
        ({"type": "play", "card": "2C", "capture": []}, IllegalMove),  # on the table
        ({"type": "play", "card": "QH", "player": "Ann"}, IllegalMove),  # Ben's turn
        (LAYOUT, IllegalMove),  # not now
        ({"type": "play", "card": "ZZ"}, InvalidMove),
        ({"type": "play"}, InvalidMove),
        ({"type": "bid", "card": "QH"}, InvalidMove),
        ({"card": "QH"}, InvalidMove),
        (["play", "QH"], InvalidMove),
        ("QH", InvalidMove),
        ({"type": "play", "card": "QH", "capture": {"2C"}}, InvalidMove),  # not JSON
        ({"type": "play", "card": float("inf")}, InvalidMove),  # not JSON
    ],
)
def test_a_refused_move_changes_nothing(store, game, move, error):
    store.play(game, 0, LAYOUT)
    before = snapshot(store, game)
    with pytest.raises(error) as e:
        store.play(game, 1, move)
    assert str(e.value)
    assert snapshot(store, game) == before


def test_an_ambiguous_move_lists_the_options_and_changes_nothing(store, game):
    store.play(game, 0, {"type": "layout", "cards": ["2S", "3H", "5D", "9C"]})
    before = snapshot(store, game)
    with pytest.raises(AmbiguousMove) as e:
        store.play(game, 1, {"type": "play", "card": "KH"})
    assert sorted(map(sorted, e.value.options)) == [["2S", "3H", "9C"], ["5D", "9C"]]
    assert snapshot(store, game) == before
    version, _ = store.play(game, 1, {"type": "play", "card": "KH", "capture": ["5D", "9C"]})
    assert version == 2


def test_a_finished_game_refuses_moves(store):
    row, _ = store.create("tablanette", ["Ann", "Ben"], {"target": 1})
    tally = {"type": "tally", "cards": {"Ann": 30, "Ben": 22}, "counters": {"Ann": COUNTERS, "Ben": []}}
    version, state = store.play(row["id"], 0, tally)
    assert rules.view(state)["result"]["winners"] == ["Ann"]
    with pytest.raises(IllegalMove):
        store.play(row["id"], version, LAYOUT)
    assert store.get(row["id"])["version"] == 1


# ---------------------------------------------------------------------------
# Undo
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("played,undos", [(1, 1), (2, 1), (3, 1), (3, 2), (6, 1), (6, 3), (6, 6)])
def test_undo_marks_and_replays(store, game, played, undos):
    version = play_all(store, game, MOVES[:played])
    for i in range(undos):
        version, state = store.undo(game, version)
        assert version == played + i + 1
        assert state == last_deal_only(replay(["Ann", "Ben"], None, MOVES[: played - i - 1]))
    row = store.get(game, history=True)
    assert row["version"] == played + undos
    assert row["state"] == replay(["Ann", "Ben"], None, MOVES[: played - undos])
    log = store.moves(game)
    assert [m["seq"] for m in log] == list(range(1, played + 1))  # nothing deleted
    assert [m["undone"] for m in log] == [False] * (played - undos) + [True] * undos
    assert [m["move"] for m in log] == MOVES[:played]


@pytest.mark.parametrize("played,undos", [(0, 0), (1, 1), (3, 3)])
def test_nothing_to_undo(store, game, played, undos):
    version = play_all(store, game, MOVES[:played])
    for _ in range(undos):
        version, _ = store.undo(game, version)
    before = snapshot(store, game)
    with pytest.raises(NothingToUndo) as e:
        store.undo(game, version)
    assert isinstance(e.value, IllegalMove) and isinstance(e.value, MoveError)
    assert "undo" in str(e.value).lower()
    assert snapshot(store, game) == before


def test_play_after_undo_continues_the_log(store, game):
    version = play_all(store, game, MOVES[:3])
    version, _ = store.undo(game, version)
    version, state = store.play(game, version, {"type": "play", "card": "6C", "capture": []})
    assert version == 5
    log = store.moves(game)
    assert [(m["seq"], m["undone"]) for m in log] == [(1, False), (2, False), (3, True), (4, False)]
    assert state == replay(["Ann", "Ben"], None, MOVES[:2] + [{"type": "play", "card": "6C", "capture": []}])
    # The undone 5C may now be played again: it never happened.
    version, _ = store.play(game, version, {"type": "play", "card": "5C", "capture": []})
    assert version == 6


def test_undo_reopens_a_finished_game(store):
    row, _ = store.create("tablanette", ["Ann", "Ben"], {"target": 1})
    tally = {"type": "tally", "cards": {"Ann": 30, "Ben": 22}, "counters": {"Ann": COUNTERS, "Ben": []}}
    store.play(row["id"], 0, tally)
    assert store.list_games()[0]["finished"] is True
    version, state = store.undo(row["id"], 1)
    assert rules.view(state)["result"] is None
    assert store.list_games()[0]["finished"] is False


# ---------------------------------------------------------------------------
# Reading never replays
# ---------------------------------------------------------------------------


def _refuse(*args, **kwargs):
    raise AssertionError("the engine replayed moves while reading")


@pytest.mark.parametrize(
    "reader",
    [
        lambda s, g: s.get(g)["state"],
        lambda s, g: s.list_games(),
        lambda s, g: s.transcript(g),
        lambda s, g: s.moves(g),
        lambda s, g: s.check_key(g, "x"),
    ],
)
def test_reading_does_not_replay(store, game, monkeypatch, reader):
    play_all(store, game, MOVES)
    monkeypatch.setattr(rules, "apply", _refuse)
    monkeypatch.setattr(rules, "start", _refuse)
    reader(store, game)


@pytest.mark.sqlite_only
@pytest.mark.parametrize("short,long", [(1, 40)])
def test_get_costs_the_same_at_any_length(store, short, long):
    """Same SQL, same rows read, at move 1 and move 40."""

    def statements_for_get(n):
        row, _ = store.create("tablanette", ["Ann", "Ben"], None)
        version = 0
        for i in range(n):
            version, _ = store.play(row["id"], version, LAYOUT if i == 0 else {"type": "play", "card": "KS"})
            if i:
                version, _ = store.undo(row["id"], version)  # keeps the log growing, the table small
        seen = []
        conn = store._conn()
        conn.set_trace_callback(seen.append)
        try:
            store.get(row["id"])
        finally:
            conn.set_trace_callback(None)
        return seen

    assert len(statements_for_get(short)) == len(statements_for_get(long)) == 1


# ---------------------------------------------------------------------------
# Listing
# ---------------------------------------------------------------------------


def test_list_games_newest_first(store):
    ids = [store.create("tablanette", ["Ann", "Ben"], None)[0]["id"] for _ in range(3)]
    assert [g["id"] for g in store.list_games()] == ids[::-1]
    store.play(ids[0], 0, LAYOUT)  # the oldest changes: it comes first
    listed = store.list_games()
    assert [g["id"] for g in listed] == [ids[0], ids[2], ids[1]]
    assert listed[0]["version"] == 1
    assert set(listed[0]) == {
        "id",
        "game",
        "players",
        "created",
        "updated",
        "version",
        "finished",
        "status",
        "archived",
    }
    assert [g["id"] for g in store.list_games(limit=2)] == [ids[0], ids[2]]


@pytest.mark.parametrize(
    "cards,counters,finished,status,words",
    [
        ({"Ann": 30, "Ben": 22}, {"Ann": COUNTERS, "Ben": []}, True, {"winners": ["Ann"], "draw": False}, "Won by Ann"),
        ({"Ann": 22, "Ben": 30}, {"Ann": [], "Ben": COUNTERS}, True, {"winners": ["Ben"], "draw": False}, "Won by Ben"),
        (
            {"Ann": 26, "Ben": 26},
            {"Ann": COUNTERS[:11], "Ben": COUNTERS[11:]},
            True,
            {"winners": ["Ann", "Ben"], "draw": True},
            "Draw: Ann and Ben",
        ),
    ],
)
def test_list_games_says_who_won(store, cards, counters, finished, status, words):
    """The store keeps who won as data; the pages word it (issue 13: no English in the database)."""
    row, _ = store.create("tablanette", ["Ann", "Ben"], {"target": 1})
    store.play(row["id"], 0, {"type": "tally", "cards": cards, "counters": counters})
    (listed,) = store.list_games()
    assert listed["finished"] is finished and listed["status"] == status
    assert status_text(listed["status"], "tablanette") == words
    assert store.get(row["id"])["finished"] is finished


def test_list_games_status_in_play(store, game):
    assert store.list_games()[0]["status"] == {"deal": 1, "scores": {"Ann": 0, "Ben": 0}}
    assert status_text(store.list_games()[0]["status"], "tablanette") == "Deal 1 · Ann 0, Ben 0"
    assert store.list_games()[0]["finished"] is False


def test_a_status_written_as_a_sentence_before_m004_is_rewritten_as_data(tmp_path):
    """A database from before m004 (status "Won by Ann") is migrated to data on opening."""
    path = tmp_path / "old.db"
    old = SqliteStore(str(path))
    old.migrate()
    row, _ = old.create("tablanette", ["Ann", "Ben"])
    db = sqlite_utils.Database(str(path))
    db.execute("UPDATE games SET status = 'Deal 1 · Ann 0, Ben 0' WHERE id = ?", [row["id"]])
    db.execute("DELETE FROM companion_migrations WHERE name = 'm004_status_as_data'")
    db.conn.commit()
    assert old.list_games()[0]["status"] == {}  # a sentence reads as no data, never a crash
    again = SqliteStore(str(path))  # opening a store applies what is pending: m004 again
    assert again.list_games()[0]["status"] == {"deal": 1, "scores": {"Ann": 0, "Ben": 0}}


# ---------------------------------------------------------------------------
# Transcripts
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("played,undos", [(0, 0), (1, 0), (6, 0), (6, 2), (3, 3)])
def test_transcript_round_trip(store, game, played, undos):
    version = play_all(store, game, MOVES[:played])
    for _ in range(undos):
        version, _ = store.undo(game, version)
    data = store.transcript(game)
    assert data == {
        "format": TRANSCRIPT_FORMAT,
        "game": "tablanette",
        "players": ["Ann", "Ben"],
        "options": None,
        "moves": MOVES[: played - undos],
    }
    row, key = store.import_transcript(json.loads(json.dumps(data)))
    assert row["id"] != game and store.check_key(row["id"], key)
    assert not store.check_key(game, key)
    assert store.get(row["id"])["state"] == store.get(game)["state"]
    assert row["version"] == played - undos
    assert [m["seq"] for m in store.moves(row["id"])] == list(range(1, played - undos + 1))
    assert store.transcript(row["id"]) == data
    # The imported game plays on from where the transcript ended.
    if played - undos == 1:
        assert store.play(row["id"], 1, MOVES[1])[0] == 2


def test_transcript_keeps_options(store):
    options = {"dealer": "Ben", "preset": "tablic"}
    row, _ = store.create("tablanette", ["Ann", "Ben"], options)
    data = store.transcript(row["id"])
    assert data["options"] == options
    imported, _ = store.import_transcript(data)
    assert imported["state"] == row["state"]


BAD_MOVES = [
    (1, {"type": "play", "card": "QH"}, "4 face-up cards"),  # not a layout yet
    (2, {"type": "play", "card": "QH", "capture": ["2C", "3D"]}, "can't be taken"),
    (2, {"type": "play", "card": "ZZ"}, "not a card"),
    (3, {"type": "play", "card": "2C", "capture": []}, "already played"),
    (2, "QH", "mapping"),
]


@pytest.mark.parametrize("index,bad,words", BAD_MOVES)
def test_bad_transcript_names_the_move_and_stores_nothing(store, game, index, bad, words):
    moves = MOVES[: index - 1] + [bad] + MOVES[index:]
    data = {
        "format": TRANSCRIPT_FORMAT,
        "game": "tablanette",
        "players": ["Ann", "Ben"],
        "options": None,
        "moves": moves,
    }
    before = store.list_games()
    with pytest.raises(BadTranscript) as e:
        store.import_transcript(data)
    assert e.value.index == index
    assert f"Move {index}" in str(e.value) and words in str(e.value)
    assert isinstance(e.value, ValueError)
    assert store.list_games() == before
    assert store._conn().execute("SELECT COUNT(*) FROM moves").fetchone()[0] == 0


def test_bad_transcript_ambiguous_move(store):
    data = {
        "format": TRANSCRIPT_FORMAT,
        "game": "tablanette",
        "players": ["Ann", "Ben"],
        "moves": [{"type": "layout", "cards": ["2S", "3H", "5D", "9C"]}, {"type": "play", "card": "KH"}],
    }
    with pytest.raises(BadTranscript) as e:
        store.import_transcript(data)
    assert e.value.index == 2 and "say which" in str(e.value)


@pytest.mark.parametrize(
    "data,words",
    [
        (None, "object"),
        ([], "object"),
        ({}, "format"),
        ({"format": "companion-transcript/2", "game": "tablanette", "players": ["A", "B"], "moves": []}, "format"),
        ({"format": TRANSCRIPT_FORMAT, "players": ["A", "B"], "moves": []}, "game"),
        ({"format": TRANSCRIPT_FORMAT, "game": "tablanette", "moves": []}, "players"),
        ({"format": TRANSCRIPT_FORMAT, "game": "tablanette", "players": ["A", "B"]}, "moves"),
        ({"format": TRANSCRIPT_FORMAT, "game": "tablanette", "players": ["A", "B"], "moves": {}}, "moves"),
        ({"format": TRANSCRIPT_FORMAT, "game": "skat", "players": ["A", "B"], "moves": []}, "skat"),
        ({"format": TRANSCRIPT_FORMAT, "game": ["tablanette"], "players": ["A", "B"], "moves": []}, "game"),
        ({"format": TRANSCRIPT_FORMAT, "game": "tablanette", "players": ["A"], "moves": []}, "2 to 4 players"),
        (
            {
                "format": TRANSCRIPT_FORMAT,
                "game": "tablanette",
                "players": ["A", "B"],
                "options": {"x": 1},
                "moves": [],
            },
            "Unknown option",
        ),
    ],
)
def test_bad_transcript_setup(store, data, words):
    with pytest.raises(BadTranscript) as e:
        store.import_transcript(data)
    assert e.value.index is None
    assert words in str(e.value)
    assert store.list_games() == []


# ---------------------------------------------------------------------------
# Concurrency: none lost, none doubled
# ---------------------------------------------------------------------------


def _next_move(view, rng):
    """A legal move for whatever the game is at: a layout, or an unseen card and its first capture."""
    if "layout" in view["expects"]:
        return LAYOUT
    unseen = sorted({str(c) for c in PACK_52} - set(view["seen"]) - set(view["buried"]))
    card = rng.choice(unseen)
    capture = rules.capture_options(card, view["table"])[0]
    return {"type": "play", "card": card, "capture": capture.sorted_cards()}


@pytest.mark.parametrize("stores", ["shared", "per_thread"])
def test_two_moves_at_one_version_one_wins(database, stores):
    shared, opened = open_store(database), []
    row, _ = shared.create("tablanette", ["Ann", "Ben"], None)
    shared.play(row["id"], 0, LAYOUT)
    barrier, outcomes = threading.Barrier(2), []
    moves = [{"type": "play", "card": "QH", "capture": ["2C", "3D", "8S"]}, {"type": "play", "card": "5C"}]

    def attempt(move):
        s = shared if stores == "shared" else open_store(database)  # like two gunicorn workers (or servers)
        opened.append(s)
        barrier.wait()
        try:
            outcomes.append(("ok", s.play(row["id"], 1, move)[0]))
        except Conflict as e:
            outcomes.append(("conflict", e.version))

    threads = [threading.Thread(target=attempt, args=(m,)) for m in moves]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for s in opened:
        s.close()
    assert sorted(outcomes) == [("conflict", 2), ("ok", 2)]
    assert shared.get(row["id"])["version"] == 2
    assert [m["seq"] for m in shared.moves(row["id"])] == [1, 2]
    shared.close()


@pytest.mark.parametrize(
    "stores,undo_every", [("shared", None), ("per_thread", None), ("shared", 4), ("per_thread", 3)]
)
def test_racing_writers_lose_nothing(database, stores, undo_every):
    """8 threads x 20 changes at one game, each retrying on Conflict."""
    shared, opened = open_store(database), []
    row, _ = shared.create("tablanette", ["Ann", "Ben"], None)
    shared.release()  # as a request does at its end: PostgreSQL's pool has a connection for each of the 8 threads
    game_id, threads_n, per_thread = row["id"], 8, 20
    barrier, lock = threading.Barrier(threads_n), threading.Lock()
    done = {"play": 0, "undo": 0, "conflict": 0}
    errors = []

    def worker(n):
        s = shared if stores == "shared" else open_store(database)
        opened.append(s)
        rng = random.Random(n)
        barrier.wait()
        try:
            for i in range(per_thread):
                kind = "undo" if undo_every and i % undo_every == undo_every - 1 else "play"
                while True:
                    current = s.get(game_id)
                    try:
                        if kind == "undo":
                            s.undo(game_id, current["version"])
                        else:
                            s.play(game_id, current["version"], _next_move(rules.view(current["state"]), rng))
                    except Conflict:
                        with lock:
                            done["conflict"] += 1
                        continue
                    except NothingToUndo:
                        kind = "play"  # every move was undone already: play instead
                        continue
                    with lock:
                        done[kind] += 1
                    break
        except Exception as e:  # pragma: no cover - the failure being tested for
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(threads_n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert done["play"] + done["undo"] == threads_n * per_thread
    final = shared.get(game_id, history=True)
    assert final["version"] == threads_n * per_thread  # every change counted, once
    log = shared.moves(game_id)
    assert [m["seq"] for m in log] == list(range(1, done["play"] + 1))  # no gap, no double
    assert sum(m["undone"] for m in log) == done["undo"]
    assert final["state"] == replay(["Ann", "Ben"], None, [m["move"] for m in log if not m["undone"]])
    for s in {*opened, shared}:
        s.close()


@pytest.mark.parametrize(
    "change",
    [
        lambda s, g: s.play(g, 2, MOVES[2]),
        lambda s, g: s.undo(g, 2),  # the replay after undo
    ],
    ids=["play", "undo"],
)
@pytest.mark.sqlite_only
def test_the_write_lock_is_held_while_the_engine_judges(store, game, tmp_path, monkeypatch, change):
    """BEGIN IMMEDIATE: no other writer can slip in between reading the version and writing."""
    play_all(store, game, MOVES[:2])
    real, seen = rules.apply, []

    def spy(state, move):
        other = sqlite3.connect(tmp_path / "test.db", timeout=0, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")
            other.execute("ROLLBACK")
            seen.append("free")
        except sqlite3.OperationalError as e:
            seen.append(str(e))
        finally:
            other.close()
        return real(state, move)

    monkeypatch.setattr(rules, "apply", spy)
    change(store, game)
    assert seen and set(seen) == {"database is locked"}


@pytest.mark.postgres
@pytest.mark.parametrize(
    "change", [lambda s, g: s.play(g, 2, MOVES[2]), lambda s, g: s.undo(g, 2)], ids=["play", "undo"]
)
def test_postgres_holds_the_write_lock_while_the_engine_judges(pg_url, monkeypatch, change):
    """PostgreSQL's BEGIN IMMEDIATE: every change holds the write lock (an advisory lock every
    app server takes) from before it reads the version until it commits."""
    import psycopg

    from companion.store.postgres import WRITE_LOCK

    store = open_store(pg_url)
    game = store.create("tablanette", ["Ann", "Ben"], None)[0]["id"]
    play_all(store, game, MOVES[:2])
    real, seen = rules.apply, []

    def spy(state, move):
        with psycopg.connect(pg_url, autocommit=True) as other:
            free = other.execute("SELECT pg_try_advisory_lock(%s)", (WRITE_LOCK,)).fetchone()[0]
            if free:
                other.execute("SELECT pg_advisory_unlock(%s)", (WRITE_LOCK,))
        seen.append(free)
        return real(state, move)

    monkeypatch.setattr(rules, "apply", spy)
    try:
        change(store, game)
    finally:
        store.close()
    assert seen and set(seen) == {False}


@pytest.mark.sqlite_only
def test_a_writer_waits_for_another_instead_of_failing(store, game, tmp_path):
    other = sqlite3.connect(tmp_path / "test.db", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    result = []
    t = threading.Thread(target=lambda: result.append(store.play(game, 0, LAYOUT)[0]))
    t.start()
    t.join(0.3)
    assert t.is_alive() and result == []  # waiting on the lock (busy timeout), not failed
    other.execute("COMMIT")
    t.join()
    assert result == [1]
    other.close()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_worker_opens_its_own_connection(store, game):
    """gunicorn forks workers from a master that may have used the store."""
    inherited = store._conn()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        code = 1
        try:
            version, _ = store.play(game, 0, LAYOUT)
            code = 0 if version == 1 and store._conn() is not inherited else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert store._conn() is inherited
    assert store.get(game)["version"] == 1


def test_m006_rebuilds_old_english_explanations_as_data(tmp_path):
    """A game stored before m006 kept why a hand was lost as an English sentence; opening
    the database replays its moves, so the explanation becomes data (code and params) the
    pages word in the reader's language, and the moves and version stay as they were."""
    path = tmp_path / "old.db"
    store = SqliteStore(path)
    row, key = store.create("hundred", ["Ann", "Ben"])
    version = 0
    for card in ("10D", "9S"):  # Ben makes 100, then Ann 109: Ann loses the hand
        version, _state = store.play(row["id"], version, {"type": "play", "card": card}, key)
    store.close()
    with sqlite_utils.Database(path) as db:
        data = json.loads(db.execute("SELECT state FROM games WHERE id = ?", (row["id"],)).fetchone()[0])
        data["history"][-1]["reason"] = "Ann played 9S: 100 → 109, over 100"  # as stored before m006
        db.execute("UPDATE games SET state = ? WHERE id = ?", (json.dumps(data), row["id"]))
        db.execute("DELETE FROM companion_migrations WHERE name = 'm006_explanations_as_data'")
        db.conn.commit()
    reopened = SqliteStore(path)
    assert reopened.migrate() == []  # m006 ran on opening
    game = reopened.get(row["id"])
    why = game["state"].history[-1]["reason"]
    assert [(r["code"], r["params"]["player"], r["params"]["total"]) for r in why] == [("bust", "Ann", 109)]
    assert game["version"] == version and [m["move"]["card"] for m in reopened.moves(row["id"])] == ["10D", "9S"]


def test_m007_rewords_a_tallied_hand_of_100(tmp_path):
    """A tallied hand stored before m007 said "Ann lost the hand (tallied)." under "Ann loses
    the hand."; opening the database replays 100/99/98 games, so it says how the loss is known."""
    path = tmp_path / "old.db"
    store = SqliteStore(path)
    row, key = store.create("hundred", ["Ann", "Ben"])
    store.play(row["id"], 0, {"type": "tally", "loser": "Ann"}, key)
    store.close()
    old = {"code": "lost_tallied", "text": "%(player)s lost the hand (tallied).", "params": {"player": "Ann"}}
    with sqlite_utils.Database(path) as db:
        data = json.loads(db.execute("SELECT state FROM games WHERE id = ?", (row["id"],)).fetchone()[0])
        data["history"][-1]["reason"] = data["last"]["reason"] = [old]
        db.execute("UPDATE games SET state = ? WHERE id = ?", (json.dumps(data), row["id"]))
        db.execute("DELETE FROM companion_migrations WHERE name = 'm007_tallied_hands_say_how'")
        db.conn.commit()
    reopened = SqliteStore(path)
    state = reopened.get(row["id"])["state"]
    for said in (state.history[-1]["reason"], state.last["reason"]):
        assert [(r["code"], r["text"], r["params"]) for r in said] == [
            ("lost_tallied", "Tallied: the hand's cards were not entered.", {})
        ]
    assert state.losses == [1, 0] and reopened.get(row["id"])["version"] == 1


# ---------------------------------------------------------------------------
# Finished deals stored once (issue 17)
# ---------------------------------------------------------------------------


def long_game(count: int, seed: int = 3) -> list[dict]:
    """A legal Tablanette game of ``count`` moves (target out of reach): several deals."""
    from tests.test_undo_properties import tablanette_moves

    return tablanette_moves(seed, count)


def test_a_move_writes_a_finished_deal_once_and_the_row_keeps_the_last(store):
    """Each deal's record is one ``deals`` row; the game row's state holds the last only, so
    what a move reads and writes does not grow with the game; get(history=True) has them all."""
    moves = long_game(150)
    row, key = store.create("tablanette", ["Ann", "Ben"], {"target": 10**6})
    play_all(store, row["id"], moves)
    full = replay(["Ann", "Ben"], {"target": 10**6}, moves)
    assert len(full.history) >= 2
    conn = store._conn()
    records = [
        json.loads(r) for (r,) in conn.execute("SELECT record FROM deals WHERE game_id = ? ORDER BY n", (row["id"],))
    ]
    assert records == full.history
    stored = json.loads(conn.execute("SELECT state FROM games WHERE id = ?", (row["id"],)).fetchone()[0])
    assert stored["history"] == full.history[-1:]
    game = store.get(row["id"])
    assert game["deals"] == len(full.history) and game["state"] == last_deal_only(full)
    assert store.get(row["id"], history=True)["state"] == full
    assert store.history(row["id"]) == full.history


def test_m014_moves_the_finished_deals_of_existing_games_apart(tmp_path):
    """A database from before m014 (every finished deal in the game row's state, snapshots
    holding the whole state): opening it keeps every deal once in ``deals``; the games read,
    play on and undo as before, snapshots included."""
    path = tmp_path / "old.db"
    store = SqliteStore(path)
    moves = long_game(120)
    row, key = store.create("tablanette", ["Ann", "Ben"], {"target": 10**6})
    version = play_all(store, row["id"], moves)
    store.close()
    options = {"target": 10**6}
    with sqlite_utils.Database(path) as db:  # back to the shape m013 left
        full = rules.dump(replay(["Ann", "Ben"], options, moves))
        db.execute("UPDATE games SET state = ? WHERE id = ?", (json.dumps(full), row["id"]))
        for seq, _ in db.execute("SELECT seq, snapshot FROM moves WHERE snapshot IS NOT NULL").fetchall():
            whole = rules.dump(replay(["Ann", "Ben"], options, moves[:seq]))
            db.execute("UPDATE moves SET snapshot = ? WHERE seq = ?", (json.dumps(whole), seq))
        db.execute("DROP TABLE deals")
        db.execute("ALTER TABLE games DROP COLUMN deals")
        db.execute("DELETE FROM companion_migrations WHERE name = 'm014_finished_deals_stored_once'")
        db.conn.commit()
    reopened = SqliteStore(path)
    assert reopened.migrate() == []  # m014 ran on opening
    assert reopened.get(row["id"], history=True)["state"] == replay(["Ann", "Ben"], options, moves)
    assert reopened.get(row["id"])["deals"] == len(full["history"])
    for undone in range(1, 40):  # back past a snapshot and a deal's end
        version, state = reopened.undo(row["id"], version, key)
        expected = replay(["Ann", "Ben"], options, moves[:-undone])
        assert reopened.get(row["id"], history=True)["state"] == expected
        assert state == last_deal_only(expected)
    reopened.close()


def test_a_database_made_before_issues_30_and_33_migrates_forward(tmp_path):
    """tests/data/before-issue-30.db was made by the version of 2026-11-26 before issues 30
    and 33 (its migrations recorded by sqlite-utils, up to m014): opened now, the record is
    taken over, m015 applied, and every game still replays to what it stores; the
    look-alike names it let through are told apart, none merged."""
    path = tmp_path / "old.db"
    path.write_bytes((Path(__file__).parent / "data" / "before-issue-30.db").read_bytes())
    store = SqliteStore(path)
    assert store.applied_migrations() == MIGRATIONS
    assert "_sqlite_migrations" not in SQLITE.tables(store._conn())
    assert store.check() == 7
    names = {p["name"] for p in store.roster()}
    assert {"Ｚed", "Zed (2)", "Amy\u200b"} <= names  # the later of the two is numbered
    assert store.migrate() == []


def test_a_move_is_given_plain_data_the_game_it_was_checked_for_and_whether_to_ask(store):
    """The store's move takes data, never its caller's code (issue 44): the game the move
    was checked for (another is a Conflict, nothing written), and whether to ask first (the
    engine's question comes back as ``AskFirst``, nothing written; without ``ask`` the move
    is entered). Its answer brings the move's words, as the log keeps them."""
    assert store.game_of("no-such-game") is None
    row, key = store.create("hundred", ["Ann", "Ben"], {"variant": "98"})
    game_id = row["id"]
    assert store.game_of(game_id) == "hundred"
    with pytest.raises(Conflict):
        store.play_and_read(game_id, 0, {"type": "play", "card": "KS"}, key, game="tute")
    after = store.play_and_read(game_id, 0, {"type": "play", "card": "KS"}, key, game="hundred", ask=True)
    assert after["version"] == 1 and after["said"] == store.moves(game_id)[0]["said"] != []
    over = {"type": "play", "card": "2H"}  # 98 + 2 = 100: over 98, Ben loses the hand
    with pytest.raises(AskFirst) as asked:
        store.play_and_read(game_id, 1, over, key, game="hundred", ask=True)
    assert asked.value.move == over and "loses the hand" in str(asked.value.question)
    assert store.get(game_id)["version"] == 1 and len(store.moves(game_id)) == 1
    assert store.play_and_read(game_id, 1, over, key, game="hundred")["version"] == 2
    assert store.last_move(game_id) == {"move": over, "said": store.moves(game_id)[-1]["said"]}
