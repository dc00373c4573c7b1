"""The Flask extensions, made once here and bound to the app by ``create_app()``: the views
use them (``htmx``, ``creating_games``) without importing the app's factory."""

from __future__ import annotations

from flask import current_app, g
from flask_compress import Compress
from flask_htmx import HTMX
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_wtf.csrf import CSRFProtect

csrf = CSRFProtect()
#: Rate limits, by client address (the proxy's client with TRUST_PROXY); only the routes
#: that create games have one (views: ``limiter.limit(create_limit)``).
limiter = Limiter(get_remote_address, default_limits=[])


def made_a_game() -> None:
    """This request made a game: it counts toward the address's creation budget."""
    g.made_a_game = True


#: One budget per address for starting and importing games, the form and the API alike. It
#: counts games made (a view calls :func:`made_a_game`), not requests: a refused body, a
#: form sent again or a 503 leaves the budget as it was (checked before the view, counted
#: after it: requests in flight at once may each take the last place).
creating_games = limiter.shared_limit(
    lambda: current_app.config["CREATE_LIMIT"],
    scope="creating games",
    methods=["POST"],
    deduct_when=lambda response: g.get("made_a_game", False),
)
htmx = HTMX()
compress = Compress()
