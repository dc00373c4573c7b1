"""companion: a phone-first referee for card games played with real cards.

``create_app()`` is the Flask application factory (flaskr style): the SQLite file and a
generated secret key live in the instance folder, so nothing needs configuring by hand.
"""

from __future__ import annotations

import hashlib
import math
import os
import secrets
import tempfile
import time
from functools import lru_cache
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import orjson
from flask import Flask, jsonify, render_template, request
from flask.json.provider import DefaultJSONProvider
from flask.sessions import SecureCookieSessionInterface
from flask.templating import Environment
from flask_talisman import Talisman
from flask_wtf.csrf import CSRFError
from jinja2.bccache import Bucket, BytecodeCache
from werkzeug.exceptions import HTTPException
from werkzeug.middleware.proxy_fix import ProxyFix

from companion import limits_store, timing
from companion.extensions import compress, csrf, htmx, limiter

__version__ = "0.1.0"


_PACKAGE = Path(__file__).resolve().parent

# No inline script anywhere, so the policy can forbid it (htmx's indicator styles are off).
# WebAssembly may be compiled ('wasm-unsafe-eval': Pyodide's CPython, which runs the engines
# on the phone, issue 45; it allows no eval of JavaScript), in a Web Worker from this origin.
CSP = (
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; "
    "object-src 'none'"
)

#: HSTS on HTTPS answers: a year, subdomains too (flask-talisman's default value).
HSTS = "max-age=31556926; includeSubDomains"

#: A year: static URLs carry a hash of the file (``?v=``), so a changed file is a new URL.
STATIC_MAX_AGE = 365 * 24 * 3600


def _shipped(name: str) -> str:
    """``templates``/``static`` sit at the top of the checkout; a wheel carries them inside the package."""
    inside = _PACKAGE / name
    return str(inside if inside.is_dir() else _PACKAGE.parent / name)


class OrjsonProvider(DefaultJSONProvider):
    """JSON answers through orjson: a move's answer carries every finished deal, and the
    stdlib encoder would make a move at deal 20 cost more than one at deal 1. Keys keep
    the engine's order (the seat order); nothing is pretty-printed."""

    def dumps(self, obj, **kwargs) -> str:
        try:
            return orjson.dumps(obj).decode()
        except TypeError:  # something orjson doesn't know: the standard provider's way
            return super().dumps(obj, **kwargs)

    def loads(self, s, **kwargs):
        return orjson.loads(s)


