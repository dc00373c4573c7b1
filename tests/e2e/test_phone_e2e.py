"""The referee on the phone itself (issue 45): a game page whose view names a Python bundle
starts Pyodide in a Web Worker (static/phone.js) after the page has loaded, and
``window.companionPhone`` calls the bundle's ``companion.phone`` through it. Here the bundle
is a stand-in whose ``echo`` answers what it is given; the real one is the engines."""

from __future__ import annotations

import io
import logging
import zipfile
from dataclasses import dataclass, field

import pytest
from flask import Response, current_app, request
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect
from werkzeug.datastructures import MultiDict

from companion import games
from companion.views import phone as phone_views
from companion.views.pyodide import served_version
from tests.conftest import become_referee, make_app, served
from tests.e2e.conftest import e2e_app
from tests.e2e.deals import Step, perform, script
from tests.e2e.helpers import answered, api_game, api_referee, axe, expect_version, keep, until
from tests.e2e.test_offline import controlled
from tests.test_phone_render import TOKEN, _bare, _refused

#: The stand-in bundle's module: each function takes a JSON string and returns one.
PHONE = """
import json

def echo(s):
    return s

def fail(s):
    raise ValueError("no such card: " + json.loads(s)["card"])
"""


def stand_in_bundle() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as bundle:
        bundle.writestr("companion/__init__.py", "")
        bundle.writestr("companion/phone.py", PHONE)
    return out.getvalue()


@pytest.fixture(scope="module")
def phone_url(tmp_path_factory):
    """A server whose referee pages name the stand-in bundle (in place of the app's own,
    ``views.phone.bundle_url``; a page names a bundle only with PHONE_REFEREE)."""
    app = e2e_app(tmp_path_factory.mktemp("phone"), POLL_SECONDS=60, PHONE_REFEREE=True)
    if served_version(app) is None:
        pytest.skip("Pyodide is not set up here (make pyodide: it needs npm)")
    body = stand_in_bundle()
    app.add_url_rule("/test/phone.zip", "phone_bundle", lambda: Response(body, mimetype="application/zip"))
    real = phone_views.bundle_url

    def bundle_url() -> str:  # this app's pages only: the module's other servers keep the real one
        return "/test/phone.zip" if current_app.config is app.config else real()

    with pytest.MonkeyPatch.context() as patch, served(app) as url:
        patch.setattr(phone_views, "bundle_url", bundle_url)
        yield url


def test_a_game_page_starts_the_phones_referee_and_calls_it(page, phone_url):
    page.set_viewport_size({"width": 375, "height": 667})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    api_game(page, phone_url, "tablanette", ["Ann", "Ben"])
    ms = page.evaluate("() => window.companionPhone.ready")  # resolves once companion.phone is imported
    assert {"import", "boot", "bundle", "module", "total"} <= set(ms), ms
    payload = {"card": "10♦", "table": ["2S", "3H"], "n": 1.5, "none": None}
    assert page.evaluate("p => window.companionPhone.call('echo', p)", payload) == payload
    refused = "() => window.companionPhone.call('fail', {card: 'ZZ'}).then(() => 'answered', e => e.message)"
    assert "ValueError: no such card: ZZ" in page.evaluate(refused)
    missing = "() => window.companionPhone.call('nothing', {}).then(() => 'answered', e => e.message)"
    assert "no function nothing" in page.evaluate(missing)
    assert page.evaluate("p => window.companionPhone.call('echo', p)", [1, 2]) == [1, 2]  # still answering
    assert ms["snapshot"] == "made", ms
    # The next start restores the snapshot of Python's memory the first one kept.
    page.reload()
    again = page.evaluate("() => window.companionPhone.ready")
    assert again["snapshot"] == "restored", again
    assert page.evaluate("p => window.companionPhone.call('echo', p)", payload) == payload
    assert "ValueError: no such card: ZZ" in page.evaluate(refused)
    assert errors == []


# --- The real referee in the phone (issue 45): companion/phone.py in the page's Pyodide. ---
#
# A server made with PHONE_REFEREE=True: a referee's game page boots the worker, takes the
# game (GET /games/<id>/phone) and answers each tap itself; each applied tap waits in the
# page's queue (localStorage) and is sent to the server, which stays the record. The tests
# below cut the network once the phone holds the game, so every answer is the phone's.

