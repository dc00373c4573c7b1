"""The Tute Cabrón game page through the view layer: trump, tricks, cantes, revoke
flags, the end of a deal and its loss marks (RULES.md §2)."""

import random
import re

from companion.board.markup import reason_html
from companion.games import tute as T
from tests.conftest import post_move as post

PLAYERS = ("Ann", "Ben", "Cat", "Dan")


def new_tute(client, players=PLAYERS, **options):
    form = {
        "game": "tute",
        "dealer": "0",
        "loss_limit": "6",
        "win_threshold": "101",
        "triple_tie": "all_lose",
        "revoke_penalty": "loss_mark",
        "undertrump_required": "y",
        "must_head": "y",
        "allow_declarations": "y",
    }
    form |= {f"player{i}": name for i, name in enumerate(players)} | options
    response = client.post("/games/new", data=form)
    assert response.status_code == 303, response.get_data(as_text=True)
    return re.search(r"/games/([\w-]+)", response.headers["Location"]).group(1)


def deal_hands(seed, n=4, dealer=0):
    deck = [str(c) for c in T.pack(n)]
    random.Random(seed).shuffle(deck)
    size = T.HAND_SIZE[n]
    return {(dealer + 1 + i) % n: deck[i * size : (i + 1) * size] for i in range(n)}


def test_new_game_form_offers_tute_with_five_seats(client):
    """The form for Tute has 5 seats (3-5 players, RULES.md §2.3) and its options."""
    page = client.get("/games/new/options?game=tute&player0=Ann").get_data(as_text=True)
    assert 'name="player4"' in page and 'value="Ann"' in page
    assert "loss_limit" in page and "revoke_penalty" in page and "spanish_names" in page


def test_a_whole_deal_through_the_page(client, app):
    """RULES.md §2.3-2.7: the turned trump, one tap per card, the end-of-deal breakdown."""
    game_id = new_tute(client)
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "Tap the card Ann turns up" in " ".join(page.split())  # as read: HTML folds its spaces
    hands = deal_hands(1)
    response = post(client, game_id, type="trump", card=hands[0][-1])
    assert response.status_code == 200
    assert "Trumps:" in response.get_data(as_text=True)
    state = T.apply(T.start(list(PLAYERS)), {"type": "trump", "card": hands[0][-1]})
    for _ in range(40):
        seat = T.to_act(state)
        card = sorted(T.legal_plays(hands[seat], [c for _, c in state.trick], state.trump))[0]
        hands[seat].remove(card)
        state = T.apply(state, {"type": "play", "card": card})
        response = post(client, game_id, type="play", card=card)
        assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_data(as_text=True)
    h = state.history[-1]
    with app.test_request_context(headers={"Accept-Language": "en"}):
        why = str(reason_html(h["reason"]))
    assert "Deal 1" in body and "Loss marks" in body and why in body
    view = client.get(f"/api/games/{game_id}").get_json()["view"]
    assert view["losses"] == T.view(state)["losses"]


def test_a_refused_card_shows_the_rule_and_changes_nothing(client):
    """RULES.md §2.11: the dealer holds the turned trump; trumps led, a plain card is refused."""
    game_id = new_tute(client)
    post(client, game_id, type="trump", card="5D")
    before = client.get(f"/api/games/{game_id}").get_json()
    for card in ("7D", "2D", "3D"):  # Ben, Cat, Dan
        assert post(client, game_id, type="play", card=card).status_code == 200
    response = post(client, game_id, type="play", card="AS")  # Ann holds 5D
    assert response.status_code == 422
    assert "5♦" in response.get_data(as_text=True) and "turned trump" in response.get_data(as_text=True)
    assert 'href="/rules/tute/words#s2-4"' in response.get_data(as_text=True)  # the rule it cites, linked
    assert client.get(f"/api/games/{game_id}").get_json()["version"] == before["version"] + 3


