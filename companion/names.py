"""Players' names: one person, one name (issue 30).

A name is stored as typed, in Unicode's composed form (NFC), without the spaces around
it, and at most :data:`NAME_LENGTH` characters. A character nobody can see or that
changes how the text around it is drawn (a control character, a zero-width space, a byte
order mark, a bidirectional override, a private-use or unassigned code point, a line
separator), or a combining accent with no letter before it, is refused with its name, so
"Zed" and "Zed" followed by an invisible character are never two people.

Two names are one person when their :func:`key` is equal: NFKC with case folded, as
Unicode's identifier caseless matching does it (``ＺＥＤ``, ``zed`` and ``Zed`` alike).
The roster matches players by that key, and a game refuses two seats that share it.
Pure: no Flask, no store.

>>> clean("  Zed ")
'Zed'
>>> key("ＺＥＤ") == key("zed")
True
>>> try:
...     clean("Zed\\u200b")
... except OptionError as e:
...     print(e.code, e.params["char"] + e.params["unicode_name"])
name_invisible U+200B ZERO WIDTH SPACE
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from companion.errors import OptionError

#: The longest name, in characters (the new-game form, the API and the roster alike).
NAME_LENGTH = 24

#: Unicode categories a name never holds: controls, format characters (zero-width space,
#: joiners, byte order mark, bidirectional controls), surrogates, private use, unassigned,
#: line and paragraph separators.
_REFUSED = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def char_params(ch: str) -> dict[str, str]:
    """A character as a refusal names it: its code point (``"U+200B"``) and, after a space,
    Unicode's English name for it (``" ZERO WIDTH SPACE"``; nothing for a control), which
    the English message adds."""
    name = unicodedata.name(ch, "")
    return {"char": f"U+{ord(ch):04X}", "unicode_name": f" {name}" if name else ""}


def normalized(name: str) -> str:
    """The name in Unicode's composed form (NFC), without the spaces around it: how it is
    stored, and how a name given elsewhere (the first dealer) is matched with it."""
    return unicodedata.normalize("NFC", name).strip()


def clean(name: object, seat: int | None = None) -> str:
    """The name as stored: NFC, stripped; ``OptionError`` (option ``players``, with the
    ``seat`` when given) if it is empty, too long or holds a character :data:`_REFUSED`."""
    if not isinstance(name, str):
        raise OptionError("players_not_names", "Players must be a list of names", option="players", seat=seat)
    text = normalized(name)
    if not text:
        raise OptionError("name_empty", "Every player needs a name", option="players", seat=seat)
    for ch in text:
        if unicodedata.category(ch) in _REFUSED:
            raise OptionError(
                "name_invisible",
                "%(name)s holds a character that can't be seen or that changes the text around it "
                "(%(char)s%(unicode_name)s): type the name again without it",
                option="players",
                name="".join(c for c in text if unicodedata.category(c) not in _REFUSED),
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


def key(name: str) -> str:
    """What makes two names one person: NFKC, case folded (and NFKC again, as Unicode's
    ``NFKC_Casefold`` does), without the spaces around it."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return folded.strip()


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
