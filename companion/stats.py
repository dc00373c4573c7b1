"""Statistics: standings per game family, a player's record, head-to-head and a player's
games, of all time or of a period (issue 46: the games started in it). Each is one SQL
query over ``seats``, where every game keeps each side's figures (``rules.figures``,
written by the store when a deal or the game ends), or over ``totals``, their sums per
player and family kept by the database's triggers; the time played is each game's
(``games.seconds_played``, kept by the store as each move is written), summed through an
index that holds it beside the game's id, family and start. The cost follows the number of
players (everyone's figures) or of the games asked about (a period's, a group's, a
player's, and the time played of them), never the moves.

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
from datetime import date, datetime, timedelta, timezone, tzinfo

from companion import games
from companion.errors import N_
from companion.store import TOTALS

#: The figures a game family's tables show, with their headings: games finished and won, then its
#: own (a game still being played counts apart: ``unfinished``, said beside the name, as is the
#: time played of every game, finished or not: ``seconds``).
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


#: A period, as the statistics take it: the games started from ``since`` (inclusive) to
#: ``until`` (exclusive), both stored times (UTC, ISO text, as ``games.created`` holds them).
Period = tuple[str, str]


def period_days(
    kind: str, today: date, since: date | None = None, until: date | None = None
) -> tuple[date | None, date | None] | None:
    """The days a period named ``kind`` ("all", "month", "year", "range": companion.forms'
    PeriodForm) covers, its first and its last (either None: open), as the table's calendar
    has them on ``today``; None for all time. "range": from ``since`` to ``until``, both
    included.

    >>> period_days("month", date(2026, 12, 31))
    (datetime.date(2026, 12, 1), datetime.date(2026, 12, 31))
    >>> period_days("year", date(2024, 2, 29))
    (datetime.date(2024, 1, 1), datetime.date(2024, 12, 31))
    """
    if kind == "month":
        first = today.replace(day=1)
        return first, (first + timedelta(days=31)).replace(day=1) - timedelta(days=1)
    if kind == "year":
        return date(today.year, 1, 1), date(today.year, 12, 31)
    if kind == "range" and (since or until):
        return since, until
    return None


def period(days: tuple[date | None, date | None] | None, zone: tzinfo | None = None) -> Period | None:
    """The games started on those days (:func:`period_days`) by the clock of ``zone`` (the
    table's; None: the server's own), as stored times: from the first day's midnight to the
    midnight after the last (an open end: every game before or after).

    >>> period((date(2026, 11, 1), date(2026, 11, 30)), timezone(timedelta(hours=9)))
    ('2026-10-31T15:00:00.000000+00:00', '2026-11-30T15:00:00.000000+00:00')
    """
    if days is None:
        return None
    first, last = days

    def midnight(day: date) -> str:
        start = datetime.combine(day, datetime.min.time(), zone).astimezone(timezone.utc)
        return start.isoformat(timespec="microseconds")

    # Stored times are ISO text: "" sorts before every one, and "9" after every year's (a
    # day at the calendar's ends is taken as open: its midnight may have no UTC time).
    since = "" if first is None or first <= date.min + timedelta(days=1) else midnight(first)
    until = "9" if last is None or last >= date.max - timedelta(days=1) else midnight(last + timedelta(days=1))
    return since, until


def _started(period: Period | None) -> tuple[str, list]:
    """A condition (after ``AND``) on the games ``g``: started in ``period``, if one."""
    return ("", []) if period is None else (" AND g.created >= ? AND g.created < ?", list(period))


#: Each player's sums per game family over the seats ``s`` of the games ``g`` a condition
#: (``{where}``, after ``AND``) keeps: ``{sums}``. ``{join}``: "," (the database picks which
#: table it reads first) or " CROSS JOIN" (SQLite reads the games first).
_SUMMED = (
    "SELECT g.game, s.player_id, {sums} FROM games g{join} seats s WHERE s.game_id = g.id{where} "
    "GROUP BY g.game, s.player_id"
)
_SECONDS = "sum(g.seconds_played) AS seconds"


def _source(group: Sequence[int], period: Period | None, player: int | None = None) -> tuple[str, list]:
    """Each player's figures per game family as :data:`TOTALS` sums them, with ``seconds``
    (the time played), of the games of ``group``, started in ``period``, of ``player`` (each
    if given): the figures from ``totals`` when every game counts, else summed over the seats."""
    where, params = _started(period)
    if player is not None:
        where, params = f" AND s.player_id = ?{where}", [player, *params]
    if group:
        games_of_group, group_params = _group_games(group)
        where, params = f" AND s.game_id IN ({games_of_group}){where}", [*group_params, *params]
    if group or period is not None:
        return "(" + _SUMMED.format(sums=f"{_SUMS}, {_SECONDS}", join=",", where=where) + ")", params
    # Every game's time, read from idx_games_period, which holds all of a game the sum needs
    # (never its row, where the state is): SQLite's CROSS JOIN reads the games first. A
    # player's are found from their seats.
    seconds = _SUMMED.format(sums=_SECONDS, join="," if player is not None else " CROSS JOIN", where=where)
    return (
        f"(SELECT t.*, coalesce(x.seconds, 0) AS seconds FROM totals t LEFT JOIN ({seconds}) x "
        "ON x.game = t.game AND x.player_id = t.player_id)",
        params,
    )


def _figures(row) -> dict:
    out = dict(row)
    out["average"] = round(out["points"] / out["deals"], 1) if out["deals"] else None
    out["rate"] = round(100 * out["won"] / out["finished"]) if out["finished"] else None
    out["unfinished"] = out["played"] - out["finished"]
    return out


def _every_game_in(store, period: Period | None) -> Period | None:
    """``period``, or None (every game) when every game was started in it: then ``totals``
    has its figures (this year's, in a club's first year), instead of every seat summed.
    Two reads of idx_games_created."""
    if period is None:
        return None
    first = store.query("SELECT created FROM games ORDER BY created LIMIT 1")
    last = store.query("SELECT created FROM games ORDER BY created DESC LIMIT 1")
    return None if first and period[0] <= first[0]["created"] and last[0]["created"] < period[1] else period


def standings(store, group: Sequence[int] = (), period: Period | None = None) -> dict[str, list[dict]]:
    """Each game family's players, most wins first: games played, finished (``unfinished``:
    still being played), won and drawn,
    deals and points (``average`` a deal), sweeps and the biggest, cante points, marks
    (Tute's loss marks, 100's hands lost), double wins (Tantony's sudden deaths),
    ``rate``, the percentage of finished games won, and ``seconds``, the time played.
    ``group``: only the games those players played together; ``period``: only the games
    started in it."""
    source, params = _source(group, _every_game_in(store, period))
    rows = store.query(
        f"SELECT t.*, p.id, p.name FROM {source} t JOIN players p ON p.id = t.player_id "
        "ORDER BY t.game, t.won DESC, t.marks, t.played DESC, p.name",
        params,
    )
    out: dict[str, list[dict]] = {name: [] for name in games.GAMES}
    for row in rows:
        out[row["game"]].append(_figures(row))
    return {k: v for k, v in out.items() if v}


def record(store, player_id: int, period: Period | None = None) -> dict[str, dict]:
    """A player's figures per game family (as :func:`standings`), of the games started in
    ``period`` or of all."""
    source, params = _source((), _every_game_in(store, period), player_id)
    rows = store.query(f"SELECT * FROM {source} t WHERE t.player_id = ?", [*params, player_id])
    return {row["game"]: _figures(row) for row in sorted(rows, key=lambda r: list(games.GAMES).index(r["game"]))}


def head_to_head(store, player_id: int, period: Period | None = None) -> list[dict]:
    """Against each player met on another side of a finished game (started in ``period``, if
    one): games, and how many each of the two won of them."""
    started, params = _started(period)
    games_joined = " JOIN games g ON g.id = me.game_id" if period is not None else ""
    return [
        dict(r)
        for r in store.query(
            "SELECT o.player_id AS id, p.name, count(DISTINCT me.game_id) AS games, "
            "count(DISTINCT CASE WHEN me.won = 1 THEN me.game_id END) AS won, "
            "count(DISTINCT CASE WHEN o.won = 1 THEN me.game_id END) AS lost "
            "FROM seats me JOIN seats o ON o.game_id = me.game_id AND o.side != me.side "
            f"JOIN players p ON p.id = o.player_id{games_joined} "
            f"WHERE me.player_id = ? AND me.won IS NOT NULL AND o.player_id != me.player_id{started} "
            "GROUP BY o.player_id, p.name ORDER BY games DESC, p.name",
            (player_id, *params),
        )
    ]


def games_of(store, player_id: int, period: Period | None = None) -> list[dict]:
    """A player's games (started in ``period``, if one), oldest first: id, game, created,
    finished, the time played (``seconds``), the side's figures and won."""
    started, params = _started(period)
    return [
        dict(r)
        for r in store.query(
            "SELECT g.id, g.game, g.created, g.finished, g.seconds_played AS seconds, s.side, s.won, s.draw, "
            "s.deals, s.points, s.marks FROM seats s JOIN games g ON g.id = s.game_id "
            f"WHERE s.player_id = ?{started} ORDER BY g.created, g.rowid",
            (player_id, *params),
        )
    ]
