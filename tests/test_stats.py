"""The roster and the statistics (issue 16), each figure checked against a small set of
games whose results are worked out by hand below (on SQLite and on PostgreSQL)."""

import pytest
import sqlite_utils

from companion import export, stats
from companion.store import TOTALS, Conflict, NameTaken, NotFound, SameGame, SqliteStore, open_store

# Tablanette counting cards (standard scale): ANN's are worth 9 card points, BEN's 13.
ANN = ["10D", "2C", "AS", "AH", "KS", "QH", "JD", "10S"]
BEN = ["AD", "AC", "10H", "10C", "JS", "JH", "JC", "QS", "QD", "QC", "KH", "KD", "KC"]


def tablanette_tally(ann_cards: int, sweeps: dict) -> dict:
    return {
        "type": "tally",
        "cards": {"Ann": ann_cards, "Ben": 52 - ann_cards},
        "counters": {"Ann": ANN, "Ben": BEN},
        "sweeps": sweeps,
    }


#: (game, players, options, moves), played in this order. By hand:
#: 1. Tablanette to 1: Ann's sweep of 10 wins the deal at once (RULES.md 1.6), which then
#:    scores its sweeps only: Ann 10, Ben 0. Ann wins.
#: 2. The same, Ben sweeps 4 and 6: Ann 0, Ben 10. Ben wins.
#: 3. No sweeps, Ann 30 cards: Ann 9 + 3 (most cards) = 12, Ben 13. Ben wins.
#: 4. Tute, three players, one mark loses: Ann 70 + 10 (last trick) = 80, Ben 30 + a 40
#:    cante = 70, Cat 20. With three the middle total loses (Tute 2.6): Ben, one mark.
#: 5. Tantony, Ann & Ben against Cat & Dan: runts K Q J (25+20+15) and K Q J 10 = 130
#:    against (2+3+4) * 2 = 18 (RULES.md 3.3); 130 is past 60 after deal 1: sudden death,
#:    a double win (3.8). Partners share their side's figures: 130 each.
#: 6. 100 with one token each: Ann loses a hand, then Ben: Cat wins; Ann and Ben 1 mark.
#: 7. Tablanette, Ann and Cat, not played yet.
GAMES = [
    ("tablanette", ["Ann", "Ben"], {"target": 1}, [tablanette_tally(30, {"Ann": [10], "Ben": []})]),
    ("tablanette", ["Ann", "Ben"], {"target": 1}, [tablanette_tally(22, {"Ann": [], "Ben": [4, 6]})]),
    ("tablanette", ["Ann", "Ben"], {"target": 1}, [tablanette_tally(30, {"Ann": [], "Ben": []})]),
    (
        "tute",
        ["Ann", "Ben", "Cat"],
        {"loss_limit": 1},
        [
            {
                "type": "tally",
                "card_points": {"Ann": 70, "Ben": 30, "Cat": 20},
                "last_trick": "Ann",
                "tricks": {"Ann": 6, "Ben": 3, "Cat": 3},
                "marriages": {"Ben": [40]},
            }
        ],
    ),
    (
        "tantony",
        ["Ann", "Cat", "Ben", "Dan"],
        {"deals": 4},
        [
            {
                "type": "tally",
                "scoring": {
                    "Ann": ["KS", "QS", "JS"],
                    "Cat": ["2H", "3H", "4H"],
                    "Ben": ["KD", "QD", "JD", "10D"],
                    "Dan": ["2C", "3C", "4C"],
                },
            }
        ],
    ),
    ("hundred", ["Ann", "Ben", "Cat"], {"tokens": 1}, [{"type": "tally", "loser": n} for n in ("Ann", "Ben")]),
    ("tablanette", ["Ann", "Cat"], None, []),
]


def play(store: SqliteStore, game, players, options, moves) -> str:
    row, key = store.create(game, players, options)
    version = 0
    for move in moves:
        version, _ = store.play(row["id"], version, move, key)
    return row["id"]


