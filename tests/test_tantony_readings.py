"""Tantony: seed 003 read the other way (issue 18), each reading an option.

* Three players: seed 003's "with 3 players, change the following from the 4-player rules"
  runs straight on into split partnership (own + left-hand neighbour's points). Both
  readings are options: ``partnership_mode`` "individual" (the usual for 3) or "split".
* The line after the last deal: seed 003 says sudden death comes "before deal 4"
  (「4ディールを迎える前」) and then lists 240 after deal 4. ``sudden_death_last_deal``:
  on (the list, the usual) or off ("before deal 4").

Engine vectors, hypothesis games under every start and reading, the new-game form, the
dispute lab and the JSON API, end to end.
"""

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games import OptionError
from companion.games import tantony as T
from tests.conftest import form_values
from tests.test_tantony_engine import NESW, full_deal, tally_deal
from tests.test_web_tantony import new_tantony

ABC = ["A", "B", "C"]


def lab(client, **args):
    response = client.get("/rules/tantony", query_string=args)
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    return response.get_data(as_text=True).replace("&amp;", "&")


def attrs(page, name):
    return re.findall(rf'{name}="([^"]*)"', page)


# -- the three-player scoring: individual (usual) or split ------------------------------------------


@pytest.mark.parametrize(
    ("players", "given", "resolved"),
    [
        (3, {}, "individual"),  # seed 003: 「基本の得点計算は個人集計ですが」
        (3, {"partnership_mode": "fixed"}, "individual"),  # what 3-player games stored before: the same game
        (3, {"partnership_mode": "individual"}, "individual"),
        (3, {"partnership_mode": "split"}, "split"),  # seed 003's three-player section read as split partners
        (4, {}, "fixed"),
        (4, {"partnership_mode": "split"}, "split"),
    ],
)
def test_seed_003_three_player_scoring_readings_resolve(players, given, resolved):
    """Seed 003, "3人で遊ぶとき" then "スプリットパートナーシップ": individual or split for three."""
    assert T.resolve_options(given, players).partnership_mode == resolved


def test_four_players_never_play_each_for_themself():
    """Seed 003 has individual scoring only for three players; four get a coded refusal."""
    with pytest.raises(OptionError) as e:
        T.start(NESW, {"partnership_mode": "individual"})
    assert (e.value.code, e.value.option, e.value.rule) == ("individual_needs_3", "partnership_mode", "Tantony 3.10")


@pytest.mark.parametrize(
    ("own", "mode", "points"),
    [
        ({"A": 10, "B": 20, "C": 30}, "individual", {"A": 10, "B": 20, "C": 30}),
        ({"A": 10, "B": 20, "C": 30}, "fixed", {"A": 10, "B": 20, "C": 30}),
        ({"A": 10, "B": 20, "C": 30}, "split", {"A": 30, "B": 50, "C": 40}),
        ({"N": 10, "E": 20, "S": 30, "W": 40}, "fixed", {"N & S": 40, "E & W": 60}),
        ({"N": 10, "E": 20, "S": 30, "W": 40}, "split", {"N": 30, "E": 50, "S": 70, "W": 50}),
    ],
)
def test_seed_003_split_partnership_vectors(own, mode, points):
    """Seed 003, スプリットパートナーシップ: the deal's points are your own plus your left-hand
    neighbour's (the next player clockwise); without it, three players score their own."""
    assert T.deal_points(own, mode) == points


@pytest.mark.parametrize("mode", ["individual", "split"])
def test_seed_003_a_played_three_player_deal_scores_by_its_reading(mode):
    """Seed 003: a whole three-player deal, scored individually or as split partners."""
    s = full_deal(T.start(ABC, {"dealer": "C", "partnership_mode": mode}), random.Random(7))
    h = s.history[-1]
    own = h["individual"]
    assert h["points"] == T.deal_points(own, mode)
    expected = {p: own[p] + own[ABC[(i + 1) % 3]] for i, p in enumerate(ABC)} if mode == "split" else own
    assert h["points"] == expected and T.view(s)["scores"] == expected


