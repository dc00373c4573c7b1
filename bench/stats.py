"""The statistics pages at 10,000 games (issue 16): /stats under 50 ms through the real server,
and (issue 46) the standings of a period, which sum the seats of the games started in it.

A fresh instance gets one finished game of each family played through the store (so its
seats and figures are what a real game keeps), then copies of them up to 10,000 games in
SQL, seated among 40 players in 10 groups of four. gunicorn as `make run` starts it, on
127.0.0.1; each page is timed against the trivial endpoint of the same run.
"""

from __future__ import annotations

import statistics
import tempfile
from pathlib import Path

from server import gunicorn, timed

from companion import games, web
from companion.store import SqliteStore

GAMES = 10_000
PLAYERS = 40
BAR_MS = 50
FEBRUARY = "period=range&since=2026-02-01&until=2026-02-28"


def seed(path: Path) -> dict[str, int]:
    """``GAMES`` finished games in the store at ``path``; returns a group's player ids and
    the busiest player's id (the pages timed)."""
    store = SqliteStore(path)
    store.migrate()
    templates = []
    for name in games.GAMES:
        finished = web.get(name).SAMPLE["finished"]
        game, key = store.create(name, web.get(name).SAMPLE["players"], finished["options"])
        for version, move in enumerate(finished["moves"]):
            store.play(game["id"], version, move, key)
        templates.append(game["id"])
    copies = GAMES // len(templates)
    marks = ", ".join("?" * len(templates))
    with store._write() as conn:
        conn.executemany(
            "INSERT INTO players (name, created, last_played) VALUES (?, '2026-01-01', '2026-01-01')",
            [(f"Player {i:02d}",) for i in range(1, PLAYERS + 1)],
        )
        first = conn.execute("SELECT min(id) FROM players WHERE name = 'Player 01'").fetchone()[0]
        conn.execute(
            f"CREATE TEMP TABLE n AS WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n "
            f"WHERE i < {copies - 1}) SELECT i FROM n"
        )
        columns = [r[1] for r in conn.execute("PRAGMA table_info(games)") if r[1] not in ("id", "created")]
        conn.execute(
            f"INSERT INTO games (id, created, {', '.join(columns)}) SELECT g.id || '-' || n.i, "
            # created as the store writes it (ISO, microseconds, UTC), an hour apart
            f"strftime('%Y-%m-%dT%H:%M:%f000+00:00', '2026-01-01', '+' || n.i || ' hours'), {', '.join(columns)} "
            f"FROM games g, n WHERE g.id IN ({marks})",
            templates,
        )
        columns = [r[1] for r in conn.execute("PRAGMA table_info(moves)") if r[1] != "game_id"]
        conn.execute(
            f"INSERT INTO moves (game_id, {', '.join(columns)}) SELECT m.game_id || '-' || n.i, {', '.join(columns)} "
            f"FROM moves m, n WHERE m.game_id IN ({marks})",
            templates,
        )
        columns = [r[1] for r in conn.execute("PRAGMA table_info(seats)") if r[1] not in ("game_id", "player_id")]
        # Group n % 10 is players 4k+1..4k+4; a game's seats take them in order.
        conn.execute(
            f"INSERT INTO seats (game_id, player_id, {', '.join(columns)}) SELECT s.game_id || '-' || n.i, "
            f"{first} + (n.i % 10) * 4 + s.seat, {', '.join(columns)} FROM seats s, n WHERE s.game_id IN ({marks})",
            templates,
        )
        total = conn.execute("SELECT count(*) FROM games").fetchone()[0]
    store.close()
    return {"group": list(range(first, first + 4)), "busiest": first, "games": total}


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:  # nothing written into the checkout
        seeded = seed(Path(tmp) / "companion.db")
        with gunicorn(tmp) as conn:
            group = "&".join(f"p={i}" for i in seeded["group"])
            pages = {
                "trivial GET /healthz": "/healthz",
                "standings, everyone (/stats)": "/stats",
                "standings of a group of 4": f"/stats?{group}",
                # issue 46: the seeded games were started from 1 January 2026, over 12 weeks (a
                # period with every game reads the totals; all but the first day's sums the seats)
                "standings of a month": f"/stats?{FEBRUARY}",
                "standings of 2026 (every game)": "/stats?period=range&since=2026-01-01&until=2026-12-31",
                "standings of all but 1 day": "/stats?period=range&since=2026-01-02&until=2026-12-31",
                "a player's page, a month": f"/players/{seeded['busiest']}?{FEBRUARY}",
                "a player's page": f"/players/{seeded['busiest']}",
                "the roster (/players)": "/players",
            }
            runs: dict[str, list[float]] = {}
            for label, path in pages.items():
                elapsed, status, data = timed(conn, "GET", path)  # warm
                assert status == 200, (path, status, data[:300])
                runs[label] = [timed(conn, "GET", path)[0] for _ in range(50)]
    base = statistics.median(runs["trivial GET /healthz"])
    print(
        f"statistics pages, {seeded['games']} games among {PLAYERS} players, gunicorn as make run starts it, "
        f"127.0.0.1, one keep-alive client, 50 requests each"
    )
    for label, xs in runs.items():
        median, p95 = statistics.median(xs) * 1000, sorted(xs)[int(len(xs) * 0.95)] * 1000
        bar = ""
        if label.startswith("standings"):
            bar = f" (bar {BAR_MS} ms{' OVER' if median > BAR_MS else ''})"
        ratio = f"   ratio {statistics.median(xs) / base:5.1f}" if xs is not runs["trivial GET /healthz"] else ""
        print(f"  {label:<30} median {median:6.2f} ms  p95 {p95:6.2f} ms{ratio}{bar}")


if __name__ == "__main__":
    main()