@pytest.fixture
def store(database):
    """The games below, on SQLite and on PostgreSQL (its totals kept by PL/pgSQL triggers)."""
    s = open_store(database)
    for g in GAMES:
        play(s, *g)
    yield s
    s.close()


def ids(store) -> dict[str, int]:
    return {p["name"]: p["id"] for p in store.roster()}


def figures(rows, *keys):
    return {r["name"]: tuple(r[k] for k in keys) for r in rows}


def test_standings_per_game_family(store):
    table = stats.standings(store)
    assert list(table) == ["tablanette", "tute", "tantony", "hundred"]
    keys = ("played", "finished", "won", "deals", "points", "average", "sweeps", "best_sweep", "rate")
    assert figures(table["tablanette"], *keys) == {
        "Ann": (4, 3, 1, 3, 22, 7.3, 1, 10, 33),
        "Ben": (3, 3, 2, 3, 23, 7.7, 2, 6, 67),
        "Cat": (1, 0, 0, 0, 0, None, 0, 0, None),
    }
    assert [r["name"] for r in table["tablanette"]] == ["Ben", "Ann", "Cat"]  # most wins first
    assert figures(table["tute"], "won", "points", "cantes", "marks") == {
        "Ann": (1, 80, 0, 0),
        "Ben": (0, 70, 40, 1),
        "Cat": (1, 20, 0, 0),
    }
    assert figures(table["tantony"], "won", "points", "doubles") == {
        "Ann": (1, 130, 1),
        "Ben": (1, 130, 1),
        "Cat": (0, 18, 0),
        "Dan": (0, 18, 0),
    }
    assert figures(table["hundred"], "won", "deals", "marks") == {"Ann": (0, 2, 1), "Ben": (0, 2, 1), "Cat": (1, 2, 0)}


def test_standings_of_one_group(store):
    """Only the games Ann and Ben played by themselves: the first three Tablanettes."""
    p = ids(store)
    table = stats.standings(store, [p["Ann"], p["Ben"]])
    assert list(table) == ["tablanette"]
    assert figures(table["tablanette"], "played", "won", "points") == {"Ann": (3, 1, 22), "Ben": (3, 2, 23)}


def test_a_players_record_and_head_to_head(store):
    p = ids(store)
    record = stats.record(store, p["Ann"])
    assert {g: (r["played"], r["won"]) for g, r in record.items()} == {
        "tablanette": (4, 1),
        "tute": (1, 1),
        "tantony": (1, 1),
        "hundred": (1, 0),
    }
    # Ann met Ben on another side in games 1-4 and 6 (partners in 5): Ann won 1 and 4,
    # Ben 2 and 3. Cat in 4, 5, 6 (7 is not over): Ann won 4 and 5, Cat 4 and 6.
    assert {h["name"]: (h["games"], h["won"], h["lost"]) for h in stats.head_to_head(store, p["Ann"])} == {
        "Ben": (5, 2, 2),
        "Cat": (3, 2, 2),
        "Dan": (1, 1, 0),
    }
    assert [g["game"] for g in stats.games_of(store, p["Ann"])] == [g[0] for g in GAMES]


def test_undoing_a_deal_end_takes_it_out_of_the_figures(tmp_path):
    store = SqliteStore(tmp_path / "undo.db")
    row, key = store.create("hundred", ["Ann", "Ben", "Cat"], {"tokens": 2})
    store.play(row["id"], 0, {"type": "tally", "loser": "Ann"}, key)
    assert figures(stats.standings(store)["hundred"], "deals", "marks")["Ann"] == (1, 1)
    store.undo(row["id"], 1, key)
    assert figures(stats.standings(store)["hundred"], "deals", "marks")["Ann"] == (0, 0)


def test_the_roster_offers_last_tables_first(store):
    assert store.recent_tables() == [["Ann", "Cat"], ["Ann", "Ben", "Cat"], ["Ann", "Cat", "Ben", "Dan"]]
    assert [p["name"] for p in store.roster()][:2] == ["Ann", "Cat"]
    assert {p["name"]: p["games"] for p in store.roster()} == {"Ann": 7, "Ben": 6, "Cat": 4, "Dan": 1}


