"""What a phone may send, declared once (pydantic v2) and checked at the edge, before the
engine sees it (DESIGN.md, JSON API: "400 malformed or failing the schema").

Every body and every move is a strict model: each field's type (JSON ``true`` is not a
number), which fields are required, no unknown field, bounded strings, lists and maps, so
no nesting deeper than the model's own. A failure is :class:`SchemaError`, an
``InvalidMove`` whose code says what is wrong (:data:`PROBLEMS`: a field missing, of the
wrong type, too long, unknown ...) and whose params name the field ("move.capture.2")
and the bound it broke, so the web words it in the request's language like any rule's
refusal; the engine's own checks (is this card a card, is the move legal) stay where they
are.

The moves of each game are declared by its web adapter (``companion/web/<game>.py``,
``MOVES``, registered here by companion/web: this module imports nothing above it); its
options are read from the engine's ``Options`` and ``CHOICES``. The same
models give the OpenAPI 3.1 document served at ``/api/openapi.json``
(:func:`openapi`), so the document and the checks cannot drift apart.

Why pydantic: strict mode, ``extra="forbid"`` and JSON Schema 2020-12 output (what
OpenAPI 3.1 uses) in one well-kept library; msgspec is faster but its errors name
fields less precisely, and jsonschema would have the schema written by hand.
"""

from __future__ import annotations

import ast
import dataclasses
import typing
from collections.abc import Iterable, Mapping
from typing import Annotated, Any, Literal, TypeVar, Union

from annotated_types import Interval
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    create_model,
)
from pydantic.json_schema import models_json_schema

from companion import games
from companion.errors import N_, InvalidMove, Reason
from companion.games import common
from companion.names import NAME_LENGTH
from companion.store import LINK_KINDS, TRANSCRIPT_FORMAT

#: The most cards any list holds (two packs, 100/99/98's 98 with many players).
MAX_CARDS = 104
#: The most moves a transcript may hold (a long game is a few hundred).
MAX_MOVES = 10_000
#: Whole numbers sent anywhere (a target, a count, a version) stay within this.
BIG = 10**9

Name = Annotated[str, StringConstraints(min_length=1, max_length=NAME_LENGTH)]
#: A side's label: a name, or partners' names joined by " & " (DESIGN.md, view).
Side = Annotated[str, StringConstraints(min_length=1, max_length=2 * NAME_LENGTH + 3)]
#: A card in any spelling the engine reads ("10d", "10♦", "QH"); the engine checks it.
CardCode = Annotated[str, StringConstraints(min_length=1, max_length=8)]
CardList = Annotated[list[CardCode], Field(max_length=MAX_CARDS)]


def _whole(value: Any) -> Any:
    """JSON's 30.0 is the number 30 (JSON Schema's "integer" says so too); 30.5 is not."""
    return int(value) if isinstance(value, float) and value.is_integer() and abs(value) <= BIG else value


Count = Annotated[int, Interval(ge=-BIG, le=BIG), BeforeValidator(_whole)]
Version = Annotated[int, Interval(ge=0, le=BIG), BeforeValidator(_whole)]
T = TypeVar("T")
#: ``{side or player: value}`` (8 players at most): ``BySide[Count]``.
BySide = Annotated[dict[Side, T], Field(max_length=8)]
#: A short word: a suit ("H", "hearts", "oros"), a total typed on a keypad ("35").
Word = Annotated[str, StringConstraints(max_length=16)]


class Strict(BaseModel):
    """A body or a move: exactly these fields, each of exactly its type."""

    model_config = ConfigDict(extra="forbid", strict=True)


M = TypeVar("M", bound=BaseModel)


class Move(Strict):
    """What every move may carry: the player it is by (DESIGN.md engine contract)."""

    player: Name | None = None


class SchemaError(InvalidMove):
    """A body or move that does not fit its schema: ``params["field"]`` names the field."""


