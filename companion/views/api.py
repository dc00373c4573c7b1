"""The JSON API and transcripts (DESIGN.md "JSON API and transcripts").

Status codes: 201 created, 200 done, 400 malformed, 403 missing or wrong edit key,
404 unknown game, 409 stale version, 422 illegal or ambiguous (with ``options``).
"""

from __future__ import annotations

from flask import Blueprint, abort, current_app, jsonify, make_response, request

from companion import creating_games, games
from companion.errors import MoveError, OptionError, Refusal
from companion.store import LINK_KINDS, BadTranscript, Conflict
from companion.views.common import external_url, store

bp = Blueprint("api", __name__, url_prefix="/api")


def _error(status: int, message: str, **more):
    return jsonify({"error": message, **more}), status


def _refused(status: int, e: Refusal, **more):
    """A refusal as data (DESIGN.md, JSON API): its words, ``code``, ``params`` and ``rule``."""
    return jsonify(e.reason.as_json() | more), status


#: How deep a body's JSON may nest: a transcript's tally is 5 levels; a body 900 levels
#: deep (inside the parser's limit) would exhaust the recursion of whatever reads it.
MAX_DEPTH = 16


def _body() -> dict | None:
    """The request's JSON object, or None; a 400 at once for JSON nested too deep."""
    data = request.get_json(silent=True)
    if _too_deep(data):
        abort(make_response(_error(400, f"The JSON is nested more than {MAX_DEPTH} levels deep")))
    return data if isinstance(data, dict) else None


def _too_deep(data: object) -> bool:
    """Whether ``data`` nests deeper than ``MAX_DEPTH`` (looked at without recursion)."""
    stack = [(data, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        inner = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        stack.extend((x, depth + 1) for x in inner)
    return False


def _game_json(row: dict) -> dict:
    rules = games.get(row["game"])
    return {
        "id": row["id"],
        "game": row["game"],
        "players": row["players"],
        "options": row["options"],
        "version": row["version"],
        "view": rules.view(row["state"]),
    }


@bp.post("/games")
@creating_games
def create():
    body = _body()
    if body is None or not isinstance(body.get("game"), str) or "players" not in body:
        return _error(400, 'Send JSON: {"game", "players", "options"}')
    try:
        row, key = store().create(body["game"], body["players"], body.get("options"))
    except OptionError as e:
        return _refused(400, e)
    return jsonify(
        {"id": row["id"], "edit_key": key, "version": row["version"], "view": games.get(row["game"]).view(row["state"])}
    ), 201


@bp.get("/games/<game_id>")
def show(game_id: str):
    row = store().get(game_id)
    if row is None:
        return _error(404, "No such game")
    return jsonify(_game_json(row))


def _referee(game_id: str):
    """``(row, None)`` when the request carries one of the game's edit keys, else
    ``(None, error answer)``: 404 for an unknown game, 403 for a missing or wrong key."""
    row = store().get(game_id)
    if row is None:
        return None, _error(404, "No such game")
    key = request.headers.get("X-Edit-Key", "")
    if not key or not store().check_key(game_id, key):
        return None, _error(403, "Missing or wrong X-Edit-Key")
    return row, None


def _change(game_id: str, action):
    row, refused = _referee(game_id)
    if refused:
        return refused
    body = _body()
    if body is None or not isinstance(body.get("version"), int) or isinstance(body.get("version"), bool):
        return _error(400, 'Send JSON with the game\'s "version" (a whole number)')
    try:
        version, state = action(body)
    except Conflict as e:
        return _error(409, "Stale version: the game has changed", version=e.version)
    except MoveError as e:
        extra = {"options": e.options} if e.options else {}
        return _refused(422, e, **extra)
    return jsonify({"version": version, "view": games.get(row["game"]).view(state)})


@bp.post("/games/<game_id>/moves")
def move(game_id: str):
    def play(body):
        if not isinstance(body.get("move"), dict):
            raise _Malformed
        return store().play(game_id, body["version"], body["move"], key=request.headers.get("X-Edit-Key"))

    try:
        return _change(game_id, play)
    except _Malformed:
        return _error(400, 'Send JSON: {"version", "move": {...}}')


@bp.post("/games/<game_id>/undo")
def undo(game_id: str):
    return _change(game_id, lambda body: store().undo(game_id, body["version"], key=request.headers.get("X-Edit-Key")))


@bp.post("/games/<game_id>/links")
def make_link(game_id: str):
    """A one-use referee link (``{"kind": "add" | "handover"}``), for a phone to scan: the
    edit key itself never goes into a URL."""
    _, refused = _referee(game_id)
    if refused:
        return refused
    body = _body()
    kind = body.get("kind", "add") if body is not None else None
    if kind not in LINK_KINDS:
        return _error(400, 'Send JSON: {"kind": "add"} or {"kind": "handover"}')
    minutes = current_app.config["HANDOVER_MINUTES"]
    token = store().make_link(game_id, kind, minutes)
    return jsonify(
        {"url": external_url("share.join", game_id=game_id, token=token), "kind": kind, "minutes": minutes}
    ), 201


@bp.get("/games/<game_id>/transcript")
def transcript(game_id: str):
    if store().get(game_id) is None:
        return _error(404, "No such game")
    return jsonify(store().transcript(game_id))


@bp.post("/games/import")
@creating_games
def import_transcript():
    body = _body()
    if body is None:
        return _error(400, "Send a transcript as JSON")
    try:
        row, key = store().import_transcript(body)
    except BadTranscript as e:
        return _error(422, str(e), **({"move": e.index} if e.index is not None else {}))
    return jsonify({"id": row["id"], "edit_key": key}), 201


class _Malformed(Exception):
    pass
