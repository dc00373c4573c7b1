"""What the referee says when it refuses a move in 100 / 99 / 98 (RULES.md 4.2, 4.3, 4.4, 4.8,
4.9): each refusal as the API sends it, its code, its sentence and its params, and the
section it cites. A wrong total is answered with the right one (RULES.md 4.8: the most
common real-world error); a claim that a hand can't go names the safe card (4.2)."""

import pytest

from companion.cards import PACK_52
from companion.games import AmbiguousMove, IllegalMove, InvalidMove
from companion.games import hundred as H

RANGE_0_100 = list(range(0, 101))
#: (section, options, cards played first by A, B, ..., the refused move, the refusal's class,
#: code, sentence, params)
REFUSALS = [
    ("4.4", {}, ["8H"], {"type": "tally", "loser": "A"}, IllegalMove, "tally_too_late",
     "A hand can be tallied only before its first card.", {}),
    ("4.2", {}, [], {"type": "play"}, InvalidMove, "no_card", "The move needs a 'card'", {}),
    ("4.8", {}, [], {"type": "play", "card": "8H", "total": "eight"}, InvalidMove, "total_not_a_number",
     "The announced total must be a number, not 'eight'", {"value": "eight"}),
    ("4.8", {}, ["8H"], {"type": "play", "card": "8H"}, IllegalMove, "on_pile",
     "8H is already on the pile: it is out of play until the pile is turned over (100/99/98 4.8).", {"card": "8H"}),
    ("4.8", {"decks": 2}, ["8H", "8H"], {"type": "play", "card": "8H"}, IllegalMove, "both_copies_on_pile",
     "8H is already on the pile: both copies are out of play until the pile is turned over (100/99/98 4.8).",
     {"card": "8H"}),
    ("4.8", {}, ["8H"], {"type": "play", "card": "9S", "total": 18}, IllegalMove, "wrong_total",
     "9S on 8 makes 17, not 18.", {"card": "9S", "total": 8, "said": 18, "totals": [17], "low": 17, "high": 17}),
    ("4.3", {"variant": "99"}, ["8H"], {"type": "play", "card": "10S", "total": 9}, IllegalMove,
     "wrong_total_choice", "10S on 8 can make 0 or 18, not 9.",
     {"card": "10S", "total": 8, "said": 9, "totals": [0, 18], "low": 0, "high": 18}),
    ("4.3", {}, ["8H"], {"type": "play", "card": "AS", "total": 101}, IllegalMove, "wrong_total_range",
     "AS on 8 can make any total from 0 to 100, not 101.",
     {"card": "AS", "total": 8, "said": 101, "totals": RANGE_0_100, "low": 0, "high": 100}),
    ("4.3", {"variant": "99"}, ["8H"], {"type": "play", "card": "10S"}, AmbiguousMove, "choose_total",
     "10S gives a choice: which total did B announce? 0 or 18.",
     {"card": "10S", "player": "B", "totals": [0, 18], "low": 0, "high": 18}),
    ("4.3", {}, ["8H"], {"type": "play", "card": "AC"}, AmbiguousMove, "choose_total_range",
     "AC gives a choice: which total did B announce? any total from 0 to 100.",
     {"card": "AC", "player": "B", "totals": RANGE_0_100, "low": 0, "high": 100}),
    ("4.9", {"variant": "99tgames"}, ["9S", "KS"], {"type": "play", "card": "5H"}, IllegalMove, "bust_refused",
     "5H on 99 makes 104, over 99: a card may not go over while another is safe. Play another card, or say you "
     "can't go and show the hand (100/99/98 4.2).", {"card": "5H", "total": 99, "said": 104, "target": 99}),
    ("4.9", {"variant": "99tgames"}, ["9S", "KS"], {"type": "play", "card": "5H", "hand": ["2C", "KD"]},
     IllegalMove, "can_go", "C can go: KD on 99 makes 99 (not over 99). Not a loss (100/99/98 4.2).",
     {"player": "C", "card": "KD", "total": 99, "target": 99, "totals": [99], "low": 99, "high": 99}),
    ("4.8", {}, ["8H"], {"type": "lose", "hand": ["6S", "8S", "9S", "7S"]}, IllegalMove, "hand_too_big",
     "A hand holds 3 cards, not 4.", {"size": 3, "count": 4}),
    ("4.8", {}, ["8H"], {"type": "lose", "hand": ["8H"]}, IllegalMove, "shown_on_pile",
     "8H can't be in B's hand: it is already on the pile.", {"card": "8H", "player": "B"}),
    ("4.8", {}, [], {"type": "lose", "hand": "6S"}, InvalidMove, "hand_not_a_list",
     "'hand' is a list of the cards shown", {}),
    ("4.2", {}, ["8H"], {"type": "lose", "hand": ["6S", "2D"]}, IllegalMove, "can_go",
     "B can go: 6S on 8 makes 14 (not over 100). Not a loss (100/99/98 4.2).",
     {"player": "B", "card": "6S", "total": 8, "target": 100, "totals": [14], "low": 14, "high": 14}),
    ("4.2", {}, ["8H"], {"type": "lose", "hand": ["AC"]}, IllegalMove, "can_go_range",
     "B can go: AC on 8 makes any total from 0 to 100 (not over 100). Not a loss (100/99/98 4.2).",
     {"player": "B", "card": "AC", "total": 8, "target": 100, "totals": RANGE_0_100, "low": 0, "high": 100}),
    ("4.2", {}, [], {"type": "lose", "player": "B"}, IllegalMove, "not_to_act",
     "Only the player to act can say they can't go: it is A's turn.", {"turn": "A"}),
    ("4.2", {}, [], {"type": "lose", "player": "Zed"}, InvalidMove, "not_playing",
     "'Zed' is not playing in this game", {"player": "Zed"}),
    ("DESIGN", {}, [], {"type": "pass"}, InvalidMove, "unknown_move",
     "Unknown move type 'pass'; 100 / 99 / 98 moves are: play, lose, tally",
     {"kind": "pass", "game": "100 / 99 / 98", "known": "play, lose, tally"}),
    ("4.4", {}, [], {"type": "tally", "loser": "Zed"}, InvalidMove, "loser_not_playing",
     "'loser' must name a player: A, B, and C", {"players": ["A", "B", "C"]}),
]  # fmt: skip


