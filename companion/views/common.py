"""What every blueprint shares: the store, the game being looked at, who may edit it,
and the one helper that answers a fragment to htmx and a whole page to everyone else."""

from __future__ import annotations

from flask import abort, current_app, render_template, request, session

from companion import games
from companion.cards import Card, RANKS, SUITS, SUIT_SYMBOLS


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


def card_face(code: str) -> dict:
    c = Card.parse(code)
    return {"code": str(c), "rank": c.rank, "suit": SUIT_SYMBOLS[c.suit], "red": c.red, "name": c.name}


def register_template_helpers(app) -> None:
    app.jinja_env.globals.update(card=card_face, RANKS=RANKS, SUITS=SUITS, SUIT_SYMBOLS=SUIT_SYMBOLS,
                                 GAME_TITLES={n: games.get(n).TITLE for n in games.GAMES})
    app.jinja_env.trim_blocks = True
    app.jinja_env.lstrip_blocks = True
