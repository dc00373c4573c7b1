"""The store on PostgreSQL (issue 19): several app servers on one database, the copy from
SQLite, live pushes, and what a phone is told while the database can't be reached.

Every test here starts from a fresh schema on the throwaway server of conftest.py's
``postgres_server`` (all marked ``postgres``); tests/test_store.py and tests/test_api.py
run their whole suites on PostgreSQL too.
"""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from companion import create_app, serve, stats
from companion.live import Hub
from companion.store import SqliteStore, copy_games, open_store
from companion.store.dialect import POSTGRES, SQLITE
from tests.conftest import make_app, postgres_cluster
from tests.pgserver import free_port

ROOT = Path(__file__).resolve().parent.parent
LAYOUT = {"type": "layout", "cards": ["2C", "3D", "4H", "8S"]}


def test_the_store_s_sql_as_postgresql_reads_it():
    """The one runtime difference in the store's SQL (companion/store/dialect.py):
    psycopg's placeholders; the statements themselves are written in the SQL both read."""
    assert POSTGRES.sql("SELECT id FROM games WHERE id = ? AND version = ?") == (
        "SELECT id FROM games WHERE id = %s AND version = %s"
    )
    assert POSTGRES.sql("SELECT '100%' WHERE 1 = ?") == "SELECT '100%%' WHERE 1 = %s"
    assert POSTGRES.sql("SELECT '100%'", with_params=False) == "SELECT '100%'"
    assert SQLITE.sql("SELECT id FROM games WHERE id = ?") == "SELECT id FROM games WHERE id = ?"
    assert POSTGRES.begin_read == "BEGIN ISOLATION LEVEL REPEATABLE READ"  # a consistent read


pytestmark = pytest.mark.postgres


# ---------------------------------------------------------------------------
# A whole server copied, and every transcript compared
# ---------------------------------------------------------------------------


def fill(store: SqliteStore) -> list[str]:
    """Games of every kind and shape: finished, undone moves, imported, archived, referees
    added and links made, players typed twice in different case."""
    ids = []
    row, key = store.create("tablanette", ["Ann", "Ben"], {"target": 151})
    version, _ = store.play(row["id"], 0, LAYOUT, key)
    version, _ = store.play(row["id"], version, {"type": "play", "card": "QH", "capture": ["2C", "3D", "8S"]}, key)
    version, _ = store.undo(row["id"], version, key)
    store.play(row["id"], version, {"type": "play", "card": "5C"}, key, entry="e" * 32)
    store.make_link(row["id"], "add")
    ids.append(row["id"])
    row, key = store.create("hundred", ["ann", "Cy"])
    version = 0
    for loser in ["ann", "Cy"]:
        version, _ = store.play(row["id"], version, {"type": "tally", "loser": loser}, key)
    store.archive(row["id"])
    ids.append(row["id"])
    imported, _ = store.import_transcript(store.transcript(ids[0]))
    ids.append(imported["id"])
    row, key = store.create("tute", ["Ann", "Ben", "Cy", "Dee"])
    store.redeem_link(row["id"], store.make_link(row["id"], "handover"))
    ids.append(row["id"])
    return ids


def everything(store: SqliteStore) -> dict:
    """What a server holds, in an order that does not depend on the backend."""
    return {
        "rows": {t: sorted(map(repr, rows)) for t, rows in store.rows().items()},
        "transcripts": {g: store.transcript(g) for g in store.game_ids()},
        "games": store.list_games(),
        "standings": stats.standings(store),
        "roster": store.roster(),
    }


