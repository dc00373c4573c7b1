"""Tute Cabrón's refusals of what is not a suit or not a player, in words (RULES.md 2.2, 2.6)."""

import pytest

from companion.games import InvalidMove, OptionError
from companion.games import tute as T


@pytest.mark.parametrize("suit", ["X", "bastón", 7])
def test_2_2_a_suit_is_s_h_d_or_c_a_symbol_or_a_spanish_name(suit):
    """RULES.md 2.2: oros = D, copas = H, espadas = S, bastos = C; anything else is refused."""
    with pytest.raises(InvalidMove) as err:
        T.trick_winner(["7S", "2D"], suit)
    assert (err.value.code, err.value.params, str(err.value)) == (
        "not_a_suit",
        {"suit": suit},
        f"{suit!r} is not a suit: use S, H, D or C",
    )
    assert [T.trick_winner(["7S", "2D"], s) for s in ("d", "♦", "oros", "S", None)] == [1, 1, 1, 0, 0]


def test_2_6_the_last_trick_is_taken_by_a_player():
    """RULES.md 2.6: the last trick's taker is one of the players."""
    with pytest.raises(InvalidMove) as err:
        T.deal_outcome({"P1": 50, "P2": 50, "P3": 20}, "P9")
    assert (err.value.code, str(err.value)) == ("last_trick_not_playing", "'P9' is not one of the players")
    with pytest.raises(OptionError) as err:
        T.deal_outcome({"P1": 120}, "P1")
    assert (err.value.code, str(err.value)) == ("deal_player_count", "Tute Cabrón is for 3, 4 or 5 players")
