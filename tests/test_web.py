"""The pages and the move endpoints, through Flask's test client."""

import re

import pytest

from companion import games
from tests.conftest import form_values, new_game, version_of

HX = {"HX-Request": "true"}


def tag(page: str, name: str) -> str:
    """The HTML tag of the form field called ``name``."""
    return re.search(rf'<(?:input|select)[^>]*name="{name}"[^>]*>', page).group(0)


def chosen(page: str, name: str) -> str:
    """The value of the option selected in the select called ``name``."""
    select = re.search(rf'<select[^>]*name="{name}"[^>]*>(.*?)</select>', page, re.S).group(1)
    option = next(o for o in re.findall(r"<option[^>]*>", select) if " selected" in o)
    return re.search(r'value="([^"]*)"', option).group(1)


def play(client, game_id, headers=HX, **fields):
    data = {"version": str(version_of(client, game_id))}
    for k, v in fields.items():
        data[k + "[]" if isinstance(v, list) else k] = v
    return client.post(f"/games/{game_id}/moves", data=data, headers=headers)


def test_home_lists_games_newest_first(client):
    assert b"New game" in client.get("/").data
    first = new_game(client, ("Ann", "Ben"))
    second = new_game(client, ("Cat", "Dan"))
    page = client.get("/").get_data(as_text=True)
    assert page.index(second) < page.index(first)
    assert "Deal 1 · Cat 0, Dan 0" in page  # the status, worded at render time


def test_new_game_form_shows_every_option_with_its_default(client):
    page = client.get("/games/new").get_data(as_text=True)
    for name in (
        "partnership",
        "hand_size",
        "max_group_size",
        "jack_is_12",
        "forced_capture",
        "point_scale",
        "most_cards_bonus",
        "target",
        "fixed_deals",
        "jack_sweep_is_tablanette",
    ):
        assert f'name="{name}"' in page, name
    assert 'value="3"' in tag(page, "max_group_size")
    # Issue 18: "captures are compulsory" has three values, so it is a list, not a box.
    assert chosen(page, "forced_capture") == "True" and "checked" not in tag(page, "jack_is_12")


def test_a_start_fills_in_its_rules(client):
    page = client.get("/games/new/options?game=tablanette&start=tablic", headers=HX).get_data(as_text=True)
    assert 'value="101"' in tag(page, "target") and 'value="tablic"' in tag(page, "preset")
    assert chosen(page, "forced_capture") == "False" and "checked" in tag(page, "jack_is_12")
    assert "As usual for Tablić" in page


@pytest.mark.parametrize("game", games.GAMES)
def test_every_start_of_every_game_starts_a_game(client, game):
    """One tap on a start, names typed, Start: the game has the start's options."""
    rules = games.get(game)
    for start, how in rules.STARTS.items():
        page = client.get(f"/games/new?game={game}&start={start}").get_data(as_text=True)
        form = form_values(page)
        names = ["Ann", "Ben", "Cat", "Dan"][: max(rules.MIN_PLAYERS, 4 if how.options.get("partnership") else 0)]
        form |= {f"player{i}": name for i, name in enumerate(names)}
        response = client.post("/games/new", data=form)
        assert response.status_code == 303, (start, response.get_data(as_text=True)[:2000])
        game_id = response.headers["Location"].rsplit("/", 1)[1]
        options = client.get(f"/api/games/{game_id}").get_json()["options"]
        assert {k: options[k] for k in how.options} == how.options, start


def test_changed_rules_are_summed_up_and_the_rules_open_on_an_error(client):
    page = client.get("/games/new?game=tute").get_data(as_text=True)
    form = form_values(page) | {"player0": "Ann", "player1": "Ben", "player2": "Cat", "loss_limit": "0"}
    page = client.post("/games/new", data=form).get_data(as_text=True)
    assert '<details class="fold rules-options" open>' in page
    assert "Tute Cabrón, changed: Loss marks that end the game" in page
    assert "“Loss marks that end the game” must be a whole number" in page and "loss_limit must" not in page


