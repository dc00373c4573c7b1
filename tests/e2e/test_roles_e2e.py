"""At the table (issue 31): roles said as they are, a new-game form sent twice, offline taps
in a trick that name who plays next only while the rules make it certain. (A reload during
a choice, a played card tapped and Tablanette's offline thread are checked in the deal tests
and test_offline.py.)"""

import re

import pytest
from playwright.sync_api import expect

from tests.conftest import served
from tests.e2e.conftest import e2e_app
from tests.e2e.helpers import (
    PHONE,
    PHONES,
    answered,
    api_game,
    assert_answered_in_view,
    expect_version,
    lay_out,
    speak,
    start_game,
)
from tests.e2e.test_tute_e2e import PLAYERS as TUTE_PLAYERS
from tests.e2e.test_tute_e2e import scripted_deal

LAYOUT = ["2S", "3H", "5D", "9C"]  # KH on it has a choice (TB-08)


def other_phone(browser):
    return browser.new_context(viewport=PHONE, device_scale_factor=1, has_touch=True, is_mobile=True)


def take_over(browser, link: str) -> None:
    """Another phone opens the hand-over link and takes the game over."""
    context = other_phone(browser)
    try:
        taker = context.new_page()
        taker.goto(link)
        answered(taker, lambda: taker.click("form[action$='/join'] button[type=submit]"), "body")
        expect(taker.locator("#picker")).to_be_visible()
        answered(taker, lambda: taker.click("#pick-7C"))  # the new referee's move
    finally:
        context.close()


def share_link(page, kind: str) -> str:
    answered(page, lambda: page.click("#share summary"), "#share")
    answered(page, lambda: page.click(f"#share form:has(input[name=kind][value={kind}]) button"), "#share")
    return page.locator("input[aria-label='Referee link']").input_value()


def test_a_phone_that_hands_over_learns_it_at_once_and_watches(page, browser, base_url):
    """The old phone is told through its stream, without a reload (a mark set on the page
    stays): the grid goes, and it says why; the new phone referees."""
    game_id = start_game(page, base_url)
    lay_out(page, LAYOUT)
    expect(page.locator(".game[data-push=open]")).to_have_count(1)
    page.evaluate("window.sameDocument = true")
    take_over(browser, share_link(page, "handover"))
    notice = page.locator(".game > .notice[role=status]")
    expect(notice).to_have_text("Refereeing moved to another phone: watching now.")
    expect(page.locator("#picker")).to_have_count(0)
    expect(page.locator("#undo")).to_have_count(0)
    expect(page.locator("#recent")).to_be_visible()
    expect_version(page, 2)  # the new referee's move reached the old phone
    expect(notice).to_be_visible()
    assert page.evaluate("window.sameDocument") is True
    page.reload()  # said once: the phone watches from now on
    expect(page.locator(".game > .notice")).to_have_count(0)
    expect(page.locator("#picker")).to_have_count(0)
    assert game_id in page.url


@pytest.fixture(scope="module")
def quiet_url(tmp_path_factory):
    """A server whose pages are never told anything (no stream, no poll in a test's time)."""
    app = e2e_app(tmp_path_factory.mktemp("e2e-quiet"), POLL_SECONDS=3600, PUSH_POLL_SECONDS=3600, PUSH_STREAMS=0)
    with served(app) as url:
        yield url


def test_a_tap_refused_for_want_of_the_right_says_so(page, browser, quiet_url):
    """A phone that was not told it handed the game over (no stream) taps: the tap is not
    recorded, the banner says why (not a referee: nothing about the connection), and the page
    turns into a watcher's."""
    start_game(page, quiet_url)
    lay_out(page, LAYOUT)
    expect(page.locator(".game[data-push=closed]")).to_have_count(1)
    take_over(browser, share_link(page, "handover"))
    expect(page.locator("#picker")).to_be_visible()  # nothing told it
    page.click("#pick-4S")
    banner = page.locator("#net-error")
    expect(banner).to_have_text(
        "Not recorded: 4♠. This phone does not referee this game (any more): only the referee phones enter moves.OK"
    )
    expect(page.locator(".game > .notice")).to_have_text("Refereeing moved to another phone: watching now.")
    expect(page.locator("#picker")).to_have_count(0)
    expect_version(page, 2)  # the other phone's move; this one's tap was not recorded


