"""What every part of the store shares: its constants, a game row as :meth:`get` returns
it, states and deals as JSON, a game's status as data, keys and tokens hashed. No SQL
beyond the few statements on finished deals every write reads."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from datetime import datetime, timezone
from typing import Any

import orjson

from companion import games, names
from companion.errors import N_, MoveError, OptionError, Reason

TRANSCRIPT_FORMAT = "companion-transcript/1"

#: What a game's id is: what :meth:`~companion.store.writes.Games.create` makes
#: (``secrets.token_urlsafe``), and what an address may carry (companion/views/api.py's
#: ``GameId``); a restore or an import refuses any other (``../../etc/x``).
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")

#: Seconds a writer waits for another writer's transaction before giving up.
BUSY_TIMEOUT = 5.0

#: What a one-use referee link does: "add" makes one more referee phone; "handover"
#: makes the new phone the only referee (every other key is revoked); "confirm" lets a
#: phone of the other side confirm each deal.
LINK_KINDS = ("add", "handover", "confirm")
#: A move keeps the state after it at least this often (undo replays fewer moves than this).
SNAPSHOT_EVERY = 32

#: A row read by name or by position (``sqlite3.Row``, or the PostgreSQL backend's ``Row``).
Row = Any

#: SQLite's ``synchronous`` settings a store may use (``COMPANION_SYNCHRONOUS``). With WAL,
#: NORMAL never corrupts the file and loses nothing when the server crashes, but a power
#: cut can take the last moves acknowledged before it; FULL waits for the disk at every
#: commit, so an acknowledged move survives a power cut too, at a cost per move that
#: `make bench` measures.
SYNCHRONOUS = ("NORMAL", "FULL")


def safe_url(url: str) -> str:
    """A database's URL as a message shows it: without its password, given in its
    ``user:password@`` part or as a ``password=`` parameter.

    >>> safe_url("postgresql://companion:secret@db:5432/club?password=also&sslmode=require")
    'postgresql://companion:***@db:5432/club?password=***&sslmode=require'
    """
    url = re.sub(r"//([^:/@]*):[^@/]*@", r"//\1:***@", url)
    return re.sub(r"([?&]password=)[^&]*", r"\1***", url, flags=re.IGNORECASE)


_GAME_COLUMNS = (
    "id, game, players, options, created, updated, version, state, finished, status, archived, confirmed, deals"
)


_LIST_COLUMNS = "id, game, players, created, updated, version, finished, status, archived"


def _now() -> str:
    return _stamp(datetime.now(timezone.utc))


def _stamp(when: datetime) -> str:
    """UTC times as ISO text, which sorts and compares as the times do."""
    return when.isoformat(timespec="microseconds")


#: A game's time played (issue 46) runs from its first entry to its last, and a pause longer
#: than this between two entries is left out, whole (a break, or the table gone home).
PAUSE_SECONDS = 30 * 60


def _gap(before: str | None, after: str) -> int:
    """The time played between two entries stored at ``before`` and ``after`` (their
    ``time``), in whole seconds: 0 with none before, or for a pause over
    :data:`PAUSE_SECONDS` (or a clock set back)."""
    if before is None:
        return 0
    seconds = (datetime.fromisoformat(after) - datetime.fromisoformat(before)).total_seconds()
    return int(seconds) if 0 < seconds <= PAUSE_SECONDS else 0


def _time_played(times: list[str]) -> int:
    """A game's time played, from its entries' times in order (every move stored, undone ones
    included: the time was played): what its moves added up as they were written."""
    return sum(_gap(a, b) for a, b in zip(times, times[1:]))


def _dumps(data) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _dump_state(data: dict) -> str:
    """The latest state, written at every move: orjson, because the stdlib encoder's time
    grows with the finished deals a state carries, and a move must cost the same at move
    1,000 as at move 10 (DESIGN.md quality bar; `make bench` measures it)."""
    return orjson.dumps(data).decode()


def _load_state(text: str) -> dict:
    return orjson.loads(text)


def _add_deals(conn, game_id: str, records: list[dict], first: int) -> None:
    """Store ``records`` as the game's finished deals ``first``, ``first + 1``, ..."""
    conn.executemany(
        "INSERT INTO deals (game_id, n, record) VALUES (?, ?, ?)",
        [(game_id, n, _dump_state(r)) for n, r in enumerate(records, first)],
    )


