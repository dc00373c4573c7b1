"""Rules pages and the dispute lab: set up a position in a few taps and read the
engine's answer, with the rule it rests on. The position lives in the query string, so
every answer is a link to share. Each game's lab is in its web adapter
(companion/web/<game>.py); this module serves the pages and links cited rules."""

from __future__ import annotations

import typing
from dataclasses import fields

from flask import Blueprint, abort, g, render_template, request, url_for
from flask_babel import gettext
from flask_htmx import make_response as htmx_response
from jinja2 import pass_context
from markupsafe import Markup

from companion import board, games, web
from companion.extensions import htmx
from companion.i18n import language
from companion.views.common import store
from companion.web.query import BY_START, Query, choice_label, option_label, option_rows, read_options

bp = Blueprint("rules", __name__, url_prefix="/rules")


def quoted(name: str) -> Markup:
    """A name as the rules pages quote it: “Points to win”, 「目標点」."""
    marks = "「」" if language() == "ja" else "“”"
    return Markup('<span class="option-name">{}{}{}</span>').format(marks[0], name, marks[1])


#: ``option_name(name)`` without a value: the option's own name.
_NAME = object()


@pass_context
def option_name(context, name: str, value=_NAME) -> Markup:
    """An option of the page's game (``rules``) as the new-game form labels it, quoted:
    ``option_name("floor_at_zero")``; given a value, that choice's label:
    ``option_name("late_draw", "any_time")``. One source for the form and the rules pages."""
    rules = context["rules"]
    return quoted(option_label(rules, name) if value is _NAME else choice_label(rules, name, value))


@pass_context
def start_name(context, start: str) -> Markup:
    """One of the game's one-tap starts, as the new-game form labels it, quoted."""
    return quoted(gettext(context["rules"].STARTS[start].label))


def register(app) -> None:
    app.jinja_env.globals.update(option_name=option_name, start_name=start_name)


# -- the pages ---------------------------------------------------------------------------


@bp.get("/")
def index():
    return render_template("rules/index.html", titles={n: games.get(n).TITLE for n in games.GAMES})


@bp.get("/<game>")
def page(game: str):
    if game not in games.GAMES:
        abort(404)
    rules = games.get(game)
    q, opts, raw, lab = _read(game, rules)
    if q.bad:  # read once more, so that no link on the page carries a wrong value
        q, opts, raw, lab = _read(game, rules, leave_out=q.bad)
        g.refused_args = q.bad
    left = _game_left()
    kept: dict[str, typing.Any] = {"from": left} if left else {}  # Start over keeps the way back
    context = {
        "game": game,
        "title": rules.TITLE,
        "rules": rules,
        "lab": lab,
        "problems": q.errors + q.problems,
        "option_rows": option_rows(rules, board.get(game).LAB_OPTIONS, raw, opts),
        "share": request.url if request.args else None,
        "back": url_for("games.show", game_id=left) if left else None,
        "start_over": url_for("rules.page", game=game, **kept),
    }
    # htmx swaps no 4xx answer: a tap or form in the lab loads the refusal as a page,
    # so its message is read, not lost behind a "no connection" banner.
    redirect = request.full_path if q.errors and htmx else None
    return htmx_response(render_template("rules/page.html", **context), 400 if q.errors else 200, redirect=redirect)


def _game_left() -> str | None:
    """The game the lab was opened from (its ``from``), if there is that game."""
    game_id = request.args.get("from", "")
    if not game_id or len(game_id) > 64 or store().version(game_id) is None:
        return None
    return game_id


def _read(game: str, rules, leave_out=frozenset()) -> tuple:
    """The lab's query, options in force (and their raw words) and answers."""
    q = Query(game, request.args, leave_out)
    opts, raw = read_options(q, rules, board.get(game).LAB_OPTIONS)
    return q, opts, raw, web.get(game).lab(rules, opts, q)


@bp.get("/<game>/words")
def words(game: str):
    """The rules in plain words, each section an anchor that refusals link to."""
    if game not in games.GAMES:
        abort(404)
    rules = games.get(game)
    return render_template(
        "rules/words.html",
        game=game,
        title=rules.TITLE,
        rules=rules,
        all_options=option_rows(rules, [f.name for f in fields(rules.Options) if f.name not in BY_START], {}),
    )
