"""Words: Japanese and English, put in the language the phone chose, without Flask.

What a page says is worded here, on the server and in the phone alike (issue 45): the
language and its catalog are a :class:`Speech`, the request's on the server (installed by
companion/languages.py, which chooses it with Flask-Babel), or the one the phone's worker
renders in (:func:`speaking`). Catalogs live in ``companion/translations`` (``make run``/``make
test`` compile them); ``babel.cfg`` says what is extracted.

The engines stay pure and English: what they say is data (a :class:`Reason`: a code, its
English %-format ``text`` as the message id, and params), and :func:`say` words it in the
request's language from that data, never by translating a finished sentence.
"""

from __future__ import annotations

import gettext
import json
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from markupsafe import Markup, escape

from companion.cards import RANK_NAMES, SUIT_NAMES, Card, as_symbols
from companion.errors import AND_LISTS, LITERAL_LISTS, N_, NAME_LISTS, OR_LISTS, WORD_PARAMS, Reason
from companion.games.common import SIDE_JOIN

#: The languages there are catalogs for, and how each is named on its own switch.
LANGUAGES = {"ja": "日本語", "en": "English"}
DEFAULT = "en"


@dataclass(frozen=True)
class Speech:
    """A language as the words are put in it: its code ("ja") and its compiled catalog (the
    standard library's gettext reads the same .mo files Flask-Babel does)."""

    language: str
    catalog: gettext.NullTranslations


#: English, the engines' own words: no catalog needed.
ENGLISH = Speech(DEFAULT, gettext.NullTranslations())
_speaking: ContextVar[Speech | None] = ContextVar("speaking", default=None)
_resolve: Callable[[], Speech] = lambda: ENGLISH  # noqa: E731


def install(resolve: Callable[[], Speech]) -> None:
    """Where the language comes from when none is set by :func:`speaking`: the server
    installs the request's (companion/languages.py); outside a request, English."""
    global _resolve
    _resolve = resolve


@contextmanager
def speaking(speech: Speech) -> Iterator[Speech]:
    """Words put in ``speech``'s language inside the block (the phone renders this way)."""
    token = _speaking.set(speech)
    try:
        yield speech
    finally:
        _speaking.reset(token)


def current() -> Speech:
    """The language words are put in now."""
    return _speaking.get() or _resolve()


def language() -> str:
    """The language's code ("ja" or "en")."""
    return current().language


def _(string: str, **variables) -> str:
    """``string`` in the current language, its ``%(name)s`` places filled from ``variables``
    (as Flask-Babel's ``gettext`` does, so both sides say the same)."""
    said = current().catalog.gettext(string)
    return said % variables if variables else said


def ngettext(singular: str, plural: str, num: int, **variables) -> str:
    variables.setdefault("num", num)
    return current().catalog.ngettext(singular, plural, num) % variables


#: CLDR's list patterns (Unicode CLDR 47, as Babel carries them; tests/test_i18n.py compares
#: each with Babel's ``format_list``): a list as a sentence joins it ("standard") and as it
#: offers alternatives ("or"), in each language.
LIST_PATTERNS = {
    "en": {
        "standard": {"2": "{0} and {1}", "start": "{0}, {1}", "middle": "{0}, {1}", "end": "{0}, and {1}"},
        "or": {"2": "{0} or {1}", "start": "{0}, {1}", "middle": "{0}, {1}", "end": "{0}, or {1}"},
    },
    "ja": {
        "standard": {"2": "{0}、{1}", "start": "{0}、{1}", "middle": "{0}、{1}", "end": "{0}、{1}"},
        "or": {"2": "{0}または{1}", "start": "{0}、{1}", "middle": "{0}、{1}", "end": "{0}、または{1}"},
    },
}


def format_list(values: list[str], style: str = "standard") -> str:
    """``values`` joined by the current language's CLDR pattern (CLDR's algorithm: the
    pattern for two, else start, middles and end)."""
    patterns = LIST_PATTERNS[language()][style]
    if not values:
        return ""
    if len(values) == 1:
        return values[0]
    if len(values) == 2:
        return patterns["2"].format(*values)
    said = patterns["start"].format(values[0], values[1])
    for value in values[2:-1]:
        said = patterns["middle"].format(said, value)
    return patterns["end"].format(said, values[-1])


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


#: How partners' names join into a side's name, in each language: "Ann & Cat", 「健太郎・翔太」
#: (the 中黒 a Japanese table writes a pair with). Not CLDR's list patterns: those join a
#: list as a sentence does ("Ann and Cat", 「健太郎、翔太」), and a side is one name.
_SIDE_JOINS = {"en": SIDE_JOIN, "ja": "・"}


def side_name(side: str | Iterable[str]) -> str:
    """A side as the request's language names it: the player, or partners joined ("Ann &
    Cat", 「健太郎・翔太」). ``side``: its players, or the label the engines key it by
    (:func:`companion.games.side_label`, partners joined by ``SIDE_JOIN``)."""
    players = side.split(SIDE_JOIN) if isinstance(side, str) else [str(p) for p in side]
    return _SIDE_JOINS[language()].join(players)


