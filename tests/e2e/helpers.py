"""What the browser tests share: waiting for the app's answer without sleeping, setting
up a game through the form, and the engine's own view to compare the page with.

Every wait is Playwright's auto-waiting ``expect``: ``answered`` marks a region of the
page, does the tap, and waits until that region was replaced (htmx swaps ``#live`` for
every answer to a tap: a move, a choice, a refusal, a conflict; a link or form that
loads a page replaces ``body``). So the next step never races the previous answer,
however slow the machine.
"""

from __future__ import annotations

import re

from playwright.sync_api import expect

from companion import games

PHONE = {"width": 390, "height": 844}


def answered(page, action, region: str = "#live") -> None:
    """Do ``action`` (a tap) and wait until ``region`` has been replaced by the answer."""
    page.locator(region).evaluate("e => { e.dataset.stale = '1'; }")
    action()
    expect(page.locator(f"{region}[data-stale]")).to_have_count(0)


def tap_card(page, code: str) -> None:
    """Tap a card of the grid and wait for the answer."""
    answered(page, lambda: page.click(f"#pick-{code}"))


def tap(page, code: str) -> None:
    """Tap a card; when the rules leave a choice, take the first option. No refusal."""
    tap_card(page, code)
    if page.locator("#live .choice .option").count():
        answered(page, lambda: page.locator("#live .choice .option").first.click())
    expect(page.locator("#live .error")).to_have_count(0)


def lay_out(page, cards) -> None:
    """Tablanette's layout: a tap per card, and the fourth lays the table out by itself."""
    *first, last = cards
    for code in first:
        page.click(f".layout-form label:has(input[value='{code}'])")
    expect(page.locator(".layout-form input[name='cards[]']:checked")).to_have_count(len(first))
    answered(page, lambda: page.click(f".layout-form label:has(input[value='{last}'])"))


def expect_version(page, version: int) -> None:
    expect(page.locator("#version")).to_have_value(str(version))


def choose_game(page, game: str, start: str | None = None) -> None:
    """Tap a game (and one of its starts) on the new-game form, as a thumb does."""
    if not page.locator(f"input[name=game][value='{game}']").is_checked():
        answered(page, lambda: page.locator(f"label.tap:has(input[name=game][value='{game}'])").click(), "#options")
    if start:
        answered(page, lambda: page.locator(f"label.tap:has(input[name=start][value='{start}'])").click(), "#options")


def start_game(
    page,
    base_url,
    game: str = "tablanette",
    players=("Ann", "Ben"),
    dealer: int | None = None,
    start: str | None = None,
) -> str:
    """Fill in the new-game form and start; return the game's id."""
    page.goto(base_url + "/games/new")
    if game != "tablanette" or start:
        choose_game(page, game, start)
    for i, name in enumerate(players):
        page.fill(f"#player{i}", name)
    if dealer is not None:
        page.select_option("#dealer", str(dealer))
    page.click("button[type=submit].primary")
    page.wait_for_url(re.compile(r"/games/[\w-]+$"))
    expect_version(page, 0)
    return page.url.rsplit("/", 1)[1]


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
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    for box in (b.bounding_box() for b in page.locator("#picker .pick:visible").all()):
        assert box["width"] >= 44 and box["height"] >= 44, box


def assert_thumb_zone(page, what: str = "") -> None:
    """After a tap, at 390x844: the page has not scrolled; every alert, status and choice
    button is inside the viewport; the whole grid and Undo end within the first screen;
    and while a choice waits for its answer, no card can be tapped."""
    assert page.evaluate("window.scrollY") == 0, what
    height = page.viewport_size["height"]
    shown = page.locator("#live [role=alert], #live [role=status], #live .choice button, #net-error:visible")
    for i in range(shown.count()):
        box = shown.nth(i).bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= height, (what, shown.nth(i).inner_text()[:80], box)
    # The grid to tap: the picker's (its first), or a known hand's buttons (Tantony deal 2).
    for region in ("#picker .grid:visible, #live .hand-cards", "#undo"):
        for loc in page.locator(region).all()[:1]:
            box = loc.bounding_box()
            assert box["y"] + box["height"] <= height, (what, region, box)
    if page.locator("#live .choice.sheet").count():  # a choice that locks the grid (an optional cante does not)
        if page.locator("#picker").count():
            expect(page.locator("#picker")).to_have_js_property("inert", True)
        expect(page.locator("#live .hand-cards button:not([disabled])")).to_have_count(0)
