"""The audit trail for disputes (issue 14): every stored move keeps when it was entered
and by which referee phone (the id of its ``referees`` row, never the key), an undo keeps
who undid it and when, and the move log says so in the table's words ("phone 2",
"this phone", "undone by phone 1 at 21:40"), with no internal id on the page."""

from __future__ import annotations

import json
import re
import sqlite3

import orjson
import pytest
import sqlite_utils

from companion import create_app, games
from companion.store import NotReferee, migrations
from companion.store.dialect import SQLITE
from tests.conftest import become_referee, make_app, new_game, post_move, version_of

HX = {"HX-Request": "true"}
LAYOUT = {"type": "layout", "cards": ["2C", "3D", "4H", "8S"]}
QUEEN = {"type": "play", "card": "QH", "capture": ["2C", "3D", "8S"]}


def key_of(phone, game_id: str) -> str:
    """The edit key a phone keeps in its session cookie."""
    with phone.session_transaction() as session:
        return session["keys"][game_id]


def add_phone(referee, phone, game_id: str, kind: str = "add") -> None:
    """The referee taps "Add a referee" (or "Hand over") in the share panel; ``phone``
    opens the link and taps the button."""
    panel = referee.post(f"/games/{game_id}/share/link", data={"kind": kind}, headers=HX).get_data(as_text=True)
    url = re.search(r'aria-label="Referee link" value="([^"]+)"', panel).group(1)
    path = re.sub(r"^https?://[^/]+", "", url)
    assert phone.get(path).status_code == 200
    answer = phone.post(path.rsplit("/join/", 1)[0] + "/join", data={"token": path.rsplit("/", 1)[1]})
    assert answer.status_code == 303


def layout(phone, game_id: str):
    return post_move(phone, game_id, type="layout", **{"cards[]": LAYOUT["cards"]})


def undo(phone, game_id: str):
    return phone.post(f"/games/{game_id}/undo", data={"version": version_of(phone, game_id)}, headers=HX)


def log_items(phone, game_id: str) -> list[str]:
    """The log's entries as the phone reads them (text only, spaces collapsed), without the
    button that corrects each (a referee's: views/correct.py)."""
    page = phone.get(f"/games/{game_id}/log").get_data(as_text=True)
    page = re.sub(r'<a class="button correct"[^>]*>[^<]*</a>', "", page)
    items = re.findall(r"<li[^>]*>(.*?)</li>", page[page.index('<ol class="log"') :], re.S)
    return [" ".join(re.sub(r"<[^>]+>", " ", item).split()) for item in items]


def moves_table(app) -> list[tuple]:
    conn = sqlite3.connect(app.config["DATABASE"])
    try:
        return conn.execute("SELECT * FROM moves ORDER BY game_id, seq").fetchall()
    finally:
        conn.close()


@pytest.fixture
def store(app):
    return app.extensions["store"]


# ---------------------------------------------------------------------------
# What is recorded
# ---------------------------------------------------------------------------


def test_a_move_through_the_web_records_the_phone_that_entered_it(client, store):
    game_id = new_game(client)
    assert layout(client, game_id).status_code == 200
    (move,) = store.moves(game_id)
    assert move["referee"] == store.referee_id(game_id, key_of(client, game_id)) is not None
    assert move["imported"] is False and move["undone_by"] is None and move["undone_time"] is None
    assert move["time"]


def test_a_move_and_an_undo_through_the_api_record_the_key_s_phone(client, store):
    created = client.post("/api/games", json={"game": "tablanette", "players": ["Ann", "Ben"]}).get_json()
    game_id, headers = created["id"], {"X-Edit-Key": created["edit_key"]}
    phone = store.referee_id(game_id, created["edit_key"])
    assert (
        client.post(f"/api/games/{game_id}/moves", json={"version": 0, "move": LAYOUT}, headers=headers).status_code
        == 200
    )
    assert client.post(f"/api/games/{game_id}/undo", json={"version": 1}, headers=headers).status_code == 200
    (move,) = store.moves(game_id)
    assert move["referee"] == phone and move["undone_by"] == phone
    assert move["undone"] and move["undone_time"] >= move["time"]


