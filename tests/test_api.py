"""The JSON API and transcripts (DESIGN.md "JSON API and transcripts"), status by status,
on SQLite and on PostgreSQL (the ``database`` fixture: each test runs on both)."""

import itertools

import pytest

from tests.conftest import make_app


@pytest.fixture
def app(tmp_path, database):
    app = make_app(tmp_path, DATABASE_URL=database)
    yield app
    app.extensions["store"].close()


LAYOUT = {"type": "layout", "cards": ["2C", "3D", "4H", "8S"]}


@pytest.fixture
def game(client):
    response = client.post(
        "/api/games", json={"game": "tablanette", "players": ["Ann", "Ben"], "options": {"target": 151}}
    )
    assert response.status_code == 201
    return response.get_json()


def post_move(client, game, move, version=None, key=None):
    return client.post(
        f"/api/games/{game['id']}/moves",
        json={"version": game["version"] if version is None else version, "move": move},
        headers={"X-Edit-Key": game["edit_key"] if key is None else key},
    )


def test_create_answers_201_with_id_key_version_and_view(game):
    assert set(game) == {"id", "edit_key", "version", "view"}
    assert game["version"] == 0 and game["view"]["target"] == 151 and game["view"]["expects"] == ["layout", "tally"]


@pytest.mark.parametrize(
    "body",
    [
        None,
        {},
        {"game": "tablanette"},
        {"game": "chess", "players": ["A", "B"]},
        {"game": "tablanette", "players": ["Ann"]},
        {"game": "tablanette", "players": ["Ann", "Ben"], "options": {"colour": 1}},
    ],
)
def test_create_refuses_bad_bodies_with_400(client, body):
    response = client.post("/api/games", json=body) if body is not None else client.post("/api/games", data="x")
    assert response.status_code == 400 and response.get_json()["error"]


def test_get_answers_200_and_404(client, game):
    got = client.get(f"/api/games/{game['id']}").get_json()
    assert set(got) == {"id", "game", "players", "options", "version", "deals", "view"}
    assert got["players"] == ["Ann", "Ben"]
    assert client.get("/api/games/unknown").status_code == 404


def test_move_200_then_stale_version_409(client, game):
    response = post_move(client, game, LAYOUT)
    assert response.status_code == 200 and response.get_json()["version"] == 1
    stale = post_move(client, game, {"type": "play", "card": "QH"}, version=0)
    assert stale.status_code == 409
    assert client.get(f"/api/games/{game['id']}").get_json()["version"] == 1


@pytest.mark.parametrize("key", ["", "wrong"])
def test_move_without_the_right_key_is_403(client, game, key):
    assert post_move(client, game, LAYOUT, key=key).status_code == 403
    assert client.get(f"/api/games/{game['id']}").get_json()["version"] == 0


def test_move_on_unknown_game_is_404(client, game):
    response = client.post("/api/games/nope/moves", json={"version": 0, "move": LAYOUT}, headers={"X-Edit-Key": "k"})
    assert response.status_code == 404


# What the API says when several things are wrong at once: the first of these, whether the
# change reads the game first (a body that fails its schema) or the store's transaction
# checks them (a move: no read before it).
REFUSALS = [
    ("game", 404),
    ("key", 403),
    ("body", 400),
    ("move", 400),  # not a move of any game (its schema)
    ("version", 409),
    ("illegal", 422),
]


@pytest.mark.parametrize("wrong", [set(c) for n in range(1, 4) for c in itertools.combinations(dict(REFUSALS), n)])
def test_a_change_wrong_in_several_ways_is_refused_for_the_first(client, game, wrong):
    post_move(client, game, LAYOUT)
    game_id = "nope" if "game" in wrong else game["id"]
    move = {"type": "play", "card": "ZZ" if "illegal" in wrong else "QH"}
    if "move" in wrong:
        move = {"type": "play", "card": 7}
    body = {"move": move} if "body" in wrong else {"version": 0 if "version" in wrong else 1, "move": move}
    headers = {"X-Edit-Key": "wrong" if "key" in wrong else game["edit_key"]}
    answer = client.post(f"/api/games/{game_id}/moves", json=body, headers=headers)
    assert answer.status_code == next(code for name, code in REFUSALS if name in wrong), answer.get_json()
    assert client.get(f"/api/games/{game['id']}").get_json()["version"] == 1
    if "body" not in wrong and "move" not in wrong:  # undo: the same order
        undo = client.post(f"/api/games/{game_id}/undo", json={"version": body["version"]}, headers=headers)
        expected = [code for name, code in REFUSALS if name in wrong and name != "illegal"] or [200]
        assert undo.status_code == expected[0]


@pytest.mark.parametrize(
    "body",
    [
        {"move": LAYOUT},
        {"version": "0", "move": LAYOUT},
        {"version": 0},
        {"version": 0, "move": "layout"},
        {"version": True, "move": LAYOUT},
    ],
)
def test_malformed_move_is_400(client, game, body):
    response = client.post(f"/api/games/{game['id']}/moves", json=body, headers={"X-Edit-Key": game["edit_key"]})
    assert response.status_code == 400


