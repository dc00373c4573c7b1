"""What every game gets from the app alike: the page, the move log in words, the
transcript round trip, undo, and the watcher's 204 (DESIGN.md "The web")."""

import re
import types

import pytest
from markupsafe import escape
from werkzeug.datastructures import MultiDict

from companion import board, games, web
from companion.web import ADAPTERS
from tests.conftest import become_referee

GAMES = games.GAMES


def create(client, game):
    players, moves = web.get(game).SAMPLE["players"], web.get(game).SAMPLE["moves"]
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
    assert web.get(game).SAMPLE["said"] in log
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
    assert web.get(game).SAMPLE["players"][0] in home


@pytest.mark.parametrize("game", GAMES)
def test_every_game_has_a_complete_web_adapter(game):
    """Adding a game is an engine, an adapter and templates: the adapter is checked."""
    assert web.problems(game, ADAPTERS[game]) == []  # type: ignore[arg-type]


@pytest.mark.parametrize("game", GAMES)
def test_every_game_has_a_complete_board(game):
    """What the board shows beyond the engine's view (companion/board/<game>.py) is checked too."""
    assert board.problems(game, board.get(game)) == []  # type: ignore[arg-type]


def test_a_board_naming_a_picker_move_its_game_has_not_is_refused():
    shown = types.SimpleNamespace(**vars(board.get("tute")))
    shown.PICKER = ("trump", "lay")
    shown.__name__ = "companion.board.tute"
    assert web.problems("tute", ADAPTERS["tute"], shown) == [
        "companion.board.tute.PICKER: 'lay' is not one of its moves"
    ]


@pytest.mark.parametrize("game", GAMES)
def test_every_page_of_a_game_renders_fresh_and_mid_game(client, game):
    """Each page a game has, through its templates and adapter: at the start (no move) and
    after the sample's moves, for the referee and for a watcher."""
    sample = web.get(game).SAMPLE
    fresh = client.post("/api/games", json={"game": game, "players": sample["players"]}).get_json()
    mid = create(client, game)
    watcher = client.application.test_client()
    for created in (fresh, mid):
        game_id = created["id"]
        become_referee(client, game_id, created["edit_key"])
        page = client.get(f"/games/{game_id}").get_data(as_text=True)
        assert 'id="picker"' in page and 'id="live"' in page
        assert 'id="picker"' not in watcher.get(f"/games/{game_id}").get_data(as_text=True)
        assert client.get(f"/games/{game_id}/live?version=-1", headers={"HX-Request": "true"}).status_code == 200
        assert client.get(f"/games/{game_id}/log").status_code == 200
        lab = re.search(r'href="(/rules/[^"]+)">Rules question', page).group(1).replace("&amp;", "&")
        assert client.get(lab).status_code == 200, lab
    assert client.get(f"/games/{fresh['id']}/tally").status_code == 200  # a deal is tallied from its start
    assert client.get(f"/rules/{game}").status_code == 200
    assert client.get(f"/rules/{game}/words").status_code == 200


@pytest.mark.parametrize("game", GAMES)
def test_every_page_of_a_finished_game_renders(client, game):
    """The adapter's finished game (issue 13: fresh, mid-game and finished): its page says
    who won, for the referee and a watcher; nothing is expected, so no tally screen."""
    sample = web.get(game).SAMPLE
    finished = sample["finished"]
    created = client.post(
        "/api/games", json={"game": game, "players": sample["players"], "options": finished["options"]}
    ).get_json()
    headers = {"X-Edit-Key": created["edit_key"]}
    for version, move in enumerate(finished["moves"]):
        answer = client.post(
            f"/api/games/{created['id']}/moves", json={"version": version, "move": move}, headers=headers
        )
        assert answer.status_code == 200, answer.get_json()
    view = answer.get_json()["view"]
    assert view["result"] and view["expects"] == []
    game_id = created["id"]
    watcher = client.application.test_client()
    become_referee(client, game_id, created["edit_key"])
    for phone in (client, watcher):
        page = phone.get(f"/games/{game_id}").get_data(as_text=True)
        assert 'id="live"' in page and 'name="card"' not in page, "no card to tap"
        assert any(str(escape(w)) in page for w in view["result"]["winners"]), "the page names the winners"
        assert 'class="deal-line"' not in page, "no next deal is announced"
        assert phone.get(f"/games/{game_id}/live?version=-1", headers={"HX-Request": "true"}).status_code == 200
        assert phone.get(f"/games/{game_id}/log").status_code == 200
    assert 'href="/games/new">New game' in client.get(f"/games/{game_id}").get_data(as_text=True)
    assert client.get(f"/games/{game_id}/tally").status_code == 303
    assert client.get("/").status_code == 200


