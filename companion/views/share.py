"""Sharing a game between the phones at the table: the watch link, one-use links that
add a referee or hand the game over, revoking other referees, archiving and deleting.

The edit key never appears in a URL: a referee link carries a one-use token that
expires (``HANDOVER_MINUTES``), and opening it shows a button; only the button's POST
uses the token, so a link preview or a QR scanner that fetches the page uses nothing.
"""

from __future__ import annotations

from flask import Blueprint, abort, current_app, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _

from companion.extensions import htmx
from companion.store import LINK_KINDS, Conflict, LinkUsedUp, NotFound
from companion.views.common import (
    JOINED,
    confirms_here,
    external_url,
    forget,
    load_game,
    remember_confirmer,
    remember_key,
    require_referee,
    store,
    table_of,
)
from companion.views.play import _answer, _version, board_context

bp = Blueprint("share", __name__, url_prefix="/games/<game_id:game_id>")


def _panel(row: dict, status: int = 200, **extra):
    """The share panel alone for htmx, else the game page with the panel open."""
    context = board_context(table_of(row), row, share_open=True, **extra)
    template = "play/_share.html" if htmx else "play/page.html"
    return render_template(template, **context), status


@bp.get("/share")
def panel(game_id: str):
    """The panel opened: watch QR code and link, and the referee's actions."""
    return _panel(load_game(game_id))


@bp.post("/share/link")
def make_link(game_id: str):
    """A new "add a referee" or "hand over" link, shown as a QR code in the panel."""
    row = load_game(game_id)
    require_referee(game_id)
    kind = request.form.get("kind")
    if kind not in LINK_KINDS:
        abort(400)
    token = store().make_link(game_id, kind, current_app.config["HANDOVER_MINUTES"])
    return _panel(row, link={"kind": kind, "url": _join_url(game_id, token)})


@bp.post("/share/revoke")
def revoke(game_id: str):
    """Rotate the key: every other referee phone (and every unused link) stops working."""
    row = load_game(game_id)
    key = require_referee(game_id)
    remember_key(game_id, store().rotate_key(game_id, key))
    return _panel(row, share_notice=_("Done: this phone is now the only referee. Other phones can still watch."))


def _join_url(game_id: str, token: str) -> str:
    return external_url("share.join", game_id=game_id, token=token)


@bp.get("/join/<token>")
def join(game_id: str, token: str):
    """What the link does, with one button; a GET uses nothing."""
    row = load_game(game_id)
    try:
        kind = store().link_kind(game_id, token)
    except LinkUsedUp:
        abort(410)
    return render_template("play/join.html", row=row, kind=kind, token=token, title=table_of(row).rules.TITLE)


@bp.post("/join")
def redeem(game_id: str):
    load_game(game_id)
    try:
        kind, key = store().redeem_link(game_id, request.form.get("token", ""))
    except LinkUsedUp:
        abort(410)
    if key is None:  # a confirm link: this phone confirms the deals for the other side
        remember_confirmer(game_id)
    else:
        remember_key(game_id, key)
    flash(kind, JOINED)  # the game's page says what this phone has just become
    return redirect(url_for("games.show", game_id=game_id), code=303)


@bp.post("/confirm")
def confirm(game_id: str):
    """The other side confirms the deals its phone shows (at the version it posts)."""
    load_game(game_id)
    if not confirms_here(game_id):
        abort(403)
    try:
        store().confirm(game_id, _version())
    except Conflict:
        row = load_game(game_id)
        return _answer(table_of(row), row, None, 409, notice=_("The game changed meanwhile: check the deals again."))
    except NotFound:
        abort(400)
    if not htmx:
        return redirect(url_for("games.show", game_id=game_id), code=303)
    row = load_game(game_id)
    return _answer(table_of(row), row, None, notice=_("Confirmed."))


@bp.post("/archive")
def archive(game_id: str):
    load_game(game_id)
    require_referee(game_id)
    store().archive(game_id, request.form.get("archived", "1") == "1")
    return redirect(url_for("games.show", game_id=game_id), code=303)


@bp.get("/delete")
def confirm_delete(game_id: str):
    """Asks to confirm, with the button that posts; opening it changes nothing."""
    row = load_game(game_id)
    require_referee(game_id)
    return render_template("play/delete.html", row=row, title=table_of(row).rules.TITLE)


@bp.post("/delete")
def delete(game_id: str):
    """Removes the game and its moves for good (the confirm page's button)."""
    load_game(game_id)
    require_referee(game_id)
    try:
        store().delete(game_id)
    except NotFound:
        abort(404)
    forget(game_id)
    return redirect(url_for("games.home"), code=303)
