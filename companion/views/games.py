"""Pages: home, new game, the game page, its move log and the transcript download."""

from __future__ import annotations

import json
import re
import secrets

from flask import Blueprint, Response, current_app, redirect, render_template, request, session, url_for
from flask_babel import gettext as _

from companion import games
from companion.board.templating import game_context
from companion.errors import OptionError
from companion.extensions import creating_games, made_a_game
from companion.forms import attach_error, keep_names, new_game_form, options_of, players_of, rules_summary
from companion.views import phone
from companion.views.common import (
    is_referee,
    just_corrected,
    just_joined,
    load_game,
    phone_games,
    remember_key,
    remember_seen,
    rules_log,
    store,
    table_of,
    this_phone,
)
from companion.views.play import asked_again, board_context

bp = Blueprint("games", __name__)


@bp.get("/")
def home():
    """The games on this phone (refereed or opened here), never anyone else's."""
    rows = store().list_games(ids=phone_games())
    shown = [g for g in rows if not g["archived"]]
    return render_template(
        "games/home.html",
        playing=[g for g in shown if not g["finished"]],
        finished=[g for g in shown if g["finished"]],
        archived=[g for g in rows if g["archived"]],
    )


def _chosen_game() -> str:
    game = request.values.get("game", "tablanette")
    return game if game in games.GAMES else "tablanette"


@bp.get("/healthz")
def healthz():
    """A trivial endpoint: for load balancers, and the baseline of `make bench`."""
    return "ok", 200, {"Content-Type": "text/plain"}


#: How many new-game forms a phone remembers having sent (the session cookie stays small).
MADE_KEPT = 8
_NONCE = re.compile(r"[A-Za-z0-9_-]{16,32}")


def _made(nonce: str | None) -> str | None:
    """The game this phone already made from the form carrying ``nonce`` (a form sent again:
    Back, a reload, a double tap), if it is still there."""
    game_id = session.get("made", {}).get(nonce) if nonce else None
    return game_id if game_id and store().version(game_id) is not None else None


@bp.get("/games/new")
def new():
    """The new-game form (a table of the roster, tapped, fills the seats in order)."""
    form = new_game_form(_chosen_game(), request.args.get("start"), formdata=None)
    keep_names(form, request.args)
    return render_template("games/new.html", nonce=secrets.token_urlsafe(16), **_form_context(form))


@bp.post("/games/new")
@creating_games
def create():
    """The form posted: the game starts and this phone becomes its referee, or the form
    comes back with what to change (422). Each form carries a one-time nonce; the session
    remembers which game a nonce made, so the same form sent twice opens the game it made
    instead of making another."""
    nonce = request.form.get("nonce")
    nonce = nonce if nonce and _NONCE.fullmatch(nonce) else None
    made = _made(nonce)
    if made:
        return redirect(url_for("games.show", game_id=made), code=303)
    game = _chosen_game()
    form = new_game_form(game, request.form.get("start"), formdata=request.form)
    if form.validate():
        players = players_of(form)
        options = options_of(form)
        seat = int(form.dealer.data)
        if seat >= len(players):
            form.dealer.errors = [_("Player %(n)s has no name: choose a dealer among the players.", n=seat + 1)]
        else:
            options["dealer"] = players[seat]
            try:
                row, key = store().create(game, players, options)
            except OptionError as e:
                attach_error(form, e)
            else:
                made_a_game()
                remember_key(row["id"], key)
                if nonce:
                    kept = {k: v for k, v in session.get("made", {}).items() if k != nonce}
                    session["made"] = dict(list({**kept, nonce: row["id"]}.items())[-MADE_KEPT:])
                return redirect(url_for("games.show", game_id=row["id"]), code=303)
    return render_template("games/new.html", nonce=nonce or secrets.token_urlsafe(16), **_form_context(form)), 422


@bp.get("/games/new/options")
def new_options():
    """The starts, seats and rules again, for another game or start (htmx swaps them in)."""
    form = new_game_form(_chosen_game(), request.values.get("start"))
    keep_names(form, request.values)
    return render_template("games/_options.html", **_form_context(form))


