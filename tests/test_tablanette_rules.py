"""Tablanette rules, one test (or parametrized group) per rule of RULES.md §1.

Each test names its section in its docstring. The capture vectors TB-01 to TB-32 are
in test_tablanette_vectors.py; this file covers the flow vectors (TB-F1 to TB-L1), the
ambiguity resolutions A1 to A16, options, rounds, turns, scoring and the tally.
"""

import copy
import functools
import json
import random

import pytest

from companion import games
from companion.cards import PACK_52
from companion.errors import Reason
from companion.games import AmbiguousMove, IllegalMove, InvalidMove, MoveError, OptionError
from companion.games import tablanette as T

ALL = [str(c) for c in PACK_52]
# RULES.md 1.5: the counting cards of the standard scale (22 points in 21 cards).
COUNTERS = [c for c in ALL if c[:-1] in ("A", "K", "Q", "J", "10") or c == "2C"]
# The ace_ten scale counts A, 10, K, Q, J (120 points in 20 cards).
COUNTERS_ACE_TEN = [c for c in ALL if c[:-1] in ("A", "K", "Q", "J", "10")]


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def new(players=("Ann", "Ben"), **options):
    return T.start(list(players), options)


def lay(state, cards, buried=None):
    move = {"type": "layout", "cards": list(cards)}
    if buried is not None:
        move["buried"] = list(buried)
    return T.apply(state, move)


def play(state, card, capture=None, player=None):
    move = {"type": "play", "card": card}
    if capture is not None:
        move["capture"] = list(capture)
    if player is not None:
        move["player"] = player
    return T.apply(state, move)


def auto(state, card, pick=0):
    """Play ``card`` with one of its legal outcomes (the first by default)."""
    options = T.capture_options(card, state.table, state.options)
    return play(state, card, options[pick % len(options)].sorted_cards())


def seen(state):
    return set(state.table) | {c for pile in state.piles for c in pile}


def crafted(state, table):
    """The same state with another table (the state is plain data: DESIGN.md)."""
    data = T.dump(state)
    data["table"] = list(table)
    return T.load(data)


def shuffled(seed):
    deck = list(ALL)
    random.Random(seed).shuffle(deck)
    return deck


def play_deal(state, order, layout=None):
    """Play one deal from the cards of ``order``, each with its first legal outcome.

    If the deal has not started, lay out first (``layout``, or the first 4 non-jack
    cards of ``order``). Returns the state after the deal and the plays' ``last`` records.
    """
    order = list(order)
    if state.phase == "layout":
        if layout is None:
            layout = [c for c in order if c[0] != "J" or state.options.jack_is_12][:4]
        order = [c for c in order if c not in layout]
        state = lay(state, layout)
    records = []
    deal = state.deal
    for card in order:
        if state.deal != deal or state.phase != "play":
            break
        state = auto(state, card)
        records.append(state.last)
    return state, records


def piles_from(records, state):
    """Rebuild every side's pile of a played deal from the plays' ``last`` records."""
    labels = T.labels(state)
    side_of = {}
    for label, members in zip(labels, T.sides(state)):
        for m in members:
            side_of[m] = label
    piles = {label: [] for label in labels}
    for r in records:
        if r["taken"]:
            piles[side_of[r["player"]]] += r["taken"] + [r["card"]]
        if r.get("leftovers"):
            piles[side_of[r["leftovers_to"]]] += r["leftovers"]
    return piles


def tally(cards, counters, sweeps=None):
    move = {"type": "tally", "cards": dict(cards), "counters": {k: list(v) for k, v in counters.items()}}
    if sweeps is not None:
        move["sweeps"] = {k: list(v) for k, v in sweeps.items()}
    return move


def tally_ab(state, a_count, a_counters, sweeps=None, names=("Ann", "Ben")):
    a, b = names
    counters = {a: list(a_counters), b: [c for c in COUNTERS if c not in a_counters]}
    return T.apply(state, tally({a: a_count, b: 52 - a_count}, counters, sweeps))


# Counting cards worth 10 card points for A (4 aces, 4 kings, 2C, QS) and 12 for B.
A10 = ["AS", "AH", "AD", "AC", "KS", "KH", "KD", "KC", "2C", "QS"]


def sweeps_worth(total: int) -> list[int]:
    """Sweep bonuses a deal can really hold (Tablanette P8) adding up to ``total``."""
    valid = [b for b in range(1, 43) if T.sweep_bonus_refusal(b) is None]
    best: dict[int, list[int]] = {0: []}
    for t in range(1, total + 1):
        options = [best[t - b] + [b] for b in valid if b <= t and t - b in best]
        if options:
            best[t] = min(options, key=len)
    return best[total]


def scores_after(a_before, b_before):
    """A 2-player game whose scores are (a_before, b_before), in the layout of deal 2.

    Deal 1 is a tally: A takes every counting card and the most cards (25), the rest
    comes from sweep bonuses (neither side's sweeps reach 251 alone).
    """
    s = new()
    s = tally_ab(s, 30, COUNTERS, {"Ann": sweeps_worth(a_before - 25), "Ben": sweeps_worth(b_before)})
    assert T.view(s)["scores"] == {"Ann": a_before, "Ben": b_before}
    assert s.phase == "layout" and s.deal == 2
    return s


# ---------------------------------------------------------------------------
# 1.2 Setup: rounds, stock, who plays first, dealer rotation
# ---------------------------------------------------------------------------

CONFIGS = [
    pytest.param(("Ann", "Ben"), {}, 6, 4, 36, id="2p-6"),
    pytest.param(("Ann", "Ben"), {"hand_size": 8}, 8, 3, 32, id="2p-8"),
    pytest.param(("Ann", "Ben", "Cat"), {}, 4, 4, 36, id="3p"),
    pytest.param(("Ann", "Ben", "Cat", "Dan"), {}, 4, 3, 32, id="4p"),
    pytest.param(("Ann", "Ben", "Cat", "Dan"), {"partnership": True}, 4, 3, 32, id="4p-partners"),
]


@pytest.mark.parametrize(("players", "options", "hand", "rounds", "stock"), CONFIGS)
@pytest.mark.parametrize("dealer_seat", [0, -1])
def test_1_2_rounds_stock_and_first_player(players, options, hand, rounds, stock, dealer_seat):
    """RULES.md 1.2 table and deal procedure steps 4-7; A12 (D+1 starts every round)."""
    n = len(players)
    dealer = players[dealer_seat]
    d = players.index(dealer)
    s = T.start(list(players), {**options, "dealer": dealer})
    v = T.view(s)
    assert v["to_act"] == dealer  # the dealer lays out
    assert v["expects"] == ["layout", "tally"]
    order = shuffled(7)
    layout = [c for c in order if c[0] != "J"][:4]
    s = lay(s, layout)
    v = T.view(s)
    assert (v["rounds"], v["stock"], v["round"]) == (rounds, stock, 1)
    assert T.rounds_per_deal(s) == rounds == 48 // (n * hand)
    assert v["hands"] == {p: hand for p in players}
    plays = [c for c in order if c not in layout]
    i = 0
    for r in range(1, rounds + 1):
        v = T.view(s)
        assert v["round"] == r
        assert v["stock"] == 52 - 4 - r * n * hand
        assert v["hands"] == {p: hand for p in players}
        for k in range(n * hand):
            expected = players[(d + 1 + k) % n]  # D+1 first, then in seat order
            assert T.view(s)["to_act"] == expected
            s = auto(s, plays[i])
            i += 1
            assert s.last["player"] == expected
    assert i == 48
    # The deal is over: the next dealer (2p: the other player; 3-4p: D+1) lays out.
    v = T.view(s)
    assert v["deal"] == 2 and v["expects"] == ["layout", "tally"]
    assert v["dealer"] == players[(d + 1) % n] == v["to_act"]
    assert v["stock"] == 0 and v["table"] == []


@pytest.mark.parametrize("players", [("Ann", "Ben"), ("Ann", "Ben", "Cat"), ("Ann", "Ben", "Cat", "Dan")])
def test_1_2_step7_dealer_rotation(players):
    """RULES.md 1.2 step 7: 2p alternate; 3-4p pass the deal to D+1."""
    s = T.start(list(players), {"target": 10_000})
    n = len(players)
    seen_dealers = []
    for deal in range(1, 2 * n + 2):
        v = T.view(s)
        assert v["deal"] == deal
        seen_dealers.append(v["dealer"])
        counts = {p: 0 for p in players}
        counts[players[0]] = 52 - 10 * (n - 1)
        for p in players[1:]:
            counts[p] = 10
        s = T.apply(s, tally(counts, {players[0]: COUNTERS}))
    assert seen_dealers == [players[i % n] for i in range(2 * n + 1)]


def test_1_2_first_player_is_the_one_after_the_dealer_option():
    """RULES.md 1.2 / DESIGN.md: the option ``dealer`` deals first; the next player plays first."""
    s = T.start(["Ann", "Ben", "Cat"], {"dealer": "Cat"})
    assert T.view(s)["dealer"] == "Cat" and T.view(s)["to_act"] == "Cat"
    s = lay(s, ["2S", "3S", "4S", "6S"])
    assert T.view(s)["to_act"] == "Ann"
    s = T.start(["Ann", "Ben"])
    assert T.view(s)["dealer"] == "Ann"
    assert T.view(lay(s, ["2S", "3S", "4S", "6S"]))["to_act"] == "Ben"


def test_1_2_layout_is_four_distinct_cards():
    """RULES.md 1.2 step 2: the dealer lays 4 cards face up."""
    s = new()
    for cards in (["2S", "3S", "4S"], ["2S", "3S", "4S", "5S", "6S"], []):
        with pytest.raises(InvalidMove):
            lay(s, cards)
    with pytest.raises(InvalidMove):
        lay(s, ["2S", "2s", "4S", "5S"])
    with pytest.raises(InvalidMove):
        lay(s, ["2S", "XX", "4S", "5S"])
    with pytest.raises(InvalidMove):
        T.apply(s, {"type": "layout"})
    with pytest.raises(IllegalMove):
        T.apply(s, {"type": "layout", "cards": ["2S", "3S", "4S", "5S"], "player": "Ben"})
    s = T.apply(s, {"type": "layout", "cards": ["2♠", "3s", "4S", "TD"], "player": "Ann"})
    assert T.view(s)["table"] == ["2S", "3S", "4S", "10D"]


# ---------------------------------------------------------------------------
# TB-L1: layout jacks
# ---------------------------------------------------------------------------


def test_TB_L1_layout_jack_is_refused():
    """RULES.md 1.8 TB-L1 / 1.2 step 3: a jack in the layout goes under the stock."""
    s = new()
    with pytest.raises(IllegalMove) as err:
        lay(s, ["JH", "5C", "JS", "9D"])
    assert "1.2" in str(err.value) and "JH" in str(err.value)
    with pytest.raises(IllegalMove):
        lay(s, ["7H", "5C", "JS", "9D"])


def test_TB_L1_buried_jacks_are_accepted_and_not_seen():
    """RULES.md 1.8 TB-L1: both jacks replaced from the top; the layout holds 4 cards, no jack."""
    s = lay(new(), ["7H", "5C", "KS", "9D"], buried=["JH", "JS"])
    v = T.view(s)
    assert v["table"] == ["7H", "5C", "KS", "9D"]
    assert v["buried"] == ["JH", "JS"]
    assert "JH" not in v["seen"] and "JS" not in v["seen"]
    assert not any(c.startswith("J") for c in v["table"])
    # Only jacks go under the stock, never a layout card.
    with pytest.raises(IllegalMove):
        lay(new(), ["7H", "5C", "KS", "9D"], buried=["2C"])
    with pytest.raises(InvalidMove):
        lay(new(), ["7H", "5C", "KS", "9D"], buried=["JH", "JH"])


def test_TB_L1_no_layout_swap_with_jack_is_12():
    """RULES.md 1.2 step 3: with jack_is_12 the step is skipped."""
    s = lay(new(jack_is_12=True), ["JH", "5C", "JS", "9D"])
    assert T.view(s)["table"] == ["JH", "5C", "JS", "9D"]
    with pytest.raises(IllegalMove):
        lay(new(jack_is_12=True), ["7H", "5C", "KS", "9D"], buried=["JH"])


def test_TB_L1_buried_jack_played_early_records_a_warning():
    """RULES.md 1.8 TB-L1 soft check / 1.11: a buried jack should turn up in the last round."""
    s = lay(new(), ["7H", "5C", "KS", "9D"], buried=["JH", "JS"])
    after = play(s, "JH")  # round 1 of 4: accepted (the stock may have been re-cut), with a warning
    assert after.last["taken"] == ["5C", "7H", "9D", "KS"]
    warnings = T.view(after)["warnings"]
    assert len(warnings) == 1 and warnings[0]["params"]["card"] == "JH"
    assert str(Reason.from_json(warnings[0])).startswith("JH went under the stock")
    assert T.view(s)["warnings"] == []


def test_TB_L1_buried_jacks_in_the_last_round_no_warning():
    """RULES.md 1.8 TB-L1: the buried jacks are the bottom cards, so they come in the last round."""
    layout = ["7H", "5C", "KS", "9D"]
    rest = [c for c in ALL if c not in layout and c not in ("JH", "JS")]
    random.Random(3).shuffle(rest)
    order = rest + ["JH", "JS"]  # the jacks are the last two cards played
    s = lay(new(), layout, buried=["JH", "JS"])
    for card in order:
        if card in ("JH", "JS"):
            assert T.view(s)["round"] == T.view(s)["rounds"] == 4
        s = auto(s, card)
    assert s.deal == 2
    assert T.view(s)["warnings"] == []
    assert sum(s.history[0]["cards"].values()) == 52


# ---------------------------------------------------------------------------
# 1.4 Move rules through the game
# ---------------------------------------------------------------------------


def test_1_4_any_card_may_be_played():
    """RULES.md 1.4 "The turn": nobody must play a card that could capture."""
    s = lay(new(), ["6S", "2H", "4D", "9C"])
    after = play(s, "KC", [])  # 6C could capture; KC lays down
    assert T.view(after)["table"] == ["6S", "2H", "4D", "9C", "KC"]


