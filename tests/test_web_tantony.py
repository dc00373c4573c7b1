"""The Tantony game page through the view layer: gifts, the 13th trick, known hands
from deal 2 and the hide-hands toggle (RULES.md §3)."""

import random
import re

from companion.games import tantony as T
from tests.conftest import post_move as post

PLAYERS = ("Nan", "Eve", "Sam", "Wes")


def new_tantony(client, players=PLAYERS, **options):
    form = {
        "game": "tantony",
        "dealer": str(len(players) - 1),
        "partnership_mode": "fixed",
        "value_scale": "web2023",
        "last_card_rule": "web2023",
        "three_player_values": "same",
        "sudden_death": "",
    }
    form |= {f"player{i}": name for i, name in enumerate(players)} | options
    response = client.post("/games/new", data=form)
    assert response.status_code == 303, response.get_data(as_text=True)
    return re.search(r"/games/([\w-]+)", response.headers["Location"]).group(1)


def play_deal(client, game_id, state, hands, rng):
    """Play a whole deal through the page, mirroring it in the engine (from deal 2 the
    engine knows the hands: ``hands`` is then not used)."""
    deal = state.deal
    while state.deal == deal and not T.view(state)["result"]:
        v = T.view(state)
        if "give" in v["expects"]:
            move = {"type": "give", "to": rng.choice(v["room"])}
        elif v["legal"] is not None:
            move = {"type": "play", "card": rng.choice(v["legal"])}
        else:
            seat = T.to_act(state)
            card = rng.choice(sorted(T.legal_plays(hands[seat], [c for _, c in state.trick])))
            hands[seat].remove(card)
            move = {"type": "play", "card": card}
        state = T.apply(state, move)
        response = post(client, game_id, **move)
        assert response.status_code == 200, response.get_data(as_text=True)
    return state, response.get_data(as_text=True)


def test_form_and_usual_options(client):
    """RULES.md §3.11: sudden death 'usual' is on for fixed partners; the form says so."""
    game_id = new_tantony(client)
    view = client.get(f"/api/games/{game_id}").get_json()["view"]
    assert view["options"]["sudden_death"] is True and view["deals"] == 4 and view["compass"]["Nan"] == "N"
    off = new_tantony(client, sudden_death="off")
    assert client.get(f"/api/games/{off}").get_json()["view"]["options"]["sudden_death"] is False


def test_a_deal_then_known_hands(client):
    """RULES.md §3.4-3.7: gifts by buttons, the 13th trick, then deal 2 shows every hand,
    offers the legal cards as buttons, and refuses a wrong card at once."""
    game_id = new_tantony(client)
    rng = random.Random(3)
    deck = [str(c) for c in T.pack(4)]
    rng.shuffle(deck)
    hands = {i: deck[i * 13 : (i + 1) * 13] for i in range(4)}
    state = T.start(list(PLAYERS), {"dealer": "Wes"})
    first = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "Nan</span>" in first and "to lead" in first and "sudden death at 60" in first
    state, body = play_deal(client, game_id, state, hands, rng)
    assert "End of deal 1" in body and "Known hands" in body  # the deal's end stands above the next deal
    v = T.view(state)
    actor, legal = v["to_act"], v["legal"]
    assert all(f'name="card" value="{c}"' in body for c in legal)
    wrong = next((c for c in v["hands"][actor] if c not in legal), None) or next(
        c for p, h in v["hands"].items() if p != actor for c in h
    )
    refused = post(client, game_id, type="play", card=wrong)
    assert refused.status_code == 422 and " ".join(legal[:1]) in refused.get_data(as_text=True)
    hidden = client.get(f"/games/{game_id}?hands=hide", follow_redirects=True).get_data(as_text=True)
    assert "Show the known hands" in hidden and "Known hands" not in hidden
    shown = client.get(f"/games/{game_id}?hands=show", follow_redirects=True).get_data(as_text=True)
    assert "Known hands" in shown


def test_give_to_a_full_player_is_refused_in_place(client):
    """RULES.md §3.4 (C8): the give buttons list only players with room; a forged gift to a
    full player is refused with the rule."""
    game_id = new_tantony(client)
    for card in ("9D", "3D", "7D", "10D"):
        post(client, game_id, type="play", card=card)
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert page.count('name="type" value="give"') == 4 and "worth 3" in page
    assert post(client, game_id, type="give", to="Sam").status_code == 200
    for card in ("2C", "3C", "4C", "5C"):  # Sam leads
        post(client, game_id, type="play", card=card)
    post(client, game_id, type="give", to="Sam")
    for card in ("2H", "3H", "4H", "5H"):
        post(client, game_id, type="play", card=card)
    post(client, game_id, type="give", to="Sam")
    for card in ("2S", "3S", "4S", "5S"):
        post(client, game_id, type="play", card=card)
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert 'name="to" value="Sam"' not in page
    refused = post(client, game_id, type="give", to="Sam")
    assert refused.status_code == 422 and "already holds 3 tricks" in refused.get_data(as_text=True)
    assert 'href="/rules/tantony/words#s3-4"' in refused.get_data(as_text=True)


