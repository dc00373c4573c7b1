"""A Tablanette deal refereed on a phone set to Japanese (issue 15), its taps spread over the
phones a table holds (390x844, 375x667, 320x568; issue 31): every state is in Japanese,
nothing overflows sideways (Japanese wraps where English does not), and the answer to each
tap is in view, the whole grid and Undo on the first screen from 375x667 up."""

import re

import pytest
from playwright.sync_api import expect

from companion.cards import PACK_52
from tests.e2e.deals import script
from tests.e2e.helpers import (
    PHONES,
    answered,
    api_game,
    assert_answered_in_view,
    engine_view,
    expect_version,
    keep,
    lay_out,
    phone,
    tap,
    tap_card,
)
from tests.test_i18n import english_words

PLAYERS = ["太郎", "花子"]
LAYOUT = ["2S", "3H", "5D", "9C"]  # KH on it has a choice (TB-08); then 5C sweeps 2S+3H


@pytest.fixture
def ja_page(browser):
    context = browser.new_context(
        viewport=PHONES[0], locale="ja-JP", device_scale_factor=1, has_touch=True, is_mobile=True
    )
    yield context.new_page()
    context.close()


def check(page, screens, name: str, full_page: bool = False) -> None:
    """Japanese, and nothing wider than the phone; the screenshot to look at."""
    expect(page.locator("html")).to_have_attribute("lang", "ja")
    # Names are the players' own: these, and any on the server's roster (other tests' tables).
    roster = page.locator("#roster option").evaluate_all("options => options.map(o => o.value)")
    assert english_words(page.content(), PLAYERS + roster) == [], name
    width = page.viewport_size["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width, name
    for box in (b.bounding_box() for b in page.locator("#picker .pick:visible, #live button:visible").all()):
        assert box["height"] >= 44 and box["width"] >= 44, (name, box)
    keep(page, screens, f"ja-{width}-{name}", full_page)
    if not full_page and page.locator("#live").count():
        assert_answered_in_view(page, name)


def test_referee_a_tablanette_deal_in_japanese(ja_page, base_url, screens):
    page = ja_page
    page.goto(base_url + "/")
    check(page, screens, "01-home", full_page=True)
    page.goto(base_url + "/games/new")
    phone(page, 2)
    check(page, screens, "02-new-game", full_page=True)
    for i, name in enumerate(PLAYERS):
        page.fill(f"#player{i}", name)
    page.click("button[type=submit].primary")
    page.wait_for_url(re.compile(r"/games/[\w-]+$"))
    game_id = page.url.rsplit("/", 1)[1]
    phone(page, 1)
    check(page, screens, "03-layout")

    lay_out(page, LAYOUT)
    expect_version(page, 1)
    phone(page, 2)
    check(page, screens, "04-laid-out")

    tap_card(page, "KH")  # two captures: the choice, in Japanese
    expect(page.locator("#live .choice .option")).to_have_count(2)
    check(page, screens, "05-choice")
    answered(page, lambda: page.locator("#live .choice .option", has_text="5").click())
    expect(page.locator("#live .table-cards .chip")).to_have_text(["2♠", "3♥"])

    phone(page, 1)
    tap(page, "5C")  # 太郎's 5 takes 2+3 and empties the table
    expect(page.locator("#live")).to_contain_text("太郎 +10")
    check(page, screens, "06-sweep")

    # A capture of a card not on the table, as a stale phone could send it: refused in Japanese.
    page.evaluate("""() => { const f = document.querySelector('.play-form');
        const i = document.createElement('input'); i.type = 'hidden'; i.name = 'capture[]'; i.value = '2D';
        f.appendChild(i); }""")
    phone(page, 2)
    tap_card(page, "7C")
    expect(page.locator("#live .error")).to_be_visible()
    check(page, screens, "07-refusal")
    page.reload()

    played = set(LAYOUT) | {"KH", "5C"}
    rest = [str(c) for c in PACK_52 if str(c) not in played]
    for i, code in enumerate(rest):
        phone(page, i, block=4)
        tap(page, code)
        assert_answered_in_view(page, f"after {code}")
        if i == 20:
            check(page, screens, "08-mid-deal")
    view = engine_view(page, base_url, game_id)
    assert view["deal"] == 2
    for n in range(3):  # the deal's end, in Japanese, on every phone: its top on the first screen
        phone(page, n)
        expect(page.locator("#live .deal-end")).to_be_in_viewport()
        check(page, screens, "09-deal-end")

    phone(page, 0)
    page.goto(f"{base_url}/games/{game_id}/log")
    check(page, screens, "10-log", full_page=True)
    page.goto(f"{base_url}/games/{game_id}/tally")
    check(page, screens, "11-tally", full_page=True)
    page.goto(f"{base_url}/rules/tablanette")
    check(page, screens, "12-rules", full_page=True)


#: Given names of three characters, as common at a Japanese table as two.
NAMES = ["健太郎", "美奈子", "翔太", "さくら", "ひなた", "大輔"]
#: Each name's box: how much of the name it cuts off (an ellipsis).
CUT = "() => [...document.querySelectorAll('.scoreboard .name')].map(n => n.scrollWidth - n.clientWidth)"
#: How many rows the scoreboard takes.
ROWS = "() => new Set([...document.querySelectorAll('.scoreboard .side')].map(s => s.offsetTop)).size"


@pytest.mark.parametrize("game, count", [("tute", 5), ("tute", 4), ("hundred", 6), ("tablanette", 4)])
def test_three_character_names_are_whole_on_the_narrowest_phone(ja_page, base_url, game, count):
    """At 320x568 every player's name of three characters stays whole on the scoreboard: cut
    to 「健…」 or 「さ…」 it no longer says whose score it is (five players' names were cut
    even at 390 px). From 375x667 up to six players share one row (six took two, and 100's
    grid ended below the first screen)."""
    page = ja_page
    page.set_viewport_size(PHONES[-1])
    api_game(page, base_url, game, NAMES[:count])
    expect(page.locator(".scoreboard .name")).to_have_text(NAMES[:count])
    # A function, polled until the layout is in: the page's CSP refuses a bare expression's eval().
    page.wait_for_function(f"() => ({CUT})().every(cut => cut <= 0)")
    page.set_viewport_size(PHONES[1])
    page.wait_for_function(f"() => ({ROWS})() === 1 && ({CUT})().every(cut => cut <= 0)")


def test_the_turned_trump_is_in_view_after_a_tap_from_the_grids_last_row(ja_page, base_url):
    """At 320x568 the grid's last rows are reached by scrolling. The trump the dealer turned
    is that tap's answer (with whose lead it is): the page brings it back into view."""
    page = ja_page
    page.set_viewport_size(PHONES[-1])
    api_game(page, base_url, "tute", NAMES[:5])
    tap_card(page, "KC")  # the grid's last row
    expect(page.locator("#live .trump-line")).to_be_in_viewport()
    assert_answered_in_view(page, "turned trump")


#: A table of ten, 100's usual most (two packs from seven players).
TEN = NAMES + ["陽菜", "拓海", "結衣", "蓮"]
#: 100's order line is one line with the player to act whole on it, and the grid ends on the first screen.
ORDER_IN_ONE_LINE = """() => {
  const order = document.querySelector('.running .order'), now = order.querySelector('.next');
  const line = parseFloat(getComputedStyle(order).lineHeight) || 1.5 * parseFloat(getComputedStyle(order).fontSize);
  return order.getBoundingClientRect().height < 1.5 * line
    && now.getBoundingClientRect().right <= order.getBoundingClientRect().right
    && document.querySelector('.grid').getBoundingClientRect().bottom <= innerHeight;
}"""


def test_a_table_of_ten_sees_who_plays_next_and_the_whole_grid_at_375(ja_page, base_url):
    """100 with ten players at 375x667: the playing order takes one line, from the player to
    act; what does not fit ends in an ellipsis, and the scoreboard above lists every seat. The
    whole order took two lines (splitting 健太郎 over them) and pushed the grid's last row and
    Undo below the first screen."""
    page = ja_page
    page.set_viewport_size(PHONES[1])
    game_id = api_game(page, base_url, "hundred", TEN, options={"decks": 2})
    tap_card(page, "5S")
    order = engine_view(page, base_url, game_id)["order"]
    expect(page.locator(".running .order span")).to_have_text(order)  # every name, for a screen reader
    page.wait_for_function(ORDER_IN_ONE_LINE)
    assert_answered_in_view(page, "ten players")


#: Every name the board shows in a box of its own: the scoreboard's and Tantony's seats.
CUT_ANY = (
    "() => [...document.querySelectorAll('.scoreboard .name, .seat-box .name')].map(n => n.scrollWidth - n.clientWidth)"
)


@pytest.mark.parametrize("game, moves", [("tute", 37), ("tantony", 61), ("tantony", None)])
def test_names_stay_whole_beside_two_digit_scores_and_at_tantonys_table(ja_page, base_url, game, moves):
    """Four players of three-character names, from 320 px: Tute's scoreboard beside two-digit
    points (cut to 「健…」, 10 px too narrow), Tantony's table of seats mid-deal (「北 …」: no
    name at all at 320 px) and its two teams' chips beside their points at the deal's end
    (「健太郎 & 翔…」)."""
    page = ja_page
    players, steps = script(game)
    names = dict(zip(players, ["健太郎", "美奈子", "翔太郎", "さくら"]))
    played = [{k: names.get(v, v) if k == "to" else v for k, v in s.move.items()} for s in steps[:moves]]
    options = {"dealer": names["Wes"]} if game == "tantony" else None
    api_game(page, base_url, game, list(names.values()), options=options, moves=played)
    expect(page.locator(".seat-box .name" if moves == 61 else ".scoreboard .score").first).to_be_visible()
    for size in reversed(PHONES):
        page.set_viewport_size(size)
        page.wait_for_function(f"() => ({CUT_ANY})().every(cut => cut <= 0)")


#: The deal's table is within the screen, and each player's name on one line above their column.
TABLE_WHOLE = """() => {
  const table = document.querySelector('.deal-end table');
  return table.getBoundingClientRect().right <= innerWidth && [...table.querySelectorAll('thead th')].every(th =>
    th.getBoundingClientRect().height < 2 * parseFloat(getComputedStyle(th).fontSize) + 12);
}"""


def test_five_players_names_head_the_deals_table_whole_at_320(ja_page, base_url):
    """Tute with five at 320x568, the deal's end: each name heads its column on one line (健/太/郎
    stood in a column of characters, and the loser's ✗ wrapped away from its mark)."""
    page = ja_page
    page.set_viewport_size(PHONES[-1])
    players, steps = script("tute", count=5)
    names = dict(zip(players, ["健太郎", "美奈子", "翔太郎", "さくら", "ひなた"]))
    api_game(page, base_url, "tute", list(names.values()), moves=[s.move for s in steps])
    expect(page.locator(".deal-end table thead th")).to_have_text(list(names.values()))
    page.wait_for_function(TABLE_WHOLE)