def test_1_4_P4_TB10_message_names_the_rule_and_the_legal_capture():
    """RULES.md 1.4 P4 / 1.11: TB-10 declared {6S} alone is refused: "Must also take 2H+4D" (P4)."""
    s = lay(new(), ["6S", "2H", "4D", "9C"])
    with pytest.raises(IllegalMove) as err:
        play(s, "6C", ["6S"])
    message = str(err.value)
    assert "Must also take 2H+4D" in message
    assert "P4" in message
    assert "2H 4D 6S" in message  # the legal capture is listed
    assert err.value.options == [["2H", "4D", "6S"]]
    assert err.value.message == message


@pytest.mark.parametrize(
    ("table", "card", "capture", "rule", "legal"),
    [
        (["6S", "2H", "4D", "9C"], "6C", [], "P4", [["2H", "4D", "6S"]]),  # may not trail
        (["2S", "3H", "4D", "5C"], "KC", ["2S", "3H", "4D", "5C"], "P1", [[]]),  # a 4-card sum
        (["5S", "9H", "QD", "3C"], "JC", ["5S", "9H"], "P5", [["3C", "5S", "9H", "QD"]]),  # a jack takes all
        (["KS", "10H", "4D", "5C"], "KC", ["5C"], "P1", [["4D", "10H", "KS"]]),  # 5 is not 14
        (["KS", "10H", "4D", "5C"], "KC", ["KS", "QH"], "not on the table", [["4D", "10H", "KS"]]),
    ],
    ids=["trail", "four-card-sum", "jack-part", "wrong-sum", "not-on-table"],
)
def test_1_4_refusals_name_the_rule_and_list_the_legal_captures(table, card, capture, rule, legal):
    """RULES.md 1.4 P1-P5 / 1.11 / DESIGN.md errors: IllegalMove names the rule and lists the legal captures."""
    s = lay(new(), table)
    with pytest.raises(IllegalMove) as err:
        play(s, card, capture)
    assert rule in str(err.value)
    assert "Legal:" in str(err.value)
    assert err.value.options == legal


def test_1_4_P5_table_jack_only_taken_by_a_played_jack():
    """RULES.md 1.4 P5: a table jack is never part of a group (TB-19, TB-20)."""
    s = crafted(lay(new(), ["2S", "3S", "4S", "6S"]), ["JS", "KH"])
    with pytest.raises(IllegalMove) as err:
        play(s, "KC", ["JS", "KH"])
    assert "P5" in str(err.value)
    after = play(s, "KC")
    assert after.table == ["JS"] and after.last["sweep"] is False


def test_1_4_P6_capture_goes_to_the_capturer():
    """RULES.md 1.4 P6: remove C from the table, C and p to the capturer's pile, last_capturer set."""
    s = lay(new(), ["KS", "10H", "4D", "5C"])
    s = play(s, "KC", ["KS", "10H", "4D"])
    v = T.view(s)
    assert v["table"] == ["5C"]
    assert sorted(v["captured"]["Ben"]) == sorted(["KS", "10H", "4D", "KC"])
    assert v["captured"]["Ann"] == []
    assert v["last_capturer"] == "Ben"
    assert v["last"]["groups"] == [["KS"], ["4D", "10H"]]
    s = play(s, "2D", [])
    assert T.view(s)["table"] == ["5C", "2D"]
    assert T.view(s)["last_capturer"] == "Ben"


def test_1_4_P7_P8_sweep_scores_at_once():
    """RULES.md 1.4 P6-P8: a sweep adds its bonus at once (TB-09: K on K 10 4 = 42)."""
    s = crafted(lay(new(), ["2S", "3S", "4S", "6S"]), ["KS", "10H", "4D"])
    s = play(s, "KC")
    v = T.view(s)
    assert v["table"] == [] and v["sweeps"]["Ben"] == [42] and v["scores"]["Ben"] == 42
    assert v["last"]["sweep"] is True and v["last"]["bonus"] == 42
    assert str(Reason.from_json(v["last"]["how"])) == "KC counts 14; KS and 4D+10H each make 14: 14 × 3 = 42."


def test_1_11_card_already_seen_is_refused():
    """RULES.md 1.11 "Card uniqueness": each card is played or laid out once per deal."""
    s = lay(new(), ["KS", "10H", "4D", "5C"])
    with pytest.raises(IllegalMove) as err:
        play(s, "5C")  # on the table
    assert "5C" in str(err.value)
    s = play(s, "KC", ["KS", "10H", "4D"])
    for card in ("KC", "KS", "10h", "4♦"):  # in a pile, in any spelling
        with pytest.raises(IllegalMove):
            play(s, card)
    # A new deal starts a fresh pack.
    s2 = T.apply(new(), tally({"Ann": 30, "Ben": 22}, {"Ann": COUNTERS}))
    s2 = lay(s2, ["KS", "10H", "4D", "5C"])
    assert play(s2, "KC").last["card"] == "KC"


def test_1_11_out_of_turn_player_is_refused():
    """DESIGN.md engine contract: a move naming a player who is not to act is illegal."""
    s = lay(new(), ["KS", "10H", "4D", "5C"])
    with pytest.raises(IllegalMove) as err:
        play(s, "2D", [], player="Ann")
    assert "Ben" in str(err.value)
    with pytest.raises(InvalidMove):
        play(s, "2D", [], player="Zed")
    assert play(s, "2D", [], player="Ben").last["player"] == "Ben"
    assert play(s, "2D", []).last["player"] == "Ben"  # the engine knows whose turn it is


def test_moves_must_be_well_formed():
    """DESIGN.md errors: InvalidMove for a bad card code or a missing field."""
    s = lay(new(), ["KS", "10H", "4D", "5C"])
    for move in (
        {"type": "play"},
        {"type": "play", "card": "ZZ"},
        {"type": "play", "card": "KC", "capture": "KS"},
        {"type": "play", "card": "KC", "capture": ["KS", "KS"]},
        {"type": "dance"},
        {},
        "play",
    ):
        with pytest.raises(InvalidMove):
            T.apply(s, move)
    with pytest.raises(IllegalMove):
        T.apply(s, {"type": "layout", "cards": ["2S", "3S", "4S", "6S"]})
    with pytest.raises(IllegalMove):
        T.apply(s, tally({"Ann": 30, "Ben": 22}, {"Ann": COUNTERS}))


# ---------------------------------------------------------------------------
# Flow vectors TB-F1 to TB-F3, TB-S1, TB-S2
# ---------------------------------------------------------------------------

# The last round of TB-F1: Ben (non-dealer) plays 1st, 3rd, ... 11th; Ann the even plays.
# Ben's JC clears the table, then everything trails until Ben's 5H takes the 5S with
# the second-to-last card of the deal; Ann's last card, the 2S, trails.
F1_LAST_ROUND = ["JC", "KS", "QS", "9S", "8S", "7S", "5S", "6S", "4S", "3S", "5H", "2S"]


def test_TB_F1_leftovers_go_to_the_last_capturer_without_a_sweep():
    """RULES.md 1.8 TB-F1 / 1.5 step 1: the table's last cards go to the last capturer; not a sweep."""
    rest = [c for c in ALL if c not in F1_LAST_ROUND]
    random.Random(11).shuffle(rest)
    s = new()
    layout = [c for c in rest if c[0] != "J"][:4]
    s = lay(s, layout)
    for card in [c for c in rest if c not in layout]:
        s = auto(s, card)
    v = T.view(s)
    assert v["round"] == 4 and v["stock"] == 0 and v["hands"] == {"Ann": 6, "Ben": 6}
    assert v["table"], "the JC must find a table to take"
    for card in F1_LAST_ROUND[:-1]:
        s = auto(s, card)
    assert s.last["player"] == "Ben" and s.last["taken"] == ["5S"] and not s.last["sweep"]
    before = T.view(s)
    assert before["table"] == ["KS", "QS", "9S", "8S", "7S", "6S", "4S", "3S"]
    s = play(s, "2S")  # the last card of the deal trails (nothing adds to 2)
    last = s.last
    assert last["taken"] == [] and last["sweep"] is False
    assert last["leftovers"] == ["KS", "QS", "9S", "8S", "7S", "6S", "4S", "3S", "2S"]
    assert last["leftovers_to"] == "Ben"
    record = s.history[0]
    assert record["cards"]["Ben"] == len(before["captured"]["Ben"]) + 9
    assert record["cards"]["Ann"] == len(before["captured"]["Ann"])
    assert record["sweeps"] == before["sweeps"]  # no sweep bonus for the leftovers
    assert sum(record["cards"].values()) == 52


def test_TB_F2_sweep_to_the_target_wins_at_once():
    """RULES.md 1.8 TB-F2 / 1.6 "During a deal": A has 240, sweeps 42 with KC on KS 10H 4D, wins at once."""
    s = new()  # Ann deals deal 1, Ben deals deal 2, so Ann plays first in deal 2
    # Sweeps a deal can really hold (a sweep scores value x (groups + 1), Tablanette P8).
    s = tally_ab(s, 30, COUNTERS, {"Ben": [39, 39, 39, 39, 39, 20], "Ann": [42, 42, 42, 42, 32]}, names=("Ben", "Ann"))
    assert T.view(s)["scores"] == {"Ann": 200, "Ben": 240}
    s = lay(s, ["KS", "10H", "4D", "5C"])
    s = play(s, "5S")  # Ann takes the 5C: only the 5 makes 5
    assert s.last["taken"] == ["5C"]
    assert T.view(s)["table"] == ["KS", "10H", "4D"] and T.view(s)["to_act"] == "Ben"
    s = play(s, "KC")
    v = T.view(s)
    assert v["last"]["sweep"] is True and v["last"]["bonus"] == 42
    assert v["scores"] == {"Ann": 200, "Ben": 282}
    assert v["result"] == {"winners": ["Ben"], "losers": ["Ann"], "draw": False}
    assert v["expects"] == [] and v["to_act"] is None
    record = v["history"][-1]
    assert record["deal"] == 2 and record["abandoned"] is True and record["tallied"] is False  # played, not tallied
    assert record["points"] == {"Ann": 0, "Ben": 42}
    for side in ("Ann", "Ben"):
        assert sum(r["points"][side] for r in v["history"]) == v["scores"][side]


@pytest.mark.parametrize(
    ("before", "after", "result"),
    [
        ((242, 246), (255, 258), {"winners": ["Ben"], "losers": ["Ann"], "draw": False}),
        ((238, 239), (251, 251), {"winners": ["Ann", "Ben"], "losers": [], "draw": True}),
        ((237, 237), (250, 249), None),
    ],
    ids=["255-258-B-wins", "251-251-draw", "250-249-continue"],
)
def test_TB_F3_end_of_deal(before, after, result):
    """RULES.md 1.8 TB-F3 / 1.6 "After end-of-deal scoring" / A7 / A8."""
    s = scores_after(*before)
    # Deal 2 tallied without sweeps: Ann 10 card points + 3 for 27 cards, Ben 12.
    s = tally_ab(s, 27, A10)
    v = T.view(s)
    assert v["history"][-1]["points"] == {"Ann": 13, "Ben": 12}
    assert (v["scores"]["Ann"], v["scores"]["Ben"]) == after
    assert v["result"] == result
    if result is None:
        assert v["deal"] == 3 and v["expects"] == ["layout", "tally"] and v["dealer"] == "Ann"
    else:
        assert v["expects"] == [] and v["to_act"] is None


def test_TB_S1_deal_scoring():
    """RULES.md 1.8 TB-S1 / 1.5: A 27 cards with AS AH KC 10D 10C 2C JS scores 8 + 3 = 11; B 14."""
    a = ["AS", "AH", "KC", "10D", "10C", "2C", "JS"]
    b = ["AD", "AC", "KS", "KH", "KD", "QS", "QH", "QD", "QC", "JH", "JD", "JC", "10H", "10S"]
    assert sorted(a + b) == sorted(COUNTERS)
    assert T.card_points(a) == 8 and T.card_points(b) == 14
    s = T.apply(new(), tally({"Ann": 27, "Ben": 25}, {"Ann": a, "Ben": b}))
    record = s.history[0]
    assert record["points"] == {"Ann": 11, "Ben": 14}
    assert record["card_points"] == {"Ann": 8, "Ben": 14}
    assert record["most_cards"] == {"Ann": 3, "Ben": 0}
    assert sum(record["points"].values()) == 25
    assert T.view(s)["scores"] == {"Ann": 11, "Ben": 14}


def test_TB_S2_tie_for_most_cards():
    """RULES.md 1.8 TB-S2 / 1.5: 26-26, nobody scores the 3; card points total 22."""
    s = T.apply(new(), tally({"Ann": 26, "Ben": 26}, {"Ann": A10, "Ben": [c for c in COUNTERS if c not in A10]}))
    record = s.history[0]
    assert record["most_cards"] == {"Ann": 0, "Ben": 0}
    assert sum(record["card_points"].values()) == 22
    assert record["points"] == {"Ann": 10, "Ben": 12}


def test_1_5_card_points_table():
    """RULES.md 1.5: A K Q J 10 one each, 10D two, 2C one; the scale totals 22; ace_ten 120."""
    assert T.card_points(["AS", "KH", "QD", "JC", "10S"]) == 5
    assert T.card_points(["10D"]) == 2 and T.card_points(["2C"]) == 1
    assert T.card_points(["2D", "9C", "3S", "5H"]) == 0
    assert T.card_points(ALL) == 22
    assert T.card_points(ALL, "ace_ten") == 120
    assert T.card_points(["AS", "10D", "KC", "QH", "JS", "2C"], "ace_ten") == 11 + 10 + 4 + 3 + 2


# ---------------------------------------------------------------------------
# Ambiguity resolutions A1 to A16 (RULES.md 1.10)
# ---------------------------------------------------------------------------


def bonus_of(card, table, cards, options=None):
    judged = T.judge_capture(card, table, cards, options)
    assert judged is not None
    return judged.sweep, judged.bonus


