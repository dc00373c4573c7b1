"""Writes companion/unicode_tables.py: the few tables of Unicode's data that names.py needs
and Python's ``unicodedata`` lacks (issue 44). Run by ``make unicode-tables`` when Unicode
is updated; the app itself never imports ICU.

The tables come from ICU (``pyicu-wheels``, installed by the make target into a throwaway
venv), which compiles Unicode's own files: Scripts.txt (each character's script),
DerivedCoreProperties.txt (Default_Ignorable_Code_Point), ScriptExtensions.txt (which marks
are Arabic's and Hebrew's) and UTS #39's confusables.txt (what each character looks like).

Of the confusables only what a name's key uses is kept: a letter or digit, unchanged by
NFKD (the key decomposes first, so ``ё`` is Cyrillic ``е`` and an accent), whose look-alike
prototype is one character (Cyrillic ``а`` as ``a``, Greek ``Ν`` as ``N``, ``0`` as ``O``).
Sequences such as ``m`` as ``rn`` are left out on purpose: they are ordinary letters of one
script, and the key never maps those.
"""

from __future__ import annotations

import sys

import icu  # type: ignore[import-not-found]

#: Scripts that tell nothing about a name's own script.
NEUTRAL = {"Zyyy", "Zinh", "Zzzz"}
#: Non-spacing marks of these scripts alone are the ones the key drops (not U+0308, which
#: Hebrew shares with Latin's ë). The combining hamza and madda stay: they make another letter (أ, آ), not a vowel.
HAMZA = {0x0653, 0x0654, 0x0655}
VOWELLED = {"Arab", "Hebr", "Syrc"}


def ranges(points: list[int]) -> list[tuple[int, int]]:
    """Sorted code points as (first, last) runs."""
    runs: list[tuple[int, int]] = []
    for p in points:
        if runs and runs[-1][1] == p - 1:
            runs[-1] = (runs[-1][0], p)
        else:
            runs.append((p, p))
    return runs


def hexes(runs: list[tuple[int, int]]) -> str:
    return "\n".join(f"{a:04X} {b:04X}" for a, b in runs)


def main() -> None:
    spoof = icu.SpoofChecker()
    nfd, nfkd = icu.Normalizer2.getNFDInstance(), icu.Normalizer2.getNFKDInstance()
    scripts: list[tuple[int, int, str]] = []
    ignorable: list[int] = []
    vowel_marks: list[int] = []
    lookalikes: list[tuple[int, int]] = []
    for p in range(0x110000):
        if 0xD800 <= p <= 0xDFFF:
            continue
        ch = chr(p)
        if icu.Char.hasBinaryProperty(ch, icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT):
            ignorable.append(p)
        kind = icu.Char.charType(ch)
        if kind == icu.UCharCategory.UNASSIGNED:
            continue
        script = icu.Script.getScript(ch).getShortName()
        if script not in NEUTRAL:
            if scripts and scripts[-1][2] == script and scripts[-1][1] == p - 1:
                scripts[-1] = (scripts[-1][0], p, script)
            else:
                scripts.append((p, p, script))
        if kind == icu.UCharCategory.NON_SPACING_MARK and p not in HAMZA:
            used = {icu.Script(code).getShortName() for code in icu.Script.getScriptExtensions(ch)}
            if used & {"Arab", "Hebr"} and used <= VOWELLED:
                vowel_marks.append(p)
        if icu.Char.isalnum(ch) and nfkd.isNormalized(ch):
            like = nfd.normalize(spoof.getSkeleton(0, ch))
            if like != ch and len(like) == 1:
                lookalikes.append((p, ord(like)))
    out = [
        '"""Unicode data for names.py, written by tools/unicode_tables.py (`make unicode-tables`)',
        f"from ICU {icu.ICU_VERSION}: Unicode {icu.UNICODE_VERSION}. Do not edit by hand.",
        "",
        "Each table is text, a line an entry, code points in hex: :data:`SCRIPTS` is ``first last",
        "script`` (ISO 15924; Common and Inherited left out), :data:`IGNORABLE` and",
        ":data:`VOWEL_MARKS` ``first last``, :data:`LOOKALIKES` ``character prototype`` (UTS #39's",
        'confusables, one character for one).\n"""',
        "",
        f'UNICODE_VERSION = "{icu.UNICODE_VERSION}"',
        "",
        "#: Default_Ignorable_Code_Point: drawn as nothing where not understood.",
        f'IGNORABLE = """\n{hexes(ranges(ignorable))}\n"""',
        "",
        "#: Arabic's and Hebrew's non-spacing marks (harakat, niqqud, cantillation), hamza and madda aside.",
        f'VOWEL_MARKS = """\n{hexes(ranges(vowel_marks))}\n"""',
        "",
        "#: Each code point's script, where it has one of its own.",
        'SCRIPTS = """\n' + "\n".join(f"{a:04X} {b:04X} {s}" for a, b, s in scripts) + '\n"""',
        "",
        "#: A letter or digit and the one character it looks like.",
        'LOOKALIKES = """\n' + "\n".join(f"{a:04X} {b:04X}" for a, b in lookalikes) + '\n"""',
    ]
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
