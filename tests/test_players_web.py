"""The roster, standings, score charts and exports on the web and the command line (issue 16)."""

import csv
import io
import json
import re

import pytest

from companion import export
from tests.conftest import become_referee, form_values, snapshot
from tests.test_stats import GAMES, play


@pytest.fixture
def played(app):
    store = app.extensions["store"]
    for g in GAMES:
        play(store, *g)
    return store


def ids(store) -> dict[str, int]:
    return {p["name"]: p["id"] for p in store.roster()}


def test_the_new_game_form_offers_the_roster_and_the_last_table(client, played):
    page = client.get("/games/new?game=tute").get_data(as_text=True)
    assert re.findall(r'<option value="([^"]+)"></option>', page)[:2] == ["Ann", "Cat"]  # the last table first
    assert 'list="roster"' in page
    # Tute takes 3 to 5: the three-player table fits, the two-player one does not.
    links = re.findall(r'<a class="button table" href="([^"]+)">([^<]+)</a>', page)
    assert [text for _, text in links] == ["Ann, Ben, Cat", "Ann, Cat, Ben, Dan"]
    filled = client.get(links[0][0].replace("&amp;", "&")).get_data(as_text=True)
    for i, name in enumerate(["Ann", "Ben", "Cat"]):
        assert re.search(rf'id="player{i}"[^>]*value="{name}"', filled), name


def test_a_game_started_from_the_form_joins_the_roster(client):
    form = form_values(client.get("/games/new").get_data(as_text=True)) | {"player0": "太郎", "player1": "花子"}
    answer = client.post("/games/new", data=form)
    assert answer.status_code == 303
    assert [p["name"] for p in client.application.extensions["store"].roster()] == ["太郎", "花子"]


def test_standings_and_a_groups_standings(client, played):
    page = client.get("/stats").get_data(as_text=True)
    for title in ("Tablanette", "Tute", "Tantony", "100"):
        assert title in page
    assert "Biggest sweep" in page and "Sudden deaths" in page and "Hands lost" in page
    p = ids(played)
    group = client.get(f"/stats?p={p['Ann']}&p={p['Ben']}").get_data(as_text=True)
    assert "Games played by exactly: Ann and Ben." in group
    assert "Tute" not in group.split("<h1>")[1].split("<form")[0]


def test_a_players_page(client, played):
    p = ids(played)
    page = client.get(f"/players/{p['Ann']}").get_data(as_text=True)
    assert "<h1>Ann</h1>" in page
    assert "Head to head" in page and 'class="chart"' in page
    # The chart's table for screen readers: Tablanette wins after each of her 6 finished games.
    table = page.split('<div class="visually-hidden"><table>')[1].split("</table>")[0]
    rows = re.findall(r"<tr><th scope=\"row\">(\d+|Start)</th>(.*?)</tr>", table)
    assert len(rows) == 7 and rows[0][0] == "Start"  # every row has a header (axe: empty-table-header)
    assert client.get("/players/999").status_code == 404


def referee_of(client, players) -> str:
    """A game of ``players`` that ``client`` referees (made through the API, joined by its link)."""
    made = client.post("/api/games", json={"game": "tablanette", "players": players}).get_json()
    become_referee(client, made["id"], made["edit_key"])
    return made["id"]


def join_as_referee(client, game_id: str, **form) -> None:
    """Make ``client`` a referee of a game made earlier, by a one-use link as a phone joins."""
    token = client.application.extensions["store"].make_link(game_id, "add")
    assert client.post(f"/games/{game_id}/join", data={"token": token, **form}).status_code == 303


def first_game_of(store, name: str) -> str:
    """The first game that seated ``name``."""
    return min((g for g in store.list_games() if name in g["players"]), key=lambda g: g["created"])["id"]


def test_a_visitor_can_neither_rename_nor_merge(client, played):
    """Renaming or merging rewrites everyone's standings: a visitor is refused with a page
    saying who can (issue 30), and nothing changes."""
    p = ids(played)
    before = snapshot(client.application)
    refused = client.post(f"/players/{p['Dan']}", data={"name": "Daniel"})
    assert refused.status_code == 403
    assert "Only a referee of the game where Dan first played can rename them" in refused.get_data(as_text=True)
    assert client.post(f"/players/{p['Dan']}/merge", data={"into": str(p["Cat"])}).status_code == 403
    assert snapshot(client.application) == before
    page = client.get(f"/players/{p['Dan']}").get_data(as_text=True)
    assert 'class="stack rename"' not in page and "Only a referee of the game where Dan first played" in page
    # A referee of another game, in which Dan did not sit, has no say over Dan either.
    referee_of(client, ["Eve", "Fay"])
    before = snapshot(client.application)
    assert client.post(f"/players/{p['Dan']}", data={"name": "Daniel"}).status_code == 403
    assert snapshot(client.application) == before


