"""Undo from snapshots (issue 17): for random games and random runs of moves and undos,
the stored state is always exactly the state of replaying, from the start, the moves in
effect; and undo replays fewer than ``SNAPSHOT_EVERY`` moves, whatever the game's length."""

from hypothesis import given, settings
from hypothesis import strategies as st

from bench.server import legal_moves
from companion import games, web
from companion.games import tablanette
from companion.store import SNAPSHOT_EVERY, SqliteStore


def tablanette_moves(seed: int, count: int) -> list[dict]:
    """A long legal Tablanette game (target out of reach), every capture spelled out: the
    benchmark's (bench/server.py)."""
    return legal_moves(count, seed)


def replayed(store: SqliteStore, game_id: str):
    row = store.get(game_id)
    rules = games.get(row["game"])
    state = rules.start(row["players"], row["options"])
    for m in store.moves(game_id):
        if not m["undone"]:
            state = rules.apply(state, m["move"])
    return rules.dump(state)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), steps=st.lists(st.integers(-3, 12), min_size=4, max_size=12))
def test_undo_gives_the_state_of_replaying_the_moves_in_effect(tmp_path_factory, seed, steps):
    """``steps``: n > 0 enters the next n moves of the game, n < 0 undoes |n| of them (as
    many as there are); after each step the stored state is the replay's."""
    store = SqliteStore(tmp_path_factory.mktemp("undo") / "u.db")
    moves = tablanette_moves(seed, 160)
    row, key = store.create("tablanette", ["Ann", "Ben"], {"target": 10**6})
    game, done, version = row["id"], 0, 0
    rules = games.get("tablanette")
    for n in steps:
        for _ in range(abs(n)):
            if n > 0 and done < len(moves):
                version, _state = store.play(game, version, moves[done], key)
                done += 1
            elif n < 0 and done > 0:
                version, _state = store.undo(game, version, key)
                done -= 1
        assert rules.dump(store.get(game, history=True)["state"]) == replayed(store, game)
    store.close()


def test_every_game_family_undoes_to_its_replay(tmp_path):
    """Each game's sample (deals that end, a finished game): undo every move, one by one."""
    store = SqliteStore(tmp_path / "families.db")
    for name in games.GAMES:
        finished = web.get(name).SAMPLE["finished"]
        row, key = store.create(name, web.get(name).SAMPLE["players"], finished["options"])
        version = 0
        for move in finished["moves"]:
            version, _state = store.play(row["id"], version, move, key)
        rules = games.get(name)
        for _ in finished["moves"]:
            version, _state = store.undo(row["id"], version, key)
            assert rules.dump(store.get(row["id"], history=True)["state"]) == replayed(store, row["id"]), name


def test_undo_replays_fewer_moves_than_the_snapshot_interval(tmp_path, monkeypatch):
    """At move 300, an undo applies fewer than SNAPSHOT_EVERY moves (it started from a
    snapshot), where replaying from the start would apply 299."""
    store = SqliteStore(tmp_path / "long.db")
    row, key = store.create("tablanette", ["Ann", "Ben"], {"target": 10**6})
    version = 0
    for move in tablanette_moves(7, 300):
        version, _state = store.play(row["id"], version, move, key)
    applied = []
    real_apply = tablanette.apply
    monkeypatch.setattr(tablanette, "apply", lambda state, move: applied.append(move) or real_apply(state, move))
    store.undo(row["id"], version, key)
    assert 0 < len(applied) < SNAPSHOT_EVERY
