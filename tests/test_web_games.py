"""What every game gets from the app alike: the page, the move log in words, the
transcript round trip, undo, and the watcher's 204 (DESIGN.md "The web")."""

import pytest

GAMES = {
    "tablanette": (
        ["Ann", "Ben"],
        [{"type": "layout", "cards": ["2S", "3H", "5D", "9C"]}, {"type": "play", "card": "7C"}],
        "Ben played 7♣, took 2♠ 5♦",
    ),
    "tute": (
        ["Ann", "Ben", "Cat", "Dan"],
        [{"type": "trump", "card": "5D"}, {"type": "play", "card": "7S"}],
        "Ben played 7♠",
    ),
    "tantony": (
        ["Nan", "Eve", "Sam", "Wes"],
        [{"type": "play", "card": "9D"}, {"type": "play", "card": "3D"}],
        "Sam played 3♦",
    ),
    "hundred": (
        ["Ann", "Ben", "Cat"],
        [{"type": "play", "card": "8H"}, {"type": "play", "card": "9H"}],
        "Cat played 9♥: 8 → 17",
    ),
}


def create(client, game):
    players, moves, _ = GAMES[game]
    created = client.post("/api/games", json={"game": game, "players": players, "options": {}}).get_json()
    headers = {"X-Edit-Key": created["edit_key"]}
    for version, move in enumerate(moves):
        answer = client.post(
            f"/api/games/{created['id']}/moves", json={"version": version, "move": move}, headers=headers
        )
        assert answer.status_code == 200, answer.get_json()
    return created


@pytest.mark.parametrize("game", GAMES)
def test_page_log_transcript_and_undo(client, game):
    created = create(client, game)
    game_id, headers = created["id"], {"X-Edit-Key": created["edit_key"]}
    assert client.get(f"/games/{game_id}").status_code == 200
    log = client.get(f"/games/{game_id}/log").get_data(as_text=True)
    assert GAMES[game][2] in log
    transcript = client.get(f"/api/games/{game_id}/transcript").get_json()
    copy = client.post("/api/games/import", json=transcript)
    assert copy.status_code == 201
    assert (
        client.get(f"/api/games/{copy.get_json()['id']}").get_json()["view"]
        == client.get(f"/api/games/{game_id}").get_json()["view"]
    )
    undone = client.post(f"/api/games/{game_id}/undo", json={"version": 2}, headers=headers)
    assert undone.status_code == 200 and undone.get_json()["version"] == 3
    log = client.get(f"/games/{game_id}/log").get_data(as_text=True)
    assert "undone" in log
    assert client.get(f"/games/{game_id}/live?version=3").status_code == 204


@pytest.mark.parametrize("game", GAMES)
def test_home_lists_every_game(client, game):
    created = create(client, game)
    client.get(f"/games/{created['id']}")  # opened on this phone
    home = client.get("/").get_data(as_text=True)
    assert GAMES[game][0][0] in home
