"""Referee a Tantony deal and the start of deal 2 on a phone-sized screen, by tapping:
cards on the grid, gifts by buttons, then known hands from deal 2 (RULES.md §3)."""

import random
import re

from companion.games import tantony as T
from tests.e2e.test_tablanette_e2e import assert_fits_a_phone, engine_view, settle, version

PLAYERS = ["Nan", "Eve", "Sam", "Wes"]


def test_referee_a_tantony_deal_and_the_start_of_deal_2(page, base_url, shot):
    page.goto(base_url + "/games/new")
    page.select_option("#game", "tantony")
    page.wait_for_selector("#sudden_death")
    for i, name in enumerate(PLAYERS):
        page.fill(f"#player{i}", name)
    page.select_option("#dealer", "3")  # Wes deals, Nan (North) leads
    page.click("button[type=submit].primary")
    page.wait_for_url(re.compile(r"/games/[\w-]+$"))
    game_id = page.url.rsplit("/", 1)[1]
    assert_fits_a_phone(page)
    shot("tantony-01-start")

    rng = random.Random(7)
    deck = [str(c) for c in T.pack(4)]
    rng.shuffle(deck)
    hands = {i: deck[i * 13:(i + 1) * 13] for i in range(4)}
    state = T.start(PLAYERS, {"dealer": "Wes"})
    taps = 0
    while state.deal == 1:
        v = T.view(state)
        before = version(page)
        if v["expects"] == ["give"]:
            to = rng.choice(v["room"])
            if v["trick_number"] == 3:
                shot("tantony-02-give")
            page.click(f"#live form:has(input[name=to][value={to}]) button")
            move = {"type": "give", "to": to}
        else:
            seat = T.to_act(state)
            card = rng.choice(sorted(T.legal_plays(hands[seat], [c for _, c in state.trick])))
            hands[seat].remove(card)
            page.click(f"#pick-{card}")
            move = {"type": "play", "card": card}
        taps += 1
        state = T.apply(state, move)
        settle(page, before)
        assert page.locator("#live .error").count() == 0, page.inner_text("#live .error")
        if v["trick_number"] == 5 and len(state.trick) == 2:
            shot("tantony-03-trick")
    shot("tantony-04-deal-end")
    h = state.history[-1]
    summary = page.inner_text("#live .summary")
    for side, points in h["points"].items():
        assert f"{side}\t{points}" in summary
    names = page.locator(".scoreboard .side .name").all_inner_texts()
    scores = page.locator(".scoreboard .side .score").all_inner_texts()
    assert {n: int(s) for n, s in zip(names, scores)} == engine_view(page, base_url, game_id)["scores"]

    # Deal 2: every hand is known; the player to act taps a card of their own hand.
    assert page.locator(".hands .hand").count() == 4
    for _ in range(6):
        v = T.view(state)
        if v["expects"] == ["give"]:
            before = version(page)
            page.click(f"#live form:has(input[name=to][value={v['room'][0]}]) button")
            state = T.apply(state, {"type": "give", "to": v["room"][0]})
        else:
            enabled = page.locator(".hand-cards button:not([disabled])").evaluate_all("bs => bs.map(b => b.value)")
            assert sorted(enabled) == sorted(v["legal"])
            before = version(page)
            page.click(f".hand-cards button[value='{v['legal'][0]}']")
            state = T.apply(state, {"type": "play", "card": v["legal"][0]})
        settle(page, before)
        assert page.locator("#live .error").count() == 0
    shot("tantony-05-deal-2")
    assert engine_view(page, base_url, game_id)["trick"] == T.view(state)["trick"]