def test_three_players_use_36_cards(client):
    """RULES.md §3.10 [RECON]: 36 cards without 7-10, no compass."""
    game_id = new_tantony(client, players=("Ann", "Ben", "Cat"))
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert 'id="pick-7S"' not in page and 'id="pick-6S"' in page and "compass three" in page


def test_from_deal_2_the_card_led_gives_the_trick_in_one_tap(client):
    """RULES.md 3.4 (issue 34): while a trick waits to be given in deal 2, the page offers the
    whole grid beside the gift buttons; the card led gives the trick to its holder and plays
    it, and the board says why it went there."""
    game_id = new_tantony(client)
    rng = random.Random(5)
    deck = [str(c) for c in T.pack(4)]
    rng.shuffle(deck)
    state = T.start(list(PLAYERS), {"dealer": "Wes"})
    state, _ = play_deal(client, game_id, state, {i: deck[i * 13 : (i + 1) * 13] for i in range(4)}, rng)
    while "give" not in T.view(state)["expects"] or set(T.view(state)["room"]) == {T.view(state)["to_act"]}:
        v = T.view(state)
        move = (
            {"type": "give", "to": v["room"][0]} if "give" in v["expects"] else {"type": "play", "card": v["legal"][0]}
        )
        state = T.apply(state, move)
        assert post(client, game_id, **move).status_code == 200
    v = T.view(state)
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    picker = page[page.index('id="picker"') :]
    assert 'class="any-card"' not in picker and 'name="type" value="play"' in picker  # the grid, not folded
    assert f"Tap the card led next: its holder received trick {v['last_trick']['n']}" in page
    assert 'class="compass' not in page and "Known hands" not in page  # they wait for the card led
    assert 'name="type" value="give"' in page  # the buttons stay
    to = next(p for p in v["room"] if p != v["to_act"])
    card = v["hands"][to][-1]
    answer = post(client, game_id, type="play", card=card)
    body = answer.get_data(as_text=True)
    assert answer.status_code == 200
    assert re.search(rf"<strong>{to}</strong> received it: the card led next is theirs\.", body)
    game = client.get(f"/api/games/{game_id}").get_json()
    assert game["view"]["trick"] == [[to, card]] and game["view"]["last_trick"]["to"] == to
    log = client.get(f"/games/{game_id}/log").get_data(as_text=True)
    assert f"{to} received trick {v['last_trick']['n']}" in log


def deal_out(rng, players: int) -> dict[int, list[str]]:
    deck = [str(c) for c in T.pack(players)]
    rng.shuffle(deck)
    size = len(deck) // players
    return {i: deck[i * size : (i + 1) * size] for i in range(players)}


def deal_end(body: str) -> str:
    return body[body.index('class="deal-end"') : body.index("</section>", body.index('class="deal-end"'))]


def test_the_end_of_a_deal_says_nobody_leads_and_a_finished_game_has_no_sudden_death_line(client):
    """RULES.md §3.2 (C4: the player after the dealer leads every deal) and §3.8: the deal's
    last trick given away is told without "who leads" (the next deal's lead is not theirs),
    and the sudden-death line for the next deal is shown while a next deal is played, not
    under a finished game's last deal."""
    rng = random.Random(5)
    three = ("Ann", "Ben", "Cat")
    game_id = new_tantony(client, players=three)
    state = T.start(list(three), {"dealer": "Cat"})
    state, body = play_deal(client, game_id, state, deal_out(rng, 3), rng)
    assert "Given to" in deal_end(body) and "who leads" not in deal_end(body)

    game_id = new_tantony(client, sudden_death="on")
    state = T.start(list(PLAYERS), {"dealer": "Wes", "sudden_death": True})
    bodies = []
    while not T.view(state)["result"]:
        state, body = play_deal(client, game_id, state, deal_out(rng, 4), rng)
        bodies.append(body)
    assert all("Sudden death after deal" in deal_end(b) for b in bodies[:-1] if 'class="deal-end"' in b)
    assert "Sudden death after deal" not in deal_end(bodies[-1]) and 'class="result"' in bodies[-1]
