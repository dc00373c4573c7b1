"""Referee a Tablanette deal on a phone-sized screen, by tapping, in Debian's Chromium."""

from playwright.sync_api import expect

from companion.cards import PACK_52, SUIT_SYMBOLS
from tests.e2e.helpers import (
    PHONE,
    answered,
    assert_answered_in_view,
    assert_fits_a_phone,
    assert_thumb_zone,
    engine_view,
    expect_version,
    lay_out,
    phone,
    scoreboard,
    speak,
    start_game,
    tap,
    tap_card,
)

LAYOUT = ["2S", "3H", "5D", "9C"]  # KH on it has a choice (TB-08); then 5C sweeps 2S+3H


def test_referee_a_whole_deal_by_tapping(page, base_url, shot):
    page.goto(base_url + "/")
    shot("01-home")
    page.click("text=New game")
    shot("02-new-game")
    game_id = start_game(page, base_url)
    shot("03-layout")
    assert_fits_a_phone(page)

    # The layout: four taps, the fourth lays it out.
    lay_out(page, LAYOUT)
    expect_version(page, 1)
    expect(page.locator("#pick-2S")).to_be_disabled()
    assert_fits_a_phone(page)

    # KH can take 2S 3H 9C or 5D 9C (TB-08): the choice is shown as buttons.
    tap_card(page, "KH")
    expect(page.locator("#live .choice .option")).to_have_count(2)
    expect_version(page, 1)
    assert_thumb_zone(page)  # the choice in view, every card locked
    shot("04-choice")
    page.reload()  # a reload asks it again
    expect(page.locator("#live .choice .option")).to_have_count(2)
    expect(page.locator("#picker :is(button, input:not([type=hidden])):enabled")).to_have_count(0)  # still locked
    answered(page, lambda: page.locator("#live .choice .option", has_text="5").click())
    expect(page.locator("#live .choice")).to_have_count(0)
    expect(page.locator("#live .table-cards .chip")).to_have_text(["2♠", "3♥"])
    assert "ask=" not in page.url  # answered: a reload asks nothing

    # Ann's 5C takes 2+3 and empties the table: a sweep of 5 x 2 = 10.
    tap(page, "5C")
    expect(page.locator("#live")).to_contain_text("Sweep! Ann +10")
    assert_thumb_zone(page)
    shot("05-sweep")
    assert scoreboard(page) == {"Ann": 10, "Ben": 0}

    # Undo is one tap; the sweep is gone, and comes back when the card is entered again.
    answered(page, lambda: page.click(".undo-button"))
    assert scoreboard(page) == {"Ann": 0, "Ben": 0}
    expect(page.locator("#pick-5C")).to_be_enabled()
    tap(page, "5C")
    assert scoreboard(page) == {"Ann": 10, "Ben": 0}

    # The rest of the deal: every remaining card, in pack order, the taps spread over the
    # phones a table holds (390x844, 375x667, 320x568), in Japanese, then in English.
    played = set(LAYOUT) | {"KH", "5C"}
    rest = [str(c) for c in PACK_52 if str(c) not in played]
    for i, code in enumerate(rest):
        if i in (0, 24):
            speak(page, "ja" if i == 0 else "en")
        phone(page, i, block=4)
        tap(page, code)
        assert_answered_in_view(page, f"after {code}, card {i} of the rest")
        if i == 20:
            assert scoreboard(page) == engine_view(page, base_url, game_id)["scores"]
    page.set_viewport_size(PHONE)
    shot("07-deal-end")
    view = engine_view(page, base_url, game_id)
    assert view["deal"] == 2 and view["expects"] == ["layout", "tally"]
    assert scoreboard(page) == view["scores"]
    ended = view["history"][0]
    assert sum(ended["cards"].values()) == 52 and sum(ended["card_points"].values()) == 22

    # The deal's end: a screen of its own on the first screen, the deal's record line by line
    # (each citing its rule), above the grid, which waits for deal 2's layout under it.
    end = page.locator("#live .deal-end")
    expect(end).to_be_in_viewport()
    expect(end.locator("h2")).to_have_text("End of deal 1")
    rows = end.locator("tbody tr")
    expect(rows).to_have_count(6)
    labels = list(ended["points"])
    lines = {
        "Cards taken": ended["cards"],
        "Most cards": {s: f"+{p}" if p else "0" for s, p in ended["most_cards"].items()},
        "Card points": ended["card_points"],
        "Sweeps": {s: str(sum(b)) for s, b in ended["sweeps"].items()},
        "Deal total": ended["points"],
        "Game total": view["scores"],
    }
    for row, (label, values) in zip(rows.all(), lines.items()):
        expect(row.locator("th")).to_contain_text(label)
        expect(row.locator("td")).to_have_text([str(values[s]) for s in labels])
    cited = end.locator("a").evaluate_all("links => links.map(a => a.hash)")
    assert cited == ["#s1-5", "#s1-5", "#s1-5", "#P8", "#s1-5", "#s1-6"]  # every line cites its rule
    assert end.bounding_box()["y"] + end.bounding_box()["height"] <= page.locator("#picker").bounding_box()["y"]
    page.reload()  # it stays until deal 2 begins
    expect(end).to_be_in_viewport()

    answered(page, lambda: page.click("header >> text=Log"), "body")
    last = rest[-1][:-1] + SUIT_SYMBOLS[rest[-1][-1]]
    expect(page.locator(".log li").last).to_contain_text(last)  # the latest page first: the deal's last card
    shot("08-log")
    earlier = page.locator(".pages a", has_text="Earlier moves").first
    while earlier.count():  # back to the first page, where 5♣ was undone
        answered(page, earlier.click, "body")
    expect(page.locator(".pages").first).to_contain_text("Page 1 of")
    expect(page.locator(".log li.undone")).to_have_count(1)

    # Deal 2's first move takes the deal's end away; undone, it is back.
    page.goto(f"{base_url}/games/{game_id}")
    lay_out(page, ["2C", "3C", "4C", "5C"])
    expect(end).to_have_count(0)
    answered(page, lambda: page.click(".undo-button"))
    expect(end).to_be_visible()


