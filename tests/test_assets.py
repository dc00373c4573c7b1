"""Scripts and stylesheets as a phone fetches them (issue 34, companion/views/assets.py):
minified, compressed once at the strongest levels, brotli first; cached for good under a
versioned URL."""

import gzip
import re

import brotli
import pytest
from flask import url_for

from companion.views.assets import minified

CHROME = "gzip, deflate, br, zstd"  # what a phone's Chrome sends


@pytest.fixture
def urls(app):
    with app.test_request_context():
        return {name: url_for("static", filename=name) for name in ("app.js", "app.css", "htmx.min.js")}


@pytest.mark.parametrize("name", ["app.js", "app.css", "htmx.min.js"])
def test_a_phone_gets_brotli_then_gzip_then_the_plain_file(client, urls, name):
    answers = {enc: client.get(urls[name], headers={"Accept-Encoding": enc}) for enc in (CHROME, "gzip", "")}
    plain = answers[""].data
    assert "Content-Encoding" not in answers[""].headers
    assert answers[CHROME].headers["Content-Encoding"] == "br" and brotli.decompress(answers[CHROME].data) == plain
    assert answers["gzip"].headers["Content-Encoding"] == "gzip" and gzip.decompress(answers["gzip"].data) == plain
    assert len(answers[CHROME].data) < len(answers["gzip"].data) < len(plain)
    for answer in answers.values():
        assert "Accept-Encoding" in answer.headers["Vary"]
    assert len({answer.headers["ETag"] for answer in answers.values()}) == 3  # one per encoding


def test_scripts_and_stylesheets_are_sent_without_comments(app, client, urls):
    for name in ("app.js", "app.css"):
        source = (app.static_folder + "/" + name, client.get(urls[name]).get_data(as_text=True))
        with open(source[0], encoding="utf-8") as f:
            original = f.read()
        assert "/*" in original or "//" in original
        assert len(source[1]) < 0.8 * len(original) and "/*" not in source[1], name
        assert source[1] == minified(name, original)


def test_a_versioned_asset_is_cached_for_good_and_revalidates_to_304(client, urls):
    answer = client.get(urls["app.js"], headers={"Accept-Encoding": CHROME})
    cache = answer.headers["Cache-Control"]
    assert "max-age=31536000" in cache and "immutable" in cache and "no-cache" not in cache
    again = client.get(urls["app.js"], headers={"Accept-Encoding": CHROME, "If-None-Match": answer.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""
    assert "no-cache" in client.get("/static/app.js").headers["Cache-Control"]  # unversioned: checked each time


def test_other_static_files_and_missing_ones_are_flasks(client):
    assert client.get("/static/icon.svg").headers["Content-Type"].startswith("image/svg+xml")
    assert client.get("/static/nope.js").status_code == 404
    assert client.get("/static/../companion/__init__.py").status_code == 404


def test_pages_are_brotli_for_a_phone_that_accepts_it(client):
    answer = client.get("/games/new", headers={"Accept-Encoding": CHROME})
    assert answer.headers["Content-Encoding"] == "br"


def test_the_workers_update_check_is_answered_304_when_unchanged(client):
    worker = client.get("/sw.js", headers={"Accept-Encoding": CHROME})
    again = client.get("/sw.js", headers={"Accept-Encoding": CHROME, "If-None-Match": worker.headers["ETag"]})
    assert worker.status_code == 200 and again.status_code == 304 and again.data == b""
    assert "no-cache" in worker.headers["Cache-Control"]


def _selectors(css: str) -> list[str]:
    """Every selector of a stylesheet, one by one (at-rules' own preludes left out)."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    found = []
    for prelude in re.findall(r"([^{}]+)\{", css):
        prelude = prelude.strip()
        if prelude.startswith("@"):
            continue
        depth, part = 0, ""
        for ch in prelude + ",":
            depth += (ch == "(") - (ch == ")")
            if ch == "," and depth == 0:
                found.append(" ".join(part.split()))
                part = ""
            else:
                part += ch
    return found


def test_the_stylesheet_lets_a_tap_restyle_only_what_it_changed(app):
    """Issue 45: Chromium restyles, at a change that may alter a :has() (an answer's new
    element), every element matching the last step of any selector after a :has(); and at a
    new element matched by ``x + *``, all of its parent's. So those steps name a class or an
    id, never a bare tag or ``*`` (`.cantes:has(...) p` and `.trump-line + *` restyled every
    <p>, <form> and <span> of the page at each tap: 4 ms of a Tute tap at CPU 4x)."""
    with open(app.static_folder + "/app.css", encoding="utf-8") as f:
        selectors = _selectors(f.read())
    assert len(selectors) > 200 and ".pick" in selectors
    for selector in selectors:
        assert not re.search(r"[+~>]\s*\*$", selector), selector
        if ":has(" in selector:
            after = re.split(r":has\((?:[^()]|\([^()]*\))*\)", selector)[-1]
            if after[:1] in (" ", ">", "+", "~"):  # another element than the :has()'s own
                assert re.search(r"[.#]", re.split(r"[\s>+~]+", after.strip())[-1]), selector
