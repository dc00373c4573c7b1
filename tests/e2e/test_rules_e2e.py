"""Settle a rules argument on a phone in a few taps (the dispute lab), counted."""

from axe_playwright_python.sync_playwright import Axe

from companion.cards import Card


def test_settle_tb08_from_the_home_page_in_under_10_taps(page, base_url, shot):
    """RULES.md 1.8 TB-08: KH on 2S 3H 5D 9C takes 2+3+9 or 5+9, never both (the 9 can't count twice)."""
    taps = 0

    def tap(selector):
        nonlocal taps
        taps += 1
        with page.expect_response(lambda r: "/rules" in r.url):
            page.click(selector)
        page.wait_for_load_state()

    page.goto(base_url + "/")
    tap("text=Settle a rule")
    tap("text=Tablanette")
    for code in ("2S", "3H", "5D", "9C"):
        tap(f"[aria-label='Table cards'] a[aria-label='{Card.parse(code).name}']")
    tap(f"[aria-label='Card played'] a[aria-label='{Card.parse('KH').name}']")
    page.wait_for_selector(".answer")
    shot("rules-01-tb08")
    answer = page.inner_text(".answer")
    assert "2 legal captures" in answer
    captures = page.locator(".captures li").all_inner_texts()
    assert any("2♠" in c and "3♥" in c and "9♣" in c and "5♦" not in c for c in captures)
    assert any("5♦" in c and "9♣" in c and "2♠" not in c for c in captures)
    assert "table=2S%2C3H%2C5D%2C9C" in page.url or "table=2S,3H,5D,9C" in page.url
    assert taps < 10, taps

    # Someone claims all four: the referee says why not, citing the rule.
    for code in ("2S", "3H", "5D", "9C"):
        with page.expect_response(lambda r: "/rules" in r.url):
            page.click(f".answer a.chip-link[aria-label='{Card.parse(code).name}']")
        page.wait_for_load_state()
    verdict = page.inner_text(".verdict")
    assert verdict.startswith("Not legal") and "Tablanette P" in verdict
    shot("rules-02-claim")
    shot("rules-02b-claim-top", full_page=False)
    results = Axe().run(page)
    assert results.violations_count == 0, results.generate_report()