def test_A1_rank_matched_ace_counts_11_in_a_sweep():
    """RULES.md 1.10 A1: the largest valid assignment; a rank-matched ace counts 11 on both sides."""
    assert bonus_of("AC", ["AS"], ["AS"]) == (True, 22)  # TB-16
    assert bonus_of("AH", ["AS", "5C", "6D"], ["AS", "5C", "6D"]) == (True, 33)  # TB-13
    assert bonus_of("AC", ["AS", "10H"], ["AS", "10H"]) == (True, 22)  # TB-11
    assert bonus_of("2C", ["AS", "AH"], ["AS", "AH"]) == (True, 4)  # TB-14: aces as 1 to make 2
    assert bonus_of("QC", ["AS", "2H"], ["AS", "2H"]) == (True, 26)  # TB-15: ace as 11
    s = crafted(lay(new(), ["2S", "3S", "4S", "6S"]), ["AS"])
    assert T.view(play(s, "AC"))["scores"]["Ben"] == 22


def test_A2_jack_on_a_table_of_jacks_is_not_a_sweep():
    """RULES.md 1.10 A2 / TB-21: a jack takes the table jacks and scores no sweep."""
    for table in (["JS"], ["JS", "JH"], ["JS", "JH", "JD"]):
        got = T.capture_options("JC", table)
        assert [(sorted(c.cards), c.sweep, c.bonus) for c in got] == [(sorted(table), False, 0)]
    s = crafted(lay(new(), ["2S", "3S", "4S", "6S"]), ["JS", "JH"])
    s = play(s, "JC")
    v = T.view(s)
    assert v["table"] == [] and v["sweeps"]["Ben"] == [] and v["scores"]["Ben"] == 0
    assert v["last_capturer"] == "Ben"


def test_A3_jack_on_an_empty_table_stays_and_blocks_sweeps():
    """RULES.md 1.10 A3 / P5 / P7 / TB-18: the jack lies on the table; no sweep until a jack takes it."""
    s = lay(new(), ["5C", "9D", "KS", "2H"])
    s = play(s, "JD")  # Ben takes the whole table with a jack: not a sweep
    assert s.last["taken"] == ["2H", "5C", "9D", "KS"] and s.last["sweep"] is False
    assert s.table == []
    s = play(s, "JC")  # Ann: a jack on the empty table stays there
    assert s.table == ["JC"] and s.last["taken"] == []
    s = play(s, "5S", [])
    s = play(s, "5H")  # takes the 5S, but the JC stays: no sweep
    assert s.last["taken"] == ["5S"] and s.last["sweep"] is False and s.table == ["JC"]
    s = play(s, "7S", [])
    s = play(s, "JH")  # a jack removes the jack (and the 7): still not a sweep
    assert sorted(s.last["taken"]) == ["7S", "JC"] and s.last["sweep"] is False and s.table == []
    s = play(s, "QS", [])
    s = play(s, "QH")  # the table is clear of jacks: sweeps are possible again
    assert s.last["sweep"] is True and s.last["bonus"] == 26


def test_A4_a_jack_capture_is_compulsory():
    """RULES.md 1.10 A4 / P5: a jack on a non-empty table must take it all."""
    assert T.judge_capture("JC", ["5S", "9H"], []) is None
    assert T.judge_capture("JC", ["5S", "9H"], ["5S"]) is None
    assert T.judge_capture("JC", [], []) is not None
    s = lay(new(), ["5C", "9D", "KS", "2H"])
    with pytest.raises(IllegalMove):
        play(s, "JC", [])
    with pytest.raises(IllegalMove):
        play(s, "JC", ["5C"])
    assert play(s, "JC").table == []


def test_A5_no_trailing_a_card_that_can_capture():
    """RULES.md 1.10 A5 / P4: by default the played card must capture; forced_capture false frees it."""
    assert T.judge_capture("6C", ["6S", "2H", "4D", "9C"], []) is None
    assert T.judge_capture("6C", ["6S", "2H", "4D", "9C"], ["6S"]) is None
    free = {"forced_capture": False}
    assert T.judge_capture("6C", ["6S", "2H", "4D", "9C"], [], free) is not None
    assert T.judge_capture("6C", ["6S", "2H", "4D", "9C"], ["6S"], free) is not None
    assert T.judge_capture("6C", ["6S", "2H", "4D", "9C"], ["2H", "4D"], free) is not None
    got = {tuple(c.sorted_cards()) for c in T.capture_options("6C", ["6S", "2H", "4D", "9C"], free)}
    assert got == {("2H", "4D", "6S"), ("6S",), ("2H", "4D"), ()}
    s = lay(new(forced_capture=False), ["6S", "2H", "4D", "9C"])
    assert T.view(play(s, "6C", []))["table"] == ["6S", "2H", "4D", "9C", "6C"]
    assert T.view(play(s, "6C", ["6S"]))["table"] == ["2H", "4D", "9C"]
    with pytest.raises(AmbiguousMove):
        play(s, "6C")  # laying down is one more choice, so the move must say


def test_A6_an_ace_cannot_be_called_1_to_escape_a_capture():
    """RULES.md 1.10 A6 / P4 non-empty rule: if any value of the card captures, it must capture."""
    got = T.capture_options("AC", ["5C", "6D", "9H", "KS"])
    assert [c.sorted_cards() for c in got] == [["5C", "6D"]]
    s = lay(new(), ["5C", "6D", "9H", "KS"])
    with pytest.raises(IllegalMove) as err:
        play(s, "AC", [])
    assert "P4" in str(err.value)
    assert play(s, "AC").last["taken"] == ["5C", "6D"]


def test_A7_reaching_the_target_exactly_wins():
    """RULES.md 1.10 A7 / 1.6: a side at >= 251 after a deal wins."""
    s = scores_after(238, 200)
    s = tally_ab(s, 27, A10)
    v = T.view(s)
    assert v["scores"] == {"Ann": 251, "Ben": 212}
    assert v["result"] == {"winners": ["Ann"], "losers": ["Ben"], "draw": False}
    s = scores_after(237, 200)
    s = tally_ab(s, 27, A10)
    assert T.view(s)["scores"]["Ann"] == 250 and T.view(s)["result"] is None


def test_A8_level_at_or_above_the_target_is_a_draw():
    """RULES.md 1.10 A8: sides level at or above the target after a deal draw; fixed_deals too."""
    s = scores_after(247, 248)
    s = tally_ab(s, 27, A10)  # 260 - 260
    assert T.view(s)["scores"] == {"Ann": 260, "Ben": 260}
    assert T.view(s)["result"] == {"winners": ["Ann", "Ben"], "losers": [], "draw": True}
    # Both above, not level: the highest wins.
    s = scores_after(247, 240)
    s = tally_ab(s, 27, A10)
    assert T.view(s)["result"]["winners"] == ["Ann"]
    # fixed_deals: an equal total is a draw.
    s = T.start(["Ann", "Ben"], {"fixed_deals": 2})
    s = tally_ab(s, 26, A10)  # 10 - 12
    s = tally_ab(s, 26, [c for c in COUNTERS if c not in A10])  # 12 - 10
    assert T.view(s)["result"] == {"winners": ["Ann", "Ben"], "losers": [], "draw": True}


def test_A8_three_players_level_on_top_draw():
    """RULES.md 1.10 A8 / 1.6: with 3 players the sides level on top draw; the others lose."""
    players = ["Ann", "Ben", "Cat"]
    s = T.start(players, None)  # target 151
    s = T.apply(
        s,
        tally(
            {"Ann": 11, "Ben": 11, "Cat": 30}, {"Cat": COUNTERS}, {"Ann": sweeps_worth(140), "Ben": sweeps_worth(140)}
        ),
    )
    assert T.view(s)["scores"] == {"Ann": 140, "Ben": 140, "Cat": 25}
    ann = ["AS", "AH", "AD", "AC", "KS", "KH", "KD", "KC", "QS", "QH", "2C"]  # 11 points
    ben = [c for c in COUNTERS if c not in ann]  # 11 points
    s = T.apply(s, tally({"Ann": 17, "Ben": 17, "Cat": 18}, {"Ann": ann, "Ben": ben}))
    v = T.view(s)
    assert v["scores"] == {"Ann": 151, "Ben": 151, "Cat": 28}
    assert v["result"] == {"winners": ["Ann", "Ben"], "losers": ["Cat"], "draw": True}


def test_A8_on_tie_play_on():
    """RULES.md 1.9 (Tablić: a tie means another hand), option on_tie."""
    s = T.start(["Ann", "Ben"], {"on_tie": "play_on"})
    s = tally_ab(s, 30, COUNTERS, {"Ann": sweeps_worth(222), "Ben": sweeps_worth(248)})
    s = tally_ab(s, 27, A10)  # 260 - 260
    v = T.view(s)
    assert v["scores"] == {"Ann": 260, "Ben": 260} and v["result"] is None and v["deal"] == 3


@pytest.mark.parametrize(
    ("players", "counts", "most"),
    [
        (("Ann", "Ben", "Cat"), (20, 20, 12), (0, 0, 0)),
        (("Ann", "Ben", "Cat"), (22, 15, 15), (3, 0, 0)),
        (("Ann", "Ben", "Cat", "Dan"), (21, 21, 5, 5), (0, 0, 0, 0)),
        (("Ann", "Ben", "Cat", "Dan"), (10, 13, 13, 16), (0, 0, 0, 3)),
    ],
)
def test_A9_tie_for_most_cards_with_3_or_4_players(players, counts, most):
    """RULES.md 1.10 A9: two or more sides sharing the maximum: nobody gets the 3."""
    s = T.start(list(players), None)
    s = T.apply(s, tally(dict(zip(players, counts)), {players[0]: COUNTERS[:10], players[1]: COUNTERS[10:]}))
    record = s.history[0]
    assert record["most_cards"] == dict(zip(players, most))
    assert sum(record["points"].values()) == 22 + sum(most)


# The last round of A10: Ann's JC (2nd play) clears the table, then Ben lays a card and
# Ann takes it, five times; her last take is the last card of the deal, and sweeps.
A10_LAST_ROUND = ["3D", "JC", "KS", "KH", "QS", "QH", "9S", "9H", "8S", "8H", "7S", "7H"]


def test_A10_a_sweep_with_the_last_card_counts():
    """RULES.md 1.10 A10: a sweep with the very last card of the deal scores."""
    rest = [c for c in ALL if c not in A10_LAST_ROUND]
    random.Random(5).shuffle(rest)
    s = new()
    layout = [c for c in rest if c[0] != "J"][:4]
    s = lay(s, layout)
    for card in [c for c in rest if c not in layout]:
        s = auto(s, card)
    assert T.view(s)["round"] == 4
    s = auto(s, "3D")
    assert s.table, "the JC must find a table to take"
    s = auto(s, "JC")
    assert s.table == []
    ann_sweeps = list(s.sweeps[0])
    for card in A10_LAST_ROUND[2:-1]:
        s = auto(s, card)
    before = T.view(s)
    assert before["table"] == ["7S"] and before["to_act"] == "Ann"
    s = play(s, "7H")
    assert s.last["sweep"] is True and s.last["bonus"] == 14
    assert "leftovers" not in s.last  # nothing is left over
    record = s.history[0]
    assert record["sweeps"]["Ann"] == ann_sweeps + [28, 26, 18, 16, 14]
    assert record["points"]["Ann"] == record["card_points"]["Ann"] + record["most_cards"]["Ann"] + sum(
        record["sweeps"]["Ann"]
    )
    assert T.view(s)["scores"]["Ann"] == record["points"]["Ann"]


def test_A11_ace_ten_scale_keeps_the_most_cards_bonus():
    """RULES.md 1.10 A11 / 1.5 alternative scale: A 11, 10 10, K 4, Q 3, J 2 = 120, plus the 3."""
    s = T.start(["Ann", "Ben"], {"point_scale": "ace_ten"})
    counters = {"Ann": COUNTERS_ACE_TEN[:12], "Ben": COUNTERS_ACE_TEN[12:]}
    s = T.apply(s, tally({"Ann": 30, "Ben": 22}, counters))
    record = s.history[0]
    assert sum(record["card_points"].values()) == 120
    assert record["most_cards"] == {"Ann": 3, "Ben": 0}
    assert sum(record["points"].values()) == 123
    with pytest.raises(InvalidMove):  # the 2C counts nothing on this scale
        T.apply(
            T.start(["Ann", "Ben"], {"point_scale": "ace_ten"}),
            tally({"Ann": 30, "Ben": 22}, {"Ann": COUNTERS_ACE_TEN + ["2C"]}),
        )


@pytest.mark.parametrize("players", [("Ann", "Ben", "Cat"), ("Ann", "Ben", "Cat", "Dan")])
@pytest.mark.parametrize("dealer", [0, 1, -1])
def test_A12_D_plus_1_starts_with_3_or_4_players(players, dealer):
    """RULES.md 1.10 A12: the first player after the dealer in clockwise (play) order starts."""
    s = T.start(list(players), {"dealer": players[dealer]})
    s = lay(s, ["2S", "3S", "4S", "6S"])
    d = players.index(players[dealer])
    assert T.view(s)["to_act"] == players[(d + 1) % len(players)]


def test_A13_default_group_size_is_3():
    """RULES.md 1.10 A13 / P1: sums of 2-3 cards by default; null is unlimited (TB-06, TB-06u)."""
    table = ["2S", "3H", "4D", "5C"]
    assert [c.cards for c in T.capture_options("KC", table)] == [frozenset()]
    assert [c.cards for c in T.capture_options("KC", table, {"max_group_size": None})] == [frozenset(table)]
    assert [c.cards for c in T.capture_options("KC", table, {"max_group_size": 4})] == [frozenset(table)]
    # Four of a rank is a group too: 2+2+2+2 takes with an 8, beside a 3 that stays.
    fours = T.capture_options("8H", ["2S", "2H", "2D", "2C", "3S"], {"max_group_size": None})
    assert [c.groups for c in fours] == [(("2S", "2H", "2D", "2C"),)]
    # max_group_size 2: 2+3+4 no longer makes 9 (TB-05 trails).
    assert [c.cards for c in T.capture_options("9C", ["2S", "3H", "4D"], {"max_group_size": 2})] == [frozenset()]
    assert T.resolve_options(None).max_group_size == 3


