"""The links a board holds (the move form's action, Undo's, the rules a refusal cites),
built the same on the server and in the phone.

On the server Flask builds them (``install``: companion/views/common.py installs its
``url_for``). The phone has no URL map: the server gives it each route a board links to as a
pattern (:func:`patterns`, the address with ``{name}`` for each of its arguments), and
:class:`Routes` builds them as Werkzeug does: the path's arguments percent-encoded as a path
converter does, the others in the query in the order given (``None`` left out), an anchor
after ``#``. tests/test_phone_render.py holds the two to the same bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from urllib.parse import quote, urlencode

#: The routes the board's templates link to (templates/play/_answer.html and what it
#: includes), with the arguments of each route's path.
ROUTES: dict[str, tuple[str, ...]] = {
    "play.move": ("game_id",),
    "play.undo": ("game_id",),
    "play.live": ("game_id",),
    "games.show": ("game_id",),
    "games.log": ("game_id",),
    "games.transcript": ("game_id",),
    "tally.screen": ("game_id",),
    "rules.words": ("game",),
    "rules.page": ("game",),
}

Build = Callable[..., str]


def _none(endpoint: str, **values) -> str:
    raise LookupError(f"no links are built here: {endpoint}")


_building: ContextVar[Build | None] = ContextVar("building", default=None)
_installed: Build = _none


def install(build: Build) -> None:
    """How links are built when none is set by :func:`building` (the server: Flask's)."""
    global _installed
    _installed = build


@contextmanager
def building(build: Build) -> Iterator[None]:
    token = _building.set(build)
    try:
        yield
    finally:
        _building.reset(token)


def url_for(endpoint: str, **values) -> str:
    """The link to ``endpoint`` with ``values``, as the current builder makes it."""
    return (_building.get() or _installed)(endpoint, **values)


def _mark(name: str) -> str:
    return "{" + name + "}"


def patterns(build: Build) -> dict[str, str]:
    """Each of :data:`ROUTES` as a pattern, from ``build`` (the server's ``url_for``): its
    address with ``{name}`` where each path argument goes."""
    out = {}
    for endpoint, names in ROUTES.items():
        url = build(endpoint, **{n: _mark(n) for n in names})
        for n in names:
            url = url.replace(quote(_mark(n), safe=""), _mark(n))
        out[endpoint] = url
    return out


class Routes:
    """``url_for`` from :func:`patterns`: what the phone links with."""

    def __init__(self, patterns: Mapping[str, str]):
        self.patterns = dict(patterns)

    def __call__(self, endpoint: str, **values) -> str:
        anchor = values.pop("_anchor", None)
        url = self.patterns[endpoint]
        for name in ROUTES[endpoint]:
            url = url.replace(_mark(name), quote(str(values.pop(name)), safe="!$&'()*+,/:;=@"))
        query = [(k, v) for k, v in values.items() if v is not None]
        if query:
            url += "?" + urlencode(query, safe="!$'()*,/:;?@")
        if anchor is not None:
            url += "#" + quote(anchor, safe="%!#$&'()*+,/:;=?@")
        return url
