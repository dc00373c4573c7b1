"""A board's markup that is not in a template: cards as chips and grid buttons, an engine's
words with its cited rule linked, the running-score chart. Pure (issue 45): the server's
templates and the phone's use these same helpers (companion/board/templating.py registers
them), in the language :mod:`companion.i18n` speaks and with the links
:mod:`companion.board.links` builds.
"""

from __future__ import annotations

import re
import typing
from functools import lru_cache

from jinja2 import pass_context
from markupsafe import Markup, escape

from companion import board, charts, games
from companion.board.links import url_for
from companion.cards import CARD_CODE, PACK_52, SUIT_SYMBOLS, SUITS, Card
from companion.errors import NAME_LISTS, Reason, Spaced
from companion.i18n import _, card_name, cite, gap, join_html, language, say_html, sentences, side_name, words_of

#: Spanish-pack display (RULES.md §0.2): rey = K (R), caballo = Q (C), sota = J (S), as = A
#: (1) on a chip; only the letters and names change, the codes stay French.
SPANISH_LETTERS = {"K": "R", "Q": "C", "J": "S", "A": "1"}


def spanish_names(row: dict) -> bool:
    """Whether a game names its cards as a Spanish pack (Tute's display option): the
    pages of a game put it in their template context as ``spanish_names``, and the card
    helpers below read it from there."""
    return bool((row["options"] or {}).get("spanish_names"))


def with_card_names(helper):
    """``helper(value, spanish)`` for templates: ``spanish`` from the page's context."""
    return pass_context(lambda context, value: helper(value, bool(context.get("spanish_names"))))


def card_face(code: str, spanish: bool = False) -> dict:
    """How a card is shown: rank, suit symbol, colour, spoken name in the page's language
    ("queen of spades", "スペードのクイーン"); ``spanish``: "R" and "rey de oros" for KD.
    A board shows a hundred cards: each face is worked out once per language."""
    return _face(code, spanish, language())


@lru_cache(maxsize=2048)
def _face(code: str, spanish: bool, lang: str) -> dict:
    c = Card.parse(code)
    rank = SPANISH_LETTERS.get(c.rank, c.rank) if spanish else c.rank
    return {"code": str(c), "rank": rank, "suit": SUIT_SYMBOLS[c.suit], "red": c.red, "name": card_name(c, spanish)}


#: The card helpers every board calls (a board shows dozens of cards, and a Jinja macro
#: costs a context of its own per call): each card's markup is built once per language.
_CHIP = Markup('<span class="chip{}" role="img" aria-label="{}">{}{}</span>')
#: A grid's card: a button of its form, so a submit button (no type="submit": 52 a page, counted in the first load).
_PICK = Markup(
    '<button name="card" value="{code}" id="pick-{code}" class="pick{red}{played}" aria-label="{name}"'
    '{disabled}{oob}>{rank}<span class="suit">{suit}</span></button>'
)
_BOX = Markup(
    '<label class="pick{red}{played} {extra}"{under}><input type="checkbox" name="{field}" value="{code}"{checked}'
    '{disabled}><span aria-hidden="true">{rank}<span class="suit">{suit}</span></span>'
    '<span class="sr">{name}{played_word}</span></label>'
)


@pass_context
def chip(context, code: str) -> Markup:
    """A card as the players see it: rank in large type, suit in its colour, its name spoken."""
    return _chip(str(code), bool(context.get("spanish_names")), language())


@lru_cache(maxsize=2048)
def _chip(code: str, spanish: bool, lang: str) -> Markup:
    c = _face(code, spanish, lang)
    return _CHIP.format(" red" if c["red"] else "", c["name"], c["rank"], c["suit"])


@pass_context
def chips(context, codes, empty=None) -> Markup:
    """Cards in a row, or ``empty`` (else "none") when there are none."""
    if not codes:
        return Markup('<span class="muted">{}</span>').format(_("none") if empty is None else empty)
    spanish, lang = bool(context.get("spanish_names")), language()
    return Markup('<span class="chips">%s</span>') % Markup("").join(_chip(str(x), spanish, lang) for x in codes)


@pass_context
def pick_button(context, code: str, seen: bool = False, oob: bool = False) -> Markup:
    """A card of the grid. One already played is struck through (aria-disabled), yet a tap
    on it is sent: the rules answer where it went ("6♦ was already played in trick 3")."""
    return _pick(str(code), bool(seen), bool(oob), bool(context.get("spanish_names")), language())


@lru_cache(maxsize=4096)
def _pick(code: str, seen: bool, oob: bool, spanish: bool, lang: str) -> Markup:
    c = _face(code, spanish, lang)
    return _PICK.format(
        code=c["code"],
        red=" red" if c["red"] else "",
        played=" played" if seen else "",
        name=c["name"],
        disabled=Markup(' aria-disabled="true"') if seen else "",
        oob=Markup(' hx-swap-oob="true"') if oob else "",
        rank=c["rank"],
        suit=c["suit"],
    )


@pass_context
def pick_box(context, code: str, field: str, extra_class: str = "", checked=False, played=False) -> Markup:
    """A card to tick; a jack that can go under the stock says so when ticked (its word in
    data-under). ``played``: already played (100's "can't go": not in the hand shown),
    struck through and not to tick."""
    spanish = bool(context.get("spanish_names"))
    return _box(str(code), field, extra_class, bool(checked), bool(played), spanish, language())


