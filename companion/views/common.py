"""What every blueprint shares: the store, the game being looked at, who may edit it
(the phone's session remembers its edit keys), the games this phone knows, and links
built for other phones."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import segno
from babel.lists import format_list
from babel.units import format_unit
from flask import abort, current_app, g, get_flashed_messages, request, session, url_for
from flask_babel import get_locale, ngettext
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from markupsafe import Markup
from werkzeug.routing import BaseConverter, IntegerConverter

from companion import KEEPING, board, games, stats, web
from companion.board import links
from companion.i18n import names


def store():
    return current_app.extensions["store"]


class GameId(BaseConverter):
    """A game's id in a path, on every route (the web's and the API's): the characters the
    store's ids are made of (``secrets.token_urlsafe``), so an id no game can have (a NUL,
    which PostgreSQL's text refuses, a slash, a dot) is a 404 before any query. Never
    "import", whose address is another API route's, so an OPTIONS or a wrong method there
    names exactly that route's methods (RFC 9110)."""

    regex = r"(?!import$)[A-Za-z0-9_-]{1,64}"


class RowId(IntegerConverter):
    """A player's or a roster change's id in a path: a number that SQLite's 64-bit integer
    holds (at most 18 digits, none leading 0; PostgreSQL compares any number with its own),
    so a longer one is a 404 before any query, whatever the method (a number checked
    after matching would answer a POST with a 405 naming GET)."""

    regex = r"[1-9][0-9]{0,17}"


#: The converters of the app's paths, registered once (``create_app``).
CONVERTERS = {"game_id": GameId, "row_id": RowId}


@dataclass(frozen=True)
class Table:
    """A game's kind as the views need it: its engine (``rules``) and its web adapter,
    resolved once per request from the stored game (``table_of``) and passed down to
    whatever builds its answer."""

    game: str
    rules: Any
    adapter: Any
    board: Any


def table_of(row: dict) -> Table:
    """The stored game's engine and web adapter: the one lookup a request makes."""
    return Table(row["game"], games.get(row["game"]), web.get(row["game"]), board.get(row["game"]))


def load_game(game_id: str) -> dict:
    """The stored game, or a 404 page."""
    row = store().get(game_id)
    if row is None:
        abort(404)
    return row


#: How many games a phone remembers (the session cookie must stay under 4 KB).
KEYS_KEPT = 30
SEEN_KEPT = 30


def _remember(name: str, game_id: str, value, kept: int) -> None:
    """Put ``game_id`` last (newest) in the session's ``name`` mapping, keeping ``kept``."""
    items = {k: v for k, v in session.get(name, {}).items() if k != game_id}
    items[game_id] = value
    session[name] = dict(list(items.items())[-kept:])
    session.permanent = True


#: The flash category that carries the kind of link this phone has just used (share.redeem).
JOINED = "joined"
#: What the game's page then says first, for each kind of link.
JOINED_NOTICES = {
    "add": _l("This phone is a referee now: it enters moves beside the other referees."),
    "handover": _l("This phone is the referee now. The phone that sent the link only watches."),
    "confirm": _l("This phone confirms each result for the other side: a result counts once it does."),
}


def _keeping() -> bool:
    """The service worker fetching a copy of the page to keep (templates/offline/sw.js): what
    is said once is left for the page the phone shows."""
    return request.headers.get(KEEPING) == "1"


def just_joined() -> str | None:
    """What this phone has just become by a link it used (said once, on the page it lands on)."""
    if _keeping():
        return None
    kinds = get_flashed_messages(category_filter=[JOINED])
    return str(JOINED_NOTICES[kinds[-1]]) if kinds and kinds[-1] in JOINED_NOTICES else None


#: The flash category of what a correction says on the page it lands on (views/correct.py).
CORRECTED = "corrected"


def just_corrected() -> str | None:
    """What the correction this phone has just saved says (once, on the page it lands on)."""
    if _keeping():
        return None
    said = get_flashed_messages(category_filter=[CORRECTED])
    return str(said[-1]) if said else None