@pytest.mark.parametrize(
    "players, options, field, words",
    [
        (("Ann",), {}, "player1", "Enter a name"),
        (("Ann", "Ben"), {"partnership": "y"}, "partnership", "“Two teams (4 players)” needs exactly 4 players"),
        (("Ann", "Ben", "Cat"), {"hand_size": "5"}, "hand_size", "share out the 48 cards evenly among 3 players"),
        (("Ann", "ANN"), {}, "player1", "ANN and Ann are the same name"),
        (("Ann", "Ben"), {"max_group_size": "1"}, "max_group_size", "2 or more"),
        (("Ann", "Ben"), {"dealer": "2"}, "dealer", "Player 3 has no name"),
    ],
)
def test_bad_new_game_reshows_the_form_with_the_error_beside_the_field(client, players, options, field, words):
    form = form_values(client.get("/games/new").get_data(as_text=True))
    form |= {f"player{i}": p for i, p in enumerate(players)} | options
    response = client.post("/games/new", data=form)
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert words in page
    # The error sits in the field's own block, and what was typed is kept.
    block = page[page.index(f'id="{field}"') :]
    assert block.index(words) < block.index('class="field')
    assert f'value="{players[0]}"' in page
    assert client.get("/api/games/none").status_code == 404


@pytest.mark.parametrize("game", games.GAMES)
def test_an_option_number_beyond_the_apis_range_is_refused_beside_its_field(client, game):
    """A 25-digit option was accepted by the form and the engine, and then could not be
    stored (orjson's 64 bits): a 500 the form crawler found. Now it is a 422 with the range
    beside the field, as the API's schema refuses it with a 400."""
    page = client.get(f"/games/new?game={game}").get_data(as_text=True)
    numbers = [
        re.search(r'name="(\w+)"', tag).group(1) for tag in re.findall(r"<input [^>]*>", page) if "numeric" in tag
    ]
    assert numbers, f"{game}: no number among the options"
    for name in numbers:
        for huge in ("-6481762120383513015275064", "99999999999999999999"):
            form = form_values(page) | {f"player{i}": p for i, p in enumerate(["Ann", "Ben", "Cat", "Dan"])}
            answer = client.post("/games/new", data=form | {name: huge})
            assert answer.status_code == 422, (game, name, huge, answer.status_code)
            field = answer.get_data(as_text=True).split(f'id="{name}"', 1)[1].split('class="field', 1)[0]
            assert "Number must be between" in field, (game, name, huge)


def test_referee_link_sets_the_key_and_the_watch_link_is_read_only(client, app):
    game_id = new_game(client)
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert 'id="picker"' in page and 'class="undo-button"' not in page  # nothing to undo yet
    watcher = app.test_client()
    page = watcher.get(f"/games/{game_id}").get_data(as_text=True)
    assert 'id="picker"' not in page and "watching: the board updates by itself" in page
    assert play(watcher, game_id, type="layout", cards=["2C", "3D", "4H", "8S"]).status_code == 403
    assert watcher.post(f"/games/{game_id}/undo", data={"version": "0"}).status_code == 403
    assert version_of(client, game_id) == 0


def test_a_move_answers_the_live_fragment_and_greys_out_the_card(client):
    game_id = new_game(client)
    r = play(client, game_id, type="layout", cards=["2C", "3D", "4H", "8S"])
    assert r.status_code == 200 and 'id="live"' in r.get_data(as_text=True)
    assert "<html" not in r.get_data(as_text=True)
    assert r.headers["Vary"] and "HX-Request" in r.headers["Vary"]
    # Ben (non-dealer) plays QH: 2+3+8 = 13 is the only capture, applied at once.
    r = play(client, game_id, type="play", card="QH")
    body = r.get_data(as_text=True)
    assert r.status_code == 200
    assert 'id="pick-QH"' in body and 'hx-swap-oob="true"' in body
    assert re.search(r'id="pick-QH"[^>]*aria-disabled="true"', body)  # played: struck through
    view = client.get(f"/api/games/{game_id}").get_json()["view"]
    assert view["table"] == ["4H"] and sorted(view["captured"]["Ben"]) == sorted(["2C", "3D", "8S", "QH"])


def test_a_refused_move_shows_the_rule_in_place_and_changes_nothing(client):
    game_id = new_game(client)
    play(client, game_id, type="layout", cards=["6S", "2H", "4D", "9C"])
    before = version_of(client, game_id)
    r = play(client, game_id, type="play", card="6C", capture=["6S"])  # TB-10
    assert r.status_code == 422
    body = r.get_data(as_text=True)
    assert "Must also take 2♥+4♦" in body and 'role="alert"' in body
    assert version_of(client, game_id) == before


