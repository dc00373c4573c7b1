"""The engine contract (DESIGN.md): what every game module provides, written as a
``typing.Protocol`` and checked for each module of ``games.GAMES`` when the registry is
imported, so a game missing a member fails at start-up, not at a request.

A game is a plain module of pure functions over an immutable-by-convention state; the
web, the store and the API know a game only through these members. What the store needs
of them is written here and nowhere else (tests/test_store_contract.py plays a toy game
that follows only this text through the store): a ``State`` dataclass whose ``history``
lists the finished deals' records; ``start``, ``apply``, ``view``, ``dump``, ``load``;
``narrate``'s sentences, worked out once when a move is entered; and ``figures``.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any, Protocol, cast

from companion.errors import Reason
from companion.games.common import Start

#: Keys every ``view(state)`` carries (a game adds its own): what the web reads.
VIEW_KEYS = frozenset(
    {
        "game",
        "players",
        "sides",
        "dealer",
        "deal",
        "expects",
        "to_act",
        "seen",
        "history",
        "result",
        "options",
        "rulings",
        "ruled",
    }
)


class Rules(Protocol):
    """A game module. Data members describe the game and its options (read, never set:
    mypy checks each engine module against them as read-only); functions are pure."""

    #: The registry key ("tablanette") and the title players read ("Tablanette").
    @property
    def NAME(self) -> str: ...
    @property
    def TITLE(self) -> str: ...
    @property
    def MIN_PLAYERS(self) -> int: ...
    @property
    def MAX_PLAYERS(self) -> int: ...

    #: How the players sit, one sentence for the new-game form.
    @property
    def SEATING(self) -> str: ...

    #: A frozen dataclass of every option with its default; ``OPTION_NAMES`` its fields.
    @property
    def Options(self) -> type: ...
    @property
    def OPTION_NAMES(self) -> tuple[str, ...]: ...

    #: Each option's label and one-line hint on screen.
    @property
    def OPTION_LABELS(self) -> Mapping[str, str]: ...
    @property
    def OPTION_HELP(self) -> Mapping[str, str]: ...

    #: Options whose value is one of a few codes, and how each code reads on screen.
    @property
    def CHOICES(self) -> Mapping[str, tuple[Any, ...]]: ...
    @property
    def CHOICE_LABELS(self) -> Mapping[str, Mapping[Any, str]]: ...

    #: One-tap starts of the new-game form, the usual game first.
    @property
    def STARTS(self) -> Mapping[str, Start]: ...

    #: The state's dataclass: plain data (scalars, lists, dicts, the options), so that
    #: ``dump`` and ``load`` round-trip it. Its field ``history`` lists the finished deals'
    #: records (plain dicts, each with at least ``deal`` and ``points`` by side label), in
    #: order; a record once written is never changed (a state and the states after it
    #: share them: ``apply`` adds to a list of its own). The store keeps the records apart
    #: and hands a state back (``load``, a state it kept) with the last one only:
    #: ``apply``, ``view`` and ``narrate`` read no record before the last.
    @property
    def State(self) -> type: ...

    def resolve_options(self, options: Any, players: int | None = None) -> Any:
        """Validate an options dict into ``Options`` (``OptionError`` names what is wrong)."""

    def start(self, players: list[str], options: dict[str, Any] | None = None) -> Any:
        """A new game's state (``OptionError`` for bad players or options)."""

    def apply(self, state: Any, move: dict[str, Any]) -> Any:
        """The state after ``move`` (a new one: ``state`` is left as it was); ``MoveError``
        (and its kinds) when it is refused, ``AmbiguousMove`` naming the ``options`` when
        the move must choose."""

    def view(self, state: Any) -> dict[str, Any]:
        """Plain JSON data for the pages and the API, with at least ``VIEW_KEYS``: ``result``
        None while the game goes on, then ``{"winners": [...], "draw": bool}`` (side
        labels); ``deal`` the deal being played (1-based); ``scores`` (side label ->
        points) or ``losses`` (player -> marks) when the game keeps them."""

    def dump(self, state: Any) -> dict[str, Any]:
        """The state as plain JSON data for the store, its finished deals under
        ``"history"``; ``load`` reads it back (with the last of them only, or all)."""

    def load(self, data: dict[str, Any]) -> Any: ...

    def narrate(self, state: Any, move: dict[str, Any]) -> list[Reason]:
        """One move in words, from the state it led to: its sentences, each a ``Reason``
        (code, English %-format text, params) the web words in the reader's language.
        The store works them out once, when the move is entered, and keeps them with the
        move (``Reason.as_data``): the move log and Undo's label read them from there."""

    def expects(self, state: Any) -> list[str]:
        """The move types the state accepts next (empty once the game is over)."""

    def to_act(self, state: Any) -> int | None:
        """The seat whose move it is, or None."""

    def sides(self, state: Any) -> list[list[str]]:
        """The scoring sides: a player each, or partners together."""

    def figures(self, view: dict[str, Any]) -> dict[str, dict[str, int]]:
        """What the statistics count for each side, from a view (its ``history`` and
        ``result`` as far as they count): side label -> a number for each of
        ``common.FIGURES`` (0 for what the game has no such thing as)."""


