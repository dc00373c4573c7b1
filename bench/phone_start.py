"""How soon the phone's own referee is ready (issue 45): a game page opened in Debian's
Chromium at 375x667, a referee's game page, from the navigation to
``window.companionPhone.ready`` (static/app.js: the worker has booted Pyodide, unpacked the
bundle and imported ``companion.phone``), with the worker's own timings beside it, and to
the phone holding the game (``companionReferee.playing()``: from then on it answers the
taps). The app is served in this process as the browser tests serve it (tests/conftest.py
``served``), with the phone's referee on.

- first visit: a new profile (empty HTTP cache, no service worker);
- repeat visits, twice: the same profile (the HTTP cache, the service worker's copies,
  Chromium's cache of the compiled WebAssembly, and the memory snapshot static/phone.js
  kept in IndexedDB at the first visit);
- each again with the CPU slowed 4x (DevTools' Emulation.setCPUThrottlingRate);
- a first visit on a 20 Mbit/s link (Network.emulateNetworkConditions, 20 ms latency).

It also prints what the phone downloads once, each file as it is and as it was sent.

    .venv/bin/python bench/phone_start.py [runs]   # runs of each case, 3 by default
"""

from __future__ import annotations

import logging
import statistics
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's companion and tests

from companion.views import phone  # noqa: E402
from companion.views.pyodide import FILES, folder, served_version  # noqa: E402
from tests.conftest import form_values, served  # noqa: E402
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, e2e_app  # noqa: E402

#: Waits for the worker: the time since the navigation began, and the worker's own steps.
READY = "() => window.companionPhone.ready.then(ms => ({at: Math.round(performance.now()), ms}))"
#: The referee's session cookie each profile is given.
SESSION: dict = {}
#: The phone holds the game the page shows.
PLAYING = "() => window.companionReferee !== undefined && window.companionReferee.playing()"


def visit(context, url: str, throttle: float = 1, network: dict | None = None) -> dict:
    context.add_cookies([SESSION | {"url": url}])  # a referee's page (the phone referees only for one)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    if throttle != 1:
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
    if network:
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions", {"offline": False, **network})
    page.goto(url)
    result = page.evaluate(READY)
    page.wait_for_function(PLAYING, timeout=120_000)
    result["playing"] = page.evaluate("() => Math.round(performance.now())")
    page.close()
    return result


def profile(browser_type, folder_: str):
    return browser_type.launch_persistent_context(
        folder_,
        executable_path=CHROMIUM,
        args=CHROMIUM_ARGS,
        viewport={"width": 375, "height": 667},
        device_scale_factor=1,
        has_touch=True,
        is_mobile=True,
    )


def line(name: str, results: list[dict]) -> None:
    at = [r["at"] for r in results]
    playing = statistics.median(r["playing"] for r in results)
    numbers = [k for k, v in results[0]["ms"].items() if isinstance(v, (int, float))]
    steps = {k: statistics.median(r["ms"].get(k, 0) for r in results) for k in numbers}
    parts = ", ".join(f"{k} {v:.0f}" for k, v in steps.items())
    parts += f"; snapshot {results[0]['ms'].get('snapshot', 'none')}"
    print(
        f"  {name:34} ready {statistics.median(at):6.0f} ms (median of {len(at)}: {min(at)}-{max(at)}),"
        f" playing {playing:6.0f}  worker: {parts}"
    )


def main(runs: int) -> None:
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # not each request
    app = e2e_app(Path(tempfile.mkdtemp()), POLL_SECONDS=60, PHONE_REFEREE=True)
    version = served_version(app)
    if version is None:
        raise SystemExit("Pyodide is not set up: make pyodide")
    with app.test_request_context():
        body = phone.bundle()[1]
    print(f"the phone's referee: navigation to worker ready, Pyodide {version}, Chromium at 375x667 (ms)")
    with served(app) as base, sync_playwright() as p:
        client = app.test_client()
        made = client.post("/api/games", json={"game": "tablanette", "players": ["Ann", "Ben"]}).get_json()
        # A referee's page (the phone referees only for one): joined by a link, its form's token sent.
        link = client.post(
            f"/api/games/{made['id']}/links", json={"kind": "add"}, headers={"X-Edit-Key": made["edit_key"]}
        )
        join = client.get(link.get_json()["url"].replace(base, "")).get_data(as_text=True)
        assert client.post(f"/games/{made['id']}/join", data=form_values(join)).status_code == 303
        cookie = client.get_cookie("session")
        assert cookie is not None
        SESSION.update(name="session", value=cookie.value)
        url = f"{base}/games/{made['id']}"
        for throttle in (1, 4):
            first, repeat, third = [], [], []
            for _ in range(runs):
                with tempfile.TemporaryDirectory() as tmp:
                    context = profile(p.chromium, tmp)
                    first.append(visit(context, url, throttle))
                    repeat.append(visit(context, url, throttle))
                    third.append(visit(context, url, throttle))
                    context.close()
            slowed = f", CPU {throttle}x slower" if throttle != 1 else ""
            line(f"first visit{slowed}", first)
            line(f"repeat visit{slowed}", repeat)
            line(f"third visit{slowed}", third)
        link = {"latency": 20, "downloadThroughput": 20e6 / 8, "uploadThroughput": 5e6 / 8}
        slow = []
        for _ in range(runs):
            with tempfile.TemporaryDirectory() as tmp:
                context = profile(p.chromium, tmp)
                slow.append(visit(context, url, 1, link))
                context.close()
        line("first visit, 20 Mbit/s", slow)
    # As sent to a browser that accepts brotli (every phone's): the files the set-up compressed.
    print("downloaded once (bytes): as it is, as sent (brotli)")
    here = folder(app) / version
    files = {f"/pyodide/{version}/{name}": (here / name, here / f"{name}.br") for name in FILES}
    total_raw = total_sent = 0
    for name, (raw_file, sent_file) in files.items():
        raw, sent = raw_file.stat().st_size, sent_file.stat().st_size
        total_raw, total_sent = total_raw + raw, total_sent + sent
        print(f"  {name:42} {raw:10,} {sent:10,}")
    print(f"  {'total':42} {total_raw:10,} {total_sent:10,}")
    print(f"  {'/phone/<digest>.zip (the bundle, deflated)':42} {len(body):10,} {len(body):10,}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
