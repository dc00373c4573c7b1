"""No GET changes anything (issue 14): every route the app answers to GET, asked by a
referee phone with a query string that carries what its forms post (a tally to record, a
move, a new game, a referee link's token, a delete's confirmation), leaves the database
exactly as it was. The routes come from the app's URL map, so a new route is walked too.
A link preview or a link on another site (SameSite=Lax sends the cookie) must never
record a deal for the referee who follows it."""

from __future__ import annotations

import re

import pytest

from companion import games, web
from tests.conftest import become_referee, snapshot

#: Everything the app's forms post, as a GET would carry it: the tally screens' record
#: button and their fields' names, the old tally command language, a move, a new game,
#: share actions, a player's rename.
POSTED = {
    "record": "record",
    "act": "record",
    "confirm": "1",
    "type": "tally",
    "card": "10D",
    "loser": "Ann",
    "last_trick": "Ann",
    "set_last_trick": "Ann",
    "points_0": "60",
    "points_1": "30",
    "points_2": "10",
    "cards_0": "30",
    "cante_20": "0",
    "add_sweep": "0",
    "lost": "0",
    "kind": "add",
    "archived": "1",
    "game": "tute",
    "player0": "Ann",
    "player1": "Ben",
    "player2": "Cat",
    "name": "Zed",
    "into": "2",
}


def get_routes(app) -> list[str]:
    return sorted({r.rule for r in app.url_map.iter_rules() if "GET" in r.methods})


@pytest.mark.parametrize("game", games.GAMES)
def test_no_get_changes_anything(client, app, game):
    sample = web.get(game).SAMPLE
    created = client.post("/api/games", json={"game": game, "players": sample["players"]}).get_json()
    game_id, key = created["id"], created["edit_key"]
    for version, move in enumerate(sample["moves"]):
        client.post(f"/api/games/{game_id}/moves", json={"version": version, "move": move}, headers={"X-Edit-Key": key})
    become_referee(client, game_id, key)
    token = client.post(f"/api/games/{game_id}/links", json={"kind": "handover"}, headers={"X-Edit-Key": key})
    token = token.get_json()["url"].rsplit("/", 1)[1]
    version = client.get(f"/api/games/{game_id}").get_json()["version"]
    values = {
        "game_id": game_id,
        "token": token,
        "game": game,
        "filename": "app.css",
        "player_id": "1",
        "table": "games",
    }
    query = POSTED | {"version": str(version), "token": token, "game": game}
    before = snapshot(app)
    walked = []
    for rule in get_routes(app):
        url = re.sub(r"<(?:[^:>]+:)?(\w+)>", lambda part: values[part.group(1)], rule)
        for headers in ({}, {"HX-Request": "true"}):
            answer = client.get(url, query_string=query, headers=headers)
            assert answer.status_code < 500, (url, answer.status_code)
        walked.append(url)
        assert snapshot(app) == before, f"GET {url} changed the database"
    assert len(walked) >= 15 and any("/tally" in u for u in walked) and any("/delete" in u for u in walked)
    # The handover link still works: opening it (and previews that fetch it) used nothing.
    assert client.post(f"/games/{game_id}/join", data={"token": token}).status_code == 303
