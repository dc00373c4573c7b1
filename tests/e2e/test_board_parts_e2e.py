"""The server's answers to htmx leave out the board's parts the page shows (issue 45, item 6;
companion/board/parts.py), and the page (static/morph.js) puts the same board together as
the server's page shows: each part, with its words and attributes, in its place."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.deals import perform, script
from tests.e2e.helpers import answered, api_game, expect_version

#: Each part of a board, written out with its attributes sorted (a morphed element keeps
#: the order its attributes came in): the page's own #live, or the one in ``html``.
PARTS = """html => {
  const live = html ? new DOMParser().parseFromString(html, "text/html").getElementById("live")
                    : document.getElementById("live");
  const out = (n) => n.nodeType === 3 ? n.data.replace(/\\s+/g, " ") : n.nodeType !== 1 ? "" :
    "<" + n.localName + [...n.attributes].map(a => " " + a.name + "=" + a.value).sort().join("") + ">" +
    [...n.childNodes].map(out).join("") + "</" + n.localName + ">";
  return [...live.children].map(out);
}"""
MORPHING = "() => !!window.Idiomorph"


def test_a_board_put_together_from_the_parts_sent_is_the_servers_board(page, base_url):
    players, steps = script("tute")
    game_id = api_game(page, base_url, "tute", players)
    page.wait_for_function(MORPHING)
    asked, answers = [], []
    page.on("request", lambda r: asked.append(r.headers.get("x-board-parts")) if r.url.endswith("/moves") else None)
    page.on("response", lambda r: answers.append(r.text()) if r.url.endswith("/moves") else None)

    def same_as_the_servers(version: int) -> None:
        expect_version(page, version)
        server = page.request.get(f"{base_url}/games/{game_id}").text()
        assert page.evaluate(PARTS) == page.evaluate(PARTS, server), version

    for version, step in enumerate(steps[:8], start=1):  # the trumps, a trick and its end, the next lead
        perform(page, step)
        same_as_the_servers(version)
    assert all(asked) and len(asked) == 8  # each tap said what the page shows
    left_out = [a.count("<template data-part=") for a in answers]
    # Every part changes only with the trumps turned, the first card (the trump's line, one part
    # with the deal's, stops being that tap's answer) and the trick's end.
    assert [n for n, parts in enumerate(left_out, start=1) if not parts] == [1, 2, 5], left_out
    for version in (9, 10):  # Undo twice: parts the page showed before come back, not kept as they are now
        answered(page, lambda: page.click(".undo-button"))
        expect(page.locator("#live .notice")).to_have_text("Undone.")  # said in the answer only: left aside
        page.evaluate("() => document.querySelector('#live .notice').remove()")
        same_as_the_servers(version)


def test_a_part_the_page_cannot_fill_brings_the_whole_board(page, base_url):
    """An answer with a stub the page does not hold (it cannot happen but by a fault): the
    board is not put together with a hole; it is asked for again, whole."""
    players, steps = script("tute")
    game_id = api_game(page, base_url, "tute", players)
    page.wait_for_function(MORPHING)
    perform(page, steps[0])
    expect_version(page, 1)
    shown = page.evaluate(PARTS)
    holey = (
        '<section id="live" class="live"><input type="hidden" id="version" name="version" value="9">'
        '<template data-part="00000000"></template></section>'
    )
    page.route(f"**/games/{game_id}/moves", lambda route: route.fulfill(body=holey, content_type="text/html"))
    with page.expect_request(lambda r: f"/games/{game_id}/live" in r.url and "version" not in r.url):
        page.click(f"#pick-{steps[1].cards[0]}")
    expect_version(page, 1)  # the game as it stands (the card was not sent: the route answered)
    expect(page.locator("#live .trump-line")).to_be_visible()
    assert page.evaluate(PARTS) == shown


#: An answer that adds a part asking something of the server (hx-get; its answer put nowhere,
#: so the page stays as the test made it), put in place by the page (companionSwap); then, in
#: the same task (before any frame), the part tapped as a finger does (pointerdown, then
#: click). Whether htmx sent its request, and whether htmx had been shown the part before.
TAP_AT_ONCE = """([html, press]) => {
  let asked = false;
  document.addEventListener("htmx:beforeRequest", (e) => { if (e.detail.elt.id === "probe") { asked = true; } });
  window.companionSwap(html);
  const probe = document.getElementById("probe");
  const known = "htmx-internal-data" in probe;
  if (press) { probe.dispatchEvent(new PointerEvent("pointerdown", { bubbles: true })); }
  probe.click();
  return [known, asked];
}"""


def test_a_part_added_answers_a_tap_made_before_its_frame(page, base_url):
    """htmx is shown the parts an answer added once their frame is painted (issue 45: not
    within the tap's own task), or at once when a finger or a key comes first: a tap made
    right after the answer still asks the server (static/morph.js)."""
    players, _ = script("tute")
    game_id = api_game(page, base_url, "tute", players)
    page.wait_for_function(MORPHING)
    live = page.evaluate("() => document.getElementById('live').outerHTML")
    probe = f'<p id="probe" class="probe" hx-get="/games/{game_id}/live" hx-swap="none" hx-trigger="click">?</p>'
    html = live.replace("</section>", probe + "</section>")
    assert page.evaluate(TAP_AT_ONCE, [html, True]) == [False, True]  # not shown to htmx, until the finger came
    # Without a tap, htmx is shown it once the frame is in: a click alone then asks too.
    page.evaluate("() => document.getElementById('probe').remove()")
    page.evaluate("([html]) => window.companionSwap(html)", [html])
    page.wait_for_function("() => 'htmx-internal-data' in document.getElementById('probe')")
    with page.expect_request(lambda r: f"/games/{game_id}/live" in r.url):
        page.evaluate("() => document.getElementById('probe').click()")
