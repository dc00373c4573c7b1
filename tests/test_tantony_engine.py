"""Tantony (RULES.md §3): every TT vector, C1-C8, and random legal games with hypothesis."""

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import Reason
from companion.games import IllegalMove, InvalidMove, OptionError
from companion.games import tantony as T

NESW = ["N", "E", "S", "W"]


def new(options=None, players=NESW):
    return T.start(list(players), {"dealer": players[-1], **(options or {})})  # N (first) leads


def play(s, *cards):
    for c in cards:
        s = T.apply(s, move := {"type": "play", "card": c})
        assert all(map(str, T.narrate(s, move)))  # the log's words (tests/translated.py checks them)
    return s


def give(s, to):
    s = T.apply(s, move := {"type": "give", "to": to})
    assert all(map(str, T.narrate(s, move)))  # the log's words (tests/translated.py checks them)
    return s


def spare_tricks(n, avoid=()):
    """n tricks of four unused cards, each of one suit, led by the highest (so the leader wins)."""
    pool = [str(c) for c in T.pack(4) if str(c) not in avoid]
    out = []
    for suit in "SHDC":
        cards = sorted((c for c in pool if c[-1] == suit), key=lambda c: -T.STRENGTH[c[:-1]])
        out += [cards[i : i + 4] for i in range(0, len(cards) - 3, 4)]
    return out[:n]


def placed(s, recipients, avoid=()):
    """Play len(recipients) tricks; the leader wins each and gives it to the next recipient."""
    for to, cards in zip(recipients, spare_tricks(len(recipients), avoid)):
        s = play(s, *cards)
        if "give" in T.view(s)["expects"]:
            s = give(s, to)
        else:
            assert T.view(s)["last_trick"]["to"] == to  # forced: the only one with room
    return s


# -- TT-01..TT-05: one trick -------------------------------------------------------------


@pytest.mark.parametrize(
    ("vid", "trick", "options", "winner", "hog", "runt", "value"),
    [
        ("TT-01", ["6S", "10S", "QS", "2S"], {}, 2, False, "2S", 2),
        ("TT-02", ["6S", "2H", "3D", "4C"], {}, 0, True, "6S", 6),
        ("TT-03", ["AS", "2H", "3D", "4C"], {}, 0, True, "AS", 30),
        ("TT-03", ["AS", "2H", "3D", "4C"], {"value_scale": "penguin2008"}, 0, True, "AS", 20),
        ("TT-04", ["9D", "3D", "7D", "10D"], {}, 3, False, "3D", 3),
        ("TT-05", ["9S", "5S", "QS", "3H"], {}, 2, False, "5S", 5),
        # One card following is enough for a sow, wherever it comes (only nobody following makes a hog),
        # and a 10's suit is its last letter.
        ("TT-05", ["9S", "5S", "3D", "4C"], {}, 0, False, "5S", 5),
        ("TT-05", ["9S", "2H", "3D", "5S"], {}, 0, False, "5S", 5),
        ("TT-05", ["9S", "10S", "3D", "4C"], {}, 1, False, "9S", 9),
        ("TT-05", ["10S", "5S", "3D", "4C"], {}, 0, False, "5S", 5),
    ],
)
def test_3_12_trick_vectors(vid, trick, options, winner, hog, runt, value):
    """RULES.md 3.3 / 3.12 TT-01..TT-05: winner (sow, or hog when nobody followed), runt, value;
    the trick's record says the same."""
    assert T.trick_winner(trick) == winner
    assert T.runt(trick) == runt
    assert T.card_value(runt, options) == value
    after = play(new(options), *trick)
    t = after.tricks[-1]
    assert (t["winner"], t["hog"], t["runt"], t["value"]) == (winner, hog, runt, value)
    assert T.view(after)["last_trick"]["hog"] is hog  # the board says "hog: nobody followed"


def test_3_12_TT04_winner_gives_to_an_opponent_who_leads():
    """RULES.md 3.4 TT-04: W wins and may give the trick to S, who leads next."""
    s = play(new(), "9D", "3D", "7D", "10D")
    v = T.view(s)
    assert v["to_act"] == "W" and v["expects"] == ["give"] and set(v["room"]) == set(NESW)
    s = give(s, "S")
    v = T.view(s)
    assert v["to_act"] == "S" and v["held"]["S"] == 1 and v["scoring"]["S"] == ["3D"]


def test_3_12_TT06_the_12th_trick_goes_where_there_is_room():
    """RULES.md 3.4 TT-06: N 3, E 3, S 2, W 3 before trick 12: it goes to S, and N or E is refused."""
    s = placed(new(), ["N", "N", "N", "E", "E", "E", "S", "S", "W", "W", "W"])
    v = T.view(s)
    assert v["held"] == {"N": 3, "E": 3, "S": 2, "W": 3} and v["room"] == ["S"]
    leader = v["to_act"]
    cards = spare_tricks(12)[11]
    s = play(s, *cards)
    v = T.view(s)
    assert v["last_trick"]["to"] == "S" and v["last_trick"]["forced"] and v["expects"] == ["play"]
    assert v["to_act"] == "S" and leader
    assert v["held"] == {"N": 3, "E": 3, "S": 3, "W": 3}  # the 12th trick held too
    for to in ("N", "E"):
        with pytest.raises(IllegalMove, match="by itself"):
            give(s, to)


def test_quota_refuses_a_full_player_while_others_have_room():
    """RULES.md 3.4 / C8: a player with 3 tricks can't receive another."""
    s = placed(new(), ["N", "N", "N"])
    s = play(s, *spare_tricks(4)[3])
    with pytest.raises(IllegalMove, match="already holds 3 tricks"):
        give(s, "N")


