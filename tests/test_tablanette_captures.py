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
