"""The roster and the figures the standings read: each name typed once is a ``players``
row (matched by :func:`names.key`: one person, one name), ``seats`` link a game's seats to
its players with each side's figures (kept when a deal or the game ends, so statistics are
a SQL sum, never a replay; ``totals`` per player and family is kept from them by triggers),
and every rename and merge is recorded in ``roster_changes`` (a merge can be undone)."""

from __future__ import annotations

import json
from typing import Any

from companion import games, names
from companion.store.access import Access
from companion.store.errors import NameTaken, NotFound, SameGame
from companion.store.rows import Row, _dumps, _finished_deals, _now

#: The oldest game still kept that seats a player (:meth:`Roster.roster_referee`): by when it
#: was made, then by the order rows were written (a column of its own on PostgreSQL).
FIRST_GAME = (
    "SELECT s.game_id FROM seats s JOIN games g ON g.id = s.game_id WHERE s.player_id = ? "
    "ORDER BY g.created, g.rowid LIMIT 1"
)


class Roster(Access):
    """The players, their renames and merges, and the statistics' reads."""

    def roster(self) -> list[dict]:
        """The players on this server, who played last first: id, name, created, last_played, games."""
        sql = (
            "SELECT p.id, p.name, p.created, p.last_played, (SELECT coalesce(sum(t.played), 0) FROM totals t "
            "WHERE t.player_id = p.id) AS games FROM players p ORDER BY p.last_played DESC, p.id"
        )
        return [dict(r) for r in self._conn().execute(sql)]

    def recent_tables(self, limit: int = 3) -> list[list[str]]:
        """The players of the latest games, each table once, the last one first: names in
        seat order, as the roster spells them now (one tap fills a new game's seats)."""
        sql = (
            "SELECT s.game_id, p.name FROM (SELECT id, created FROM games ORDER BY created DESC, rowid DESC LIMIT ?) g "
            "JOIN seats s ON s.game_id = g.id JOIN players p ON p.id = s.player_id ORDER BY g.created DESC, s.seat"
        )
        tables: dict[str, list[str]] = {}
        for row in self._conn().execute(sql, (limit * 10,)):
            tables.setdefault(row["game_id"], []).append(row["name"])
        out: list[list[str]] = []
        for seated in tables.values():
            if seated not in out:
                out.append(seated)
        return out[:limit]

    def player(self, player_id) -> dict | None:
        """A player of the roster (id, name, created, last_played), or None."""
        row = self._conn().execute("SELECT * FROM players WHERE id = ?", (player_id,)).fetchone()
        return None if row is None else dict(row)

    def roster_referee(self, player_ids, keys: dict) -> tuple[str, str] | None:
        """Who may change these players on the roster: ``(game id, referee id)`` when
        ``keys`` (a phone's ``{game id: key}``) holds a referee key in force of each
        player's first game (:data:`FIRST_GAME`: the one that brought their name onto the
        roster or, once that is deleted, the next oldest), the first player's for the
        record; else None. Renaming or merging a player rewrites the standings of everyone
        who played with them, so a visitor may not, nor may a phone that made a later game
        seating the same name: a new game joins the roster's player of that name, and a
        right from it would let anyone rename anyone (issue 30)."""
        conn, found = self._conn(), None
        for player_id in dict.fromkeys(player_ids):
            first = conn.execute(FIRST_GAME, (player_id,)).fetchone()
            referee = None if first is None else self._referee(conn, first[0], keys.get(first[0]))
            if referee is None:
                return None
            found = found or (first[0], referee)
        return found

    def rename_player(self, player_id: int, name: str, by: tuple[str, str] | None = None) -> None:
        """Rename a player: their games stay theirs (seats link the id, not the name; each
        game keeps the name it was played under). The name is checked as a new game's are
        (``OptionError``); ``NameTaken`` if it is someone else's (by :func:`names.key`). The
        rename is recorded with ``by`` (the game and referee phone allowing it)."""
        name = names.clean(name)
        with self._write() as conn:
            row = conn.execute("SELECT name FROM players WHERE id = ?", (player_id,)).fetchone()
            if row is None:
                raise NotFound(player_id)
            other = conn.execute(
                "SELECT id FROM players WHERE name_key = ? AND id != ?", (names.key(name), player_id)
            ).fetchone()
            if other is not None:
                raise NameTaken(name, other[0])
            if row[0] == name:
                return
            conn.execute("UPDATE players SET name = ?, name_key = ? WHERE id = ?", (name, names.key(name), player_id))
            self._record(conn, player_id, "rename", by, row[0], name)

    def merge_players(self, player_id: int, into: int, by: tuple[str, str] | None = None) -> int:
        """One person typed under two names: ``player_id``'s games become ``into``'s, and
        ``player_id`` leaves the roster. Recorded with what undoing it needs; returns the
        record's id. ``ValueError`` if the two sat in one game (two people, then)."""
        if player_id == into:
            raise ValueError("A player can't be merged into themself")
        with self._write() as conn:
            rows = {
                r["id"]: r
                for r in conn.execute(
                    "SELECT id, name, created, last_played FROM players WHERE id IN (?, ?)", (player_id, into)
                ).fetchall()
            }
            if len(rows) != 2:
                raise NotFound(player_id if player_id not in rows else into)
            together = conn.execute(
                "SELECT s.game_id FROM seats s JOIN seats t ON t.game_id = s.game_id "
                "WHERE s.player_id = ? AND t.player_id = ? LIMIT 1",
                (player_id, into),
            ).fetchone()
            if together is not None:
                raise SameGame(rows[player_id]["name"], rows[into]["name"], together[0])
            gone, kept = rows[player_id], rows[into]
            seats = [
                [r[0], r[1]]
                for r in conn.execute(
                    "SELECT game_id, seat FROM seats WHERE player_id = ? ORDER BY game_id, seat", (player_id,)
                )
            ]
            conn.execute("UPDATE seats SET player_id = ? WHERE player_id = ?", (into, player_id))
            conn.execute(
                "UPDATE players SET last_played = ? WHERE id = ?", (max(gone["last_played"], kept["last_played"]), into)
            )
            conn.execute("DELETE FROM players WHERE id = ?", (player_id,))
            detail = {"created": gone["created"], "last_played": gone["last_played"], "seats": seats}
            return self._record(conn, into, "merge", by, gone["name"], kept["name"], other=player_id, detail=detail)

    def undo_merge(self, change_id: int, by: tuple[str, str] | None = None) -> int:
        """Take a merge back: the merged player is on the roster again (with their id, when
        it is free) with the games that moved then (those not deleted since); returns their
        id. If their name was typed again meanwhile (a new player of that name), the games
        go to that player. ``NotFound`` for no such merge, ``ValueError`` if undone already."""
        with self._write() as conn:
            change = conn.execute(
                "SELECT * FROM roster_changes WHERE id = ? AND kind = 'merge'", (change_id,)
            ).fetchone()
            if change is None:
                raise NotFound(change_id)
            if change["undone"] is not None:
                raise ValueError("This merge was undone already")
            detail = json.loads(change["detail"])
            name = change["before"]
            again = conn.execute("SELECT id FROM players WHERE name_key = ?", (names.key(name),)).fetchone()
            if again is not None:
                back = again[0]
            else:
                free = conn.execute("SELECT 1 FROM players WHERE id = ?", (change["other_id"],)).fetchone() is None
                columns = ("id, " if free else "") + "name, name_key, created, last_played"
                values = ((change["other_id"],) if free else ()) + (
                    name,
                    names.key(name),
                    detail["created"],
                    detail["last_played"],
                )
                back = conn.execute(
                    f"INSERT INTO players ({columns}) VALUES ({', '.join('?' * len(values))}) RETURNING id", values
                ).fetchone()[0]
                self._after_copy(conn)  # PostgreSQL: the id sequence past an id written by hand
            for game_id, seat in detail["seats"]:
                conn.execute(
                    "UPDATE seats SET player_id = ? WHERE game_id = ? AND seat = ? AND player_id = ?",
                    (back, game_id, seat, change["player_id"]),
                )
            now = _now()
            conn.execute("UPDATE roster_changes SET undone = ? WHERE id = ?", (now, change_id))
            self._record(conn, back, "unmerge", by, change["after"], name, other=change["player_id"], when=now)
            return back

    def roster_changes(self, player_id: int) -> list[dict]:
        """The renames and merges of a player (merges into them, and their own un-merge),
        the latest first, each with the game whose referee made it (None: the upgrade that
        told look-alike names apart) and that game's players when it still exists."""
        rows = self._conn().execute(
            "SELECT c.*, g.game AS game, g.players AS players FROM roster_changes c LEFT JOIN games g "
            "ON g.id = c.game_id WHERE c.player_id = ? ORDER BY c.time DESC, c.id DESC",
            (player_id,),
        )
        out = []
        for row in rows.fetchall():
            change = {k: row[k] for k in row.keys() if k not in ("detail", "players")}
            change["players"] = json.loads(row["players"]) if row["players"] else None
            change["games_moved"] = len(json.loads(row["detail"])["seats"]) if row["detail"] else 0
            out.append(change)
        return out

    def _record(
        self, conn, player_id: int, kind: str, by, before: str, after: str, other=None, detail=None, when=None
    ) -> int:
        game_id, referee = by if by is not None else (None, None)
        return conn.execute(
            "INSERT INTO roster_changes (player_id, kind, time, game_id, referee, before, after, other_id, detail) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (
                player_id,
                kind,
                when or _now(),
                game_id,
                referee,
                before,
                after,
                other,
                None if detail is None else _dumps(detail),
            ),
        ).fetchone()[0]

    def query(self, sql: str, params=()) -> list[Row]:
        """Rows of a read-only query on this thread's connection (the statistics)."""
        return self._conn().execute(sql, params).fetchall()


