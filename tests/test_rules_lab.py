"""The dispute lab answers every rules vector of RULES.md as the vector says, through
HTTP (TB, TU, TT and AD vectors), with the rule it rests on linked."""

import json
import re
from pathlib import Path
from urllib.parse import urlencode

import pytest

from tests import VECTORS_FILE

VECTORS = json.loads(VECTORS_FILE.read_text(encoding="utf-8"))


def lab(client, game, **args):
    response = client.get(f"/rules/{game}?{urlencode(args, doseq=True)}")
    assert response.status_code == 200
    return response.get_data(as_text=True)


def attrs(page, name):
    return re.findall(rf'{name}="([^"]*)"', page)


def option_args(options):
    return {k: ("none" if v is None else str(v).lower() if isinstance(v, bool) else v) for k, v in options.items()}


@pytest.mark.parametrize("v", VECTORS["tablanette_captures"], ids=lambda v: v["id"])
def test_tablanette_captures(client, v):
    """RULES.md 1.8: every legal capture, with its sweep bonus."""
    page = lab(client, "tablanette", table=",".join(v["table"]), card=v["played"], **option_args(v["options"]))
    expected = {
        " ".join(sorted(c["cards"])): (str(c["bonus"]) if c["sweep"] else "") for c in v["captures"] if c["cards"]
    }
    found = {
        " ".join(sorted(cards.split())): bonus
        for cards, bonus in zip(attrs(page, "data-cards"), attrs(page, "data-bonus"))
    }
    assert found == expected
    if not expected:
        assert "data-trail" in page
    assert 'href="/rules/tablanette/words#s1-4"' in page


def test_tablanette_claim_is_judged_with_its_reason(client):
    """RULES.md 1.8 TB-08: claiming all four cards is refused, naming the groups rule."""
    page = lab(client, "tablanette", table="2S,3H,5D,9C", card="KH", claim="2S,3H,5D,9C")
    assert "Not legal" in page and 'href="/rules/tablanette/words#P1"' in page
    assert "Legal: taking" in lab(client, "tablanette", table="2S,3H,5D,9C", card="KH", claim="5D,9C")


@pytest.mark.parametrize("v", VECTORS["tute_legal_plays"], ids=lambda v: v["id"])
@pytest.mark.parametrize("undertrump", [True, False])
def test_tute_legal_plays(client, v, undertrump):
    """RULES.md 2.9 TU-01..TU-11: the legal cards of a hand, and for the others the duty broken."""
    # TU-10's 3-player hand holds 2H, which the 36-card pack has not: the duties don't
    # depend on the pack, so such a position is asked with 4 players (and no trump).
    three = v["trump"] is None and not any(c.startswith("2") for c in v["trick"] + v["hand"])
    page = lab(
        client,
        "tute",
        trick=",".join(v["trick"]),
        hand=",".join(v["hand"]),
        trump=v["trump"] or "none",
        players=3 if three else 4,
        undertrump_required=str(undertrump).lower(),
    )
    legal = sorted(c for c, ok in zip(attrs(page, "data-card"), attrs(page, "data-legal")) if ok == "yes")
    assert legal == sorted(v["legal"] if undertrump else v["legal_if_undertrump_not_required"])
    if len(legal) < len(v["hand"]):
        assert 'href="/rules/tute/words#s2-4"' in page


@pytest.mark.parametrize("v", VECTORS["tute_tricks"], ids=lambda v: v["id"])
def test_tute_tricks(client, v):
    """RULES.md 2.9 TU-20..TU-25: the winner, card points and cantes of a trick."""
    page = lab(client, "tute", trick=",".join(v["trick"]), trump=v["trump"] or "none", players=v["players"])
    assert attrs(page, "data-winner") == [str(v["winner_index"])]
    assert attrs(page, "data-points") == [str(v["card_points"])]
    assert attrs(page, "data-cantes") == [str(v["marriage_points"])]


