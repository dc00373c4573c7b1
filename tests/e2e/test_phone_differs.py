"""When the server records a tap with another outcome than the phone worked out (its rules
are newer than the phone's: issue 45, "The server stays the record"), the phone takes the
server's game: the server's board stands, the red banner says so, and the phone goes on
refereeing from the server's game."""

from __future__ import annotations

import dataclasses
import logging

import pytest
from playwright.sync_api import expect

from companion.games import tablanette
from tests.conftest import served
from tests.e2e.conftest import e2e_app
from tests.e2e.helpers import axe, expect_version, lay_out, start_game

#: The phone holds the game the page shows: it answers the taps.
PLAYING = "() => window.companionReferee !== undefined && window.companionReferee.playing()"
#: Nothing waits to be sent.
SENT = "id => !localStorage.getItem('companion.waiting:' + id)"


@pytest.fixture(scope="module")
def phone_url(tmp_path_factory):
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    with served(e2e_app(tmp_path_factory.mktemp("differs"), POLL_SECONDS=60, PHONE_REFEREE=True)) as url:
        yield url


def test_a_tap_the_servers_newer_rules_answer_otherwise_leaves_the_servers_board(page, phone_url, monkeypatch):
    game_id = start_game(page, phone_url)
    page.wait_for_function(PLAYING, timeout=60_000)
    lay_out(page, ["2S", "3H", "5D", "9C"])
    expect_version(page, 1)
    page.wait_for_function(SENT, arg=game_id)
    # The server's rules, newer than the phone's: a card laid down scores 7 more for everyone.
    original = tablanette.apply

    def newer(state, move):
        after = original(state, move)
        if move.get("card") == "4S":
            return dataclasses.replace(after, scores=[s + 7 for s in after.scores])
        return after

    monkeypatch.setattr(tablanette, "apply", newer)
    page.click("#pick-4S")  # answered in the phone: laid down, no points
    expect(page.locator("#net-error")).to_contain_text("another outcome")
    expect(page.locator("#net-error")).to_be_in_viewport()
    expect(page.locator("#live .scoreboard .score").first).to_have_text("7")  # the server's board
    results = axe(page)
    assert results.violations_count == 0, results.generate_report()
    # The phone takes the server's game, and answers the next tap from it.
    page.wait_for_function(PLAYING, timeout=30_000)
    page.click("#pick-6H")
    expect_version(page, 3)
    page.wait_for_function(SENT, arg=game_id)
    moves = page.request.get(f"{phone_url}/api/games/{game_id}/transcript").json()["moves"]
    assert [m.get("card") for m in moves] == [None, "4S", "6H"]
    expect(page.locator("#live .scoreboard .score").first).to_have_text("7")
