"""Taps that survive a dropped connection, and the installable app (issue 16).

A referee's taps made offline wait on the phone, shown at the top of the screen, and are
sent in order when the connection is back: each applied exactly once, or, when another
phone moved first, said as not recorded with the reason, near the thumb. The service worker
registers, keeps the app shell and the pages opened, and a game page opens again with the
server gone; the manifest makes the app installable."""

import struct

import pytest
from flask import request
from playwright.sync_api import expect

from tests.conftest import served
from tests.e2e.conftest import e2e_app
from tests.e2e.helpers import (
    PHONE,
    SHORT_PHONES,
    answered,
    assert_thumb_zone,
    engine_view,
    expect_version,
    lay_out,
    speak,
    start_game,
    tap_card,
    until,
)

LAYOUT = ["2S", "3H", "5D", "9C"]
# After that layout each of these has one outcome (no question): 4♠ is laid down, 6♥ takes
# 2♠ + 4♠, Q♣ is laid down (RULES.md 1.3, forced maximal capture).
OFFLINE_TAPS = ["4S", "6H", "QC"]

#: The page is in the service worker's hands. A function, not a bare expression: Playwright
#: evaluates a bare one again with eval() at each poll, which the page's CSP refuses
#: (script-src 'self'), so the wait failed whenever the worker was not there at once.
CONTROLLED = "() => navigator.serviceWorker.controller !== null"
#: The service worker has activated: its activate step, which claims the pages open, is over.
ACTIVATED = """() => navigator.serviceWorker.ready.then(r => r.active.state === "activated" || new Promise(
  done => r.active.addEventListener("statechange", () => r.active.state === "activated" && done(true))))"""


def controlled(page) -> None:
    """The page is in the service worker's hands. The worker claims the pages open when it
    activates; a page whose navigation left before that and whose document came after (a
    race a busy machine loses now and then: the wait for the controller then ran 30 s out)
    is not claimed, and is controlled from its next load, as on a phone: loaded again."""
    until(page, ACTIVATED)
    if not page.evaluate(CONTROLLED):
        page.reload()
    page.wait_for_function(CONTROLLED)


def plays(page, base_url, game_id) -> list[str]:
    moves = page.request.get(f"{base_url}/api/games/{game_id}/transcript").json()["moves"]
    return [m.get("card") for m in moves if m["type"] == "play"]


def test_three_taps_made_offline_are_applied_once_each_when_back_online(page, context, base_url, shot):
    game_id = start_game(page, base_url)
    lay_out(page, LAYOUT)
    expect_version(page, 1)
    context.set_offline(True)
    waiting = page.locator("#waiting")
    for n, code in enumerate([*OFFLINE_TAPS, "8D"], start=1):
        page.click(f"#pick-{code}")
        expect(waiting).to_contain_text(f"Offline: {n} entr")
        expect(page.locator(f"#pick-{code}")).to_be_disabled()
    # Undo takes back the last waiting tap, which never reached the server, and says so.
    expect(page.locator("#undo button")).to_have_text("↶ Undo: 8♦ (not sent yet)")
    page.click("#undo button")
    expect(waiting).to_contain_text("Offline: 3 entries waiting")
    expect(waiting).to_contain_text("4♠, 6♥, Q♣")
    expect(waiting).to_be_in_viewport()
    # The board keeps the thread (issue 31): the waiting cards on the table, in order, with
    # who played them, and who plays next (Ann deals: Ben plays first, then they alternate).
    expect(page.locator("#live .table-cards [data-pending] .chip")).to_have_text(["4♠Ben", "6♥Ann", "Q♣Ben"])
    expect(page.locator("#live .prompt")).to_have_text("Ann plays next (after the taps waiting).")
    expect(page.locator("#pick-8D")).to_be_enabled()
    expect(page.locator("#net-error")).to_be_hidden()
    expect_version(page, 1)
    shot("offline-01-three-waiting", full_page=False)

    context.set_offline(False)
    expect(waiting).to_be_hidden()
    expect_version(page, 4)
    expect(page.locator("#live [data-pending]")).to_be_hidden()
    expect(page.locator("#live .prompt")).to_contain_text("Ann to play")
    for code in OFFLINE_TAPS:
        expect(page.locator(f"#pick-{code}")).to_be_disabled()
    expect(page.locator("#pick-8D")).to_be_enabled()
    expect(page.locator("#net-error")).to_be_hidden()
    assert plays(page, base_url, game_id) == OFFLINE_TAPS
    shot("offline-02-sent", full_page=False)
    # A reload sends nothing again: the phone kept no waiting tap.
    page.reload()
    expect_version(page, 4)
    expect(waiting).to_be_hidden()
    assert plays(page, base_url, game_id) == OFFLINE_TAPS


