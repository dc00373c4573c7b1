"""What every blueprint shares: the store, the game being looked at, who may edit it
(the phone's session remembers its edit keys), the games this phone knows, and links
built for other phones."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo

import segno
from flask import abort, current_app, g, get_flashed_messages, session, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from jinja2 import pass_context
from markupsafe import Markup
from werkzeug.routing import BaseConverter, IntegerConverter

from companion import charts, games, stats, web
from companion.cards import CARD_CODE, PACK_52, RANKS, SUIT_SYMBOLS, SUITS, Card
from companion.games.tricks import DUTY_TEXT
from companion.i18n import card_name, language, names, side_name, suit_name


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


def table_of(row: dict) -> Table:
    """The stored game's engine and web adapter: the one lookup a request makes."""
    return Table(row["game"], games.get(row["game"]), web.get(row["game"]))


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


def just_joined() -> str | None:
    """What this phone has just become by a link it used (said once, on the page it lands on)."""
    kinds = get_flashed_messages(category_filter=[JOINED])
    return str(JOINED_NOTICES[kinds[-1]]) if kinds and kinds[-1] in JOINED_NOTICES else None


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


#: Spanish-pack display (RULES.md §0.2): rey = K (R), caballo = Q (C), sota = J (S), as = A
#: (1) on a chip; only the letters and names change, the codes stay French.
SPANISH_LETTERS = {"K": "R", "Q": "C", "J": "S", "A": "1"}


def spanish_names(row: dict) -> bool:
    """Whether a game names its cards as a Spanish pack (Tute's display option): the
    pages of a game put it in their template context as ``spanish_names``, and the card
    helpers below read it from there."""
    return bool((row["options"] or {}).get("spanish_names"))


def with_card_names(helper):
    """``helper(value, spanish)`` for templates: ``spanish`` from the page's context."""
    return pass_context(lambda context, value: helper(value, bool(context.get("spanish_names"))))


def game_context(table: Table, row: dict, view: dict | None = None) -> dict:
    """What every page of a game renders with: its ``table``, the stored game (``row``), its
    engine's ``view`` (computed unless given), its name and title, and its cards' names."""
    return {
        "table": table,
        "row": row,
        "view": table.rules.view(row["state"]) if view is None else view,
        "game": table.game,
        "title": table.rules.TITLE,
        "spanish_names": spanish_names(row),
        "version": row["version"],
    }


def card_face(code: str, spanish: bool = False) -> dict:
    """How a card is shown: rank, suit symbol, colour, spoken name in the page's language
    ("queen of spades", "スペードのクイーン"); ``spanish``: "R" and "rey de oros" for KD.
    A board shows a hundred cards: each face is worked out once per language."""
    return _face(code, spanish, language())


@lru_cache(maxsize=2048)
def _face(code: str, spanish: bool, lang: str) -> dict:
    c = Card.parse(code)
    rank = SPANISH_LETTERS.get(c.rank, c.rank) if spanish else c.rank
    return {"code": str(c), "rank": rank, "suit": SUIT_SYMBOLS[c.suit], "red": c.red, "name": card_name(c, spanish)}


#: The card helpers every board calls (a board shows dozens of cards, and a Jinja macro
#: costs a context of its own per call): each card's markup is built once per language.
_CHIP = Markup('<span class="chip{}" role="img" aria-label="{}">{}{}</span>')
_PICK = Markup(
    '<button type="submit" name="card" value="{code}" id="pick-{code}" class="pick{red}{played}" aria-label="{name}"'
    '{disabled}{oob}>{rank}<span class="suit">{suit}</span></button>'
)
_BOX = Markup(
    '<label class="pick{red}{played} {extra}"{under}><input type="checkbox" name="{field}" value="{code}"{checked}'
    '{disabled}><span aria-hidden="true">{rank}<span class="suit">{suit}</span></span>'
    '<span class="sr">{name}{played_word}</span></label>'
)


