"""The real server, measured (DESIGN.md quality bar; issue 17's goals): a move through
gunicorn on loopback costs at most 1.3 times a trivial endpoint of the same app, and the
same at move 1,000 as at move 10 (within 10%), as do undo and the move log; a Tablić card
tap (captures optional, tens of thousands of legal ones at 20 table cards) costs under
5 ms p99; a move's answers are as big at move 1,000 as at move 10. Run by `make bench`;
it starts and stops its own gunicorn on 127.0.0.1, twice: with SQLite's
synchronous=NORMAL (the default) and with COMPANION_SYNCHRONOUS=FULL, then (issue 19) on
PostgreSQL (DATABASE_URL: a throwaway server of Debian's postgresql package on this machine,
with its default durability, every commit flushed to disk), each figure a ratio to the
trivial endpoint of the same run.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlencode

import psutil

from companion import serve, timing
from companion.cards import PACK_52
from companion.games import tablanette

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checkout: tests/pgserver.py
from tests.pgserver import PostgresCluster, postgres_bindir  # noqa: E402

MOVES = 1000
EARLY = 10  # "at move 10": the moves around it
DEAL = 49  # a deal's moves: its layout and 48 cards
#: Tablić tables of this many cards, the lowest ranks first, and a king tapped on them: the
#: most legal captures a card can have (75,672 at 20), where enumerating them cost 1.9 s.
TAP_TABLES = (12, 16, 20)
TAPS = 300  # p99 is then the 3rd slowest, not the slowest


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
    return answered(conn, method, path, body, headers)[:3]


def answered(conn, method, path, body=None, headers=None) -> tuple[float, int, bytes, dict[str, float]]:
    """A request's time at the client, its status and body, and the app's own time and the
    parts of it its Server-Timing names (companion/timing.py: app, store, render), seconds."""
    elapsed, response, data = _exchange(conn, method, path, body, headers)
    return elapsed, response.status, data, timing.parse(response.getheader("Server-Timing", ""))


def _exchange(conn, method, path, body=None, headers=None):
    """A request's time at the client, its response and body."""
    start = time.perf_counter()
    conn.request(method, path, body=body, headers=headers or {})
    response = conn.getresponse()
    data = response.read()
    return time.perf_counter() - start, response, data


def pages(conn, path: str, times: int = 30) -> tuple[list[float], list[float]]:
    """GET ``path`` ``times`` times (after a few untimed): each time at the client and in
    the app (its Server-Timing)."""
    for _ in range(5):
        timed(conn, "GET", path)
    costs, app = [], []
    for _ in range(times):
        elapsed, _, _, parts = answered(conn, "GET", path)
        costs.append(elapsed)
        app.append(parts["app"])
    return costs, app


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


def new_game(conn, options: dict | None = None) -> tuple[dict, dict]:
    """A Tablanette game whose target is out of reach, and the headers that change it."""
    options = {"target": 10**6} if options is None else options
    body = json.dumps({"game": "tablanette", "players": ["Ann", "Ben"], "options": options})
    _, status, data = timed(conn, "POST", "/api/games", body, {"Content-Type": "application/json"})
    assert status == 201, (status, data[:300])
    game = json.loads(data)
    return game, {"Content-Type": "application/json", "X-Edit-Key": game["edit_key"]}


def play(
    conn,
    game_id: str,
    headers: dict,
    moves: list[dict],
    sizes: list[int] | None = None,
    between=None,
    parts: list[dict] | None = None,
) -> list[float]:
    """Enter ``moves`` from version 0; each one's cost (and its answer's size in ``sizes``,
    a /healthz timed after each move in ``between``, its Server-Timing in ``parts``)."""
    costs = []
    for version, move in enumerate(moves):
        body = json.dumps({"version": version, "move": move})
        elapsed, status, data, said = answered(conn, "POST", f"/api/games/{game_id}/moves", body, headers)
        assert status == 200, (status, data[:300])
        costs.append(elapsed)
        if sizes is not None:
            sizes.append(len(data))
        if parts is not None:
            parts.append(said)
        if between is not None:
            between.append(timed(conn, "GET", "/healthz")[0])
    return costs


