"""Referee a 4-player Tute Cabrón deal on a phone-sized screen, by tapping: the turned
trump, every card, a cante and a revoke the engine proves in hindsight (RULES.md §2)."""

import random

from playwright.sync_api import expect

from companion.games import tute as T
from tests.e2e.helpers import (
    PHONE,
    answered,
    assert_answered_in_view,
    assert_fits_a_phone,
    choose_game,
    engine_view,
    expect_version,
    phone,
    speak,
)

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

    # The taps spread over the phones a table holds; in Japanese, then in English.
    flagged_at = None
    for n, move in enumerate(moves):
        if n in (0, 21):
            speak(page, "ja" if n == 0 else "en")
        phone(page, n, block=4)
        if move["type"] == "declare":
            expect(page.locator("#live .choice")).to_have_count(1)
            answered(page, lambda: page.click(f"#live form:has(input[name=suit][value={move['suit']}]) button"))
        else:
            answered(page, lambda: page.click(f"#pick-{move['card']}"))
        expect(page.locator("#live .error")).to_have_count(0)
        expect_version(page, n + 1)
        assert_answered_in_view(page, f"move {n}: {move}")
        if n == 4:  # trick 1 is in: a card of it, struck through, tapped anyway says where it went
            played = moves[1]["card"]
            answered(page, lambda: page.click(f"#pick-{played}", force=True))
            face = page.locator(f"#pick-{played}").inner_text().replace("\n", "")
            expect(page.locator("#live .error")).to_have_text(f"{face}はこのディールの第1トリックですでに出ています。")
            expect_version(page, n + 1)
            assert_answered_in_view(page, "a played card tapped")
        if flagged_at is None and page.locator("#live .revoke").count():
            flagged_at = n
            shot("tute-05-revoke")
    assert flagged_at is not None, "the revoke was never flagged"
    page.set_viewport_size(PHONE)
    shot("tute-06-deal-end")

    # The deal's end: the last trick and its +10, each player's points line by line with its
    # rule, the loss marks after it, who lost and why, on the first screen above the grid.
    h = final.history[-1]
    end = page.locator("#live .deal-end")
    expect(end).to_be_in_viewport()
    expect(end.locator("h2")).to_contain_text(f"{h['losers'][0]} loses the deal")
    expect(end).to_contain_text("revoked")
    expect(end).to_contain_text(f"{h['last_trick']} wins trick 10")
    rows = {r.locator("th").inner_text().split("\n")[0].split(" Tute")[0]: r for r in end.locator("tbody tr").all()}
    expect(rows["Card points"].locator("td")).to_have_text([str(h["card_points"][p]) for p in PLAYERS])
    expect(rows["Last trick"].locator("td")).to_have_text(["+10" if p == h["last_trick"] else "" for p in PLAYERS])
    expect(rows["Total"].locator("td")).to_have_text([str(h["points"][p]) for p in PLAYERS])
    expect(rows["Loss marks"].locator("td")).to_have_text(
        [("✗ " if p in h["losers"] else "") + str(h["losses"][p]) for p in PLAYERS]
    )
    cited = end.locator("tbody a").evaluate_all("links => links.map(a => a.hash)")
    assert cited == ["#s2-2", "#s2-5", "#s2-6", "#s2-6", "#s2-7"]  # every line cites its rule
    expect(page.locator(".scoreboard .score")).to_have_count(0)  # not deal 2's 0 0 0 0 yet
    view = engine_view(page, base_url, game_id)
    assert view["losses"] == T.view(final)["losses"]
    marks = page.locator(".scoreboard .marks").evaluate_all("els => els.map(e => e.querySelectorAll('.mark').length)")
    assert dict(zip(PLAYERS, marks)) == view["losses"]
