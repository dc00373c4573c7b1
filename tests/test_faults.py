"""Faults said plainly, nothing half-written (issue 30): a database that is full or
read-only answers a change with a 503 and Retry-After (the game page's request, which the
phone keeps waiting, or the API's JSON refusal with ``code`` "unavailable"), and the game
is exactly as it was; once the fault is gone, the same request is applied, once.

Both faults are made on the store's own connection (the test client serves a request on
the test's thread, so on that connection): a full disk as ``PRAGMA max_page_count`` held at
the file's size, so the first change that needs one more page is refused; read-only as
``PRAGMA query_only`` (the tests run as root, for whom a read-only file is still writable).
"""

from __future__ import annotations

import secrets

import pytest

#: Changes tried (a move, then its undo, again and again) before the full database must refuse one.
TRIES = 400

#: A fault: how it is made, how it is lifted, and SQLite's words for it (in the server's log).
FAULTS = {
    "full": ("PRAGMA max_page_count = {pages}", "PRAGMA max_page_count = 1073741823", "database or disk is full"),
    "read-only": ("PRAGMA query_only = ON", "PRAGMA query_only = OFF", "attempt to write a readonly database"),
}


@pytest.fixture
def game(client):
    """A game of 100 and its edit key; the client is one of its referee phones."""
    created = client.post("/api/games", json={"game": "hundred", "players": ["Ann", "Ben"]}).get_json()
    from tests.conftest import become_referee

    become_referee(client, created["id"], created["edit_key"])
    return created


def stored(store, game_id: str) -> list:
    """Everything stored about the game: its row (version, state), moves, deals and seats."""
    return [
        [tuple(r) for r in store.query(f"SELECT * FROM {table} WHERE {column} = ? ORDER BY rowid", (game_id,))]
        for table, column in (("games", "id"), ("moves", "game_id"), ("deals", "game_id"), ("seats", "game_id"))
    ]


def through_the_page(client, game, version: int, action: str, entry: str):
    data = {"version": version} | ({"type": "play", "card": "8H", "entry": entry} if action == "moves" else {})
    return client.post(f"/games/{game['id']}/{action}", data=data, headers={"HX-Request": "true"})


def through_the_api(client, game, version: int, action: str, entry: str):
    body = {"version": version} | ({"move": {"type": "play", "card": "8H"}} if action == "moves" else {})
    return client.post(f"/api/games/{game['id']}/{action}", json=body, headers={"X-Edit-Key": game["edit_key"]})


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("send", [through_the_page, through_the_api])
def test_a_change_the_database_cant_write_is_a_503_and_changes_nothing(client, app, game, fault, send, caplog):
    store = app.extensions["store"]
    conn = store._conn()
    on, off, said = FAULTS[fault]
    conn.execute(on.format(pages=conn.execute("PRAGMA page_count").fetchone()[0]))
    version = store.get(game["id"])["version"]
    for i in range(TRIES):  # a move, its undo, ... until one needs a page the file can't have
        action, entry = ("moves", "undo")[i % 2], secrets.token_hex(16)
        before = stored(store, game["id"])
        answer = send(client, game, version, action, entry)
        if answer.status_code != 200:
            break
        version += 1
    assert answer.status_code == 503, answer.get_data(as_text=True)
    assert said in caplog.text  # the fault made, not another
    assert int(answer.headers["Retry-After"]) > 0
    if send is through_the_api:
        refusal = answer.get_json()
        assert refusal["code"] == "unavailable" and refusal["error"].startswith("The games can't be reached just now.")
    else:
        assert "Try again in a moment" in answer.get_data(as_text=True)
    assert stored(store, game["id"]) == before  # nothing half-written
    conn.execute(off)
    again = send(client, game, version, action, entry)  # the phone's retry, once the fault is gone
    assert again.status_code == 200 and store.get(game["id"])["version"] == version + 1
