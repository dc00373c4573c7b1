"""Tablanette captures and tallies the search and the checks get right at their edges
(RULES.md 1.4, 1.5)."""

import pytest

from companion.games import InvalidMove
from companion.games import tablanette as T


@pytest.mark.parametrize(
    ("table", "card", "taken"),
    [
        (["2S", "2H", "2D", "2C", "5S"], "4H", ["2S", "2H", "2D", "2C"]),  # two groups of 2 + 2
        (["2S", "2H", "2D", "2C", "3S"], "4S", ["2S", "2H", "2D", "2C"]),
        (["3S", "3H", "3D", "3C", "2S"], "6H", ["3S", "3H", "3D", "3C"]),
    ],
)
def test_1_4_all_four_cards_of_the_lowest_rank_are_taken_in_groups(table, card, taken):
    """RULES.md 1.4 P4-P5: a capture takes every group adding up to the card's value; with all
    four cards of the lowest rank on the table (a rank the search starts from), they pair up."""
    outcomes = [o.sorted_cards() for o in T.capture_options(card, table)]
    assert outcomes == [taken]


def test_1_5_a_tally_whose_sweeps_are_not_a_mapping_is_refused():
    """RULES.md 1.5: each side's sweep bonuses, by side."""
    s = T.start(["Ann", "Ben"])
    move = {"type": "tally", "cards": {"Ann": 26, "Ben": 26}, "counters": {"Ann": [], "Ben": []}, "sweeps": [1]}
    with pytest.raises(InvalidMove) as err:
        T.apply(s, move)
    assert (err.value.code, str(err.value)) == (
        "sweeps_not_mapping",
        "'sweeps' must map each side to its sweep bonuses",
    )


@pytest.mark.parametrize(
    ("card", "table"),
    [
        ("10D", ["5C", "5H"]),  # a pair of one rank
        ("10D", ["5H", "5C"]),
        ("4D", ["2C", "2H", "2S", "KD"]),  # a pair, two of three of a rank
        ("KD", ["6C", "7H", "6H", "7C"]),
        ("QD", ["5C", "7H", "QS", "2C", "3D", "7S"]),
    ],
)
def test_1_4_a_capture_is_written_one_way_whatever_order_the_table_was_tapped_in(card, table):
    """RULES.md 1.4 P4: each group of a capture lists its cards in the pack's order (♠ ♥ ♦ ♣
    within a rank), the groups smallest first: the board, the lab and the API name a capture
    one way, however its cards lie on the table."""
    pack = [str(c) for c in T.PACK]
    for option in T.capture_options(card, table):
        for group in option.groups:
            assert list(group) == sorted(group, key=pack.index), option.groups
    again = T.capture_options(card, list(reversed(table)))
    assert [o.groups for o in again] == [o.groups for o in T.capture_options(card, table)]


@pytest.mark.parametrize(
    "options",
    [{}, {"sweep_aces": "one"}, {"sweep_aces": "one", "ace_as_one": True}, {"sweep_aces": "as_played"}],
)
@pytest.mark.parametrize(
    ("card", "table"), [("AS", ["AH"]), ("AS", ["AH", "AC"]), ("AS", ["AH", "5C", "6D"]), ("AS", ["AH", "8C"])]
)
def test_A1_a_claim_is_judged_as_the_list_of_captures_gives_it(card, table, options):
    """RULES.md 1.4 P4-P8 and A1: the capture a player claims (judge_capture: the cards they
    say they took) is the one the list of legal captures gives for those cards, with the same
    value, bonus and explanation: where an ace as 1 and as 11 score the same, both answers
    take the same one."""
    for option in T.capture_options(card, table, options):
        assert T.judge_capture(card, table, option.cards, options) == option
