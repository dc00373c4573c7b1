"""100 / 99 / 98, issue 18: the 99s other implementations play (PlayAural's Quentin C,
ichabod801/t_games and its option groups) and the seed's other readings (more players,
an unforced bust refused, a verified loss only with a shown hand, the Itōke black ace
setting any total, play starting at the dealer's right): engine vectors written from
each source, random games under every preset, the form, the JSON API and the lab."""

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cards import PACK_52
from companion.games import IllegalMove, OptionError
from companion.games import hundred as H
from tests.conftest import form_values


def new(players=("A", "B", "C"), **options):
    return H.start(list(players), {"dealer": players[-1], **options})  # the first listed plays first


def play(s, card, total=None, hand=None):
    move = {"type": "play", "card": card}
    if total is not None:
        move["total"] = total
    if hand is not None:
        move["hand"] = hand
    return H.apply(s, move)


def at(s, total):
    s.total = total
    return s


# -- the card tables, written out from the sources (rank -> (totals from t, turn)) --------


def _face(r):
    return lambda t: [t + (1 if r == "A" else 10 if r in "JQK" else int(r))]


def _table(**special):
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    return {r: special.get("r" + r, (_face(r), "")) for r in ranks}


SOURCE_TABLES = {
    # PlayAural server/games/ninetynine/game.py: _calculate_standard_value, calculate_two_effect
    # (halve when even and above 49), _apply_special_effects (4 reverses, jack skips).
    "99quentin": _table(
        rA=(lambda t: [t + 1, t + 11], ""),
        r2=(lambda t: [t // 2] if t % 2 == 0 and t > 49 else [t * 2], ""),
        r4=(lambda t: [t + 4], "reverse"),
        r9=(lambda t: [t], ""),
        r10=(lambda t: [t + 10, t - 10], ""),
        rJ=(lambda t: [t + 10], "skip"),
    ),
    # t_games card_games/ninety_nine_game.py RULES and set_options defaults: A 1/11, 3 skips,
    # 4 is 0 and reverses, 9 takes the total to 99, 10 is +10 or -10, K is 0.
    "99tgames": _table(
        rA=(lambda t: [t + 1, t + 11], ""),
        r3=(lambda t: [t + 3], "skip"),
        r4=(lambda t: [t], "reverse"),
        r9=(lambda t: [99], ""),
        r10=(lambda t: [t + 10, t - 10], ""),
        rK=(lambda t: [t], ""),
    ),
    # t_games OPTIONS: chicago = zero=4/9 skip=9 99=K minus=T plus-minus=! (reverse stays 4).
    "99chicago": _table(
        rA=(lambda t: [t + 1, t + 11], ""),
        r4=(lambda t: [t], "reverse"),
        r9=(lambda t: [t], "skip"),
        r10=(lambda t: [t - 10], ""),
        rK=(lambda t: [99], ""),
    ),
    # t_games OPTIONS: joker-rules = zero=9/k reverse=k jokers=2 99=x skip=! (4 is face value).
    "99jokerrules": _table(
        rA=(lambda t: [t + 1, t + 11], ""),
        r9=(lambda t: [t], ""),
        r10=(lambda t: [t + 10, t - 10], ""),
        rK=(lambda t: [t], "reverse"),
    ),
    # t_games OPTIONS: gonzo = zero=4/k reverse=a jokers=2 99=9/x skip=2 minus=j.
    "99gonzo": _table(
        rA=(lambda t: [t + 1, t + 11], "reverse"),
        r2=(lambda t: [t + 2], "skip"),
        r4=(lambda t: [t], ""),
        r9=(lambda t: [99], ""),
        r10=(lambda t: [t + 10, t - 10], ""),
        rJ=(lambda t: [t - 10], ""),
        rK=(lambda t: [t], ""),
    ),
}


@pytest.mark.parametrize("variant", list(SOURCE_TABLES))
@pytest.mark.parametrize("card", [str(c) for c in PACK_52])
def test_other_implementations_card_tables(variant, card):
    """PlayAural (Quentin C) and t_games (defaults, chicago, joker-rules, gonzo): each card of
    each table from a few totals, negative totals allowed as both programs allow them."""
    rule, turn = SOURCE_TABLES[variant][card[:-1]]
    o = {"variant": variant, "floor_at_zero": False}
    for total in (0, 5, 48, 50, 51, 95):
        made, reverses = H.effect(card, total, o)
        assert made == sorted(set(rule(total))), (total, made)
        assert reverses is (turn == "reverse")
        assert H.rule_of(card, o).turn == turn
        assert H.target(o) == 99 and H.hand_size(o) == 3


@pytest.mark.parametrize(
    ("card", "total", "made"),
    [("2H", 50, [25]), ("2S", 98, [49]), ("2C", 51, [102]), ("2D", 48, [96]), ("2H", 0, [0]), ("2S", 49, [98])],
)
def test_quentin_c_two(card, total, made):
    """PlayAural docs (ninetynine.md): "2: If the count is even and above 49, it divides the count
    by 2. Otherwise, it doubles it." (calculate_two_effect: count % 2 == 0 and count > 49)."""
    assert H.effect(card, total, {"variant": "99quentin"})[0] == made


@pytest.mark.parametrize(
    ("variant", "card", "players", "seat", "direction", "next_seat", "new_direction"),
    [
        ("99quentin", "JH", 4, 0, 1, 2, 1),  # PlayAural: a jack skips the next player
        ("99quentin", "JH", 2, 0, 1, 0, 1),  # with two, the same player again (skip_next_players)
        ("99quentin", "4H", 4, 1, 1, 0, -1),  # a 4 reverses
        ("99quentin", "4H", 2, 0, 1, 1, -1),  # ... with two it changes nothing (len(alive) > 2)
        ("99tgames", "3S", 3, 0, 1, 2, 1),  # t_games: a 3 skips
        ("99tgames", "3S", 3, 0, -1, 1, -1),  # ... in the current direction
        ("99chicago", "9D", 4, 3, 1, 1, 1),  # chicago: a 9 skips
        ("99chicago", "3D", 4, 3, 1, 0, 1),  # ... and a 3 no longer does
        ("99jokerrules", "KC", 4, 2, 1, 1, -1),  # joker-rules: a king reverses
        ("99jokerrules", "3C", 4, 2, 1, 3, 1),  # ... and nothing skips
        ("99gonzo", "AC", 4, 2, 1, 1, -1),  # gonzo: an ace reverses
        ("99gonzo", "2C", 4, 2, -1, 0, -1),  # ... a 2 skips
    ],
)
def test_skips_and_reverses(variant, card, players, seat, direction, next_seat, new_direction):
    """PlayAural _apply_special_effects / _advance_turn and t_games player_action (reverse,
    then skip one seat): who plays next."""
    got = H.turn_after(card, seat, players, direction, {"variant": variant})
    assert got == (next_seat, new_direction)


def test_a_quentin_c_hand_through_the_engine():
    """PlayAural Quentin C: 4 players; a jack skips, a 4 adds 4 and reverses, a 2 halves 60."""
    s = new(("A", "B", "C", "D"), variant="99quentin", floor_at_zero=False)
    s = play(s, "JH")  # A: 10, B skipped
    assert (s.total, H.view(s)["to_act"]) == (10, "C")
    assert [r.code for r in H.narrate(s, {"type": "play", "card": "JH"})] == ["played", "skipped"]
    assert H.view(s)["last"]["skipped"] == "B"
    s = play(s, "4S")  # C: 14, reversed: B next
    assert (s.total, H.view(s)["to_act"], s.direction) == (14, "B", -1)
    s = play(at(s, 60), "2D")  # B: 60 halves to 30; A next
    assert (s.total, H.view(s)["to_act"]) == (30, "A")
    s = play(s, "10C", 20)  # A: 30 - 10
    assert s.total == 20 and H.view(s)["last"]["choice"]


# -- the seed's other readings -----------------------------------------------------------


def test_more_than_8_players_up_to_20():
    """RULES.md 4.2 (seed 004 sets no maximum; 'about 7 or more' use two packs): 20 play."""
    s = H.start([f"P{i}" for i in range(20)], {"variant": "98"})
    assert s.options.decks == 2 and H.view(s)["stock"] == 104 - 80
    with pytest.raises(OptionError) as e:
        H.start([f"P{i}" for i in range(21)])
    assert e.value.code == "player_count"


@pytest.mark.parametrize(("variant", "players", "ok"), [("100", 17, True), ("100", 18, False), ("98", 12, True)])
def test_one_pack_serves_a_limited_table(variant, players, ok):
    """RULES.md 4.2: one pack must deal every hand and leave a stock (17 x 3 = 51; 12 x 4 = 48)."""
    options = {"variant": variant, "decks": 1}
    if ok:
        assert H.start([f"P{i}" for i in range(players)], options).options.decks == 1
    else:
        with pytest.raises(OptionError) as e:
            H.start([f"P{i}" for i in range(players)], options)
        assert e.value.code == "pack_too_small"


def test_an_unforced_bust_is_a_loss_but_verified_only_with_a_hand_shown():
    """Seed 004 / RULES.md 4.2 (default reading): a card over the target loses either way; the
    record says verified only when the hand was shown."""
    s = play(new(), "10D")  # 100: B to act
    blind = play(s, "9S")
    assert blind.history[-1]["loser"] == "B" and blind.history[-1]["verified"] is False
    shown = play(s, "9S", hand=["KH", "7C"])  # a safe king held: still a loss (the seed's 'in practice')
    assert shown.history[-1]["verified"] is True and shown.history[-1]["shown"] == ["KH", "7C"]
    with pytest.raises(IllegalMove) as e:
        play(s, "9S", hand=["9S", "7C"])  # the card played can't be in the rest of the hand (one pack)
    assert e.value.code == "shown_on_pile"
    with pytest.raises(IllegalMove) as e:
        play(s, "9S", hand=["2C", "7C", "8C"])
    assert e.value.code == "hand_too_big"


def test_an_unforced_bust_refused():
    """Seed 004's other reading (a loss only when every play goes over; t_games refuses a total
    over 99): a bust without a hand is refused; with a safe card shown, refused naming it; with
    every card shown over, a verified loss."""
    s = play(new(unforced_bust="refused"), "10D")  # 100: B to act
    with pytest.raises(IllegalMove) as e:
        play(s, "9S")
    assert e.value.code == "bust_refused" and e.value.rule == "100/99/98 4.2"
    assert H.confirm_needed(s, {"type": "play", "card": "9S"}) is None  # nothing to confirm: it is refused
    with pytest.raises(IllegalMove) as e:
        play(s, "9S", hand=["KH", "7C"])
    assert e.value.code == "can_go" and e.value.params["card"] == "KH"
    lost = play(s, "9S", hand=["8H", "7C"])
    assert lost.history[-1]["loser"] == "B" and lost.history[-1]["verified"] is True
    assert H.apply(s, {"type": "lose", "hand": ["9S", "8H", "7C"]}).history[-1]["verified"] is True


def test_itoya_black_ace_set_any_is_the_seeds_other_reading():
    """Seed 004 (Itōke: 黒A 0から99の何点にもなる): raise only by default, any total 0-99 as an option."""
    assert H.totals("AS", 60, {"variant": "99itoya"}) == set(range(60, 100))
    assert H.totals("AS", 60, {"variant": "99itoya", "itoya_black_ace": "set_any"}) == set(range(100))


def test_play_may_start_at_the_dealers_right():
    """Seed 004 says both 'ディーラーの左隣から、時計回り' and 'ディーラーの右隣の人の最初のプレイ':
    first_player 'right' starts at the dealer's right, anticlockwise; the deal passes right."""
    s = H.start(["A", "B", "C", "D"], {"dealer": "C", "first_player": "right"})
    v = H.view(s)
    assert (v["to_act"], v["direction"], v["order"]) == ("B", -1, ["B", "A", "D", "C"])
    s = play(s, "4S")  # B reverses: now clockwise, C next
    assert H.view(s)["to_act"] == "C"
    s = H.apply(H.apply(s, {"type": "lose"}), {"type": "play", "card": "5S"})
    assert H.view(s)["dealer"] == "B" and H.view(s)["history"][-1]["loser"] == "C"
    assert H.view(H.start(["A", "B", "C", "D"], {"dealer": "C"}))["to_act"] == "D"  # the default: left


# -- random games under every preset -------------------------------------------------------


def _seat_next(s, card, before):
    return H.turn_after(card, before.turn, len(s.players), before.direction, s.options, H.active(before))


@settings(max_examples=25, deadline=None)
@given(start=st.sampled_from(list(H.STARTS)), players=st.integers(2, 12), seed=st.integers(0, 10**6))
def test_random_games_under_every_preset(start, players, seed):
    """Hypothesis, under each preset of the new-game form: totals stay at or under the target
    but on the losing play; who plays next follows the preset's reverses and skips; a bust is
    refused when the preset refuses it; states round-trip and apply is pure."""
    rng = random.Random(seed)
    s = H.start([f"P{i}" for i in range(players)], dict(H.STARTS[start].options))
    target = H.target(s.options)
    for _ in range(200):
        if s.result is not None:
            break
        before, dump = s, H.dump(s)
        avail = [str(c) for c in PACK_52 if s.pile.count(str(c)) < s.options.decks]
        hand = rng.sample(avail, H.hand_size(s.options))
        safe = [(c, t) for c in hand for t in H.safe_totals(c, s.total, s.options)]
        if safe and rng.random() > 0.05:
            card, total = rng.choice(safe)
            s = play(s, card, total)
            assert H.dump(before) == dump and s.total <= target
            if s.hand == before.hand and s.result is None:  # a safe play may end the hand: exactly 99 (4.9)
                assert (s.turn, s.direction) == _seat_next(s, card, before)
        elif safe:
            card = rng.choice(hand)
            made = max(H.totals(card, s.total, s.options))
            if made > target:
                if s.options.unforced_bust == "refused":
                    with pytest.raises(IllegalMove):
                        play(s, card, made)
                    continue
                s = play(s, card, made)
                assert s.history[-1]["bust"] == card and s.history[-1]["verified"] is False
        else:
            s = H.apply(s, {"type": "lose", "hand": hand})
            assert s.history[-1]["verified"]
        assert H.load(H.dump(s)) == s
    if s.options.match_format == "tokens" and s.result:
        assert len(H.active(s)) == 1


# -- the form, the JSON API and the lab ------------------------------------------------------

NEW_PRESETS = ("99quentin", "99tgames", "99chicago", "99jokerrules", "99gonzo")


@pytest.mark.parametrize("start", NEW_PRESETS)
def test_the_form_offers_each_preset_in_one_tap(client, start):
    """Issue 18: one tap on a preset fills in its rules; Start plays it."""
    page = client.get("/games/new?game=hundred").get_data(as_text=True)
    radios = re.findall(r'<input[^>]*name="start"[^>]*>', page)
    assert any(f'value="{start}"' in r for r in radios)
    page = client.get(f"/games/new?game=hundred&start={start}").get_data(as_text=True)
    form = form_values(page) | {"player0": "Ann", "player1": "Ben", "player2": "Cat"}
    assert form["variant"] == start
    response = client.post("/games/new", data=form)
    assert response.status_code == 303
    game_id = re.search(r"/games/([\w-]+)", response.headers["Location"]).group(1)
    options = client.get(f"/api/games/{game_id}").get_json()["options"]
    assert {k: options[k] for k in H.STARTS[start].options} == H.STARTS[start].options


def _api_game(client, options, players=("Ann", "Ben", "Cat", "Dan")):
    body = {"game": "hundred", "players": list(players), "options": {"dealer": players[-1], **options}}
    created = client.post("/api/games", json=body)
    assert created.status_code == 201, created.get_json()
    return created.get_json()


def _move(client, game, move):
    answer = client.post(
        f"/api/games/{game['id']}/moves",
        json={"version": game["version"], "move": move},
        headers={"X-Edit-Key": game["edit_key"]},
    )
    if answer.status_code == 200:
        game["version"] += 1
    return answer


SKIPS_OR_REVERSES = {"99quentin": "JS", "99tgames": "3S", "99chicago": "9S", "99jokerrules": "KS", "99gonzo": "2S"}


@pytest.mark.parametrize("start", NEW_PRESETS)
def test_each_preset_plays_through_the_api(client, start):
    """Issue 18: a preset's game through the JSON API, to a lost hand: its skip or reverse card
    (PlayAural's jack; t_games' 3, chicago's 9, joker-rules' king, gonzo's 2), plain adds up to 90,
    then a card over 99: refused where the preset refuses it (t_games), else a loss not verified;
    with a hand shown that holds no safe card, a verified loss."""
    options = H.STARTS[start].options
    game = _api_game(client, options)
    players = ["Ann", "Ben", "Cat", "Dan"]
    s = H.apply(H.start(players, {"dealer": "Dan", **options}), {"type": "play", "card": SKIPS_OR_REVERSES[start]})
    answer = _move(client, game, {"type": "play", "card": SKIPS_OR_REVERSES[start]})
    assert answer.status_code == 200
    view = answer.get_json()["view"]
    assert (view["to_act"], view["direction"], view["total"]) == (H.view(s)["to_act"], s.direction, s.total)
    rules = {str(c): H.rule_of(c, s.options) for c in PACK_52}
    adds = {c: int(r.ops[0]) for c, r in rules.items() if re.fullmatch(r"\+\d+", r.ops[0]) and r == H.Rule(r.ops[:1])}
    played = list(s.pile)
    while view["total"] < 90:  # a card that only adds 5 or more, without going over
        # (short of 99 itself, which ends a PlayAural hand: RULES.md 4.9)
        card = next(c for c, n in adds.items() if n >= 5 and view["total"] + n < 99 and c not in played)
        played.append(card)
        answer = _move(client, game, {"type": "play", "card": card})
        assert answer.status_code == 200, answer.get_json()
        view = answer.get_json()["view"]
    total, seen = view["total"], set(played)
    over = [c for c in map(str, PACK_52) if c not in seen and not H.safe_totals(c, total, options)]
    card, held = over[0], over[1:3]
    bust = _move(client, game, {"type": "play", "card": card})
    if options.get("unforced_bust") == "refused":
        assert bust.status_code == 422 and bust.get_json()["code"] == "bust_refused"
        lost = _move(client, game, {"type": "play", "card": card, "hand": held})
        assert lost.status_code == 200, lost.get_json()
        assert lost.get_json()["view"]["history"][-1]["verified"] is True
    else:
        assert bust.status_code == 200 and bust.get_json()["view"]["history"][-1]["verified"] is False


@pytest.mark.parametrize(
    ("variant", "card", "total", "totals", "next_seat", "direction", "skip"),
    [
        ("99quentin", "2H", 60, ["30"], "2", "1", False),
        ("99quentin", "JH", 10, ["20"], "3", "1", True),
        ("99quentin", "4H", 10, ["14"], "4", "-1", False),
        ("99tgames", "9C", 40, ["99"], "2", "1", False),
        ("99tgames", "3C", 40, ["43"], "3", "1", True),
        ("99chicago", "10C", 40, ["30"], "2", "1", False),
        ("99chicago", "9C", 40, ["40"], "3", "1", True),
        ("99jokerrules", "KC", 40, ["40"], "4", "-1", False),
        ("99gonzo", "JC", 40, ["30"], "2", "1", False),
        ("99gonzo", "2C", 40, ["42"], "3", "1", True),
        ("99gonzo", "AC", 40, ["41", "51"], "4", "-1", False),
    ],
)
def test_the_lab_answers_under_each_preset(client, variant, card, total, totals, next_seat, direction, skip):
    """Issue 18: the dispute lab under each preset (its card table, from PlayAural or t_games):
    the totals a card makes and who plays next after seat 1 of 4."""
    page = client.get(f"/rules/hundred?variant={variant}&total={total}&card={card}&players=4&seat=1")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert re.findall(r'data-total="([^"]*)"', text) == totals
    assert re.findall(r'data-next="([^"]*)"', text) == [next_seat]
    assert re.findall(r'data-direction="([^"]*)"', text) == [direction]
    assert ('data-skip="yes"' in text) is skip


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_rules_page_marks_the_variants_and_their_sources(client, lang):
    """Issue 18: each preset's card table and each reading is on the rules page, marked variant,
    with its source."""
    page = client.get("/rules/hundred/words", headers={"Accept-Language": lang}).get_data(as_text=True)
    assert page.count('class="badge variant"') >= 4
    sources = {
        "en": ("PlayAural", "t_games", "chicago", "joker-rules", "gonzo", "seed 004", "“Set any total 0-99”"),
        "ja": (
            "PlayAural",
            "t_games",
            "chicago",
            "joker-rules",
            "gonzo",
            "原典のもう一つの読み方",
            "「合計を0〜99の好きな値にする」",
        ),
    }[lang]
    for source in sources:
        assert source in page, source
    assert 'id="s4-3-others"' in page


# -- PlayAural's 99 as its program plays it today (RULES.md 4.9): its own tests, replayed ---------------


def test_4_9_the_quentin_c_preset_is_playaurals_99_today():
    """RULES.md 4.9: the preset floors the total at 0 (PlayAural since 2026-06-06) and ends a hand
    landing exactly on 99; both are options, so PlayAural's older floor-less 99 stays playable."""
    o = H.resolve_options(H.STARTS["99quentin"].options)
    assert (o.variant, o.floor_at_zero, o.exact_target) == ("99quentin", True, "others_lose")
    assert H.resolve_options({"variant": "99quentin", "floor_at_zero": False}).floor_at_zero is False
    assert H.Options().exact_target == "play_on"  # the seed: the total may equal the target, play goes on


PLAYAURAL = H.STARTS["99quentin"].options


@pytest.mark.parametrize(
    ("example", "total", "card", "made"),
    [
        # server/tests/test_ninetynine.py, as PlayAural's program makes each total
        ("test_subtract_ten_floors_at_zero", 5, "10H", [0, 15]),  # "Subtract 10" at 5 makes 0
        ("test_two_effect_multiply", 15, "2H", [30]),
        ("test_two_effect_multiply", 25, "2H", [50]),
        ("test_two_effect_multiply", 20, "2H", [40]),
        ("test_two_effect_multiply", 48, "2H", [96]),
        ("test_two_effect_divide", 50, "2H", [25]),
        ("test_two_effect_divide", 66, "2H", [33]),
        ("test_two_effect_divide", 92, "2H", [46]),
        ("test_standard_values", 50, "3H", [53]),
        ("test_standard_values", 50, "4H", [54]),
        ("test_standard_values", 50, "8H", [58]),
        ("test_standard_values", 50, "9H", [50]),
        ("test_standard_values", 50, "JH", [60]),
        ("test_standard_values", 50, "QH", [60]),
        ("test_standard_values", 50, "KH", [60]),
        ("test_ace_auto_choice", 50, "AH", [51, 61]),  # a choice below 89
        ("test_ten_auto_choice", 50, "10H", [40, 60]),
    ],
)
def test_4_9_playaurals_examples_make_its_totals(example, total, card, made):
    """RULES.md 4.3 and 4.9: each total PlayAural's tests check, made by the Quentin C preset."""
    assert H.effect(card, total, PLAYAURAL)[0] == made, example


@pytest.mark.parametrize(
    ("example", "total", "card", "chosen"),
    [
        ("test_ace_auto_choice", 89, "AH", 90),
        ("test_ten_auto_choice", 90, "10H", 80),
        ("test_ten_auto_choice", 95, "10H", 85),
    ],
)
def test_4_9_playaurals_automatic_choices_are_the_only_safe_ones(example, total, card, chosen):
    """RULES.md 4.9: where PlayAural chooses for the player (an ace above 88 is +1, a 10 from 90
    is -10), that is the one total that does not go over 99: the referee agrees."""
    assert H.safe_totals(card, total, PLAYAURAL) == {chosen}, example


def test_4_9_landing_on_99_ends_the_hand_and_the_others_lose_it():
    """RULES.md 4.9, PlayAural's test_landing_on_99_ends_round: at 89 a queen makes 99, the round
    ends and every other player loses (2 tokens there, one hand here)."""
    s = at(new(("A", "B", "C"), **PLAYAURAL), 89)
    s = play(s, "QH")
    h = s.history[-1]
    assert (h["losers"], h["loser"], h["total"], h["verified"]) == (["B", "C"], None, 99, True)
    assert h["reason"][0]["code"] == "exact_target" and h["reason"][0]["rule"] == "100/99/98 4.9"
    assert (s.tokens, s.losses, s.hand, s.total) == ([3, 2, 2], [0, 1, 1], 2, 0)
    assert H.view(s)["last"]["exact"] and H.view(s)["last"]["losers"] == ["B", "C"]
    assert [r.code for r in H.narrate(s, {"type": "play", "card": "QH"})] == ["lost_hand_all", "exact_target"]
    assert H.view(s)["dealer"] == "A"  # several losers: the next player deals, whatever next_dealer says


def test_4_9_landing_on_99_can_end_the_match():
    """RULES.md 4.9: with two players the other loses the hand; on their last token, the match."""
    s = at(new(("A", "B"), tokens=1, **PLAYAURAL), 89)
    s = play(s, "9H")  # a 9 passes: staying on 89 ends nothing
    s = play(s, "9D")
    s = play(s, "KC")  # 89 + 10 = 99
    assert s.result == {"winners": ["A"], "losers": ["B"], "draw": False}
    assert s.history[-1]["losers"] == ["B"] and s.history[-1]["eliminated"]


@pytest.mark.parametrize("options", [{}, {"variant": "99"}, {"variant": "99quentin", "exact_target": "play_on"}])
def test_4_9_elsewhere_exactly_the_target_plays_on(options):
    """RULES.md 4.2 (seed 004: the total may equal the target) unless exact_target says otherwise."""
    s = at(new(**options), H.target(options) - 10)
    s = play(s, "QD")  # +10 in each
    assert s.total == H.target(options) and s.history == [] and s.hand == 1


def test_4_9_going_over_99_loses_as_playaural_test_going_over_99():
    """RULES.md 4.9, PlayAural's test_going_over_99: at 95 a queen makes 105, its player loses."""
    s = play(at(new(("A", "B", "C"), **PLAYAURAL), 95), "QH")
    assert s.history[-1]["losers"] == ["A"] and s.history[-1]["bust"] == "QH"


def test_4_9_an_empty_stock_keeps_the_top_card_as_playaural_does():
    """RULES.md 4.2 D4, PlayAural's test_draw_recycles_older_discards_and_preserves_top_discard:
    the pile but its top card becomes the stock (t_games shuffles the top card back in: not followed)."""
    s = play(new(("A", "B", "C"), **PLAYAURAL), "5H")
    s = play(s, "6H")
    s.stock = 0
    s = play(s, "7H")
    assert s.pile == ["7H"] and s.stock == 1  # 5H and 6H are the new stock, less the card just drawn


def test_4_2_98_is_played_to_98_with_hands_of_4():
    """RULES.md 4.2 (98: the target 98, four cards a hand): the board, and a hand shown that
    can't go, say the game's own target."""
    s = H.start(["A", "B", "C"], {"dealer": "C", "variant": "98"})
    assert (H.view(s)["target"], H.view(s)["hand_size"]) == (98, 4)
    for card in ("9S", "9H", "9D", "9C", "8S", "8H", "8D", "8C", "7S", "7H", "7D", "6S"):  # to 95
        s = H.apply(s, {"type": "play", "card": card})
    s = H.apply(s, {"type": "lose", "hand": ["5H", "6H", "5D", "5C"]})
    assert [str(r) for r in H.narrate(s, {"type": "lose"})][-1] == (
        "A could not go: every card shown goes over 98 (5H 6H 5D 5C on 95)."
    )


@pytest.mark.parametrize(("total", "made"), [(48, 96), (49, 98), (50, 25), (52, 26)])
def test_4_3_quentins_2_halves_an_even_total_from_50(total, made):
    """RULES.md 4.3 (PlayAural's Quentin C): a 2 halves an even total of 50 or more, and
    doubles any other."""
    assert H.totals("2S", total, {"variant": "99quentin"}) == {made}


@pytest.mark.parametrize(
    ("options", "players", "code", "params"),
    [
        ({"tokens": 0}, 3, "not_1_to_99", {"option": "tokens", "value": 0}),
        ({"tokens": 100}, 3, "not_1_to_99", {"option": "tokens", "value": 100}),
        ({"hands": 100, "match_format": "loss_tally"}, 3, "not_1_to_99", {"option": "hands", "value": 100}),
        ({"decks": 3}, 3, "bad_decks", {"option": "decks", "value": 3}),
        ({"decks": 1, "variant": "98"}, 13, "pack_too_small", {"option": "decks", "packs": 1, "size": 4, "count": 13}),
        ({"decks": 1}, 18, "pack_too_small", {"option": "decks", "packs": 1, "size": 3, "count": 18}),
    ],
)
def test_4_5_option_refusals_name_the_option_and_the_value(options, players, code, params):
    """RULES.md 4.5: tokens and hands from 1 to 99, one or two packs, and a pack that deals
    every hand and leaves a stock (13 hands of 4 take all 52 cards)."""
    with pytest.raises(OptionError) as err:
        H.start([f"P{i}" for i in range(players)], options)
    assert (err.value.code, err.value.params) == (code, params)


def test_4_5_the_largest_tables_a_pack_deals():
    """RULES.md 4.5: the bounds themselves are taken."""
    assert H.start([f"P{i}" for i in range(12)], {"decks": 1, "variant": "98"}).stock == 4
    assert H.start([f"P{i}" for i in range(17)], {"decks": 1}).stock == 1
    assert H.resolve_options({"tokens": 99, "hands": 99}).tokens == 99