def remember_key(game_id: str, key: str) -> None:
    """This phone referees the game: the signed session cookie keeps its edit key."""
    _remember("keys", game_id, key, KEYS_KEPT)


def remember_seen(game_id: str) -> None:
    """This phone opened the game (to watch it): listed under "Games on this phone"."""
    if game_id not in session.get("keys", {}):
        _remember("seen", game_id, 1, SEEN_KEPT)


def remember_confirmer(game_id: str) -> None:
    """This phone confirms the game's deals for the other side (it opened a confirm link)."""
    _remember("confirms", game_id, 1, SEEN_KEPT)


def confirms_here(game_id: str) -> bool:
    """This phone may confirm the game's deals: it holds a confirm link and is not one of
    the game's referees (who would be confirming their own entries)."""
    return game_id in session.get("confirms", {}) and not is_referee(game_id)


def forget(game_id: str) -> None:
    for name in ("keys", "seen", "confirms"):
        if game_id in session.get(name, {}):
            session[name] = {k: v for k, v in session[name].items() if k != game_id}


def dropped_key(game_id: str) -> bool:
    """Whether this phone held a referee key of the game that no longer works (another
    phone took the game over, or revoked the others): the key is forgotten then, and the
    game stays among this phone's games, watched."""
    if game_id not in session.get("keys", {}) or referee_key(game_id) is not None:
        return False
    session["keys"] = {k: v for k, v in session["keys"].items() if k != game_id}
    remember_seen(game_id)
    return True


def phone_games() -> list[str]:
    """The ids of the games this phone referees or has opened."""
    return [*session.get("keys", {}), *session.get("seen", {})]


def referee_key(game_id: str) -> str | None:
    """This phone's edit key for the game, if it still works (a hand-over revokes it).
    Checked once per request (a move's answer asks again)."""
    key = session.get("keys", {}).get(game_id)
    if not key:
        return None
    checked = g.setdefault("keys_checked", {})
    if (game_id, key) not in checked:
        checked[game_id, key] = store().check_key(game_id, key)
    return key if checked[game_id, key] else None


def key_in_force(game_id: str, key: str) -> None:
    """A change of the game just found ``key`` in force (the store checks it in the change):
    this request does not ask again."""
    g.setdefault("keys_checked", {})[game_id, key] = True


def is_referee(game_id: str) -> bool:
    return referee_key(game_id) is not None


def this_phone(game_id: str) -> str | None:
    """The id of this phone's referee row for the game (the move log's "this phone"), or
    None when it is not a referee. Never the key."""
    key = session.get("keys", {}).get(game_id)
    return store().referee_id(game_id, key) if key else None


def require_referee(game_id: str) -> str:
    """This phone's key, or a 403: only a referee changes a game."""
    key = referee_key(game_id)
    if key is None:
        abort(403)
    return key


def external_url(endpoint: str, **values) -> str:
    """A link for another phone: from ``PUBLIC_URL`` when set (behind a proxy), else from
    the address this phone used (``request.host_url``), never a hard-coded host."""
    base = current_app.config.get("PUBLIC_URL")
    if base:
        return base.rstrip("/") + url_for(endpoint, **values)
    return url_for(endpoint, _external=True, **values)


def status_text(status: dict, game: str) -> str:
    """A game's status in the list, in words (the store keeps it as data), as ``game``
    words its deals: "Won by Ann", "Draw: Ann and Ben", "Deal 2 · Ann 40, Ben 12",
    "Hand 3 · hands lost Ann 1, Ben 0"."""
    ruled = status.get("ruled")
    if ruled:  # RULES.md 5.2: the game is counted, and marked as one with rulings
        unmarked = status_text({k: v for k, v in status.items() if k != "ruled"}, game)
        return unmarked + " · " + ngettext("%(num)s move ruled by the table", "%(num)s moves ruled by the table", ruled)
    if "winners" in status:
        winners = names(status["winners"], joined=True)
        return _("Draw: %(names)s", names=winners) if status.get("draw") else _("Won by %(names)s", names=winners)
    words = board.get(game).DEAL
    parts = [_(words.number, n=status["deal"])] if status.get("deal") else []
    if status.get("scores"):
        parts.append(names(f"{side} {points}" for side, points in status["scores"].items()))
    elif status.get("losses"):
        parts.append(_(words.losses, list=names(f"{p} {n}" for p, n in status["losses"].items())))
    return " · ".join(parts) or _("In progress")


