"""Every Tute Cabrón test vector of RULES.md 2.9 (TU-01 to TU-50).

The legal-play, trick and deal-outcome tables come from vectors.json ("tute_legal_plays",
"tute_tricks", "tute_deal_losers"). TU-23/24 (the 3-player trump set by the first cante),
the declarations TU-30 to TU-32 and the game end TU-50 are played through the engine:
real hands are dealt, every scripted card is checked against ``legal_plays`` of the
true hand before it goes through ``apply``.
"""

import json
import re

import pytest

from companion.cards import Card
from companion.errors import Reason
from companion.games import IllegalMove
from companion.games import tute as T
from tests import DOCS, VECTORS_FILE

ALL_VECTORS = json.loads(VECTORS_FILE.read_text(encoding="utf-8"))
LEGAL = ALL_VECTORS["tute_legal_plays"]
TRICKS = ALL_VECTORS["tute_tricks"]
LOSERS = ALL_VECTORS["tute_deal_losers"]


# ---------------------------------------------------------------------------
# A table: the true hands and the engine's state, moved together
# ---------------------------------------------------------------------------


class Table:
    """A deal with known hands. ``play`` checks the card is legal for the true hand."""

    def __init__(self, hands, dealer, turned=None, options=None):
        names = list(hands)
        self.hands = {p: list(h) for p, h in hands.items()}
        cards = [c for h in self.hands.values() for c in h]
        assert len(cards) == len(set(cards)) == len(T.pack(len(names)))
        assert {len(h) for h in self.hands.values()} == {T.HAND_SIZE[len(names)]}
        self.state = T.start(names, {"dealer": dealer, **(options or {})})
        if turned is not None:
            assert turned in self.hands[dealer]
            self.state = T.apply(self.state, {"type": "trump", "card": turned, "player": dealer})

    @property
    def actor(self):
        return T.view(self.state)["to_act"]

    def legal(self):
        return T.legal_plays(
            self.hands[self.actor], [c for _, c in self.state.trick], self.state.trump, self.state.options
        )

    def play(self, *cards):
        for card in cards:
            who = self.actor
            assert card in self.hands[who], (who, card)
            assert card in self.legal(), (who, card, sorted(self.legal()))
            before = T.dump(self.state)
            new = T.apply(self.state, {"type": "play", "card": card, "player": who})
            assert T.dump(self.state) == before
            self.hands[who].remove(card)
            self.state = new

    def declare(self, suit):
        who = self.actor
        assert f"K{suit}" in self.hands[who] and f"Q{suit}" in self.hands[who]
        self.state = T.apply(self.state, {"type": "declare", "suit": suit, "player": who})

    def refused(self, move, match=None):
        """``move`` is refused with IllegalMove and the state is unchanged; returns the refusal."""
        before = T.dump(self.state)
        with pytest.raises(IllegalMove, match=match) as err:
            T.apply(self.state, move)
        assert T.dump(self.state) == before
        return err.value


# ---------------------------------------------------------------------------
# The vectors file matches RULES.md
# ---------------------------------------------------------------------------


def test_every_vector_of_the_rules_tables_is_in_the_json():
    """RULES.md 2.9: every TU-xx row of the three tables has its machine-readable copy."""
    rules = (DOCS / "RULES.md").read_text(encoding="utf-8")
    ids = set(re.findall(r"^\| (TU-\d+)\b", rules, flags=re.M))
    in_json = {v["id"] for v in LEGAL + TRICKS + LOSERS}
    assert len(ids) == 11 + 6 + 10
    assert ids == in_json, sorted(ids ^ in_json)


def test_vectors_file_is_the_engine_spelling():
    """vectors.json: cards use the engine's canonical codes, all in the 40-card Tute pack.

    (TU-10 is marked 3-player yet holds 2H, which the 36-card pack lacks; the legal-play
    rule does not depend on it, so the vector is still a fair test of legal_plays.)"""
    for v in LEGAL + TRICKS:
        for card in [*v["trick"], *v.get("hand", [])]:
            assert str(Card.parse(card)) == card
            assert Card.parse(card) in T.pack(4), (v["id"], card)
    for v in TRICKS:
        assert all(Card.parse(c) in T.pack(v["players"]) for c in v["trick"]), v["id"]


