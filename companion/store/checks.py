"""What a copy of the games must be before it replaces anything (issue 30): a backup being
restored, an export being imported, a database being copied into another.

:func:`check_games` reads the data on either database: every game replays to the state it
stores, its seats are its players', every player's name is one this app stores, and no row
belongs to a game or player that is not there. :func:`schema_difference` compares an SQLite
file's tables, indexes, triggers and views with those this version's migrations make.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sqlite3
from functools import lru_cache

from companion import games, names
from companion.errors import OptionError, Reason
from companion.store import migrations
from companion.store.dialect import SQLITE
from companion.store.roster import SEAT_FIGURES, seat_figures
from companion.store.rows import (
    _GAME_COLUMNS,
    GAME_ID,
    _dump_state,
    _finished_deals,
    _load_state,
    _summary,
    _time_played,
    _trimmed,
)

#: What replaying stored JSON can raise when the data was edited by hand (``RecursionError``:
#: JSON nested deeper than Python's parser goes).
_UNREADABLE: tuple[type[Exception], ...] = (
    ValueError,
    TypeError,
    KeyError,
    IndexError,
    AttributeError,
    RecursionError,
)

#: The tables whose rows each belong to a game.
_OF_A_GAME = ("moves", "seats", "deals", "referees", "links", "corrections")


def check_games(conn) -> int:
    """Every game on ``conn`` (either database, inside a transaction of the caller's) is as
    its move log says: its id one an address can carry (:data:`GAME_ID`); moves numbered 1,
    2, ...; its version its moves, undos and corrections; its moves in effect replayed by its engine from
    the start give exactly the state it stores, with its finished deals, and each snapshot
    a move in effect keeps for undo; every move's words and snapshot read back
    (:func:`_read_back`); what the lists and standings read of it (``finished``,
    ``status``, each seat's side, figures and result) is what the replay makes of it, as a
    move writes them (:func:`_check_derived`). Then its seats and players
    (:func:`_check_roster`). Returns the number of games; ``ValueError`` names the first
    game (and what of it) or player that is not (a damaged or hand-edited database)."""
    rows = conn.execute(f"SELECT {_GAME_COLUMNS}, seconds_played FROM games ORDER BY created, id").fetchall()
    seated: dict[str, list] = {}
    for row in rows:
        game_id = row["id"]
        if not isinstance(game_id, str) or not GAME_ID.fullmatch(game_id):
            raise ValueError(f"Game {_shown(game_id)} has an id no address can reach")
        if row["game"] not in games.GAMES:
            raise ValueError(f"Game {game_id} is of a game this version does not know ({row['game']!r})")
        rules = games.get(row["game"])
        moves = conn.execute(
            "SELECT seq, move, undone, said, snapshot, time FROM moves WHERE game_id = ? ORDER BY seq", (game_id,)
        ).fetchall()
        if [m["seq"] for m in moves] != list(range(1, len(moves) + 1)):
            raise ValueError(f"Game {game_id}'s moves are not numbered 1 to {len(moves)}")
        _check_time(row, moves)
        undos = sum(1 for m in moves if m["undone"])
        corrected = conn.execute(
            "SELECT count(DISTINCT version) FROM corrections WHERE game_id = ?", (game_id,)
        ).fetchone()[0]
        if row["version"] != len(moves) + undos + corrected:
            raise ValueError(
                f"Game {game_id} is at version {row['version']}, not its {len(moves)} moves, {undos} undos "
                f"and {corrected} corrections"
            )
        try:
            seated[game_id] = json.loads(row["players"])
            if not isinstance(seated[game_id], list) or not all(isinstance(n, str) for n in seated[game_id]):
                raise ValueError("its players are not a list of names")
            state = rules.start(seated[game_id], json.loads(row["options"]))
            for m in moves:
                move = json.loads(m["move"])
                _read_back(rules, m)
                if not m["undone"]:
                    state = rules.apply(state, move)
                    if m["snapshot"] is not None and _snapshot(rules, m["snapshot"]) != _snapshot(rules, state):
                        raise ValueError(f"Game {game_id}'s move {m['seq']} keeps a snapshot its moves do not make")
            stored = {**_load_state(row["state"]), "history": _finished_deals(conn, game_id)}
            # Read as the engine reads it: an option added since the game was stored takes
            # its default there (its dataclass field's), so the two states compare alike.
            stored = _load_state(_dump_state(rules.dump(rules.load(stored))))
        except RecursionError:
            raise ValueError(f"Game {game_id} does not replay: its stored JSON is nested too deeply") from None
        except KeyError as e:
            raise ValueError(f"Game {game_id} does not replay: its stored data lacks {e}") from None
        except _UNREADABLE as e:
            raise ValueError(f"Game {game_id} does not replay: {e}") from None
        if row["deals"] != len(stored["history"]) or _load_state(_dump_state(rules.dump(state))) != stored:
            raise ValueError(f"Game {game_id} does not replay to the state it stores")
        _check_derived(conn, rules, row, state)
    _check_roster(conn, seated)
    return len(rows)


def _check_time(row, moves) -> None:
    """A game's time played is what its moves' times add up to (as each move added to it)."""
    try:
        played = _time_played([m["time"] for m in moves])
    except (TypeError, ValueError):
        raise ValueError(f"Game {row['id']}'s moves keep a time that is not one") from None
    if row["seconds_played"] != played:
        _differs(row["id"], "time played", row["seconds_played"], played)


def _snapshot(rules, stored) -> dict:
    """A snapshot as compared: a move's stored one (its text), read as the engine reads it
    (as a stored state is, in :func:`check_games`), or the one a state makes."""
    if isinstance(stored, str):
        data = _load_state(stored)
        return {"deals": int(data["deals"]), "state": _load_state(_trimmed(rules.dump(rules.load(data["state"]))))}
    return {"deals": len(stored.history), "state": _load_state(_trimmed(rules.dump(stored)))}


def _check_derived(conn, rules, row, state) -> None:
    """What a move writes beside a game's state, worked out from ``state`` (the game
    replayed from its first move, every finished deal in its ``history``) as the move
    writes it (:func:`~companion.store.rows._summary`, :func:`seat_figures`) and compared
    with the game's ``row`` and seats: ``ValueError`` naming the game and what differs."""
    game_id = row["id"]
    view = rules.view(dataclasses.replace(state, history=state.history[-1:]))
    finished, status = _summary(view)
    if row["finished"] != finished:
        _differs(game_id, "finished", row["finished"], finished)
    try:
        stored_status = json.loads(row["status"])
    except (TypeError, ValueError):
        stored_status = row["status"]
    if stored_status != json.loads(status):
        _differs(game_id, "status", row["status"], status)
    confirmed = row["confirmed"]
    if confirmed is not None and (type(confirmed) is not int or not 0 <= confirmed <= row["deals"]):
        raise ValueError(f"Game {game_id} has {_shown(confirmed)} deals confirmed of its {row['deals']}")
    expected = seat_figures(rules, view, state.history, row["deals"], confirmed)
    side_of = {name: games.side_label(side) for side in view["sides"] for name in side}
    seats = conn.execute(_SEATS, (game_id,)).fetchall()
    for seat in seats:
        name = view["players"][seat["seat"]] if 0 <= seat["seat"] < len(view["players"]) else None
        if seat["side"] != side_of.get(name):
            _differs(game_id, f"seat {seat['seat']}'s side", seat["side"], side_of.get(name))
        for column, value in expected[seat["side"]].items():
            if seat[column] != value or type(seat[column]) is not type(value):
                _differs(game_id, f"seat {seat['seat']}'s {column}", seat[column], value)


#: A game's seats as :func:`_check_derived` compares them.
_SEATS = (
    "SELECT seat, side, " + ", ".join(f'"{k}"' for k in SEAT_FIGURES) + " FROM seats WHERE game_id = ? ORDER BY seat"
)


def _differs(game_id: str, what: str, stored, replayed) -> None:
    raise ValueError(
        f"Game {game_id}'s {what} is not what its moves make: {_shown(stored)} is stored, {_shown(replayed)} replayed"
    )


def _read_back(rules, move) -> None:
    """What a move keeps beside it reads as the pages and undo read it: its words (the
    log's sentences) and its snapshot (a state undo starts from); ``ValueError`` names
    the move and which of the two does not (``RecursionError`` is left to the caller)."""
    for column, read in (("said", _read_said), ("snapshot", lambda text: _snapshot(rules, text))):
        if move[column] is None:
            continue
        what = f"move {move['seq']}'s " + ("words" if column == "said" else "snapshot")
        try:
            read(move[column])
        except RecursionError:
            raise
        except KeyError as e:
            raise ValueError(f"{what}: {e} is missing") from None
        except _UNREADABLE as e:
            raise ValueError(f"{what} can't be read: {e}") from None


def _read_said(text) -> None:
    for said in json.loads(text):
        str(Reason.from_json(said))


def _check_roster(conn, seated: dict[str, list]) -> None:
    """No row of a game or player that is not there; every player's ``name_key`` is
    :func:`names.key` of their name, and the name one :func:`names.clean` leaves as it is
    (or one this app took in before it refused such names: as typed in a game, or a
    recorded rename); each game's seats are its players, numbered from 0, each seat's player
    the one its name was typed for (by :func:`names.key`), or the one they became by a
    recorded rename or merge. ``seated``: each game's players as it stores them."""
    for table in _OF_A_GAME:
        orphan = conn.execute(
            f"SELECT game_id FROM {table} t WHERE NOT EXISTS (SELECT 1 FROM games g WHERE g.id = t.game_id) LIMIT 1"
        ).fetchone()
        if orphan is not None:
            raise ValueError(f"A row of {table} belongs to no game (game {orphan[0]!r} is not there)")
    players = {r[0]: (r[1], r[2]) for r in conn.execute("SELECT id, name, name_key FROM players")}
    recorded: dict[int, set] = {}  # the names each player's renames and merges record
    merged: dict[int, set] = {}  # the players each one took in (a merge) or came back from (its undoing)
    for player_id, before, after, other in conn.execute(
        "SELECT player_id, before, after, other_id FROM roster_changes"
    ):
        recorded.setdefault(player_id, set()).update((before, after))
        if other is not None:
            merged.setdefault(player_id, set()).add(other)
    typed = {name for players_of in seated.values() for name in players_of}
    for player_id, (name, name_key) in players.items():
        _check_name(player_id, name, name_key, taken_in=name in typed or name in recorded.get(player_id, ()))
    known = {p: {name} | recorded.get(p, set()) for p, (name, _) in players.items()}  # every name each went by
    went_by: dict[int, set[str]] = {}

    def keys(player_id: int) -> set[str]:
        """The keys of every name the player went by, and those they took in went by."""
        if player_id not in went_by:
            found, todo, seen = set(), [player_id], {player_id}
            while todo:
                one = todo.pop()
                found |= {names.key(n) for n in known.get(one, recorded.get(one, ())) if isinstance(n, str)}
                todo += [o for o in merged.get(one, ()) if o not in seen]
                seen.update(merged.get(one, ()))
            went_by[player_id] = found
        return went_by[player_id]

    seats: dict[str, list] = {}
    for game_id, seat, player_id in conn.execute("SELECT game_id, seat, player_id FROM seats ORDER BY game_id, seat"):
        seats.setdefault(game_id, []).append((seat, player_id))
    for game_id, typed_names in seated.items():
        held = seats.get(game_id, [])
        if [seat for seat, _ in held] != list(range(len(typed_names))):
            raise ValueError(f"Game {game_id} has seats {[s for s, _ in held]} for its {len(typed_names)} players")
        for (seat, player_id), typed_name in zip(held, typed_names):
            if player_id not in players:
                raise ValueError(f"Game {game_id}'s seat {seat} is player {player_id}'s, who is not there")
            if names.key(typed_name) not in keys(player_id):
                raise ValueError(
                    f"Game {game_id}'s seat {seat} ({_shown(typed_name)}) is player {player_id}'s "
                    f"({_shown(players[player_id][0])}), who is not one of its players"
                )


def _check_name(player_id: int, name, name_key, taken_in: bool) -> None:
    """A player's name as stored: ``name_key`` its key, and the name as :func:`names.clean`
    leaves it, unless ``taken_in`` (an earlier version took it: m015 kept those)."""
    if not isinstance(name, str) or name_key != names.key(name):
        raise ValueError(f"Player {player_id} ({_shown(name)}) is not stored under its name's key")
    if taken_in:
        return
    try:
        cleaned = names.clean(name)
    except OptionError as e:
        reason = e.reason.replace(name=_shown(e.params["name"])) if "name" in e.params else e.reason
        raise ValueError(f"Player {player_id}'s name is refused: {reason}") from None
    if cleaned != name:
        raise ValueError(f"Player {player_id}'s name {_shown(name)} is not stored as this app stores names")


def _shown(value, most: int = 30) -> str:
    """A value as a message quotes it, cut short (a name may be 10,000 characters long)."""
    text = repr(value)
    return text if len(text) <= most else f"{text[:most]}…"


# -- the schema ------------------------------------------------------------------------

_TOKEN = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|\[[^\]]*\]|`(?:[^`]|``)*`|\w+|\S")
_QUOTED_NUMBER = re.compile(r"'(-?\d+(?:\.\d+)?)'")


def _words(sql: str) -> str:
    """SQL as compared: its words lower case, identifiers unquoted, one space between
    tokens, literals as written (``CREATE INDEX "i"\\n ON "t" ("c")`` is ``create index i on
    t ( c )``)."""
    out = []
    for token in _TOKEN.findall(sql):
        if token[0] in '"[`':
            token = token[1:-1]
        out.append(token if token[0] == "'" else token.lower())
    return " ".join(out)


