"""A card tap never lists every legal capture (issue 17): ``some_captures`` counts the
first few and stops, and a capture tapped card by card is judged on its own. These check,
on tables small enough to enumerate and under every preset and option set, that the tap
path agrees exactly with ``capture_options`` (RULES.md 1.4 P1-P8, 1.11), the dispute
lab's full list."""

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cards import PACK_52
from companion.games import AmbiguousMove, IllegalMove
from companion.games import tablanette as T

ALL = [str(c) for c in PACK_52]

PRESETS = st.sampled_from(list(T.PRESETS))
OPTION_SETS = st.fixed_dictionaries(
    {"preset": PRESETS},
    optional={
        "max_group_size": st.sampled_from([2, 3, 4, None]),
        "jack_is_12": st.booleans(),
        "forced_capture": st.sampled_from([True, "any", False]),
        "ace_as_one": st.booleans(),
        "jack_sweep_is_tablanette": st.booleans(),
        "sweep_scoring": st.sampled_from(["values", "flat1"]),
        "sweep_aces": st.sampled_from(["eleven", "one", "as_played"]),
    },
)


def every(played, table, o):
    return [c.sorted_cards() for c in T.capture_options(played, table, o)]


def in_play(options, table):
    """A 2-player game in its first round, ``table`` on the table, nothing else seen."""
    o = T.resolve_options(options)
    state = T.start(["Ann", "Ben"], options)
    state = T.apply(state, {"type": "layout", "cards": [c for c in ALL if c[0] != "J"][:4]})
    data = T.dump(state)
    data["table"] = list(table)
    return T.load(data), o


@settings(max_examples=300, deadline=None)
@given(deck=st.permutations(ALL), size=st.integers(0, 10), options=OPTION_SETS, limit=st.integers(1, 12))
def test_some_captures_is_a_prefix_count_of_capture_options(deck, size, options, limit):
    """RULES.md 1.4: the first ``limit`` legal captures, each legal and listed once, and
    "complete" exactly when they are all; complete, they are ``capture_options`` in order."""
    o = T.resolve_options(options)
    played, table = deck[0], deck[1 : 1 + size]
    full = every(played, table, o)
    some, complete = T.some_captures(played, table, o, limit)
    assert complete == (len(full) <= limit)
    if complete:
        assert some == full
    else:
        assert len(some) == limit
        assert len({frozenset(c) for c in some}) == limit
        assert all(c in full for c in some)
        assert ([] in some) == ([] in full)  # laying down is always named when legal
    whole, whole_complete = T.some_captures(played, table, o)
    assert whole_complete == (len(full) <= T.LISTED)
    if whole_complete:
        assert whole == full


@settings(max_examples=120, deadline=None)
@given(deck=st.permutations(ALL), size=st.integers(0, 7), options=OPTION_SETS)
def test_tapping_the_taken_cards_accepts_exactly_the_legal_captures(deck, size, options):
    """RULES.md 1.11: a play sent with its capture (the cards tapped one by one) is
    accepted for every subset of the table that ``capture_options`` lists, with its
    outcome (what is left, the pile, the sweep bonus), and refused for every other."""
    state, o = in_play(options, deck[1 : 1 + size])
    played, table = deck[0], state.table
    legal = {frozenset(c.cards): c for c in T.capture_options(played, table, o)}
    for k in range(len(table) + 1):
        for taken in itertools.combinations(table, k):
            move = {"type": "play", "card": played, "capture": list(taken)}
            if frozenset(taken) not in legal:
                with pytest.raises(IllegalMove) as refused:
                    T.apply(state, move)
                assert all(c in every(played, table, o) for c in refused.value.options)
                continue
            after = T.apply(state, move)
            expected = legal[frozenset(taken)]
            left = [c for c in table if c not in taken] + ([] if taken else [played])
            assert sorted(after.table) == sorted(left)
            # The first play of a deal: every pile and sweep is this one's.
            assert sorted(c for pile in after.piles for c in pile) == sorted([played, *taken] if taken else [])
            assert sum(map(sum, after.sweeps)) == expected.bonus


@settings(max_examples=200, deadline=None)
@given(deck=st.permutations(ALL), size=st.integers(0, 9), options=OPTION_SETS)
def test_a_card_without_its_capture_asks_which_when_there_is_a_choice(deck, size, options):
    """RULES.md 1.11: a card sent without its capture is played when one outcome is legal,
    and refused with the legal ones (all of them, in the lab's order) when there are more."""
    state, o = in_play(options, deck[1 : 1 + size])
    played = deck[0]
    full = every(played, state.table, o)
    move = {"type": "play", "card": played}
    if len(full) == 1:
        after = T.apply(state, move)
        assert after == T.apply(state, {**move, "capture": full[0]})
        return
    with pytest.raises(AmbiguousMove) as asked:
        T.apply(state, move)
    assert asked.value.options == full[: T.LISTED]


def test_a_free_capture_on_twenty_cards_names_a_few_and_counts_past_the_list():
    """Issue 17: Tablić (captures optional) on a 20-card table offers tens of thousands of
    captures; a card sent without one is refused with the first LISTED and "more than"."""
    table = [f"{r}{s}" for r in "A2345" for s in "SHDC"]
    state, o = in_play({"preset": "tablic"}, table)
    with pytest.raises(AmbiguousMove) as asked:
        T.apply(state, {"type": "play", "card": "KD"})
    assert asked.value.code == "say_which_of_more"
    assert len(asked.value.options) == T.LISTED
    assert asked.value.params["count"] == T.LISTED
    assert len(asked.value.params["choices"]) == T.NAMED + 1