def thirteenth(last_cards, last_leader="N"):
    """A deal whose 12 placed tricks leave ``last_cards`` for trick 13, led by ``last_leader``."""
    rest = [c for c in map(str, T.pack(4)) if c not in last_cards]
    tricks = []
    for suit in "SHDC":
        cards = sorted((c for c in rest if c[-1] == suit), key=lambda c: -T.STRENGTH[c[:-1]])
        tricks += [cards[i : i + 4] for i in range(0, len(cards) - len(cards) % 4, 4)]
    left = [c for c in rest if not any(c in t for t in tricks)]
    tricks += [left[i : i + 4] for i in range(0, len(left), 4)]
    assert len(tricks) == 12
    order = [p for p in NESW if p != last_leader] * 3 + [last_leader] * 3
    s = new()
    for to, cards in zip(order, tricks):
        s = play(s, *cards)
        if "give" in T.view(s)["expects"]:
            s = give(s, to)
    assert T.view(s)["to_act"] == last_leader
    return s


def test_3_12_TT07_the_13th_trick_exchange():
    """RULES.md 3.5 TT-07: N wins; N scores KS (25) as a 4th card; S gets AS; E and W keep theirs."""
    s = thirteenth(["AS", "QH", "KS", "8H"])
    before = T.view(s)["points"]["N"]
    s = play(s, "AS", "QH", "KS", "8H")
    h = s.history[-1]
    assert "KS" in h["scoring"]["N"] and len(h["scoring"]["N"]) == 4
    assert h["individual"]["N"] == before + 25
    hands = dict(zip(NESW, s.hands))
    assert "KS" in hands["N"] and "AS" in hands["S"] and "QH" in hands["E"] and "8H" in hands["W"]
    assert "AS" not in hands["N"]
    # The record of the deal's end: N kept the trick, and S received N's AS.
    assert (h["last"]["winner"], h["last"]["to"], h["last"]["exchange"]) == ("N", "N", ["S", "AS"])


def test_3_12_TT08_no_exchange_when_the_winner_is_the_runt():
    """RULES.md 3.5 TT-08: N leads 4C, nobody follows: 4C is N's 4th scoring card, worth 4."""
    assert T.exchange(["4C", "2H", "3D", "5S"]) is None  # the winner's card is the runt: nothing to swap
    s = thirteenth(["4C", "2H", "3D", "5S"])
    before = T.view(s)["points"]["N"]
    s = play(s, "4C", "2H", "3D", "5S")
    h = s.history[-1]
    assert h["individual"]["N"] == before + 4 and "4C" in h["scoring"]["N"]
    assert "4C" in dict(zip(NESW, s.hands))["N"]


def test_3_12_TT09_and_C7_next_hands():
    """RULES.md 3.7 TT-09 / C7: 13 cards each; N's hand = its 3 tricks (runts included) + kept card."""
    s = thirteenth(["AS", "QH", "KS", "8H"])
    n_tricks = [c for t in s.tricks if t["to"] == 0 and t["n"] <= 12 for _, c in t["cards"]]
    s = play(s, "AS", "QH", "KS", "8H")
    assert all(len(h) == 13 for h in s.hands)
    assert sorted(dict(zip(NESW, s.hands))["N"]) == sorted(n_tricks + ["KS"])
    assert sorted(c for h in s.hands for c in h) == sorted(map(str, T.pack(4)))


def cards_worth(total, count, pool, options=None, players=4):
    """``count`` cards of ``pool`` whose values add to ``total``."""
    for combo in itertools.combinations(pool, count):
        if sum(T.card_value(c, options, players) for c in combo) == total:
            return list(combo)
    raise AssertionError(f"no {count} cards worth {total}")


def tally_deal(s, ns, ew):
    """A tallied deal worth ns to N & S and ew to E & W (W scores the 13th runt)."""
    pool = [str(c) for c in T.pack(4)]
    fixed = {"S": ["2D", "3D", "4D"], "W": ["2C", "3C", "4C", "2H"]}  # 9 and 11
    used = sum(fixed.values(), [])
    n = cards_worth(ns - 9, 3, [c for c in pool if c[-1] in "SH" and c not in used])
    e = cards_worth(ew - 11, 3, [c for c in pool if c[-1] in "DC" and c not in used])
    return T.apply(s, {"type": "tally", "scoring": {"N": n, "E": e, **fixed}})


@pytest.mark.parametrize(
    ("vid", "deals", "result"),
    [
        ("TT-10", [(59, 30)], None),
        ("TT-11", [(59, 30), (66, 40)], {"winners": ["N & S"], "double": True}),
        ("TT-12", [(64, 61)], {"winners": ["N & S"], "double": True}),
        ("TT-13", [(55, 50), (55, 45), (60, 50), (60, 45)], {"winners": ["N & S"], "double": False}),
    ],
)
def test_3_12_sudden_death(vid, deals, result):
    """RULES.md 3.8 TT-10..TT-13: 60 x deal wins at once (double); else the higher after deal 4."""
    s = new()
    for ns, ew in deals:
        s = tally_deal(s, ns, ew)
    v = T.view(s)
    assert v["scores"] == {"N & S": sum(d[0] for d in deals), "E & W": sum(d[1] for d in deals)}
    if result is None:
        assert v["result"] is None and v["deal"] == len(deals) + 1
    else:
        assert {k: v["result"][k] for k in result} == result


def test_C5_level_past_the_line_plays_on():
    """RULES.md 3.13 C5: both past 60 and exactly level: no sudden death; play continues."""
    s = tally_deal(new(), 64, 64)
    assert T.view(s)["result"] is None


def test_3_12_TT14_three_players_trick_12_is_forced():
    """RULES.md 3.10 TT-14 [RECON]: quotas (4, 4, 3) before trick 12: it goes to the one with 3."""
    names = ["Ann", "Ben", "Cat"]
    s = T.start(names, {"dealer": "Cat"})
    pool = [str(c) for c in T.pack(3)]
    tricks = [pool[i : i + 3] for i in range(0, 36, 3)]
    for k, (to, cards) in enumerate(zip(["Ann"] * 4 + ["Ben"] * 4 + ["Cat"] * 3, tricks)):
        s = play(s, *cards)
        if "give" in T.view(s)["expects"]:
            s = give(s, to)
    s = play(s, *tricks[11])
    h = s.history[-1]
    assert sorted(len(v) for v in h["scoring"].values()) == [4, 4, 4]
    assert all(len(x) == 12 for x in s.hands)