def test_a_watcher_sees_moves_without_a_picker(page, base_url, shot, browser):
    referee = browser.new_page(viewport={"width": 390, "height": 844})
    game_id = start_game(referee, base_url)
    page.goto(f"{base_url}/games/{game_id}")
    expect(page.locator("#picker")).to_have_count(0)
    lay_out(referee, LAYOUT)
    expect_version(referee, 1)
    page.reload()
    expect(page.locator("#live .table-cards .chip")).to_have_count(4)
    shot("09-watch")
    referee.close()


def test_a_refused_capture_reads_plainly(page, base_url, shot):
    start_game(page, base_url)
    lay_out(page, ["6S", "2H", "4D", "9C"])
    expect_version(page, 1)
    # Post a capture that misses a group (TB-10) the way a second phone or a stale page could.
    page.evaluate("""() => { const f = document.querySelector('.play-form');
        const i = document.createElement('input'); i.type = 'hidden'; i.name = 'capture[]'; i.value = '6S';
        f.appendChild(i); }""")
    tap_card(page, "6C")
    expect(page.locator("#live .error")).to_contain_text("Must also take 2♥+4♦")
    expect_version(page, 1)
    assert_thumb_zone(page)
    shot("10-refused")


def test_a_tablic_capture_is_tapped_card_by_card(page, base_url, live_app, shot):
    """Issue 17: with captures optional and many of them (12 table cards: 18,000 ways for
    K♦), the referee taps the cards taken instead of choosing among enumerated buttons; an
    illegal set is refused in view with the cards still tapped, then the right one is taken."""
    game = start_game(page, base_url, start="tablic")
    store = live_app.extensions["store"]
    version, _ = store.play(game, 0, {"type": "layout", "cards": ["AS", "2S", "3S", "4S"]})
    for card in ["5S", "6S", "7S", "8S", "AH", "2H", "3H", "4H"]:  # each laid down
        version, _ = store.play(game, version, {"type": "play", "card": card, "capture": []})
    page.reload()
    expect_version(page, version)
    expect(page.locator("#live .table-cards .chip")).to_have_count(12)

    tap_card(page, "KD")
    sheet = page.locator("#live .choice.sheet")
    expect(sheet.locator(".take-form .pick")).to_have_count(12)
    expect(sheet.locator("button.option", has_text="Lay it down")).to_have_count(1)  # captures are optional
    assert_thumb_zone(page, "the cards to tap")
    shot("11-take-by-tapping")

    for code in ["4S", "5S"]:  # 4 + 5 is not 14
        sheet.locator(f".take-form label:has(input[value='{code}'])").click()
    expect(sheet.locator(".take-form input:checked")).to_have_count(2)
    answered(page, lambda: sheet.locator(".take-form button[type=submit]").click())
    expect(page.locator("#live .choice [role=alert]")).to_contain_text("can't be taken with K♦")
    expect(page.locator("#live .take-form input:checked")).to_have_count(2)  # what was tapped stays tapped
    expect_version(page, version)
    assert_thumb_zone(page, "the refusal")
    shot("12-take-refused")

    sheet = page.locator("#live .choice.sheet")
    for code in ["4S", "5S", "6S", "8S"]:  # 4S and 5S off again; 6 + 8 = 14
        sheet.locator(f".take-form label:has(input[value='{code}'])").click()
    answered(page, lambda: sheet.locator(".take-form button[type=submit]").click())
    expect_version(page, version + 1)
    expect(page.locator("#live .last .chip")).to_have_text(["K♦", "6♠", "8♠"])  # K♦ took 6♠ 8♠
    expect(page.locator("#live .table-cards .chip")).to_have_count(10)
    expect(page.locator("#live .choice")).to_have_count(0)