def test_a_game_made_to_seat_a_name_gives_no_right_over_its_player(csrf_client):
    """The audit's attack: a stranger makes a game seating "Ann" beside a throwaway name,
    which joins the roster's Ann, and tries to rename Ann and to merge her into the throwaway.
    Both are refused (403) and nothing changes: the right over Ann is her first game's."""
    store = csrf_client.application.extensions["store"]
    first, _ = store.create("tablanette", ["Ann", "Ben"])
    form = form_values(csrf_client.get("/games/new").get_data(as_text=True))
    made = csrf_client.post("/games/new", data=form | {"player0": "Ann", "player1": "Mallory"})
    assert made.status_code == 303
    p, token = ids(store), {"csrf_token": form["csrf_token"]}
    before = snapshot(csrf_client.application)
    renamed = csrf_client.post(f"/players/{p['Ann']}", data=token | {"name": "Loser"})
    assert renamed.status_code == 403
    assert "Only a referee of the game where Ann first played" in renamed.get_data(as_text=True)
    merged = csrf_client.post(f"/players/{p['Ann']}/merge", data=token | {"into": str(p["Mallory"])})
    assert merged.status_code == 403 and "where Ann first played" in merged.get_data(as_text=True)
    # The other way round the right over Mallory (their first game) is not enough either.
    merged = csrf_client.post(f"/players/{p['Mallory']}/merge", data=token | {"into": str(p["Ann"])})
    assert merged.status_code == 403 and "where Ann first played" in merged.get_data(as_text=True)
    assert snapshot(csrf_client.application) == before
    page = csrf_client.get(f"/players/{p['Ann']}").get_data(as_text=True)
    assert 'class="stack rename"' not in page
    # Renaming Mallory to Ann's name offers no join into Ann.
    taken = csrf_client.post(f"/players/{p['Mallory']}", data=token | {"name": "ANN"})
    assert taken.status_code == 422
    body = taken.get_data(as_text=True)
    assert 'class="stack merge"' not in body and "Only a referee of the game where Ann first played can join" in body
    # The referee of Ann's first game may.
    join_as_referee(csrf_client, first["id"], **token)
    assert csrf_client.post(f"/players/{p['Ann']}", data=token | {"name": "Anne"}).status_code == 303
    assert ids(store)["Anne"] == p["Ann"]


def test_renaming_and_joining_two_names(client, played):
    """A referee of the first games of both: Danny (one game) renamed to "dan" is offered
    the join; joined, the game is Dan's and the join is on Dan's page; undone, Danny is back."""
    p = ids(played)
    join_as_referee(client, first_game_of(played, "Dan"))
    danny_game = referee_of(client, ["Eve", "Danny"])
    danny = ids(played)["Danny"]
    assert client.post(f"/players/{danny}", data={"name": "Daniel "}).status_code == 303
    assert "Daniel" in ids(played)
    page = client.get(f"/players/{danny}").get_data(as_text=True)
    assert "Renamed from Danny to Daniel." in page
    refused = client.post(f"/players/{danny}", data={"name": "ＤＡＮ"})
    assert refused.status_code == 422
    body = refused.get_data(as_text=True)
    assert "Dan is already on the roster." in body and "Join Daniel into Dan" in body
    joined = client.post(f"/players/{danny}/merge", data={"into": str(p["Dan"])})
    assert joined.status_code == 303 and joined.headers["Location"].endswith(f"/players/{p['Dan']}")
    assert "Daniel" not in ids(played)
    page = client.get(f"/players/{p['Dan']}").get_data(as_text=True)
    assert "Daniel was joined into Dan (1 game)." in page
    undo = re.search(r'action="(/players/\d+/merges/\d+/undo)"', page).group(1)
    assert client.post(undo).status_code == 303
    assert ids(played)["Daniel"] == danny
    seats = played.query("SELECT player_id FROM seats WHERE game_id = ? ORDER BY seat", (danny_game,))
    assert [r[0] for r in seats][1] == danny
    assert "undone" in client.get(f"/players/{p['Dan']}").get_data(as_text=True)
    # Dan and Cat: no right over Cat (her first game is another), and once there is one,
    # they sat at one Tantony table: two people, never one.
    refused = client.post(f"/players/{p['Dan']}/merge", data={"into": str(p["Cat"])})
    assert refused.status_code == 403 and "where Cat first played" in refused.get_data(as_text=True)
    join_as_referee(client, first_game_of(played, "Cat"))
    assert client.post(f"/players/{p['Dan']}/merge", data={"into": str(p["Cat"])}).status_code == 409
    assert "Cat" in ids(played) and "Dan" in ids(played)


def test_renaming_needs_the_forms_token(csrf_client):
    store = csrf_client.application.extensions["store"]
    store.create("tablanette", ["Ann", "Ben"])
    assert csrf_client.post("/players/1", data={"name": "Zed"}).status_code == 400
    assert [p["name"] for p in store.roster()] == ["Ann", "Ben"]


