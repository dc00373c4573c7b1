"""The JSON API and transcripts (DESIGN.md "JSON API and transcripts").

Status codes: 201 created, 200 done, 400 malformed or failing the schema (naming the
field), 403 missing or wrong edit key, 404 unknown game, 409 stale version, 413 a body
over 1 MB, 422 refused by the game (an illegal or ambiguous move, with ``options``).
"""

from __future__ import annotations

from functools import cache
from importlib.metadata import version as package_version

from flask import Blueprint, current_app, jsonify, request
from flask_babel import gettext as _

from companion import games, schemas, timing, web
from companion.errors import MoveError, OptionError, Reason, Refusal
from companion.extensions import creating_games, made_a_game
from companion.i18n import say
from companion.store import BadTranscript, Conflict, NotFound, NotReferee
from companion.views.common import external_url, store, table_of
from companion.web.query import labelled

bp = Blueprint("api", __name__, url_prefix="/api")


def _error(status: int, message: str, **more):
    return jsonify({"error": message, **more}), status


def _refused(status: int, e: Refusal, game: object = None, body: object = None, **more):
    """A refusal as data (DESIGN.md, JSON API): ``code``, ``params`` and ``rule`` (always
    English: ``params.field`` is the field's path, "players.0"), and its words in the
    request's language (``Accept-Language``, ``?lang=``), naming the field or option by its
    label as the form does. ``game``: the game the body is for, ``body`` the JSON sent."""
    return jsonify(e.reason.as_json() | {"error": say(_named(e, game, body))} | more), status


def _named(e: Refusal, game: object, body: object) -> Reason:
    """The refusal with the field or option it names by its label (an unknown field, or one
    with no label, by its path)."""
    if e.code in schemas.CODES and e.code != "unknown_field" and "field" in e.params:  # the schema's words
        label = web.field_label(str(e.params.get("field", "")), game if isinstance(game, str) else None, body)
        return e.reason.replace(field=label) if label else e.reason
    if isinstance(e, OptionError) and isinstance(game, str) and game in games.GAMES:
        return labelled(e, games.get(game))
    return e.reason


def _kind(game_id: str) -> str | None:
    """The game a refused move was sent to (read only to name a field of the move)."""
    row = store().get(game_id)
    return row["game"] if row else None


def _game_of(body: object) -> object:
    """The game a create or import body names (checked by the schema, not here)."""
    return body.get("game") if isinstance(body, dict) else None


def _body() -> object:
    """The request's JSON (anything JSON can be; the schemas say what fits); no body at
    all reads as ``{}``. Not JSON: a SchemaError naming the body."""
    if not request.get_data(cache=True):
        return {}
    data = request.get_json(silent=True)
    if data is None:
        raise schemas.schema_error("body", "not_json")
    return data


def _game_json(row: dict) -> dict:
    """A game as GET answers it: its view lists every finished deal (``history``)."""
    return {
        "id": row["id"],
        "game": row["game"],
        "players": row["players"],
        "options": row["options"],
        "version": row["version"],
        "deals": row["deals"],
        "view": table_of(row).rules.view(row["state"]),
    }


@bp.post("/games")
@creating_games
def create():
    sent: object = None
    try:
        sent = _body()
        body = schemas.check_new_game(sent)
        row, key = store().create(body["game"], body["players"], body.get("options"))
    except schemas.SchemaError as e:
        return _refused(400, e, _game_of(sent), sent)
    except OptionError as e:  # fits the schema, refused by the game (a dealer not playing)
        return _refused(422, e, _game_of(sent), sent)
    made_a_game()
    return jsonify(
        {"id": row["id"], "edit_key": key, "version": row["version"], "view": table_of(row).rules.view(row["state"])}
    ), 201


@bp.get("/games/<game_id:game_id>")
def show(game_id: str):
    row = store().get(game_id, history=True)
    if row is None:
        return _error(404, _("No such game"))
    return jsonify(_game_json(row))


def _refusal(game_id: str):
    """The answer refusing a referee's request before anything else is looked at: 404 for
    an unknown game, 403 for a missing or wrong ``X-Edit-Key``; None when neither."""
    if store().version(game_id) is None:
        return _error(404, _("No such game"))
    key = request.headers.get("X-Edit-Key", "")
    if not key or not store().check_key(game_id, key):
        return _error(403, _("Missing or wrong X-Edit-Key"))
    return None


