"""Players' names: one person, one name (issues 30 and 44).

A name is stored as typed, in Unicode's composed form (NFC), without the spaces around
it nor variation selectors (an emoji keyboard's unseen U+FE0F), and at most
:data:`NAME_LENGTH` characters. A character nobody can see or that changes how the text
around it is drawn (a control character, a zero-width space, a byte order mark, a
bidirectional override, a private-use or unassigned code point, a line separator, and
every other default-ignorable code point: the combining grapheme joiner, Hangul
fillers), a combining accent with no letter before it,
more than :data:`MARKS` accents stacked on one letter, and a name without a letter or a
digit (a braille blank, which shows nothing) are refused with the character named, so
"Zed" and "Zed" followed by an invisible character are never two people. The two joiners
are taken where they do what they are typed for: a zero-width non-joiner between letters
of a script whose letters join (Persian's می‌) or after a virama, a zero-width joiner
between two emoji (👩‍💻) or after a virama.

Two names are one person when they look the same: when their :func:`key` is equal. The key
folds case, width (NFKC) and what cannot be seen, drops Arabic's and Hebrew's optional
vowel marks, and maps a character of another script than the name's own to the letter of
the name's script that it imitates (UTS #39's confusables, mixed-script: Cyrillic ``А`` in
"Аnn", Greek ``ο`` in "Bοb", the digit ``0`` in "J0hn"). Two spellings in ordinary letters
of one script are never mapped: Amie is not Arnie, Kim is not Kirn. The roster matches
players by the key, and a game refuses two seats that share it. Pure: no Flask, no store.

>>> clean("  Zed ")
'Zed'
>>> key("ＺＥＤ") == key("zed") == key("\\u0396ed")  # Greek capital zeta
True
>>> key("Amie") == key("Arnie")
False
>>> try:
...     clean("Zed\\u200b")
... except OptionError as e:
...     print(e.code, e.params["char"] + e.params["unicode_name"])
name_invisible U+200B ZERO WIDTH SPACE
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterable

from companion import unicode_tables
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
#: The most of Arabic's and Hebrew's vowel marks on one letter, counted apart from accents:
#: pointed Hebrew stacks three (a dagesh, a shin dot and a vowel on שּׁ with patah).
VOWEL_MARKS = 3
#: The joiners, taken where a name needs them (:func:`_joins`) and unseen by :func:`key`.
ZWNJ, ZWJ = "\u200c", "\u200d"
#: Scripts whose letters join one another, where a zero-width non-joiner keeps two apart.
_JOINING = frozenset({"Arab", "Syrc", "Nkoo", "Mong", "Mand", "Mani", "Phlp", "Adlm", "Rohg", "Sogd", "Chrs", "Ougr"})
#: Arabic's tatweel: it only stretches a joined letter (محـمد is محمد).
_TATWEEL = "\u0640"


def _lines(table: str) -> list[list[str]]:
    return [line.split() for line in table.strip().splitlines()]


def _table(table: str) -> tuple[list[int], list[int], list[str]]:
    """A table of :mod:`companion.unicode_tables` (lines ``first last [value]``) as three
    lists, for :func:`_find`."""
    rows = _lines(table)
    return [int(r[0], 16) for r in rows], [int(r[1], 16) for r in rows], [r[2] if len(r) > 2 else "" for r in rows]


def _find(table: tuple[list[int], list[int], list[str]], ch: str) -> str | None:
    """The value of the run holding ``ch`` ("" for a table of runs alone), or None."""
    firsts, lasts, values = table
    i = bisect_right(firsts, ord(ch)) - 1
    return values[i] if i >= 0 and ord(ch) <= lasts[i] else None


_IGNORABLE = _table(unicode_tables.IGNORABLE)
_VOWEL_MARKS = _table(unicode_tables.VOWEL_MARKS)
_SCRIPTS = _table(unicode_tables.SCRIPTS)
#: Each look-alike letter or digit and the one character it looks like (its prototype).
_LIKE = {chr(int(a, 16)): chr(int(b, 16)) for a, b in _lines(unicode_tables.LOOKALIKES)}


def _imitations() -> dict[tuple[str, str, bool], str]:
    """For a prototype, a script and a case (capital or not): the letter of that script a
    character of that look is written as in a name of that script. Of the script's
    characters that look the same, one of the same case first, then the prototype itself,
    then the lowest code point: Cyrillic ``І`` in a Latin name is ``I`` (not ``l``, its
    prototype), the digit ``1`` is ``l``, and a Latin ``a`` in a Cyrillic name is ``а``."""
    looks: dict[str, set[str]] = {}
    for ch, like in _LIKE.items():
        looks.setdefault(like, {like}).add(ch)
    best: dict[tuple[str, str, bool], str] = {}
    for like, chars in looks.items():
        for upper in (False, True):
            for ch in sorted(chars, key=lambda c: (c.isupper() != upper, c != like, ord(c))):
                best.setdefault((like, _script(ch) or "", upper), ch)
    return best


def _script(ch: str) -> str | None:
    """The script of ``ch`` (ISO 15924: ``Latn``, ``Cyrl``, ``Hani``...), or None for one
    shared by all (digits, punctuation, accents)."""
    return _find(_SCRIPTS, ch)


_IMITATES = _imitations()


def _refused(ch: str) -> bool:
    """Whether a name may never hold ``ch`` (but the joiners in place, :func:`_joins`): a
    category of :data:`_REFUSED`, or Unicode's Default_Ignorable_Code_Point (drawn as
    nothing where it is not understood: variation selectors, U+034F, Hangul fillers,
    U+17B4, U+180B...)."""
    return unicodedata.category(ch) in _REFUSED or _find(_IGNORABLE, ch) is not None


def _joins(text: str, i: int) -> bool:
    """Whether the joiner at ``text[i]`` does what it is typed for: after a virama (Indic
    half forms), a non-joiner between two letters of a joining script (Persian's نامه‌ها), a
    joiner between two emoji (👩‍💻, 🏳‍🌈; a skin tone may end the first)."""
    if text[i] not in (ZWNJ, ZWJ) or not 0 < i < len(text) - 1:
        return False
    before, after = text[i - 1], text[i + 1]
    if unicodedata.combining(before) == 9:
        return True
    if text[i] == ZWNJ:
        j = i - 1  # the letter before, past its marks
        while j > 0 and unicodedata.category(text[j]).startswith("M"):
            j -= 1
        return _script(text[j]) in _JOINING and _script(after) in _JOINING
    return unicodedata.category(before) in ("So", "Sk") and unicodedata.category(after) == "So"


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
    for i, ch in enumerate(text):
        if not _refused(ch) or _joins(text, i):
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
            n=VOWEL_MARKS if _find(_VOWEL_MARKS, mark) is not None else MARKS,
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
    """The first accent past :data:`MARKS` on one letter (decomposed), or the first of
    Arabic's or Hebrew's vowel marks past :data:`VOWEL_MARKS`, or None."""
    accents = vowels = 0
    for ch in unicodedata.normalize("NFD", text):
        if unicodedata.category(ch) not in ("Mn", "Me"):
            accents = vowels = 0
        elif _find(_VOWEL_MARKS, ch) is not None:
            vowels += 1
            if vowels > VOWEL_MARKS:
                return ch
        else:
            accents += 1
            if accents > MARKS:
                return ch
    return None


def _unseen(ch: str) -> bool:
    """What :func:`key` drops: what is drawn as nothing (the joiners, variation selectors,
    and in names typed before they were refused, a zero-width space), Arabic's and Hebrew's
    vowel marks (harakat, niqqud: written or left out, one name) and Arabic's tatweel."""
    return ch == _TATWEEL or _find(_IGNORABLE, ch) is not None or _find(_VOWEL_MARKS, ch) is not None


def _in_its_script(text: str) -> str:
    """``text`` (decomposed) with each character of another script than the name's own as
    the letter of the name's script it imitates, where one does (UTS #39's confusables):
    Cyrillic ``А`` in "Аnn" as ``A``, the digit ``0`` in "J0hn" as ``O``, katakana ``カ`` in
    "カ太郎" as 力. The name's own script is the one most of its characters are in or
    imitate: "Аnn" is Latin, "Ивaн" Cyrillic; between two in reach of as many, Latin (the
    prototypes' own script: "Jое" is "Joe"), then the one most are in, then by code. A name
    in one script is never mapped, so two spellings in ordinary letters of one script never
    become one (``rn`` is not ``m``, ``ΝΕΟ`` is ``Νεο``); a name wholly in another script
    that looks like a Latin one (Cyrillic "Асе") is not taken for it either."""
    scripts = {s for ch in text if (s := _script(ch))}
    if not scripts:
        return text  # "100" is not "lOO"

    def like(ch: str, script: str) -> str | None:
        """The letter of ``script`` (else the common character: a digit, Japanese's ー) that
        ``ch`` looks like, if any."""
        look = (_LIKE.get(ch, ch), ch.isupper())
        return _IMITATES.get((look[0], script, look[1])) or _IMITATES.get((look[0], "", look[1]))

    def weight(script: str) -> tuple[int, bool, int, str]:
        own = sum(_script(ch) == script for ch in text)
        reach = own + sum(_script(ch) != script and like(ch, script) is not None for ch in text)
        return reach, script == "Latn", own, script

    own = max(scripts, key=weight)
    return "".join(ch if _script(ch) == own else like(ch, own) or ch for ch in text)


def key(name: str) -> str:
    """What makes two names one person, as they look: NFKC, without what is drawn as
    nothing nor Arabic's and Hebrew's vowel marks, decomposed, each character of another
    script as the letter of the name's script it imitates (:func:`_in_its_script`), then
    NFKC case folded, without the spaces around it.

    Mapping before folding case keeps capitals that only look alike as capitals (Greek
    ``Ν``, whose small form ``ν`` looks like ``v``). Accents stay: ``José`` is not ``Jose``;
    and kana are not kanji except where they look the same (カ and 力)."""
    text = "".join(ch for ch in unicodedata.normalize("NFKC", name) if not _unseen(ch))
    return _folded(_in_its_script(unicodedata.normalize("NFD", text))).strip()


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
