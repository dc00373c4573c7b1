"""Every page and state a table sees, in light and dark (issues 12, 31): zero axe
violations, no rule disabled, and a screenshot of each at 390x844 to look at: every
choice, a refusal with its rule link, Tute and Tantony mid-trick, each game's end of a deal,
the offline banner with the taps waiting on the board, the share panel, the standings.

Positions are set up through the JSON API (what the engine is tested on elsewhere); this
phone then becomes a referee by a one-use link, as a second phone would, and the states
that are never stored (a choice waiting for its answer, a refusal) are tapped in."""

import re

import pytest
from playwright.sync_api import expect

from companion.games import tantony as TT
from tests.e2e.deals import script
from tests.e2e.helpers import (
    SHORT_PHONES,
    answered,
    api_game,
    assert_thumb_zone,
    axe,
    expect_version,
    lay_out,
    speak,
    tap_card,
)
from tests.e2e.test_tute_e2e import PLAYERS as TUTE_PLAYERS
from tests.e2e.test_tute_e2e import scripted_deal


def deal_moves(game: str) -> tuple[list[str], list[dict]]:
    """A whole deal's moves (tests/e2e/deals.py), to set a game at its deal's end."""
    players, steps = script(game)
    return players, [s.move for s in steps]


CODE = re.compile(r"\b(?:10|[2-9AJQK])[SHDC]\b")


SCHEMES = ("light", "dark")


@pytest.fixture
def check(page, shot):
    """axe on the page as it is now, in light and in dark (the page's colours follow the
    phone's: no style sheet animates them, so the switch is done when it returns), and a
    screenshot of each (first screen for live pages). One walk through the states checks
    both schemes: walking it once per scheme cost the suite a minute."""

    def run(name: str, full_page: bool = False) -> None:
        # Cards are chips or symbols (Q♣), never codes (QC), in every message.
        assert not CODE.findall(page.inner_text("body")), (name, CODE.findall(page.inner_text("body")))
        for scheme in SCHEMES:
            page.emulate_media(color_scheme=scheme)
            results = axe(page)
            assert results.violations_count == 0, (scheme, name, results.generate_report())
            shot(f"states-{scheme}-{name}", full_page=full_page)
        page.emulate_media(color_scheme=SCHEMES[0])

    return run


def test_pages(page, base_url, check):
    api_game(page, base_url, "tablanette", ["Ann", "Ben"])
    for name, url in (
        ("home", "/"),
        ("new-tablanette", "/games/new"),
        ("new-100", "/games/new?game=hundred"),
        ("rules", "/rules/"),
        ("lab-tablanette", "/rules/tablanette?table=2S,3H,5D,9C&card=KH"),
        ("lab-tute", "/rules/tute?trump=D&trick=7S,5D&hand=3D,2D,AC&into=hand"),
        ("lab-tantony", "/rules/tantony"),
        ("lab-100", "/rules/hundred?total=95"),
        ("words-tablanette", "/rules/tablanette/words"),
        ("words-tute", "/rules/tute/words"),
        ("words-tantony", "/rules/tantony/words"),
        ("words-100", "/rules/hundred/words"),
        ("standings", "/stats"),  # the game above is on it: a table of figures
        ("standings-month", "/stats?period=month"),  # the same game, started this month
        ("standings-bad-range", "/stats?period=range&since=2026-11-30&until=2026-11-01"),  # the form's error
    ):
        page.goto(base_url + url)
        expect(page.locator("main")).to_be_visible()
        check(name, full_page=True)
    page.goto(base_url + "/games/new")
    page.click("details.rules-options summary")
    expect(page.locator("details.rules-options")).to_have_attribute("open", "")
    check("new-rules-open", full_page=True)