def test_a_game_page_charts_its_running_scores(client, played):
    hundred = next(g["id"] for g in played.list_games() if g["game"] == "hundred")
    page = client.get(f"/games/{hundred}").get_data(as_text=True)
    table = page.split('<div class="visually-hidden"><table>')[1].split("</table>")[0]
    assert re.findall(r"<td>(\d+)</td>", table) == ["0", "0", "0", "1", "0", "0", "1", "1", "0"]
    fresh = client.post("/api/games", json={"game": "tute", "players": ["A", "B", "C"]}).get_json()
    assert 'class="chart"' not in client.get(f"/games/{fresh['id']}").get_data(as_text=True)


def read_csv(client, table):
    answer = client.get(f"/export/{table}.csv")
    assert answer.status_code == 200 and answer.mimetype == "text/csv"
    return list(csv.DictReader(io.StringIO(answer.get_data(as_text=True))))


def test_the_csv_tables(client, played):
    players = read_csv(client, "players")
    assert [(r["name"], r["games"]) for r in players] == [("Ann", "7"), ("Ben", "6"), ("Cat", "4"), ("Dan", "1")]
    games = read_csv(client, "games")
    assert list(games[0]) == export.COLUMNS["games"]
    assert [(g["game"], g["winners"], g["players"]) for g in games][3:5] == [
        ("tute", "Ann; Cat", "Ann; Ben; Cat"),
        ("tantony", "Ann & Ben", "Ann; Cat; Ben; Dan"),
    ]
    deals = read_csv(client, "deals")
    assert list(deals[0]) == export.COLUMNS["deals"]
    first = [(d["side"], d["points"], d["sweeps"], d["best_sweep"]) for d in deals[:2]]
    assert first == [("Ann", "10", "1", "10"), ("Ben", "0", "0", "0")]
    assert client.get("/export/moves.csv").status_code == 404


def test_flask_export_writes_the_csv_tables(app, played, tmp_path):
    out = tmp_path / "csv"
    result = app.test_cli_runner().invoke(args=["export", str(out)])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["deals.csv", "games.csv", "players.csv"]
    again = app.test_cli_runner().invoke(args=["export", str(out)])
    assert again.exit_code != 0 and "nothing is overwritten" in again.output


def test_export_wipe_import_gives_the_same_database(app, played, tmp_path):
    from tests.conftest import make_app

    before = snapshot(app)
    file = tmp_path / "server.json"
    runner = app.test_cli_runner()
    assert runner.invoke(args=["export", "--json", str(file)]).exit_code == 0
    other = make_app(tmp_path / "other")
    result = other.test_cli_runner().invoke(args=["import", "--yes", str(file)])
    assert result.exit_code == 0, result.output
    assert "Imported 7 game(s)" in result.output
    after = snapshot(other)
    assert {t: after[t] for t in before if t != "companion_migrations"} == {
        t: before[t] for t in before if t != "companion_migrations"
    }


@pytest.mark.parametrize(
    "spoil, said",
    [
        (lambda d: d.update(format="something"), "format"),
        (lambda d: d.update(migrations=d["migrations"][:-1]), "another version"),
        (lambda d: d["tables"].pop("seats"), "tables"),
        (lambda d: d["tables"]["players"][0].pop("name"), "columns"),
        (lambda d: d["tables"]["seats"][0].update(player_id=999), "inconsistent"),
        (lambda d: d["tables"]["games"][0].update(state="{}"), "does not replay"),
        (lambda d: d["tables"]["moves"].append(dict(d["tables"]["moves"][0])), "inconsistent"),
    ],
)
def test_a_refused_import_changes_nothing(app, played, tmp_path, spoil, said):
    data = export.dump(played)
    spoil(data)
    before = snapshot(app)
    file = tmp_path / "bad.json"
    file.write_text(json.dumps(data))
    result = app.test_cli_runner().invoke(args=["import", "--yes", str(file)])
    assert result.exit_code != 0 and said in result.output and "Nothing was changed" in result.output
    assert snapshot(app) == before


def test_the_pages_read_in_japanese(client, played):
    from tests.test_i18n import JAPANESE, english_words

    p = ids(played)
    names = ["Ann", "Ben", "Cat", "Dan"]
    for url in ("/players", f"/players/{p['Ann']}", "/stats", f"/stats?p={p['Ann']}&p={p['Ben']}", "/games/new"):
        answer = client.get(url, headers=JAPANESE)
        assert answer.status_code == 200, url
        assert english_words(answer.get_data(as_text=True), names) == [], url
    taken = client.post(f"/players/{p['Dan']}", data={"name": "cat"}, headers=JAPANESE).get_data(as_text=True)
    assert english_words(taken, names) == []
