"""What the phone's referee needs from the server (issue 45): the bundle its worker runs
(companion/phone.py with the engines, the board, the templates, the compiled catalogs, and
Jinja2's and MarkupSafe's pure-Python code), and a game as it stands.

The bundle is one zip, built once per process from the files this server itself runs (the
same Jinja2 and MarkupSafe the server renders with, so both render the same bytes), at an
address named by its contents: cached for good, a changed file is a new address.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from functools import lru_cache
from pathlib import Path

import jinja2
import markupsafe
from flask import Blueprint, Response, abort, current_app, jsonify, request, url_for

from companion.board import links
from companion.i18n import sentences
from companion.views.common import load_game, store, table_of

bp = Blueprint("phone", __name__)

PACKAGE = Path(__file__).resolve().parent.parent
#: What the phone runs of the package (the rest is the server's: Flask, the store, forms).
MODULES = ("phone.py", "i18n.py", "charts.py", "cards.py", "errors.py", "games/*.py", "board/*.py")
#: The bundle's ``companion/__init__.py``: the package's own makes the Flask app.
PACKAGE_INIT = b'"""companion, as the phone runs it (companion/views/phone.py): the engines, the words, the board."""\n'
#: The templates a board's answer renders (templates/play/_answer.html and what it includes).
TEMPLATES = ("play/**/_*.html", "_macros.html", "_chart.html")
#: A fixed time for every file, so the same files make the same zip (and address).
STAMP = (2026, 1, 1, 0, 0, 0)


def _files() -> list[tuple[str, bytes]]:
    templates = Path(current_app.template_folder or "templates")
    if not templates.is_absolute():
        templates = Path(current_app.root_path) / templates
    files = [("companion/__init__.py", PACKAGE_INIT)]
    for pattern in MODULES:
        files += [(f"companion/{p.relative_to(PACKAGE)}", p.read_bytes()) for p in sorted(PACKAGE.glob(pattern))]
    for p in sorted((PACKAGE / "translations").glob("*/LC_MESSAGES/messages.mo")):
        files.append((f"companion/{p.relative_to(PACKAGE)}", p.read_bytes()))
    for pattern in TEMPLATES:
        files += [(f"templates/{p.relative_to(templates)}", p.read_bytes()) for p in sorted(templates.glob(pattern))]
    for package in (jinja2, markupsafe):  # pure Python: MarkupSafe's compiled speedups stay behind
        root = Path(str(package.__file__)).resolve().parent
        files += [(f"{root.name}/{p.relative_to(root)}", p.read_bytes()) for p in sorted(root.glob("*.py"))]
    return files


@lru_cache(maxsize=1)
def bundle() -> tuple[str, bytes]:
    """The zip the phone's worker unpacks, and its address's name (its digest)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for name, data in _files():
            z.writestr(zipfile.ZipInfo(name, STAMP), data, zipfile.ZIP_DEFLATED)
    data = out.getvalue()
    return hashlib.sha256(data).hexdigest()[:16], data


def bundle_url() -> str:
    return url_for("phone.code", digest=bundle()[0])


@bp.get("/phone/<digest>.zip")
def code(digest: str):
    name, data = bundle()
    if digest != name:
        abort(404)
    response = Response(data, mimetype="application/zip")
    response.headers["Cache-Control"] = "public, max-age=31536000, immutable"
    response.set_etag(name)
    return response.make_conditional(request)


@bp.get("/games/<game_id:game_id>/phone")
def record(game_id: str):
    """The game as the phone's referee takes it (``companion.phone.take``): the row's parts a
    board reads, the state as the store keeps it, every finished deal, the last move's words
    (``"?"``: a move kept without words; None: no move to undo); and how a board links
    (``links.patterns``) and polls. Read-only: anyone who may see the game's page may read it."""
    row = load_game(game_id)
    rules = table_of(row).rules
    state = rules.dump(row["state"])
    history = store().history(game_id) if row["deals"] > len(state["history"]) else state["history"]
    last = store().last_move(game_id)
    said = None if last is None else "?" if last["said"] is None else [r.as_data() for r in sentences(last["said"])]
    body = {
        "row": {k: row[k] for k in ("id", "game", "players", "options", "version", "deals", "confirmed")},
        "state": state,
        "history": history,
        "said": said,
        "routes": links.patterns(url_for),
        "config": {k: current_app.config[k] for k in ("POLL_SECONDS", "PUSH_POLL_SECONDS")},
    }
    response = jsonify(body)
    response.headers["Cache-Control"] = "no-store"
    return response


#: How the games on this phone only link (companion/phone.py, ``_HereRoutes``), from the page's
#: own address: its taps, Undo and board answered by the page itself (static/phone-only.js,
#: never sent), the game's own address the page's with the game in its fragment, and "here"
#: (the page and its list of games) for whatever only a server has.
HERE_ROUTES = {
    "play.move": "/{game_id}/moves",
    "play.undo": "/{game_id}/undo",
    "play.live": "/{game_id}/live",
    "games.show": "#{game_id}",
    "games.log": "#{game_id}",
    "games.transcript": "#{game_id}",
    "tally.screen": "#{game_id}",
    "here": "#",
}


@bp.get("/phone")
def here():
    """The page "Play on this phone only" (issue 45, item 5), which starts and referees games no
    server has. Rendered once and kept by the service worker: the games are on the phone
    (IndexedDB), the engines in its worker (companion/phone.py ``start``, ``resume``), so it
    opens and plays with no connection. It carries what the phone needs to render a game (the
    links of its board, the bundle and the worker), each game's starts and seats for the
    new-game form, and sends a game to this server (the API's import) when asked."""
    from flask import render_template

    from companion import games

    page = url_for("phone.here")
    routes = links.patterns(url_for) | {k: page + v for k, v in HERE_ROUTES.items()}
    table = [
        {
            "name": name,
            "title": rules.TITLE,
            "low": rules.MIN_PLAYERS,
            "high": rules.MAX_PLAYERS,
            "seating": rules.SEATING,
            "starts": [(key, s.label, s.hint, s.more) for key, s in rules.STARTS.items()],
        }
        for name in games.GAMES
        for rules in [games.get(name)]
    ]
    bundle = bundle_url() if current_app.config["PHONE_REFEREE"] else None
    seats = max(g["high"] for g in table)
    return render_template("games/phone.html", table=table, routes=routes, bundle=bundle, seats=seats)
