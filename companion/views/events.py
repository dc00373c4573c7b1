"""The stream of a game's moves (issue 17): ``GET /games/<id>/events``, server-sent events.

A game page opens it (an ``EventSource``, static/app.js) and is told each new version
of the game as soon as it is stored, from any phone and any server process::

    retry: 500
    id: 7
    event: move
    data: 7

The page then fetches the board through its usual poll request (``play.live``, answered
204 when it already shows that version), so the board is rendered in one place. A
referee phone's stream also says when this phone stops being a referee (another phone
took the game over, or revoked the others), and ends::

    event: roles
    data: watch

and the page fetches the board as a watcher's (issue 31). The key is checked whenever
anything is committed (the hub stirs the stream), and every :data:`RECHECK` seconds
anyway (a PostgreSQL server notifies moves only). The
stream says nothing else but a comment now and then (a heartbeat); it ends after
:data:`LIFE` (the browser reconnects after ``retry`` milliseconds, with the last
version it was told as ``Last-Event-ID``, so no move is missed in between), and beyond
``PUSH_STREAMS`` open streams in this process it is answered 204 at once: the browser
then stops trying for a while and the page polls, as it does without a stream. Each open
stream holds a server thread, hence both bounds: moves always find a thread.

Reading it changes nothing; the versions come from the process's hub (companion/live.py).
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable

from flask import Blueprint, Response, current_app, request

from companion.live import Hub, Watch
from companion.views.common import referee_key, store

bp = Blueprint("events", __name__, url_prefix="/games/<game_id:game_id>")

#: How long a browser waits before reconnecting a stream that ended (milliseconds).
RETRY_MS = 500
#: A stream's life (seconds): then the browser reconnects, and the thread is free meanwhile.
LIFE = 25.0
#: A comment line this often (seconds) on a stream with nothing to say.
BEAT = 10.0
#: How often a referee phone's stream checks its key when nothing wakes it (seconds).
RECHECK = 3.0

#: What a referee phone's stream says when the phone stops being one.
ROLES_EVENT = b"event: roles\ndata: watch\n\n"


@bp.record_once
def _hub(state) -> None:
    app = state.app
    app.extensions["live"] = Hub(app.extensions["store"], limit=int(app.config["PUSH_STREAMS"]))


def hub() -> Hub:
    return current_app.extensions["live"]


@bp.after_app_request
def _nudge(response):
    """A write in this process (every change is a POST): the hub looks at once."""
    if request.method == "POST":
        hub().nudge()
    return response


@bp.get("/events")
def stream(game_id: str):
    version = store().version(game_id)
    if version is None:
        return "", 404, {"Cache-Control": "no-store"}
    key = referee_key(game_id)
    watch = hub().open(game_id, version, _socket(), stirs=key is not None)
    if watch is None:  # this process's streams are all taken: the page polls instead
        return "", 204, {"Cache-Control": "no-store"}
    kept = store()
    still = None if key is None else (lambda: kept.check_key(game_id, key))
    events = Events(hub(), watch, version, _told(), LIFE, BEAT, still)
    return Response(
        events,
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},  # no proxy holds it back
    )


def _told() -> int | None:
    """The version the phone last knew: the stream's last event id when the browser
    reconnects, else the version of the page that opened it."""
    for value in (request.headers.get("Last-Event-ID"), request.args.get("version")):
        if value and value.isascii() and value.isdigit() and len(value) <= 10:
            return int(value)
    return None


def _socket() -> socket.socket | None:
    """The phone's connection, for the hub to notice when it closes (plain sockets only)."""
    sock = request.environ.get("gunicorn.socket") or request.environ.get("werkzeug.socket")
    return sock if type(sock) is socket.socket else None


def move_event(version: int) -> bytes:
    return f"id: {version}\nevent: move\ndata: {version}\n\n".encode()


class Events:
    """The stream's body: an iterable of SSE lines whose ``close`` (called by the server
    however the stream ends, even before it started) gives its place back to the hub."""

    def __init__(
        self,
        hub: Hub,
        watch: Watch,
        version: int,
        told: int | None,
        life: float,
        beat: float,
        still_referee: Callable[[], bool] | None = None,
    ):
        """``still_referee``: for a referee phone's stream, whether its key still works."""
        self.hub, self.watch, self.version, self.told = hub, watch, version, told
        self.life, self.beat = life, beat
        self.still_referee = still_referee
        self._closed = False

    def __iter__(self):
        try:
            yield from self._events()
        finally:
            self.close()

    def _events(self):
        end = time.monotonic() + self.life
        seen = self.version
        # The version now: an event when the phone knows an older one (a move came while it
        # reconnected, or after its page was drawn), else just the id a reconnect sends back.
        first = move_event(seen) if self.told is not None and self.told != seen else f"id: {seen}\n\n".encode()
        yield f"retry: {RETRY_MS}\n".encode() + first
        beat = time.monotonic() + self.beat
        while True:
            now = time.monotonic()
            left = end - now
            if left <= 0 or self.watch.gone:
                return
            wait = min(beat - now, left, RECHECK if self.still_referee else left)
            version = self.hub.wait(self.watch, seen, max(wait, 0))
            if self.watch.gone:
                return
            if self.still_referee is not None and not self.still_referee():
                yield ROLES_EVENT  # this phone referees no more: the page turns into a watcher's
                return
            if version is not None:
                seen = version
                yield move_event(version)
            elif time.monotonic() >= beat and end - time.monotonic() > 0:
                yield b": \n\n"  # a heartbeat: keeps proxies from closing an idle stream
            if time.monotonic() >= beat:
                beat = time.monotonic() + self.beat

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.hub.close(self.watch)