#: The schema's refusals by what pydantic found at a field (its error ``type``): a code,
#: and its English text with a place for each param (the message id). ``field`` is the
#: field as the data has it ("move.card"); ``least``/``most`` the bound broken; ``allowed``
#: the values a field takes (as JSON writes them).
PROBLEMS = {
    "missing": ("missing_field", N_("%(field)s is missing.")),
    "extra_forbidden": ("unknown_field", N_("%(field)s is not a field here: leave it out.")),
    "string_too_short": ("empty", N_("%(field)s is empty.")),
    "string_too_long": ("too_long", N_("%(field)s is too long: at most %(most)s characters.")),
    "too_short": ("too_few", N_("%(field)s has too few items: at least %(least)s.")),
    "too_long": ("too_many", N_("%(field)s has too many items: at most %(most)s.")),
    "greater_than_equal": ("too_small", N_("%(field)s must be %(least)s or more.")),
    "less_than_equal": ("too_big", N_("%(field)s must be %(most)s or less.")),
    "literal_error": ("not_allowed", N_("%(field)s must be one of %(allowed)s.")),
    "union_tag_invalid": ("not_allowed", N_("%(field)s must be one of %(allowed)s.")),
    "not_json": ("not_json", N_("The body is not JSON: send JSON.")),
    "other": ("bad_field", N_("%(field)s is not valid.")),
    # a value of the wrong type: what the field takes instead (``expected``, alternatives)
    "wrong_type": ("wrong_type", N_("%(field)s must be %(expected)s.")),
}
#: The JSON types, by pydantic's error type for each, as a refusal names them.
TYPES = {
    "int_type": N_("a whole number"),
    "int_from_float": N_("a whole number"),
    "int_parsing": N_("a whole number"),
    "finite_number": N_("a whole number"),
    "string_type": N_("text"),
    "list_type": N_("a list"),
    "dict_type": N_("an object"),
    "model_type": N_("an object"),
    "model_attributes_type": N_("an object"),
    "bool_type": N_("true or false"),
}
#: The codes a schema's refusal may carry (the API answers them with 400).
CODES = frozenset(code for code, _ in PROBLEMS.values())
#: pydantic's names for a bound, as the refusals' params name them.
_BOUNDS = {"min_length": "least", "ge": "least", "max_length": "most", "le": "most"}


def schema_error(field: str, problem: str, **params: Any) -> SchemaError:
    """The refusal of ``field`` ("move.card", "body") for ``problem`` (a key of :data:`PROBLEMS`)."""
    return SchemaError(Reason(*PROBLEMS[problem], field=field, **params))


def _literals(expected: str) -> list[Any]:
    """The values pydantic lists as expected ("'a', 'b' or 'c'", "10 or 11"), as values."""
    return list(ast.literal_eval("[" + expected.replace(" or ", ", ") + "]"))


def _problem(field: str, errors: list[Any]) -> Reason:
    """What is wrong at ``field``, from pydantic's errors there (a union's members each
    give one): a bound or value broken by a value of a right type, else the types it takes."""
    broken = [x for x in errors if x["type"] not in TYPES and x["type"] != "none_required"]
    if not broken:
        expected = list(dict.fromkeys(TYPES[x["type"]] for x in errors if x["type"] in TYPES))
        return schema_error(field, "wrong_type", expected=expected or [TYPES["model_type"]]).reason
    x = broken[0]
    kind, ctx = x["type"], x.get("ctx") or {}
    params: dict[str, Any] = {_BOUNDS[k]: v for k, v in ctx.items() if k in _BOUNDS}
    if kind == "literal_error":
        params["allowed"] = _literals(ctx["expected"])
    elif kind == "union_tag_invalid":  # a list's member of a tagged union ("moves.1"): its tag is the field
        field += "." + ast.literal_eval(ctx["discriminator"])
        params["allowed"] = _literals(ctx["expected_tags"])
    elif kind == "union_tag_not_found":
        field, kind = field + "." + ast.literal_eval(ctx["discriminator"]), "missing"
    if kind not in PROBLEMS:
        kind, params = "other", {}
    return Reason(*PROBLEMS[kind], field=field, **params)


def _located(data: Any, loc: tuple[Any, ...], where: str) -> str:
    """The path of ``loc`` as it is in ``data`` ("move.capture.2"), without the names
    pydantic gives the members of a union ("int", "constrained-str")."""
    path = [where] if where else []
    for i, step in enumerate(loc):
        if isinstance(data, dict) and step in data:
            data = data[step]
        elif isinstance(data, list) and isinstance(step, int) and 0 <= step < len(data):
            data = data[step]
        elif not (i == len(loc) - 1 and isinstance(data, dict)):  # the last: a missing field
            continue  # a union member's name, not a place in the data
        path.append(str(step))
    return ".".join(path) or "body"


def validated(model: type[M], data: Any, where: str = "") -> M:
    """``data`` as a ``model``, or a :class:`SchemaError` naming the first field at fault."""
    try:
        return model.model_validate(data)
    except ValidationError as e:
        errors = e.errors(include_url=False, include_input=False)
        first = _located(data, errors[0]["loc"], where)
        raise SchemaError(_problem(first, [x for x in errors if _located(data, x["loc"], where) == first])) from None