def test_A14_played_card_counts_in_the_sweep_bonus():
    """RULES.md 1.10 A14 / P8: TB-04 5 on 2+3 scores 10; K on K 10 4 = 42; Q on 3 10 Q = 39."""
    assert bonus_of("5C", ["2S", "3H"], ["2S", "3H"]) == (True, 10)
    assert bonus_of("KC", ["KS", "10H", "4D"], ["KS", "10H", "4D"]) == (True, 42)
    assert bonus_of("QC", ["3S", "10H", "QD"], ["3S", "10H", "QD"]) == (True, 39)


def test_A15_jack_sweep_is_tablanette_option():
    """RULES.md 1.10 A15 / 1.7 jack_sweep_is_tablanette: off by default; on, a jack sweep scores the non-jack values."""
    assert bonus_of("JC", ["5S", "9H"], ["5S", "9H"]) == (False, 0)  # TB-17
    on = {"jack_sweep_is_tablanette": True}
    assert bonus_of("JC", ["5S", "9H"], ["5S", "9H"], on) == (True, 14)
    assert bonus_of("JC", ["AS", "5H"], ["AS", "5H"], on) == (True, 16)  # the ace 11
    assert bonus_of("JC", ["JS", "5H", "QD"], ["JS", "5H", "QD"], on) == (True, 18)  # the jack 0
    assert bonus_of("JC", ["JS"], ["JS"], on) == (False, 0)  # module docstring: needs a non-jack card
    s = crafted(lay(new(**on), ["2S", "3S", "4S", "6S"]), ["5S", "9H"])
    v = T.view(play(s, "JC"))
    assert v["sweeps"]["Ben"] == [14] and v["scores"]["Ben"] == 14
    # Doubling (Katz) is not offered.
    with pytest.raises(OptionError):
        new(sweep_scoring="double")


def test_A16_partnership_scores_go_to_the_team():
    """RULES.md 1.10 A16: sweeps, cards and card points go to the team; most cards compares teams."""
    players = ["Ann", "Ben", "Cat", "Dan"]
    s = T.start(players, {"partnership": True})
    v = T.view(s)
    assert v["sides"] == [["Ann", "Cat"], ["Ben", "Dan"]]
    assert v["scores"] == {"Ann & Cat": 0, "Ben & Dan": 0}
    assert v["target"] == 251
    s = lay(s, ["KS", "10H", "4D", "5C"])  # Ann deals, Ben plays first
    s = play(s, "5S")  # Ben takes the 5C
    s = play(s, "2D", [])  # Cat trails
    s = play(s, "2H")  # Dan takes the 2D
    assert s.table == ["KS", "10H", "4D"]
    s = play(s, "KC")  # Ann sweeps for her team
    v = T.view(s)
    assert v["sweeps"] == {"Ann & Cat": [42], "Ben & Dan": []}
    assert v["scores"] == {"Ann & Cat": 42, "Ben & Dan": 0}
    assert sorted(v["captured"]["Ben & Dan"]) == sorted(["5C", "5S", "2D", "2H"])
    assert v["last_capturer"] == "Ann"
    s = play(s, "9C", [])  # Ben
    s = play(s, "9D")  # Cat takes for the team: a sweep for Ann & Cat again
    v = T.view(s)
    assert sorted(v["captured"]["Ann & Cat"]) == sorted(["KS", "10H", "4D", "KC", "9C", "9D"])
    assert v["sweeps"] == {"Ann & Cat": [42, 18], "Ben & Dan": []}
    assert v["scores"] == {"Ann & Cat": 60, "Ben & Dan": 0}
    # A tally is by team too.
    t = T.apply(
        T.start(players, {"partnership": True}),
        tally({"Ann & Cat": 30, "Ben & Dan": 22}, {"Ann & Cat": COUNTERS}, {"Ben & Dan": [20]}),
    )
    assert t.history[0]["points"] == {"Ann & Cat": 25, "Ben & Dan": 20}
    with pytest.raises(InvalidMove):
        T.apply(T.start(players, {"partnership": True}), tally({"Ann": 30, "Ben & Dan": 22}, {"Ann": COUNTERS}))
    # A whole deal: two sides, 52 cards, most cards to the team with more.
    s, records = play_deal(T.start(players, {"partnership": True}), shuffled(21))
    record = s.history[0]
    assert set(record["cards"]) == {"Ann & Cat", "Ben & Dan"}
    assert sum(record["cards"].values()) == 52
    piles = piles_from(records, s)
    assert {k: len(p) for k, p in piles.items()} == record["cards"]
    a, b = record["cards"]["Ann & Cat"], record["cards"]["Ben & Dan"]
    assert record["most_cards"] == {"Ann & Cat": 3 * (a > b), "Ben & Dan": 3 * (b > a)}


# ---------------------------------------------------------------------------
# 1.7 Options
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "players", [[], ["Ann"], ["A", "B", "C", "D", "E"], ["Ann", "Ann"], ["Ann", ""], "AB", None, ["Ann", 3]]
)
def test_1_7_players_2_to_4(players):
    """RULES.md 1.7 players: 2, 3 or 4 distinct names."""
    with pytest.raises(OptionError):
        T.start(players, None)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_1_7_players_ok(n):
    """RULES.md 1.7 players and defaults: hand_size 6 (2p) or 4; target 251 (2p) or 151 (3-4p)."""
    s = T.start(["Ann", "Ben", "Cat", "Dan"][:n], None)
    assert s.options.hand_size == (6 if n == 2 else 4)
    assert s.options.target == (251 if n == 2 else 151)
    assert T.view(s)["sides"] == [[p] for p in ["Ann", "Ben", "Cat", "Dan"][:n]]
    assert T.start(["Ann", "Ben", "Cat", "Dan"][:n], {"players": n}).options == s.options
    with pytest.raises(OptionError):
        T.start(["Ann", "Ben", "Cat", "Dan"][:n], {"players": 5 - n if n != 2 else 3})


@pytest.mark.parametrize(
    ("players", "options"),
    [
        (2, {"partnership": True}),
        (3, {"partnership": True}),
        (2, {"partnership": "yes"}),
        (4, {"hand_size": 8}),
        (3, {"hand_size": 5}),
        (2, {"hand_size": 7}),
        (2, {"hand_size": 25}),
        (2, {"hand_size": 0}),
        (2, {"hand_size": "6"}),
        (2, {"max_group_size": 1}),
        (2, {"max_group_size": 0}),
        (2, {"max_group_size": -3}),
        (2, {"max_group_size": "3"}),
        (2, {"max_group_size": 2.5}),
        (2, {"max_group_size": True}),
        (2, {"jack_is_12": 1}),
        (2, {"forced_capture": "no"}),
        (2, {"point_scale": "doubled"}),
        (2, {"most_cards_bonus": "3"}),
        (2, {"target": 0}),
        (2, {"target": "251"}),
        (2, {"fixed_deals": 21}),
        (2, {"fixed_deals": 0}),
        (2, {"fixed_deals": 2.0}),
        (2, {"forced_capture": "all"}),
        (2, {"forced_capture": 1}),
        (2, {"ace_as_one": "yes"}),
        (2, {"most_cards_tie": "half"}),
        (2, {"win_at": "pass"}),
        (2, {"sweep_aces": 11}),
        (2, {"most_cards_bonus": 1.5}),
        (2, {"sweep_scoring": "double"}),
        (2, {"direction": "up"}),
        (2, {"on_tie": "coin"}),
        (2, {"preset": "rummy"}),
        (2, {"maxgroup": 3}),
        (2, {"jack12": True}),
        (2, {"dealer": "Zed"}),
        (2, {"dealer": None}),
        (3, {"dealer": "ann"}),
    ],
)
def test_1_7_bad_options_raise_option_error(players, options):
    """RULES.md 1.7 / DESIGN.md: an unknown option or a bad value raises OptionError (a ValueError)."""
    names = ["Ann", "Ben", "Cat", "Dan"][:players]
    with pytest.raises(OptionError) as err:
        T.start(names, options)
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize("options", [["target"], "target=151", 5, ("a", "b")])
def test_1_7_options_must_be_a_mapping(options):
    """DESIGN.md: bad options raise OptionError, whatever their shape."""
    with pytest.raises(OptionError):
        T.start(["Ann", "Ben"], options)


@pytest.mark.parametrize(
    ("players", "options", "check"),
    [
        (4, {"partnership": True}, lambda o: o.partnership and o.target == 251),
        (2, {"hand_size": 8}, lambda o: o.hand_size == 8),
        (2, {"hand_size": 6}, lambda o: o.hand_size == 6),
        (3, {"hand_size": 4}, lambda o: o.hand_size == 4),
        (2, {"max_group_size": 2}, lambda o: o.max_group_size == 2),
        (2, {"max_group_size": None}, lambda o: o.max_group_size is None),
        (2, {"max_group_size": 12}, lambda o: o.max_group_size == 12),
        (2, {"most_cards_bonus": 0}, lambda o: o.most_cards_bonus == 0),
        (2, {"most_cards_bonus": -2}, lambda o: o.most_cards_bonus == -2),  # "any integer"
        (2, {"fixed_deals": 2}, lambda o: o.fixed_deals == 2),
        (2, {"fixed_deals": 4}, lambda o: o.fixed_deals == 4),
        (2, {"fixed_deals": None}, lambda o: o.fixed_deals is None),
        (3, {"target": 251}, lambda o: o.target == 251),
        (2, {"dealer": "Ben"}, lambda o: True),
        (
            2,
            {},
            lambda o: (
                (
                    o.max_group_size,
                    o.jack_is_12,
                    o.forced_capture,
                    o.point_scale,
                    o.most_cards_bonus,
                    o.target,
                    o.fixed_deals,
                    o.jack_sweep_is_tablanette,
                )
                == (3, False, True, "standard", 3, 251, None, False)
            ),
        ),
    ],
)
def test_1_7_good_options(players, options, check):
    """RULES.md 1.7: the option table's values and defaults."""
    s = T.start(["Ann", "Ben", "Cat", "Dan"][:players], options)
    assert check(s.options)


def test_1_9_tablic_preset():
    """RULES.md 1.9: Tablić = jack 12, optional captures, unlimited groups, 1 a tabla, 101, anticlockwise."""
    o = T.start(["Ann", "Ben"], {"preset": "tablic"}).options
    assert o.jack_is_12 is True and o.forced_capture is False and o.max_group_size is None
    assert o.sweep_scoring == "flat1" and o.target == 101 and o.direction == "anticlockwise"
    # The preset's rules at work: a jack is worth 12, may be laid down, a sweep scores 1.
    got = {(tuple(c.sorted_cards()), c.sweep, c.bonus) for c in T.capture_options("JC", ["JS", "5H", "7D"], o)}
    assert (("5H", "7D", "JS"), True, 1) in got
    assert ((), False, 0) in got
    assert (("JS",), False, 0) in got and (("5H", "7D"), False, 0) in got


@pytest.mark.parametrize(
    ("override", "field", "value"),
    [
        ({"target": 151}, "target", 151),
        ({"forced_capture": True}, "forced_capture", True),
        ({"max_group_size": 3}, "max_group_size", 3),
        ({"sweep_scoring": "values"}, "sweep_scoring", "values"),
        ({"jack_is_12": False}, "jack_is_12", False),
    ],
)
def test_1_9_explicit_options_override_the_preset(override, field, value):
    """RULES.md 1.7 / 1.9: a preset fills in options; explicit options win."""
    o = T.start(["Ann", "Ben"], {"preset": "tablic", **override}).options
    assert getattr(o, field) == value
    assert o.preset == "tablic"
    others = {
        "jack_is_12": True,
        "forced_capture": False,
        "max_group_size": None,
        "sweep_scoring": "flat1",
        "target": 101,
    }
    for name, default in others.items():
        if name != field:
            assert getattr(o, name) == default


# ---------------------------------------------------------------------------
# 1.6 fixed_deals; 1.5 / 1.7 scoring options
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("deals", [2, 4])
def test_1_6_fixed_deals(deals):
    """RULES.md 1.6 house rule: play exactly that many deals; the target is off; highest wins."""
    s = T.start(["Ann", "Ben"], {"fixed_deals": deals, "target": 50})
    for k in range(deals):
        assert T.view(s)["result"] is None and T.view(s)["deal"] == k + 1
        # Ann's sweeps alone go way past the target: the game still goes on.
        s = tally_ab(s, 30, COUNTERS, {"Ann": sweeps_worth(300)})
    v = T.view(s)
    assert v["scores"] == {"Ann": 325 * deals, "Ben": 0}
    assert v["result"] == {"winners": ["Ann"], "losers": ["Ben"], "draw": False}
    assert len(v["history"]) == deals and not any(r["abandoned"] for r in v["history"])


def test_1_6_fixed_deals_no_mid_deal_end():
    """RULES.md 1.6: with fixed_deals the target is switched off, mid-deal ends included."""
    s = crafted(lay(new(fixed_deals=2, target=10), ["2S", "3S", "4S", "6S"]), ["KS", "10H", "4D"])
    s = play(s, "KC")
    v = T.view(s)
    assert v["scores"]["Ben"] == 42 and v["result"] is None and v["expects"] == ["play"]
    # Without fixed_deals the same sweep ends the game.
    s = crafted(lay(new(target=10), ["2S", "3S", "4S", "6S"]), ["KS", "10H", "4D"])
    assert T.view(play(s, "KC"))["result"]["winners"] == ["Ben"]


def test_1_6_fixed_deals_tie_is_a_draw():
    """RULES.md 1.6 / A8: in fixed_deals mode an equal total is a draw."""
    s = T.start(["Ann", "Ben"], {"fixed_deals": 2})
    s = tally_ab(s, 26, A10, {"Ben": [4]})  # 10 - 16
    s = tally_ab(s, 26, [c for c in COUNTERS if c not in A10], {"Ann": [4]})  # 16 - 10
    v = T.view(s)
    assert v["scores"] == {"Ann": 26, "Ben": 26}
    assert v["result"] == {"winners": ["Ann", "Ben"], "losers": [], "draw": True}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_1_5_ace_ten_totals_120_per_deal(seed):
    """RULES.md 1.5 alternative scale: a played deal's card points total 120."""
    s, _ = play_deal(T.start(["Ann", "Ben"], {"point_scale": "ace_ten"}), shuffled(seed))
    record = s.history[0]
    assert sum(record["card_points"].values()) == 120
    without_sweeps = sum(record["points"].values()) - sum(sum(b) for b in record["sweeps"].values())
    assert without_sweeps == 120 + (3 if sum(record["most_cards"].values()) else 0)


