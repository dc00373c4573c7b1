"""Who may change a game: its referee phones (each its own key, kept hashed; a hand-over
or "revoke" marks rows revoked, never deletes them) and one-use links that add a referee,
hand the game over, or let the other side confirm its deals (only a token's hash is kept)."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta, timezone

from companion.store.base import Base
from companion.store.errors import LinkUsedUp, NotFound, NotReferee
from companion.store.rows import LINK_KINDS, Row, _hash_key, _key_matches, _now, _stamp, _token_hash


class Access(Base):
    """Referee phones, keys and one-use links."""

    def check_key(self, game_id: str, key) -> bool:
        """Whether ``key`` is one of the game's referee keys still in force (False for an unknown game)."""
        return self.referee_id(game_id, key) is not None

    def referee_id(self, game_id: str, key) -> str | None:
        """The id of the referee phone whose key this is, if it is in force: what the move
        log records as the phone that entered a move (the key itself is never stored)."""
        return self._referee(self._conn(), game_id, key)

    def phone_numbers(self, game_id: str) -> dict[str, int]:
        """The game's referee phones numbered 1, 2, ... in the order they became referees
        (1 created the game), revoked ones included: ``{referee id: number}``."""
        rows = (
            self._conn()
            .execute("SELECT id FROM referees WHERE game_id = ? ORDER BY created, rowid", (game_id,))
            .fetchall()
        )
        return {row["id"]: number for number, row in enumerate(rows, 1)}

    def referees(self, game_id: str) -> int:
        """How many referee keys of the game are in force."""
        return (
            self._conn()
            .execute("SELECT COUNT(*) FROM referees WHERE game_id = ? AND revoked IS NULL", (game_id,))
            .fetchone()[0]
        )

    def make_link(self, game_id: str, kind: str, minutes: float = 10) -> str:
        """A one-use token for an "add a referee" or "hand over" link, good for ``minutes``.

        Only its hash is kept; the token goes in the link (it is single-use and expires,
        so an access log that records it records nothing that still works).
        """
        if kind not in LINK_KINDS:
            raise ValueError(f"kind must be one of {LINK_KINDS}")
        token = secrets.token_urlsafe(16)
        now = datetime.now(timezone.utc)
        with self._write(game_id) as conn:
            self._require(conn, game_id)
            conn.execute(
                "INSERT INTO links (token_hash, game_id, kind, created, expires) VALUES (?, ?, ?, ?, ?)",
                (_token_hash(token), game_id, kind, _stamp(now), _stamp(now + timedelta(minutes=minutes))),
            )
            if kind == "confirm":  # from now on a deal counts once the other side confirms it
                row = self._require(conn, game_id)
                if row["confirmed"] is None:
                    conn.execute("UPDATE games SET confirmed = ? WHERE id = ?", (row["deals"], game_id))
        return token

    def link_kind(self, game_id: str, token) -> str:
        """What the link does ("add", "handover" or "confirm"); ``LinkUsedUp`` if it no longer works."""
        return self._usable_link(self._conn(), game_id, token)["kind"]

    def redeem_link(self, game_id: str, token) -> tuple[str, str | None]:
        """Use the link once: return its kind and a new referee key for the phone that
        opened it, or None for a confirm link (that phone confirms deals for the other side;
        the session remembers it, as it remembers a referee's key).

        A hand-over link also revokes every other key of the game and every other
        unused link (the old referee stops being one). ``LinkUsedUp`` otherwise.
        """
        with self._write(game_id) as conn:
            link = self._usable_link(conn, game_id, token)
            now = _now()
            conn.execute("UPDATE links SET used = ? WHERE token_hash = ?", (now, link["token_hash"]))
            if link["kind"] == "confirm":
                return link["kind"], None
            if link["kind"] == "handover":
                self._revoke_all(conn, game_id, now)
            return link["kind"], self._add_referee(conn, game_id, now)

    def rotate_key(self, game_id: str, key) -> str:
        """Revoke every other referee of the game and every unused link, and replace the
        caller's key (the old one stops working); return the new key. The caller stays
        the same phone in the move log (its ``referees`` row is kept, with the new key's
        hash). ``NotFound`` unless ``key`` is in force."""
        with self._write(game_id) as conn:
            me = self._referee(conn, game_id, key)
            if me is None:
                raise NotFound(f"{game_id!r} has no referee with that key")
            self._revoke_all(conn, game_id, _now(), keep=me)
            new_key = secrets.token_urlsafe(16)
            conn.execute("UPDATE referees SET key_hash = ? WHERE id = ?", (_hash_key(new_key), me))
            return new_key

    def _referee(self, conn, game_id: str, key, rows=None) -> str | None:
        """The id of the referee whose key this is, if it is in force (among ``rows``, the
        game's :meth:`_referees` read already, when given)."""
        if not isinstance(key, str) or not key:
            return None
        for row in self._referees(conn, game_id) if rows is None else rows:
            if _key_matches(row["key_hash"], key):
                return row["id"]
        return None

    def _referees(self, conn, game_id: str):
        """The game's referees in force (a cursor: on PostgreSQL a change sends this with the
        change's other reads, and the rows are there when first read)."""
        return conn.execute("SELECT id, key_hash FROM referees WHERE game_id = ? AND revoked IS NULL", (game_id,))

    def _device(self, conn, game_id: str, key: str | None, rows=None) -> str | None:
        """The phone a change is recorded against: None without a key, else the id of the
        referee whose key it is; ``NotReferee`` if it is not in force (revoked since the
        view checked it). One indexed read of the game's referee rows (``rows``, when the
        caller sent it already)."""
        if key is None:
            return None
        referee = self._referee(conn, game_id, key, rows)
        if referee is None:
            raise NotReferee("This phone is no longer a referee of this game.")
        return referee

    def _add_referee(self, conn, game_id: str, now: str, key: str | None = None) -> str:
        """A new referee row; return its key (a fresh one unless given)."""
        key = key or secrets.token_urlsafe(16)
        conn.execute(
            "INSERT INTO referees (id, game_id, key_hash, created) VALUES (?, ?, ?, ?)",
            (secrets.token_urlsafe(6), game_id, _hash_key(key), now),
        )
        return key

    def _revoke_all(self, conn, game_id: str, now: str, keep: str | None = None) -> None:
        """Revoke the game's referees (all but ``keep``) and its unused links."""
        conn.execute(
            "UPDATE referees SET revoked = ? WHERE game_id = ? AND revoked IS NULL AND id IS DISTINCT FROM ?",
            (now, game_id, keep),
        )
        conn.execute("DELETE FROM links WHERE game_id = ? AND used IS NULL", (game_id,))

    def _usable_link(self, conn, game_id: str, token) -> Row:
        row = None
        if isinstance(token, str) and token:
            row = conn.execute(
                "SELECT token_hash, kind, expires, used FROM links WHERE token_hash = ? AND game_id = ?",
                (_token_hash(token), game_id),
            ).fetchone()
        if row is None or row["used"] is not None or row["expires"] <= _now():
            raise LinkUsedUp("This link has expired or was already used.")
        return row