def _pick(data: Any, tag: str, models: Mapping[str, Any], where: str) -> Any:
    """The model ``data[tag]`` names ("type": "play"), or a SchemaError naming the tag."""
    field = f"{where}.{tag}" if where else tag
    if not isinstance(data, dict):
        raise schema_error(where or "body", "wrong_type", expected=[TYPES["dict_type"]])
    if tag not in data:
        raise schema_error(field, "missing")
    named = data[tag]
    if not isinstance(named, str) or named not in models:
        raise schema_error(field, "literal_error", allowed=list(models))
    return models[named]


# -- the declarations: per game, from its engine and its web adapter ----------------------


def _option_type(name: str, hint: Any, rules: Any) -> Any:
    """An option's JSON type: one of its ``CHOICES``, else its annotation, bounded."""
    choices = getattr(rules, "CHOICES", {}).get(name)
    if choices:
        return Literal[tuple(choices)]
    bounded = {int: Count, str: Annotated[str, StringConstraints(max_length=64)]}
    args = typing.get_args(hint)
    if args:  # int | None, bool | None
        return Union[tuple(bounded.get(a, a) for a in args)]  # noqa: UP007 - built at run time
    return bounded.get(hint, hint)


def options_model(name: str) -> type[Strict]:
    """A game's options as a model: its engine's ``Options`` fields (with ``CHOICES`` as
    enums) plus ``players`` (a count) and ``dealer`` (a name); every one optional."""
    rules = games.get(name)
    hints = common.option_types(rules.Options)
    fields: dict[str, Any] = {
        f.name: (_option_type(f.name, hints[f.name], rules) | None, None) for f in dataclasses.fields(rules.Options)
    }
    fields |= {"players": (Count | None, None), "dealer": (Name | None, None)}
    return create_model(f"{name.title()}Options", __base__=Strict, **fields)


class _Game:
    """One game's models: its moves by type, its options, and the bodies that hold them."""

    def __init__(self, name: str, moves: Iterable[type[Move]]) -> None:
        rules = games.get(name)
        self.moves = {_tag(m, "type"): m for m in moves}
        self.move = Annotated[Union[tuple(self.moves.values())], Field(discriminator="type")]  # noqa: UP007
        self.options = options_model(name)
        players = Annotated[list[Name], Field(min_length=rules.MIN_PLAYERS, max_length=rules.MAX_PLAYERS)]
        common: dict[str, Any] = {
            "game": (Literal[name], ...),
            "players": (players, ...),
            "options": (self.options | None, None),
        }
        self.create = create_model(f"{name.title()}NewGame", __base__=Strict, **common)
        transcript: dict[str, Any] = {
            "format": (Literal[TRANSCRIPT_FORMAT], ...),
            **common,
            "moves": (Annotated[list[self.move], Field(max_length=MAX_MOVES)], ...),  # type: ignore[name-defined]
        }
        self.transcript = create_model(f"{name.title()}Transcript", __base__=Strict, **transcript)


#: Each game's models, declared by its web adapter (``declare``: companion/web registers
#: every game's ``MOVES`` when it is imported; the API's views import it).
_GAMES: dict[str, _Game] = {}


def declare(name: str, moves: Iterable[type[Move]]) -> None:
    """Game ``name``'s moves are these models (its web adapter's ``MOVES``)."""
    _GAMES[name] = _Game(name, moves)


def _game(name: str) -> _Game:
    try:
        return _GAMES[name]
    except KeyError:
        raise LookupError(f"The moves of {name} are not declared: import companion.web first") from None


# -- the checks the views call --------------------------------------------------------


def check_move(game: str, move: Any, where: str = "move") -> dict[str, Any]:
    """``move`` as one of ``game``'s moves (JSON's 30.0 read as 30).

    A :class:`SchemaError` if it is no game's move (what the API document says a move
    is); an ``InvalidMove`` with the same words if it is another game's ("layout" sent to
    a Tute game): the document is met, this game refuses it."""
    try:
        model = validated(_pick(move, "type", _game(game).moves, where), move, where)
    except SchemaError as e:
        if any(_fits(other, move) for other in games.GAMES if other != game):
            raise InvalidMove(e.reason) from None
        raise
    return typing.cast(dict[str, Any], model.model_dump(exclude_unset=True))


