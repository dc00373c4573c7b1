"""The state each worker keeps of a game (issue 34, companion/store/states.py) is never
what a game's changes or reads rely on: two stores on one SQLite file (two gunicorn
workers, each its own cache) move and undo one game in turns, at random, and after every
step what each returns is the state of replaying, from the start, the moves in effect."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from companion import games
from companion.games import tute
from companion.store import SqliteStore, open_store
from tests.test_undo_properties import tablanette_moves

TUTE_PLAYERS = ["Ann", "Ben", "Cy", "Dee"]


def tute_moves(seed: int, count: int) -> list[dict]:
    """A legal Tute game for four of ``count`` moves (fewer if it ends first): each deal
    dealt at random, the dealer turning the last card of their hand, a cante declared when
    the hand holds it, every card a legal one (deals end, losses count)."""
    rng = random.Random(seed)
    state, hands, moves = tute.start(TUTE_PLAYERS), {}, []
    while len(moves) < count and state.result is None:
        expects = tute.expects(state)
        seat = tute.to_act(state)
        assert seat is not None
        if "trump" in expects:
            deck = [str(c) for c in tute.pack(4)]
            rng.shuffle(deck)
            hands = {(state.dealer + 1 + i) % 4: deck[i * 10 : (i + 1) * 10] for i in range(4)}
            move = {"type": "trump", "card": hands[state.dealer][-1]}
        else:
            held = set(hands[seat])
            suits = [s for s in tute.declarable(state) if {f"K{s}", f"Q{s}"} <= held] if "declare" in expects else []
            if suits:
                move = {"type": "declare", "suit": suits[0]}
            else:
                card = rng.choice(sorted(tute.legal_plays(hands[seat], [c for _, c in state.trick], state.trump)))
                hands[seat].remove(card)
                move = {"type": "play", "card": card}
        state = tute.apply(state, move)
        moves.append(move)
    return moves


GAMES = {
    "tablanette": (["Ann", "Ben"], {"target": 10**6}, lambda seed: tablanette_moves(seed, 120)),
    "tute": (TUTE_PLAYERS, None, lambda seed: tute_moves(seed, 120)),
}


def replay(name: str, players, options, moves: list[dict]):
    """The state of ``moves`` applied from the start, as the engine gives it: whole, and as
    the game row keeps it (its finished deals but the last in ``deals``)."""
    rules = games.get(name)
    state = rules.start(players, options)
    for move in moves:
        state = rules.apply(state, move)
    whole = rules.dump(state)
    return whole, {**whole, "history": whole["history"][-1:]}


def two_workers(tmp_path_factory) -> tuple[SqliteStore, SqliteStore]:
    path = tmp_path_factory.mktemp("cache") / "c.db"
    return SqliteStore(path), SqliteStore(path)


@settings(max_examples=12, deadline=None)
@given(
    name=st.sampled_from(sorted(GAMES)),
    seed=st.integers(0, 10**6),
    steps=st.lists(st.tuples(st.integers(0, 1), st.integers(-3, 10)), min_size=3, max_size=12),
)
def test_two_workers_in_turns_always_give_the_replayed_state(tmp_path_factory, name, seed, steps):
    """``steps``: (worker, n): that worker enters the next n moves (n > 0) or undoes |n|
    (as many as are in effect); after each move or undo, the state it returned, and what
    both workers' ``get`` return (with and without every finished deal), is the replay's."""
    players, options, make = GAMES[name]
    moves = make(seed)
    workers = two_workers(tmp_path_factory)
    row, key = workers[0].create(name, players, options)
    rules = games.get(name)
    game, done, version = row["id"], 0, 0
    for worker, n in steps:
        store = workers[worker]
        for _ in range(abs(n)):
            if n > 0 and done < len(moves):
                version, state = store.play(game, version, moves[done], key)
                done += 1
            elif n < 0 and done > 0:
                version, state = store.undo(game, version, key)
                done -= 1
            else:
                continue
            whole, kept = replay(name, players, options, moves[:done])
            assert rules.dump(state) == kept
            for reader in workers:
                assert rules.dump(reader.get(game)["state"]) == kept
                assert rules.dump(reader.get(game, history=True)["state"]) == whole
                assert reader.get(game)["version"] == version
    if version:
        assert sum(w._states.hits for w in workers) > 0  # the cache was used, not only filled
    for w in workers:
        w.close()


def test_a_worker_whose_state_is_stale_moves_from_the_row(database):
    """Worker A keeps the game at version 1; worker B moves it to version 2; A's next move,
    at version 2, is applied to the row's state, not to the one A kept (which is not
    version 2), and A then keeps version 3 (on both databases: two servers, on PostgreSQL)."""
    a, b = open_store(database), open_store(database)
    players, options, make = GAMES["tablanette"]
    moves = make(3)
    row, key = a.create("tablanette", players, options)
    game = row["id"]
    assert a.play(game, 0, moves[0], key)[0] == 1
    assert a._states.entry(game).version == 1
    assert b.play(game, 1, moves[1], key)[0] == 2
    misses = a._states.misses
    version, state = a.play(game, 2, moves[2], key)
    assert version == 3 and a._states.misses == misses + 1  # A read the row's state
    assert tablanette_dump(state) == replay("tablanette", players, options, moves[:3])[1]
    assert a._states.entry(game).version == 3
    hits = a._states.hits
    assert tablanette_dump(a.get(game)["state"]) == replay("tablanette", players, options, moves[:3])[1]
    assert a._states.hits == hits + 1  # and a read of it now parses nothing
    for store in (a, b):
        store.release()
        store.close()


def tablanette_dump(state) -> dict:
    return games.get("tablanette").dump(state)


def test_a_restore_elsewhere_brings_back_a_version_with_other_moves(tmp_path_factory):
    """Worker A keeps the game at version 2. Worker B restores a backup taken at version 1
    and enters another move: the game is at version 2 again, with other moves. A's entry
    has the version, but not the time it was written (``updated``): A reads the row."""
    a, b = two_workers(tmp_path_factory)
    players, options, make = GAMES["tablanette"]
    moves = make(4)
    row, key = a.create("tablanette", players, options)
    game = row["id"]
    a.play(game, 0, moves[0], key)
    backup = tmp_path_factory.mktemp("backup") / "at-1.db"
    b.backup(backup)
    a.play(game, 1, moves[1], key)
    assert a._states.entry(game).version == 2
    b.restore(backup)
    b.undo(game, 1, key)  # version 2: the first move undone, not the second entered
    assert a.get(game)["version"] == 2
    assert tablanette_dump(a.get(game)["state"]) == replay("tablanette", players, options, [])[1]
    version, state = a.play(game, 2, moves[0], key)
    assert version == 3 and tablanette_dump(state) == replay("tablanette", players, options, moves[:1])[1]


def test_undo_and_delete_keep_the_cache_right(tmp_path_factory):
    """In one worker: an undo keeps the state it rebuilt; a deleted game is forgotten."""
    a, _ = two_workers(tmp_path_factory)
    players, options, make = GAMES["tablanette"]
    moves = make(6)
    row, key = a.create("tablanette", players, options)
    game = row["id"]
    version = 0
    for move in moves[:5]:
        version, _ = a.play(game, version, move, key)
    version, state = a.undo(game, version, key)
    assert a._states.entry(game).version == version == 6
    assert tablanette_dump(a._states.entry(game).state) == replay("tablanette", players, options, moves[:4])[1]
    a.delete(game)
    assert a._states.entry(game) is None and a.get(game) is None
