"""One source for a named rule set, whatever door starts the game (issue 44): a 100/99/98
``variant`` and a Tablanette ``preset`` mean, through the JSON API, an import and the
dispute lab, exactly what the new-game form's start of the same name sets (the engines'
``PRESETS``), and games started through each door play alike."""

from __future__ import annotations

import json
import re

import pytest

from companion import games
from companion.games import hundred as H
from companion.games import tablanette as T
from companion.store import TRANSCRIPT_FORMAT
from companion.store.migrations import m018_hundred_variants_keep_their_rules
from tests.conftest import form_values

PLAYERS = ["Ann", "Ben", "Cat"]
#: Each game's option that names a rule set, and the rule sets it names (each is also a start).
NAMED = [("hundred", "variant", v) for v in H.CHOICES["variant"]] + [("tablanette", "preset", p) for p in T.PRESETS]
#: Moves tried on each game, in order, whatever each answers (a refusal is compared too).
MOVES = {
    "hundred": [{"type": "play", "card": c} for c in ("KH", "QH", "JH", "10H", "9H", "8H", "9D", "5C", "2C", "AC")],
    "tablanette": [{"type": "layout", "cards": ["2H", "3D", "5S", "KC"]}]
    + [{"type": "play", "card": c} for c in ("7H", "5C", "AH", "JD", "QS", "KH")],
}


def by_form(client, game: str, start: str) -> dict:
    page = client.get(f"/games/new?game={game}&start={start}").get_data(as_text=True)
    form = form_values(page) | {f"player{i}": name for i, name in enumerate(PLAYERS)}
    made = client.post("/games/new", data=form)
    assert made.status_code == 303, made.get_data(as_text=True)
    game_id = re.search(r"/games/([\w-]+)", made.headers["Location"]).group(1)
    return {"id": game_id, "edit_key": None}


def by_api(client, game: str, options: dict) -> dict:
    body = {"game": game, "players": PLAYERS, "options": {"dealer": PLAYERS[0], **options}}
    made = client.post("/api/games", json=body)
    assert made.status_code == 201, made.get_json()
    return made.get_json()


def by_import(client, game: str, options: dict) -> dict:
    options = {"dealer": PLAYERS[0], **options}
    body = {"format": TRANSCRIPT_FORMAT, "game": game, "players": PLAYERS, "options": options, "moves": []}
    made = client.post("/api/games/import", json=body)
    assert made.status_code == 201, made.get_json()
    return made.get_json()


def in_force(client, game: dict) -> dict:
    """The options the engine plays the game with (its view's, every one resolved)."""
    return client.get(f"/api/games/{game['id']}").get_json()["view"]["options"]


def played(client, app, game: dict) -> list:
    """What each of the game's MOVES answers, and the view after them. The form's game is
    played with a referee link's key, as a second phone gets it."""
    store = app.extensions["store"]
    key = game["edit_key"] or store.redeem_link(game["id"], store.make_link(game["id"], "add"))[1]
    answers, version = [], 0
    kind = client.get(f"/api/games/{game['id']}").get_json()["game"]
    for move in MOVES[kind]:
        answer = client.post(
            f"/api/games/{game['id']}/moves", json={"version": version, "move": move}, headers={"X-Edit-Key": key}
        )
        body = answer.get_json()
        version = body.get("version", version)
        answers.append((answer.status_code, body.get("code"), body.get("view", {}).get("total")))
    view = client.get(f"/api/games/{game['id']}").get_json()["view"]
    return [answers, {k: v for k, v in view.items() if k != "seen"}]


@pytest.mark.parametrize(("game", "option", "name"), NAMED)
def test_a_named_rule_set_is_the_forms_start_through_every_door(client, app, game, option, name):
    """The API, an import and the form's start of the same name give the engine the same
    options, and the same moves answer the same on each game."""
    form = by_form(client, game, name)
    api = by_api(client, game, {option: name})
    imported = by_import(client, game, {option: name})
    expected = in_force(client, form)
    assert expected[option] == name
    assert in_force(client, api) == expected
    assert in_force(client, imported) == expected
    assert played(client, app, api) == played(client, app, form) == played(client, app, imported)


@pytest.mark.parametrize("variant", H.CHOICES["variant"])
def test_the_lab_takes_a_variants_rules_as_the_form_does(client, variant):
    """The dispute lab's "Rules in force" under ``?variant=`` are the form's start's: each
    option the lab shows reads as the engine plays it (t_games' floor off, not the default)."""
    form = in_force(client, by_form(client, "hundred", variant))
    page = client.get(f"/rules/hundred?variant={variant}").get_data(as_text=True)
    for name in games.get("hundred").Options.__dataclass_fields__:
        select = re.search(rf'<select id="lab-{name}".*?</select>', page, re.S)
        if select is None:
            continue
        chosen = re.findall(r'<option value="([^"]*)" selected>', select.group(0))
        assert chosen == [json.dumps(form[name]).strip('"')], name


def test_the_issues_examples_through_the_api(client):
    """Issue 44: ``{"variant": "99quentin"}`` ends the hand on exactly 99; t_games' 99s let
    the total go below 0 and refuse a card over 99 while a safe one is held."""
    quentin = in_force(client, by_api(client, "hundred", {"variant": "99quentin"}))
    assert quentin["exact_target"] == "others_lose"
    for variant in ("99tgames", "99chicago", "99jokerrules", "99gonzo"):
        o = in_force(client, by_api(client, "hundred", {"variant": variant}))
        assert (o["floor_at_zero"], o["unforced_bust"]) == (False, "refused")
    overridden = in_force(client, by_api(client, "hundred", {"variant": "99quentin", "exact_target": "play_on"}))
    assert overridden["exact_target"] == "play_on"  # an option given with the variant still overrides it


def test_a_game_stored_with_the_variant_alone_keeps_its_rules(app):
    """m018: a game made through the API before (``{"variant": "99tgames"}`` alone, played
    with the floor at 0) gets the values it was played with written into its options."""
    store = app.extensions["store"]
    row, _ = store.create("hundred", PLAYERS, {"variant": "99tgames"})
    with store._write() as conn:
        conn.execute("UPDATE games SET options = ? WHERE id = ?", ('{"variant":"99tgames"}', row["id"]))
        m018_hundred_variants_keep_their_rules(conn, None)
    assert store.get(row["id"])["options"] == {"variant": "99tgames", "floor_at_zero": True, "unforced_bust": "loss"}


@pytest.mark.parametrize("start", H.CHOICES["variant"])
def test_the_forms_variant_is_its_start(client, start):
    """On the form the variant is the start's tap, never a field of its own: a select
    changed to "99 (Quentin C, PlayAural)" under the 100 start sent the 100 start's rules
    with it (play on at exactly 99), a Quentin game that plays as no Quentin 99 does."""
    page = client.get(f"/games/new?game=hundred&start={start}").get_data(as_text=True)
    assert not re.search(r'<select[^>]*name="variant"', page)
    assert re.search(rf'<input[^>]*type="hidden"[^>]*name="variant"[^>]*value="{start}"', page) or re.search(
        rf'<input[^>]*name="variant"[^>]*type="hidden"[^>]*value="{start}"', page
    )