def test_C1_three_players_use_36_cards_and_quota_4():
    """RULES.md 3.10 / C1 [RECON]: 36 cards without 7-10; each player holds 4 tricks."""
    s = T.start(["Ann", "Ben", "Cat"])
    assert len(T.pack(3)) == 36 and not any(str(c)[:-1] in ("7", "8", "9", "10") for c in T.pack(3))
    assert T.quota(s) == 4 and T.view(s)["tricks_per_deal"] == 12
    with pytest.raises(IllegalMove, match="not in the pack"):
        play(s, "7S")


def test_C1_shifted_three_player_values():
    """RULES.md 3.10: three_player_values shifted: J 10, Q 15, K 20, A 25."""
    o = {"three_player_values": "shifted"}
    assert [T.card_value(c, o, 3) for c in ("JS", "QS", "KS", "AS", "6S")] == [10, 15, 20, 25, 6]
    assert T.card_value("AS", o, 4) == 30


def penguin_deal(last, swap=None):
    """A deal under Penguin's last-card rule (C2) whose 12 tricks go E, S, W x3 then N x3, and
    whose last cards (turned up, N first) are ``last``. The tricks are dealt a suit at a time,
    so all follow suit, but for ``swap``: two cards, each (trick, place), change places."""
    s = T.start(NESW, {"dealer": "W", "last_card_rule": "penguin2008"})
    rest = [c for c in map(str, T.pack(4)) if c not in last]
    tricks = []
    for suit in "SHDC":
        cards = sorted((c for c in rest if c[-1] == suit), key=lambda c: -T.STRENGTH[c[:-1]])
        tricks += [cards[i : i + 4] for i in range(0, len(cards) - len(cards) % 4, 4)]
    left = [c for c in rest if not any(c in t for t in tricks)]
    tricks += [left[i : i + 4] for i in range(0, len(left), 4)]
    if swap:
        (a, i), (b, j) = swap
        tricks[a][i], tricks[b][j] = tricks[b][j], tricks[a][i]
    for to, cards in zip(["E", "S", "W"] * 3 + ["N"] * 3, tricks):
        s = play(s, *cards)
        if "give" in T.view(s)["expects"]:
            s = give(s, to)
    assert T.view(s)["revealing"] and T.view(s)["to_act"] == "N"
    v = T.view(play(s, last[0]))  # the cards turned up are no trick: nobody is winning them, they have no runt
    assert (v["trick"], v["best"], v["runt"]) == ([["N", last[0]]], None, None)
    return play(s, *last)


def test_C2_penguin_last_cards():
    """RULES.md 3.11 / C2: after 12 tricks the last cards are turned up; the lowest scores
    for its holder (ties all score); each keeps their own card."""
    s = penguin_deal(["2S", "2H", "9D", "KC"])
    h = s.history[-1]
    assert "2S" in h["scoring"]["N"] and "2H" in h["scoring"]["E"] and "9D" not in h["scoring"]["S"]
    assert "2S" in s.hands[0] and "KC" in s.hands[3]
    # The deal's record shows them as turned up: no winner, no runt of a trick, given to no one.
    assert h["last"] == {
        "n": 13,
        "cards": [["N", "2S"], ["E", "2H"], ["S", "9D"], ["W", "KC"]],
        "winner": None,
        "runt": None,
        "value": 0,
        "hog": False,
        "to": None,
        "forced": False,
        "implied": False,
        "exchange": None,
        "scoring": [["N", "2S", 2], ["E", "2H", 2]],
    }


def test_3_14_C2_a_revoke_proven_by_the_card_turned_up():
    """RULES.md 3.14 with C2: a player's last card, turned up after trick 12, was in their hand
    all deal long, so it proves a failure to follow as a card played later does. Trick 3 (led
    by S, spades) has W's JH instead of a spade; W plays no spade after it, but turns up 2S."""
    s = penguin_deal(["3D", "4D", "9D", "2S"], swap=((2, 1), (3, 3)))
    found = {(r["player"], r["trick"], r["card"], r["proof"]) for r in s.history[-1]["revokes"]}
    assert ("W", 3, "JH", "2S") in found
    [said] = [r["reason"] for r in s.history[-1]["revokes"] if r["player"] == "W"]
    assert (said["code"], said["rule"]) == ("revoke_follow_turned_up", "Tantony 3.3")
    assert str(Reason.from_json(said)) == (
        "W played JH in trick 3 without following suit: 2S, turned up after trick 12, was in the hand then "
        "(Tantony 3.3)."
    )
    # The card swapped into trick 4 is a revoke proven by a card played later, and says so.
    [other] = [r["reason"] for r in s.history[-1]["revokes"] if r["player"] != "W"]
    assert other["code"] == "revoke_follow" and "played later" in str(Reason.from_json(other))


def test_3_9_each_trick_is_kept_as_played():
    """RULES.md 3.3 / 3.4 / 3.9: a trick is kept as it was played: who led it, each seat's
    card, the winner, the runt and its value, whether it was a hog, and where it went."""
    s = play(new(), "9D", "3D", "7D", "10D")
    assert s.tricks[-1] == {
        "n": 1,
        "leader": 0,
        "cards": [[0, "9D"], [1, "3D"], [2, "7D"], [3, "10D"]],
        "winner": 3,
        "runt": "3D",
        "value": 3,
        "hog": False,
        "to": None,
        "forced": False,
    }
    assert give(s, "N").tricks[-1]["to"] == 0


def test_C2_penguin_last_cards_are_kept_without_the_13th_tricks_exchange():
    """RULES.md 3.11 / C2 against 3.5: the turned-up cards are no trick, so the winner of them
    does not swap their card for the lowest (which TT-07's exchange would do: N's 9S, the
    higher spade, would go to E for the 2S)."""
    s = penguin_deal(["9S", "2S", "3D", "KC"])
    assert T.exchange(["9S", "2S", "3D", "KC"]) == (1, 0)
    for seat, card in enumerate(["9S", "2S", "3D", "KC"]):
        assert card in s.hands[seat], (seat, card)


