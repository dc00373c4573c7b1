"""Pyodide as the phones fetch it (issue 45: the phone itself referees).

`make pyodide` (tools/vendor_pyodide.py) puts the pinned version's files in
``vendor/pyodide/<version>/``, each beside its ``.br`` and ``.gz`` (compressed once, at the
strongest levels), and writes ``vendor/pyodide/VERSION`` last. This view sends those files,
and only those, at ``/pyodide/<version>/<file>``: the URL names the version, so an answer
is cached for good (immutable), and a new version is a new URL. The wasm goes as
``application/wasm``, which Chromium needs to compile it while it downloads (and to keep
the compiled code in its cache). Without the folder (no npm at set-up, a wheel install)
every such URL is a 404, ``phone_runtime()`` is None, and the pages referee through the
server as before.

Nothing here reads a path from the request: the file's name is one of :data:`FILES` and the
version must be the one on disk.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path

from flask import Blueprint, Flask, Response, abort, current_app, request, url_for
from werkzeug.utils import send_file

bp = Blueprint("pyodide", __name__)

#: What the loader fetches, with the type each is sent as.
FILES = {
    "pyodide.mjs": "text/javascript",
    "pyodide.asm.mjs": "text/javascript",
    "pyodide.asm.wasm": "application/wasm",
    "python_stdlib.zip": "application/zip",
    "pyodide-lock.json": "application/json",
}

#: What a phone's browser accepts, best first, and the file beside the original that holds it.
ENCODINGS = {"br": ".br", "gzip": ".gz"}

#: A year: the URL names the version.
MAX_AGE = 365 * 24 * 3600


class SameForEveryone(Response):
    """An answer that depends on nothing but its URL and the encodings accepted. Every answer
    of the app varies by its language and cookies (i18n.py), and the session cookie is signed
    again at each page load: a phone's cache would then ask for 15 MB of Pyodide again at
    every visit (answered 304, but a round trip each, on the room's Wi-Fi)."""

    def get_wsgi_headers(self, environ):
        headers = super().get_wsgi_headers(environ)
        headers["Vary"] = "Accept-Encoding"
        return headers


_VERSION = re.compile(r"[0-9A-Za-z][0-9A-Za-z.+-]{0,40}")


def folder(app: Flask) -> Path:
    """``vendor/pyodide`` in the checkout, or ``PYODIDE_FOLDER``."""
    configured = app.config.get("PYODIDE_FOLDER")
    return Path(configured) if configured else Path(app.root_path).parent / "vendor" / "pyodide"


@lru_cache(maxsize=8)
def _read_version(path: str, mtime_ns: int) -> str | None:
    text = Path(path).read_text(encoding="utf-8").strip()
    return text if _VERSION.fullmatch(text) else None


def served_version(app: Flask | None = None) -> str | None:
    """The Pyodide version this app serves (``vendor/pyodide/VERSION``), or None."""
    stamp = folder(app or current_app) / "VERSION"
    try:
        return _read_version(str(stamp), os.stat(stamp).st_mtime_ns)
    except OSError:
        return None


@bp.app_template_global()
def phone_runtime() -> dict[str, str] | None:
    """What a page needs to start the phone's referee: the worker script's URL, which names
    the folder Pyodide loads from (``/static/phone.js?pyodide=/pyodide/<version>/&v=...``),
    and the page's part, loaded once the worker is ready; None without Pyodide."""
    served = served_version()
    if served is None:
        return None
    index = url_for("pyodide.runtime_file", version=served, name="pyodide.mjs").rsplit("/", 1)[0] + "/"
    return {
        "worker": url_for("static", filename="phone.js", pyodide=index),
        "page": url_for("static", filename="phone-page.js"),
        "index": index,
    }


@bp.get("/pyodide/<version>/<name>")
def runtime_file(version: str, name: str):
    """One of Pyodide's files, compressed as the phone accepts (brotli, else gzip, else as it is)."""
    served = served_version()
    if name not in FILES or served is None or version != served:
        abort(404)
    base = folder(current_app) / served
    encoding = request.accept_encodings.best_match(ENCODINGS)
    path = base / (name + ENCODINGS[encoding]) if encoding else base / name
    if encoding and not path.is_file():  # not compressed (set-up stopped half-way): as it is
        path, encoding = base / name, None
    if not path.is_file():
        abort(404)
    response = send_file(
        path,
        request.environ,
        mimetype=FILES[name],
        download_name=name,
        conditional=True,
        etag=f"{served}-{name}-{encoding or 'identity'}",
        max_age=MAX_AGE,
        response_class=SameForEveryone,
    )
    if encoding:
        response.headers["Content-Encoding"] = encoding  # Flask-Compress leaves it as it is
    response.cache_control.public = True
    response.cache_control.immutable = True
    return response