def _change(game_id: str, model: type[schemas.Strict], action):
    """A referee's change: its body checked against ``model``, then ``action(body, key)``,
    the store's change, which checks in its own transaction (no read before it) that the
    game exists and the key is in force (the key: the store records which referee phone
    made the change). Refused as :func:`_refusal` says first, then as the body fails."""
    key = request.headers.get("X-Edit-Key", "")
    sent: object = None
    try:
        sent = _body()
        body = schemas.check_body(model, sent)
    except schemas.SchemaError as e:  # a game unknown or a key refused says so first
        return _refusal(game_id) or _refused(400, e, body=sent)
    try:
        with timing.part("store"):
            game = action(body, key)
    except NotFound:
        return _error(404, _("No such game"))
    except NotReferee:
        return _error(403, _("Missing or wrong X-Edit-Key"))
    except schemas.SchemaError as e:  # the move, checked as its game's
        return _refused(400, e, _kind(game_id), sent)
    except Conflict as e:
        return _error(409, _("Stale version: the game has changed"), version=e.version)
    except MoveError as e:
        extra = {"options": e.options} if e.options else {}
        return _refused(422, e, _kind(game_id) if "field" in e.params else None, sent, **extra)
    # The same size at move 1,000 as at move 10: the view's history holds the last finished
    # deal only (GET lists them all), and "deals" says how many there are.
    return jsonify({"version": game["version"], "deals": game["deals"], "view": game["view"]})


@bp.post("/games/<game_id:game_id>/moves")
def move(game_id: str):
    return _change(game_id, schemas.MoveBody, lambda body, key: _play(game_id, body, key))


def _play(game_id: str, body: schemas.MoveBody, key: str) -> dict:
    """The move as the API document says the game's moves are, checked here, then the
    store's change (given plain data: it calls nothing back). Refused in the store's order:
    an unknown game, a key not in force, then a move that fails the check."""
    game = store().game_of(game_id)
    if game is None:
        raise NotFound(game_id)
    try:
        move = schemas.check_move(game, body.move)
    except MoveError:
        if not store().check_key(game_id, key):
            raise NotReferee(game_id) from None
        raise
    return store().play_and_read(game_id, body.version, move, key=key, game=game)


@bp.post("/games/<game_id:game_id>/undo")
def undo(game_id: str):
    return _change(
        game_id, schemas.VersionBody, lambda body, key: store().undo_and_read(game_id, body.version, key=key)
    )


@bp.post("/games/<game_id:game_id>/links")
def make_link(game_id: str):
    """A one-use referee link (``{"kind": "add" | "handover"}``), for a phone to scan: the
    edit key itself never goes into a URL."""
    refused = _refusal(game_id)
    if refused:
        return refused
    try:
        kind = schemas.check_body(schemas.LinkBody, _body()).kind
    except schemas.SchemaError as e:
        return _refused(400, e)
    minutes = current_app.config["HANDOVER_MINUTES"]
    token = store().make_link(game_id, kind, minutes)
    return jsonify(
        {"url": external_url("share.join", game_id=game_id, token=token), "kind": kind, "minutes": minutes}
    ), 201


@bp.get("/games/<game_id:game_id>/transcript")
def transcript(game_id: str):
    if store().get(game_id) is None:
        return _error(404, _("No such game"))
    return jsonify(store().transcript(game_id))


@bp.post("/games/import")
@creating_games
def import_transcript():
    sent: object = None
    try:
        sent = _body()
        row, key = store().import_transcript(schemas.check_transcript(sent))
    except schemas.SchemaError as e:
        return _refused(400, e, _game_of(sent), sent)
    except BadTranscript as e:
        return _error(422, str(e), **({"move": e.index} if e.index is not None else {}))
    made_a_game()
    return jsonify({"id": row["id"], "edit_key": key}), 201


@bp.get("/openapi.json")
def openapi():
    """The API's OpenAPI 3.1 document, made from the schemas that check its bodies."""
    return jsonify(_document())


@cache
def _document() -> dict:
    return schemas.openapi("companion", package_version("companion"))