class FallbackMemo(Environment):
    """Flask's template environment, remembering which name of an include's list it found
    (``{% include ["play/<game>/_record.html", "play/_no_record.html"] %}``: a game's own
    template, else the shared one). Jinja caches the templates it found, not the names it
    did not: each render searched every template folder again for a game's missing template,
    some 20 µs, two or three times in a tap's answer. Not while templates reload (``flask
    --debug``): a template added then is found."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._found: dict[tuple[str, ...], str] = {}

    def select_template(self, names, parent=None, globals=None):
        if self.auto_reload or not isinstance(names, (list, tuple)):
            return super().select_template(names, parent, globals)
        key = tuple(names)
        found = self._found.get(key)
        if found is None:
            template = super().select_template(names, parent, globals)
            if template.name in key:
                self._found[key] = template.name
            return template
        return self.get_template(found, parent, globals)


class CompiledTemplates(BytecodeCache):
    """Each template's compiled code, kept by this process for every app it makes (the test
    suite makes hundreds; a worker, one): an app made again compiles none of the templates
    again, ~20 ms each (more than half of the rules-lab tests' time went to it). Jinja
    checks the template's source before using its code: a template changed since is
    compiled again."""

    def __init__(self) -> None:
        self._code: dict[str, bytes] = {}  # one entry per template file: a bounded set

    def load_bytecode(self, bucket: Bucket) -> None:
        code = self._code.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: Bucket) -> None:
        self._code[bucket.key] = bucket.bytecode_to_string()


_COMPILED = CompiledTemplates()


class _App(Flask):
    jinja_environment = FallbackMemo


#: The header the service worker's own fetches carry (templates/offline/sw.js, fetched): a
#: copy of a page kept for offline, not a page this phone loads.
KEEPING = "X-Companion-Keep"


class SecureWhenHttps(SecureCookieSessionInterface):
    """The session cookie (it holds the referee keys) is ``Secure`` whenever the request
    came over HTTPS, and not on the room's plain-HTTP Wi-Fi, where a Secure cookie would
    never come back. Behind a proxy, TRUST_PROXY lets the request know it was HTTPS."""

    def get_cookie_secure(self, app: Flask) -> bool:
        return bool(app.config["SESSION_COOKIE_SECURE"]) or request.is_secure

    #: A page load: GET, and HEAD, which answers with GET's headers (RFC 9110, 9.3.2).
    PAGE_LOADS = frozenset({"GET", "HEAD"})

    def save_session(self, app: Flask, session, response) -> None:
        """A changed session is sent back. An unchanged one is signed again (its month
        renewed) only with a page: an HTML answer to a page load that htmx did not ask.

        Not with a tap's answer or a poll (signing it was part of every tap's cost), nor with
        a script, a stylesheet, the service worker or the live stream: such a request may
        leave before a join or a hand-over changes the cookie and be answered after it, and
        an answer that renewed the cookie it came with would put the old one back (the phone
        would lose the key it had just been given). Nor with the copy of a page the service
        worker fetches to keep (KEEPING): it too may leave before a join and be answered after."""
        page = request.method in self.PAGE_LOADS and not htmx and response.mimetype == "text/html"
        page = page and request.headers.get(KEEPING) != "1"
        if page and session.permanent and app.config["SESSION_REFRESH_EACH_REQUEST"]:
            session.modified = True
        super().save_session(app, session, response)

    def should_set_cookie(self, app: Flask, session) -> bool:
        return session.modified


def create_app(test_config: dict | None = None, instance_path: str | None = None) -> Flask:
    """The app. ``instance_path`` (or ``COMPANION_INSTANCE_PATH``) is where the database
    and the generated secret key live; by default ``instance/`` beside the package."""
    instance_path = instance_path or os.environ.get("COMPANION_INSTANCE_PATH") or None
    app = _App(
        __name__,
        instance_relative_config=True,
        instance_path=instance_path,
        template_folder=_shipped("templates"),
        static_folder=_shipped("static"),
    )
    # The templates are a fixed set: kept in a plain dict, not Jinja's locked LRU, whose
    # bookkeeping every include of a board paid again.
    app.jinja_options = {**app.jinja_options, "cache_size": -1, "bytecode_cache": _COMPILED}
    app.config.from_mapping(
        DATABASE=str(Path(app.instance_path) / "companion.db"),
        # Several app servers on one database server (README, "Several servers"):
        # postgresql://user:password@host:port/name (DATABASE_URL, or COMPANION_DATABASE_URL);
        # unset, the games are in the SQLite file DATABASE. Each server process keeps a pool of
        # DATABASE_POOL_SIZE connections (make run: 8 threads a process), and a request waits at
        # most DATABASE_POOL_TIMEOUT seconds for one (then: 503, try again).
        DATABASE_URL=os.environ.get("DATABASE_URL") or None,
        DATABASE_POOL_SIZE=8,
        DATABASE_POOL_TIMEOUT=5.0,
        PUBLIC_URL=None,  # e.g. https://cards.example.org behind a proxy; else the phone's own address
        TRUST_PROXY=False,  # behind a reverse proxy: read X-Forwarded-For/-Proto/-Host from one hop
        WTF_CSRF_TIME_LIMIT=None,  # a game at the table lasts hours; the token must not expire
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
        MAX_CONTENT_LENGTH=1024 * 1024,
        # Other phones are told each move at once (views/events.py, a stream of server-sent events),
        # and check anyway every PUSH_POLL_SECONDS; while their stream is not open (the browser has
        # none, or this process's PUSH_STREAMS are taken) they poll every POLL_SECONDS instead, as
        # before. An unchanged poll is a 0-byte 204.
        POLL_SECONDS=0.5,
        PUSH_POLL_SECONDS=10,
        # A referee's page starts the engines in the phone (issue 45), which answer its taps.
        PHONE_REFEREE=True,
        # Streams open at once per server process: each holds one of gunicorn's 8 threads, so half
        # of them stay free for the moves (a stream also ends after 25 s: views/events.py).
        PUSH_STREAMS=4,
        HANDOVER_MINUTES=10,  # how long an "add a referee" or "hand over" link stays good
        # SQLite's synchronous: NORMAL (with WAL, a power cut may lose the last moves, a crash
        # never does) or FULL (every move waits for the disk; see `make bench` for its cost).
        SYNCHRONOUS="NORMAL",
        TIMEZONE=None,  # the move log's clock, e.g. "Asia/Tokyo"; by default the server's own
        # New and imported games per client address (a club's phones may share one address
        # behind its Wi-Fi's NAT): enough for every table, not for a script filling the disk.
        # Counted once per server, whatever its number of workers: the counts are in the SQLite
        # file limits.sqlite in the instance folder, which every worker of the server shares
        # (companion/limits_store.py), on SQLite and PostgreSQL deployments alike. Several app
        # servers on one database each count their own (or point them all at one Redis:
        # RATELIMIT_STORAGE_URI=redis://..., with Flask-Limiter's redis extra installed).
        CREATE_LIMIT="30 per minute; 300 per hour",
        # No rate-limit headers on every answer: a 429 says Retry-After itself (_register_errors),
        # so a 503 keeps its own Retry-After: 2 instead of the limit's window.
        RATELIMIT_HEADERS_ENABLED=False,
        RATELIMIT_STORAGE_URI=None,  # None: companion-sqlite:///<instance folder>/limits.sqlite
        COMPRESS_MIN_SIZE=500,
        # Brotli first: every phone's browser accepts it, and it makes the smallest pages (a game
        # page 13% below gzip at level 5, in a third of a millisecond; zstd's level 3 is no
        # smaller than gzip). Scripts and stylesheets are compressed once, at brotli's and gzip's
        # strongest levels (views/assets.py); the other static files are sent as streams: gzip
        # them too (Flask-Compress leaves gzip out of its streaming list by default, and some
        # phones' browsers ask for gzip only).
        COMPRESS_ALGORITHM=["br", "gzip", "zstd", "deflate"],
        COMPRESS_BR_LEVEL=5,
        COMPRESS_ALGORITHM_STREAMING=["br", "gzip", "zstd", "deflate"],
    )
    app.config.from_prefixed_env("COMPANION")  # e.g. COMPANION_DATABASE=/srv/club.db
    if test_config:
        app.config.update(test_config)
    app.config["SYNCHRONOUS"] = _synchronous(app.config["SYNCHRONOUS"])
    if not app.config["RATELIMIT_STORAGE_URI"]:  # the file is made at the first count, not now
        app.config["RATELIMIT_STORAGE_URI"] = limits_store.uri(Path(app.instance_path) / "limits.sqlite")
    _check_timezone(app.config["TIMEZONE"])
    if not app.config.get("SECRET_KEY"):  # only now: a configured key writes no file
        Path(app.instance_path).mkdir(parents=True, exist_ok=True)
        app.config["SECRET_KEY"] = _secret_key(Path(app.instance_path) / "secret_key")
    from companion.store import open_store

    url = app.config["DATABASE_URL"]
    if not url:
        Path(app.config["DATABASE"]).parent.mkdir(parents=True, exist_ok=True)
    app.extensions["store"] = open_store(
        url or app.config["DATABASE"],
        synchronous=app.config["SYNCHRONOUS"],
        pool_size=int(app.config["DATABASE_POOL_SIZE"]),
        pool_timeout=float(app.config["DATABASE_POOL_TIMEOUT"]),
    )

    @app.teardown_appcontext
    def give_back_the_connection(_error):
        """Every request gives its database connection back (to the pool, on PostgreSQL)."""
        app.extensions["store"].release()

    app.json = OrjsonProvider(app)
    app.session_interface = SecureWhenHttps()
    if app.config["TRUST_PROXY"]:  # COMPANION_TRUST_PROXY=1 (the env value is read as JSON)
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=1, x_proto=1, x_host=1)  # type: ignore[method-assign]
    from companion import languages

    timing.init_app(app)  # first: its clock runs over every other extension's hooks
    languages.init_app(app)
    csrf.init_app(app)
    htmx.init_app(app)
    limiter.init_app(app)
    compress.init_app(app)
    # Security headers: flask-talisman with our CSP. No HTTPS forcing (phones reach a
    # laptop on the room's Wi-Fi over plain HTTP); HSTS is sent only on HTTPS requests, by
    # the hook below (flask-talisman's would believe anyone's X-Forwarded-Proto).
    Talisman(
        app,
        force_https=False,
        session_cookie_secure=False,
        content_security_policy=CSP,
        frame_options="DENY",
        referrer_policy="no-referrer",
        strict_transport_security=False,
    )

    @app.after_request
    def hsts(response):
        """HSTS on a request that came over HTTPS: its own scheme, or behind a trusted proxy
        (TRUST_PROXY) the forwarded one, as the session cookie's Secure (SecureWhenHttps)."""
        if request.is_secure:
            response.headers["Strict-Transport-Security"] = HSTS
        return response

    from companion import cli
    from companion.views import (
        admin,
        api,
        correct,
        events,
        games,
        offline,
        phone,
        play,
        players,
        pyodide,
        rules,
        share,
        tally,
    )
    from companion.views.common import CONVERTERS

    app.url_map.converters.update(CONVERTERS)  # before the rules that use them
    for view in (games, play, correct, events, share, api, rules, tally, players, offline, pyodide, phone, admin):
        app.register_blueprint(view.bp)
    from companion.views import assets

    app.view_functions["static"] = assets.static  # scripts and stylesheets minified, compressed once
    rules.register(app)
    cli.register(app)
    csrf.exempt(api.bp)  # the JSON API authenticates with X-Edit-Key, not cookies

    from companion.views.common import register_template_helpers

    register_template_helpers(app)
    _register_errors(app)

    @app.url_defaults
    def static_version(endpoint, values):
        """Cache busting: ``/static/app.css?v=<hash of the file>``."""
        if endpoint == "static" and "filename" in values and "v" not in values:
            values["v"] = _file_hash(Path(app.static_folder) / values["filename"])

    @app.after_request
    def caching(response):
        # One place says that answers differ for htmx (a fragment) and for a page load.
        response.vary.add("HX-Request")
        if request.endpoint == "static" and request.args.get("v") and response.status_code == 200:
            response.cache_control.no_cache = None  # Flask's "check each time" would undo the year
            response.cache_control.public = True
            response.cache_control.max_age = STATIC_MAX_AGE
            response.cache_control.immutable = True
        return response

    return app


