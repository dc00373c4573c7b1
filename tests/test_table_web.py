"""At the table on every phone (issue 31), what the server does: the deal's end read from its
record, who plays next for the taps waiting offline, a phone that stopped being a referee,
a new-game form sent twice, a question asked again after a reload."""

import json
import re
import threading
import time

import pytest

from companion import board
from companion.board import markup
from companion.games import hundred as H
from companion.games import tantony as TT
from companion.games import tute as TU
from tests.conftest import finished_game, form_values, new_game, post_move, version_of
from tests.test_live import bounds, streaming  # noqa: F401  (a fixture, and its helper)
from tests.test_share import HX, join, link_from_panel

LAYOUT = ["2S", "3H", "5D", "9C"]  # KH then takes 2S 3H 9C or 5D 9C (TB-08): a choice


def tute_deal():
    """A Tute deal to its end (the first legal card each time), and the state after each move."""
    players = ["Ann", "Ben", "Cat", "Dan"]
    hands = {(1 + i) % 4: [str(c) for c in TU.pack(4)][i * 10 : (i + 1) * 10] for i in range(4)}
    s = TU.apply(TU.start(players), {"type": "trump", "card": hands[0][-1]})
    states = [s]
    while s.deal == 1:
        seat = TU.to_act(s)
        card = sorted(TU.legal_plays(hands[seat], [c for _, c in s.trick], s.trump))[0]
        hands[seat].remove(card)
        s = TU.apply(s, {"type": "play", "card": card})
        states.append(s)
    return states


# -- the deal's end: its record, as the engine keeps it -----------------------------------


def test_a_tute_deal_record_keeps_its_last_trick_for_the_screen_that_ends_it():
    """RULES.md 2.6: the last trick's winner takes +10; the record says which trick that was."""
    states = tute_deal()
    before, after = TU.view(states[-2]), TU.view(states[-1])
    record = after["history"][-1]
    assert record["last"]["n"] == 10 and record["last"]["winner"] == record["last_trick"]
    assert [c for _, c in record["last"]["cards"]] == [c for _, c in before["trick"]] + [
        c for _, c in record["last"]["cards"]
    ][len(before["trick"]) :]
    assert board.get("tute").ended(after) == record  # between the deals: the screen shows it
    assert board.get("tute").ended(before) is None
    turned = TU.apply(states[-1], {"type": "trump", "card": "5D"})
    assert board.get("tute").ended(TU.view(turned)) is None  # deal 2's first move ends it


def test_a_tantony_deal_record_keeps_the_13th_trick_and_its_exchange():
    """RULES.md 3.5: the 13th trick's runt goes to its winner, whose card goes to the runt's player."""
    players = ["Nan", "Eve", "Sam", "Wes"]
    s = TT.start(players, {"dealer": "Wes"})
    hands = {i: [str(c) for c in TT.pack(4)][i::4] for i in range(4)}
    while s.deal == 1:
        v = TT.view(s)
        if "give" in v["expects"]:
            s = TT.apply(s, {"type": "give", "to": v["room"][0]})
            continue
        seat = TT.to_act(s)
        card = sorted(TT.legal_plays(hands[seat], [c for _, c in s.trick]))[0]
        hands[seat].remove(card)
        s = TT.apply(s, {"type": "play", "card": card})
    record = TT.view(s)["history"][-1]
    assert record["last"]["n"] == 13 and record["last"]["winner"] in players
    assert record["line"] == 60 and board.get("tantony").ended(TT.view(s)) == record


#: What each game's screen at a deal's end says first, from the deal's record, and the
#: rule its last line cites (each game's SAMPLE's finished game: a tallied deal).
HEADINGS = {
    "tablanette": (lambda r: f"End of deal {r['deal']} (tallied)", "#s1-6"),
    "tute": (lambda r: f"Deal {r['deal']} (tallied): {r['losers'][0]} loses the deal", "#s2-7"),
    "tantony": (lambda r: f"End of deal {r['deal']} (tallied)", "#s3-8"),
    "hundred": (lambda r: f"Hand {r['hand']}: {r['loser']} loses the hand (tallied)", "#s4-4"),
}


