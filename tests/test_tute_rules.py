"""Tute Cabrón rules, one test (or parametrized group) per rule of RULES.md §2.

Each test names its section in its docstring. The TU-xx vectors are in
test_tute_vectors.py; this file pins the ambiguity resolutions B1 to B11, the options
(2.8), what the referee can check at once with known cards (2.11), the tally, and the
engine contract (apply never changes its input, turns, the pack).

Deals are played from real hands: every scripted card is first checked against
``legal_plays`` of the player's true hand, unless the test is about a revoke.
"""

import copy

import pytest

from companion.errors import Reason
from companion.games import IllegalMove, InvalidMove, OptionError
from companion.games import tute as T

NAMES3 = ["P1", "P2", "P3"]
NAMES4 = ["P1", "P2", "P3", "P4"]
NAMES5 = ["P1", "P2", "P3", "P4", "P5"]


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


class Table:
    """A deal with known hands, moved through the engine card by card."""

    def __init__(self, hands, dealer, turned=None, options=None):
        names = list(hands)
        self.hands = {p: list(h) for p, h in hands.items()}
        cards = [c for h in self.hands.values() for c in h]
        assert len(cards) == len(set(cards)) == len(T.pack(len(names)))
        assert {len(h) for h in self.hands.values()} == {T.HAND_SIZE[len(names)]}
        self.turned = turned
        self.state = T.start(names, {"dealer": dealer, **(options or {})})
        if turned is not None:
            assert turned in self.hands[dealer]
            self.state = T.apply(self.state, {"type": "trump", "card": turned})

    @property
    def actor(self):
        return T.view(self.state)["to_act"]

    def legal(self):
        return T.legal_plays(
            self.hands[self.actor], [c for _, c in self.state.trick], self.state.trump, self.state.options
        )

    def play(self, *cards, check=True):
        for card in cards:
            who = self.actor
            assert card in self.hands[who], (who, card)
            if check:
                assert card in self.legal(), (who, card, sorted(self.legal()))
            before = T.dump(self.state)
            new = T.apply(self.state, {"type": "play", "card": card, "player": who})
            assert T.dump(self.state) == before  # apply never changes its input
            self.hands[who].remove(card)
            self.state = new

    def declare(self, suit):
        who = self.actor
        assert f"K{suit}" in self.hands[who] and f"Q{suit}" in self.hands[who]
        before = T.dump(self.state)
        new = T.apply(self.state, {"type": "declare", "suit": suit, "player": who})
        assert T.dump(self.state) == before
        self.state = new

    def lowest(self):
        """The weakest legal card; the turned trump is kept to the end when possible."""
        return min(self.legal(), key=lambda c: (c == self.turned, T.STRENGTH[c[:-1]], "SHDC".index(c[-1])))

    def finish(self):
        """Play the deal out with the weakest legal card each turn; return its history record."""
        deal = self.state.deal
        while self.state.deal == deal and self.state.result is None:
            self.play(self.lowest())
        return self.state.history[-1]

    def refused(self, move, error=IllegalMove, match=None):
        before = T.dump(self.state)
        with pytest.raises(error, match=match) as err:
            T.apply(self.state, move)
        assert T.dump(self.state) == before
        return err.value


def tally(state, points, last, marriages=None, **extra):
    return T.apply(
        state, {"type": "tally", "card_points": points, "last_trick": last, "marriages": marriages or {}, **extra}
    )


#: 4 players, P4 deals and turns 4D (trump D), P1 leads; P2 holds KS QS KD QD.
FOUR = {
    "P1": "AS 3S 7S JS 2C 4C 5H 6H 7D JD".split(),
    "P2": "KS QS KD QD AC 3C 3H 2H 2S 4S".split(),
    "P3": "5S 6S KC QC JC 7C KH AH 4H JH".split(),
    "P4": "AD 3D 2D 5D 6D 4D 5C 6C QH 7H".split(),
}

#: 4 players, P4 deals and turns 4D, its only trump. Trick 1: 7D AD 2D 4D (P2 wins and
#: sings D); trick 2: KH QH KC QC, two in-trick cantes for P2.
CANTES = {
    "P1": "7D QC AS 3S JS 7S AC 3C JC 7C".split(),
    "P2": "AD KH AH 3H 4H 2H 3D KD QD 4S".split(),
    "P3": "QH JH 7H 6H 5H 2D 5D 6D JD 2S".split(),
    "P4": "4D KC KS QS 6S 5S 6C 5C 4C 2C".split(),
}

#: 3 players, P3 deals, P1 leads. Each holds one whole suit but for three clubs, so the
#: only K+Q that can meet in one trick is KC (P1) with QC (P2).
SUITED = {
    "P1": "AH 3H KH QH JH 7H 6H 5H 4H KC 4C 5C".split(),
    "P2": "AD 3D KD QD JD 7D 6D 5D 4D QC 6C 7C".split(),
    "P3": "AS 3S KS QS JS 7S 6S 5S 4S AC 3C JC".split(),
}


# ---------------------------------------------------------------------------
# B1-B3: the follow rules (2.4)
# ---------------------------------------------------------------------------

FOLLOW_CASES = [
    # (what, trick, hand, trump, legal)
    ("must follow suit", ["7S"], ["4S", "AC", "5D"], "D", {"4S"}),
    ("must head when able", ["7S"], ["JS", "4S", "5D"], "D", {"JS"}),
    ("any higher card heads", ["4S"], ["AS", "3S", "2S"], "D", {"AS", "3S"}),
    ("head the best card, not the led one", ["4S", "KS"], ["QS", "3S", "AS"], "D", {"3S", "AS"}),
    ("cannot head: any card of the suit", ["3S"], ["KS", "QS", "AC"], "D", {"KS", "QS"}),
    ("void: must trump", ["7S"], ["AC", "2D"], "D", {"2D"}),
    ("void, trick trumped: must overtrump", ["7S", "5D"], ["6D", "4D", "AC"], "D", {"6D"}),
    ("void in suit and trumps: anything", ["7S"], ["AC", "2H"], "D", {"AC", "2H"}),
    ("trumps led: follow and head", ["5D"], ["6D", "4D", "AS"], "D", {"6D"}),
    ("no trump yet: void means anything", ["7S"], ["AD", "2H"], None, {"AD", "2H"}),
    ("whoever is winning: heading a trick the leader wins", ["JS", "2S"], ["7S", "KS"], "D", {"KS"}),
]


@pytest.mark.parametrize("what,trick,hand,trump,legal", FOLLOW_CASES, ids=[c[0] for c in FOLLOW_CASES])
def test_B1_follow_rules(what, trick, hand, trump, legal):
    """RULES.md 2.10 B1, 2.4: the standard Tute obligations fill the seed's empty list."""
    assert T.legal_plays(hand, trick, trump) == legal


def test_B1_must_head_option():
    """RULES.md 2.4/2.8 must_head=false: plain follow suit, else trump."""
    off = {"must_head": False}
    assert T.legal_plays(["3S", "2S", "AC", "5D"], ["7S"], "D", off) == {"3S", "2S"}  # TU-01 relaxed
    assert T.legal_plays(["AD", "2D", "3S"], ["7D"], "D", off) == {"AD", "2D"}  # TU-07 relaxed
    assert T.legal_plays(["AC", "5D", "2D"], ["7S"], "D", off) == {"5D", "2D"}  # still must trump
    assert T.legal_plays(["AS", "2H"], ["7S"], None, off) == {"AS"}  # still must follow


@pytest.mark.parametrize("undertrump,legal", [(True, {"4D", "2D"}), (False, {"AC", "4D", "2D"})])
def test_B2_undertrump_option(undertrump, legal):
    """RULES.md 2.10 B2 (TU-05): unable to overtrump, a void player must still trump unless
    undertrump_required is false."""
    assert T.legal_plays(["AC", "4D", "2D"], ["7S", "5D"], "D", {"undertrump_required": undertrump}) == legal


@pytest.mark.parametrize("undertrump", [True, False])
def test_B2_overtrump_is_required_either_way(undertrump):
    """RULES.md 2.10 B2, 2.4 (TU-06): the option only frees a player who cannot overtrump."""
    options = {"undertrump_required": undertrump}
    assert T.legal_plays(["3D", "2D", "AC"], ["7S", "5D"], "D", options) == {"3D"}


@pytest.mark.parametrize("undertrump", [True, False])
def test_B2_undertrump_through_the_engine(undertrump):
    """RULES.md 2.10 B2: P3 leads KC, P4 trumps with AD; P1, void in clubs with only 7D and JD,
    discards 6H. A revoke (flagged by the end of the deal) only when undertrump_required."""
    t = Table(FOUR, dealer="P4", turned="4D", options={"undertrump_required": undertrump})
    t.play("2C", "3C", "7C", "5C")  # P2 wins
    t.play("AC", "JC", "6C", "4C")  # P2 wins; P1 and P4 are now void in clubs
    t.play("2H", "AH", "QH", "5H")  # P3 wins
    t.play("KC", "AD")
    assert ("6H" in t.legal()) is not undertrump
    assert t.legal() >= {"7D", "JD"}
    t.play("6H", check=False)
    t.play("QD" if undertrump else "2S")  # P2, void too, obeys the same rule
    h = t.finish()
    flagged = [(r["player"], r["trick"], r["card"]) for r in h["revokes"]]
    assert flagged == ([("P1", 4, "6H")] if undertrump else [])


def test_B3_no_heading_after_the_trick_is_trumped():
    """RULES.md 2.10 B3 (TU-03): once trumped, any card of the led suit will do."""
    assert T.legal_plays(["3S", "2S", "4D"], ["7S", "2D"], "D") == {"3S", "2S"}
    assert T.legal_plays(["AS", "JS"], ["KS", "2D", "QS"], "D") == {"AS", "JS"}