def test_tablanette_states(page, base_url, browser, check):
    game_id = api_game(page, base_url, "tablanette", ["Ann", "Ben"])
    check("tablanette-start")
    lay_out(page, ["2S", "3H", "5D", "9C"])
    expect_version(page, 1)
    check("tablanette-mid-deal")
    tap_card(page, "KH")  # TB-08: two captures
    expect(page.locator("#live .choice.sheet")).to_be_visible()
    assert_thumb_zone(page, "capture choice")
    check("tablanette-capture-choice")
    answered(page, lambda: page.locator("#live .choice .option", has_text="5").click())
    tap_card(page, "5C")  # Ann's 5 takes 2+3: a sweep
    expect(page.locator("#live")).to_contain_text("Sweep!")
    assert_thumb_zone(page, "sweep")
    check("tablanette-sweep")
    page.evaluate("""() => { const f = document.querySelector('.play-form');
        const i = document.createElement('input'); i.type = 'hidden'; i.name = 'capture[]'; i.value = '2D';
        f.appendChild(i); }""")
    tap_card(page, "7C")  # a capture of a card not on the table, as a stale phone could send
    expect(page.locator("#live .error")).to_be_visible()
    assert_thumb_zone(page, "refusal")
    check("tablanette-refusal")
    answered(page, lambda: page.click("#share summary"), "#share")
    check("tablanette-share", full_page=True)
    page.goto(f"{base_url}/games/{game_id}/log")
    check("tablanette-log", full_page=True)
    watcher = browser.new_page(viewport=page.viewport_size)
    try:
        watcher.goto(f"{base_url}/games/{game_id}")
        expect(watcher.locator("#recent li")).to_have_count(3)
        for scheme in SCHEMES:
            watcher.emulate_media(color_scheme=scheme)
            results = axe(watcher)
            assert results.violations_count == 0, (scheme, "watch", results.generate_report())
    finally:
        watcher.close()
    fresh = api_game(page, base_url, "tablanette", ["Ann", "Ben"])  # a deal is tallied from its start
    page.goto(f"{base_url}/games/{fresh}/tally")
    expect(page.locator("#tally")).to_be_visible()
    check("tablanette-tally", full_page=True)

    players, moves = deal_moves("tablanette")
    api_game(page, base_url, "tablanette", players, moves=moves)
    expect(page.locator("#live .deal-end")).to_be_visible()
    check("tablanette-deal-end")


def test_tablanette_take_and_offline_states(page, context, base_url, check):
    """Tablić's many captures, tapped card by card; the taps waiting offline, on the board."""
    lay_downs = [{"type": "play", "card": c, "capture": []} for c in ["5S", "6S", "7S", "8S", "AH", "2H", "3H", "4H"]]
    layout = {"type": "layout", "cards": ["AS", "2S", "3S", "4S"]}
    api_game(page, base_url, "tablanette", ["Ann", "Ben"], {"preset": "tablic"}, [layout, *lay_downs])
    tap_card(page, "KD")
    expect(page.locator("#live .take-form")).to_be_visible()
    check("tablanette-take-cards")
    answered(page, lambda: page.click("text=Cancel: a different card"))
    context.set_offline(True)
    for code in ("9D", "10D"):
        page.click(f"#pick-{code}")
    expect(page.locator("#waiting")).to_contain_text("Offline: 2 entries waiting")
    expect(page.locator("#live [data-pending] .chip")).to_have_count(2)
    check("offline-waiting")
    context.set_offline(False)
    expect(page.locator("#waiting")).to_be_hidden()


def test_tute_states(page, base_url, check):
    moves, _ = scripted_deal()
    flagged = next(n for n in range(1, len(moves)) if _tute_revoke_flagged(moves[:n]))
    cante = next(n for n, m in enumerate(moves) if m["type"] == "declare")
    api_game(page, base_url, "tute", TUTE_PLAYERS, {"loss_limit": 1}, moves[:1])
    check("tute-start")
    api_game(page, base_url, "tute", TUTE_PLAYERS, {"loss_limit": 1}, moves[:3])
    expect(page.locator("#live .trick .badge")).to_be_visible()
    check("tute-mid-trick")
    api_game(page, base_url, "tute", TUTE_PLAYERS, {}, moves)
    expect(page.locator("#live .deal-end")).to_be_visible()
    check("tute-deal-end")
    api_game(page, base_url, "tute", TUTE_PLAYERS, {"loss_limit": 1}, moves[:cante])
    expect(page.locator("#live .choice")).to_be_visible()
    check("tute-cante-offer")
    api_game(page, base_url, "tute", TUTE_PLAYERS, {"loss_limit": 1}, moves[:flagged])
    expect(page.locator("#live .revoke")).not_to_have_count(0)
    assert_thumb_zone(page, "revoke flag")
    check("tute-revoke-flag")
    api_game(page, base_url, "tute", TUTE_PLAYERS, {"loss_limit": 1}, moves)
    expect(page.locator("#live .result")).to_be_visible()
    check("tute-game-over")


