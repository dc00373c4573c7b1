"""Undo on the first screen in every state (issue 44): from 375x667 up, the whole grid and
Undo end within the screen's height without scrolling, also where the board says the most
above them: a Tablanette refusal, each trick of Tantony's deal 2 (its gift asked), 100's
"can't go" (the hand shown). On 320x568, where the grid alone is taller than the screen,
every answer is still in view. Each on both short phones, in English and in Japanese."""

import pytest
from playwright.sync_api import expect

from companion.games import tantony as TT
from tests.e2e.deals import script
from tests.e2e.helpers import (
    FIRST_SCREEN,
    SHORT_PHONES,
    answered,
    api_game,
    assert_answered_in_view,
    speak,
    tap_card,
    where,
)


def assert_undo_on_the_first_screen(page, what: str) -> None:
    """Every answer in view; from 375x667 up, the grid and Undo end within the first screen
    (page coordinates: as if not scrolled), and Undo is there to tap."""
    assert_answered_in_view(page, what)
    seen = where(page)
    assert seen["undo"] is not None, (what, seen)
    if seen["height"] >= FIRST_SCREEN:
        assert seen["undo"] <= seen["height"], (what, page.viewport_size, seen)


def on_phone(page, size, lang) -> None:
    page.set_viewport_size(size)
    speak(page, lang)


@pytest.mark.parametrize("size, lang", SHORT_PHONES)
def test_undo_on_the_first_screen_after_a_tablanette_refusal(page, base_url, size, lang):
    api_game(
        page, base_url, "tablanette", ["Ann", "Ben"], moves=[{"type": "layout", "cards": ["6S", "2H", "4D", "9C"]}]
    )
    on_phone(page, size, lang)
    # A capture that misses a group (TB-10), posted as a second phone or a stale page could.
    page.evaluate("""() => { const f = document.querySelector('.play-form');
        const i = document.createElement('input'); i.type = 'hidden'; i.name = 'capture[]'; i.value = '6S';
        f.appendChild(i); }""")
    tap_card(page, "6C")
    expect(page.locator("#live .error")).to_contain_text("2♥")
    assert_undo_on_the_first_screen(page, "a capture refused")
    answered(page, lambda: page.click("#pick-2H", force=True))  # on the table: the rules say where it is
    expect(page.locator("#live .error")).to_contain_text("2♥")
    assert_undo_on_the_first_screen(page, "a card on the table tapped")


#: A Tantony deal 2 takes 8 s a phone: `make test` plays it on the narrowest in Japanese (the
#: tightest fit), `make bench` on the others too (marked full).
TANTONY_PHONES = [
    p if p.id == "320x568-ja" else pytest.param(*p.values, id=p.id, marks=pytest.mark.full) for p in SHORT_PHONES
]


@pytest.mark.parametrize("size, lang", TANTONY_PHONES)
def test_undo_on_the_first_screen_after_each_trick_of_tantonys_deal_2(page, base_url, size, lang):
    players, steps = script("tantony")
    moves = [s.move for s in steps]
    state = TT.start(players, {"dealer": "Wes"})
    for move in moves:
        state = TT.apply(state, move)
    api_game(page, base_url, "tantony", players, {"dealer": "Wes"}, moves)
    on_phone(page, size, lang)
    gifts = 0
    while state.deal == 2:  # after every tap, each trick won (its gift asked above the grid, or given) among them
        v = TT.view(state)
        if "give" in v["expects"]:
            gifts += 1
            expect(page.locator("#live .give-row")).to_be_visible()
            to = v["room"][0]
            answered(page, lambda: page.click(f"#live form:has(input[name=to][value={to}]) button"))
            move = {"type": "give", "to": to}
        else:
            card = v["legal"][0]
            answered(page, lambda: page.click(f".hand-cards button[value='{card}']"))
            move = {"type": "play", "card": card}
        state = TT.apply(state, move)
        expect(page.locator("#live .error")).to_have_count(0)
        if state.deal == 2:  # the 13th trick ends the deal: its screen stands above the grid
            assert_undo_on_the_first_screen(page, f"deal 2, {move}")
    assert gifts == 9  # the other tricks went to the only player with room


@pytest.mark.parametrize("size, lang", SHORT_PHONES)
def test_undo_on_the_first_screen_on_100s_cant_go(page, base_url, size, lang):
    api_game(page, base_url, "hundred", ["Ann", "Ben", "Cat"], {"dealer": "Cat"}, [{"type": "play", "card": "8H"}])
    on_phone(page, size, lang)
    answered(page, lambda: page.click(".reveal"))
    expect(page.locator(".reveal-form")).to_be_visible()
    assert_undo_on_the_first_screen(page, "can't go")
    page.click(".reveal-form label:has(input[value='KH'])")  # a safe card shown: refused, naming it
    answered(page, lambda: page.click(".reveal-form button[type=submit]"))
    expect(page.locator("#live .error")).to_contain_text("K♥")
    assert_undo_on_the_first_screen(page, "a refused can't go")
