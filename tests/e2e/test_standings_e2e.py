"""The players' pages and the charts fit the phones a table holds, in English and Japanese
(issue 44): the standings' tables need no sideways scroll (the English Tablanette table was
518 px wide at 390), the header keeps each link on one line (「日本語」 was split over two at
320 px), a line's name at a chart's edge is whole where the chart has room for it ("1
Tablane…", 「1 長谷川大…」), and 100's "Can't go?" never splits 「キャンセル」."""

import json

import pytest
from playwright.sync_api import expect

from companion import web
from tests.conftest import served
from tests.e2e.conftest import e2e_app
from tests.e2e.helpers import PHONES, answered, api_game, keep

FIVE = ["長谷川大輔", "Christopher", "佐藤花子", "Alexander", "さくら"]
SIZES = {f"{s['width']}x{s['height']}": s for s in PHONES}

#: Each element's lines: how many line boxes its text takes (1: never split), and whether
#: its box cuts any of it off.
LINES = """els => els.map(e => { const r = document.createRange(); r.selectNodeContents(e);
  const tops = new Set([...r.getClientRects()].filter(x => x.width > 0).map(x => Math.round(x.top)));
  return [e.textContent.trim(), tops.size, e.scrollWidth - e.clientWidth]; })"""
#: Each chart's end labels: their text and how far each runs past the chart's box.
LABELS = """texts => texts.map(t => { const box = t.ownerSVGElement.viewBox.baseVal, b = t.getBBox();
  return [t.textContent, Math.round(b.x + b.width - box.width)]; })"""


def sample(game: str, players: list[str]) -> dict:
    """The adapter's finished sample game with its players renamed."""
    finished = web.get(game).SAMPLE
    moves = json.dumps(finished["finished"]["moves"])
    for old, new in zip(finished["players"], players):
        moves = moves.replace(f'"{old}"', json.dumps(new))
    return {"game": game, "players": players, "options": finished["finished"]["options"], "moves": json.loads(moves)}


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    """A server of its own with a club's games: each game's finished sample, one more left
    unfinished, and a five-player 100 with two hands lost."""
    app = e2e_app(tmp_path_factory.mktemp("club"), POLL_SECONDS=60)
    client = app.test_client()
    tables = {"tablanette": ["Christopher", "長谷川大輔"], "tute": ["Alexander", "長谷川大輔", "Christopher"]}
    tables |= {"tantony": ["Alexander", "長谷川大輔", "Christopher", "佐藤花子"], "hundred": FIVE}
    for game, players in tables.items():
        finished = web.get(game).SAMPLE
        played = sample(game, players) if game == "tablanette" else {**finished, **finished["finished"]}
        body = {"game": game, "players": played["players"], "options": played["options"]}
        made = client.post("/api/games", json=body).get_json()
        for version, move in enumerate(played["moves"]):
            answer = client.post(
                f"/api/games/{made['id']}/moves",
                json={"version": version, "move": move},
                headers={"X-Edit-Key": made["edit_key"]},
            )
            assert answer.status_code == 200, answer.get_json()
        client.post("/api/games", json={"game": game, "players": players})  # and one unfinished
    roster = {p["name"]: p["id"] for p in app.extensions["store"].roster()}
    with served(app) as url:
        yield url, roster


@pytest.mark.parametrize("size", SIZES)
def test_the_standings_and_the_players_pages_fit_the_phone(bilingual_phone, club, size, screens):
    page = bilingual_phone
    page.set_viewport_size(SIZES[size])
    width = SIZES[size]["width"]
    base, roster = club
    page.goto(f"{base}/stats")
    expect(page.locator("table.figures")).to_have_count(4)
    widths = page.locator("table.figures").evaluate_all(
        "ts => ts.map(t => [t.scrollWidth, t.parentElement.clientWidth])"
    )
    print(size, page.evaluate("document.documentElement.lang"), "standings (table, its box):", widths)
    for table, box in widths:
        assert table <= box <= width, (size, widths)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    names = page.locator("table.figures tbody th a").evaluate_all(LINES)
    assert all(lines == 1 and cut <= 0 for _, lines, cut in names), names
    for url in ("/players", "/stats", f"/players/{roster['長谷川大輔']}", f"/players/{roster['Christopher']}"):
        page.goto(base + url)
        links = page.locator(".top a").evaluate_all(LINES)
        print(size, url, "header links (text, lines, cut):", links)
        assert all(lines == 1 and cut <= 0 for _, lines, cut in links), (url, links)
        # One row: the language link level with the brand, the header one link tall.
        assert page.locator(".top").evaluate("e => e.getBoundingClientRect().height") <= 44, (url, size)
        assert page.evaluate("document.documentElement.scrollWidth") <= width, url
    # Christopher won the Tablanette game: his wins chart names it whole ("1 Tablane…").
    labels = page.locator(".chart svg text.end").evaluate_all(LABELS)
    print(size, "wins chart labels (text, past the edge):", labels)
    assert labels and all(not text.endswith("…") and past <= 0 for text, past in labels), labels
    # Issue 46: the period's links, each on one line and 44 px tall, and the range's form open
    # (its dates, its error), within the phone's width.
    bad = "period=range&since=2026-11-30&until=2026-11-01"
    for url in ("/stats?period=month", f"/players/{roster['長谷川大輔']}?{bad}"):
        page.goto(base + url)
        periods = page.locator(".periods a").evaluate_all(LINES)
        heights = page.locator(".periods a").evaluate_all("as => as.map(a => a.getBoundingClientRect().height)")
        print(size, url, "period links (text, lines, cut):", periods)
        assert len(periods) == 3 and all(lines == 1 and cut <= 0 for _, lines, cut in periods), (url, periods)
        assert min(heights) >= 44, (url, heights)
        assert page.evaluate("document.documentElement.scrollWidth") <= width, url
    expect(page.locator(".range-form .error")).to_be_visible()
    page.goto(f"{base}/stats")
    keep(page, screens, f"standings-{size}-{page.evaluate('document.documentElement.lang')}")


@pytest.mark.parametrize("size", SIZES)
def test_five_players_names_whole_on_100s_chart_and_cancel_on_one_line(bilingual_phone, base_url, size, screens):
    page = bilingual_phone
    page.set_viewport_size(SIZES[size])
    hands = [{"type": "tally", "loser": FIVE[0]}, {"type": "tally", "loser": FIVE[2]}]
    api_game(page, base_url, "hundred", FIVE, moves=hands)
    page.locator(".score-chart summary").click()
    expect(page.locator(".score-chart svg")).to_be_visible()
    labels = page.locator(".score-chart svg text.end").evaluate_all(LABELS)
    print(size, "100's chart labels (text, past the edge):", labels)
    assert [text.split(" ", 1)[1] for text, _ in labels] == FIVE and all(past <= 0 for _, past in labels), labels
    answered(page, lambda: page.locator(".reveal").click())
    cancel = page.locator(".reveal-form .cancel")
    expect(cancel).to_be_visible()
    lines = cancel.evaluate_all(LINES)
    print(size, "Can't go's Cancel (text, lines, cut):", lines)
    assert lines[0][1] == 1 and lines[0][2] <= 0, lines
    keep(page, screens, f"cant-go-{size}-{page.evaluate('document.documentElement.lang')}")