@pytest.mark.parametrize("game", list(HEADINGS))
def test_each_games_deal_end_is_the_record_the_engine_keeps(client, game):
    """The game over (each game's sample: tallied deals), the screen that ends the last deal
    stays on the page: its heading and lines read the record, its rules are linked."""
    made = finished_game(client, game)
    view = client.get(f"/api/games/{made['id']}").get_json()["view"]
    assert view["result"] is not None
    record = view["history"][-1]
    page = client.get(f"/games/{made['id']}").get_data(as_text=True)
    end = page[page.index('<section class="deal-end"') :]
    end = end[: end.index("</section>")]
    heading, rule = HEADINGS[game]
    assert re.sub(r"<[^>]+>|\s+", " ", end.split("</h2>")[0]).split(">")[-1].strip() == heading(record)
    assert f'/rules/{game}/words#{rule[1:]}"' in end
    for points in (record.get("points") or {}).values():
        assert f"<td>{points}</td>" in end or game == "hundred"


def test_a_hand_several_players_lose_names_them_all_and_the_rule_of_it(client):
    """RULES.md 4.9 (PlayAural's 99, exact_target "others_lose"): landing exactly on 99 ends the
    hand and the others lose it; the hand's end names both and links 4.9, not 4.2."""
    body = {
        "game": "hundred",
        "players": ["Ann", "Ben", "Cat"],
        "options": {"dealer": "Cat", "variant": "99quentin", "exact_target": "others_lose"},
    }
    made = client.post("/api/games", json=body).get_json()
    cards = ["KS", "KH", "KD", "KC", "QS", "QD", "JS", "JH", "8S", "AS", "QH"]  # 88, +1 = 89, +10 = 99
    for version, card in enumerate(cards):
        move = {"type": "play", "card": card, **({"total": 89} if card == "AS" else {})}  # not its 99
        answer = client.post(
            f"/api/games/{made['id']}/moves",
            json={"version": version, "move": move},
            headers={"X-Edit-Key": made["edit_key"]},
        )
        assert answer.status_code == 200, answer.get_json()
    record = client.get(f"/api/games/{made['id']}").get_json()["view"]["history"][-1]
    assert record["losers"] == ["Ben", "Cat"]  # Ann played the 11th card
    page = client.get(f"/games/{made['id']}").get_data(as_text=True)
    end = page[page.index('<section class="deal-end"') :]
    end = end[: end.index("</section>")]
    assert re.sub(r"<[^>]+>|\s+", " ", end.split("</h2>")[0]).split(">")[-1].strip() == (
        "Hand 1: Ben and Cat lose the hand"
    )
    assert '/rules/hundred/words#s4-9"' in end and "#s4-2" not in end


# -- who plays next, for the taps waiting offline ------------------------------------------


def test_who_plays_next_is_said_as_far_as_the_rules_make_it_certain():
    tute = TU.view(TU.apply(TU.start(["Ann", "Ben", "Cat", "Dan"]), {"type": "trump", "card": "5D"}))
    assert board.get("tute").turns(tute) == {"players": ["Ben", "Cat", "Dan", "Ann"], "breaks": []}  # the trick
    hundred = H.view(H.start(["Ann", "Ben", "Cat"], {"dealer": "Cat"}))
    said = board.get("hundred").turns(hundred)
    # 100 (RULES.md 4.3): no card that only adds adds more than 10 (a queen), so ten cards
    # can't end the hand from 0; after a 4 (reverses), a black ace (any total), a 10 (sets
    # 100), a jack (-10) or the 2♠ (doubles), nobody is named.
    assert said["players"][:4] == ["Ann", "Ben", "Cat", "Ann"] and len(said["players"]) == 11
    assert {"4S", "4H", "AS", "AC", "10D", "JH", "2S"} <= set(said["breaks"])
    assert not {"5S", "QS", "KS", "AH"} & set(said["breaks"])
    near = H.start(["Ann", "Ben"])
    for card in ("QS", "QD", "QC", "9S", "9H", "9D", "9C", "8S", "8H", "8D", "8C"):  # Q♥ sets 0 in 100
        near = H.apply(near, {"type": "play", "card": card})
    assert H.view(near)["total"] == 98
    assert board.get("hundred").turns(H.view(near))["players"] == ["Ann"]  # the next card may end the hand


