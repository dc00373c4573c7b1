"""The table's ruling (issue 46, item 3; RULES.md 5.2): a move the rules refuse, played on
because the table says so, in the engines, the log, the board, the lists and the pages."""

from __future__ import annotations

import re

import pytest

from companion.errors import IllegalMove
from companion.games import hundred as H
from companion.games import tablanette as TB
from companion.games import tantony as TT
from companion.games import tute as TU
from companion.games.common import Stopped, replay
from companion.store.checks import check_games
from tests.conftest import become_referee, form_values, new_game, post_move, snapshot
from tests.e2e.deals import script

LAYOUT = {"type": "layout", "cards": ["2C", "3D", "4H", "8S"]}
# Q♥ (13) must take 2♣ 3♦ 8♠: taking 2♣ 8♠ alone breaks P1-P2 (a group must add up to 13).
SHORT = {"type": "play", "card": "QH", "capture": ["2C", "8S"]}


def ruled(move: dict) -> dict:
    return move | {"ruled": True}


def tablanette():
    return TB.apply(TB.start(["Ann", "Ben"]), LAYOUT)


# ---------------------------------------------------------------------------
# The engines
# ---------------------------------------------------------------------------


def test_a_capture_the_rules_refuse_stands_as_played_when_ruled():
    """RULES.md 5.2 R2: the ruled capture takes exactly the cards named, makes its player
    the last to capture, and scores no sweep; the deal's rulings say what was ruled."""
    s = tablanette()
    with pytest.raises(IllegalMove) as refused:
        TB.apply(s, SHORT)
    assert refused.value.code == "not_groups" and refused.value.code in TB.RULABLE
    view = TB.view(TB.apply(s, ruled(SHORT)))
    assert view["captured"]["Ben"] == ["2C", "8S", "QH"] and view["table"] == ["3D", "4H"]
    assert view["last_capturer"] == "Ben" and view["sweeps"]["Ben"] == []
    assert view["ruled"] == 1
    [ruling] = view["rulings"]
    assert ruling["player"] == "Ben" and ruling["move"] == SHORT and ruling["deal"] == 1
    assert ruling["refusal"]["code"] == "not_groups" and ruling["refusal"]["rule"] == "Tablanette P1"


def test_a_ruled_capture_of_the_whole_table_is_no_sweep():
    """RULES.md 5.2 R2: a bonus is defined for a legal capture only."""
    s = tablanette()
    view = TB.view(TB.apply(s, ruled({"type": "play", "card": "KH", "capture": ["2C", "3D", "4H", "8S"]})))
    assert view["table"] == [] and view["sweeps"]["Ben"] == [] and view["scores"]["Ben"] == 0


def test_a_card_that_must_capture_is_laid_down_when_ruled():
    """RULES.md 5.2 R1-R2: the forced capture (P4) set aside: the card goes to the table."""
    s = tablanette()
    with pytest.raises(IllegalMove) as refused:
        TB.apply(s, {"type": "play", "card": "5S", "capture": []})
    assert refused.value.code == "must_capture"
    view = TB.view(TB.apply(s, ruled({"type": "play", "card": "5S", "capture": []})))
    assert view["table"] == ["2C", "3D", "4H", "8S", "5S"] and view["rulings"][0]["refusal"]["rule"] == "Tablanette P4"


@pytest.mark.parametrize(
    "move",
    [
        {"type": "play", "card": "2C", "capture": []},  # on the table: a fact
        {"type": "play", "card": "QH", "capture": ["2C", "9S"]},  # 9♠ is not on the table
    ],
)
def test_a_fact_is_never_ruled(move):
    """RULES.md 5.2 R1: a card on the table already, or one not there to take, stays refused."""
    with pytest.raises(IllegalMove) as refused:
        TB.apply(tablanette(), ruled(move))
    assert refused.value.code not in TB.RULABLE


def test_a_move_the_rules_allow_asks_nothing_and_records_no_ruling():
    s, legal = tablanette(), {"type": "play", "card": "QH", "capture": ["2C", "3D", "8S"]}
    assert TB.confirm_needed(s, ruled(legal)) is None
    after = TB.apply(s, ruled(legal))
    assert TB.view(after)["rulings"] == []
    # R4: the log says what it says of the move unruled, and nothing of a ruling.
    assert [str(r) for r in TB.narrate(after, ruled(legal))] == ["Ben played QH and took 2C 3D 8S."]