# ---------------------------------------------------------------------------
# TU-01 .. TU-11: legal plays
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("undertrump", [True, False], ids=["undertrump", "no-undertrump"])
@pytest.mark.parametrize("vector", LEGAL, ids=[v["id"] for v in LEGAL])
def test_legal_plays(vector, undertrump):
    """RULES.md 2.9 TU-01..TU-11 (2.4 legal_plays) under both undertrump_required settings."""
    expected = vector["legal"] if undertrump else vector["legal_if_undertrump_not_required"]
    got = T.legal_plays(vector["hand"], vector["trick"], vector["trump"], {"undertrump_required": undertrump})
    assert got == set(expected)
    assert got <= set(vector["hand"])


@pytest.mark.parametrize("vector", LEGAL, ids=[v["id"] for v in LEGAL])
def test_legal_plays_default_is_undertrump_required(vector):
    """RULES.md 2.8: undertrump_required defaults to true."""
    assert T.legal_plays(vector["hand"], vector["trick"], vector["trump"]) == set(vector["legal"])


@pytest.mark.parametrize("vector", LEGAL, ids=[v["id"] for v in LEGAL])
def test_legal_plays_any_spelling(vector):
    """RULES.md 0.2: cards and suits may come in any accepted spelling."""
    hand = [c.lower() for c in vector["hand"]]
    trick = [Card.parse(c).symbol for c in vector["trick"]]
    trump = None if vector["trump"] is None else vector["trump"].lower()
    assert T.legal_plays(hand, trick, trump) == set(vector["legal"])


@pytest.mark.parametrize("vector", LEGAL, ids=[v["id"] for v in LEGAL])
def test_leading_is_free(vector):
    """RULES.md 2.4: leading is free: any card may be led."""
    assert T.legal_plays(vector["hand"], [], vector["trump"]) == set(vector["hand"])


# ---------------------------------------------------------------------------
# TU-20 .. TU-25: trick winner, card points, marriages
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("vector", TRICKS, ids=[v["id"] for v in TRICKS])
def test_trick_resolution(vector):
    """RULES.md 2.9 TU-20..TU-25: winner (2.4), card points (2.2) and in-trick cantes (2.5)."""
    trick, trump, n = vector["trick"], vector["trump"], vector["players"]
    assert T.trick_winner(trick, trump) == vector["winner_index"]
    assert T.card_points(trick) == vector["card_points"]
    first = n == 3 and trump is None
    found = T.marriages(trick, trump, n, first_sets_trump=first)
    assert sum(m["points"] for m in found) == vector["marriage_points"]


def test_TU_21_22_25_marriage_detail():
    """RULES.md 2.9 TU-21, TU-22, TU-25: 20 plain, 40 in trumps, two pairs both score (B7)."""
    assert T.marriages(["KH", "QH", "3H", "2C"], "D", 4) == [{"suit": "H", "points": 20}]
    assert T.marriages(["KD", "2S", "QD", "AD"], "D", 4) == [{"suit": "D", "points": 40}]
    assert T.marriages(["KH", "QH", "KC", "QC"], "D", 4) == [{"suit": "H", "points": 20}, {"suit": "C", "points": 20}]
    assert T.marriages(["7S", "2D", "AS", "3S"], "D", 4) == []


def test_TU_23_24_marriage_detail():
    """RULES.md 2.9 TU-23/24: the first 3p pair scores 40 and names the trump; later ones 20."""
    assert T.marriages(["KS", "QS", "3S"], None, 3, first_sets_trump=True) == [
        {"suit": "S", "points": 40, "sets_trump": True}
    ]
    assert T.marriages(["QH", "KH", "AH"], "S", 3) == [{"suit": "H", "points": 20}]