@lru_cache(maxsize=4096)
def _box(code: str, field: str, extra_class: str, checked: bool, played: bool, spanish: bool, lang: str) -> Markup:
    c = _face(code, spanish, lang)
    under = Markup(' data-under="{}"').format(_("under")) if extra_class == "jack" else ""
    return _BOX.format(
        red=" red" if c["red"] else "",
        played=" played" if played else "",
        extra=extra_class,
        under=under,
        field=field,
        code=c["code"],
        checked=Markup(" checked") if checked else "",
        disabled=Markup(" disabled") if played else "",
        rank=c["rank"],
        suit=c["suit"],
        name=c["name"],
        played_word=_(" (played)") if played else "",
    )


def card_text(text, spanish: bool = False) -> str:
    """A message with every card code written as players read it: "QC 6C" -> "Q♣ 6♣"."""

    def symbols(m: re.Match) -> str:
        face = card_face(m.group(0), spanish)
        return face["rank"] + face["suit"]

    return CARD_CODE.sub(symbols, str(text))


def pack_rows(codes=None) -> tuple[int, list[list[str | None]]]:
    """The card grid: two rows a suit (DESIGN.md: 13 columns don't fit a phone), so
    ``(columns, rows)``; a short second row is padded with None (a gap)."""
    codes = [str(c) for c in (codes or PACK_52)]
    rows = []
    by_suit = [[c for c in codes if c[-1] == s] for s in SUITS]
    cols = max((len(cards) + 1) // 2 for cards in by_suit)
    for cards in by_suit:
        for half in (cards[:cols], cards[cols:]):
            rows.append(half + [None] * (cols - len(half)))
    return cols, rows


@pass_context
def score_chart(context, view: dict) -> dict | None:
    """A game's running scores as a chart (deal by deal), or None before a deal has ended."""
    series = charts.running_scores(context["table"].rules, view)
    if series is None:
        return None
    series = {side_name(side): values for side, values in series.items()}  # 「健太郎・翔太」
    return charts.line_chart(series, [""] + [str(i) for i in range(1, len(view["history"]) + 1)])


_BETWEEN_PARAGRAPHS = re.compile(r"</p>\s+<p\b")


def run_on(html: str) -> Markup:
    """The last move's sentences as a phone runs them on (static/app.css: ``.last > p``
    inline): nothing between the paragraphs, so Japanese joins them as it is written and
    the style sheet puts the space other languages need."""
    return Markup(_BETWEEN_PARAGRAPHS.sub("</p><p", str(html)))


#: The game each citation names ("Tablanette" -> tablanette), from the adapters.
SLUGS = {board.get(name).CITED: name for name in games.GAMES}
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


#: A rule's link with the brackets and the stop written around it: "（トゥテ 2.6）。".
_BRACKETED_LINK = re.compile(r'[(（]?<a href="[^"]*">[^<]*</a>[)）]?[.。,、]?')


def glued(html: str) -> Markup:
    """``html`` with each linked rule kept on one line with its brackets and stop. The link
    is an inline-block (a thumb's 44 px: static/app.css), and Chromium breaks a line beside
    one as beside an ideograph: Japanese was left with "（" ending a line or "）。" starting
    one, which its typesetting never allows (kinsoku)."""

    def glue(m: re.Match) -> str:
        bare = m.group(0).startswith("<") and m.group(0).endswith("</a>")
        return m.group(0) if bare else f'<span class="glued">{m.group(0)}</span>'

    return Markup(_BRACKETED_LINK.sub(glue, str(html)))


def cited(rule: str) -> Markup:
    """A rule linked at the end of a sentence, the space before it included: " (Tute 2.7)." in
    English, "（トゥテ 2.7）。" in Japanese (a template writes ``text{{ rule|cited }}``)."""
    return Markup(gap()) + glued(_("(%(rule)s).", rule=rule_link(rule)))


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
    return glued(join_html(parts))


def rule_links(text) -> Markup:
    """Escape ``text``, write its card codes as players read them (Q♣), and link each cited
    rule. Only for the outcome explanations the engines keep in a game's state as English
    sentences (a deal's or a game's "reason"); refusals are data (:func:`reason_html`)."""
    if not isinstance(text, str):  # an explanation kept as data
        return reason_html(text)
    return glued(CITATION.sub(lambda m: str(rule_link(m.group(0))), str(escape(card_text(text)))))


@pass_context
def position_url(context, view: dict) -> str:
    """The dispute lab set to a game's current position and rules (one tap from the game:
    its page's ``table`` gives the adapter)."""
    game, o = view["game"], view.get("options", {})
    adapter = context["table"].board
    args: dict[str, typing.Any] = {
        k: ("none" if o[k] is None else str(o[k]).lower() if isinstance(o[k], bool) else o[k])
        for k in adapter.LAB_OPTIONS
        if k in o
    }
    args |= adapter.position(view)
    args["from"] = context["row"]["id"]  # the lab leads back to the game
    return url_for("rules.page", game=game, **{k: v for k, v in args.items() if v not in ("", None)})


def _in_request(helper):
    """``helper`` as a filter that words a rule in the request's language each time: Jinja
    would otherwise work out ``"Tute 2.6"|rule_link`` once, when it compiles the template,
    in whatever language that request had."""
    return pass_context(lambda context, rule: helper(rule))