def test_C3_any_first_dealer_and_C4_d_plus_1_leads_every_deal():
    """RULES.md 3.13 C3 / C4: the first dealer is the players' choice; D+1 leads every deal."""
    s = T.start(NESW, {"dealer": "E"})
    assert T.view(s)["to_act"] == "S"
    s = tally_deal(s, 30, 30)
    assert T.view(s)["dealer"] == "S" and T.view(s)["to_act"] == "W"


def test_C6_split_partnership_scores_own_plus_left_neighbour():
    """RULES.md 3.9 / C6: each scores own + left-hand neighbour's points; 4 deals, no sudden death."""
    s = T.start(NESW, {"dealer": "W", "partnership_mode": "split"})
    assert T.view(s)["options"]["sudden_death"] is False and T.view(s)["deals"] == 4
    s = tally_deal(s, 64, 40)
    h = s.history[-1]
    ind = h["individual"]
    assert h["points"] == {p: ind[p] + ind[NESW[(i + 1) % 4]] for i, p in enumerate(NESW)}
    assert T.view(s)["result"] is None


def test_C8_a_winner_may_keep_the_trick():
    """RULES.md 3.13 C8: giving to oneself is allowed while there is room."""
    s = play(new(), "9D", "3D", "7D", "10D")
    s = give(s, "W")
    assert T.view(s)["held"]["W"] == 1 and T.view(s)["to_act"] == "W"


def test_deal_1_flags_a_failure_to_follow_in_hindsight():
    """RULES.md 3.14: E shows out of spades in trick 1, then plays a spade: trick 1 is flagged."""
    s = play(new(), "AS", "2H", "3S", "4S")
    s = give(s, "N")
    assert T.view(s)["revokes"] == []
    s = play(s, "KS", "5S")  # N leads KS; E follows with 5S: E had a spade in trick 1
    r = T.view(s)["revokes"]
    assert [(x["player"], x["trick"], x["card"], x["proof"]) for x in r] == [("E", 1, "2H", "5S")]


def full_deal(s, rng):
    """Play the current deal to its end with legal random cards (deal 1: a random deal)."""
    n = len(s.players)
    if s.hands is None:
        deck = [str(c) for c in T.pack(n)]
        rng.shuffle(deck)
        size = len(deck) // n
        hands = {(s.dealer + 1 + i) % n: deck[i * size : (i + 1) * size] for i in range(n)}
    else:
        hands = {i: list(h) for i, h in enumerate(s.hands)}
    deal = s.deal
    while s.deal == deal and s.result is None:
        v = T.view(s)
        if "give" in v["expects"]:
            to = rng.choice(v["room"])
            if s.hands is None or rng.random() < 0.5:
                s = give(s, to)
                continue
            # from deal 2 the card led names the recipient (RULES.md 3.4): one move for both
            seat = s.players.index(to)
            card = rng.choice(sorted(hands[seat]))
            hands[seat].remove(card)
            s = T.apply(s, {"type": "play", "card": card})
            assert s.tricks[-1]["to"] == seat and s.tricks[-1]["implied"] and s.trick == [[seat, card]]
            continue
        seat = T.to_act(s)
        legal = set(hands[seat]) if v["revealing"] else T.legal_plays(hands[seat], [c for _, c in s.trick])
        card = rng.choice(sorted(legal))
        hands[seat].remove(card)
        s = T.apply(s, {"type": "play", "card": card})
    return s


def test_from_deal_2_hands_are_known_and_a_wrong_card_is_refused():
    """RULES.md 3.14: from deal 2 an illegal card is refused at once, listing the legal ones."""
    s = full_deal(new(), random.Random(4))
    v = T.view(s)
    actor = v["to_act"]
    assert v["hands"][actor] and v["legal"] == sorted(
        v["legal"], key=lambda c: ("SHDC".index(c[-1]), -T.STRENGTH[c[:-1]])
    )
    other = next(c for p, h in v["hands"].items() if p != actor for c in h)
    with pytest.raises(IllegalMove, match="hand"):
        play(s, other)
    s = play(s, v["legal"][0])
    v = T.view(s)
    wrong = [c for c in v["hands"][v["to_act"]] if c not in v["legal"]]
    if wrong:
        with pytest.raises(IllegalMove, match="must follow suit"):
            play(s, wrong[0])


def at_a_gift_in_deal_2(seed: int, full: bool = False):
    """Deal 2 played (legal random cards, explicit gifts) to a trick its winner must give,
    where someone other than the winner has room (and, with ``full``, someone is full)."""
    rng = random.Random(seed)
    s = full_deal(new(), rng)
    while s.result is None and s.deal == 2:
        v = T.view(s)
        if "give" in v["expects"]:
            full_ones = [p for p in NESW if v["held"][p] == 3]
            if set(v["room"]) - {v["to_act"]} and (full_ones or not full):
                return s
            s = give(s, rng.choice(v["room"]))
            continue
        s = play(s, rng.choice(v["legal"]))
    return None


def test_3_4_from_deal_2_the_card_led_names_who_received_the_trick():
    """RULES.md 3.4: the recipient leads the next trick, and from deal 2 every hand is known
    (3.7): the card led gives the trick to its holder, as give-then-play would."""
    s = at_a_gift_in_deal_2(1)
    v = T.view(s)
    assert v["expects"] == ["give", "play"] and v["to_act"] == T.view(s)["last_trick"]["winner"]
    to = next(p for p in v["room"] if p != v["to_act"])
    card = v["hands"][to][0]
    assert card in v["legal"] and set(v["legal"]) == {c for p in v["room"] for c in v["hands"][p]}
    one = T.apply(s, {"type": "play", "card": card})
    two = play(give(s, to), card)
    assert one.tricks[-1]["implied"] and not two.tricks[-1].get("implied")
    one.tricks[-1].pop("implied")
    assert T.dump(one) == T.dump(two)  # the same game as the two taps
    said = T.narrate(T.apply(s, {"type": "play", "card": card}), {"type": "play", "card": card})
    assert [r.code for r in said] == ["implied_gift", "played"] and said[0].rule == "Tantony 3.4"
    assert said[0].params["player"] == to
    assert T.view(T.apply(s, {"type": "play", "card": card}))["last_trick"]["implied"]


