"""Tantony's runt values, rank by rank (RULES.md 3.3's table, 3.10's shifted values for three
players), and the tally of a deal's tricks (RULES.md 3.4: 3 tricks each, 13 in all)."""

import pytest

from companion.errors import Reason
from companion.games import MoveError
from companion.games import tantony as T

RANKS = "2 3 4 5 6 7 8 9 10 J Q K A".split()


@pytest.mark.parametrize(
    ("options", "players", "values"),
    [
        ({}, 4, [2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30]),  # RULES.md 3.3: web rules
        ({"value_scale": "penguin2008"}, 4, [2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 15, 15, 20]),  # Penguin 2008
        ({"three_player_values": "shifted"}, 3, [2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 15, 20, 25]),  # RULES.md 3.10
        ({"three_player_values": "shifted"}, 4, [2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30]),  # four: unshifted
    ],
)
def test_3_3_every_rank_scores_its_value_in_every_suit(options, players, values):
    for suit in "SHDC":
        assert [T.card_value(rank + suit, options, players) for rank in RANKS] == values


NESW = ["N", "E", "S", "W"]
THREE_EACH = {"N": ["2S", "3S", "4S"], "E": ["5S", "6S", "7S"], "S": ["8S", "9S", "10S"], "W": ["2H", "3H", "4H"]}


@pytest.mark.parametrize(
    ("fourth", "scores"),
    [
        ({"W": ["5H"]}, {"N & S": 36, "E & W": 32}),  # one lowest last card
        ({"W": ["5H"], "N": ["5D"]}, {"N & S": 41, "E & W": 32}),  # a tie for the lowest: each scores (the decision)
    ],
)
def test_3_11_penguin_last_card_scores_for_its_holder(fourth, scores):
    """RULES.md 3.11 (last_card_rule "penguin2008"): 3 runts each, and the lowest last card
    (every tied one, our decision) scores for whoever holds it: 13 scoring cards or more."""
    scoring = {p: cards + fourth.get(p, []) for p, cards in THREE_EACH.items()}
    s = T.start(NESW, {"dealer": "W", "last_card_rule": "penguin2008"})
    s = T.apply(s, {"type": "tally", "scoring": scoring})
    assert T.view(s)["history"][-1]["points"] == scores


@pytest.mark.parametrize(
    ("options", "players", "scoring", "code", "sentence"),
    [
        ({"last_card_rule": "penguin2008"}, NESW, THREE_EACH, "runts_last_card",
         "Each player scores 3 runts, and the lowest last card scores too (Tantony 3.5)."),
        ({"last_card_rule": "penguin2008"}, NESW,
         THREE_EACH | {"W": ["2H", "3H"], "N": ["2S", "3S", "4S", "5D"], "E": ["5S", "6S", "7S", "6D"]},
         "runts_last_card", "Each player scores 3 runts, and the lowest last card scores too (Tantony 3.5)."),
        ({}, NESW, THREE_EACH, "runts_13th",
         "Each player scores 3 runts and the 13th trick's winner a 4th (Tantony 3.5)."),
        ({}, ["A", "B", "C"], {"A": ["2S"], "B": [], "C": []}, "runts_3p",
         "With 3 players each player scores exactly 4 runts (Tantony 3.10)."),
        ({}, NESW, THREE_EACH | {"W": ["2S", "3H", "4H", "5H"]}, "listed_twice",
         "2S is listed twice: every card scores once at most."),
        ({}, ["A", "B", "C"], {"A": ["7S"], "B": [], "C": []}, "listed_not_in_pack", "7S is not in the pack."),
        ({}, NESW, {"N": []}, "tally_needs_scoring", "A tally needs 'scoring' cards for each player: N, E, S, W"),
        ({}, NESW, THREE_EACH | {"W": "2H 3H 4H"}, "scoring_not_a_list",
         "Each player's scoring cards are a list of cards"),
    ],
)  # fmt: skip
def test_3_4_a_tally_that_is_not_a_deal_is_refused_in_words(options, players, scoring, code, sentence):
    """RULES.md 3.4, 3.5 and 3.10: 3 tricks each (4 with three players), the 13th's winner a 4th runt."""
    s = T.start(players, {"dealer": players[-1], **options})
    with pytest.raises(MoveError) as err:
        T.apply(s, {"type": "tally", "scoring": scoring})
    assert (err.value.code, str(err.value)) == (code, sentence)


def test_3_6_a_tallied_deal_is_told_with_its_scores_and_shows_no_last_trick():
    """RULES.md 3.6: a team's score is its players' runts; a tallied deal has no trick to show."""
    s = T.start(NESW, {"dealer": "W"})
    move = {"type": "tally", "scoring": THREE_EACH | {"W": ["2H", "3H", "4H", "5H"]}}
    s = T.apply(s, move)
    assert [(r.code, str(r)) for r in T.narrate(s, move)] == [
        ("tallied", "Deal 1 tallied: N & S 36, E & W 32."),
    ]
    assert s.history[-1]["last"] is None
    assert [(r.code, str(r)) for r in T.narrate(s, {"type": "mystery"})] == [
        ("move", "A move 'mystery' was entered."),
    ]


def test_3_14_a_failure_to_follow_proven_later_is_told_with_its_proof():
    """RULES.md 3.14 (deal 1, hands hidden): E discards 3H on a spade lead, then leads 6S:
    the revoke is flagged on trick 1 with the card that proves it."""
    s = T.start(NESW, {"dealer": "W"})
    for card in ("2S", "3H", "4S", "5S"):
        s = T.apply(s, {"type": "play", "card": card})
    s = T.apply(s, {"type": "give", "to": "E"})  # W's sow; E leads next
    s = T.apply(s, {"type": "play", "card": "6S"})
    [revoke] = T.view(s)["revokes"]
    assert (revoke["player"], revoke["trick"], revoke["card"], revoke["proof"]) == ("E", 1, "3H", "6S")
    assert str(Reason.from_json(revoke["reason"])) == (
        "E played 3H in trick 1 without following suit: 6S, played later, was in the hand then (Tantony 3.3)."
    )
