"""Moves: one POST per move or undo, answered with the board fragment (or the same
fragment with the refusal shown in place, 422), and the poll watchers refresh by."""

from __future__ import annotations

import json
import re

from flask import Blueprint, abort, redirect, render_template, request, session, url_for
from flask_babel import gettext as _
from flask_htmx import make_response as htmx_response

from companion import schemas, timing
from companion.errors import AmbiguousMove, MoveError
from companion.extensions import htmx
from companion.store import AskFirst, Conflict, NotFound, NotReferee
from companion.views.common import (
    Table,
    confirms_here,
    dropped_key,
    game_context,
    is_referee,
    key_in_force,
    load_game,
    referee_key,
    rules_log,
    spanish_names,
    store,
    table_of,
)
from companion.views.rules import reason_html

bp = Blueprint("play", __name__, url_prefix="/games/<game_id:game_id>")

# Form fields that are not part of the move itself ("resume": sent by a choice's answer,
# naming the field that carries it; "reveal": sent by a hand shown, which a refusal keeps open;
# "entry": the id the phone gave the tap, so a tap sent again is applied once, static/app.js).
_NOT_MOVE = {"csrf_token", "version", "confirm", "resume", "reveal", "entry"}
_ENTRY = re.compile(r"[0-9a-f]{32}")


def board_context(table: Table, row: dict, view: dict | None = None, said: list | None = None, **extra) -> dict:
    """What the board renders with: the game's context (its ``view`` built unless given),
    who is looking, and what waits for an answer. ``said``: the words of the move Undo
    would take back, when the caller has them (the move was just entered), else read."""
    referee = is_referee(row["id"])
    demoted = dropped_key(row["id"])  # said once, on the page this phone refereed
    context = {
        "demoted": demoted,
        **game_context(table, row, view),
        "referee": referee,
        "error": None,
        "choice": None,
        "confirm": None,
        "notice": None,
        "share_open": False,
        "reveal": False,
        "hide_hands": row["id"] in session.get("hide_hands", []),
        **extra,
    }
    # One thing at a time: while a choice waits for its answer, no card can be tapped.
    context["locked"] = bool(context["choice"] or context["confirm"])
    # Opponent confirmation: the finished deals the other side has not confirmed yet.
    finished = row["deals"]
    confirmed = finished if row["confirmed"] is None else row["confirmed"]
    context["unconfirmed"] = list(range(confirmed + 1, finished + 1))
    context["confirmer"] = confirms_here(row["id"])
    context["undo"] = _undo_label(row, said) if referee else None
    context["recent"] = None if referee else recent_moves(row)
    context["ended"] = table.adapter.ended(context["view"])
    context["turns"] = table.adapter.turns(context["view"]) if referee else None
    return context


#: Watchers see this many moves, newest first.
RECENT = 10
_recent_cache: dict[tuple[str, int], list[dict]] = {}


def recent_moves(row: dict) -> list[dict]:
    """The last moves in effect, in words (kept with each move), newest first: what a
    watcher looks for. Read once per version: every watcher's poll of it shares them."""
    key = (row["id"], row["version"])
    if key not in _recent_cache:
        entries = rules_log(store().moves(row["id"], latest=RECENT))[::-1]
        if len(_recent_cache) > 256:
            _recent_cache.clear()
        _recent_cache[key] = entries
    return _recent_cache[key]


def _undo_label(row: dict, said: list | None = None) -> str | None:
    """What Undo takes back, in words ("Ben played 6♦"), as the move keeps them (the
    engine narrated it once, when it was entered): ``said``, the words of the move just
    entered, else the latest move's, read. None when nothing can be undone."""
    if said is None:
        last = store().last_move(row["id"])
        if last is None:
            return None
        if last["said"] is None:  # a move kept without words (the engine no longer takes it)
            return _("the last move")
        said = last["said"]
    return reason_html(said, spanish_names(row))


def move_from_form(form) -> dict:
    """A move dict from posted fields: ``name[]`` fields are lists (blanks dropped), the
    rest are strings. Every game's picker posts its moves this way."""
    move = {}
    for name in form:
        if name in _NOT_MOVE:
            continue
        if name.endswith("[]"):
            move[name[:-2]] = [v for v in form.getlist(name) if v]
        else:
            move[name] = form[name]
    return move