@pytest.mark.parametrize("seed", [4, 5])
def test_1_7_most_cards_bonus_0(seed):
    """RULES.md 1.7 most_cards_bonus: 0 disables it; a deal is then worth 22 without sweeps."""
    s, _ = play_deal(T.start(["Ann", "Ben"], {"most_cards_bonus": 0}), shuffled(seed))
    record = s.history[0]
    assert record["most_cards"] == {"Ann": 0, "Ben": 0}
    assert sum(record["points"].values()) - sum(sum(b) for b in record["sweeps"].values()) == 22
    s = T.apply(T.start(["Ann", "Ben"], {"most_cards_bonus": 5}), tally({"Ann": 30, "Ben": 22}, {"Ann": COUNTERS}))
    assert s.history[0]["points"] == {"Ann": 27, "Ben": 0}


def test_1_7_sweep_scoring_flat1():
    """RULES.md 1.9 "tabla" / option sweep_scoring flat1: a sweep scores 1."""
    assert bonus_of("QC", ["QD"], ["QD"], {"sweep_scoring": "flat1"}) == (True, 1)
    assert bonus_of("KC", ["KS", "10H", "4D"], ["KS", "10H", "4D"], {"sweep_scoring": "flat1"}) == (True, 1)
    on = {"sweep_scoring": "flat1", "jack_sweep_is_tablanette": True}
    assert bonus_of("JC", ["5S", "9H"], ["5S", "9H"], on) == (True, 1)
    s = crafted(lay(new(sweep_scoring="flat1"), ["2S", "3S", "4S", "6S"]), ["KS", "10H", "4D"])
    v = T.view(play(s, "KC"))
    assert v["sweeps"]["Ben"] == [1] and v["scores"]["Ben"] == 1
    # A tally under flat1 only takes sweeps worth 1.
    with pytest.raises(IllegalMove):
        T.apply(new(sweep_scoring="flat1"), tally({"Ann": 30, "Ben": 22}, {"Ann": COUNTERS}, {"Ann": [26]}))
    s = T.apply(new(sweep_scoring="flat1"), tally({"Ann": 30, "Ben": 22}, {"Ann": COUNTERS}, {"Ann": [1, 1]}))
    assert s.history[0]["points"] == {"Ann": 27, "Ben": 0}


def test_1_7_jack_is_12():
    """RULES.md 1.3 / 1.7 jack_is_12: the jack is an ordinary card worth 12 (TB-32)."""
    o = {"jack_is_12": True}
    got = T.capture_options("JC", ["JS", "5H", "7D"], o)
    assert [(c.sorted_cards(), c.sweep, c.bonus) for c in got] == [(["5H", "7D", "JS"], True, 36)]
    got = T.capture_options("JC", ["5H", "9D"], o)  # no longer takes everything
    assert [c.cards for c in got] == [frozenset()]
    got = T.capture_options("KC", ["JS", "2H"], o)  # 12 + 2 = 14
    assert [c.sorted_cards() for c in got] == [["2H", "JS"]]
    assert T.capture_options("JC", [], o)[0].cards == frozenset()


# ---------------------------------------------------------------------------
# The tally move (DESIGN.md "Tally moves")
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [8, 9, 10])
def test_tally_scores_like_a_played_deal(seed):
    """DESIGN.md tally / RULES.md 1.5: the same piles and sweeps score the same, tallied or played."""
    played, records = play_deal(new(), shuffled(seed))
    record = played.history[0]
    piles = piles_from(records, played)
    assert {k: len(p) for k, p in piles.items()} == record["cards"]
    counters = {k: [c for c in p if T.card_points([c])] for k, p in piles.items()}
    tallied = T.apply(new(), tally(record["cards"], counters, record["sweeps"]))
    other = tallied.history[0]
    assert other["tallied"] is True and record["tallied"] is False
    for key in ("points", "cards", "card_points", "most_cards", "sweeps", "deal", "dealer"):
        assert other[key] == record[key], key
    assert tallied.scores == played.scores
    assert T.view(tallied)["dealer"] == T.view(played)["dealer"] == "Ben"


BAD_TALLIES = [
    pytest.param(tally({"Ann": 30, "Ben": 20}, {"Ann": COUNTERS}), IllegalMove, id="counts-not-52"),
    pytest.param(tally({"Ann": 30, "Ben": 23}, {"Ann": COUNTERS}), IllegalMove, id="counts-53"),
    pytest.param(tally({"Ann": 30, "Ben": 22}, {"Ann": COUNTERS[1:]}), IllegalMove, id="counter-missing"),
    pytest.param(tally({"Ann": 30, "Ben": 22}, {"Ann": COUNTERS, "Ben": ["AS"]}), IllegalMove, id="counter-twice"),
    pytest.param(tally({"Ann": 30, "Ben": 22}, {"Ann": COUNTERS + ["AS"]}), MoveError, id="counter-twice-one-side"),
    pytest.param(tally({"Ann": 30, "Zed": 22}, {"Ann": COUNTERS}), InvalidMove, id="unknown-side-cards"),
    pytest.param(
        tally({"Ann": 30, "Ben": 22}, {"Ann": COUNTERS[:-1], "Zed": COUNTERS[-1:]}),
        InvalidMove,
        id="unknown-side-counters",
    ),
    pytest.param(
        tally({"Ann": 30, "Ben": 22}, {"Ann": COUNTERS}, {"Zed": [10]}), InvalidMove, id="unknown-side-sweeps"
    ),
    pytest.param(
        tally({"Ann": 52, "Ben": 0}, {"Ann": COUNTERS[:-1], "Ben": COUNTERS[-1:]}),
        IllegalMove,
        id="counters-exceed-cards",
    ),
    pytest.param(
        tally({"Ann": 40, "Ben": 12}, {"Ann": COUNTERS[:8], "Ben": COUNTERS[8:]}),
        IllegalMove,
        id="13-counters-in-12-cards",
    ),
    pytest.param(tally({"Ann": 30, "Ben": 22}, {"Ann": COUNTERS + ["5D"]}), InvalidMove, id="not-a-counting-card"),
    pytest.param(tally({"Ann": 30, "Ben": 22}, {"Ann": COUNTERS[:-1] + ["XX"]}), InvalidMove, id="bad-card"),
    pytest.param(tally({"Ann": 60, "Ben": -8}, {"Ann": COUNTERS}), InvalidMove, id="negative-count"),
    pytest.param(tally({"Ann": 30.0, "Ben": 22}, {"Ann": COUNTERS}), InvalidMove, id="count-not-int"),
    pytest.param(tally({"Ann": 30, "Ben": 22}, {"Ann": COUNTERS}, {"Ann": [0]}), InvalidMove, id="zero-sweep"),
    pytest.param(
        {**tally({"Ann": 30, "Ben": 22}, {"Ann": COUNTERS}), "sweeps": {"Ann": 26}}, InvalidMove, id="sweeps-not-a-list"
    ),
    pytest.param({"type": "tally", "cards": {"Ann": 30, "Ben": 22}}, InvalidMove, id="no-counters"),
    pytest.param({"type": "tally", "counters": {"Ann": COUNTERS}}, InvalidMove, id="no-cards"),
]


@pytest.mark.parametrize(("move", "error"), BAD_TALLIES)
def test_tally_refuses_bad_tallies(move, error):
    """DESIGN.md tally / RULES.md 1.5 invariants: 52 cards, each counting card once, in a pile that can hold it."""
    s = new()
    before = T.dump(s)
    with pytest.raises(error):
        T.apply(s, move)
    assert T.dump(s) == before


def test_tally_only_at_a_deal_boundary():
    """DESIGN.md: one tally per deal, at a deal boundary."""
    s = lay(new(), ["2S", "3S", "4S", "6S"])
    with pytest.raises(IllegalMove):
        T.apply(s, tally({"Ann": 30, "Ben": 22}, {"Ann": COUNTERS}))


def test_tally_sweeps_alone_reaching_the_target_end_the_game():
    """RULES.md 1.6 "During a deal" / module docstring: a tally whose sweeps alone reach the target wins at once."""
    s = scores_after(230, 200)
    # Ben's sweeps (+30) take him to 230 only; Ann's 21 take her to 251: she won then.
    s = tally_ab(s, 27, A10, {"Ann": sweeps_worth(21), "Ben": sweeps_worth(30)})
    v = T.view(s)
    assert v["result"] == {"winners": ["Ann"], "losers": ["Ben"], "draw": False}
    record = v["history"][-1]
    assert record["abandoned"] is True and record["tallied"] is True
    assert record["points"] == {"Ann": 21, "Ben": 30}
    assert v["scores"] == {"Ann": 251, "Ben": 230}
    assert "cards" not in record  # the rest of the deal did not count
    for side in ("Ann", "Ben"):
        assert sum(r["points"][side] for r in v["history"]) == v["scores"][side]


def test_tally_sweeps_of_both_sides_reaching_the_target_score_in_full():
    """Module docstring: if not exactly one side's sweeps reach the target, the deal is scored in full."""
    s = scores_after(230, 230)
    s = tally_ab(s, 27, A10, {"Ann": sweeps_worth(21), "Ben": sweeps_worth(25)})
    v = T.view(s)
    assert v["history"][-1]["abandoned"] is False
    assert v["scores"] == {"Ann": 230 + 21 + 13, "Ben": 230 + 25 + 12}  # 264 - 267
    assert v["result"] == {"winners": ["Ben"], "losers": ["Ann"], "draw": False}


def test_tally_accepts_any_spelling_and_defaults():
    """DESIGN.md: cards in any accepted spelling; sides missing from counters or sweeps have none."""
    counters = [c.lower() for c in COUNTERS if c != "2C"] + ["2♣"]
    s = T.apply(new(), tally({"Ann": 30, "Ben": 22}, {"Ann": counters}))
    assert s.history[0]["points"] == {"Ann": 25, "Ben": 0}


# ---------------------------------------------------------------------------
# Game over, purity, serialisation (DESIGN.md engine contract)
# ---------------------------------------------------------------------------


def finished_game():
    s = scores_after(240, 200)
    s = tally_ab(s, 30, COUNTERS)
    assert s.phase == "over"
    return s


def test_game_over_refuses_further_moves():
    """RULES.md 1.6 / DESIGN.md: once there is a result, no move is accepted."""
    s = finished_game()
    v = T.view(s)
    assert v["result"]["winners"] == ["Ann"] and v["expects"] == [] and v["to_act"] is None
    for move in (
        {"type": "layout", "cards": ["2S", "3S", "4S", "6S"]},
        {"type": "play", "card": "2S"},
        tally({"Ann": 30, "Ben": 22}, {"Ann": COUNTERS}),
    ):
        with pytest.raises(IllegalMove) as err:
            T.apply(s, move)
        assert "over" in str(err.value)


def states_along_a_game():
    s = new()
    yield s
    s = lay(s, ["6S", "2H", "4D", "9C"])
    yield s
    s = play(s, "6C", ["6S", "2H", "4D"])
    yield s
    s, _ = play_deal(s, [c for c in shuffled(2) if c not in seen(s) and c != "6C"])
    yield s
    yield finished_game()
    s = lay(new(), ["7H", "5C", "KS", "9D"], buried=["JH", "JS"])
    yield play(s, "JH")  # with a warning


def test_apply_never_mutates_its_input():
    """DESIGN.md: apply is pure; refused moves change nothing either."""
    moves = [
        {"type": "layout", "cards": ["6S", "2H", "4D", "9C"]},
        {"type": "layout", "cards": ["JS", "2H", "4D", "9C"]},
        {"type": "play", "card": "6C", "capture": ["6S", "2H", "4D"]},
        {"type": "play", "card": "6C", "capture": ["6S"]},
        {"type": "play", "card": "6C"},
        {"type": "play", "card": "JC"},
        {"type": "play", "card": "KD", "capture": []},
        tally({"Ann": 30, "Ben": 22}, {"Ann": COUNTERS}),
        tally({"Ann": 30, "Ben": 22}, {"Ann": COUNTERS}, {"Ann": sweeps_worth(300)}),
        tally({"Ann": 31, "Ben": 22}, {"Ann": COUNTERS}),
    ]
    for state in states_along_a_game():
        for move in moves:
            before_dump = T.dump(state)
            before = copy.deepcopy(state)
            move_copy = copy.deepcopy(move)
            try:
                T.apply(state, move)
            except MoveError:
                pass
            assert T.dump(state) == before_dump
            assert state == before
            assert move == move_copy


def test_dump_load_round_trip_through_json():
    """DESIGN.md: dump -> json -> load round-trips exactly."""
    for state in states_along_a_game():
        data = T.dump(state)
        text = json.dumps(data)
        again = T.load(json.loads(text))
        assert again == state
        assert T.dump(again) == data
        assert T.view(again) == T.view(state)
        assert json.loads(json.dumps(T.view(state))) == T.view(state)
        # The loaded state plays on like the original.
        if state.phase != "over":
            for move in ({"type": "layout", "cards": ["3C", "8H", "QD", "KH"]}, {"type": "play", "card": "2S"}):
                try:
                    a = T.apply(state, move)
                except MoveError as e:
                    with pytest.raises(type(e)):
                        T.apply(again, move)
                else:
                    assert T.apply(again, move) == a


def test_load_refuses_garbage():
    """DESIGN.md: load takes dump's output; anything else is a ValueError."""
    with pytest.raises(ValueError):
        T.load({"nothing": 1})


def test_registry():
    """DESIGN.md engine contract: games.get("tablanette") is this module; unknown games raise OptionError."""
    assert games.get("tablanette") is T
    with pytest.raises(OptionError):
        games.get("chess")