def test_B3_heading_still_applies_when_trumps_are_led():
    """RULES.md 2.4: when trumps are led, L = t, so following means beating the best trump."""
    assert T.legal_plays(["AD", "2D", "3S"], ["7D", "3D"], "D") == {"AD"}  # TU-08


def test_B3_through_the_engine():
    """RULES.md 2.10 B3: P1 follows spades low after P4 trumped; no revoke is flagged."""
    t = Table(FOUR, dealer="P4", turned="4D")
    t.play("2C", "3C", "7C", "5C")  # P2 wins, leads
    t.play("4S", "6S", "2D")  # P4 void in spades trumps
    assert t.legal() == {"AS", "3S", "7S", "JS"}
    t.play("7S")
    assert T.view(t.state)["revokes"] == []


# ---------------------------------------------------------------------------
# B4, B5: deal outcomes (2.6)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "totals,last,losers",
    [
        ({"P1": 101, "P2": 110, "P3": 10, "P4": 9}, "P2", ["P3", "P4"]),
        ({"P1": 20, "P2": 105, "P3": 101, "P4": 4}, "P1", ["P1", "P4"]),
        ({"P1": 101, "P2": 0, "P3": 101, "P4": 8, "P5": 0}, "P3", ["P2", "P4", "P5"]),
    ],
    ids=["4p", "4p-others", "5p"],
)
def test_B4_two_players_over_100_both_win(totals, last, losers):
    """RULES.md 2.10 B4: every player with 101 or more wins; all the others lose."""
    assert T.deal_outcome(totals, last)["losers"] == losers


def test_B4_win_threshold_option():
    """RULES.md 2.8 win_threshold (default 101), 4-5 players."""
    totals = {"P1": 101, "P2": 19, "P3": 10, "P4": 0}
    assert T.deal_outcome(totals, "P1")["losers"] == ["P2", "P3", "P4"]
    assert T.deal_outcome(totals, "P1", {"win_threshold": 120})["losers"] == ["P1"]
    assert T.deal_outcome({"P1": 100, "P2": 20, "P3": 10, "P4": 0}, "P2")["losers"] == ["P1"]
    assert T.deal_outcome(totals, "P1", {"win_threshold": 1})["losers"] == ["P4"]  # the least it may be


def test_B4_through_a_tally():
    """RULES.md 2.10 B4 with marriage points: 101 reached with a cante counts."""
    state = T.start(NAMES4)
    state = tally(state, {"P1": 51, "P2": 61, "P3": 4, "P4": 4}, "P1", {"P1": [40], "P2": [20, 20]})
    assert state.history[-1]["points"] == {"P1": 101, "P2": 101, "P3": 4, "P4": 4}
    assert state.history[-1]["losers"] == ["P3", "P4"]
    assert state.losses == [0, 0, 1, 1]


@pytest.mark.parametrize(
    "option,last,losers",
    [
        (None, "P2", ["P1", "P2", "P3"]),
        ("all_lose", "P2", ["P1", "P2", "P3"]),
        ("last_trick_rule", "P2", ["P2"]),
        ("last_trick_rule", "P3", ["P3"]),
        ("no_loser", "P2", []),
    ],
)
def test_B5_triple_tie(option, last, losers):
    """RULES.md 2.10 B5, 2.6: 70-70-70 with 3 players; option triple_tie."""
    options = {} if option is None else {"triple_tie": option}
    totals = {"P1": 70, "P2": 70, "P3": 70}
    assert T.deal_outcome(totals, last, options)["losers"] == losers
    # Through the engine: 130 + 40 + 20 + 20 = 210 (TU-48).
    state = T.start(NAMES3, options)
    points = {"P1": 30, "P2": 30, "P3": 30}
    points[last] = 60
    others = [p for p in NAMES3 if p != last]
    state = tally(state, points, last, {others[0]: [40], others[1]: [20, 20]})
    assert state.history[-1]["points"] == totals
    assert state.history[-1]["losers"] == losers
    assert state.losses == [1 if p in losers else 0 for p in NAMES3]


@pytest.mark.parametrize(
    ("totals", "losers", "code", "words"),
    [
        ({"P1": 101, "P2": 9, "P3": 10, "P4": 10}, ["P2", "P3", "P4"], "reached_threshold",
         "P1 reached 101: everyone else loses (Tute 2.6)."),
        ({"P1": 50, "P2": 40, "P3": 30, "P4": 10}, ["P1"], "highest_total",
         "P1 has the highest total, 50 (Tute 2.6)."),
        ({"P1": 50, "P2": 50, "P3": 10, "P4": 20}, ["P2"], "tie_last_trick_loses",
         "P1 and P2 tie on 50; P2 took the last trick and loses (Tute 2.6)."),
        ({"P1": 40, "P2": 10, "P3": 50, "P4": 50}, ["P3"], "tie_first_after_last_trick",
         "P3 and P4 tie on 50; P3 is the first of them after P2, who took the last trick (Tute 2.6)."),
    ],
)  # fmt: skip
def test_2_6_four_players_lose_as_the_rules_say_and_are_told_why(totals, losers, code, words):
    """RULES.md 2.6 (4-5 players: reaching 101 wins, else the highest total loses; a tie goes
    to whoever took the last trick, or the first of the tied after them): who loses, and the
    sentence the deal's end shows (P2 took the last trick)."""
    outcome = T.deal_outcome(totals, "P2")
    said = [Reason.from_json(r) for r in outcome["reason"]]
    assert (outcome["losers"], [(r.code, str(r)) for r in said]) == (losers, [(code, words)])


@pytest.mark.parametrize(
    ("totals", "options", "losers", "code", "words"),
    [
        ({"A": 101, "B": 20, "C": 9}, {"over_100_loses": True}, ["A"], "over_100_loses",
         "A passed 100 and loses (3 players: over 100 loses)."),
        ({"A": 101, "B": 102, "C": -73}, {"over_100_loses": True}, ["A", "B"], "over_100_loses",
         "A and B passed 100 and lose (3 players: over 100 loses)."),
        ({"A": 100, "B": 20, "C": 10}, {"over_100_loses": True}, ["B"], "middle_total",
         "B has the middle total, 20 (Tute 2.6, three players)."),
        ({"A": 50, "B": 50, "C": 30}, {}, ["A", "B"], "tie_above", "A and B tie above C: both lose (Tute 2.6)."),
        ({"A": 60, "B": 35, "C": 35}, {}, ["A"], "tie_below", "B and C tie below A, so A loses (Tute 2.6)."),
        ({"A": 30, "B": 40, "C": 60}, {}, ["B"], "middle_total",
         "B has the middle total, 40 (Tute 2.6, three players)."),
        ({"A": 43, "B": 43, "C": 43}, {}, ["A", "B", "C"], "triple_tie_all_lose",
         "All three tie on 43: all lose (Tute 2.6; Three players level)."),
        ({"A": 43, "B": 43, "C": 43}, {"triple_tie": "no_loser"}, [], "triple_tie_no_loser",
         "All three tie on 43: nobody loses (Three players level)."),
        ({"A": 43, "B": 43, "C": 43}, {"triple_tie": "last_trick_rule"}, ["B"], "triple_tie_last_trick_loses",
         "All three tie on 43; B took the last trick and loses (Three players level)."),
    ],
)  # fmt: skip
def test_2_6_three_players_lose_as_the_rules_say_and_are_told_why(totals, options, losers, code, words):
    """RULES.md 2.6 (three players: the middle total loses; a tied pair above both lose, a
    tied pair below spare the third; three level as the table chose) and 2.8 (over 100
    loses, 3 players): who loses and the sentence the deal's end shows (B took the last trick)."""
    outcome = T.deal_outcome(totals, "B", options)
    said = [Reason.from_json(r) for r in outcome["reason"]]
    assert (outcome["losers"], [(r.code, str(r)) for r in said]) == (losers, [(code, words)])


@pytest.mark.parametrize(
    ("left", "known", "code", "words"),
    [
        (1, ["7C"], "cante_no_room_last_known",
         "Ann can't sing S: Ann has only 1 card left, and 7C among them (Tute 2.5)."),
        (1, [], "cante_no_room_last", "Ann can't sing S: Ann has only 1 card left (Tute 2.5)."),
        (3, ["7C", "AC"], "cante_no_room_known",
         "Ann can't sing S: Ann has only 3 cards left, and 7C AC among them (Tute 2.5)."),
        (2, [], "cante_no_room", "Ann can't sing S: Ann has only 2 cards left (Tute 2.5)."),
    ],
)  # fmt: skip
def test_2_5_a_cante_with_no_room_for_its_king_and_queen_says_so(left, known, code, words):
    """RULES.md 2.5 (a cante shows the king and queen in hand): a player with fewer cards left
    than the pair, beside the cards known to be theirs, can't hold it."""
    why = T._no_room("Ann", "S", left, known)
    assert (why.code, str(why), why.rule) == (code, words, "Tute 2.5")


def test_2_5_a_cante_whose_queen_was_turned_up_for_the_dealer_is_refused():
    """RULES.md 2.3 (the dealer takes the turned card into hand) and 2.5 (a cante shows its
    king and queen): P1 dealt and turned QD, so P3, who won the first trick, can't sing D."""
    state = T.apply(T.start(NAMES4), {"type": "trump", "card": "QD"})
    for card in ("2C", "AC", "4C", "5C"):
        state = T.apply(state, {"type": "play", "card": card})
    with pytest.raises(IllegalMove) as err:
        T.apply(state, {"type": "declare", "suit": "D"})
    assert (err.value.code, str(err.value)) == (
        "cante_card_elsewhere",
        "P3 can't sing D: QD is in P1's hand (the turned trump).",
    )


