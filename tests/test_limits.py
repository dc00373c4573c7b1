"""Rate limits on starting games (issue 14): a script can't fill the disk, and the games
in progress never notice. One budget per client address covers the new-game form, the
API and imports; over it the answer is 429 with Retry-After, and nothing is stored."""

from __future__ import annotations

import pytest

from companion import create_app
from tests.conftest import form_values


@pytest.fixture
def limited(tmp_path):
    config = {"TESTING": True, "SECRET_KEY": "t", "DATABASE": str(tmp_path / "t.db"), "WTF_CSRF_ENABLED": False}
    return create_app(config | {"CREATE_LIMIT": "3 per minute"}, str(tmp_path))


def count(app) -> int:
    return len(app.extensions["store"].list_games())


def test_a_burst_of_new_games_gets_429_with_retry_after_and_stores_nothing(limited):
    client = limited.test_client()
    game = client.post("/api/games", json={"game": "hundred", "players": ["A", "B"]}).get_json()
    form = form_values(client.get("/games/new").get_data(as_text=True)) | {"player0": "Ann", "player1": "Ben"}
    assert client.post("/games/new", data=form).status_code == 303
    transcript = client.get(f"/api/games/{game['id']}/transcript").get_json()
    assert client.post("/api/games/import", json=transcript).status_code == 201  # the third of 3
    for over in (
        client.post("/api/games", json={"game": "hundred", "players": ["A", "B"]}),
        client.post("/api/games/import", json=transcript),
        client.post("/games/new", data=form),
    ):
        assert over.status_code == 429 and int(over.headers["Retry-After"]) > 0
    assert client.post("/api/games", json={"game": "hundred", "players": ["A", "B"]}).get_json() == {
        "error": "This address has started 3 games in 1 minute, as many as it may. Wait a little and try again.",
        "code": "too_many_games",
    }
    assert "Wait a little" in client.post("/games/new", data=form).get_data(as_text=True)
    assert count(limited) == 3
    # the game in progress is unaffected: moves, reads and the new-game page still answer
    played = client.post(
        f"/api/games/{game['id']}/moves",
        json={"version": 0, "move": {"type": "play", "card": "8H"}},
        headers={"X-Edit-Key": game["edit_key"]},
    )
    assert played.status_code == 200
    assert client.get(f"/games/{game['id']}").status_code == 200
    assert client.get("/games/new").status_code == 200


def test_each_address_has_its_own_budget(limited):
    client = limited.test_client()
    for _ in range(3):
        client.post("/api/games", json={"game": "tute", "players": ["A", "B", "C"]})
    assert client.post("/api/games", json={"game": "tute", "players": ["A", "B", "C"]}).status_code == 429
    other = client.post(
        "/api/games", json={"game": "tute", "players": ["A", "B", "C"]}, environ_base={"REMOTE_ADDR": "10.0.0.7"}
    )
    assert other.status_code == 201


def test_the_limit_comes_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_CREATE_LIMIT", "1 per hour")
    app = create_app({"TESTING": True, "SECRET_KEY": "t", "DATABASE": str(tmp_path / "t.db")}, str(tmp_path))
    client = app.test_client()
    assert client.post("/api/games", json={"game": "tute", "players": ["A", "B", "C"]}).status_code == 201
    assert client.post("/api/games", json={"game": "tute", "players": ["A", "B", "C"]}).status_code == 429


def test_refused_creates_do_not_count_toward_the_limit(limited):
    """Issue 44: the budget counts games made. Refused bodies (the schema's 400, the game's
    422), a form sent back with what to change and a form sent again (which opens the game it
    made) leave it as it was: after 40 of them, 3 games are still made, and the 429 after
    them says how many games this address started, in the request's language."""
    client = limited.test_client()
    form = form_values(client.get("/games/new").get_data(as_text=True)) | {"player0": "Ann", "player1": "Ben"}
    for i in range(10):
        assert client.post("/api/games", json={"game": "hundred", "players": ["A"]}).status_code == 400
        bad_dealer = {"game": "hundred", "players": ["A", "B"], "options": {"dealer": "Zed"}}
        assert client.post("/api/games", json=bad_dealer).status_code == 422
        assert client.post("/api/games/import", json={"game": "tute"}).status_code == 400
        assert client.post("/games/new", data=form | {"player0": ""}).status_code == 422
    assert count(limited) == 0
    assert client.post("/games/new", data=form).status_code == 303
    for _ in range(5):  # the same form again: the game it made, not another
        assert client.post("/games/new", data=form).status_code == 303
    assert count(limited) == 1
    for _ in range(2):
        assert client.post("/api/games", json={"game": "tute", "players": ["A", "B", "C"]}).status_code == 201
    over = client.post(
        "/api/games", json={"game": "tute", "players": ["A", "B", "C"]}, headers={"Accept-Language": "ja"}
    )
    assert over.status_code == 429 and 0 < int(over.headers["Retry-After"]) <= 60
    assert over.get_json()["error"].startswith("このアドレスから1分間に3件のゲームが作られました")
    assert count(limited) == 3


def test_a_503_on_a_create_says_retry_after_2(limited, monkeypatch):
    """Issue 44: the database out of reach on a create is a 503 with its own Retry-After: 2,
    not the limit's window (Flask-Limiter's headers set it to the window's end); no answer
    but a 429 carries the limit's Retry-After, and the 503 does not count as a game made."""
    import sqlite3

    client = limited.test_client()
    assert "Retry-After" not in client.post("/api/games", json={"game": "tute", "players": ["A", "B", "C"]}).headers
    store = limited.extensions["store"]

    def locked(*args, **kwargs):
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(store, "create", locked)
    for _ in range(5):
        answer = client.post("/api/games", json={"game": "tute", "players": ["A", "B", "C"]})
        assert answer.status_code == 503 and answer.headers.getlist("Retry-After") == ["2"]
        form = form_values(client.get("/games/new").get_data(as_text=True)) | {"player0": "Ann", "player1": "Ben"}
        page = client.post("/games/new", data=form)
        assert page.status_code == 503 and page.headers.getlist("Retry-After") == ["2"]
    monkeypatch.undo()
    assert client.post("/api/games", json={"game": "tute", "players": ["A", "B", "C"]}).status_code == 201