def test_flask_db_copy_round_trip(tmp_path, pg_url):
    """SQLite -> PostgreSQL -> SQLite with ``flask db copy``: every row, transcript, list and
    standing the same, and the copied games play on (the ids of new players too)."""
    app = make_app(tmp_path)
    source = app.extensions["store"]
    ids = fill(source)
    runner = app.test_cli_runner()
    done = runner.invoke(args=["db", "copy", "--from", f"sqlite:///{tmp_path / 'test.db'}", "--to", pg_url])
    assert done.exit_code == 0, done.output
    assert "Copied 4 game(s)" in done.output and "every transcript is identical" in done.output
    pg = open_store(pg_url)
    back = tmp_path / "back.db"
    again = runner.invoke(args=["db", "copy", "--from", pg_url, "--to", f"sqlite:///{back}"])
    assert again.exit_code == 0, again.output
    try:
        assert everything(pg) == everything(source) == everything(SqliteStore(back))
        assert sorted(pg.game_ids()) == sorted(ids)
        assert {p["name"] for p in pg.roster()} == {"Ann", "Ben", "Cy", "Dee"}  # "ann" is Ann
        row, key = pg.create("hundred", ["Dee", "Eve"])  # a new player gets a new id after the copied ones
        assert pg.play(row["id"], 0, {"type": "play", "card": "5C"}, key)[0] == 1
        version = pg.get(ids[0])["version"]
        assert pg.undo(ids[0], version)[0] == version + 1  # the copied games play on
    finally:
        pg.close()


def test_copy_refuses_a_target_with_games_and_changes_nothing(tmp_path, pg_url):
    source, target = SqliteStore(tmp_path / "a.db"), open_store(pg_url)
    try:
        fill(source)
        kept, _ = target.create("hundred", ["Zed", "Yan"])
        with pytest.raises(ValueError, match="already has data"):
            copy_games(source, target)
        assert target.game_ids() == [kept["id"]]
        assert copy_games(source, target, replace=True) == 4
        assert kept["id"] not in target.game_ids()
    finally:
        target.close()


def players_without_games(store) -> dict:
    """A game made, a player of it renamed, the game deleted: the players and the rename
    record stay, no game does. What the store then holds."""
    row, _ = store.create("hundred", ["Zed", "Yan"])
    store.rename_player(next(p["id"] for p in store.roster() if p["name"] == "Zed"), "Zedd")
    store.delete(row["id"])
    assert store.game_ids() == []
    return {t: rows for t, rows in store.rows().items() if rows}


def test_db_copy_refuses_a_target_holding_players_without_games(tmp_path, pg_url, monkeypatch):
    """Issue 44: a target that holds players but no games (and their rename record) is
    data: without --replace nothing is copied and it all stays; with --replace it is kept
    first, in a file that holds it all."""
    monkeypatch.chdir(tmp_path)  # where a PostgreSQL target's replaced data is kept
    app = make_app(tmp_path)
    fill(app.extensions["store"])
    target = open_store(pg_url)
    try:
        held = players_without_games(target)
        assert set(held) == {"players", "roster_changes"}
    finally:
        target.close()
    runner = app.test_cli_runner()
    source = f"sqlite:///{tmp_path / 'test.db'}"
    refused = runner.invoke(args=["db", "copy", "--from", source, "--to", pg_url])
    assert refused.exit_code == 1 and "already has data" in refused.output, refused.output
    assert "Nothing was copied" in refused.output and "Copied" not in refused.output
    target = open_store(pg_url)
    try:
        assert {t: rows for t, rows in target.rows().items() if rows} == held
    finally:
        target.close()
    assert list(tmp_path.glob("companion-before-*")) == []
    done = runner.invoke(args=["db", "copy", "--from", source, "--to", pg_url, "--replace"])
    assert done.exit_code == 0 and "Copied 4 game(s)" in done.output, done.output
    (kept,) = tmp_path.glob("companion-before-copy-*.db")
    assert f"kept in {kept}" in done.output
    assert {t: rows for t, rows in SqliteStore(kept).rows().items() if rows} == held


