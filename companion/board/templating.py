"""How a board is rendered: one configuration of Jinja for the server and the phone, and
the one way a board's answer to a tap is put together (issue 45).

The server's Flask app configures its environment with :func:`configure` (then adds what
only its pages use: forms, share links, the roster); the phone's worker makes one with
:func:`environment`. Both read the same templates and the same compiled catalogs, call the
same helpers and build the same context (:func:`board_context`, :func:`answer_context`), so
they render the same bytes; tests/test_phone_render.py holds them to it.
"""

from __future__ import annotations

import json
from typing import Any

from jinja2 import BaseLoader, Environment, pass_context, select_autoescape

from companion import games, i18n
from companion.board import markup, parts
from companion.cards import RANKS, SUIT_SYMBOLS, SUITS
from companion.games.tricks import DUTY_TEXT

#: The extensions Flask serves templates with (autoescaped); Flask-Babel adds the i18n one.
AUTOESCAPED = ("html", "htm", "xml", "xhtml", "svg")


def _in_language(helper):
    """``helper`` as a filter that words a rule in the current language each time: Jinja
    would otherwise work out ``"Tute 2.6"|rule_link`` once, when it compiles the template,
    in whatever language that request had."""
    return pass_context(lambda context, rule: helper(rule))


def compact_json(obj: Any, **_kwargs: Any) -> str:
    """``tojson`` as a board writes it (the waiting taps' turns): compact, keys in their
    order, UTF-8 as it is (as the server's JSON answers are: orjson)."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def configure(env: Environment) -> None:
    """What every template of a board reads besides its context: the words (gettext in the
    current language, newstyle, trimmed), the card and rule helpers, and the constants."""
    env.add_extension("jinja2.ext.i18n")
    env.policies["ext.i18n.trimmed"] = True
    # Templates find the catalog once per word: Flask-Babel's own callables look it up again
    # on every ``_()``, and a board says some twenty things (a quarter of its rendering time).
    env.install_gettext_callables(  # type: ignore[attr-defined]  # added by the i18n extension
        gettext=lambda s: i18n.current().catalog.gettext(s),
        ngettext=lambda s, p, n: i18n.current().catalog.ngettext(s, p, n),
        newstyle=True,
        pgettext=lambda c, s: i18n.current().catalog.pgettext(c, s),
        npgettext=lambda c, s, p, n: i18n.current().catalog.npgettext(c, s, p, n),
    )
    # ``_()`` is the same newstyle gettext, called directly: Jinja's ``_`` looks ``gettext`` up
    # and calls it again at every use (a board says ``_()`` some fifteen times: 7% of it).
    env.globals["_"] = env.globals["gettext"]
    env.globals.update(
        LANGUAGES=i18n.LANGUAGES,
        language=i18n.language,
        score_chart=markup.score_chart,
        card=markup.with_card_names(markup.card_face),
        chip=markup.chip,
        chips=markup.chips,
        pick_button=markup.pick_button,
        pick_box=markup.pick_box,
        DUTY_TEXT=DUTY_TEXT,
        suit_name=markup.with_card_names(i18n.suit_name),
        pack_rows=markup.pack_rows,
        RANKS=RANKS,
        SUITS=SUITS,
        SUIT_SYMBOLS=SUIT_SYMBOLS,
        GAME_TITLES={n: games.get(n).TITLE for n in games.GAMES},
        lab_position_url=markup.position_url,
    )
    env.filters.update(
        names=i18n.names,
        side_name=i18n.side_name,
        listed=i18n.listed,
        card_text=markup.with_card_names(markup.card_text),
        run_on=markup.run_on,
        rule_links=markup.rule_links,
        rule_link=_in_language(markup.rule_link),
        cited=_in_language(markup.cited),
        reason=markup.with_card_names(markup.reason_html),
        parts=lambda html, shown: parts.mark(html, shown or frozenset()),
    )
    env.policies["json.dumps_function"] = compact_json
    env.policies["json.dumps_kwargs"] = {}
    env.trim_blocks = True
    env.lstrip_blocks = True


def environment(loader: BaseLoader) -> Environment:
    """The phone's environment: Flask's settings (autoescape by extension), :func:`configure`d."""
    # auto_reload off: the phone's templates never change under its worker, and each render
    # would stat every template it includes again.
    env = Environment(
        loader=loader, autoescape=select_autoescape(AUTOESCAPED, default_for_string=True), auto_reload=False
    )
    configure(env)
    return env


def punctuation() -> dict[str, str]:
    """``gap`` and ``colon``, which every page's context has (the server's context processor):
    between two sentences, a space in English and nothing after Japanese's 。; a label's
    colon, ":" and the full-width 「：」."""
    return {"gap": i18n.gap(), "colon": i18n.colon()}


def game_context(table: Any, row: dict, view: dict | None = None) -> dict:
    """What every page of a game renders with: its ``table``, the stored game (``row``), its
    engine's ``view`` (computed unless given), its name and title, and its cards' names."""
    return {
        "table": table,
        "row": row,
        "view": table.rules.view(row["state"]) if view is None else view,
        "game": table.game,
        "title": table.rules.TITLE,
        "spanish_names": markup.spanish_names(row),
        "version": row["version"],
    }


def board_context(
    table: Any,
    row: dict,
    view: dict,
    *,
    referee: bool,
    undo: Any = None,
    recent: list | None = None,
    demoted: bool = False,
    confirmer: bool = False,
    hide_hands: bool = False,
    **extra,
) -> dict:
    """What the board renders with: the game (``row``, its ``view``), who is looking
    (``referee``; ``demoted``: this phone was one until now; ``confirmer``), what Undo takes
    back (``undo``: its words, for a referee) or the last moves (``recent``, for a watcher),
    and what waits for an answer (``extra``: ``error``, ``choice``, ``confirm``, ``notice``,
    ``reveal``; ``refused``: the move the error refuses, offered to a referee to play on as
    the table's ruling when the rules allow one)."""
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
        "hide_hands": hide_hands,
        **extra,
    }
    # One thing at a time: while a choice waits for its answer, no card can be tapped.
    context["locked"] = bool(context["choice"] or context["confirm"])
    # A refusal the table may rule against (RULES.md 5.2): a referee is offered to play on.
    refused, error = context.pop("refused", None), context["error"]
    rulable: frozenset[str] = getattr(table.rules, "RULABLE", frozenset())
    offer = referee and refused and getattr(error, "code", None) in rulable
    context["rule_offer"] = refused if offer and not refused.get("ruled") else None
    # Opponent confirmation: the finished deals the other side has not confirmed yet.
    finished = row["deals"]
    confirmed = finished if row["confirmed"] is None else row["confirmed"]
    context["unconfirmed"] = list(range(confirmed + 1, finished + 1))
    context["confirmer"] = confirmer
    context["undo"] = undo if referee else None
    context["recent"] = None if referee else recent
    context["ended"] = table.board.ended(view)
    context["turns"] = table.board.turns(view) if referee else None
    return context


