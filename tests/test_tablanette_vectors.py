"""Every Tablanette capture vector (RULES.md 1.8, vectors.json "tablanette_captures").

Each vector is checked three ways: ``capture_options`` lists exactly its outcomes,
``judge_capture`` accepts each listed outcome with the same sweep and bonus, and the
game accepts it through ``apply`` on a table laid out the same way.
"""

import json
import re

import pytest

from companion.cards import PACK_52, Card
from companion.games import AmbiguousMove, IllegalMove, tablanette
from tests import DOCS, VECTORS_FILE

VECTORS = json.loads(VECTORS_FILE.read_text(encoding="utf-8"))["tablanette_captures"]
BY_ID = {v["id"]: v for v in VECTORS}


def outcome_set(captures):
    return {(tuple(sorted(c.cards)), c.sweep, c.bonus) for c in captures}


def expected_set(vector):
    return {(tuple(sorted(c["cards"])), c["sweep"], c["bonus"]) for c in vector["captures"]}


def game_with_table(table, options, played):
    """A 2-player game, in play, whose table is exactly ``table``.

    A table of 4 cards without a special jack is laid out by a real ``layout`` move.
    Any other table can't come from a layout, so the game is laid out with 4 cards the
    vector does not use and its table is then set through ``dump``/``load`` (the state is
    plain data: DESIGN.md "States serialise").
    """
    state = tablanette.start(["Ann", "Ben"], dict(options))
    if len(table) == 4 and all(_layout_ok(c, state) for c in table):
        return tablanette.apply(state, {"type": "layout", "cards": list(table)})
    used = {str(Card.parse(c)) for c in [*table, played]}
    filler = [str(c) for c in PACK_52 if str(c) not in used and _layout_ok(str(c), state)][:4]
    state = tablanette.apply(state, {"type": "layout", "cards": filler})
    data = tablanette.dump(state)
    data["table"] = [str(Card.parse(c)) for c in table]
    return tablanette.load(data)


def _layout_ok(card, state):
    return Card.parse(card).rank != "J" or state.options.jack_is_12


def test_vectors_file_is_the_engine_spelling():
    """vectors.json "_about": cards use the engine's canonical codes."""
    for v in VECTORS:
        for card in [v["played"], *v["table"], *(c for o in v["captures"] for c in o["cards"])]:
            assert str(Card.parse(card)) == card, (v["id"], card)


def test_every_vector_of_the_rules_table_is_in_the_json():
    """RULES.md 1.8: every TB-xx row of the table has its machine-readable copy."""
    rules = (DOCS / "RULES.md").read_text(encoding="utf-8")
    ids = set(re.findall(r"^\| (TB-\d+u?) \|", rules, flags=re.M))
    assert len(ids) >= 32
    assert ids <= set(BY_ID), sorted(ids - set(BY_ID))


@pytest.mark.parametrize("vector", VECTORS, ids=[v["id"] for v in VECTORS])
def test_capture_options(vector):
    """RULES.md 1.8 / 1.4 P1-P8: capture_options lists exactly the vector's outcomes."""
    got = tablanette.capture_options(vector["played"], vector["table"], vector["options"])
    assert outcome_set(got) == expected_set(vector)
    # Cards are canonical strings; a capture lists no card twice.
    assert len(got) == len(outcome_set(got))
    for c in got:
        assert isinstance(c.cards, frozenset)
        assert c.bonus == 0 or c.sweep


@pytest.mark.parametrize("vector", VECTORS, ids=[v["id"] for v in VECTORS])
def test_capture_options_accept_any_spelling(vector):
    """DESIGN.md: cards may come in any accepted spelling or as Card objects."""
    low = [c.lower() for c in vector["table"]]
    sym = [Card.parse(c).symbol for c in vector["table"]]
    objs = [Card.parse(c) for c in vector["table"]]
    expected = expected_set(vector)
    assert outcome_set(tablanette.capture_options(vector["played"].lower(), low, vector["options"])) == expected
    assert (
        outcome_set(tablanette.capture_options(Card.parse(vector["played"]).symbol, sym, vector["options"])) == expected
    )
    assert outcome_set(tablanette.capture_options(Card.parse(vector["played"]), objs, vector["options"])) == expected


@pytest.mark.parametrize("vector", VECTORS, ids=[v["id"] for v in VECTORS])
def test_judge_capture_accepts_each_legal_outcome(vector):
    """RULES.md 1.11: each legal outcome, declared, is accepted with the same sweep and bonus."""
    for c in vector["captures"]:
        judged = tablanette.judge_capture(vector["played"], vector["table"], c["cards"], vector["options"])
        assert judged is not None, c
        assert sorted(judged.cards) == sorted(c["cards"])
        assert (judged.sweep, judged.bonus) == (c["sweep"], c["bonus"])


