"""Moves pushed to the other phones (issue 17): one hub per server process.

Every game page keeps one stream of server-sent events open (views/events.py), and each
stream waits here for its game's version to grow. No stream asks the database itself: the
hub has one thread, running only while at least one stream is open, that asks SQLite every
``interval`` (50 ms) whether any connection has committed since it last asked (``PRAGMA
data_version`` on the hub's own read connection, answered from shared memory), and only
when one has, reads the versions of the games being watched in one query and wakes the
streams whose game moved. The other worker processes' writes are seen that way; a write
made in this process wakes the thread at once (:meth:`Hub.nudge`). So an idle server with
no stream open runs no thread and asks nothing; an idle game being watched costs one pragma
per 50 ms per process, however many phones watch it.

Each stream holds a server thread, so the streams a process keeps open are capped
(:meth:`Hub.open` says no beyond ``limit``, and the page falls back to polling), and the
same tick notices a phone that went away (its socket closed), so its thread is given back
at once rather than when its stream would have ended.

On PostgreSQL (several app servers on one database) the question is asked of a listening
connection instead: every change of a game's version notifies ``companion_games`` (a
trigger, so whichever server wrote it), and the hub's tick takes the notifications the
connection has received, without a round trip; only then does it read the versions.
"""

from __future__ import annotations

import logging
import os
import select
import socket
import threading

from companion.store import UNAVAILABLE, SqliteWatcher

log = logging.getLogger(__name__)

#: How often the hub's thread asks SQLite whether anything was committed (seconds).
INTERVAL = 0.05
#: The longest pause between two tries while the database can't be read (seconds): the pause
#: doubles from INTERVAL up to it, so the streams hear again within it of the database's return.
PATIENCE = 1.0


class Watch:
    """One open stream: the game it watches, the phone's socket (when the server gives it
    one), and whether the phone went away. ``stirs``: the stream also wants to wake when
    anything at all was committed (a referee phone's stream checks that its key still
    works: a hand-over or a revoke writes no move); ``stirred`` says that happened."""

    __slots__ = ("game_id", "sock", "gone", "stirs", "stirred")

    def __init__(self, game_id: str, sock: socket.socket | None = None, stirs: bool = False):
        self.game_id = game_id
        self.sock = sock
        self.gone = False
        self.stirs = stirs
        self.stirred = False