@pytest.mark.parametrize(
    ("section", "options", "played", "move", "kind", "code", "sentence", "params"),
    REFUSALS,
    ids=[f"{r[0]}-{r[5]}" for r in REFUSALS],
)
def test_each_refusal_says_why_in_words_and_data(section, options, played, move, kind, code, sentence, params):
    s = H.start(["A", "B", "C"], {"dealer": "C", **options})
    for card in played:
        s = H.apply(s, {"type": "play", "card": card})
    with pytest.raises(kind) as err:
        H.apply(s, move)
    cited = "100/99/98 4.8" if "4.8)" in sentence else "100/99/98 4.2" if "4.2)" in sentence else None
    assert err.value.reason.as_json() == {"error": sentence, "code": code, "params": params, "rule": cited}
    if kind is AmbiguousMove:  # the choices, as buttons
        assert err.value.options == params["totals"]


@pytest.mark.parametrize(
    ("options", "played", "move", "sentence", "params"),
    [
        ({"variant": "98"}, ["KS"], {"type": "play", "card": "2H"},
         "2H on 98 makes 100, over 98: B loses the hand.", {"totals": [100], "low": 100, "high": 100}),
        ({"variant": "99"}, ["KS"], {"type": "play", "card": "AH"},
         "AH on 99 makes 100 or 109, over 99: B loses the hand.", {"totals": [100, 109], "low": 100, "high": 109}),
        ({"variant": "99"}, ["KS"], {"type": "play", "card": "AH", "total": 109},  # the total announced
         "AH on 99 makes 109, over 99: B loses the hand.", {"totals": [109], "low": 109, "high": 109}),
        ({}, ["10S"], {"type": "play", "card": "8H", "total": 108},
         "8H on 100 makes 108, over 100: B loses the hand.", {"totals": [108], "low": 108, "high": 108}),
    ],
)  # fmt: skip
def test_a_play_over_the_target_is_confirmed_first(options, played, move, sentence, params):
    """RULES.md 4.2: a play announced above the target loses the hand; the referee asks first."""
    s = H.start(["A", "B"], {"dealer": "B", **options})
    for card in played:
        s = H.apply(s, {"type": "play", "card": card})
    asked = H.confirm_needed(s, move)
    assert (asked.code, str(asked)) == ("over_target", sentence)
    assert asked.params == {"card": move["card"], "total": s.total, "target": H.target(options), "player": "B"} | params