def test_a_choice_of_captures_is_offered_as_buttons(client):
    game_id = new_game(client)
    play(client, game_id, type="layout", cards=["2S", "3H", "5D", "9C"])
    r = play(client, game_id, type="play", card="KH")  # TB-08
    body = r.get_data(as_text=True)
    assert r.status_code == 200 and body.count('class="option"') == 2
    assert version_of(client, game_id) == 1
    r = play(client, game_id, type="play", card="KH", capture=["", "5D", "9C"])
    assert r.status_code == 200
    assert client.get(f"/api/games/{game_id}").get_json()["view"]["table"] == ["2S", "3H"]


def test_a_sweep_is_announced_with_how_it_was_counted(client):
    game_id = new_game(client)
    play(client, game_id, type="layout", cards=["2S", "3H", "8C", "QD"])
    body = play(client, game_id, type="play", card="QC").get_data(as_text=True)  # QD and 2+3+8
    assert "Sweep! Ben +39" in body and "13 × 3 = 39" in body
    view = client.get(f"/api/games/{game_id}").get_json()["view"]
    assert view["scores"] == {"Ann": 0, "Ben": 39} and view["sweeps"]["Ben"] == [39]


def test_undo_is_one_tap_and_the_log_strikes_it_through(client):
    game_id = new_game(client)
    play(client, game_id, type="layout", cards=["2C", "3D", "4H", "8S"])
    play(client, game_id, type="play", card="QH")
    r = client.post(f"/games/{game_id}/undo", data={"version": str(version_of(client, game_id))}, headers=HX)
    assert r.status_code == 200
    view = client.get(f"/api/games/{game_id}").get_json()
    assert view["version"] == 3 and view["view"]["table"] == ["2C", "3D", "4H", "8S"]
    log = client.get(f"/games/{game_id}/log").get_data(as_text=True)
    assert "<del>Ben played Q♥ and took 2♣ 3♦ 8♠.</del>" in log
    assert "Ann laid out 2♣ 3♦ 4♥ 8♠" in log


def test_a_stale_version_gets_a_conflict_and_the_current_board(client):
    game_id = new_game(client)
    play(client, game_id, type="layout", cards=["2C", "3D", "4H", "8S"])
    r = client.post(f"/games/{game_id}/moves", data={"version": "0", "type": "play", "card": "QH"}, headers=HX)
    assert r.status_code == 409
    assert "Another phone" in r.get_data(as_text=True) and 'id="picker"' in r.get_data(as_text=True)
    assert version_of(client, game_id) == 1


@pytest.mark.parametrize("version", ["٠", "１", " 1", "1.0", "", "9" * 20])
def test_a_version_in_anything_but_plain_digits_is_400_and_changes_nothing(client, version):
    """The crawler's finding: int() read "٠" as 0, so a move or undo carrying it was taken."""
    game_id = new_game(client)
    play(client, game_id, type="layout", cards=["2C", "3D", "4H", "8S"])
    move = client.post(f"/games/{game_id}/moves", data={"version": version, "type": "play", "card": "QH"}, headers=HX)
    undo = client.post(f"/games/{game_id}/undo", data={"version": version}, headers=HX)
    assert move.status_code == undo.status_code == 400 and version_of(client, game_id) == 1


def test_watchers_poll_and_get_204_while_nothing_changed(client, app):
    game_id = new_game(client)
    watcher = app.test_client()
    assert watcher.get(f"/games/{game_id}/live?version=0", headers=HX).status_code == 204
    play(client, game_id, type="layout", cards=["2C", "3D", "4H", "8S"])
    r = watcher.get(f"/games/{game_id}/live?version=0", headers=HX)
    assert r.status_code == 200 and "two of clubs" in r.get_data(as_text=True)
    assert 'id="picker"' not in r.get_data(as_text=True)


def test_watchers_see_the_last_ten_moves_newest_first(client, app):
    game_id = new_game(client)
    play(client, game_id, type="layout", cards=["2C", "3D", "4H", "8S"])
    hand = ["5S", "6S", "7S", "9S", "10S", "AH", "5H", "6H", "7H", "9H", "10H", "AD"]
    for card in hand:
        play(client, game_id, type="play", card=card)
    play(client, game_id, type="play", card="KD")
    client.post(f"/games/{game_id}/undo", data={"version": version_of(client, game_id)}, headers=HX)
    watcher = app.test_client()
    for page in (
        watcher.get(f"/games/{game_id}").get_data(as_text=True),
        watcher.get(f"/games/{game_id}/live?version=0", headers=HX).get_data(as_text=True),
    ):
        start = page.index('id="recent"')
        recent = page[start : page.index("</section>", start)]
        moves = re.findall(r"<li>(.*?) <time", recent)
        assert len(moves) == 10
        # Newest first; the undone KD is not among them; cards as symbols, not codes.
        assert moves[0].startswith("Ann played A♦") and moves[9].startswith("Ben played 7♠"), moves
        assert "K♦" not in recent and "AD" not in recent
    assert 'id="recent"' not in client.get(f"/games/{game_id}").get_data(as_text=True)  # the referee has the grid