def test_illegal_and_ambiguous_moves_are_422_with_options(client, game):
    post_move(client, game, {"type": "layout", "cards": ["2S", "3H", "5D", "9C"]})
    illegal = post_move(client, game, {"type": "play", "card": "KH", "capture": ["2S", "5D"]}, version=1)
    assert illegal.status_code == 422 and "P1" in illegal.get_json()["error"]
    ambiguous = post_move(client, game, {"type": "play", "card": "KH"}, version=1)
    assert ambiguous.status_code == 422
    assert sorted(map(sorted, ambiguous.get_json()["options"])) == [["2S", "3H", "9C"], ["5D", "9C"]]
    bad_card = post_move(client, game, {"type": "play", "card": "ZZ"}, version=1)
    assert bad_card.status_code == 422 and "'ZZ'" in bad_card.get_json()["error"]
    assert client.get(f"/api/games/{game['id']}").get_json()["version"] == 1


def test_undo_answers_like_a_move(client, game):
    post_move(client, game, LAYOUT)
    response = client.post(
        f"/api/games/{game['id']}/undo", json={"version": 1}, headers={"X-Edit-Key": game["edit_key"]}
    )
    assert response.status_code == 200 and response.get_json()["version"] == 2
    assert response.get_json()["view"]["expects"] == ["layout", "tally"]
    nothing = client.post(
        f"/api/games/{game['id']}/undo", json={"version": 2}, headers={"X-Edit-Key": game["edit_key"]}
    )
    assert nothing.status_code == 422
    stale = client.post(f"/api/games/{game['id']}/undo", json={"version": 0}, headers={"X-Edit-Key": game["edit_key"]})
    assert stale.status_code == 409
    assert client.post(f"/api/games/{game['id']}/undo", json={"version": 2}).status_code == 403


def test_transcript_round_trips_through_import(client, game):
    post_move(client, game, LAYOUT)
    post_move(client, game, {"type": "play", "card": "QH"}, version=1)
    post_move(client, game, {"type": "play", "card": "5C"}, version=2)
    client.post(f"/api/games/{game['id']}/undo", json={"version": 3}, headers={"X-Edit-Key": game["edit_key"]})
    transcript = client.get(f"/api/games/{game['id']}/transcript").get_json()
    assert transcript["format"] == "companion-transcript/1"
    assert transcript["moves"] == [LAYOUT, {"type": "play", "card": "QH"}]  # the undone one left out
    created = client.post("/api/games/import", json=transcript)
    assert created.status_code == 201 and set(created.get_json()) == {"id", "edit_key"}
    copy = client.get(f"/api/games/{created.get_json()['id']}").get_json()
    original = client.get(f"/api/games/{game['id']}").get_json()
    assert copy["view"] == original["view"]


def test_import_names_the_first_bad_move_and_stores_nothing(client, game):
    transcript = {
        "format": "companion-transcript/1",
        "game": "tablanette",
        "players": ["Ann", "Ben"],
        "options": {},
        "moves": [LAYOUT, {"type": "play", "card": "2C"}],
    }
    games_before = len(client.application.extensions["store"].list_games())
    response = client.post("/api/games/import", json=transcript)
    assert response.status_code == 422 and "2" in response.get_json()["error"]
    assert len(client.application.extensions["store"].list_games()) == games_before
    # Not a transcript at all fails the schema (400), naming the field, before any move is tried.
    not_one = client.post("/api/games/import", json={**transcript, "format": "other"})
    assert not_one.status_code == 400 and not_one.get_json()["params"]["field"] == "format"


def test_api_needs_no_csrf_token(csrf_client):
    assert csrf_client.post("/api/games", json={"game": "tablanette", "players": ["A", "B"]}).status_code == 201


@pytest.mark.parametrize("depth", [17, 900])
def test_json_nested_deep_is_400_naming_the_field_and_stores_nothing(client, depth):
    """Issue 14: a body nested 900 levels (inside the JSON parser's limit) was a 500 from
    whatever read it recursively. Every body now fits a declared schema first, and no
    field of any schema nests: the deep value is refused where it starts."""
    deep = "[" * depth + "]" * depth
    created = client.post("/api/games", json={"game": "tute", "players": ["A", "B", "C"]}).get_json()
    game_id, headers = created["id"], {"X-Edit-Key": created["edit_key"]}
    bodies = {
        "/api/games": ('{"game": "tute", "players": ["A", "B", "C"], "options": {"x": %s}}' % deep, "options.x"),
        f"/api/games/{game_id}/moves": ('{"version": 0, "move": {"type": "play", "card": %s}}' % deep, "move.card"),
        f"/api/games/{game_id}/undo": ('{"version": 0, "x": %s}' % deep, "x"),
        "/api/games/import": (
            '{"format": "companion-transcript/1", "game": "tute", "players": ["A", "B", "C"], "moves": [%s]}' % deep,
            "moves.0",
        ),
    }
    #: How the words name each field: an unknown one by its key, the others by their labels (issue 44).
    named = {"options.x": "options.x ", "move.card": "“Card played” ", "x": "x ", "moves.0": "“Move 1” "}
    for url, (body, field) in bodies.items():
        answer = client.post(url, data=body, content_type="application/json", headers=headers)
        assert answer.status_code == 400, url
        assert answer.get_json()["params"]["field"] == field and answer.get_json()["error"].startswith(named[field])
    assert client.get(f"/api/games/{game_id}").get_json()["version"] == 0
    with client.application.app_context():
        assert len(client.application.extensions["store"].list_games()) == 1