def test_the_confirm_names_the_rule_and_says_there_is_no_penalty():
    """RULES.md 5.2 R3: Tablanette names no penalty, and the confirm says so."""
    asked = TB.confirm_needed(tablanette(), ruled(SHORT))
    assert [(r.code, r.rule) for r in asked] == [("rule_it", "Tablanette P1"), ("no_penalty", None)]
    said = [str(r) for r in asked]
    assert said == [
        "Play on as the table rules, against Tablanette P1?",
        "The rules name no penalty: the move stands as played.",
    ]
    assert TB.confirm_needed(tablanette(), SHORT) is None  # not ruled: the refusal is said as ever


def test_the_log_says_the_table_ruled_it():
    """RULES.md 5.2 R4: "Ruled by the table, against <rule>" after the move's own words."""
    said = [str(r) for r in TB.narrate(TB.apply(tablanette(), ruled(SHORT)), ruled(SHORT))]
    assert said == ["Ben played QH and took 2C 8S.", "Ruled by the table, against Tablanette P1."]


def test_a_deal_ended_after_a_ruling_records_it():
    """RULES.md 5.2 R4: the finished deal's record lists its rulings. The seeded deal with
    one capture, late in it, ruled a lay-down instead (the first such whose later moves
    still fit: RULES.md 5.1's replay finds it)."""
    players, steps = script("tablanette")
    moves = [s.move for s in steps]
    for k in range(len(moves), 1, -1):
        laid = ruled({"type": "play", "card": moves[k - 1].get("card"), "capture": []})
        try:
            *_, (_n, _m, after) = replay(TB.apply, TB.start(players), enumerate(moves, 1), {k: laid})
        except Stopped:
            continue
        if after.rulings:
            break
    record = after.history[-1]
    assert record["deal"] == 1 and [r["move"] for r in record["rulings"]] == [
        {k: v for k, v in laid.items() if k != "ruled"}
    ]
    plain = TB.start(players)
    for m in moves:
        plain = TB.apply(plain, m)
    assert "rulings" not in plain.history[-1]  # a deal without one says nothing


def tute_trick():
    """Tute, 4 players: Ann deals and turns the Q♠ (trumps); Ben, Cat and Dan play spades.
    Ann holds the Q♠, so her 7♦ is a revoke the known cards prove (RULES.md 2.11)."""
    s = TU.start(["Ann", "Ben", "Cat", "Dan"])
    for m in ({"type": "trump", "card": "QS"}, *({"type": "play", "card": c} for c in ("4S", "5S", "6S"))):
        s = TU.apply(s, m)
    return s


@pytest.mark.parametrize(
    "penalty,said",
    [
        ("loss_mark", "Once proven, the revoke costs its player the deal: a loss mark."),
        ("replay_deal", "Once proven, the revoke voids the deal: it is dealt again."),
        ("none", "The rules chosen give a revoke no penalty."),
    ],
)
def test_a_ruled_tute_revoke_is_offered_the_penalty_the_rules_name(penalty, said):
    """RULES.md 5.2 R3 and 2.10 B11: the confirm names what the revoke will cost."""
    s = TU.start(["Ann", "Ben", "Cat", "Dan"], {"revoke_penalty": penalty})
    for m in ({"type": "trump", "card": "QS"}, *({"type": "play", "card": c} for c in ("4S", "5S", "6S"))):
        s = TU.apply(s, m)
    assert [str(r) for r in TU.confirm_needed(s, {"type": "play", "card": "7D", "ruled": True})][1] == said


def test_a_ruled_tute_revoke_is_played_and_proven():
    """RULES.md 5.2 R2-R3: the card is played into the trick as it is, and the audit proves
    the revoke (its penalty follows at the deal's end, as for any proven revoke)."""
    s = tute_trick()
    seven = {"type": "play", "card": "7D"}
    with pytest.raises(IllegalMove) as refused:
        TU.apply(s, seven)
    assert refused.value.code == "must_follow" and refused.value.rule == "Tute 2.4"
    after = TU.apply(s, ruled(seven))
    assert after.tricks[-1]["cards"][-1] == [0, "7D"]
    assert [(r["player"], r["card"], r["proof"]) for r in after.revokes] == [("Ann", "7D", "QS")]
    assert TU.view(after)["rulings"][0]["refusal"]["code"] == "must_follow"
    # R4: played out (each player the first card they may play), the deal's record keeps it.
    while after.deal == 1:
        v = TU.view(after)
        after = next(a for a in (maybe(after, c) for c in v["pack"] if c not in v["seen"]) if a is not None)
    [ruling] = after.history[-1]["rulings"]
    assert (ruling["player"], ruling["deal"], ruling["refusal"]["code"]) == ("Ann", 1, "must_follow")
    assert TU.view(after)["rulings"] == []  # the next deal has none of its own