@pytest.mark.parametrize("size, lang", SHORT_PHONES)
def test_nothing_interactive_inside_another_at_a_tute_deal_end(page, base_url, check, size, lang):
    """Issue 44: Undo named the deal's last move in the log's words, the rule they cite
    linked: a link inside a button (axe: nested-interactive, serious). Its label is text."""
    page.set_viewport_size(size)
    players, moves = deal_moves("tute")  # the deal's last words cite Tute 2.6
    api_game(page, base_url, "tute", players, {}, moves)
    speak(page, lang)
    expect(page.locator("#live .deal-end")).to_be_visible()
    expect(page.locator("#undo button")).to_contain_text("2.6")
    check(f"tute-deal-end-{size['width']}-{lang}")
    expect(page.locator(":is(button, a, summary) :is(a, button, input, select, textarea)")).to_have_count(0)
    # The verdict's rule stays on one line with its brackets and stop: never "）。" alone.
    assert page.locator("#live .verdict .glued").evaluate_all("gs => gs.map(g => g.getClientRects().length)") == [1]


def _tute_revoke_flagged(moves) -> bool:
    from companion.games import tute as T

    state = T.start(TUTE_PLAYERS, {"loss_limit": 1})
    for move in moves:
        state = T.apply(state, move)
    return bool(T.view(state).get("revokes"))


def test_tantony_and_100_states(page, base_url, check):
    api_game(page, base_url, "tantony", ["Nan", "Eve", "Sam", "Wes"])
    check("tantony-start")
    for code in ("9D", "3D"):
        tap_card(page, code)
    # Who is winning the trick: its card ringed, nothing in a seat cut short ("K♠ …").
    expect(page.locator("#live .compass .best .chip")).to_have_count(1)
    cut_short = "s => s.filter(e => e.scrollWidth > e.clientWidth).length"
    assert page.eval_on_selector_all("#live .compass .card-slot", cut_short) == 0
    check("tantony-mid-trick")
    for code in ("7D", "10D"):
        tap_card(page, code)
    expect(page.locator("#live .choice")).to_be_visible()
    assert_thumb_zone(page, "gift")
    check("tantony-gift")
    players, moves = deal_moves("tantony")
    api_game(page, base_url, "tantony", players, {"dealer": "Wes"}, moves)
    expect(page.locator("#live .deal-end")).to_be_visible()
    check("tantony-deal-end")
    state = TT.start(players, {"dealer": "Wes"})
    for move in moves:
        state = TT.apply(state, move)
    while "give" not in TT.view(state)["expects"]:  # deal 2's first trick, its first legal cards
        moves = [*moves, {"type": "play", "card": TT.view(state)["legal"][0]}]
        state = TT.apply(state, moves[-1])
    api_game(page, base_url, "tantony", players, {"dealer": "Wes"}, moves)
    expect(page.locator("#live .give-row")).to_be_visible()  # the card led names who received it
    assert_thumb_zone(page, "deal 2 gift")
    check("tantony-deal-2-gift")

    api_game(page, base_url, "hundred", ["Ann", "Ben"], {"tokens": 1}, [{"type": "play", "card": "10D"}])
    check("100-mid-hand")
    answered(page, lambda: page.click("#pick-10D", force=True))  # played: the rules say where it went
    expect(page.locator("#live .error a")).to_have_text("100/99/98 4.8")
    check("100-refusal-with-its-rule")
    tap_card(page, "AS")
    expect(page.locator("#announced")).to_be_visible()
    check("100-black-ace")
    answered(page, lambda: page.click("text=Cancel: a different card"))
    tap_card(page, "5S")
    expect(page.locator("[role=alertdialog]")).to_be_visible()
    check("100-bust-confirm")
    answered(page, lambda: page.click("text=Cancel: a different card"))
    answered(page, lambda: page.click('a:has-text("Can\'t go")'))
    check("100-cant-go")
    answered(page, lambda: page.click(".reveal-form button[type=submit]"))
    expect(page.locator("#live .result")).to_be_visible()
    assert_thumb_zone(page, "win")
    check("100-win")

    players, moves = deal_moves("hundred")
    api_game(page, base_url, "hundred", players, {"dealer": "Cat"}, moves)
    expect(page.locator("#live .deal-end")).to_be_visible()
    check("100-hand-end")
    api_game(page, base_url, "hundred", ["Ann", "Ben"], {"variant": "99"}, [{"type": "play", "card": "5C"}])
    tap_card(page, "10D")  # 99: +10 or -10
    expect(page.locator("#live .choice .option")).to_have_count(2)
    check("99-total-choice")