class Phone:
    """A referee phone over HTTP, as the game page is one: it opens a one-use referee link
    (its session cookie), and posts each tap as the page's htmx form does (CSRF header)."""

    def __init__(self, conn, game_id: str, headers: dict):
        self.conn, self.game_id, self.cookie = conn, game_id, ""
        self.server = 0.0  # the app's own time for the last request (Server-Timing), seconds
        self.parts: dict[str, float] = {}  # and the parts of it the Server-Timing names
        _, status, data = timed(conn, "POST", f"/api/games/{game_id}/links", json.dumps({"kind": "add"}), headers)
        token = json.loads(data)["url"].rsplit("/", 1)[1]
        page = self.request("GET", f"/games/{game_id}/join/{token}")[2].decode()
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
        status = self.request("POST", f"/games/{game_id}/join", {"token": token, "csrf_token": csrf})[1]
        assert status == 303, status
        page = self.request("GET", f"/games/{game_id}")[2].decode()
        self.csrf = re.search(r'"X-CSRFToken": "([^"]+)"', page).group(1)

    def request(self, method: str, path: str, form: dict | None = None, hx: bool = False):
        """``(seconds, status, body)``; the session cookie kept as a browser keeps it."""
        headers = {"Cookie": self.cookie, "Accept-Encoding": "identity"}
        if form is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        if hx:
            headers |= {"HX-Request": "true", "X-CSRFToken": self.csrf}
        elapsed, response, data = _exchange(self.conn, method, path, form and urlencode(form, doseq=True), headers)
        self.parts = timing.parse(response.getheader("Server-Timing", ""))
        self.server = self.parts.get("app", 0.0)
        cookie = response.getheader("Set-Cookie")
        if cookie:
            self.cookie = cookie.split(";", 1)[0]
        return elapsed, response.status, data

    def tap(self, version: int, move: dict) -> tuple[float, int, bytes]:
        """Post ``move`` as the page does: a card, with the cards it took (or laid down)."""
        form: dict = {"version": version, "type": move["type"]}
        if move["type"] == "layout":
            form["cards[]"] = move["cards"]
        else:
            form["card"] = move["card"]
            if "capture" in move:
                form["capture[]"] = move["capture"] or [""]
        return self.request("POST", f"/games/{self.game_id}/moves", form, hx=True)


def enter(phone: Phone, moves: list[dict], sizes: list[int], between: list[float], parts: list[dict]) -> list[float]:
    """Enter ``moves`` from version 0 on the game page; each one's cost, answer size and
    Server-Timing (and a /healthz timed after each, in ``between``)."""
    costs = []
    for version, move in enumerate(moves):
        elapsed, status, data = phone.tap(version, move)
        assert status == 200, (status, data[:300])
        costs.append(elapsed)
        sizes.append(len(data))
        parts.append(phone.parts)
        between.append(timed(phone.conn, "GET", "/healthz")[0])
    return costs


def tablic_taps(conn, size: int) -> tuple[list[float], list[float]]:
    """A Tablić game (captures optional) with ``size`` cards on the table (the layout, then
    cards laid down), and the cost of tapping a king on it, ``TAPS`` times: the answer asks
    which cards it took (the tap sheet) and changes nothing. Each tap's time at the phone,
    and in the app (its Server-Timing: without the network and gunicorn's own work)."""
    game, headers = new_game(conn, {"preset": "tablic", "target": 10**6})
    table = [f"{r}{s}" for r in ("A", "2", "3", "4", "5") for s in "SHDC"][:size]
    moves = [{"type": "layout", "cards": table[:4]}] + [{"type": "play", "card": c, "capture": []} for c in table[4:]]
    play(conn, game["id"], headers, moves)
    phone = Phone(conn, game["id"], headers)
    for _ in range(5):  # each worker renders the tap sheet once before it is timed (Jinja compiles it)
        phone.tap(len(moves), {"type": "play", "card": "KD"})
    costs, server = [], []
    for _ in range(TAPS):
        elapsed, status, data = phone.tap(len(moves), {"type": "play", "card": "KD"})
        assert status == 200 and b"take-form" in data, (status, data[:300])
        costs.append(elapsed)
        server.append(phone.server)
    return costs, server


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


