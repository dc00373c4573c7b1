"""Tute Cabrón's variants of issue 18: the seed text's duties (follow suit only) beside the
full reconstructed duties, the strict "must head" rule, revokes judged by the duties in
force, and each start playable through the form, the API and the dispute lab.

Sources are named in each test's docstring.
"""

import json
import re
from urllib.parse import urlencode

import pytest

from companion.errors import OptionError
from companion.games import IllegalMove
from companion.games import tute as T
from tests.conftest import form_values
from tests.conftest import post_move as post

FOLLOW = {"duties": "follow_suit"}

# ---------------------------------------------------------------------------
# Vectors
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("vid", "trick", "hand", "legal"),
    [
        ("TU-01", "7S", "3S 2S AC 5D", "3S 2S"),
        ("TU-02", "KS AS", "3S 2S 5D", "3S 2S"),
        ("TU-03", "7S 2D", "3S 2S 4D", "3S 2S"),
        ("TU-04", "7S", "AC 5D 2D", "AC 5D 2D"),
        ("TU-05", "7S 5D", "AC 4D 2D", "AC 4D 2D"),
        ("TU-06", "7S 5D", "3D 2D AC", "3D 2D AC"),
        ("TU-07", "7D", "AD 2D 3S", "AD 2D"),
        ("TU-08", "7D 3D", "AD 2D 3S", "AD 2D"),
        ("TU-09", "7S 5D", "AC 2H", "AC 2H"),
    ],
)
def test_follow_suit_only_legal_plays(vid, trick, hand, legal):
    """Seed 002 as its text survives: play follows "the rules of trick-taking games" and the
    list of duties is empty, so the only duty is to follow suit; out of the suit led,
    anything (RULES.md 2.9's hands read under that duty)."""
    assert T.legal_plays(hand.split(), trick.split(), "D", FOLLOW) == set(legal.split()), vid


@pytest.mark.parametrize(
    ("trick", "hand", "card", "code"),
    [
        ("7D", "AD 2D 3S", "3S", "must_follow_with_any"),
        ("7S", "3S AC", "AC", "must_follow_with"),
    ],
)
def test_follow_suit_only_refuses_only_a_failure_to_follow(trick, hand, card, code):
    """Seed 002's text: failing to follow suit is the one broken duty it names."""
    why = T.why_illegal(hand.split(), trick.split(), "D", card, FOLLOW)
    assert why is not None and why.code == code
    for other in hand.split():
        if other[-1] == trick.split()[0][-1]:
            assert T.why_illegal(hand.split(), trick.split(), "D", other, FOLLOW) is None


@pytest.mark.parametrize(
    ("trick", "hand", "must_head", "legal", "source"),
    [
        # "responder al palo y matar": follow and beat the trick when you can.
        ("7S", "3S 2S AC", True, "3S", "tute.com.ar"),
        ("KS AS", "3S 2S", True, "3S 2S", "tute.com.ar"),  # cannot beat: any card of the suit
        # "En caso de existir un fallo previo, tampoco se está obligado a montar ... pero sí a asistir".
        ("7S 2D", "3S 2S 4D", True, "3S 2S", "cuatrola.es"),
        # fallar y pisar: out of the suit, trump; over a trump, beat it.
        ("7S", "AC 5D 2D", True, "5D 2D", "tute.com.ar"),
        ("7S 5D", "3D 2D AC", True, "3D", "fantaciencia.com"),
        # must_head off: follow without beating; trumping and overtrumping stay.
        ("7S", "3S 2S AC", False, "3S 2S", "RULES.md 2.4"),
        ("7S 5D", "3D 2D AC", False, "3D", "RULES.md 2.4"),
    ],
)
def test_must_head_whenever_possible(trick, hand, must_head, legal, source):
    """The strict "must head" rule (must_head, on by default) is the one the sources give:
    tute.com.ar's Tute Cabrero rules ("responder al palo y matar"), fantaciencia.com
    (fallar, pisar) and cuatrola.es (no duty to beat the suit led once the trick is
    trumped). Following suit first, a card that takes the trick must be played when one can."""
    got = T.legal_plays(hand.split(), trick.split(), "D", {"must_head": must_head})
    assert got == set(legal.split()), source
    if must_head:  # following suit comes first; among those cards, one that takes the trick if any does
        led = trick.split()[0][-1]
        followed = {c for c in hand.split() if c[-1] == led} or set(hand.split())
        winners = {c for c in followed if T.trick_winner([*trick.split(), c], "D") == len(trick.split())}
        assert got == winners or not winners