def qr_svg(url: str, label: str) -> Markup:
    """A QR code of ``url`` as inline SVG (segno): no script, no image request, so it works
    offline and under the CSP. Dark modules on white, whatever the page's colours."""
    svg = segno.make_qr(url, error="m").svg_inline(
        omitsize=True, border=2, dark="#000", light="#fff", title=label, svgclass="qr"
    )
    return Markup(svg.replace("<svg ", '<svg role="img" ', 1))


def table_zone() -> ZoneInfo | None:
    """The table's time zone: ``COMPANION_TIMEZONE`` (e.g. ``Asia/Tokyo``), else None, the
    server's own (the laptop at the table is in the room's)."""
    zone = current_app.config.get("TIMEZONE")
    return ZoneInfo(zone) if zone else None


def clock(stamp: str, date: bool = False) -> str:
    """A stored time (UTC, ISO) as the table's clock reads it, "21:03" (:func:`table_zone`)."""
    return datetime.fromisoformat(stamp).astimezone(table_zone()).strftime("%Y-%m-%d %H:%M" if date else "%H:%M")


def duration(seconds: int) -> str:
    """A time played as the reader's language says it, to the minute: "3 hr, 20 min",
    "3 時間 20 分" (CLDR's units and list patterns); a dash for none measured."""
    if not seconds:
        return "–"
    locale = get_locale()
    hours, minutes = divmod(max(1, int(seconds / 60 + 0.5)), 60)  # half a minute up
    parts = [format_unit(hours, "duration-hour", length="short", locale=locale)] if hours else []
    if minutes or not hours:
        parts.append(format_unit(minutes, "duration-minute", length="short", locale=locale))
    return format_list(parts, style="unit-short", locale=locale)


def figure(figures: dict, key: str) -> str:
    """A figure as the statistics' tables show it (:func:`companion.stats.shown`), the time
    played in words."""
    return duration(figures[key]) if key == "seconds" else stats.shown(figures, key)


def with_history(row: dict, view: dict) -> dict:
    """``view`` with every finished deal in its ``history``: a stored game's state keeps the
    last one only (the store keeps them apart, so a move does not grow), and the pages read
    them where they show them (the deal table, the chart), once per request."""
    if row["deals"] <= len(view["history"]):
        return view
    key = (row["id"], row["version"])
    kept = g.setdefault("histories", {})
    if key not in kept:
        kept[key] = store().history(row["id"])
    return {**view, "history": kept[key]}


#: What each kind of share link does (store.LINK_KINDS), as the share panel names it.
LINK_TITLES = {
    "add": _l("Add a referee"),
    "handover": _l("Hand over to another phone"),
    "confirm": _l("Other side confirms each result"),
}


def register_template_helpers(app) -> None:
    """What only the server's pages use, besides the board's helpers (companion/languages.py
    configures those, as the phone's renderer has them): share links, the roster's figures,
    the finished deals read from the store, times by the table's clock."""
    links.install(url_for)
    app.jinja_env.globals.update(
        LINK_TITLES=LINK_TITLES,
        with_history=with_history,
        STATS_SHOWN=stats.SHOWN,
        figure=figure,
        external_url=external_url,
        qr_svg=qr_svg,
    )
    app.jinja_env.filters["status_text"] = status_text
    app.jinja_env.filters["clock"] = clock


def rules_log(moves: list[dict]) -> list[dict]:
    """Each stored move in words, as the engine said it when the move was entered (kept
    with the move: the game is not replayed); undone ones are struck through. A move kept
    without words (one the engine no longer accepts) shows as stored."""
    return [
        {k: v for k, v in m.items() if k not in ("move", "said")}
        | {"text": m["said"] if m["said"] is not None else json.dumps(m["move"], ensure_ascii=False)}
        for m in moves
    ]