def budget(moves: list[dict], database_url: str = "") -> dict[str, list[float]]:
    """Where a move's time goes (issue 34), in this process on a fresh SQLite store with the
    default durability (or on the PostgreSQL database ``database_url``), move by move:
    ``floor``, one transaction of the statements a move writes (read the game, number the
    move, insert it, rewrite the state) through the store's own connection, with no engine
    and no Python around it; ``engine``, the engine's apply alone (the stored state loaded,
    the move applied); ``store``, the store's whole move (``play_and_read``: the floor, the
    engine, the view, the figures; the state read from the store's cache of it)."""
    from companion.store import open_store
    from companion.store.rows import _dumps, _load_state

    rules = tablanette
    out: dict[str, list[float]] = {"floor": [], "engine": [], "store": []}
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(database_url or str(Path(tmp) / "budget.db"))
        row, _ = store.create("tablanette", ["Ann", "Ben"], {"target": 10**6})
        shadow, _ = store.create("tablanette", ["Ann", "Ben"], {"target": 10**6})  # the floor's writes go here
        for version, move in enumerate(moves):
            stored = store.get(row["id"])
            before = _load_state(json.dumps(rules.dump(stored["state"])))
            start = time.perf_counter()
            rules.apply(rules.load(before), move)
            out["engine"].append(time.perf_counter() - start)
            start = time.perf_counter()
            store.play_and_read(row["id"], version, move)
            out["store"].append(time.perf_counter() - start)
            text, said = json.dumps(rules.dump(store.get(row["id"])["state"])), _dumps(move)
            start = time.perf_counter()
            with store._write() as conn:
                conn.execute("SELECT version, state FROM games WHERE id = ?", (shadow["id"],)).fetchone()
                seq = conn.execute(
                    "SELECT COALESCE(MAX(seq), 0) + 1 FROM moves WHERE game_id = ?", (shadow["id"],)
                ).fetchone()[0]
                conn.execute(
                    "INSERT INTO moves (game_id, seq, move, time, undone, said) VALUES (?, ?, ?, '', 0, ?)",
                    (shadow["id"], seq, said, said),
                )
                conn.execute("UPDATE games SET state = ?, version = ? WHERE id = ?", (text, seq, shadow["id"]))
            out["floor"].append(time.perf_counter() - start)
        store.release()
        store.close()
    return out


def run(synchronous: str, moves: list[dict], database_url: str = "") -> tuple[dict[str, list[float]], str]:
    """Start the server `make run` starts, bound to loopback, with ``COMPANION_SYNCHRONOUS``
    set (or on the PostgreSQL database ``database_url``), on a fresh instance folder; time the
    trivial endpoint, every move of one game and reads of it; stop the server. Returns the
    timings and the database's file system."""
    settings = {"COMPANION_SYNCHRONOUS": synchronous}
    if database_url:
        settings["DATABASE_URL"] = database_url
    with tempfile.TemporaryDirectory() as tmp:  # nothing written into the checkout
        with gunicorn(tmp, **settings) as conn:
            trivial = [timed(conn, "GET", "/healthz")[0] for _ in range(300)]
            game, headers = new_game(conn)
            json_sizes: list[int] = []
            between: list[float] = []  # /healthz between moves: beside the moves, not back to back
            parts: dict[str, list[dict]] = {"moves": [], "taps": []}  # each move's Server-Timing
            costs = play(conn, game["id"], headers, moves, json_sizes, between, parts["moves"])
            undo_late = undo_costs(conn, game["id"], headers, len(moves), moves[-1])
            short, short_headers = new_game(conn)
            play(conn, short["id"], short_headers, moves[:EARLY])
            undo_early = undo_costs(conn, short["id"], short_headers, EARLY, moves[EARLY - 1])
            reads = [timed(conn, "GET", f"/api/games/{game['id']}")[0] for _ in range(100)]
            log_late = pages(conn, f"/games/{game['id']}/log")
            log_early = pages(conn, f"/games/{short['id']}/log")
            page, page_headers = new_game(conn)
            page_sizes: list[int] = []
            taps = enter(Phone(conn, page["id"], page_headers), moves, page_sizes, between, parts["taps"])
            tablic = {size: tablic_taps(conn, size) for size in TAP_TABLES}
            where = filesystem(tmp)
    return {
        "trivial": trivial,
        "between": between,
        "moves": costs,
        "taps": taps,
        "reads": reads,
        "undo10": undo_early,
        "undo_late": undo_late,
        "log10": log_early,
        "log_late": log_late,
        "tablic": tablic,
        "sizes": {"json": json_sizes, "page": page_sizes},
        "parts": parts,
    }, where