def test_B5_other_3p_ties():
    """RULES.md 2.6: a tied pair below loses nothing (the third loses); a tied pair above both lose."""
    assert T.deal_outcome({"P1": 35, "P2": 60, "P3": 35}, "P1")["losers"] == ["P2"]
    assert T.deal_outcome({"P1": 30, "P2": 50, "P3": 50}, "P1")["losers"] == ["P2", "P3"]


@pytest.mark.parametrize(
    "totals,last,loser",
    [
        ({"P1": 40, "P2": 40, "P3": 40, "P4": 10}, "P4", "P1"),
        ({"P1": 40, "P2": 40, "P3": 40, "P4": 10}, "P1", "P1"),
        ({"P1": 40, "P2": 10, "P3": 40, "P4": 40}, "P2", "P3"),
        ({"P1": 45, "P2": 20, "P3": 20, "P4": 0, "P5": 45}, "P2", "P5"),
    ],
)
def test_2_6_ties_for_highest(totals, last, loser):
    """RULES.md 2.6 step 3: the tied player who took the last trick, else the first tied
    player after the last-trick winner in play order."""
    assert T.deal_outcome(totals, last)["losers"] == [loser]


def test_2_8_no_trick_loses_and_over_100_loses():
    """RULES.md 2.8: ludoteka's extra rules, off by default."""
    totals = {"P1": 60, "P2": 40, "P3": 30, "P4": 0}
    taken = {"P1": 5, "P2": 3, "P3": 2, "P4": 0}
    assert T.deal_outcome(totals, "P1", None, taken)["losers"] == ["P1"]
    outcome = T.deal_outcome(totals, "P1", {"no_trick_loses": True}, taken)
    assert outcome["losers"] == ["P1", "P4"]
    assert [(r["code"], r["params"].get("players")) for r in outcome["reason"]] == [
        ("highest_total", None),
        ("no_trick_loses", ["P4"]),
    ]
    assert str(Reason.from_json(outcome["reason"][1])) == "P4 took no trick and loses too (No trick taken loses)."
    two = T.deal_outcome({"P1": 90, "P2": 40, "P3": 0, "P4": 0}, "P1", {"no_trick_loses": True}, taken | {"P3": 0})
    assert two["losers"] == ["P1", "P3", "P4"]
    assert str(Reason.from_json(two["reason"][1])) == "P3 and P4 took no trick and lose too (No trick taken loses)."
    # A player the trick counts leave out took no trick.
    counted = {p: n for p, n in taken.items() if p != "P4"}
    assert T.deal_outcome(totals, "P1", {"no_trick_loses": True}, counted)["losers"] == ["P1", "P4"]
    three = {"P1": 110, "P2": 40, "P3": 20}
    assert T.deal_outcome(three, "P1")["losers"] == ["P2"]
    assert T.deal_outcome(three, "P1", {"over_100_loses": True})["losers"] == ["P1"]


# ---------------------------------------------------------------------------
# B6, B7, B9: what the totals contain; cantes in one trick
# ---------------------------------------------------------------------------


def cantes_game():
    t = Table(CANTES, dealer="P4", turned="4D")
    t.play("7D", "AD", "2D", "4D")
    assert T.view(t.state)["last_trick"]["winner"] == "P2"
    t.declare("D")
    t.play("KH", "QH", "KC", "QC")
    return t


def test_5_3_a_claim_beaten_by_a_king_shown_in_a_cante():
    """RULES.md 5.3 K3 and 2.5: P2 sang D (KD and QD shown), then led the 3 of trumps; the
    king is now the highest trump out, known to be P2's, so P1 can't claim the rest."""
    t = cantes_game()
    t.play("3D", "5D", "2C", "7S")
    err = t.refused({"type": "claim", "player": "P1"})
    assert (err.code, str(err)) == (
        "claim_beaten",
        "P2 holds KD, the highest trump still out (shown in a cante): it takes a trick, so P1 can't take every "
        "trick left.",
    )


def test_2_4_a_revoke_the_dealers_own_cante_proves():
    """RULES.md 2.4 (follow suit) and 2.5: P1 dealt (turning 4D), won the first trick and sang
    S, so KS is known to be P1's: P1 can't play a club to a spade lead. The proof says how it
    is known: shown in a cante, not turned up (only 4D was)."""
    state = T.apply(T.start(NAMES4), {"type": "trump", "card": "4D"})
    for card in ("2C", "4C", "5C", "AC"):
        state = T.apply(state, {"type": "play", "card": card})
    state = T.apply(state, {"type": "declare", "suit": "S"})
    for card in ("2H", "AH", "4H", "5H", "2S", "3S", "4S"):
        state = T.apply(state, {"type": "play", "card": card})
    with pytest.raises(IllegalMove) as err:
        T.apply(state, {"type": "play", "card": "6C"})
    assert str(err.value) == "P1 must follow suit: P1 holds KS (shown in a cante). Take 6C back (Tute 2.4)."


def test_B7_two_marriages_in_one_trick_both_score():
    """RULES.md 2.10 B7 (TU-25 through the engine): KH QH KC QC gives the KH player 20 + 20."""
    t = cantes_game()
    v = T.view(t.state)
    assert v["last_trick"]["winner"] == "P2"
    assert v["last_trick"]["marriages"] == [{"suit": "H", "points": 20}, {"suit": "C", "points": 20}]
    assert v["cantes"] == {"P1": 0, "P2": 40 + 40, "P3": 0, "P4": 0}


def test_B6_totals_are_cards_last_trick_and_every_marriage():
    """RULES.md 2.10 B6, 2.6: total = card points + 10 for the last trick + declared and
    in-trick cantes; card points add up to 120, and to 130 with the last trick."""
    t = cantes_game()
    h = t.finish()
    assert h["revokes"] == []
    assert sum(h["card_points"].values()) == 120
    assert h["cantes"]["P2"] >= 40 + 20 + 20  # the declared 40 and both in-trick 20s
    for p in NAMES4:
        assert h["points"][p] == h["card_points"][p] + h["cantes"][p] + (10 if p == h["last_trick"] else 0)
    assert sum(h["points"].values()) == 130 + sum(h["cantes"].values())
    assert h["losers"] == T.deal_outcome(h["points"], h["last_trick"])["losers"]


def test_B6_totals_during_the_deal():
    """RULES.md 2.6: the running view counts card points and cantes (the last trick comes at the end)."""
    t = cantes_game()
    v = T.view(t.state)
    assert v["card_points"]["P2"] == 11 + 0 + 0 + 0 + 4 + 3 + 4 + 3
    assert v["points"]["P2"] == v["card_points"]["P2"] + 80


@pytest.mark.parametrize(
    "trick,suit",
    [
        (["KS", "2C", "QS", "3D"], "S"),
        (["QS", "KS", "2C", "3D"], "S"),
        (["2C", "QH", "3D", "KH"], "H"),
        (["QC", "AC", "KC"], "C"),
    ],
)
def test_B9_pair_including_the_led_card_counts(trick, suit):
    """RULES.md 2.10 B9: any two cards of the trick form the pair, the led card included."""
    n = len(trick)
    assert T.marriages(trick, "D", n) == [{"suit": suit, "points": 20}]


def test_B9_through_the_engine():
    """RULES.md 2.10 B9: in CANTES trick 2 the pair KH QH includes the led KH."""
    t = cantes_game()
    assert t.state.tricks[1]["cards"][0] == [1, "KH"]
    assert {"suit": "H", "points": 20} in t.state.tricks[1]["marriages"]


# ---------------------------------------------------------------------------
# B8: the first 3-player cante in the last trick
# ---------------------------------------------------------------------------


def play_suited_deal(options=None):
    t = Table(SUITED, dealer="P3", options=options)
    for i in range(9):  # P1 leads hearts; the others, void, discard (no trump yet)
        t.play(SUITED["P1"][i], SUITED["P2"][i], SUITED["P3"][i])
        assert T.view(t.state)["last_trick"]["winner"] == "P1"
    t.play("4C", "6C", "JC")  # P3 wins
    t.play("3C", "5C", "7C")  # P3 wins
    assert t.state.trump is None
    assert all(not tr["marriages"] for tr in t.state.tricks)
    return t


def test_B8_first_3p_marriage_in_the_last_trick_scores_40():
    """RULES.md 2.10 B8: the first K+Q pair falls in trick 12: +40 to its winner; the trump
    it sets has no effect (the next deal starts without trump)."""
    t = play_suited_deal()
    t.play("AC", "KC", "QC")
    h = t.state.history[-1]
    assert h["deal"] == 1 and h["revokes"] == []
    assert h["card_points"] == {"P1": 90, "P2": 0, "P3": 30}
    assert h["cantes"] == {"P1": 0, "P2": 0, "P3": 40}
    assert h["points"] == {"P1": 90, "P2": 0, "P3": 80}
    assert h["last_trick"] == "P3"
    assert h["losers"] == ["P3"]  # the middle score
    v = T.view(t.state)
    assert v["deal"] == 2 and v["trump"] is None and v["dealer"] == "P1"
    assert v["losses"] == {"P1": 0, "P2": 0, "P3": 1}


# ---------------------------------------------------------------------------
# B10: joint losers at the loss limit
# ---------------------------------------------------------------------------


def test_B10_joint_losers_3p():
    """RULES.md 2.10 B10, 2.7: a tied pair above both lose; at the limit both are joint losers."""
    state = T.start(NAMES3, {"loss_limit": 1})
    state = tally(state, {"P1": 40, "P2": 50, "P3": 30}, "P1")  # 50, 50, 30
    assert state.history[-1]["losers"] == ["P1", "P2"]
    assert state.result == {"winners": ["P3"], "losers": ["P1", "P2"], "draw": False}
    assert T.view(state)["expects"] == []