def test_the_board_tells_the_page_who_plays_next(client):
    game_id = new_game(client)
    post_move(client, game_id, type="layout", **{"cards[]": LAYOUT})
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    turns = json.loads(re.search(r"data-turns='([^']*)'", page).group(1))
    assert turns["players"][:3] == ["Ben", "Ann", "Ben"] and len(turns["players"]) == 16


# -- roles said as they are --------------------------------------------------------------


def test_a_phone_that_lost_its_key_gets_the_game_as_a_watchers_in_place_of_its_own(client, app):
    game_id = new_game(client)
    other = app.test_client()
    assert join(other, link_from_panel(client, game_id, "handover")).status_code == 303
    version = version_of(client, game_id)
    answer = client.get(f"/games/{game_id}/live?version={version}&referee=1", headers=HX)
    body = answer.get_data(as_text=True)
    assert answer.status_code == 200 and answer.headers["HX-Retarget"] == ".game"
    assert answer.headers["HX-Reswap"] == "outerHTML"
    assert "Refereeing moved to another phone: watching now." in body
    assert 'id="picker"' not in body and 'id="recent"' in body and "data-watching" in body
    page = client.get(f"/games/{game_id}").get_data(as_text=True)  # said once; this phone watches
    assert "Refereeing moved" not in page and 'id="picker"' not in page
    assert "referee=1" not in page
    still = other.get(f"/games/{game_id}/live?version={version}&referee=1", headers=HX)
    assert still.status_code == 204  # the new referee's page is as it was


def test_a_referee_phones_stream_says_when_it_stops_being_one(app, bounds):  # noqa: F811
    bounds(life=5, beat=5)
    client = app.test_client()
    game_id = new_game(client)
    with streaming(client, f"/games/{game_id}/events?version=0") as (response, chunks):
        assert response.status_code == 200 and next(chunks).startswith(b"retry:")
        other = app.test_client()
        started = time.monotonic()
        threading.Timer(0.1, lambda: join(other, link_from_panel(client, game_id, "handover"))).start()
        assert next(chunks) == b"event: roles\ndata: watch\n\n"
        assert time.monotonic() - started < 0.1 + 2  # at once: the write stirred the stream
        assert list(chunks) == []  # and it ends
    assert app.extensions["live"].streams == 0


# -- a new-game form sent twice --------------------------------------------------------------


def test_a_new_game_form_sent_twice_opens_the_game_it_made(client):
    form = form_values(client.get("/games/new").get_data(as_text=True))
    assert re.fullmatch(r"[A-Za-z0-9_-]{16,32}", form["nonce"])
    form.update(player0="Ann", player1="Ben")
    first = client.post("/games/new", data=form)
    again = client.post("/games/new", data=form)  # Back, a reload, a double tap
    assert first.status_code == again.status_code == 303
    assert first.headers["Location"] == again.headers["Location"]
    fresh = form_values(client.get("/games/new").get_data(as_text=True))
    assert fresh["nonce"] != form["nonce"]
    other = client.post("/games/new", data={**form, "nonce": fresh["nonce"]})
    assert other.headers["Location"] != first.headers["Location"]
    made = client.post("/games/new", data={**form, "nonce": "not one"})  # no nonce of ours: a new game
    assert made.status_code == 303 and made.headers["Location"] not in (first.headers["Location"],)


def test_a_nonce_of_a_deleted_game_makes_a_new_one(client):
    form = form_values(client.get("/games/new").get_data(as_text=True)) | {"player0": "Ann", "player1": "Ben"}
    first = client.post("/games/new", data=form).headers["Location"]
    client.post(first + "/delete")
    second = client.post("/games/new", data=form)
    assert second.status_code == 303 and second.headers["Location"] != first


