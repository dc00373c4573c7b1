"""The request's language, chosen with Flask-Babel (companion/i18n.py words everything in it).

The language of a request is, in order: ``?lang=`` on the link (a shared watch link may
carry one; it is then remembered), the ``lang`` cookie the switch on every page sets, the
phone's ``Accept-Language``, else English.
"""

from __future__ import annotations

from urllib.parse import urlencode

from flask import Flask, g, request
from flask_babel import Babel, get_locale, get_translations

from companion import i18n
from companion.board.templating import configure

COOKIE = "lang"
#: A year: the phone keeps its choice.
COOKIE_AGE = 365 * 24 * 3600

babel = Babel()


def select_locale() -> str:
    asked = request.args.get("lang")
    if asked in i18n.LANGUAGES:
        return asked
    kept = request.cookies.get(COOKIE)
    if kept in i18n.LANGUAGES:
        return kept
    return request.accept_languages.best_match(i18n.LANGUAGES, default=i18n.DEFAULT)


def _speech() -> i18n.Speech:
    """The request's language and catalog, kept in ``g`` at the first word: chosen once
    (``select_locale``), and nothing switches it during a request. English outside one."""
    try:
        return g.speech
    except AttributeError:
        g.speech = i18n.Speech(str(get_locale() or i18n.DEFAULT), get_translations())
        return g.speech
    except RuntimeError:  # no app context: no request to have a language
        return i18n.ENGLISH


def switch_url(code: str) -> str:
    """This page in language ``code``: the same address with ``lang=code`` (it sets the
    cookie), leaving out the query values the page refused (``g.refused_args``). A page
    shown in answer to a form's POST links to the home page."""
    if request.method in ("GET", "HEAD"):
        refused = {"lang", *g.get("refused_args", ())}
        path, args = request.path, [(k, v) for k, v in request.args.items(multi=True) if k not in refused]
    else:
        path, args = "/", []
    return path + "?" + urlencode([*args, ("lang", code)])


def init_app(app: Flask) -> None:
    babel.init_app(app, locale_selector=select_locale)
    i18n.install(_speech)
    # The templates' words, helpers and settings, as the phone's renderer has them
    # (companion/board/templating.py): one configuration, so both render the same bytes.
    configure(app.jinja_env)
    app.jinja_env.globals.update(switch_url=switch_url)

    @app.context_processor
    def sentence_gap() -> dict:
        """``gap`` and ``colon`` (companion/board/templating.py, ``punctuation``)."""
        return {"gap": i18n.gap(), "colon": i18n.colon()}

    @app.after_request
    def remember_language(response):
        asked = request.args.get("lang")
        if asked in i18n.LANGUAGES and request.cookies.get(COOKIE) != asked:
            response.set_cookie(COOKIE, asked, max_age=COOKIE_AGE, samesite="Lax", httponly=True)
        response.vary.add("Accept-Language")
        response.vary.add("Cookie")
        return response