def test_a_name_typed_in_another_case_is_the_same_player(tmp_path):
    store = SqliteStore(tmp_path / "case.db")
    play(store, "tablanette", ["Ann", "Ben"], None, [])
    play(store, "tablanette", ["ann", "BEN"], None, [])
    assert [(p["name"], p["games"]) for p in store.roster()] == [("Ann", 2), ("Ben", 2)]


def test_renaming_keeps_the_history_and_refuses_a_taken_name(store):
    p = ids(store)
    store.rename_player(p["Ann"], "Annie")
    assert stats.record(store, p["Ann"])["tablanette"]["played"] == 4
    assert store.recent_tables()[0] == ["Annie", "Cat"]
    with pytest.raises(NameTaken) as taken:
        store.rename_player(p["Ann"], "ben")
    assert taken.value.other == p["Ben"]
    with pytest.raises(NotFound):
        store.rename_player(999, "Zed")


def test_merging_two_names_of_one_person(store):
    """Dan typed as "Daniel" in another game: merged, Daniel's game is Dan's; undone, it is
    Daniel's again. Dan and Cat sat in one game: two people, never merged (issue 30)."""
    p = ids(store)
    play(store, "tablanette", ["Ann", "Daniel"], {"target": 1}, [])
    daniel = ids(store)["Daniel"]
    change = store.merge_players(daniel, p["Dan"])
    assert "Daniel" not in ids(store)
    assert stats.record(store, p["Dan"])["tablanette"]["played"] == 1
    assert store.undo_merge(change) == daniel
    assert ids(store)["Daniel"] == daniel
    assert "tablanette" not in stats.record(store, p["Dan"])
    assert stats.record(store, daniel)["tablanette"]["played"] == 1
    with pytest.raises(SameGame):
        store.merge_players(p["Dan"], p["Cat"])
    assert stats.record(store, p["Cat"])["tantony"]["played"] == 1


def test_the_right_over_a_player_is_their_first_games(database):
    """Renaming or merging a player takes a referee key of the oldest game still kept that
    seats them (issue 30's audit): a later game seating the same name gives none, a merge
    needs the right over both, and once the first game is deleted the next oldest's
    referee has it (on SQLite and PostgreSQL)."""
    store = open_store(database)
    first, first_key = store.create("tablanette", ["Ann", "Ben"])
    later, later_key = store.create("tablanette", ["ANN", "Mallory"])
    p = ids(store)
    phone, referee = {later["id"]: later_key}, {first["id"]: first_key}
    assert store.roster_referee([p["Ann"]], phone) is None
    assert store.roster_referee([p["Mallory"]], phone) == (later["id"], store.referee_id(later["id"], later_key))
    assert store.roster_referee([p["Mallory"], p["Ann"]], phone) is None
    assert store.roster_referee([p["Ann"]], referee) == (first["id"], store.referee_id(first["id"], first_key))
    assert store.roster_referee([p["Ann"], p["Mallory"]], referee | phone)[0] == first["id"]
    assert store.roster_referee([p["Ann"]], {first["id"]: "a guess"}) is None
    store.rotate_key(first["id"], first_key)  # that key revoked: no right left with it
    assert store.roster_referee([p["Ann"]], referee) is None
    store.delete(first["id"])
    assert store.roster_referee([p["Ann"]], phone)[0] == later["id"]
    store.delete(later["id"])
    assert store.roster_referee([p["Ann"]], phone) is None  # no game seats her: nobody
    store.close()


def summed_from_seats(store) -> list[tuple]:
    """What ``totals`` must hold: every seat's figures summed per player and family, afresh."""
    return [
        tuple(r)
        for r in store.query(
            f"SELECT g.game, s.player_id, {stats._SUMS} FROM seats s JOIN games g ON g.id = s.game_id "
            "GROUP BY g.game, s.player_id ORDER BY g.game, s.player_id"
        )
    ]


def kept_totals(store) -> list[tuple]:
    columns = ", ".join([*TOTALS, "best_sweep"])
    return [tuple(r) for r in store.query(f"SELECT game, player_id, {columns} FROM totals ORDER BY game, player_id")]


