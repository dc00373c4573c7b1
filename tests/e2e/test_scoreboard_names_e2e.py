"""Five players' names on the game page's scoreboard (issue 44): each chip takes the room
its name needs while the row has it, so 長谷川大輔 beside four shorter names is whole from
375 px (it was cut to 「長谷…」 in a fifth of the row even at 390 px), in English and
Japanese; on the narrowest phone, where the row has no room for every name, the short
ones stay whole."""

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import PHONES, api_game

FIVE = ["長谷川大輔", "佐藤花子", "健太郎", "さくら", "翔太"]
#: Each name's box on the scoreboard: its name and how much of it the box cuts off.
CUT = (
    "() => [...document.querySelectorAll('.scoreboard .name')].map(n => [n.textContent, n.scrollWidth - n.clientWidth])"
)


@pytest.mark.parametrize("game", ["tute", "hundred"])
def test_five_names_whole_where_the_row_has_room(bilingual_phone, base_url, game):
    page = bilingual_phone
    api_game(page, base_url, game, FIVE)
    expect(page.locator(".scoreboard .name")).to_have_text(FIVE)
    for size in PHONES:
        page.set_viewport_size(size)
        # Polled until the layout is in (a function: the page's CSP refuses a bare expression's eval()).
        if size["width"] >= 375:
            page.wait_for_function(f"() => ({CUT})().every(([name, cut]) => cut <= 0)")
        else:
            page.wait_for_function(f"() => ({CUT})().every(([name, cut]) => name.length > 3 || cut <= 0)")
        print(game, size, page.evaluate(CUT))
