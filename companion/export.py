"""Export and import: CSV tables of games, deals and players (for a spreadsheet), and the
whole server as one versioned JSON document (for moving to another machine).

A JSON export names its format, its version and the schema's migrations; an import checks
the document (pydantic: the shape, each table's exact columns), then replaces every row in
one transaction and checks what it wrote (links between tables, each game's state read
back by its engine) before committing: a refused import changes nothing.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from companion import games
from companion.store import DATABASE_ERRORS, Store, check_games

FORMAT = "companion-server"
VERSION = 1

#: A cell: what SQLite holds in these tables.
Cell = str | int | float | None


class Export(BaseModel):
    """A whole-server export, as :func:`dump` writes it."""

    model_config = ConfigDict(strict=True, extra="forbid")
    format: Literal["companion-server"]
    version: Literal[1]
    migrations: list[str]
    tables: dict[str, list[dict[str, Cell]]]


class BadImport(ValueError):
    """An export that can't be imported; nothing was changed."""


#: What writing an export's rows can raise: a link to a missing row, a doubled id, a missing value.
_INCONSISTENT: tuple[type[Exception], ...] = (ValueError, *DATABASE_ERRORS)


def dump(store: Store) -> dict:
    """Every row of the server, with what is needed to check it on the way back in."""
    return {"format": FORMAT, "version": VERSION, "migrations": store.applied_migrations(), "tables": store.rows()}


def text(data: dict) -> str:
    """An export (:func:`dump`) as JSON with each row on a line of its own, so that two
    exports (a server's, and its copy's on another database) compare line by line."""
    tables = list(data["tables"].items())
    head = json.dumps({k: v for k, v in data.items() if k != "tables"}, ensure_ascii=False)
    lines = [head[:-1] + ', "tables": {']
    for i, (table, rows) in enumerate(tables):
        lines.append(json.dumps(table) + ": [")
        lines += [
            json.dumps(row, ensure_ascii=False) + ("," if j < len(rows) - 1 else "") for j, row in enumerate(rows)
        ]
        lines.append("]" + ("," if i < len(tables) - 1 else ""))
    return "\n".join([*lines, "}}"]) + "\n"


def load(store: Store, data) -> int:
    """Replace the server's data with an export's (``BadImport`` if refused, and then
    nothing changes); return the number of games."""
    try:
        doc = Export.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise BadImport(f"Not a companion export: {where}: {first['msg']}") from None
    if doc.migrations != store.applied_migrations():
        raise BadImport(
            "This export comes from another version of companion (its database schema differs): "
            "import it with the same version, then upgrade"
        )
    schema = store.schema()
    if set(doc.tables) != set(schema):
        raise BadImport(f"An export has the tables {', '.join(schema)}; this one has {', '.join(doc.tables)}")
    for table, rows in doc.tables.items():
        for i, row in enumerate(rows, 1):
            if list(row) != schema[table]:
                raise BadImport(f"Row {i} of {table} must have the columns {', '.join(schema[table])}")
    try:
        return store.replace_rows(doc.tables, _check_games)
    except BadImport:
        raise
    except _INCONSISTENT as e:  # a link to a missing row, a doubled id, a missing value
        raise BadImport(f"The export's data is inconsistent: {e}") from None


def _check_games(store: Store, conn) -> None:
    """Each game is of a known game and replays to the state it stores, as a restore checks."""
    try:
        check_games(conn)
    except ValueError as e:
        raise BadImport(str(e)) from None


# -- CSV ---------------------------------------------------------------------------

COLUMNS = {
    "players": ["player_id", "name", "created", "last_played", "games"],
    "games": [
        "game_id",
        "game",
        "created",
        "updated",
        "finished",
        "draw",
        "winners",
        "players",
        "player_ids",
        "deals",
        "moves",
        "seconds_played",
    ],
    "deals": ["game_id", "game", "deal", "side", *(k for k in games.FIGURES if k != "deals")],
}


#: How a cell a spreadsheet would read as a formula starts (OWASP, "CSV Injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_text(store: Store, table: str) -> str:
    """One table as CSV (a header row, then a row per player, game, or deal and side);
    text a spreadsheet would run as a formula (a player named ``=HYPERLINK(...)``) is
    written with a single quote before it (:func:`_cell`)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(COLUMNS[table])
    writer.writerows([_cell(value) for value in row] for row in _ROWS[table](store))
    return out.getvalue()


def _cell(value):
    """A cell as written: text starting as a formula does (:data:`FORMULA_STARTS`) after a
    single quote, as OWASP advises; numbers as they are (a negative score stays a number).

    >>> [_cell(v) for v in ["=1+1", "@SUM(A1)", "Ann", -3]]
    ["'=1+1", "'@SUM(A1)", 'Ann', -3]
    """
    return f"'{value}" if isinstance(value, str) and value.startswith(FORMULA_STARTS) else value


def _players(store: Store):
    for p in sorted(store.roster(), key=lambda p: p["id"]):
        yield [p["id"], p["name"], p["created"], p["last_played"], p["games"]]


def _games(store: Store):
    seats: dict[str, list] = {}
    for r in store.query(
        "SELECT s.game_id, s.player_id, p.name FROM seats s JOIN players p ON p.id = s.player_id "
        "ORDER BY s.game_id, s.seat"
    ):
        seats.setdefault(r["game_id"], []).append((r["player_id"], r["name"]))
    rows = store.query(
        "SELECT g.id, g.game, g.created, g.updated, g.finished, g.status, g.version, g.seconds_played, "
        "(SELECT max(deals) FROM seats WHERE game_id = g.id) AS deals, "
        "(SELECT count(*) FROM moves WHERE game_id = g.id AND undone = 0) AS moves FROM games g ORDER BY g.created"
    )
    for r in rows:
        status = json.loads(r["status"] or "{}")
        people = seats.get(r["id"], [])
        yield [
            r["id"],
            r["game"],
            r["created"],
            r["updated"],
            r["finished"],
            int(bool(status.get("draw"))),
            "; ".join(status.get("winners", [])) if r["finished"] else "",
            "; ".join(n for _, n in people),
            "; ".join(str(i) for i, _ in people),
            r["deals"] or 0,
            r["moves"],
            r["seconds_played"],
        ]


def _deals(store: Store):
    """Each finished deal as the store keeps it (once, in ``deals``), a row per side; each
    game's view (for its sides) is built once."""
    game_id, game_view = None, {}
    for r in store.query(
        "SELECT g.id, g.game, g.state, d.n, d.record FROM deals d JOIN games g ON g.id = d.game_id "
        "ORDER BY g.created, g.id, d.n"
    ):
        rules = games.get(r["game"])
        if r["id"] != game_id:
            game_id, game_view = r["id"], rules.view(rules.load(json.loads(r["state"])))
        view = {**game_view, "history": [json.loads(r["record"])], "result": None}
        for side, figures in rules.figures(view).items():
            yield [r["id"], r["game"], r["n"], side, *(figures[k] for k in COLUMNS["deals"][4:])]


_ROWS = {"players": _players, "games": _games, "deals": _deals}
