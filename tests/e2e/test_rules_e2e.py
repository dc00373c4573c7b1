"""Settle a rules argument on a phone in a few taps (the dispute lab), counted."""

import re

from playwright.sync_api import expect

from companion.cards import Card
from tests.e2e.helpers import answered, api_game, axe

LAYOUT = ["2S", "3H", "5D", "9C"]


def test_settle_tb08_from_the_home_page_in_under_10_taps(page, base_url, shot):
    """RULES.md 1.8 TB-08: KH on 2S 3H 5D 9C takes 2+3+9 or 5+9, never both (the 9 can't count twice)."""
    taps = 0

    def tap(selector, region="#lab"):
        """Every tap is a link: a page, or in the lab a boosted link that swaps ``#lab``."""
        nonlocal taps
        taps += 1
        answered(page, lambda: page.click(selector), region)

    page.goto(base_url + "/")
    tap("text=Settle a rule", "body")
    tap("text=Tablanette", "body")
    for code in ("2S", "3H", "5D", "9C"):
        tap(f"[aria-label='Table cards'] a[aria-label='{Card.parse(code).name}']")
    tap("#lab .into a:has-text('Card played')")
    tap(f"[aria-label='Card played'] a[aria-label='{Card.parse('KH').name}']")
    expect(page.locator(".answer")).to_contain_text("2 legal captures")
    shot("rules-01-tb08")
    captures = page.locator(".captures li").all_inner_texts()
    assert any("2♠" in c and "3♥" in c and "9♣" in c and "5♦" not in c for c in captures)
    assert any("5♦" in c and "9♣" in c and "2♠" not in c for c in captures)
    assert "table=2S%2C3H%2C5D%2C9C" in page.url or "table=2S,3H,5D,9C" in page.url
    assert taps < 10, taps

    # Someone claims all four: the referee says why not, citing the rule.
    for code in ("2S", "3H", "5D", "9C"):
        answered(page, lambda: page.click(f".answer a.chip-link[aria-label='{Card.parse(code).name}']"), "#lab")
    expect(page.locator(".verdict")).to_contain_text("Not legal")
    expect(page.locator(".verdict")).to_contain_text("Tablanette P")
    shot("rules-02-claim")
    shot("rules-02b-claim-top", full_page=False)
    results = axe(page)
    assert results.violations_count == 0, results.generate_report()


def test_the_lab_opened_from_a_game_leads_back_to_it(page, base_url):
    """A dispute settled mid-game: the lab opens on the game's table, its taps replace the
    address instead of adding steps (Back walked through every position tapped, and never
    reached the game), and its header leads back to the game."""
    game_id = api_game(page, base_url, "tablanette", ["Ann", "Ben"], moves=[{"type": "layout", "cards": LAYOUT}])
    game = page.url
    answered(page, lambda: page.click("text=Rules question?"), "body")
    answered(page, lambda: page.click("#lab .into a:has-text('Card played')"), "#lab")
    for code in ("KH", "QS"):
        card = f"[aria-label='Card played'] a[aria-label='{Card.parse(code).name}']"
        answered(page, lambda: page.click(card), "#lab")
    expect(page).to_have_url(re.compile(r"card=QS"))
    page.go_back()
    expect(page).to_have_url(game)
    page.go_forward()
    answered(page, lambda: page.click("header >> text=Back to the game"), "body")
    expect(page).to_have_url(f"{base_url}/games/{game_id}")