def test_a_tap_whose_answer_was_lost_is_sent_again_and_recorded_once(page, base_url):
    """The tap reaches the server, which applies it, but its answer never comes back (the
    Wi-Fi dropped on the way): the phone cannot know, so the tap waits and is sent again
    with its id, and the server recognises it instead of applying it twice."""
    game_id = start_game(page, base_url)
    lay_out(page, LAYOUT)

    def lose_the_answer(route):
        route.fetch()  # the server gets the tap and applies it
        route.abort("internetdisconnected")  # the phone never hears back

    page.route("**/moves", lose_the_answer, times=1)
    page.click("#pick-7C")  # 7♣ takes 2♠ + 5♦
    expect_version(page, 2)
    expect(page.locator("#pick-7C")).to_be_disabled()
    expect(page.locator("#waiting")).to_be_hidden()
    expect(page.locator("#net-error")).to_be_hidden()
    assert plays(page, base_url, game_id) == ["7C"]
    assert_thumb_zone(page, "after a lost answer")


def test_a_tap_the_server_could_not_take_waits_and_goes_again_by_itself(page, base_url):
    """Issue 30: a database full or read-only answers 503 and records nothing; the phone
    keeps the tap waiting as it does offline ("Server busy"), and sends it again by itself
    until it is taken, once."""
    game_id = start_game(page, base_url)
    lay_out(page, LAYOUT)

    def busy(route):
        route.fulfill(status=503, content_type="text/html", body="<p>The database cannot take a move now.</p>")

    page.route("**/moves", busy, times=2)  # the tap, and the first try again at once
    page.click("#pick-7C")  # 7♣ takes 2♠ + 5♦
    waiting = page.locator("#waiting")
    expect(waiting).to_contain_text("Server busy: 1 entry waiting")
    expect(waiting).to_be_in_viewport()
    expect(page.locator("#net-error")).to_be_hidden()  # not blamed on the connection
    expect_version(page, 1)
    expect(page.locator("#version")).to_have_value("2", timeout=15_000)  # sent again (every 5 s), taken
    expect(waiting).to_be_hidden()
    expect(page.locator("#pick-7C")).to_be_disabled()
    assert plays(page, base_url, game_id) == ["7C"]