#: The phone of these tests: an iPhone SE.
SE = {"width": 375, "height": 667}
#: The phone holds the game the page shows: its taps are answered there. A function (the
#: page's CSP refuses a bare expression, which Playwright would eval at each poll).
PLAYING = "() => !!window.companionReferee && window.companionReferee.playing()"
#: The phone's ``take`` called directly: ``[record, csrf]``; its answer, or its error's words.
TAKE = """([record, csrf]) => window.companionPhone.call('take', Object.assign({}, record,
  {language: document.documentElement.lang, csrf})).then(JSON.stringify, e => 'failed: ' + e.message)"""
#: No tap waits to be sent any more.
SENT = "key => window.localStorage.getItem(key) === null"
#: Pyodide boots in 3-10 s here, more on a loaded machine (no snapshot in a new context).
BOOT_MS = 90_000
#: A whole deal's taps sent one after the other once the network is back.
SEND_MS = 60_000
#: The default run's slice of the game x language matrix; the rest is marked full.
SLICE = {("tablanette", "ja")}


def matrix(slice_: set) -> list:
    """Every game in both languages, those outside ``slice_`` marked ``full``."""
    return [
        pytest.param(g, lang, id=f"{g}-{lang}", marks=() if (g, lang) in slice_ else pytest.mark.full)
        for g in games.GAMES
        for lang in ("en", "ja")
    ]


@dataclass
class PhoneServer:
    """The server, and each POST to a game's /moves it received (its path), in order."""

    url: str
    posted: list = field(default_factory=list)

    def moves_posted(self, game_id: str) -> int:
        return sum(1 for path in self.posted if path == f"/games/{game_id}/moves")


@pytest.fixture(scope="module")
def phone_server(tmp_path_factory):
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # a whole deal's requests, not printed
    app = e2e_app(tmp_path_factory.mktemp("phone-referee"), POLL_SECONDS=60, PHONE_REFEREE=True)
    if served_version(app) is None:
        pytest.skip("Pyodide is not set up here (make pyodide: it needs npm)")
    server = PhoneServer("")

    @app.after_request
    def seen(response):
        if request.method == "POST" and request.path.endswith("/moves"):
            server.posted.append(request.path)
        return response

    with served(app) as url:
        server.url = url
        yield server


@pytest.fixture(scope="module")
def phones(browser):
    """One phone a language (a browser context at 375x667 with the ``lang`` cookie, as the
    switch on every page sets it), kept for the module as a phone at the table is: its
    Pyodide snapshot, cache and service worker serve each test's page after the first
    (a cold start here is 5-10 s a context)."""
    made: dict = {}

    def phone(url: str, lang: str):
        if lang not in made:
            context = browser.new_context(
                viewport=SE,
                locale="ja-JP" if lang == "ja" else "en-US",
                device_scale_factor=1,
                has_touch=True,
                is_mobile=True,
            )
            context.add_cookies([{"name": "lang", "value": lang, "url": url}])
            made[lang] = context
        return made[lang]

    yield phone
    for context in made.values():
        context.close()


@pytest.fixture
def phone_in(phones):
    """A new page on the phone speaking ``lang``: ``(context, page)``; the page records its
    uncaught errors (``page.errors``). Back online and closed after the test."""
    opened = []

    def make(url: str, lang: str):
        context = phones(url, lang)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.errors = errors  # type: ignore[attr-defined]
        opened.append((context, page))
        return context, page

    yield make
    for context, page in opened:
        context.set_offline(False)
        page.close()


def phone_holds_the_game(page) -> None:
    """Wait until the phone holds the game the page shows; if it never does, say why (the
    worker's start, or the phone's own answer to taking the game)."""
    try:
        page.wait_for_function(PLAYING, timeout=BOOT_MS)
    except PlaywrightTimeout:
        started = page.evaluate("() => window.companionPhone.ready.then(JSON.stringify, e => 'failed: ' + e)")
        record = page.request.get(page.url.split("?")[0] + "/phone").json()
        took = page.evaluate(TAKE, [record, "check"])
        raise AssertionError(f"the phone never held the game: worker {started}; take: {took}") from None


def moves_recorded(page, url: str, game_id: str) -> list[dict]:
    return [same_order(m) for m in page.request.get(f"{url}/api/games/{game_id}/transcript").json()["moves"]]


