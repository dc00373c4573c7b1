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
import time
from pathlib import Path

import pytest
from axe_playwright_python.base import AxeResults
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from companion import games

PHONE = {"width": 390, "height": 844}
#: The phones a table holds (issue 31): the reference one, an iPhone SE, the narrowest.
PHONES = ({"width": 390, "height": 844}, {"width": 375, "height": 667}, {"width": 320, "height": 568})
#: From this height on, the whole grid and Undo fit the first screen.
FIRST_SCREEN = 667
#: The short phones (375x667, 320x568) in English and in Japanese: a test's ``size, lang`` to run on each (issue 44).
SHORT_PHONES = [
    pytest.param(size, lang, id=f"{size['width']}x{size['height']}-{lang}")
    for size in PHONES[1:]
    for lang in ("en", "ja")
]


_AXE = Axe()


def axe(page) -> AxeResults:
    """axe-core's violations on the page as it is now. Its 570 KB script is evaluated once
    per document (axe_playwright_python evaluates it again at every run, ~55 ms each)."""
    if not page.evaluate("typeof window.axe === 'object' && typeof window.axe.run === 'function'"):
        page.evaluate(_AXE.axe_script)
    return AxeResults(page.evaluate("axe.run({resultTypes: ['violations']})"))


#: ``until``'s loop in the page: the condition asked again every 100 ms until it holds.
_UNTIL = """async ([arg, timeout]) => {
  const end = Date.now() + timeout;
  while (!(await (CONDITION)(arg))) {
    if (Date.now() > end) { return false; }
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}"""


def until(page, condition: str, arg=None, timeout: int = 30_000) -> None:
    """Wait until ``condition`` (a JavaScript function of ``arg`` answering with a promise, as
    the Cache API and the service worker's state do) holds. Playwright's wait_for_function
    asks for a condition that answers at once: a promise is truthy, so it ended at its first
    poll, before anything was kept (microsoft/playwright#29132)."""
    held = page.evaluate(_UNTIL.replace("CONDITION", condition), [arg, timeout])
    assert held, f"not within {timeout} ms: {condition}"


def handled(page, predicate, timeout: float = 30.0) -> None:
    """Wait until ``predicate()`` holds for what the test's own handlers have seen. Playwright runs
    a route's handler between the test's calls, a moment after the page sent the request, so
    the page can show a request under way before the handler has it: asked once, it races."""
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, f"not within {timeout} s"
        page.wait_for_timeout(20)  # lets Playwright deliver the events it holds, then asks again


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


def api_game(page, base_url, game, players, options=None, moves=()) -> str:
    """A game made and played through the API; this page becomes one of its referees."""
    return api_referee(page, base_url, game, players, options, moves)[0]


def api_referee(page, base_url, game, players, options=None, moves=(), opened=None) -> tuple[str, str]:
    """:func:`api_game`, with the game's edit key too. The page opens its link from
    ``opened`` (another name for the server), the API is asked at ``base_url``
    (Playwright's own requests resolve names without Chromium)."""
    made = page.request.post(f"{base_url}/api/games", data={"game": game, "players": players, "options": options or {}})
    assert made.status == 201, made.text()
    game_id, key = made.json()["id"], made.json()["edit_key"]
    version = 0
    for move in moves:
        answer = page.request.post(
            f"{base_url}/api/games/{game_id}/moves",
            data={"version": version, "move": move},
            headers={"X-Edit-Key": key},
        )
        assert answer.ok, (move, answer.text())
        version = answer.json()["version"]
    link = page.request.post(
        f"{base_url}/api/games/{game_id}/links", data={"kind": "add"}, headers={"X-Edit-Key": key}
    ).json()["url"]
    page.goto(link.replace(base_url, opened or base_url))
    answered(page, lambda: page.click("form[action$='/join'] button[type=submit]"), "body")
    expect_version(page, version)
    return game_id, key


#: What answers a tap: alerts, statuses, a choice's buttons, the banner near the thumb.
ANSWERS = "#live [role=alert], #live [role=status], #live .choice button, #net-error"

#: Where each answer, the grid and Undo are after a tap, in one round trip: the answers
#: not wholly in the viewport (one most of a screen tall, as the end of a deal on the
#: smallest phone, counts when its top is in the screen's upper quarter), the grid's and
#: Undo's bottoms in page coordinates, and how far the page is scrolled. Shown is checkVisibility's: a grid hidden
#: and kept as laid out (content-visibility: hidden, Tantony's while a trick is given) keeps its boxes, unseen.
_WHERE = r"""answers => {
  const h = window.innerHeight, y = window.scrollY;
  const off = [...document.querySelectorAll(answers)].filter(e => e.checkVisibility()).filter(e => {
    const r = e.getBoundingClientRect();
    return r.top < -0.5 || (r.bottom > h + 0.5 && !(r.height > 0.6 * h && r.top <= 0.5 + h / 4));
  }).map(e => e.textContent.trim().replace(/\s+/g, ' ').slice(0, 80));
  const bottom = sel => { const e = [...document.querySelectorAll(sel)].find(x => x.checkVisibility());
    return e ? Math.round(e.getBoundingClientRect().bottom + y) : null; };
  return {off, grid: bottom('#picker .grid, #live .hand-cards'), undo: bottom('#undo'), scroll: Math.round(y),
          height: h};
}"""


