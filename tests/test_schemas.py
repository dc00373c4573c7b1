"""Issue 14: every move and every API body fits a declared schema before the engine sees
it (companion/schemas.py; each game's moves in companion/web/<game>.py). A failure is a
400 naming the field, and changes nothing; the engine's own checks stay behind it."""

import re
import typing

import pytest

from companion import games, schemas, web
from tests.conftest import new_game

GAMES = list(games.GAMES)
#: Values no field of any move or body accepts: no field nests this deep, and only a flag
#: (the table's ruling, ``ruled``) is a bool.
HOSTILE = [True, [[["QH"]]], {"a": {"b": {}}}]


#: A move of each type that fits its schema (whether the engine takes it is another matter).
FITTING = {
    ("tablanette", "layout"): {"cards": ["2C", "3D", "4H", "8S"], "buried": []},
    ("tablanette", "play"): {"card": "QH", "capture": []},
    ("tablanette", "tally"): {"cards": {"Ann": 30}, "counters": {"Ann": []}, "sweeps": {}},
    ("tute", "trump"): {"card": "QH"},
    ("tute", "play"): {"card": "QH"},
    ("tute", "claim"): {"player": "Ann"},
    ("tute", "declare"): {"suit": "H"},
    ("tute", "tally"): {"card_points": {"Ann": 120}, "last_trick": "Ann", "marriages": {}, "tricks": {}},
    ("tantony", "play"): {"card": "QH"},
    ("tantony", "give"): {"to": "Nan"},
    ("tantony", "tally"): {"scoring": {"Nan": []}},
    ("hundred", "play"): {"card": "QH", "total": 35},
    ("hundred", "lose"): {"hand": []},
    ("hundred", "tally"): {"loser": "Ann"},
}


def model_fields():
    """(game, move type, field name) for every declared field of every move."""
    for game in GAMES:
        for model in web.get(game).MOVES:
            kind = schemas._tag(model, "type")
            for name in model.model_fields:
                yield game, kind, name


@pytest.fixture
def started(client):
    """A game of each kind through the API: {game: (id, headers)}."""
    out = {}
    for game in GAMES:
        body = {"game": game, "players": web.get(game).SAMPLE["players"]}
        created = client.post("/api/games", json=body)
        assert created.status_code == 201, created.get_json()
        data = created.get_json()
        out[game] = (data["id"], {"X-Edit-Key": data["edit_key"]})
    return out


#: What a schema's refusal may say (issue 32: a code and params, worded in the request's language):
#: the schema's own codes, and a list of players the size no game plays (as the game words it).
REFUSED = schemas.CODES | {"player_count", "player_count_pair"}


def refused_at(answer, field):
    """The answer is a 400 whose ``params.field`` is ``field`` or inside it, with a code saying
    what is wrong and words naming the field: by its label, quoted (issue 44), or an unknown
    field by the key sent."""
    data = answer.get_json()
    assert answer.status_code == 400, data
    assert data["code"] in REFUSED and data["code"] != "bad_field", data  # bad_field: a pydantic error not mapped
    assert data["params"]["field"] == field or data["params"]["field"].startswith(field + "."), data
    if data["code"] == "unknown_field":
        assert data["params"]["field"] in data["error"], data
    elif data["code"] not in ("player_count", "not_json"):
        assert "“" in data["error"] or "「" in data["error"], data
        assert data["params"]["field"] not in data["error"] or field == "body", data  # "The body" is its label
    return data


def unchanged(client, started):
    for game_id, _ in started.values():
        got = client.get(f"/api/games/{game_id}").get_json()
        assert got["version"] == 0, got


@pytest.mark.parametrize("game", GAMES)
def test_each_game_declares_exactly_the_moves_its_engine_knows(game):
    rules = games.get(game)
    state = rules.start(web.get(game).SAMPLE["players"], None)
    with pytest.raises(games.InvalidMove) as refused:
        rules.apply(state, {"type": "?"})
    known = set(refused.value.params["known"].split(", "))
    assert {schemas._tag(m, "type") for m in web.get(game).MOVES} == known


@pytest.mark.parametrize("game", GAMES)
def test_the_sample_moves_fit_the_schema(game):
    sample = web.get(game).SAMPLE
    for move in sample["moves"] + sample["finished"]["moves"]:
        assert schemas.check_move(game, move) == move