def same_order(move: dict) -> dict:
    """A move as the script and the server both say it: Tablanette's layout cards are sent
    in the grid's order (a set: the order they were tapped in is not the move's)."""
    return {**move, "cards": sorted(move["cards"])} if move.get("type") == "layout" else move


def as_posted(move: dict) -> dict:
    """A script's move as the page's form posts it, and the server records it: every value a
    string (100's total typed on the pad is kept as typed, "50": schemas.py's short word)."""
    return same_order({k: [str(x) for x in v] if isinstance(v, list) else str(v) for k, v in move.items()})


def back_online(page, context, game_id: str) -> None:
    """The network is back: every waiting tap is sent (the ``online`` event, or the 5 s
    timer), and the banner goes."""
    context.set_offline(False)
    page.wait_for_function(SENT, arg=f"companion.waiting:{game_id}", timeout=SEND_MS)
    expect(page.locator("#waiting")).to_be_hidden()


def waiting_words(page, n: int) -> str:
    """The banner's words for ``n`` taps waiting offline, in the page's language."""
    box = page.locator("#waiting")
    return box.get_attribute("data-one") if n == 1 else box.get_attribute("data-many").replace("{n}", str(n))


def refuse_a_played_card(page, played: list[str]) -> None:
    """Tap a card already played (offline: the phone refuses it, the board says why) and
    check the page for axe violations in that state."""
    code = next(c for c in reversed(played) if page.locator(f"#pick-{c}").count())
    answered(page, lambda: page.click(f"#pick-{code}", force=True))  # struck through, still tappable
    expect(page.locator("#live .error")).to_be_visible()
    assert axe(page).violations_count == 0, axe(page).generate_report()


@pytest.mark.parametrize("game, lang", matrix(SLICE))
def test_a_whole_deal_offline_is_refereed_by_the_phone_and_recorded_once_back(
    phone_server, phone_in, screens, game, lang
):
    url = phone_server.url
    context, page = phone_in(url, lang)
    players, steps = script(game)
    game_id, _ = api_referee(page, url, game, players)
    expect(page.locator("html")).to_have_attribute("lang", lang)
    phone_holds_the_game(page)
    sent_before = phone_server.moves_posted(game_id)

    context.set_offline(True)
    played: list[str] = []
    for n, step in enumerate(steps, start=1):
        perform(page, step)
        expect_version(page, n)
        if step.move.get("type") == "play":
            played.append(step.move["card"])
        if n == len(steps) // 2:  # a refusal, answered in the phone too
            refuse_a_played_card(page, played[:-1])
    deal_end = page.locator("#live .deal-end")
    expect(deal_end).to_be_visible()
    expect(page.locator("#waiting .text")).to_have_text(waiting_words(page, len(steps)))
    assert page.evaluate(PLAYING), "the phone stopped refereeing"
    keep(page, screens, f"phone-{game}-{lang}-end")
    report = axe(page)
    assert report.violations_count == 0, report.generate_report()
    assert phone_server.moves_posted(game_id) == sent_before, "a tap reached the server while offline"

    back_online(page, context, game_id)
    assert moves_recorded(page, url, game_id) == [as_posted(step.move) for step in steps]
    assert phone_server.moves_posted(game_id) == sent_before + len(steps)  # each sent once
    expect(deal_end).to_be_visible()
    # No tap said as not recorded (the banner may still say the board could be stale: a poll
    # that failed offline, until the next one answers).
    expect(page.locator("#net-error[data-sticky]")).to_have_count(0)
    assert page.errors == []


#: The service worker's copy of the page (templates/offline/sw.js, PAGES) is the board at
#: ``version``: static/app.js posts it after each answer, and the worker replaces the copy
#: it has (a delete, then a put); a reload a few milliseconds after the last tap, on a loaded
#: machine, found no copy at all once in 12 runs ("this page was not opened on this phone").
KEPT = """version => caches.open("companion-pages")
  .then(c => c.match(location.href, {ignoreSearch: true, ignoreVary: true}))
  .then(r => r ? r.text() : "")
  .then(t => { const v = new DOMParser().parseFromString(t, "text/html").querySelector("#version");
               return !!v && v.value === String(version); })"""


def reload_offline(page, version: int) -> None:
    """Reload without the network once the page kept on the phone is the board at ``version``."""
    until(page, KEPT, version)
    page.reload()
    expect_version(page, version)


