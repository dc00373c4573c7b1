"""The game registry and the error types of the engine contract (DESIGN.md).

>>> from companion import games
>>> rules = games.get("tablanette")
>>> state = rules.start(["Ann", "Ben"], None)
>>> rules.view(state)["expects"]
['layout', 'tally']
"""

from importlib import import_module

from companion.errors import AmbiguousMove, IllegalMove, InvalidMove, MoveError, OptionError

__all__ = ["GAMES", "get", "MoveError", "InvalidMove", "IllegalMove", "AmbiguousMove", "OptionError"]

#: Game name -> module, in the order the app lists them. A game appears here once its
#: engine exists; the web and the API take their list from this table.
GAMES = {
    "tablanette": "companion.games.tablanette",
    "tute": "companion.games.tute",
    "tantony": "companion.games.tantony",
    "hundred": "companion.games.hundred",
}


def get(name: str):
    """Return the rules module of a game: ``start``, ``apply``, ``view``, ``dump``, ``load``."""
    try:
        return import_module(GAMES[name])
    except KeyError:
        raise OptionError(f"Unknown game {name!r}; known games: {', '.join(GAMES)}") from None