def test_a_three_player_game_stored_as_fixed_still_loads_and_plays_individually():
    """Stored games keep working: "fixed" with 3 players, and no sudden_death_last_deal, as
    games were stored before issue 18."""
    data = T.dump(T.start(ABC, {"dealer": "C"}))
    data["options"]["partnership_mode"] = "fixed"
    del data["options"]["sudden_death_last_deal"]
    s = T.load(data)
    assert s.options.sudden_death_last_deal is True
    s = full_deal(s, random.Random(2))
    assert s.history[-1]["points"] == s.history[-1]["individual"]


# -- the line after the last deal -----------------------------------------------------------------

LAST_DEAL = [  # (id, deals per tally, option, result)
    ("list", [(55, 50), (60, 45), (60, 50), (70, 45)], True, {"winners": ["N & S"], "double": True}),
    ("before-4", [(55, 50), (60, 45), (60, 50), (70, 45)], False, {"winners": ["N & S"], "double": False}),
    ("before-4-deal-3", [(55, 50), (60, 45), (70, 50)], False, {"winners": ["N & S"], "double": True}),
    ("list-230", [(55, 50), (55, 45), (60, 50), (60, 45)], True, {"winners": ["N & S"], "double": False}),
    ("before-4-draw", [(55, 55), (55, 55), (60, 60), (75, 75)], False, {"winners": ["N & S", "E & W"], "draw": True}),
]


@pytest.mark.parametrize(("vid", "deals", "last", "result"), LAST_DEAL, ids=[v[0] for v in LAST_DEAL])
def test_seed_003_the_line_after_deal_4_reads_either_way(vid, deals, last, result):
    """Seed 003, ゲームの終了: 「4ディールを迎える前」 (no line after deal 4) against the list that
    ends 「4ディール終了段階で240点」 (a double win after deal 4 too)."""
    s = T.start(NESW, {"dealer": "W", "sudden_death_last_deal": last})
    for ns, ew in deals:
        s = tally_deal(s, ns, ew)
    v = T.view(s)
    assert {k: v["result"][k] for k in result} == result
    assert s.history[-1]["line"] == (None if len(deals) == 4 and not last else 60 * len(deals))


@pytest.mark.parametrize(
    ("deal", "deals", "last", "line"),
    [
        (1, 4, False, 60),
        (3, 4, False, 180),
        (4, 4, False, None),
        (4, 4, True, 240),
        (6, 6, False, None),
        (5, 6, False, 300),
    ],
)
def test_seed_003_sudden_death_lines(deal, deals, last, line):
    """Seed 003: 60 a deal; "before deal 4" generalises to "before the last deal" when a
    table plays another number of deals."""
    assert T.sudden_death_line(deal, deals, True, last) == line
    assert T.sudden_death_line(deal, deals, False, last) is None


# -- hypothesis: whole games under every start and every reading -----------------------------------

MODES = [
    (players, {**start.options, **extra})
    for start in T.STARTS.values()
    for players in (ABC, NESW)
    for extra in (
        {},
        {"sudden_death_last_deal": False},
        {"sudden_death": True, "sudden_death_last_deal": False},
        {"sudden_death": True},
    )
] + [
    (ABC, {"partnership_mode": "individual", "three_player_values": "shifted", "sudden_death": True}),
    (ABC, {"partnership_mode": "fixed"}),
]


@settings(max_examples=40, deadline=None)
@given(mode=st.sampled_from(MODES), seed=st.integers(0, 10**6))
def test_random_games_under_every_start_and_reading(mode, seed):
    """Hypothesis: whole games under every one-tap start, for 3 and 4 players, with each
    reading of seed 003: the scores are the sides' points as the reading adds them, and the
    result follows the reading of the line after the last deal."""
    players, options = mode
    rng = random.Random(seed)
    s = T.start(players, {"dealer": players[-1], **options})
    while s.result is None:
        s = full_deal(s, rng)
        h = s.history[-1]
        assert h["points"] == T.deal_points(h["individual"], s.options.partnership_mode)
        assert T.view(s)["scores"] == {side: sum(d["points"][side] for d in s.history) for side in T.labels(s)}
        top = max(h["scores"].values())
        alone = list(h["scores"].values()).count(top) == 1
        if h["line"] is not None and top >= h["line"] and alone:
            assert s.result is not None and s.result["double"]
        if s.result is not None and s.result["double"]:
            assert h["line"] is not None and top >= h["line"]
            assert s.deal - 1 < s.options.deals or s.options.sudden_death_last_deal
    assert s.deal - 1 <= s.options.deals
    assert s.options.partnership_mode != "fixed" or len(players) == 4