def maybe(state, card):
    """The state after ``card`` is played, or None when the referee refuses it."""
    try:
        return TU.apply(state, {"type": "play", "card": card})
    except IllegalMove:
        return None


def test_a_ruled_tantony_card_need_not_follow_a_known_hand():
    """RULES.md 5.2 R1-R2 and 3.3: from deal 2 hands are known; Wes, who holds spades,
    discards the 3♣ on the 3♠ led, and the table lets it stand."""
    players, steps = script("tantony")
    s = TT.start(players)
    for step in steps:
        s = TT.apply(s, step.move)
    s = TT.apply(s, {"type": "play", "card": "3S"})
    with pytest.raises(IllegalMove) as refused:
        TT.apply(s, {"type": "play", "card": "3C"})
    assert refused.value.code == "must_follow" and refused.value.options == ["KS", "10S", "8S", "2S"]
    assert [str(r) for r in TT.confirm_needed(s, {"type": "play", "card": "3C", "ruled": True})] == [
        "Play on as the table rules, against Tantony 3.3?",
        "The rules name no penalty: the move stands as played.",
    ]
    s = TT.apply(s, {"type": "play", "card": "3C", "ruled": True})
    view = TT.view(s)
    assert view["rulings"][0]["player"] == "Wes" and view["ruled"] == 1
    # The deal played out (the known hands' first legal card, the first player with room):
    # its record keeps the ruling (R3), and the next deal's has none of its own.
    deal = s.deal
    while s.deal == deal:
        v = TT.view(s)
        move = (
            {"type": "give", "to": v["room"][0]}
            if v["expects"] == ["give"]
            else {"type": "play", "card": v["legal"][0]}
        )
        s = TT.apply(s, move)
    [ruling] = s.history[-1]["rulings"]
    assert (ruling["player"], ruling["deal"]) == ("Wes", deal)


def test_100_has_nothing_to_rule():
    """RULES.md 5.2 R1: 100 / 99 / 98's refusals are arithmetic or facts."""
    assert not hasattr(H, "RULABLE")


# ---------------------------------------------------------------------------
# The game page
# ---------------------------------------------------------------------------


def refereed(client) -> str:
    game_id = new_game(client)
    assert post_move(client, game_id, **{"type": "layout", "cards[]": LAYOUT["cards"]}).status_code == 200
    return game_id


