"""How soon the phone's own referee is ready (issue 45): a game page opened in Debian's
Chromium at 375x667, from the navigation to ``window.companionPhone.ready`` (static/app.js:
the worker has booted Pyodide, unpacked the bundle and imported ``companion.phone``), with
the worker's own timings beside it. The app is served in this process as the browser tests
serve it (tests/conftest.py ``served``), its game pages naming a stand-in bundle made of
what the phone will run: the engines (companion/games, cards.py, errors.py), Jinja2 and
MarkupSafe (pure Python), and a ``companion.phone`` that imports them.

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

import io
import logging
import statistics
import sys
import tempfile
import zipfile
from pathlib import Path

from flask import Response
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's companion and tests

import jinja2  # noqa: E402
import markupsafe  # noqa: E402

from companion.views.pyodide import FILES, folder, served_version  # noqa: E402
from tests.conftest import served  # noqa: E402
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, e2e_app  # noqa: E402

PHONE = """
import jinja2
import markupsafe
from companion import games
from companion.games import hundred, tablanette, tantony, tute

def echo(s):
    return s
"""

#: Waits for the worker: the time since the navigation began, and the worker's own steps.
READY = "() => window.companionPhone.ready.then(ms => ({at: Math.round(performance.now()), ms}))"


def bundle() -> bytes:
    """The stand-in bundle: what the phone will import, compressed as a zip is."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("companion/__init__.py", "")
        z.writestr("companion/phone.py", PHONE)
        for path in [ROOT / "companion" / "cards.py", ROOT / "companion" / "errors.py"]:
            z.write(path, f"companion/{path.name}")
        for path in sorted((ROOT / "companion" / "games").glob("*.py")):
            z.write(path, f"companion/games/{path.name}")
        for package in (jinja2, markupsafe):
            base = Path(package.__file__).parent
            for path in sorted(base.glob("*.py")):
                z.write(path, f"{base.name}/{path.name}")
    return out.getvalue()


def visit(context, url: str, throttle: float = 1, network: dict | None = None) -> dict:
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    if throttle != 1:
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
    if network:
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions", {"offline": False, **network})
    page.goto(url)
    result = page.evaluate(READY)
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
    numbers = [k for k, v in results[0]["ms"].items() if isinstance(v, (int, float))]
    steps = {k: statistics.median(r["ms"].get(k, 0) for r in results) for k in numbers}
    parts = ", ".join(f"{k} {v:.0f}" for k, v in steps.items())
    parts += f"; snapshot {results[0]['ms'].get('snapshot', 'none')}"
    print(
        f"  {name:34} ready {statistics.median(at):6.0f} ms (median of {len(at)}: {min(at)}-{max(at)})  worker: {parts}"
    )


def main(runs: int) -> None:
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # not each request
    app = e2e_app(Path(tempfile.mkdtemp()), POLL_SECONDS=60)
    version = served_version(app)
    if version is None:
        raise SystemExit("Pyodide is not set up: make pyodide")
    body = bundle()
    app.add_url_rule("/test/phone.zip", "phone_bundle", lambda: Response(body, mimetype="application/zip"))
    app.context_processor(lambda: {"phone_bundle": "/test/phone.zip"})
    print(f"the phone's referee: navigation to worker ready, Pyodide {version}, Chromium at 375x667 (ms)")
    with served(app) as base, sync_playwright() as p:
        client = app.test_client()
        made = client.post("/api/games", json={"game": "tablanette", "players": ["Ann", "Ben"]}).get_json()
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
    print(f"  {'(and the bundle: a stand-in zip)':42} {len(body):10,} {len(body):10,}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
