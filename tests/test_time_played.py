"""Statistics by period, with the time played (issue 46, item 5): each game's time played
(from its first entry to its last, a pause over 30 minutes left out) kept as its moves are
written and worked out again from them by a migration and by a restore's checks; the
standings, a player's record, head-to-head and games limited to the games started in this
month, this year or a range of days, by the table's clock. On SQLite and PostgreSQL."""

from __future__ import annotations

import csv
import io
import re
import sqlite3
from datetime import date, datetime, timedelta, timezone

import pytest

from companion import stats
from companion.store import SqliteStore, check_games, open_store
from companion.store import writes as store_writes
from companion.store.rows import PAUSE_SECONDS, _gap, _time_played
from tests.test_stats import GAMES, figures, ids, play
from tests.test_store import oldest_with_a_game

START = datetime(2026, 11, 29, 19, 0, tzinfo=timezone.utc)
PLAYERS = ["Ann", "Ben", "Cat"]


def stamp(minutes: float, start: datetime = START) -> str:
    return (start + timedelta(minutes=minutes)).isoformat(timespec="microseconds")


class Clock:
    """The store's clock (``writes._now``), set by the test: each read gives the next time."""

    def __init__(self, monkeypatch):
        self.times: list[str] = []
        monkeypatch.setattr(store_writes, "_now", lambda: self.times.pop(0))

    def at(self, *minutes: float, start: datetime = START) -> Clock:
        self.times += [stamp(m, start) for m in minutes]
        return self


def hundred_hands(store, clock: Clock, minutes: list[float], start: datetime = START, tokens: int = 3) -> str:
    """A game of 100 made at ``minutes[0]``, then a hand lost (a move) at each later minute
    (with one token each, two hands end it)."""
    clock.at(*minutes, start=start)
    row, key = store.create("hundred", PLAYERS, {"tokens": tokens})
    for version, loser in enumerate(["Ann", "Ben", "Cat", "Ann"][: len(minutes) - 1]):
        store.play(row["id"], version, {"type": "tally", "loser": loser}, key)
    return row["id"]


def seconds(store, game_id: str) -> int:
    return store.query("SELECT seconds_played FROM games WHERE id = ?", (game_id,))[0]["seconds_played"]


# -- what the time played is -----------------------------------------------------------


def test_the_time_played_runs_from_entry_to_entry_and_leaves_long_pauses_out():
    times = [stamp(m) for m in (0, 5, 12.5, 12.5, 60, 70)]
    # 5 min, then 7.5 min, then nothing between two entries at once, a pause of 47.5 min
    # left out whole (not cut to 30), then 10 min.
    assert _time_played(times) == 300 + 450 + 0 + 600
    assert _gap(stamp(0), stamp(30)) == PAUSE_SECONDS  # 30 minutes is still play
    assert _gap(stamp(0), stamp(30.01)) == 0
    assert _gap(None, stamp(0)) == 0  # the first entry starts it
    assert _gap(stamp(10), stamp(0)) == 0  # a clock set back adds nothing
    assert _time_played([]) == _time_played([stamp(0)]) == 0


def test_each_move_adds_its_time_and_undo_and_correction_keep_it(database, monkeypatch):
    store = open_store(database)
    clock = Clock(monkeypatch)
    game_id = hundred_hands(store, clock, [0, 2, 4, 50])  # made, then moves at 2, 4 and 50 min
    # The first entry starts it (the game's creation is not an entry); 2 -> 4 is 2 minutes;
    # 4 -> 50 is a pause.
    assert seconds(store, game_id) == 120
    clock.at(55)
    store.undo(game_id, 3)  # the time was played: an undo takes none of it back
    assert seconds(store, game_id) == 120
    clock.at(56)
    store.play(game_id, 4, {"type": "tally", "loser": "Cat"})  # 50 -> 56 (the undone one counts)
    assert seconds(store, game_id) == 120 + 360
    clock.at(57)
    store.correct_and_read(game_id, 5, {1: {"type": "tally", "loser": "Ben"}})
    assert seconds(store, game_id) == 480
    with store._read() as conn:
        assert check_games(conn) == 1
    store.close()


def test_an_imported_game_has_no_time_played(database):
    """A transcript keeps no times: its moves are stored at the time of the import."""
    store = open_store(database)
    row, _ = store.import_transcript(
        {
            "format": "companion-transcript/1",
            "game": "hundred",
            "players": ["Ann", "Ben"],
            "moves": [{"type": "tally", "loser": "Ann"}, {"type": "tally", "loser": "Ben"}],
        }
    )
    assert seconds(store, row["id"]) == 0
    store.close()


def test_a_restore_refuses_a_time_played_its_moves_do_not_make(tmp_path, monkeypatch):
    store = SqliteStore(tmp_path / "c.db")
    game_id = hundred_hands(store, Clock(monkeypatch), [0, 1, 3])
    with store._write() as conn:
        conn.execute("UPDATE games SET seconds_played = 999 WHERE id = ?", (game_id,))
    with store._read() as conn, pytest.raises(ValueError, match="time played is not what its moves make: 999 is"):
        check_games(conn)
    store.close()