def test_a_tally_records_the_phone_too(client, store):
    created = client.post("/api/games", json={"game": "hundred", "players": ["Ann", "Ben", "Cat"]}).get_json()
    game_id = created["id"]
    become_referee(client, game_id, created["edit_key"])
    answer = client.post(f"/games/{game_id}/tally", data={"version": 0, "loser": "Ben"}, headers=HX)
    assert answer.status_code == 204
    (move,) = store.moves(game_id)
    assert move["referee"] == store.referee_id(game_id, key_of(client, game_id)) is not None


def test_two_referee_phones_get_different_numbers_and_an_undo_says_who(app, client, store):
    game_id = new_game(client)
    second, watcher = app.test_client(), app.test_client()
    add_phone(client, second, game_id)
    assert layout(client, game_id).status_code == 200
    assert post_move(second, game_id, type="play", card="QH").status_code == 200
    assert undo(client, game_id).status_code == 200

    first_id, second_id = (store.referee_id(game_id, key_of(p, game_id)) for p in (client, second))
    moves = store.moves(game_id)
    assert [m["referee"] for m in moves] == [first_id, second_id] and first_id != second_id
    assert moves[1]["undone_by"] == first_id and moves[0]["undone_by"] is None
    assert store.phone_numbers(game_id) == {first_id: 1, second_id: 2}

    undone_at = moves[1]["undone_time"][11:16]
    laid, queen = (m["time"][11:16] for m in moves)
    assert log_items(client, game_id) == [
        f"Deal 1: Ann laid out 2♣ 3♦ 4♥ 8♠. {laid} · this phone",
        f"Ben played Q♥ and took 2♣ 3♦ 8♠. {queen} · phone 2 · undone by this phone at {undone_at}",
    ]
    assert log_items(second, game_id) == [
        f"Deal 1: Ann laid out 2♣ 3♦ 4♥ 8♠. {laid} · phone 1",
        f"Ben played Q♥ and took 2♣ 3♦ 8♠. {queen} · this phone · undone by phone 1 at {undone_at}",
    ]
    assert log_items(watcher, game_id) == [
        f"Deal 1: Ann laid out 2♣ 3♦ 4♥ 8♠. {laid} · phone 1",
        f"Ben played Q♥ and took 2♣ 3♦ 8♠. {queen} · phone 2 · undone by phone 1 at {undone_at}",
    ]
    page = second.get(f"/games/{game_id}/log").get_data(as_text=True)
    assert "this is phone 2" in page and "<del>Ben played Q♥ and took 2♣ 3♦ 8♠.</del>" in page
    assert "this is phone" not in watcher.get(f"/games/{game_id}/log").get_data(as_text=True)


def test_a_handed_over_phone_keeps_its_number_in_the_log(app, client, store):
    game_id = new_game(client)
    assert layout(client, game_id).status_code == 200
    new_referee = app.test_client()
    add_phone(client, new_referee, game_id, kind="handover")
    assert post_move(new_referee, game_id, type="play", card="QH").status_code == 200
    assert [e.rsplit("· ", 1)[1] for e in log_items(new_referee, game_id)] == ["phone 1", "this phone"]
    assert [e.rsplit("· ", 1)[1] for e in log_items(client, game_id)] == ["phone 1", "phone 2"]  # no longer a referee


