"""100 / 99 / 99 Itōke / 98 (RULES.md §4): every AD vector, each variant's card table,
D1-D10, and random legal hands with hypothesis."""

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cards import PACK_52
from companion.games import AmbiguousMove, IllegalMove, InvalidMove, OptionError
from companion.games import hundred as H
from tests import VECTORS_FILE

VECTORS = json.loads(VECTORS_FILE.read_text(encoding="utf-8"))["adding_totals"]


def new(players=("A", "B", "C"), **options):
    return H.start(list(players), {"dealer": players[-1], **options})  # the first listed plays first


def play(s, card, total=None):
    move = {"type": "play", "card": card}
    if total is not None:
        move["total"] = total
    s = H.apply(s, move)
    assert all(map(str, H.narrate(s, move)))  # the log's words (tests/translated.py checks them)
    return s


@pytest.mark.parametrize("v", VECTORS, ids=lambda v: v["id"])
def test_4_6_vectors(v):
    """RULES.md 4.6: the totals a card makes, and which are safe."""
    o = {"variant": v["variant"]}
    assert sorted(H.totals(v["card"], v["total"], o)) == v["totals"]
    assert sorted(H.safe_totals(v["card"], v["total"], o)) == v["safe"]


def test_4_6_AD01_a_hand_of_100():
    """RULES.md 4.6 AD-01..AD-01e: totals, the reverse, and A's verified loss."""
    s = new()
    s = play(s, "8H")
    assert H.view(s)["total"] == 8
    s = play(s, "10D")
    assert H.view(s)["total"] == 100
    s = play(s, "4C")
    v = H.view(s)
    assert v["total"] == 100 and v["direction"] == -1 and v["to_act"] == "B"
    s = play(s, "5H")
    v = H.view(s)
    assert v["total"] == 95 and v["to_act"] == "A"
    s = H.apply(s, {"type": "lose", "hand": ["6S", "8S", "9S"]})
    h = H.view(s)["history"][-1]
    assert h["loser"] == "A" and h["verified"] and H.view(s)["tokens"]["A"] == 2


def test_4_6_AD04_black_ace_at_99_is_always_safe():
    """RULES.md 4.6 AD-04: AC on 99 may make anything 0-100; the player can't lose this turn."""
    assert H.safe_totals("AC", 99) == set(range(0, 101))
    s = play(new(), "AS", 99)
    with pytest.raises(IllegalMove, match="AC on 99 makes"):
        H.apply(s, {"type": "lose", "hand": ["AC", "7H", "8H"]})


def test_4_6_AD05_floor_at_zero():
    """RULES.md 4.6 AD-05 / D2: J on 3 is 0 with the floor, -7 without."""
    assert H.totals("JD", 3) == {0}
    assert H.totals("JD", 3, {"floor_at_zero": False}) == {-7}


def test_4_6_AD08_two_reverses_restore_the_direction():
    """RULES.md 4.6 AD-08: 4 players; P1 plays a 4: P0 is next; P0's 4 sends it back to P1."""
    s = new(("P0", "P1", "P2", "P3"))
    s = play(s, "2H")  # P0
    s = play(s, "4S")  # P1 reverses
    assert H.view(s)["to_act"] == "P0"
    s = play(s, "4H")  # P0 reverses again
    assert H.view(s)["to_act"] == "P1" and H.view(s)["direction"] == 1


def test_4_6_AD09_safe_and_unsafe_in_99():
    """RULES.md 4.6 AD-09: on 95, K (99) and 9 (95) are safe; 5 (100) is not."""
    o = {"variant": "99"}
    assert H.safe_totals("KH", 95, o) == {99} and H.safe_totals("9H", 95, o) == {95}
    assert H.safe_totals("5H", 95, o) == set()