def test_db_copy_refuses_an_sqlite_target_holding_players_without_games(tmp_path):
    app = make_app(tmp_path)
    fill(app.extensions["store"])
    target = SqliteStore(tmp_path / "target.db")
    held = players_without_games(target)
    target.close()
    source, to = f"sqlite:///{tmp_path / 'test.db'}", f"sqlite:///{tmp_path / 'target.db'}"
    refused = make_app(tmp_path).test_cli_runner().invoke(args=["db", "copy", "--from", source, "--to", to])
    assert refused.exit_code == 1 and "already has data" in refused.output, refused.output
    assert {t: rows for t, rows in SqliteStore(tmp_path / "target.db").rows().items() if rows} == held


def with_password(url: str, password: str) -> str:
    """``url`` (the throwaway server's: it trusts local connections, whatever password is
    given) with a password, in its user part."""
    return url.replace("postgresql://postgres@", f"postgresql://postgres:{password}@", 1)


def test_db_copy_never_prints_a_password(tmp_path, pg_url):
    """Issue 44: every URL `flask db copy` prints hides its password, on success and on a
    refusal, given in the URL's user part or as a ``password=`` parameter."""
    app = make_app(tmp_path)
    fill(app.extensions["store"])
    runner = app.test_cli_runner()
    secret = with_password(pg_url, "s3cret-one")
    sqlite_file = f"sqlite:///{tmp_path / 'test.db'}"
    into = runner.invoke(args=["db", "copy", "--from", sqlite_file, "--to", secret])
    assert into.exit_code == 0 and "Copied 4 game(s)" in into.output, into.output
    back = runner.invoke(args=["db", "copy", "--from", secret, "--to", f"sqlite:///{tmp_path / 'back.db'}"])
    assert back.exit_code == 0 and "Copied 4 game(s)" in back.output, back.output
    assert "postgres:***@" in back.output
    again = runner.invoke(args=["db", "copy", "--from", sqlite_file, "--to", f"{pg_url}&password=s3cret-two"])
    assert again.exit_code == 1 and "already has data" in again.output, again.output
    wrong = runner.invoke(args=["db", "copy", "--from", sqlite_file, "--to", "mysql://root:s3cret-three@db/club"])
    assert wrong.exit_code == 1, wrong.output
    for answer in (into, back, again, wrong):
        assert "s3cret" not in answer.output, answer.output


def test_copy_command_explains_a_bad_address(tmp_path):
    runner = make_app(tmp_path).test_cli_runner()
    bad = runner.invoke(args=["db", "copy", "--from", f"sqlite:///{tmp_path / 'none.db'}", "--to", "mysql://x"])
    assert bad.exit_code != 0 and "There is no SQLite file" in bad.output
    bad = runner.invoke(args=["db", "copy", "--from", f"sqlite:///{tmp_path / 'test.db'}", "--to", "mysql://x/y"])
    assert bad.exit_code != 0 and "postgresql://" in bad.output


def test_backup_and_restore_on_postgresql(tmp_path, pg_url):
    """``flask backup`` writes an SQLite file on PostgreSQL too, and ``restore`` reads it back."""
    store = open_store(pg_url)
    try:
        fill(store)
        before = everything(store)
        assert store.backup(tmp_path / "backup.db") == 4
        for game_id in store.game_ids():
            store.delete(game_id)
        count, kept = store.restore(tmp_path / "backup.db", keep_in=tmp_path)
        assert count == 4 and kept.parent == tmp_path and kept.is_file()
        assert everything(store) == before
    finally:
        store.close()