def names(values, joined: bool = False) -> str:
    """Names (or any words) as a list in the request's language: "Ann, Ben" and "太郎、花子";
    ``joined``: as a sentence joins them, "Ann and Ben" and "太郎、花子". A side among them
    (partners, as the engines label them) is named as :func:`side_name` says."""
    values = [side_name(str(v)) for v in values]
    if joined:
        return format_list(values)
    return ("、" if language() == "ja" else ", ").join(values)


def alternatives(values: list[str]) -> str:
    """Alternatives as the request's language offers them (CLDR's "or" list): "82 or 102",
    "82または102". Japanese puts no space around its または, so where alternatives are
    themselves several words (a capture's cards) those are quoted: 「2♣ 3♦ 9♠」または「5♥ 9♠」."""
    if language() == "ja":
        values = [f"「{v}」" if " " in v else v for v in values]
    return format_list(values, "or")


def listed(values) -> Markup:
    """Items (text, or HTML such as card chips) as the request's language lists them, each
    escaped: "A, B, and C", 「A、B、C」."""
    return Markup(format_list([str(escape(v)) for v in values]))


#: The games as a rule's citation names them ("Tute 2.6"), for extraction: the adapters' CITED.
_CITED = (N_("Tablanette"), N_("Tute"), N_("Tantony"))


def cite(rule: str) -> str:
    """A rule as cited, in the request's language: "Tute 2.6", "トゥテ 2.6"."""
    cited, _space, section = rule.rpartition(" ")
    return f"{_(cited)} {section}" if cited else rule


def text_of(reason: Reason) -> str:
    """The reason's %-format text in the request's language (its English text is the id)."""
    return _(reason.text) if reason.text else ""


def words_of(reason: Reason, spanish: bool = False) -> dict:
    """The reason's params as the request's language places them: names joined as its
    sentences join them, the engine's marked words translated, the rule cited."""
    out = reason.words()
    for key, value in reason.params.items():
        if isinstance(value, dict):  # a score each: "Ann 40, Ben 12", "太郎 40、花子 12"
            out[key] = names(f"{side_name(k)} {v}" for k, v in value.items())
        elif key in NAME_LISTS | AND_LISTS and isinstance(value, list):
            out[key] = names(value, joined=True)
        elif key in OR_LISTS and isinstance(value, list):
            out[key] = alternatives([_(str(v)) for v in value])
        elif key in LITERAL_LISTS and isinstance(value, list):
            out[key] = alternatives([json.dumps(v, ensure_ascii=False) for v in value])
        elif key in WORD_PARAMS and isinstance(value, str):
            out[key] = _(value)
        elif key == "suit" and value in _SUITS_JA:
            out[key] = suit_name(value, spanish)
    out["rule"] = cite(reason.rule) if reason.rule else ""
    return out


Said = Reason | dict | list


def sentences(said: Said) -> list[Reason]:
    """What an engine said: one reason, or several sentences in order; each a Reason or
    kept in a game's state as data (:meth:`Reason.as_data`)."""
    items = said if isinstance(said, list) else [said]
    return [r if isinstance(r, Reason) else Reason.from_json(r) for r in items]


def gap() -> str:
    """Between two sentences: a space in English, nothing after Japanese's 。."""
    return "" if language() == "ja" else " "


def colon() -> str:
    """A label's colon: ":" in English, the full-width 「：」 in Japanese (a template writes
    the gap after it)."""
    return "：" if language() == "ja" else ":"


def joined(*texts: str) -> str:
    """Sentences as one paragraph: "A. B." in English, 「A。B。」 in Japanese."""
    return gap().join(texts)


def say(said: Said, words: dict | None = None) -> str:
    """What an engine said, in words in the request's language: each reason's text
    translated, then its params (``words``, when the caller has placed them already; else
    cards written as players read them, Q♣) put in."""
    return gap().join(text_of(r) % (_plain_words(r) if words is None else words) for r in sentences(said))


def _plain_words(reason: Reason) -> dict:
    return {
        k: as_symbols(str(v)) if k not in NAME_LISTS and isinstance(v, (str, list)) else v
        for k, v in words_of(reason).items()
    }


def say_html(reason: Reason, words: dict) -> Markup:
    """One reason as HTML: the translated text escaped, the placed ``words`` as given
    (Markup stays Markup, anything else is escaped)."""
    return Markup(escape(text_of(reason))) % words


def join_html(parts: list[Markup]) -> Markup:
    """Sentences as one paragraph's HTML."""
    return Markup(gap()).join(parts)


__all__ = [
    "LANGUAGES",
    "card_name",
    "cite",
    "colon",
    "join_html",
    "joined",
    "sentences",
    "words_of",
    "language",
    "names",
    "side_name",
    "say",
    "say_html",
    "suit_name",
]
