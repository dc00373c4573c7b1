"""The admin page (issue 46, item 6): a club's organiser, identified by the server's key
(companion/admin.py; ``make run`` prints it once), downloads a backup of every game and
restores one, from a phone. A restore passes the same checks as ``flask restore`` before
anything is replaced (SQLite's integrity, the schema, every game replaying to the state it
stores), and what it replaces is kept first in the instance folder.

Anyone who has not given the key gets 403 for the backup and the restore; the page itself
asks for the key. Nothing changes on a GET: the key and the restore are POSTs with the form
token, the backup's download a GET that only reads.
"""

from __future__ import annotations

import tempfile
from datetime import datetime
from pathlib import Path

from flask import Blueprint, current_app, redirect, render_template, request, send_file, session, url_for
from flask_babel import gettext as _

from companion import admin
from companion.extensions import csrf, limiter
from companion.forms import KeyForm, RestoreForm
from companion.views.common import store

bp = Blueprint("admin", __name__, url_prefix="/admin")

#: Wrong keys from one address (each check is an scrypt hash: slow on purpose); a right one
#: does not count.
GUESSES = "5 per minute; 30 per hour"
#: The largest backup a restore takes (the app's other requests stay within MAX_CONTENT_LENGTH).
MOST_BYTES = 512 * 1024 * 1024


def _instance() -> str:
    return current_app.instance_path


def organiser() -> bool:
    """Whether this phone gave the key in force."""
    kept = admin.fingerprint(_instance())
    return kept is not None and session.get("admin") == kept


def _not_organiser():
    message = _("Only the club's organiser can do this, with the server's key: open the admin page and enter it.")
    return render_template("error.html", title=_("Not the organiser"), message=message), 403


def _page(status: int = 200, key_form: KeyForm | None = None, restore_form: RestoreForm | None = None, **said):
    return render_template(
        "admin/page.html",
        organiser=organiser(),
        has_key=admin.fingerprint(_instance()) is not None,
        key_form=key_form or KeyForm(),
        restore_form=restore_form or RestoreForm(),
        games=len(store().game_ids()),
        **said,
    ), status


@bp.get("")
def page():
    return _page()


def _too_many_guesses(limit):
    message = _("Too many wrong keys from this address: wait a little and try again.")
    return current_app.make_response((render_template("error.html", title=_("Wait a little"), message=message), 429))


@bp.post("")
@limiter.limit(
    GUESSES, scope="server key", on_breach=_too_many_guesses, deduct_when=lambda response: response.status_code == 403
)
def enter_key():
    form = KeyForm()
    if not form.validate_on_submit():
        return _page(400, key_form=form)
    if not admin.check(_instance(), form.key.data):
        return _page(403, key_form=form, wrong_key=True)
    session["admin"] = admin.fingerprint(_instance())
    return redirect(url_for("admin.page"), code=303)


@bp.post("/leave")
def leave():
    session.pop("admin", None)
    return redirect(url_for("admin.page"), code=303)


@bp.get("/backup")
def backup():
    """Every game, as an SQLite file checked as a restore would check it."""
    if not organiser():
        return _not_organiser()
    folder = Path(tempfile.mkdtemp(dir=_instance(), prefix=".backup-"))
    path = folder / "backup.sqlite"
    try:
        store().backup(path)
        data = path.open("rb")  # read from the open file: the name is gone before it is sent
    except ValueError as e:  # a game on this server does not replay: no file is given
        current_app.logger.error("The backup did not check out: %s", e)
        return _page(500, refused=_("The backup did not check out, so none was made."), detail=str(e))
    finally:
        path.unlink(missing_ok=True)
        folder.rmdir()
    name = datetime.now().strftime("companion-%Y%m%d-%H%M.sqlite")
    return send_file(data, mimetype="application/vnd.sqlite3", as_attachment=True, download_name=name)


@bp.post("/restore")
@csrf.exempt  # the form checks its own token, once the larger upload it allows is read
def restore():
    if not organiser():
        return _not_organiser()
    request.max_content_length = MOST_BYTES
    form = RestoreForm()
    if not form.validate_on_submit():
        return _page(400, restore_form=form)
    folder = Path(tempfile.mkdtemp(dir=_instance(), prefix=".restore-"))
    path = folder / "upload.sqlite"
    try:
        form.backup.data.save(path)
        games, kept = store().restore(path, keep_in=Path(_instance()))
    except ValueError as e:
        refused = _("That file is not a backup this server takes. Nothing was changed.")
        # what the checks say, naming the file as the phone chose it, not where the server put it
        detail = str(e).replace(str(path), form.backup.data.filename or "?")
        return _page(422, restore_form=form, refused=refused, detail=detail)
    finally:
        path.unlink(missing_ok=True)
        folder.rmdir()
    return _page(restored=games, kept=kept.name)
