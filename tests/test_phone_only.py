"""A game on this phone only (issue 45, item 5): companion/phone.py starts it with no server
(``start``: the engine checks the players and options), answers its taps and Undo, takes it
again from the moves the page kept (``resume``, after a reload), and gives its transcript
(``transcript``), which the server's import takes: the game sent later reads the same, its
moves and its final view.

The phone's module runs in CPython here; tests/e2e/test_phone_only_e2e.py runs it in the
phone's own Pyodide, offline, and sends the game to a server.
"""

from __future__ import annotations

import dataclasses
import json
from urllib.parse import unquote_plus

import pytest

from companion import games, phone
from companion.store import TRANSCRIPT_FORMAT
from tests.conftest import become_referee, make_app
from tests.e2e.deals import script

LANGUAGES = ("en", "ja")


@pytest.fixture
def here(tmp_path):
    """The app, and what the /phone page gives the phone: its links and settings."""
    app = make_app(tmp_path)
    client = app.test_client()
    page = client.get("/phone")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    start = html.index("data-routes='") + len("data-routes='")
    routes = json.loads(html[start : html.index("'", start)].replace("&#34;", '"').replace("&amp;", "&"))
    return app, client, routes


def _page(routes: dict, language: str) -> dict:
    config = {"POLL_SECONDS": 0, "PUSH_POLL_SECONDS": 86400}
    return {"language": language, "routes": routes, "config": config, "csrf": "t"}


def _fields(move: dict, version: int) -> list[list[str]]:
    """A tap as the page posts it: every value a string."""
    fields = [["version", str(version)]]
    for k, v in move.items():
        fields += [[f"{k}[]", str(x)] for x in v] if isinstance(v, list) else [[k, str(v)]]
    return fields


def _posted(move: dict) -> dict:
    """A move as the form posts it (what the phone keeps, and the server stores)."""
    return {k: [str(x) for x in v] if isinstance(v, list) else str(v) for k, v in move.items()}


class Phone:
    """A game on this phone only, as the page drives it: what it keeps after each answer."""

    def __init__(self, routes: dict, language: str, game: str, players: list[str], dealer: int = 0):
        self.page = _page(routes, language)
        started = json.loads(
            phone.start(json.dumps(self.page | {"id": "here1", "game": game, "players": players, "dealer": dealer}))
        )
        assert started["status"] == 200, started
        assert started["version"] == 0
        self.kept = started["game"]
        self.version = 0

    def tap(self, move: dict) -> dict:
        answer = json.loads(phone.play(json.dumps({"fields": _fields(move, self.version), "current": "/phone#here1"})))
        if answer["applied"]:
            self.kept["moves"].append(answer["move"])
        self.version = answer["version"]
        return answer

    def undo(self) -> dict:
        answer = json.loads(phone.take_back(json.dumps({"current": "/phone#here1"})))
        assert answer["applied"]
        self.kept["moves"].pop()
        self.version = answer["version"]
        return answer

    def reload(self, **asked) -> dict:
        answer = json.loads(phone.resume(json.dumps(self.page | self.kept | {"id": "here1"} | asked)))
        assert answer["status"] == 200, answer
        self.version = answer["version"]
        return answer

    def transcript(self) -> dict:
        return json.loads(phone.transcript(json.dumps(self.kept)))


def test_the_phone_writes_the_transcript_format_the_server_imports():
    assert phone.TRANSCRIPT_FORMAT == TRANSCRIPT_FORMAT


@pytest.mark.parametrize(
    "players, dealer, option, words",
    [
        (["Ann", "Ann"], 0, "players", {"en": "no two the same", "ja": "同じ名前"}),
        (["Ann"], 0, "players", {"en": "2 to 4", "ja": "2"}),
        (["Ann", "Ben"], 3, "dealer", {"en": "Player 4 has no name", "ja": "4"}),
    ],
)
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_engine_in_the_phone_refuses_players_it_would_refuse_on_the_server(
    here, language, players, dealer, option, words
):
    _app, _client, routes = here
    body = _page(routes, language) | {"id": "x", "game": "tablanette", "players": players, "dealer": dealer}
    refused = json.loads(phone.start(json.dumps(body)))
    assert refused["status"] == 422
    assert refused["option"] == option
    assert words[language] in refused["error"]


