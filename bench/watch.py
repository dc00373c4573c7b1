"""A watcher's latency (issue 17): from a referee's move to another phone knowing it.

Starts the server `make run` starts (gunicorn, 2 workers x 8 threads) on 127.0.0.1 and
opens a game's stream of server-sent events as a watching phone's page does. Then enters
MOVES moves through the JSON API, a tap's random pause apart, and times each from sending
its POST to the watcher receiving the event, and to the watcher having fetched the new
board fragment as the page does on the event (``GET /games/<id>/live?version=<shown>``).
Half the moves go to the worker process holding the stream (its hub is woken at once),
half to the other one (its writes are seen at the hub's next 50 ms tick: companion/live.py).
Also measured: the trivial endpoint in the same run, and the CPU the server uses idle with
one stream open, against idle with none.

Goal: watcher latency under 200 ms median.
"""

from __future__ import annotations

import http.client
import json
import random
import statistics
import tempfile
import threading
import time

import psutil
from server import gunicorn, legal_moves, new_game, timed

from companion import serve

MOVES = 100
GOAL_MS = 200
IDLE_SECONDS = 5.0


class Watcher(threading.Thread):
    """A watching phone: its page's stream, read line by line, and on each move the board
    fetched over its own keep-alive connection. ``seen[version]`` is when the event came,
    ``board[version]`` when the fragment had arrived (``time.perf_counter()``)."""

    def __init__(self, host: str, port: int, game_id: str):
        super().__init__(daemon=True)
        self.host, self.port, self.game_id = host, port, game_id
        self.seen: dict[int, float] = {}
        self.board: dict[int, float] = {}
        self.shown = 0
        self.last_id: str | None = None
        self.reconnects = 0
        self.stop = False
        self.arrived = threading.Condition()
        self.stream = http.client.HTTPConnection(host, port, timeout=60)
        self.fetch = http.client.HTTPConnection(host, port, timeout=30)
        self.response = self._connect()

    def _connect(self) -> http.client.HTTPResponse:
        headers = {"Accept": "text/event-stream"}
        if self.last_id is not None:
            headers["Last-Event-ID"] = self.last_id
        self.stream.request("GET", f"/games/{self.game_id}/events?version={self.shown}", headers=headers)
        response = self.stream.getresponse()
        assert response.status == 200, f"stream answered {response.status} (the streams are all taken?)"
        return response

    @property
    def local_port(self) -> int:
        assert self.stream.sock is not None
        return self.stream.sock.getsockname()[1]

    def run(self) -> None:
        event = data = None
        while not self.stop:
            try:
                line = self.response.readline()
            except (OSError, ValueError, AttributeError, http.client.HTTPException):
                return  # closed by close()
            if not line:  # the stream's bound: reconnect, as EventSource does
                if self.stop:
                    return
                self.reconnects += 1
                self.stream.close()
                self.response = self._connect()
                continue
            text = line.decode().rstrip("\n")
            if text.startswith("id: "):
                self.last_id = text[4:]
            elif text.startswith("event: "):
                event = text[7:]
            elif text.startswith("data: "):
                data = text[6:]
            elif text == "" and event == "move" and data is not None:
                self._moved(int(data))
                event = data = None

    def _moved(self, version: int) -> None:
        now = time.perf_counter()
        with self.arrived:
            self.seen.setdefault(version, now)
        if version > self.shown:  # the page fetches the board it does not show yet
            path = f"/games/{self.game_id}/live?version={self.shown}"
            try:
                status = timed(self.fetch, "GET", path, None, {"HX-Request": "true"})[1]
            except (OSError, http.client.HTTPException):  # the server closed the idle keep-alive
                self.fetch.close()
                status = timed(self.fetch, "GET", path, None, {"HX-Request": "true"})[1]
            assert status == 200, status
            self.shown = version
            with self.arrived:
                self.board[version] = time.perf_counter()
        with self.arrived:
            self.arrived.notify_all()

    def wait_for(self, version: int, timeout: float = 10) -> None:
        with self.arrived:
            assert self.arrived.wait_for(lambda: version in self.board, timeout), f"no event for version {version}"

    def close(self) -> None:
        self.stop = True
        self.response.close()
        self.stream.close()
        self.fetch.close()


def worker_of(server_pid: int, client_port: int) -> int | None:
    """The gunicorn worker holding the other end of our connection from ``client_port``."""
    for worker in psutil.Process(server_pid).children():
        for c in worker.net_connections(kind="tcp"):
            if c.raddr and c.raddr.port == client_port:
                return worker.pid
    return None


def server_pid_of(port: int) -> int:
    """The gunicorn master listening on ``port`` (the workers are its children)."""
    for proc in psutil.process_iter(["cmdline"]):
        if "gunicorn" in " ".join(proc.info["cmdline"] or []) and proc.children():
            try:
                if any(c.laddr.port == port and c.status == psutil.CONN_LISTEN for c in proc.net_connections("tcp")):
                    return proc.pid
            except psutil.Error:
                continue
    raise RuntimeError("gunicorn not found")


