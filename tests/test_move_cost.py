"""A move that does not grow (issue 17): one read of the game, in its one write
transaction, the finished deals written once and sent only where shown, so a move's
answers (htmx and JSON) carry no more at move 1,000 than at move 10."""

import pytest

from tests.conftest import become_referee
from tests.test_undo_properties import tablanette_moves

OPTIONS = {"target": 10**6}
HX = {"HX-Request": "true"}


@pytest.fixture
def long_game(app, client):
    """A referee's game three deals and a bit in (the fourth deal's first plays), and its
    moves from there to the end of that deal."""
    created = client.post("/api/games", json={"game": "tablanette", "players": ["Ann", "Ben"], "options": OPTIONS})
    game = created.get_json()
    become_referee(client, game["id"], game["edit_key"])
    moves = tablanette_moves(11, 4 * 49)  # a deal: its layout and 48 cards
    store = app.extensions["store"]
    version = 0
    for move in moves[: 3 * 49 + 5]:
        version, _ = store.play(game["id"], version, move)
    return game, version, moves[3 * 49 + 5 :]


class Statements:
    """The SQL a request sends on this thread's connection (the test client runs the
    request on the test's thread)."""

    def __init__(self, store):
        self.conn, self.seen = store._conn(), []

    def __enter__(self):
        self.conn.set_trace_callback(self.seen.append)
        return self

    def __exit__(self, *exc):
        self.conn.set_trace_callback(None)

    def count(self, *words: str) -> int:
        return sum(all(w in " ".join(s.split()) for w in words) for s in self.seen)


def post(client, game_id, version, move, **more):
    data = {"version": str(version), "type": move["type"], **more}
    if move["type"] == "layout":
        data["cards[]"] = move["cards"]
    else:
        data["card"] = move["card"]
        data["capture[]"] = move["capture"] or [""]
    return client.post(f"/games/{game_id}/moves", data=data, headers=HX)


def test_a_move_reads_the_game_once_writes_once_and_sends_no_finished_deal(app, client, long_game):
    game, version, rest = long_game
    with Statements(app.extensions["store"]) as sql:
        answer = post(client, game["id"], version, rest[0])
    body = answer.get_data(as_text=True)
    assert answer.status_code == 200 and answer.headers["X-Version"] == str(version + 1)
    # Issue 34: the change's own read of the game and of its referee keys, nothing before it.
    assert sql.count("SELECT", "FROM games") == 1 and sql.count("SELECT", "FROM referees") == 1
    assert sql.count("BEGIN IMMEDIATE") == 1 and sql.count("UPDATE games") == 1
    assert sql.count("FROM deals") == 0 and sql.count("INSERT INTO deals") == 0
    assert 'id="finished"' not in body and "Deal by deal" not in body  # three deals done: not sent again


def test_the_move_that_ends_a_deal_writes_it_once_and_sends_the_table(app, client, long_game):
    game, version, rest = long_game
    store = app.extensions["store"]
    for move in rest[:-1]:
        version, _ = store.play(game["id"], version, move)
    with Statements(store) as sql:
        answer = post(client, game["id"], version, rest[-1])
    body = answer.get_data(as_text=True)
    assert answer.status_code == 200 and store.get(game["id"])["deals"] == 4
    assert sql.count("INSERT INTO deals") == 1
    assert 'id="finished"' in body and "Deal by deal" in body  # shown where it changed
    assert body.count("<tr>") >= 4  # every deal in its table


def test_a_json_change_answer_carries_the_last_deal_only(app, client, long_game):
    game, version, rest = long_game
    headers = {"X-Edit-Key": game["edit_key"]}
    answer = client.post(f"/api/games/{game['id']}/moves", json={"version": version, "move": rest[0]}, headers=headers)
    changed = answer.get_json()
    assert answer.status_code == 200 and changed["deals"] == 3
    assert len(changed["view"]["history"]) == 1 and changed["view"]["history"][0]["deal"] == 3
    whole = client.get(f"/api/games/{game['id']}").get_json()
    assert whole["deals"] == 3 and [d["deal"] for d in whole["view"]["history"]] == [1, 2, 3]
    undone = client.post(f"/api/games/{game['id']}/undo", json={"version": version + 1}, headers=headers).get_json()
    assert undone["deals"] == 3 and len(undone["view"]["history"]) == 1


def test_a_watchers_unchanged_poll_loads_no_state(app, client, long_game):
    game, version, _ = long_game
    with Statements(app.extensions["store"]) as sql:
        answer = client.get(f"/games/{game['id']}/live?version={version}", headers=HX)
    assert answer.status_code == 204
    assert sql.count("SELECT", "FROM games") == 1 and sql.count("SELECT version FROM games") == 1


def logged(page: str) -> int:
    """How many moves a log page lists."""
    return page[page.index('<ol class="log"') : page.index("</ol>")].count("<li")


def test_the_log_shows_a_page_of_moves_the_latest_first(app, client, long_game):
    """Issue 17: the move log costs the same at move 1,000 as at move 10: a page of
    LOG_PAGE moves, numbered as in the game, the latest page unless another is asked for."""
    from companion.views.games import LOG_PAGE

    game, version, _ = long_game  # 152 moves: pages of 25, the last holds 151-152
    with Statements(app.extensions["store"]) as sql:
        page = client.get(f"/games/{game['id']}/log").get_data(as_text=True)
    assert LOG_PAGE == 25 and version == 152
    assert '<ol class="log" start="151">' in page and logged(page) == 2
    assert "Page 7 of 7" in page and "page=6" in page and "page=8" not in page
    assert sql.count("FROM moves WHERE game_id", "AND seq >=", "AND seq <=") == 1  # one page read, no whole log
    first = client.get(f"/games/{game['id']}/log?page=1").get_data(as_text=True)
    assert '<ol class="log" start="1">' in first and logged(first) == 25 and "page=2" in first
    for asked in ("99", "0", "x"):  # out of range or not a number: the nearest page, never an error
        answer = client.get(f"/games/{game['id']}/log?page={asked}")
        assert answer.status_code == 200 and "Page" in answer.get_data(as_text=True)