def _form_context(form) -> dict:
    """The new-game form with the roster: every name for the seats' suggestions, and the
    latest tables that fit this game, each one tap from filling the seats in order."""
    rules = form.rules
    tables = [
        {
            "names": names,
            "url": url_for(
                "games.new", game=rules.NAME, start=form.start.data, **{f"player{i}": n for i, n in enumerate(names)}
            ),
        }
        for names in store().recent_tables()
        if rules.MIN_PLAYERS <= len(names) <= rules.MAX_PLAYERS
    ]
    return {"form": form, "summary": rules_summary(form), "roster": store().roster(), "tables": tables}


@bp.get("/games/<game_id:game_id>")
def show(game_id: str):
    hands = request.args.get("hands")
    if hands in ("hide", "show"):
        # A table that prefers not to look at the known hands (Tantony): this phone only.
        hidden = set(session.get("hide_hands", [])) - {game_id}
        session["hide_hands"] = sorted(hidden | ({game_id} if hands == "hide" else set()))
        return redirect(url_for("games.show", game_id=game_id), code=303)
    row = load_game(game_id)
    remember_seen(game_id)
    # A page reloaded while it asked a question (which capture, which total) asks it again.
    table = table_of(row)
    asked = asked_again(table, row, request.args["ask"]) if "ask" in request.args and is_referee(game_id) else {}
    reveal = request.args.get("reveal") == "1"
    notice = just_joined() or just_corrected()
    context = board_context(table, row, reveal=reveal, notice=notice, **asked)
    # The game page starts the engines in the phone (issue 45): a referee's taps are answered
    # there; a watcher's phone keeps them (and its snapshot) for the day it referees.
    phone_bundle = phone.bundle_url() if current_app.config["PHONE_REFEREE"] else None
    return render_template("play/page.html", phone_bundle=phone_bundle, **context)


#: Moves on a page of the log.
LOG_PAGE = 25


@bp.get("/games/<game_id:game_id>/log")
def log(game_id: str):
    """Every move in words, with when it was entered and by which referee phone, who undid
    it, and each correction of it (what it held before, when, by which phone): the audit
    trail a dispute is settled from. A referee corrects a move from here (views/correct.py)."""
    row = load_game(game_id)
    me = this_phone(game_id)
    phones = store().phone_numbers(game_id)
    # A page of LOG_PAGE moves (the latest by default), so a long game's log costs what a
    # short one's does; the pages around it are one tap away.
    pages = max(1, -(-store().move_count(game_id) // LOG_PAGE))
    page = min(max(request.args.get("page", pages, type=int), 1), pages)
    entries = rules_log(store().moves(game_id, (page - 1) * LOG_PAGE + 1, page * LOG_PAGE))
    corrected: dict[int, list] = {}
    for c in store().corrections(game_id, (page - 1) * LOG_PAGE + 1, page * LOG_PAGE):
        c["by"] = _phone(c["referee"], phones, me)
        corrected.setdefault(c["seq"], []).append(c)
    for e in entries:
        e["by"] = "imported" if e["imported"] else _phone(e["referee"], phones, me)
        e["undone_by"] = _phone(e["undone_by"], phones, me)
        e["corrections"] = corrected.get(e["seq"], [])
    return render_template(
        "play/log.html",
        entries=entries,
        page=page,
        pages=pages,
        first=(page - 1) * LOG_PAGE + 1,
        referee=me is not None,
        phone=phones.get(me) if me else None,
        notice=just_corrected(),
        **game_context(table_of(row), row),
    )


def _phone(referee: str | None, phones: dict[str, int], me: str | None) -> str | None:
    """A referee phone as the people at the table say it: "phone 2", or "this phone" for
    the one reading the log; None when no phone was recorded. Never its id."""
    if referee is None or referee not in phones:
        return None
    return _("this phone") if referee == me else _("phone %(n)s", n=phones[referee])


@bp.get("/games/<game_id:game_id>/transcript")
def transcript(game_id: str):
    load_game(game_id)
    body = json.dumps(store().transcript(game_id), ensure_ascii=False, indent=1)
    return Response(
        body,
        mimetype="application/json",
        headers={"Content-Disposition": f'attachment; filename="companion-{game_id}.json"'},
    )