def test_revoking_the_other_referees_keeps_this_phone_s_number(app, client, store):
    """The key changes; the phone does not: it stays phone 1 in the log."""
    game_id = new_game(client)
    second = app.test_client()
    add_phone(client, second, game_id)
    assert layout(client, game_id).status_code == 200
    before = store.referee_id(game_id, key_of(client, game_id))
    old_key = key_of(client, game_id)
    assert client.post(f"/games/{game_id}/share/revoke", headers=HX).status_code == 200
    assert key_of(client, game_id) != old_key and not store.check_key(game_id, old_key)
    assert store.referee_id(game_id, key_of(client, game_id)) == before
    assert not store.check_key(game_id, key_of(second, game_id))
    assert post_move(client, game_id, type="play", card="QH").status_code == 200
    assert [e.rsplit("· ", 1)[1] for e in log_items(client, game_id)] == ["this phone", "this phone"]
    assert "this is phone 1" in client.get(f"/games/{game_id}/log").get_data(as_text=True)


def test_imported_moves_are_shown_as_imported(client, store):
    created = client.post("/api/games", json={"game": "tablanette", "players": ["Ann", "Ben"]}).get_json()
    headers = {"X-Edit-Key": created["edit_key"]}
    client.post(f"/api/games/{created['id']}/moves", json={"version": 0, "move": LAYOUT}, headers=headers)
    transcript = client.get(f"/api/games/{created['id']}/transcript").get_json()
    assert set(transcript) == {"format", "game", "players", "options", "moves"}  # the format is unchanged
    copy = client.post("/api/games/import", json=transcript).get_json()
    (move,) = store.moves(copy["id"])
    assert move["imported"] is True and move["referee"] is None
    assert log_items(client, copy["id"])[0].endswith("· imported")


def test_a_move_stored_without_a_key_names_no_phone(client, store):
    row, _ = store.create("tablanette", ["Ann", "Ben"])
    store.play(row["id"], 0, LAYOUT)
    store.undo(row["id"], 1)
    (move,) = store.moves(row["id"])
    assert move["referee"] is None and move["undone_by"] is None and move["undone_time"]
    (item,) = log_items(client, row["id"])
    assert "phone" not in item and f"undone at {move['undone_time'][11:16]}" in item


# ---------------------------------------------------------------------------
# Keys stay secret; a revoked key changes nothing
# ---------------------------------------------------------------------------


def test_no_key_or_phone_id_in_the_moves_table_or_the_log(app, client, store):
    game_id = new_game(client)
    second = app.test_client()
    add_phone(client, second, game_id)
    layout(client, game_id)
    post_move(second, game_id, type="play", card="QH")
    undo(second, game_id)
    keys = [key_of(p, game_id) for p in (client, second)]
    ids = list(store.phone_numbers(game_id))
    stored = repr(moves_table(app))
    assert all(k not in stored for k in keys)
    for phone in (client, second, app.test_client()):
        page = phone.get(f"/games/{game_id}/log").get_data(as_text=True)
        assert all(secret not in page for secret in keys + ids)


def test_a_revoked_key_changes_nothing_even_past_the_view_s_check(client, store):
    row, key = store.create("tablanette", ["Ann", "Ben"])
    other = store.rotate_key(row["id"], key)  # ``key`` is revoked
    for change in (lambda: store.play(row["id"], 0, LAYOUT, key=key), lambda: store.undo(row["id"], 0, key=key)):
        with pytest.raises(NotReferee):
            change()
    assert store.get(row["id"])["version"] == 0 and store.moves(row["id"]) == []
    store.play(row["id"], 0, LAYOUT, key=other)
    with pytest.raises(NotReferee):
        store.undo(row["id"], 1, key="not a key")
    assert store.get(row["id"])["version"] == 1 and not store.moves(row["id"])[0]["undone"]


def test_a_key_revoked_between_the_check_and_the_write_is_a_403(app, client, store, monkeypatch):
    """The store's own check, inside the write transaction, answers like the view's."""
    created = client.post("/api/games", json={"game": "tablanette", "players": ["Ann", "Ben"]}).get_json()
    game_id, key = created["id"], created["edit_key"]
    store.rotate_key(game_id, key)
    monkeypatch.setattr(store, "check_key", lambda game, k: True)  # the view's check passed just before
    answer = client.post(
        f"/api/games/{game_id}/moves", json={"version": 0, "move": LAYOUT}, headers={"X-Edit-Key": key}
    )
    assert answer.status_code == 403 and "error" in answer.get_json()
    assert store.get(game_id)["version"] == 0 and store.moves(game_id) == []