@pass_context
def chip(context, code: str) -> Markup:
    """A card as the players see it: rank in large type, suit in its colour, its name spoken."""
    return _chip(str(code), bool(context.get("spanish_names")), language())


@lru_cache(maxsize=2048)
def _chip(code: str, spanish: bool, lang: str) -> Markup:
    c = _face(code, spanish, lang)
    return _CHIP.format(" red" if c["red"] else "", c["name"], c["rank"], c["suit"])


@pass_context
def chips(context, codes, empty=None) -> Markup:
    """Cards in a row, or ``empty`` (else "none") when there are none."""
    if not codes:
        return Markup('<span class="muted">{}</span>').format(_("none") if empty is None else empty)
    spanish, lang = bool(context.get("spanish_names")), language()
    return Markup('<span class="chips">%s</span>') % Markup("").join(_chip(str(x), spanish, lang) for x in codes)


@pass_context
def pick_button(context, code: str, seen: bool = False, oob: bool = False) -> Markup:
    """A card of the grid. One already played is struck through (aria-disabled), yet a tap
    on it is sent: the rules answer where it went ("6♦ was already played in trick 3")."""
    return _pick(str(code), bool(seen), bool(oob), bool(context.get("spanish_names")), language())


@lru_cache(maxsize=4096)
def _pick(code: str, seen: bool, oob: bool, spanish: bool, lang: str) -> Markup:
    c = _face(code, spanish, lang)
    return _PICK.format(
        code=c["code"],
        red=" red" if c["red"] else "",
        played=" played" if seen else "",
        name=c["name"],
        disabled=Markup(' aria-disabled="true"') if seen else "",
        oob=Markup(' hx-swap-oob="true"') if oob else "",
        rank=c["rank"],
        suit=c["suit"],
    )


@pass_context
def pick_box(context, code: str, field: str, extra_class: str = "", checked=False, played=False) -> Markup:
    """A card to tick; a jack that can go under the stock says so when ticked (its word in
    data-under). ``played``: already played (100's "can't go": not in the hand shown),
    struck through and not to tick."""
    spanish = bool(context.get("spanish_names"))
    return _box(str(code), field, extra_class, bool(checked), bool(played), spanish, language())


@lru_cache(maxsize=4096)
def _box(code: str, field: str, extra_class: str, checked: bool, played: bool, spanish: bool, lang: str) -> Markup:
    c = _face(code, spanish, lang)
    under = Markup(' data-under="{}"').format(_("under")) if extra_class == "jack" else ""
    return _BOX.format(
        red=" red" if c["red"] else "",
        played=" played" if played else "",
        extra=extra_class,
        under=under,
        field=field,
        code=c["code"],
        checked=Markup(" checked") if checked else "",
        disabled=Markup(" disabled") if played else "",
        rank=c["rank"],
        suit=c["suit"],
        name=c["name"],
        played_word=_(" (played)") if played else "",
    )


def card_text(text, spanish: bool = False) -> str:
    """A message with every card code written as players read it: "QC 6C" -> "Q♣ 6♣"."""

    def symbols(m: re.Match) -> str:
        face = card_face(m.group(0), spanish)
        return face["rank"] + face["suit"]

    return CARD_CODE.sub(symbols, str(text))


def status_text(status: dict, game: str) -> str:
    """A game's status in the list, in words (the store keeps it as data), as ``game``
    words its deals: "Won by Ann", "Draw: Ann and Ben", "Deal 2 · Ann 40, Ben 12",
    "Hand 3 · hands lost Ann 1, Ben 0"."""
    if "winners" in status:
        winners = names(status["winners"], joined=True)
        return _("Draw: %(names)s", names=winners) if status.get("draw") else _("Won by %(names)s", names=winners)
    words = web.get(game).DEAL
    parts = [_(words.number, n=status["deal"])] if status.get("deal") else []
    if status.get("scores"):
        parts.append(names(f"{side} {points}" for side, points in status["scores"].items()))
    elif status.get("losses"):
        parts.append(_(words.losses, list=names(f"{p} {n}" for p, n in status["losses"].items())))
    return " · ".join(parts) or _("In progress")


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