@pytest.mark.parametrize("v", VECTORS["tute_deal_losers"], ids=lambda v: v["id"])
def test_tute_deal_losers(client, v):
    """RULES.md 2.9 TU-40..TU-49: who loses a deal, and why."""
    page = lab(client, "tute", players=len(v["players"]), last=v["last_trick"], **v["totals"])
    assert attrs(page, "data-losers") == [" ".join(v["losers"])]
    assert 'href="/rules/tute/words#s2-6"' in page


TANTONY_TRICKS = [  # RULES.md 3.12: (id, trick, options, winner index, runt, value)
    ("TT-01", "6S,10S,QS,2S", {}, 2, "2S", 2),
    ("TT-02", "6S,2H,3D,4C", {}, 0, "6S", 6),
    ("TT-03", "AS,2H,3D,4C", {}, 0, "AS", 30),
    ("TT-03p", "AS,2H,3D,4C", {"value_scale": "penguin2008"}, 0, "AS", 20),
    ("TT-04", "9D,3D,7D,10D", {}, 3, "3D", 3),
    ("TT-05", "9S,5S,QS,3H", {}, 2, "5S", 5),
    ("TT-07", "AS,QH,KS,8H", {}, 0, "KS", 25),
    ("TT-08", "4C,2H,3D,5S", {}, 0, "4C", 4),
]


@pytest.mark.parametrize(
    ("vid", "trick", "options", "winner", "runt", "value"), TANTONY_TRICKS, ids=[t[0] for t in TANTONY_TRICKS]
)
def test_tantony_tricks(client, vid, trick, options, winner, runt, value):
    """RULES.md 3.12: winner (sow or hog), runt and value of a trick."""
    page = lab(client, "tantony", trick=trick, **options)
    assert attrs(page, "data-winner") == [str(winner)]
    assert attrs(page, "data-runt") == [runt] and attrs(page, "data-value") == [str(value)]


@pytest.mark.parametrize(
    ("held", "to", "players", "allowed"),
    [
        ({"N": 3, "E": 3, "S": 2, "W": 3}, "S", 4, "yes"),  # TT-06
        ({"N": 3, "E": 3, "S": 2, "W": 3}, "N", 4, "no"),
        ({"N": 3, "E": 3, "S": 2, "W": 3}, "E", 4, "no"),
        ({"P1": 4, "P2": 4, "P3": 3}, "P3", 3, "yes"),  # TT-14
        ({"P1": 4, "P2": 4, "P3": 3}, "P1", 3, "no"),
    ],
)
def test_tantony_gifts(client, held, to, players, allowed):
    """RULES.md 3.12 TT-06 and TT-14: a gift only to a player with room under the quota."""
    page = lab(client, "tantony", players=players, to=to, **{f"held_{k}": v for k, v in held.items()})
    assert attrs(page, "data-allowed") == [allowed]
    if allowed == "no":  # the engine's refusal, its rule linked
        assert f"{to} already holds" in page and 'href="/rules/tantony/words#s3-4"' in page


@pytest.mark.parametrize("v", VECTORS["adding_totals"], ids=lambda v: v["id"])
def test_adding_totals(client, v):
    """RULES.md 4.6: every total a card can make, safe or bust."""
    page = lab(client, "hundred", variant=v["variant"], total=v["total"], card=v["card"])
    made = {int(t): s for t, s in zip(attrs(page, "data-total"), attrs(page, "data-safe"))}
    assert sorted(made) == sorted(v["totals"])
    assert sorted(t for t, s in made.items() if s == "yes") == sorted(v["safe"])
    assert 'href="/rules/hundred/words#s4-3"' in page


@pytest.mark.parametrize(
    ("vid", "args", "expected"),
    [
        ("AD-04", {"variant": "100", "total": 99, "card": "AC"}, range(0, 101)),
        ("AD-12", {"variant": "99itoya", "total": 95, "card": "AS"}, range(95, 100)),
    ],
)
def test_adding_black_aces(client, vid, args, expected):
    """RULES.md 4.6 AD-04 and AD-12: a black ace gives a whole range, all safe."""
    page = lab(client, "hundred", **args)
    spans = [tuple(map(int, r.split("-"))) for r in attrs(page, "data-range")]
    made = [t for lo, hi in spans for t in range(lo, hi + 1)] + [int(t) for t in attrs(page, "data-total")]
    assert sorted(made) == list(expected) and 'data-safe="no"' not in page


