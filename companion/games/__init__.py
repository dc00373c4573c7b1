"""The game registry and the error types of the engine contract (DESIGN.md).

>>> from companion import games
>>> rules = games.get("tablanette")
>>> state = rules.start(["Ann", "Ben"], None)
>>> rules.view(state)["expects"]
['layout', 'tally']
"""

from importlib import import_module
from typing import TYPE_CHECKING

from companion.errors import AmbiguousMove, IllegalMove, InvalidMove, MoveError, OptionError
from companion.games.common import FIGURES, side_label
from companion.games.contract import Rules, check

__all__ = [
    "GAMES",
    "get",
    "FIGURES",
    "side_label",
    "Rules",
    "MoveError",
    "InvalidMove",
    "IllegalMove",
    "AmbiguousMove",
    "OptionError",
]

#: Game name -> module, in the order the app lists them. A game appears here once its
#: engine exists; the web and the API take their list from this table.
GAMES = {
    "tablanette": "companion.games.tablanette",
    "tute": "companion.games.tute",
    "tantony": "companion.games.tantony",
    "hundred": "companion.games.hundred",
}


#: Each game's module, checked against the engine contract (games/contract.py) when the
#: registry is imported: a game that lacks a member stops the app at start-up.
_RULES: dict[str, Rules] = {name: check(import_module(path)) for name, path in GAMES.items()}

if TYPE_CHECKING:  # and by mypy (strict on the engines): each module's members have the contract's types
    from companion.games import hundred, tablanette, tantony, tute

    _TYPED: tuple[Rules, ...] = (tablanette, tute, tantony, hundred)


def get(name: str) -> Rules:
    """The rules module of a game (see ``contract.Rules``); ``OptionError`` for an unknown name."""
    try:
        return _RULES[name]
    except KeyError:
        raise OptionError(
            "unknown_game", "Unknown game %(game)r; known games: %(known)s", game=name, known=", ".join(GAMES)
        ) from None