def test_watchers_read_only_the_latest_moves(app, client, long_game):
    game, version, _ = long_game
    watcher = app.test_client()
    with Statements(app.extensions["store"]) as sql:
        page = watcher.get(f"/games/{game['id']}").get_data(as_text=True)
    assert sql.count("FROM moves", "ORDER BY seq DESC LIMIT 10") == 1 and sql.count("AND seq >=") == 0
    assert page.count("<li>") >= 10  # the last ten moves, in words


def test_an_undo_reads_the_game_once_in_its_change(app, client, long_game):
    """As a tap: the change's own read of the game and of its referee keys, nothing before
    it; the answer still sends only the picker cards that changed (the undone one)."""
    game, version, rest = long_game
    assert post(client, game["id"], version, rest[0]).status_code == 200
    with Statements(app.extensions["store"]) as sql:
        answer = client.post(f"/games/{game['id']}/undo", data={"version": str(version + 1)}, headers=HX)
    body = answer.get_data(as_text=True)
    assert answer.status_code == 200 and answer.headers["X-Version"] == str(version + 2)
    assert sql.count("SELECT", "FROM games") == 1 and sql.count("SELECT", "FROM referees") == 1
    assert sql.count("BEGIN IMMEDIATE") == 1 and sql.count("UPDATE games") == 1
    assert f'id="pick-{rest[0]["card"]}"' in body and 'id="picker"' not in body


# ---------------------------------------------------------------------------
# Data flows one way on a move (issue 44)
# ---------------------------------------------------------------------------


def test_the_stores_move_takes_plain_data():
    """The store's change calls nothing of its caller's: every parameter of its move is
    data (a game id, a version, a move, a key, a tap's id, the game checked for, whether
    to ask first), none a function for it to call back inside its write transaction."""
    import collections.abc
    import inspect
    import typing

    from companion.store import SqliteStore, Store
    from companion.store.postgres import PostgresStore

    for play in (Store.play_and_read, SqliteStore.play_and_read, PostgresStore.play_and_read):
        hints = typing.get_type_hints(play, globalns=vars(inspect.getmodule(play)))
        for name, hint in hints.items():
            kinds = typing.get_args(hint) or (hint,)
            called = [k for k in kinds if typing.get_origin(k) is collections.abc.Callable or k is typing.Callable]
            assert not called, name
    assert list(inspect.signature(Store.play_and_read).parameters)[1:] == [
        "game_id",
        "version",
        "move",
        "key",
        "entry",
        "game",
        "ask",
    ]


@pytest.fixture
def watched(app, monkeypatch):
    """What runs while the store's write transaction is open: each call of a function of
    the views, the schemas or the web adapters made meanwhile (``inside``), and every
    ``narrate`` of the engines (``narrated``)."""
    import sys
    from contextlib import contextmanager

    from companion import games

    store = app.extensions["store"]
    real, open_, inside, narrated = store._write, [], [], []

    @contextmanager
    def write(*args, **kwargs):
        with real(*args, **kwargs) as conn:
            open_.append(1)
            try:
                yield conn
            finally:
                open_.pop()

    monkeypatch.setattr(store, "_write", write)
    for name in games.GAMES:
        rules = games.get(name)

        def counted(state, move, _narrate=rules.narrate):
            narrated.append(move)
            return _narrate(state, move)

        monkeypatch.setattr(rules, "narrate", counted)
    callers = ("companion.views", "companion.schemas", "companion.web", "flask")

    def profile(frame, event, arg):
        if event == "call" and open_ and frame.f_globals.get("__name__", "").startswith(callers):
            inside.append(f"{frame.f_globals['__name__']}.{frame.f_code.co_name}")

    sys.setprofile(profile)
    try:
        yield inside, narrated
    finally:
        sys.setprofile(None)


def test_a_move_runs_no_view_code_in_its_write_transaction_and_is_narrated_once(app, client, long_game, watched):
    """A tap's write transaction runs the store and the engine only: the view has decided
    what the move is before it (the schema, whether to ask first) and words the answer
    after it. The move's words are worked out once, in the change: the log keeps them and
    Undo's label in the answer is made from them, not narrated again."""
    inside, narrated = watched
    game, version, rest = long_game
    answer = post(client, game["id"], version, rest[0])
    body = answer.get_data(as_text=True)
    assert answer.status_code == 200 and inside == []
    assert narrated == [rest[0]]  # once, for the log and Undo alike
    said = app.extensions["store"].moves(game["id"], latest=1)[0]["said"]
    assert said and all(str(r).split()[0] in body for r in said)  # Undo names the move: "Ben played ..."
    narrated.clear()
    page = client.get(f"/games/{game['id']}")
    assert page.status_code == 200 and narrated == []  # the page's Undo label: the kept words
    undone = client.post(f"/games/{game['id']}/undo", data={"version": str(version + 1)}, headers=HX)
    assert undone.status_code == 200 and narrated == [] and inside == []


def test_a_json_move_runs_no_view_code_in_its_write_transaction(app, client, long_game, watched):
    inside, narrated = watched
    game, version, rest = long_game
    headers = {"X-Edit-Key": game["edit_key"]}
    answer = client.post(f"/api/games/{game['id']}/moves", json={"version": version, "move": rest[0]}, headers=headers)
    assert answer.status_code == 200 and inside == [] and narrated == [rest[0]]