def test_a_game_links_to_the_lab_at_its_position(client):
    """The game page's 'Rules question?' opens the lab on the game's table."""
    created = client.post("/api/games", json={"game": "tablanette", "players": ["Ann", "Ben"]}).get_json()
    client.post(
        f"/api/games/{created['id']}/moves",
        headers={"X-Edit-Key": created["edit_key"]},
        json={"version": 0, "move": {"type": "layout", "cards": ["2S", "3H", "5D", "9C"]}},
    )
    page = client.get(f"/games/{created['id']}").get_data(as_text=True)
    href = re.search(r'href="(/rules/tablanette\?[^"]+)"', page).group(1).replace("&amp;", "&")
    assert "table=2S,3H,5D,9C" in href and f"from={created['id']}" in href
    lab = client.get(href).get_data(as_text=True)
    assert "Table:" in lab
    # It leads back to the game, and every tap in it keeps the way back.
    assert f'<a href="/games/{created["id"]}">Back to the game</a>' in lab and "All games" not in lab
    taps = re.findall(r'href="(/rules/tablanette(?:\?[^"]*)?)"', lab)
    assert len(taps) > 4 and all(f"from={created['id']}" in t for t in taps)  # "Start over" too
    unknown = client.get("/rules/tablanette?from=nosuchgame").get_data(as_text=True)
    assert "Back to the game" not in unknown and "All games" in unknown


@pytest.mark.parametrize(
    ("url", "status", "message"),
    [
        ("/rules/tablanette?table=ZZ&card=KH", 200, "'ZZ' is not a card"),  # a position the referee can't answer
        ("/rules/tute?trick=8S", 200, "the pack has no 8♠"),
        ("/rules/hundred?total=x&card=AS", 400, "Total now (total) must be a whole number"),  # a wrong value
        ("/rules/tablanette?max_group_size=banana", 400, "(max_group_size) must be a whole number"),
        ("/rules/nope", 404, None),
    ],
)
def test_bad_positions_get_a_message_not_a_500(client, url, status, message):
    response = client.get(url)
    assert response.status_code == status
    if message:
        alerts = re.findall(r'role="alert">(.*?)</p>', response.get_data(as_text=True).replace("&#39;", "'"))
        assert any(message in a for a in alerts), alerts


def test_tute_TU50_game_end(client):
    """RULES.md 2.9 TU-50: marks [5, 3, 5, 2], P1 and P3 lose the deal: joint losers at 6."""
    page = lab(client, "tute", m_P1=5, m_P2=3, m_P3=5, m_P4=2, lost=["P1", "P3"])
    assert attrs(page, "data-game-losers") == ["P1 P3"]
    assert attrs(lab(client, "tute", m_P1=4, m_P2=3, m_P3=5, m_P4=2, lost="P1"), "data-game-losers") == [""]


@pytest.mark.parametrize(
    ("vid", "trick", "exchange"),
    [
        ("TT-07", "AS,QH,KS,8H", "2 0"),  # N scores KS; S takes AS
        ("TT-08", "4C,2H,3D,5S", "none"),
    ],
)
def test_tantony_13th_trick(client, vid, trick, exchange):
    """RULES.md 3.5 TT-07 / TT-08: the 13th trick's exchange."""
    assert attrs(lab(client, "tantony", trick=trick), "data-exchange") == [exchange]


@pytest.mark.parametrize(
    ("vid", "ns", "ew", "after", "verdict"),
    [
        ("TT-10", 59, 30, 1, "play on"),
        ("TT-11", 125, 70, 2, "N & S double"),
        ("TT-12", 64, 61, 1, "N & S double"),
        ("TT-13", 230, 190, 4, "N & S"),
        ("C5", 64, 64, 1, "play on"),
    ],
)
def test_tantony_sudden_death(client, vid, ns, ew, after, verdict):
    """RULES.md 3.8 TT-10..TT-13 and C5."""
    page = lab(client, "tantony", ns=ns, ew=ew, after=after).replace("&amp;", "&")
    assert attrs(page, "data-verdict") == [verdict]