def _answer(table: Table, row: dict, before: dict | None, status: int = 200, said: list | None = None, **extra):
    """The live region, plus out-of-band updates of the card picker and the record.

    ``before``: the game as the phone saw it (None: it may have seen anything). Only the
    picker cards whose state changed are sent (a played card greys out), so a move costs a
    few hundred bytes; a new deal or phase re-sends the whole picker, the record only when
    what it shows changed (the adapter's ``RECORD``), and the finished deals (their table
    and chart) only when one ended or was undone.
    """
    view: dict | None = row.get("view")  # the store's answer to a change brings the view after it
    prior: dict | None = None
    if before is not None and before["version"] == row["version"]:  # refused or asked: one view serves both
        view = prior = table.rules.view(row["state"])
    elif before is not None:
        prior = table.rules.view(before["state"])
    context = board_context(table, row, view, said, **extra)
    # The version the answer shows: a phone sending its waiting taps tells by it whether a
    # tap was applied (one more than it sent) or answered with a question (the same).
    headers = {"X-Version": str(row["version"])}
    if not htmx:
        return render_template("play/page.html", **context), status, headers
    address = _address(row, context)
    view = context["view"]
    changed, whole = [], True
    # A choice locks the picker and its answer unlocks it on the page (#live's data-locked),
    # so only a new deal or phase re-sends it whole.
    if prior is not None and _mode(prior, table.adapter.PICKER) == _mode(view, table.adapter.PICKER):
        whole = False
        changed = sorted(set(prior.get("seen", [])) ^ set(view.get("seen", [])))
    finished = (
        before is None
        or prior is None
        or (before["deals"], prior["result"] is None) != (row["deals"], view["result"] is None)
    )
    # The record below the grid (a deal's tricks) changes at a trick's end, not with each card.
    record = prior is None or any(prior.get(k) != view.get(k) for k in table.adapter.RECORD)
    with timing.part("render"):
        body = render_template(
            "play/_answer.html",
            changed=changed,
            whole_picker=whole,
            finished_changed=finished,
            record_changed=record,
            **context,
        )
    return htmx_response(body, status, headers, replace_url=address or None)


def _as_watcher(row: dict):
    """The game as a watcher's page shows it, for a phone whose page was a referee's: htmx
    puts it in place of the whole game (the grid goes), with the notice that says why."""
    context = board_context(table_of(row), row)
    context["demoted"] = True
    body = render_template("play/_game.html", **context)
    return htmx_response(body, 200, {"X-Version": str(row["version"])}, retarget=".game", reswap="outerHTML")


def _address(row: dict, context: dict) -> str | None:
    """The page's address after this answer, when it changes: with the question the board
    is asking (``ask``: the move that asked it; ``reveal``: 100's "can't go"), so a reload
    asks it again, or back to the game's own once it is answered. None: as it is."""
    pending = context["choice"] or context["confirm"]
    if pending:
        return url_for("games.show", game_id=row["id"], ask=json.dumps(pending["move"], separators=(",", ":")))
    if context["reveal"]:
        return url_for("games.show", game_id=row["id"], reveal=1)
    asking = htmx.current_url or ""
    if "ask=" in asking or "reveal=" in asking:
        return url_for("games.show", game_id=row["id"])
    return None


def asked_again(table: Table, row: dict, asked: str) -> dict:
    """The question the page was asking when it was reloaded (``asked``: the move that asked
    it, as ``_address`` put it), asked again: the board's ``choice`` or ``confirm``. Nothing
    is entered; a move that asks nothing now (the game moved on) asks nothing: ``{}``."""
    try:
        move = schemas.check_move(row["game"], json.loads(asked))
    except (ValueError, RecursionError, MoveError):  # not a move: the page shows the board as it is
        return {}
    rules = table.rules
    ask = getattr(rules, "confirm_needed", None)
    message = ask(row["state"], move) if ask else None
    if message:
        return {"confirm": {"move": move, "message": message}}
    try:
        rules.apply(row["state"], move)
    except AmbiguousMove as e:
        return {"choice": {"move": move, "options": e.options, "message": e.reason, "unanswered": False}}
    except MoveError:
        pass
    return {}


def _mode(view: dict, picker: tuple[str, ...]):
    """What the picker shows depends on these (``picker``: the adapter's PICKER, the moves
    that change it); when they change it is re-sent whole."""
    return (view.get("deal"), tuple(m for m in view.get("expects", ()) if m in picker), view.get("result") is None)


def _entry() -> str | None:
    """The tap's id (32 hex digits, as the page makes them), or None: an id in any other
    shape is refused rather than trusted to keep a tap from being applied."""
    posted = request.form.get("entry")
    if posted is None:
        return None
    if not _ENTRY.fullmatch(posted):
        abort(400)
    return posted


def _version() -> int:
    """The version the phone saw: plain digits, as the page writes it (``int()`` alone
    would take "٣" and "  3 " too, which no page sends)."""
    posted = request.form.get("version", "")
    if not (posted.isascii() and posted.isdigit() and len(posted) <= 10):
        abort(400)
    return int(posted)


