"""Tally a deal in one screen: for a deal played without entering every card. The screen
keeps its state in its form (its ``Tally`` form in the game's web adapter, companion/web/<game>.py); every tap
posts it back and the answer shows the deal's totals as the engine would score them, or
the engine's refusal. A bad submission is refused (422) with the reason beside its field
and changes nothing. "Record" stores the engine's ``tally`` move. The rules are the
engine's; the form only turns taps into the move."""

from __future__ import annotations

from flask import Blueprint, abort, redirect, render_template, url_for
from flask_babel import gettext as _
from flask_htmx import make_response as htmx_response

from companion import schemas
from companion.board.templating import game_context
from companion.errors import MoveError, Reason
from companion.extensions import htmx
from companion.store import Conflict
from companion.views.common import Table, load_game, referee_key, store, table_of

bp = Blueprint("tally", __name__, url_prefix="/games/<game_id:game_id>/tally")


def _preview(rules, state, move: dict | None) -> tuple[dict | None, dict | None, Reason | None]:
    """``(the deal's record, the view after it, None)`` as the engine would score the
    move, or ``(None, None, its refusal)``; all None while the deal is not complete."""
    if move is None:
        return None, None, None
    try:
        after = rules.apply(state, move)
    except MoveError as e:
        return None, None, e.reason
    view = rules.view(after)  # what the engine shows, not its state's internals
    return (view["history"][-1] if view["history"] else None), view, None


def _record(row: dict, version: int, move: dict, key: str):
    """Store the move as entered by the phone with ``key``: ``(the answer that leaves for
    the game page, None)``, or ``(None, why it was refused)`` with nothing stored."""
    game_id = row["id"]
    try:
        store().play(game_id, version, schemas.check_move(row["game"], move), key=key)
    except Conflict:
        return None, _("Another phone changed the game first: go back to the game and check it.")
    except MoveError as e:
        return None, e.reason
    target = url_for("games.show", game_id=game_id)
    if htmx:
        return htmx_response("", 204, redirect=target), None
    return redirect(target, code=303), None


def _open(game_id: str):
    """The game, its rules and view, for its referee (else 403); None when no tally is
    expected now (the caller goes back to the game)."""
    row = load_game(game_id)
    key = referee_key(game_id)
    if key is None:
        abort(403)
    table = table_of(row)
    view = table.rules.view(row["state"])
    if "tally" not in view["expects"]:
        return None
    return row, key, table, view


@bp.get("")
def screen(game_id: str):
    """The tally screen, empty: opening it changes nothing."""
    opened = _open(game_id)
    if opened is None:
        return redirect(url_for("games.show", game_id=game_id), code=303)
    row, _key, table, view = opened
    return _render(table, row, view, table.adapter.Tally.for_game(table.rules, row["state"], view), refused=False)


@bp.post("")
def take(game_id: str):
    """A tap on the screen posts its form: the totals again, or (its "Record" button) the
    tally stored as a move when the engine accepts it."""
    opened = _open(game_id)
    if opened is None:
        return redirect(url_for("games.show", game_id=game_id), code=303)
    row, key, table, view = opened
    rules = table.rules
    form = table.adapter.Tally.for_game(rules, row["state"], view)
    refused = not form.take()
    if form.recording:
        tally = form.model()
        error = _preview(rules, row["state"], tally["move"])[2]
        if error is None and not tally["problems"]:
            answer, error = _record(row, form.version.data, tally["move"], key)
            if answer is not None:
                return answer
        return _render(table, row, view, form, refused=True, error=error)  # nothing stored: the reason in place
    return _render(table, row, view, form, refused=refused)


def _render(table: Table, row: dict, view: dict, form, refused: bool, error: Reason | None = None):
    tally = form.model()
    preview, after, refusal = _preview(table.rules, row["state"], tally["move"])
    context = {
        **game_context(table, row, view),
        "t": tally,
        "form": form,
        "preview": preview,
        "after": after,
        # What the engine refuses in the totals so far is a hint while they are being
        # entered (the Record button waits for it), and a refusal once Record was tapped.
        "error": error,
        "problems": tally["problems"] + ([refusal] if refusal and not error else []),
        "notes": tally.get("notes", []),  # worth a look before Record, which they do not hold back
    }
    template = "play/tally_form.html" if htmx else "play/tally.html"
    return render_template(template, **context), 422 if refused else 200
