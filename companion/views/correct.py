"""Correct an entry in place (issue 46, RULES.md 5.1): from the move log, a referee opens an
earlier entry, sees the board as it stood before it, and taps what was really played
there, with the game's own picker. The log is then replayed on top of it by the engine
(``games.common.replay``, in the store's change): if a later entry no longer fits, the page
moves on to that entry and says why, carrying the corrections made so far, and nothing is
saved until the whole log replays. The page is plain forms (no htmx): a correction is
rare, and each step is a page of its own. The first step is a GET (its address, with the
corrections waiting in ``pending``, shows it again); the later ones answer the POST that
made them."""

from __future__ import annotations

import json

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import ngettext

from companion import schemas
from companion.board import taps, templating
from companion.errors import AmbiguousMove, MoveError
from companion.forms import CorrectForm
from companion.games.common import Stopped
from companion.store import Conflict, NotFound, NotReferee
from companion.views.common import CORRECTED, Table, load_game, require_referee, rules_log, store, table_of

bp = Blueprint("correct", __name__, url_prefix="/games/<game_id:game_id>")

#: At most this many entries corrected at once (each one a later entry that no longer fitted).
MOST = 64


def _pending(text: str | None, game: str) -> dict[int, dict]:
    """The corrections a page carries, waiting to be saved (``{"37": move, ...}``), each
    checked as a tap's move is; 400 for anything else (no page sends it)."""
    if not text:
        return {}
    try:
        data = json.loads(text)
        if not isinstance(data, dict) or len(data) > MOST:
            raise ValueError
        pending = {}
        for number, move in data.items():
            if not (number.isascii() and number.isdigit() and len(number) <= 10):
                raise ValueError
            pending[int(number)] = schemas.check_move(game, move)
        return pending
    except (ValueError, RecursionError, MoveError):
        abort(400)


def _carried(pending: dict[int, dict]) -> str:
    return json.dumps({str(n): m for n, m in sorted(pending.items())}, separators=(",", ":")) if pending else ""


def _position(game_id: str, seq: int, pending: dict[int, dict]) -> tuple[object, int]:
    """The game before entry ``seq``, ``pending`` in place (the store's ``position``): 404
    for an entry that is not a move in effect, 409 if a waiting correction no longer fits
    (the game changed under the page)."""
    try:
        return store().position(game_id, seq, pending)
    except NotFound:
        abort(404)
    except Stopped:
        abort(409)


def _page(table: Table, row: dict, seq: int, pending: dict[int, dict], status: int = 200, **extra):
    """The correction page of entry ``seq``: the board before it (``pending`` in place), its
    picker posting here, and what the entry holds now."""
    state, deals = _position(row["id"], seq, pending)
    entry = rules_log(store().moves(row["id"], seq, seq))[0]
    at = {**row, "state": state, "deals": deals}
    context = templating.board_context(table, at, table.rules.view(state), referee=True, **extra)
    carried = _carried(pending)
    context["correcting"] = {
        "url": url_for("correct.save", game_id=row["id"]),
        "again": url_for("correct.page", game_id=row["id"], seq=seq, pending=carried or None),
        "seq": seq,
        "pending": carried,
        "version": row["version"],
    }
    waiting = [n for n in sorted(pending) if n != seq]
    return render_template("play/correct.html", entry=entry, waiting=waiting, **context), status


@bp.get("/correct/<row_id:seq>")
def page(game_id: str, seq: int):
    """Entry ``seq``'s correction page (a referee's: 403 for anyone else). Changes nothing."""
    row = load_game(game_id)
    require_referee(game_id)
    return _page(table_of(row), row, seq, _pending(request.args.get("pending"), row["game"]))


@bp.post("/correct")
def save(game_id: str):
    """The move entered in place of an entry: checked where it stands, then the whole log
    replayed and saved at once, or the page of the first later entry that no longer fits."""
    row = load_game(game_id)
    key = require_referee(game_id)
    form = CorrectForm()
    if not form.validate():
        abort(400)
    table, seq = table_of(row), form.seq.data
    pending = _pending(form.pending.data, row["game"])
    pending.pop(seq, None)  # entered again: this one stands
    fields = [(k, v) for k, v in request.form.items(multi=True) if k not in CorrectForm.FIELDS]
    try:
        move = schemas.check_move(row["game"], taps.move_from_form(fields))
    except MoveError as e:
        return _page(table, row, seq, pending, 422, error=e.reason)
    state, _deals = _position(game_id, seq, pending)
    try:
        table.rules.apply(state, move)
    except AmbiguousMove as e:
        unanswered = request.form.get("resume") is not None
        asked = {"move": move, "options": e.options, "message": e.reason, "unanswered": unanswered}
        return _page(table, row, seq, pending, choice=asked)
    except MoveError as e:
        again = taps.ask_again(table.rules, state, move, request.form.get("resume"))
        return _page(table, row, seq, pending, 422, error=e.reason, choice=again)
    corrections = {**pending, seq: move}
    try:
        store().correct_and_read(game_id, form.version.data, corrections, key=key)
    except Stopped as e:
        refused = e.refusal
        choice = None
        if isinstance(refused, AmbiguousMove):  # the later entry must now choose: asked at once
            choice = {"move": e.move, "options": refused.options, "message": refused.reason, "unanswered": False}
        return _page(table, row, e.entry, corrections, 422, stopped=refused.reason, choice=choice)
    except NotFound:
        abort(404)
    except NotReferee:
        abort(403)
    except Conflict:
        notice = _("Another phone changed the game first: nothing was corrected. This is the log now.")
        flash(notice, CORRECTED)
        return redirect(url_for("games.log", game_id=game_id), code=303)
    words = ", ".join(str(n) for n in sorted(corrections))
    said = ngettext(
        "Move %(list)s corrected: the moves after it were played again.",
        "Moves %(list)s corrected: the moves after them were played again.",
        len(corrections),
        list=words,
    )
    flash(said, CORRECTED)
    return redirect(url_for("games.show", game_id=game_id), code=303)
