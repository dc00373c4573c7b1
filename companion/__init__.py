"""companion: a phone-first referee for card games played with real cards.

``create_app()`` is the Flask application factory (flaskr style): the SQLite file and a
generated secret key live in the instance folder, so nothing needs configuring by hand.
"""

from __future__ import annotations

import gzip
import secrets
from pathlib import Path

import orjson
from flask import Flask, render_template, request
from flask.json.provider import DefaultJSONProvider
from flask_wtf.csrf import CSRFError, CSRFProtect

__version__ = "0.1.0"

csrf = CSRFProtect()

_PACKAGE = Path(__file__).resolve().parent

# DESIGN.md: no inline script anywhere, so the policy can forbid it.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; "
       "object-src 'none'")

_COMPRESSIBLE = ("text/", "application/json", "application/javascript", "application/manifest+json")


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


def create_app(test_config: dict | None = None) -> Flask:
    app = Flask(__name__, instance_relative_config=True,
                template_folder=_shipped("templates"), static_folder=_shipped("static"))
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)
    app.config.from_mapping(
        SECRET_KEY=_secret_key(Path(app.instance_path) / "secret_key"),
        DATABASE=str(Path(app.instance_path) / "companion.db"),
        WTF_CSRF_TIME_LIMIT=None,  # a game at the table lasts hours; the token must not expire
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
        SEND_FILE_MAX_AGE_DEFAULT=3600,
        MAX_CONTENT_LENGTH=1024 * 1024,
        POLL_SECONDS=3,
    )
    app.config.from_prefixed_env("COMPANION")  # e.g. COMPANION_DATABASE=/srv/club.db
    if test_config:
        app.config.update(test_config)

    from companion.store import Store

    app.extensions["store"] = Store(app.config["DATABASE"])
    app.json = OrjsonProvider(app)
    csrf.init_app(app)

    from companion.views import api, games, play, rules, tally

    app.register_blueprint(games.bp)
    app.register_blueprint(play.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(rules.bp)
    app.register_blueprint(tally.bp)
    rules.register(app)
    csrf.exempt(api.bp)  # the JSON API authenticates with X-Edit-Key, not cookies

    from companion.views.common import register_template_helpers

    register_template_helpers(app)

    @app.errorhandler(CSRFError)
    def csrf_error(e):
        return render_template("error.html", title="Please reload",
                               message="This page is out of date or did not come from this app. "
                                       "Reload it and try again; nothing was changed."), 400

    @app.errorhandler(404)
    def not_found(e):
        return render_template("error.html", title="Not found",
                               message="There is no such page or game here."), 404

    @app.errorhandler(405)
    def bad_method(e):
        return render_template("error.html", title="Not allowed",
                               message="That address can't be used like this."), 405

    @app.errorhandler(413)
    def too_large(e):
        return render_template("error.html", title="Too large",
                               message="That upload is too large."), 413

    @app.after_request
    def security_headers(response):
        h = response.headers
        h.setdefault("Content-Security-Policy", CSP)
        h.setdefault("X-Content-Type-Options", "nosniff")
        h.setdefault("Referrer-Policy", "no-referrer")  # a referee link carries its key
        h.setdefault("X-Frame-Options", "DENY")
        return _compress(response)

    return app


def _secret_key(path: Path) -> str:
    """The instance's secret key, made on first start and kept in the instance folder."""
    if not path.exists():
        path.write_text(secrets.token_hex(32))
        path.chmod(0o600)
    return path.read_text().strip()


def _compress(response):
    """gzip text answers for clients that accept it (phones on a club's Wi-Fi)."""
    if (response.status_code not in (200, 201, 409, 422) or "Content-Encoding" in response.headers
            or "gzip" not in request.headers.get("Accept-Encoding", "")
            or not response.mimetype.startswith(_COMPRESSIBLE)):
        return response
    response.direct_passthrough = False  # static files too: htmx is 52 KB raw, 17 KB gzipped
    data = response.get_data()
    if len(data) < 500:
        return response
    response.set_data(gzip.compress(data, compresslevel=6))
    response.headers["Content-Encoding"] = "gzip"
    response.vary.add("Accept-Encoding")
    return response
