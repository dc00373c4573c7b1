"""The referee on the phone itself (issue 45): a game page whose view names a Python bundle
starts Pyodide in a Web Worker (static/phone.js) after the page has loaded, and
``window.companionPhone`` calls the bundle's ``companion.phone`` through it. Here the bundle
is a stand-in whose ``echo`` answers what it is given; the real one is the engines."""

from __future__ import annotations

import io
import zipfile

import pytest
from flask import Response

from companion.views.pyodide import served_version
from tests.conftest import served
from tests.e2e.conftest import e2e_app
from tests.e2e.helpers import api_game

#: The stand-in bundle's module: each function takes a JSON string and returns one.
PHONE = """
import json

def echo(s):
    return s

def fail(s):
    raise ValueError("no such card: " + json.loads(s)["card"])
"""


def stand_in_bundle() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as bundle:
        bundle.writestr("companion/__init__.py", "")
        bundle.writestr("companion/phone.py", PHONE)
    return out.getvalue()


@pytest.fixture(scope="module")
def phone_url(tmp_path_factory):
    """A server whose game pages name the stand-in bundle (the view that will supply
    ``phone_bundle`` is not this test's)."""
    app = e2e_app(tmp_path_factory.mktemp("phone"), POLL_SECONDS=60)
    if served_version(app) is None:
        pytest.skip("Pyodide is not set up here (make pyodide: it needs npm)")
    body = stand_in_bundle()
    app.add_url_rule("/test/phone.zip", "phone_bundle", lambda: Response(body, mimetype="application/zip"))
    app.context_processor(lambda: {"phone_bundle": "/test/phone.zip"})
    with served(app) as url:
        yield url


def test_a_game_page_starts_the_phones_referee_and_calls_it(page, phone_url):
    page.set_viewport_size({"width": 375, "height": 667})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    api_game(page, phone_url, "tablanette", ["Ann", "Ben"])
    ms = page.evaluate("() => window.companionPhone.ready")  # resolves once companion.phone is imported
    assert {"import", "boot", "bundle", "module", "total"} <= set(ms), ms
    payload = {"card": "10♦", "table": ["2S", "3H"], "n": 1.5, "none": None}
    assert page.evaluate("p => window.companionPhone.call('echo', p)", payload) == payload
    refused = "() => window.companionPhone.call('fail', {card: 'ZZ'}).then(() => 'answered', e => e.message)"
    assert "ValueError: no such card: ZZ" in page.evaluate(refused)
    missing = "() => window.companionPhone.call('nothing', {}).then(() => 'answered', e => e.message)"
    assert "no function nothing" in page.evaluate(missing)
    assert page.evaluate("p => window.companionPhone.call('echo', p)", [1, 2]) == [1, 2]  # still answering
    assert ms["snapshot"] == "made", ms
    # The next start restores the snapshot of Python's memory the first one kept.
    page.reload()
    again = page.evaluate("() => window.companionPhone.ready")
    assert again["snapshot"] == "restored", again
    assert page.evaluate("p => window.companionPhone.call('echo', p)", payload) == payload
    assert "ValueError: no such card: ZZ" in page.evaluate(refused)
    assert errors == []
