"""Moves: one POST per move or undo, answered with the board fragment (or the same
fragment with the refusal shown in place, 422), and the poll watchers refresh by."""

from __future__ import annotations

import json
import re

from flask import Blueprint, abort, redirect, render_template, request, session, url_for
from flask_babel import gettext as _
from flask_htmx import make_response as htmx_response

from companion import schemas, timing
from companion.board import parts, taps, templating
from companion.board.markup import reason_html, spanish_names
from companion.errors import AmbiguousMove, MoveError
from companion.extensions import htmx
from companion.store import AskFirst, Conflict, NotFound, NotReferee
from companion.views.common import (
    Table,
    confirms_here,
    dropped_key,
    is_referee,
    key_in_force,
    load_game,
    referee_key,
    rules_log,
    store,
    table_of,
)

bp = Blueprint("play", __name__, url_prefix="/games/<game_id:game_id>")

_ENTRY = re.compile(r"[0-9a-f]{32}")


def board_context(table: Table, row: dict, view: dict | None = None, said: list | None = None, **extra) -> dict:
    """What the board renders with (``templating.board_context``, as the phone builds it):
    the game's ``view`` (built unless given), who is looking, and what waits for an answer.
    ``said``: the words of the move Undo would take back, when the caller has them (the move
    was just entered), else read."""
    referee = is_referee(row["id"])
    return templating.board_context(
        table,
        row,
        table.rules.view(row["state"]) if view is None else view,
        referee=referee,
        undo=_undo_label(row, said) if referee else None,
        recent=None if referee else recent_moves(row),
        demoted=dropped_key(row["id"]),  # said once, on the page this phone refereed
        confirmer=confirms_here(row["id"]),
        hide_hands=row["id"] in session.get("hide_hands", []),
        **extra,
    )


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


def _answer(table: Table, row: dict, before: dict | None, status: int = 200, said: list | None = None, **extra):
    """The live region, plus out-of-band updates of what changed besides it
    (``templating.answer_context``). ``before``: the game as the phone saw it (None: it may
    have seen anything)."""
    view: dict | None = row.get("view")  # the store's answer to a change brings the view after it
    prior: dict | None = None
    if before is not None and before["version"] == row["version"]:  # refused or asked: one view serves both
        view = prior = table.rules.view(row["state"])
    elif before is not None:
        prior = table.rules.view(before["state"])
    context = board_context(table, row, view, said, **extra)
    # The version the answer shows: a phone sending its waiting taps tells by it whether a
    # tap was applied (one more than it sent) or answered with a question (the same).
    headers = {"X-Version": str(row["version"]), "X-State": taps.state_digest(table.rules, row["state"])}
    if not htmx:
        return render_template("play/page.html", **context), status, headers
    address = taps.address(row["id"], context, htmx.current_url or "")
    with timing.part("render"):
        deals = None if before is None else before["deals"]
        shown = parts.known(request.headers.get("X-Board-Parts"))
        body = render_template("play/_answer.html", **templating.answer_context(table, context, prior, deals, shown))
    headers["Vary"] = "X-Board-Parts"  # the board's parts the page shows are sent as stubs
    return htmx_response(body, status, headers, replace_url=address or None)


def _as_watcher(row: dict):
    """The game as a watcher's page shows it, for a phone whose page was a referee's: htmx
    puts it in place of the whole game (the grid goes), with the notice that says why."""
    context = board_context(table_of(row), row)
    context["demoted"] = True
    body = render_template("play/_game.html", **context)
    return htmx_response(body, 200, {"X-Version": str(row["version"])}, retarget=".game", reswap="outerHTML")


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
        move = schemas.check_move(game, taps.move_from_form(request.form.items(multi=True)))
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
        again = taps.ask_again(table.rules, row["state"], move, request.form.get("resume"))
        reveal = request.form.get("reveal") == "1"
        return board(422, row=row, error=e.reason, choice=again, reveal=reveal, refused=move)
    key_in_force(game_id, key)  # the change found it so: the board asks no more
    if not htmx:
        return redirect(url_for("games.show", game_id=game_id), code=303)
    # The game as the store wrote it, and as it was before, and the move's words: no read.
    # A tap sent again (its entry already applied) is answered with the game as it is,
    # whose last move may be another phone's (no words come with it: they are read).
    return _answer(table, after, after["before"], said=after["said"])


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