@pytest.mark.parametrize(
    ("vid", "args", "next_seat", "direction"),
    [
        ("AD-01c", {"total": 100, "card": "4C", "players": 3, "seat": 3}, 2, -1),  # C plays a 4: B next
        ("AD-01d", {"total": 100, "card": "5H", "players": 3, "seat": 2, "direction": "anticlockwise"}, 1, -1),
        ("AD-08", {"total": 10, "card": "4S", "players": 4, "seat": 2}, 1, -1),  # P1 (2nd seat) reverses
        ("AD-08b", {"total": 10, "card": "4H", "players": 4, "seat": 1, "direction": "anticlockwise"}, 2, 1),
        ("AD-13", {"variant": "99itoya", "total": 60, "card": "JH", "players": 4, "seat": 1}, 4, -1),
        ("AD-17", {"total": 10, "card": "4S", "players": 2, "seat": 1}, 2, -1),
        ("AD-17i", {"variant": "99itoya", "total": 10, "card": "JS", "players": 2, "seat": 1}, 2, -1),
    ],
)
def test_adding_who_plays_next(client, vid, args, next_seat, direction):
    """RULES.md 4.6: whose turn it is after reversals (AD-01c, AD-01d, AD-08, AD-13, AD-17)."""
    page = lab(client, "hundred", **args)
    assert attrs(page, "data-next") == [str(next_seat)] and attrs(page, "data-direction") == [str(direction)]


def test_every_cited_rule_has_its_section_on_the_rules_page(client):
    """Every refusal links the rule it cites: each "<Game> <section>" in the engines' messages
    is an anchor of that game's plain-words rules page."""
    from companion.board.markup import CITATION, SLUGS, anchor

    cited = set()
    for path in Path(__file__).parents[1].joinpath("companion", "games").glob("*.py"):
        cited |= {(SLUGS[m.group(1)], anchor(m.group(2))) for m in CITATION.finditer(path.read_text())}
    assert len(cited) >= 20
    pages = {game: client.get(f"/rules/{game}/words").get_data(as_text=True) for game in SLUGS.values()}
    missing = sorted((game, a) for game, a in cited if f'id="{a}"' not in pages[game])
    assert missing == []


@pytest.mark.parametrize("game", ["tablanette", "tute", "tantony", "hundred"])
def test_rules_pages_mark_what_was_assumed_or_decided(client, game):
    page = client.get(f"/rules/{game}/words").get_data(as_text=True)
    assert "our decision" in page and 'id="options"' in page
    if game in ("tute", "tantony"):
        assert "badge assumed" in page


@pytest.mark.parametrize(
    ("vid", "args", "verdict"),
    [
        ("TB-F2", {"score_a": 282, "score_b": 200, "sweeper": "A"}, "A"),
        ("TB-F3a", {"score_a": 255, "score_b": 258}, "B"),
        ("TB-F3b", {"score_a": 251, "score_b": 251}, "draw"),
        ("TB-F3c", {"score_a": 250, "score_b": 249}, "play on"),
    ],
)
def test_tablanette_who_wins(client, vid, args, verdict):
    """RULES.md 1.8 TB-F2 (a sweep to the target wins at once) and TB-F3 (after a deal)."""
    assert attrs(lab(client, "tablanette", **args), "data-verdict") == [verdict]


@pytest.mark.parametrize(
    ("args", "verdict"),
    [
        ({"score_a": 251, "score_b": 200, "win_at": "exceed"}, "play on"),  # seed 001: 251 is not past 251
        ({"score_a": 252, "score_b": 200, "win_at": "exceed"}, "A"),
        ({"score_a": 251, "score_b": 200, "sweeper": "A", "win_at": "exceed"}, "play on"),
        ({"score_a": 251, "score_b": 251, "on_tie": "play_on"}, "play on"),
        ({"score_a": 255, "score_b": 255, "on_tie": "play_on"}, "play on"),
    ],
)
def test_tablanette_who_wins_under_the_labs_rules(client, args, verdict):
    """RULES.md 1.6, A7 (the target reached or passed: win_at) and A8 (level at the target:
    a draw, or another deal: on_tie): the lab answers under the rules it is set to."""
    assert attrs(lab(client, "tablanette", **args), "data-verdict") == [verdict]