#: A 3-player deal (no 2s) for TU-23/24. P3 deals, P1 leads.
THREE = {
    "P1": "KS KH 5C 6C 7C JC QC KC AD 3D KD QD".split(),
    "P2": "QS AH 4C AC 3C JD 7D 6D 5D 4D 3H 4H".split(),
    "P3": "3S QH 4S 5S 6S 7S JS AS 5H 6H 7H JH".split(),
}


def test_TU_23_24_through_the_engine():
    """RULES.md 2.9 TU-23/24, 2.5: KS QS 3S gives P3 +40 and S is trump from the next trick;
    QH KH AH later scores +20; a void player must then trump with spades."""
    t = Table(THREE, dealer="P3")
    assert t.state.trump is None and T.view(t.state)["expects"] == ["play", "claim", "tally"]
    t.play("KS", "QS", "3S")
    v = T.view(t.state)
    assert v["last_trick"]["winner"] == "P3" and v["last_trick"]["points"] == 17
    assert v["last_trick"]["marriages"] == [{"suit": "S", "points": 40, "sets_trump": True}]
    assert t.state.tricks[0]["trump"] is None  # the trick itself was played without trump
    assert v["trump"] == "S"
    assert v["cantes"] == {"P1": 0, "P2": 0, "P3": 40}
    assert v["points"]["P3"] == 17 + 40

    t.play("QH", "KH", "AH")  # TU-24
    v = T.view(t.state)
    assert t.state.tricks[1]["trump"] == "S"
    assert v["last_trick"]["winner"] == "P2" and v["last_trick"]["points"] == 18
    assert v["last_trick"]["marriages"] == [{"suit": "H", "points": 20}]
    assert v["cantes"] == {"P1": 0, "P2": 20, "P3": 40}

    # Trump is in force now: P3, void in clubs, must trump (TU-10 would have let P3 discard).
    t.play("4C")
    assert t.legal() == {c for c in t.hands["P3"] if c.endswith("S")}
    t.play("4S", "5C")
    assert T.view(t.state)["last_trick"]["winner"] == "P3"
    assert T.view(t.state)["revokes"] == []


# ---------------------------------------------------------------------------
# TU-30 .. TU-32: declarations (4 players, trump D)
# ---------------------------------------------------------------------------

#: P4 deals and turns 4D (trump D); P1 leads. P2 holds KS QS KD QD.
FOUR = {
    "P1": "AS 3S 7S JS 2C 4C 5H 6H 7D JD".split(),
    "P2": "KS QS KD QD AC 3C 3H 2H 2S 4S".split(),
    "P3": "5S 6S KC QC JC 7C KH AH 4H JH".split(),
    "P4": "AD 3D 2D 5D 6D 4D 5C 6C QH 7H".split(),
}


def four_player_game():
    """Three tricks: P2 wins trick 1, P3 wins trick 2 (QH falls in it), P2 wins trick 3."""
    t = Table(FOUR, dealer="P4", turned="4D")
    assert t.state.trump == "D" and t.actor == "P1"
    t.play("2C", "3C", "7C", "5C")
    assert T.view(t.state)["last_trick"]["winner"] == "P2"
    t.play("2H", "AH", "QH", "5H")
    assert T.view(t.state)["last_trick"]["winner"] == "P3"
    return t


def play_trick_3(t):
    t.play("4H", "7H", "6H", "3H")
    v = T.view(t.state)
    assert v["last_trick"]["n"] == 3 and v["last_trick"]["winner"] == "P2"
    assert {"KS", "QS", "KD", "QD"} <= set(t.hands["P2"])


def play_trick_4(t):
    t.play("AC", "JC", "6C", "4C")
    assert T.view(t.state)["last_trick"]["winner"] == "P2"


