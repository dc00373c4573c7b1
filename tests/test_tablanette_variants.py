"""Issue 18: the Tablanette and Tablić variants other tables play, and the seeds' other
readings, each as parametrized vectors written from its source (named in each test's
docstring), through the engine, the JSON API and the dispute lab."""

import re
from urllib.parse import urlencode

import pytest

from companion.errors import OptionError
from companion.games import tablanette as T

COUNTERS = [f"{r}{s}" for r in ("A", "K", "Q", "J", "10") for s in "SHDC"] + ["2C"]


def outcomes(card, table, **options):
    return {(" ".join(c.sorted_cards()), c.bonus) for c in T.capture_options(card, table, options)}


def tally(state, cards, counters, sweeps=None):
    """A whole deal entered at its end: cards taken and counting cards per side."""
    names = T.labels(state)
    move = {
        "type": "tally",
        "cards": dict(zip(names, cards)),
        "counters": dict(zip(names, counters)),
        "sweeps": dict(zip(names, sweeps or [[] for _ in names])),
    }
    return T.apply(state, move)


# -- forced_capture = "any" -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("card", "table", "legal"),
    [
        # RULES.md TB-10's table: forced maximal takes 6+2+4 only; "any" takes any one capture.
        ("6C", ["6S", "2H", "4D", "9C"], {"6S", "2H 4D", "2H 4D 6S"}),
        # TB-08: the 9 can't count twice, so each maximal capture stays; no laying down.
        ("KH", ["2S", "3H", "5D", "9C"], {"2S 3H 9C", "5D 9C"}),
        # TB-31 (pagat's Tablić example): nothing to take, so the card is laid down.
        ("5C", ["AS", "3C", "6D", "7H", "8S", "QD"], {""}),
    ],
)
def test_any_one_capture_is_compulsory_but_need_not_be_maximal(card, table, legal):
    """Issue 18, from the Tablić implementations that play "a capture is compulsory, any
    one will do" (beside pagat's optional captures [SRC 4] and seed 000's maximal take)."""
    assert {cards for cards, _ in outcomes(card, table, forced_capture="any")} == legal
    if "" not in legal:  # laying the card down is refused, saying a capture is compulsory
        assert T.judge_capture(card, table, [], {"forced_capture": "any"}) is None
        assert T.explain_refusal(card, table, [], {"forced_capture": "any"}).code == "must_capture"


# -- ace_as_one: seed 000 leaves the played ace's value to the player -----------------------


@pytest.mark.parametrize(
    ("table", "default", "as_one"),
    [
        # No ace on the table: declared 1, the ace takes nothing and is laid down.
        (["5C", "6D"], {"5C 6D"}, {"5C 6D", ""}),
        (["2S", "9H", "KD"], {"2S 9H"}, {"2S 9H", ""}),
        # TB-13: an ace on the table is still taken (as 1 it matches the ace).
        (["AS", "5C", "6D"], {"AS", "5C 6D AS"}, {"AS", "5C 6D AS"}),
    ],
)
def test_a_played_ace_declared_1_may_take_nothing(table, default, as_one):
    """Seed 000 §1.3 (「Aは1または11」, the value chosen by the player) read as letting a
    played ace count 1 only, which then takes nothing without an ace to take; RULES.md A6
    (today's default) refuses that escape."""
    assert {cards for cards, _ in outcomes("AH", table)} == {" ".join(T.sort_cards(c.split())) for c in default}
    got = {cards for cards, _ in outcomes("AH", table, ace_as_one=True)}
    assert got == {" ".join(T.sort_cards(c.split())) for c in as_one}
    # Only an ace may: a 5 on the same table must still capture when it can.
    assert outcomes("5H", ["5C", "6D"], ace_as_one=True) == outcomes("5H", ["5C", "6D"])


# -- sweep_aces: what an ace taken by rank counts in a sweep --------------------------------