#: The board's words (#live), less what static/app.js threads on it while taps wait
#: ([data-pending], the prompt it rewords): see the test after the next.
BOARD = """() => { const live = document.querySelector("#live").cloneNode(true);
  live.querySelectorAll("[data-pending], .prompt").forEach(e => e.remove());
  return live.textContent.replace(/\\s+/g, " ").trim(); }"""


#: The parts of the page a card of Tute's first trick does not change, each marked.
UNCHANGED = "#live .scoreboard, #live .deal-line, #picker, #undo, #pick-{other}"
MARK = "sel => document.querySelectorAll(sel).forEach(e => { e.dataset.kept = ''; e.__kept = true; })"
#: Each part still the element it was (morphed, not replaced), and the card tapped focused.
STILL = "sel => [...document.querySelectorAll(sel)].map(e => !!e.__kept)"


def test_a_tap_changes_only_what_the_card_changes(phone_server, phone_in):
    """Issue 45, item 6: an answer, the phone's and the server's alike, is morphed into the
    page. The elements a card did not change stay the same elements, and the card tapped
    keeps the focus (its played mark is put on it, not on a new button)."""
    url = phone_server.url
    context, page = phone_in(url, "en")
    players, steps = script("tute")
    game_id, _ = api_referee(page, url, "tute", players)
    phone_holds_the_game(page)
    page.wait_for_function("() => !!window.Idiomorph")
    perform(page, steps[0])  # the turned card (trumps); then two cards of the first trick
    page.wait_for_function(SENT, arg=f"companion.waiting:{game_id}")
    sent = phone_server.moves_posted(game_id)
    for n, step in enumerate(steps[1:3], start=2):  # answered in the phone, then by the server
        if n == 3:
            page.evaluate("() => window.companionReferee.forget()")
        kept = UNCHANGED.format(other=steps[3].cards[0])
        page.evaluate(MARK, kept)
        perform(page, step)
        expect_version(page, n)
        expect(page.locator(f"#pick-{step.cards[0]}")).to_have_attribute("aria-disabled", "true")
        assert page.evaluate(STILL, kept) == [True] * 5, n
        assert page.evaluate("() => document.activeElement.id") == f"pick-{step.cards[0]}", n
    page.wait_for_function(SENT, arg=f"companion.waiting:{game_id}")
    assert phone_server.moves_posted(game_id) == sent + 2  # the phone's tap sent, and the server's
    assert page.errors == []


#: The worker's answers to taps held back until the test lets them go (LET_GO).
HOLD_TAPS = """() => { const call = window.__call = window.companionPhone.call; window.__held = [];
  window.companionPhone.call = (op, p) => op !== "tap" ? call(op, p)
    : new Promise((answer) => window.__held.push(() => answer(call(op, p)))); }"""
LET_GO = "() => { window.companionPhone.call = window.__call; window.__held.forEach((go) => go()); }"
#: Counts the requests htmx is asked to make (its configRequest event, before anyone answers it).
ASKED_HTMX = """() => { window.__asked = 0;
  window.addEventListener("htmx:configRequest", () => { window.__asked += 1; }, true); }"""


def test_a_finger_on_a_card_sees_its_answer_as_it_lifts(phone_server, phone_in):
    """Issue 45, item 6: the phone works a tap out while the finger is on the card
    (phone.peek), and shows that answer as the finger lifts, without waiting for the worker
    again and without htmx gathering the form (no request of it); the worker is told to keep
    that game, the tap is sent once, and the phone goes on."""
    url = phone_server.url
    context, page = phone_in(url, "en")
    game_id, _ = api_referee(page, url, "tablanette", ["Ann", "Ben"])
    phone_holds_the_game(page)
    perform(page, Step("layout", cards=LAYOUT["cards"], move=LAYOUT))
    page.evaluate(HOLD_TAPS)
    card = page.locator("#pick-4S")
    box = card.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.wait_for_function("() => window.companionReferee.worked()")
    page.evaluate(ASKED_HTMX)
    page.mouse.up()
    expect_version(page, 2)  # shown while the worker's answer to the tap is still held back
    expect(card).to_have_attribute("aria-disabled", "true")
    assert page.evaluate("() => window.__held.length") == 1  # the worker was told all the same
    assert page.evaluate("() => window.__asked") == 0
    page.evaluate(LET_GO)
    perform(page, Step("card", cards=["6H"]))  # 6♥ takes 2♠ + 4♠: the phone's game went on
    expect_version(page, 3)
    page.wait_for_function(SENT, arg=f"companion.waiting:{game_id}", timeout=SEND_MS)
    cards = [{"type": "play", "card": c} for c in ("4S", "6H")]
    assert moves_recorded(page, url, game_id) == [as_posted(LAYOUT), *cards]
    assert page.errors == []