def test_4_6_AD10_a_wrong_announcement_is_a_bust_when_chosen():
    """RULES.md 4.6 AD-10: 10 on 92 in 99: 82 is safe; announcing 102 busts."""
    s = new(variant="99")
    s.total = 92
    with pytest.raises(AmbiguousMove) as e:
        play(s, "10H")
    assert e.value.options == [82, 102]
    assert H.view(play(s, "10H", 82))["total"] == 82
    busted = play(s, "10H", 102)
    assert busted.history[-1]["loser"] == "A" and busted.history[-1]["bust"] == "10H"


def test_4_6_AD12_AD13_itoya():
    """RULES.md 4.6 AD-12 / AD-13: Itōke AS on 95 raises to 95-99; 9 makes 99; J busts; 10 -> 85;
    J then J: 70 reversed, then 80 clockwise again."""
    o = {"variant": "99itoya"}
    assert H.totals("AS", 95, o) == set(range(95, 100))
    assert H.totals("9H", 95, o) == {99} and H.totals("JH", 95, o) == {105} and H.totals("10H", 95, o) == {85}
    s = new(("A", "B", "C", "D"), variant="99itoya")
    s.total = 60
    s = play(s, "JH")
    assert (H.view(s)["total"], H.view(s)["direction"]) == (70, -1)
    s = play(s, "JS")
    assert (H.view(s)["total"], H.view(s)["direction"]) == (80, 1)


def test_4_6_AD14_AD15_98():
    """RULES.md 4.6 AD-14 / AD-15: on 97 in 98, {2, 3, 5, 6} all bust; J is safe (97)."""
    o = {"variant": "98"}
    assert all(not H.safe_totals(c, 97, o) for c in ("2H", "3H", "5H", "6H"))
    assert H.safe_totals("JH", 97, o) == {97}
    s = new(variant="98")
    s.total = 97
    lost = H.apply(s, {"type": "lose", "hand": ["2H", "3H", "5H", "6H"]})
    assert lost.history[-1]["verified"]
    with pytest.raises(IllegalMove, match="JH on 97 makes 97"):
        H.apply(s, {"type": "lose", "hand": ["2H", "3H", "5H", "JH"]})


def test_4_6_AD16_king_in_98():
    """RULES.md 4.6 AD-16: K on 40 makes 98; then only 10 (88), J or Q are safe."""
    o = {"variant": "98"}
    assert H.totals("KH", 40, o) == {98}
    safe = {c for c in map(str, PACK_52) if H.safe_totals(c, 98, o)}
    assert {c[:-1] for c in safe} == {"10", "J", "Q", "K"}  # K sets 98 again


@pytest.mark.parametrize("card", ["4S", "JS"])
def test_4_6_AD17_and_D3_reverse_with_two_players(card):
    """RULES.md 4.6 AD-17 / D3: with two players a reverse changes nothing by default;
    with same_player_again the same player plays again."""
    variant = "99itoya" if card == "JS" else "100"
    s = play(new(("A", "B"), variant=variant), card)
    assert H.view(s)["to_act"] == "B"
    s = play(new(("A", "B"), variant=variant, reverse_with_two_players="same_player_again"), card)
    assert H.view(s)["to_act"] == "A"


# Each variant's card table (RULES.md 4.3), written out independently of the engine:
# rank -> (function of (total, suit) -> totals, reverses).
def _floor(v):
    return max(0, v)


