"""A board's parts (issue 45, "Speed"): each element at the top of the live region (the
scoreboard, the prompt, the trick, the table...) marked with a digest of its own markup,
``data-part``, so that what a tap changes is known part by part.

- An answer to a page that says which parts it shows (the ``X-Board-Parts`` header: their
  digests; this app's own header, not one of htmx's, which flask-htmx reads) sends each of
  those as a stub, ``<template data-part="…"></template>``, and only the others whole: most
  of a board is unchanged by a card.
- The page (static/morph.js) keeps each part whose digest it already shows as it is, without
  walking it, and fits each other part into the one of its kind (its id, or its tag and
  first class) instead of into whatever element comes next.

The same markup on the server and in the phone: this runs in both (the standard library
only). Our templates write well-formed HTML with escaped attributes, so the top-level
elements are found by counting start and end tags, without parsing the whole of it.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable

from markupsafe import Markup

#: A tag or a comment; an attribute's value never holds a raw ">" (Jinja escapes it).
_TAG = re.compile(r"<!--.*?-->|<(/?)([a-zA-Z][a-zA-Z0-9-]*)[^>]*?(/?)>", re.S)
#: Elements without an end tag.
_VOID = frozenset("area base br col embed hr img input link meta source track wbr".split())
#: What a page may say it shows: at most this many digests (a board has about a dozen parts).
MOST_KNOWN = 64
_DIGEST = re.compile(r"[0-9a-f]{8}")


def digest(markup: str) -> str:
    """A part's digest: CRC-32 of its markup, 8 hex digits."""
    return f"{zlib.crc32(markup.encode()):08x}"


def known(header: str | None) -> frozenset[str]:
    """The digests a page says it shows (the ``X-Board-Parts`` header), anything else ignored."""
    words = (header or "").split()[:MOST_KNOWN]
    return frozenset(w for w in words if _DIGEST.fullmatch(w))


def _elements(html: str) -> Iterable[tuple[int, int, int]]:
    """Each top-level element of ``html``: its start, where its start tag's attributes end
    (before its ``>`` or ``/>``), and its end."""
    depth, start, attrs_end = 0, 0, 0
    for m in _TAG.finditer(html):
        closing, name, self_closing = m.group(1), m.group(2), m.group(3)
        if name is None:  # a comment
            continue
        if closing:
            depth -= 1
            if depth == 0:
                yield start, attrs_end, m.end()
            continue
        if depth == 0:
            start, attrs_end = m.start(), m.end() - 1 - len(self_closing)
        if self_closing or name.lower() in _VOID:
            if depth == 0:
                yield start, attrs_end, m.end()
            continue
        depth += 1


def mark(html: str, shown: frozenset[str] = frozenset()) -> Markup:
    """``html`` (a board) with each top-level element marked with its digest; an element
    whose digest is ``shown`` is sent as a stub. What lies between elements stays."""
    out, at = [], 0
    for start, attrs_end, end in _elements(html):
        part = html[start:end]
        d = digest(part)
        out.append(html[at:start])
        if d in shown:
            out.append(f'<template data-part="{d}"></template>')
        else:
            out.append(f'{html[start:attrs_end]} data-part="{d}"{html[attrs_end:end]}')
        at = end
    out.append(html[at:])
    return Markup("".join(out))