def test_3_4_deal_1_still_asks_for_the_gift():
    """Deal 1's hands are hidden: a card cannot name its holder, so the winner gives first."""
    s = new()
    s = play(s, "9D", "3D", "7D", "10D")  # TT-04: W wins
    assert T.view(s)["expects"] == ["give"]
    with pytest.raises(IllegalMove) as e:
        play(s, "2S")
    assert e.value.reason.code == "give_first"


def test_3_4_a_card_led_by_a_player_without_room_is_refused():
    """C8: a trick never goes to a full player; the card led is refused, the game unchanged."""
    for seed in range(40):
        s = at_a_gift_in_deal_2(seed, full=True)
        if s is not None:
            break
    assert s is not None
    v = T.view(s)
    full = next(p for p in NESW if v["held"][p] == 3 and v["hands"][p])
    before = T.dump(s)
    with pytest.raises(IllegalMove) as e:
        T.apply(s, {"type": "play", "card": v["hands"][full][0]})
    assert e.value.reason.code == "implied_gift_full" and e.value.reason.rule == "Tantony 3.4"
    assert e.value.reason.params["player"] == full and T.dump(s) == before
    assert v["hands"][full][0] not in v["legal"]


def test_3_4_a_card_led_that_names_another_player_is_refused():
    s = at_a_gift_in_deal_2(2)
    v = T.view(s)
    to = next(p for p in v["room"] if p != v["to_act"])
    other = next(p for p in NESW if p != to)
    with pytest.raises(IllegalMove) as e:
        T.apply(s, {"type": "play", "card": v["hands"][to][0], "player": other})
    assert e.value.reason.code == "not_your_turn"


@pytest.mark.parametrize(
    "options",
    [
        {"partnership_mode": "loose"},
        {"value_scale": "x"},
        {"deals": 0},
        {"deals": 2.0},
        {"sudden_death": "yes"},
        {"colour": 1},
        {"last_card_rule": None},
        {"three_player_values": True},
        ["deals"],
    ],
)
def test_3_11_bad_options(options):
    with pytest.raises(OptionError):
        T.start(NESW, options)


@pytest.mark.parametrize("players", [["A", "B"], ["A", "B", "C", "D", "E"], ["A", "A", "B"]])
def test_player_count(players):
    with pytest.raises(OptionError):
        T.start(players)


def test_usual_options():
    """RULES.md 3.11: deals 4 (3 with 3 players); sudden death with fixed partners only."""
    assert (T.view(T.start(NESW))["deals"], T.view(T.start(NESW))["options"]["sudden_death"]) == (4, True)
    three = T.view(T.start(["A", "B", "C"]))
    assert (three["deals"], three["options"]["sudden_death"]) == (3, False)


@pytest.mark.parametrize(
    ("scoring", "error"),
    [
        (
            {"N": ["2S", "3S", "4S"], "E": ["2S", "6S", "7S"], "S": ["8S", "9S", "10S"], "W": ["2H", "3H", "4H", "5H"]},
            IllegalMove,
        ),
        (
            {"N": ["2S", "3S"], "E": ["5S", "6S", "7S"], "S": ["8S", "9S", "10S"], "W": ["2H", "3H", "4H", "5H"]},
            IllegalMove,
        ),
        ({"N": ["2S", "3S", "4S"]}, InvalidMove),
    ],
)
def test_tally_refusals_change_nothing(scoring, error):
    s = new()
    before = T.dump(s)
    with pytest.raises(error):
        T.apply(s, {"type": "tally", "scoring": scoring})
    assert T.dump(s) == before


def test_a_tallied_deal_leaves_hands_unknown():
    """DESIGN.md: deals after a tallied Tantony deal have unknown hands."""
    assert T.view(tally_deal(new(), 30, 30))["hands"] is None


MODES = [
    (NESW, {}),
    (NESW, {"partnership_mode": "split"}),
    (NESW, {"last_card_rule": "penguin2008"}),
    (["A", "B", "C"], {}),
    (["A", "B", "C"], {"partnership_mode": "split", "three_player_values": "shifted"}),
]


@settings(max_examples=25, deadline=None)
@given(mode=st.sampled_from(MODES), seed=st.integers(0, 10**6))
def test_random_legal_games(mode, seed):
    """Hypothesis: whole games in every mode keep the invariants of RULES.md 3.6, 3.7, 3.14."""
    players, options = mode
    rng = random.Random(seed)
    s = (
        T.start(players, {"sudden_death": False} if len(players) == 4 else options)
        if not options
        else T.start(players, options)
    )
    while s.result is None:
        before = T.dump(s)
        deal = s.deal
        s2 = full_deal(s, rng)
        assert T.dump(s) == before  # apply never changed its input
        assert T.load(T.dump(s2)) == s2
        h = s2.history[-1]
        assert h["deal"] == deal and not h["revokes"]
        assert sum(len(c) for c in h["scoring"].values()) >= (12 if len(players) == 3 else 13)
        runts = sum(T.card_value(c, s2.options, len(players)) for cards in h["scoring"].values() for c in cards)
        assert sum(h["individual"].values()) == runts
        if T.sides(s2)[0] != [players[0]] and s2.options.partnership_mode == "fixed":
            assert sum(h["points"].values()) == runts
        if s2.result is None:
            assert all(len(x) == (12 if len(players) == 3 else 13) for x in s2.hands)
            v = T.view(s2)
            hand = v["hands"][v["to_act"]]
            bad = [c for c in map(str, T.pack(len(players))) if c not in hand]
            with pytest.raises(IllegalMove):
                play(s2, rng.choice(bad))
        s = s2


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_giving_to_a_full_player_is_always_refused(seed):
    rng = random.Random(seed)
    s = new()
    deck = [str(c) for c in T.pack(4)]
    rng.shuffle(deck)
    while len(s.tricks) < 12:
        v = T.view(s)
        if "give" in v["expects"]:
            full = [p for p in NESW if p not in v["room"]]
            for p in full:
                with pytest.raises(IllegalMove):
                    give(s, p)
            s = give(s, rng.choice(v["room"]))
            continue
        card = next(c for c in deck if c not in v["seen"])
        s = play(s, card)


