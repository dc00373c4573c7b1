"""The dispute lab reads its position from the query string, where anything can be typed:
a wrong value (Unicode digits, a negative or 20-digit number, an empty required field, a
junk word, a parameter given twice) answers 400 with a plain message naming the field, in
the page's alert; nothing answers 5xx (a corpus, then Hypothesis)."""

import html
import re
from urllib.parse import urlencode

import pytest
from flask import request, url_for
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion import board, create_app
from companion.web.query import Query
from tests.conftest import examples

HUGE = "9" * 20
UNICODE_DIGITS = ("²", "١٢", "１２", "৩", "߁")  # isdigit() or int() accept these; the lab does not
JUNK = ("banana", "1.5", "0x10", "1e3", "12abc", " - ", "NaN", "true1")


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """One app for the whole corpus (the lab reads nothing from the database and writes
    nothing): a few hundred requests, not a few hundred apps."""
    folder = tmp_path_factory.mktemp("lab")
    app = create_app(
        {"TESTING": True, "DATABASE": str(folder / "lab.db"), "SECRET_KEY": "test"}, instance_path=str(folder)
    )
    return app.test_client()


def alerts(page: str) -> list[str]:
    return [html.unescape(re.sub("<[^>]+>", "", a)) for a in re.findall(r'role="alert">(.*?)</p>', page, re.S)]


def get(client, game, pairs):
    return client.get(f"/rules/{game}?{urlencode(pairs)}")


# (game, field, the rest of a position that reads it, wrong values beyond the common ones)
NUMBERS = [
    ("tablanette", "a_cards", {}, ("53", "-1")),
    ("tablanette", "score_a", {"score_b": "1"}, ("-1",)),
    ("tablanette", "score_b", {"score_a": "1"}, ("-1",)),
    ("tablanette", "target", {"score_a": "1", "score_b": "2"}, ("0", "-1")),
    ("tablanette", "a_sweeps", {"a_cards": "27"}, ("26, ²", "26 -42")),
    ("tablanette", "b_sweeps", {"a_cards": "27"}, ("-26",)),
    ("tablanette", "max_group_size", {"table": "2S,3H", "card": "5D"}, ("-2",)),
    ("tute", "players", {}, ("", "2", "6", "-4")),
    ("tute", "P1", {"P2": "30", "P3": "40", "P4": "50"}, ("-1",)),
    ("tute", "m_P2", {"m_P1": "1", "m_P3": "1", "m_P4": "1"}, ("-1",)),
    ("tute", "loss_limit", {}, ("0", "-6")),
    ("tute", "win_threshold", {}, ("0", "-101")),
    ("tantony", "players", {}, ("", "2", "5", "-3")),
    ("tantony", "held_N", {"held_E": "3", "held_S": "2", "held_W": "3", "to": "S"}, ("14", "-1")),
    ("tantony", "ns", {"ew": "30", "after": "1"}, ("-1",)),
    ("tantony", "ew", {"ns": "30", "after": "1"}, ("-1",)),
    ("tantony", "after", {"ns": "59", "ew": "30"}, ("0", "13", "-1")),
    ("hundred", "total", {"card": "5S"}, ("", "-1", "-95")),  # below 0 only when the floor is off
    ("hundred", "players", {"card": "4S", "total": "10"}, ("", "1", "21", "-3")),
    ("hundred", "seat", {"card": "4S", "total": "10", "players": "3"}, ("", "0", "4", "-1")),
    ("hundred", "ace_high_99", {"variant": "99"}, ("12", "-10")),
]
CHOICES = [
    ("tablanette", "jack_is_12", {}),
    ("tablanette", "forced_capture", {}),
    ("tablanette", "sweeper", {"score_a": "251", "score_b": "200"}),
    ("tablanette", "last", {}),
    ("tablanette", "into", {}),
    ("tute", "trump", {"trick": "2S,3S"}),
    ("tute", "last", {"P1": "1"}),
    ("tute", "sang_now", {"hand": "KS,QS"}),
    ("tute", "sung", {"hand": "KS,QS"}),
    ("tute", "lost", {}),
    ("tute", "into", {}),
    ("tute", "undertrump_required", {}),
    ("tute", "must_head", {}),
    ("tute", "triple_tie", {}),
    ("tute", "over_100_loses", {}),
    ("tantony", "to", {}),
    ("tantony", "value_scale", {}),
    ("tantony", "three_player_values", {}),
    ("hundred", "direction", {"card": "4S"}),
    ("hundred", "variant", {}),
    ("hundred", "floor_at_zero", {}),
    ("hundred", "itoya_black_ace", {}),
    ("hundred", "reverse_with_two_players", {}),
]
REPEATABLE = {"lost"}
# Every field above given twice (each value good on its own), and the card lists.
TWICE = [
    (game, field, {"tablanette": "2", "tute": "P1", "tantony": "S", "hundred": "3"}[game], rest)
    for game, field, rest, *_ in NUMBERS + CHOICES
    if field not in REPEATABLE
] + [
    ("tablanette", "table", "2S", {}),
    ("tablanette", "card", "KH", {}),
    ("tablanette", "claim", "2S", {}),
    ("tablanette", "layout", "2S", {}),
    ("tablanette", "a_counters", "AS", {"a_cards": "27"}),
    ("tute", "trick", "2S", {}),
    ("tute", "hand", "KS", {}),
    ("tantony", "trick", "2S", {}),
    ("hundred", "card", "4S", {}),
    ("hundred", "hand", "4S", {}),
]


