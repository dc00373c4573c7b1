"""Correcting a move in place on a phone (issue 46, item 2; RULES.md 5.1), at 375x667 in both
languages: a move ten back corrected from the log, and a correction whose replay stops at a
later move, shown there and then fixed. Each state is axe clean, fits the phone's width, its
controls are a thumb's size, and what the page says after a tap is on the first screen."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.deals import script
from tests.e2e.helpers import api_game, looked_at, se_page

#: The controls each state checks for a thumb's size.
CONTROLS = "main button:visible, main a.button:visible"

PLAYERS, STEPS = script("tablanette")
MOVES = [s.move for s in STEPS[:20]]  # move 10: Ben laid the 5♣ down; the 2♣ is move 16
WORDS = {
    "en": {
        "log": "Log",
        "correct": "Correct move {n}",
        "stopped": "After your correction of move 10, move 16 no longer fits.",
        "one": "Move 10 corrected",
        "two": "Moves 10, 16 corrected",
        "was": "It was: Ben played 5♣",
    },
    "ja": {
        "log": "記録",
        "correct": "{n}手目を訂正",
        "stopped": "10手目を訂正したため、16手目が成り立たなくなりました。",
        "one": "10手目を訂正し",
        "two": "10, 16手目を訂正し",
        "was": "訂正前：Benが5♣",
    },
}


@pytest.fixture(params=["en", "ja"])
def phone(request, browser, base_url):
    """A referee's phone at 375x667 in ``lang``, on a Tablanette game 20 moves in."""
    context, page = se_page(browser, base_url, request.param)
    api_game(page, base_url, "tablanette", PLAYERS, moves=MOVES)
    yield page, WORDS[request.param], request.param
    context.close()


def open_correction(page, words, n: int) -> None:
    page.get_by_role("navigation").get_by_role("link", name=words["log"], exact=True).click()
    page.get_by_role("link", name=words["correct"].format(n=n)).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(words["correct"].format(n=n))


def tap(page, code: str) -> None:
    page.locator(f'#picker button[value="{code}"]').click()


def test_a_move_ten_back_is_corrected_from_the_log(phone, screens):
    page, words, lang = phone
    open_correction(page, words, 10)
    looked_at(page, screens, f"correct-{lang}-1-move-10", "#picker .grid", CONTROLS)
    tap(page, "5D")  # the 5♦, not the 5♣: the ten moves after it still fit
    expect(page.locator("#live .notice")).to_contain_text(words["one"])
    expect(page.locator("#version")).to_have_value("21")
    looked_at(page, screens, f"correct-{lang}-2-saved", "#live .notice", CONTROLS)
    open_correction(page, words, 10)
    expect(page.locator(".entered")).to_contain_text("5♦")


def test_a_correction_whose_replay_stops_is_shown_then_fixed(phone, screens):
    page, words, lang = phone
    open_correction(page, words, 10)
    tap(page, "2C")  # played at move 16: that move no longer fits
    expect(page.get_by_role("heading", level=1)).to_have_text(words["correct"].format(n=16))
    expect(page.get_by_role("alert")).to_contain_text(words["stopped"])
    looked_at(page, screens, f"correct-{lang}-3-stopped", "[role=alert]", CONTROLS)
    tap(page, "5C")  # the two cards were swapped
    expect(page.locator("#live .notice")).to_contain_text(words["two"])
    expect(page.locator("#version")).to_have_value("21")
    page.get_by_role("navigation").get_by_role("link", name=words["log"], exact=True).click()
    expect(page.locator(".log small.corrected")).to_have_count(2)
    expect(page.locator(".log li").nth(9)).to_contain_text(words["was"])
    looked_at(page, screens, f"correct-{lang}-4-log", controls=CONTROLS)