def test_a_reload_offline_shows_the_phones_board_and_the_phone_goes_on(phone_server, phone_in):
    """The page kept on the phone (the service worker's copy of the last answer) and the
    phone's own copy of the game (localStorage) take the referee on after a reload without
    the network: the board of the last tap, not the board as first opened."""
    url = phone_server.url
    context, page = phone_in(url, "en")
    players, steps = script("tute")
    game_id, _ = api_referee(page, url, "tute", players)
    controlled(page)  # the page and Pyodide are kept on the phone from here on
    phone_holds_the_game(page)
    sent_before = phone_server.moves_posted(game_id)

    context.set_offline(True)
    for n, step in enumerate(steps[:4], start=1):
        perform(page, step)
        expect_version(page, n)
    board = page.evaluate(BOARD)
    expect(page.locator("#waiting .text")).to_have_text(waiting_words(page, 4))
    reload_offline(page, 4)
    phone_holds_the_game(page)
    assert page.evaluate(BOARD) == board  # the last tap's board (the trick of 3 cards)
    expect(page.locator("#waiting .text")).to_have_text(waiting_words(page, 4))
    for n, step in enumerate(steps[4:8], start=5):  # answered in the phone, offline still
        perform(page, step)
        expect_version(page, n)
    assert page.evaluate(PLAYING)
    assert phone_server.moves_posted(game_id) == sent_before

    back_online(page, context, game_id)
    assert moves_recorded(page, url, game_id) == [as_posted(step.move) for step in steps[:8]]
    assert phone_server.moves_posted(game_id) == sent_before + 8
    assert page.errors == []


def test_a_board_fetched_offline_while_the_phone_referees_says_the_phone_goes_on(phone_server, phone_in):
    """Offline, the board's poll fails. The phone referees the game, so its board is its own
    answers: the banner says it goes on refereeing and sends the taps later, not that the
    board may be out of date."""
    url = phone_server.url
    context, page = phone_in(url, "ja")
    players, steps = script("tute")
    api_referee(page, url, "tute", players)
    phone_holds_the_game(page)
    context.set_offline(True)
    perform(page, steps[0])
    expect_version(page, 1)
    page.evaluate(FAILED_POLL)
    banner = page.locator("#net-error")
    expect(banner).to_be_visible()
    expect(banner.locator(".text")).to_have_text("接続がありません。この端末で審判を続け、接続が戻ったら送信します。")
    assert axe(page).violations_count == 0, axe(page).generate_report()
    # Said once: dismissed, it does not come back over the grid at the next poll that fails.
    banner.locator(".dismiss").click()
    expect(banner).to_be_hidden()
    page.evaluate(FAILED_POLL)
    expect(banner).to_be_hidden()
    assert page.evaluate("() => window.companionReferee.playing()")
    assert page.errors == []


#: The board asked for, as its poll does, once its request has failed (offline) and the page
#: has said whatever it says of it.
FAILED_POLL = """() => new Promise(function (done) {
  var ended = function () { window.setTimeout(done); };
  document.addEventListener("htmx:sendError", ended, { once: true });
  document.addEventListener("htmx:responseError", ended, { once: true });
  window.htmx.trigger("#live", "poll");
})"""


def test_a_reload_offline_shows_the_phones_taps_once(phone_server, phone_in):
    """After a reload offline, the taps waiting are on the phone's board (its kept copy)
    once: not threaded on it again as waiting chips, the prompt as the board says it."""
    url = phone_server.url
    context, page = phone_in(url, "en")
    game_id, _ = api_referee(page, url, "tablanette", ["Ann", "Ben"])
    controlled(page)
    phone_holds_the_game(page)
    context.set_offline(True)
    perform(page, Step("layout", cards=LAYOUT["cards"], move=LAYOUT))
    for n, code in enumerate(["4S", "6H"], start=2):
        perform(page, Step("card", cards=[code]))
        expect_version(page, n)
    board = page.locator("#live").inner_text()
    reload_offline(page, 3)
    phone_holds_the_game(page)
    expect(page.locator("#live [data-pending] .chip")).to_have_count(0)
    expect(page.locator("#live")).to_have_text(board, use_inner_text=True)
    context.set_offline(False)


