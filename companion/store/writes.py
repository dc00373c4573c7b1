"""The write path (DESIGN.md "The store"): games and their move logs, snapshots for undo,
finished deals stored once. Every change is one write transaction of the backend's
(``_write``: the write lock is held from the first read), so the version check, the
engine's verdict and the write see the same row, and a concurrent writer waits instead of
failing.

* ``games``: one row per game, holding the engine's latest ``dump`` in ``state``, so
  reading a game is one row whatever its length (DESIGN.md: move 1,000 costs what move
  10 does). ``version`` counts every change, moves and undos alike, and only grows: it is
  the optimistic lock a client sends back with its next change.
* ``moves``: the log, ``(game_id, seq)`` its primary key. Undo marks a move ``undone``
  and never deletes it: the log is the audit trail a dispute is settled from. Each move
  keeps when it was entered (``time``) and by which referee phone (``referee``: the id of
  its ``referees`` row, never the key), or that it came from a transcript (``imported``);
  an undo keeps who undid it and when (``undone_by``, ``undone_time``).

A change reads what it needs of its game in one statement (``_CHANGE_READ``), the stored
state left out when the state this worker keeps of the game (companion/store/states.py)
is the row's; the state it writes is kept once the transaction has committed.
"""

from __future__ import annotations

import dataclasses
import json
import secrets
from typing import Any

from companion import games
from companion.errors import InvalidMove, MoveError, OptionError
from companion.games.common import replay
from companion.store.access import Access
from companion.store.errors import UNIQUE_VIOLATIONS, AskFirst, BadTranscript, Conflict, NotFound, NothingToUndo
from companion.store.roster import _keep_figures, _seat_players
from companion.store.rows import (
    _LIST_COLUMNS,
    SNAPSHOT_EVERY,
    TRANSCRIPT_FORMAT,
    Row,
    _add_deals,
    _dump_state,
    _dumps,
    _finished_deals,
    _game_dict,
    _gap,
    _load_state,
    _named,
    _now,
    _plain,
    _said,
    _said_read,
    _said_text,
    _snapshot_text,
    _status,
    _summary,
    _trimmed,
)
from companion.store.states import Entry

#: A game's row as :meth:`Games.get` reads it: its ``state`` left out (NULL) when the state
#: this process keeps (its version and time are the parameters) is the row's.
_GAME_READ = (
    "SELECT id, game, players, options, created, updated, version, "
    "CASE WHEN version = ? AND updated = ? THEN NULL ELSE state END AS state, "
    "finished, status, archived, confirmed, deals FROM games WHERE id = ?"
)
#: What a change reads of its game (:meth:`Changes._read_for_change`).
_CHANGE_READ = (
    "SELECT id, game, players, options, created, updated, version, "
    "CASE WHEN version = ? AND updated = ? THEN NULL ELSE state END AS state, "
    "finished, status, archived, confirmed, deals, "
    "COALESCE((SELECT seq FROM moves WHERE game_id = games.id ORDER BY seq DESC LIMIT 1), 0) AS last_seq, "
    "(SELECT time FROM moves WHERE game_id = games.id ORDER BY seq DESC LIMIT 1) AS last_time, "
    "(SELECT seq FROM moves WHERE game_id = games.id AND undone = 0 ORDER BY seq DESC LIMIT 1) AS last_in_effect, "
    "COALESCE((SELECT seq FROM moves WHERE game_id = games.id AND snapshot IS NOT NULL AND undone = 0 "
    "ORDER BY seq DESC LIMIT 1), 0) AS snapshot_seq, "
    "EXISTS (SELECT 1 FROM seats WHERE game_id = games.id) AS seated, "
    "(SELECT deals FROM seats WHERE game_id = games.id ORDER BY seat LIMIT 1) AS seats_deals, "
    "(SELECT won FROM seats WHERE game_id = games.id ORDER BY seat LIMIT 1) AS seats_won, "
    "EXISTS (SELECT 1 FROM moves WHERE game_id = games.id AND entry = ?) AS entered "
    "FROM games WHERE id = ?"
)