def where(page) -> dict:
    """Where the answers, the grid and Undo are now (see ``_WHERE``)."""
    return page.evaluate(_WHERE, ANSWERS)


def phone(page, n: int, block: int = 1) -> dict:
    """Turn ``page`` into the phone of :data:`PHONES` for its ``n``-th tap, round and round
    ``block`` taps a phone: a deal's taps are spread over every phone this way (one deal,
    not one a phone)."""
    size = PHONES[n // block % len(PHONES)]
    if page.viewport_size != size:
        page.set_viewport_size(size)
    return size


def assert_answered_in_view(page, what: str = "") -> None:
    """After a tap, on any phone: no answer above or below the screen (``where``); from
    375x667 up the whole grid and Undo end within the first screen too, but while the
    screen that ends a deal stands above them (the grid waits under it)."""
    seen = where(page)
    assert seen["off"] == [], (what, page.viewport_size, seen)
    if seen["height"] >= FIRST_SCREEN and not page.locator("#live .deal-end").count():
        for part in ("grid", "undo"):
            assert seen[part] is None or seen[part] <= seen["height"], (what, part, page.viewport_size, seen)


def speak(page, lang: str) -> None:
    """The phone switches its language (the page reloads in it, at the same version)."""
    version = page.locator("#version").input_value()
    page.goto(page.url.split("?")[0] + f"?lang={lang}")
    expect(page.locator("html")).to_have_attribute("lang", lang)
    expect_version(page, int(version))


def assert_thumb_zone(page, what: str = "") -> None:
    """After a tap, at 390x844: the page has not scrolled; every alert, status and choice
    button is inside the viewport; the whole grid and Undo end within the first screen;
    and while a choice waits for its answer, no card can be tapped."""
    assert page.evaluate("window.scrollY") == 0, what
    height = page.viewport_size["height"]
    shown = page.locator(
        "#live [role=alert]:visible, #live [role=status]:visible, #live .choice button:visible, #net-error:visible"
    )
    for i in range(shown.count()):
        box = shown.nth(i).bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= height, (what, shown.nth(i).inner_text()[:80], box)
    # The grid to tap: the picker's (its first), or a known hand's buttons (Tantony deal 2).
    for region in ("#picker .grid:visible, #live .hand-cards", "#undo"):
        for loc in page.locator(region).all()[:1]:
            box = loc.bounding_box()
            assert box["y"] + box["height"] <= height, (what, region, box)
    if page.locator("#live .choice.sheet").count():  # a choice that locks the grid (an optional cante does not)
        if page.locator("#picker").count():  # no card of it can be tapped
            expect(page.locator("#picker :is(button, input:not([type=hidden])):enabled")).to_have_count(0)
        expect(page.locator("#live .hand-cards button:not([disabled])")).to_have_count(0)


#: The iPhone SE's screen, common in Japan: the size the issue-46 pages are looked at.
SE = {"width": 375, "height": 667}


def se_page(browser, base_url: str, lang: str):
    """A touch phone at 375x667 speaking ``lang``: its context (to close) and page."""
    context = browser.new_context(viewport=SE, device_scale_factor=1, has_touch=True, is_mobile=True)
    context.add_cookies([{"name": "lang", "value": lang, "url": base_url}])
    return context, context.new_page()


def keep(page, screens: Path | None, name: str, full_page: bool = False) -> None:
    """Keep a screenshot of the page to look at, when one is asked for: ``screens`` is the
    folder ``make screens`` names (COMPANION_SCREENS), else None, and ``make test`` takes none
    (each one costs Chromium a full paint and a PNG: about 20 s of CPU over the suite)."""
    if screens is not None:
        page.screenshot(path=str(screens / f"{name}.png"), full_page=full_page)


def looked_at(
    page,
    screens,
    name: str,
    said: str | None = None,
    controls: str = "main button:visible",
    full_page: bool = False,
) -> None:
    """A state as a person sees it: what it says (``said``'s selector) on the first screen,
    unscrolled; nothing wider than the phone; each of ``controls`` a thumb's size; axe with
    nothing to say. Its screenshot is kept (``keep``) to look at."""
    if said:
        expect(page.locator(said).first).to_be_in_viewport(ratio=1)
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"], name
    for control in page.locator(controls).all():
        box = control.bounding_box()
        assert box["height"] >= 44 and box["width"] >= 44, (name, box)
    results = axe(page)
    assert results.violations_count == 0, (name, results.generate_report())
    keep(page, screens, name, full_page)