# ---------------------------------------------------------------------------
# Options
# ---------------------------------------------------------------------------


def test_follow_suit_only_turns_the_other_duties_off():
    """Seed 002's reading has no duty to head or to trump; stored options say so."""
    o = T.resolve_options(FOLLOW, 4)
    assert (o.duties, o.must_head, o.undertrump_required) == ("follow_suit", False, False)
    assert T.resolve_options({}, 4).duties == "full"


@pytest.mark.parametrize("name", ["must_head", "undertrump_required"])
def test_a_full_duty_with_follow_suit_only_is_refused(name):
    """A refused combination is explained: the duty named belongs to the full duties."""
    with pytest.raises(OptionError) as e:
        T.resolve_options({"duties": "follow_suit", name: True}, 4)
    assert e.value.code == "full_duties_only" and e.value.option == name
    assert T.resolve_options({"duties": "follow_suit", name: False}, 4).duties == "follow_suit"


def test_a_game_stored_before_the_duties_option_still_loads_and_plays():
    """Stored games keep working: options without ``duties`` are the full duties."""
    data = T.dump(T.apply(T.start(["Ann", "Ben", "Cat", "Dan"]), {"type": "trump", "card": "5D"}))
    data = json.loads(json.dumps(data))
    data["options"].pop("duties")
    s = T.load(data)
    assert s.options.duties == "full"
    s = T.apply(s, {"type": "play", "card": "7S"})
    assert T.view(s)["trick"] == [["Ben", "7S"]]


# ---------------------------------------------------------------------------
# Revokes follow the duties in force
# ---------------------------------------------------------------------------

#: Ann deals (5D turned), Ben leads. Cat holds no spades and no hearts.
HANDS = {
    "Ann": "3S JS QS KS JH QH KH 5D QD KD",
    "Ben": "7S 2S 4S AH 2H 3H AD 2D AC 3C",
    "Cat": "4D 6D 7D 2C 4C 5C 6C 7C JC QC",
    "Dan": "AS 5S 6S 4H 5H 6H 7H 3D JD KC",
}


def _play_out(options, script):
    """Play ``script`` (cards in turn), then the rest of the deal with each player's first
    legal card under ``options``; returns the state after the script and the deal record."""
    hands = {p: h.split() for p, h in HANDS.items()}
    s = T.apply(T.start(list(HANDS), options), {"type": "trump", "card": "5D"})
    for card in script:
        who = T.view(s)["to_act"]
        s = T.apply(s, {"type": "play", "card": card})
        hands[who].remove(card)
    after = s
    while s.deal == 1:
        who = T.view(s)["to_act"]
        card = sorted(T.legal_plays(hands[who], [c for _, c in s.trick], s.trump, s.options))[0]
        s = T.apply(s, {"type": "play", "card": card})
        hands[who].remove(card)
    return after, s.history[-1]


#: Trick 1: Ben 7S, Cat discards 2C holding trumps, Dan AS, Ann 3S; trick 2: Dan 4H, Ann KH,
#: Ben AH, Cat 4D (a trump: it proves Cat held one in trick 1).
SCRIPT = ["7S", "2C", "AS", "3S", "4H", "KH", "AH", "4D"]


def test_a_discard_holding_a_trump_is_a_revoke_under_the_full_duties():
    """RULES.md 2.4 (full duties, reconstructed) and 2.11: Cat had to trump; 4D proves it,
    and the revoke costs Cat the deal (revoke_penalty loss_mark)."""
    after, h = _play_out({}, SCRIPT)
    flagged = T.view(after)["revokes"]
    assert [(r["player"], r["trick"], r["card"], r["duty"], r["proof"]) for r in flagged] == [
        ("Cat", 1, "2C", "trump", "4D")
    ]
    assert h["losers"] == ["Cat"] and h["losses"]["Cat"] == 1