def test_a_start_takes_its_options_and_the_first_dealer_by_name(here):
    _app, _client, routes = here
    body = _page(routes, "en") | {"id": "x", "game": "tablanette", "start": "tablic", "players": [" Ann", "Ben "]}
    started = json.loads(phone.start(json.dumps(body | {"dealer": 1})))
    rules = games.get("tablanette")
    assert started["game"] == {
        "game": "tablanette",
        "players": ["Ann", "Ben"],
        "options": {**rules.STARTS["tablic"].options, "dealer": "Ben"},
        "moves": [],
    }
    assert 'class="notice" role="status"' in started["html"]  # started here, no server needed
    for server_only in ("/share", "/log", "/transcript", "/events"):
        assert server_only not in started["html"]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("game", games.GAMES)
def test_a_game_played_on_the_phone_only_is_sent_to_a_server_and_reads_the_same(here, game, language):
    """A whole deal tapped in on the phone, with a refusal, an Undo and a reload on the way;
    its transcript imported through the API gives the same moves and the same view."""
    _app, client, routes = here
    players, steps = script(game)
    here_ = Phone(routes, language, game, players, dealer=len(players) - 1)
    for i, step in enumerate(steps):
        if i == 2 and game != "hundred":  # a card already played: refused, nothing kept
            refused = here_.tap({"type": "play", "card": steps[1].cards[0]})
            assert refused["status"] == 422 and not refused["applied"]
            assert 'role="alert"' in refused["html"]
        answer = here_.tap(step.move)
        assert answer["applied"], (i, step)
        assert answer["move"] == _posted(step.move)
        if i % 9 == 4:  # Undo, and the move again
            here_.undo()
            here_.tap(step.move)
        if i == len(steps) // 2:  # the page reloaded: the phone takes the game from its moves
            here_.reload()
            here_.undo()  # a move entered before the reload is taken back as well
            here_.tap(step.move)
    assert answer["summary"]["deal"] == 2 or answer["summary"]["over"]
    assert 'class="deal-end"' in answer["html"]
    transcript = here_.transcript()
    assert transcript["moves"] == [_posted(s.move) for s in steps]
    imported = client.post("/api/games/import", json=transcript)
    assert imported.status_code == 201, imported.get_json()
    game_id = imported.get_json()["id"]
    assert client.get(f"/api/games/{game_id}/transcript").get_json() == transcript
    # The same view: the server's game (every finished deal in it) and the phone's.
    rules = games.get(game)
    held = phone._game
    assert held is not None
    view = json.loads(json.dumps(rules.view(dataclasses.replace(held.state, history=held.history))))
    assert client.get(f"/api/games/{game_id}").get_json()["view"] == view
    # This phone becomes its referee (the share link the page redeems) and goes on there.
    become_referee(client, game_id, imported.get_json()["edit_key"])
    assert "undo-button" in client.get(f"/games/{game_id}").get_data(as_text=True)


def test_a_reload_asks_again_the_question_the_page_was_asking(here):
    """A choice waiting when the page was reloaded (its address's ``ask``) is asked again;
    one that the game has moved past asks nothing."""
    _app, _client, routes = here
    players, steps = script("hundred")
    here_ = Phone(routes, "en", "hundred", players)
    asked = next(i for i, s in enumerate(steps) if s.option is not None)
    for step in steps[:asked]:
        here_.tap(step.move)
    bare = {k: v for k, v in steps[asked].move.items() if k != "total"}
    question = here_.tap(bare)
    assert not question["applied"] and question["address"].startswith("/phone#here1?ask=")
    again = here_.reload(ask=unquote_plus(question["address"].split("ask=", 1)[1]))
    assert "data-locked" in again["html"] and "choice" in again["html"]
    assert "data-locked" not in here_.reload(ask='{"type": "nothing"}')["html"]
    assert "data-locked" not in here_.reload(ask="not json")["html"]


def test_a_move_the_rules_no_longer_take_is_said_when_the_game_is_taken_again(here):
    _app, _client, routes = here
    body = _page(routes, "en") | {"id": "x", "game": "tablanette", "players": ["Ann", "Ben"], "options": {}}
    answer = json.loads(phone.resume(json.dumps(body | {"moves": [{"type": "play", "card": "AS"}]})))
    assert answer["status"] == 422 and answer["refused"] == 1
    assert answer["version"] == 0 and 'id="live"' in answer["html"]
