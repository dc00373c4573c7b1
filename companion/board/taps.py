"""What a tap posts and what its answer asks, worked out the same on the server
(companion/views/play.py) and in the phone (companion/phone.py): the move in the posted
fields, the choice asked again after a refused answer, and the page's address after it."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from companion.board.links import url_for
from companion.errors import AmbiguousMove, MoveError

# Form fields that are not part of the move itself ("resume": sent by a choice's answer,
# naming the field that carries it; "reveal": sent by a hand shown, which a refusal keeps open;
# "entry": the id the phone gave the tap, so a tap sent again is applied once, static/app.js).
NOT_MOVE = {"csrf_token", "version", "confirm", "resume", "reveal", "entry"}


def move_from_form(fields: Iterable[tuple[str, str]]) -> dict:
    """A move dict from posted fields (name, value), in order: ``name[]`` fields are lists
    (blanks dropped), the rest are strings (the first of a name, as a form's reads it; posted
    both ways, the first way wins: the engine then refuses what it cannot read). Every game's
    picker posts its moves this way."""
    move: dict = {}
    for name, value in fields:
        if name in NOT_MOVE:
            continue
        if name == "ruled":  # the table's ruling (RULES.md 5.2): a move's one flag a form posts
            move.setdefault(name, value == "1")
            continue
        if name.endswith("[]"):
            items = move.setdefault(name[:-2], [])
            if value and isinstance(items, list):
                items.append(value)
        else:
            move.setdefault(name, value)
    return move


def ask_again(rules, state, refused: dict, answer: str | None) -> dict | None:
    """A choice's answer that was refused (a number typed on the black-ace pad) asks the
    same choice again, with what was entered, so it can be corrected in place. ``answer``:
    the field the choice's answer came in (the form's ``resume``)."""
    if answer not in refused:
        return None
    move = {k: v for k, v in refused.items() if k != answer}
    try:
        rules.apply(state, move)
    except AmbiguousMove as e:
        return {"move": move, "options": e.options, "message": e.reason, "entered": refused[answer]}
    except MoveError:
        pass
    return None


def address(game_id: str, context: dict, current: str) -> str | None:
    """The page's address after an answer, when it changes: with the question the board is
    asking (``ask``: the move that asked it; ``reveal``: 100's "can't go"), so a reload asks
    it again, or back to the game's own once it is answered (``current``: the page's address
    now). None: as it is."""
    pending = context["choice"] or context["confirm"]
    if pending:
        return url_for("games.show", game_id=game_id, ask=json.dumps(pending["move"], separators=(",", ":")))
    if context["reveal"]:
        return url_for("games.show", game_id=game_id, reveal=1)
    if "ask=" in current or "reveal=" in current:
        return url_for("games.show", game_id=game_id)
    return None


def state_digest(rules: Any, state: Any) -> str:
    """A game's state in a few characters: the server sends it with each answer to a move
    (``X-State``), and the phone compares it with the state it worked out for the same tap;
    where they differ (the server's rules are newer) the server's game stands."""
    text = json.dumps(rules.dump(state), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
