"""What a game page's board shows, rendered the same on the server and in the phone.

Issue 45: the phone referees with the same engines and the same templates as the server.
Everything a board needs besides the engine's view is here, pure (the standard library,
Jinja2 and MarkupSafe: all of it runs in the phone's Pyodide worker): each game's board
module (companion/board/<game>.py: when its deal is over, who plays next, what changes the
grid), the card and refusal markup (markup.py), the links a board holds (links.py), and
the one way a board's answer is rendered (templating.py). The web adapters
(companion/web/<game>.py) keep what runs only on the server: the API's schemas (pydantic),
the tally forms (WTForms) and the dispute lab. docs/DESIGN.md, "The phone", says where the
line runs.

Each board module is checked when imported, as the engines and the adapters are.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from importlib import import_module
from types import ModuleType
from typing import Any, Protocol

from companion import games
from companion.board.common import DealWords


class Board(Protocol):
    """A game's board module."""

    #: How the engine's refusals cite this game's rules ("Tablanette 1.4", "100/99/98 4.3").
    CITED: str
    #: The options its dispute lab lets you change in place.
    LAB_OPTIONS: tuple[str, ...]
    #: The parts of the view its record below the grid shows (play/<game>/_record.html;
    #: none for a game without one): an answer sends the record again only when one changed.
    RECORD: tuple[str, ...]
    #: The moves whose turn changes what the card picker shows (play/<game>/_picker.html
    #: asks ``'x' in view.expects``): an answer sends the whole picker again only when one
    #: of them comes or goes, or the deal or the game's end does; else just the cards that
    #: changed. Tute's cante, open after each trick, changes nothing in it.
    PICKER: tuple[str, ...]
    #: What the shared pages call one of its deals.
    DEAL: DealWords

    def position(self, view: dict[str, Any]) -> dict[str, Any]:
        """The lab's query for a live game's position ("Rules question?")."""

    def ended(self, view: dict[str, Any]) -> dict[str, Any] | None:
        """The deal just finished, from its end to the next deal's first move (or for good
        once the game is over): its record, which the screen that ends a deal shows."""

    def turns(self, view: dict[str, Any]) -> dict[str, list[str]]:
        """Who plays the next cards, as far as the rules make it certain without the server
        (``common.turns``): what a phone shows of the taps waiting while it is offline."""


_MEMBERS: dict[str, Any] = {
    "CITED": str,
    "LAB_OPTIONS": tuple,
    "RECORD": tuple,
    "PICKER": tuple,
    "DEAL": DealWords,
    "position": Callable,
    "ended": Callable,
    "turns": Callable,
}


def problems(name: str, module: ModuleType) -> list[str]:
    """What the board module of game ``name`` lacks or gets wrong (empty: it is complete)."""
    out = [
        f"{module.__name__}.{m} is missing or not a {kind.__name__}"
        for m, kind in _MEMBERS.items()
        if not isinstance(getattr(module, m, None), kind)
    ]
    if out:
        return out
    rules = games.get(name)
    out += [
        f"{module.__name__}.LAB_OPTIONS: {o!r} is not an option"
        for o in module.LAB_OPTIONS
        if o not in rules.OPTION_NAMES
    ]
    for fn in ("position", "ended", "turns"):
        if len(inspect.signature(getattr(module, fn)).parameters) != 1:
            out.append(f"{module.__name__}.{fn} must take 1 parameter")
    return out


def _checked(name: str) -> Board:
    module = import_module(f"companion.board.{name}")
    found = problems(name, module)
    if found:
        raise TypeError(f"The board of {name} is incomplete:\n  " + "\n  ".join(found))
    return module  # type: ignore[return-value]


#: Each game's board, in the order of ``games.GAMES``.
BOARDS: dict[str, Board] = {name: _checked(name) for name in games.GAMES}


def get(name: str) -> Board:
    return BOARDS[name]
