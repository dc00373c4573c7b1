"""A game on this phone only (issue 45, item 5), in the phone's own Pyodide: the /phone page
opened once online (the service worker keeps it, the worker, Pyodide and the bundle), then the
network cut. With no connection the game is started (a refusal of the names first, said in
place), a whole deal of Tablanette is tapped in (a refusal and Undo on the way), the page is
reloaded and goes on from what the phone kept; exported, then, with the network back, sent to
the server, which makes it an ordinary game this phone referees: its transcript is the
phone's, and the export's. At 375x667, in English and in Japanese.

Done when (issue 45): "a game that never met a server is sent to one later and reads the same".
"""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from tests.e2e.deals import perform, script
from tests.e2e.helpers import answered, axe, expect_version, keep, until
from tests.e2e.test_offline import controlled

SIZE = {"width": 375, "height": 667}
#: What the page needs with no connection, kept by the service worker: the page itself, the
#: phone's worker, its bundle and Pyodide's files.
KEPT = """async () => {
  const here = document.getElementById("here").dataset;
  const index = new URL(here.worker, location.href).searchParams.get("pyodide");
  const files = ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"];
  const urls = [location.pathname, here.bundle, here.worker, ...files.map((name) => index + name)];
  const hits = await Promise.all(urls.map((url) => caches.match(url, { ignoreVary: true })));
  return hits.every(Boolean);
}"""
#: The game kept on this phone (IndexedDB), as the page keeps it.
KEPT_GAME = """(id) => new Promise((resolve, reject) => {
  const opened = indexedDB.open("companion-here", 1);
  opened.onerror = () => reject(opened.error);
  opened.onsuccess = () => {
    const read = opened.result.transaction("games").objectStore("games").get(id);
    read.onsuccess = () => { opened.result.close(); resolve(read.result); };
  };
})"""
WORDS = {
    "en": {"refused": "no two the same", "started": "Game started on this phone only"},
    "ja": {"refused": "同じ名前", "started": "この端末だけでゲームを始めました"},
}


def _posted(move: dict) -> dict:
    """A move as the page posts it: every value a string."""
    return {k: [str(x) for x in v] if isinstance(v, list) else str(v) for k, v in move.items()}


def _as_scripted(moves: list[dict], steps) -> list[dict]:
    """The moves kept, with the cards of each in the script's order (the page posts the grid's)."""
    return [
        {k: sorted(v, key=[str(x) for x in step.move[k]].index) if isinstance(v, list) else v for k, v in m.items()}
        for m, step in zip(moves, steps)
    ] + moves[len(steps) :]


# Japanese in `make bench`'s run of the phone's whole matrix (full): the suite's time.
@pytest.mark.parametrize("bilingual_phone", ["en", pytest.param("ja", marks=pytest.mark.full)], indirect=True)
def test_a_game_on_this_phone_only_played_offline_is_sent_to_the_server_and_reads_the_same(
    bilingual_phone, here_url, screens
):
    page = bilingual_phone

    def shot(name: str) -> None:
        keep(page, screens, name)

    lang = "ja" if "ja" in page.evaluate("navigator.language") else "en"
    page.set_viewport_size(SIZE)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(here_url + "/")
    answered(page, lambda: page.locator("a[href='/phone']").first.click(), "body")
    controlled(page)
    start = page.locator("#here-new button[type=submit]")
    expect(start).to_be_enabled(timeout=60_000)  # the phone's referee is up
    until(page, KEPT)
    assert axe(page).violations_count == 0, axe(page).generate_report()
    shot(f"phone-only-page-{lang}")

    page.context.set_offline(True)
    # Refused by the engine in the phone, said beside the form; nothing is kept.
    page.fill("#player0", "Ann")
    page.fill("#player1", "Ann ")
    start.click()
    expect(page.locator("#here-error")).to_contain_text(WORDS[lang]["refused"])
    page.fill("#player1", "Ben")
    start.click()
    expect(page.locator("#live .notice")).to_contain_text(WORDS[lang]["started"])
    expect_version(page, 0)
    game_id = page.evaluate("location.hash").lstrip("#")

    players, steps = script("tablanette")
    for i, step in enumerate(steps):
        if i == 3:  # a card already played: refused, said where it went, nothing changes
            played = steps[1].cards[0]  # not the last card: tapped again at once, that is a double tap
            answered(page, lambda: page.click(f"#pick-{played}", force=True))  # aria-disabled, yet sent
            face = page.locator(f"#pick-{played}").inner_text().replace("\n", "")
            expect(page.locator("#live [role=alert]")).to_contain_text(face)  # where it went
        if i == 5:  # Undo, then the card again
            answered(page, lambda: page.click("#undo button"))
            perform(page, steps[4])
        if i == 20:  # reloaded offline: the game as it stands, and it goes on
            board, undo = page.locator("#live .scoreboard").inner_text(), page.locator("#undo button").inner_text()
            page.reload()
            expect(page.locator("#undo button")).to_have_text(undo, timeout=30_000)
            expect(page.locator("#live .scoreboard")).to_have_text(board)
            kept = page.evaluate(KEPT_GAME, game_id)["moves"]
            assert _as_scripted(kept, steps) == [_posted(s.move) for s in steps[:20]]
        perform(page, step)
        if i == 25:
            shot(f"phone-only-mid-deal-{lang}")
    expect(page.locator("#live .deal-end")).to_be_visible()
    shot(f"phone-only-deal-end-{lang}")

    # Exported with no connection: the transcript the server's import takes.
    with page.expect_download() as download:
        page.click("#here-export")
    exported = json.loads(open(download.value.path(), encoding="utf-8").read())
    assert {**exported, "moves": _as_scripted(exported["moves"], steps)} == {
        "format": "companion-transcript/1",
        "game": "tablanette",
        "players": players,
        "options": {"dealer": "Ann"},
        "moves": [_posted(s.move) for s in steps],
    }
    page.click("#here-send")  # still offline: it stays here, and says so
    expect(page.locator("#here-said")).to_be_visible()
    assert page.evaluate(KEPT_GAME, game_id)["sent"] is None

    page.context.set_offline(False)
    page.click("#here-send")
    page.wait_for_url(re.compile(r"/games/[\w-]+$"))
    server_id = page.url.rsplit("/", 1)[1]
    expect(page.locator("#undo button")).to_be_visible()  # this phone referees it there
    expect(page.locator("#live .deal-end")).to_be_visible()
    assert page.request.get(f"{here_url}/api/games/{server_id}/transcript").json() == exported
    kept = page.evaluate(KEPT_GAME, game_id)
    assert kept["sent"]["id"] == server_id and kept["sent"]["joined"]
    assert errors == []


#: The phone's Python bundle kept on its own, the only one kept (templates/offline/sw.js).
ONLY_NEWEST_BUNDLE = """async () => {
  const bundle = new URL(document.getElementById("here").dataset.bundle, location.href).href;
  const kept = await (await caches.open("companion-bundle")).keys();
  return kept.length === 1 && kept[0].url === bundle;
}"""


def test_the_phone_keeps_only_the_newest_python_bundle(page, here_url):
    """A new server's bundle (its address names its contents: any change to the engines or
    the templates is a new one) takes the place of the one kept before, instead of piling up
    beside it on the phone."""
    page.goto(here_url + "/")
    controlled(page)
    page.evaluate("async () => (await caches.open('companion-bundle')).put('/phone/0123abcd.zip', new Response('old'))")
    answered(page, lambda: page.locator("a[href='/phone']").first.click(), "body")
    until(page, ONLY_NEWEST_BUNDLE, timeout=60_000)