def test_the_same_discard_is_no_revoke_under_the_seed_texts_duties():
    """Seed 002's text: only following suit is a duty, so Cat's discard is legal and the
    deal is scored as usual (RULES.md 2.6), nobody's revoke."""
    after, h = _play_out(FOLLOW, SCRIPT)
    assert T.view(after)["revokes"] == [] and h["revokes"] == []
    assert h["losers"] == T.deal_outcome(h["points"], h["last_trick"], T.resolve_options(FOLLOW))["losers"]


@pytest.mark.parametrize("options", [{}, FOLLOW], ids=["full", "follow_suit"])
def test_failing_to_follow_is_a_revoke_under_both(options):
    """Seed 002's text and RULES.md 2.4 agree on following suit. Trick 1: Ben leads 7S, Cat
    trumps with 4D, Dan discards 3D holding spades, Ann 3S; Dan wins and leads 5S, which
    proves the revoke; it costs Dan the deal under either duties."""
    after, h = _play_out(options, ["7S", "4D", "3D", "3S", "5S"])
    flagged = T.view(after)["revokes"]
    assert [(r["player"], r["trick"], r["card"], r["duty"], r["proof"]) for r in flagged] == [
        ("Dan", 1, "3D", "follow", "5S")
    ]
    assert h["losers"] == ["Dan"]


def test_the_known_trump_refuses_a_discard_only_under_the_full_duties():
    """RULES.md 2.11: the dealer's turned 5D is known to be in Ann's hand. Clubs led, Ann
    (no clubs) discards JS: refused at once under the full duties (must trump), accepted
    under seed 002's text (no duty to trump)."""
    moves = ["AC", "2C", "KC"]
    full = T.apply(T.start(list(HANDS)), {"type": "trump", "card": "5D"})
    seed = T.apply(T.start(list(HANDS), FOLLOW), {"type": "trump", "card": "5D"})
    for card in moves:
        full = T.apply(full, {"type": "play", "card": card})
        seed = T.apply(seed, {"type": "play", "card": card})
    with pytest.raises(IllegalMove) as e:
        T.apply(full, {"type": "play", "card": "JS"})
    assert e.value.code == "must_trump"
    assert T.view(T.apply(seed, {"type": "play", "card": "JS"}))["revokes"] == []


# ---------------------------------------------------------------------------
# Through the web: the form's one-tap starts, the JSON API, the dispute lab
# ---------------------------------------------------------------------------


def test_the_new_game_form_offers_the_seed_texts_duties_in_one_tap(client):
    """Issue 18: the start "The seed text's duties" (seed 002) fills in the form in one tap,
    and a game started from it plays by following suit only."""
    page = client.get("/games/new?game=tute").get_data(as_text=True)
    assert 'value="seed_text"' in page and "The seed text's duties" in page
    page = client.get("/games/new?game=tute&start=seed_text").get_data(as_text=True)
    form = form_values(page) | {"player0": "Ann", "player1": "Ben", "player2": "Cat", "player3": "Dan"}
    assert form["duties"] == "follow_suit" and "must_head" not in form and "undertrump_required" not in form
    response = client.post("/games/new", data=form)
    assert response.status_code == 303
    game_id = response.headers["Location"].rsplit("/", 1)[1]
    options = client.get(f"/api/games/{game_id}").get_json()["options"]
    assert (options["duties"], options["must_head"], options["undertrump_required"]) == ("follow_suit", False, False)
    # Ann (dealer) turns 5D; clubs led; Ann, void, discards a spade: legal by the seed's text.
    for move in ({"type": "trump", "card": "5D"}, *({"type": "play", "card": c} for c in ("AC", "2C", "KC", "JS"))):
        assert post(client, game_id, **move).status_code == 200, move
    assert client.get(f"/api/games/{game_id}").get_json()["view"]["trick_number"] == 2


