"""Every phone (issue 31): one whole deal of each game, dealt from a seeded shuffle and
tapped in through the game page in Debian's Chromium, at 390x844, 375x667 and 320x568, in
English and in Japanese. Per game, viewport and language: taps per card, the answers found
off-screen after a tap (above or below the viewport), the lowest grid and Undo bottoms
(page coordinates: within the viewport's height means on the first screen), and the
slowest answer. Screenshots of each deal's end go to a temporary folder (printed), or to
``COMPANION_SCREENS``.

    .venv/bin/python bench/phones.py [game ...]
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from tests.conftest import served
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, e2e_app
from tests.e2e.deals import perform, script
from tests.e2e.helpers import api_game, where

VIEWPORTS = {"390x844": (390, 844), "375x667": (375, 667), "320x568": (320, 568)}
LANGUAGES = {"en": "en-US", "ja": "ja-JP"}


def one_deal(browser, url: str, game: str, size: str, lang: str, shots: Path) -> dict:
    width, height = VIEWPORTS[size]
    context = browser.new_context(
        viewport={"width": width, "height": height},
        locale=LANGUAGES[lang],
        device_scale_factor=1,
        has_touch=True,
        is_mobile=True,
    )
    page = context.new_page()
    players, steps = script(game)
    api_game(page, url, game, players)
    taps = cards = 0
    off: list[str] = []
    grid = undo = 0
    slowest = 0.0
    for n, step in enumerate(steps):
        begun = time.monotonic()
        try:
            perform(page, step)
        except Exception:
            page.screenshot(path=str(shots / f"failed-{game}-{size}-{lang}.png"))
            print(f"{game} {size} {lang}: step {n} {step} failed at {page.url}", file=sys.stderr)
            raise
        slowest = max(slowest, (time.monotonic() - begun) / max(step.taps, 1))
        taps, cards = taps + step.taps, cards + step.card_count
        seen = where(page)
        off += [f"{n}: {text}" for text in seen["off"]]
        last = n == len(steps) - 1
        if not last:  # the deal's end is measured apart: its screen stands above the grid
            grid = max(grid, seen["grid"] or 0)
            if (seen["undo"] or 0) > undo:
                undo = seen["undo"]
                if os.environ.get("PHONES_WORST"):  # the tap that pushed Undo lowest, to look at
                    page.screenshot(path=str(shots / f"lowest-{game}-{size}-{lang}.png"), full_page=True)
    path = shots / f"deal-end-{game}-{size}-{lang}.png"
    page.screenshot(path=str(path))
    context.close()
    return {
        "taps": taps,
        "cards": cards,
        "off": off,
        "steps": len(steps),
        "grid": grid,
        "undo": undo,
        "slowest": slowest,
        "shot": path,
    }


def main(games: list[str]) -> None:
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    shots = Path(os.environ.get("COMPANION_SCREENS") or tempfile.mkdtemp(prefix="phones-"))
    shots.mkdir(parents=True, exist_ok=True)
    app = e2e_app(Path(tempfile.mkdtemp()), POLL_SECONDS=60)
    print("game        viewport lang  taps/card  answers off-screen  grid bottom  Undo bottom  (screen)")
    with served(app) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for game in games:
            for size in VIEWPORTS:
                for lang in LANGUAGES:
                    r = one_deal(browser, url, game, size, lang, shots)
                    print(
                        f"{game:11s} {size:8s} {lang:4s} {r['taps'] / r['cards']:9.2f}"
                        f"  {len(r['off']):3d} of {r['steps']:3d} taps"
                        f"  {r['grid']:11d}  {r['undo']:11d}  ({VIEWPORTS[size][1]})",
                        flush=True,
                    )
                    for line in r["off"][:5]:
                        print("      off:", line)
        browser.close()
    print("screenshots of each deal's end:", shots)


if __name__ == "__main__":
    main(sys.argv[1:] or ["tablanette", "tute", "tantony", "hundred"])
