"""The tally screens' forms (issue 13): every field is typed and range-checked against the
game (its seats, its pack, its points). A bad submission answers 422 with the reason
beside the field (role="alert") and stores nothing; random form data never gets a 5xx
and never changes the game unless the answer is a recorded deal's 204 or 303."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion import games, web
from tests.conftest import examples
from tests.test_tally import create

HX = {"HX-Request": "true"}
FOUR = ["Ann", "Ben", "Cat", "Dan"]
HUGE = "9" * 20

TABLANETTE_COUNTERS = [c for c in map(str, games.get("tablanette").PACK) if games.get("tablanette").card_points([c])]
#: A complete Tablanette deal of 4 players: 13 cards each, the counting cards dealt round.
TABLANETTE = {"cards_0": "13", "cards_1": "13", "cards_2": "13"} | {
    f"owner_{c}": str(i % 4) for i, c in enumerate(TABLANETTE_COUNTERS)
}
#: A complete Tute deal: 30 card points each (Dan's are the rest), Ann took the last trick.
TUTE = {"points_0": "30", "points_1": "30", "points_2": "30", "last_trick": "Ann"}
#: A complete Tantony deal (web rules): three runts each and a fourth for Dan.
TANTONY = {f"runt_{c}": str(i) for i, suit in enumerate("SHDC") for c in (f"2{suit}", f"3{suit}", f"4{suit}")} | {
    "runt_5C": "3"
}
BASES = {"tablanette": TABLANETTE, "tute": TUTE, "tantony": TANTONY, "hundred": {}}


def version(client, game_id):
    return client.get(f"/api/games/{game_id}").get_json()["version"]


def post(client, game_id, fields, htmx=True):
    return client.post(
        f"/games/{game_id}/tally", data={"version": version(client, game_id), **fields}, headers=HX if htmx else {}
    )


def sections(page: str) -> list[str]:
    """The page cut at fieldset boundaries: each fieldset, and the stretches between them."""
    return re.split(r"(?=<fieldset)|(?<=</fieldset>)", page)


def alert_beside(page: str, control: str) -> bool:
    """A refusal (role="alert") is in the same fieldset (or stretch of the form) as the
    control named ``control``: a box, or the buttons that set a hidden field."""
    return any('role="alert"' in s and f'name="{control}"' in s for s in sections(page))


@pytest.mark.parametrize("game", list(BASES))
def test_each_base_tally_records(client, game):
    """The complete deals the cases below spoil are themselves recorded (so a 422 below
    is the bad field's doing)."""
    game_id = create(client, game, FOUR)
    fields = BASES[game] | ({"loser": "Ben"} if game == "hundred" else {"record": "record"})
    answer = post(client, game_id, fields)
    assert answer.status_code == 204, answer.get_data(as_text=True)
    assert version(client, game_id) == 1


# (field, bad values, the control the reason is shown beside). Each bad value spoils a
# complete deal that is being recorded.
DATA_CASES = {
    "tablanette": [
        ("version", ["-1", "x", "", "²", ["0", "0"]], "record"),
        ("cards_0", ["-1", "53", HUGE, "-" + HUGE, "x", "²", "1_0", "1.5", ["13", "13"]], "cards_0"),
        ("cards_2", ["-5", "60", HUGE, "ZZ"], "cards_2"),
        ("owner_AS", ["9", "4", "-1", "x", "", "²", "٣", " 1", "1_0", HUGE, ["0", "1"]], "cycle"),
        ("owner_10D", ["Ann", "0.5"], "cycle"),
        ("sweeps_0", ["23", "0", "-14", HUGE, "x", "²", ["26", "nope"], ["26"] * 27], "add_sweep"),
        ("sweeps_3", ["1", "-1"], "add_sweep"),
        ("bonus_0", ["23", "0", "-26", HUGE, "x", "²", ["26", "26"]], "bonus_0"),
        ("sb_card", ["ZZ", "1S", "", ["KC", "KH"]], "sb"),
        ("sb_taken", ["ZZ", "11H", ["KS", "KS"]], "sb"),
    ],
    "tute": [
        ("version", ["-1", "x", ["0", "0"]], "record"),
        ("points_0", ["-1", "121", HUGE, "-" + HUGE, "x", "²", ["30", "30"]], "points_0"),
        ("points_2", ["-30", "500"], "points_2"),
        ("last_trick", ["Zed", "9", "0", "", ["Ann", "Ben"]], "set_last_trick"),
        ("cantes_0", ["30", "0", "-20", HUGE, "x", "²", "٢٠", ["20"] * 5], "cante_20"),
        ("cantes_3", ["400", "x"], "cante_40"),
    ],
    "tantony": [
        ("version", ["-1", "x", ["1", "1"]], "record"),
        ("runt_2S", ["4", "9", "-1", "x", "", "²", HUGE, "Ann", ["0", "1"]], "cycle"),
        ("runt_AH", ["4", "-4"], "cycle"),
    ],
    "hundred": [
        ("version", ["-1", "x", "", ["0", "0"]], None),
    ],
}


def data_cases():
    for game, cases in DATA_CASES.items():
        for field, values, beside in cases:
            yield pytest.param(game, field, values, beside, id=f"{game}-{field}")


@pytest.mark.parametrize(("game", "field", "values", "beside"), list(data_cases()))
def test_a_bad_field_is_refused_beside_it_and_stores_nothing(client, game, field, values, beside):
    game_id = create(client, game, FOUR)
    for value in values:
        fields = BASES[game] | ({"loser": "Ben"} if game == "hundred" else {"record": "record"}) | {field: value}
        answer = client.post(f"/games/{game_id}/tally", data={"version": "0", **fields}, headers=HX)
        page = answer.get_data(as_text=True)
        assert answer.status_code == 422, (value, page)
        assert 'role="alert"' in page, value
        assert beside is None or alert_beside(page, beside), (value, page)
        assert version(client, game_id) == 0, value


# (tap, bad values, the control the reason is shown beside, fields already on screen).
TAP_CASES = {
    "tablanette": [
        ("cycle", ["ZZ", "2S", "10", "", ["AS", "AH"]], "cycle", {}),
        ("sb", ["ZZ", "1S", "", ["AS", "KS"]], "sb", {}),
        ("sb_add", ["9", "4", "-1", "x", ["0", "1"]], "sb", {"sb_card": "KC", "sb_taken": "KS"}),
        ("sb_add", ["0"], "sb", {}),  # nothing built yet
        ("sb_add", ["0"], "sb", {"sb_card": "JC", "sb_taken": "KS"}),  # a jack never sweeps
        ("add_sweep", ["9", "4", "-1", "x", HUGE, ["0", "1"]], "add_sweep", {"bonus_0": "26"}),
        ("add_sweep", ["0"], "add_sweep", {}),  # no bonus typed
        ("add_sweep", ["0"], "add_sweep", {"bonus_0": "26", "sweeps_0": ["26"] * 26}),
        ("remove_sweep_0", ["0", "9", "-1", "x"], "add_sweep", {}),
        ("remove_sweep_1", ["1", ["0", "0"]], "add_sweep", {"sweeps_1": "26"}),
        ("sb_clear", [["1", "1"]], "sb", {"sb_card": "KC"}),
        ("record", [["record", "record"]], "record", {}),
    ],
    "tute": [
        ("set_last_trick", ["Zed", "9", "", ["Ann", "Ben"]], "set_last_trick", {}),
        ("cante_20", ["9", "4", "-1", "x", "٣", "Ann", ["0", "1"]], "cante_20", {}),
        ("cante_40", ["9", "-1", HUGE], "cante_40", {}),
        ("cante_40", ["0"], "cante_40", {"cantes_0": ["20", "20", "20", "40"]}),
        ("remove_cante", ["9", "-1", "x"], "remove_cante", {"cantes_0": "20"}),
        ("record", [["record", "record"]], "record", {}),
    ],
    "tantony": [
        ("cycle", ["ZZ", "1S", "", ["2S", "3S"]], "cycle", {}),
        ("record", [["record", "record"]], "record", {}),
    ],
    "hundred": [
        ("loser", ["Zed", "9", "0", "", "ann", ["Ann", "Ben"]], "loser", {}),
    ],
}


def tap_cases():
    for game, cases in TAP_CASES.items():
        for tap, values, beside, screen in cases:
            yield pytest.param(game, tap, values, beside, screen, id=f"{game}-{tap}-{len(screen)}")


@pytest.mark.parametrize(("game", "tap", "values", "beside", "screen"), list(tap_cases()))
def test_a_bad_tap_is_refused_beside_it_and_changes_nothing(client, game, tap, values, beside, screen):
    game_id = create(client, game, FOUR)
    for value in values:
        answer = post(client, game_id, screen | {tap: value})
        page = answer.get_data(as_text=True)
        assert answer.status_code == 422, (value, page)
        assert alert_beside(page, beside), (value, page)
        assert version(client, game_id) == 0, value


def test_two_taps_at_once_are_refused(client):
    game_id = create(client, "tablanette", FOUR)
    answer = post(client, game_id, {"cycle": "AS", "sb": "KC"})
    page = answer.get_data(as_text=True)
    assert answer.status_code == 422 and "One tap at a time" in page
    assert 'name="owner_AS" value="0"' in page and 'name="sb_card"' not in page  # neither was applied


def test_a_refused_tap_keeps_the_rest_of_the_screen(client):
    """A bad value loses only itself: what was entered stays, and a typed box keeps its text."""
    game_id = create(client, "tablanette", FOUR)
    page = post(
        client, game_id, {"cards_0": "12", "cards_1": "x", "owner_AS": "2", "sweeps_1": ["26", "14"], "cycle": "AS"}
    ).get_data(as_text=True)
    assert 'name="cards_0" type="text" value="12"' in page and 'name="cards_1" type="text" value="x"' in page
    assert 'name="owner_AS" value="2"' in page  # the tap was not applied
    assert page.count('name="sweeps_1"') == 2
    assert 'aria-describedby="cards_1-error"' in page and 'id="cards_1-error"' in page


def test_the_taps_still_work(client):
    """The screen's taps as fields: cycle a counting card, type and add a sweep, remove it."""
    game_id = create(client, "tablanette", FOUR)
    page = post(client, game_id, {"cycle": "AS", "owner_AS": "3"}).get_data(as_text=True)
    assert 'name="owner_AS" value="0"' in page  # after the last side, the first again
    page = post(client, game_id, {"bonus_2": "26", "add_sweep": "2"}).get_data(as_text=True)
    assert 'name="sweeps_2" value="26"' in page and 'name="bonus_2" placeholder="bonus" type="text" value=""' in page
    page = post(client, game_id, {"sweeps_2": ["26", "14"], "remove_sweep_2": "0"}).get_data(as_text=True)
    assert 'name="sweeps_2" value="26"' not in page and 'name="sweeps_2" value="14"' in page
    page = post(client, game_id, {"sb": "KC"}).get_data(as_text=True)
    page = post(client, game_id, {"sb_card": "KC", "sb": "KS"}).get_data(as_text=True)
    assert 'name="sb_card" value="KC"' in page and 'name="sb_taken" value="KS"' in page
    page = post(client, game_id, {"sb_card": "KC", "sb_taken": "KS", "sb_clear": "1"}).get_data(as_text=True)
    assert 'name="sb_card"' not in page and 'name="sb_taken"' not in page
    tute = create(client, "tute", FOUR)
    page = post(client, tute, {"cantes_1": "20", "cante_40": "1"}).get_data(as_text=True)
    assert page.count('name="cantes_1"') == 2 and "20 + 40" in page
    page = post(client, tute, {"set_last_trick": "Cat"}).get_data(as_text=True)
    assert 'name="last_trick" value="Cat"' in page
    tantony = create(client, "tantony", FOUR)
    page = post(client, tantony, {"runt_QS": "3", "cycle": "QS"}).get_data(as_text=True)
    assert 'name="runt_QS"' not in page  # after the last player, nobody


def test_cards_outside_a_three_player_pack_are_refused(client):
    """Tantony for 3 plays without 7-10 (RULES.md 3.10): a 7 is no card of this pack."""
    game_id = create(client, "tantony", ["Nan", "Eve", "Sam"])
    assert post(client, game_id, {"cycle": "7S"}).status_code == 422
    assert post(client, game_id, {"runt_7S": "0", "record": "record"}).status_code == 422
    assert post(client, game_id, {"runt_2S": "3"}).status_code == 422  # seat 3 of 3
    assert version(client, game_id) == 0


def test_a_player_out_of_the_match_cannot_lose_a_hand(client):
    """100 (RULES.md 4.4): the seats offered are the players still in."""
    game_id = create(client, "hundred", ["Ann", "Ben", "Cat"])
    for _ in range(3):
        assert post(client, game_id, {"loser": "Cat"}).status_code == 204
    page = client.get(f"/games/{game_id}/tally").get_data(as_text=True)
    assert 'value="Cat"' not in page
    answer = post(client, game_id, {"loser": "Cat"})
    assert answer.status_code == 422 and alert_beside(answer.get_data(as_text=True), "loser")
    assert version(client, game_id) == 3


def test_a_refusal_without_htmx_is_the_whole_page(client):
    game_id = create(client, "tute", FOUR)
    answer = post(client, game_id, {"points_0": "-1", "record": "record"}, htmx=False)
    page = answer.get_data(as_text=True)
    assert answer.status_code == 422 and "<h1>Tally deal 1</h1>" in page and alert_beside(page, "points_0")
    assert version(client, game_id) == 0


def test_csrf_is_checked_as_everywhere_else(csrf_client):
    """With CSRF on, as in production: a post without the page's token is refused (400) and
    changes nothing; the token in the form (or htmx's X-CSRFToken header) records."""
    created = csrf_client.post("/api/games", json={"game": "hundred", "players": ["Ann", "Ben"]}).get_json()
    url = csrf_client.post(
        f"/api/games/{created['id']}/links", json={"kind": "add"}, headers={"X-Edit-Key": created["edit_key"]}
    ).get_json()["url"]
    path = re.sub(r"^https?://[^/]+", "", url)
    token = re.search(r'name="csrf_token" value="([^"]+)"', csrf_client.get(path).get_data(as_text=True)).group(1)
    csrf_client.post(f"/games/{created['id']}/join", data={"token": path.rsplit("/", 1)[1], "csrf_token": token})
    tally = f"/games/{created['id']}/tally"
    page = csrf_client.get(tally).get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    assert csrf_client.post(tally, data={"version": "0", "loser": "Ben"}, headers=HX).status_code == 400
    assert version(csrf_client, created["id"]) == 0
    answer = csrf_client.post(tally, data={"version": "0", "loser": "Zed"}, headers=HX | {"X-CSRFToken": token})
    assert answer.status_code == 422 and alert_beside(answer.get_data(as_text=True), "loser")
    answer = csrf_client.post(tally, data={"version": "0", "loser": "Ben", "csrf_token": token}, headers=HX)
    assert answer.status_code == 204 and version(csrf_client, created["id"]) == 1


# -- random form data ----------------------------------------------------------------------

JUNK_KEYS = ["act", "junk", "csrf_token", "cards.0", "sw.0", "ctr.AS", "pts.0", "sc.2S", "last", "", "version"]
JUNK_VALUES = [
    "",
    "0",
    "1",
    "2",
    "3",
    "4",
    "9",
    "-1",
    "²",
    "٣",
    "½",
    HUGE,
    "-" + HUGE,
    "9" * 5000,
    "1e3",
    "1_0",
    " 7 ",
    "0x10",
    "ZZ",
    "AS",
    "10D",
    "2C",
    "7S",
    "JC",
    "record",
    "true",
    "false",
    "20",
    "40",
    "26",
    "\x00",
    "Ann & Ben",
    "<b>",
    "cycle:AS",
    "c40:-1",
    "delsweep:9.0",
]


def form_fields(app, game_id: str) -> list[str]:
    """The field names of the game's tally form, as the app builds it now."""
    with app.test_request_context():
        row = app.extensions["store"].get(game_id)
        rules = games.get(row["game"])
        form = web.get(row["game"]).Tally.for_game(rules, row["state"], rules.view(row["state"]), formdata=None)
        return [f.name for f in form]


def random_fields(names: list[str], players: list[str]):
    value = st.one_of(
        st.sampled_from(JUNK_VALUES + players), st.text(max_size=12), st.integers(-(10**22), 10**22).map(str)
    )
    values = st.one_of(value, st.lists(value, max_size=4))
    keys = st.one_of(st.sampled_from(names), st.sampled_from(JUNK_KEYS), st.text(max_size=10))
    return st.dictionaries(keys, values, max_size=10)


@pytest.mark.parametrize(
    ("game", "players"),
    [
        ("tablanette", FOUR),
        ("tablanette", ["Ann", "Ben"]),
        ("tute", FOUR),
        ("tantony", FOUR),
        ("hundred", ["Ann", "Ben", "Cat"]),
    ],
)
def test_random_form_data_never_fails_and_changes_nothing_unless_recorded(client, app, game, players):
    game_id = create(client, game, players)

    @settings(max_examples=examples(60), deadline=None)
    @given(data=st.data())
    def throw(data):
        before = version(client, game_id)
        names = form_fields(app, game_id)
        fields = data.draw(random_fields(names, players), label="fields")
        if data.draw(st.booleans(), label="with the current version"):
            fields["version"] = str(before)
        htmx = data.draw(st.booleans(), label="htmx")
        answer = client.post(f"/games/{game_id}/tally", data=fields, headers=HX if htmx else {})
        assert answer.status_code < 500, answer.get_data(as_text=True)
        recorded = answer.status_code in (204, 303)
        assert version(client, game_id) == before + recorded
        if not recorded and answer.status_code != 303:
            assert answer.status_code in (200, 422)

    throw()