TABLES = {
    "100": {
        "A": (lambda t, s: list(range(101)) if s in "SC" else [t + 1], False),
        "2": (lambda t, s: [t * 2] if s == "S" else [t + 2], False),
        "3": (lambda t, s: [t + 3], False),
        "4": (lambda t, s: [t], True),
        "5": (lambda t, s: [_floor(t - 5)] if s in "HD" else [t + 5], False),
        **{r: ((lambda k: lambda t, s: [t + k])(int(r)), False) for r in ("6", "7", "8", "9")},
        "10": (lambda t, s: [100], False),
        "J": (lambda t, s: [_floor(t - 10)], False),
        "Q": (lambda t, s: [0] if s == "H" else [t + 10], False),
        "K": (lambda t, s: [t], False),
    },
    "99": {
        "A": (lambda t, s: [t + 1, t + 10], False),
        **{r: ((lambda k: lambda t, s: [t + k])(int(r)), False) for r in ("2", "3", "5", "6", "7", "8")},
        "4": (lambda t, s: [t], True),
        "9": (lambda t, s: [t], False),
        "10": (lambda t, s: sorted({t + 10, _floor(t - 10)}), False),
        "J": (lambda t, s: [t + 10], False),
        "Q": (lambda t, s: [t + 10], False),
        "K": (lambda t, s: [99], False),
    },
    "99itoya": {
        "A": (lambda t, s: list(range(t, 100)) if s in "SC" else [t + 1], False),
        **{r: ((lambda k: lambda t, s: [t + k])(int(r)), False) for r in ("2", "5", "6", "7", "8")},
        "3": (lambda t, s: [t], False),
        "4": (lambda t, s: [t], False),
        "9": (lambda t, s: [99], False),
        "10": (lambda t, s: [_floor(t - 10)], False),
        "J": (lambda t, s: [t + 10], True),
        "Q": (lambda t, s: [t + 10], False),
        "K": (lambda t, s: [t + 10], False),
    },
    "98": {
        **{
            r: ((lambda k: lambda t, s: [t + k])(1 if r == "A" else int(r)), False)
            for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9")
        },
        "10": (lambda t, s: [_floor(t - 10)], False),
        "J": (lambda t, s: [t], False),
        "Q": (lambda t, s: [t], False),
        "K": (lambda t, s: [98], False),
    },
}


@pytest.mark.parametrize("variant", list(TABLES))
@pytest.mark.parametrize("card", [str(c) for c in PACK_52])
def test_4_3_card_tables(variant, card):
    """RULES.md 4.3: each card of each variant, from a few totals."""
    rule, reverses = TABLES[variant][card[:-1]]
    for total in (0, 5, 50, 95):
        made, rev = H.effect(card, total, {"variant": variant})
        assert sorted(made) == sorted(set(rule(total, card[-1]))), (total, made)
        assert rev is reverses


def test_D1_the_dealers_left_starts():
    assert H.view(H.start(["A", "B", "C"], {"dealer": "B"}))["to_act"] == "C"


def test_D4_the_pile_becomes_the_stock_so_cards_come_back():
    """RULES.md 4.7 D4: one pack; before the reshuffle a card on the pile is refused; after it,
    the pile but its top card is the stock again and those cards may be played."""
    s = new(("A", "B"), variant="98")
    with pytest.raises(IllegalMove, match="already on the pile"):
        play(play(s, "JS"), "JS")
    cards = [str(c) for c in PACK_52 if str(c)[:-1] in ("J", "Q")]  # no change to the total
    s.stock = 3
    for c in cards[:5]:
        s = play(s, c)
    assert H.view(s)["pile"] < 5  # the pile was turned over
    again = play(s, cards[0])
    assert H.view(again)["total"] == 0


def test_D5_ace_high_99():
    assert H.totals("AH", 20, {"variant": "99", "ace_high_99": 11}) == {21, 31}


def test_D6_itoya_black_ace_set_any():
    assert H.totals("AC", 60, {"variant": "99itoya", "itoya_black_ace": "set_any"}) == set(range(100))


def test_D7_tokens_elimination_and_last_player_standing():
    """RULES.md 4.4 / D7: one token each here; losers drop out; the last player wins."""
    s = new(("A", "B", "C"), tokens=1)
    s = H.apply(s, {"type": "tally", "loser": "B"})
    v = H.view(s)
    assert v["eliminated"] == ["B"] and v["tokens"]["B"] == 0
    assert "B" not in v["order"]
    with pytest.raises(IllegalMove):
        H.apply(s, {"type": "tally", "loser": "B"})
    s = H.apply(s, {"type": "tally", "loser": "A"})
    assert H.view(s)["result"] == {"winners": ["C"], "losers": ["A", "B"], "draw": False}