def test_a_waiting_tap_is_refused_with_its_reason_when_another_phone_moved_first(
    page, context, browser, polling_url, shot
):
    """On the server whose pages poll as at a table (twice a second): the refusal stays on
    screen after the next poll's answer, until it is dismissed."""
    base_url = polling_url
    game_id = start_game(page, base_url)
    lay_out(page, LAYOUT)
    answered(page, lambda: page.click("#share summary"), "#share")
    answered(page, lambda: page.click("#share button:has-text('Add a referee')"), "#share")
    link = page.locator("input[aria-label='Referee link']").input_value()

    context.set_offline(True)
    page.click("#pick-4S")
    expect(page.locator("#waiting")).to_contain_text("Offline: 1 entry waiting")

    other = browser.new_context(viewport=PHONE, device_scale_factor=1, has_touch=True, is_mobile=True)
    try:
        phone = other.new_page()
        phone.goto(link)
        answered(phone, lambda: phone.click("button:has-text('Referee on this phone')"), "body")
        answered(phone, lambda: phone.click("#pick-7C"))  # 7♣ takes 2♠ + 5♦
        expect_version(phone, 2)
    finally:
        other.close()

    context.set_offline(False)
    banner = page.locator("#net-error")
    expect(banner).to_contain_text("Not recorded: 4♠. Another phone entered a move first")
    expect(banner).to_be_in_viewport()
    expect(page.locator("#waiting")).to_be_hidden()
    expect_version(page, 2)
    expect(page.locator("#pick-7C")).to_be_disabled()  # the board is the other phone's
    expect(page.locator("#pick-4S")).to_be_enabled()  # and 4♠ can be entered again
    assert plays(page, base_url, game_id) == ["7C"]
    shot("offline-03-refused", full_page=False)
    with page.expect_response(lambda r: "/live" in r.url):  # the next poll answers...
        pass
    expect(banner).to_be_visible()  # ...and the refusal is still there
    page.click("#net-error .dismiss")
    expect(banner).to_be_hidden()


def reload_offline(page, context, played: list[str], waiting: list[str]) -> dict:
    """Tap ``played`` in (each answered), go offline, tap ``waiting`` (each waits on the
    phone), then reload without the network: what the board, the waiting taps and Undo said
    before the reload, which the reloaded page must say again."""
    controlled(page)  # the page is kept on the phone from its first answer
    for code in played:
        tap_card(page, code)
    context.set_offline(True)
    for n, code in enumerate(waiting, start=1):
        page.click(f"#pick-{code}")
        expect(page.locator("#live [data-pending] .chip")).to_have_count(n)
    shown = {part: page.locator(part).inner_text() for part in ("#live", "#waiting", "#undo-box")}
    page.reload()
    for part, text in shown.items():
        expect(page.locator(part)).to_have_text(text, use_inner_text=True)
    for code in waiting:
        expect(page.locator(f"#pick-{code}")).to_be_disabled()
    return shown


@pytest.mark.parametrize("size, lang", SHORT_PHONES)
def test_a_reload_offline_shows_a_hand_of_100_as_it_stands_with_its_waiting_taps(page, context, base_url, size, lang):
    """Issue 44: the page kept on the phone is the board of its last answer, not the board
    as first opened (a total of 0, the waiting cards given to the wrong players, no Undo)."""
    page.set_viewport_size(size)
    game_id = start_game(page, base_url, "hundred", ["Ann", "Ben", "Cat"], dealer=2)  # Ann plays first
    speak(page, lang)
    reload_offline(page, context, ["8H", "7C"], ["5D", "2S"])  # Ann 8, Ben 15; Cat's 5♦ and Ann's 2♠ wait
    expect_version(page, 2)
    expect(page.locator(".running .now")).to_have_text("15")
    expect(page.locator("#live [data-pending] .chip")).to_have_text(["5♦Cat", "2♠"])
    expect(page.locator("#undo button")).to_contain_text("2♠")
    page.click("#undo button")  # takes back the last waiting tap, as before the reload
    expect(page.locator("#live [data-pending] .chip")).to_have_text(["5♦Cat"])
    expect(page.locator("#pick-2S")).to_be_enabled()

    context.set_offline(False)
    expect(page.locator("#waiting")).to_be_hidden()
    expect_version(page, 3)
    assert plays(page, base_url, game_id) == ["8H", "7C", "5D"]
    expect(page.locator(".running .now")).to_have_text(str(engine_view(page, base_url, game_id)["total"]))