def qr_svg(url: str, label: str) -> Markup:
    """A QR code of ``url`` as inline SVG (segno): no script, no image request, so it works
    offline and under the CSP. Dark modules on white, whatever the page's colours."""
    svg = segno.make_qr(url, error="m").svg_inline(
        omitsize=True, border=2, dark="#000", light="#fff", title=label, svgclass="qr"
    )
    return Markup(svg.replace("<svg ", '<svg role="img" ', 1))


def clock(stamp: str, date: bool = False) -> str:
    """A stored time (UTC, ISO) as the table's clock reads it, "21:03": in
    ``COMPANION_TIMEZONE`` (e.g. ``Asia/Tokyo``), else the server's own time zone (the
    laptop at the table is in the room's)."""
    when = datetime.fromisoformat(stamp)
    zone = current_app.config.get("TIMEZONE")
    return when.astimezone(ZoneInfo(zone) if zone else None).strftime("%Y-%m-%d %H:%M" if date else "%H:%M")


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


@pass_context
def score_chart(context, view: dict) -> dict | None:
    """A game's running scores as a chart (deal by deal), or None before a deal has ended."""
    series = charts.running_scores(context["table"].rules, view)
    if series is None:
        return None
    series = {side_name(side): values for side, values in series.items()}  # 「健太郎・翔太」
    return charts.line_chart(series, [""] + [str(i) for i in range(1, len(view["history"]) + 1)])


#: What each kind of share link does (store.LINK_KINDS), as the share panel names it.
LINK_TITLES = {
    "add": _l("Add a referee"),
    "handover": _l("Hand over to another phone"),
    "confirm": _l("Other side confirms each result"),
}


def register_template_helpers(app) -> None:
    app.jinja_env.globals.update(
        LINK_TITLES=LINK_TITLES,
        score_chart=score_chart,
        with_history=with_history,
        STATS_SHOWN=stats.SHOWN,
        figure=stats.shown,
        card=with_card_names(card_face),
        chip=chip,
        chips=chips,
        pick_button=pick_button,
        pick_box=pick_box,
        external_url=external_url,
        qr_svg=qr_svg,
        DUTY_TEXT=DUTY_TEXT,
        suit_name=with_card_names(suit_name),
        pack_rows=pack_rows,
        RANKS=RANKS,
        SUITS=SUITS,
        SUIT_SYMBOLS=SUIT_SYMBOLS,
        GAME_TITLES={n: games.get(n).TITLE for n in games.GAMES},
    )
    app.jinja_env.filters["card_text"] = with_card_names(card_text)
    app.jinja_env.filters["status_text"] = status_text
    app.jinja_env.filters["run_on"] = run_on
    app.jinja_env.filters["clock"] = clock
    app.jinja_env.trim_blocks = True
    app.jinja_env.lstrip_blocks = True


_BETWEEN_PARAGRAPHS = re.compile(r"</p>\s+<p\b")


def run_on(html: str) -> Markup:
    """The last move's sentences as a phone runs them on (static/app.css: ``.last > p``
    inline): nothing between the paragraphs, so Japanese joins them as it is written and
    the style sheet puts the space other languages need."""
    return Markup(_BETWEEN_PARAGRAPHS.sub("</p><p", str(html)))


def rules_log(moves: list[dict]) -> list[dict]:
    """Each stored move in words, as the engine said it when the move was entered (kept
    with the move: the game is not replayed); undone ones are struck through. A move kept
    without words (one the engine no longer accepts) shows as stored."""
    return [
        {k: v for k, v in m.items() if k not in ("move", "said")}
        | {"text": m["said"] if m["said"] is not None else json.dumps(m["move"], ensure_ascii=False)}
        for m in moves
    ]
