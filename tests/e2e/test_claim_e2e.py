"""Claiming the rest of a Tute deal on a phone (issue 46, item 4; RULES.md 5.3), at 375x667 in
both languages: "Claim the rest?" beside Undo, who takes them all, and the deal's end that
says so. Each state is axe clean and what it says is on the first screen."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.deals import script
from tests.e2e.helpers import answered, api_game, looked_at, se_page

#: The controls each state checks for a thumb's size.
CONTROLS = "#live button:visible, #undo-box .button:visible"

PLAYERS, STEPS = script("tute")
MOVES = [s.move for s in STEPS[:21]]  # the turned card and five tricks
WORDS = {
    "en": {"claim": "Claim the rest?", "ann": "Ann takes them all", "claimed": "Ann showed every trick left"},
    "ja": {"claim": "残りを宣言？", "ann": "Annが全部取る", "claimed": "Annが残りのトリックをすべて取れることを示し"},
}


@pytest.fixture(params=["en", "ja"])
def phone(request, browser, base_url):
    context, page = se_page(browser, base_url, request.param)
    api_game(page, base_url, "tute", PLAYERS, moves=MOVES)
    yield page, WORDS[request.param], request.param
    context.close()


def test_a_tute_deal_is_finished_by_a_claim(phone, screens):
    page, words, lang = phone
    answered(page, lambda: page.get_by_role("link", name=words["claim"]).click())
    sheet = page.locator("#live .choice")
    expect(sheet.get_by_role("button")).to_have_count(len(PLAYERS) + 1)  # each player, and Cancel
    looked_at(page, screens, f"claim-{lang}-1-who", "#live .choice", CONTROLS)
    answered(page, lambda: sheet.get_by_role("button", name=words["ann"]).click())
    expect(page.locator("#version")).to_have_value(str(len(MOVES) + 1))
    expect(page.locator("#live .deal-end")).to_contain_text(words["claimed"])
    looked_at(page, screens, f"claim-{lang}-2-deal-end", "#live .deal-end h2", CONTROLS)