class Changes(Access):
    """A game's changes: moves and undos (each one transaction, at the version the phone
    saw), the other side's confirmation, and the log they leave."""

    def version(self, game_id: str) -> int | None:
        """The game's version (None for an unknown game): what a poll compares, one indexed read."""
        row = self._conn().execute("SELECT version FROM games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else row[0]

    def play(
        self, game_id: str, version: int, move: dict, key: str | None = None, entry: str | None = None
    ) -> tuple[int, object]:
        """Apply ``move`` if ``version`` is current; return ``(new_version, state)``, as
        :meth:`play_and_read` does."""
        game = self.play_and_read(game_id, version, move, key, entry)
        return game["version"], game["state"]

    def play_and_read(
        self,
        game_id: str,
        version: int,
        move: dict,
        key: str | None = None,
        entry: str | None = None,
        game: str | None = None,
        ask: bool = False,
    ) -> dict:
        """Apply ``move`` if ``version`` is current; return the game after it, as :meth:`get`
        reads it, with its ``view`` (so the answer to a move needs no second read) and the
        move's words (``said``: the engine's ``narrate``, worked out once and kept with it).

        ``Conflict`` for a stale version, the engine's ``MoveError`` for a refused move:
        either way nothing is written. The move is stored as given (after a JSON round
        trip, which is also what the engine sees, so replaying the log gives this state).
        ``key``, the referee key the request carried, is resolved in the same transaction
        to the phone recorded as entering the move (``NotReferee`` if it is not in force);
        without it the move is stored with no phone. ``entry``, the id a phone gave this tap:
        if a move with it is already stored (sent again after its answer was lost), nothing
        is applied and the game as it is now is returned, whatever the version. ``game``:
        the game the caller checked the move for (its schema, :meth:`game_of`), a
        ``Conflict`` if the game is another. ``ask``: ``AskFirst`` instead when the game
        asks before this move (the engine's ``confirm_needed``). The store calls nothing of
        the caller's: what it is given is plain data. The game's ``before`` the change (its
        ``version``, ``deals`` and ``state``) comes with the answer.

        What is refused is refused in this order: an unknown game, a key not in force, a
        game other than ``game``, a question to ask first, a stale version, the engine's
        refusal (a tap recorded already is answered before any of them but the first).
        """
        found = self._states.entry(game_id)
        with self._write(game_id) as conn:
            read = self._read_for_change(conn, game_id, found, entry)
            referees = self._referees(conn, game_id) if key is not None else None
            row = read.fetchone()  # on PostgreSQL: the lock and both reads, one round trip
            if row is None:
                raise NotFound(f"No game {game_id!r}")
            before = self._state(row, found, copy=False)  # apply changes a copy of it
            prior = {"version": row["version"], "deals": row["deals"], "state": before}
            if row["entered"]:  # recorded already, whoever referees now: its answer was lost
                return _game_dict(row, state=before) | {"before": prior, "said": None}
            referee = self._device(conn, game_id, key, referees)
            if game is not None and game != row["game"]:
                raise Conflict(row["version"], version)
            move = _plain(move, InvalidMove, "move")
            rules = games.get(row["game"])
            question = rules.confirm_needed(before, move) if ask and hasattr(rules, "confirm_needed") else None
            if question:
                raise AskFirst(move, question)
            self._check_version(row, version)
            state = rules.apply(before, move)
            seq = row["last_seq"] + 1
            deals = self._keep_deals(conn, game_id, state, row["deals"] - len(before.history), row["deals"])
            snapshot = None
            if seq - row["snapshot_seq"] >= SNAPSHOT_EVERY:
                snapshot = _snapshot_text(rules.dump(state), deals)
            now = _now()
            said = rules.narrate(state, move)  # once: the log keeps it, and the answer brings it
            conn.execute(
                "INSERT INTO moves (game_id, seq, move, time, undone, referee, entry, snapshot, said) "
                "VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?)",
                (game_id, seq, _dumps(move), now, referee, entry, snapshot, _said_text(said)),
            )
            game_after = self._save(conn, rules, row, game_id, state, now, deals, played=_gap(row["last_time"], now))
        self._states.put(game_id, game_after["version"], game_after["updated"], game_after["state"])
        return game_after | {"before": prior, "said": said}

    def game_of(self, game_id: str) -> str | None:
        """Which game ``game_id`` is ("tablanette"), None for an unknown id: what a caller
        checks a move against before :meth:`play_and_read`. A game's kind never changes, so
        it is kept once read (by any read of the game's row): one indexed read at most."""
        known = self._states.kind(game_id)
        if known is None:
            row = self._conn().execute("SELECT game FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                return None
            known = row[0]
            self._states.know(game_id, known)
        return known

    def undo(self, game_id: str, version: int, key: str | None = None) -> tuple[int, object]:
        """Undo the latest move in effect; return ``(new_version, state)``, as
        :meth:`undo_and_read` does."""
        game = self.undo_and_read(game_id, version, key)
        return game["version"], game["state"]

    def undo_and_read(self, game_id: str, version: int, key: str | None = None) -> dict:
        """Mark the latest move in effect undone and rebuild the state: from the latest
        snapshot in effect, replaying the moves in effect after it (fewer than
        ``SNAPSHOT_EVERY``), so undo costs the same at move 1,000 as at move 10.

        ``NothingToUndo`` (an ``IllegalMove``) when no move is in effect; ``Conflict``
        for a stale version. Returns the game after it, as :meth:`play_and_read` does (its
        ``before`` too: a caller needs no read before). The move keeps who undid it (the
        phone of ``key``, as in :meth:`play`) and when.
        """
        found = self._states.entry(game_id)
        with self._write(game_id) as conn:
            row, referee, prior = self._change(conn, game_id, found, version, key)
            rules = games.get(row["game"])
            last = row["last_in_effect"]
            if last is None:
                raise NothingToUndo("nothing_to_undo", "Nothing to undo: no move is in effect.")
            now = _now()
            conn.execute(
                "UPDATE moves SET undone = 1, undone_by = ?, undone_time = ? WHERE game_id = ? AND seq = ?",
                (referee, now, game_id, last),
            )
            state, base, kept = self._from_snapshot(conn, rules, row, last, last)
            for m in kept:
                state = rules.apply(state, json.loads(m["move"]))
            deals = self._keep_deals(conn, game_id, state, base, row["deals"])
            game = self._save(conn, rules, row, game_id, state, now, deals)
        self._states.put(game_id, game["version"], game["updated"], game["state"])
        return game | {"before": prior}

    def correct_and_read(
        self, game_id: str, version: int, corrections: dict[int, dict], key: str | None = None
    ) -> dict:
        """Correct entries of the log in place (RULES.md 5.1): each move in effect numbered
        in ``corrections`` is replaced by the move given for it, and every move in effect
        after the first of them is replayed on top. ``Stopped`` (the engine's, naming the
        first entry that no longer fits) when the log does not replay, and then nothing is
        written. Else one change, as a move is: the moves hold their new moves, words and
        snapshots; each replaced move is kept in ``corrections`` (what it held before and
        after, when, by which phone); the finished deals from the first correction on are
        written again, and a confirmed deal whose record changed is confirmed again. Checked
        as a move is (an unknown game, a key not in force, a stale version); ``NotFound``
        for an entry that is not a move in effect. Returns the game after it, as
        :meth:`play_and_read` does (its ``before`` too)."""
        found = self._states.entry(game_id)
        with self._write(game_id) as conn:
            row, referee, prior = self._change(conn, game_id, found, version, key)
            if not corrections:
                raise NotFound("No entry to correct")
            rules = games.get(row["game"])
            corrections = {n: _plain(m, InvalidMove, "move") for n, m in corrections.items()}
            first = min(corrections)
            state, base, rows = self._from_snapshot(conn, rules, row, first, 2**62)
            held = {m["seq"]: m for m in rows}
            if missing := sorted(set(corrections) - set(held)):
                raise NotFound(f"Entry {missing[0]} of {game_id!r} is not a move in effect")
            now, version_after = _now(), row["version"] + 1
            kept = base + len(state.history)  # deals finished before the first correction (so far)
            for seq, move, state in replay(
                rules.apply, state, ((m["seq"], json.loads(m["move"])) for m in rows), corrections
            ):
                if seq < first:
                    kept = base + len(state.history)
                    continue
                m = held[seq]
                said = _said_text(rules.narrate(state, move))
                snapshot = (
                    None if m["snapshot"] is None else _snapshot_text(rules.dump(state), base + len(state.history))
                )
                text = _dumps(move)
                if (text, said, snapshot) != (m["move"], m["said"], m["snapshot"]):
                    conn.execute(
                        "UPDATE moves SET move = ?, said = ?, snapshot = ? WHERE game_id = ? AND seq = ?",
                        (text, said, snapshot, game_id, seq),
                    )
                if seq in corrections:
                    conn.execute(
                        "INSERT INTO corrections (game_id, version, seq, time, referee, before, before_said, after, "
                        "after_said) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (game_id, version_after, seq, now, referee, m["move"], m["said"], text, said),
                    )
            stored = {
                n: r
                for n, r in conn.execute("SELECT n, record FROM deals WHERE game_id = ? AND n > ?", (game_id, kept))
            }
            conn.execute("DELETE FROM deals WHERE game_id = ? AND n > ?", (game_id, kept))
            deals = base + len(state.history)
            written = state.history[kept - base :]
            _add_deals(conn, game_id, written, kept + 1)
            changed = [n for n, r in enumerate(written, kept + 1) if stored.get(n) != _dump_state(r)]
            changed += [n for n in stored if n > deals]
            confirmed = row["confirmed"]
            if confirmed is not None and changed:  # a result the other side confirmed has changed
                confirmed = min(confirmed, min(changed) - 1)
            row = {**dict(row), "confirmed": confirmed}
            game = self._save(conn, rules, row, game_id, state, now, deals, rewrite=True)
        self._states.put(game_id, game["version"], game["updated"], game["state"])
        return game | {"before": prior}

    def position(self, game_id: str, seq: int, corrections: dict[int, dict] | None = None) -> tuple[object, int]:
        """The game before its move ``seq`` (a move in effect: ``NotFound`` otherwise), with
        ``corrections`` before it in place (RULES.md 5.1: ``Stopped`` if one no longer
        fits): its state and how many deals it had finished. Read only."""
        corrections = {n: m for n, m in (corrections or {}).items() if n < seq}
        with self._read() as conn:
            row = self._require(conn, game_id)
            rules = games.get(row["game"])
            start = min([seq, *corrections])
            state, base, rows = self._from_snapshot(conn, rules, row, start, seq + 1)
            if not rows or rows[-1]["seq"] != seq:
                raise NotFound(f"Entry {seq} of {game_id!r} is not a move in effect")
            entries = ((m["seq"], json.loads(m["move"])) for m in rows[:-1])
            for _seq, _move, state in replay(rules.apply, state, entries, corrections):
                pass
            return state, base + len(state.history)

    def corrections(self, game_id: str, first: int = 1, last: int | None = None) -> list[dict]:
        """The corrections of the moves numbered ``first`` to ``last``, in the order they
        were made: seq, time, referee (a phone's id or None), before and after (each a move
        and its words, ``*_said``)."""
        rows = self._conn().execute(
            "SELECT seq, time, referee, before, before_said, after, after_said FROM corrections "
            "WHERE game_id = ? AND seq >= ? AND seq <= ? ORDER BY version, seq",
            (game_id, first, 2**62 if last is None else last),
        )
        return [
            {
                "seq": r["seq"],
                "time": r["time"],
                "referee": r["referee"],
                "before": json.loads(r["before"]),
                "before_said": _said_read(r["before_said"]),
                "after": json.loads(r["after"]),
                "after_said": _said_read(r["after_said"]),
            }
            for r in rows
        ]

    def _from_snapshot(self, conn, rules, row, before: int, upto: int) -> tuple[Any, int, list]:
        """Where a replay of the moves in effect starts: the state after the latest of them
        before the move ``before`` that kept a snapshot (fewer than ``SNAPSHOT_EVERY``
        back), or the game's start if none did; the number of deals finished before its
        ``history``; and the moves in effect after it and before the move ``upto`` (seq,
        move, snapshot, said), in order. One read."""
        game_id = row["id"]
        rows = conn.execute(
            "SELECT seq, move, snapshot, said FROM moves WHERE game_id = ? AND undone = 0 AND seq < ? AND seq >= "
            "COALESCE((SELECT seq FROM moves WHERE game_id = ? AND snapshot IS NOT NULL AND undone = 0 "
            "AND seq < ? ORDER BY seq DESC LIMIT 1), 0) ORDER BY seq",
            (game_id, upto, game_id, before),
        ).fetchall()
        if rows and rows[0]["snapshot"] is not None and rows[0]["seq"] < before:
            snapshot = _load_state(rows[0]["snapshot"])
            state = rules.load(snapshot["state"])
            return state, snapshot["deals"] - len(snapshot["state"]["history"]), rows[1:]
        return rules.start(json.loads(row["players"]), json.loads(row["options"])), 0, rows

    def confirm(self, game_id: str, version: int) -> int:
        """The other side confirms every deal finished at ``version`` (what its phone showed):
        they count from now on. Returns how many are confirmed. ``Conflict`` if the game has
        changed since (a deal they did not see could be confirmed); ``NotFound`` if no
        confirmation was asked for this game."""
        found = self._states.entry(game_id)
        with self._write(game_id) as conn:
            row = self._read_for_change(conn, game_id, found).fetchone()
            if row is None:
                raise NotFound(f"No game {game_id!r}")
            self._check_version(row, version)
            if row["confirmed"] is None:
                raise NotFound(f"{game_id!r} asks for no confirmation")
            rules = games.get(row["game"])
            view = rules.view(self._state(row, found))
            confirmed = row["deals"]
            conn.execute("UPDATE games SET confirmed = ? WHERE id = ?", (confirmed, game_id))
            kept = (row["seats_deals"], row["seats_won"]) if row["seated"] else None
            _keep_figures(conn, rules, game_id, view, confirmed, confirmed, kept=kept, lock=self._lock_figures)
            return confirmed

    def moves(self, game_id: str, first: int = 1, last: int | None = None, latest: int | None = None) -> list[dict]:
        """Every stored move in order, undone ones included: seq, move, time, undone, and
        the audit trail: referee (the id of the phone that entered it, or None: imported,
        or stored before phones were recorded), imported, undone_by (a phone id or None)
        and undone_time (None when not undone, or undone before undos were recorded).

        Those numbered ``first`` to ``last`` only (a page of the log), or the ``latest``
        moves in effect (what a watcher sees): an indexed range, whatever the game's length.
        """
        conn = self._conn()
        self._require(conn, game_id)
        columns = "seq, move, time, undone, referee, imported, undone_by, undone_time, said"
        if latest is not None:
            rows = conn.execute(
                f"SELECT {columns} FROM moves WHERE game_id = ? AND undone = 0 ORDER BY seq DESC LIMIT ?",
                (game_id, latest),
            ).fetchall()[::-1]
        else:
            rows = conn.execute(
                f"SELECT {columns} FROM moves WHERE game_id = ? AND seq >= ? AND seq <= ? ORDER BY seq",
                (game_id, first, 2**62 if last is None else last),
            ).fetchall()
        return [
            {
                "seq": r["seq"],
                "move": json.loads(r["move"]),
                "time": r["time"],
                "undone": bool(r["undone"]),
                "referee": r["referee"],
                "imported": bool(r["imported"]),
                "undone_by": r["undone_by"],
                "undone_time": r["undone_time"],
                "said": _said_read(r["said"]),
            }
            for r in rows
        ]

    def move_count(self, game_id: str) -> int:
        """How many moves are stored, undone ones included (the log's length). One indexed read."""
        row = self._conn().execute("SELECT max(seq) FROM moves WHERE game_id = ?", (game_id,)).fetchone()
        return row[0] or 0

    def last_move(self, game_id: str) -> dict | None:
        """The latest move in effect (what Undo would take back) with its words as kept
        with it: ``{"move", "said"}`` (``said`` None for a move kept without words), or
        None. One indexed row."""
        row = (
            self._conn()
            .execute(
                "SELECT move, said FROM moves WHERE game_id = ? AND undone = 0 ORDER BY seq DESC LIMIT 1", (game_id,)
            )
            .fetchone()
        )
        return None if row is None else {"move": json.loads(row["move"]), "said": _said_read(row["said"])}

    def _change(self, conn, game_id: str, found: Entry | None, version: int, key: str | None) -> tuple[Row, Any, dict]:
        """How an undo or a correction starts, inside its transaction: the game's row (as
        :meth:`_read_for_change` reads it), the phone of ``key`` (``NotReferee`` if it is not
        in force; None without a key), the version checked (``Conflict``), and the game as
        it was before (``before``, as a change returns it)."""
        read = self._read_for_change(conn, game_id, found)
        referees = self._referees(conn, game_id) if key is not None else None
        row = read.fetchone()
        if row is None:
            raise NotFound(f"No game {game_id!r}")
        referee = self._device(conn, game_id, key, referees)
        self._check_version(row, version)
        prior = {"version": row["version"], "deals": row["deals"], "state": self._state(row, found, copy=False)}
        return row, referee, prior

    def _read_for_change(self, conn, game_id: str, found: Entry | None = None, entry: str | None = None):
        """What a change of the game reads, in one statement (a cursor: its row is None for
        an unknown game): the game's row, its ``state`` left out (NULL) when ``found``, the
        state this process keeps, is the row's; ``last_seq``, the latest move's number;
        ``last_in_effect``, the latest move in effect (None: none is); ``snapshot_seq``, the
        latest move in effect that kept a snapshot (0: none did); the figures its seats hold
        (``seated``, ``seats_deals``, ``seats_won``: :func:`_keep_figures`'s); and
        ``entered``, whether a move with the id ``entry`` is stored. Every part an indexed
        read of a few rows, whatever the game's length."""
        version, updated = (found.version, found.updated) if found is not None else (-1, "")
        return conn.execute(_CHANGE_READ, (version, updated, entry, game_id))

    def _state(self, row, found: Entry | None, copy: bool = True):
        """The game's state at ``row``: the one this process keeps (``found``) if it is the
        row's, else loaded from the row (and kept from now on)."""
        self._states.know(row["id"], row["game"])
        state = self._states.state(found, row, copy)
        if state is None:
            rules = games.get(row["game"])
            state = rules.load(_load_state(row["state"]))
            self._states.put(row["id"], row["version"], row["updated"], state)
        return state

    @staticmethod
    def _check_version(row, version) -> None:
        """``Conflict`` unless ``version`` is the game's current version (inside the write transaction)."""
        if isinstance(version, bool) or version != row["version"]:
            raise Conflict(row["version"], version)

    def _keep_deals(self, conn, game_id: str, state, base: int, stored: int) -> int:
        """Write the deals ``state`` finished that are not stored yet, and drop stored ones it
        has not (an undo); return how many it has. Its ``history`` starts at deal ``base + 1``
        (a state read back holds the last deal only); ``stored`` deals are kept so far."""
        count = base + len(state.history)
        if count < stored:
            conn.execute("DELETE FROM deals WHERE game_id = ? AND n > ?", (game_id, count))
        new = max(0, stored - base)  # the first record not stored yet
        _add_deals(conn, game_id, state.history[new:], base + new + 1)
        return count

    def _save(
        self, conn, rules, row: Row, game_id: str, state, now: str, deals: int, rewrite: bool = False, played: int = 0
    ) -> dict:
        """Write ``state`` (``deals`` finished) as the game's latest; return the game as :meth:`get`
        reads it, with its ``view`` (built once: the answer to the change shows it). The seats'
        figures are written again when a deal or the game ended or was undone, or always
        (``rewrite``: a correction may change any finished deal). ``played``: the seconds a
        new entry adds to the game's time played (:func:`~companion.store.rows._gap`)."""
        trimmed = dataclasses.replace(state, history=state.history[-1:])
        view = rules.view(trimmed)
        finished, status = _summary(view)
        # A confirmed deal undone is no longer confirmed: entered again, it is confirmed again.
        confirmed = None if row["confirmed"] is None else min(row["confirmed"], deals)
        text = _trimmed(rules.dump(state))
        version = row["version"] + 1
        # Conditional on the version read: the write lock already makes this the only writer,
        # and a version moved on meanwhile (by anything) would be no version at all, which
        # the column (NOT NULL) refuses, and the whole change with it. (Checked by the
        # database rather than by the rows written: on PostgreSQL the change's statements go
        # in together, and their counts come back only after the COMMIT went too.)
        conn.execute(
            "UPDATE games SET state = ?, version = CASE WHEN version = ? THEN ? END, updated = ?, finished = ?, "
            "status = ?, confirmed = ?, deals = ?, seconds_played = seconds_played + ? WHERE id = ?",
            (text, row["version"], version, now, finished, status, confirmed, deals, played, game_id),
        )
        kept = (row["seats_deals"], row["seats_won"]) if row["seated"] else None
        if rewrite and kept is not None:
            kept = (None, None)  # figures that match no game's: written again
        _keep_figures(conn, rules, game_id, view, deals, confirmed, kept=kept, lock=self._lock_figures)
        changed = {"version": version, "updated": now, "finished": finished, "status": status, "confirmed": confirmed}
        return _game_dict({**dict(row), **changed, "deals": deals}, state=trimmed) | {"view": view}


class Games(Changes):
    """Games: made, read, listed, archived, deleted, and as transcripts (written out and read in)."""

    def create(self, game: str, players, options=None) -> tuple[dict, str]:
        """Start a game; return its row (as :meth:`get`) and its edit key.

        The rules validate players and options (``OptionError`` propagates). The edit
        key is returned this once; only a salted hash of it is kept.
        """
        rules = games.get(game)
        players, options = _named(_plain(players, OptionError, "players"), _plain(options, OptionError, "options"))
        state = rules.start(players, options)
        key = secrets.token_urlsafe(16)
        with self._write() as conn:
            row = self._insert_game(conn, rules, game, players, options, state, key, version=0)
        self._states.put(row["id"], 0, row["updated"], row["state"])  # its first move reads no state
        return row, key

    def get(self, game_id: str, history: bool = False) -> dict | None:
        """The game, with its latest ``state`` loaded; ``None`` for an unknown id.

        One row is read and no move is replayed, however long the game. ``deals`` is how
        many deals are finished; the state's ``history`` holds the last of them only (all
        an engine reads of it), or every one with ``history=True`` (one more read).
        """
        conn = self._conn()
        found = self._states.entry(game_id)
        version, updated = (found.version, found.updated) if found is not None else (-1, "")
        row = conn.execute(_GAME_READ, (version, updated, game_id)).fetchone()
        if row is None:
            return None
        state = self._state(row, found)
        if history:
            state = dataclasses.replace(state, history=_finished_deals(conn, game_id))
        return _game_dict(row, state=state)

    def history(self, game_id: str) -> list[dict]:
        """Every finished deal's record, in order (what a view's ``history`` lists)."""
        return _finished_deals(self._conn(), game_id)

    def list_games(self, limit: int | None = None, ids=None) -> list[dict]:
        """Games newest first (by last change): id, game, players, created, updated,
        version, finished, status, archived. No state is loaded. ``ids`` limits the list
        to those games (the ones a phone knows); unknown ids are left out."""
        sql, params = f"SELECT {_LIST_COLUMNS} FROM games", []
        if ids is not None:
            ids = list(ids)
            sql += f" WHERE id IN ({', '.join('?' * len(ids))})"
            params += ids
        sql += " ORDER BY updated DESC, rowid DESC"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return [
            {
                **dict(r),
                "players": json.loads(r["players"]),
                "finished": bool(r["finished"]),
                "archived": bool(r["archived"]),
                "status": _status(r["status"]),
            }
            for r in self._conn().execute(sql, params)
        ]

    def transcript(self, game_id: str) -> dict:
        """The game as a transcript: the moves in effect, undone ones left out."""
        with self._read() as conn:  # the game row and its moves from the same snapshot
            return self._transcript(conn, game_id)

    def _transcript(self, conn, game_id: str) -> dict:
        """:meth:`transcript`, read on ``conn`` (inside a transaction of the caller's)."""
        row = self._require(conn, game_id)
        moves = [
            json.loads(m)
            for (m,) in conn.execute("SELECT move FROM moves WHERE game_id = ? AND undone = 0 ORDER BY seq", (game_id,))
        ]
        return {
            "format": TRANSCRIPT_FORMAT,
            "game": row["game"],
            "players": json.loads(row["players"]),
            "options": json.loads(row["options"]),
            "moves": moves,
        }

    def import_transcript(self, data) -> tuple[dict, str]:
        """Store a transcript as a new game; return its row and edit key.

        Every move is replayed first; the first one refused raises ``BadTranscript``
        naming it (1-based) with the engine's message, and nothing is stored.
        """
        if not isinstance(data, dict):
            raise BadTranscript("A transcript is a JSON object")
        if data.get("format") != TRANSCRIPT_FORMAT:
            raise BadTranscript(f"Not a transcript: 'format' must be {TRANSCRIPT_FORMAT!r}")
        missing = [k for k in ("game", "players", "moves") if k not in data]
        if missing:
            raise BadTranscript(f"The transcript has no {missing[0]!r}")
        moves = data["moves"]
        if not isinstance(moves, list):
            raise BadTranscript("The transcript's 'moves' must be a list")
        try:
            if not isinstance(data["game"], str):
                raise OptionError("transcript_game", "The transcript's 'game' must be a game's name")
            rules = games.get(data["game"])
            players, options = _named(
                _plain(data["players"], OptionError, "players"), _plain(data.get("options"), OptionError, "options")
            )
            state = rules.start(players, options)
        except OptionError as e:
            raise BadTranscript(f"The transcript's game can't be set up: {e}") from None
        plain, said = [], []
        for i, move in enumerate(moves, 1):
            try:
                move = _plain(move, InvalidMove, "move")
                state = rules.apply(state, move)
            except MoveError as e:
                raise BadTranscript(f"Move {i} of {len(moves)} is refused: {e}", index=i) from None
            plain.append(move)
            said.append(_said(rules, state, move))
        key = secrets.token_urlsafe(16)
        with self._write() as conn:
            row = self._insert_game(conn, rules, data["game"], players, options, state, key, version=len(plain))
            conn.executemany(
                "INSERT INTO moves (game_id, seq, move, time, undone, imported, said) VALUES (?, ?, ?, ?, 0, 1, ?)",
                [(row["id"], i, _dumps(m), row["created"], w) for i, (m, w) in enumerate(zip(plain, said), 1)],
            )
        return row, key

    def archive(self, game_id: str, archived: bool = True) -> None:
        """Hide the game from the lists (it stays reachable by its link), or show it again."""
        with self._write(game_id) as conn:
            self._require(conn, game_id)
            conn.execute("UPDATE games SET archived = ? WHERE id = ?", (int(archived), game_id))

    def delete(self, game_id: str) -> None:
        """Remove the game with its moves, referees and links, in one transaction."""
        with self._write(game_id) as conn:
            self._require(conn, game_id)
            self._lock_figures(conn)  # its seats leave their players' totals
            for table in ("corrections", "moves", "links", "referees", "seats", "deals"):
                conn.execute(f"DELETE FROM {table} WHERE game_id = ?", (game_id,))
            conn.execute("DELETE FROM games WHERE id = ?", (game_id,))
        self._states.drop(game_id)

    def _insert_game(self, conn, rules, game, players, options, state, key, version) -> dict:
        now = _now()
        view = rules.view(state)
        finished, status = _summary(view)
        row = {
            "game": game,
            "players": players,
            "options": options,
            "created": now,
            "updated": now,
            "version": version,
            "finished": bool(finished),
            "status": _status(status),
        }
        values = (
            game,
            _dumps(players),
            _dumps(options),
            now,
            now,
            version,
            _trimmed(rules.dump(state)),
            finished,
            status,
            len(state.history),
        )
        while True:
            game_id = secrets.token_urlsafe(9)  # 72 random bits; a clash is retried, not overwritten
            try:
                conn.execute(
                    "INSERT INTO games (id, game, players, options, created, updated, version, "
                    "state, finished, status, deals) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (game_id, *values),
                )
            except UNIQUE_VIOLATIONS:  # pragma: no cover - astronomically rare
                continue
            self._add_referee(conn, game_id, now, key)
            _seat_players(conn, game_id, view, now)
            deals = self._keep_deals(conn, game_id, state, 0, 0)
            _keep_figures(conn, rules, game_id, view, deals)
            trimmed = dataclasses.replace(state, history=state.history[-1:])
            return {"id": game_id, **row, "archived": False, "confirmed": None, "deals": deals, "state": trimmed}