def test_a_tap_made_while_the_phone_starts_again_offline_is_not_lost(phone_server, phone_in):
    url = phone_server.url
    context, page = phone_in(url, "en")
    game_id, _ = api_referee(page, url, "tablanette", ["Ann", "Ben"])
    controlled(page)
    phone_holds_the_game(page)
    context.set_offline(True)
    perform(page, Step("layout", cards=LAYOUT["cards"], move=LAYOUT))
    perform(page, Step("card", cards=["4S"]))
    reload_offline(page, 2)
    if page.evaluate(PLAYING):
        pytest.skip("the phone was back before the first tap: nothing to see")
    page.click("#pick-6H")  # 6♥ takes 2♠ + 4♠, once sent: waits, the phone not started yet
    phone_holds_the_game(page)
    page.click("#pick-QC")
    back_online(page, context, game_id)
    expect_version(page, 4)  # seen: 3, Q♣ "not recorded: another phone entered a move first"
    expect(page.locator("#net-error[data-sticky]")).to_have_count(0)  # no tap said as not recorded
    assert moves_recorded(page, url, game_id) == [
        as_posted(LAYOUT),
        *({"type": "play", "card": c} for c in ("4S", "6H", "QC")),
    ]


#: Tablanette's layout, and what follows it (test_offline.py's): 4♠ is laid down, 6♥ takes
#: 2♠ + 4♠, 7♣ takes 2♠ + 5♦, 8♦ is laid down.
LAYOUT = {"type": "layout", "cards": ["2S", "3H", "5D", "9C"]}


def test_taps_waiting_when_another_referee_moved_first_give_way_to_the_servers_board(phone_server, phone_in):
    """Another referee's move reaches the server while this phone's taps wait: back online,
    the server's board stands, the banner names the taps not recorded, and the phone takes
    the server's game again and referees the next tap."""
    url = phone_server.url
    context, page = phone_in(url, "en")
    game_id, key = api_referee(page, url, "tablanette", ["Ann", "Ben"])
    phone_holds_the_game(page)
    perform(page, Step("layout", cards=LAYOUT["cards"], move=LAYOUT))
    page.wait_for_function(SENT, arg=f"companion.waiting:{game_id}", timeout=SEND_MS)
    assert moves_recorded(page, url, game_id) == [as_posted(LAYOUT)]

    context.set_offline(True)
    for n, code in enumerate(["4S", "6H"], start=2):
        perform(page, Step("card", cards=[code]))
        expect_version(page, n)
    expect(page.locator("#waiting .text")).to_have_text(waiting_words(page, 2))
    other = page.request.post(  # another referee (the API, with the game's edit key) moves first
        f"{url}/api/games/{game_id}/moves",
        data={"version": 1, "move": {"type": "play", "card": "7C"}},
        headers={"X-Edit-Key": key},
    )
    assert other.status == 200, other.text()

    back_online(page, context, game_id)
    banner = page.locator("#net-error")
    conflict = page.locator("#waiting").get_attribute("data-conflict").replace("{cards}", "4♠, 6♥")
    expect(banner).to_contain_text(conflict)
    expect(banner).to_be_in_viewport()
    expect_version(page, 2)  # the server's board: 7♣ took 2♠ + 5♦
    expect(page.locator("#pick-7C")).to_have_attribute("aria-disabled", "true")
    expect(page.locator("#pick-4S")).not_to_have_attribute("aria-disabled", "true")
    assert moves_recorded(page, url, game_id) == [as_posted(LAYOUT), {"type": "play", "card": "7C"}]
    phone_holds_the_game(page)  # the phone took the server's game again

    context.set_offline(True)  # so the next tap can only be answered in the phone
    perform(page, Step("card", cards=["8D"]))
    expect_version(page, 3)
    expect(page.locator("#pick-8D")).to_have_attribute("aria-disabled", "true")
    back_online(page, context, game_id)
    expect(banner).to_contain_text(conflict)  # the refusal stays until dismissed
    assert moves_recorded(page, url, game_id) == [
        as_posted(LAYOUT),
        {"type": "play", "card": "7C"},
        {"type": "play", "card": "8D"},
    ]
    page.click("#net-error .dismiss")
    expect(banner).to_be_hidden()
    assert page.errors == []