@pytest.mark.parametrize("size, lang", SHORT_PHONES)
def test_a_reload_offline_does_not_ask_for_tablanettes_layout_again(page, context, base_url, size, lang):
    """Issue 44: the layout entered is on the board the reload shows, with the taps waiting."""
    page.set_viewport_size(size)
    game_id = start_game(page, base_url)
    speak(page, lang)
    controlled(page)
    lay_out(page, LAYOUT)
    reload_offline(page, context, ["4S"], ["6H", "QC"])  # 6♥ takes 2♠ + 4♠ once sent
    expect(page.locator(".layout-form")).to_have_count(0)
    expect(page.locator("#live .table-cards .chip:not(.waited)")).to_have_count(5)
    expect(page.locator("#live [data-pending] .chip")).to_have_text(["6♥Ann", "Q♣Ben"])

    context.set_offline(False)
    expect(page.locator("#waiting")).to_be_hidden()
    expect_version(page, 4)
    assert plays(page, base_url, game_id) == OFFLINE_TAPS
    table = engine_view(page, base_url, game_id)["table"]
    expect(page.locator("#live .table-cards .chip")).to_have_count(len(table))


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_installable_with_a_service_worker_that_opens_a_page_without_the_server(page, tmp_path):
    with served(e2e_app(tmp_path, POLL_SECONDS=60)) as url:
        page.goto(url + "/")
        manifest_url = page.locator("link[rel=manifest]").get_attribute("href")
        manifest = page.request.get(url + manifest_url).json()
        assert manifest["name"] and manifest["short_name"] == "companion"
        assert manifest["display"] == "standalone" and manifest["start_url"] == "/"
        sizes = {}
        for icon in manifest["icons"]:
            answer = page.request.get(url + icon["src"])
            assert answer.ok, icon
            if icon["type"] == "image/png":
                sizes[(icon["sizes"], icon["purpose"])] = png_size(answer.body())
        assert sizes == {
            ("192x192", "any"): (192, 192),
            ("512x512", "any"): (512, 512),
            ("512x512", "maskable"): (512, 512),
        }
        apple = page.locator("link[rel=apple-touch-icon]").get_attribute("href")
        assert png_size(page.request.get(url + apple).body()) == (180, 180)

        scope = page.evaluate("navigator.serviceWorker.ready.then(r => r.active && r.scope)")
        assert scope == url + "/"
        game_id = start_game(page, url)
        controlled(page)
        page.reload()  # this time through the worker, which keeps the page
        expect_version(page, 0)
    # The server is gone: the game page still opens, from the phone.
    page.goto(f"{url}/games/{game_id}")
    expect(page.locator("#picker")).to_be_visible()
    expect(page.locator("#live")).to_contain_text("Ann")
    page.goto(f"{url}/players")
    expect(page.locator("body")).to_contain_text("No connection, and this page was not opened on this phone before.")


def test_a_repeat_load_fetches_no_script_or_stylesheet(page, tmp_path):
    """Issue 34: once the service worker keeps the shell, a game page loaded again takes its
    scripts, stylesheets and icons from the phone (the worker's cache): the server is asked
    for the page itself only (the board as it is now), and the stream and the worker's own
    update check, which answers 304 (nothing sent)."""
    app = e2e_app(tmp_path, POLL_SECONDS=60, PUSH_POLL_SECONDS=3600)
    asked: list[tuple[str, int]] = []

    @app.after_request
    def seen(response):
        asked.append((request.path, response.status_code))
        return response

    with served(app) as url:
        game_id = start_game(page, url)
        controlled(page)
        expect(page.locator(".game[data-push=open]")).to_have_count(1)
        asked.clear()
        statics: list = []
        page.on("response", lambda r: statics.append(r) if "/static/" in r.url else None)
        page.reload()
        expect_version(page, 0)
        expect(page.locator(".game[data-push=open]")).to_have_count(1)
        expect(page.locator("#picker")).to_be_visible()
    paths = {path for path, _ in asked}
    assert not [path for path in paths if path.startswith("/static/")], asked
    assert paths <= {f"/games/{game_id}", f"/games/{game_id}/events", "/sw.js"}, asked
    assert all(status == 304 for path, status in asked if path == "/sw.js"), asked
    # The first load's three, and what the page loads once it has (morphing answers in, issue 45;
    # the screen kept on, issue 46).
    scripts_and_styles = {
        r.url.split("?")[0].rsplit("/", 1)[1]: r for r in statics if r.url.split("?")[0].endswith((".js", ".css"))
    }
    later = {"idiomorph.min.js", "morph.js", "awake.js"}
    assert set(scripts_and_styles) == {"app.css", "htmx.min.js", "app.js", *later}, statics
    assert all(r.from_service_worker for r in scripts_and_styles.values()), statics


