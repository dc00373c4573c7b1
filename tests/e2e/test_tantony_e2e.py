"""Referee a Tantony deal and the start of deal 2 on a phone-sized screen, by tapping:
cards on the grid, gifts by buttons, then known hands from deal 2 (RULES.md §3)."""

import random

from playwright.sync_api import expect

from companion.games import tantony as T
from tests.e2e.helpers import (
    PHONE,
    answered,
    assert_answered_in_view,
    assert_fits_a_phone,
    assert_thumb_zone,
    engine_view,
    expect_version,
    phone,
    scoreboard,
    speak,
    start_game,
)

PLAYERS = ["Nan", "Eve", "Sam", "Wes"]


def test_referee_a_tantony_deal_and_the_start_of_deal_2(page, base_url, shot):
    game_id = start_game(page, base_url, "tantony", PLAYERS, dealer=3)  # Wes deals, Nan (North) leads
    assert_fits_a_phone(page)
    shot("tantony-01-start")

    rng = random.Random(7)
    deck = [str(c) for c in T.pack(4)]
    rng.shuffle(deck)
    hands = {i: deck[i * 13 : (i + 1) * 13] for i in range(4)}
    state = T.start(PLAYERS, {"dealer": "Wes"})
    # The taps spread over the phones a table holds; in Japanese, then in English.
    moves = 0
    while state.deal == 1:
        v = T.view(state)
        if moves in (0, 31):
            speak(page, "ja" if moves == 0 else "en")
        phone(page, moves, block=4)
        if "give" in v["expects"]:
            # The grid is out of reach meanwhile: not shown, taking no room, not focusable (kept as laid out).
            grid = page.locator("#picker .grid")
            expect(grid).to_be_hidden()
            assert page.locator("#picker form").evaluate("f => f.getBoundingClientRect().height") == 0
            focused = "g => { const b = g.querySelector('.pick'); b.focus(); return b.matches(':focus') }"
            assert not grid.evaluate(focused)
            to = rng.choice(v["room"])
            answered(page, lambda: page.click(f"#live form:has(input[name=to][value={to}]) button"))
            move = {"type": "give", "to": to}
        else:
            seat = T.to_act(state)
            card = rng.choice(sorted(T.legal_plays(hands[seat], [c for _, c in state.trick])))
            hands[seat].remove(card)
            answered(page, lambda: page.click(f"#pick-{card}"))
            move = {"type": "play", "card": card}
        moves += 1
        state = T.apply(state, move)
        expect(page.locator("#live .error")).to_have_count(0)
        expect_version(page, moves)
        assert_answered_in_view(page, f"deal 1, move {moves}: {move}")
    page.set_viewport_size(PHONE)
    shot("tantony-04-deal-end")

    # The deal's end: the 13th trick and its exchange, each player's runts and points, the
    # sides' points and totals, each with its rule, on the first screen above the grid.
    h = state.history[-1]
    end = page.locator("#live .deal-end")
    expect(end).to_be_in_viewport()
    expect(end).to_contain_text(f"{h['last']['winner']} wins trick 13")
    for p in PLAYERS:
        expect(end.locator("tbody tr", has_text=p).first.locator("td").last).to_have_text(str(h["individual"][p]))
    for side, points in h["points"].items():
        expect(end.locator("tbody tr", has_text=f"{side} this deal").locator("td")).to_have_text(str(points))
        expect(end.locator("tbody tr", has_text=f"{side} in all").locator("td")).to_have_text(str(h["scores"][side]))
    assert scoreboard(page) == engine_view(page, base_url, game_id)["scores"]

    # Deal 2: every hand is known; the player to act taps a card of their own hand.
    expect(page.locator(".hands .hand")).to_have_count(4)
    by_card = True  # the first gift of deal 2 by the card led (RULES.md 3.4), the next by its button
    for _ in range(6):
        v = T.view(state)
        if "give" in v["expects"] and by_card:
            by_card = False
            to = next(p for p in v["room"] if p != v["to_act"])
            card = v["hands"][to][0]
            expect(page.locator("#live .compass")).to_have_count(0)  # the grid takes the card led
            answered(page, lambda: page.click(f"#pick-{card}"))
            state = T.apply(state, {"type": "play", "card": card})
            expect(page.locator("#live .last")).to_contain_text(f"{to} received it: the card led next is theirs.")
        elif "give" in v["expects"]:
            to = v["room"][0]
            answered(page, lambda: page.click(f"#live form:has(input[name=to][value={to}]) button"))
            state = T.apply(state, {"type": "give", "to": to})
        else:
            enabled = page.locator(".hand-cards button:not([disabled])")
            expect(enabled).to_have_count(len(v["legal"]))
            assert sorted(enabled.evaluate_all("bs => bs.map(b => b.value)")) == sorted(v["legal"])
            card = v["legal"][0]
            answered(page, lambda: page.click(f".hand-cards button[value='{card}']"))
            state = T.apply(state, {"type": "play", "card": card})
        moves += 1
        expect(page.locator("#live .error")).to_have_count(0)
        expect_version(page, moves)
        assert_thumb_zone(page, f"deal 2, move {moves}")
    shot("tantony-05-deal-2")
    assert engine_view(page, base_url, game_id)["trick"] == T.view(state)["trick"]