def _register_errors(app: Flask) -> None:
    from flask_babel import lazy_gettext as _l

    pages = {
        400: (_l("Bad request"), _l("That request can't be read. Nothing was changed.")),
        403: (_l("Not the referee"), _l("Only a referee's phone can do this. Ask the referee for a link.")),
        404: (_l("Not found"), _l("There is no such page or game here.")),
        405: (_l("Not allowed"), _l("That address can't be used like this.")),
        410: (_l("Link used up"), _l("This link has expired or was already used. Ask the referee for a new one.")),
        413: (_l("Too large"), _l("That upload is too large.")),
        429: (
            _l("Too many new games"),
            _l("This address started too many games just now. Wait a little and try again."),
        ),
        503: (
            _l("Try again in a moment"),
            _l("The games can't be reached just now. Reload in a moment: the game shows every change that was saved."),
        ),
    }

    #: What an API client can tell a refusal by besides its words (the Error schema's ``code``).
    codes = {503: {"code": "unavailable"}}

    def handler(code):
        def page(e):
            title, message = (str(words) for words in pages[code])
            # The error's own headers stay (a 405's Allow, RFC 9110); the body is ours.
            own = e.get_headers() if isinstance(e, HTTPException) else []
            kept = [(k, v) for k, v in own if k.lower() != "content-type"]
            if request.path.startswith("/api/"):  # API clients read JSON, as from every API answer
                return jsonify({"error": message} | codes.get(code, {})), code, kept
            return render_template("error.html", title=title, message=message), code, kept

        return page

    for code in pages:
        app.register_error_handler(code, handler(code))

    from flask_babel import gettext as _
    from flask_babel import ngettext
    from flask_limiter.errors import RateLimitExceeded

    from companion.extensions import limiter

    windows = {
        "second": lambda n: ngettext("%(num)s second", "%(num)s seconds", n),
        "minute": lambda n: ngettext("%(num)s minute", "%(num)s minutes", n),
        "hour": lambda n: ngettext("%(num)s hour", "%(num)s hours", n),
        "day": lambda n: ngettext("%(num)s day", "%(num)s days", n),
    }

    def too_many_games(e: RateLimitExceeded):
        """The creation budget spent (it counts games made: extensions.py): how many games
        this address started and in what time, and Retry-After, when the window ends."""
        item = e.limit.limit
        window = windows.get(item.GRANULARITY.name)
        if window:
            message = _(
                "This address has started %(n)s games in %(window)s, as many as it may. Wait a little and try again.",
                n=item.amount,
                window=window(item.multiples),
            )
        else:
            message = str(pages[429][1])
        reset = limiter.current_limit.window.reset_time if limiter.current_limit else time.time() + item.get_expiry()
        headers = [("Retry-After", str(max(1, math.ceil(reset - time.time()))))]
        if request.path.startswith("/api/"):
            return jsonify({"error": message, "code": "too_many_games"}), 429, headers
        return render_template("error.html", title=str(pages[429][0]), message=message), 429, headers

    app.register_error_handler(RateLimitExceeded, too_many_games)

    from companion.store import NotReferee

    # The store checks the key again inside the write: a phone revoked or handed over
    # between the view's check and the write is refused like any other non-referee.
    app.register_error_handler(NotReferee, handler(403))

    from companion.store import UNAVAILABLE

    unavailable = handler(503)

    def database_unavailable(e):
        """The database can't be reached or written (PostgreSQL down, the pool exhausted,
        SQLite busy past its timeout, its disk full or its file read-only): a 503 saying so,
        not a traceback. The transaction was rolled back, so a change either was saved whole
        or not at all; the phone's retry finds out which."""
        app.logger.warning("The database can't be reached or written: %s", e)
        body, code, headers = unavailable(e)
        return body, code, [*headers, ("Retry-After", "2")]

    for error in UNAVAILABLE:
        app.register_error_handler(error, database_unavailable)

    @app.errorhandler(CSRFError)
    def csrf_error(e):
        from flask_babel import gettext as _

        return render_template(
            "error.html",
            title=_("Please reload"),
            message=_(
                "This page is out of date or did not come from this app. Reload it and try again; nothing was changed."
            ),
        ), 400


