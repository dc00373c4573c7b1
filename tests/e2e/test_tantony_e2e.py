"""Referee a Tantony deal and the start of deal 2 on a phone-sized screen, by tapping:
cards on the grid, gifts by buttons, then known hands from deal 2 (RULES.md §3)."""

import random

from playwright.sync_api import expect

from companion.games import tantony as T
from tests.e2e.helpers import (
    answered,
    assert_fits_a_phone,
    assert_thumb_zone,
    engine_view,
    expect_version,
    scoreboard,
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
    moves = 0
    while state.deal == 1:
        v = T.view(state)
        if v["expects"] == ["give"]:
            to = rng.choice(v["room"])
            if v["trick_number"] == 3:
                shot("tantony-02-give")
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
        assert_thumb_zone(page, f"deal 1, move {moves}: {move}")
        if v["trick_number"] == 5 and len(state.trick) == 2:
            shot("tantony-03-trick")
    shot("tantony-04-deal-end")
    summary = page.locator("#live .summary")
    for side, points in state.history[-1]["points"].items():
        expect(summary).to_contain_text(f"{side}\t{points}")
    assert scoreboard(page) == engine_view(page, base_url, game_id)["scores"]

    # Deal 2: every hand is known; the player to act taps a card of their own hand.
    expect(page.locator(".hands .hand")).to_have_count(4)
    for _ in range(6):
        v = T.view(state)
        if v["expects"] == ["give"]:
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