def test_every_request_gives_its_connection_back(tmp_path, pg_url):
    """A pool of 2 connections serves 36 requests of every kind one after another (pages,
    the API, a refused move, a stale one, an unknown game): none keeps its connection."""
    app = make_app(tmp_path, DATABASE_URL=pg_url, DATABASE_POOL_SIZE=2, DATABASE_POOL_TIMEOUT=2)
    client = app.test_client()
    created = client.post("/api/games", json={"game": "hundred", "players": ["Ann", "Ben"]}).get_json()
    game_id, key = created["id"], {"X-Edit-Key": created["edit_key"]}
    for version, card in enumerate(["2S", "3S", "4S", "5S", "6S", "7S"]):
        move = {"version": version, "move": {"type": "play", "card": card}}
        assert client.post(f"/api/games/{game_id}/moves", json=move, headers=key).status_code == 200
        assert client.post(f"/api/games/{game_id}/moves", json=move, headers=key).status_code == 409
        assert client.get(f"/games/{game_id}").status_code == 200
        assert client.get("/api/games/nothing").status_code == 404
        assert client.get("/").status_code == 200
        assert client.get(f"/games/{game_id}/log").status_code == 200
    stats = app.extensions["store"].pool().get_stats()
    assert stats["pool_size"] == stats["pool_available"]  # all of them back in the pool
    app.extensions["store"].close()


def test_a_connection_given_back_just_now_is_handed_out_without_a_check(tmp_path, pg_url, monkeypatch):
    """Issue 34: the pool checks a connection before handing it out (one more round trip)
    only when it has been idle longer than FRESH (the database may have restarted since):
    moves entered one after another, through the API, make no check; after a pause, one."""
    import psycopg_pool

    from companion.store import postgres

    checked = []
    check = psycopg_pool.ConnectionPool.check_connection
    monkeypatch.setattr(
        psycopg_pool.ConnectionPool, "check_connection", staticmethod(lambda conn: checked.append(1) or check(conn))
    )
    app = make_app(tmp_path, DATABASE_URL=pg_url, DATABASE_POOL_SIZE=1)
    client = app.test_client()
    created = client.post("/api/games", json={"game": "hundred", "players": ["Ann", "Ben"]}).get_json()
    game_id, key = created["id"], {"X-Edit-Key": created["edit_key"]}
    checked.clear()
    for version, card in enumerate(["2S", "3S", "4S", "5S"]):
        move = {"version": version, "move": {"type": "play", "card": card}}
        assert client.post(f"/api/games/{game_id}/moves", json=move, headers=key).status_code == 200
    assert checked == []
    monkeypatch.setattr(postgres, "FRESH", 0.0)  # as if every connection had been idle a while
    assert client.get(f"/api/games/{game_id}").get_json()["version"] == 4
    assert checked == [1]
    app.extensions["store"].close()


# ---------------------------------------------------------------------------
# Live pushes from any server
# ---------------------------------------------------------------------------


def test_a_move_stored_by_another_server_wakes_the_stream(pg_url):
    """The hub listens: a move written through another connection (another app server)
    wakes the stream at once, and a quiet game costs no query."""
    here, there = open_store(pg_url), open_store(pg_url)
    try:
        row, key = here.create("hundred", ["Ann", "Ben"])
        hub = Hub(here, limit=2)
        watch = hub.open(row["id"], 0)
        time.sleep(0.3)
        reads = hub.reads
        assert hub.looks > 1 and reads <= 2  # ticking, but nothing read while nothing changed
        started = time.perf_counter()
        there.play(row["id"], 0, {"type": "play", "card": "5C"}, key)
        assert hub.wait(watch, 0, timeout=5) == 1
        assert time.perf_counter() - started < 1
        hub.close(watch)
    finally:
        here.close()
        there.close()


# ---------------------------------------------------------------------------
# Two app servers on one database
# ---------------------------------------------------------------------------


