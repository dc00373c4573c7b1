"""Real-browser fixtures: the app served in-process, Debian's Chromium driven by Playwright.

Never `playwright install` here: it downloads a browser. The Makefile installs Debian's
chromium and we point Playwright at it (executable_path below).
"""

import os
import shutil
from pathlib import Path

import pytest

from companion import create_app
from companion.views.pyodide import served_version
from tests.conftest import served
from tests.e2e.helpers import PHONE, PHONES, keep

#: The browser bench/ measures phones in: Debian's Chromium, the whole browser.
CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or "/usr/bin/chromium"
#: The browser the tests drive: Debian's Chromium built as its headless shell (the
#: chromium-headless-shell package, what Playwright itself runs headless), the same engine
#: without the whole browser around it. The browser tests took 5 min 10 s in the whole
#: browser and 3 min 40 s in the shell, Chromium's CPU 473 s and 264 s (2 cores, 3 workers).
#: The whole browser where the shell is not installed.
TEST_CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium-headless-shell") or CHROMIUM
#: --font-render-hinting=none: text placed as the whole browser places it (at fractions of a
#: pixel). The shell otherwise rounds each glyph's advance: five Japanese names measured 7 px
#: wider at 320 px, and the tests of what fits a phone failed.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--font-render-hinting=none",
]


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "e2e" in str(item.fspath):
            item.add_marker(pytest.mark.e2e)
    # The rest of a slow test's matrix (marked full) is too slow for `make test`: it runs
    # only when -m names it (`-m full`, as `make bench` does).
    if "full" not in (config.getoption("markexpr") or ""):
        left = [item for item in items if item.get_closest_marker("full")]
        if left:
            config.hook.pytest_deselected(items=left)
            items[:] = [item for item in items if not item.get_closest_marker("full")]


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, "executable_path": TEST_CHROMIUM, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": PHONE, "device_scale_factor": 1, "has_touch": True, "is_mobile": True}


def e2e_app(path, **config):
    # The suite starts games faster than any table (the real limit is tested in test_limits.py).
    # The server answers every tap, as before the phone refereed (issue 45), unless a test
    # asks for the phone's referee (PHONE_REFEREE=True): its worker would otherwise take over
    # mid-test, whenever Pyodide happened to be ready.
    config = {
        "DATABASE": str(path / "e2e.db"),
        "SECRET_KEY": "e2e",
        "CREATE_LIMIT": "10000 per minute",
        "PHONE_REFEREE": False,
        **config,
    }
    return create_app(config, instance_path=str(path))


@pytest.fixture(scope="session")
def live_app(tmp_path_factory):
    # Polls every minute: a referee's own taps are what these tests wait for.
    return e2e_app(tmp_path_factory.mktemp("e2e"), POLL_SECONDS=60)


@pytest.fixture(scope="session")
def base_url(live_app):
    with served(live_app) as url:
        yield url


@pytest.fixture(scope="session")
def polling_url(tmp_path_factory):
    """A second server whose pages poll as phones at a table do (the default interval)."""
    with served(e2e_app(tmp_path_factory.mktemp("e2e-poll"))) as url:
        yield url


@pytest.fixture(scope="session")
def screens():
    """Where screenshots go: ``COMPANION_SCREENS`` (``make screens`` sets tests/e2e/screens),
    else nowhere (None: ``helpers.keep`` takes none)."""
    folder = os.environ.get("COMPANION_SCREENS")
    if not folder:
        return None
    Path(folder).mkdir(parents=True, exist_ok=True)
    return Path(folder)


@pytest.fixture
def shot(page, screens):
    """Save a screenshot of the page to look at."""

    def take(name: str, full_page: bool = True):
        keep(page, screens, name, full_page)

    return take


@pytest.fixture(params=["en", "ja"])
def bilingual_phone(request, browser):
    """A page on a touch phone (390x844 until a test sets its size), in English and in Japanese."""
    context = browser.new_context(
        viewport=PHONES[0],
        locale="ja-JP" if request.param == "ja" else "en-US",
        device_scale_factor=1,
        has_touch=True,
        is_mobile=True,
    )
    yield context.new_page()
    context.close()


@pytest.fixture(scope="module")
def here_url(tmp_path_factory):
    """A server whose pages offer the phone's referee (PHONE_REFEREE), as a real one does:
    its game pages and "Play on this phone only" (/phone)."""
    app = e2e_app(tmp_path_factory.mktemp("here"), PHONE_REFEREE=True, POLL_SECONDS=60)
    if served_version(app) is None:
        pytest.skip("Pyodide is not set up here (make pyodide: it needs npm)")
    with served(app) as url:
        yield url
