"""What every blueprint shares: the store, the game being looked at, who may edit it,
and the one helper that answers a fragment to htmx and a whole page to everyone else."""

from __future__ import annotations

from flask import abort, current_app, g, render_template, request, session

from companion import games
from companion.games.tricks import DUTY_TEXT
from companion.cards import PACK_52, Card, RANKS, SUIT_NAMES, SUIT_SYMBOLS, SUITS


def store():
    return current_app.extensions["store"]


def load_game(game_id: str) -> dict:
    """The stored game, or a 404 page."""
    row = store().get(game_id)
    if row is None:
        abort(404)
    return row


def remember_key(game_id: str, key: str) -> None:
    """A referee link carries the edit key once; the signed session cookie keeps it."""
    keys = dict(session.get("keys", {}))
    keys[game_id] = key
    session["keys"] = keys
    session.permanent = True


def is_referee(game_id: str) -> bool:
    key = session.get("keys", {}).get(game_id)
    return bool(key) and store().check_key(game_id, key)


def page_or_fragment(page: str, fragment: str, status: int = 200, **context):
    """DESIGN.md: one helper decides fragment or page on HX-Request (and says so in Vary)."""
    partial = request.headers.get("HX-Request") == "true" and not request.headers.get("HX-Boosted")
    body = render_template(fragment if partial else page, **context)
    return body, status, {"Vary": "HX-Request"}


#: Spanish-pack display (RULES.md §0.2): oros = D, copas = H, espadas = S, bastos = C;
#: rey = K, caballo = Q, sota = J. Only the names change; the codes stay French.
SPANISH_SUITS = {"D": "oros", "H": "copas", "S": "espadas", "C": "bastos"}
SPANISH_RANKS = {"K": ("R", "rey"), "Q": ("C", "caballo"), "J": ("S", "sota"), "A": ("1", "as")}


def card_face(code: str) -> dict:
    """How a card is shown: rank, suit symbol, colour, spoken name. A game page that
    asks for Spanish names (``g.spanish_names``) gets "R" and "rey de oros" for KD."""
    c = Card.parse(code)
    face = {"code": str(c), "rank": c.rank, "suit": SUIT_SYMBOLS[c.suit], "red": c.red, "name": c.name}
    if g.get("spanish_names"):
        short, word = SPANISH_RANKS.get(c.rank, (c.rank, c.rank))
        face |= {"rank": short, "name": f"{word} de {SPANISH_SUITS[c.suit]}"}
    return face


def suit_name(letter: str) -> str:
    """A suit in words, in the names the game page uses."""
    if g.get("spanish_names"):
        return SPANISH_SUITS[letter]
    return SUIT_NAMES[letter]


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


def register_template_helpers(app) -> None:
    app.jinja_env.globals.update(card=card_face, DUTY_TEXT=DUTY_TEXT, suit_name=suit_name, pack_rows=pack_rows, RANKS=RANKS, SUITS=SUITS, SUIT_SYMBOLS=SUIT_SYMBOLS,
                                 GAME_TITLES={n: games.get(n).TITLE for n in games.GAMES})
    app.jinja_env.trim_blocks = True
    app.jinja_env.lstrip_blocks = True