def test_every_move_type_has_a_fitting_example():
    assert set(FITTING) == {(g, k) for g, k, _ in model_fields()}
    for (game, kind), fields in FITTING.items():
        schemas.check_move(game, {"type": kind, **fields, "player": "Ann"})


@pytest.mark.parametrize(("game", "kind", "field"), list(model_fields()))
def test_a_field_of_the_wrong_kind_is_400_naming_it(client, started, game, kind, field):
    game_id, headers = started[game]
    flag = bool in typing.get_args(schemas._game(game).moves[kind].model_fields[field].annotation)
    for value in HOSTILE:
        if flag and isinstance(value, bool):  # true fits a flag (the table's ruling, RULES.md 5.2)
            continue
        move = {"type": kind, **FITTING[game, kind], field: value}
        answer = client.post(f"/api/games/{game_id}/moves", json={"version": 0, "move": move}, headers=headers)
        refused_at(answer, f"move.{field}")
    unchanged(client, started)


@pytest.mark.parametrize(("game", "kind"), sorted({(g, k) for g, k, _ in model_fields()}))
def test_an_unknown_field_is_400_naming_it_and_is_never_stored(client, started, game, kind):
    """The defect: a move with extra fields was accepted and stored verbatim."""
    game_id, headers = started[game]
    for move in web.get(game).SAMPLE["moves"][:1] + [{"type": kind, **FITTING[game, kind]}]:
        answer = client.post(
            f"/api/games/{game_id}/moves",
            json={"version": 0, "move": {**move, "note": "x" * 1000}},
            headers=headers,
        )
        refused_at(answer, "move.note")
    unchanged(client, started)


@pytest.mark.parametrize("game", GAMES)
def test_type_missing_unknown_or_not_a_word_is_400_naming_type(client, started, game):
    game_id, headers = started[game]
    for move in [{}, {"type": "castle"}, {"type": ["play"]}, {"type": {"play": 1}}, {"type": None}]:
        answer = client.post(f"/api/games/{game_id}/moves", json={"version": 0, "move": move}, headers=headers)
        refused_at(answer, "move.type")
    unchanged(client, started)


def test_strings_and_lists_are_bounded(client, started):
    game_id, headers = started["tablanette"]
    too_long = {"type": "play", "card": "Q" * 9}
    too_many = {"type": "play", "card": "QH", "capture": ["2C"] * (schemas.MAX_CARDS + 1)}
    name = {"type": "play", "card": "QH", "player": "A" * (schemas.NAME_LENGTH + 1)}
    for move, field in [(too_long, "move.card"), (too_many, "move.capture"), (name, "move.player")]:
        refused_at(
            client.post(f"/api/games/{game_id}/moves", json={"version": 0, "move": move}, headers=headers), field
        )
    unchanged(client, started)


def test_json_whole_numbers_are_read_as_numbers():
    """JSON's 35.0 is the number 35 (JSON Schema's "integer" agrees); 35.5 and true are not."""
    assert schemas.check_move("hundred", {"type": "play", "card": "AS", "total": 35.0})["total"] == 35
    for bad in (35.5, True, float("nan")):
        with pytest.raises(schemas.SchemaError):
            schemas.check_move("hundred", {"type": "play", "card": "AS", "total": bad})


def test_another_games_move_fits_the_document_but_this_game_refuses_it(client, started):
    """The document's move is any game's move: a Tablanette layout sent to a Tute game is
    well-formed (not 400) and refused by the game (422)."""
    game_id, headers = started["tute"]
    move = {"type": "layout", "cards": ["2C", "3D", "4H", "8S"]}
    answer = client.post(f"/api/games/{game_id}/moves", json={"version": 0, "move": move}, headers=headers)
    assert answer.status_code == 422 and answer.get_json()["params"]["field"] == "move.type"
    unchanged(client, started)


