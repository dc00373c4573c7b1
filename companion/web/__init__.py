"""What the web knows of each game, in one module per game (companion/web/<game>.py),
registered from ``games.GAMES`` and checked when imported, as the engines are: a game
whose adapter lacks a member stops the app at start-up, not a request.

Adding a game is its engine (companion/games/), its board (companion/board/), its adapter
here, and its templates
(templates/play/<game>/, templates/rules/_lab_<game>.html and _text_<game>.html).
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Mapping
from importlib import import_module
from types import ModuleType
from typing import Any, Protocol

from flask_babel import gettext as _

from companion import board, games, schemas
from companion.errors import N_
from companion.schemas import Move
from companion.web.tally import TallyForm


class Adapter(Protocol):
    """A game's adapter module."""

    #: A game as the page posts it: {"players", "moves", "said"} (the second move in words).
    SAMPLE: Mapping[str, Any]
    #: The tally screen's form.
    Tally: type[TallyForm]
    #: Its moves as the API and the picker send them: one ``schemas.Move`` per type.
    MOVES: tuple[type[Move], ...]
    #: Its moves' fields as a refusal of the API names them, by field ("card") or by a
    #: move's type and field ("layout.cards"); ``type`` and ``player`` are every game's.
    FIELD_LABELS: Mapping[str, str]

    def lab(self, rules: Any, opts: Any, q: Any) -> dict[str, Any]:
        """The dispute lab's answers for the position ``q`` reads."""


_MEMBERS: dict[str, Any] = {
    "SAMPLE": Mapping,
    "Tally": type,
    "MOVES": tuple,
    "FIELD_LABELS": Mapping,
    "lab": Callable,
}


#: The fields every move has.
MOVE_LABELS = {"type": N_("Kind of move"), "player": N_("Player")}
#: The API bodies' own fields (DESIGN.md, JSON API), as the form and the pages name them.
BODY_LABELS = {
    "game": N_("Game"),
    "players": N_("Players"),
    "options": N_("Rules"),
    "moves": N_("Moves"),
    "move": N_("Move"),
    "version": N_("Version"),
    "kind": N_("Kind of link"),
    "format": N_("Transcript format"),
    "body": N_("The body"),
}


def _tag(model: type[Move]) -> str:
    return str(typing.get_args(model.model_fields["type"].annotation)[0])


def _move_label(adapter: Any, kind: object, field: str) -> str | None:
    labels = {**MOVE_LABELS, **adapter.FIELD_LABELS}
    return labels.get(f"{kind}.{field}") or labels.get(field)


def problems(name: str, module: ModuleType, shown: Any = None) -> list[str]:
    """What the adapter of game ``name`` lacks or gets wrong (empty: it is complete), its
    moves checked against what its board (``shown``: else the game's) says of them."""
    out = [
        f"{module.__name__}.{m} is missing or not a {kind.__name__}"
        for m, kind in _MEMBERS.items()
        if not isinstance(getattr(module, m, None), kind)
    ]
    if out:
        return out
    rules, shown = games.get(name), shown or board.get(name)
    if not issubclass(module.Tally, TallyForm):
        out.append(f"{module.__name__}.Tally must be a TallyForm")
    if not all(isinstance(m, type) and issubclass(m, Move) for m in module.MOVES):
        out.append(f"{module.__name__}.MOVES must hold schemas.Move models")
    else:
        kinds = {typing.get_args(m.model_fields["type"].annotation)[0] for m in module.MOVES}
        out += [f"{shown.__name__}.PICKER: {k!r} is not one of its moves" for k in shown.PICKER if k not in kinds]
        out += [
            f"{module.__name__}.FIELD_LABELS: {m.__name__}.{f} has no label"
            for m in module.MOVES
            for f in m.model_fields
            if _move_label(module, _tag(m), f) is None
        ]
    if set(module.SAMPLE) != {"players", "moves", "said", "finished"}:
        out.append(f"{module.__name__}.SAMPLE must hold players, moves, said and finished")
    else:
        view = rules.view(rules.start(list(module.SAMPLE["players"])))
        out += [f"{shown.__name__}.RECORD: {k!r} is not in the view" for k in shown.RECORD if k not in view]
    if len(inspect.signature(module.lab).parameters) != 3:
        out.append(f"{module.__name__}.lab must take 3 parameter(s)")
    return out