#: Members a game may add, with what they must be.
OPTIONAL: dict[str, type] = {
    "USUAL": Mapping,  # options whose blank means "the usual for the table": a phrase each
    "PRESETS": Mapping,  # named rule sets an option ``preset`` selects
    # (state, move) -> a question to confirm first, or None. An ABC at run time; mypy sees a special form.
    "confirm_needed": cast(type, Callable),
    # the refusal codes a table may rule against (RULES.md 5.2): a move with "ruled": true then stands
    "RULABLE": frozenset,
}

_DATA = {
    "NAME": str,
    "TITLE": str,
    "MIN_PLAYERS": int,
    "MAX_PLAYERS": int,
    "SEATING": str,
    "Options": type,
    "OPTION_NAMES": tuple,
    "OPTION_LABELS": Mapping,
    "OPTION_HELP": Mapping,
    "CHOICES": Mapping,
    "CHOICE_LABELS": Mapping,
    "STARTS": Mapping,
    "State": type,
}
_FUNCTIONS = (
    "resolve_options",
    "start",
    "apply",
    "view",
    "dump",
    "load",
    "narrate",
    "expects",
    "to_act",
    "sides",
    "figures",
)


def problems(module: ModuleType) -> list[str]:
    """What ``module`` lacks or gets wrong against the contract (empty: it conforms)."""
    name = getattr(module, "__name__", repr(module))
    out = [f"{name}.{attr} is missing" for attr in (*_DATA, *_FUNCTIONS) if not hasattr(module, attr)]
    if out:
        return out
    out += [
        f"{name}.{attr} must be a {kind.__name__}"
        for attr, kind in (_DATA | OPTIONAL).items()
        if hasattr(module, attr) and not isinstance(getattr(module, attr), kind)
    ]
    for attr in _FUNCTIONS:
        wanted = [p for p in inspect.signature(getattr(Rules, attr)).parameters if p != "self"]
        try:
            inspect.signature(getattr(module, attr)).bind(*wanted)
        except TypeError:
            out.append(f"{name}.{attr} must take ({', '.join(wanted)})")
    if not dataclasses.is_dataclass(module.Options):
        return out + [f"{name}.Options must be a dataclass"]
    fields = tuple(f.name for f in dataclasses.fields(module.Options))
    for attr in ("OPTION_LABELS", "OPTION_HELP"):
        if set(getattr(module, attr)) != set(fields):
            out.append(f"{name}.{attr} must name every option: {sorted(set(fields) ^ set(getattr(module, attr)))}")
    if module.OPTION_NAMES != fields:
        out.append(f"{name}.OPTION_NAMES must be the fields of Options")
    out += [f"{name}.CHOICES[{key!r}] is not an option" for key in module.CHOICES if key not in fields]
    if not module.STARTS or not all(isinstance(s, Start) for s in module.STARTS.values()):
        out.append(f"{name}.STARTS must be one or more Start")
    if not 1 <= module.MIN_PLAYERS <= module.MAX_PLAYERS:
        out.append(f"{name}: MIN_PLAYERS and MAX_PLAYERS must make a range")
    return out


def check(module: ModuleType) -> Rules:
    """``module`` as ``Rules``; ``TypeError`` listing every problem when it does not conform."""
    found = problems(module)
    if found:
        raise TypeError("A game module breaks the engine contract:\n  " + "\n  ".join(found))
    return module
