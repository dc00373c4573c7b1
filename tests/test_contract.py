"""The engine contract as code (games/contract.py): every registered game conforms, and a
module that does not is named with what it lacks, at import (DESIGN.md, issue 13)."""

import doctest
import importlib
import pkgutil
import types

import pytest

import companion
from companion import games
from companion.games import contract

PLAYERS = {n: [f"P{i}" for i in range(1, games.get(n).MIN_PLAYERS + 1)] for n in games.GAMES}


@pytest.mark.parametrize("game", games.GAMES)
def test_every_game_conforms(game):
    assert contract.problems(games.get(game)) == []


def copy_of(game: str, **changes) -> types.ModuleType:
    """A stand-in module: a real game's members, some removed (None) or replaced."""
    module = types.ModuleType(f"broken_{game}")
    for attr in dir(games.get(game)):
        if not attr.startswith("__"):
            setattr(module, attr, getattr(games.get(game), attr))
    for attr, value in changes.items():
        if value is None:
            delattr(module, attr)
        else:
            setattr(module, attr, value)
    return module


@pytest.mark.parametrize(
    "changes, words",
    [
        ({"narrate": None}, "broken_tute.narrate is missing"),
        ({"apply": lambda state: state}, "broken_tute.apply must take (state, move)"),
        ({"TITLE": 7}, "broken_tute.TITLE must be a str"),
        ({"OPTION_LABELS": {"loss_limit": "Loss marks"}}, "OPTION_LABELS must name every option"),
        ({"CHOICES": {"colour": ("red",)}}, "CHOICES['colour'] is not an option"),
        ({"STARTS": {}}, "STARTS must be one or more Start"),
        ({"USUAL": ["deals"]}, "USUAL must be a Mapping"),
    ],
)
def test_a_module_that_breaks_the_contract_is_named_with_what_it_lacks(changes, words):
    found = contract.problems(copy_of("tute", **changes))
    assert any(words in p for p in found), found
    with pytest.raises(TypeError, match="breaks the engine contract"):
        contract.check(copy_of("tute", **changes))


@pytest.mark.parametrize("game", games.GAMES)
def test_every_view_carries_the_keys_the_web_reads(game):
    rules = games.get(game)
    state = rules.start(PLAYERS[game])
    assert contract.VIEW_KEYS <= set(rules.view(state))
    assert rules.expects(state) == rules.view(state)["expects"]
    assert rules.load(rules.dump(state)) == state


@pytest.mark.parametrize("game", games.GAMES)
def test_every_start_is_a_valid_way_to_play_for_some_table(game):
    rules = games.get(game)
    for key, start in rules.STARTS.items():
        sizes = [n for n in range(rules.MIN_PLAYERS, rules.MAX_PLAYERS + 1) if _resolves(rules, start.options, n)]
        assert sizes, key


def _resolves(rules, options, players) -> bool:
    try:
        rules.resolve_options(options, players)
    except games.OptionError:
        return False
    return True


def test_the_doctests_in_the_code_pass():
    """Every docstring example in companion/ runs as part of the suite."""
    attempted = 0
    for info in pkgutil.walk_packages(companion.__path__, "companion."):
        module = importlib.import_module(info.name)
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, info.name
        attempted += result.attempted
    assert attempted >= 40, attempted


def test_the_contract_says_narrate_gives_sentences():
    """What the store keeps of a move's words (issue 44): a list of ``Reason``s, as every
    engine gives (mypy checks each module against ``Rules``), not "a Reason or a str"."""
    import typing

    from companion.errors import Reason

    assert typing.get_type_hints(contract.Rules.narrate)["return"] == list[Reason]
    for game in games.GAMES:
        rules = games.get(game)
        assert typing.get_type_hints(rules.narrate)["return"] == list[Reason], game


def test_check_names_every_problem_of_a_module_at_once():
    """DESIGN.md engine contract: a module that breaks it stops the app at start-up, with every
    problem listed, each naming the module and the member."""
    broken = copy_of("tute", TITLE=7, apply=lambda state: state, Options=dict)
    assert contract.problems(broken) == [
        "broken_tute.TITLE must be a str",
        "broken_tute.apply must take (state, move)",
        "broken_tute.Options must be a dataclass",
    ]
    with pytest.raises(TypeError) as err:
        contract.check(copy_of("tute", narrate=None))
    assert str(err.value) == "A game module breaks the engine contract:\n  broken_tute.narrate is missing"


def test_the_option_tables_must_name_exactly_the_options():
    """DESIGN.md: labels, help and names cover the Options fields, no more and no fewer."""
    tute = games.get("tute")
    labels = {k: v for k, v in tute.OPTION_LABELS.items() if k != "loss_limit"} | {"colour": "Colour"}
    found = contract.problems(copy_of("tute", OPTION_LABELS=labels, OPTION_NAMES=tute.OPTION_NAMES[::-1]))
    assert found == [
        "broken_tute.OPTION_LABELS must name every option: ['colour', 'loss_limit']",
        "broken_tute.OPTION_NAMES must be the fields of Options",
    ]


@pytest.mark.parametrize(
    ("low", "high", "ok"), [(1, 1, True), (2, 2, True), (2, 20, True), (0, 4, False), (3, 2, False)]
)
def test_the_players_a_game_takes_make_a_range_from_one(low, high, ok):
    found = contract.problems(copy_of("tute", MIN_PLAYERS=low, MAX_PLAYERS=high))
    assert found == ([] if ok else ["broken_tute: MIN_PLAYERS and MAX_PLAYERS must make a range"])


def test_something_without_a_name_is_named_by_its_repr():
    found = contract.problems(types.SimpleNamespace())
    assert found[0] == "namespace().NAME is missing"


def test_check_lists_each_problem_on_its_own_line():
    with pytest.raises(TypeError) as err:
        contract.check(copy_of("tute", narrate=None, view=None))
    assert str(err.value) == (
        "A game module breaks the engine contract:\n  broken_tute.view is missing\n  broken_tute.narrate is missing"
    )