def _checked(name: str) -> Adapter:
    module = import_module(f"companion.web.{name}")
    found = problems(name, module)
    if found:
        raise TypeError(f"The web adapter of {name} is incomplete:\n  " + "\n  ".join(found))
    return module  # type: ignore[return-value]


#: Each game's adapter, in the order of ``games.GAMES``.
ADAPTERS: dict[str, Adapter] = {name: _checked(name) for name in games.GAMES}
for _name, _adapter in ADAPTERS.items():  # the API's schemas know each game's moves from its adapter
    schemas.declare(_name, _adapter.MOVES)


def get(name: str) -> Adapter:
    return ADAPTERS[name]


# -- the API's fields as a refusal names them ------------------------------------------


def field_label(path: str, game: str | None, body: object = None) -> str | None:
    """A field of an API body as the new-game form and the pages name it, in the request's
    language, quoted: "players.0" “Player 1”, "options.loss_limit" “Loss marks that end the
    game”, "move.cards" “Face-up cards” (in a layout); what lies within it after it ("Sweeps
    of Ann, no. 2"). None for a field that has no label (one the body should not hold, such
    as an unknown key): its refusal keeps the path, as the JSON's ``params.field`` always
    does. ``game``: the game the body is for (None if not known); ``body``: the request's
    JSON, for the types of its moves."""
    from companion.web.query import option_label, quoted_label

    steps = path.split(".")
    data = body if isinstance(body, dict) else {}
    adapter = ADAPTERS.get(game) if isinstance(game, str) else None
    head, rest = steps[0], steps[1:]
    label: str | None
    if head == "players" and rest and rest[0].isdigit():
        label, rest = _("Player %(n)s", n=int(rest[0]) + 1), rest[1:]
    elif head == "options" and rest and adapter is not None:
        option, rest = rest[0], rest[1:]
        rules = games.get(str(game))
        label = (
            _("First dealer")
            if option == "dealer"
            else _("Number of players")
            if option == "players"
            else option_label(rules, option)
            if option in rules.OPTION_LABELS
            else None
        )
    elif head == "move" and rest and adapter is not None:
        move = data.get("move")
        label, rest = _label_of_move(adapter, move, rest)
    elif head == "moves" and rest and rest[0].isdigit() and adapter is not None:
        n, rest = int(rest[0]), rest[1:]
        moves = data.get("moves")
        move = moves[n] if isinstance(moves, list) and n < len(moves) else None
        if rest:
            within, rest = _label_of_move(adapter, move, rest)
            label = None if within is None else _("%(field)s in move %(n)s", field=within, n=n + 1)
        else:
            label = _("Move %(n)s", n=n + 1)
    else:
        label = _(BODY_LABELS[head]) if head in BODY_LABELS else None
    if label is None:
        return None
    for step in rest:  # within the field: an item of a list, a side's entry
        label = (
            _("%(field)s, no. %(n)s", field=label, n=int(step) + 1)
            if step.isdigit()
            else _("%(field)s of %(name)s", field=label, name=step)
        )
    return quoted_label(label)


def _label_of_move(adapter: Any, move: object, steps: list[str]) -> tuple[str | None, list[str]]:
    """A move's field (``steps[0]``, with what lies within it after) as the adapter labels it."""
    kind = move.get("type") if isinstance(move, dict) else None
    label = _move_label(adapter, kind, steps[0])
    return (None if label is None else _(label)), steps[1:]