@pytest.mark.parametrize(
    ("card", "table", "bonus"),
    [
        # TB-16: both aces 11 (RULES.md A1) / each 1 / the played ace 11, the table's 1.
        ("AC", ["AS"], {"eleven": 22, "one": 2, "as_played": 12}),
        # Seed 001's own example: A on A + 10 is 22 = 11 + 1 + 10 under every reading.
        ("AC", ["AS", "10H"], {"eleven": 22, "one": 22, "as_played": 22}),
        # TB-13: A on A 5 6: 33 when the table's ace counts 11, else 11 + 1 + 5 + 6.
        ("AH", ["AS", "5C", "6D"], {"eleven": 33, "one": 23, "as_played": 23}),
        # No ace on the table: the played ace makes 11 with the 5 and 6 under every reading.
        ("AH", ["5C", "6D"], {"eleven": 22, "one": 22, "as_played": 22}),
        # Two aces taken by rank: each counts 1 but under "eleven"; the played one too under "one".
        ("AH", ["AS", "AC"], {"eleven": 33, "one": 3, "as_played": 13}),
        # No ace taken by rank: every reading agrees (TB-09, seed 001's K on K 10 4).
        ("KC", ["KS", "10H", "4D"], {"eleven": 42, "one": 42, "as_played": 42}),
    ],
)
def test_aces_in_a_sweep_count_as_the_reading_says(card, table, bonus):
    """Seed 001 (「手札のA(11) + 場のA(1) + 場の10」 = 22) and seed 000 leave open what an
    ace taken by rank counts in a sweep's bonus; RULES.md A1 (11 where it can) is the default."""
    for reading, expected in bonus.items():
        sweep = T.sweep_of(card, table, {"sweep_aces": reading})
        assert sweep.bonus == expected, reading
        assert T.sweep_bonus_refusal(expected, {"sweep_aces": reading}) is None
        got = {b for cards, b in outcomes(card, table, sweep_aces=reading) if len(cards.split()) == len(table)}
        assert got == {expected}


# -- the most-cards bonus on a tie ----------------------------------------------------------


@pytest.mark.parametrize(
    ("tie", "cards", "most"),
    [
        ("nobody", [26, 26], [0, 0]),  # seed 000: a tie scores 0 (RULES.md A9)
        ("split", [26, 26], [1, 1]),  # 3 shared by two, rounded down
        ("split", [27, 25], [3, 0]),  # no tie: as ever
    ],
)
def test_the_most_cards_bonus_on_a_tie(tie, cards, most):
    """Issue 18, the peers' Tablić scoring: the most-cards bonus split between the tied
    sides, or (seed 000 and today's default) not awarded."""
    s = tally(T.start(["Ann", "Ben"], {"most_cards_tie": tie}), cards, [COUNTERS, []])
    assert list(T.view(s)["history"][-1]["most_cards"].values()) == most
    assert T.most_cards([18, 17, 17], T.Options(most_cards_tie="split")) == [3, 0, 0]
    assert T.most_cards([16, 16, 16, 4], T.Options(most_cards_tie="split")) == [1, 1, 1, 0]


# -- win_at: seed 000 "reach" or seed 001 "pass" 251 ----------------------------------------


@pytest.mark.parametrize(("win_at", "over"), [("reach", True), ("exceed", False)])
def test_the_game_ends_on_reaching_or_on_passing_the_target(win_at, over):
    """Seed 000: the game ends on reaching 251; seed 001: 「251点を超えたとき」 (on passing
    it). Ann ends a deal on exactly the target: over, or another deal."""
    s = T.start(["Ann", "Ben"], {"target": 22, "win_at": win_at})
    s = tally(s, [26, 26], [COUNTERS, []])  # Ann 22 card points, the tie scores nobody
    assert T.view(s)["scores"] == {"Ann": 22, "Ben": 0}
    assert (T.view(s)["result"] is not None) == over
    assert (T.verdict({"A": 22, "B": 0}, 22, win_at=win_at) is not None) == over
    assert T.verdict({"A": 23, "B": 0}, 22, win_at=win_at)["winners"] == ["A"]


# -- fixed_deals 1-20, and overtime on a tie ------------------------------------------------


@pytest.mark.parametrize("deals", [1, 3, 20])
def test_any_fixed_number_of_deals_from_1_to_20(deals):
    """Seed 001's house rule (「2ディールまたは4ディール」) generalised as the peers play it:
    exactly that many deals, the target off, the highest total wins."""
    s = T.start(["Ann", "Ben"], {"fixed_deals": deals})
    for _ in range(deals):
        assert T.view(s)["result"] is None
        s = tally(s, [30, 22], [COUNTERS, []])
    assert T.view(s)["result"] == {"winners": ["Ann"], "losers": ["Ben"], "draw": False}


