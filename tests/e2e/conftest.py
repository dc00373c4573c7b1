"""Real-browser fixtures: the app served in-process, Debian's Chromium driven by Playwright.

Never `playwright install` here: it downloads a browser. The Makefile installs Debian's
chromium and we point Playwright at it (../shared/STACK.md).
"""

import os
import shutil
import threading
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from companion import create_app

CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SCREENS = Path(__file__).parent / "screens"
PHONE = {"width": 390, "height": 844}


def pytest_collection_modifyitems(items):
    for item in items:
        if "e2e" in str(item.fspath):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": PHONE, "device_scale_factor": 1, "has_touch": True,
            "is_mobile": True}


@pytest.fixture(scope="session")
def live_app(tmp_path_factory):
    path = tmp_path_factory.mktemp("e2e")
    app = create_app({"DATABASE": str(path / "e2e.db"), "SECRET_KEY": "e2e", "POLL_SECONDS": 60})
    return app


@pytest.fixture(scope="session")
def base_url(live_app):
    server = make_server("127.0.0.1", 0, live_app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


@pytest.fixture
def shot(page):
    """Save a screenshot of the page under tests/e2e/screens/ (git-ignored) to look at."""
    SCREENS.mkdir(exist_ok=True)

    def take(name: str, full_page: bool = True):
        page.screenshot(path=str(SCREENS / f"{name}.png"), full_page=full_page)

    return take
