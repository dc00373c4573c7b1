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