def corpus():
    for game, field, rest, extra in NUMBERS:
        for value in (*UNICODE_DIGITS, HUGE, "-" + HUGE, *JUNK[:4], *extra):
            yield pytest.param(game, field, [*rest.items(), (field, value)], id=f"{game}-{field}={value!r}")
    for game, field, rest in CHOICES:
        for value in ("banana", "²", HUGE, "S20 X40" if field == "sung" else "-1", "P9"):
            yield pytest.param(game, field, [*rest.items(), (field, value)], id=f"{game}-{field}={value!r}")
    for game, field, value, rest in TWICE:
        yield pytest.param(game, field, [*rest.items(), (field, value), (field, value)], id=f"{game}-{field}-twice")


@pytest.mark.parametrize(("game", "field", "pairs"), list(corpus()))
def test_a_wrong_value_is_400_with_a_message_naming_the_field(lab, game, field, pairs):
    response = get(lab, game, pairs)
    assert response.status_code == 400, pairs
    said = alerts(response.get_data(as_text=True))
    assert any(f"({field})" in a or a.split(":")[-1].lstrip().startswith(field) for a in said), said
    assert "<h1>" in response.get_data(as_text=True)  # the lab's page, with its forms, not a bare error


@pytest.mark.parametrize(
    ("game", "pairs"),
    [
        ("hundred", {"total": "0", "card": "5S"}),
        ("hundred", {"total": "100", "card": "4C", "players": "8", "seat": "8"}),
        ("hundred", {"total": "-5", "floor_at_zero": "false", "card": "5S"}),
        ("hundred", {"total": " 95 "}),
        ("hundred", {"players": "2", "seat": "2", "direction": "anticlockwise"}),
        ("tablanette", {"a_cards": "52", "a_counters": "AS"}),
        ("tablanette", {"a_cards": "0", "a_sweeps": ""}),
        ("tablanette", {"score_a": "", "score_b": "", "target": "", "sweeper": ""}),  # a form sent empty
        ("tablanette", {"max_group_size": "none", "table": "2S,3H,4D", "card": "9C", "last": "1"}),
        ("tute", {"players": "5", "P5": "0", "trump": "none", "sung": "s20, D40", "sang_now": "0"}),
        ("tute", {"P1": "", "P2": "", "m_P1": "", "last": "P5"}),  # P5 with 4 players: read as P1, as before
        ("tantony", {"players": "3", "held_P1": "0", "held_P2": "4", "held_P3": "4", "to": "P1"}),
        ("tantony", {"players": "3", "to": "N"}),  # a seat of the other table: no question asked, as before
        ("tantony", {"ns": "0", "ew": "9999", "after": "12"}),
        ("tablanette", {"table": "ZZ,1O♠", "played": "KH", "unknown": "²"}),  # unknown names are not read
    ],
)
def test_right_values_still_answer_200(lab, game, pairs):
    response = get(lab, game, pairs)
    assert response.status_code == 200, alerts(response.get_data(as_text=True))


def test_a_wrong_total_is_said_and_nothing_is_answered_from_it(lab):
    page = get(lab, "hundred", {"total": "١٢", "card": "5S", "hand": "6S,8S,9S"}).get_data(as_text=True)
    assert alerts(page) == ["Total now (total) must be a whole number from 0 to 9999, not '١٢'."]
    assert "data-total" not in page and "data-lose" not in page


def test_the_rest_of_the_lab_answers_beside_a_wrong_value(lab):
    response = get(lab, "tute", {"trick": "AS,3S", "trump": "S", "players": "4", "m_P1": "²"})
    assert response.status_code == 400
    assert 'data-winner="0"' in response.get_data(as_text=True)