def test_missing_csrf_token_is_refused(csrf_client):
    page = csrf_client.get("/games/new").get_data(as_text=True)
    response = csrf_client.post("/games/new", data={"game": "tablanette", "player0": "Ann", "player1": "Ben"})
    assert response.status_code == 400 and "reload" in response.get_data(as_text=True).lower()
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page).group(1)
    assert f'"X-CSRFToken": "{token}"' in page  # htmx sends it on every request


def test_player_names_are_escaped_everywhere(client):
    game_id = new_game(client, ("<script>x</script>", "Ben & Co"))
    for url in ("/", f"/games/{game_id}", f"/games/{game_id}/log"):
        page = client.get(url).get_data(as_text=True)
        assert "<script>x" not in page
        assert "&lt;script&gt;x&lt;/script&gt;" in page


def test_pages_carry_a_csp_without_inline_script(client):
    game_id = new_game(client)
    for url in ("/", "/games/new", f"/games/{game_id}", f"/games/{game_id}/log"):
        response = client.get(url)
        csp = response.headers["Content-Security-Policy"]
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp
        page = response.get_data(as_text=True)
        assert all('src="' in tag for tag in re.findall(r"<script[^>]*>", page)), url
        assert not re.search(r"\son[a-z]+=", page), url  # no inline event handlers


def test_unknown_game_is_a_404_page(client):
    response = client.get("/games/nope")
    assert response.status_code == 404 and "no such" in response.get_data(as_text=True).lower()


def test_the_game_page_is_small_when_compressed(client):
    game_id = new_game(client)
    gz = {"Accept-Encoding": "gzip"}
    total = len(client.get(f"/games/{game_id}", headers=gz).data)
    for asset in ("/static/htmx.min.js", "/static/app.css", "/static/app.js"):
        response = client.get(asset, headers=gz)
        assert response.headers.get("Content-Encoding") == "gzip"
        total += len(response.data)
    assert total < 40_000, total  # a ceiling that catches a blow-up; make bench measures the 24 KB bar


def test_the_transcript_downloads(client):
    game_id = new_game(client)
    play(client, game_id, type="layout", cards=["2C", "3D", "4H", "8S"])
    response = client.get(f"/games/{game_id}/transcript")
    assert response.headers["Content-Disposition"].startswith("attachment")
    assert response.get_json()["moves"] == [{"type": "layout", "cards": ["2C", "3D", "4H", "8S"]}]


def test_undo_says_what_it_takes_back_and_is_absent_with_nothing_to_undo(client):
    game_id = new_game(client)
    assert "undo-button" not in client.get(f"/games/{game_id}").get_data(as_text=True)
    answer = play(client, game_id, type="layout", cards=["2C", "3D", "4H", "8S"]).get_data(as_text=True)
    assert 'id="undo-box" hx-swap-oob="true"' in answer
    assert "↶ Undo: Deal 1: Ann laid out 2♣ 3♦ 4♥ 8♠" in answer
    answer = play(client, game_id, type="play", card="QH").get_data(as_text=True)
    assert "↶ Undo: Ben played Q♥ and took 2♣ 3♦ 8♠." in answer
    answer = client.post(f"/games/{game_id}/undo", data={"version": version_of(client, game_id)}, headers=HX)
    assert "↶ Undo: Deal 1: Ann laid out" in answer.get_data(as_text=True)
    client.post(f"/games/{game_id}/undo", data={"version": version_of(client, game_id)}, headers=HX)
    assert "undo-button" not in client.get(f"/games/{game_id}").get_data(as_text=True)