def test_the_migration_works_the_time_out_from_the_moves_kept(tmp_path):
    """A database from before the time was kept: its game's moves were entered a minute
    apart, and the upgrade gives it that time."""
    oldest_with_a_game(tmp_path / "old.db")
    with sqlite3.connect(tmp_path / "old.db") as db:
        count = db.execute("SELECT count(*) FROM moves").fetchone()[0]
    store = SqliteStore(tmp_path / "old.db")
    assert seconds(store, "old") == 60 * (count - 1)
    assert store.check() == 1
    store.close()


# -- periods ----------------------------------------------------------------------------


def test_a_period_is_the_table_calendars_days():
    assert stats.period_days("all", date(2026, 11, 29)) is None
    assert stats.period_days("month", date(2026, 2, 14)) == (date(2026, 2, 1), date(2026, 2, 28))
    assert stats.period_days("month", date(2026, 12, 31)) == (date(2026, 12, 1), date(2026, 12, 31))
    assert stats.period_days("year", date(2026, 11, 29)) == (date(2026, 1, 1), date(2026, 12, 31))
    assert stats.period_days("range", date(2026, 11, 29), date(2026, 3, 1), None) == (date(2026, 3, 1), None)
    assert stats.period_days("range", date(2026, 11, 29)) is None  # no day given: all time
    tokyo = timezone(timedelta(hours=9))
    # November by a clock in Tokyo starts at 15:00 UTC on 31 October.
    assert stats.period((date(2026, 11, 1), date(2026, 11, 30)), tokyo) == (
        "2026-10-31T15:00:00.000000+00:00",
        "2026-11-30T15:00:00.000000+00:00",
    )
    assert stats.period((None, date(2026, 11, 30)), timezone.utc) == ("", "2026-12-01T00:00:00.000000+00:00")
    assert stats.period((date.min, date.max), tokyo) == ("", "9")  # the calendar's ends: open


@pytest.fixture
def periods(database, monkeypatch):
    """stats.py's games (tests/test_stats.py), all started in October 2026, then in November
    two of 100, each played to its end: Ann, Ben and Cat's (4 minutes played) and, in December,
    again (6 minutes)."""
    store = open_store(database)
    clock = Clock(monkeypatch)
    for i, g in enumerate(GAMES):
        clock.at(*(60 * i + m for m in range(len(g[3]) + 1)), start=datetime(2026, 10, 10, tzinfo=timezone.utc))
        play(store, *g)
    november = hundred_hands(store, clock, [0, 2, 6], datetime(2026, 11, 29, 20, tzinfo=timezone.utc), tokens=1)
    december = hundred_hands(store, clock, [0, 4, 10], datetime(2026, 12, 1, 20, tzinfo=timezone.utc), tokens=1)
    yield store, november, december
    store.close()


NOVEMBER = stats.period((date(2026, 11, 1), date(2026, 11, 30)), timezone.utc)


def test_the_standings_of_a_period_count_the_games_started_in_it(periods):
    store, november, _ = periods
    table = stats.standings(store, period=NOVEMBER)
    assert list(table) == ["hundred"]
    assert figures(table["hundred"], "played", "deals", "marks", "seconds") == {
        "Ann": (1, 2, 1, 240),
        "Ben": (1, 2, 1, 240),
        "Cat": (1, 2, 0, 240),
    }
    everything = stats.standings(store)
    # All time: stats.py's games too (100: a minute between its two hands), and December's.
    assert figures(everything["hundred"], "played", "seconds") == {
        n: (3, 60 + 240 + 360) for n in ("Ann", "Ben", "Cat")
    }
    assert figures(everything["tablanette"], "played", "seconds")["Ann"] == (4, 0)  # one entry each: no time
    assert stats.standings(store, period=("", "9")) == everything  # a range open at both ends: all time
    p = ids(store)
    group = stats.standings(store, [p["Ann"], p["Ben"], p["Cat"]], NOVEMBER)
    assert figures(group["hundred"], "played", "seconds") == {n: (1, 240) for n in ("Ann", "Ben", "Cat")}
    assert stats.standings(store, [p["Ann"], p["Ben"]], NOVEMBER) == {}


def test_a_players_record_head_to_head_and_games_of_a_period(periods):
    store, november, december = periods
    p = ids(store)
    record = stats.record(store, p["Ann"], NOVEMBER)
    assert {g: (r["played"], r["seconds"]) for g, r in record.items()} == {"hundred": (1, 240)}
    assert stats.record(store, p["Ann"])["hundred"]["seconds"] == 660
    assert stats.record(store, p["Dan"], NOVEMBER) == {}
    rivals = stats.head_to_head(store, p["Ann"], NOVEMBER)
    assert [(r["name"], r["games"]) for r in rivals] == [("Ben", 1), ("Cat", 1)]
    assert [g["id"] for g in stats.games_of(store, p["Ann"], NOVEMBER)] == [november]
    played = stats.games_of(store, p["Ann"], stats.period((date(2026, 11, 1), None), timezone.utc))
    assert [(g["id"], g["seconds"]) for g in played] == [(november, 240), (december, 360)]