def test_an_engine_refusal_of_an_option_is_400_naming_it(lab):
    response = get(lab, "tute", {"loss_limit": "0", "triple_tie": "no_loser"})
    said = alerts(response.get_data(as_text=True))
    assert response.status_code == 400 and any("loss_limit" in a for a in said), said
    assert re.search(r'<option value="no_loser" selected', response.get_data(as_text=True))  # the others stay


def test_a_refused_tap_loads_as_a_page_so_its_message_is_read(lab):
    """htmx swaps no 4xx answer: the lab's answer tells it to load the refusal as a page."""
    url = "/rules/hundred?" + urlencode({"total": "²", "card": "5S"})
    response = lab.get(url, headers={"HX-Request": "true", "HX-Boosted": "true"})
    assert response.status_code == 400 and response.headers["HX-Redirect"] == url
    assert "HX-Redirect" not in lab.get(url).headers
    assert "HX-Redirect" not in lab.get("/rules/hundred?total=5", headers={"HX-Request": "true"}).headers


def test_links_on_a_refusal_leave_the_wrong_value_out(lab):
    page = get(lab, "hundred", {"total": "95", "players": "²"}).get_data(as_text=True)
    links = [html.unescape(h) for h in re.findall(r'href="(/rules/hundred\?[^"]*)"', page)]
    assert links and all("players" not in h and "total=95" in h for h in links)
    assert all(lab.get(h).status_code == 200 for h in links[:3])


def test_tute_links_keep_every_lost_box(lab):
    page = get(
        lab, "tute", [("m_P1", "5"), ("m_P2", "3"), ("m_P3", "5"), ("m_P4", "2"), ("lost", "P1"), ("lost", "P3")]
    ).get_data(as_text=True)
    assert 'data-game-losers="P1 P3"' in page
    link = html.unescape(re.search(r'href="(/rules/tute\?[^"]*trump=S[^"]*)"', page).group(1))
    assert "lost=P1&lost=P3" in link
    assert 'data-game-losers="P1 P3"' in lab.get(link).get_data(as_text=True)


# -- Hypothesis: random query strings, never a 5xx --------------------------------------