def test_a_pending_choice_locks_the_grid_until_it_is_answered(client):
    """While a choice waits for its answer the board says the grid is locked (#live's
    data-locked: the page disables the grid's fieldset, static/app.js); the grid itself is not sent
    again, locking it or unlocking it: the answer to the choice sends only the cards it greyed."""
    game_id = new_game(client)
    play(client, game_id, type="layout", cards=["2S", "3H", "5D", "9C"])
    body = play(client, game_id, type="play", card="KH").get_data(as_text=True)  # TB-08: a choice
    assert 'class="choice sheet"' in body and re.search(r'<section id="live"[^>]* data-locked', body)
    assert 'id="picker"' not in body and '<button name="card"' not in body  # the grid stays as it is
    assert body.count('name="resume" value="capture"') == 2  # each option unlocks the grid when answered
    body = play(client, game_id, type="play", card="KH", capture=["", "5D", "9C"], resume="capture").get_data(
        as_text=True
    )
    assert not re.search(r'<section id="live"[^>]* data-locked', body) and 'id="picker"' not in body
    buttons = re.findall(r'<button name="card"[^>]*>', body)
    assert len(buttons) == 1 and 'id="pick-KH"' in buttons[0] and 'aria-disabled="true"' in buttons[0]  # KH: seen now


def test_cancelling_a_choice_unlocks_the_grid(client):
    game_id = new_game(client)
    play(client, game_id, type="layout", cards=["2S", "3H", "5D", "9C"])
    assert 'class="choice sheet"' in play(client, game_id, type="play", card="KH").get_data(as_text=True)
    cancelled = client.get(f"/games/{game_id}/live", headers=HX).get_data(as_text=True)  # "Cancel: a different card"
    assert 'class="choice' not in cancelled and 'id="picker"' in cancelled
    assert re.search(r'id="pick-KH"(?![^>]*disabled)', cancelled)  # neither disabled nor aria-disabled


def test_move_and_undo_forms_drop_a_second_tap_while_one_is_in_flight(client):
    game_id = new_game(client)
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    forms = re.findall(r'<form[^>]*hx-post="/games/[^"]+/(?:moves|undo)"[^>]*>', page)
    assert forms and all('hx-sync="closest .game:drop"' in f for f in forms)


def test_the_dealer_list_names_the_players(client):
    form = {"game": "tablanette", "dealer": "5", "player0": "Ann", "player1": "Ben"}  # a bad dealer: the form again
    page = client.post("/games/new", data=form).get_data(as_text=True)
    dealer = re.search(r'<select[^>]*id="dealer".*?</select>', page, flags=re.S).group(0)
    assert ">Ann</option>" in dealer and ">Ben</option>" in dealer and ">Player 3</option>" in dealer
    swapped = client.get("/games/new/options?game=tute&player0=Cy&player1=Di", headers=HX).get_data(as_text=True)
    assert ">Cy</option>" in swapped and ">Di</option>" in swapped


def test_the_scoreboard_keeps_the_deal_running(client):
    """Issue 12: cards and card points taken so far, and sweeps, per side, during the deal."""
    game_id = new_game(client)
    play(client, game_id, type="layout", cards=["2C", "3D", "4H", "8S"])
    body = play(client, game_id, type="play", card="QH").get_data(as_text=True)  # Ben takes 2C 3D 8S with QH
    assert "no cards yet" in body  # Ann
    assert "4 cards · 2 pts" in body  # Ben: Q and 2♣ count one point each (RULES.md 1.5)
    view = client.get(f"/api/games/{game_id}").get_json()["view"]
    assert view["card_points"] == {"Ann": 0, "Ben": 2}


@pytest.mark.parametrize("game", games.GAMES)
def test_other_rule_sets_open_with_the_rules(client, game):
    """Issue 18: another program's rules or another reading of a seed (``Start.more``) is a
    tap inside the folded rules, so the usual starts and the Start button stay on the first
    screens; choosing one opens the rules with it chosen."""
    rules = games.get(game)
    page = client.get(f"/games/new?game={game}").get_data(as_text=True)
    folded = page[page.index('<details class="fold rules-options"') :]
    for start, how in rules.STARTS.items():
        radio = f'name="start" type="radio" value="{start}"'
        assert (radio in folded) == how.more and radio in page, start
    others = [k for k, s in rules.STARTS.items() if s.more]
    if others:
        page = client.get(f"/games/new?game={game}&start={others[-1]}").get_data(as_text=True)
        assert '<details class="fold rules-options" open>' in page
        assert re.search(rf'<input [^>]*checked[^>]*value="{others[-1]}"', page)
