"""Statistics: standings per game family, a player's record, head-to-head, and the score
series the charts draw. Each is one SQL query over ``seats``, where every game keeps each
side's figures (``rules.figures``, written by the store when a deal or the game ends), so
the cost follows the number of games, never their moves.

A team's figures count for each partner. ``won`` is NULL for a game still being played.

>>> import tempfile, os
>>> from companion.store import Store
>>> store = Store(os.path.join(tempfile.mkdtemp(), "doc.db"))
>>> row, key = store.create("hundred", ["Ann", "Ben"])
>>> version, state = store.play(row["id"], 0, {"type": "tally", "loser": "Ann"}, key)
>>> [(r["name"], r["played"], r["marks"]) for r in standings(store)["hundred"]]
[('Ben', 1, 0), ('Ann', 1, 1)]
"""

from __future__ import annotations

from collections.abc import Sequence

from companion import games
from companion.errors import N_

#: The figures a game family's tables show, with their headings: games played and won, then its own.
_EVERY = (("played", N_("Games")), ("won", N_("Won")), ("rate", N_("Win rate")))
SHOWN = {
    "tablanette": _EVERY
    + (("average", N_("Points a deal")), ("sweeps", N_("Sweeps")), ("best_sweep", N_("Biggest sweep"))),
    "tute": _EVERY + (("average", N_("Points a deal")), ("cantes", N_("Cante points")), ("marks", N_("Loss marks"))),
    "tantony": _EVERY + (("average", N_("Points a deal")), ("doubles", N_("Sudden deaths"))),
    "hundred": _EVERY + (("marks", N_("Hands lost")),),
}

_SUMS = (
    "count(*) AS played, count(s.won) AS finished, coalesce(sum(s.won), 0) AS won, sum(s.draw) AS drawn, "
    "sum(s.deals) AS deals, sum(s.points) AS points, sum(s.sweeps) AS sweeps, max(s.best_sweep) AS best_sweep, "
    "sum(s.cantes) AS cantes, sum(s.marks) AS marks, sum(s.double) AS doubles"
)


def _group_filter(group: Sequence[int]) -> tuple[str, list]:
    """Only the games played by exactly this group of players (any seats)."""
    if not group:
        return "", []
    marks = ", ".join("?" * len(group))
    return (
        " AND s.game_id IN (SELECT game_id FROM seats GROUP BY game_id "
        f"HAVING count(DISTINCT player_id) = ? AND sum(player_id NOT IN ({marks})) = 0)",
        [len(set(group)), *group],
    )


def _figures(row) -> dict:
    out = dict(row)
    out["average"] = round(out["points"] / out["deals"], 1) if out["deals"] else None
    out["rate"] = round(100 * out["won"] / out["finished"]) if out["finished"] else None
    return out


def standings(store, group: Sequence[int] = ()) -> dict[str, list[dict]]:
    """Each game family's players, most wins first: games played, finished, won and drawn,
    deals and points (``average`` a deal), sweeps and the biggest, cante points, marks
    (Tute's loss marks, 100's hands lost), double wins (Tantony's sudden deaths), and
    ``rate``, the percentage of finished games won. ``group``: only the games those
    players played together."""
    where, params = _group_filter(group)
    rows = store.query(
        f"SELECT g.game, p.id, p.name, {_SUMS} FROM seats s JOIN games g ON g.id = s.game_id "
        f"JOIN players p ON p.id = s.player_id WHERE 1{where} GROUP BY g.game, p.id "
        "ORDER BY g.game, won DESC, marks, played DESC, p.name",
        params,
    )
    out: dict[str, list[dict]] = {name: [] for name in games.GAMES}
    for row in rows:
        out[row["game"]].append(_figures(row))
    return {k: v for k, v in out.items() if v}


def record(store, player_id: int) -> dict[str, dict]:
    """A player's figures per game family (as :func:`standings`)."""
    rows = store.query(
        f"SELECT g.game, {_SUMS} FROM seats s JOIN games g ON g.id = s.game_id WHERE s.player_id = ? GROUP BY g.game",
        (player_id,),
    )
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
            "GROUP BY o.player_id ORDER BY games DESC, p.name",
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