def test_D7_every_hand_lost_counts_and_the_match_over_has_nobody_to_act():
    """RULES.md 4.4 / D7 (loss_tally): a player who loses two hands has two losses; once the
    match is over nobody acts, and the players are listed in their seats' order."""
    s = H.start(["A", "B", "C"], {"dealer": "A", "match_format": "loss_tally", "hands": 3})
    for loser in ("B", "B", "C"):
        s = H.apply(s, {"type": "tally", "loser": loser})
    v = H.view(s)
    assert v["losses"] == {"A": 0, "B": 2, "C": 1}
    assert v["result"] == {"winners": ["A"], "losers": ["B", "C"], "draw": False}
    assert H.to_act(s) is None and v["order"] == ["A", "B", "C"]
    # Over after two hands, with C's turn next (B dealt the second): still in seat order.
    s = H.start(["A", "B", "C"], {"dealer": "A", "match_format": "loss_tally", "hands": 2})
    for loser in ("B", "C"):
        s = H.apply(s, {"type": "tally", "loser": loser})
    assert s.turn == 2 and H.view(s)["order"] == ["A", "B", "C"]


def test_D7_loss_tally_over_hands_with_a_draw():
    s = new(("A", "B"), match_format="loss_tally", hands=2)
    s = H.apply(s, {"type": "tally", "loser": "A"})
    s = H.apply(s, {"type": "tally", "loser": "B"})
    assert H.view(s)["result"] == {"winners": ["A", "B"], "losers": [], "draw": True}
    assert H.view(s)["tokens"] is None and H.view(s)["losses"] == {"A": 1, "B": 1}


def test_D8_the_100_black_ace_may_lower_the_total():
    assert 0 in H.totals("AS", 80) and 80 in H.totals("AS", 80)


@pytest.mark.parametrize(("rule", "dealer"), [("next", "A"), ("loser", "B")])
def test_D9_who_deals_next(rule, dealer):
    s = H.start(["A", "B", "C"], {"dealer": "C", "next_dealer": rule})
    s = H.apply(s, {"type": "tally", "loser": "B"})
    assert H.view(s)["dealer"] == dealer


def test_D9_an_eliminated_dealer_is_skipped():
    s = H.start(["A", "B", "C"], {"dealer": "C", "tokens": 1})
    s = H.apply(s, {"type": "tally", "loser": "A"})  # A would deal next, but is out
    assert H.view(s)["dealer"] == "B" and H.view(s)["to_act"] == "C"


def test_D10_two_packs_let_a_card_be_played_twice():
    s = new(("A", "B", "C", "D", "E", "F", "G"), variant="98")
    assert s.options.decks == 2
    s = play(play(s, "JS"), "JS")
    with pytest.raises(IllegalMove, match="both copies"):
        play(s, "JS")


def test_lose_rules():
    """RULES.md 4.8: a claim with a safe card is refused naming it; no hand: unverified."""
    s = play(new(), "10D")  # 100
    with pytest.raises(IllegalMove, match="KH on 100 makes 100"):
        H.apply(s, {"type": "lose", "hand": ["6S", "KH"]})
    unverified = H.apply(s, {"type": "lose"})
    assert unverified.history[-1]["verified"] is False and unverified.history[-1]["loser"] == "B"
    # The board says who lost the hand and why (templates/play/hundred/_board.html).
    why = {"code": "could_not_go", "text": "%(player)s could not go (hand not shown).", "params": {"player": "B"}}
    assert H.view(unverified)["last"] == {"player": "B", "lost": True, "reason": [why | {"rule": None}]}
    with pytest.raises(IllegalMove, match="Only the player to act"):
        H.apply(s, {"type": "lose", "player": "C"})
    with pytest.raises(IllegalMove, match="already on the pile"):
        H.apply(s, {"type": "lose", "hand": ["10D"]})


