"""Issue 44: the JSON API's refusals name a field by its label, as the new-game form and the
pages do, in the request's language: never 「players がありません。」 or 「loss_limitは1以上の
整数です」. The field's path stays machine-readable beside the words (``params.field``, or
``params.option`` for an option the game refuses)."""

from __future__ import annotations

import dataclasses
import re
import typing

import pytest
from pydantic import TypeAdapter, ValidationError

from companion import games, web
from companion.games import GAMES
from companion.names import NAME_LENGTH
from companion.store import TRANSCRIPT_FORMAT
from companion.web.query import option_label
from tests.test_i18n import JAPANESE, NOT_ENGLISH, WORD

#: Words a refusal may hold as JSON writes them (the values a field takes).
JSON_WORDS = {"null", "true", "false"}


def japanese(words: str) -> None:
    """Japanese words, with no English one (a key such as ``players`` or ``move.cards``)
    outside the values quoted as JSON."""
    rest = re.sub(r"\"[^\"]*\"", "", words)
    assert re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", rest), words
    assert not [w for w in WORD.findall(rest) if w not in NOT_ENGLISH | JSON_WORDS], words


def seat(app, n: int) -> str:
    """The form's label of the ``n``-th player's name, in Japanese."""
    with app.test_request_context(headers=JAPANESE):
        from flask_babel import gettext

        return gettext("Player %(n)s", n=n)


def label(app, text: str) -> str:
    """``text`` (a label's English, or a function of the request) in Japanese, as the form says it."""
    with app.test_request_context(headers=JAPANESE):
        from flask_babel import gettext

        return gettext(text)


def refused(answer, status: int, field: str) -> dict:
    data = answer.get_json()
    assert answer.status_code == status, data
    assert data["params"]["field"] == field, data
    assert field not in data["error"] and "「" in data["error"], data
    japanese(data["error"])
    return data


def options_of(game: str) -> list[str]:
    return [f.name for f in dataclasses.fields(games.get(game).Options)]


@pytest.mark.parametrize("game", GAMES)
def test_a_new_games_refusals_name_each_field_by_its_label(client, app, game):
    """Every field of a new game's body, in every game: the players, each seat, the dealer,
    and each option (its label is the form's, ``option_label``)."""
    players = list(web.get(game).SAMPLE["players"])
    bodies = [
        ({"game": game}, "players", label(app, "Players")),
        ({"game": game, "players": ["X" * (NAME_LENGTH + 1), *players[1:]]}, "players.0", seat(app, 1)),
        ({"game": game, "players": [*players[:-1], 7]}, f"players.{len(players) - 1}", seat(app, len(players))),
        ({"game": game, "players": players, "options": {"dealer": True}}, "options.dealer", "最初のディーラー"),
        ({"game": game, "players": players, "options": {"players": "3"}}, "options.players", "人数"),
        ({"game": game, "players": players, "options": [1]}, "options", "ルール"),
    ]
    rules = games.get(game)
    for name in options_of(game):
        with app.test_request_context(headers=JAPANESE):
            bodies.append(({"game": game, "players": players, "options": {name: [1]}}, f"options.{name}", None))
            bodies[-1] = (*bodies[-1][:2], option_label(rules, name))
    for body, field, named in bodies:
        data = refused(client.post("/api/games", json=body, headers=JAPANESE), 400, field)
        assert f"「{named}」" in data["error"], data


@pytest.mark.parametrize(
    ("game", "options", "option"),
    [
        ("tute", {"loss_limit": 0}, "loss_limit"),
        ("tute", {"win_threshold": 0}, "win_threshold"),
        ("hundred", {"tokens": 0}, "tokens"),
        ("hundred", {"hands": 100}, "hands"),
        ("tablanette", {"target": 0}, "target"),
        ("tablanette", {"max_group_size": 1}, "max_group_size"),
    ],
)
def test_an_option_the_game_refuses_is_named_by_its_label(client, app, game, options, option):
    """Issue 44's 「loss_limitは1以上の整数です」: the game's refusal (422) names the option by
    the form's label, quoted as Japanese quotes (「」); ``params.option`` keeps its name."""
    players = list(web.get(game).SAMPLE["players"])
    answer = client.post("/api/games", json={"game": game, "players": players, "options": options}, headers=JAPANESE)
    data = answer.get_json()
    assert answer.status_code == 422 and data["params"]["option"] == option, data
    with app.test_request_context(headers=JAPANESE):
        assert f"「{option_label(games.get(game), option)}」" in data["error"], data
    assert option not in data["error"]
    japanese(data["error"])


