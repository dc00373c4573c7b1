"""Two phones at one table (issue 11): the referee shows an "Add a referee" QR code, a
second phone opens its link and enters the layout, and the first phone sees it."""

import re

from playwright.sync_api import expect

from tests.e2e.helpers import PHONE, answered, expect_version, lay_out, start_game

LAYOUT = ["2S", "3H", "5D", "9C"]


def test_a_second_phone_becomes_a_referee_by_the_link_and_enters_a_move(page, browser, polling_url, shot):
    game_id = start_game(page, polling_url)
    answered(page, lambda: page.click("#share summary"), "#share")
    expect(page.locator("#share .qr")).to_have_count(1)  # the watch QR code
    answered(page, lambda: page.click("#share button:has-text('Add a referee')"), "#share")
    link = page.locator("input[aria-label='Referee link']")
    expect(link).to_have_value(re.compile(rf"^{re.escape(polling_url)}/games/{game_id}/join/[\w-]{{20,}}$"))
    expect(page.locator("#share .qr")).to_have_count(2)
    expect(page.locator(".new-link .qr")).to_be_in_viewport()
    shot("share-01-add-referee", full_page=False)
    url = link.input_value()

    other = browser.new_context(viewport=PHONE, device_scale_factor=1, has_touch=True, is_mobile=True)
    try:
        phone = other.new_page()
        phone.goto(url)  # what scanning the QR code opens
        expect(phone.locator("h1")).to_have_text("Referee this game")
        answered(phone, lambda: phone.click("button:has-text('Referee on this phone')"), "body")
        expect(phone).to_have_url(f"{polling_url}/games/{game_id}")
        expect(phone.locator("#picker")).to_be_visible()
        lay_out(phone, LAYOUT)
        expect_version(phone, 1)
    finally:
        other.close()

    # The first phone sees the move (its page polls twice a second), without a reload.
    expect(page.locator("#live .table-cards .chip")).to_have_count(4, timeout=10_000)
    expect_version(page, 1)
    expect(page.locator("#pick-2S")).to_be_disabled()
    shot("share-02-seen-by-the-first-phone", full_page=False)
