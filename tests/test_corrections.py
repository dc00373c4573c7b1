"""Correcting an entry in place (issue 46, RULES.md 5.1): the engine's replay, the store's
change that saves it, and the pages a referee corrects from."""

from __future__ import annotations

import html
import json
import re

import pytest

from companion import games
from companion.errors import AmbiguousMove, IllegalMove
from companion.games import tablanette as TB
from companion.games.common import Stopped, replay
from companion.store import Conflict, NotFound, NotReferee, open_store
from companion.store.checks import check_games
from companion.store.rows import SNAPSHOT_EVERY
from tests.conftest import form_values, new_game, post_move, snapshot, version_of
from tests.e2e.deals import script

#: One deal of each game, dealt from a seeded shuffle (tests/e2e/deals.py): its moves.
DEALS = {game: (script(game)[0], [s.move for s in script(game)[1]]) for game in games.GAMES}
PLAYERS, MOVES = DEALS["tablanette"]
# Move 10 of the Tablanette deal: Ben laid the 5♣ down. 5♦ was never played; 2♣ was, at move 16.
TEN = {"type": "play", "card": "5C"}


def play(rules, players, moves, options=None):
    state = rules.start(players, options)
    for m in moves:
        state = rules.apply(state, m)
    return state


def replayed(rules, players, moves, corrections, options=None):
    state = rules.start(players, options)
    for _n, _m, state in replay(rules.apply, state, enumerate(moves, 1), corrections):
        pass
    return state


# ---------------------------------------------------------------------------
# The engine's replay
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("game", games.GAMES)
def test_a_replay_with_nothing_corrected_is_the_log(game):
    """RULES.md 5.1 C1: with no replacement, the replay is the game as it was played."""
    rules, (players, moves) = games.get(game), DEALS[game]
    assert rules.dump(replayed(rules, players, moves, {})) == rules.dump(play(rules, players, moves))


