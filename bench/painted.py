"""Tap to painted on a phone-class CPU (issue 34): one deal of each game, dealt from a seeded
shuffle and tapped in through the game page in Debian's Chromium at 390x844, its CPU slowed
4x through the DevTools protocol (Emulation.setCPUThrottlingRate), the server on loopback.
Each answer's time runs from the tap (pointerdown) to the second animation frame after htmx
settled the answer in place: the frame that shows it has been painted by then. Goal: p90
under 100 ms. Beside it, the phone's part: that time less the wait for the answer (from
htmx sending the request to the answer arriving: the network and the server).

    .venv/bin/python bench/painted.py [game ...]
"""

from __future__ import annotations

import logging
import statistics
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's companion and tests

from tests.conftest import served  # noqa: E402
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, e2e_app  # noqa: E402
from tests.e2e.deals import perform, script  # noqa: E402
from tests.e2e.helpers import api_game  # noqa: E402

THROTTLE = 4
#: Kept by the page: each answer's time from the tap that asked it to the frame that shows it.
TIMER = """
(function () {
window.__painted = [];
window.__waited = [];
var sent = null, answered = null;  // when htmx sent the tap's request, and when its answer came
document.addEventListener("pointerdown", function () { window.__tap = performance.now(); }, true);
document.addEventListener("htmx:beforeRequest", function () {
  if (window.__tap != null) { sent = performance.now(); }
});
document.addEventListener("htmx:beforeSwap", function () { if (sent != null) { answered = performance.now(); } });
document.addEventListener("htmx:afterSettle", function () {
  var tapped = window.__tap, waited = answered != null ? answered - sent : 0;
  if (tapped == null) { return; }
  window.__tap = null;
  sent = answered = null;
  requestAnimationFrame(function () {
    requestAnimationFrame(function () {
      window.__painted.push(performance.now() - tapped);
      window.__waited.push(waited);
    });
  });
});
}());
"""


def one_deal(browser, url: str, game: str) -> list[list[float]]:
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, device_scale_factor=1, has_touch=True, is_mobile=True
    )
    context.add_init_script(TIMER)
    page = context.new_page()
    players, steps = script(game)
    api_game(page, url, game, players)
    cdp = context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": THROTTLE})
    for step in steps:
        perform(page, step)
    page.wait_for_function("window.__tap == null")  # the last answer's frames are in
    painted = page.evaluate("[window.__painted, window.__waited]")
    context.close()
    return painted


def say(what: str, times: list[float], waited: list[float]) -> None:
    p90 = sorted(times)[int(len(times) * 0.9)]
    phone = sorted(t - w for t, w in zip(times, waited))
    print(
        f"  {what:11s} {len(times):3d} answers  median {statistics.median(times):6.1f} ms  p90 {p90:6.1f} ms"
        f"   (the phone's part: median {statistics.median(phone):5.1f}  p90 {phone[int(len(phone) * 0.9)]:5.1f};"
        f" waiting for the answer: median {statistics.median(waited):5.1f})"
    )


def main(games: list[str]) -> None:
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    app = e2e_app(Path(tempfile.mkdtemp()), POLL_SECONDS=60)
    print(
        f"tap to painted, Chromium at 390x844 with its CPU slowed {THROTTLE}x, server on 127.0.0.1 (goal p90 < 100 ms)"
    )
    with served(app) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        everything: list[float] = []
        waits: list[float] = []
        for game in games:
            times, waited = one_deal(browser, url, game)
            everything += times
            waits += waited
            say(game, times, waited)
        say("all", everything, waits)
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1:] or ["tablanette", "tute", "tantony", "hundred"])