def _player_id(conn, name: str, now: str) -> int:
    """The roster's player whose name is this one's :func:`names.key` (``Zed``, ``ZED`` and
    ``Ｚｅｄ`` are one person), added if new; marked as playing now."""
    row = conn.execute("SELECT id FROM players WHERE name_key = ?", (names.key(name),)).fetchone()
    if row is None:
        return conn.execute(
            "INSERT INTO players (name, name_key, created, last_played) VALUES (?, ?, ?, ?) RETURNING id",
            (name, names.key(name), now, now),
        ).fetchone()[0]
    conn.execute("UPDATE players SET last_played = ? WHERE id = ?", (now, row[0]))
    return row[0]


def _seat_players(conn, game_id: str, view: dict, now: str, find=_player_id) -> None:
    """Link each seat of a new game to its player on the roster (``find``), with the side it scores for."""
    side_of = {name: games.side_label(side) for side in view["sides"] for name in side}
    conn.executemany(
        "INSERT INTO seats (game_id, seat, player_id, side) VALUES (?, ?, ?, ?)",
        [(game_id, i, find(conn, name, now), side_of[name]) for i, name in enumerate(view["players"])],
    )


#: ``totals``' sums (and the statistics' over any seats), each of a seat's columns ({s}: the
#: seat), as the migrations made them (m009's, and any added since, each by a migration of its own).
TOTALS = {
    "played": "1",
    "finished": "CASE WHEN {s}.won IS NULL THEN 0 ELSE 1 END",  # a sum of 0s and 1s on SQLite and PostgreSQL alike
    "won": "coalesce({s}.won, 0)",
    "drawn": "{s}.draw",
    "deals": "{s}.deals",
    "points": "{s}.points",
    "sweeps": "{s}.sweeps",
    "cantes": "{s}.cantes",
    "marks": "{s}.marks",
    "doubles": '{s}."double"',
}