# -- the pages ----------------------------------------------------------------------------

JAPANESE = {"Accept-Language": "ja,en-US;q=0.7"}
NOVEMBER_ARGS = "period=range&since=2025-11-01&until=2025-11-30"


@pytest.fixture
def club(app, monkeypatch):
    """The app with a game of 100 started in November 2025 (4 minutes played), one in
    December (a minute and a half), and one started now (the real clock: this month's)."""
    store = app.extensions["store"]
    clock = Clock(monkeypatch)
    hundred_hands(store, clock, [0, 2, 6], datetime(2025, 11, 29, 20, tzinfo=timezone.utc), tokens=1)
    hundred_hands(store, clock, [0, 1, 2.5], datetime(2025, 12, 1, 20, tzinfo=timezone.utc), tokens=1)
    monkeypatch.undo()
    now = store.create("tablanette", ["Ann", "Dan"])[0]
    return app.test_client(), ids(store), now


def text(page: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)).strip()


def test_the_standings_of_a_range_of_days_name_it_and_count_its_games(club):
    client, p, _ = club
    page = client.get(f"/stats?{NOVEMBER_ARGS}").get_data(as_text=True)
    assert "Nov 1 – 30, 2025 Games started in this period." in text(page)
    assert "Tablanette" not in text(page).split("Games started")[1]  # only November's 100
    assert "Ann · 4 min played" in text(page)
    assert 'value="2025-11-01"' in page and '<details class="fold range" open>' in page
    # Each player's page keeps the period; the group form too.
    assert f'href="/players/{p["Ann"]}?{NOVEMBER_ARGS.replace("&", "&amp;")}"' in page
    assert '<input type="hidden" name="since" value="2025-11-01">' in page
    everything = client.get("/stats").get_data(as_text=True)
    assert "Tablanette" in everything and "Ann · 6 min played" in text(everything)  # 4 + 1.5 minutes, to the nearest
    assert re.search(r'aria-current="true">All time<', everything)


def test_this_month_counts_the_games_started_this_month(club):
    client, p, _ = club
    page = client.get("/stats?period=month").get_data(as_text=True)
    assert re.search(r'aria-current="true">This month<', page)
    assert "Tablanette" in page and "100" not in text(page).split("Games started")[1]
    assert datetime.now().strftime("%B %Y") in page  # the server's own clock: COMPANION_TIMEZONE unset
    player = client.get(f"/players/{p['Dan']}?period=year").get_data(as_text=True)
    assert re.search(r'aria-current="true">This year<', player) and "Tablanette" in player
    assert '/stats?period=year"' in player  # back to the standings of the same period


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ("period=range&since=2026-11-30&until=2026-11-01", "The last day comes before the first."),
        ("period=range&since=yesterday", "Not a valid date value."),
        ("period=decade", "Not a valid choice."),
    ],
)
def test_a_period_that_is_not_one_says_so_and_shows_all_time(club, args, error):
    client, _, _ = club
    answer = client.get(f"/stats?{args}")
    page = answer.get_data(as_text=True)
    assert answer.status_code == 200 and error in page
    assert '<details class="fold range" open>' in page and 'aria-invalid="true"' in page or "decade" in args
    assert re.search(r'aria-current="true">All time<', page) and "Ann · 6 min played" in text(page)


def test_a_player_page_of_a_period_in_japanese(club):
    client, p, _ = club
    page = client.get(f"/players/{p['Ann']}?{NOVEMBER_ARGS}", headers=JAPANESE).get_data(as_text=True)
    assert "2025/11/01～2025/11/30" in text(page) or "2025年11月1日～30日" in text(page), text(page)[:600]
    assert "<dd>4 分</dd>" in page
    assert "この期間に始めたゲーム" in text(page)
    hours = client.get("/stats", headers=JAPANESE).get_data(as_text=True)
    assert "Ann · プレイ時間 6 分" in text(hours)


def test_the_seats_of_every_game_summed_are_the_totals_kept(periods):
    """A period holding every game reads ``totals`` (kept by the triggers); summing the seats
    of all of them, as any other period does, gives the same figures."""
    store, _, _ = periods

    def rows(period):
        source, params = stats._source((), period)
        return sorted(tuple(sorted(dict(r).items())) for r in store.query(f"SELECT * FROM {source} t", params))

    everything = ("", "9")
    assert stats._every_game_in(store, everything) is None
    assert stats._every_game_in(store, NOVEMBER) == NOVEMBER
    assert rows(everything) == rows(None)
    assert stats.standings(store, period=everything) == stats.standings(store)


def test_the_games_table_exported_has_each_games_time_played(club):
    client, _, _ = club
    rows = list(csv.reader(io.StringIO(client.get("/export/games.csv").get_data(as_text=True))))
    assert rows[0][-1] == "seconds_played"
    assert sorted(int(r[-1]) for r in rows[1:]) == [0, 90, 240]
