"""Referee a 4-player Tute Cabrón deal on a phone-sized screen, by tapping: the turned
trump, every card, a cante and a revoke the engine proves in hindsight (RULES.md §2)."""

import random

from playwright.sync_api import expect

from companion.games import tute as T
from tests.e2e.helpers import answered, assert_fits_a_phone, assert_thumb_zone, choose_game, engine_view, expect_version

PLAYERS = ["Ann", "Ben", "Cat", "Dan"]


def scripted_deal():
    """A deal's moves, worked out with the engine first: legal cards, the first cante
    offered is sung, and one revoke (a card the rules forbid, that only later cards prove)."""
    for seed in range(500):
        rng = random.Random(seed)
        deck = [str(c) for c in T.pack(4)]
        rng.shuffle(deck)
        hands = {(1 + i) % 4: deck[i * 10 : (i + 1) * 10] for i in range(4)}
        moves = [{"type": "trump", "card": hands[0][-1]}]
        s = T.apply(T.start(PLAYERS), moves[0])
        sang = revoked = False
        while s.deal == 1:
            if not sang and T.declarable(s):
                seat = T.to_act(s)
                held = [x for x in T.declarable(s) if {f"K{x}", f"Q{x}"} <= set(hands[seat])]
                if held:
                    moves.append({"type": "declare", "suit": held[0]})
                    s, sang = T.apply(s, moves[-1]), True
                    continue
            seat = T.to_act(s)
            trick = [c for _, c in s.trick]
            legal = T.legal_plays(hands[seat], trick, s.trump)
            card = sorted(legal)[0]
            if not revoked and len(s.tricks) >= 2:
                for wrong in sorted(set(hands[seat]) - legal):
                    try:
                        T.apply(s, {"type": "play", "card": wrong})
                    except ValueError:
                        continue
                    card, revoked = wrong, True
                    break
            hands[seat].remove(card)
            moves.append({"type": "play", "card": card})
            s = T.apply(s, moves[-1])
        if sang and revoked:
            return moves, s
    raise AssertionError("no seed gives a cante and a revoke")


def test_referee_a_tute_deal_by_tapping(page, base_url, shot):
    moves, final = scripted_deal()
    page.goto(base_url + "/games/new")
    choose_game(page, "tute")
    for i, name in enumerate(PLAYERS):
        page.fill(f"#player{i}", name)
    shot("tute-01-new-game")
    answered(page, lambda: page.click("button[type=submit].primary"), "body")
    game_id = page.url.rsplit("/", 1)[1]
    expect_version(page, 0)
    expect(page.locator("#picker .pick")).to_have_count(40)  # the 40-card pack, 5 columns
    assert_fits_a_phone(page)
    shot("tute-02-trump")

    flagged_at = None
    for n, move in enumerate(moves):
        if move["type"] == "declare":
            expect(page.locator("#live .choice")).to_have_count(1)
            shot("tute-04-sing")
            answered(page, lambda: page.click(f"#live form:has(input[name=suit][value={move['suit']}]) button"))
        else:
            answered(page, lambda: page.click(f"#pick-{move['card']}"))
        expect(page.locator("#live .error")).to_have_count(0)
        expect_version(page, n + 1)
        assert_thumb_zone(page, f"move {n}: {move}")
        if n == 6:
            shot("tute-03-trick")
        if flagged_at is None and page.locator("#live .revoke").count():
            flagged_at = n
            shot("tute-05-revoke")
    assert flagged_at is not None, "the revoke was never flagged"
    shot("tute-06-deal-end")

    h = final.history[-1]
    summary = page.locator("#live .summary").first
    expect(summary).to_contain_text(f"{h['losers'][0]} loses the deal")
    expect(summary).to_contain_text("revoked")
    view = engine_view(page, base_url, game_id)
    assert view["losses"] == T.view(final)["losses"]
    marks = page.locator(".scoreboard .marks").evaluate_all("els => els.map(e => e.querySelectorAll('.mark').length)")
    assert dict(zip(PLAYERS, marks)) == view["losses"]