def test_2_7_game_goes_on_below_the_limit():
    """RULES.md 2.7: the game ends only when some player has L marks (default 6)."""
    state = T.start(NAMES3)
    for _ in range(5):  # 50, 40, 40: the pair tied below, so P1 loses
        state = tally(state, {"P1": 50, "P2": 40, "P3": 30}, "P3")
    assert state.result is None and state.losses == [5, 0, 0]
    state = tally(state, {"P1": 50, "P2": 40, "P3": 30}, "P3")
    assert state.result == {"winners": ["P2", "P3"], "losers": ["P1"], "draw": False}


# ---------------------------------------------------------------------------
# B11: the revoke penalty
# ---------------------------------------------------------------------------


def revoke_deal(options=None):
    """SUITED, but P1 leads 4C and P2 discards 4D while holding clubs (failure to follow).
    The deal is then played out legally."""
    t = Table(SUITED, dealer="P3", options=options)
    t.play("4C")
    assert "4D" not in t.legal()
    t.play("4D", check=False)  # nothing known proves it yet: accepted
    assert T.view(t.state)["revokes"] == []
    t.play("JC")
    proven = None
    while t.state.deal == 1 and t.state.result is None:
        who, card = t.actor, t.lowest()
        t.play(card)
        if proven is None and t.state.deal == 1 and T.view(t.state)["revokes"]:
            proven = (who, card, T.view(t.state)["revokes"])
    assert proven is not None
    who, card, revokes = proven
    # Flagged the moment P2's later club proves it.
    assert who == "P2" and card.endswith("C")
    assert [(r["player"], r["trick"], r["card"], r["duty"], r["proof"]) for r in revokes] == [
        ("P2", 1, "4D", "follow", card)
    ]
    return t


def test_B11_loss_mark_gives_the_offender_one_mark_and_nobody_else():
    """RULES.md 2.10 B11 (default revoke_penalty loss_mark): the revoke replaces the outcome."""
    t = revoke_deal()
    h = t.state.history[-1]
    assert [(r["player"], r["trick"], r["card"]) for r in h["revokes"]] == [("P2", 1, "4D")]
    why = h["revokes"][0]["reason"]  # the record names the rule broken, for its link
    assert (why["code"], why["rule"]) == ("revoke_follow", "Tute 2.4")
    assert h["losers"] == ["P2"]
    assert t.state.losses == [0, 1, 0]
    assert T.view(t.state)["dealer"] == "P1"  # the deal counts: the next dealer deals
    # The deal's record: who dealt it, why P2 lost it, and its last trick for the screen.
    assert h["dealer"] == "P3" and "claimed" not in h  # played out, not claimed
    assert [(r["code"], r["params"]["players"]) for r in h["reason"]] == [("revoke_costs_the_deal", ["P2"])]
    assert (h["last"]["n"], h["last"]["winner"]) == (T.HAND_SIZE[3], h["last_trick"])


def test_B11_loss_mark_can_end_the_game():
    """RULES.md 2.10 B11, 2.7: the revoke's mark counts toward the loss limit."""
    t = revoke_deal({"loss_limit": 1})
    assert t.state.result == {"winners": ["P1", "P3"], "losers": ["P2"], "draw": False}


def test_B11_none_keeps_the_normal_outcome():
    """RULES.md 2.10 B11 revoke_penalty=none: the revoke is only flagged."""
    t = revoke_deal({"revoke_penalty": "none"})
    h = t.state.history[-1]
    assert [(r["player"], r["trick"]) for r in h["revokes"]] == [("P2", 1)]
    normal = T.deal_outcome(h["points"], h["last_trick"], {"players": 3})
    assert h["losers"] == normal["losers"]
    assert h["reason"] == [
        *normal["reason"],
        {
            "code": "revoke_not_penalised",
            "text": "Revokes by %(players)s are not penalised (%(option)s).",
            "params": {"players": ["P2"], "option": T.OPTION_LABELS["revoke_penalty"]},
            "rule": None,
        },
    ]
    normal = normal["losers"]
    assert t.state.losses == [1 if p in normal else 0 for p in NAMES3]


def test_B11_replay_deal_gives_no_marks_and_the_same_dealer_deals_again():
    """RULES.md 2.10 B11 revoke_penalty=replay_deal."""
    t = revoke_deal({"revoke_penalty": "replay_deal"})
    h = t.state.history[-1]
    assert h["losers"] == [] and h["replayed"] is True
    assert [(r["code"], r["params"]["players"]) for r in h["reason"]] == [("revoke_replays_the_deal", ["P2"])]
    assert t.state.losses == [0, 0, 0]
    v = T.view(t.state)
    assert v["dealer"] == "P3" and v["to_act"] == "P1"
    assert v["trick_number"] == 1 and v["trump"] is None and v["revokes"] == []


def test_B11_revoke_4p_flagged_on_its_trick():
    """RULES.md 2.10 B11, 2.11: in FOUR, P3 discards KC on the 2H lead while holding hearts;
    a later heart proves it, and P3 alone takes a loss mark."""
    t = Table(FOUR, dealer="P4", turned="4D")
    t.play("2C", "3C", "7C", "5C")
    t.play("2H")
    t.play("KC", check=False)  # failure to follow: nothing known proves it yet
    t.play("QH", "5H")
    h = t.finish()
    assert [(r["player"], r["trick"], r["card"]) for r in h["revokes"]] == [("P3", 2, "KC")]
    assert h["losers"] == ["P3"]
    assert t.state.losses == [0, 0, 1, 0]


def test_B11_two_offenders_one_mark_each():
    """RULES.md 2.10 B11: each offender takes one mark; nobody else takes one."""
    t = Table(FOUR, dealer="P4", turned="4D")
    t.play("2C")
    t.play("2S", "5S", check=False)  # P2 and P3 both hold clubs
    t.play("5C")
    h = t.finish()
    assert sorted((r["player"], r["trick"]) for r in h["revokes"]) == [("P2", 1), ("P3", 1)]
    assert h["losers"] == ["P2", "P3"]
    assert t.state.losses == [0, 1, 1, 0]


# ---------------------------------------------------------------------------
# 2.8: option validation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"colour": "red"},
        {"loss_limit": 0},
        {"loss_limit": -1},
        {"loss_limit": "6"},
        {"loss_limit": 2.5},
        {"loss_limit": True},
        {"win_threshold": 0},
        {"win_threshold": "101"},
        {"undertrump_required": "yes"},
        {"undertrump_required": 1},
        {"must_head": None},
        {"allow_declarations": "no"},
        {"no_trick_loses": 0},
        {"triple_tie": "random"},
        {"revoke_penalty": "double"},
        {"over_100_loses": True},
        {"players": 3},
        {"players": 6},
        {"dealer": "Zed"},
    ],
    ids=lambda o: repr(o),
)
def test_2_8_bad_options_are_refused(options):
    """RULES.md 2.8: unknown options, bad values and the wrong player count raise OptionError."""
    with pytest.raises(OptionError):
        T.start(NAMES4, options)


@pytest.mark.parametrize(
    "players", [["P1", "P2"], NAMES5 + ["P6"], [], ["P1", "P1", "P2"], ["P1", " ", "P3"], "P1 P2 P3"]
)
def test_2_8_players_are_3_to_5_distinct_names(players):
    """RULES.md 2.8 players: 3, 4 or 5."""
    with pytest.raises(OptionError):
        T.start(players)


@pytest.mark.parametrize("names", [NAMES3, NAMES4, NAMES5])
def test_2_8_defaults(names):
    """RULES.md 2.8 defaults, for 3, 4 and 5 players."""
    o = T.start(names).options
    assert (
        o.loss_limit,
        o.undertrump_required,
        o.must_head,
        o.win_threshold,
        o.triple_tie,
        o.no_trick_loses,
        o.over_100_loses,
        o.allow_declarations,
    ) == (6, True, True, 101, "all_lose", False, False, True)
    assert o.revoke_penalty == "loss_mark"
    assert T.start(names, {"players": len(names)}).options == o


@pytest.mark.parametrize("names", [NAMES4, NAMES5])
def test_2_8_over_100_loses_is_3_player_only(names):
    """RULES.md 2.8 over_100_loses (3p)."""
    with pytest.raises(OptionError, match="3-player"):
        T.start(names, {"over_100_loses": True})
    assert T.start(NAMES3, {"over_100_loses": True}).options.over_100_loses is True


def test_2_8_options_must_be_a_mapping():
    """RULES.md 2.8."""
    with pytest.raises(OptionError):
        T.start(NAMES4, ["loss_limit", 6])
    with pytest.raises(OptionError):
        T.deal_outcome({"P1": 130, "P2": 0}, "P1")


def test_2_8_allow_declarations_off():
    """RULES.md 2.8 allow_declarations=false: no cante may be declared."""
    t = Table(FOUR, dealer="P4", turned="4D", options={"allow_declarations": False})
    t.play("2C", "3C", "7C", "5C")
    assert "declare" not in T.view(t.state)["expects"]
    t.refused({"type": "declare", "suit": "S"}, match="allow_declarations")


def test_2_5_no_declarations_with_3_players():
    """RULES.md 2.5: declared cantes are 4-5 player only."""
    t = Table(SUITED, dealer="P3")
    t.play("AH", "AD", "AS")
    assert T.view(t.state)["expects"] == ["play", "claim"]
    t.refused({"type": "declare", "suit": "H"}, match="3 players")


# ---------------------------------------------------------------------------
# 2.11: immediate refusals with known cards
# ---------------------------------------------------------------------------