# -- refusals as data: a code, the rule cited, the params -------------------------------


def test_refusal_codes_from_deal_2():
    """RULES.md 3.7 and 3.3: from deal 2 a card of another hand, or a failure to follow,
    is refused with its code, the rule and the legal cards."""
    s = full_deal(new(), random.Random(4))
    v = T.view(s)
    actor = v["to_act"]
    holder, other = next((p, c) for p, h in v["hands"].items() if p != actor for c in h)
    with pytest.raises(IllegalMove) as e:
        play(s, other)
    assert (e.value.code, e.value.rule) == ("not_your_card", "Tantony 3.7")
    assert e.value.params == {"card": other, "holder": holder, "player": actor}
    assert str(e.value) == f"{other} is in {holder}'s hand, not {actor}'s (hands are known from deal 2, Tantony 3.7)."
    for seed in range(50):  # deal 2's first card led, the next player holding the suit and others
        s2 = full_deal(new(), random.Random(seed))
        s2 = play(s2, T.view(s2)["legal"][0])
        w = T.view(s2)
        if set(w["hands"][w["to_act"]]) - set(w["legal"]):
            break
    wrong = [c for c in w["hands"][w["to_act"]] if c not in w["legal"]]
    with pytest.raises(IllegalMove) as e:
        play(s2, wrong[0])
    assert (e.value.code, e.value.rule) == ("must_follow", "Tantony 3.3")
    assert e.value.params == {"player": w["to_act"], "cards": w["legal"]} and e.value.options == w["legal"]
    assert str(e.value) == f"{w['to_act']} must follow suit: {w['to_act']} holds {' '.join(w['legal'])} (Tantony 3.3)."


def test_refusal_codes_of_gifts():
    """RULES.md 3.4 / C8: a full player is refused (code full, rule 3.4, who has room); a
    gift out of turn says why."""
    s = placed(new(), ["N", "N", "N"])
    s = play(s, *spare_tricks(4)[3])
    with pytest.raises(IllegalMove) as e:
        give(s, "N")
    assert (e.value.code, e.value.rule) == ("full", "Tantony 3.4")
    assert e.value.params == {"player": "N", "held": 3, "room": "E, S, W"}
    assert (
        str(e.value) == "N already holds 3 tricks, the most anyone may (Tantony 3.4, C8). Players with room: E, S, W."
    )
    with pytest.raises(IllegalMove) as e:
        play(s, "2S")
    assert (e.value.code, e.value.rule) == ("give_first", "Tantony 3.4")
    with pytest.raises(InvalidMove) as e:
        give(s, "X")
    assert (e.value.code, e.value.params) == ("not_a_player", {"players": "N, E, S, W"})
    assert str(e.value) == "'to' must name a player: N, E, S, W"
    s = placed(new(), ["N", "N", "N", "E", "E", "E", "S", "S", "W", "W", "W"])
    s = play(s, *spare_tricks(12)[11])
    with pytest.raises(IllegalMove) as e:
        give(s, "N")
    assert (e.value.code, e.value.rule, e.value.params) == ("gift_forced", "Tantony 3.4", {"player": "S"})
    with pytest.raises(IllegalMove) as e:
        T.apply(s, {"type": "tally", "scoring": {}})
    assert e.value.code == "tally_too_late" and e.value.rule is None


def test_gift_refusal_is_a_reason():
    """RULES.md 3.4 TT-06 / TT-14: the lab's helper gives the same refusal as the engine."""
    why = T.gift_refusal({"N": 3, "E": 3, "S": 2, "W": 3}, "E", 4)
    assert (why.code, why.rule, why.params) == ("full_one_room", "Tantony 3.4", {"player": "E", "held": 3, "room": "S"})
    assert T.gift_refusal({"P1": 4, "P2": 4, "P3": 3}, "P3", 3) is None
    assert T.gift_refusal({"P1": 4, "P2": 4, "P3": 3}, "P1", 3).params["held"] == 4


def test_3_3_the_board_mid_trick():
    """RULES.md 3.3 / 3.4: mid-trick the board shows the cards played, who is winning it and
    its runt so far; then, with the trick given, the runt in the deal's points."""
    s = play(new(), "9D", "3D")
    v = T.view(s)
    assert {k: v[k] for k in ("game", "trick", "best", "runt", "trick_number", "quota", "legal")} == {
        "game": "tantony",
        "trick": [["N", "9D"], ["E", "3D"]],
        "best": "N",
        "runt": "3D",
        "trick_number": 1,
        "quota": 3,
        "legal": None,  # deal 1: the hands are not known
    }
    assert v["deal_points"] == {"N & S": 0, "E & W": 0}
    # The sudden-death line of this deal (3.8), the pack to tap (3.10), the seats' compass points.
    assert (v["line"], len(v["pack"]), v["compass"]) == (60, 52, {"N": "N", "E": "E", "S": "S", "W": "W"})
    split = T.view(T.start(["Ann", "Ben", "Cat", "Dan"], {"dealer": "Dan", "partnership_mode": "split"}))
    three = T.view(T.start(["A", "B", "C"]))
    assert split["line"] is None and three["compass"] is None and len(three["pack"]) == 36
    # A game of one deal: the line holds after its last deal too, unless the table reads seed 003's "before".
    assert T.view(new({"deals": 1}))["line"] == 60
    assert T.view(new({"deals": 1, "sudden_death_last_deal": False}))["line"] is None
    v = T.view(give(play(s, "7D", "10D"), "S"))
    assert (v["deal_points"], v["trick_number"], v["trick"], v["best"], v["runt"]) == (
        {"N & S": 3, "E & W": 0},
        2,
        [],
        None,
        None,
    )