class Hub:
    """The process's streams and the versions of the games they watch.

    >>> import tempfile, os
    >>> from companion.store import SqliteStore
    >>> path = os.path.join(tempfile.mkdtemp(), "hub.db")
    >>> store = SqliteStore(path)
    >>> row, key = store.create("hundred", ["Ann", "Ben"])
    >>> hub = Hub(path, limit=1)
    >>> watch = hub.open(row["id"], 0)
    >>> hub.open(row["id"], 0) is None  # over the limit: that page polls
    True
    >>> _ = store.play(row["id"], 0, {"type": "play", "card": "5C"}, key=key)
    >>> hub.wait(watch, 0, timeout=5)
    1
    >>> hub.close(watch); hub.streams
    0
    """

    def __init__(self, source, limit: int = 4, interval: float = INTERVAL):
        """``source``: the store (its ``watcher()`` says what was committed: SQLite's
        ``data_version``, PostgreSQL's notifications), or an SQLite file's path."""
        self.watcher = source.watcher if hasattr(source, "watcher") else lambda: SqliteWatcher(os.fspath(source))
        self.limit = limit
        self.interval = interval
        #: How many times the thread asked whether anything was committed, and how many
        #: times it then read the versions (tests and bench/watch.py read them).
        self.looks = self.reads = 0
        self._reset()

    def _reset(self) -> None:
        self._pid = os.getpid()
        self._lock = threading.Condition()
        self._watches: set[Watch] = set()
        self._versions: dict[str, int] = {}
        self._fresh = False  # a game newly watched: read the versions even if nothing was committed
        self._stir = False  # a write in this process: stir the streams that want it at the next tick
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def streams(self) -> int:
        return len(self._watches)

    @property
    def running(self) -> bool:
        """Whether the hub's thread is running (only while a stream is open)."""
        return self._thread is not None

    def open(self, game_id: str, version: int, sock: socket.socket | None = None, stirs: bool = False) -> Watch | None:
        """A stream of ``game_id``, which its opener read at ``version``; None when this
        process already holds ``limit`` streams. ``stirs``: see :class:`Watch`."""
        with self._lock:
            if os.getpid() != self._pid:  # forked: nothing of the parent's streams is ours
                self._reset()
            if len(self._watches) >= self.limit:
                return None
            watch = Watch(game_id, sock, stirs)
            self._watches.add(watch)
            self._versions[game_id] = max(version, self._versions.get(game_id, version))
            self._fresh = True
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="companion-live", daemon=True)
                self._thread.start()
        self._wake.set()
        return watch

    def close(self, watch: Watch) -> None:
        """The stream ended; the thread stops by itself once no stream is left."""
        with self._lock:
            self._watches.discard(watch)
            if not any(w.game_id == watch.game_id for w in self._watches):
                self._versions.pop(watch.game_id, None)

    def wait(self, watch: Watch, seen: int, timeout: float) -> int | None:
        """Block until the watched game is past version ``seen`` (its version), the phone
        has gone, a stream that ``stirs`` was stirred, or ``timeout`` seconds have passed
        (None but for the version)."""
        with self._lock:

            def moved() -> bool:
                return watch.gone or watch.stirred or self._versions.get(watch.game_id, seen) > seen

            self._lock.wait_for(moved, timeout)
            watch.stirred = False
            version = self._versions.get(watch.game_id, seen)
            return version if version > seen and not watch.gone else None

    def nudge(self) -> None:
        """Something was just written in this process: look now rather than at the next
        tick, and stir the streams that want it (on PostgreSQL only a move is notified)."""
        if self._thread is not None:
            self._stir = True
            self._wake.set()

    # -- the thread ---------------------------------------------------------------
    def _run(self) -> None:
        conn, failing = None, 0  # failing: the ticks in a row that could not read the database
        while True:
            with self._lock:
                if not self._watches:
                    self._thread = None
                    break
                ids = sorted({w.game_id for w in self._watches})
                socks = [w for w in self._watches if w.sock is not None and not w.gone]
                fresh, self._fresh = self._fresh, False
                stir, self._stir = self._stir, False
            rows: list[tuple[str, int]] = []
            try:
                conn = conn or self.watcher()
                self.looks += 1
                if conn.changed() or fresh:
                    stir = True
                    rows = self._versions_of(conn, ids)
            except UNAVAILABLE as e:  # the database is busy or gone: said once, tried again, backing off
                if not failing:
                    log.warning("Live updates can't read the database (%s); trying again until it answers", e)
                failing += 1
                if conn is not None:
                    try:
                        conn.close()
                    except Exception:  # pragma: no cover - it is gone already
                        pass
                conn, self._fresh = None, True
            else:
                failing = 0
            gone = _departed(socks)
            if rows or gone or stir:
                self._tell(rows, gone, stir)
            self._wake.wait(min(self.interval * 2 ** min(failing, 16), PATIENCE))
            self._wake.clear()
        if conn is not None:
            conn.close()

    def _versions_of(self, conn, ids: list[str]) -> list[tuple[str, int]]:
        """The watched games' versions, in one query."""
        self.reads += 1
        return conn.versions(ids)

    def _tell(self, rows: list[tuple[str, int]], gone: list[Watch], stir: bool = False) -> None:
        """Wake the streams: their game moved on (a version only grows), their phone left,
        or (``stir``) something was committed, for the streams that want to know."""
        with self._lock:
            for game_id, version in rows:
                if game_id in self._versions and version > self._versions[game_id]:
                    self._versions[game_id] = version
            for watch in gone:
                watch.gone = True
            if stir:
                for watch in self._watches:
                    watch.stirred = watch.stirs
            self._lock.notify_all()


def _departed(watches: list[Watch]) -> list[Watch]:
    """The watches whose phone closed its end of the connection (one system call for all
    of them; a socket only says so when it turns readable)."""
    if not watches:
        return []
    poller = select.poll()
    by_fd = {}
    for watch in watches:
        try:
            fd = watch.sock.fileno() if watch.sock is not None else -1
        except OSError:
            fd = -1
        if fd < 0:
            continue
        by_fd[fd] = watch
        poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    gone = []
    for fd, events in poller.poll(0):
        watch = by_fd[fd]
        if events & (select.POLLHUP | select.POLLERR | select.POLLNVAL):
            gone.append(watch)
            continue
        try:
            assert watch.sock is not None
            if watch.sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b"":
                gone.append(watch)  # the phone closed the connection
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            gone.append(watch)
    return gone
