"""Players' names: one person, one name (issue 30).

A name is stored as typed, in Unicode's composed form (NFC), without the spaces around
it nor variation selectors (an emoji keyboard's unseen U+FE0F), and at most
:data:`NAME_LENGTH` characters. A character nobody can see or that changes how the text
around it is drawn (a control character, a zero-width space, a byte order mark, a
bidirectional override, a private-use or unassigned code point, a line separator, and
every other default-ignorable code point: the combining grapheme joiner, Hangul
fillers), a combining accent with no letter before it,
more than :data:`MARKS` accents stacked on one letter, and a name without a letter or a
digit (a braille blank, which shows nothing) are refused with the character named, so
"Zed" and "Zed" followed by an invisible character are never two people.

Two names are one person when they look the same: when their :func:`key` is equal, the
UTS #39 confusable skeleton of the name with case folded (``ＺＥＤ``, ``zed`` and ``Zed``
alike, and ``Ann`` with a Cyrillic ``А``). The roster matches players by that key, and a
game refuses two seats that share it. Pure: no Flask, no store.

>>> clean("  Zed ")
'Zed'
>>> key("ＺＥＤ") == key("zed") == key("\\u0396ed")  # Greek capital zeta
True
>>> try:
...     clean("Zed\\u200b")
... except OptionError as e:
...     print(e.code, e.params["char"] + e.params["unicode_name"])
name_invisible U+200B ZERO WIDTH SPACE
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

import icu

from companion.errors import OptionError

#: The longest name, in characters (the new-game form, the API and the roster alike).
NAME_LENGTH = 24

#: Unicode categories a name never holds: controls, format characters (zero-width space,
#: joiners, byte order mark, bidirectional controls), surrogates, private use, unassigned,
#: line and paragraph separators.
_REFUSED = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
#: The most accents (non-spacing or enclosing marks, once decomposed) on one letter: two,
#: as Vietnamese stacks them (ệ); past that a name draws over the lines around it.
MARKS = 2
#: UTS #39's confusables, as ICU applies them (one checker for the process: ICU's checks
#: on a configured checker are safe from several threads).
_SPOOF = icu.SpoofChecker()


def _refused(ch: str) -> bool:
    """Whether a name may never hold ``ch``: a category of :data:`_REFUSED`, or Unicode's
    Default_Ignorable_Code_Point (drawn as nothing where it is not understood: variation
    selectors, U+034F, Hangul fillers, U+17B4, U+180B...)."""
    return unicodedata.category(ch) in _REFUSED or icu.Char.hasBinaryProperty(
        ch, icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT
    )


def char_params(ch: str) -> dict[str, str]:
    """A character as a refusal names it: its code point (``"U+200B"``) and, after a space,
    Unicode's English name for it (``" ZERO WIDTH SPACE"``; nothing for a control), which
    the English message adds."""
    name = unicodedata.name(ch, "")
    return {"char": f"U+{ord(ch):04X}", "unicode_name": f" {name}" if name else ""}


#: Variation selectors: they only choose how the character before them is drawn, and a
#: phone's emoji keyboard adds one unseen (❤️ is U+2764 U+FE0F). Dropped, not refused: the
#: person could not find what to take out, and "Ann" + one is Ann.
_SELECTORS = re.compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef]")


def normalized(name: str) -> str:
    """The name in Unicode's composed form (NFC), without the spaces around it nor variation
    selectors: how it is stored, and how a name given elsewhere (the first dealer) is
    matched with it."""
    return unicodedata.normalize("NFC", _SELECTORS.sub("", name)).strip()


def clean(name: object, seat: int | None = None) -> str:
    """The name as stored: NFC, stripped; ``OptionError`` (option ``players``, with the
    ``seat`` when given) if it is empty, too long or holds a character :data:`_REFUSED`."""
    if not isinstance(name, str):
        raise OptionError("players_not_names", "Players must be a list of names", option="players", seat=seat)
    text = normalized(name)
    if not text:
        raise OptionError("name_empty", "Every player needs a name", option="players", seat=seat)
    for ch in text:
        if not _refused(ch):
            continue
        if seen := "".join(c for c in text if not _refused(c)):
            raise OptionError(
                "name_invisible",
                "%(name)s holds a character that can't be seen or that changes the text around it "
                "(%(char)s%(unicode_name)s): type the name again without it",
                option="players",
                name=seen,
                **char_params(ch),
                seat=seat,
            )
        raise OptionError(
            "name_unseen",
            "This name is only characters that can't be seen (%(char)s%(unicode_name)s)",
            option="players",
            **char_params(ch),
            seat=seat,
        )
    if unicodedata.category(text[0]).startswith("M"):
        raise OptionError(
            "name_lone_accent",
            "A name can't start with an accent on its own (%(char)s%(unicode_name)s)",
            option="players",
            **char_params(text[0]),
            seat=seat,
        )
    if (mark := _stacked(text)) is not None:
        raise OptionError(
            "name_stacked_accents",
            "At most %(n)s accents on one letter (%(char)s%(unicode_name)s is one more): "
            "type the name again without it",
            option="players",
            n=MARKS,
            **char_params(mark),
            seat=seat,
        )
    if not any(unicodedata.category(ch)[0] in "LN" for ch in text):
        raise OptionError(
            "name_no_letter",
            "A name needs at least one letter or digit (%(char)s%(unicode_name)s is neither)",
            option="players",
            **char_params(text[0]),
            seat=seat,
        )
    if len(text) > NAME_LENGTH:
        raise OptionError(
            "name_too_long",
            "%(name)s is longer than %(n)s characters",
            option="players",
            name=text,
            n=NAME_LENGTH,
            seat=seat,
        )
    return text


def _stacked(text: str) -> str | None:
    """The first accent past :data:`MARKS` on one letter (decomposed), or None."""
    run = 0
    for ch in unicodedata.normalize("NFD", text):
        run = run + 1 if unicodedata.category(ch) in ("Mn", "Me") else 0
        if run > MARKS:
            return ch
    return None


def _skeleton(text: str) -> str:
    """UTS #39's skeleton: each character as the prototype it is confusable with (Cyrillic
    ``а`` as ``a``, ``m`` as ``rn``, katakana ``カ`` as 力), decomposed."""
    return _SPOOF.getSkeleton(0, text)


def _as_capital(ch: str) -> str:
    """A capital as the capital it looks like (Greek ``Β`` and Cyrillic ``В`` as ``B``),
    else as it is: ``I`` stays ``I`` (its skeleton is ``l``, which is not a capital)."""
    if not ch.isupper():
        return ch
    like = _skeleton(ch)
    return like if like.isupper() else ch


def key(name: str) -> str:
    """What makes two names one person, as they look: NFKC, each capital as the capital it
    looks like, case folded, then UTS #39's skeleton (lowercase look-alikes: Cyrillic
    ``о``, Greek ``ο``) and NFKC case folding again, without the spaces around it.

    Folding case before the skeleton keeps ``Ian`` and ``ian`` one name (the skeleton
    alone makes ``I`` an ``l`` and leaves ``i``); mapping capitals first keeps capitals
    that only look alike as capitals (Greek ``Ν``, whose small form ``ν`` looks like
    ``v``). Accents stay: ``José`` is not ``Jose``, and kana are not kanji except where
    they look the same (カ and 力)."""
    capitals = "".join(_as_capital(ch) for ch in unicodedata.normalize("NFKC", name))
    return _folded(_skeleton(_folded(capitals))).strip()


def _folded(text: str) -> str:
    """NFKC, case folded, NFKC again (as Unicode's ``NFKC_Casefold`` does)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


def check_seats(names: Iterable[object]) -> list[str]:
    """A new game's names, each :func:`clean`; ``OptionError`` (code ``names_alike``, the
    later ``seat``) when two are one person by :func:`key`."""
    cleaned: list[str] = []
    seen: dict[str, str] = {}
    for seat, name in enumerate(names):
        text = clean(name, seat)
        other = seen.get(key(text))
        if other is not None:
            raise OptionError(
                "names_alike",
                "%(name)s and %(other)s are the same name: give each player a name of their own",
                option="players",
                name=text,
                other=other,
                seat=seat,
            )
        seen[key(text)] = text
        cleaned.append(text)
    return cleaned
