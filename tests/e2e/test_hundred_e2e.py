"""Referee a hand of 100 on a phone-sized screen, by tapping: a reversal, a black ace
with its number pad, a bust confirm, and a checked "can't go" (RULES.md §4)."""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.deals import perform, script
from tests.e2e.helpers import (
    PHONE,
    PHONES,
    answered,
    api_game,
    assert_answered_in_view,
    assert_fits_a_phone,
    assert_thumb_zone,
    axe,
    engine_view,
    expect_version,
    phone,
    speak,
    start_game,
    tap_card,
)


def test_referee_a_hand_of_100(page, base_url, shot):
    game_id = start_game(page, base_url, "hundred", ["Ann", "Ben", "Cat"], dealer=2)  # Cat deals, Ann first
    assert_fits_a_phone(page)
    shot("hundred-01-start")

    tap_card(page, "8H")  # Ann: 8
    tap_card(page, "4C")  # Ben: reverse, Ann next
    expect(page.locator(".running .now")).to_have_text("8")
    expect(page.locator(".running .order")).to_contain_text("↺")
    expect(page.locator(".running .order .next")).to_have_text("Ann")
    assert_thumb_zone(page)
    shot("hundred-02-reversed")

    tap_card(page, "AS")  # Ann: black ace, any total 0-100
    expect(page.locator("#announced")).to_be_visible()
    expect(page.locator("#announced")).to_have_value("")  # nothing announced until typed
    assert_thumb_zone(page)
    shot("hundred-03-black-ace")
    page.fill("#announced", "90")
    answered(page, lambda: page.click(".pad button[type=submit]"))
    expect(page.locator(".running .now")).to_have_text("90")
    expect(page.locator("#live .choice")).to_have_count(0)
    assert_thumb_zone(page)

    tap_card(page, "9S")  # Cat (anticlockwise after Ann): 99, safe
    expect(page.locator(".running .now")).to_have_text("99")
    assert_thumb_zone(page)
    tap_card(page, "5S")  # Ben: 104 - asks first
    expect(page.locator("[role=alertdialog]")).to_be_visible()
    assert_thumb_zone(page)
    shot("hundred-04-bust-confirm")
    answered(page, lambda: page.click("text=Cancel: a different card"))
    expect(page.locator("[role=alertdialog]")).to_have_count(0)
    expect_version(page, 4)
    assert_thumb_zone(page)

    # Ben can't go: the one grid turns to the hand he shows (never a second grid).
    answered(page, lambda: page.click('a:has-text("Can\'t go")'))
    expect(page.locator(".grid")).to_have_count(1)
    expect(page.locator(".play-form")).to_have_count(0)
    for code in ("8H", "4C", "AS", "9S"):  # played this hand: struck through, not in the hand shown
        expect(page.locator(f".reveal-form label.played:has(input[value='{code}'])")).to_have_count(1)
        expect(page.locator(f".reveal-form input[value='{code}']")).to_be_disabled()
    assert_thumb_zone(page, "can't go")
    page.click(".reveal-form label:has(input[value='KH'])")  # a safe card shown: refused, naming it
    answered(page, lambda: page.click(".reveal-form button[type=submit]"))
    expect(page.locator("#live .error")).to_contain_text("K♥")
    expect(page.locator(".reveal-form input:checked")).to_have_count(1)  # what was ticked stays
    assert_thumb_zone(page, "a refused can't go")
    page.click(".reveal-form label:has(input[value='KH'])")
    for code in ("5S", "6H", "7D"):  # Ben shows 5S 6H 7D: all over 100
        page.click(f".reveal-form label:has(input[value='{code}'])")
    expect(page.locator(".reveal-form input:checked")).to_have_count(3)
    shot("hundred-05-reveal")
    answered(page, lambda: page.click(".reveal-form button[type=submit]"))
    expect(page.locator("#live .error")).to_have_count(0)
    expect_version(page, 5)
    shot("hundred-06-lost")
    view = engine_view(page, base_url, game_id)
    assert view["tokens"] == {"Ann": 3, "Ben": 2, "Cat": 3} and view["history"][0]["verified"]
    expect(page.locator("#live")).to_contain_text("Ben loses the hand")
    expect(page.locator(".play-form .pick")).to_have_count(52)  # the grid is back for the next hand
    assert_thumb_zone(page, "after can't go")