def _synchronous(value) -> str:
    """``COMPANION_SYNCHRONOUS``, checked at start-up: NORMAL or FULL, in any case."""
    from companion.store import SYNCHRONOUS

    setting = str(value).strip().upper()
    if setting not in SYNCHRONOUS:
        raise ValueError(
            f"COMPANION_SYNCHRONOUS must be NORMAL (the default) or FULL, not {value!r}: "
            "FULL makes every move wait for the disk, so none is lost to a power cut"
        )
    return setting


def _check_timezone(name) -> None:
    """``COMPANION_TIMEZONE``, checked at start-up: a zone name such as ``Asia/Tokyo``
    (unset or empty: the server's own)."""
    if not name:
        return
    try:
        ZoneInfo(str(name))
    except (ValueError, ZoneInfoNotFoundError):
        raise ValueError(
            f"COMPANION_TIMEZONE must name a time zone such as Asia/Tokyo or Europe/Madrid, not {name!r}"
        ) from None


@lru_cache(maxsize=64)
def _file_hash_at(path: str, mtime: float) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:10]


def _file_hash(path: Path) -> str:
    try:
        return _file_hash_at(str(path), path.stat().st_mtime)
    except OSError:
        return "0"


def _secret_key(path: Path) -> str:
    """The instance's secret key, made on first start and kept in the instance folder.

    Written whole into a file of its own (readable by this user only), then linked into
    place, which fails if another process linked its key first: of processes starting
    together one key wins, and every one of them reads that one, never a half-written file."""
    if not path.exists():
        fd, made = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-")  # mode 0600
        try:
            with os.fdopen(fd, "w") as f:
                f.write(secrets.token_hex(32))
            os.link(made, path)
        except FileExistsError:
            pass
        finally:
            os.unlink(made)
    return path.read_text().strip()