def _mode(view: dict, picker: tuple[str, ...]):
    """What the picker shows depends on these (``picker``: the board's PICKER, the moves
    that change it); when they change it is re-sent whole."""
    return (view.get("deal"), tuple(m for m in view.get("expects", ()) if m in picker), view.get("result") is None)


def answer_context(
    table: Any, context: dict, prior: dict | None, deals_before: int | None, shown: frozenset[str] = frozenset()
) -> dict:
    """What an answer to a tap sends besides the board (templates/play/_answer.html), out of
    band: only the picker cards whose state changed (a played card greys out), so a move
    costs a few hundred bytes; the whole picker on a new deal or phase; the record only when
    what it shows changed (the board's ``RECORD``); the finished deals (their table and
    chart) only when one ended or was undone. ``prior``: the view the phone showed (None:
    it may have shown anything); ``deals_before``: how many deals had ended then. ``shown``:
    the digests of the board's parts the page shows (board/parts.py), sent as stubs."""
    view = context["view"]
    changed, whole = [], True
    # A choice locks the picker and its answer unlocks it on the page (#live's data-locked),
    # so only a new deal or phase re-sends it whole.
    if prior is not None and _mode(prior, table.board.PICKER) == _mode(view, table.board.PICKER):
        whole = False
        changed = sorted(set(prior.get("seen", [])) ^ set(view.get("seen", [])))
    finished = (
        deals_before is None
        or prior is None
        or (deals_before, prior["result"] is None) != (context["row"]["deals"], view["result"] is None)
    )
    # The record below the grid (a deal's tricks) changes at a trick's end, not with each card.
    record = prior is None or any(prior.get(k) != view.get(k) for k in table.board.RECORD)
    return {
        **context,
        "changed": changed,
        "whole_picker": whole,
        "finished_changed": finished,
        "record_changed": record,
        "parts_shown": shown,
    }
