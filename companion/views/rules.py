"""Rules pages and the dispute lab: set up a position in a few taps and read the
engine's answer, with the rule it rests on. The position lives in the query string, so
every answer is a link to share. Each game's lab is in its web adapter
(companion/web/<game>.py); this module serves the pages and links cited rules."""

from __future__ import annotations

import re
import typing
from dataclasses import fields

from flask import Blueprint, abort, g, render_template, request, url_for
from flask_babel import gettext
from flask_htmx import make_response as htmx_response
from jinja2 import pass_context
from markupsafe import Markup, escape

from companion import games, web
from companion.errors import NAME_LISTS, Reason, Spaced
from companion.extensions import htmx
from companion.i18n import cite, gap, join_html, language, say_html, sentences, words_of
from companion.views.common import card_text, store, with_card_names
from companion.web.query import BY_START, Query, choice_label, option_label, option_rows, read_options

bp = Blueprint("rules", __name__, url_prefix="/rules")

#: The game each citation names ("Tablanette" -> tablanette), from the adapters.
SLUGS = {web.get(name).CITED: name for name in games.GAMES}
#: A refusal cites its rule as "<Game> <section>"; the plain-words rules page has that anchor.
CITATION = re.compile(r"\b(" + "|".join(map(re.escape, SLUGS)) + r") (P\d|\d+\.\d+)")


def anchor(section: str) -> str:
    return section if section.startswith("P") else "s" + section.replace(".", "-")


def rule_url(rule: str) -> str:
    """The rules page's section a refusal cites (``"Tute 4.2"``), in plain words."""
    cited, section = rule.rsplit(" ", 1)
    return url_for("rules.words", game=SLUGS[cited], _anchor=anchor(section))


def rule_link(rule: str) -> Markup:
    """A rule as cited ("Tute 2.4", "トゥテ 2.4"), linked to its section of the rules page."""
    return Markup('<a href="{}">{}</a>').format(rule_url(rule), cite(rule))


def cited(rule: str) -> Markup:
    """A rule linked at the end of a sentence, the space before it included: " (Tute 2.7)." in
    English, "（トゥテ 2.7）。" in Japanese (a template writes ``text{{ rule|cited }}``)."""
    return Markup(gap() + gettext("(%(rule)s).", rule=rule_link(rule)))


def reason_html(said: Reason | dict | list | str, spanish: bool = False) -> Markup:
    """What an engine said (a refusal, an explanation, one or several sentences) in words:
    its params escaped, card codes as players read them (Q♣), the rule it cites linked to
    its section. A plain message (a form field's) is escaped."""
    if not isinstance(said, (Reason, dict, list)):  # a form field's message (a string, or a lazy one)
        return escape(card_text(str(said), spanish))
    parts = []
    for reason in sentences(said):
        words = {
            k: v if k in NAME_LISTS else card_text(v, spanish) if isinstance(v, (str, Spaced)) else v
            for k, v in words_of(reason, spanish).items()
        }
        if reason.rule:
            words["rule"] = rule_link(reason.rule)
        parts.append(say_html(reason, words))
    return join_html(parts)


def rule_links(text) -> Markup:
    """Escape ``text``, write its card codes as players read them (Q♣), and link each cited
    rule. Only for the outcome explanations the engines keep in a game's state as English
    sentences (a deal's or a game's "reason"); refusals are data (:func:`reason_html`)."""
    if not isinstance(text, str):  # an explanation kept as data
        return reason_html(text)
    return Markup(CITATION.sub(lambda m: str(rule_link(m.group(0))), str(escape(card_text(text)))))


@pass_context
def position_url(context, view: dict) -> str:
    """The dispute lab set to a game's current position and rules (one tap from the game:
    its page's ``table`` gives the adapter)."""
    game, o = view["game"], view.get("options", {})
    adapter = context["table"].adapter
    args: dict[str, typing.Any] = {
        k: ("none" if o[k] is None else str(o[k]).lower() if isinstance(o[k], bool) else o[k])
        for k in adapter.LAB_OPTIONS
        if k in o
    }
    args |= adapter.position(view)
    args["from"] = context["row"]["id"]  # the lab leads back to the game
    return url_for("rules.page", game=game, **{k: v for k, v in args.items() if v not in ("", None)})


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


def _in_request(helper):
    """``helper`` as a filter that words a rule in the request's language each time: Jinja
    would otherwise work out ``"Tute 2.6"|rule_link`` once, when it compiles the template,
    in whatever language that request had."""
    return pass_context(lambda context, rule: helper(rule))


def register(app) -> None:
    app.jinja_env.globals.update(option_name=option_name, start_name=start_name)
    app.jinja_env.filters["rule_links"] = rule_links
    app.jinja_env.filters["rule_link"] = _in_request(rule_link)
    app.jinja_env.filters["cited"] = _in_request(cited)
    app.jinja_env.filters["reason"] = with_card_names(reason_html)
    app.jinja_env.globals["lab_position_url"] = position_url


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
        "option_rows": option_rows(rules, web.get(game).LAB_OPTIONS, raw, opts),
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
    adapter = web.get(game)
    opts, raw = read_options(q, rules, adapter.LAB_OPTIONS)
    return q, opts, raw, adapter.lab(rules, opts, q)


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