@bp.post("/moves")
def move(game_id: str):
    """A tap. The view decides what the move is (the game's schema) and whether the
    referee has answered the game's question already (``confirm``); the store's change
    checks the rest (the game, this phone's key, the version, the rules) in its own
    transaction and calls nothing back, so a move reads nothing before it (the game's kind
    is known once the game was read); a tap refused or asked about reads the game for the
    board that says so."""
    key = session.get("keys", {}).get(game_id)
    if not key:
        load_game(game_id)  # an unknown game is a 404 before it is a 403
        abort(403)
    version, entry = _version(), _entry()
    game = store().game_of(game_id)
    if game is None:
        abort(404)
    table = table_of({"game": game})

    def board(status: int, seen: bool = True, row: dict | None = None, **extra):
        """The board as it is now (``row``, read unless given), with what the tap was
        answered (``seen``: the phone saw this version, so only what changed is sent)."""
        row = row or load_game(game_id)
        return _answer(table, row, row if seen else None, status, **extra)

    try:
        move = schemas.check_move(game, move_from_form(request.form))
    except MoveError as e:  # not a move any picker sends, or another game's: said in place
        if referee_key(game_id) is None:  # a phone no longer a referee is told that first
            abort(403)
        reveal = not isinstance(e, schemas.SchemaError) and request.form.get("reveal") == "1"
        return board(422, error=e.reason, reveal=reveal)
    try:
        with timing.part("store"):
            after = store().play_and_read(
                game_id, version, move, key=key, entry=entry, game=game, ask=request.form.get("confirm") != "1"
            )
    except NotFound:
        abort(404)
    except NotReferee:
        abort(403)
    except AskFirst as e:
        return board(200, confirm={"move": e.move, "message": e.question})
    except Conflict:
        notice = _("Another phone entered a move first. This is the board now: check it and enter yours again.")
        return board(409, seen=False, notice=notice)
    except AmbiguousMove as e:
        # "unanswered": a choice's answer came back without it (Take with no card tapped).
        unanswered = request.form.get("resume") is not None
        choice = {"move": move, "options": e.options, "message": e.reason, "unanswered": unanswered}
        return board(200, choice=choice)
    except MoveError as e:  # the engine's refusal
        row = load_game(game_id)
        again = _ask_again(table.rules, row, move)
        return board(422, row=row, error=e.reason, choice=again, reveal=request.form.get("reveal") == "1")
    key_in_force(game_id, key)  # the change found it so: the board asks no more
    if not htmx:
        return redirect(url_for("games.show", game_id=game_id), code=303)
    # The game as the store wrote it, and as it was before, and the move's words: no read.
    # A tap sent again (its entry already applied) is answered with the game as it is,
    # whose last move may be another phone's (no words come with it: they are read).
    return _answer(table, after, after["before"], said=after["said"])


def _ask_again(rules, row: dict, refused: dict) -> dict | None:
    """A choice's answer that was refused (a number typed on the black-ace pad) asks the
    same choice again, with what was entered, so it can be corrected in place."""
    answer = request.form.get("resume")
    if answer not in refused:
        return None
    move = {k: v for k, v in refused.items() if k != answer}
    try:
        rules.apply(row["state"], move)
    except AmbiguousMove as e:
        return {"move": move, "options": e.options, "message": e.reason, "entered": refused[answer]}
    except MoveError:
        pass
    return None


@bp.post("/undo")
def undo(game_id: str):
    """Undo, checked as a tap is (the game, this phone's key, the version) in the store's
    change, which reads nothing before it; a refused undo reads the game for its board."""
    key = session.get("keys", {}).get(game_id)
    if not key:
        load_game(game_id)  # an unknown game is a 404 before it is a 403
        abort(403)
    try:
        after = store().undo_and_read(game_id, _version(), key=key)
    except NotFound:
        abort(404)
    except NotReferee:
        abort(403)
    except Conflict:
        notice = _("Another phone changed the game first. This is the board now.")
        row = load_game(game_id)
        return _answer(table_of(row), row, None, 409, notice=notice)
    except MoveError as e:  # nothing to undo
        row = load_game(game_id)
        return _answer(table_of(row), row, row, 422, error=e.reason)
    key_in_force(game_id, key)
    if not htmx:
        return redirect(url_for("games.show", game_id=game_id), code=303)
    return _answer(table_of(after), after, after["before"], notice=_("Undone."))


@bp.get("/live")
def live(game_id: str):
    """Watchers poll this: 204 while nothing changed, else the board. ``reveal=1``: the
    board with its grid turned to entering the hand a player shows (100's "can't go").
    ``referee=1`` (a referee's page asks): a phone that is no longer one gets the whole
    game as a watcher's page shows it, in place of its own, saying why."""
    if request.args.get("referee") == "1" and not is_referee(game_id):
        return _as_watcher(load_game(game_id))
    if request.args.get("reveal") == "1":
        row = load_game(game_id)
        return _answer(table_of(row), row, None, reveal=True)
    try:
        seen = int(request.args.get("version", "-1"))
    except ValueError:
        seen = -1
    version = store().version(game_id)  # one indexed read while nothing changes: no state loaded
    if version is None:
        abort(404)
    if seen == version:
        return "", 204, {"Cache-Control": "no-store"}
    row = load_game(game_id)
    return _answer(table_of(row), row, None)