def test_a_new_game_form_sent_twice_opens_the_game_it_made(page, base_url):
    page.goto(base_url + "/games/new")
    page.fill("#player0", "Dup")
    page.fill("#player1", "Licate")
    page.locator("button[type=submit].primary").dblclick()  # a double tap
    page.wait_for_url(re.compile(r"/games/(?!new)[\w-]+$"))
    made = page.url
    page.go_back()  # Back to the form (loaded again: no page cache here), and Start again
    expect(page.locator("form.new-game")).to_be_visible()
    page.click("button[type=submit].primary")
    page.wait_for_url(made)
    expect_version(page, 0)
    page.goto(base_url + "/")
    expect(page.locator(".games li", has_text="Dup")).to_have_count(1)
    page.goto(base_url + "/games/new")  # a new form is a new game
    page.fill("#player0", "Dup")
    page.fill("#player1", "Licate")
    page.click("button[type=submit].primary")
    page.wait_for_url(re.compile(r"/games/(?!new)[\w-]+$"))
    assert page.url != made


def test_offline_in_a_trick_the_next_player_is_named_only_while_certain(page, context, base_url):
    """Tute: the trick's players in turn; after its last card the winner leads, which only
    the server can say."""
    api_game(page, base_url, "tute", ["Ann", "Ben", "Cat", "Dan"], moves=[{"type": "trump", "card": "5D"}])
    context.set_offline(True)
    page.click("#pick-7S")
    expect(page.locator("#live [data-pending] .chip")).to_have_text(["7♠Ben"])
    expect(page.locator("#live .prompt")).to_have_text("Cat plays next (after the taps waiting).")
    for code in ("JS", "QS", "KS"):
        page.click(f"#pick-{code}")
    expect(page.locator("#live [data-pending] .chip")).to_have_text(["7♠Ben", "J♠Cat", "Q♠Dan", "K♠Ann"])
    expect(page.locator("#live .prompt")).to_have_text("Who plays next is known once the taps waiting are sent.")
    context.set_offline(False)
    expect_version(page, 5)


def cante_buttons_fit(page, pairs: int) -> None:
    """In both languages: ``pairs`` cante buttons, none overflowing or past the screen's
    edge, and the answer in view."""
    for lang in ("en", "ja"):
        speak(page, lang)
        buttons = page.locator("#live .cantes .option")
        expect(buttons).to_have_count(pairs)
        overflowing = buttons.evaluate_all(
            "bs => bs.filter(b => b.scrollWidth > b.clientWidth + 1 || b.getBoundingClientRect().right > innerWidth)"
            ".map(b => b.textContent)"
        )
        assert overflowing == [], (lang, overflowing)
        assert_answered_in_view(page, lang)


def test_cante_buttons_fit_the_narrowest_phone_in_both_languages(page, base_url):
    """Three pairs offered after the first trick: each button holds its points and its cards."""
    moves, _ = scripted_deal()
    page.set_viewport_size(PHONES[2])
    api_game(page, base_url, "tute", TUTE_PLAYERS, moves=moves[:5])
    cante_buttons_fit(page, 3)


def test_four_cante_pairs_wrap_rather_than_overflow_on_an_iphone_se(page, base_url):
    """Four pairs offered at once (every suit's king and queen in the winner's hand): at 375 px
    they do not fit one row, so they take two, each button holding its points and cards."""
    from tests.test_japanese import FOUR, TUTE_CANTE

    page.set_viewport_size(PHONES[1])
    api_game(page, base_url, "tute", FOUR, {"dealer": FOUR[-1]}, TUTE_CANTE)
    cante_buttons_fit(page, 4)
