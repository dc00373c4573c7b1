"""Tally a Tablanette deal on a phone in under 30 taps (counted), in Debian's Chromium."""

import re

from playwright.sync_api import expect

from companion.cards import Card
from tests.e2e.helpers import answered, api_game, engine_view, handled, start_game

BEN = ["AS", "AH", "KS", "KH", "KD", "QC", "JS", "JH", "10S", "2C"]  # Ben's counting cards


def test_tally_a_tablanette_deal_in_under_30_taps(page, base_url, shot):
    game_id = start_game(page, base_url)
    taps = 0

    def tap(selector, region="#tally"):
        nonlocal taps
        taps += 1
        answered(page, lambda: page.click(selector), region)

    def type_in(name, digits, enter=False):
        """Tap the field and type (a tap per key); the form answers when the field is left,
        or at Enter (which must only refresh the totals, never press another button)."""
        nonlocal taps
        page.click(f"input[name='{name}']")
        page.keyboard.type(digits)
        taps += 1 + len(digits) + enter
        leave = (lambda: page.keyboard.press("Enter")) if enter else page.locator(f"input[name='{name}']").blur
        answered(page, leave, "#tally")

    tap("text=Tally this deal instead", "body")
    expect(page.locator("#tally")).to_be_visible()
    shot("tally-01-empty")
    type_in("cards_0", "27", enter=True)
    expect(page.locator(f"#tally button[aria-label^='{Card.parse('AS').name}:']")).to_contain_text("Ann")
    for code in BEN:
        tap(f"#tally button[aria-label^='{Card.parse(code).name}:']")
    type_in("bonus_0", "26")
    tap("button[name=add_sweep][value='0']")
    summary = page.locator("#tally .deal-end")  # the deal as it will end: what the game page will show
    expect(summary).to_be_visible()
    shot("tally-02-filled")
    # Ann: 27 cards (+3), A A K Q Q Q J J 10D(2) 10 10 = 12 card points, sweep 26 -> 41; Ben 10.
    expect(summary).to_contain_text("41")
    expect(summary).to_contain_text("10")
    tap("#tally button[value=record]", "body")
    expect(page).to_have_url(f"{base_url}/games/{game_id}")
    assert taps < 30, taps
    view = engine_view(page, base_url, game_id)
    assert view["scores"] == {"Ann": 41, "Ben": 10} and view["history"][0]["tallied"]
    shot("tally-03-recorded")


def test_a_number_typed_while_the_last_one_is_answered_is_kept(page, base_url):
    """The tally screen answers each box left with the whole form again. On a slow network
    the next box is being typed in when that answer lands: what was typed stays (the answer,
    made before it, had the box empty), and is sent when that box is left in turn."""
    game_id = api_game(page, base_url, "tute", ["Ann", "Ben", "Cat", "Dan"])
    page.goto(f"{base_url}/games/{game_id}/tally")
    held = []
    page.route("**/tally", lambda route: held.append(route) if route.request.method == "POST" else route.continue_())
    page.fill("#points_0", "30")
    page.click("#points_1")  # the change of the first box is posted, and its answer held
    page.keyboard.type("25")
    page.wait_for_function("() => document.querySelector('#tally').classList.contains('htmx-request')")
    handled(page, lambda: held)
    assert len(held) == 1
    held[0].continue_()
    page.unroute("**/tally")
    expect(page.locator("#tally")).not_to_have_class(re.compile("htmx-request"))
    expect(page.locator("#points_0")).to_have_value("30")
    expect(page.locator("#points_1")).to_have_value("25")
    page.fill("#points_2", "40")
    answered(page, lambda: page.press("#points_2", "Enter"), "#tally")
    expect(page.locator(".totals .rest strong")).to_have_text("25")  # 120 - 30 - 25 - 40: all three were sent
