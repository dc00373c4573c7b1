"""Pyodide as the app serves it to the phones (issue 45, companion/views/pyodide.py): only
the loader's files, at a URL that names the version, immutable, precompressed, the wasm as
``application/wasm``; anything else a 404, and no Pyodide at all an app that works as before.
A folder of stand-in files, so these tests need no `make pyodide`."""

from __future__ import annotations

import gzip
import io
import zipfile

import brotli
import pytest
from flask import render_template_string

from companion.views.pyodide import FILES, MAX_AGE
from tests.conftest import make_app, snapshot

VERSION = "314.0.7"


def body_of(name: str) -> bytes:
    return f"the {name} of {VERSION} ".encode() * 40


@pytest.fixture
def runtime(tmp_path):
    """A vendor folder as `make pyodide` leaves it, with stand-in files."""
    folder = tmp_path / "pyodide"
    (folder / VERSION).mkdir(parents=True)
    for name in FILES:
        data = body_of(name)
        (folder / VERSION / name).write_bytes(data)
        (folder / VERSION / f"{name}.br").write_bytes(brotli.compress(data))
        (folder / VERSION / f"{name}.gz").write_bytes(gzip.compress(data))
    (folder / "secret.txt").write_text("not served")
    (folder / VERSION / "package.json").write_text("{}")
    (folder / "VERSION").write_text(VERSION + "\n")
    return folder


@pytest.fixture
def served_app(tmp_path, runtime):
    return make_app(tmp_path, PYODIDE_FOLDER=str(runtime))


@pytest.mark.parametrize("name", FILES)
def test_each_file_is_sent_as_its_type_compressed_as_the_phone_accepts_and_cached_for_good(served_app, name):
    client = served_app.test_client()
    url = f"/pyodide/{VERSION}/{name}"
    for accepted, encoding, decode in (
        ("br, gzip", "br", brotli.decompress),
        ("gzip", "gzip", gzip.decompress),
        ("", None, bytes),
    ):
        answer = client.get(url, headers={"Accept-Encoding": accepted})
        assert answer.status_code == 200, (name, accepted)
        assert answer.headers.get("Content-Encoding") == encoding
        assert decode(answer.get_data()) == body_of(name)
        assert answer.mimetype == FILES[name].split(";")[0]
        cache = answer.cache_control
        assert cache.public and cache.immutable and cache.max_age == MAX_AGE and not cache.no_cache
        assert answer.headers["Vary"] == "Accept-Encoding"  # not the language or the cookies: one copy for all
        again = client.get(url, headers={"Accept-Encoding": accepted, "If-None-Match": answer.headers["ETag"]})
        assert again.status_code == 304


def test_the_wasm_is_application_wasm_for_streaming_compilation(served_app):
    answer = served_app.test_client().get(f"/pyodide/{VERSION}/pyodide.asm.wasm", headers={"Accept-Encoding": "br"})
    assert answer.headers["Content-Type"] == "application/wasm"
    loader = served_app.test_client().get(f"/pyodide/{VERSION}/pyodide.mjs")
    assert loader.headers["Content-Type"] == "text/javascript; charset=utf-8"


@pytest.mark.parametrize(
    "url",
    [
        "/pyodide/0.1.0/pyodide.mjs",  # another version
        f"/pyodide/{VERSION}/package.json",  # in the folder, not the loader's
        f"/pyodide/{VERSION}/pyodide.asm.wasm.br",  # the compressed copies are not URLs
        f"/pyodide/{VERSION}/VERSION",
        f"/pyodide/{VERSION}/../VERSION",
        f"/pyodide/{VERSION}/..%2FVERSION",
        f"/pyodide/{VERSION}/%2e%2e/secret.txt",
        "/pyodide/../secret.txt",
        "/pyodide/%2e%2e/secret.txt",
        f"/pyodide/{VERSION}/sub/pyodide.mjs",
        f"/pyodide/{VERSION}/",
        "/pyodide/",
        f"/pyodide/{VERSION}%2F..%2F{VERSION}/pyodide.mjs",
    ],
)
def test_nothing_else_is_served(served_app, url):
    answer = served_app.test_client().get(url)
    assert answer.status_code == 404, url
    assert b"not served" not in answer.get_data()


def test_a_get_or_head_changes_nothing(served_app):
    client = served_app.test_client()
    before = snapshot(served_app)
    for method in ("GET", "HEAD", "OPTIONS"):
        assert client.open(f"/pyodide/{VERSION}/pyodide.mjs", method=method).status_code < 400
    assert snapshot(served_app) == before
    assert client.post(f"/pyodide/{VERSION}/pyodide.mjs").status_code == 405


def test_without_pyodide_the_route_is_a_404_and_pages_work_as_before(tmp_path):
    app = make_app(tmp_path, PYODIDE_FOLDER=str(tmp_path / "none"))
    client = app.test_client()
    assert client.get(f"/pyodide/{VERSION}/pyodide.mjs").status_code == 404
    assert client.get("/").status_code == 200
    assert 'var RUNTIME = "";' in client.get("/sw.js").get_data(as_text=True)  # no cache of it kept
    with app.test_request_context("/"):
        page = render_template_string('{% extends "base.html" %}', phone_bundle="/bundle.zip")
    assert "data-phone" not in page  # no worker is started: the server referees


def test_a_page_names_the_bundle_worker_and_pyodide_only_when_its_view_supplies_a_bundle(served_app):
    with served_app.test_request_context("/"):
        plain = render_template_string('{% extends "base.html" %}')
        game = render_template_string('{% extends "base.html" %}', phone_bundle="/bundle.zip?v=1")
    assert "data-phone" not in plain
    assert 'data-phone-bundle="/bundle.zip?v=1"' in game
    assert f'data-phone-worker="/static/phone.js?pyodide=/pyodide/{VERSION}/&amp;v=' in game


def test_the_policy_lets_a_same_origin_worker_compile_webassembly_and_nothing_more(served_app):
    policy = served_app.test_client().get("/").headers["Content-Security-Policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["script-src"] == "'self' 'wasm-unsafe-eval'"
    assert directives["worker-src"] == "'self'"
    assert "'unsafe-eval'" not in policy and "'unsafe-inline'" not in policy


def test_the_service_worker_keeps_pyodide_in_a_cache_named_by_its_version(served_app):
    worker = served_app.test_client().get("/sw.js").get_data(as_text=True)
    assert f'var RUNTIME = "companion-pyodide-{VERSION}";' in worker
    assert "/static/phone.js?v=" in worker  # the worker script is in the shell


def test_the_set_up_trims_the_standard_library_and_the_lock_file():
    from tools.vendor_pyodide import dropped, trim_lockfile, trim_stdlib

    full = io.BytesIO()
    with zipfile.ZipFile(full, "w", zipfile.ZIP_DEFLATED) as z:
        for name in ("json/__init__.py", "email/utils.py", "pdb.py", "encodings/utf_8.py", "encodings/cp1252.py"):
            z.writestr(name, "x = 1\n" * 50)
    with zipfile.ZipFile(io.BytesIO(trim_stdlib(full.getvalue()))) as kept:
        assert kept.namelist() == ["json/__init__.py", "encodings/utf_8.py"]
        assert {i.compress_type for i in kept.infolist()} == {zipfile.ZIP_STORED}
    assert not dropped("asyncio/events.py") and not dropped("urllib/parse.py") and dropped("urllib/request.py")
    assert trim_lockfile(b'{"info": {"python": "3.14.2"}, "packages": {"jinja2": {}}}') == (
        b'{"info":{"python":"3.14.2"},"packages":{}}'
    )