# --- The phone's own Pyodide renders the server's HTML, byte for byte ---------------------

#: A call to companion.phone in the page's worker: ``[op, payload]``; its answer, parsed.
CALL = "([op, payload]) => window.companionPhone.call(op, payload)"


@pytest.fixture(scope="module")
def pyodide_page(phones, phone_server):
    """A page whose worker runs companion.phone (Pyodide), booted once for the module. The
    page's own game is left alone while the tests call the worker with theirs."""
    page = phones(phone_server.url, "en").new_page()
    api_referee(page, phone_server.url, "tablanette", ["Ann", "Ben"])
    phone_holds_the_game(page)
    yield page
    page.close()


class InThePhone:
    """One game on a server (a Flask test client of an app whose form token is fixed) and in
    the phone's worker, as tests/test_phone_render.py's ``Both`` with the phone's module run
    in Pyodide instead of CPython: each tap goes to both and the answers are compared."""

    def __init__(self, page, app, game: str, players: list[str], language: str):
        self.page = page
        self.client = app.test_client()
        self.client.set_cookie("lang", language)
        made = self.client.post("/api/games", json={"game": game, "players": players, "options": {}}).get_json()
        self.id = made["id"]
        become_referee(self.client, self.id, made["edit_key"])
        self.current = f"http://localhost/games/{self.id}"
        record = self.client.get(f"/games/{self.id}/phone").get_json()
        taken = page.evaluate(CALL, ["take", record | {"language": language, "csrf": TOKEN}])
        self.version = record["row"]["version"]
        assert taken == {"version": self.version}
        self.compared = 0

    def compare(self, server, said: dict, what) -> dict:
        assert said["status"] == server.status_code, (what, said["status"], server.status_code)
        assert said["html"] == server.get_data(as_text=True), what
        assert said["version"] == int(server.headers["X-Version"]), what
        assert said["address"] == server.headers.get("HX-Replace-Url"), what
        self.version = said["version"]
        self.compared += 1
        return said

    def tap(self, move: dict) -> dict:
        fields = [("version", str(self.version))]
        for k, v in move.items():
            fields += [(f"{k}[]", str(x)) for x in v] if isinstance(v, list) else [(k, str(v))]
        headers = {"HX-Request": "true", "HX-Current-URL": self.current}
        server = self.client.post(f"/games/{self.id}/moves", data=MultiDict(fields), headers=headers)
        said = self.page.evaluate(CALL, ["tap", {"fields": fields, "current": self.current}])
        return self.compare(server, said, move)

    def undo(self) -> dict:
        headers = {"HX-Request": "true", "HX-Current-URL": self.current}
        server = self.client.post(f"/games/{self.id}/undo", data={"version": str(self.version)}, headers=headers)
        return self.compare(server, self.page.evaluate(CALL, ["undo", {"current": self.current}]), "undo")


@pytest.mark.parametrize("game, lang", matrix({("tute", "ja")}))
def test_the_phones_pyodide_answers_each_tap_of_a_deal_with_the_servers_html(pyodide_page, tmp_path, game, lang):
    app = make_app(tmp_path)
    app.jinja_env.globals["csrf_token"] = lambda: TOKEN  # the server's token is the phone's
    players, steps = script(game)
    both = InThePhone(pyodide_page, app, game, players, lang)
    seen: set[str] = set()
    for i, step in enumerate(steps):
        if (bare := _bare(step)) is not None:  # the card alone first: the rules' question
            asked = both.tap(bare)
            assert not asked["applied"] and asked["status"] == 200
        if i % 5 == 2 and (wrong := _refused(game, seen, step)) is not None:
            assert both.tap(wrong)["status"] == 422
        assert both.tap(step.move)["applied"], step
        if i % 7 == 3:  # Undo, and the move again
            both.undo()
            both.tap(step.move)
        seen |= set(step.cards)
    both.undo()  # the deal's end taken back, and entered again
    assert "deal-end" in both.tap(steps[-1].move)["html"]
    assert both.compared > len(steps)