def test_an_empty_announcement_is_none_and_a_tally_is_the_tables():
    """DESIGN.md moves: an empty 'total' (the form's field left blank) announces nothing; a
    tally names its loser, and whoever entered it ('player') is no turn to check."""
    s = new()
    assert H.view(H.apply(s, {"type": "play", "card": "8H", "total": ""}))["total"] == 8
    assert H.apply(s, {"type": "tally", "loser": "B", "player": "C"}).history[-1]["losers"] == ["B"]


def test_wrong_total_and_out_of_turn():
    s = new()
    with pytest.raises(IllegalMove, match="makes 8, not 9"):
        play(s, "8H", 9)
    with pytest.raises(IllegalMove, match="turn"):
        H.apply(s, {"type": "play", "card": "8H", "player": "B"})
    with pytest.raises(InvalidMove):
        play(s, "8H", "lots")


def test_confirm_needed_only_for_a_bust():
    s = play(new(), "10D")
    assert "over 100" in str(H.confirm_needed(s, {"type": "play", "card": "9S"}))
    assert H.confirm_needed(s, {"type": "play", "card": "KS"}) is None
    assert H.confirm_needed(s, {"type": "lose"}) is None


@pytest.mark.parametrize(
    "options",
    [
        {"variant": "101"},
        {"decks": 3},
        {"floor_at_zero": "yes"},
        {"ace_high_99": "11"},
        {"tokens": 0},
        {"colour": 1},
        {"match_format": None},
    ],
)
def test_4_5_bad_options(options):
    with pytest.raises(OptionError):
        H.start(["A", "B"], options)


@pytest.mark.parametrize("players", [["A"], [f"P{i}" for i in range(21)]])
def test_player_counts(players):
    with pytest.raises(OptionError):
        H.start(players)


def test_usual_decks():
    assert H.start([f"P{i}" for i in range(6)]).options.decks == 1
    assert H.start([f"P{i}" for i in range(7)]).options.decks == 2


REVERSING = {"100": "4", "99": "4", "99itoya": "J", "98": None}


@settings(max_examples=40, deadline=None)
@given(variant=st.sampled_from(list(TABLES)), players=st.integers(2, 8), seed=st.integers(0, 10**6))
def test_random_legal_hands(variant, players, seed):
    """Hypothesis: the total stays at or under the target except on the losing play; the
    direction flips exactly on reversing cards; states round-trip; apply is pure."""
    rng = random.Random(seed)
    s = H.start([f"P{i}" for i in range(players)], {"variant": variant})
    target = H.target(s.options)
    for _ in range(300):
        if s.result is not None:
            break
        before, dump = s, H.dump(s)
        avail = [str(c) for c in PACK_52 if s.pile.count(str(c)) < s.options.decks]
        hand = rng.sample(avail, H.hand_size(s.options))
        safe = [(c, t) for c in hand for t in H.safe_totals(c, s.total, s.options)]
        if safe and rng.random() > 0.05:
            card, total = rng.choice(safe)
            s = play(s, card, total)
            assert H.dump(before) == dump
            assert s.total <= target
            flips = card[:-1] == REVERSING[variant]
            if H.view(before)["hand"] == H.view(s)["hand"]:
                assert s.direction == (-before.direction if flips else before.direction)
        elif safe:
            card = rng.choice(hand)
            made = max(H.totals(card, s.total, s.options))
            if made > target:
                s = play(s, card, made)
                assert s.history[-1]["bust"] == card and (s.total == 0 or s.result is not None)
            continue
        else:
            s = H.apply(s, {"type": "lose", "hand": hand})
            assert s.history[-1]["verified"]
        assert H.load(H.dump(s)) == s
        if s.tokens:
            assert min(s.tokens) >= 0
    if s.options.match_format == "tokens" and s.result:
        assert len(H.active(s)) == 1