def test_a_move_fitting_the_schema_still_meets_the_engine(client, started):
    """The schema says what a card field looks like; the engine says whether it is a card."""
    game_id, headers = started["tablanette"]
    move = {"type": "layout", "cards": ["2C", "3D", "4H", "ZZ"]}
    answer = client.post(f"/api/games/{game_id}/moves", json={"version": 0, "move": move}, headers=headers)
    assert answer.status_code == 422 and "'ZZ'" in answer.get_json()["error"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"move": {"type": "play", "card": "QH"}}, "version"),
        ({"version": True, "move": {"type": "play", "card": "QH"}}, "version"),
        ({"version": -1, "move": {"type": "play", "card": "QH"}}, "version"),
        ({"version": 10**20, "move": {"type": "play", "card": "QH"}}, "version"),
        ({"version": 0, "move": ["play"]}, "move"),
        ({"version": 0, "move": {"type": "play", "card": "QH"}, "when": "now"}, "when"),
        ([], "body"),
        ("move", "body"),
    ],
)
def test_move_bodies(client, started, body, field):
    game_id, headers = started["tute"]
    refused_at(client.post(f"/api/games/{game_id}/moves", json=body, headers=headers), field)
    unchanged(client, started)


@pytest.mark.parametrize(
    ("body", "field"),
    [({}, "version"), ({"version": "0"}, "version"), ({"version": 0, "seq": 1}, "seq"), (None, "body")],
)
def test_undo_bodies(client, started, body, field):
    game_id, headers = started["tute"]
    if body is None:
        answer = client.post(f"/api/games/{game_id}/undo", data="{not json", headers=headers)
    else:
        answer = client.post(f"/api/games/{game_id}/undo", json=body, headers=headers)
    refused_at(answer, field)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"kind": "owner"}, "kind"),
        ({"kind": ["add"]}, "kind"),
        ({"kind": "add", "minutes": 600}, "minutes"),
    ],
)
def test_link_bodies(client, started, body, field):
    game_id, headers = started["tute"]
    refused_at(client.post(f"/api/games/{game_id}/links", json=body, headers=headers), field)


def test_a_link_needs_no_body(client, started):
    game_id, headers = started["tute"]
    assert client.post(f"/api/games/{game_id}/links", headers=headers).get_json()["kind"] == "add"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"players": ["A", "B"]}, "game"),
        ({"game": "chess", "players": ["A", "B"]}, "game"),
        ({"game": "tute"}, "players"),
        ({"game": "tute", "players": ["A", "B"]}, "players"),
        ({"game": "tute", "players": ["A", "B", "C", "D", "E", "F"]}, "players"),
        ({"game": "tute", "players": ["A", "B", ""]}, "players.2"),
        ({"game": "tute", "players": ["A", "B", "C" * 25]}, "players.2"),
        ({"game": "tute", "players": ["A", "B", 3]}, "players.2"),
        ({"game": "tute", "players": ["A", "B", "C"], "options": {"colour": 1}}, "options.colour"),
        ({"game": "tute", "players": ["A", "B", "C"], "options": {"loss_limit": True}}, "options.loss_limit"),
        ({"game": "tute", "players": ["A", "B", "C"], "options": {"loss_limit": 10**10}}, "options.loss_limit"),
        ({"game": "tute", "players": ["A", "B", "C"], "options": {"triple_tie": "coin"}}, "options.triple_tie"),
        ({"game": "tute", "players": ["A", "B", "C"], "options": {"must_head": "yes"}}, "options.must_head"),
        ({"game": "tute", "players": ["A", "B", "C"], "options": []}, "options"),
        ({"game": "tute", "players": ["A", "B", "C"], "seed": 1}, "seed"),
    ],
)
def test_new_game_bodies(client, body, field):
    refused_at(client.post("/api/games", json=body), field)
    assert client.application.extensions["store"].list_games() == []


def test_a_new_game_the_schema_allows_but_the_game_refuses_is_422(client):
    """Options that fit their types but not the game (a dealer who is not playing) are the
    game's refusal: 422 with its code, as for a move."""
    answer = client.post("/api/games", json={"game": "tute", "players": ["A", "B", "C"], "options": {"dealer": "Z"}})
    assert answer.status_code == 422 and answer.get_json()["params"]["option"] == "dealer"


@pytest.mark.parametrize("game", GAMES)
def test_every_option_of_every_game_is_declared(game):
    """The options model is read from the engine's Options, so a new option is declared."""
    rules = games.get(game)
    model = schemas.options_model(game)
    assert set(model.model_fields) == set(rules.OPTION_NAMES) | {"players", "dealer"}
    defaults = {name: getattr(rules.Options(), name) for name in rules.OPTION_NAMES}
    assert schemas.validated(model, defaults).model_dump(exclude={"players", "dealer"}) == defaults