def test_cante_buttons_only_when_legal_and_the_revoke_flag(client):
    """RULES.md §2.5 declarations and §2.11 hindsight: after a trick win the winner is offered
    only the cantes that can be legal; a later card proves a revoke and the trick is flagged."""
    game_id = new_tute(client)
    post(client, game_id, type="trump", card="5D")
    for card in ("7S", "AS", "KS", "4S"):  # Ben leads; Cat wins with AS; the KS is gone
        post(client, game_id, type="play", card=card)
    body = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "Cat may sing" in body
    offered = re.findall(r'name="suit" value="(\w)"', body)
    assert offered == ["H", "D", "C"]  # not spades: KS was played
    response = post(client, game_id, type="declare", suit="H")
    # The banner says the call as a player says it: the suit's name, no symbol before it.
    assert response.status_code == 200 and "Cat sings 20 in hearts<" in response.get_data(as_text=True)
    # Cat leads 7H; Dan shows out with 3C; Ann 2H, Ben 4H; Cat wins and leads 6C, and Dan
    # follows with 5H: Dan held a heart in trick 2, so that trick is flagged.
    for card in ("7H", "3C", "2H", "4H", "6C"):
        assert post(client, game_id, type="play", card=card).status_code == 200
    response = post(client, game_id, type="play", card="5H")
    body = response.get_data(as_text=True)
    assert "Revoke in trick 2: Dan" in body and "⚑" in body


def test_three_players_start_without_a_turned_card(client):
    """RULES.md §2.3: with 3 players no card is turned; the first lead is a play, and the
    36-card pack (no 2s) is on the grid."""
    game_id = new_tute(client, players=("Ann", "Ben", "Cat"), win_threshold="101")
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "No trumps yet" in page and 'id="pick-2S"' not in page and 'id="pick-3S"' in page
    response = post(client, game_id, type="play", card="KS")
    assert response.status_code == 200 and "Cat" in response.get_data(as_text=True)
    refused = post(client, game_id, type="play", card="2H")
    assert refused.status_code == 422 and "not in the pack" in refused.get_data(as_text=True)


def test_spanish_names_are_a_display_setting(client):
    """RULES.md §0.2: a Spanish pack is only a rendering: KD shows as the rey de oros."""
    game_id = new_tute(client, spanish_names="y")
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert 'aria-label="rey de oros"' in page and 'aria-label="sota de bastos"' in page
    response = post(client, game_id, type="trump", card="5D")
    assert "oros" in response.get_data(as_text=True)
    french = client.get(f"/games/{new_tute(client)}").get_data(as_text=True)
    assert 'aria-label="king of diamonds"' in french


def test_spanish_names_on_every_page_of_the_game(client):
    """RULES.md §0.2: the names follow the game, not the page: its board, a refusal and
    the move log all say R for the rey (KD); a French game's say K."""
    for options, king in (({"spanish_names": "y"}, "R♦"), ({}, "K♦")):
        game_id = new_tute(client, **options)
        post(client, game_id, type="trump", card="5D")
        board = post(client, game_id, type="play", card="KD").get_data(as_text=True)
        assert f"played {king}" in board
        refused = post(client, game_id, type="play", card="KD")
        assert refused.status_code == 422 and f"{king} was already played" in refused.get_data(as_text=True)
        log = client.get(f"/games/{game_id}/log").get_data(as_text=True)
        assert f"played {king}" in log


def test_the_json_api_referees_tute(client):
    """DESIGN.md JSON API with a Tute game: create, trump, play, a refused card (422)."""
    created = client.post("/api/games", json={"game": "tute", "players": list(PLAYERS), "options": {"loss_limit": 3}})
    assert created.status_code == 201
    game = created.get_json()
    headers = {"X-Edit-Key": game["edit_key"]}
    url = f"/api/games/{game['id']}/moves"
    answer = client.post(url, json={"version": 0, "move": {"type": "trump", "card": "5D"}}, headers=headers)
    assert answer.status_code == 200 and answer.get_json()["view"]["trump"] == "D"
    answer = client.post(url, json={"version": 1, "move": {"type": "play", "card": "8S"}}, headers=headers)
    assert answer.status_code == 422 and "not in the pack" in answer.get_json()["error"]
    assert answer.get_json() | {"error": None} == {
        "error": None,
        "code": "not_in_pack_40",
        "params": {"card": "8S", "players": 4},
        "rule": "Tute 2.2",
    }
    client.get(f"/games/{game['id']}")  # the home page lists the games this phone opened
    home = client.get("/").get_data(as_text=True)
    assert "loss marks Ann 0" in home


def test_the_tally_refuses_a_fifth_cante_citing_its_rule(client):
    """RULES.md §2.5: a player sings at most four cantes a deal (one 40, three 20s)."""
    game_id = new_tute(client)
    version = client.get(f"/api/games/{game_id}").get_json()["version"]
    data = {"version": version, "cantes_0": ["20", "20", "20", "40"], "cante_20": "0"}
    body = client.post(f"/games/{game_id}/tally", data=data, headers={"HX-Request": "true"}).get_data(as_text=True)
    assert "At most 4 cantes a player" in body and 'href="/rules/tute/words#s2-5"' in body
