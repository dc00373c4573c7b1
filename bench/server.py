"""The real server, measured (DESIGN.md quality bar): a move through gunicorn on loopback
costs at most 2.5 times a trivial endpoint of the same app, and the same at move 1,000
as at move 10. Run by `make bench`; it starts and stops its own gunicorn on 127.0.0.1.
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
from pathlib import Path

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


def main() -> None:
    port = free_port()
    tmp = Path(tempfile.mkdtemp())
    env = {**os.environ, "COMPANION_INSTANCE_PATH": str(tmp)}  # nothing written into the checkout
    # The server `make run` starts, bound to loopback.
    server = subprocess.Popen(serve.gunicorn_command("127.0.0.1", port, log_level="warning"), env=env)
    try:
        conn = None
        for _ in range(100):
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                conn.request("GET", "/healthz")
                conn.getresponse().read()
                break
            except OSError:
                time.sleep(0.1)
        moves = legal_moves(MOVES)
        trivial = [timed(conn, "GET", "/healthz")[0] for _ in range(300)]
        _, status, data = timed(
            conn,
            "POST",
            "/api/games",
            json.dumps({"game": "tablanette", "players": ["Ann", "Ben"], "options": {"target": 10**6}}),
            {"Content-Type": "application/json"},
        )
        game = json.loads(data)
        headers = {"Content-Type": "application/json", "X-Edit-Key": game["edit_key"]}
        costs = []
        for version, move in enumerate(moves):
            elapsed, status, data = timed(
                conn, "POST", f"/api/games/{game['id']}/moves", json.dumps({"version": version, "move": move}), headers
            )
            assert status == 200, (status, data[:300])
            costs.append(elapsed)
        reads = [timed(conn, "GET", f"/api/games/{game['id']}")[0] for _ in range(100)]
    finally:
        server.terminate()
        server.wait(timeout=10)

    def ms(xs):
        return f"median {statistics.median(xs) * 1000:6.2f} ms  p95 {sorted(xs)[int(len(xs) * 0.95)] * 1000:6.2f} ms"

    base = statistics.median(trivial)
    early, late = costs[:100], costs[-100:]
    print(
        f"gunicorn as make run starts it ({serve.WORKERS} workers x {serve.THREADS} threads), 127.0.0.1, "
        f"one keep-alive client, {MOVES} moves"
    )
    print(f"  trivial GET /healthz        {ms(trivial)}")
    print(f"  move, moves 1-100           {ms(early)}   ratio {statistics.median(early) / base:4.2f} (bar 2.5)")
    print(
        f"  move, moves {MOVES - 99}-{MOVES}       {ms(late)}   ratio {statistics.median(late) / base:4.2f} (bar 2.5)"
    )
    print(f"  read the game at move {MOVES}   {ms(reads)}")


if __name__ == "__main__":
    main()