@pytest.mark.parametrize("game", GAMES)
def test_the_card_grid_posts_without_the_browsers_form_check(client, game):
    """A grid's buttons and boxes have nothing to check, and htmx would fire a validation
    event for each of its ~55 fields on every tap: the grid's form is ``novalidate``."""
    created = create(client, game)
    become_referee(client, created["id"], created["edit_key"])
    page = client.get(f"/games/{created['id']}").get_data(as_text=True)
    grid = re.search(r'<section id="picker".*?<form([^>]*)>', page, re.S)
    assert grid and "novalidate" in grid.group(1), grid and grid.group(1)


def _record(html: str) -> str | None:
    """What the record below the grid holds, in a page or an answer (None: not in it)."""
    found = re.search(r'<div id="record"[^>]*>(.*?)</div>', html, re.S)
    return found.group(1) if found else None


def _a_deal_tapped(client, game: str):
    """The seeded deal of ``game`` (tests/e2e/deals.py) tapped in on a referee's page: the
    page first (its step and answer None), then each tap's step, its answer and the page
    reloaded after it, until the deal is in or the rules ask a question first."""
    from tests.e2e.deals import script

    players, steps = script(game)
    created = client.post("/api/games", json={"game": game, "players": players, "options": {}}).get_json()
    become_referee(client, created["id"], created["edit_key"])
    yield None, None, client.get(f"/games/{created['id']}").get_data(as_text=True)
    for version, step in enumerate(steps):
        fields = [("version", str(version))]
        for k, v in step.move.items():
            fields += [(f"{k}[]", str(x)) for x in v] if isinstance(v, list) else [(k, str(v))]
        answer = client.post(f"/games/{created['id']}/moves", data=MultiDict(fields), headers={"HX-Request": "true"})
        assert answer.status_code == 200, step
        if answer.headers["X-Version"] == str(version):  # a question first: far enough
            return
        yield step, answer.get_data(as_text=True), client.get(f"/games/{created['id']}").get_data(as_text=True)


@pytest.mark.parametrize("game", GAMES)
def test_the_record_a_phone_holds_is_the_pages_after_every_tap(client, game):
    """An answer sends the record below the grid again only when what it shows changed (the
    adapter's RECORD: a trick's end, not each card): after every tap of a whole deal, the
    record the phone holds (the last one sent) is the one the page shows when reloaded."""
    deal = _a_deal_tapped(client, game)
    held = _record(next(deal)[2])
    sent = taps = 0
    for step, answer, page in deal:
        taps += 1
        if (got := _record(answer)) is not None:
            held, sent = got, sent + 1
        assert held == _record(page), step
    if board.get(game).RECORD:
        assert 0 < sent < taps, sent  # sent at some taps, not at every one
    else:
        assert sent == 0


_PICKER = re.compile(r'<section id="picker".*?</section>', re.S)
_PICK = re.compile(r'<button name="card" value="\w+" id="(pick-\w+)".*?</button>', re.S)


def _bare(html: str) -> str:
    """Markup as it stands in the page once htmx swapped it in: no out-of-band mark."""
    return html.replace(' hx-swap-oob="true"', "")


def _shape(picker: str) -> str:
    """A picker without which cards are played: what only a whole picker can change."""
    return re.sub(r' played| aria-disabled="true"', "", picker)


def _played(picker: str) -> set[str]:
    return set(re.findall(r'id="(pick-\w+)" class="pick[^"]* played', picker))


@pytest.mark.parametrize("game", GAMES)
def test_the_picker_a_phone_holds_is_the_pages_after_every_tap(client, game):
    """An answer sends the whole card picker again only when what it shows changes beyond
    the cards played (the adapter's PICKER: a phase, the deal, the game's end), else just
    the cards whose state changed. After every tap of a whole deal, the picker the phone
    holds (each card as last sent) is the page's when reloaded, and no whole picker was
    sent where its played cards would have said it all (Tute's cante, open after each
    trick, sent it twice a trick)."""
    deal = _a_deal_tapped(client, game)
    held = _PICKER.search(next(deal)[2]).group(0)
    cards = 0
    for step, answer, page in deal:
        body = _bare(answer)
        if (sent := _PICKER.search(body)) is not None:
            # Cards played only since (not a new deal's, every card back in play): one by one.
            only_played = _shape(sent.group(0)) == _shape(held) and _played(sent.group(0)) >= _played(held)
            assert not only_played, ("a whole picker for cards played", step)
            held = sent.group(0)
        for pick in _PICK.finditer(body):
            held, found = re.subn(rf'<button [^>]*id="{pick.group(1)}".*?</button>', pick.group(0), held, flags=re.S)
            assert found == 1, pick.group(1)
            cards += 1
        assert held == _PICKER.search(page).group(0), step
    assert cards > 0, "cards are sent one by one"
