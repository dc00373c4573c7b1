"""Scripts and stylesheets as a phone fetches them (issues 34 and 45: the game page's own
first load, htmx included, at most 32 KB compressed).

Flask's static view sends a file as it is on disk, and Flask-Compress compresses a stream
of it at its quick, on-the-fly levels. For ``.js`` and ``.css`` this view sends instead the
file without its comments and spaces (rjsmin, rcssmin: ``static/app.js`` keeps its comments
for the people reading it), compressed once per version of the file at the strongest levels
(brotli 11; gzip by Zopfli, whose streams any gzip reader takes: 3% smaller than gzip's level
9 for htmx, in a tenth of a second once) and kept in memory: brotli when the phone accepts it
(every phone's browser does over HTTP and HTTPS alike), else gzip, else plain. Every other
static file is Flask's to send, as before. The URL's ``?v=`` hash (``create_app``,
static_version) is the file's on disk, so a changed file is a new URL as before.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from functools import lru_cache

import brotli
import rcssmin
import rjsmin
import zopfli.gzip
from flask import Response, current_app, request
from werkzeug.security import safe_join

#: What a phone's browser accepts, best first; "identity" is the file as it is.
ENCODINGS = ("br", "gzip")
TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}


@dataclass(frozen=True)
class Asset:
    """A static file ready to send: its bodies by Content-Encoding, and a validator."""

    tag: str
    bodies: dict[str, bytes]
    content_type: str


def minified(name: str, text: str) -> str:
    """The file without comments and spaces (``*.min.js`` already is)."""
    if name.endswith(".min.js"):
        return text
    if name.endswith(".js"):
        return rjsmin.jsmin(text)
    return rcssmin.cssmin(text)


@lru_cache(maxsize=32)
def _built(path: str, mtime_ns: int, size: int) -> Asset:
    """Built once per version of a file (its time and size), whichever app asks."""
    with open(path, encoding="utf-8") as f:
        body = minified(path, f.read()).encode()
    return Asset(
        tag=hashlib.sha256(body).hexdigest()[:20],
        bodies={
            "br": brotli.compress(body, mode=brotli.MODE_TEXT, quality=11),
            "gzip": zopfli.gzip.compress(body),
            "identity": body,
        },
        content_type=TYPES[os.path.splitext(path)[1]],
    )


def asset(folder: str, filename: str) -> Asset | None:
    """The script or stylesheet ``filename`` in ``folder``, or None (another kind of file,
    or none: Flask's static view says so)."""
    path = safe_join(folder, filename)
    if path is None or os.path.splitext(path)[1] not in TYPES:
        return None
    try:
        found = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(found.st_mode):
        return None
    return _built(path, found.st_mtime_ns, found.st_size)


def static(filename: str) -> Response:
    """The app's static view: scripts and stylesheets minified and compressed, the rest as Flask sends them."""
    app = current_app
    built = asset(app.static_folder or "", filename)
    if built is None:
        return app.send_static_file(filename)
    encoding = request.accept_encodings.best_match(ENCODINGS) or "identity"
    response = Response(built.bodies[encoding], content_type=built.content_type)
    if encoding != "identity":
        response.headers["Content-Encoding"] = encoding  # Flask-Compress leaves it as it is
    response.vary.add("Accept-Encoding")
    response.set_etag(f"{built.tag}-{encoding}")
    if not request.args.get("v"):  # a versioned URL is cached for good (create_app); any other is checked
        response.cache_control.no_cache = True
    response.make_conditional(request)
    return response