def test_refusals_carry_their_code_rule_and_params():
    """RULES.md 4.8 (a card on the pile, a wrong announcement) and 4.2 (a "can't go" with a
    safe card): what an API client reads off a refusal, besides its words."""
    with pytest.raises(IllegalMove) as e:
        play(play(new(("A", "B"), variant="98"), "JS"), "JS")
    assert (e.value.code, e.value.rule, e.value.params) == ("on_pile", "100/99/98 4.8", {"card": "JS"})
    with pytest.raises(IllegalMove) as e:
        play(play(play(new(tuple("ABCDEFG"), variant="98"), "JS"), "JS"), "JS")
    assert e.value.code == "both_copies_on_pile" and e.value.rule == "100/99/98 4.8"
    with pytest.raises(IllegalMove) as e:
        play(new(), "8H", 9)
    assert e.value.code == "wrong_total" and e.value.params == {
        "card": "8H",
        "total": 0,
        "totals": [8],
        "low": 8,
        "high": 8,
        "said": 9,
    }
    with pytest.raises(IllegalMove) as e:
        play(new(), "AS", 150)
    assert e.value.code == "wrong_total_range" and e.value.params == {
        "card": "AS",
        "total": 0,
        "totals": list(range(101)),
        "low": 0,
        "high": 100,
        "said": 150,
    }
    assert str(e.value) == "AS on 0 can make any total from 0 to 100, not 150."
    s = play(new(), "10D")  # 100: B to act
    with pytest.raises(IllegalMove) as e:
        H.apply(s, {"type": "lose", "hand": ["6S", "KH"]})
    assert (e.value.code, e.value.rule) == ("can_go", "100/99/98 4.2")
    assert e.value.params == {
        "player": "B",
        "card": "KH",
        "total": 100,
        "totals": [100],
        "low": 100,
        "high": 100,
        "target": 100,
    }
    assert str(e.value) == "B can go: KH on 100 makes 100 (not over 100). Not a loss (100/99/98 4.2)."
    with pytest.raises(IllegalMove) as e:
        H.apply(s, {"type": "lose", "hand": ["AC", "7H"]})
    assert e.value.code == "can_go_range" and (e.value.params["low"], e.value.params["high"]) == (0, 100)
    with pytest.raises(IllegalMove) as e:
        H.apply(s, {"type": "tally", "loser": "A"})
    assert e.value.code == "tally_too_late" and e.value.rule is None


def test_an_unannounced_choice_is_ambiguous_with_its_totals():
    """RULES.md 4.6 AD-10: 10 on 92 in 99 gives 82 or 102; the move must say which."""
    s = new(variant="99")
    s.total = 92
    with pytest.raises(AmbiguousMove) as e:
        play(s, "10H")
    assert e.value.code == "choose_total" and e.value.options == [82, 102]
    assert str(e.value) == "10H gives a choice: which total did A announce? 82 or 102."
    with pytest.raises(AmbiguousMove) as e:
        play(new(), "AC")
    assert e.value.code == "choose_total_range" and (e.value.params["low"], e.value.params["high"]) == (0, 100)


def test_lose_refusal_is_a_reason():
    """RULES.md 4.2: the lab's "Not a loss" names the safe card and what it makes."""
    why = H.lose_refusal(["2H", "JH"], 97, {"variant": "98"})
    assert why.code == "not_a_loss" and why.rule == "100/99/98 4.2"
    assert why.params == {
        "player": None,  # said of the hand, not of a player
        "card": "JH",
        "total": 97,
        "totals": [97],
        "low": 97,
        "high": 97,
        "target": 98,
    }
    assert H.lose_refusal(["AC"], 99).code == "not_a_loss_range"
    assert H.lose_refusal(["6S", "8S", "9S"], 95) is None