def line(label: str, xs: list[float], base: float | None = None, bar: str = "", p: float = 0.95) -> None:
    ratio = f"   ratio {statistics.median(xs) / base:4.2f}{bar}" if base else ""
    median, tail = statistics.median(xs) * 1000, sorted(xs)[int(len(xs) * p)] * 1000
    print(f"  {label:<36} median {median:6.2f} ms  p{p * 100:.0f} {tail:6.2f} ms{ratio}")


#: The parts of a move's time that its Server-Timing names (companion/timing.py).
PARTS = {"app": "in the app (Server-Timing)", "store": "  the store's change", "render": "  rendering its answer"}


def inside(r: dict, key: str, base: float) -> None:
    """Where the time of the moves ``r[key]`` goes in the app, over all of them: the app's own
    time (the rest is the network's and gunicorn's) and the parts its Server-Timing names."""
    for name, label in PARTS.items():
        xs = [said[name] for said in r["parts"][key] if name in said]
        if xs:
            line(f"  {label}", xs, base)


def between(r: dict, *measures: tuple[str, str]) -> None:
    """The moves against the /healthz timed between them, on the same connection: steadier
    than against the back-to-back one when the machine's speed drifts during a run."""
    line("trivial GET /healthz, between moves", r["between"])
    for label, key in measures:
        line(f"{label}, all, against it", r[key], statistics.median(r["between"]))