def test_the_form_explains_a_full_duty_with_follow_suit_only(client):
    """A refused combination is explained beside the option, in the option's words."""
    page = client.get("/games/new?game=tute").get_data(as_text=True)
    form = form_values(page) | {"player0": "Ann", "player1": "Ben", "player2": "Cat", "duties": "follow_suit"}
    page = client.post("/games/new", data=form).get_data(as_text=True)
    assert "“Beat the best card when able” is one of the full duties" in page


@pytest.mark.parametrize("options", [FOLLOW, {"duties": "full"}], ids=["follow_suit", "full"])
def test_the_api_plays_each_duties(client, options):
    """The JSON API takes the option and judges by it: the known 5D forbids Ann's discard
    under the full duties only (RULES.md 2.11; seed 002's text)."""
    created = client.post("/api/games", json={"game": "tute", "players": list(HANDS), "options": options}).get_json()
    url, headers = f"/api/games/{created['id']}/moves", {"X-Edit-Key": created["edit_key"]}
    moves = [{"type": "trump", "card": "5D"}, *({"type": "play", "card": c} for c in ("AC", "2C", "KC"))]
    for version, move in enumerate(moves):
        assert client.post(url, json={"version": version, "move": move}, headers=headers).status_code == 200
    answer = client.post(url, json={"version": 4, "move": {"type": "play", "card": "JS"}}, headers=headers)
    assert answer.status_code == (200 if options == FOLLOW else 422)
    if answer.status_code == 422:
        assert answer.get_json()["code"] == "must_trump"


def _lab_args(options):
    return {k: ("none" if v is None else str(v).lower() if isinstance(v, bool) else v) for k, v in options.items()}


@pytest.mark.parametrize("start", list(T.STARTS))
def test_the_dispute_lab_answers_under_every_start(client, start):
    """Issue 18: the lab judges a card under each start's rules, as the engine does
    (RULES.md 2.4, or seed 002's text for its start)."""
    options = T.STARTS[start].options
    trick, hand = ["7S", "5D"], ["AC", "4D", "2D", "3S"]
    args = _lab_args(options) | {"players": 4, "trump": "D", "trick": ",".join(trick), "hand": ",".join(hand)}
    response = client.get(f"/rules/tute?{urlencode(args)}")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    legal = dict(re.findall(r'data-card="(\w+)" data-legal="(yes|no)"', page))
    expected = T.legal_plays(hand, trick, "D", T.resolve_options(options))
    assert legal == {c: "yes" if c in expected else "no" for c in hand}, start


def test_the_lab_says_follow_suit_only_frees_a_void_player(client):
    """Seed 002's text: out of spades, any card; the full duties want the overtrump."""
    base = {"players": 4, "trump": "D", "trick": "7S,5D", "hand": "AC,4D,3D"}
    seed = dict(re.findall(r'data-card="(\w+)" data-legal="(yes|no)"', _lab(client, base | FOLLOW)))
    full = dict(re.findall(r'data-card="(\w+)" data-legal="(yes|no)"', _lab(client, base)))
    assert seed == {"AC": "yes", "4D": "yes", "3D": "yes"} and full == {"AC": "no", "4D": "no", "3D": "yes"}


def _lab(client, args):
    response = client.get(f"/rules/tute?{urlencode(args)}")
    assert response.status_code == 200
    return response.get_data(as_text=True)


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        (
            "en",
            ["Tute Habanero is not offered", "Must head whenever possible", "Follow suit only", "seed 002"]
            + ["tute.com.ar", "cuatrola.es", "ludoteka"],
        ),
        (
            "ja",
            ["トゥテ・アバネロ（ハバナのトゥテ）は用意していません", "勝てるなら必ず勝つ", "フォローのみ", "原典002"]
            + ["tute.com.ar", "cuatrola.es", "ludoteka"],  # as the sites write themselves (docs/GLOSSARY.md)
        ),
    ],
)
def test_the_rules_page_marks_the_variants_and_their_sources(client, lang, words):
    """Issue 18: each variant on the rules page, in both languages, marked as a variant,
    with its source and "reconstructed" where it is."""
    page = client.get(f"/rules/tute/words?lang={lang}").get_data(as_text=True)
    assert 'id="variants"' in page and page.count('class="badge variant"') == 3
    for w in words:
        assert w in page, w