# -- the new-game form: one tap, and the refused combination explained ------------------------------


def test_the_form_offers_split_partners_to_three_players_in_one_tap(client):
    """Seed 003's three-player reading as a one-tap start: tap "Split partners", type three
    names, start; the game scores split partners."""
    page = client.get("/games/new?game=tantony&start=split").get_data(as_text=True)
    assert 'value="split"' in page and "Split partners" in page
    form = form_values(page) | {"player0": "Ann", "player1": "Ben", "player2": "Cat"}
    response = client.post("/games/new", data=form)
    assert response.status_code == 303, response.get_data(as_text=True)[:2000]
    game_id = response.headers["Location"].rsplit("/", 1)[1]
    view = client.get(f"/api/games/{game_id}").get_json()["view"]
    assert view["options"]["partnership_mode"] == "split" and view["deals"] == 3


def test_the_form_offers_both_readings_as_options(client):
    page = client.get("/games/new/options?game=tantony", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert 'value="individual"' in page and "Each for themself (3 players)" in page
    assert 'name="sudden_death_last_deal"' in page and "Sudden death after the last deal too" in page


def test_the_form_starts_either_reading_of_the_last_deal(client):
    on = new_tantony(client, sudden_death_last_deal="y")
    off = new_tantony(client)  # an unticked box: off
    assert client.get(f"/api/games/{on}").get_json()["options"]["sudden_death_last_deal"] is True
    assert client.get(f"/api/games/{off}").get_json()["options"]["sudden_death_last_deal"] is False


def test_the_form_explains_why_four_players_cannot_play_each_for_themself(client):
    form = form_values(client.get("/games/new?game=tantony").get_data(as_text=True))
    form |= {f"player{i}": p for i, p in enumerate(["Ann", "Ben", "Cat", "Dan"])} | {"partnership_mode": "individual"}
    response = client.post("/games/new", data=form)
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    block = page[page.index('id="partnership_mode"') :]
    assert block.index("Each for themself is the 3-player scoring") < block.index('class="field')


# -- the dispute lab answers under each reading -----------------------------------------------------


@pytest.mark.parametrize(
    ("args", "mode", "points"),
    [
        ({"players": 4}, "fixed", "N & S:40 E & W:60"),
        ({"players": 4, "partnership_mode": "split"}, "split", "N:30 E:50 S:70 W:50"),
        ({"players": 3}, "individual", "P1:10 P2:20 P3:30"),
        ({"players": 3, "partnership_mode": "fixed"}, "individual", "P1:10 P2:20 P3:30"),
        ({"players": 3, "partnership_mode": "individual"}, "individual", "P1:10 P2:20 P3:30"),
        ({"players": 3, "partnership_mode": "split"}, "split", "P1:30 P2:50 P3:40"),
    ],
)
def test_the_lab_scores_a_deal_under_each_reading(client, args, mode, points):
    """Seed 003: who scores what, for each partnership reading, from each player's own runts."""
    seats = ["N", "E", "S", "W"] if args["players"] == 4 else ["P1", "P2", "P3"]
    page = lab(client, **args, **{f"pts_{s}": 10 * (i + 1) for i, s in enumerate(seats)})
    assert attrs(page, "data-mode") == [mode] and attrs(page, "data-points") == [points]
    anchor = {"split": "s3-9", "fixed": "s3-6", "individual": "s3-10"}[mode]
    assert f'href="/rules/tantony/words#{anchor}"' in page


def test_the_lab_explains_why_four_players_cannot_play_each_for_themself(client):
    page = lab(client, players=4, partnership_mode="individual", pts_N=1, pts_E=2, pts_S=3, pts_W=4)
    assert "data-points" not in page and "Each for themself is the 3-player scoring" in page


@pytest.mark.parametrize(
    ("vid", "args", "verdict", "note"),
    [
        ("list", {"ns": 250, "ew": 190, "after": 4}, "N & S double", False),
        ("before-4", {"ns": 250, "ew": 190, "after": 4, "sudden_death_last_deal": "false"}, "N & S", True),
        (
            "before-4-deal-3",
            {"ns": 185, "ew": 100, "after": 3, "sudden_death_last_deal": "false"},
            "N & S double",
            False,
        ),
        ("before-4-deal-2", {"ns": 110, "ew": 100, "after": 2, "sudden_death_last_deal": "false"}, "play on", False),
    ],
)
def test_the_lab_answers_sudden_death_under_each_reading(client, vid, args, verdict, note):
    """Seed 003, ゲームの終了: the line after deal 4 as the list reads it, or "before deal 4"."""
    page = lab(client, **args)
    assert attrs(page, "data-verdict") == [verdict]
    assert (attrs(page, "data-last-deal") == ["single"]) is note


@pytest.mark.parametrize(("lang", "seed"), [("en", "seed 003"), ("ja", "原典003")])
def test_the_rules_page_names_seed_003_for_each_reading(client, lang, seed):
    """Each reading's entry names seed 003, marks the default as our decision, and quotes
    the seed's own words, in both languages."""
    page = client.get(f"/rules/tantony/words?lang={lang}").get_data(as_text=True)
    for anchor in ("split-reading", "last-deal-line"):
        section = page[page.index(f'id="{anchor}"') :]
        section = section[: section.index("</p>")]
        assert seed in section and "badge decided" in section
    assert "4ディールを迎える前" in page and "基本の得点計算は個人集計" in page


# -- the JSON API, end to end -----------------------------------------------------------------------


def api_move(client, game, move):
    response = client.post(
        f"/api/games/{game['id']}/moves",
        json={"version": game["version"], "move": move},
        headers={"X-Edit-Key": game["edit_key"]},
    )
    assert response.status_code == 200, response.get_json()
    return game | {"version": response.get_json()["version"]}


def test_api_plays_a_split_three_player_deal(client):
    """Seed 003's split reading for three, through the JSON API: a whole deal by moves."""
    response = client.post(
        "/api/games", json={"game": "tantony", "players": ABC, "options": {"partnership_mode": "split", "dealer": "C"}}
    )
    assert response.status_code == 201, response.get_json()
    game = response.get_json()
    rng = random.Random(11)
    s = T.start(ABC, {"partnership_mode": "split", "dealer": "C"})
    deck = [str(c) for c in T.pack(3)]
    rng.shuffle(deck)
    hands = {i: deck[i * 12 : (i + 1) * 12] for i in range(3)}
    while s.deal == 1:
        v = T.view(s)
        if "give" in v["expects"]:
            move = {"type": "give", "to": rng.choice(v["room"])}
        else:
            seat = T.to_act(s)
            move = {"type": "play", "card": rng.choice(sorted(T.legal_plays(hands[seat], [c for _, c in s.trick])))}
            hands[seat].remove(move["card"])
        s = T.apply(s, move)
        game = api_move(client, game, move)
    view = client.get(f"/api/games/{game['id']}").get_json()["view"]
    own = view["history"][0]["individual"]
    assert view["history"][0]["points"] == {
        "A": own["A"] + own["B"],
        "B": own["B"] + own["C"],
        "C": own["C"] + own["A"],
    }
    assert view["scores"] == T.view(s)["scores"]


@pytest.mark.parametrize(("last", "double"), [(True, True), (False, False)])
def test_api_ends_a_game_at_deal_4_under_each_reading(client, last, double):
    """Seed 003: 245 after deal 4 (no line crossed before) is two games by the list, one by
    "before deal 4"; the API's result says which."""
    options = {"dealer": "W", "sudden_death_last_deal": last}
    game = client.post("/api/games", json={"game": "tantony", "players": NESW, "options": options}).get_json()
    s = T.start(NESW, options)
    for ns, ew in [(55, 50), (60, 45), (60, 50), (70, 45)]:
        before = len(s.history)
        s = tally_deal(s, ns, ew)
        scoring = s.history[before]["scoring"]
        game = api_move(client, game, {"type": "tally", "scoring": scoring})
    view = client.get(f"/api/games/{game['id']}").get_json()["view"]
    assert view["result"]["winners"] == ["N & S"] and view["result"]["double"] is double
    assert view["options"]["sudden_death_last_deal"] is last


def test_api_refuses_four_players_each_for_themself(client):
    response = client.post(
        "/api/games", json={"game": "tantony", "players": NESW, "options": {"partnership_mode": "individual"}}
    )
    body = response.get_json()
    assert response.status_code == 422 and (body["code"], body["rule"]) == ("individual_needs_3", "Tantony 3.10")
    assert "3-player scoring" in body["error"]