@functools.cache
def most_groups(v: int, jack_is_12: bool, size: int | None, lone_aces: int = 0) -> int:
    """The most groups worth ``v`` each (one card of that value, or 2 to ``size`` cards adding
    up to it, an ace 1 or 11) that a pack makes with one card worth ``v`` set aside (the one
    played), ``lone_aces`` of them an ace on its own: an exhaustive search, the highest card
    left either in a group or not."""
    values = [x for x in (2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14) if x <= v and (x != 12 or jack_is_12)]
    limit = size or 52

    def ace_sums(k):
        return {eleven * 11 + (k - eleven) for eleven in range(k + 1)}

    def groups(cs, aces, need, room, top):  # the rest of a group: values at index <= top, then aces
        if need == 0:
            yield cs, aces
        elif room:
            for k in range(1, min(aces, room) + 1):
                if need in ace_sums(k):
                    yield cs, aces - k
            for i in range(top, -1, -1):
                if cs[i] and values[i] <= need:
                    yield from groups(cs[:i] + (cs[i] - 1,) + cs[i + 1 :], aces, need - values[i], room - 1, i)

    @functools.cache
    def best(cs, aces):
        top = max((i for i, c in enumerate(cs) if c), default=None)
        if top is None:
            return max((1 + best(cs, aces - k) for k in range(1, min(aces, limit) + 1) if v in ace_sums(k)), default=0)
        rest = cs[:top] + (cs[top] - 1,) + cs[top + 1 :]
        if values[top] == v:  # a group of its own, the only group it can be in
            return 1 + best(rest, aces)
        # No more groups than the values left add up to: once that many are made, look no further.
        ceiling = (sum(x * c for x, c in zip(values, cs)) + 11 * aces) // v
        most = 0
        for g in groups(rest, aces, v - values[top], limit - 1, top):
            most = max(most, 1 + best(*g))
            if most == ceiling:
                return most
        return max(most, best(rest, aces))

    return lone_aces + best(tuple(4 - (x == v) for x in values), 4 - (v == 11) - lone_aces)


@pytest.mark.parametrize(("jack_is_12", "size"), [(False, 2), (False, 3), (True, 2), (True, 3)])
def test_1_4_P8_a_sweep_takes_at_most_the_groups_the_pack_makes(jack_is_12, size):
    """RULES.md 1.4 P8: the engine's table of the most groups one sweep takes, by capture
    value, is what the pack makes (the value of each rank: 1.2; max_group_size: 1.7)."""
    expected = {v: most_groups(v, jack_is_12, size) for v in T._MOST_GROUPS[jack_is_12, size == 2]}
    assert T._MOST_GROUPS[jack_is_12, size == 2] == expected
    assert set(expected) == {max(T.VALUES[r]) for r in T.RANKS if r != "J"} | ({12} if jack_is_12 else set())


@pytest.mark.parametrize("jack_is_12", [False, True])
def test_1_4_P8_groups_of_more_than_3_cards_make_no_more_groups(jack_is_12):
    """RULES.md 1.4 P8, 1.7: with no limit on a group's size the pack makes no more groups
    than with 3, so the table keeps one column for 3 or more. (Up to 10, pairs already make
    2v + 1 groups: every card worth v or less, aces as 1, adds up to exactly that many v.)"""
    for v in (11, 12, 13, 14) if jack_is_12 else (11, 13, 14):
        assert most_groups(v, jack_is_12, None) == T._MOST_GROUPS[jack_is_12, False][v]


@pytest.mark.parametrize("sweep_aces", ["eleven", "one", "as_played"])
def test_A1_a_tally_takes_exactly_the_bonuses_an_aces_sweep_scores(sweep_aces):
    """RULES.md 1.4 P8, A1 and its option sweep_aces: a sweep scores its value v once for the
    played card and once for each group. An ace's sweep (v = 11) may take ``j`` aces by rank
    (at most the other 3): but under "eleven", each counts 1, 10 less; under "one" the played
    ace too, when all it took were aces. A tally takes exactly those bonuses."""
    options = {"sweep_aces": sweep_aces}
    size = T.resolve_options(options).max_group_size
    values = {max(T.VALUES[r]) for r in T.RANKS if r != "J"}
    each = {v * (k + 1) for v in values for k in range(1, most_groups(v, False, size) + 1)}
    low = sweep_aces != "eleven"
    aces = {
        11 * (k + 1) - 10 * low * (j + (sweep_aces == "one" and j == k))
        for j in range(4)
        for k in range(max(j, 1), most_groups(11, False, size, j) + 1)
    }
    assert {b for b in range(1, 400) if T.sweep_bonus_refusal(b, options) is None} == each | aces
    # As the sweeps themselves score: the ace of spades on the heart's, on it and 5+6.
    one, both = T.sweep_of("AS", ["AH"], options).bonus, T.sweep_of("AS", ["AH", "5C", "6D"], options).bonus
    assert (one, both) == {"eleven": (22, 33), "one": (2, 23), "as_played": (12, 23)}[sweep_aces]
    assert {one, both} <= each | aces


@pytest.mark.parametrize(
    ("bonus", "options", "ok"),
    [
        (26, {}, True),
        (42, {}, True),
        (4, {}, True),
        (22, {}, True),
        (33, {}, True),
        (23, {}, False),
        (7, {}, False),
        (5, {}, False),
        (0, {}, False),
        (1, {}, False),
        (1, {"sweep_scoring": "flat1"}, True),
        (26, {"sweep_scoring": "flat1"}, False),
        (24, {"jack_is_12": True}, True),  # a jack is an ordinary 12 (1.7): J on J
        # The most a sweep takes: a king and 22 groups of 14 (21 with pairs only), 25 with jacks worth 12.
        (322, {}, True),
        (336, {}, False),
        (322, {"max_group_size": 2}, False),
        (308, {"max_group_size": 2}, True),
        (364, {"jack_is_12": True}, True),
        (378, {"jack_is_12": True}, False),
        (420, {}, False),  # 42 with a 0 too many: 14 x 30 is no sweep
        (220, {}, True),  # an ace and 19 groups of 11
        (231, {}, False),
    ],
)
def test_1_4_P8_which_sweep_bonuses_can_exist(bonus, options, ok):
    """RULES.md 1.4 P8: a sweep scores value x (groups + 1); a tally refuses any other bonus."""
    assert (T.sweep_bonus_refusal(bonus, options) is None) is ok
    move = tally({"Ann": 30, "Ben": 22}, {"Ann": COUNTERS}, {"Ann": [bonus]} if bonus else None)
    if ok or not bonus:
        T.apply(new(**options), move)
    else:
        with pytest.raises(MoveError):
            T.apply(new(**options), move)


@pytest.mark.parametrize(
    ("card", "taken", "bonus"), [("QC", ["QD"], 26), ("KC", ["KS", "10H", "4D"], 42), ("AH", ["AS", "5C", "6D"], 33)]
)
def test_1_4_P8_a_sweep_judged_from_its_cards(card, taken, bonus):
    """RULES.md 1.8 TB-01, TB-09, TB-13: the tally's sweep builder computes the bonus."""
    assert T.sweep_of(card, taken).bonus == bonus


@pytest.mark.parametrize(("card", "taken"), [("KH", ["2S", "3H", "5D", "9C"]), ("JC", ["5S", "9H"])])
def test_1_4_a_sweep_that_cannot_be(card, taken):
    """TB-08 (the 9 can't count twice) and TB-17 (a jack's capture is no sweep)."""
    with pytest.raises(IllegalMove):
        T.sweep_of(card, taken)


# ---------------------------------------------------------------------------
# Refusals as data: a code, the rule cited, the params (DESIGN.md errors)
# ---------------------------------------------------------------------------


def test_1_4_P4_TB10_refusal_code_rule_and_params():
    """RULES.md 1.4 P4 / 1.11: TB-10 declared {6S} alone: every group must be taken."""
    s = lay(new(), ["6S", "2H", "4D", "9C"])
    with pytest.raises(IllegalMove) as err:
        play(s, "6C", ["6S"])
    assert err.value.code == "must_take_every_group" and err.value.rule == "Tablanette P4"
    assert err.value.params == {"group": "2H+4D", "card": "6C", "legal": ["2H 4D 6S"]}
    assert T.explain_refusal("6C", ["6S", "2H", "4D", "9C"], ["6S"]) == err.value.reason


@pytest.mark.parametrize(
    ("table", "card", "capture", "code", "rule"),
    [
        (["6S", "2H", "4D", "9C"], "6C", [], "must_capture", "Tablanette P4"),
        (["2S", "3H", "4D", "5C"], "KC", ["2S", "3H", "4D", "5C"], "not_groups", "Tablanette P1"),
        (["5S", "9H", "QD", "3C"], "JC", ["5S", "9H"], "jack_takes_all", "Tablanette P5"),
        (["KS", "10H", "4D", "5C"], "KC", ["KS", "QH"], "not_on_table", None),
        (["KS", "10H", "4D", "5C"], "KC", ["QH", "QS"], "not_on_table_all", None),
    ],
    ids=["trail", "four-card-sum", "jack-part", "not-on-table", "none-on-table"],
)
def test_1_4_refusal_codes(table, card, capture, code, rule):
    """RULES.md 1.4 P1-P5 / 1.11: each refused capture says which rule, as a code and a citation."""
    with pytest.raises(IllegalMove) as err:
        play(lay(new(), table), card, capture)
    assert (err.value.code, err.value.rule) == (code, rule)
    assert err.value.params["legal"] == [" ".join(o) or "lay it down" for o in err.value.options]


def test_1_4_P1_wrong_sum_params():
    """RULES.md 1.4 P1-P2: the cards claimed, the values the card makes and the group size limit."""
    with pytest.raises(IllegalMove) as err:
        play(lay(new(), ["AS", "2H", "4D", "5C"]), "AC", ["2H", "5C"])
    assert err.value.code == "not_groups" and err.value.rule == "Tablanette P1"
    assert err.value.params | {"legal": None} == {
        "cards": ["2H", "5C"],
        "card": "AC",
        "worth": "1 or 11",
        "size": 3,
        "legal": None,
    }
    assert "(Tablanette P1-P2)" in str(err.value)
    reason = T.explain_refusal("KC", ["2S", "3H", "4D", "5C"], ["2S", "3H"], {"max_group_size": None})
    assert reason.code == "not_groups_any_size" and "2 or more cards adding up" in str(reason)


def test_1_4_P5_table_jack_code():
    """RULES.md 1.4 P5: a table jack is taken only by a played jack."""
    s = crafted(lay(new(), ["2S", "3S", "4S", "6S"]), ["JS", "KH"])
    with pytest.raises(IllegalMove) as err:
        play(s, "KC", ["JS", "KH"])
    assert (err.value.code, err.value.rule) == ("table_jack", "Tablanette P5")


def test_1_4_ambiguous_capture_code():
    """RULES.md 1.4 P4: more than one legal capture, so the move must say which."""
    with pytest.raises(AmbiguousMove) as err:
        play(lay(new(), ["2S", "3H", "5D", "9C"]), "KH")
    assert err.value.code == "say_which"
    assert err.value.params == {"card": "KH", "choices": ["2S 3H 9C", "5D 9C"]}
    assert str(err.value) == "KH can take 2S 3H 9C or 5D 9C: say which."


def test_1_11_seen_card_codes():
    """RULES.md 1.11 "Card uniqueness": a card on the table, or in a pile, is not played again."""
    s = lay(new(), ["KS", "10H", "4D", "5C"])
    with pytest.raises(IllegalMove) as err:
        play(s, "5c")
    assert err.value.code == "card_on_table" and err.value.params == {"card": "5C"}
    with pytest.raises(IllegalMove) as err:
        play(play(s, "KC", ["KS", "10H", "4D"]), "KS")
    assert err.value.code == "already_played" and err.value.params == {"card": "KS"}


def test_TB_L1_layout_jack_code():
    """RULES.md 1.8 TB-L1 / 1.2 step 3: the refusal cites 1.2 and names the jack."""
    with pytest.raises(IllegalMove) as err:
        lay(new(), ["JH", "5C", "JS", "9D"])
    assert (err.value.code, err.value.rule, err.value.params) == ("layout_jack", "Tablanette 1.2", {"card": "JH"})
    assert "(Tablanette 1.2, layout jacks)" in str(err.value)
    with pytest.raises(IllegalMove) as err:
        lay(new(), ["7H", "5C", "KS", "9D"], buried=["2C"])
    assert err.value.code == "buried_not_jack" and err.value.params == {"card": "2C"}


def test_wrong_time_codes():
    """DESIGN.md engine contract: a move that is not expected now says what is."""
    with pytest.raises(IllegalMove) as err:
        T.apply(lay(new(), ["2S", "3S", "4S", "6S"]), tally({"Ann": 30, "Ben": 22}, {"Ann": COUNTERS}))
    assert err.value.code == "deal_under_way" and err.value.params == {"kind": "tally"}
    with pytest.raises(IllegalMove) as err:
        play(new(), "2S")
    assert err.value.code == "deal_not_started" and err.value.params == {"kind": "play"}


def test_1_4_P7_P8_sweep_refusal_codes():
    """RULES.md 1.4 P7 (a jack's capture is no sweep) and P8 (which bonuses exist); 1.5 (one point a tabla)."""
    r = T.sweep_bonus_refusal(23)
    assert (r.code, r.rule, r.params) == ("no_such_sweep", "Tablanette P8", {"bonus": 23})
    assert str(r).startswith("No sweep scores 23: ")
    r = T.sweep_bonus_refusal(26, {"sweep_scoring": "flat1"})
    assert (r.code, r.rule) == ("tabla_scores_one", "Tablanette 1.5")
    assert T.sweep_bonus_refusal(0).code == "bad_sweep_bonus"
    with pytest.raises(IllegalMove) as err:
        T.apply(new(), tally({"Ann": 30, "Ben": 22}, {"Ann": COUNTERS}, {"Ben": [23]}))
    assert err.value.reason == T.sweep_bonus_refusal(23)
    with pytest.raises(IllegalMove) as err:
        T.sweep_of("JC", ["5S", "9H"])
    assert (err.value.code, err.value.rule, err.value.params) == ("jack_no_sweep", "Tablanette P7", {"card": "JC"})
    with pytest.raises(IllegalMove) as err:
        T.sweep_of("KH", ["2S", "3H", "5D", "9C"])  # TB-08
    assert (err.value.code, err.value.rule) == ("not_groups", "Tablanette P1")