#: Of the elements on the first screen, those whose centre is not their own (something lies over it).
COVERED = """els => els.filter((e) => {
  const r = e.getBoundingClientRect(), x = r.x + r.width / 2, y = r.y + r.height / 2;
  return y < window.innerHeight && !e.contains(document.elementFromPoint(x, y));
}).map((e) => e.textContent.trim())"""


def covered(buttons) -> list[str]:
    return buttons.evaluate_all(COVERED)


@pytest.mark.parametrize("size, lang", SHORT_PHONES)
def test_the_connections_banner_leaves_a_choices_buttons_uncovered(page, context, base_url, shot, size, lang):
    """The banner that says the connection is gone (at the bottom, near the thumb) and a choice
    that opens over the grid (a sheet, at the bottom too: 100's pad for a black ace) are both
    shown: the banner moves to the top of the screen, and every button of the sheet can be
    tapped without dismissing it first."""
    page.set_viewport_size(size)
    start_game(page, base_url, "hundred", ["Ann", "Ben", "Cat"], dealer=2)  # Ann plays first
    speak(page, lang)
    tap_card(page, "8H")
    tap_card(page, "4C")
    tap_card(page, "AS")  # Ann's black ace: the pad, a sheet over the grid
    sheet = page.locator("#live .choice.sheet")
    expect(sheet.locator("#announced")).to_be_visible()
    context.set_offline(True)
    page.evaluate("() => window.htmx.trigger('#live', 'poll')")  # the board asked for, and no connection
    banner = page.locator("#net-error")
    expect(banner).to_be_visible()
    expect(banner).to_be_in_viewport()
    buttons = sheet.locator("button")
    expect(buttons.first).to_be_visible()
    assert covered(buttons) == []
    assert_thumb_zone(page)
    shot(f"offline-banner-over-a-sheet-{size['width']}-{lang}", full_page=False)


@pytest.mark.parametrize("size, lang", [SHORT_PHONES[0], SHORT_PHONES[3]])  # 375x667 in English, 320x568 in Japanese
def test_the_connections_banner_leaves_the_grid_and_undo_uncovered(page, context, base_url, shot, size, lang):
    """On a short phone the grid's last row and Undo reach the bottom of the screen, where the
    banner that says the connection is gone sits (near the thumb). It then goes to the top,
    below the bar of taps waiting, and every card and Undo can be tapped without dismissing it."""
    page.set_viewport_size(size)
    start_game(page, base_url, "hundred", ["Ann", "Ben", "Cat"], dealer=2)
    speak(page, lang)
    tap_card(page, "8H")
    context.set_offline(True)
    page.evaluate("() => window.htmx.trigger('#live', 'poll')")  # the board asked for, and no connection
    banner = page.locator("#net-error")
    expect(banner).to_be_in_viewport()
    taps = page.locator("#picker .pick, #undo button")
    assert taps.count() == 53
    assert covered(taps) == []
    page.click("#pick-4C")  # the grid's last row: tapped through, taken (waiting for the network)
    expect(page.locator("#waiting")).to_be_visible()
    expect(banner).to_be_in_viewport()
    assert covered(taps) == []
    assert page.evaluate("() => document.getElementById('net-error').getBoundingClientRect().top") >= page.evaluate(
        "() => document.getElementById('waiting').getBoundingClientRect().bottom"
    )
    shot(f"offline-banner-above-the-grid-{size['width']}-{lang}", full_page=False)