def _fits(game: str, move: Any) -> bool:
    try:
        validated(_pick(move, "type", _game(game).moves, "move"), move)
    except SchemaError:
        return False
    return True


def check_body(model: type[M], body: Any) -> M:
    """An API body (a JSON object) checked against ``model``."""
    return validated(model, body)


def check_new_game(body: Any) -> dict[str, Any]:
    """``{"game", "players", "options"}`` as declared for the game it names; options left
    out are left out (they take their defaults)."""
    _pick(body, "game", games.GAMES, "")
    try:
        return check_body(_game(body["game"]).create, body).model_dump(exclude_unset=True)
    except SchemaError as e:
        if e.params.get("field") == "players" and e.code in ("too_few", "too_many"):
            rules = games.get(body["game"])  # said as the game says it: "Tute Cabrón is for 3 to 5 players"
            count = common.player_count(rules.TITLE, rules.MIN_PLAYERS, rules.MAX_PLAYERS)
            raise SchemaError(count.reason.replace(field="players")) from None
        raise


def check_transcript(body: Any) -> dict[str, Any]:
    """A transcript (DESIGN.md) as declared: its game's players, options and moves."""
    _pick(body, "game", games.GAMES, "")
    return check_body(_game(body["game"]).transcript, body).model_dump(exclude_unset=True)


class VersionBody(Strict):
    """Undo: the version the phone saw."""

    version: Version


class LinkBody(Strict):
    """A referee link: to add a phone, or to hand the game over."""

    kind: Literal[LINK_KINDS] = "add"  # type: ignore[valid-type]


class MoveBody(Strict):
    """A move, with the version the phone saw. ``move`` is checked by its game's model."""

    version: Version
    move: dict[str, Any]


# -- the answers, for the document ----------------------------------------------------


class Answer(BaseModel):
    """An answer: the document describes it, the server writes it (unknown keys allowed)."""

    model_config = ConfigDict(extra="allow")


class Created(Answer):
    id: str
    edit_key: str
    version: int
    view: dict[str, Any]


class Imported(Answer):
    id: str
    edit_key: str


class GameOut(Answer):
    id: str
    game: str
    players: list[str]
    options: dict[str, Any] | None  # as given when the game was started (the view has them all)
    version: int
    deals: int = Field(description="How many deals are finished: the view's `history` lists them all")
    view: dict[str, Any]


class Changed(Answer):
    version: int
    deals: int = Field(description="How many deals are finished")
    view: dict[str, Any] = Field(
        description="The view after the change; its `history` holds the last finished deal only "
        "(the answer stays the same size however long the game): GET the game for them all"
    )


class LinkOut(Answer):
    url: str
    kind: Literal[LINK_KINDS]  # type: ignore[valid-type]
    minutes: float


class TranscriptOut(Answer):
    format: Literal[TRANSCRIPT_FORMAT]  # type: ignore[valid-type]
    game: str
    players: list[str]
    options: dict[str, Any] | None
    moves: list[dict[str, Any]]


class Error(Answer):
    """A refusal: its words, and for a refusal the engine or the schema made, its ``code``,
    ``params`` and the ``rule`` it cites; ``options`` for an ambiguous move, ``version``
    for a stale one, ``move`` (1-based) for a transcript's first bad move."""

    error: str
    code: str | None = None
    params: dict[str, Any] | None = None
    rule: str | None = None
    options: list[Any] | None = None


def openapi(title: str, version: str) -> dict[str, Any]:
    """The OpenAPI 3.1 document of the JSON API, built from the models above."""
    every = [_game(n) for n in games.GAMES]
    bodies: list[Any] = [VersionBody, LinkBody, Created, Imported, GameOut, Changed, LinkOut, TranscriptOut, Error]
    for g in every:
        bodies += [g.create, g.transcript, *g.moves.values()]
    _, top = models_json_schema([(m, "validation") for m in bodies], ref_template="#/components/schemas/{model}")
    schemas: dict[str, Any] = top["$defs"]

    def ref(model: Any) -> dict[str, str]:
        return {"$ref": f"#/components/schemas/{model.__name__}"}

    def one_of(models: Iterable[Any], tag: str) -> dict[str, Any]:
        models = list(models)
        return {
            "oneOf": [ref(m) for m in models],
            "discriminator": {"propertyName": tag, "mapping": {_tag(m, tag): ref(m)["$ref"] for m in models}},
        }

    schemas["NewGame"] = one_of((g.create for g in every), "game")
    schemas["Transcript"] = one_of((g.transcript for g in every), "game")
    schemas["Move"] = {"anyOf": [one_of(g.moves.values(), "type") for g in every]}
    move_body = TypeAdapter(MoveBody).json_schema(ref_template="#/components/schemas/{model}")
    move_body["properties"]["move"] = {"$ref": "#/components/schemas/Move"}
    schemas["MoveBody"] = move_body
    return _document(title, version, schemas)