def test_3_10_the_packs_codes():
    """RULES.md 3.10: 3 players use 36 cards, without the 7s to 10s; 4 players all 52."""
    assert T.pack_codes(3) == [str(c) for c in T.pack(3)] and len(T.pack_codes(3)) == 36
    assert not any(c[:-1] in ("7", "8", "9", "10") for c in T.pack_codes(3))
    assert T.pack_codes(4) == [str(c) for c in T.pack(4)] and len(T.pack_codes(4)) == 52


def test_a_play_names_its_card():
    """RULES.md 3.3: a card played is named; a move without one is refused as malformed."""
    with pytest.raises(InvalidMove) as e:
        T.apply(new(), {"type": "play"})
    assert (e.value.code, str(e.value)) == ("missing_card", "The move needs a 'card'")


def test_refusal_codes_of_the_pack_and_the_tally():
    """RULES.md 3.10 and 3.5: a card outside the 36, and tallies with the wrong runts."""
    with pytest.raises(IllegalMove) as e:
        play(T.start(["Ann", "Ben", "Cat"]), "7S")
    assert (e.value.code, e.value.rule, e.value.params) == ("not_in_pack", "Tantony 3.10", {"card": "7S"})
    assert str(e.value) == "7S is not in the pack: 3-player Tantony uses 36 cards, without 7s to 10s (Tantony 3.10)."
    s = play(new(), "2S")
    with pytest.raises(IllegalMove) as e:
        play(s, "2S")
    assert (e.value.code, e.value.params) == ("already_played", {"card": "2S", "trick": 1})
    scoring = {"N": ["2S", "3S", "4S"], "E": ["5S", "6S", "7S"], "S": ["8S", "9S", "10S"], "W": ["2H", "3H", "4H"]}
    with pytest.raises(IllegalMove) as e:
        T.apply(new(), {"type": "tally", "scoring": scoring})
    assert (e.value.code, e.value.rule) == ("runts_13th", "Tantony 3.5")
    with pytest.raises(IllegalMove) as e:
        T.apply(new(), {"type": "tally", "scoring": scoring | {"W": ["2S", "3H", "4H", "5H"]}})
    assert (e.value.code, e.value.params) == ("listed_twice", {"card": "2S"})
    with pytest.raises(IllegalMove) as e:
        T.apply(new({"last_card_rule": "penguin2008"}), {"type": "tally", "scoring": scoring})
    assert (e.value.code, e.value.rule) == ("runts_last_card", "Tantony 3.5")
    with pytest.raises(IllegalMove) as e:
        T.apply(T.start(["A", "B", "C"]), {"type": "tally", "scoring": {"A": ["2S"], "B": [], "C": []}})
    assert (e.value.code, e.value.rule, e.value.params) == ("runts_3p", "Tantony 3.10", {"quota": 4})


@pytest.mark.parametrize(
    ("options", "code", "option", "words"),
    [
        ({"deals": 0}, "deals_range", "deals", "deals must be a whole number from 1 to 12 (not 0)"),
        ({"deals": 13}, "deals_range", "deals", "deals must be a whole number from 1 to 12 (not 13)"),
        ({"sudden_death": "yes"}, "not_bool", "sudden_death", "sudden_death must be true or false (not 'yes')"),
        (
            {"partnership_mode": "individual"},
            "individual_needs_3",
            "partnership_mode",
            "Each for themself is the 3-player scoring; 4 players play fixed or split partners (Tantony 3.10).",
        ),
        (
            {"nope": 1},
            "unknown_option",
            "nope",
            "Unknown option 'nope'; Tantony options are: partnership_mode, "
            "value_scale, last_card_rule, deals, sudden_death, three_player_values, sudden_death_last_deal",
        ),
    ],
)
def test_option_refusals_name_their_option(options, code, option, words):
    """RULES.md 3.11: deals 1 to 12; sudden death true or false; each for themself with 3 players only."""
    with pytest.raises(OptionError) as e:
        T.start(NESW, options)
    assert e.value.code == code and e.value.params["option"] == option
    assert str(e.value) == words


def test_3_11_twelve_deals_at_most():
    """RULES.md 3.11: a game of 12 deals is one (13 is refused above)."""
    assert T.view(T.start(NESW, {"deals": 12}))["deals"] == 12


def test_3_4_a_card_led_implies_the_gift_or_is_refused():
    """RULES.md 3.4, from deal 2 (every hand known): the card led names who received the trick;
    a holder without room is refused, naming the giver and the trick; a card nobody holds, or
    no card, implies nothing (the move is judged as it is)."""
    s = T.start(NESW, {"dealer": "W"})
    s.hands = [["2S", "9C"], ["3S"], ["4S"], ["5S"]]  # known hands, as from deal 2
    trick = {"leader": 0, "cards": [], "runt": "2D", "value": 2, "hog": False, "forced": False}
    s.tricks = [trick | {"n": n, "winner": 3, "to": 2} for n in (1, 2, 3)] + [trick | {"n": 4, "winner": 0, "to": None}]
    assert T.implied_gift(s, {"type": "play", "card": "3S"}) == {"type": "give", "to": "E"}
    with pytest.raises(IllegalMove) as e:
        T.implied_gift(s, {"type": "play", "card": "4S"})
    assert (e.value.code, e.value.rule) == ("implied_gift_full", "Tantony 3.4")
    assert e.value.params == {"card": "4S", "player": "S", "n": 3, "giver": "N", "trick": 4}
    assert str(e.value) == (
        "4S is S's, who already holds 3 tricks: N gives trick 4 to a player with room, who then leads (Tantony 3.4)."
    )
    for card in ("AH", 5, "zz", None):  # a card held by nobody; no card
        assert T.implied_gift(s, {"type": "play", "card": card}) is None


# -- issue 47: what mutation testing found no test holding -------------------------------------


def test_3_3_following_suit_needs_no_higher_card():
    """RULES.md 3.3: a player follows suit if they can, with any card of it (no duty to head
    the trick, as Tute has); with none of it, any card."""
    assert T.legal_plays(["2S", "KS", "5H"], ["QS"]) == {"2S", "KS"}
    assert T.legal_plays(["2S", "5H"], ["QS", "AS"]) == {"2S"}
    assert T.legal_plays(["5H", "6D"], ["QS"]) == {"5H", "6D"}
    assert T.legal_plays(["5H", "6D"], []) == {"5H", "6D"}  # the lead: any card


