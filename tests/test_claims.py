"""Claiming the rest in Tute (issue 46, item 4; RULES.md 5.3): a player shows that every
trick not begun yet is theirs, and the referee records it in one tap."""

from __future__ import annotations

import re

import pytest

from companion.errors import IllegalMove, InvalidMove
from companion.games import tute as TU
from tests.conftest import become_referee, post_move
from tests.e2e.deals import script

PLAYERS, STEPS = script("tute")
MOVES = [s.move for s in STEPS]  # the turned card, then 40 cards: 10 tricks of 4


def five_tricks_in():
    state = TU.start(PLAYERS)
    for m in MOVES[:21]:
        state = TU.apply(state, m)
    return state


def test_a_claim_gives_every_card_left_and_the_last_trick_to_the_claimer():
    """RULES.md 5.3 K2: the five tricks left, their card points and the last trick's 10."""
    state = five_tricks_in()
    before = TU.view(state)
    after = TU.apply(state, {"type": "claim", "player": "Ann"})
    record = after.history[-1]
    assert record["claimed"] == {"player": "Ann", "tricks": 5, "points": 35}
    assert record["card_points"]["Ann"] == before["card_points"]["Ann"] + 35
    assert sum(record["card_points"].values()) == 120 and sum(record["points"].values()) == 130
    assert record["last_trick"] == "Ann" and record["tricks"]["Ann"] == before["tricks_won"]["Ann"] + 5
    assert TU.view(after)["deal"] == 2  # the deal ended as if its last trick had been played
    said = [str(r) for r in TU.narrate(after, {"type": "claim", "player": "Ann"})]
    assert said[0] == "Ann showed every trick left was theirs: 5 tricks, 35 card points."


def test_a_claim_played_out_scores_as_the_tricks_would_have():
    """RULES.md 5.3 K2: when the claimer does take every trick, the claim scores what
    playing the tricks out would (the seeded deal's last trick is Dan's: he claims before it)."""
    state = TU.start(PLAYERS)
    for m in MOVES[:-4]:
        state = TU.apply(state, m)
    played = state
    for m in MOVES[-4:]:
        played = TU.apply(played, m)
    winner = played.history[-1]["last_trick"]
    claimed = TU.apply(state, {"type": "claim", "player": winner}).history[-1]
    for key in ("points", "card_points", "cantes", "tricks", "losers", "last_trick", "tallied"):
        assert claimed[key] == played.history[-1][key], key


def test_a_claim_waits_for_the_trick_to_end():
    """RULES.md 5.3 K1: never with a trick begun."""
    state = TU.apply(five_tricks_in(), MOVES[21])
    assert "claim" not in TU.expects(state)
    with pytest.raises(IllegalMove) as refused:
        TU.apply(state, {"type": "claim", "player": "Ann"})
    assert refused.value.code == "claim_mid_trick" and "trick 6" in str(refused.value)


@pytest.mark.parametrize("turned", ["AS", "AC"])
def test_a_claim_the_known_top_trump_disproves_is_refused(turned):
    """RULES.md 5.3 K3: Ann dealt and turned the trump ace, the highest trump: it takes a
    trick, so nobody else can take them all; Ann can. (The aces of other suits do not
    count: only a trump is sure to take its trick.)"""
    state = TU.apply(TU.start(["Ann", "Ben", "Cat", "Dan"]), {"type": "trump", "card": turned})
    with pytest.raises(IllegalMove) as refused:
        TU.apply(state, {"type": "claim", "player": "Ben"})
    assert refused.value.code == "claim_beaten"
    assert str(refused.value).startswith(f"Ann holds {turned}, the highest trump still out (the turned trump)")
    record = TU.apply(state, {"type": "claim", "player": "Ann"}).history[-1]
    assert record["claimed"] == {"player": "Ann", "tricks": 10, "points": 120} and record["last"] is None


def test_a_claim_names_its_player():
    with pytest.raises(InvalidMove):
        TU.apply(five_tricks_in(), {"type": "claim"})


def test_the_referee_claims_in_one_tap_from_beside_undo(client, app):
    made = client.post("/api/games", json={"game": "tute", "players": PLAYERS}).get_json()
    game_id = made["id"]
    become_referee(client, game_id, made["edit_key"])
    version = 0
    for move in MOVES[:21]:
        answer = client.post(
            f"/api/games/{game_id}/moves",
            json={"version": version, "move": move},
            headers={"X-Edit-Key": made["edit_key"]},
        )
        version = answer.get_json()["version"]
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert f'href="/games/{game_id}?reveal=1"' in page and "Claim the rest?" in page
    sheet = client.get(f"/games/{game_id}?reveal=1").get_data(as_text=True)
    assert re.findall(r'name="player" value="([^"]+)">', sheet) == PLAYERS
    assert post_move(client, game_id, type="claim", player="Ann", reveal="1").status_code == 200
    log = client.get(f"/games/{game_id}/log").get_data(as_text=True)
    assert "Ann showed every trick left was theirs: 5 tricks, 35 card points." in log
    assert app.extensions["store"].get(game_id)["state"].deal == 2