def _tag(model: Any, field: str) -> str:
    """The value a model's ``Literal`` field takes (a move's ``type``, a body's ``game``)."""
    return str(typing.get_args(model.model_fields[field].annotation)[0])


def _document(title: str, version: str, schemas: dict[str, Any]) -> dict[str, Any]:
    def json(name: str) -> dict[str, Any]:
        return {"content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{name}"}}}}

    def answer(description: str, name: str = "Error") -> dict[str, Any]:
        return {"description": description, **json(name)}

    game_id = {
        "name": "game_id",
        "in": "path",
        "required": True,
        "schema": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"},
    }
    key = {
        "name": "X-Edit-Key",
        "in": "header",
        "required": True,
        "description": "The game's edit key (from its creation, or a referee link)",
        "schema": {"type": "string", "maxLength": 64},
    }
    malformed = answer("Malformed, or failing the schema: `params.field` names the field")
    too_large = answer("The body is over the server's limit (1 MB)")
    limited = {
        "description": "Too many games made from this address (a refused request makes none, and does not "
        "count): wait `Retry-After` seconds",
        "headers": {"Retry-After": {"schema": {"type": "string"}}},
        **json("Error"),
    }
    unavailable = {
        "description": "The database can't be reached or written just now (`code`: unavailable): nothing was "
        "changed; send it again after `Retry-After` seconds",
        "headers": {"Retry-After": {"schema": {"type": "string"}}},
        **json("Error"),
    }
    change = {
        "parameters": [game_id, key],
        "responses": {
            "200": answer("Done: the new version and view", "Changed"),
            "400": malformed,
            "403": answer("Missing or wrong X-Edit-Key"),
            "404": answer("No such game"),
            "409": answer("Stale version: `version` is the game's current one"),
            "413": too_large,
            "422": answer("Refused by the rules: `code`, `params`, `rule`; `options` when ambiguous"),
            "503": unavailable,
        },
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": title, "version": version},
        "paths": {
            "/api/games": {
                "post": {
                    "summary": "Start a game",
                    "requestBody": {"required": True, **json("NewGame")},
                    "responses": {
                        "201": answer("Created: keep `edit_key`, it is shown once", "Created"),
                        "400": malformed,
                        "413": too_large,
                        "422": answer("Options or players the game refuses (`params.option` names it)"),
                        "429": limited,
                        "503": unavailable,
                    },
                }
            },
            "/api/games/{game_id}": {
                "get": {
                    "summary": "A game and its view",
                    "parameters": [game_id],
                    "responses": {"200": answer("The game", "GameOut"), "404": answer("No such game")},
                }
            },
            "/api/games/{game_id}/moves": {
                "post": {"summary": "Enter a move", "requestBody": {"required": True, **json("MoveBody")}, **change}
            },
            "/api/games/{game_id}/undo": {
                "post": {"summary": "Undo the last move", "requestBody": {"required": True, **json("VersionBody")}}
                | change
            },
            "/api/games/{game_id}/links": {
                "post": {
                    "summary": "A one-use referee link, for another phone to scan",
                    "parameters": [game_id, key],
                    "requestBody": {"required": False, **json("LinkBody")},
                    "responses": {
                        "201": answer("The link", "LinkOut"),
                        "400": malformed,
                        "413": too_large,
                        "403": answer("Missing or wrong X-Edit-Key"),
                        "404": answer("No such game"),
                    },
                }
            },
            "/api/games/{game_id}/transcript": {
                "get": {
                    "summary": "The moves in effect, to replay or import",
                    "parameters": [game_id],
                    "responses": {"200": answer("The transcript", "TranscriptOut"), "404": answer("No such game")},
                }
            },
            "/api/games/import": {
                "post": {
                    "summary": "Start a game from a transcript",
                    "requestBody": {"required": True, **json("Transcript")},
                    "responses": {
                        "201": answer("Created", "Imported"),
                        "400": malformed,
                        "413": too_large,
                        "422": answer("A move or the set-up refused: `move` is the first bad move (1-based)"),
                        "429": limited,
                        "503": unavailable,
                    },
                }
            },
        },
        "components": {"schemas": schemas},
    }
