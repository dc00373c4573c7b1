"""Issue 18's variants played in the browser: a rule changed under the folded rules, and
another program's rule set chosen among the other rule sets, each then refereed by tapping."""

import re

from playwright.sync_api import expect

from tests.e2e.helpers import (
    answered,
    assert_thumb_zone,
    choose_game,
    expect_version,
    lay_out,
    tap_card,
)


def start_with(page, base_url, game, players, fill_rules) -> None:
    """The new-game form: a game, the rules opened and changed by ``fill_rules``, names, Start."""
    page.goto(base_url + "/games/new")
    if game != "tablanette":
        choose_game(page, game)
    page.click("details.rules-options > summary")
    fill_rules(page)
    for i, name in enumerate(players):
        page.fill(f"#player{i}", name)
    page.click("button[type=submit].primary")
    page.wait_for_url(re.compile(r"/games/[\w-]+$"))
    expect_version(page, 0)


def test_any_one_capture_is_offered_and_taken(page, base_url, shot):
    """Tablić's "a capture is compulsory, any one will do": on TB-10's table the 6♣ may take
    the 6♠ alone, which the default rules refuse; laying it down is not offered."""
    start_with(page, base_url, "tablanette", ["Ann", "Ben"], lambda p: p.select_option("#forced_capture", "any"))
    lay_out(page, ["6S", "2H", "4D", "9C"])
    expect_version(page, 1)
    tap_card(page, "6C")
    options = page.locator("#live .choice .option")
    expect(options).to_have_count(3)  # 6♠; 2♥ 4♦; both
    expect(page.locator("#live .choice")).not_to_contain_text("Lay it down")
    assert_thumb_zone(page)
    shot("variants-01-any-capture")
    alone = page.locator("#live .choice form").filter(has=page.locator("input[value='6S']"))
    alone = alone.filter(has_not=page.locator("input[value='2H']"))
    answered(page, lambda: alone.locator(".option").click())
    expect(page.locator("#live .table-cards .chip")).to_have_text(["2♥", "4♦", "9♣"])
    expect_version(page, 2)


def test_another_programs_99_is_one_tap_under_the_rules(page, base_url, shot):
    """PlayAural's Quentin C 99, among the other rule sets: a jack adds 10 and skips the
    next player, so after Ben's jack Cat misses her turn and Ann plays."""

    def quentin(p):
        answered(p, lambda: p.locator("label.tap:has(input[name=start][value='99quentin'])").click(), "#options")
        expect(p.locator("details.rules-options")).to_have_attribute("open", "")
        expect(p.locator("details.rules-options summary")).to_contain_text("As usual for 99 (Quentin C, PlayAural)")

    start_with(page, base_url, "hundred", ["Ann", "Ben", "Cat"], quentin)
    expect(page.locator(".running .order .next")).to_have_text("Ben")  # Ann dealt: Ben first
    tap_card(page, "JH")  # Ben: +10, and skips Cat
    expect(page.locator(".running .now")).to_have_text("10")
    expect(page.locator(".running .order .next")).to_have_text("Ann")  # Cat skipped
    expect(page.locator("#live .last")).to_contain_text("Cat misses a turn.")
    assert_thumb_zone(page)
    shot("variants-02-quentin-skip")