def test_2_11_trumps_led_dealer_plays_a_non_trump_while_holding_the_turned_card():
    """RULES.md 2.11: trumps led, the dealer (known to hold 4D) plays a plain card: refused."""
    t = Table(FOUR, dealer="P4", turned="4D")
    t.play("7D", "QD", "5S")
    err = t.refused({"type": "play", "card": "5C", "player": "P4"}, match="4D")
    assert "turned trump" in err.message and "follow suit" in err.message
    t.play("AD")  # a trump is accepted
    assert T.view(t.state)["revokes"] == []


def test_2_11_dealer_void_in_the_led_suit_plays_a_plain_card():
    """RULES.md 2.11: the dealer, void in spades, discards a plain card: refused (must trump)."""
    t = Table(FOUR, dealer="P4", turned="4D")
    t.play("AS", "2S", "5S")
    for card in ("5C", "QH"):
        err = t.refused({"type": "play", "card": card}, match="4D")
        assert "play a trump" in err.message
    t.play("2D")


def test_2_11_the_turned_cards_rank_decides_heading():
    """RULES.md 2.11: the turned card's rank proves a failure to head at once."""
    t = Table(FOUR, dealer="P4", turned="AD")
    t.play("7D", "QD", "5S")
    err = t.refused({"type": "play", "card": "2D"}, match="AD")
    assert "beat" in err.message
    t.play("3D")  # 3D heads QD too: legal, and accepted


def test_2_11_declared_cards_are_known():
    """RULES.md 2.11: a declared pair is known to be in the hand: spades led, P2 (who sang S)
    may not discard a heart; and nobody else may play KS or QS."""
    t = Table(FOUR, dealer="P4", turned="4D")
    t.play("2C", "3C", "7C", "5C")
    t.declare("S")
    t.play("2H", "AH", "QH", "5H")  # P3 wins
    t.play("5S", "2D")  # P3 leads spades; P4 trumps
    t.refused({"type": "play", "card": "KS", "player": "P1"}, match="P2's hand")
    t.play("JS")
    err = t.refused({"type": "play", "card": "3H", "player": "P2"}, match="follow suit")
    assert "shown in a cante" in err.message
    t.play("2S")
    assert T.view(t.state)["revokes"] == []


def test_2_11_a_card_already_played_is_refused():
    """RULES.md 2.11 / 2.3: each card is played once per deal."""
    t = Table(FOUR, dealer="P4", turned="4D")
    t.play("2C", "3C", "7C", "5C")
    t.refused({"type": "play", "card": "3C"}, match="already played in trick 1")
    t.play("2H")
    t.refused({"type": "play", "card": "2H"}, match="already played in trick 2")


def test_2_11_a_card_known_in_another_hand_is_refused():
    """RULES.md 2.3: the turned card is in the dealer's hand; nobody else may play it."""
    t = Table(FOUR, dealer="P4", turned="4D")
    t.refused({"type": "play", "card": "4D", "player": "P1"}, match="turned trump")


def test_2_11_the_dealers_last_card_is_the_turned_card():
    """RULES.md 2.3, 2.11: when the dealer's only card left is the turned one, it must be played."""
    t = Table(FOUR, dealer="P4", turned="4D")
    while not (len(t.state.tricks) == 9 and t.actor == "P4"):
        t.play(t.lowest())
    assert t.hands["P4"] == ["4D"]
    # A card still in a hand that has not played to this trick: unplayed and not known
    # to be anywhere, but the dealer cannot hold it.
    other = next(h[0] for h in t.hands.values() if h and h != ["4D"])
    why = t.refused({"type": "play", "card": other})
    assert why.code == "last_card_known"
    assert str(why) == "P4 has 1 card left and it is known: 4D. Play one of them."
    t.play("4D")


def test_2_11_known_cards_fill_a_hand_after_cantes():
    """RULES.md 2.11: a player whose remaining cards are all shown cantes must play one."""
    t = Table(FOUR, dealer="P4", turned="4D")
    t.play("2C", "3C", "7C", "5C")
    t.declare("D")  # P2 wins trick 1: the 40 first...
    t.play("AC", "JC", "6C", "4C")
    t.declare("S")  # ...and a 20 after trick 2 (TU-30)
    assert T.view(t.state)["known"]["P2"] == ["KD", "QD", "KS", "QS"]
    checked = 0
    while t.state.deal == 1:
        if t.actor == "P2" and len(t.hands["P2"]) == len(t.state.known[1]):
            elsewhere = [c for p, h in t.hands.items() if p not in ("P2", "P4") for c in h]
            left = len(t.hands["P2"])
            for card in elsewhere:
                why = t.refused({"type": "play", "card": card})
                expected = ("cards_left_known", left) if left > 1 else ("last_card_known", None)
                assert (why.code, why.params.get("left")) == expected
                assert "Play one of them" in str(why)
                checked += 1
        t.play(t.lowest())
    assert checked
    assert t.state.history[-1]["revokes"] == []


#: 4 players, P4 deals and turns 4D and holds every trump; P2 keeps KC and P3 QC to the end.
TRUMPS = {
    "P1": "AH 3H KH QH JH 7H 6H 5H 4H 2H".split(),
    "P2": "AS 3S KS QS JS 7S 6S 5S 4S KC".split(),
    "P3": "2S AC 3C QC JC 7C 6C 5C 4C 2C".split(),
    "P4": "AD 3D KD QD JD 7D 6D 5D 4D 2D".split(),
}


def test_2_5_a_cante_must_fit_in_the_hand():
    """RULES.md 2.5 ("a K and Q ... that they still hold"), 2.11: P4 wins tricks 1-9 holding the
    turned 4D; with 2 cards left (4D among them), or 1, P4 cannot show KC and QC."""
    t = Table(TRUMPS, dealer="P4", turned="4D")
    t.play("AH", "AS", "2S", "2D")  # P4, void in hearts, trumps
    for i, trump in enumerate(["AD", "3D", "KD", "QD", "JD", "7D", "6D", "5D"], 2):
        t.play(trump, TRUMPS["P1"][i - 1], TRUMPS["P2"][i - 1], [c for c in TRUMPS["P3"] if c != "QC"][i - 1])
        assert T.view(t.state)["last_trick"]["winner"] == "P4"
        left = 10 - i
        if left == 2:
            assert "C" not in T.declarable(t.state)
            t.refused({"type": "declare", "suit": "C"}, match="only 2 cards left, and 4D among them")
        if i == 7:  # 3 cards left: the engine cannot tell, so a cante in C is still possible
            assert "C" in T.declarable(t.state)
    assert t.hands == {"P1": ["2H"], "P2": ["KC"], "P3": ["QC"], "P4": ["4D"]}
    assert T.declarable(t.state) == []
    t.refused({"type": "declare", "suit": "C"}, match="only 1 card left")
    t.play("4D", "2H", "KC", "QC")  # KC and QC were never P4's: nobody else was stopped
    h = t.state.history[-1]
    assert h["revokes"] == [] and h["cantes"]["P4"] == 20


# ---------------------------------------------------------------------------
# Tally validation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "names,move,match",
    [
        (NAMES4, {"card_points": {"P1": 60, "P2": 30, "P3": 20, "P4": 9}, "last_trick": "P1"}, "add up to 119"),
        (NAMES4, {"card_points": {"P1": 60, "P2": 30, "P3": 20, "P4": 11}, "last_trick": "P1"}, "add up to 121"),
        (
            NAMES4,
            {
                "card_points": {"P1": 60, "P2": 30, "P3": 20, "P4": 10},
                "last_trick": "P1",
                "marriages": {"P1": [40], "P2": [40]},
            },
            "at most one 40",
        ),
        (
            NAMES4,
            {
                "card_points": {"P1": 60, "P2": 30, "P3": 20, "P4": 10},
                "last_trick": "P1",
                "marriages": {"P1": [20, 20], "P2": [20, 20]},
            },
            "three 20s",
        ),
        (NAMES3, {"card_points": {"P1": 60, "P2": 30, "P3": 30}, "last_trick": "P1", "marriages": {"P2": [20]}}, "40"),
        (
            NAMES3,
            {"card_points": {"P1": 60, "P2": 30, "P3": 30}, "last_trick": "P1", "tricks": {"P1": 6, "P2": 3, "P3": 2}},
            "adding up to 12",
        ),
        (
            NAMES3,
            {"card_points": {"P1": 60, "P2": 30, "P3": 30}, "last_trick": "P1", "tricks": {"P1": 0, "P2": 6, "P3": 6}},
            "P1 took no trick",
        ),
        (
            NAMES4,
            {
                "card_points": {"P1": 60, "P2": 30, "P3": 30, "P4": 0},
                "last_trick": "P1",
                "marriages": {"P4": [20]},
                "tricks": {"P1": 4, "P2": 3, "P3": 3, "P4": 0},
            },
            "P4 took no trick",
        ),
    ],
)
def test_tally_validation(names, move, match):
    """RULES.md 2.2 (120 card points), 2.5 (one 40, three 20s; 3p: the 40 comes first):
    a bad tally is refused and nothing changes."""
    state = T.start(names)
    before = T.dump(state)
    with pytest.raises(IllegalMove, match=match):
        T.apply(state, {"type": "tally", **move})
    assert T.dump(state) == before
    assert state.history == [] and set(state.losses) == {0}


ALL_MINE = {"card_points": {"P1": 120, "P2": 0, "P3": 0, "P4": 0}, "last_trick": "P1"}
TRICKS_BY_NAME = "'tricks' maps each player to the number of tricks they took: P1, P2, P3, and P4"


