"""Each game's latest state, kept in this process (issue 34): a move on a game this worker
saw last neither reads nor parses the stored state (the JSON and the engine's ``load``
cost more than the rest of the read), and a page that reads the game again gets the state
without parsing it.

Correctness never depends on it: an entry is used only when the row read in the same
transaction (or the same read) has the entry's ``version`` *and* ``updated``, so a game
changed by another worker (another process, another server) is read from its row. The
version alone would not do: a restore can bring a game back to an older version, which
then grows again to the version an entry of another worker holds, with other moves;
``updated`` (a microsecond time, rewritten with every version) tells the two apart, and
survives a restore unchanged only with the state it was written with.

Entries are only put after their transaction committed, and the states handed out are
copies (:func:`~companion.games.common.copy_state`: an engine's state is a dataclass of
lists, and a caller may change what it gets): the cache's own state is never changed.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, NamedTuple

from companion.games.common import copy_state

#: Games kept per store (per worker process): the tables playing now, with room to spare.
SIZE = 512


class Entry(NamedTuple):
    """A game's state as its row at ``version`` (written at ``updated``) holds it."""

    version: int
    updated: str
    state: Any

    def matches(self, row) -> bool:
        return self.version == row["version"] and self.updated == row["updated"]


class StateCache:
    """The latest state of the ``size`` games used last, by game id (thread-safe: every
    change of the mapping holds a lock; an entry, once made, is never changed)."""

    def __init__(self, size: int = SIZE):
        self.size = size
        self._entries: OrderedDict[str, Entry] = OrderedDict()
        self._kinds: dict[str, str] = {}  # game id -> its game ("tute"), which never changes
        self._lock = threading.Lock()
        self.hits = self.misses = 0  # for tests and benchmarks

    def __len__(self) -> int:
        return len(self._entries)

    def entry(self, game_id: str) -> Entry | None:
        """The game's entry, if any (whatever its version: the caller compares it with the row)."""
        with self._lock:
            found = self._entries.get(game_id)
            if found is not None:
                self._entries.move_to_end(game_id)
            return found

    def state(self, found: Entry | None, row, copy: bool = True) -> Any | None:
        """``found``'s state if it is the state of ``row``, else None (counted): a copy, or
        (``copy=False``) the entry's own, for a caller that only gives it to the engine's
        ``apply``, which changes a copy (the engine contract) and keeps none of it."""
        if found is None or not found.matches(row):
            self.misses += 1
            return None
        self.hits += 1
        return copy_state(found.state) if copy else found.state

    def put(self, game_id: str, version: int, updated: str, state) -> None:
        """Keep ``state`` (a copy of it) as the game's state at ``version``/``updated``:
        call it once the transaction that wrote it has committed."""
        entry = Entry(version, updated, copy_state(state))
        with self._lock:
            self._entries[game_id] = entry
            self._entries.move_to_end(game_id)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def kind(self, game_id: str) -> str | None:
        """Which game ``game_id`` is, if a read of its row said so (``know``)."""
        return self._kinds.get(game_id)

    def know(self, game_id: str, game: str) -> None:
        """``game_id`` is a game of ``game``: a game's kind never changes (a caller that
        relies on it has the store check it in the change)."""
        if self._kinds.get(game_id) != game:
            with self._lock:
                if len(self._kinds) >= 8 * self.size:
                    self._kinds.clear()
                self._kinds[game_id] = game

    def drop(self, game_id: str | None = None) -> None:
        """Forget the game (deleted), or every game (``None``: the database was replaced)."""
        with self._lock:
            if game_id is None:
                self._entries.clear()
                self._kinds.clear()
            else:
                self._entries.pop(game_id, None)
                self._kinds.pop(game_id, None)
