"""Statistics: standings per game family, a player's record, head-to-head and a player's
games. Each is one SQL query over ``seats``, where every game keeps each side's figures
(``rules.figures``, written by the store when a deal or the game ends), or over ``totals``,
their sums per player and family kept by the database's triggers: the cost follows the
number of players (everyone's standings, a record) or of the games asked about (a group's),
never the moves.

A team's figures count for each partner. ``won`` is NULL for a game still being played.

>>> import tempfile, os
>>> from companion.store import SqliteStore
>>> store = SqliteStore(os.path.join(tempfile.mkdtemp(), "doc.db"))
>>> row, key = store.create("hundred", ["Ann", "Ben"])
>>> version, state = store.play(row["id"], 0, {"type": "tally", "loser": "Ann"}, key)
>>> [(r["name"], r["played"], r["marks"]) for r in standings(store)["hundred"]]
[('Ben', 1, 0), ('Ann', 1, 1)]
"""

from __future__ import annotations

from collections.abc import Sequence

from companion import games
from companion.errors import N_
from companion.store import TOTALS

#: The figures a game family's tables show, with their headings: games finished and won, then its
#: own (a game still being played counts apart: ``unfinished``, said beside the name).
_EVERY = (("finished", N_("Games")), ("won", N_("Won")), ("rate", N_("Win rate")))
SHOWN = {
    "tablanette": _EVERY
    + (("average", N_("Points a deal")), ("sweeps", N_("Sweeps")), ("best_sweep", N_("Biggest sweep"))),
    "tute": _EVERY + (("average", N_("Points a deal")), ("cantes", N_("Cante points")), ("marks", N_("Loss marks"))),
    "tantony": _EVERY + (("average", N_("Points a deal")), ("doubles", N_("Sudden deaths"))),
    "hundred": _EVERY + (("marks", N_("Hands lost")),),
}


def shown(figures: dict, key: str) -> str:
    """A figure as the tables show it: a dash for none (no deal or no finished game yet),
    the win rate with its percent sign."""
    value = figures[key]
    return "–" if value is None else f"{value}%" if key == "rate" else str(value)


#: A seat's figures summed over a set of seats, as ``totals`` keeps them for every seat.
_SUMS = ", ".join(f"sum({v.format(s='s')}) AS {k}" for k, v in TOTALS.items()) + ", max(s.best_sweep) AS best_sweep"


def _group_games(group: Sequence[int]) -> tuple[str, list]:
    """The games played by exactly this group of players (any seats): among the first
    one's games (an index), those with no one else and everyone of the group."""
    members = sorted(set(group))
    marks = ", ".join("?" * len(members))
    return (
        "SELECT m.game_id FROM seats m WHERE m.player_id = ? "
        f"AND NOT EXISTS (SELECT 1 FROM seats o WHERE o.game_id = m.game_id AND o.player_id NOT IN ({marks})) "
        "AND (SELECT count(DISTINCT o.player_id) FROM seats o WHERE o.game_id = m.game_id) = ?",
        [members[0], *members, len(members)],
    )


def _figures(row) -> dict:
    out = dict(row)
    out["average"] = round(out["points"] / out["deals"], 1) if out["deals"] else None
    out["rate"] = round(100 * out["won"] / out["finished"]) if out["finished"] else None
    out["unfinished"] = out["played"] - out["finished"]
    return out


def standings(store, group: Sequence[int] = ()) -> dict[str, list[dict]]:
    """Each game family's players, most wins first: games played, finished (``unfinished``:
    still being played), won and drawn,
    deals and points (``average`` a deal), sweeps and the biggest, cante points, marks
    (Tute's loss marks, 100's hands lost), double wins (Tantony's sudden deaths), and
    ``rate``, the percentage of finished games won. ``group``: only the games those
    players played together."""
    if group:
        games_of_group, params = _group_games(group)
        source = (
            f"(SELECT g.game, s.player_id, {_SUMS} FROM seats s JOIN games g ON g.id = s.game_id "
            f"WHERE s.game_id IN ({games_of_group}) GROUP BY g.game, s.player_id)"
        )
    else:
        source, params = "totals", []
    rows = store.query(
        f"SELECT t.*, p.id, p.name FROM {source} t JOIN players p ON p.id = t.player_id "
        "ORDER BY t.game, t.won DESC, t.marks, t.played DESC, p.name",
        params,
    )
    out: dict[str, list[dict]] = {name: [] for name in games.GAMES}
    for row in rows:
        out[row["game"]].append(_figures(row))
    return {k: v for k, v in out.items() if v}


def record(store, player_id: int) -> dict[str, dict]:
    """A player's figures per game family (as :func:`standings`)."""
    rows = store.query("SELECT * FROM totals WHERE player_id = ?", (player_id,))
    return {row["game"]: _figures(row) for row in sorted(rows, key=lambda r: list(games.GAMES).index(r["game"]))}


def head_to_head(store, player_id: int) -> list[dict]:
    """Against each player met on another side of a finished game: games, and how many
    each of the two won of them."""
    return [
        dict(r)
        for r in store.query(
            "SELECT o.player_id AS id, p.name, count(DISTINCT me.game_id) AS games, "
            "count(DISTINCT CASE WHEN me.won = 1 THEN me.game_id END) AS won, "
            "count(DISTINCT CASE WHEN o.won = 1 THEN me.game_id END) AS lost "
            "FROM seats me JOIN seats o ON o.game_id = me.game_id AND o.side != me.side "
            "JOIN players p ON p.id = o.player_id "
            "WHERE me.player_id = ? AND me.won IS NOT NULL AND o.player_id != me.player_id "
            "GROUP BY o.player_id, p.name ORDER BY games DESC, p.name",
            (player_id,),
        )
    ]


def games_of(store, player_id: int) -> list[dict]:
    """A player's games, oldest first: id, game, created, finished, the side's figures and won."""
    return [
        dict(r)
        for r in store.query(
            "SELECT g.id, g.game, g.created, g.finished, s.side, s.won, s.draw, s.deals, s.points, s.marks "
            "FROM seats s JOIN games g ON g.id = s.game_id WHERE s.player_id = ? ORDER BY g.created, g.rowid",
            (player_id,),
        )
    ]