@pytest.mark.parametrize("vector", VECTORS, ids=[v["id"] for v in VECTORS])
def test_judge_capture_refuses_every_other_subset(vector):
    """RULES.md 1.11: a claimed set that is not among the legal outcomes is refused."""
    table = vector["table"]
    legal = {tuple(sorted(c["cards"])) for c in vector["captures"]}
    for mask in range(1 << len(table)):
        subset = [table[i] for i in range(len(table)) if mask >> i & 1]
        if tuple(sorted(subset)) in legal:
            continue
        assert tablanette.judge_capture(vector["played"], table, subset, vector["options"]) is None, subset


@pytest.mark.parametrize("vector", VECTORS, ids=[v["id"] for v in VECTORS])
def test_apply_accepts_each_legal_outcome(vector):
    """RULES.md 1.4 P6-P8: each legal outcome through the game: table, pile, sweep, score."""
    state = game_with_table(vector["table"], vector["options"], vector["played"])
    player = tablanette.view(state)["to_act"]
    for c in vector["captures"]:
        after = tablanette.apply(
            state, {"type": "play", "card": vector["played"], "capture": c["cards"], "player": player}
        )
        v = tablanette.view(after)
        taken = set(c["cards"])
        if taken:
            assert sorted(v["table"]) == sorted(x for x in vector["table"] if x not in taken)
            assert set(v["captured"][player]) >= taken | {vector["played"]}
            assert v["last_capturer"] == player
        else:
            assert v["table"] == [*state.table, vector["played"]]
        assert v["last"]["sweep"] is c["sweep"]
        assert v["last"]["bonus"] == c["bonus"]
        assert v["sweeps"][player] == ([c["bonus"]] if c["sweep"] else [])
        assert v["scores"][player] == (c["bonus"] if c["sweep"] else 0)


@pytest.mark.parametrize("vector", VECTORS, ids=[v["id"] for v in VECTORS])
def test_apply_without_capture(vector):
    """DESIGN.md moves: "capture" may be left out only when one outcome is legal."""
    state = game_with_table(vector["table"], vector["options"], vector["played"])
    move = {"type": "play", "card": vector["played"]}
    if len(vector["captures"]) == 1:
        after = tablanette.apply(state, move)
        assert sorted(after.last["taken"]) == sorted(vector["captures"][0]["cards"])
        assert after.last["bonus"] == vector["captures"][0]["bonus"]
    else:
        with pytest.raises(AmbiguousMove) as err:
            tablanette.apply(state, move)
        assert {tuple(sorted(o)) for o in err.value.options} == {tuple(sorted(c["cards"])) for c in vector["captures"]}
        assert len(err.value.options) == len(vector["captures"])


@pytest.mark.parametrize("vector", VECTORS, ids=[v["id"] for v in VECTORS])
def test_apply_refuses_a_capture_not_listed(vector):
    """RULES.md 1.11: a declared capture outside the legal outcomes is an IllegalMove that lists them."""
    state = game_with_table(vector["table"], vector["options"], vector["played"])
    legal = {tuple(sorted(c["cards"])) for c in vector["captures"]}
    table = vector["table"]
    for mask in range(1 << len(table)):
        subset = [table[i] for i in range(len(table)) if mask >> i & 1]
        if tuple(sorted(subset)) in legal:
            continue
        with pytest.raises(IllegalMove) as err:
            tablanette.apply(state, {"type": "play", "card": vector["played"], "capture": subset})
        assert {tuple(sorted(o)) for o in err.value.options} == legal
        assert "Legal:" in str(err.value)
        break  # one refused subset per vector is enough through the game path


def test_tb28_in_tablic_mode_also_allows_each_group_alone():
    """RULES.md 1.8 TB-28 note: with forced_capture false, {AS, 8S} or {3C, 6D} alone are legal too."""
    v = BY_ID["TB-28"]
    got = {
        tuple(sorted(c.cards)) for c in tablanette.capture_options(v["played"], v["table"], {"forced_capture": False})
    }
    assert ("3C", "6D", "8S", "AS") in got
    assert ("8S", "AS") in got
    assert ("3C", "6D") in got
    assert () in got  # and laying the card down
    assert got == {("3C", "6D", "8S", "AS"), ("8S", "AS"), ("3C", "6D"), ()}


def test_tb29_pagat_names_seven_plus_three():
    """RULES.md 1.8 TB-29: the two captures share the 3, so neither holds the other."""
    v = BY_ID["TB-29"]
    got = tablanette.capture_options(v["played"], v["table"], v["options"])
    assert {c.cards for c in got} == {frozenset({"3C", "7H"}), frozenset({"AS", "3C", "6D"})}


def test_vectors_use_the_52_card_pack():
    """The vectors only use cards of the 52-card pack (RULES.md 1.2)."""
    pack = {str(c) for c in PACK_52}
    for v in VECTORS:
        assert {v["played"], *v["table"]} <= pack