@pytest.mark.parametrize(
    ("cards", "counters", "error", "code", "params"),
    [
        ({"Ann": 30, "Ben": 20}, {"Ann": COUNTERS}, IllegalMove, "piles_not_a_pack", {"pack": 52, "total": 50}),
        ({"Ann": 30, "Ben": 22}, {"Ann": COUNTERS[1:]}, IllegalMove, "counter_in_no_pile", None),
        ({"Ann": 30, "Ben": 22}, {"Ann": COUNTERS, "Ben": ["AS", "2C"]}, IllegalMove, "counter_in_two_piles", None),
        ({"Ann": 30, "Ben": 22}, {"Ann": COUNTERS + ["5D"]}, InvalidMove, "not_a_counting_card", {"card": "5D"}),
        ({"Ann": 30, "Ben": 22}, {"Ann": COUNTERS + ["5D", "6H"]}, InvalidMove, "not_counting_cards", None),
        ({"Ann": 52, "Ben": 0}, {"Ann": COUNTERS[:-1], "Ben": COUNTERS[-1:]}, IllegalMove, "too_many_counters", None),
        ({"Ann": 30, "Zed": 22}, {"Ann": COUNTERS}, InvalidMove, "not_a_side", {"side": "Zed", "sides": "Ann, Ben"}),
    ],
    ids=["counts-not-52", "counter-missing", "counter-twice", "not-counting", "not-counting-2", "too-many", "side"],
)
def test_1_5_tally_refusal_codes(cards, counters, error, code, params):
    """RULES.md 1.5 (52 cards, every counting card once, in a pile that can hold it)."""
    with pytest.raises(error) as err:
        T.apply(new(), tally(cards, counters))
    assert err.value.code == code
    if params is not None:
        assert err.value.params == params
    if code == "piles_not_a_pack":
        assert err.value.rule == "Tablanette 1.5"
    if code == "counter_in_no_pile":
        assert err.value.params == {"cards": ["AS"], "total": 22}
    if code == "counter_in_two_piles":
        assert err.value.params == {"cards": ["AS", "2C"]}


@pytest.mark.parametrize(
    ("players", "options", "code", "params"),
    [
        (
            3,
            {"hand_size": 5},
            "hand_size_shares",
            {"option": "hand_size", "players": 3, "sizes": "1, 2, 4, 8, 16"},
        ),
        (
            4,
            {"hand_size": 8},
            "hand_size_shares",
            {"option": "hand_size", "players": 4, "sizes": "1, 2, 3, 4, 6, 12"},
        ),
        (2, {"partnership": True}, "partnership_not_four", {"option": "partnership"}),
        (2, {"max_group_size": 1}, "bad_max_group_size", {"option": "max_group_size", "value": 1}),
        (2, {"target": 0}, "bad_target", {"option": "target", "value": 0}),
        (2, {"target": "251"}, "bad_target", {"option": "target", "value": "251"}),
        (2, {"hand_size": 6.0}, "bad_hand_size", {"option": "hand_size", "value": 6.0}),
        (
            2,
            {"preset": "rummy"},
            "unknown_preset",
            {"option": "preset", "value": "rummy", "known": "tablanette, family, tablic"},
        ),
        (2, {"preset": ["tablic"]}, "unknown_preset", None),
    ],
)
def test_1_7_option_refusal_codes(players, options, code, params):
    """RULES.md 1.7: a bad option names the option at fault."""
    with pytest.raises(OptionError) as err:
        new(["Ann", "Ben", "Cat", "Dan"][:players], **options)
    assert err.value.code == code
    assert err.value.params["option"] == next(iter(options))
    if params is not None:
        assert err.value.params == params


TALLY = {"type": "tally", "cards": {"Ann": 30, "Ben": 22}, "counters": {"Ann": COUNTERS}}


@pytest.mark.parametrize(
    ("changes", "error", "code", "words"),
    [
        (
            {"cards": [30, 22]},
            InvalidMove,
            "tally_fields",
            "A tally needs 'cards' (side -> cards taken) and 'counters' (side -> counting cards)",
        ),
        ({"sweeps": [26]}, InvalidMove, "sweeps_not_mapping", "'sweeps' must map each side to its sweep bonuses"),
        (
            {"cards": {"Ann": 30, "Zed": 22}},
            InvalidMove,
            "not_a_side",
            "'Zed' is not a side in this game; sides are: Ann, Ben",
        ),
        (
            {"cards": {"Ann": 30, "Ben": -1}},
            InvalidMove,
            "bad_cards_taken",
            "Cards taken must be whole numbers of 0 or more",
        ),
        (
            {"cards": {"Ann": 30, "Ben": 21}},
            IllegalMove,
            "piles_not_a_pack",
            "The piles hold 52 cards in all, not 51 (Tablanette 1.5).",
        ),
        (
            {"counters": {"Ann": "AS"}},
            InvalidMove,
            "counters_not_list",
            "Counting cards for Ann must be a list of cards",
        ),
        (
            {"cards": {"Ann": 51, "Ben": 1}, "counters": {"Ann": COUNTERS[2:], "Ben": COUNTERS[:2]}},
            IllegalMove,
            "too_many_counters",
            "Ben took 1 cards, so can't hold 2 counting cards.",
        ),
        ({"counters": {"Ann": [*COUNTERS, "3S"]}}, InvalidMove, "not_a_counting_card", "3S is not a counting card"),
        (
            {"counters": {"Ann": [*COUNTERS, "3S", "4H"]}},
            InvalidMove,
            "not_counting_cards",
            "3S 4H are not counting cards",
        ),
        (
            {"counters": {"Ann": COUNTERS, "Ben": ["AS"]}},
            IllegalMove,
            "counter_in_two_piles",
            "AS can be in only one pile.",
        ),
        (
            {"counters": {"Ann": COUNTERS[1:]}},
            IllegalMove,
            "counter_in_no_pile",
            "Every counting card is in some pile: where is AS? (card points add up to 22)",
        ),
        (
            {"sweeps": {"Ann": [0]}},
            InvalidMove,
            "bad_sweeps",
            "Sweeps for Ann must be a list of bonuses, each a whole number above 0",
        ),
        (
            {"sweeps": {"Ben": [23]}},
            IllegalMove,
            "no_such_sweep",
            "No sweep scores 23: a sweep scores its capture value (2 to 14) once for the played card "
            "and once for each group taken (Tablanette P8).",
        ),
    ],
)
def test_1_5_a_tally_that_cannot_be_is_refused_in_words(changes, error, code, words):
    """RULES.md 1.5 (the tally: 52 cards, every counting card once) and P8: what is wrong, said."""
    with pytest.raises(error) as e:
        T.apply(new(), TALLY | changes)
    assert (e.value.code, str(e.value)) == (code, words)


def test_1_5_the_tally_counts_card_points_on_the_games_scale():
    """RULES.md 1.5: the missing counting card is named with the points of the game's own scale."""
    with pytest.raises(IllegalMove) as e:
        T.apply(new(point_scale="ace_ten"), TALLY | {"counters": {"Ann": COUNTERS_ACE_TEN[1:]}})
    assert str(e.value) == "Every counting card is in some pile: where is AS? (card points add up to 120)"


def test_1_5_a_side_left_out_of_a_tally_took_nothing():
    """RULES.md 1.5: a side the tally leaves out took no card, no counting card and no sweep."""
    s = T.apply(new(), {"type": "tally", "cards": {"Ann": 52}, "counters": {"Ann": COUNTERS}})
    assert T.view(s)["scores"] == {"Ann": 25, "Ben": 0}  # 22 card points and 3 for the most cards


@pytest.mark.parametrize(
    ("bonus", "options", "code", "words"),
    [
        ("x", {}, "bad_sweep_bonus", "A sweep bonus is a whole number above 0, not 'x'."),
        (
            26,
            {"sweep_scoring": "flat1"},
            "tabla_scores_one",
            "With one point a tabla, every sweep is worth 1 (Tablanette 1.5).",
        ),
    ],
)
def test_1_4_P8_a_bonus_refused_says_why(bonus, options, code, words):
    """RULES.md 1.4 P8 and 1.5: a bonus no sweep scores, in words."""
    r = T.sweep_bonus_refusal(bonus, options)
    assert (r.code, str(r), r.params.get("bonus")) == (code, words, bonus if code == "bad_sweep_bonus" else None)


@pytest.mark.parametrize(
    ("state", "kind", "code", "words"),
    [
        (
            "layout",
            "play",
            "deal_not_started",
            "A deal starts with its 4 face-up cards (or a tally of the whole deal), not a card played.",
        ),
        ("play", "layout", "deal_under_way", "The deal is under way: the next move is a card played, not a layout."),
        ("play", "tally", "deal_under_way", "The deal is under way: the next move is a card played, not a tally."),
    ],
)
def test_1_3_a_move_out_of_turn_in_the_deal_says_what_comes_next(state, kind, code, words):
    """RULES.md 1.3: a deal opens with its layout (or is tallied whole); then cards are played."""
    s = new() if state == "layout" else lay(new(), ["2S", "3S", "4S", "6S"])
    move = {"type": kind, "card": "2H", "cards": ["2H", "3H", "4H", "5H"]} | (TALLY if kind == "tally" else {})
    with pytest.raises(IllegalMove) as e:
        T.apply(s, move)
    assert (e.value.code, str(e.value), e.value.params) == (code, words, {"kind": kind})


def test_1_4_P7_a_sweep_for_a_tally_follows_the_games_options():
    """RULES.md 1.4 P7/P8 with jack_is_12: a jack is an ordinary 12 and sweeps; the refusal uses the same rules."""
    options = {"jack_is_12": True}
    assert T.sweep_of("JC", ["5S", "7H"], options).bonus == 24
    assert T.sweep_of("JC", ["5S", "7H"], T.resolve_options(options)).bonus == 24
    with pytest.raises(IllegalMove) as e:
        T.sweep_of("JC", ["5S", "6H"], options)
    assert e.value.code == "not_groups" and "make 12" in str(e.value)
    with pytest.raises(IllegalMove) as e:
        T.sweep_of("JC", ["5S", "9H"])
    assert str(e.value) == "JC takes them all, but a jack's capture is never a sweep (Tablanette P7)."


def test_1_5_TB_F1_a_last_card_that_takes_nothing_stays_with_the_leftovers():
    """RULES.md 1.5 end of deal: the last card, laid down, joins the table cards the last capturer takes."""
    laid = T.capture_options("5S", ["6C", "9H"])[0]
    assert T.leftovers("5S", ["6C", "9H"], laid) == (["5S", "6C", "9H"], False)


def test_1_5_the_statistics_count_each_sides_sweeps_and_its_best():
    """RULES.md 1.5 and P8: a side's deals, points, sweeps and best sweep over the game; none is 0."""
    s = tally_ab(new(), 30, COUNTERS, {"Ann": [26, 42]})  # 22 + 3 + 68
    s = tally_ab(s, 26, A10, {"Ben": [4]})  # 10 - 12 + 4
    figures = T.figures(T.view(s))
    assert {k: v for k, v in figures["Ann"].items() if v} == {"deals": 2, "points": 103, "sweeps": 2, "best_sweep": 42}
    assert {k: v for k, v in figures["Ben"].items() if v} == {"deals": 2, "points": 16, "sweeps": 1, "best_sweep": 4}
    s = tally_ab(new(), 30, COUNTERS)
    assert T.figures(T.view(s))["Ben"]["best_sweep"] == 0


def test_A15_a_jack_sweep_says_how_it_scored():
    """RULES.md 1.10 A15: a jack's sweep, under jack_sweep_is_tablanette, counts the other cards, in words."""
    s = crafted(lay(new(jack_sweep_is_tablanette=True), ["2S", "3S", "4S", "6S"]), ["5S", "9H"])
    last = play(s, "JC").last
    assert (last["groups"], last["sweep"], last["bonus"]) == ([["5S", "9H"]], True, 14)
    assert last["how"]["code"] == "jack_sweep" and last["how"]["params"] == {"card": "JC", "sum": "5 + 9", "bonus": 14}
    (capture,) = T.capture_options("JC", ["5S", "9H"], {"jack_sweep_is_tablanette": True})
    assert str(capture.how) == "JC takes the whole table: 5 + 9 = 14 (the jack counts 0)."
    s = crafted(lay(new(), ["2S", "3S", "4S", "6S"]), ["5S", "9H"])
    last = play(s, "JC").last
    assert (last["groups"], last["sweep"], last["bonus"], last["how"]) == ([["5S", "9H"]], False, 0, None)


@pytest.mark.parametrize(
    ("card", "table", "options", "code", "words"),
    [
        (
            "KD",
            ["10C", "10H", "2C", "2D", "2H", "9D"],
            {},
            "say_which",
            "KD can take 2H 2D 10H, 2H 2D 10C, 2H 2C 10H, 2H 2C 10C, 2D 2C 10H, or 2D 2C 10C: say which.",
        ),
        (
            "KS",
            ["10C", "2C", "2H", "6C", "6D", "6S"],
            {},
            "say_which_of_many",
            "KS can take 7 different sets of cards, such as 2H 2C 10C, 2H 6S 6D, 2H 6S 6C, 2H 6D 6C, 2C 6S 6D, "
            "2C 6S 6C, or another capture: say which.",
        ),
        (
            "KD",
            ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "AH", "2H", "3H", "4H", "5H", "6H", "7H"],
            {"forced_capture": False},
            "say_which_of_more",
            "KD can take more than 256 different sets of cards, such as AS AH 2S 3S 5S 6S 7S 8S 9S, "
            "AS AH 2S 3S 5S 6S 7H 8S 9S, AS AH 2S 3S 5S 6H 7S 8S 9S, AS AH 2S 3S 5S 6H 7H 8S 9S, "
            "AS AH 2S 3S 5H 6S 7S 8S 9S, AS AH 2S 3S 5H 6S 7H 8S 9S, or another capture: say which.",
        ),
    ],
)
def test_1_4_P4_a_card_with_several_captures_asks_which(card, table, options, code, words):
    """RULES.md 1.4 P4: the legal captures named, up to six; past six, how many and six of them."""
    s = crafted(lay(new(**options), ["2S", "3S", "4S", "6S"]), table)
    with pytest.raises(AmbiguousMove) as e:
        play(s, card)
    assert (e.value.code, str(e.value)) == (code, words)