def cpu_seconds(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        t = psutil.Process(pid).cpu_times()
        total += t.user + t.system
    return total


def idle_cpu(pids: list[int], seconds: float) -> float:
    """The CPU the server's processes used over ``seconds``, in ms per second."""
    before = cpu_seconds(pids)
    time.sleep(seconds)
    return (cpu_seconds(pids) - before) / seconds * 1000


def connection_to(host: str, port: int, server: int, want) -> http.client.HTTPConnection | None:
    """A keep-alive connection that a worker for which ``want(pid)`` holds accepted (the
    workers take connections as they come: a few tries), or None."""
    for _ in range(40):
        conn = http.client.HTTPConnection(host, port, timeout=30)
        timed(conn, "GET", "/healthz")
        assert conn.sock is not None
        if want(worker_of(server, conn.sock.getsockname()[1])):
            return conn
        conn.close()
    return None


def enter(conn, game_id: str, headers: dict, moves: list[dict], first: int, watcher: Watcher, rng) -> list[float]:
    """Enter ``moves`` from version ``first``, a tap's pause apart; each one's latencies."""
    latencies = []
    for version, move in enumerate(moves, start=first):
        time.sleep(rng.uniform(0, 0.1))  # taps come at any moment, not in step with the hub's tick
        body = json.dumps({"version": version, "move": move})
        sent = time.perf_counter()
        _, status, data = timed(conn, "POST", f"/api/games/{game_id}/moves", body, headers)
        assert status == 200, (status, data[:300])
        watcher.wait_for(version + 1)
        latencies.append((watcher.seen[version + 1] - sent, watcher.board[version + 1] - sent))
    return latencies


def main() -> None:
    rng = random.Random(17)
    moves = legal_moves(MOVES)
    half = MOVES // 2
    results: dict[str, list] = {}
    with tempfile.TemporaryDirectory() as tmp, gunicorn(tmp) as conn:  # nothing written into the checkout
        host, port = conn.host, conn.port
        server = server_pid_of(port)
        pids = [server] + [c.pid for c in psutil.Process(server).children()]
        trivial = [timed(conn, "GET", "/healthz")[0] for _ in range(300)]
        game, headers = new_game(conn)
        game_id = game["id"]
        idle_none = idle_cpu(pids, IDLE_SECONDS)
        watcher = Watcher(host, port, game_id)  # its stream is open once this returns
        idle_one = idle_cpu(pids, IDLE_SECONDS)
        streaming = worker_of(server, watcher.local_port)
        watcher.start()
        try:
            # Half the moves stored by the worker holding the stream (woken at once), half
            # by the other one (seen at the hub's next 50 ms tick).
            for where, same in (("the process holding the stream", True), ("the other process", False)):
                poster = connection_to(host, port, server, lambda pid: (pid == streaming) == same)
                if poster is None:
                    print(f" (no connection to {where} in 40 tries: not measured)")
                    continue
                first = len(watcher.board)
                results[where] = enter(poster, game_id, headers, moves[first : first + half], first, watcher, rng)
                poster.close()
        finally:
            watcher.close()  # before the server stops: it waits for open requests

    def line(label: str, xs: list[float], goal: str = "") -> None:
        median, p95 = statistics.median(xs) * 1000, sorted(xs)[int(len(xs) * 0.95)] * 1000
        print(f"  {label:<38} median {median:7.2f} ms  p95 {p95:7.2f} ms{goal}")

    print(
        f"gunicorn as make run starts it ({serve.WORKERS} workers x {serve.THREADS} threads), 127.0.0.1; "
        f"one watcher's stream; {MOVES} moves through the JSON API, each timed from sending its POST"
    )
    line("trivial GET /healthz (same run)", trivial)
    for where, latencies in results.items():
        median = statistics.median(e for e, _ in latencies) * 1000
        verdict = f"   goal under {GOAL_MS}: {'met' if median < GOAL_MS else 'NOT MET'}"
        print(f" {len(latencies)} moves stored by {where}")
        line("move -> watcher has the event", [e for e, _ in latencies], verdict)
        line("move -> watcher has the new board", [b for _, b in latencies])
    print(f" (the stream reconnected {watcher.reconnects} times)")
    print(f"Goal: watcher latency under {GOAL_MS} ms median.")
    print(
        f"Idle server CPU over {IDLE_SECONDS:.0f} s (master + workers; psutil counts 10 ms ticks): "
        f"{idle_none:.1f} ms/s with no stream open, {idle_one:.1f} ms/s with one stream open on an idle game "
        f"({idle_one / 10:.2f}% of a core)"
    )


if __name__ == "__main__":
    main()