def fitting(model, field: str, player: str):
    """A value the schema takes for ``field`` of ``model`` (the engine may refuse it)."""
    annotation = model.model_fields[field].annotation
    for value in ("QH", ["QH"], 1, player, {player: 1}, {player: ["QH"]}, {player: [1]}):
        try:
            TypeAdapter(annotation).validate_python(value, strict=True)
        except ValidationError:
            continue
        return value
    raise AssertionError(f"no value fits {model.__name__}.{field}")


def required_fields(model) -> list[str]:
    return [f for f, info in model.model_fields.items() if info.is_required() and f != "type"]


def move_fields(game: str) -> list[tuple[str, str]]:
    """Every field of every move of ``game``: (its type, the field)."""
    return [
        (kind, field)
        for kind, model in ((str(m.model_fields["type"].annotation.__args__[0]), m) for m in web.get(game).MOVES)
        for field in model.model_fields
        if field != "type"
    ]


@pytest.mark.parametrize("game", GAMES)
def test_a_moves_refusals_name_each_field_by_its_label(client, game):
    """Every field of every move, in every game, sent with a wrong type and left out (when
    required), through the moves route and in an import's transcript: 「move.cards がありません。」
    no more."""
    players = list(web.get(game).SAMPLE["players"])
    made = client.post("/api/games", json={"game": game, "players": players}).get_json()
    url, key = f"/api/games/{made['id']}/moves", {"X-Edit-Key": made["edit_key"]} | JAPANESE
    models = {str(m.model_fields["type"].annotation.__args__[0]): m for m in web.get(game).MOVES}
    for kind, field in move_fields(game):
        model = models[kind]
        others = {f: fitting(model, f, players[0]) for f in required_fields(model)}
        flag = bool in typing.get_args(model.model_fields[field].annotation)  # true fits a flag (RULES.md 5.2)
        wrong = others | {"type": kind, field: "yes" if flag else True}
        refused(client.post(url, json={"version": 0, "move": wrong}, headers=key), 400, f"move.{field}")
        transcript = {"format": TRANSCRIPT_FORMAT, "game": game, "players": players, "moves": [wrong]}
        data = refused(client.post("/api/games/import", json=transcript, headers=JAPANESE), 400, f"moves.0.{field}")
        assert "1手目の" in data["error"], data
        required = required_fields(model)
        if required[:1] == [field]:  # left out: the first of its move's required fields is named first
            missing = {"type": kind}
            data = refused(client.post(url, json={"version": 0, "move": missing}, headers=key), 400, f"move.{field}")
            assert data["code"] == "missing_field"
    for body, field in (({"move": {"type": "play"}}, "version"), ({"version": 0}, "move")):
        refused(client.post(url, json=body, headers=key), 400, field)
    assert client.get(f"/api/games/{made['id']}").get_json()["version"] == 0


def test_an_unknown_field_keeps_its_key(client):
    """A field the body should not hold has no label: the words name the key sent, to leave out."""
    answer = client.post("/api/games", json={"game": "tute", "players": ["A", "B", "C"], "colour": 1}, headers=JAPANESE)
    data = answer.get_json()
    assert answer.status_code == 400 and data["code"] == "unknown_field" and "colour" in data["error"], data


def test_every_move_field_has_a_label():
    """The adapters label every field of their moves (companion/web checks it at import)."""
    for game in GAMES:
        assert web.problems(game, web.get(game)) == []
        for kind, field in move_fields(game):
            assert web._move_label(web.get(game), kind, field), (game, kind, field)