@pytest.mark.parametrize(
    ("options", "move"),
    [
        ({}, {"type": "play", "card": "8H"}),  # safe
        ({}, {"type": "play", "card": "AC"}),  # any total from 0 to 100: some are safe
        ({}, {"type": "play", "card": "8H", "total": 7}),  # a wrong total: apply says why
        ({}, {"type": "lose"}),
        ({}, {"type": "play"}),  # no card: apply says why
        ({"variant": "99tgames"}, {"type": "play", "card": "KS"}),  # refused, or shown: nothing to ask
        ({"variant": "99"}, {"type": "play", "card": "AH", "total": 50}),  # a total it can't make: apply says why
    ],
)
def test_nothing_is_asked_before_a_safe_play_or_a_move_apply_refuses(options, move):
    s = H.start(["A", "B"], {"dealer": "B", **options})
    s = H.apply(s, {"type": "play", "card": "9S" if options else "4S"})
    assert H.confirm_needed(s, move) is None


def test_nothing_is_asked_once_the_match_is_over():
    """RULES.md 4.4: the last player with tokens has won; no play is left to confirm."""
    s = H.start(["A", "B"], {"dealer": "B", "tokens": 1})
    s = H.apply(H.apply(s, {"type": "play", "card": "10S"}), {"type": "lose"})  # B can't go on 100
    assert s.result == {"winners": ["A"], "losers": ["B"], "draw": False}
    assert H.confirm_needed(s, {"type": "play", "card": "8H"}) is None


@pytest.mark.parametrize("variant", list(H.PRESETS))
def test_a_play_over_the_target_never_makes_a_run_of_totals(variant):
    """RULES.md 4.2: the cards that make more than a few totals (an ace in 100, a black ace in
    Itōke's 99) make any total up from 0 or from the total, so some are never over the target:
    the referee asks first only about totals it can list (no "any total from" words)."""
    options = H.resolve_options({"variant": variant})
    target = H.target(options)
    for total in range(target + 1):
        for card in map(str, PACK_52):
            made = H.effect(card, total, options)[0]
            assert len(made) <= 3 or min(made) <= target, (card, total, made)


@pytest.mark.parametrize(
    ("total", "code", "sentence"),
    [
        (96, "wrong_total_range", "AC on 96 can make any total from 96 to 99, not 50."),
        (97, "wrong_total_choice", "AC on 97 can make 97, 98, or 99, not 50."),
        (98, "wrong_total_choice", "AC on 98 can make 98 or 99, not 50."),
    ],
)
def test_4_3_totals_are_said_as_a_run_from_four_on(total, code, sentence):
    """RULES.md 4.3 (Itōke's black ace: the total up to the target): four totals or more in
    a row are said "any total from .. to ..", three or fewer one by one."""
    s = H.apply(
        H.start(["A", "B", "C"], {"dealer": "C", "variant": "99itoya"}), {"type": "play", "card": "AS", "total": total}
    )
    with pytest.raises(IllegalMove) as err:
        H.apply(s, {"type": "play", "card": "AC", "total": 50})
    assert (err.value.code, err.value.message) == (code, sentence)


def test_4_4_a_tally_of_a_player_out_of_the_match_is_refused():
    """RULES.md 4.4 (D7, tokens): a player with no token left loses no more hands."""
    s = H.apply(H.start(["A", "B", "C"], {"dealer": "C", "tokens": 1}), {"type": "tally", "loser": "B"})
    with pytest.raises(IllegalMove) as err:
        H.apply(s, {"type": "tally", "loser": "B"})
    assert (err.value.code, err.value.message) == ("out_of_match", "B is out of the match.")