def test_referee_a_hand_of_99_without_one_scroll(page, base_url, shot):
    """RULES.md §4.3 (99): a king sets 99, a 9 passes, a 4 reverses, a 10 is +10 or -10;
    every answer in view after every tap, to the loss."""
    start_game(page, base_url, "hundred", ["Ann", "Ben", "Cat"], dealer=2, start="99")  # Ann plays first
    for code, total in (("KS", "99"), ("9H", "99"), ("4C", "99"), ("10D", None), ("8C", "97"), ("2H", "99")):
        tap_card(page, code)
        if total is None:  # a 10 is +10 or -10: which did Ben announce?
            assert_thumb_zone(page, "the 10's choice")
            answered(page, lambda: page.locator("#live .choice .option", has_text="89").click())
            total = "89"
        expect(page.locator(".running .now")).to_have_text(total)
        assert_thumb_zone(page, f"after {code}")
    tap_card(page, "5S")  # Ben: 104
    expect(page.locator("[role=alertdialog]")).to_contain_text("Ben loses the hand")
    assert_thumb_zone(page, "the bust's confirm")
    answered(page, lambda: page.locator("[role=alertdialog] button.danger").click())
    expect(page.locator("#live .last")).to_contain_text("Ben played 5♠: 99 → 104.")
    expect(page.locator("#live .deal-end")).to_contain_text("Ben loses the hand")
    assert_thumb_zone(page, "the loss")
    shot("hundred-07-99-lost", full_page=False)


def test_a_whole_hand_on_every_phone(page, base_url, shot):
    """A hand of 100 dealt from a seeded shuffle and played from real hands to the one who
    can't go, each tap on another of the phones a table holds (issue 31), in Japanese for the
    middle of it: every answer in view, the grid and Undo on the first screen from 375x667
    up; then the hand's end: who lost it and why, everyone's tokens, with their rules."""
    players, steps = script("hundred", 56)  # 16 steps, two totals asked (the pad), to "can't go"
    game_id = api_game(page, base_url, "hundred", players)
    third = len(steps) // 3
    for n, step in enumerate(steps):
        if n in (third, 2 * third):
            speak(page, "ja" if n == third else "en")
        phone(page, n, block=4)
        perform(page, step)
        assert_answered_in_view(page, f"step {n}: {step.move}")
    page.set_viewport_size(PHONE)
    shot("hundred-08-hand-end", full_page=False)
    view = engine_view(page, base_url, game_id)
    lost = view["history"][-1]
    end = page.locator("#live .deal-end")
    expect(end).to_be_in_viewport()
    expect(end.locator("h2")).to_have_text(f"Hand 1: {lost['loser']} loses the hand")
    expect(end).to_contain_text("The hand shown was checked.")
    expect(end.locator("tbody td")).to_have_text([str(view["tokens"][p]) for p in players])
    assert end.locator("a").evaluate_all("links => links.map(a => a.hash)") == ["#s4-2", "#s4-4"]


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("size", [PHONES[1], PHONES[2]], ids=["375x667", "320x568"])
def test_the_black_aces_pad_says_why_a_total_is_refused(page, base_url, shot, size, lang):
    """Issue 44: 150 typed on the black ace's pad (100: any total from 0 to 100) is refused
    in the page, not only in the browser's own bubble: the rules' reason under the sheet's
    title, in view, announced (an alert the box names as its description); axe finds nothing."""
    page.set_viewport_size(size)
    api_game(page, base_url, "hundred", ["Ann", "Ben"], {"tokens": 1}, [{"type": "play", "card": "8H"}])
    speak(page, lang)
    tap_card(page, "AS")
    box = page.locator("#announced")
    box.fill("150")
    answered(page, lambda: page.locator(".pad button[type=submit]").click())
    why = page.locator("#live .choice [role=alert]")
    expect(why).to_have_text(
        {"en": "A♠ on 8 can make any total from 0 to 100, not 150.", "ja": re.compile(r"(?=.*A♠)(?=.*100)(?=.*150)")}[
            lang
        ]
    )
    expect(why).to_be_in_viewport(ratio=1)
    expect(box).to_have_value("150")  # what was typed stays, to correct
    expect(box).to_have_attribute("aria-invalid", "true")
    described = box.get_attribute("aria-describedby")
    assert described and why.get_attribute("id") in described.split()
    assert_answered_in_view(page, "a refused total")
    shot(f"hundred-pad-refused-{lang}-{size['width']}", full_page=False)
    results = axe(page)
    assert results.violations_count == 0, results.generate_report()
    box.fill("100")  # a total the ace can make: announced
    answered(page, lambda: page.locator(".pad button[type=submit]").click())
    expect(page.locator(".running .now")).to_have_text("100")
