"""Moves pushed to the other phones (issue 17): a watcher's page is told each move the
referee enters (server-sent events, an EventSource in static/app.js) and shows it, with its
poll an hour away; a page refused a stream (the server's streams all taken) polls."""

import pytest
from playwright.sync_api import expect

from tests.conftest import served
from tests.e2e.conftest import e2e_app
from tests.e2e.helpers import PHONE, answered, expect_version, lay_out, start_game, tap_card

LAYOUT = ["2S", "3H", "5D", "9C"]  # KH then has a choice (TB-08): a question is not a move


@pytest.fixture(scope="module")
def push_url(tmp_path_factory):
    """A server whose pages never poll in a test's time: only a pushed move updates them."""
    app = e2e_app(tmp_path_factory.mktemp("e2e-push"), POLL_SECONDS=3600, PUSH_POLL_SECONDS=3600, PUSH_STREAMS=50)
    with served(app) as url:
        yield url


@pytest.fixture(scope="module")
def full_url(tmp_path_factory):
    """A server with one stream a process, polling twice a second without one."""
    app = e2e_app(tmp_path_factory.mktemp("e2e-full"), POLL_SECONDS=0.5, PUSH_POLL_SECONDS=3600, PUSH_STREAMS=1)
    with served(app) as url:
        yield url


@pytest.fixture
def other_phone(browser):
    context = browser.new_context(viewport=PHONE, device_scale_factor=1, has_touch=True, is_mobile=True)
    yield context.new_page()
    context.close()


def requests_to(page, path: str) -> list[str]:
    seen: list[str] = []
    page.on("request", lambda r: seen.append(r.url) if path in r.url else None)
    return seen


def errors_of(page) -> list[str]:
    said: list[str] = []
    page.on("console", lambda m: said.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: said.append(str(e)))
    return said


def test_a_watcher_sees_each_move_pushed_without_polling(page, other_phone, push_url):
    game_id = start_game(page, push_url)
    expect(page.locator(".game[data-push=open]")).to_have_count(1)
    referee_boards = requests_to(page, "/live")
    watcher = other_phone
    watcher_boards, errors = requests_to(watcher, "/live"), errors_of(watcher)
    watcher.goto(f"{push_url}/games/{game_id}")
    expect(watcher.locator(".game[data-push=open]")).to_have_count(1)  # the stream is open
    expect(watcher.locator("#recent")).to_contain_text("No moves yet.")

    lay_out(page, LAYOUT)
    expect_version(watcher, 1)  # pushed: the poll is an hour away
    expect(watcher.locator("#live .table-cards .chip")).to_have_text(["2♠", "3♥", "5♦", "9♣"])
    expect(watcher.locator("#recent li")).to_have_count(1)

    tap_card(page, "KH")  # a choice: nothing stored, nothing pushed
    expect(page.locator("#live .choice .option")).to_have_count(2)
    answered(page, lambda: page.locator("#live .choice .option", has_text="5").click())
    expect_version(watcher, 2)
    expect(watcher.locator("#live .table-cards .chip")).to_have_text(["2♠", "3♥"])

    answered(page, lambda: page.click(".undo-button"))  # an undo is pushed too
    expect(page.locator("#live")).to_contain_text("Undone.")  # the referee's own answer stays
    expect_version(watcher, 3)
    expect(watcher.locator("#live .table-cards .chip")).to_have_text(["2♠", "3♥", "5♦", "9♣"])

    assert len(watcher_boards) == 3 and all("version=" in url for url in watcher_boards)  # one fetch a move
    assert referee_boards == []  # its own answers bring its board: no fetch of its own moves
    assert errors == []  # no script error, nothing the Content-Security-Policy refused


def test_a_page_refused_a_stream_polls_instead(page, other_phone, full_url):
    game_id = start_game(page, full_url)
    expect(page.locator(".game[data-push=open]")).to_have_count(1)  # the process's only stream
    watcher = other_phone
    watcher.goto(f"{full_url}/games/{game_id}")
    expect(watcher.locator(".game[data-push=closed]")).to_have_count(1)  # answered 204: no stream
    lay_out(page, LAYOUT)
    expect_version(watcher, 1)  # by its poll, twice a second
    expect(watcher.locator(".game[data-push=open]")).to_have_count(0)
