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
        "error": "This address started too many games just now. Wait a little and try again."
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