def text(page: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", page).split())


SHORT_FORM = {"type": "play", "card": "QH", "capture[]": ["2C", "8S"]}


def test_a_referee_rules_a_refused_capture_with_one_tap_and_a_confirm(client, app):
    store = app.extensions["store"]
    game_id = refereed(client)
    refused = post_move(client, game_id, **SHORT_FORM)
    assert refused.status_code == 422
    page = refused.get_data(as_text=True)
    offer = page[page.index('class="rule-form"') :]
    offer = offer[: offer.index("</form>")]
    assert re.findall(r'name="([^"]+)" value="([^"]*)"', offer) == [
        ("type", "play"),
        ("card", "QH"),
        ("capture[]", "2C"),
        ("capture[]", "8S"),
        ("ruled", "1"),
    ]
    asked = post_move(client, game_id, **SHORT_FORM, ruled="1")
    assert asked.status_code == 200 and store.get(game_id)["version"] == 1  # asked: nothing recorded yet
    asked = text(asked.get_data(as_text=True))
    assert "Play on as the table rules, against Tablanette P1" in asked and "The rules name no penalty" in asked
    done = post_move(client, game_id, **SHORT_FORM, ruled="1", confirm="1")
    assert done.status_code == 200 and store.get(game_id)["version"] == 2
    board = text(done.get_data(as_text=True))
    assert re.search(r"Ruled by the table: Ben’s Q♥ ?\( ?Tablanette P1 ?\)\.", board), board
    assert store.moves(game_id)[-1]["move"] == ruled(SHORT)
    log = text(client.get(f"/games/{game_id}/log").get_data(as_text=True))
    assert re.search(r"Ben played Q♥ and took 2♣ 8♠\. Ruled by the table, against Tablanette P1 ?\.", log), log
    assert "1 move ruled by the table" in text(client.get("/").get_data(as_text=True))
    with store._read() as conn:
        assert check_games(conn) == 1  # the status with its mark is what the replay makes


def test_a_fact_offers_no_ruling(client):
    game_id = refereed(client)
    page = post_move(client, game_id, type="play", card="2C").get_data(as_text=True)
    assert 'class="error"' in page and "rule-form" not in page


def test_in_japanese(client):
    game_id = refereed(client)
    client.get("/?lang=ja")
    assert "このまま続行" in post_move(client, game_id, **SHORT_FORM).get_data(as_text=True)
    asked = text(post_move(client, game_id, **SHORT_FORM, ruled="1").get_data(as_text=True))
    assert "卓の裁定として続行しますか？" in asked and "ルールに罰則はありません。" in asked


def test_only_a_referee_rules_and_only_by_post_with_its_token(csrf_app):
    """Attack tests (issue 46): a visitor, a watcher and another game's referee post the
    ruled move with a token of their own; the referee's own phone posts it without its
    token; a GET, HEAD or OPTIONS carries it: nothing changes."""
    store = csrf_app.extensions["store"]
    row, key = store.create("tablanette", ["Ann", "Ben"])
    game_id = row["id"]
    store.play(game_id, 0, LAYOUT, key=key)
    referee, visitor, watcher, other = (csrf_app.test_client() for _ in range(4))
    with referee.session_transaction() as session:
        session["keys"] = {game_id: key}
    assert watcher.get(f"/games/{game_id}").status_code == 200
    other_row, other_key = store.create("tablanette", ["Ann", "Ben"])
    with other.session_transaction() as session:
        session["keys"] = {other_row["id"]: other_key}
    form = {"version": "1", **SHORT_FORM, "ruled": "1", "confirm": "1"}
    before = snapshot(csrf_app)
    for phone in (visitor, watcher, other):
        token = form_values(phone.get("/games/new").get_data(as_text=True))["csrf_token"]
        assert phone.post(f"/games/{game_id}/moves", data=form | {"csrf_token": token}).status_code == 403
    assert referee.post(f"/games/{game_id}/moves", data=form).status_code == 400
    for method in ("GET", "HEAD", "OPTIONS"):
        assert referee.open(f"/games/{game_id}/moves", method=method, query_string=form).status_code in (200, 405)
    assert snapshot(csrf_app) == before


def test_a_tute_revoke_the_known_cards_prove_is_offered_to_rule(client, app):
    """The refused Tute card on the game page: the offer, then the confirm naming the loss
    mark the revoke will cost."""
    made = client.post("/api/games", json={"game": "tute", "players": ["Ann", "Ben", "Cat", "Dan"]}).get_json()
    game_id = made["id"]
    become_referee(client, game_id, made["edit_key"])
    for move in ({"type": "trump", "card": "QS"}, *({"type": "play", "card": c} for c in ("4S", "5S", "6S"))):
        assert post_move(client, game_id, **move).status_code == 200
    refused = post_move(client, game_id, type="play", card="7D")
    assert refused.status_code == 422 and 'class="rule-form"' in refused.get_data(as_text=True)
    asked = text(post_move(client, game_id, type="play", card="7D", ruled="1").get_data(as_text=True))
    assert "Once proven, the revoke costs its player the deal: a loss mark." in asked
    assert post_move(client, game_id, type="play", card="7D", ruled="1", confirm="1").status_code == 200
    assert app.extensions["store"].moves(game_id)[-1]["move"] == {"type": "play", "card": "7D", "ruled": True}


def test_a_ruling_keeps_the_refusal_of_the_games_own_rules():
    """RULES.md 5.2 R2 with 1.7's max_group_size: the ruling records the refusal the game's
    options give (groups of any size), and a card laid down as ruled took no group."""
    s = TB.apply(TB.start(["Ann", "Ben"], {"max_group_size": None}), LAYOUT)
    after = TB.apply(s, ruled({"type": "play", "card": "QH", "capture": ["2C", "8S"]}))
    assert after.rulings[-1]["refusal"]["code"] == "not_groups_any_size"
    laid = TB.apply(tablanette(), ruled({"type": "play", "card": "5S", "capture": []}))
    assert (laid.last["taken"], laid.last["groups"]) == ([], [])