# ---------------------------------------------------------------------------
# An older database
# ---------------------------------------------------------------------------


def test_m005_upgrades_a_database_keeping_its_moves_readable(tmp_path):
    """A database from before m005: its moves were stored with the old columns only."""
    path = str(tmp_path / "old.db")
    rules = games.get("tablanette")
    state = rules.apply(rules.start(["Ann", "Ben"], None), LAYOUT)
    with sqlite_utils.Database(path) as db:
        migrations.migrate(db.conn, SQLITE, stop_before="m005_who_entered_each_move")
        assert "referee" not in db.table("moves").columns_dict
        db.execute(
            "INSERT INTO games (id, game, players, options, created, updated, version, state) "
            "VALUES ('old', 'tablanette', '[\"Ann\",\"Ben\"]', 'null', ?, ?, 3, ?)",
            ("2026-01-01T20:00:00+00:00", "2026-01-01T20:02:00+00:00", orjson.dumps(rules.dump(state)).decode()),
        )
        db.execute(
            "INSERT INTO referees (id, game_id, key_hash, created) VALUES ('r1', 'old', 'x$y', ?)",
            ("2026-01-01T20:00:00+00:00",),
        )
        for seq, move, time, undone in [(1, LAYOUT, "20:00", 0), (2, QUEEN, "20:01", 1)]:
            db.execute(
                "INSERT INTO moves (game_id, seq, move, time, undone) VALUES ('old', ?, ?, ?, ?)",
                (seq, json.dumps(move), f"2026-01-01T{time}:30+00:00", undone),
            )
        db.conn.commit()
    app = create_app({"TESTING": True, "DATABASE": path, "SECRET_KEY": "t"}, instance_path=str(tmp_path))
    store = app.extensions["store"]
    assert store.migrate() == []  # m005 was applied on opening
    assert [
        (m["seq"], m["referee"], m["imported"], m["undone"], m["undone_by"], m["undone_time"])
        for m in store.moves("old")
    ] == [
        (1, None, False, False, None, None),
        (2, None, False, True, None, None),
    ]
    assert log_items(app.test_client(), "old") == [
        "Deal 1: Ann laid out 2♣ 3♦ 4♥ 8♠. 20:00",
        "Ben played Q♥ and took 2♣ 3♦ 8♠. 20:01 · undone",
    ]
    assert store.transcript("old")["moves"] == [LAYOUT]


# ---------------------------------------------------------------------------
# Whose clock
# ---------------------------------------------------------------------------


def test_the_log_reads_the_table_s_clock_not_utc(tmp_path):
    """Times are stored in UTC; at a table in Tokyo "12:03 UTC" is 21:03 on every watch."""
    app = make_app(tmp_path, TIMEZONE="Asia/Tokyo")
    phone = app.test_client()
    game_id = new_game(phone)
    layout(phone, game_id)
    stamp = app.extensions["store"].moves(game_id)[0]["time"]
    with app.app_context():
        shown = app.jinja_env.filters["clock"](stamp)
        assert app.jinja_env.filters["clock"]("2026-11-23T12:03:00.000000+00:00") == "21:03"
    assert shown != stamp[11:16] and log_items(phone, game_id)[0].endswith(f"{shown} · this phone")


@pytest.mark.parametrize("zone", ["Mars/Olympus", "../etc/passwd", "Tokyo time"])
def test_a_time_zone_that_does_not_exist_fails_at_start_up(tmp_path, zone):
    with pytest.raises(ValueError, match="COMPANION_TIMEZONE"):
        create_app(
            {"DATABASE": str(tmp_path / "t.db"), "SECRET_KEY": "t", "TIMEZONE": zone}, instance_path=str(tmp_path)
        )
