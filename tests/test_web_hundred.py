"""The adding games' page through the view layer: totals, choices, the bust confirm,
a checked "can't go", tokens (RULES.md §4)."""

import re

from tests.conftest import post_move as post

PLAYERS = ("Ann", "Ben", "Cat")


def new_hundred(client, players=PLAYERS, **options):
    form = {
        "game": "hundred",
        "dealer": str(len(players) - 1),
        "variant": "100",
        "ace_high_99": "10",
        "itoya_black_ace": "raise_only",
        "late_draw": "next_turn",
        "reverse_with_two_players": "no_effect",
        "match_format": "tokens",
        "tokens": "3",
        "hands": "10",
        "next_dealer": "next",
        "floor_at_zero": "y",
    }
    form |= {f"player{i}": name for i, name in enumerate(players)} | options
    response = client.post("/games/new", data=form)
    assert response.status_code == 303, response.get_data(as_text=True)
    return re.search(r"/games/([\w-]+)", response.headers["Location"]).group(1)


def api_view(client, game_id):
    return client.get(f"/api/games/{game_id}").get_json()["view"]


def test_ad01_through_the_page(client):
    """RULES.md §4.6 AD-01..AD-01d: totals and the reversed order on the page."""
    game_id = new_hundred(client)
    for card, total in (("8H", 8), ("10D", 100), ("4C", 100), ("5H", 95)):
        body = post(client, game_id, type="play", card=card).get_data(as_text=True)
        assert f'<span class="now">{total}</span>' in body
    assert "↺" in body and api_view(client, game_id)["to_act"] == "Ann"


def test_black_ace_opens_a_number_pad_and_a_wrong_total_is_refused(client):
    """RULES.md §4.3 (100: a black ace sets any value 0-100) and §4.8 wrong announcements."""
    game_id = new_hundred(client)
    body = post(client, game_id, type="play", card="AS").get_data(as_text=True)
    assert 'type="number"' in body and 'min="0" max="100"' in body
    assert post(client, game_id, type="play", card="AS", total="42").status_code == 200
    refused = post(client, game_id, type="play", card="7H", total="50")
    assert refused.status_code == 422 and "makes 49, not 50" in refused.get_data(as_text=True)
    assert api_view(client, game_id)["total"] == 42


def test_a_refused_number_keeps_the_pad_open_with_the_value_to_correct(client):
    """Issue 12: the pad's answer refused (RULES.md §4.3: 0-100 only) asks again, in place."""
    game_id = new_hundred(client)
    refused = post(client, game_id, type="play", card="AS", total="150", resume="total")
    page = refused.get_data(as_text=True)
    assert refused.status_code == 422
    sheet = page[page.index('class="choice sheet"') :]
    assert re.search(r'<input id="announced"[^>]*value="150"', sheet) and 'aria-invalid="true"' in sheet
    assert sheet.index('role="alert"') < sheet.index("</form>")  # the refusal sits in the pad's sheet
    assert page.count('role="alert"') == 1
    assert api_view(client, game_id)["total"] == 0
    assert post(client, game_id, type="play", card="AS", total="100", resume="total").status_code == 200
    assert api_view(client, game_id)["total"] == 100


def test_a_bust_is_confirmed_before_it_is_recorded(client):
    """RULES.md §4.2: over the target loses the hand; the app asks first."""
    game_id = new_hundred(client)
    post(client, game_id, type="play", card="10D")  # Ann: 100
    asked = post(client, game_id, type="play", card="9S").get_data(as_text=True)
    assert "over 100: Ben loses the hand" in asked
    assert api_view(client, game_id)["total"] == 100  # nothing recorded yet
    done = client.post(
        f"/games/{game_id}/moves",
        headers={"HX-Request": "true"},
        data={"version": 1, "type": "play", "card": "9S", "confirm": "1"},
    ).get_data(as_text=True)
    assert "Ben loses the hand" in done and api_view(client, game_id)["tokens"]["Ben"] == 2


def test_cant_go_is_checked_against_the_hand_shown(client):
    """RULES.md §4.8: a loss claim with a safe card is refused, naming it; a true one counts."""
    game_id = new_hundred(client)
    post(client, game_id, type="play", card="10D")  # 100
    refused = client.post(
        f"/games/{game_id}/moves",
        headers={"HX-Request": "true"},
        data={"version": 1, "type": "lose", "hand[]": ["6S", "KH", "9C"]},
    )
    assert refused.status_code == 422 and "K♥ on 100 makes 100" in refused.get_data(as_text=True)
    assert '<a href="/rules/hundred/words#s4-2">100/99/98 4.2</a>' in refused.get_data(as_text=True)
    ok = client.post(
        f"/games/{game_id}/moves",
        headers={"HX-Request": "true"},
        data={"version": 1, "type": "lose", "hand[]": ["6S", "8H", "9C"]},
    )
    assert ok.status_code == 200 and api_view(client, game_id)["history"][0]["verified"] is True


def test_the_lab_says_why_a_hand_shown_is_not_a_loss(client):
    """RULES.md 4.2 / AD-15: on 97 in 98 a jack is safe; the lab names it and links the rule."""
    page = client.get("/rules/hundred?variant=98&total=97&hand=2H,3H,5H,JH").get_data(as_text=True)
    assert 'data-lose="can go"' in page
    assert (
        '<strong>Not a loss:</strong> J♥ on 97 makes 97 (not over 98). Not a loss <span class="glued">'
        '(<a href="/rules/hundred/words#s4-2">100/99/98 4.2</a>).</span>' in page
    )


def test_the_list_of_games_and_the_tally_count_hands_not_deals(client):
    """100/99/98 plays hands (第2回, glossary) and counts the hands each player lost: the list
    of games, the delete page and the tally screen say so in either language, not Tute's
    deals and loss marks."""
    game_id = new_hundred(client)
    assert post(client, game_id, type="tally", loser="Ann").status_code == 200
    said = {
        "en": ("Hand 2 · hands lost Ann 1, Ben 0, Cat 0", "Tally hand 2", "Tally this hand instead"),
        "ja": ("第2回 · 負けた回数 Ann 1、Ben 0、Cat 0", "第2回を集計", "代わりにこの回を集計する"),
    }
    for lang, (status, heading, link) in said.items():
        asked = {"headers": {"Accept-Language": lang}}
        assert status in client.get("/", **asked).get_data(as_text=True)
        assert status in client.get(f"/games/{game_id}/delete", **asked).get_data(as_text=True)
        screen = client.get(f"/games/{game_id}/tally", **asked).get_data(as_text=True)
        assert f"<h1>{heading}</h1>" in screen
        # RULES.md 4.4: the tap on who lost records the hand; no Record button waits under it
        assert 'name="loser" value="Ann"' in screen and 'name="record"' not in screen
        assert link in client.get(f"/games/{game_id}", **asked).get_data(as_text=True)