def _finished_deals(conn, game_id: str) -> list[dict]:
    """The game's finished deals' records, in order."""
    rows = conn.execute("SELECT record FROM deals WHERE game_id = ? ORDER BY n", (game_id,))
    return [_load_state(r) for (r,) in rows]


def _trimmed(data: dict) -> str:
    """A state as the game row keeps it: its finished deals but the last are in ``deals``."""
    return _dump_state({**data, "history": data["history"][-1:]})


def _snapshot_text(data: dict, deals: int) -> str:
    """A state as a move keeps it for undo: trimmed, with how many deals it has finished."""
    return _dump_state({"deals": deals, "state": {**data, "history": data["history"][-1:]}})


def _plain(data, error: type[MoveError | OptionError], what: str):
    """``data`` as it will read back from the database (tuples become lists, ...).

    The engine is given this copy, so replaying the stored JSON reproduces its verdict.
    """
    try:
        return json.loads(_dumps(data))
    except (TypeError, ValueError):
        # N_: ``error`` is the kind of refusal, so `make messages` finds the text by its mark.
        raise error(
            "not_json", N_("'%(what)s' must be plain JSON data (text, numbers, lists, mappings)"), what=what
        ) from None


def _named(players, options):
    """A new game's players as stored (:func:`names.check_seats`: one person, one name) and
    its options with the first dealer's name in the same form; what is not a list of
    names is left for the engine to refuse."""
    if isinstance(players, list):
        players = names.check_seats(players)
    if isinstance(options, dict) and isinstance(options.get("dealer"), str):
        options = {**options, "dealer": names.normalized(options["dealer"])}
    return players, options


def _game_dict(row, history: list[dict] | None = None, state=None) -> dict:
    """A game row as :meth:`Store.get` returns it; its state read from the row (its
    ``history`` replaced by ``history`` when given) unless ``state`` is given."""
    rules = games.get(row["game"])
    if state is None:
        data = _load_state(row["state"])
        state = rules.load(data if history is None else {**data, "history": history})
    return {
        "id": row["id"],
        "game": row["game"],
        "players": json.loads(row["players"]),
        "options": json.loads(row["options"]),
        "created": row["created"],
        "updated": row["updated"],
        "version": row["version"],
        "finished": bool(row["finished"]),
        "status": _status(row["status"]),
        "archived": bool(row["archived"]),
        "confirmed": row["confirmed"],
        "deals": row["deals"],
        "state": state,
    }


def _said(rules, state, move: dict) -> str:
    """A move's words as the engine says them from the state it led to (``rules.narrate``),
    kept with it as data (JSON) for the move log."""
    return _said_text(rules.narrate(state, move))


def _said_text(said: list[Reason]) -> str:
    """A move's words (``narrate``'s sentences) as the move keeps them: data, as JSON."""
    return json.dumps([r.as_data() for r in said], ensure_ascii=False)


def _said_read(text: str | None) -> list[Reason] | None:
    """A move's words as it keeps them, read back (None: a move kept without words)."""
    return None if text is None else [Reason.from_json(r) for r in json.loads(text)]


def _summary(view: dict) -> tuple[int, str]:
    """``(finished, status)`` for the list of games, from the engine's view: data (JSON),
    not words, which the pages write at render time (``status_text``).

    Kept in the row at each change, so listing games loads no state.
    """
    ruled = {"ruled": view["ruled"]} if view.get("ruled") else {}  # moves the table ruled (RULES.md 5.2)
    result = view.get("result")
    if result:
        return 1, _dumps({"winners": result.get("winners", []), "draw": bool(result.get("draw"))} | ruled)
    status: dict = {"deal": view.get("deal")}
    if isinstance(view.get("scores"), dict):
        status["scores"] = view["scores"]
    elif isinstance(view.get("losses"), dict):
        status["losses"] = view["losses"]
    return 0, _dumps(status | ruled)


def _status(text: str) -> dict:
    """A row's status as data (a row from before m004, or an empty one, reads as {})."""
    try:
        data = json.loads(text or "{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _hash_key(key: str) -> str:
    """``salt$hmac``: HMAC-SHA256 of the key under a random per-game salt."""
    salt = secrets.token_hex(16)
    return f"{salt}${_digest(salt, key)}"


def _key_matches(stored: str, key: str) -> bool:
    salt, _, digest = stored.partition("$")
    return hmac.compare_digest(_digest(salt, key), digest)


def _token_hash(token: str) -> str:
    """A link token's lookup hash: tokens are 128 random bits, so no salt is needed."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def _digest(salt: str, key: str) -> str:
    return hmac.new(salt.encode(), key.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()