@pytest.mark.parametrize(
    ("card", "table", "taken", "options", "code", "words"),
    [
        (
            "5S",
            ["5C", "9H"],
            ["5C", "5C"],
            {},
            "capture_listed_twice",
            "A card is listed twice in the capture. Legal: 5C.",
        ),
        ("5S", ["5C", "9H"], ["5D"], {}, "not_on_table", "5D is not on the table. Legal: 5C."),
        ("5S", ["5C", "9H"], ["5D", "6D"], {}, "not_on_table_all", "5D 6D are not on the table. Legal: 5C."),
        (
            "KS",
            ["JS", "KH"],
            ["JS", "KH"],
            {},
            "table_jack",
            "A jack on the table can only be taken by a played jack (Tablanette P5). Legal: KH.",
        ),
        (
            "JS",
            ["5C", "9H"],
            ["5C"],
            {},
            "jack_takes_all",
            "A jack takes the whole table when it is not empty (Tablanette P5). Legal: 5C 9H.",
        ),
        (
            "JS",
            ["5C", "7H"],
            ["5C"],
            {"jack_is_12": True},
            "not_groups",
            "5C can't be taken with JS: what is taken must split into groups that each make 12, either a card of the "
            "same rank or 2 to 3 cards adding up, no card counted twice (Tablanette P1-P2). Legal: 5C 7H.",
        ),
        (
            "7C",
            ["7S", "7H", "JD"],  # the jack stays: only a jack takes it (P5)
            ["7S"],
            {},
            "must_take_every_group",
            "Must also take 7H: every group the 7C can take must be taken (Tablanette P4). Legal: 7S 7H.",
        ),
        (
            "5S",
            ["5C", "9H"],
            ["9H"],
            {"forced_capture": False},
            "not_groups",
            "9H can't be taken with 5S: what is taken must split into groups that each make 5, either a card of the "
            "same rank or 2 to 3 cards adding up, no card counted twice (Tablanette P1-P2). Legal: 5C or lay it down.",
        ),
        (
            "5S",
            ["5C", "9H"],
            ["9H"],
            {"max_group_size": None},
            "not_groups_any_size",
            "9H can't be taken with 5S: what is taken must split into groups that each make 5, either a card of the "
            "same rank or 2 or more cards adding up, no card counted twice (Tablanette P1-P2). Legal: 5C.",
        ),
        (
            "KS",
            ["10C", "2C", "2H", "6C", "6D", "6S"],
            [],
            {},
            "must_capture",
            "KS can take cards here, so it cannot just be laid down: a card that can capture must capture "
            "(Tablanette P4). Legal: 2H 2C 10C, 2H 6S 6D, 2H 6S 6C, 2H 6D 6C, 2C 6S 6D, 2C 6S 6C, or another capture.",
        ),
    ],
)
def test_1_4_a_refused_capture_says_why_and_what_is_legal(card, table, taken, options, code, words):
    """RULES.md 1.4 P1-P5: what is wrong with a capture, then the legal ones (six at most) under the game's options."""
    r = T.explain_refusal(card, table, taken, options)
    assert (r.code, str(r)) == (code, words)


def test_1_7_the_dispute_labs_hand_size_is_a_share_of_the_48_cards_for_two():
    """RULES.md 1.2 and 1.7: with no players named (the dispute lab), a hand is 1 to 24 cards."""
    with pytest.raises(OptionError) as e:
        T.resolve_options({"hand_size": 25})
    assert (e.value.code, e.value.option, str(e.value)) == (
        "hand_size_range",
        "hand_size",
        "hand_size must be from 1 to 24",
    )
    assert T.resolve_options({"hand_size": 24}).hand_size == 24
    assert T.resolve_options({"hand_size": 1}).hand_size == 1  # one card each is a deal (RULES.md 1.2)
    with pytest.raises(OptionError) as e:
        T.resolve_options({"hand_size": 0})
    assert e.value.code == "hand_size_range"


def test_1_6_the_labs_verdict_names_winners_losers_and_a_draw():
    """RULES.md 1.6 and TB-F2/TB-F3: the highest at or over 251 wins, level there is a draw; a
    sweep that reaches the target mid-deal wins at once whatever the others hold."""
    assert T.verdict({"A": 251, "B": 251}) == {"winners": ["A", "B"], "losers": [], "draw": True}
    assert T.verdict({"A": 251, "B": 250}) == {"winners": ["A"], "losers": ["B"], "draw": False}
    assert T.verdict({"A": 250, "B": 250}) is None
    assert T.verdict({"A": 251, "B": 251}, on_tie="play_on") is None
    assert T.verdict({"A": 251, "B": 0}, win_at="exceed") is None
    assert T.verdict({"A": 282, "B": 290}, sweeper="A") == {"winners": ["A"], "losers": ["B"], "draw": False}
    assert T.verdict({"A": 250, "B": 290}, sweeper="A") is None


@pytest.mark.parametrize(
    ("args", "option"), [({"win_at": "REACH"}, "win_at"), ({"on_tie": "Draw"}, "on_tie"), ({"target": 0}, "target")]
)
def test_1_6_the_labs_verdict_refuses_rules_that_do_not_exist(args, option):
    """RULES.md 1.6 and its options (win_at: A7; on_tie: A8): a verdict under a rule the game
    does not have is refused, not answered under another (an unknown word read as "reach")."""
    with pytest.raises(OptionError) as err:
        T.verdict({"A": 251, "B": 0}, **args)
    assert err.value.option == option


def test_1_4_a_tap_counts_captures_up_to_its_limit_and_says_whether_that_is_all():
    """RULES.md 1.4 P4 (issue 17): a card with exactly six legal captures lists all six under a
    limit of six, and five, not all, under five."""
    table = ["10C", "10H", "2C", "2D", "2H", "9D"]
    found, complete = T.some_captures("KD", table, limit=6)
    assert (len(found), complete) == (6, True)
    found, complete = T.some_captures("KD", table, limit=5)
    assert (len(found), complete) == (5, False)


def test_1_6_a_new_deal_starts_as_the_first_did():
    """RULES.md 1.6: after a deal the next dealer lays out a fresh deal: no round begun, no card played."""
    fresh = T.dump(new())  # the state is plain data (DESIGN.md)
    after = T.dump(tally_ab(new(), 27, A10))
    for key in ("phase", "round", "played_in_round", "table", "stock", "buried", "piles", "sweeps", "last_capturer"):
        assert after[key] == fresh[key], key
    assert (after["deal"], after["dealer"]) == (2, 1)


def test_1_2_a_buried_jack_played_before_the_last_round_is_flagged():
    """RULES.md 1.2 (layout jacks go under the stock, so come out in the last round): one
    played earlier is warned about, the stock may have been re-cut."""
    s = play(lay(new(), ["2S", "3S", "4S", "6S"], buried=["JD"]), "JD")
    (warning,) = T.view(s)["warnings"]
    assert warning["code"] == "played_a_buried_card"  # the code the page keys its warning on
    assert str(Reason.from_json(warning)) == (
        "JD went under the stock at the layout of deal 1, yet was played in round 1 of 4: was the stock re-cut?"
    )


@pytest.mark.parametrize(
    ("laid", "move", "code", "words"),
    [
        (False, {"type": "layout", "cards": "2S"}, "cards_not_list", "The move needs 'cards': a list of cards"),
        (False, {"type": "layout", "cards": ["2S", "2S", "3S", "4S"]}, "listed_twice", "2S is listed twice"),
        (False, {"type": "layout", "cards": ["2S", "3S", "4S"]}, "layout_size", "The layout is exactly 4 cards, not 3"),
        (
            True,
            {"type": "play", "card": "KC", "capture": "KS"},
            "cards_not_list",
            "The move needs 'capture': a list of cards",
        ),
        (True, {"type": "play", "card": "KC", "capture": ["KS", "KS"]}, "listed_twice", "KS is listed twice"),
        (True, {"type": "play"}, "no_card", "A play needs the 'card' played"),
        (
            True,
            {"type": "play", "card": "5C"},
            "card_on_table",
            "5C is on the table already: each card is played once.",
        ),
    ],
)
def test_a_malformed_layout_or_play_is_refused_in_words(laid, move, code, words):
    """DESIGN.md errors and RULES.md 1.2 (a layout of 4 cards), 1.4 (a card played once): what is wrong, said."""
    s = lay(new(), ["KS", "10H", "4D", "5C"]) if laid else new()
    with pytest.raises(MoveError) as e:
        T.apply(s, move)
    assert (e.value.code, str(e.value)) == (code, words)


def test_the_view_names_its_game_its_deals_and_whole_hands():
    """DESIGN.md view: the game, a game of fixed deals (RULES.md 1.6), and each hand's cards left
    as whole numbers (1.3: six a round; Ben has played one of his)."""
    v = T.view(play(lay(new(fixed_deals=3), ["KS", "10H", "4D", "5C"]), "2S"))
    assert (v["game"], v["fixed_deals"], v["round"], v["rounds"]) == ("tablanette", 3, 1, 4)
    assert v["hands"] == {"Ann": 6, "Ben": 5} and all(type(n) is int for n in v["hands"].values())
    assert T.view(new())["fixed_deals"] is None


def test_the_view_counts_card_points_on_the_games_scale_and_says_the_direction():
    """RULES.md 1.5 (an ace is 1 card point, or 11 on the ace_ten scale) and 1.7's direction of play;
    with partners (A16) the view scores two sides."""
    for options, points, direction in (
        ({}, 2, "clockwise"),
        ({"point_scale": "ace_ten", "direction": "anticlockwise"}, 22, "anticlockwise"),
    ):
        v = T.view(play(lay(new(**options), ["AS", "7H", "4D", "5C"]), "AC", ["AS"]))
        assert (v["card_points"], v["direction"]) == ({"Ann": 0, "Ben": points}, direction)
    v = T.view(T.start(["Ann", "Ben", "Cat", "Dan"], {"partnership": True}))
    assert v["scores"] == {"Ann & Cat": 0, "Ben & Dan": 0}


@pytest.mark.parametrize(
    ("card", "table", "options", "value", "groups", "code", "words"),
    [
        ("QC", ["QD"], {}, 13, [["QD"]], "sweep_one_group", "QC counts 13; QD makes 13: 13 × 2 = 26."),
        (
            "KC",
            ["KS", "10H", "4D"],
            {},
            14,
            [["KS"], ["4D", "10H"]],
            "sweep_groups",
            "KC counts 14; KS and 4D+10H each make 14: 14 × 3 = 42.",
        ),
        ("5C", ["4D", "AH"], {}, 5, [["AH", "4D"]], "sweep_one_group", "5C counts 5; AH+4D makes 5: 5 × 2 = 10."),
        (
            "AH",
            ["AS", "5C", "6D"],
            {"sweep_aces": "one"},
            11,
            [["AS"], ["5C", "6D"]],
            "sweep_aces_low",
            "AH counts 11; AS and 5C+6D make 11 each, but an ace taken by rank counts 1: 23.",
        ),
        (
            "AC",
            ["AS"],
            {"sweep_aces": "one"},
            1,
            [["AS"]],
            "sweep_one_group_ace",
            "AC counts 1 (an ace counts 1 or 11); AS makes 1: 1 × 2 = 2.",
        ),
        ("QC", ["QD"], {"sweep_scoring": "flat1"}, 13, [["QD"]], "flat_tabla", "A tabla scores 1."),
    ],
)
def test_1_4_P8_a_sweep_says_how_its_bonus_was_counted(card, table, options, value, groups, code, words):
    """RULES.md 1.4 P8 (value x (groups + 1), groups in pack order), A1 (sweep_aces) and 1.5 (one point a tabla)."""
    (sweep,) = [c for c in T.capture_options(card, table, options) if c.sweep]
    assert (sweep.value, [list(g) for g in sweep.groups]) == (value, groups)
    assert (sweep.how.code, str(sweep.how)) == (code, words)


def test_1_4_a_capture_that_is_no_sweep_keeps_its_value_and_groups():
    """RULES.md 1.4 P1-P2: 9 takes 4+5 (in pack order) and leaves the 2: no sweep, no bonus, no how."""
    (capture,) = [c for c in T.capture_options("9C", ["5H", "4D", "2S"]) if c.cards]
    assert (capture.value, capture.groups, capture.sweep, capture.bonus, capture.how) == (
        9,
        (("4D", "5H"),),
        False,
        0,
        None,
    )


def test_1_4_the_labs_judge_refuses_a_card_taken_twice_or_not_on_the_table():
    """RULES.md 1.4 P1: a capture takes cards of the table, each once."""
    assert T.judge_capture("5S", ["5C", "9H"], ["5C", "5C"]) is None
    assert T.judge_capture("5S", ["5C", "9H"], ["5D"]) is None
    assert T.judge_capture("5S", ["5C", "9H"], ["5C"]).groups == (("5C",),)


@pytest.mark.parametrize(
    ("options", "code", "option", "words"),
    [
        (
            {"preset": "nope"},
            "unknown_preset",
            "preset",
            "Unknown preset 'nope'; presets are: tablanette, family, tablic",
        ),
        (
            {"max_group_size": 1},
            "bad_max_group_size",
            "max_group_size",
            "max_group_size must be a whole number of 2 or more, or none (not 1)",
        ),
        (
            {"most_cards_bonus": "x"},
            "bad_most_cards_bonus",
            "most_cards_bonus",
            "most_cards_bonus must be a whole number; 0 turns it off (not 'x')",
        ),
        ({"players": 5}, "player_count", "players", "Tablanette is for 2 to 4 players"),
    ],
)
def test_1_7_an_option_refused_names_itself(options, code, option, words):
    """RULES.md 1.7: the option at fault is named (the app marks its field), with why."""
    with pytest.raises(OptionError) as e:
        T.resolve_options(options)
    assert (e.value.code, e.value.option, str(e.value)) == (code, option, words)