@pytest.mark.parametrize(
    ("move", "code", "words"),
    [
        (
            {"card_points": {"P1": 120, "P2": 0}, "last_trick": "P1"},
            "tally_needs_points",
            "A tally needs 'card_points' for each player: P1, P2, P3, and P4",
        ),
        (
            {"card_points": {"P1": 120, "P2": 0, "P3": 0, "P4": "0"}, "last_trick": "P1"},
            "card_points_range",
            "Card points are whole numbers from 0 to 120",
        ),
        (
            {"card_points": {"P1": 121, "P2": -1, "P3": 0, "P4": 0}, "last_trick": "P1"},
            "card_points_range",
            "Card points are whole numbers from 0 to 120",
        ),
        (
            {"card_points": {"P1": 121, "P2": 0, "P3": 0, "P4": 0}, "last_trick": "P1"},
            "card_points_range",
            "Card points are whole numbers from 0 to 120",
        ),
        (
            {**ALL_MINE, "last_trick": "Zed"},
            "tally_last_trick",
            "'last_trick' must name the player who took the last trick, not 'Zed'",
        ),
        (
            {**ALL_MINE, "marriages": {"P1": [30]}},
            "tally_cantes",
            "P1's cantes must be a list of 20s and 40s",
        ),
        (
            {**ALL_MINE, "marriages": {"Zed": [20]}},
            "tally_marriages",
            "'marriages' maps players to their cantes, e.g. {\"Ann\": [20, 40]}",
        ),
        ({**ALL_MINE, "tricks": {"P1": "10", "P2": 0, "P3": 0, "P4": 0}}, "tally_tricks", TRICKS_BY_NAME),
        ({**ALL_MINE, "tricks": {"P1": 11, "P2": -1, "P3": 0, "P4": 0}}, "tally_tricks", TRICKS_BY_NAME),
        ({**ALL_MINE, "tricks": {"P1": 10, "P2": 0, "P3": 0}}, "tally_tricks", TRICKS_BY_NAME),
        ({**ALL_MINE, "tricks": [10, 0, 0, 0]}, "tally_tricks", TRICKS_BY_NAME),
    ],
)
def test_tally_malformed(move, code, words):
    """DESIGN.md tally: a malformed tally is InvalidMove, says which part is wrong and how,
    and nothing changes."""
    state = T.start(NAMES4)
    before = T.dump(state)
    with pytest.raises(InvalidMove) as err:
        T.apply(state, {"type": "tally", **move})
    assert (err.value.code, err.value.message, err.value.rule) == (code, words, None)
    assert T.dump(state) == before


@pytest.mark.parametrize(
    ("names", "move", "code", "rule"),
    [
        (
            NAMES4,
            {**ALL_MINE, "card_points": {"P1": 60, "P2": 30, "P3": 30, "P4": 30}},
            "card_points_total",
            "Tute 2.2",
        ),
        (NAMES4, {**ALL_MINE, "marriages": {"P1": [40], "P2": [40]}}, "too_many_cantes", "Tute 2.5"),
        (NAMES4, {**ALL_MINE, "marriages": {"P1": [20, 20], "P2": [20, 20]}}, "too_many_cantes", "Tute 2.5"),
        (
            NAMES3,
            {"card_points": {"P1": 60, "P2": 30, "P3": 30}, "last_trick": "P1", "marriages": {"P2": [20]}},
            "first_cante_names_trump",
            "Tute 2.5",
        ),
        (NAMES4, {**ALL_MINE, "tricks": {"P1": 9, "P2": 0, "P3": 0, "P4": 0}}, "tricks_total", None),
        (NAMES4, {**ALL_MINE, "tricks": {"P1": 0, "P2": 10, "P3": 0, "P4": 0}}, "no_trick_no_points", None),
    ],
)
def test_2_2_2_5_a_tally_no_deal_can_give_names_its_rule(names, move, code, rule):
    """RULES.md 2.2 (120 card points), 2.5 (one 40 and three 20s; with 3 players the 40
    first), 2.11 (card points, cantes and the last trick come from tricks won): the code a
    table's app reads and the rule it links."""
    with pytest.raises(IllegalMove) as err:
        T.apply(T.start(names), {"type": "tally", **move})
    assert (err.value.code, err.value.rule) == (code, rule)


def test_2_5_a_tally_holds_every_cante_a_deal_can():
    """RULES.md 2.5: one 40 and three 20s, the most a deal holds, are taken; card points at
    the bounds 0 and 120 too."""
    points = {"P1": 120, "P2": 0, "P3": 0, "P4": 0}
    move = {"type": "tally", "card_points": points, "last_trick": "P2", "marriages": {"P1": [40, 20], "P2": [20, 20]}}
    record = T.apply(T.start(NAMES4), move).history[-1]
    assert record["cantes"] == {"P1": 60, "P2": 40, "P3": 0, "P4": 0}
    assert (record["tallied"], record["tricks"], record["last"]) == (True, None, None)  # no trick counts given


def test_2_5_the_lock_rule_forbids_only_the_40():
    """RULES.md 2.5 (lock rule): a 20 sung while holding the trump pair forbids that 40 for
    the deal; another suit's 20 is still sung."""
    hand = ["KS", "QS", "KH", "QH", "KD", "QD"]
    assert T.cante_check(hand, "H", "D", sung=[("S", 20)]) is None
    assert T.cante_check(hand, "D", "D", sung=[("S", 20)]).code == "lock_rule"


@pytest.mark.parametrize(
    ("options", "turned", "code", "words", "rule"),
    [
        ({}, None, "turned_card_first", "A deal starts with the dealer's turned card (the trump), not a cante.", None),
        (
            {"allow_declarations": False},
            "4D",
            "cantes_off",
            "Declared cantes are off in this game (allow_declarations).",
            None,
        ),
        (
            {},
            "4D",
            "cante_needs_trick",
            "Only the winner of a trick may declare a cante, before the next lead (Tute 2.5).",
            "Tute 2.5",
        ),
        (
            {},
            "4D 2C",
            "cante_mid_trick",
            "A cante is declared before leading the next trick, not during one (Tute 2.5).",
            "Tute 2.5",
        ),
    ],
)
def test_2_5_a_cante_declared_when_none_can_be_says_why(options, turned, code, words, rule):
    """RULES.md 2.3 (the turned card first) and 2.5 (a cante is declared by a trick's winner,
    before the next lead, where the game declares them at all). ``turned``: the turned card,
    then any card played."""
    state = T.start(NAMES4, options)
    for i, card in enumerate((turned or "").split()):
        state = T.apply(state, {"type": "play" if i else "trump", "card": card})
    with pytest.raises(IllegalMove) as err:
        T.apply(state, {"type": "declare", "suit": "S"})
    assert (err.value.code, err.value.message, err.value.rule) == (code, words, rule)


def test_tally_tricks_and_no_trick_loses():
    """RULES.md 2.8 no_trick_loses with a tally's optional trick counts."""
    points = {"P1": 60, "P2": 30, "P3": 30, "P4": 0}
    taken = {"P1": 5, "P2": 3, "P3": 2, "P4": 0}
    state = tally(T.start(NAMES4), points, "P1", tricks=taken)
    assert state.history[-1]["losers"] == ["P1"] and state.history[-1]["tricks"] == taken
    state = tally(T.start(NAMES4, {"no_trick_loses": True}), points, "P1", tricks=taken)
    assert state.history[-1]["losers"] == ["P1", "P4"] and state.losses == [1, 0, 0, 1]


def test_2_6_a_tally_is_the_tables_not_a_turns():
    """RULES.md 2.6: whoever enters a deal's tally, it is taken: P2 is to lead, P3 enters it."""
    move = {"type": "tally", "card_points": {"P1": 60, "P2": 30, "P3": 30}, "last_trick": "P2", "player": "P3"}
    state = T.start(NAMES3)
    assert T.view(state)["to_act"] == "P2"
    assert T.apply(state, move).history[-1]["points"] == {"P1": 60, "P2": 40, "P3": 30}


def test_tally_valid_3p_and_only_before_the_first_card():
    """RULES.md 2.5 (3p: a 40 then 20s), 2.6; a deal is tallied only before its first card."""
    state = T.start(NAMES3)
    state = tally(state, {"P1": 60, "P2": 30, "P3": 30}, "P2", {"P1": [40], "P3": [20]})
    h = state.history[-1]
    assert h["points"] == {"P1": 100, "P2": 40, "P3": 50} and h["losers"] == ["P3"] and h["tallied"] is True
    assert T.view(state)["dealer"] == "P2"
    # The log's words for it: tallied, the deal's points, and who lost it.
    move = {"type": "tally", "card_points": {"P1": 60, "P2": 30, "P3": 30}, "last_trick": "P2"}
    words = T.narrate(state, move)
    assert [w.code for w in words[:2]] == ["tallied", "deal_points"]
    assert words[1].params == {"deal": 1, "scores": {"P1": 100, "P2": 40, "P3": 50}}
    assert words[2:] == [Reason.from_json(r) for r in h["reason"]]
    t = Table(SUITED, dealer="P3")
    t.play("AH")
    t.refused(
        {"type": "tally", "card_points": {"P1": 120, "P2": 0, "P3": 0}, "last_trick": "P1"},
        match="before its first card",
    )


# ---------------------------------------------------------------------------
# The engine contract: apply never mutates; turns; the pack
# ---------------------------------------------------------------------------


def test_apply_never_mutates_its_input():
    """DESIGN.md: apply returns a new state; its input is unchanged, refused moves included."""
    t = Table(CANTES, dealer="P4", turned="4D")
    states = [t.state]
    t.play("7D", "AD", "2D", "4D")
    t.declare("D")
    states.append(t.state)
    t.play("KH", "QH", "KC", "QC")
    states.append(t.state)
    t.finish()
    states.append(t.state)
    for s in states:
        snapshot, deep = T.dump(s), copy.deepcopy(s)
        for move in (
            {"type": "play", "card": "3S"},
            {"type": "declare", "suit": "H"},
            {"type": "tally", "card_points": {p: 30 for p in NAMES4}, "last_trick": "P1"},
            {"type": "trump", "card": "2H"},
            {"type": "play", "card": "8S"},
            {"type": "bogus"},
        ):
            try:
                new = T.apply(s, move)
            except (IllegalMove, InvalidMove):
                pass
            else:
                assert new is not s
            assert T.dump(s) == snapshot and s == deep
        assert T.load(T.dump(s)) == s


