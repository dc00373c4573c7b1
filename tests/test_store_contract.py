"""The store's interface, written down (companion/store/interface.py, issue 33), is what
both backends implement: every method with the same parameters, every attribute, checked
here for each as the engines are against theirs (tests/test_contract.py). A runtime
``isinstance`` against a Protocol checks only that names exist, so the parameters are
compared here."""

from __future__ import annotations

import inspect

import pytest

from companion import games
from companion.errors import IllegalMove
from companion.games import contract
from companion.store import SqliteStore, Store, open_store
from companion.store.postgres import PostgresStore

MEMBERS = {
    name: value for name, value in vars(Store).items() if not name.startswith(("__", "_abc", "_is_"))
} | dict.fromkeys(Store.__annotations__)


def parameters(function) -> list[tuple[str, object]]:
    return [(p.name, p.default) for p in inspect.signature(function).parameters.values()]


@pytest.mark.parametrize("backend", [SqliteStore, PostgresStore], ids=["sqlite", "postgresql"])
@pytest.mark.parametrize("member", sorted(MEMBERS))
def test_each_backend_implements_the_store_interface(backend, member):
    written = MEMBERS[member]
    declared = {name for cls in backend.__mro__ for name in getattr(cls, "__annotations__", {})}
    assert hasattr(backend, member) or member in declared, f"{backend.__name__} lacks {member}"
    if written is None:  # an attribute
        return
    found = inspect.getattr_static(backend, member)
    if isinstance(written, property):
        assert isinstance(found, property), member
    elif callable(written):
        assert parameters(getattr(backend, member)) == parameters(written), member


def test_the_interface_is_what_the_views_use():
    """Every method the views, the command line, exports, statistics and the live hub call
    on the store is in the interface (a method added to a backend and called from a view
    must be written down too)."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "companion"
    called = set()
    for path in [*root.glob("*.py"), *root.glob("views/*.py")]:
        text = path.read_text(encoding="utf-8")
        called |= set(re.findall(r"store\(\)\.(\w+)", text))
        called |= set(re.findall(r"\bstore\.(\w+)\(", text))
    assert called and called <= set(MEMBERS), sorted(called - set(MEMBERS))


# ---------------------------------------------------------------------------
# A game the store has never seen, written from the engine contract's text alone
# ---------------------------------------------------------------------------


@pytest.fixture
def toy(monkeypatch):
    """Ten (tests/toy_game.py) in the game registry, for this test only."""
    from tests import toy_game

    monkeypatch.setitem(games.GAMES, "toy", "tests.toy_game")
    monkeypatch.setitem(games._RULES, "toy", contract.check(toy_game))
    return toy_game


def replayed(toy, moves: list[dict]):
    state = toy.start(["Ann", "Ben"], {"target": 20})
    for move in moves:
        state = toy.apply(state, move)
    return state


def test_a_toy_game_that_follows_only_the_contract_plays_through_the_store(toy, database):
    """The store needs of a game only what the engine contract says (issue 44): Ten, written
    from that text alone, is started, played past a snapshot and three deals' ends, refused,
    undone across a deal's end, logged in its own words, counted in the standings, written
    out as a transcript and read back, and every game then replays to what it stores."""
    store = open_store(database)
    try:
        row, key = store.create("toy", ["Ann", "Ben"], {"target": 20})
        game_id, add = row["id"], {"type": "add", "n": 1}
        with pytest.raises(IllegalMove, match="Add 1, 2 or 3, not 4"):
            store.play(game_id, 0, {"type": "add", "n": 4}, key)
        assert store.get(game_id)["version"] == 0 and store.moves(game_id) == []
        version = 0
        for _ in range(20):  # Ben, Ann, ... : Ann's 20th point takes deal 1
            version, state = store.play(game_id, version, add, key)
        assert store.get(game_id)["deals"] == 1 and store.history(game_id) == [
            {"deal": 1, "points": {"Ann": 1, "Ben": 0}}
        ]
        version, state = store.undo(game_id, version, key)  # back across the deal's end
        assert (state.total, store.get(game_id)["deals"], store.history(game_id)) == (19, 0, [])
        assert [tuple(r) for r in store.query("SELECT deals, points FROM seats ORDER BY seat")] == [(0, 0), (0, 0)]
        for _ in range(41):  # deal 1 again, deal 2 to Ben, deal 3 to Ann: she wins
            version, state = store.play(game_id, version, add, key)
        game = store.get(game_id, history=True)
        assert game["finished"] and game["status"] == {"winners": ["Ann"], "draw": False} and game["deals"] == 3
        in_effect = [m["move"] for m in store.moves(game_id) if not m["undone"]]
        assert len(in_effect) == 60 and game["state"] == replayed(toy, in_effect)
        figures = "SELECT p.name, s.deals, s.points, s.won FROM seats s JOIN players p ON p.id = s.player_id"
        assert sorted(tuple(r) for r in store.query(figures)) == [("Ann", 3, 2, 1), ("Ben", 3, 1, 0)]
        assert sorted(tuple(r) for r in store.query("SELECT game, played, won, deals, points FROM totals")) == [
            ("toy", 1, 0, 3, 1),
            ("toy", 1, 1, 3, 2),
        ]
        log = store.moves(game_id)
        assert [str(r) for r in log[0]["said"]] == ["Ben added 1: 1."]
        assert [str(r) for r in log[19]["said"]] == ["Ann added 1.", "Ann takes deal 1."] and log[19]["undone"]
        with pytest.raises(IllegalMove, match="The game is over"):
            store.play(game_id, version, add, key)
        version, state = store.undo(game_id, version, key)  # from the snapshot the 32nd move kept
        assert state.result is None and store.get(game_id)["deals"] == 2
        assert store.get(game_id, history=True)["state"] == replayed(toy, in_effect[:-1])
        copy, _ = store.import_transcript(store.transcript(game_id))
        assert store.get(copy["id"], history=True)["state"] == replayed(toy, in_effect[:-1])
        assert [m["said"] for m in store.moves(copy["id"])] == [m["said"] for m in log if not m["undone"]][:-1]
        assert store.check() == 2  # every game replays to what it stores
    finally:
        store.close()