def schema_shape(conn) -> dict[tuple[str, str], tuple]:
    """Each table, index, trigger and view of an SQLite database (but SQLite's statistics),
    as :func:`schema_difference` compares them: a table by its columns (name, type, NOT
    NULL, default, primary key) and foreign keys; an index by its SQL, or its columns when
    SQLite made it; a trigger by when it fires (its SQL before ``BEGIN``); a view by its SQL.
    Only what this version writes is installed (a restore copies rows into this version's
    tables, with its triggers), so a trigger's body or a table's SQL written otherwise by
    an older version (sqlite-utils' quotes and ``DEFAULT '0'``) still compares alike."""
    shape = {}
    objects = conn.execute(
        "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_stat%'"
    ).fetchall()
    for kind, name, table, sql in objects:
        if kind == "table":
            columns = conn.execute(
                'SELECT name, upper(type), "notnull", dflt_value, pk, hidden FROM pragma_table_xinfo(?)', (name,)
            )
            what: tuple = (
                tuple((c, t, n, _QUOTED_NUMBER.sub(r"\1", d or ""), p, h) for c, t, n, d, p, h in columns),
                tuple(sorted(tuple(r[2:]) for r in conn.execute("SELECT * FROM pragma_foreign_key_list(?)", (name,)))),
                tuple(conn.execute("SELECT wr, strict FROM pragma_table_list(?)", (name,)).fetchone() or ()),
            )
        elif sql is None:  # an index SQLite made for a primary key or unique constraint
            what = tuple(tuple(r) for r in conn.execute("SELECT * FROM pragma_index_xinfo(?)", (name,)))
        elif kind == "trigger":
            what = (_words(sql).partition(" begin ")[0],)
        else:
            what = (_words(sql),)
        shape[(kind, name)] = (table, what)
    return shape


@lru_cache(maxsize=1)
def _fresh_shape() -> dict[tuple[str, str], tuple]:
    """The schema an SQLite database this version makes has (:func:`schema_shape`)."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        migrations.migrate(conn, SQLITE)
        return schema_shape(conn)
    finally:
        conn.close()


def schema_difference(conn) -> str | None:
    """How the SQLite database ``conn`` (migrated to this version) differs from what this
    version's migrations make (the first difference, in words), or None."""
    have, want = schema_shape(conn), _fresh_shape()
    for kind, name in sorted(have.keys() - want.keys()):
        return f"it has a {kind} {name} this version does not make"
    for kind, name in sorted(want.keys() - have.keys()):
        return f"its {kind} {name} is missing"
    for kind, name in sorted(want):
        if have[(kind, name)] != want[(kind, name)]:
            return f"its {kind} {name} is not as this version makes it"
    return None