FIELDS = {
    "tablanette": (
        "table",
        "card",
        "claim",
        "last",
        "into",
        "layout",
        "a_cards",
        "a_counters",
        "a_sweeps",
        "b_sweeps",
        "score_a",
        "score_b",
        "target",
        "sweeper",
    ),
    "tute": (
        "trick",
        "hand",
        "trump",
        "players",
        "into",
        "last",
        "sung",
        "sang_now",
        "lost",
        "P1",
        "P2",
        "P3",
        "P4",
        "P5",
        "m_P1",
        "m_P2",
        "m_P3",
        "m_P4",
        "m_P5",
    ),
    "tantony": (
        "trick",
        "players",
        "to",
        "ns",
        "ew",
        "after",
        "held_N",
        "held_E",
        "held_S",
        "held_W",
        "held_P1",
        "held_P2",
        "held_P3",
    ),
    "hundred": ("card", "total", "hand", "players", "seat", "direction"),
}
CARDS = [f"{r}{s}" for s in "SHDC" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")]
CARD_JUNK = ["ZZ", "1O♠", "10♦", "q♥", "11S", "0S", "AS️", "♠", "10", "K", "KX", "JOKER", "ß", "🂡"]
WORDS = [
    "none",
    "true",
    "false",
    "on",
    "1",
    "0",
    "yes",
    "S",
    "H",
    "D",
    "C",
    "A",
    "B",
    "N",
    "P1",
    "P5",
    "table",
    "card",
    "trick",
    "hand",
    "clockwise",
    "anticlockwise",
    "S20",
    "D40",
    "web2023",
    "penguin2008",
    "shifted",
    "99itoya",
    "98",
    "set_any",
    "all_lose",
    "no_loser",
    "same_player_again",
]

#: Positions that reach every answer of each lab; a random query changes some of their
#: values and adds others (a change deep in a position is what used to answer 500).
BASES = {
    "tablanette": [
        {
            "table": "2S,3H,5D,9C",
            "card": "KH",
            "claim": "5D,9C",
            "last": "1",
            "a_cards": "27",
            "a_counters": "AS AH KC",
            "a_sweeps": "26",
            "b_sweeps": "42",
            "score_a": "200",
            "score_b": "260",
            "target": "251",
            "sweeper": "B",
            "layout": "2H,5C,7S,9D",
        }
    ],
    "tute": [
        {
            "players": "4",
            "trump": "S",
            "trick": "AS,3S",
            "hand": "KS,QS,2H",
            "P1": "50",
            "P2": "40",
            "P3": "20",
            "P4": "10",
            "last": "P2",
            "m_P1": "1",
            "m_P2": "2",
            "m_P3": "3",
            "m_P4": "4",
            "lost": "P1",
            "sung": "D20",
        },
        {
            "players": "3",
            "trump": "none",
            "hand": "KS,QS,KD,QD",
            "P1": "50",
            "P2": "40",
            "P3": "20",
            "m_P1": "5",
            "m_P2": "3",
            "m_P3": "5",
            "lost": "P3",
            "sang_now": "1",
        },
    ],
    "tantony": [
        {
            "players": "4",
            "trick": "AS,QH,KS,8H",
            "held_N": "3",
            "held_E": "3",
            "held_S": "2",
            "held_W": "3",
            "to": "S",
            "ns": "59",
            "ew": "30",
            "after": "1",
        },
        {
            "players": "3",
            "trick": "AS,2H,3D",
            "held_P1": "4",
            "held_P2": "4",
            "held_P3": "3",
            "to": "P3",
            "ns": "125",
            "ew": "70",
            "after": "2",
        },
    ],
    "hundred": [
        {
            "total": "95",
            "card": "AC",
            "hand": "6S,8S,9S",
            "players": "4",
            "seat": "2",
            "direction": "anticlockwise",
            "variant": "99itoya",
        },
        {"total": "-5", "floor_at_zero": "false", "card": "4S", "players": "2", "seat": "2"},
    ],
}

text = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
numbers = st.one_of(
    st.integers(-(10**25), 10**25).map(str),
    st.integers(-3, 60).map(str),
    st.sampled_from(UNICODE_DIGITS + ("⁹", "¹⁰", "½", "٣٠", "-²")),
    st.text(st.characters(categories=("Nd", "No")), min_size=1, max_size=4),
)
card_lists = st.lists(st.sampled_from(CARDS + CARD_JUNK), max_size=8).flatmap(
    lambda cards: st.sampled_from([",", " ", ", ", "+"]).map(lambda sep: sep.join(cards))
)
values = st.one_of(numbers, text, card_lists, st.sampled_from(WORDS), st.just(""))


def queries(game):
    """A base position with some values changed or added, and a few parameters repeated."""
    names = FIELDS[game] + board.get(game).LAB_OPTIONS
    keys = st.one_of(
        st.sampled_from(names),
        st.sampled_from(names),
        st.sampled_from(("into", "x", "P6", "m_", "game", "_external", "_anchor", "_method")),
        text,
    )
    changes = st.lists(st.tuples(keys, values), min_size=1, max_size=6)
    repeats = st.lists(st.tuples(st.sampled_from(names), values), max_size=2)
    return st.tuples(st.sampled_from(BASES[game] + [{}]), changes, repeats).map(
        lambda t: [*({**t[0], **dict(t[1])}).items(), *t[2]]
    )


@pytest.mark.parametrize("game", sorted(FIELDS))
@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_queries_never_answer_5xx(client, game, data):
    pairs = data.draw(queries(game), label="query")
    response = get(client, game, pairs)
    assert response.status_code in (200, 400), (pairs, response.status_code)
    if response.status_code == 400:
        assert alerts(response.get_data(as_text=True))


@pytest.mark.parametrize("game", sorted(FIELDS))
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_labs_links_are_the_ones_url_for_builds(app, game, data):
    """A lab page builds a link for every card and option; Query.url quotes each word once
    instead of asking url_for each time. The links must stay exactly url_for's."""
    pairs = data.draw(queries(game), label="query")
    changes = data.draw(
        st.dictionaries(
            st.sampled_from([*FIELDS[game], "into", "lost"]),
            st.one_of(st.none(), st.just(""), st.just([]), values, st.lists(st.sampled_from(CARDS), max_size=4)),
            max_size=3,
        ),
        label="changes",
    )
    with app.test_request_context(f"/rules/{game}?{urlencode(pairs)}"):
        q = Query(game, request.args, leave_out=frozenset(data.draw(st.sets(st.sampled_from(FIELDS[game])))))
        q.bad.update(data.draw(st.sets(st.sampled_from(FIELDS[game]), max_size=2), label="bad"))
        args = {
            k: v if len(v) > 1 else v[0]
            for k, v in request.args.lists()
            if k not in q.bad | q.leave_out and k != "game" and not k.startswith("_")
        }
        for k, v in changes.items():
            if v in (None, "", []):
                args.pop(k, None)
            else:
                args[k] = ",".join(v) if isinstance(v, list) else v
        assert q.url(**changes) == url_for("rules.page", game=game, **args)
