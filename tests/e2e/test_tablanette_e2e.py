"""Referee a Tablanette deal on a phone-sized screen, by tapping, in Debian's Chromium."""

import re
from urllib.parse import urlparse

from axe_playwright_python.sync_playwright import Axe

from companion import games
from companion.cards import PACK_52

LAYOUT = ["2S", "3H", "5D", "9C"]  # KH on it has a choice (TB-08); then 5C sweeps 2S+3H


def version(page) -> int:
    return int(page.input_value("#version"))


def settle(page, before: int) -> None:
    """Wait until htmx has swapped in the answer: a new version, a choice, or a refusal."""
    page.wait_for_function(
        """(v) => { const e = document.querySelector('#version');
                    return (e && Number(e.value) !== v) || document.querySelector('#live .choice')
                           || document.querySelector('#live .error'); }""", arg=before)


def tap(page, code: str) -> None:
    before = version(page)
    page.click(f"#pick-{code}")
    settle(page, before)
    if page.locator("#live .choice").count():
        page.locator("#live .choice .option").first.click()
        page.wait_for_selector("#live .choice", state="detached")  # settle() would see the old choice
    assert page.locator("#live .error").count() == 0, page.inner_text("#live .error")


def start_game(page, base_url) -> str:
    page.goto(base_url + "/games/new")
    page.fill("#player0", "Ann")
    page.fill("#player1", "Ben")
    page.click("button[type=submit].primary")
    page.wait_for_url(re.compile(r"/games/[\w-]+$"))
    return urlparse(page.url).path.rsplit("/", 1)[1]


def engine_view(page, base_url, game_id):
    """The engine's own answer: replay the transcript through the rules, no web involved."""
    transcript = page.request.get(f"{base_url}/api/games/{game_id}/transcript").json()
    rules = games.get(transcript["game"])
    state = rules.start(transcript["players"], transcript["options"])
    for move in transcript["moves"]:
        state = rules.apply(state, move)
    return rules.view(state)


def scoreboard(page) -> dict:
    names = page.locator(".scoreboard .side .name").all_inner_texts()
    scores = page.locator(".scoreboard .side .score").all_inner_texts()
    return {n: int(s) for n, s in zip(names, scores)}


def assert_fits_a_phone(page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    for box in (b.bounding_box() for b in page.locator("#picker .pick:visible").all()):
        assert box["width"] >= 44 and box["height"] >= 44, box


def test_referee_a_whole_deal_by_tapping(page, base_url, shot):
    page.goto(base_url + "/")
    shot("01-home")
    page.click("text=New game")
    shot("02-new-game")
    game_id = start_game(page, base_url)
    shot("03-layout")
    assert_fits_a_phone(page)

    # The layout: four taps and "Lay out".
    for code in LAYOUT:
        page.click(f"label:has(input[value='{code}'])")
    assert page.locator(".layout-form input[name='cards[]']:checked").count() == 4
    shot("03b-layout-picked")
    before = version(page)
    page.click(".layout-form button[type=submit]")
    settle(page, before)
    page.wait_for_selector("#pick-KH")
    assert_fits_a_phone(page)
    assert page.locator("#pick-2S").is_disabled()

    # KH can take 2S 3H 9C or 5D 9C (TB-08): the choice is shown as buttons.
    before = version(page)
    page.click("#pick-KH")
    settle(page, before)
    assert page.locator("#live .choice .option").count() == 2
    shot("04-choice")
    page.locator("#live .choice .option", has_text="5").click()
    page.wait_for_selector("#live .choice", state="detached")
    assert page.locator("#live .table-cards .chip").all_inner_texts() == ["2♠", "3♥"]

    # Ann's 5C takes 2+3 and empties the table: a sweep of 5 x 2 = 10.
    tap(page, "5C")
    assert "Sweep! Ann +10" in page.inner_text("#live")
    shot("05-sweep")
    assert scoreboard(page) == {"Ann": 10, "Ben": 0}

    # Undo is one tap; the sweep is gone, and comes back when the card is entered again.
    before = version(page)
    page.click(".undo-button")
    settle(page, before)
    assert scoreboard(page) == {"Ann": 0, "Ben": 0}
    assert not page.locator("#pick-5C").is_disabled()
    tap(page, "5C")
    assert scoreboard(page) == {"Ann": 10, "Ben": 0}

    # The rest of the deal: every remaining card, in pack order.
    played = set(LAYOUT) | {"KH", "5C"}
    rest = [str(c) for c in PACK_52 if str(c) not in played]
    for i, code in enumerate(rest):
        tap(page, code)
        if i == 20:
            shot("06-mid-deal")
            view = engine_view(page, base_url, game_id)
            assert scoreboard(page) == view["scores"]
    shot("07-deal-end")
    view = engine_view(page, base_url, game_id)
    assert view["deal"] == 2 and view["expects"] == ["layout", "tally"]
    assert scoreboard(page) == view["scores"]
    ended = view["history"][0]
    assert sum(ended["cards"].values()) == 52 and sum(ended["card_points"].values()) == 22
    summary = page.inner_text("#live .summary")
    assert "Deal 1" in summary and "Deal total" in summary
    for label, points in ended["points"].items():
        assert str(points) in summary

    page.click("text=Log")
    assert page.locator(".log li.undone").count() == 1
    shot("08-log")


def test_a_watcher_sees_moves_without_a_picker(page, base_url, shot, browser):
    referee = browser.new_page(viewport={"width": 390, "height": 844})
    game_id = start_game(referee, base_url)
    page.goto(f"{base_url}/games/{game_id}")
    assert page.locator("#picker").count() == 0
    for code in LAYOUT:
        referee.click(f"label:has(input[value='{code}'])")
    referee.click(".layout-form button[type=submit]")
    referee.wait_for_selector("#pick-KH")
    page.reload()
    assert page.locator("#live .table-cards .chip").count() == 4
    shot("09-watch")
    referee.close()


def test_a_refused_capture_reads_plainly(page, base_url, shot, live_app):
    game_id = start_game(page, base_url)
    for code in ["6S", "2H", "4D", "9C"]:
        page.click(f"label:has(input[value='{code}'])")
    before = version(page)
    page.click(".layout-form button[type=submit]")
    settle(page, before)
    # Post a capture that misses a group (TB-10) the way a second phone or a stale page could.
    before = version(page)
    page.evaluate("""() => { const f = document.querySelector('.play-form');
        const i = document.createElement('input'); i.type = 'hidden'; i.name = 'capture[]'; i.value = '6S';
        f.appendChild(i); }""")
    page.click("#pick-6C")
    settle(page, before)
    assert "Must also take 2H+4D" in page.inner_text("#live .error")
    assert version(page) == before
    shot("10-refused")


def test_no_accessibility_violations(page, base_url):
    axe = Axe()
    for url in ("/", "/games/new"):
        page.goto(base_url + url)
        results = axe.run(page)
        assert results.violations_count == 0, results.generate_report()
    game_id = start_game(page, base_url)
    results = axe.run(page)
    assert results.violations_count == 0, results.generate_report()
    for code in LAYOUT:
        page.click(f"label:has(input[value='{code}'])")
    before = version(page)
    page.click(".layout-form button[type=submit]")
    settle(page, before)
    page.wait_for_selector("#pick-KH")
    results = axe.run(page)
    assert results.violations_count == 0, results.generate_report()
    page.goto(f"{base_url}/games/{game_id}/log")
    assert axe.run(page).violations_count == 0