def test_import_bodies_name_the_move_at_fault(client):
    transcript = {
        "format": "companion-transcript/1",
        "game": "tablanette",
        "players": ["Ann", "Ben"],
        "options": {},
        "moves": [{"type": "layout", "cards": ["2C", "3D", "4H", "8S"]}, {"type": "play", "card": "QH", "x": 1}],
    }
    refused_at(client.post("/api/games/import", json=transcript), "moves.1.x")
    refused_at(client.post("/api/games/import", json={**transcript, "moves": "all"}), "moves")
    refused_at(client.post("/api/games/import", json={**transcript, "game": "chess"}), "game")
    assert client.application.extensions["store"].list_games() == []


def test_the_web_picker_refuses_unknown_fields_too(client):
    """The HTML move route checks the same schema: an extra posted field is said in place
    (422, the board answers) and nothing is stored."""
    game_id = new_game(client)
    store = client.application.extensions["store"]
    answer = client.post(
        f"/games/{game_id}/moves",
        data={"version": "0", "type": "layout", "cards[]": ["2C", "3D", "4H", "8S"], "note": "x" * 500},
    )
    assert answer.status_code == 422 and "move.note" in answer.get_data(as_text=True)
    assert store.get(game_id)["version"] == 0 and store.moves(game_id) == []
    ok = client.post(
        f"/games/{game_id}/moves", data={"version": "0", "type": "layout", "cards[]": ["2C", "3D", "4H", "8S"]}
    )
    assert ok.status_code in (200, 303) and store.get(game_id)["version"] == 1


def test_the_openapi_document_is_built_from_the_same_models(client):
    doc = client.get("/api/openapi.json").get_json()
    assert doc["openapi"] == "3.1.0"
    components = doc["components"]["schemas"]
    for game in GAMES:
        for model in web.get(game).MOVES:
            assert components[model.__name__]["additionalProperties"] is False
            assert components[model.__name__]["required"][0] == "type"
    per_game = components["Move"]["anyOf"]
    assert len(per_game) == len(GAMES) and all(g["discriminator"]["propertyName"] == "type" for g in per_game)
    body = doc["paths"]["/api/games/{game_id}/moves"]["post"]
    assert {"200", "400", "403", "404", "409", "422"} <= set(body["responses"])


@pytest.mark.parametrize(
    ("body", "code", "field"),
    [
        ({"move": {"type": "play", "card": "QH"}}, "missing_field", "version"),
        ({"version": "0", "move": {"type": "play", "card": "QH"}}, "wrong_type", "version"),
        ({"version": 0, "move": {"type": "play", "card": "Q" * 9}}, "too_long", "move.card"),
        ({"version": 0, "move": {"type": "play", "card": "QH"}, "when": "now"}, "unknown_field", "when"),
        ({"version": -1, "move": {"type": "play", "card": "QH"}}, "too_small", "version"),
        ({"version": 0, "move": {"type": "castle"}}, "not_allowed", "move.type"),
    ],
)
def test_a_schema_refusal_is_a_code_worded_in_the_phones_language(client, started, body, code, field):
    """Issue 32: what the schema refuses is a coded refusal, like the rules' own: the same code
    and params in every language, its words in the request's (here no English but the field)."""
    from tests.test_i18n import JAPANESE, NOT_ENGLISH, WORD

    game_id, headers = started["tute"]
    url = f"/api/games/{game_id}/moves"
    english = client.post(url, json=body, headers=headers | {"Accept-Language": "en"})
    japanese = client.post(url, json=body, headers=headers | JAPANESE)
    e, j = refused_at(english, field), refused_at(japanese, field)
    assert e["code"] == j["code"] == code and e["params"] == j["params"]
    words = j["error"].replace(j["params"]["field"], "")
    words = re.sub(r"\"[^\"]*\"", "", words)  # the values the field takes, as JSON writes them
    assert re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", words) and not [
        w for w in WORD.findall(words) if w not in NOT_ENGLISH
    ]
    unchanged(client, started)


def test_a_list_of_players_no_game_plays_is_said_as_the_game_says_it(client):
    """Issue 32 (the review): Tute with 2 players is refused with the game's own words, in Japanese too."""
    answer = client.post("/api/games", json={"game": "tute", "players": ["A", "B"]}, headers={"Accept-Language": "ja"})
    data = refused_at(answer, "players")
    assert data["code"] == "player_count" and data["error"] == "トゥテ・カブロンは3〜5人で遊びます"
