"""The real server, measured (DESIGN.md quality bar): a move through gunicorn on loopback
costs at most 2.5 times a trivial endpoint of the same app, and the same at move 1,000
as at move 10. Run by `make bench`; it starts and stops its own gunicorn on 127.0.0.1,
twice: with SQLite's synchronous=NORMAL (the default) and with COMPANION_SYNCHRONOUS=FULL,
each move's cost a ratio to the trivial endpoint of the same run.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import socket
import statistics
import subprocess
import tempfile
import time
from contextlib import contextmanager

import psutil

from companion import serve
from companion.cards import PACK_52
from companion.games import tablanette

MOVES = 1000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def legal_moves(count: int, seed: int = 7) -> list[dict]:
    """A long legal Tablanette game (target out of reach), every capture spelled out."""
    rng = random.Random(seed)
    state = tablanette.start(["Ann", "Ben"], {"target": 10**6})
    moves: list[dict] = []
    while len(moves) < count:
        deck = [str(c) for c in PACK_52]
        rng.shuffle(deck)
        layout = [c for c in deck if c[0] != "J"][:4]
        rest = [c for c in deck if c not in layout]
        batch = [{"type": "layout", "cards": layout}]
        state = tablanette.apply(state, batch[0])
        for card in rest:
            outcome = rng.choice(tablanette.capture_options(card, state.table, state.options))
            move = {"type": "play", "card": card, "capture": outcome.sorted_cards()}
            state = tablanette.apply(state, move)
            batch.append(move)
        moves += batch
    return moves[:count]


def timed(conn, method, path, body=None, headers=None) -> tuple[float, int, bytes]:
    start = time.perf_counter()
    conn.request(method, path, body=body, headers=headers or {})
    response = conn.getresponse()
    data = response.read()
    return time.perf_counter() - start, response.status, data


def filesystem(path: str) -> str:
    """The file system ``path`` is on: what FULL's cost depends on (an fsync on tmpfs is free)."""
    mounts = [p for p in psutil.disk_partitions(all=True) if path.startswith(p.mountpoint)]
    return max(mounts, key=lambda p: len(p.mountpoint)).fstype if mounts else "?"


@contextmanager
def gunicorn(instance: str, **settings: str):
    """The server `make run` starts, bound to loopback, on the instance folder ``instance``
    with ``COMPANION_*`` ``settings``; yields a keep-alive connection to it once it answers,
    and stops it."""
    env = {**os.environ, "COMPANION_INSTANCE_PATH": instance, **settings}
    port = free_port()
    server = subprocess.Popen(serve.gunicorn_command("127.0.0.1", port, log_level="warning"), env=env)
    try:
        for _ in range(100):
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                conn.request("GET", "/healthz")
                conn.getresponse().read()
                break
            except OSError:
                time.sleep(0.1)
        yield conn
    finally:
        server.terminate()
        server.wait(timeout=10)


def new_game(conn) -> tuple[dict, dict]:
    """A Tablanette game whose target is out of reach, and the headers that change it."""
    body = json.dumps({"game": "tablanette", "players": ["Ann", "Ben"], "options": {"target": 10**6}})
    _, status, data = timed(conn, "POST", "/api/games", body, {"Content-Type": "application/json"})
    assert status == 201, (status, data[:300])
    game = json.loads(data)
    return game, {"Content-Type": "application/json", "X-Edit-Key": game["edit_key"]}


def play(conn, game_id: str, headers: dict, moves: list[dict]) -> list[float]:
    """Enter ``moves`` from version 0; each one's cost."""
    costs = []
    for version, move in enumerate(moves):
        body = json.dumps({"version": version, "move": move})
        elapsed, status, data = timed(conn, "POST", f"/api/games/{game_id}/moves", body, headers)
        assert status == 200, (status, data[:300])
        costs.append(elapsed)
    return costs


def undo_costs(conn, game_id: str, headers: dict, version: int, last: dict, times: int = 30) -> list[float]:
    """Undo the last move and enter it again, ``times`` times: each undo's cost."""
    costs = []
    for _ in range(times):
        body = json.dumps({"version": version})
        elapsed, status, data = timed(conn, "POST", f"/api/games/{game_id}/undo", body, headers)
        assert status == 200, (status, data[:300])
        costs.append(elapsed)
        body = json.dumps({"version": version + 1, "move": last})
        assert timed(conn, "POST", f"/api/games/{game_id}/moves", body, headers)[1] == 200
        version += 2
    return costs


def run(synchronous: str, moves: list[dict]) -> tuple[dict[str, list[float]], str]:
    """Start the server `make run` starts, bound to loopback, with ``COMPANION_SYNCHRONOUS``
    set, on a fresh instance folder; time the trivial endpoint, every move of one game and
    reads of it; stop the server. Returns the timings and the database's file system."""
    with tempfile.TemporaryDirectory() as tmp:  # nothing written into the checkout
        with gunicorn(tmp, COMPANION_SYNCHRONOUS=synchronous) as conn:
            trivial = [timed(conn, "GET", "/healthz")[0] for _ in range(300)]
            game, headers = new_game(conn)
            costs = play(conn, game["id"], headers, moves)
            undo_late = undo_costs(conn, game["id"], headers, len(moves), moves[-1])
            short, short_headers = new_game(conn)
            play(conn, short["id"], short_headers, moves[:10])
            undo_early = undo_costs(conn, short["id"], short_headers, 10, moves[9])
            reads = [timed(conn, "GET", f"/api/games/{game['id']}")[0] for _ in range(100)]
            where = filesystem(tmp)
    return {"trivial": trivial, "moves": costs, "reads": reads, "undo10": undo_early, "undo_late": undo_late}, where


def main() -> None:
    moves = legal_moves(MOVES)
    # The default first, then FULL (COMPANION_SYNCHRONOUS=FULL): each against its own /healthz.
    runs, where = {}, ""
    for synchronous in ("NORMAL", "FULL"):
        runs[synchronous], where = run(synchronous, moves)

    def line(label: str, xs: list[float], base: float | None = None, bar: str = "") -> None:
        ratio = f"   ratio {statistics.median(xs) / base:4.2f}{bar}" if base else ""
        median, p95 = statistics.median(xs) * 1000, sorted(xs)[int(len(xs) * 0.95)] * 1000
        print(f"  {label:<27} median {median:6.2f} ms  p95 {p95:6.2f} ms{ratio}")

    print(
        f"gunicorn as make run starts it ({serve.WORKERS} workers x {serve.THREADS} threads), 127.0.0.1, "
        f"one keep-alive client, {MOVES} moves, database on {where}"
    )
    for synchronous, r in runs.items():
        base = statistics.median(r["trivial"])
        bar = " (bar 2.5)" if synchronous == "NORMAL" else ""
        print(f" synchronous={synchronous}" + (" (the default)" if synchronous == "NORMAL" else ""))
        line("trivial GET /healthz", r["trivial"])
        line("move, moves 1-100", r["moves"][:100], base, bar)
        line(f"move, moves {MOVES - 99}-{MOVES}", r["moves"][-100:], base, bar)
        line(f"move, all {MOVES}", r["moves"], base)
        line(f"read the game at move {MOVES}", r["reads"])
        line("undo at move 10", r["undo10"], base)
        line(f"undo at move {MOVES}", r["undo_late"], base)
    extra = statistics.median(runs["FULL"]["moves"]) - statistics.median(runs["NORMAL"]["moves"])
    print(f" FULL costs {extra * 1000:+.2f} ms a move (median of {MOVES}) over NORMAL")


if __name__ == "__main__":
    main()
