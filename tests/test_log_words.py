"""The move log from the words kept with each move (issue 17): the log page and a watcher's
last moves never replay the game; m013 gives the moves stored before it their words."""

import sqlite_utils

from companion import games, web
from companion.games import tablanette
from companion.store import SqliteStore
from tests.conftest import become_referee


def play_sample(store: SqliteStore, name: str) -> str:
    sample = web.get(name).SAMPLE
    row, key = store.create(name, sample["players"], {})
    version = 0
    for move in sample["moves"]:
        version, _state = store.play(row["id"], version, move, key)
    store.undo(row["id"], version, key)  # one undone move: struck through, still in words
    return row["id"]


def test_the_log_page_replays_nothing(app, client, monkeypatch):
    created = client.post("/api/games", json={"game": "tablanette", "players": ["Ann", "Ben"]}).get_json()
    game = created["id"]
    become_referee(client, game, created["edit_key"])
    for version, move in enumerate(web.get("tablanette").SAMPLE["moves"][:3]):
        client.post(
            f"/api/games/{game}/moves",
            json={"version": version, "move": move},
            headers={"X-Edit-Key": created["edit_key"]},
        )

    def no_replay(*args, **kwargs):
        raise AssertionError("the log replayed the game")

    monkeypatch.setattr(tablanette, "apply", no_replay)
    page = client.get(f"/games/{game}/log").get_data(as_text=True)
    assert "laid out" in page and "played" in page
    watcher = app.test_client()
    assert "laid out" in watcher.get(f"/games/{game}").get_data(as_text=True)


def test_m013_gives_older_moves_their_words(tmp_path):
    path = tmp_path / "old.db"
    store = SqliteStore(path)
    ids = {name: play_sample(store, name) for name in games.GAMES}
    before = {name: store.moves(game) for name, game in ids.items()}
    assert all(m["said"] for moves in before.values() for m in moves)
    store.close()
    with sqlite_utils.Database(path) as db:
        db.execute("ALTER TABLE moves DROP COLUMN said")
        db.execute("DELETE FROM companion_migrations WHERE name = 'm013_moves_say_themselves'")
        db.conn.commit()
    reopened = SqliteStore(path)
    assert {name: reopened.moves(game) for name, game in ids.items()} == before