@pytest.mark.parametrize(
    ("args", "points"),
    [
        # RULES.md 1.5: Ace 11, ten 10 (120 a deal): two aces and the 3 for most cards.
        ({"a_cards": 27, "a_counters": "AS AH", "point_scale": "ace_ten"}, "25 98"),
        # A9's option: 26 cards each share the 3, rounded down.
        ({"a_cards": 26, "a_counters": "AS AH KC 10D 10C 2C JS", "most_cards_tie": "split"}, "9 15"),
        # A1's option: the ace of spades on the heart's, 5 and 6: the table's ace counts 1.
        ({"a_cards": 27, "a_counters": "AS AH KC 10D 10C 2C JS", "a_sweeps": "23", "sweep_aces": "as_played"}, "34 14"),
    ],
)
def test_tablanette_deal_scoring_under_the_labs_rules(client, args, points):
    """RULES.md 1.5: a deal scored in the lab is scored under the rules it is set to."""
    assert attrs(lab(client, "tablanette", **args), "data-deal") == [points]


@pytest.mark.parametrize(
    ("vid", "args", "points"),
    [
        ("TB-S1", {"a_cards": 27, "a_counters": "AS AH KC 10D 10C 2C JS"}, "11 14"),
        ("TB-S2", {"a_cards": 26, "a_counters": "AS AH KC 10D 10C 2C JS"}, "8 14"),
        ("sweeps", {"a_cards": 27, "a_counters": "AS AH KC 10D 10C 2C JS", "a_sweeps": "26, 42"}, "79 14"),
    ],
)
def test_tablanette_deal_scoring(client, vid, args, points):
    """RULES.md 1.8 TB-S1 / TB-S2: card points, the 3 for most cards (none when tied), sweeps."""
    assert attrs(lab(client, "tablanette", **args), "data-deal") == [points]


def test_tablanette_deal_scoring_refuses_what_cannot_be(client):
    page = lab(client, "tablanette", a_cards=27, a_counters="AS", a_sweeps="23")
    assert "No sweep scores 23" in page


@pytest.mark.parametrize(
    ("vid", "args", "allowed"),
    [
        ("TU-30a", {"hand": "KS,QS,KD,QD"}, {"S": "yes", "D": "yes"}),
        ("TU-30b", {"hand": "KS,QS,KD,QD", "sung": "S20"}, {"S": "no", "D": "no"}),  # the lock rule
        ("TU-30c", {"hand": "KS,QS,KD,QD", "sung": "D40"}, {"S": "yes", "D": "no"}),
        ("TU-31", {"hand": "KH,2H,3C"}, {"H": "no"}),
        ("TU-32", {"hand": "KS,QS,KD,QD", "sang_now": 1}, {"S": "no", "D": "no"}),
        ("TU-30b+c", {"hand": "KS,QS,KD,QD", "sung": ["S20", "D40"]}, {"S": "no", "D": "no"}),  # two boxes ticked
    ],
)
def test_tute_declarations(client, vid, args, allowed):
    """RULES.md 2.9 TU-30..TU-32: both cards in hand, the lock rule, one cante per trick."""
    page = lab(client, "tute", trump="D", players=4, **args)
    assert dict(zip(attrs(page, "data-cante"), attrs(page, "data-allowed"))) == allowed
    # The cantes sung are boxes to tick (♠20 … ♣40), not codes to type; the ones given stay ticked.
    boxes = re.findall(r'<input type="checkbox" name="sung"\s+value="(\w+)"( checked)?>', page)
    assert [v for v, _ in boxes] == [x + p for p in ("20", "40") for x in "SHDC"] and 'id="sung"' not in page
    given = args.get("sung", [])
    assert {v for v, on in boxes if on} == ({given} if isinstance(given, str) else set(given))