def test_out_of_turn_player_is_refused():
    """RULES.md 2.3: D+1 leads; a move naming another player is refused."""
    state = T.start(NAMES4, {"dealer": "P4"})
    with pytest.raises(IllegalMove, match="P4's turn"):
        T.apply(state, {"type": "trump", "card": "4D", "player": "P1"})
    with pytest.raises(IllegalMove, match="turned card"):
        T.apply(state, {"type": "play", "card": "2C"})
    state = T.apply(state, {"type": "trump", "card": "4D", "player": "P4"})
    assert T.view(state)["to_act"] == "P1"
    before = T.dump(state)
    with pytest.raises(IllegalMove, match="P1's turn, not P2's"):
        T.apply(state, {"type": "play", "card": "2C", "player": "P2"})
    with pytest.raises(InvalidMove):
        T.apply(state, {"type": "play", "card": "2C", "player": "Zed"})
    with pytest.raises(IllegalMove, match="already set"):
        T.apply(state, {"type": "trump", "card": "5D"})
    assert T.dump(state) == before
    state = T.apply(state, {"type": "play", "card": "2C", "player": "P1"})
    assert T.view(state)["to_act"] == "P2"


def test_3p_starts_with_no_turned_card():
    """RULES.md 2.3: with 3 players the last card is not turned; D+1 leads at once."""
    state = T.start(NAMES3, {"dealer": "P2"})
    assert T.view(state)["to_act"] == "P3" and state.trump is None
    with pytest.raises(IllegalMove, match="3 players no card is turned"):
        T.apply(state, {"type": "trump", "card": "4D"})


@pytest.mark.parametrize("card", ["2S", "2H", "2D", "2C"])
def test_3p_pack_refuses_the_2s(card):
    """RULES.md 2.2: 36 cards for 3 players, without the 2s."""
    state = T.start(NAMES3)
    with pytest.raises(IllegalMove, match="not in the pack"):
        T.apply(state, {"type": "play", "card": card})
    assert len(T.pack(3)) == 36 and all(c.rank != "2" for c in T.pack(3))


@pytest.mark.parametrize("names", [NAMES3, NAMES4, NAMES5], ids=["3p", "4p", "5p"])
@pytest.mark.parametrize("card", ["8S", "9H", "10D", "8C"])
def test_every_pack_refuses_8_9_10(names, card):
    """RULES.md 2.2: the Tute pack has no 8s, 9s or 10s."""
    state = T.start(names)
    if len(names) >= 4:
        with pytest.raises(IllegalMove, match="not in the pack"):
            T.apply(state, {"type": "trump", "card": card})
        state = T.apply(state, {"type": "trump", "card": "4D"})
    with pytest.raises(IllegalMove, match="not in the pack"):
        T.apply(state, {"type": "play", "card": card})
    assert len(T.pack(len(names))) == (36 if len(names) == 3 else 40)
    assert all(c.rank not in ("8", "9", "10") for c in T.pack(len(names)))


@pytest.mark.parametrize("names", [NAMES3, NAMES4, NAMES5], ids=["3p", "4p", "5p"])
def test_2_2_and_2_3_pack_points_and_hand_sizes(names):
    """RULES.md 2.2: 120 card points in the pack; 2.3: 12, 10 or 8 cards each."""
    n = len(names)
    assert T.card_points(T.pack(n)) == 120
    assert T.HAND_SIZE[n] * n == len(T.pack(n))
    assert T.view(T.start(names))["tricks_per_deal"] == T.HAND_SIZE[n]


def test_2_3_next_dealer_is_D_plus_1():
    """RULES.md 2.3: the next dealer is D+1, and the new dealer's D+1 leads."""
    state = T.start(NAMES5, {"dealer": "P5"})
    assert T.view(state)["dealer"] == "P5"
    state = tally(state, {"P1": 60, "P2": 30, "P3": 30, "P4": 0, "P5": 0}, "P1")
    v = T.view(state)
    assert v["dealer"] == "P1"
    state = T.apply(state, {"type": "trump", "card": "4D"})
    assert T.view(state)["to_act"] == "P2"


# ---------------------------------------------------------------------------
# Refusals as data: a stable code, the rule cited, the params (issue 13)
# ---------------------------------------------------------------------------


def test_2_11_a_take_back_names_its_duty_the_known_card_and_the_rule():
    """RULES.md 2.4, 2.11: the dealer, known to hold the turned 4D, discards on trumps led."""
    t = Table(FOUR, dealer="P4", turned="4D")
    t.play("7D", "QD", "5S")
    err = t.refused({"type": "play", "card": "5C", "player": "P4"})
    assert (err.code, err.rule) == ("must_follow", "Tute 2.4")
    assert err.params == {"player": "P4", "proof": "4D", "known": "the turned trump", "card": "5C"}
    assert str(err.reason) == "P4 must follow suit: P4 holds 4D (the turned trump). Take 5C back (Tute 2.4)."


def test_2_11_known_cards_refusals_are_coded():
    """RULES.md 2.3, 2.11: a card played twice, or known to be in another hand."""
    t = Table(FOUR, dealer="P4", turned="4D")
    err = t.refused({"type": "play", "card": "4D", "player": "P1"})
    assert err.code == "in_another_hand" and err.rule is None
    assert err.params == {"card": "4D", "holder": "P4", "known": "the turned trump", "player": "P1"}
    t.play("2C", "3C", "7C", "5C")
    err = t.refused({"type": "play", "card": "3C"})
    assert (err.code, err.params) == ("already_played", {"card": "3C", "trick": 1})


def test_2_5_cante_refusals_are_coded():
    """RULES.md 2.5: declared cantes are 4-5 player only; one a trick won; each must fit the hand."""
    t = Table(SUITED, dealer="P3")
    t.play("AH", "AD", "AS")
    err = t.refused({"type": "declare", "suit": "H"})
    assert (err.code, err.rule) == ("no_declared_cantes", "Tute 2.5")
    t = Table(TRUMPS, dealer="P4", turned="4D")
    t.play("AH", "AS", "2S", "2D")
    for i, trump in enumerate(["AD", "3D", "KD", "QD", "JD", "7D", "6D", "5D"], 2):
        t.play(trump, TRUMPS["P1"][i - 1], TRUMPS["P2"][i - 1], [c for c in TRUMPS["P3"] if c != "QC"][i - 1])
    err = t.refused({"type": "declare", "suit": "C"})
    assert (err.code, err.rule) == ("cante_no_room_last_known", "Tute 2.5")
    assert err.params == {"player": "P4", "suit": "C", "cards": ["4D"]}


def test_2_5_a_suit_is_sung_once_a_deal():
    """RULES.md 2.5: each suit's cante once a deal: its singer, winning a later trick with
    the king and queen still in hand, is refused it again, and told why."""
    t = Table(TRUMPS, dealer="P4", turned="4D")
    t.play("AH", "AS", "2S", "2D")  # P4 trumps the ace of hearts and sings the 40
    t.declare("D")
    t.play("AD", "3H", "3S", "2C")  # and wins the next trick too
    err = t.refused({"type": "declare", "suit": "D"})
    assert (err.code, err.params) == ("already_sang", {"player": "P4", "suit": "D"})
    assert str(err) == "P4 already sang D this deal."


#: 4 players, P4 deals and turns 4D (trump D): P1 holds KS QS, P3 the trump pair KD QD.
OWN_20 = {
    "P1": "AS KS QS AH 3H 2H 4H 5H AC 3C".split(),
    "P2": "3S JS 7S 6S 5S 7C 6C 5C 4C 2C".split(),
    "P3": "KD QD KH QH JH 7H KC QC JC 4S".split(),
    "P4": "AD 3D JD 7D 6D 5D 4D 2D 6H 2S".split(),
}


def test_2_5_only_the_singers_own_20_locks_the_40():
    """RULES.md 2.5 (lock rule): the 20 that forbids the 40 is one its singer sang. P1 sings
    a 20; P3, who sang nothing, wins the next trick and sings the 40 in trumps."""
    t = Table(OWN_20, dealer="P4", turned="4D")
    t.play("AS", "5S", "4S", "2S")
    t.declare("S")
    t.play("2H", "4C", "7H", "6H")
    t.declare("D")
    assert [(d["seat"], d["suit"], d["points"]) for d in t.state.declarations] == [(0, "S", 20), (2, "D", 40)]


def test_the_view_names_the_trump_who_is_winning_the_trick_and_what_may_be_sung():
    """DESIGN.md's view for Tute (RULES.md 2.3-2.5): the turned card and the trump, the
    trick so far and who is winning it (a trump beats the suit led), and the cantes the
    trick's winner may declare before leading."""
    t = Table(FOUR, dealer="P4", turned="4D")
    t.play("2C", "3C", "7C", "5C")  # P2 wins; no king or queen is known elsewhere yet
    v = T.view(t.state)
    assert (v["game"], v["turned"], v["trump"], v["to_act"]) == ("tute", "4D", "D", "P2")
    assert (v["declarable"], v["loss_limit"], v["best"]) == (["S", "H", "D", "C"], 6, None)
    t.play("4S", "6S", "2D")  # P4, void in spades, trumps
    v = T.view(t.state)
    assert v["trick"] == [["P2", "4S"], ["P3", "6S"], ["P4", "2D"]]
    assert (v["best"], v["declarable"]) == ("P4", [])
    # The closed tricks, for the deal's record, by name and in play order; the pack, for the grid.
    assert v["tricks"] == [
        {
            "n": 1,
            "winner": "P2",
            "points": 10,
            "marriages": [],
            "cards": [["P1", "2C"], ["P2", "3C"], ["P3", "7C"], ["P4", "5C"]],
        }
    ]
    assert v["pack"] == [str(c) for c in T.PACK_40] and len(set(v["pack"])) == 40
    three = T.view(Table(SUITED, dealer="P3").state)["pack"]  # RULES.md 2.2: 3 players, no 2s
    assert len(set(three)) == 36 and not [c for c in three if c.startswith("2")]