def test_TU_30_declaring_20_locks_the_40():
    """RULES.md 2.9 TU-30, 2.5 lock rule: P2 wins trick 3 holding KS QS KD QD and sings S
    (+20); after a later trick win the 40 in D is refused for the rest of the deal."""
    t = four_player_game()
    play_trick_3(t)
    assert T.view(t.state)["expects"] == ["play", "declare", "claim"]
    assert {"S", "D"} <= set(T.declarable(t.state))
    t.declare("S")
    v = T.view(t.state)
    assert v["declarations"] == [{"player": "P2", "suit": "S", "points": 20, "after_trick": 3}]
    assert v["cantes"]["P2"] == 20
    assert {"KS", "QS"} <= set(v["known"]["P2"])
    play_trick_4(t)
    assert "D" not in T.declarable(t.state)
    err = t.refused({"type": "declare", "suit": "D", "player": "P2"}, match="lock rule")
    assert (err.code, err.rule, err.params) == ("cante_locked", "Tute 2.5", {"player": "P2"})
    assert T.view(t.state)["cantes"]["P2"] == 20


def test_TU_30_declaring_40_first_then_20():
    """RULES.md 2.9 TU-30: the 40 first (after trick 3), then the 20 after a later win."""
    t = four_player_game()
    play_trick_3(t)
    t.declare("D")
    assert T.view(t.state)["cantes"]["P2"] == 40
    play_trick_4(t)
    assert "S" in T.declarable(t.state)
    t.declare("S")
    v = T.view(t.state)
    assert v["declarations"] == [
        {"player": "P2", "suit": "D", "points": 40, "after_trick": 3},
        {"player": "P2", "suit": "S", "points": 20, "after_trick": 4},
    ]
    assert v["cantes"]["P2"] == 60


def test_TU_31_declaring_with_a_card_already_played_is_refused():
    """RULES.md 2.9 TU-31, 2.11: P3 has just won trick 2 and claims H holding only KH; QH
    was played in trick 2. Both cards must be in the hand."""
    t = four_player_game()
    assert t.actor == "P3" and "KH" in t.hands["P3"]
    assert "declare" in T.view(t.state)["expects"]
    assert "H" not in T.declarable(t.state)
    err = t.refused({"type": "declare", "suit": "H", "player": "P3"}, match="QH was already played in trick 2")
    assert (err.code, err.rule) == ("cante_card_played", "Tute 2.5")
    assert err.params == {"player": "P3", "suit": "H", "card": "QH", "trick": 2}


def test_TU_32_second_declaration_after_the_same_trick_is_refused():
    """RULES.md 2.9 TU-32, 2.5: at most one pair per trick won."""
    t = four_player_game()
    play_trick_3(t)
    t.declare("D")
    assert "declare" not in T.view(t.state)["expects"]
    assert T.declarable(t.state) == []
    err = t.refused({"type": "declare", "suit": "S", "player": "P2"}, match="One cante per trick")
    assert (err.code, err.rule) == ("one_cante_per_trick", "Tute 2.5")
    assert len(t.state.declarations) == 1


def test_TU_30_only_the_trick_winner_declares():
    """RULES.md 2.11: the declarer must have just won a trick."""
    t = four_player_game()
    play_trick_3(t)
    t.refused({"type": "declare", "suit": "S", "player": "P1"}, match="turn")
    t.play("2S")  # P2 leads trick 4 without singing: too late now
    assert t.refused({"type": "declare", "suit": "S", "player": "P2"}, match="before leading").code == "cante_mid_trick"


# ---------------------------------------------------------------------------
# TU-40 .. TU-49: deal outcomes
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("vector", LOSERS, ids=[v["id"] for v in LOSERS])
def test_deal_outcome(vector):
    """RULES.md 2.9 TU-40..TU-49 (2.6): the losers of a deal from its totals."""
    totals = {p: vector["totals"][p] for p in vector["players"]}
    out = T.deal_outcome(totals, vector["last_trick"])
    assert out["losers"] == vector["losers"]
    # why, as data the web words: a sentence citing the rule, naming a loser (or the winners)
    reasons = [Reason.from_json(r) for r in out["reason"]]
    assert reasons[0].rule == "Tute 2.6" and "(Tute 2.6" in str(reasons[0])
    named = set(reasons[0].params.get("players", [])) | {reasons[0].params.get("player")}
    assert named - {None} <= set(totals) and (named - {None} or reasons[0].code.startswith("triple_tie"))