@pytest.mark.parametrize(
    ("vid", "layout", "answer", "words"),
    [
        ("TB-L1", "JH,5C,JS,9D", "no", "bottom of the stock"),
        ("layout", "2H,5C,7S,9D", "ok", "good layout"),
    ],
)
def test_tablanette_layout(client, vid, layout, answer, words):
    """RULES.md 1.8 TB-L1: layout jacks go under the stock and are replaced."""
    page = lab(client, "tablanette", layout=layout)
    assert attrs(page, "data-layout") == [answer] and words in page


@pytest.mark.parametrize(
    ("args", "left", "to"),
    [
        ({"table": "5C,9H", "card": "5S"}, "9H", "player"),  # TB-F1: A captures with the 2nd-to-last card...
        ({"table": "9H,KD", "card": "2S"}, "2S 9H KD", "last"),  # ...then a trail: all to the last capturer
    ],
)
def test_tablanette_TB_F1_leftovers(client, args, left, to):
    """RULES.md 1.8 TB-F1: the table left at the end goes to the last capturer, not as a sweep."""
    page = lab(client, "tablanette", last=1, **args)
    assert attrs(page, "data-leftovers") == [left] and attrs(page, "data-to") == [to]


def test_tantony_TT09_next_hands(client):
    """RULES.md 3.12 TT-09: after trick 13 each keeps a card for the next hand (N KS, S AS)."""
    assert attrs(lab(client, "tantony", trick="AS,QH,KS,8H"), "data-kept") == ["KS QH AS 8H"]


@pytest.mark.parametrize(
    ("vid", "args", "answer"),
    [
        ("AD-01e", {"total": 95, "hand": "6S,8S,9S"}, "loses"),
        ("AD-04", {"total": 99, "hand": "AC,7H,8H"}, "can go"),
        ("AD-14", {"variant": "98", "total": 97, "hand": "2H,3H,5H,6H"}, "loses"),
        ("AD-15", {"variant": "98", "total": 97, "hand": "2H,3H,5H,JH"}, "can go"),
        ("AD-09", {"variant": "99", "total": 95, "hand": "KH,5H,9H"}, "can go"),
    ],
)
def test_adding_cant_go(client, vid, args, answer):
    """RULES.md 4.6: a "can't go" hand: a loss only when every card goes over the target."""
    assert attrs(lab(client, "hundred", **args), "data-lose") == [answer]


def test_a_free_capture_lab_lists_the_first_captures_and_says_there_are_more(client):
    """Issue 17: with captures optional, a table of 20 cards gives a king thousands of legal
    captures (the lab listed them all: a 5 MB page, a second to build). It lists the first
    ones the search finds (in capture_options' order), says there are more, and still
    judges any other as a claim."""
    from companion.games import tablanette as T
    from companion.web.tablanette import LAB_SHOWN

    cards = [f"{r}{s}" for r in "A2345" for s in "SHDC"]
    page = lab(client, "tablanette", table=",".join(cards), card="KD", forced_capture="false")
    listed = attrs(page, "data-cards")
    shown, complete = T.some_captures("KD", cards, {"forced_capture": False}, LAB_SHOWN)
    assert not complete and listed == [" ".join(c) for c in shown if c] and len(listed) == LAB_SHOWN - 1
    assert f"More than {len(listed)} legal captures" in page and len(page) < 100_000
    more, _ = T.some_captures("KD", cards, {"forced_capture": False}, 4 * LAB_SHOWN)
    further = next(c for c in more if c and " ".join(c) not in listed)  # legal, not listed
    claimed = lab(
        client, "tablanette", table=",".join(cards), card="KD", forced_capture="false", claim=",".join(further)
    )
    assert "Legal: taking" in claimed


@pytest.mark.parametrize(
    "lang,words",
    [("en", "only other implementation we know of"), ("ja", "タントニーのほかの実装で見つかったのは")],
)
def test_the_tantony_rules_say_no_other_implementation_has_variants(client, lang, words):
    """Issue 18: Tantony has no implementation beyond RULES.md §3 to take variants from; its
    rules page says so, in both languages (issue 32: naming the one it read for three players,
    as its split-partnership section does)."""
    page = client.get(f"/rules/tantony/words?lang={lang}").get_data(as_text=True)
    assert 'id="variants"' in page and words in page
