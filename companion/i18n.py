"""Languages: Japanese and English, chosen by the phone (Flask-Babel).

The language of a request is, in order: ``?lang=`` on the link (a shared watch link may
carry one; it is then remembered), the ``lang`` cookie the switch on every page sets, the
phone's ``Accept-Language``, else English. Catalogs live in ``companion/translations``
(``make run``/``make test`` compile them); ``babel.cfg`` says what is extracted.

The engines stay pure and English: what they say is data (a :class:`Reason`: a code, its
English %-format ``text`` as the message id, and params), and :func:`say` words it in the
request's language from that data, never by translating a finished sentence.
"""

from __future__ import annotations

from urllib.parse import urlencode

from babel.lists import format_list
from flask import Flask, g, request
from flask_babel import Babel, get_locale
from flask_babel import gettext as _
from markupsafe import Markup, escape

from companion.cards import RANK_NAMES, SUIT_NAMES, Card
from companion.errors import Reason

#: The languages there are catalogs for, and how each is named on its own switch.
LANGUAGES = {"ja": "日本語", "en": "English"}
DEFAULT = "en"
COOKIE = "lang"
#: A year: the phone keeps its choice.
COOKIE_AGE = 365 * 24 * 3600

babel = Babel()


def select_locale() -> str:
    asked = request.args.get("lang")
    if asked in LANGUAGES:
        return asked
    kept = request.cookies.get(COOKIE)
    if kept in LANGUAGES:
        return kept
    return request.accept_languages.best_match(LANGUAGES, default=DEFAULT)


def language() -> str:
    """The request's language code ("ja" or "en")."""
    return str(get_locale() or DEFAULT)


def switch_url(code: str) -> str:
    """This page in language ``code``: the same address with ``lang=code`` (it sets the
    cookie), leaving out the query values the page refused (``g.refused_args``). A page
    shown in answer to a form's POST links to the home page."""
    if request.method == "GET":
        refused = {"lang", *g.get("refused_args", ())}
        path, args = request.path, [(k, v) for k, v in request.args.items(multi=True) if k not in refused]
    else:
        path, args = "/", []
    return path + "?" + urlencode([*args, ("lang", code)])


def init_app(app: Flask) -> None:
    babel.init_app(app, locale_selector=select_locale)
    app.jinja_env.policies["ext.i18n.trimmed"] = True
    app.jinja_env.globals.update(LANGUAGES=LANGUAGES, language=language, switch_url=switch_url)
    app.jinja_env.filters["names"] = names

    @app.after_request
    def remember_language(response):
        asked = request.args.get("lang")
        if asked in LANGUAGES and request.cookies.get(COOKIE) != asked:
            response.set_cookie(COOKIE, asked, max_age=COOKIE_AGE, samesite="Lax", httponly=True)
        response.vary.add("Accept-Language")
        response.vary.add("Cookie")
        return response


# -- cards and engine words in the request's language ----------------------------------

#: Suits and ranks in Japanese as card players say them (スペードのクイーン, ハートの10).
_SUITS_JA = {"S": "スペード", "H": "ハート", "D": "ダイヤ", "C": "クラブ"}
_RANKS_JA = {"A": "エース", "J": "ジャック", "Q": "クイーン", "K": "キング"}
#: A Spanish pack (Tute's display option, RULES.md §0.2): oros, copas, espadas, bastos.
_SPANISH_SUITS = {
    "en": {"D": "oros", "H": "copas", "S": "espadas", "C": "bastos"},
    "ja": {"D": "金貨", "H": "聖杯", "S": "剣", "C": "棍棒"},
}
_SPANISH_RANKS = {
    "en": {"K": "rey", "Q": "caballo", "J": "sota", "A": "as"},
    "ja": {"K": "王", "Q": "騎士", "J": "従者", "A": "エース"},
}


def suit_name(letter: str, spanish: bool = False) -> str:
    """A suit in words: "spades", "スペード"; ``spanish``: "oros", "金貨"."""
    lang = language()
    if spanish:
        return _SPANISH_SUITS[lang][letter]
    return _SUITS_JA[letter] if lang == "ja" else SUIT_NAMES[letter]


def card_name(code: str | Card, spanish: bool = False) -> str:
    """A card in words, as a screen reader says it: "queen of spades", "スペードのクイーン",
    "rey de oros", "金貨の王"."""
    c = Card.parse(code)
    lang = language()
    if spanish:
        rank = _SPANISH_RANKS[lang].get(c.rank, c.rank)
        suit = _SPANISH_SUITS[lang][c.suit]
        return f"{suit}の{rank}" if lang == "ja" else f"{rank} de {suit}"
    if lang == "ja":
        return f"{_SUITS_JA[c.suit]}の{_RANKS_JA.get(c.rank, c.rank)}"
    return f"{RANK_NAMES[c.rank]} of {SUIT_NAMES[c.suit]}"


def names(values, joined: bool = False) -> str:
    """Names (or any words) as a list in the request's language: "Ann, Ben" and "太郎、花子";
    ``joined``: as a sentence joins them, "Ann and Ben" and "太郎、花子"."""
    values = [str(v) for v in values]
    if joined:
        return format_list(values, style="standard", locale=get_locale())
    return ("、" if language() == "ja" else ", ").join(values)


def text_of(reason: Reason) -> str:
    """The reason's %-format text in the request's language (its English text is the id)."""
    return _(reason.text) if reason.text else ""


def say(reason: Reason | dict, words: dict | None = None) -> str:
    """A reason in words, in the request's language: its text translated, then its params
    (``words``, when the caller has placed them already, e.g. as chips or links) put in."""
    if isinstance(reason, dict):
        reason = Reason.from_json(reason)
    return text_of(reason) % (reason.words() if words is None else words)


def say_html(reason: Reason | dict, words: dict) -> Markup:
    """:func:`say` as HTML: the translated text escaped, the placed ``words`` as given
    (Markup stays Markup, anything else is escaped)."""
    if isinstance(reason, dict):
        reason = Reason.from_json(reason)
    return Markup(escape(text_of(reason))) % words


__all__ = ["LANGUAGES", "card_name", "init_app", "language", "names", "say", "say_html", "suit_name", "switch_url"]
