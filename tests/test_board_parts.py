"""A board's parts (issue 45, "Speed": the server's answers to htmx shrink as the page's
changes do): each element at the top of the live region carries a digest of its markup, and
an answer sends the parts the page says it shows (``X-Board-Parts``) as stubs, the rest whole.
static/morph.js puts them together (tests/e2e/test_phone_e2e.py)."""

from __future__ import annotations

import re

from companion.board import parts
from tests.conftest import become_referee

HX = {"HX-Request": "true"}
BOARD = re.compile(r'<section id="live".*?</section>', re.S)
DIGESTS = re.compile(r'data-part="([0-9a-f]{8})"')


def test_each_top_level_element_is_marked_with_the_digest_of_its_own_markup():
    html = (
        '<div class="a"><p>x <b>y</b></p><br><img src=z></div>\n'
        "<!-- <p> in a comment is no element -->"
        '<p class="b" data-x=\'{"k":1}\'>1</p><input type="hidden" name=n value=1>'
        '<svg viewBox="0 0 1 1"><path d="M0"/></svg><hr/>text'
    )
    marked = parts.mark(html)
    tops = [
        '<div class="a"><p>x <b>y</b></p><br><img src=z></div>',
        '<p class="b" data-x=\'{"k":1}\'>1</p>',
        '<input type="hidden" name=n value=1>',
        '<svg viewBox="0 0 1 1"><path d="M0"/></svg>',
        "<hr/>",
    ]
    assert DIGESTS.findall(marked) == [parts.digest(t) for t in tops]
    # the digest goes last in each start tag (before its > or />); nothing else changes
    assert re.sub(r' data-part="[0-9a-f]{8}"', "", marked) == html
    assert f'<hr data-part="{parts.digest("<hr/>")}"/>' in marked
    assert f'<p class="b" data-x=\'{{"k":1}}\' data-part="{parts.digest(tops[1])}">1</p>' in marked


def test_a_part_the_page_shows_is_sent_as_a_stub():
    deal, prompt = '<p class="deal">Deal 1</p>', '<p class="prompt">Ann to play.</p>'
    assert parts.mark(f"{deal}\n{prompt}", frozenset({parts.digest(deal)})) == (
        f'<template data-part="{parts.digest(deal)}"></template>\n'
        f'<p class="prompt" data-part="{parts.digest(prompt)}">Ann to play.</p>'
    )


def test_what_a_page_says_it_shows_is_read_as_digests_only():
    assert parts.known(None) == frozenset()
    assert parts.known("0123abcd  ffffffff\tnot-one 0123ABCD 12345 <x>") == {"0123abcd", "ffffffff"}
    many = " ".join(f"{i:08x}" for i in range(1000))
    assert len(parts.known(many)) == parts.MOST_KNOWN


def digests_of(answer) -> list[str]:
    return DIGESTS.findall(BOARD.search(answer.get_data(as_text=True)).group(0))


def test_an_answer_leaves_out_the_parts_the_page_shows_and_sends_the_rest(app, client):
    """Tute: a card changes the prompt, the trick and the scoreboard's turn; the deal's line
    and the trumps stay, and go back as stubs. The page (morph.js) puts the same board
    together: the stubs' digests and the parts sent are those of the whole answer."""
    created = client.post("/api/games", json={"game": "tute", "players": ["Ann", "Ben", "Cat"]}).get_json()
    become_referee(client, created["id"], created["edit_key"])
    url = f"/games/{created['id']}/moves"
    first = client.post(url, data={"version": 0, "type": "trump", "card": "7C"}, headers=HX)
    shown = digests_of(first)
    assert "<template" not in first.get_data(as_text=True)  # no X-Board-Parts: nothing left out
    lead = {"version": 1, "type": "play", "card": "AC"}
    asked = client.post(url, data=lead, headers=HX | {"X-Board-Parts": " ".join(shown)})
    body = BOARD.search(asked.get_data(as_text=True)).group(0)
    stubs = re.findall(r'<template data-part="([0-9a-f]{8})"></template>', body)
    sent = [d for d in digests_of(asked) if d not in stubs]
    assert stubs and sent and set(stubs) <= set(shown) and not set(sent) & set(shown)
    assert "Vary" in asked.headers and "X-Board-Parts" in asked.headers["Vary"]
    # the same answer to a page that shows nothing: every part whole, the same digests in order
    client.post(f"/games/{created['id']}/undo", data={"version": 2}, headers=HX)
    whole = client.post(url, data=lead, headers=HX)
    assert digests_of(whole) == digests_of(asked)
    assert "<template" not in BOARD.search(whole.get_data(as_text=True)).group(0)
