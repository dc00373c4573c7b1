"""Tally a Tablanette deal on a phone in under 30 taps (counted), in Debian's Chromium."""

import re

from companion.cards import Card
from tests.e2e.test_tablanette_e2e import engine_view

BEN = ["AS", "AH", "KS", "KH", "KD", "QC", "JS", "JH", "10S", "2C"]  # Ben's counting cards


def test_tally_a_tablanette_deal_in_under_30_taps(page, base_url, shot):
    page.goto(base_url + "/games/new")
    page.fill("#player0", "Ann")
    page.fill("#player1", "Ben")
    page.click("button[type=submit].primary")
    page.wait_for_url(re.compile(r"/games/[\w-]+$"))
    game_id = page.url.rsplit("/", 1)[1]
    taps = 0

    def tap(selector):
        nonlocal taps
        taps += 1
        page.click(selector)

    def settle():
        page.wait_for_load_state("networkidle")

    tap("text=Tally this deal instead")
    page.wait_for_selector("#tally")
    shot("tally-01-empty")
    tap("input[name='cards.0']")
    page.keyboard.type("27")  # two key taps
    taps += 2
    for code in BEN:
        tap(f"#tally button[aria-label^='{Card.parse(code).name}:']")
        settle()
    tap("input[name='add.0']")
    page.keyboard.type("26")
    taps += 2
    tap("button[value='addsweep:0']")
    settle()
    page.wait_for_selector("#tally .summary")
    shot("tally-02-filled")
    summary = page.inner_text("#tally .summary")
    # Ann: 27 cards (+3), A A K Q Q Q J J 10D(2) 10 10 = 12 card points, sweep 26 -> 41; Ben 10.
    assert "41" in summary and "10" in summary
    tap("#tally button[value=record]")
    page.wait_for_url(re.compile(rf"/games/{game_id}$"))
    assert taps < 30, taps
    view = engine_view(page, base_url, game_id)
    assert view["scores"] == {"Ann": 41, "Ben": 10} and view["history"][0]["tallied"]
    shot("tally-03-recorded")
