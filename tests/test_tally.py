"""Tally a deal in one screen, through the view layer: a tally gives the same deal score
as the same deal played card by card, and an impossible tally is refused with its reason
and stores nothing (issue: tally a deal; RULES.md 1.5, 2.6, 3.6, 4.4)."""

import random
import re

import pytest

from companion.games import tablanette as TB
from companion.games import tantony as TT
from companion.games import tute as TU
from tests.conftest import become_referee


def create(client, game, players, options=None):
    created = client.post("/api/games", json={"game": game, "players": players, "options": options or {}}).get_json()
    become_referee(client, created["id"], created["edit_key"])
    return created["id"]


def view(client, game_id):
    return client.get(f"/api/games/{game_id}").get_json()


def tally(client, game_id, **fields):
    data = {"version": view(client, game_id)["version"], **fields}
    return client.post(f"/games/{game_id}/tally", data=data, headers={"HX-Request": "true"})


def played_tablanette_deal(seed):
    """A whole 2-player deal played card by card by the engine."""
    rng = random.Random(seed)
    s = TB.start(["Ann", "Ben"])
    deck = [str(c) for c in TB.PACK]
    rng.shuffle(deck)
    layout = [c for c in deck if not c.startswith("J")][:4]
    s = TB.apply(s, {"type": "layout", "cards": layout})
    for card in [c for c in deck if c not in layout]:
        s = TB.apply(
            s,
            {
                "type": "play",
                "card": card,
                "capture": rng.choice(TB.capture_options(card, s.table, s.options)).sorted_cards(),
            },
        )
    return s


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_tablanette_tally_scores_like_the_played_deal(client, seed):
    """RULES.md 1.5: cards taken, counting cards and sweeps give the same deal total."""
    record = played_tablanette_deal(seed).history[-1]
    game_id = create(client, "tablanette", ["Ann", "Ben"])
    counters = [c for c in map(str, TB.PACK) if TB.card_points([c])]
    # Which side took each counting card is not in the record, so rebuild a split with the
    # same card points: give Ann counting cards until her points match.
    ann, need = [], record["card_points"]["Ann"]
    for c in sorted(counters, key=lambda c: -TB.card_points([c])):
        if TB.card_points(ann + [c]) <= need:
            ann.append(c)
    fields = {
        "cards_0": record["cards"]["Ann"],
        "record": "record",
        "sweeps_0": record["sweeps"]["Ann"],
        "sweeps_1": record["sweeps"]["Ben"],
    }
    fields |= {f"owner_{c}": 0 if c in ann else 1 for c in counters}
    answer = tally(client, game_id, **fields)
    assert answer.status_code == 204 and answer.headers["HX-Redirect"].endswith(game_id)
    stored = view(client, game_id)["view"]["history"][-1]
    assert stored["points"] == record["points"] and stored["tallied"] is True
    log = client.get(f"/games/{game_id}/log").get_data(as_text=True)
    assert "tallied" in log
    # The scores deal by deal are one tap away below the grid while the game goes on.
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    record = page[page.index('id="record"') :]
    assert "Deal by deal" in record and page.index('id="picker"') < page.index('id="record"')


def test_tablanette_tally_builds_a_sweep_from_its_cards(client):
    """The sweep builder: tap the played card and what it swept; the bonus is computed."""
    game_id = create(client, "tablanette", ["Ann", "Ben"])
    page = tally(client, game_id, sb_card="KC", sb_taken=["KS", "10H", "4D"], sb_add="0").get_data(as_text=True)
    assert 'name="sweeps_0" value="42"' in page
    page = tally(client, game_id, sb_card="KH", sb_taken=["2S", "3H", "5D", "9C"], sb_add="1").get_data(as_text=True)
    assert "Tablanette P1" in page and 'name="sweeps_1"' not in page  # no sweep kept for Ben


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"cards_0": "60"}, "whole numbers of 0 or more"),
        ({"cards_0": "30", "sweeps_0": "23"}, "No sweep scores 23"),
        ({"cards_0": "2", "owner_AS": "0", "owner_AH": "0", "owner_AD": "0"}, "can't hold"),
    ],
)
def test_an_impossible_tablanette_tally_is_refused_and_stores_nothing(client, fields, reason):
    game_id = create(client, "tablanette", ["Ann", "Ben"])
    answer = tally(client, game_id, record="record", **fields)
    assert reason in answer.get_data(as_text=True).replace("&#39;", "'")
    assert view(client, game_id)["version"] == 0


def test_a_typed_bonus_no_sweep_can_make_is_refused(client):
    game_id = create(client, "tablanette", ["Ann", "Ben"])
    page = tally(client, game_id, bonus_0="23", add_sweep="0").get_data(as_text=True)
    assert "No sweep scores 23" in page and 'name="sweeps_0"' not in page  # no sweep kept for Ann