@pytest.mark.parametrize(("on_tie", "extra"), [("draw", False), ("play_on", True)])
def test_a_tie_after_the_fixed_deals_is_a_draw_or_overtime(on_tie, extra):
    """pagat's Tablić (「a tie means another hand」 [SRC 4]) applied to a fixed number of
    deals: level after the last one, a draw, or deals on until one side leads."""
    s = T.start(["Ann", "Ben"], {"fixed_deals": 2, "on_tie": on_tie})
    half = ["AS", "AH", "KS", "KH", "QS", "QH", "JS", "JH", "10S", "10H"]  # 10 card points each way
    rest = [c for c in COUNTERS if c not in half]  # 12: with 10D and 2C
    s = tally(s, [26, 26], [half, rest])
    s = tally(s, [26, 26], [rest, half])  # 22 - 22 after two deals
    v = T.view(s)
    assert v["scores"] == {"Ann": 22, "Ben": 22}
    if not extra:
        assert v["result"] == {"winners": ["Ann", "Ben"], "losers": [], "draw": True}
        return
    assert v["result"] is None and v["deal"] == 3
    eleven = half + ["2C"]
    s = tally(s, [26, 26], [eleven, [c for c in COUNTERS if c not in eleven]])  # 11 - 11: still level
    assert T.view(s)["result"] is None and T.view(s)["deal"] == 4
    s = tally(s, [27, 25], [half, rest])  # Ann 10 + 3, Ben 12: Ann leads and wins
    assert T.view(s)["result"] == {"winners": ["Ann"], "losers": ["Ben"], "draw": False}


# -- hand sizes ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "hand", "rounds", "last"),
    [
        (3, 6, 3, 4),  # Balkan tables: 6, 6 and then 4 each (gambiter/pagat Tablić, 3 players)
        (4, 6, 2, 6),  # 4 players, 6 each in two rounds (askarte, extramagazin: 6 each)
        (2, 12, 2, 12),
        (3, 8, 2, 8),
        (2, 24, 1, 24),
    ],
)
def test_hand_sizes_that_share_the_deal_out(players, hand, rounds, last):
    """Issue 18 after the Balkan Tablić pages (askarte, extramagazin: 6 cards each to 2 or
    4 players; gambiter: 3 players too): any hand size that shares the 48 cards out
    evenly, or 6, whose last round with 3 players is 4 each."""
    names = ["Ann", "Ben", "Cat", "Dan"][:players]
    s = T.start(names, {"hand_size": hand})
    s = T.apply(s, {"type": "layout", "cards": ["2S", "3S", "4S", "5S"]})
    assert T.rounds_per_deal(s) == rounds
    pack = [f"{r}{x}" for r in ("A", "K", "Q", "J", "10", "9", "8", "7", "6") for x in "SHDC"]
    pack += [f"{r}{x}" for r in ("5", "4", "3", "2") for x in "HDC"]
    sizes = []
    for card in pack:
        v = T.view(s)
        if v["round"] > len(sizes):
            sizes.append(v["hands"][v["to_act"]])
        s = T.apply(s, {"type": "play", "card": card, "capture": (T.some_captures(card, v["table"], s.options)[0][0])})
        if s.phase != "play":
            break
    assert sizes == [hand] * (rounds - 1) + [last]
    assert len(T.view(s)["history"]) == 1 and sum(T.view(s)["history"][0]["cards"].values()) == 52


# -- the family rule page (seed 001) as a one-tap preset ------------------------------------


def test_the_family_preset_reads_seed_001():
    """Seed 001: sums of any number of cards (its variant list offers "no more than 3"), the
    game ends on passing 251, and 151 is recommended for every 3-4 player game, partnerships
    included (「4人の場合は個人戦のときも…パートナー戦もあります…151点が推奨」)."""
    two = T.start(["Ann", "Ben"], {"preset": "family"}).options
    assert (two.max_group_size, two.win_at, two.target) == (None, "exceed", 251)
    teams = T.start(["Ann", "Ben", "Cat", "Dan"], {"preset": "family", "partnership": True}).options
    assert teams.target == 151
    # Seed 000's rules keep 251 for teams (RULES.md 1.2).
    assert T.start(["Ann", "Ben", "Cat", "Dan"], {"partnership": True}).options.target == 251
    # TB-06u: four cards adding up to 14 are one group.
    assert outcomes("KC", ["2S", "3H", "4D", "5C"], preset="family") == {("2S 3H 4D 5C", 28)}


