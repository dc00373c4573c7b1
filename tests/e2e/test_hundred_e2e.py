"""Referee a hand of 100 on a phone-sized screen, by tapping: a reversal, a black ace
with its number pad, a bust confirm, and a checked "can't go" (RULES.md §4)."""

import re

from tests.e2e.test_tablanette_e2e import assert_fits_a_phone, engine_view, settle, version


def tap(page, code):
    before = version(page)
    page.click(f"#pick-{code}")
    settle(page, before)


def test_referee_a_hand_of_100(page, base_url, shot):
    page.goto(base_url + "/games/new")
    page.select_option("#game", "hundred")
    page.wait_for_selector("#variant")
    for i, name in enumerate(["Ann", "Ben", "Cat"]):
        page.fill(f"#player{i}", name)
    page.select_option("#dealer", "2")  # Cat deals, Ann plays first
    page.click("button[type=submit].primary")
    page.wait_for_url(re.compile(r"/games/[\w-]+$"))
    game_id = page.url.rsplit("/", 1)[1]
    assert_fits_a_phone(page)
    shot("hundred-01-start")

    tap(page, "8H")                      # Ann: 8
    tap(page, "4C")                      # Ben: reverse, Ann next
    assert page.inner_text(".running .now") == "8" and "↺" in page.inner_text(".running .order")
    assert page.inner_text(".running .order .next") == "Ann"
    shot("hundred-02-reversed")

    page.click("#pick-AS")               # Ann: black ace, any total 0-100
    page.wait_for_selector("#announced")
    shot("hundred-03-black-ace")
    page.fill("#announced", "90")
    page.click(".pad button[type=submit]")
    page.wait_for_function("() => document.querySelector('.running .now').textContent === '90'")
    assert page.locator("#live .choice").count() == 0

    page.click("#pick-9S")               # Cat (anticlockwise after Ann): 99, safe
    page.wait_for_function("() => document.querySelector('.running .now').textContent === '99'")
    page.click("#pick-5S")               # Ben: 104 - asks first
    page.wait_for_selector("[role=alertdialog]")
    shot("hundred-04-bust-confirm")
    page.click("text=Cancel: a different card")
    page.wait_for_selector("[role=alertdialog]", state="detached")

    page.click("summary:has-text(\"Can't go\")")   # Ben shows 5S 6H 7D: all over 100
    for code in ("5S", "6H", "7D"):
        page.click(f".reveal-form label:has(input[value='{code}'])")
    shot("hundred-05-reveal")
    before = version(page)
    page.click(".reveal-form button[type=submit]")
    settle(page, before)
    assert page.locator("#live .error").count() == 0
    shot("hundred-06-lost")
    view = engine_view(page, base_url, game_id)
    assert view["tokens"] == {"Ann": 3, "Ben": 2, "Cat": 3} and view["history"][0]["verified"]
    assert "Ben loses the hand" in page.inner_text("#live")


def test_every_game_page_passes_an_accessibility_scan(page, base_url):
    """axe on the new-game form and the first screen of Tute, Tantony and 100, and on
    pages with their choice panels open (a cante, a gift, a black ace)."""
    from axe_playwright_python.sync_playwright import Axe

    axe = Axe()
    for game, names, first, panel in (
        ("tute", ["Ann", "Ben", "Cat", "Dan"], ["5D", "7S", "AS", "KS", "4S"], "#live .choice"),
        ("tantony", ["Nan", "Eve", "Sam", "Wes"], ["9D", "3D", "7D", "10D"], "#live .choice"),
        ("hundred", ["Ann", "Ben", "Cat"], ["AS"], "#live .choice"),
    ):
        page.goto(base_url + "/games/new")
        page.select_option("#game", game)
        page.wait_for_selector(f"#player{len(names) - 1}")
        for i, name in enumerate(names):
            page.fill(f"#player{i}", name)
        results = axe.run(page)
        assert results.violations_count == 0, results.generate_report()
        page.click("button[type=submit].primary")
        page.wait_for_url(re.compile(r"/games/[\w-]+$"))
        results = axe.run(page)
        assert results.violations_count == 0, (game, results.generate_report())
        for code in first:
            before = version(page)
            page.click(f"#pick-{code}")
            settle(page, before)
        page.wait_for_selector(panel)
        results = axe.run(page)
        assert results.violations_count == 0, (game, results.generate_report())
