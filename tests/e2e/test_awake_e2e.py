"""The screen stays on while a referee's game page is open (issue 46, "Awake"): the Screen
Wake Lock API (static/awake.js), taken when the page loads, let go while it is hidden and
taken again when it is shown, let go at the game's end. Over plain HTTP (the room's Wi-Fi)
no browser offers it, and the page says so in a line with how to keep the screen on.

A page on plain HTTP is made here without leaving this machine: Chromium resolves a made-up
name to 127.0.0.1 (``--host-resolver-rules``), and a page from that name is not a secure
context, as a page from a laptop's LAN address is not. The lock itself is Chromium's own
where it offers one; the second test puts a stand-in in its place to watch it taken and let go.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from companion import web
from tests.conftest import served
from tests.e2e.conftest import CHROMIUM_ARGS, TEST_CHROMIUM, e2e_app
from tests.e2e.helpers import api_referee, axe

#: The room's Wi-Fi: a name that is not this machine's, resolved to it by Chromium alone.
LAN = "companion.test"
SE = {"width": 375, "height": 667}
WORDS = {
    "en": "On plain HTTP the screen may go dark mid-deal",
    "ja": "HTTP接続では対戦中に画面が消えることがあります",
}
#: A stand-in for navigator.wakeLock: each lock taken (window.__locks), and a page that can be
#: hidden and shown again (window.__hide), as a phone's browser does when the screen is left.
STAND_IN = """(() => {
  window.__locks = [];
  const wakeLock = { request(type) {
    const lock = new EventTarget();
    lock.type = type;
    lock.released = false;
    lock.release = () => {
      if (!lock.released) { lock.released = true; lock.dispatchEvent(new Event("release")); }
      return Promise.resolve();
    };
    window.__locks.push(lock);
    return Promise.resolve(lock);
  } };
  Object.defineProperty(Navigator.prototype, "wakeLock", { get: () => wakeLock, configurable: true });
  let hidden = false;
  Object.defineProperty(Document.prototype, "visibilityState", {
    get: () => (hidden ? "hidden" : "visible"), configurable: true });
  window.__hide = (h) => { hidden = h; document.dispatchEvent(new Event("visibilitychange")); };
})();"""
#: The locks taken so far, and how many are held.
LOCKS = "() => [window.__locks.length, window.__locks.filter(l => !l.released).length]"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    app = e2e_app(tmp_path_factory.mktemp("awake"), POLL_SECONDS=60)
    with served(app) as url:
        yield url


@pytest.fixture(scope="module")
def lan_browser(browser_type, server):
    port = server.rsplit(":", 1)[1]
    browser = browser_type.launch(
        executable_path=TEST_CHROMIUM, args=[*CHROMIUM_ARGS, f"--host-resolver-rules=MAP {LAN} 127.0.0.1"]
    )
    yield browser, f"http://{LAN}:{port}"
    browser.close()


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_referees_page_on_plain_http_says_the_screen_may_go_dark_and_how_to_keep_it_on(lan_browser, server, lang):
    browser, lan = lan_browser
    context = browser.new_context(viewport=SE, device_scale_factor=1, has_touch=True, is_mobile=True)
    context.add_cookies([{"name": "lang", "value": lang, "url": lan}])
    page = context.new_page()
    try:
        api_referee(page, server, "tablanette", ["Ann", "Ben"], opened=lan)
        assert page.evaluate("() => window.isSecureContext") is False  # as on the room's Wi-Fi
        hint = page.locator("#awake")
        expect(hint).to_be_visible()
        expect(hint).to_contain_text(WORDS[lang])
        box = hint.bounding_box()
        assert box["height"] < 3 * 24 and box["width"] <= SE["width"], box  # a line or two on an SE
        assert axe(page).violations_count == 0, axe(page).generate_report()
    finally:
        context.close()


def test_the_screen_is_kept_on_while_the_game_goes_on_and_let_go_at_its_end(page, server):
    page.set_viewport_size(SE)
    page.add_init_script(STAND_IN)
    finished = web.get("tablanette").SAMPLE  # a game to 1 point, which its last move ends
    moves, options = finished["finished"]["moves"], finished["finished"]["options"]
    game_id, key = api_referee(page, server, "tablanette", finished["players"], options, moves[:-1])
    page.wait_for_function("() => window.__locks.length === 1 && !window.__locks[0].released")
    assert page.evaluate("() => window.__locks[0].type") == "screen"
    expect(page.locator("#awake")).to_be_hidden()

    page.evaluate("() => window.__hide(true)")  # the phone's screen left: let go
    page.wait_for_function("() => window.__locks[0].released")
    page.evaluate("() => window.__hide(false)")  # back: taken again
    page.wait_for_function("() => window.__locks.length === 2 && !window.__locks[1].released")

    last = page.request.post(
        f"{server}/api/games/{game_id}/moves",
        data={"version": len(moves) - 1, "move": moves[-1]},
        headers={"X-Edit-Key": key},
    )
    assert last.ok, last.text()
    expect(page.locator("#live[data-over]")).to_have_count(1)  # the game's end, pushed to the page
    page.wait_for_function("() => window.__locks[1].released")
    assert page.evaluate(LOCKS) == [2, 0]
    expect(page.locator("#awake")).to_be_hidden()


def test_a_game_on_this_phone_only_keeps_the_screen_on_while_it_is_shown(page, here_url):
    """The phone refereeing by itself is a referee too: the lock is taken while its game is
    shown, and let go when the page goes back to its list of games."""
    page.set_viewport_size(SE)
    page.add_init_script(STAND_IN)
    page.goto(f"{here_url}/phone")
    start = page.locator("#here-new button[type=submit]")
    expect(start).to_be_enabled(timeout=60_000)  # the phone's referee is up
    assert page.evaluate(LOCKS) == [0, 0]  # no game shown: no lock
    page.fill("#player0", "Ann")
    page.fill("#player1", "Ben")
    start.click()
    expect(page.locator("#live")).to_have_count(1)
    page.wait_for_function("() => window.__locks.length === 1 && !window.__locks[0].released")
    expect(page.locator("#awake")).to_be_hidden()
    page.evaluate("() => { location.hash = ''; }")  # back to the list
    expect(page.locator("#live")).to_have_count(0)
    page.wait_for_function("() => window.__locks[0].released")
    assert page.evaluate(LOCKS) == [1, 0]