def played_tute_deal(seed):
    rng = random.Random(seed)
    s = TU.start(["Ann", "Ben", "Cat", "Dan"])
    deck = [str(c) for c in TU.pack(4)]
    rng.shuffle(deck)
    hands = {(1 + i) % 4: deck[i * 10 : (i + 1) * 10] for i in range(4)}
    s = TU.apply(s, {"type": "trump", "card": hands[0][-1]})
    while s.deal == 1:
        seat = TU.to_act(s)
        suits = [x for x in TU.declarable(s) if {f"K{x}", f"Q{x}"} <= set(hands[seat])]
        if suits:
            s = TU.apply(s, {"type": "declare", "suit": suits[0]})
            continue
        card = rng.choice(sorted(TU.legal_plays(hands[seat], [c for _, c in s.trick], s.trump)))
        hands[seat].remove(card)
        s = TU.apply(s, {"type": "play", "card": card})
    return s.history[-1]


@pytest.mark.parametrize("seed", [1, 2])
def test_tute_tally_scores_like_the_played_deal(client, seed):
    """RULES.md 2.6: card points, the last trick and cantes give the same totals and loser."""
    record = played_tute_deal(seed)
    names = ["Ann", "Ben", "Cat", "Dan"]
    game_id = create(client, "tute", names)
    cantes = {p: [] for p in names}
    # The cantes of each player, from the totals: total - card points - last trick.
    for p in names:
        extra = record["points"][p] - record["card_points"][p] - (10 if p == record["last_trick"] else 0)
        while extra >= 40 and 40 not in sum(cantes.values(), []):
            cantes[p].append(40)
            extra -= 40
        cantes[p] += [20] * (extra // 20)
    fields = {f"points_{i}": record["card_points"][p] for i, p in enumerate(names[:-1])}
    fields |= {f"cantes_{i}": cantes[p] for i, p in enumerate(names)}
    answer = tally(client, game_id, last_trick=record["last_trick"], record="record", **fields)
    assert answer.status_code == 204, answer.get_data(as_text=True)
    stored = view(client, game_id)["view"]["history"][-1]
    assert stored["points"] == record["points"] and stored["losers"] == record["losers"]


def test_tute_tally_refuses_points_that_do_not_add_up(client):
    game_id = create(client, "tute", ["Ann", "Ben", "Cat", "Dan"])
    answer = tally(client, game_id, points_0="100", points_1="30", points_2="0", last_trick="Ann", record="record")
    assert answer.status_code == 422 and "0 to 120" in answer.get_data(as_text=True)
    assert view(client, game_id)["version"] == 0


def test_tantony_tally_scores_like_the_played_deal(client):
    """RULES.md 3.6: each player's scoring cards give the same team totals."""
    rng = random.Random(5)
    names = ["Nan", "Eve", "Sam", "Wes"]
    s = TT.start(names)
    deck = [str(c) for c in TT.pack(4)]
    rng.shuffle(deck)
    hands = {(1 + i) % 4: deck[i * 13 : (i + 1) * 13] for i in range(4)}
    while s.deal == 1:
        v = TT.view(s)
        if "give" in v["expects"]:
            s = TT.apply(s, {"type": "give", "to": rng.choice(v["room"])})
            continue
        seat = TT.to_act(s)
        card = rng.choice(sorted(TT.legal_plays(hands[seat], [c for _, c in s.trick])))
        hands[seat].remove(card)
        s = TT.apply(s, {"type": "play", "card": card})
    record = s.history[-1]
    game_id = create(client, "tantony", names)
    fields = {f"runt_{c}": i for i, p in enumerate(names) for c in record["scoring"][p]}
    answer = tally(client, game_id, record="record", **fields)
    assert answer.status_code == 204, answer.get_data(as_text=True)
    stored = view(client, game_id)["view"]
    assert stored["history"][-1]["points"] == record["points"] and stored["hands"] is None


def test_tantony_tally_refuses_the_wrong_number_of_runts(client):
    game_id = create(client, "tantony", ["Nan", "Eve", "Sam", "Wes"])
    answer = tally(client, game_id, record="record", runt_2S=0, runt_3S=1)
    assert answer.status_code == 422 and "3 runts" in answer.get_data(as_text=True)
    assert view(client, game_id)["version"] == 0


def test_a_tally_being_entered_gets_a_hint_and_a_waiting_button_and_record_gets_the_refusal(client):
    """RULES.md 3.6 (three runts each, the 13th trick's winner a fourth): the screen opens, and
    each tap of an unfinished tally answers, with the engine's reason as a hint beside a Record
    button that waits (disabled), not as a red refusal; Record tapped anyway is refused (422,
    an alert) and stores nothing."""
    game_id = create(client, "tantony", ["Nan", "Eve", "Sam", "Wes"])

    def result(page: str) -> str:  # what the screen answers, above the Record button
        return page[page.index('class="tally-result"') : page.index('name="record"')]

    for answer in (client.get(f"/games/{game_id}/tally"), tally(client, game_id, runt_2S=0)):
        page = answer.get_data(as_text=True)
        assert answer.status_code == 200 and 'role="alert"' not in result(page)
        assert '<p class="warning">' in result(page) and "3 runts" in result(page)
        assert re.search(r'<button type="submit" name="record"[^>]* disabled>', page)
    refused = tally(client, game_id, record="record", runt_2S=0)
    assert refused.status_code == 422 and 'role="alert"' in result(refused.get_data(as_text=True))
    assert view(client, game_id)["version"] == 0


def test_a_tablanette_tally_with_every_counting_card_on_one_side_says_so(client):
    """RULES.md 1.5: each side's counting cards score for it. The screen opens with them all on
    the first side (tapping the other side's is fewer taps), so once the cards taken are
    typed a deal that gives one side every point could be recorded unlooked-at: the bar
    says so, without holding Record back (it can happen); one card tapped over, it is gone."""
    game_id = create(client, "tablanette", ["Ann", "Ben"])
    page = tally(client, game_id, cards_0="26").get_data(as_text=True)
    assert "Every counting card is with Ann: tap each one another side took." in page
    assert re.search(r'<button type="submit" name="record"[^>]*>', page).group(0).find("disabled") < 0
    page = tally(client, game_id, cards_0="26", owner_AS="1").get_data(as_text=True)
    assert "Every counting card is with" not in page


def test_hundred_tally_is_one_tap(client):
    """RULES.md 4.4: who lost the hand; the loser loses a token."""
    game_id = create(client, "hundred", ["Ann", "Ben", "Cat"])
    answer = tally(client, game_id, loser="Ben")
    assert answer.status_code == 204
    assert view(client, game_id)["view"]["tokens"]["Ben"] == 2


def test_the_game_page_offers_the_tally_at_a_deal_boundary(client):
    game_id = create(client, "tute", ["Ann", "Ben", "Cat", "Dan"])
    assert "Tally this deal instead" in client.get(f"/games/{game_id}").get_data(as_text=True)
    client.post(f"/games/{game_id}/moves", data={"version": 0, "type": "trump", "card": "5D"})
    assert "Tally this deal instead" not in client.get(f"/games/{game_id}").get_data(as_text=True)
    assert client.get(f"/games/{game_id}/tally").status_code == 303  # not at a boundary: back to the game


def test_watchers_cannot_tally(client, app):
    created = client.post("/api/games", json={"game": "hundred", "players": ["Ann", "Ben"]}).get_json()
    other = app.test_client()
    assert other.get(f"/games/{created['id']}/tally").status_code == 403


@pytest.mark.parametrize("target", [251, 1], ids=["deal-end", "game-over"])
@pytest.mark.parametrize("bens", [[], ["AS", "AH", "AD"]], ids=["no-counting-card", "three-aces"])
def test_the_scoreboard_after_a_tallied_deal_says_what_was_taken(client, target, bens):
    """Issue 44: a tally gives the cards each side took and which side took each counting
    card; the scoreboard above the deal's table says the same cards and card points (a
    tally's pile holds only its counting cards: Ann's 30 cards read "21 cards", and Ben's
    22 cards without a counting card "no cards yet"), while the deal's end shows and for
    good once the game is over."""
    created = client.post(
        "/api/games", json={"game": "tablanette", "players": ["Ann", "Ben"], "options": {"target": target}}
    ).get_json()
    become_referee(client, created["id"], created["edit_key"])
    game_id = created["id"]
    counters = [c for c in map(str, TB.PACK) if TB.card_points([c])]
    owners = {f"owner_{c}": int(c in bens) for c in counters}
    assert tally(client, game_id, cards_0="30", record="record", **owners).status_code == 204
    page = client.get(f"/games/{game_id}").get_data(as_text=True)

    def row(title: str) -> list[int]:
        cells = re.search(rf"<th scope=\"row\">{title} .*?</th>(.*?)</tr>", page, flags=re.S).group(1)
        return [int(n) for n in re.findall(r"<td>(\d+)</td>", cells)]

    board = re.findall(r'<span class="sweeps">(\d+) cards? · (\d+) pts?</span>', page)
    assert row("Cards taken") == [30, 22]
    assert [int(cards) for cards, _ in board] == [30, 22]
    assert [int(points) for _, points in board] == row("Card points")
    assert "no cards yet" not in page