def main() -> None:
    moves = legal_moves(MOVES)
    # The default first, then FULL (COMPANION_SYNCHRONOUS=FULL): each against its own /healthz.
    runs, where = {}, ""
    for synchronous in ("NORMAL", "FULL"):
        runs[synchronous], where = run(synchronous, moves)
    spent = budget(moves)
    bindir = postgres_bindir()
    if bindir is None:
        print("PostgreSQL is not installed (make bench installs it): no PostgreSQL run")
    else:
        cluster = PostgresCluster(bindir, durable=True)
        try:
            runs["PostgreSQL"], _ = run("NORMAL", moves, cluster.url)
            spent_pg = budget(moves, cluster.url)
        finally:
            cluster.remove()

    def around(xs: list, at: int, half: int = 5) -> list:
        """The figures of the moves around move ``at`` (1-based): at move 10, moves 5-15."""
        return xs[max(0, at - 1 - half) : at + half]

    print(
        f"gunicorn as make run starts it ({serve.WORKERS} workers x {serve.THREADS} threads), 127.0.0.1, "
        f"one keep-alive client, {MOVES} moves, database on {where}"
    )
    for synchronous, r in runs.items():
        base = statistics.median(r["trivial"])
        bar = ""  # the goals are printed with the budget below
        if synchronous == "PostgreSQL":
            print(" PostgreSQL (DATABASE_URL; a server on this machine, its default durability)")
        else:
            print(f" SQLite, synchronous={synchronous}" + (" (the default)" if synchronous == "NORMAL" else ""))
        line("trivial GET /healthz", r["trivial"])
        line("move (JSON API), moves 1-100", r["moves"][:100], base, bar)
        line(f"move (JSON API), moves {MOVES - 99}-{MOVES}", r["moves"][-100:], base, bar)
        line(f"move (JSON API), all {MOVES}", r["moves"], base)
        line("move (game page), moves 1-100", r["taps"][:100], base, bar)
        line(f"move (game page), moves {MOVES - 99}-{MOVES}", r["taps"][-100:], base, bar)
        line(f"read the game (JSON) at move {MOVES}", r["reads"], base)
        line(f"undo at move {EARLY}", r["undo10"], base)
        line(f"undo at move {MOVES}", r["undo_late"], base)
        for at, (xs, app) in ((EARLY, r["log10"]), (MOVES, r["log_late"])):
            line(f"move log page at move {at}", xs, base)
            line("  in the app (Server-Timing)", app)
        for size, (xs, app) in r["tablic"].items():
            line(f"Tablić tap (K on {size} table cards)", xs, base, p=0.99)
            line("  in the app (Server-Timing)", app, p=0.99)
        print("  (goal: a card tap under 5 ms p99 server time at 20 table cards)")
        for kind, sizes in r["sizes"].items():  # a deal is 49 moves, what is on the table varies along it
            at = {f"deal {n}": statistics.median(sizes[(n - 1) * DEAL : n * DEAL]) for n in (2, MOVES // DEAL)}
            said = ", ".join(f"{size:5.0f} B over {where}" for where, size in at.items())
            print(
                f"  answer to a move ({'JSON API' if kind == 'json' else 'game page'}), median: "
                f"{statistics.median(around(sizes, EARLY)):5.0f} B at move {EARLY}, {said}"
            )
    base = statistics.median(runs["NORMAL"]["trivial"])
    print(" Where a move's time goes (issue 34), SQLite NORMAL, each a ratio to that run's /healthz:")
    line("trivial GET /healthz", runs["NORMAL"]["trivial"])
    for label, xs, key in (
        ("floor (statements, one txn)", spent["floor"], ""),
        ("engine apply alone", spent["engine"], ""),
        ("store move, in process", spent["store"], ""),
        ("move, JSON API", runs["NORMAL"]["moves"], "moves"),
        ("move, game page", runs["NORMAL"]["taps"], "taps"),
    ):
        line(
            f"{label}, 1-100",
            xs[:100],
            base,
            " (goal 1.5)" if "JSON" in label else " (goal 2)" if "page" in label else "",
        )
        late = statistics.median(xs[-100:]) / statistics.median(xs[:100]) - 1
        line(f"{label}, {MOVES - 99}-{MOVES}", xs[-100:], base, f"  ({late:+.0%} on 1-100)")
        if key:
            inside(runs["NORMAL"], key, base)
    between(runs["NORMAL"], ("move, JSON API", "moves"), ("move, game page", "taps"))
    if "PostgreSQL" in runs:
        base = statistics.median(runs["PostgreSQL"]["trivial"])
        print(" Where a move's time goes on PostgreSQL, each a ratio to that run's /healthz:")
        line("trivial GET /healthz", runs["PostgreSQL"]["trivial"])
        for label, xs in (
            ("floor (statements, one txn)", spent_pg["floor"]),
            ("store move, in process", spent_pg["store"]),
            ("move, JSON API", runs["PostgreSQL"]["moves"]),
        ):
            line(f"{label}, 1-100", xs[:100], base, " (goal 2.5)" if "JSON" in label else "")
        inside(runs["PostgreSQL"], "moves", base)
        between(runs["PostgreSQL"], ("move, JSON API", "moves"))
    extra = statistics.median(runs["FULL"]["moves"]) - statistics.median(runs["NORMAL"]["moves"])
    print(f" FULL costs {extra * 1000:+.2f} ms a move (median of {MOVES}) over NORMAL")
    print(" A move (JSON API, median of all), as a ratio to the same run's trivial endpoint:")
    for name, r in runs.items():
        label = name if name == "PostgreSQL" else f"SQLite {name}"
        move, base = statistics.median(r["moves"]), statistics.median(r["trivial"])
        goal = " (goal 2.5)" if name == "PostgreSQL" else ""
        print(f"  {label:<16} {move * 1000:6.2f} ms   ratio {move / base:4.2f}{goal}")


if __name__ == "__main__":
    main()