@pytest.mark.parametrize(
    "vector", [v for v in LOSERS if len(v["players"]) == 3], ids=[v["id"] for v in LOSERS if len(v["players"]) == 3]
)
def test_3p_deal_outcome_ignores_the_last_trick(vector):
    """RULES.md 2.9 TU-45..TU-49: "last trick won by: any"."""
    totals = {p: vector["totals"][p] for p in vector["players"]}
    for last in vector["players"]:
        assert T.deal_outcome(totals, last)["losers"] == vector["losers"]


@pytest.mark.parametrize("vector", LOSERS, ids=[v["id"] for v in LOSERS])
def test_deal_outcome_through_a_tally(vector):
    """RULES.md 2.9 TU-40..TU-49 through the engine: a tally whose totals are the vector's
    gives exactly the vector's losers one loss mark each."""
    names, totals, last = vector["players"], vector["totals"], vector["last_trick"]
    extra = sum(totals.values()) - 130  # the marriage points (2.5): 40 first, then 20s
    values = ([40] + [20] * ((extra - 40) // 20)) if extra else []
    assert sum(values) == extra
    room = {p: totals[p] - (10 if p == last else 0) for p in names}
    marriages = {p: [] for p in names}
    for value in values:  # each cante to the player with the most points left to explain
        p = max(names, key=lambda q: room[q])
        marriages[p].append(value)
        room[p] -= value
    points = room
    assert min(points.values()) >= 0 and sum(points.values()) == 120
    state = T.start(names, {"dealer": names[-1]})
    new = T.apply(state, {"type": "tally", "card_points": points, "last_trick": last, "marriages": marriages})
    h = new.history[-1]
    assert h["points"] == totals
    assert h["losers"] == vector["losers"]
    assert new.losses == [1 if p in vector["losers"] else 0 for p in names]


# ---------------------------------------------------------------------------
# TU-50: game end
# ---------------------------------------------------------------------------


def tally(state, points, last, marriages=None):
    return T.apply(state, {"type": "tally", "card_points": points, "last_trick": last, "marriages": marriages or {}})


def test_TU_50_joint_losers_end_the_game():
    """RULES.md 2.9 TU-50, 2.7, B10: marks [5, 3, 5, 2], the deal's losers are P1 and P3;
    both reach 6 and the game ends with P1 and P3 as joint losers."""
    names = ["P1", "P2", "P3", "P4"]
    state = T.start(names, {"loss_limit": 6})
    for name, marks in zip(names, [5, 3, 5, 2]):
        for _ in range(marks):  # the sole top scorer loses
            other = next(p for p in names if p != name)
            state = tally(state, {p: (60 if p == name else 20) for p in names}, other)
            assert state.history[-1]["losers"] == [name]
    assert state.losses == [5, 3, 5, 2] and state.result is None
    assert T.view(state)["to_act"] is not None
    # P2 and P4 both pass 100 (B4), so P1 and P3 lose this deal.
    state = tally(state, {"P1": 4, "P2": 51, "P3": 4, "P4": 61}, "P2", {"P2": [40], "P4": [20, 20]})
    h = state.history[-1]
    assert h["points"] == {"P1": 4, "P2": 101, "P3": 4, "P4": 101}
    assert h["losers"] == ["P1", "P3"]
    assert state.losses == [6, 3, 6, 2]
    assert state.result == {"winners": ["P4"], "losers": ["P1", "P3"], "draw": False}
    v = T.view(state)
    assert v["to_act"] is None and v["expects"] == []
    with pytest.raises(IllegalMove, match="over"):
        T.apply(state, {"type": "trump", "card": "4D"})