def request(port: int, method: str, path: str, body=None, headers=None) -> tuple[int, dict | str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(method, path, None if body is None else json.dumps(body), headers or {})
        response = conn.getresponse()
        data = response.read().decode()
        try:
            return response.status, json.loads(data)
        except ValueError:
            return response.status, data
    finally:
        conn.close()


@pytest.fixture
def two_servers(tmp_path, pg_url):
    """Two gunicorn instances (as `make run` starts them: 2 workers x 8 threads each), each
    with its own instance folder, on one PostgreSQL database; their ports."""
    procs, ports = [], []
    for name in ("one", "two"):
        port = free_port()
        env = {
            **os.environ,
            "COMPANION_INSTANCE_PATH": str(tmp_path / name),
            "DATABASE_URL": pg_url,
            "COMPANION_SECRET_KEY": "shared",
            "COMPANION_CREATE_LIMIT": "10000 per minute",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        procs.append(subprocess.Popen(serve.gunicorn_command("127.0.0.1", port, "warning"), cwd=ROOT, env=env))
        ports.append(port)
    try:
        for proc, port in zip(procs, ports):
            deadline = time.monotonic() + 60
            while True:
                try:
                    if request(port, "GET", "/healthz")[0] == 200:
                        break
                except OSError:
                    pass
                assert proc.poll() is None and time.monotonic() < deadline, "gunicorn did not start"
                time.sleep(0.1)
        yield ports
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(timeout=45)  # gunicorn's graceful timeout (30 s) and more: see tests/test_serve.py


def test_twenty_clients_on_two_servers_send_the_same_move_one_wins(two_servers, pg_url):
    """Issue 19: 20 clients, half on each app server, send the same move at the same
    version at the same instant, five times over: each time exactly one 2xx and nineteen
    409, and the database holds exactly one row for each."""
    ports = two_servers
    json_headers = {"Content-Type": "application/json"}
    status, created = request(ports[0], "POST", "/api/games", {"game": "hundred", "players": ["A", "B"]}, json_headers)
    assert status == 201, created
    headers = {**json_headers, "X-Edit-Key": created["edit_key"]}
    cards = ["2S", "3S", "4S", "5S", "6S"]
    for version, card in enumerate(cards):
        body = {"version": version, "move": {"type": "play", "card": card}}
        start = threading.Barrier(20)

        def send(n):
            start.wait(timeout=30)
            return request(ports[n % 2], "POST", f"/api/games/{created['id']}/moves", body, headers)[0]

        with ThreadPoolExecutor(20) as pool:
            statuses = sorted(pool.map(send, range(20)))
        assert statuses == [200] + [409] * 19, statuses
    for port in ports:  # either server reads what the other wrote
        status, transcript = request(port, "GET", f"/api/games/{created['id']}/transcript")
        assert [m["card"] for m in transcript["moves"]] == cards
    store = open_store(pg_url)
    try:
        rows = store.query("SELECT seq, move FROM moves WHERE game_id = ? ORDER BY seq", (created["id"],))
        assert [(r["seq"], json.loads(r["move"])["card"]) for r in rows] == list(enumerate(cards, 1))
    finally:
        store.close()


# ---------------------------------------------------------------------------
# The database out of reach
# ---------------------------------------------------------------------------


def test_an_unreachable_database_is_a_503_and_nothing_is_lost(tmp_path):
    """A server of its own, stopped under a running app: pages answer a 503 page and the API
    a JSON 503 (never a traceback), nothing is half-written, and once the database is back
    the game is as it was and plays on."""
    with postgres_cluster() as cluster:
        app = make_app(tmp_path, DATABASE_URL=cluster.url, DATABASE_POOL_TIMEOUT=1)
        client = app.test_client()
        created = client.post("/api/games", json={"game": "hundred", "players": ["Ann", "Ben"]}).get_json()
        key = {"X-Edit-Key": created["edit_key"]}
        move = {"version": 0, "move": {"type": "play", "card": "5C"}}
        assert client.post(f"/api/games/{created['id']}/moves", json=move, headers=key).status_code == 200
        cluster.stop()
        try:
            page = client.get(f"/games/{created['id']}")
            assert page.status_code == 503 and "Try again in a moment" in page.get_data(as_text=True)
            assert "Traceback" not in page.get_data(as_text=True) and page.headers["Retry-After"]
            move = {"version": 1, "move": {"type": "play", "card": "6C"}}
            answer = client.post(f"/api/games/{created['id']}/moves", json=move, headers=key)
            assert answer.status_code == 503 and answer.get_json()["error"]
        finally:
            cluster.start()
        deadline = time.monotonic() + 30
        while (game := client.get(f"/api/games/{created['id']}")).status_code == 503:
            assert time.monotonic() < deadline, "the pool did not reconnect"  # it retries, backing off
            time.sleep(0.2)
        assert game.status_code == 200 and game.get_json()["version"] == 1  # the first move kept, nothing else
        assert client.post(f"/api/games/{created['id']}/moves", json=move, headers=key).status_code == 200
        app.extensions["store"].close()


def test_the_database_is_chosen_by_database_url(tmp_path, pg_url, monkeypatch):
    """SQLite with no configuration; DATABASE_URL (or COMPANION_DATABASE_URL, which wins)
    a PostgreSQL database, the pool sized by COMPANION_DATABASE_POOL_SIZE."""
    from companion.store.postgres import PostgresStore

    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("COMPANION_DATABASE_URL", raising=False)
    plain = create_app({"TESTING": True, "SECRET_KEY": "x"}, instance_path=str(tmp_path / "a"))
    assert type(plain.extensions["store"]) is SqliteStore and (tmp_path / "a" / "companion.db").exists()
    monkeypatch.setenv("DATABASE_URL", pg_url)
    monkeypatch.setenv("COMPANION_DATABASE_POOL_SIZE", "3")
    shared = create_app({"TESTING": True, "SECRET_KEY": "x"}, instance_path=str(tmp_path / "b"))
    store = shared.extensions["store"]
    assert isinstance(store, PostgresStore) and store.pool_size == 3
    assert not (tmp_path / "b" / "companion.db").exists()
    store.close()
    monkeypatch.setenv("DATABASE_URL", "postgresql://nobody@127.0.0.1:1/none")
    monkeypatch.setenv("COMPANION_DATABASE_URL", pg_url)
    chosen = create_app({"TESTING": True, "SECRET_KEY": "x"}, instance_path=str(tmp_path / "c"))
    assert isinstance(chosen.extensions["store"], PostgresStore)
    chosen.extensions["store"].close()


def test_a_server_that_can_t_reach_its_database_says_so_at_start(tmp_path):
    url = f"postgresql://postgres@127.0.0.1:{free_port()}/postgres"
    with pytest.raises(RuntimeError, match="Can't reach the PostgreSQL database"):
        create_app({"TESTING": True, "SECRET_KEY": "x", "DATABASE_URL": url}, instance_path=str(tmp_path))


# ---------------------------------------------------------------------------
# A lock per game, and a move in two round trips (issue 34)
# ---------------------------------------------------------------------------


def holding(pg_url, *locks: str):
    """A connection of its own (another server's change under way) inside a transaction
    holding the advisory ``locks`` (SQL calls); ``COMMIT`` on it lets go."""
    import psycopg

    conn = psycopg.connect(pg_url, autocommit=True)
    conn.execute("BEGIN")
    for lock in locks:
        conn.execute(f"SELECT {lock}")
    return conn


def in_thread(call):
    """``call()`` in a thread of its own: the thread, and a list its answer (or error) goes in."""
    out: list = []

    def run():
        try:
            out.append(call())
        except Exception as e:  # pragma: no cover - shown by the assertion on out
            out.append(e)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, out


def test_changes_of_two_games_do_not_wait_for_each_other(pg_url):
    """Another server's change of game A holds A's lock: a move on game B goes through at
    once; a move on A waits until that change ends, then applies (at the version it saw)."""
    from companion.store.postgres import WRITE_LOCK, game_lock

    store = open_store(pg_url)
    try:
        a, _ = store.create("hundred", ["Ann", "Ben"])
        b, _ = store.create("hundred", ["Cy", "Dee"])
        other = holding(
            pg_url,
            f"pg_advisory_xact_lock_shared({WRITE_LOCK}), pg_advisory_xact_lock({WRITE_LOCK}, {game_lock(a['id'])})",
        )
        try:
            thread, out = in_thread(lambda: store.play(b["id"], 0, {"type": "play", "card": "2S"}))
            thread.join(10)
            assert not thread.is_alive() and out[0][0] == 1  # B's move: not held up by A's lock
            thread, out = in_thread(lambda: store.play(a["id"], 0, {"type": "play", "card": "3S"}))
            thread.join(0.5)
            assert thread.is_alive() and not out  # A's move waits for A's change
        finally:
            other.execute("COMMIT")
            other.close()
        thread.join(10)
        assert not thread.is_alive() and out[0][0] == 1
        assert store.version(a["id"]) == store.version(b["id"]) == 1
    finally:
        store.release()
        store.close()


def test_what_is_not_one_game_s_waits_for_every_change_under_way(pg_url):
    """A new game adds players to the roster, rows no game's lock covers: it takes the whole
    database's lock, so it waits while any game's change is under way (it holds that lock
    shared), and goes through once the change ends."""
    from companion.store.postgres import WRITE_LOCK, game_lock

    store = open_store(pg_url)
    try:
        a, _ = store.create("hundred", ["Ann", "Ben"])
        other = holding(
            pg_url,
            f"pg_advisory_xact_lock_shared({WRITE_LOCK}), pg_advisory_xact_lock({WRITE_LOCK}, {game_lock(a['id'])})",
        )
        try:
            thread, out = in_thread(lambda: store.create("hundred", ["Ann", "Cy"]))
            thread.join(0.5)
            assert thread.is_alive() and not out
        finally:
            other.execute("COMMIT")
            other.close()
        thread.join(10)
        assert not thread.is_alive() and out[0][0]["players"] == ["Ann", "Cy"]
    finally:
        store.release()
        store.close()


def test_games_with_the_same_players_end_deals_together(pg_url):
    """Deals ending at the same time in games of the same two players, seated in opposite
    orders, write the same players' totals (triggers on seats) in opposite orders: the
    figures' lock makes them take turns, so none fails (no deadlock) and the totals are the
    sums of the seats."""
    from companion.store import TOTALS

    store = open_store(pg_url)
    tables = [["Ann", "Ben"], ["Ben", "Ann"]] * 3
    games = [store.create("hundred", players)[0] for players in tables]

    def play_out(game):
        version = 0
        while True:
            try:
                loser = game["players"][version % 2]
                version, state = store.play(game["id"], version, {"type": "tally", "loser": loser})
            finally:
                store.release()
            if state.result is not None:
                return version

    try:
        with ThreadPoolExecutor(len(games)) as pool:
            assert all(v == 5 for v in pool.map(play_out, games))
        sums = ", ".join(f"sum({v.format(s='s')})" for v in TOTALS.values())
        expected = store.query(
            f"SELECT p.name, {sums} FROM seats s JOIN players p ON p.id = s.player_id GROUP BY p.name ORDER BY p.name"
        )
        kept = store.query(
            f"SELECT p.name, {', '.join(TOTALS)} FROM totals t JOIN players p ON p.id = t.player_id ORDER BY p.name"
        )
        assert [tuple(r) for r in kept] == [tuple(r) for r in expected] and len(kept) == 2
        assert expected[0][1] == len(games)  # Ann played every game
    finally:
        store.release()
        store.close()


def round_trips(store, call) -> int:
    """How many times this thread's connection sent statements and then waited for answers
    while ``call()`` ran (libpq's trace: each run of messages sent followed by one received)."""
    import tempfile

    from psycopg import pq

    conn = store._conn().raw
    with tempfile.TemporaryFile("w+") as trace:
        conn.pgconn.trace(trace.fileno())
        conn.pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)
        try:
            call()
        finally:
            conn.pgconn.untrace()
        trace.seek(0)
        sides = [line.split("\t", 1)[0] for line in trace.read().splitlines()]
    return sum(1 for sent, got in zip(sides, sides[1:]) if sent == "F" and got == "B")


def test_a_move_is_two_round_trips(pg_url):
    """A move sends its locks and reads together, then its writes and COMMIT together: two
    round trips (there were ten, one a statement), three when it ends a deal (the deal
    records are read for the figures), with a referee key and a tap id or without. An
    undo is three (it reads the moves to replay once it knows which), a read one."""
    from companion.games import tablanette
    from tests.test_undo_properties import tablanette_moves

    store = open_store(pg_url)
    try:
        row, key = store.create("tablanette", ["Ann", "Ben"], {"target": 10**6})
        moves = tablanette_moves(5, 60)
        state, ends = tablanette.start(["Ann", "Ben"], {"target": 10**6}), []
        for move in moves:
            after = tablanette.apply(state, move)
            ends.append(len(after.history) > len(state.history))
            state = after
        assert ends.count(True) == 1  # a deal is 49 moves
        trips = []
        for version, move in enumerate(moves):
            extra = {"key": key, "entry": f"tap-{version}"} if version % 2 else {}
            trips.append(round_trips(store, lambda: store.play(row["id"], version, move, **extra)))
        assert trips == [3 if end else 2 for end in ends]
        assert round_trips(store, lambda: store.undo(row["id"], len(moves), key)) == 3
        assert round_trips(store, lambda: store.get(row["id"])) == 1
    finally:
        store.release()
        store.close()


def test_json_exports_of_a_copy_compare_line_by_line(tmp_path, pg_url):
    """Issue 44: `flask export --json` of a server and of its copy on PostgreSQL (and of
    that copy back on SQLite) are the same text, a row a line: the rows in one order on
    either database, whatever order they were written in (two games' moves interleaved)."""
    app = make_app(tmp_path)
    store = app.extensions["store"]
    fill(store)
    first, key_1 = store.create("hundred", ["Ann", "Ben"])
    second, key_2 = store.create("hundred", ["Cy", "Dee"])
    for version, card in enumerate(["2S", "3S", "4S"]):
        store.play(second["id"], version, {"type": "play", "card": card}, key_2)
        store.play(first["id"], version, {"type": "play", "card": card}, key_1)
    runner = app.test_cli_runner()
    assert (
        runner.invoke(args=["db", "copy", "--from", f"sqlite:///{tmp_path / 'test.db'}", "--to", pg_url]).exit_code == 0
    )
    back = tmp_path / "back"
    back.mkdir()
    assert runner.invoke(args=["db", "copy", "--from", pg_url, "--to", f"sqlite:///{back / 'c.db'}"]).exit_code == 0
    pg = open_store(pg_url)
    try:
        assert pg.rows() == store.rows()  # the same rows, in the same order
    finally:
        pg.close()
    exports = []
    for name, other in (("sqlite", make_app(tmp_path)), ("pg", make_app(tmp_path / "pg", DATABASE_URL=pg_url))):
        path = tmp_path / f"{name}.json"
        done = other.test_cli_runner().invoke(args=["export", "--json", str(path)])
        assert done.exit_code == 0, done.output
        exports.append(path.read_text(encoding="utf-8").splitlines())
        other.extensions["store"].close()
    path = tmp_path / "back.json"
    again = create_app({"TESTING": True, "SECRET_KEY": "t", "DATABASE": str(back / "c.db")}, str(back))
    assert again.test_cli_runner().invoke(args=["export", "--json", str(path)]).exit_code == 0
    exports.append(path.read_text(encoding="utf-8").splitlines())
    rows = sum(len(t) for t in json.loads("\n".join(exports[0]))["tables"].values())
    assert len(exports[0]) == 1 + rows + 2 * 9 + 1  # the head, a row a line, each table's brackets, the end
    assert exports[0] == exports[1] == exports[2]