def test_3_4_each_move_out_of_its_time_says_who_and_why():
    """RULES.md 3.4: a card while the trick's winner has yet to give it names the winner; a gift
    with no trick just won, or of a trick that went by itself, says so; a tally after the
    deal's first card is refused (3.9). Each refusal's words as a player reads them."""
    s = new()
    with pytest.raises(IllegalMove) as e:  # before any trick
        give(s, "E")
    assert (e.value.code, e.value.rule, e.value.params) == ("give_not_now", "Tantony 3.4", {})
    assert str(e.value) == "Only the winner of a trick gives it away, right after it is won (Tantony 3.4)."
    s = play(s, *spare_tricks(1)[0])  # N leads the highest: N wins, and gives
    with pytest.raises(IllegalMove) as e:
        play(s, "2C")
    assert (e.value.code, e.value.params) == ("give_first", {"player": "N"})
    assert str(e.value) == "N won the trick and gives it first: to whom? (Tantony 3.4)"
    s = give(s, "E")
    with pytest.raises(IllegalMove) as e:  # a trick won and given already: not forced, not now
        give(s, "S")
    assert e.value.code == "give_not_now"
    with pytest.raises(IllegalMove) as e:
        T.apply(s, {"type": "tally", "scoring": {}})
    assert (e.value.code, e.value.rule, e.value.params) == ("tally_too_late", None, {})
    assert str(e.value) == "A deal can be tallied only before its first card."
    s = placed(new(), ["N", "N", "N", "E", "E", "E", "S", "S", "W", "W", "W"])
    s = play(s, *spare_tricks(12)[11])
    with pytest.raises(IllegalMove) as e:
        give(s, "N")
    assert str(e.value) == "The trick went to S by itself: nobody else had room (Tantony 3.4)."


def test_3_9_a_deals_record_says_who_dealt_how_it_was_scored_and_its_last_trick():
    """RULES.md 3.9: a deal played out keeps its dealer, that it was played (not tallied) and
    its last trick; a tallied deal says it was tallied and has no last trick."""
    s = full_deal(new(), random.Random(3))
    record = s.history[-1]
    assert record["dealer"] == "W" and record["tallied"] is False
    last = record["last"]  # the 13th trick, as the board showed it
    assert last["n"] == 13 and len(last["cards"]) == 4 and last["winner"] in NESW
    tallied = tally_deal(new(), 64, 64).history[-1]
    assert tallied["dealer"] == "W" and tallied["tallied"] is True and tallied["last"] is None


def test_3_8_the_line_reached_exactly_and_the_games_end_in_words():
    """RULES.md 3.8: a side at exactly 60 x the deal number has reached the line (TT-10 is 59);
    the loser is everyone else. After the last deal the higher total wins one game, or level
    leaders draw; the reason says so, with the deals played (one deal: in the singular)."""
    exactly = T.verdict({"N & S": 60, "E & W": 30}, 1)
    assert {k: exactly[k] for k in ("winners", "losers", "draw", "double")} == {
        "winners": ["N & S"],
        "losers": ["E & W"],
        "draw": False,
        "double": True,
    }
    [said] = exactly["reason"]  # sudden death, in words
    assert (said["code"], said["rule"], said["params"]) == (
        "sudden_death",
        "Tantony 3.8",
        {"player": "N & S", "top": 60, "line": 60, "deal": 1},
    )
    assert str(Reason.from_json(said)) == (
        "N & S reached 60, at least 60 after deal 1: sudden death, a double win (Tantony 3.8)."
    )
    # A game of one deal (deals=1), and of four; seed 003's "before deal 4" reading: no line after the last.
    one = T.verdict({"N & S": 50, "E & W": 50}, 1, deals=1)
    assert (one["draw"], one["winners"], one["losers"]) == (True, ["N & S", "E & W"], [])
    [said] = one["reason"]
    assert (said["code"], said["rule"], said["params"]) == ("final_draw", "Tantony 3.8", {"top": 50, "deals": 1})
    assert str(Reason.from_json(said)) == "Level on 50 after 1 deal: a draw (Tantony 3.8)."
    many = T.verdict({"N & S": 200, "E & W": 200}, 4, last_deal=False)
    assert str(Reason.from_json(many["reason"][0])) == "Level on 200 after 4 deals: a draw (Tantony 3.8)."
    won = T.verdict({"N & S": 230, "E & W": 190}, 4, last_deal=False)
    assert (won["winners"], won["losers"], won["double"]) == (["N & S"], ["E & W"], False)
    [said] = won["reason"]
    assert (said["code"], said["params"]) == ("final_most_points", {"player": "N & S", "deals": 4})
    assert str(Reason.from_json(said)) == "N & S has the most points after 4 deals (Tantony 3.8)."
    assert str(Reason.from_json(T.verdict({"N & S": 50, "E & W": 40}, 1, deals=1)["reason"][0])) == (
        "N & S has the most points after 1 deal (Tantony 3.8)."
    )
    # The line holds after the last deal by default (240 after deal 4): a double win.
    assert T.verdict({"N & S": 240, "E & W": 190}, 4)["double"] is True


def test_3_10_three_players_tally_four_runts_each():
    """RULES.md 3.10: with 3 players each scores exactly the quota of 4 runts; a tally that
    says so is taken, one that gives a player 3 is refused."""
    names = ["Ann", "Ben", "Cat"]
    cards = [str(c) for c in T.pack(3)]
    s = T.start(names, {"dealer": "Cat"})
    scoring = {name: cards[4 * i : 4 * i + 4] for i, name in enumerate(names)}
    after = T.apply(s, {"type": "tally", "scoring": scoring})
    assert after.history[-1]["tallied"] is True and after.deal == 2
    with pytest.raises(IllegalMove) as e:
        T.apply(s, {"type": "tally", "scoring": scoring | {"Cat": cards[8:11]}})
    assert (e.value.code, e.value.rule, e.value.params) == ("runts_3p", "Tantony 3.10", {"quota": 4})