def test_2_4_the_labs_why_names_the_duty_and_the_cards_that_meet_it():
    """RULES.md 2.4: why a card may not be played, as data."""
    why = T.why_illegal(["3S", "2S", "AC", "5D"], ["7S"], "D", "2S")
    assert (why.code, why.rule, why.params) == ("must_head_with", "Tute 2.4", {"cards": ["3S"]})
    why = T.why_illegal(["4S", "2S", "AC"], ["7S", "5D"], "D", "AC")
    assert (why.code, why.params) == ("must_follow_with_any", {"cards": ["2S", "4S"]})
    assert str(why) == "must follow suit: 2S 4S do (Tute 2.4)"
    assert T.why_illegal(["4S", "2S", "AC"], ["7S"], "D", "4S") is None


def test_2_5_the_labs_cante_check_is_coded():
    """RULES.md 2.5: both cards in hand; each suit once; the lock rule."""
    why = T.cante_check(["KH", "2H"], "H", "D")
    assert (why.code, why.rule, why.params) == (
        "cante_card_missing",
        "Tute 2.5",
        {"king": "KH", "queen": "QH", "card": "QH"},
    )
    assert str(why) == "Needs both KH and QH in hand; QH is not there (Tute 2.5)."
    assert T.cante_check(["2H"], "H", "D").code == "cante_cards_missing"
    assert T.cante_check(["KS", "QS"], "S", "D", sung=[("S", 20)]).code == "suit_already_sung"
    assert T.cante_check(["KD", "QD"], "D", "D", sung=[("S", 20)]).code == "lock_rule"
    assert T.cante_check(["KD", "QD"], "D", "D", players=3).code == "no_declared_cantes"


def test_2_2_pack_and_tally_refusals_cite_their_rules():
    """RULES.md 2.2 (the pack, 120 card points), 2.5 (one 40 and three 20s a deal)."""
    with pytest.raises(IllegalMove) as err:
        T.apply(T.start(NAMES3), {"type": "play", "card": "2S"})
    assert (err.value.code, err.value.rule) == ("not_in_pack_36", "Tute 2.2")
    assert err.value.params == {"card": "2S", "players": 3}
    with pytest.raises(IllegalMove) as err:  # 4 and 5 players keep the 2s, not the 8s
        T.apply(T.start(NAMES4), {"type": "trump", "card": "8S"})
    assert (err.value.code, err.value.rule, err.value.params) == (
        "not_in_pack_40",
        "Tute 2.2",
        {"card": "8S", "players": 4},
    )
    with pytest.raises(IllegalMove) as err:
        tally(T.start(NAMES4), {"P1": 60, "P2": 30, "P3": 30, "P4": 30}, "P1")
    assert (err.value.code, err.value.rule, err.value.params) == ("card_points_total", "Tute 2.2", {"total": 150})
    with pytest.raises(IllegalMove) as err:
        tally(T.start(NAMES4), {"P1": 60, "P2": 30, "P3": 30, "P4": 0}, "P1", {"P1": [40], "P2": [40]})
    assert (err.value.code, err.value.rule) == ("too_many_cantes", "Tute 2.5")


def test_2_8_option_refusals_name_their_option():
    """RULES.md 2.8: the option at fault is named, so the app can mark its field."""
    with pytest.raises(OptionError) as err:
        T.start(NAMES4, {"loss_limit": 0})
    assert err.value.code == "not_whole_number"
    assert err.value.params == {"option": "loss_limit", "least": 1, "value": 0}
    with pytest.raises(OptionError) as err:
        T.start(NAMES4, {"over_100_loses": True})
    assert (err.value.code, err.value.params) == ("three_player_rule", {"option": "over_100_loses"})


def test_wrong_time_refusals_are_coded():
    """RULES.md 2.3, 2.5: the turned card first (4-5 players), none with 3; a tally only before the first card."""
    state = T.start(NAMES4)
    with pytest.raises(IllegalMove) as err:
        T.apply(state, {"type": "play", "card": "2C"})
    assert (err.value.code, err.value.params) == ("turned_card_first", {"kind": "play"})
    assert str(err.value) == "A deal starts with the dealer's turned card (the trump), not a card played."
    with pytest.raises(IllegalMove) as err:
        T.apply(T.start(NAMES3), {"type": "trump", "card": "4D"})
    assert (err.value.code, err.value.rule) == ("no_turned_card", "Tute 2.5")
    state = T.apply(state, {"type": "trump", "card": "4D"})
    state = T.apply(state, {"type": "play", "card": "2C"})
    with pytest.raises(IllegalMove) as err:
        tally(state, {"P1": 120, "P2": 0, "P3": 0, "P4": 0}, "P1")
    assert err.value.code == "tally_too_late" and err.value.rule is None


@pytest.mark.parametrize(
    ("hand", "trick", "card", "code", "words"),
    [
        ("3S 2S AC 5D", "7S", "2S", "must_head_with", "must beat the best card of the suit led: 3S does (Tute 2.4)"),
        ("3S KS 2S", "7S", "2S", "must_head_with_any", "must beat the best card of the suit led: 3S KS do (Tute 2.4)"),
        ("AC 5D 2C", "7S", "AC", "must_trump_with", "must play a trump when out of the suit led: 5D does (Tute 2.4)"),
        (
            "AC 5D 6D",
            "7S",
            "AC",
            "must_trump_with_any",
            "must play a trump when out of the suit led: 5D 6D do (Tute 2.4)",
        ),
        (
            "2D 6D AC",
            "7S 5D",
            "2D",
            "must_overtrump_with",
            "must beat the trump already in the trick: 6D does (Tute 2.4)",
        ),
        (
            "2D 6D 7D AC",
            "7S 5D",
            "2D",
            "must_overtrump_with_any",
            "must beat the trump already in the trick: 6D 7D do (Tute 2.4)",
        ),
        ("4S AC", "7S", "AC", "must_follow_with", "must follow suit: 4S does (Tute 2.4)"),
        ("4S 2S AC", "7S 5D", "AC", "must_follow_with_any", "must follow suit: 2S 4S do (Tute 2.4)"),
    ],
)
def test_2_4_the_labs_why_says_each_duty_and_the_cards_that_meet_it(hand, trick, card, code, words):
    """RULES.md 2.4 (trumps D): follow, beat the best card led, trump, overtrump; one card that meets it, or several."""
    why = T.why_illegal(hand.split(), trick.split(), "D", card)
    assert (why.code, str(why)) == (code, words)


def test_2_3_5_3_moves_at_the_wrong_moment_say_what_is_missing():
    """RULES.md 2.3 (one turned card a deal) and 5.3 (a claim names its player, between tricks)."""
    t = Table(FOUR, dealer="P4", turned="4D")
    err = t.refused({"type": "play"}, InvalidMove)
    assert (err.code, str(err)) == ("needs_card", "The move needs a 'card'")
    err = t.refused({"type": "claim", "player": "Zed"}, InvalidMove)
    assert (err.code, str(err)) == ("claim_who", "A claim names the player who takes every trick left ('player').")
    err = t.refused({"type": "trump", "card": "4D"})
    assert (err.code, str(err)) == ("trump_already_set", "The trump is already set for this deal.")
    t.play("2C")
    err = t.refused({"type": "claim", "player": "P4"})
    assert (err.code, str(err)) == ("claim_mid_trick", "Finish trick 1 first: a claim takes the tricks not begun yet.")
    t.play("3C", "7C", "5C")  # P2 wins and may sing
    for blank in ({}, {"suit": ""}, {"suit": "none"}):  # a form's empty choice, or "no suit"
        err = t.refused({"type": "declare", **blank}, InvalidMove)
        assert (err.code, str(err)) == ("cante_needs_suit", "A cante needs a 'suit': S, H, D or C")
    assert t.refused({"type": "declare", "suit": "X"}, InvalidMove).code == "not_a_suit"


@pytest.mark.parametrize(
    ("hand", "suit", "extra", "code", "words"),
    [
        (["2H"], "H", {}, "cante_cards_missing", "Needs both KH and QH in hand; KH and QH are not there (Tute 2.5)."),
        (
            ["KS", "QS", "KD", "QD"],
            "S",
            {"sang_after_this_trick": True},
            "cante_sung_this_trick",
            "One cante per trick won: this trick's cante is already sung (Tute 2.5).",
        ),
        (["KS", "QS"], "S", {"sung": [("S", 20)]}, "suit_already_sung", "S was already sung this deal (Tute 2.5)."),
        (
            ["KD", "QD"],
            "D",
            {"players": 3},
            "no_declared_cantes",
            "With 3 players cantes are only scored in tricks, never declared (Tute 2.5).",
        ),
    ],
)
def test_2_5_the_labs_cante_check_says_why_not(hand, suit, extra, code, words):
    """RULES.md 2.5: both cards in hand, one cante a trick won, each suit once, 4-5 players (trumps D)."""
    why = T.cante_check(hand, suit, "D", **extra)
    assert (why.code, str(why)) == (code, words)
