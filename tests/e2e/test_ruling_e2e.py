"""The table's ruling on a phone (issue 46, item 3; RULES.md 5.2), at 375x667 in both
languages: a Tablanette capture the rules refuse (Tablić rules, whose many captures are
answered by tapping the table cards taken), played on as the table rules, with one more tap
and a confirm. Each state is axe clean and what it says is on the first screen."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import answered, api_game, axe

SE = {"width": 375, "height": 667}
# Tablić: the table holds A♠ 2♥ 3♦ 4♣ 5♠ 6♥, and Ben's 7♣ has nine captures to choose from.
MOVES = [
    {"type": "layout", "cards": ["AS", "2H", "3D", "4C"]},
    {"type": "play", "card": "5S", "capture": []},
    {"type": "play", "card": "6H", "capture": []},
]
WORDS = {
    "en": {
        "offer": "The table rules otherwise: play on",
        "yes": "Yes: ruled by the table",
        "ruled": "Ruled by the table",
    },
    "ja": {"offer": "卓の判断で続行する", "yes": "はい：卓の裁定として記録", "ruled": "卓の裁定"},
}


@pytest.fixture(params=["en", "ja"])
def phone(request, browser, base_url):
    context = browser.new_context(viewport=SE, device_scale_factor=1, has_touch=True, is_mobile=True)
    context.add_cookies([{"name": "lang", "value": request.param, "url": base_url}])
    page = context.new_page()
    api_game(page, base_url, "tablanette", ["Ann", "Ben"], {"preset": "tablic"}, MOVES)
    yield page, WORDS[request.param], request.param
    context.close()


def looked_at(page, screens: Path, name: str, said: str) -> None:
    expect(page.locator(said).first).to_be_in_viewport(ratio=1)
    assert page.evaluate("document.documentElement.scrollWidth") <= SE["width"], name
    for control in page.locator("#live button:visible").all():
        box = control.bounding_box()
        assert box["height"] >= 44 and box["width"] >= 44, (name, box)
    results = axe(page)
    assert results.violations_count == 0, (name, results.generate_report())
    page.screenshot(path=str(screens / f"{name}.png"))


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
    looked_at(page, screens, f"ruling-{lang}-1-refused", "#live [role=alert]")
    answered(page, lambda: offer.click())
    expect(page.get_by_role("alertdialog")).to_contain_text("P1")
    expect(page.locator("#version")).to_have_value("3")
    looked_at(page, screens, f"ruling-{lang}-2-confirm", "#live [role=alertdialog]")
    answered(page, lambda: page.get_by_role("button", name=words["yes"]).click())
    expect(page.locator("#version")).to_have_value("4")
    expect(page.locator("#live .ruled")).to_contain_text(words["ruled"])
    expect(page.locator("#live .ruled")).to_contain_text("7♣")
    looked_at(page, screens, f"ruling-{lang}-3-ruled", "#live .ruled")
