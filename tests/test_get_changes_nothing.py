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
#: share actions, a player's rename, a correction's moves waiting to be saved.
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
    "pending": '{"1":{"type":"play","card":"10D"}}',
}


def rules_of(app) -> list[tuple[str, set[str]]]:
    """Every rule of the app's URL map with its methods (a new route is walked too)."""
    return sorted((r.rule, set(r.methods or ())) for r in app.url_map.iter_rules())


def fill(rule: str, values: dict) -> str:
    return re.sub(r"<(?:[^:>]+:)?(\w+)>", lambda part: str(values[part.group(1)]), rule)


def a_referees_table(client, app, game) -> dict:
    """A game of ``game`` played a little, with a roster change to undo, and ``client`` its
    referee phone (by a link, as a real phone becomes one): the real ids every rule takes."""
    sample = web.get(game).SAMPLE
    created = client.post("/api/games", json={"game": game, "players": sample["players"]}).get_json()
    game_id, key = created["id"], created["edit_key"]
    for version, move in enumerate(sample["moves"]):
        client.post(f"/api/games/{game_id}/moves", json={"version": version, "move": move}, headers={"X-Edit-Key": key})
    become_referee(client, game_id, key)
    token = client.post(f"/api/games/{game_id}/links", json={"kind": "handover"}, headers={"X-Edit-Key": key})
    token = token.get_json()["url"].rsplit("/", 1)[1]
    store = app.extensions["store"]
    roster = {p["name"]: p["id"] for p in store.roster()}
    other, _ = store.create("tablanette", ["Zed", "Yan"])
    change = store.merge_players({p["name"]: p["id"] for p in store.roster()}["Zed"], roster[sample["players"][0]])
    return {
        "game_id": game_id,
        "key": key,
        "token": token,
        "game": game,
        "filename": "app.css",
        "version": "314.0.7",  # Pyodide's files (views/pyodide.py)
        "name": "pyodide.asm.wasm",
        "player_id": roster[sample["players"][0]],
        "change_id": change,
        "seq": 1,  # the move a correction's page shows (views/correct.py)
        "table": "games",
        "digest": _bundle_digest(app),
    }


def _bundle_digest(app) -> str:
    from companion.views.phone import bundle

    with app.test_request_context():
        return bundle()[0]


@pytest.mark.parametrize("game", games.GAMES)
def test_no_get_head_or_options_changes_anything(client, app, game):
    """HEAD, GET and OPTIONS on every rule of the URL map (issue 30: a HEAD used to delete a
    game), as a referee phone with its session, carrying what the forms post: nothing
    changes, whatever the route and whatever the method."""
    values = a_referees_table(client, app, game)
    version = client.get(f"/api/games/{values['game_id']}").get_json()["version"]
    query = POSTED | {"version": str(version), "token": values["token"], "game": game}
    before = snapshot(app)
    walked = []
    for rule, _methods in rules_of(app):
        url = fill(rule, values)
        for method in ("GET", "HEAD", "OPTIONS"):
            for headers in ({}, {"HX-Request": "true"}):
                answer = client.open(url, method=method, query_string=query, headers=headers)
                assert answer.status_code < 500, (method, url, answer.status_code)
            assert snapshot(app) == before, f"{method} {url} changed the database"
        walked.append(url)
    assert len(walked) >= 30 and any("/tally" in u for u in walked) and any("/delete" in u for u in walked)
    assert any("/undo" in u for u in walked) and any("/merge" in u for u in walked)
    # The handover link still works: opening it (and previews that fetch it) used nothing.
    assert client.post(f"/games/{values['game_id']}/join", data={"token": values["token"]}).status_code == 303


def test_every_rule_that_takes_a_post_takes_only_posts(app):
    """By construction (issue 30): an action has a route of its own that accepts POST only
    (its confirm page, if any, is another view on GET), so no view chooses between showing
    and acting by the request's method, where HEAD and OPTIONS would fall through."""
    mixed = [rule for rule, methods in rules_of(app) if "POST" in methods and methods - {"POST", "OPTIONS"}]
    assert mixed == []


@pytest.mark.parametrize("game", ["tablanette", "tute"])
def test_no_post_without_its_token_changes_anything(csrf_app, game):
    """Every POST rule, posted by the referee's own phone (its session) but without the
    form's CSRF token, with what the forms post: nothing changes. The JSON API takes no
    cookie (its key is a header), and a form's body is not JSON: refused there too."""
    client = csrf_app.test_client()
    store = csrf_app.extensions["store"]
    row, key = store.create(game, web.get(game).SAMPLE["players"])
    with client.session_transaction() as session:
        session["keys"] = {row["id"]: key}
    values = {
        "game_id": row["id"],
        "token": store.make_link(row["id"], "add"),
        "game": game,
        "player_id": store.roster()[0]["id"],
        "change_id": 1,
        "seq": 1,
        "filename": "app.css",
        "version": "314.0.7",  # Pyodide's files (views/pyodide.py)
        "name": "pyodide.asm.wasm",
        "table": "games",
    }
    before = snapshot(csrf_app)
    posted = 0
    for rule, methods in rules_of(csrf_app):
        if "POST" not in methods:
            continue
        url = fill(rule, values)
        for headers in ({}, {"HX-Request": "true"}):
            answer = client.post(url, data=POSTED | {"version": "0", "token": values["token"]}, headers=headers)
            assert 400 <= answer.status_code < 500, (url, answer.status_code)
        assert snapshot(csrf_app) == before, f"POST {url} without its token changed the database"
        posted += 1
    assert posted >= 15