def test_refused_combinations_say_why():
    """Issue 18: a hand size that does not share the cards out is refused, naming the sizes."""
    with pytest.raises(OptionError) as err:
        T.start(["Ann", "Ben", "Cat", "Dan"], {"hand_size": 5})
    assert err.value.code == "hand_size_shares" and err.value.params["sizes"] == "1, 2, 3, 4, 6, 12"
    with pytest.raises(OptionError) as err:
        T.start(["Ann", "Ben"], {"fixed_deals": 21})
    assert err.value.code == "not_a_choice"


# -- end to end: the JSON API, the new-game form, the dispute lab ---------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"forced_capture": "any"},
        {"ace_as_one": True, "sweep_aces": "as_played"},
        {"preset": "family"},
        {"hand_size": 12, "most_cards_tie": "split", "win_at": "exceed", "fixed_deals": 7, "on_tie": "play_on"},
    ],
    ids=["any", "ace-as-one", "family", "mixed"],
)
def test_the_api_plays_every_variant(client, options):
    """DESIGN.md JSON API: a game under each variant starts, plays and answers its refusals."""
    created = client.post("/api/games", json={"game": "tablanette", "players": ["Ann", "Ben"], "options": options})
    assert created.status_code == 201, created.get_json()
    game = created.get_json()
    for key, value in options.items():
        assert game["view"]["options"][key] == value

    def move(m):
        return client.post(
            f"/api/games/{game['id']}/moves",
            json={"version": game["version"], "move": m},
            headers={"X-Edit-Key": game["edit_key"]},
        )

    answer = move({"type": "layout", "cards": ["6S", "2H", "4D", "9C"]})
    assert answer.status_code == 200
    game["version"] = answer.get_json()["version"]
    taken = ["6S"]  # legal only when any one capture will do (TB-10)
    answer = move({"type": "play", "card": "6C", "capture": taken})
    if options.get("forced_capture") == "any":
        assert answer.status_code == 200 and answer.get_json()["view"]["table"] == ["2H", "4D", "9C"]
    else:
        assert answer.status_code == 422 and answer.get_json()["code"] == "must_take_every_group"


def test_the_api_refuses_a_bad_variant_naming_it(client):
    body = {"game": "tablanette", "players": ["Ann", "Ben", "Cat"], "options": {"hand_size": 5}}
    answer = client.post("/api/games", json=body)
    assert answer.status_code == 422
    assert answer.get_json()["code"] == "hand_size_shares" and answer.get_json()["params"]["option"] == "hand_size"


def test_the_new_game_form_offers_the_family_rules_in_one_tap(client):
    page = client.get("/games/new?game=tablanette").get_data(as_text=True)
    assert 'value="family"' in page and "Tablanette, sums of any size" in page
    page = client.get("/games/new?game=tablanette&start=family").get_data(as_text=True)
    preset = re.search(r'<input[^>]*name="preset"[^>]*>', page).group(0)
    assert 'value="family"' in preset
    assert re.search(r'<input[^>]*checked[^>]*value="family"|<input[^>]*value="family"[^>]*checked', page)


def lab(client, **args):
    answer = client.get(f"/rules/tablanette?{urlencode(args)}")
    assert answer.status_code == 200
    return answer.get_data(as_text=True)


@pytest.mark.parametrize(
    ("args", "cards"),
    [
        ({"forced_capture": "any"}, {"6S", "2H 4D", "2H 4D 6S"}),
        ({"forced_capture": "true"}, {"2H 4D 6S"}),
    ],
)
def test_the_lab_answers_under_forced_capture_readings(client, args, cards):
    """The dispute lab lists the captures of TB-10's table under each capture rule."""
    page = lab(client, table="6S,2H,4D,9C", card="6C", **args)
    found = {" ".join(T.sort_cards(c.split())) for c in re.findall(r'data-cards="([^"]*)"', page)}
    assert found == cards


@pytest.mark.parametrize(("reading", "bonus"), [("eleven", "22"), ("one", "2"), ("as_played", "12")])
def test_the_lab_scores_a_sweep_as_the_aces_reading_says(client, reading, bonus):
    """TB-16 in the lab under each sweep_aces reading."""
    page = lab(client, table="AS", card="AC", sweep_aces=reading)
    assert re.findall(r'data-bonus="([^"]*)"', page) == [bonus]


def test_the_lab_lays_an_ace_down_when_it_may_count_1(client):
    """Seed 000's reading in the lab: an ace with no ace to take may be laid down."""
    assert "data-lay-down" not in lab(client, table="5C,6D", card="AH")
    assert "data-lay-down" in lab(client, table="5C,6D", card="AH", ace_as_one="true")
