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
