"""An id in a path is checked by its rule before any query (issue 44): a game's id by one
pattern on every route, the web's and the API's alike (a NUL, which PostgreSQL's text
refuses, is "no such game", never a 500), a player's or a roster change's id by the range
its column holds. The rules come from the app's URL map, so a new route is checked too."""

from __future__ import annotations

import re

import pytest

from tests.conftest import become_referee, make_app

#: Ids no game can have: a NUL (PostgreSQL: "text fields cannot contain NUL"), a slash
#: escaped, a dot-dot, one too long.
BAD_GAME_IDS = ["ab%00cd", "%00", "..", "a%2Fb", "x" * 65]


def rules_with(app, argument: str) -> list[tuple[str, str]]:
    """(rule, method) for every rule of the app taking ``argument``, each of its methods."""
    return sorted(
        (rule.rule, method)
        for rule in app.url_map.iter_rules()
        if argument in rule.arguments
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"})
    )


def filled(rule: str, values: dict) -> str:
    return re.sub(r"<(?:[^:>]+:)?(\w+)>", lambda part: str(values[part.group(1)]), rule)


def test_a_game_id_no_game_can_have_is_a_404_on_every_route(tmp_path, database):
    """Every route taking a game's id, each method, with ids no game can have: a 404 before
    any query (on PostgreSQL a NUL reached the query and answered 500 on 17 web routes)."""
    url = None if database.startswith("sqlite:") else database
    app = make_app(tmp_path, DATABASE_URL=url)
    client = app.test_client()
    routes = rules_with(app, "game_id")
    assert len([r for r in routes if not r[0].startswith("/api/")]) >= 17  # the web's 8 GET and 9 POST, at least
    try:
        for rule, method in routes:
            for bad in BAD_GAME_IDS:
                path = filled(rule, {"game_id": bad, "token": "t" * 22, "seq": 1})
                answer = client.open(path, method=method, data={"version": "0"})
                assert answer.status_code == 404, (method, path, answer.status_code)
    finally:
        app.extensions["store"].close()


@pytest.mark.parametrize("player_id", ["9223372036854775808", "9223372036854775807", "2147483648", "0", "1" + "0" * 30])
def test_a_player_id_no_column_holds_is_a_404(tmp_path, database, player_id):
    """``/players/9223372036854775808`` was a 500 (SQLite's "Python int too large", and
    PostgreSQL's INTEGER stops at 2**31 - 1): every route taking a player's or a roster
    change's id answers an id out of range as one not found (and the largest one the
    column holds, or PostgreSQL's beyond its own, as one no player has)."""
    url = None if database.startswith("sqlite:") else database
    app = make_app(tmp_path, DATABASE_URL=url)
    client = app.test_client()
    routes = rules_with(app, "player_id")
    assert len(routes) >= 4
    try:
        for rule, method in routes:
            path = filled(rule, {"player_id": player_id, "change_id": player_id})
            answer = client.open(path, method=method, data={"name": "Zed", "into": "1"})
            assert answer.status_code == 404, (method, path, answer.status_code)
    finally:
        app.extensions["store"].close()


@pytest.mark.parametrize("into", ["9223372036854775808", "1" + "0" * 30])
def test_a_merge_into_an_id_no_column_holds_is_refused(tmp_path, database, into):
    """The merge form's other player (a hidden field) is an id too: one out of range is a 400
    (SQLite's "Python int too large" was a 500)."""
    url = None if database.startswith("sqlite:") else database
    app = make_app(tmp_path, DATABASE_URL=url)
    client = app.test_client()
    try:
        made = client.post("/api/games", json={"game": "tute", "players": ["A", "B", "C"]}).get_json()
        become_referee(client, made["id"], made["edit_key"])
        player = app.extensions["store"].query("SELECT id FROM players ORDER BY id LIMIT 1")[0]["id"]
        assert client.post(f"/players/{player}/merge", data={"into": into}).status_code == 400
    finally:
        app.extensions["store"].close()