# -- a question asked again after a reload ------------------------------------------------------


def test_a_choice_puts_its_question_in_the_address_and_a_reload_asks_it_again(client, app):
    game_id = new_game(client)
    post_move(client, game_id, type="layout", **{"cards[]": LAYOUT})
    asked = post_move(client, game_id, type="play", card="KH")
    address = asked.headers["HX-Replace-Url"]
    assert address.startswith(f"/games/{game_id}?ask=")
    before = app.extensions["store"].version(game_id)
    page = client.get(address).get_data(as_text=True)
    assert 'class="choice sheet"' in page and re.search(r'<section id="live"[^>]* data-locked', page)
    assert app.extensions["store"].version(game_id) == before  # asking again enters nothing
    answered = client.post(
        f"/games/{game_id}/moves",
        data={"version": before, "type": "play", "card": "KH", "capture[]": ["", "5D", "9C"], "resume": "capture"},
        headers={**HX, "HX-Current-URL": "http://localhost" + address},
    )
    assert answered.headers["HX-Replace-Url"] == f"/games/{game_id}"
    assert 'class="choice' not in client.get(address).get_data(as_text=True)  # answered: nothing to ask
    for bad in ("{", "[]", '{"type": "nothing"}', "[" * 5000):
        assert client.get(f"/games/{game_id}", query_string={"ask": bad}).status_code == 200


def test_a_watcher_is_asked_nothing(client, app):
    game_id = new_game(client)
    post_move(client, game_id, type="layout", **{"cards[]": LAYOUT})
    address = post_move(client, game_id, type="play", card="KH").headers["HX-Replace-Url"]
    assert 'class="choice' not in app.test_client().get(address).get_data(as_text=True)


def test_a_played_card_is_struck_through_but_answers_where_it_went(client):
    game_id = new_game(client)
    post_move(client, game_id, type="layout", **{"cards[]": LAYOUT})
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    button = re.search(r'<button[^>]*id="pick-2S"[^>]*>', page).group(0)
    assert 'aria-disabled="true"' in button and " disabled" not in button and "played" in button
    refused = post_move(client, game_id, type="play", card="2S")
    assert refused.status_code == 422 and "2♠ is on the table already" in refused.get_data(as_text=True)


def test_a_rule_a_template_cites_is_worded_in_each_requests_language(client):
    """The deal's end cites its rules by literal ("Tute 2.2"|rule_link): each request words
    them in its own language, not in the one the template was first compiled for."""
    made = finished_game(client, "tute")
    english = client.get(f"/games/{made['id']}?lang=en").get_data(as_text=True)
    japanese = client.get(f"/games/{made['id']}?lang=ja").get_data(as_text=True)
    assert 'words#s2-2">Tute 2.2</a>' in english and 'words#s2-2">トゥテ 2.2</a>' in japanese
    # The brackets and stop stay on the link's line (markup.glued).
    assert re.search(r'<span class="glued">（<a href="[^"]*">トゥテ 2\.6</a>）。</span>', japanese)


@pytest.mark.parametrize(
    "html, expected",
    [
        (
            'です（<a href="/r#s2-6">トゥテ 2.6</a>）。次',
            'です<span class="glued">（<a href="/r#s2-6">トゥテ 2.6</a>）。</span>次',
        ),
        (
            'a loss (<a href="/r#s4-2">100/99/98 4.2</a>). Then',
            'a loss <span class="glued">(<a href="/r#s4-2">100/99/98 4.2</a>).</span> Then',
        ),
        ('<span class="rule"><a href="/r#s2-2">Tute 2.2</a></span>', None),  # a bare link: nothing to keep with it
    ],
)
def test_a_linked_rule_keeps_its_brackets_and_stop_on_its_line(html, expected):
    assert str(markup.glued(html)) == (expected or html)