@pytest.mark.parametrize("game", games.GAMES)
def test_an_entry_replaced_by_itself_changes_nothing(game):
    """RULES.md 5.1 C1: each entry replaced by its own move replays to the same game."""
    rules, (players, moves) = games.get(game), DEALS[game]
    for k in (1, len(moves) // 2, len(moves)):
        corrected = replayed(rules, players, moves, {k: dict(moves[k - 1])})
        assert rules.dump(corrected) == rules.dump(play(rules, players, moves))


def test_a_card_replaced_ten_entries_back_is_played_on_top_of():
    """RULES.md 5.1 C1: 5♦ for 5♣ at move 10, and the ten moves after it replayed: the game
    is the one played with 5♦ there (the table holds it, not the 5♣)."""
    corrections = {10: {"type": "play", "card": "5D"}}
    moves = MOVES[:20]
    assert moves[9] == TEN
    corrected = replayed(TB, PLAYERS, moves, corrections)
    assert TB.dump(corrected) == TB.dump(play(TB, PLAYERS, [corrections.get(i, m) for i, m in enumerate(moves, 1)]))
    view = TB.view(corrected)
    assert "5D" in view["seen"] and "5C" not in view["seen"]


def test_the_replay_stops_at_the_first_entry_that_no_longer_fits():
    """RULES.md 5.1 C2: 2♣ at move 10 makes move 16 (the 2♣) a card played twice: the replay
    stops there, naming it and the engine's reason; the moves before it were replayed."""
    seen = []
    with pytest.raises(Stopped) as stop:
        for n, _move, _state in replay(
            TB.apply, TB.start(PLAYERS, None), enumerate(MOVES[:20], 1), {10: {"type": "play", "card": "2C"}}
        ):
            seen.append(n)
    assert stop.value.entry == 16 and stop.value.move == {"type": "play", "card": "2C"}
    assert isinstance(stop.value.refusal, IllegalMove) and stop.value.refusal.code == "already_played"
    assert str(stop.value) == "Entry 16 no longer fits: 2C was already played this deal: each card is played once."
    assert seen == list(range(1, 16))
    # The referee corrects move 16 too (the two cards were swapped): the whole log replays.
    both = {10: {"type": "play", "card": "2C"}, 16: {"type": "play", "card": "5C"}}
    assert (
        TB.view(replayed(TB, PLAYERS, MOVES[:20], both))["to_act"] == TB.view(play(TB, PLAYERS, MOVES[:20]))["to_act"]
    )


def test_the_replay_stops_where_an_entry_must_now_choose():
    """RULES.md 5.1 C2: the 4♠ laid at move 2 lets the K♦ of move 3 take 4♠ + 10♠ or
    4♠ + 10♥: the entry, which named no capture, must now choose, and the replay says so."""
    with pytest.raises(Stopped) as stop:
        replayed(TB, PLAYERS, MOVES, {2: {"type": "play", "card": "4S"}})
    assert stop.value.entry == 3 and isinstance(stop.value.refusal, AmbiguousMove)
    assert sorted(stop.value.refusal.options) == [["4S", "10H"], ["4S", "10S"]]


# ---------------------------------------------------------------------------
# The store's change
# ---------------------------------------------------------------------------


@pytest.fixture
def store(database):
    s = open_store(database)
    yield s
    s.close()


def played(store, moves, game="tablanette", players=PLAYERS, options=None):
    row, key = store.create(game, players, options)
    version = 0
    for m in moves:
        version, _ = store.play(row["id"], version, m, key=key)
    return row["id"], key, version


def checks_out(store) -> int:
    with store._read() as conn:
        return check_games(conn)


def test_a_correction_is_saved_with_what_it_replaced(store):
    """RULES.md 5.1 C1-C3: the moves hold their new moves and words; the correction keeps
    what each held before, when and by which phone; the game replays from its log."""
    game_id, key, version = played(store, MOVES[:20])
    both = {10: {"type": "play", "card": "2C"}, 16: {"type": "play", "card": "5C"}}
    after = store.correct_and_read(game_id, version, both, key=key)
    assert after["version"] == version + 1 and after["before"]["version"] == version
    moves = store.moves(game_id)
    assert [moves[9]["move"], moves[15]["move"]] == [both[10], both[16]]
    assert str(moves[9]["said"][0]) == "Ben played 2C and laid it down."
    assert store.transcript(game_id)["moves"] == [both.get(i, m) for i, m in enumerate(MOVES[:20], 1)]
    kept = store.corrections(game_id)
    assert [(c["seq"], c["before"], c["after"]) for c in kept] == [
        (10, TEN, both[10]),
        (16, both[16] | {"card": "2C"}, both[16]),
    ]
    assert kept[0]["referee"] == store.referee_id(game_id, key) and kept[0]["time"] == kept[1]["time"]
    assert str(kept[0]["before_said"][0]) == "Ben played 5C and laid it down."
    assert TB.dump(store.get(game_id)["state"]) == TB.dump(replayed(TB, PLAYERS, MOVES[:20], both))
    assert checks_out(store) == 1


def test_nothing_is_saved_unless_the_whole_log_replays(store):
    """RULES.md 5.1 C2: a correction whose replay stops writes nothing."""
    game_id, key, version = played(store, MOVES[:20])
    before = (store.get(game_id)["version"], store.moves(game_id), store.corrections(game_id))
    with pytest.raises(Stopped) as stop:
        store.correct_and_read(game_id, version, {10: {"type": "play", "card": "2C"}}, key=key)
    assert stop.value.entry == 16
    assert (store.get(game_id)["version"], store.moves(game_id), store.corrections(game_id)) == before


def test_a_correction_is_checked_as_a_move_is(store):
    """RULES.md 5.1 C5: the version the referee saw, a key in force, a move in effect."""
    game_id, key, version = played(store, MOVES[:6])
    five = {4: {"type": "play", "card": "5D"}}
    with pytest.raises(Conflict):
        store.correct_and_read(game_id, version - 1, five, key=key)
    with pytest.raises(NotReferee):
        store.correct_and_read(game_id, version, five, key="not-a-key")
    store.undo(game_id, version, key=key)
    with pytest.raises(NotFound):  # move 6 is undone: nothing to correct
        store.correct_and_read(game_id, version + 1, {6: {"type": "play", "card": "5D"}}, key=key)
    with pytest.raises(NotFound):
        store.position(game_id, 6)
    assert store.get(game_id)["version"] == version + 1 and store.corrections(game_id) == []


def test_a_long_games_snapshots_are_made_again(store):
    """A correction before the snapshots undo starts from (every SNAPSHOT_EVERY moves)
    writes them again: the game checks out, and undo after it gives the corrected game."""
    moves = MOVES[:48]  # the whole deal but its last move
    assert len(moves) > SNAPSHOT_EVERY
    game_id, key, version = played(store, moves)
    both = {10: {"type": "play", "card": "2C"}, 16: {"type": "play", "card": "5C"}}
    after = store.correct_and_read(game_id, version, both, key=key)
    assert checks_out(store) == 1
    store.undo(game_id, after["version"], key=key)
    corrected = [both.get(i, m) for i, m in enumerate(moves, 1)]
    assert TB.dump(store.get(game_id)["state"]) == TB.dump(play(TB, PLAYERS, corrected[:-1]))
    state, deals = store.position(game_id, 40)
    assert TB.dump(state) == TB.dump(play(TB, PLAYERS, corrected[:39])) and deals == 0


#: Every counting card (standard scale).
COUNTERS = [f"{r}{s}" for r in ("A", "K", "Q", "J", "10") for s in "SHDC"] + ["2C"]


def tally(ann: int) -> dict:
    """A Tablanette deal tallied from its end: Ann took ``ann`` cards and every counting card."""
    return {"type": "tally", "cards": {"Ann": ann, "Ben": 52 - ann}, "counters": {"Ann": COUNTERS, "Ben": []}}


def test_the_standings_follow_the_corrected_game(store):
    """RULES.md 5.1 C3: deal 1's tally corrected, with as many deals finished as before: the
    deal is recorded again, and the seats' figures (what the standings sum) are the
    corrected game's (check_games works them out from the replay)."""
    game_id, key, version = played(store, [tally(30), tally(27)])
    store.correct_and_read(game_id, version, {1: tally(25)}, key=key)
    assert [d["cards"]["Ann"] for d in store.history(game_id)] == [25, 27]
    assert checks_out(store) == 1


def test_a_confirmed_result_that_changed_is_confirmed_again(store):
    """RULES.md 5.1 C3-C4: under "other side confirms", correcting deal 2's tally leaves deal 1
    confirmed and deal 2 to confirm again; a correction that changes no record keeps it."""
    row, key = store.create("tablanette", PLAYERS)
    game_id = row["id"]
    store.make_link(game_id, "confirm")
    version = 0
    for ann in (30, 27):
        version, _ = store.play(game_id, version, tally(ann), key=key)
    assert store.confirm(game_id, version) == 2
    same = store.correct_and_read(game_id, version, {2: tally(27)}, key=key)
    assert same["confirmed"] == 2
    changed = store.correct_and_read(game_id, same["version"], {2: tally(25)}, key=key)
    assert changed["confirmed"] == 1
    assert [d["cards"] for d in store.history(game_id)] == [{"Ann": 30, "Ben": 22}, {"Ann": 25, "Ben": 27}]
    assert checks_out(store) == 1  # the seats' figures are the corrected game's


# ---------------------------------------------------------------------------
# The pages
# ---------------------------------------------------------------------------


def fields(move: dict) -> dict:
    """A move as the board's forms post it."""
    return {(f"{k}[]" if isinstance(v, list) else k): v for k, v in move.items()}


def refereed(client, moves=MOVES[:20]) -> str:
    """A Tablanette game made on ``client`` (its referee), ``moves`` tapped in."""
    game_id = new_game(client)
    for m in moves:
        assert post_move(client, game_id, **fields(m)).status_code == 200, m
    return game_id


def correct(client, game_id, seq, move, pending="", version=None):
    data = {"version": version_of(client, game_id) if version is None else version, "seq": seq, "pending": pending}
    return client.post(f"/games/{game_id}/correct", data=data | fields(move))


def carried(page: str) -> str:
    """The corrections a page carries to its next step (its forms' ``pending``)."""
    return html.unescape(re.search(r'name="pending" value="([^"]*)"', page).group(1))


def text(page: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", page).split())


def test_a_referee_corrects_a_move_ten_back_from_the_log(client, app):
    game_id = refereed(client)
    log = client.get(f"/games/{game_id}/log").get_data(as_text=True)
    assert f'href="/games/{game_id}/correct/10"' in log
    page = client.get(f"/games/{game_id}/correct/10")
    assert page.status_code == 200
    words = text(page.get_data(as_text=True))
    assert "Correct move 10" in words and "Entered: Ben played 5♣ and laid it down." in words
    assert 'action="/games/%s/correct"' % game_id in page.get_data(as_text=True)
    answer = correct(client, game_id, 10, {"type": "play", "card": "5D"})
    assert answer.status_code == 303 and answer.headers["Location"] == f"/games/{game_id}"
    board = text(client.get(answer.headers["Location"]).get_data(as_text=True))
    assert "Move 10 corrected: the moves after it were played again." in board
    log = text(client.get(f"/games/{game_id}/log").get_data(as_text=True))
    assert re.search(
        r"Ben played 5♦ and laid it down\. \d\d:\d\d · this phone Corrected by this phone at \d\d:\d\d ?\. "
        r"It was: Ben played 5♣ and laid it down\.",
        log,
    ), log
    assert app.extensions["store"].get(game_id)["version"] == 21


def test_a_correction_whose_replay_stops_is_shown_then_fixed(client, app):
    """RULES.md 5.1 C2 on the page: the page moves on to move 16 and says why, carrying the
    correction of move 10; nothing is saved until move 16 is corrected too."""
    store = app.extensions["store"]
    game_id = refereed(client)
    stopped = correct(client, game_id, 10, {"type": "play", "card": "2C"})
    assert stopped.status_code == 422
    page = stopped.get_data(as_text=True)
    words = text(page)
    assert "Correct move 16" in words
    assert "After your correction of move 10, move 16 no longer fits. 2♣ was already played this deal" in words
    assert json.loads(carried(page)) == {"10": {"type": "play", "card": "2C"}}
    assert store.get(game_id)["version"] == 20 and store.corrections(game_id) == []
    done = correct(client, game_id, 16, {"type": "play", "card": "5C"}, pending=carried(page))
    assert done.status_code == 303
    assert "Moves 10, 16 corrected" in text(client.get(done.headers["Location"]).get_data(as_text=True))
    assert [c["seq"] for c in store.corrections(game_id)] == [10, 16]


def test_a_later_entry_that_must_now_choose_is_asked(client, app):
    """RULES.md 5.1 C2: the 4♠ at move 2 makes move 3's K♦ choose: the page asks which
    capture, and the choice's buttons post the correction of move 3."""
    game_id = refereed(client, MOVES[:6])
    asked = correct(client, game_id, 2, {"type": "play", "card": "4S"})
    assert asked.status_code == 422
    page = asked.get_data(as_text=True)
    assert "Correct move 3" in text(page) and 'name="capture[]"' in page
    assert json.loads(carried(page)) == {"2": {"type": "play", "card": "4S"}}
    done = correct(client, game_id, 3, {"type": "play", "card": "KD", "capture": ["4S", "10S"]}, carried(page))
    assert done.status_code == 303
    assert app.extensions["store"].moves(game_id)[2]["move"]["capture"] == ["4S", "10S"]


def test_a_replacement_refused_where_it_stands_is_said_in_place(client, app):
    """The move entered must be legal where the corrected one stood: 3♠ is on the table
    then, not in a hand (the board says so, and nothing is saved)."""
    game_id = refereed(client)
    answer = correct(client, game_id, 10, {"type": "play", "card": "KD"})  # played at move 3
    assert answer.status_code == 422
    assert "Correct move 10" in text(answer.get_data(as_text=True)) and 'role="alert"' in answer.get_data(as_text=True)
    assert app.extensions["store"].get(game_id)["version"] == 20


def test_a_correction_made_after_another_phone_moved_saves_nothing(client, app):
    game_id = refereed(client)
    answer = correct(client, game_id, 10, {"type": "play", "card": "5D"}, version=19)
    assert answer.status_code == 303 and answer.headers["Location"] == f"/games/{game_id}/log"
    assert "Another phone changed the game first: nothing was corrected." in text(
        client.get(answer.headers["Location"]).get_data(as_text=True)
    )
    assert app.extensions["store"].corrections(game_id) == []


def test_watchers_see_the_corrected_board_at_once(client, app):
    """RULES.md 5.1 C5: the watcher's poll, at the version it shows, gets the new board."""
    game_id = refereed(client)
    watcher = app.test_client()
    assert watcher.get(f"/games/{game_id}").status_code == 200
    assert watcher.get(f"/games/{game_id}/live?version=20").status_code == 204
    assert correct(client, game_id, 10, {"type": "play", "card": "5D"}).status_code == 303
    board = watcher.get(f"/games/{game_id}/live?version=20", headers={"HX-Request": "true"})
    assert board.status_code == 200 and 'value="21"' in board.get_data(as_text=True)
    assert "Ben played J♥ and took 3♥ 5♦ 6♠ 7♥ Q♠." in text(board.get_data(as_text=True))  # move 12, replayed


def test_only_a_referee_corrects_and_only_by_post_with_its_token(csrf_app):
    """Attack tests (issue 46): a visitor, a watcher and another game's referee, through GET,
    HEAD, OPTIONS and POST, and the referee's own phone by POST without its token: the
    database is left as it was, and the page is refused to all but the referee."""
    referee = csrf_app.test_client()
    store = csrf_app.extensions["store"]
    row, key = store.create("tablanette", PLAYERS)
    game_id = row["id"]
    with referee.session_transaction() as session:
        session["keys"] = {game_id: key}
    version = 0
    for m in MOVES[:12]:
        version, _ = store.play(game_id, version, m, key=key)
    visitor, watcher, other = (csrf_app.test_client() for _ in range(3))
    assert watcher.get(f"/games/{game_id}").status_code == 200
    other_row, other_key = store.create("tablanette", PLAYERS)
    with other.session_transaction() as session:
        session["keys"] = {other_row["id"]: other_key}
    before = snapshot(csrf_app)
    form = {"version": version, "seq": 10, "pending": "", "type": "play", "card": "5D"}
    page = f"/games/{game_id}/correct/10"
    for phone in (visitor, watcher, other):
        for method in ("GET", "HEAD"):
            assert phone.open(page, method=method).status_code == 403
        assert phone.open(page, method="OPTIONS").status_code == 200
        token = form_values(phone.get("/games/new").get_data(as_text=True))["csrf_token"]
        assert phone.post(f"/games/{game_id}/correct", data=form | {"csrf_token": token}).status_code == 403
        assert phone.post(f"/games/{game_id}/correct", data=form).status_code == 400
    for method in ("GET", "HEAD"):
        assert referee.open(f"/games/{game_id}/correct", method=method, query_string=form).status_code == 405
    options = referee.open(f"/games/{game_id}/correct", method="OPTIONS", query_string=form)
    assert set(options.headers["Allow"].split(", ")) == {"POST", "OPTIONS"}
    for method in ("GET", "HEAD", "OPTIONS"):
        assert referee.open(page, method=method, query_string=form).status_code == 200
    assert referee.post(f"/games/{game_id}/correct", data=form).status_code == 400  # no token
    assert snapshot(csrf_app) == before
    token = form_values(referee.get(page).get_data(as_text=True))["csrf_token"]
    assert referee.post(f"/games/{game_id}/correct", data=form | {"csrf_token": token}).status_code == 303
    assert store.get(game_id)["version"] == version + 1


@pytest.mark.parametrize(
    "query",
    [
        "{",
        "[]",
        '{"x": {"type": "play", "card": "5D"}}',
        '{"1": {"type": "fly"}}',
        json.dumps({str(n): {} for n in range(99)}),
    ],
)
def test_corrections_a_page_carries_are_checked(client, query):
    """The corrections waiting to be saved come back from the page: anything but moves of
    this game under entry numbers is a 400, never a 500."""
    game_id = refereed(client, MOVES[:4])
    assert client.get(f"/games/{game_id}/correct/3", query_string={"pending": query}).status_code == 400
    assert correct(client, game_id, 3, {"type": "play", "card": "5D"}, pending=query).status_code == 400


def test_in_japanese(client):
    game_id = refereed(client)
    client.get("/?lang=ja")
    stopped = text(correct(client, game_id, 10, {"type": "play", "card": "2C"}).get_data(as_text=True))
    assert "16手目を訂正" in stopped and "10手目を訂正したため、16手目が成り立たなくなりました。" in stopped
    assert "記録：Benが2♣を出して場に置きました。" in stopped