#: The figures a game's seats hold now, as :func:`_keep_figures` compares them (the first seat's).
KEPT_FIGURES = "SELECT deals, won FROM seats WHERE game_id = ? ORDER BY seat LIMIT 1"
_UNREAD: Any = object()


def _keep_figures(
    conn,
    rules,
    game_id: str,
    view: dict,
    deals: int,
    confirmed: int | None = None,
    history: list | None = None,
    kept: Any = _UNREAD,
    lock=None,
    columns: tuple[str, ...] | None = None,
) -> None:
    """Each side's figures and result in its seats (:func:`seat_figures`), when a deal or
    the game has ended or been undone (or confirmed) since they were written (one indexed
    read otherwise, or none: ``kept``, the first seat's ``(deals, won)`` read already, None
    for no seats). ``view`` is of the game's state, ``deals`` finished; their records are
    read from ``deals`` then (or given: ``history``). ``lock(conn)`` is called before the
    seats are written (the store's :meth:`~Base._lock_figures`). ``columns``: the figures
    written (``games.FIGURES``, unless a migration writes the seats its schema had then)."""
    counted = deals if confirmed is None else min(confirmed, deals)
    result = view["result"] if counted == deals else None
    if kept is _UNREAD:
        kept = conn.execute(KEPT_FIGURES, (game_id,)).fetchone()
    if kept is None or (kept[0] == counted and (kept[1] is None) == (result is None)):
        return
    if lock is not None:
        lock(conn)
    if history is None:
        history = _finished_deals(conn, game_id)
    written = (*(games.FIGURES if columns is None else columns), "won", "draw")
    for side, values in seat_figures(rules, view, history, deals, confirmed).items():
        conn.execute(
            f"UPDATE seats SET {', '.join(f'{k} = ?' for k in written)} WHERE game_id = ? AND side = ?",
            (*(values[k] for k in written), game_id, side),
        )


#: The columns of a seat :func:`seat_figures` works out, in order.
SEAT_FIGURES = (*games.FIGURES, "won", "draw")


def seat_figures(rules, view: dict, history: list, deals: int, confirmed: int | None = None) -> dict[str, dict]:
    """What each side's seats hold (:data:`SEAT_FIGURES`) for a game whose ``view`` is
    given, ``deals`` finished with the records ``history``: its figures of the deals that
    count (with ``confirmed`` deals confirmed by the other side, only those), and its result
    (``won`` None until the game is over and every deal counts; ``draw`` 1 for a side that
    shares a draw). What a move writes (:func:`_keep_figures`) and a restore compares."""
    counted = deals if confirmed is None else min(confirmed, deals)
    result = view["result"] if counted == deals else None
    draw = bool(result and result.get("draw"))
    winners = result.get("winners", []) if result else []
    return {
        side: {
            **{k: figures[k] for k in games.FIGURES},
            "won": None if result is None else int(side in winners and not draw),
            "draw": int(draw and side in winners),
        }
        for side, figures in rules.figures({**view, "history": history[:counted], "result": result}).items()
    }
