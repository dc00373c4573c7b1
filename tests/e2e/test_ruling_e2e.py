"""The table's ruling on a phone (issue 46, item 3; RULES.md 5.2), at 375x667 in both
languages: a Tablanette capture the rules refuse (Tablić rules, whose many captures are
answered by tapping the table cards taken), played on as the table rules, with one more tap
and a confirm. Each state is axe clean and what it says is on the first screen."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import answered, api_game, looked_at, se_page

#: The controls each state checks for a thumb's size.
CONTROLS = "#live button:visible"

# Tablić: the table holds A♠ 2♥ 3♦ 4♣ 5♠ 6♥, and Ben's 7♣ has nine captures to choose from.
MOVES = [
    {"type": "layout", "cards": ["AS", "2H", "3D", "4C"]},
    {"type": "play", "card": "5S", "capture": []},
    {"type": "play", "card": "6H", "capture": []},
]
WORDS = {
    "en": {
        "offer": "Play on anyway",
        "yes": "Yes: ruled by the table",
        "ruled": "Ruled by the table",
    },
    "ja": {"offer": "このまま続行", "yes": "はい：卓の裁定として記録", "ruled": "卓の裁定"},
}


@pytest.fixture(params=["en", "ja"])
def phone(request, browser, base_url):
    context, page = se_page(browser, base_url, request.param)
    api_game(page, base_url, "tablanette", ["Ann", "Ben"], {"preset": "tablic"}, MOVES)
    yield page, WORDS[request.param], request.param
    context.close()


def test_a_refused_capture_is_ruled_by_the_table(phone, screens):
    page, words, lang = phone
    answered(page, lambda: page.locator('#picker button[value="7C"]').click())
    sheet = page.locator("#live .choice")
    for code in ("AS", "2H"):  # 1 + 2 is no 7: the rules refuse it
        sheet.locator(f".take-form label:has(input[value='{code}'])").click()
    answered(page, lambda: sheet.locator(".take-form button[type=submit]").click())
    offer = page.get_by_role("button", name=words["offer"])
    expect(offer).to_be_visible()
    expect(page.locator("#version")).to_have_value("3")
    looked_at(page, screens, f"ruling-{lang}-1-refused", "#live [role=alert]", CONTROLS)
    answered(page, lambda: offer.click())
    expect(page.get_by_role("alertdialog")).to_contain_text("P1")
    expect(page.locator("#version")).to_have_value("3")
    looked_at(page, screens, f"ruling-{lang}-2-confirm", "#live [role=alertdialog]", CONTROLS)
    answered(page, lambda: page.get_by_role("button", name=words["yes"]).click())
    expect(page.locator("#version")).to_have_value("4")
    expect(page.locator("#live .ruled")).to_contain_text(words["ruled"])
    expect(page.locator("#live .ruled")).to_contain_text("7♣")
    looked_at(page, screens, f"ruling-{lang}-3-ruled", "#live .ruled", CONTROLS)
