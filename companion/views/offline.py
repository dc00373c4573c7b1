"""The service worker: the app shell kept on the phone, so a page opened before opens
again without the network (static/app.js registers it; taps made offline wait in the page,
not here). Rendered with the shell's versioned URLs, so a changed file is a new worker with
a new cache, and nothing is built."""

from __future__ import annotations

import hashlib

from flask import Blueprint, Response, render_template, request, url_for

from companion import KEEPING
from companion.views.pyodide import served_version

bp = Blueprint("offline", __name__)

#: What a page needs besides its HTML, cached when the worker installs (phone.js: the
#: phone's referee, a few KB; Pyodide's 15 MB are kept as they are first fetched instead).
SHELL = (
    "app.css",
    "pages.css",
    "pages.js",
    "app.js",
    "phone.js",
    "phone-only.js",  # "Play on this phone only" (static/phone-only.js): its page opens offline
    "htmx.min.js",
    "idiomorph.min.js",  # a board's answers morphed in (static/morph.js), online or not
    "morph.js",
    "awake.js",  # a referee's screen kept on (issue 46)
    "icon.svg",
    "icon-192.png",
    "manifest.json",
)


@bp.get("/sw.js")
def worker():
    shell = [url_for("static", filename=name) for name in SHELL]
    version = hashlib.sha256("\n".join(shell).encode()).hexdigest()[:12]
    # Pyodide's files are kept in a cache of their own, named by their version: a new shell
    # keeps them, a new Pyodide replaces them.
    pyodide = served_version()
    runtime = f"companion-pyodide-{pyodide}" if pyodide else ""
    body = render_template("offline/sw.js", shell=shell, version=version, runtime=runtime, keeping=KEEPING)
    # Checked on every visit (a worker is never served stale), and allowed to control every page;
    # unchanged, the check is answered 304 with nothing in it (a repeat load sends no bytes).
    response = Response(body, mimetype="text/javascript", headers={"Cache-Control": "no-cache"})
    response.set_etag(hashlib.sha256(body.encode()).hexdigest()[:20])
    response.make_conditional(request)
    return response