def test_totals_follow_every_write_to_seats(store, tmp_path):
    """The standings read ``totals``, kept by triggers: after deals, an undo past a deal's
    end (the biggest sweep searched again), a merge, a deleted game and an import, they
    are what summing every seat afresh gives."""
    assert kept_totals(store) == summed_from_seats(store) != []
    p = ids(store)
    row, key = store.create("tablanette", ["Ann", "Ben"], {"target": 1})
    store.play(row["id"], 0, tablanette_tally(30, {"Ann": [20], "Ben": []}), key)
    assert stats.record(store, p["Ann"])["tablanette"]["best_sweep"] == 20
    store.undo(row["id"], 1, key)
    assert stats.record(store, p["Ann"])["tablanette"]["best_sweep"] == 10
    assert kept_totals(store) == summed_from_seats(store)
    play(store, "tute", ["Ben", "Daniel", "Eve"], {"loss_limit": 1}, [])
    store.merge_players(ids(store)["Daniel"], p["Dan"])
    assert kept_totals(store) == summed_from_seats(store)
    store.delete(store.list_games()[-1]["id"])
    store.delete(row["id"])
    assert kept_totals(store) == summed_from_seats(store)
    before = kept_totals(store)
    export.load(store, export.dump(store))
    assert kept_totals(store) == summed_from_seats(store) == before


def test_m008_links_the_games_stored_before_it(tmp_path):
    path = tmp_path / "old.db"
    store = SqliteStore(path)
    for g in GAMES[:4]:
        play(store, *g)
    before = stats.standings(store)
    store.close()
    with sqlite_utils.Database(path) as db:
        db.execute("DROP TABLE seats")  # and its triggers
        db.execute("DROP TABLE players")
        db.execute("DROP TABLE totals")
        db.execute(
            "DELETE FROM companion_migrations WHERE name IN ('m008_players_and_seats', 'm009_totals_for_standings')"
        )
        db.conn.commit()
    reopened = SqliteStore(path)
    assert stats.standings(reopened) == before
    assert [p["name"] for p in reopened.roster()] == ["Ann", "Ben", "Cat"]


def test_with_opponent_confirmation_only_confirmed_deals_count(tmp_path):
    """Issue 16, as Bridgemate does: once the referee gives the other side a confirm link,
    a deal counts in the statistics only when that side confirmed it, and the game's result
    once every deal is; an undone deal is no longer confirmed; a confirmation sent from a
    board that has changed since is refused."""
    store = SqliteStore(tmp_path / "confirm.db")
    row, key = store.create("hundred", ["Ann", "Ben", "Cat"], {"tokens": 1})
    game = row["id"]
    with pytest.raises(NotFound):
        store.confirm(game, 0)  # nobody asked for it
    store.make_link(game, "confirm")
    assert store.get(game)["confirmed"] == 0
    store.play(game, 0, {"type": "tally", "loser": "Ann"}, key)
    hundred = lambda: figures(stats.standings(store)["hundred"], "deals", "marks", "finished")  # noqa: E731
    assert hundred()["Ann"] == (0, 0, 0)
    assert store.confirm(game, 1) == 1
    assert hundred()["Ann"] == (1, 1, 0)
    store.undo(game, 1, key)
    assert store.get(game)["confirmed"] == 0 and hundred()["Ann"] == (0, 0, 0)
    store.play(game, 2, {"type": "tally", "loser": "Ann"}, key)
    store.play(game, 3, {"type": "tally", "loser": "Ben"}, key)  # Cat wins the game
    assert hundred()["Cat"] == (0, 0, 0)
    with pytest.raises(Conflict):
        store.confirm(game, 3)  # the confirming phone had not seen the last hand
    assert store.confirm(game, 4) == 2
    assert hundred() == {"Cat": (2, 0, 1), "Ann": (2, 1, 1), "Ben": (2, 1, 1)}
    assert stats.standings(store)["hundred"][0]["won"] == 1  # Cat, once confirmed
