"""Pages: the roster, a player's history and record, the standings, and the CSV exports."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from babel.dates import format_interval, format_skeleton
from flask import Blueprint, Response, abort, redirect, render_template, request, session, url_for
from flask_babel import get_locale
from flask_babel import gettext as _

from companion import charts, export, games, stats
from companion.errors import OptionError
from companion.forms import GroupForm, MergeForm, PeriodForm, RenameForm, UndoMergeForm
from companion.store import NameTaken, NotFound, SameGame
from companion.views.common import store, table_zone

bp = Blueprint("players", __name__)


def _titles() -> dict[str, str]:
    return {name: _(games.get(name).TITLE) for name in games.GAMES}


@dataclass(frozen=True)
class Asked:
    """The period the statistics are asked for (issue 46): its form as read from the address,
    the stored times it covers (None: all time) and its name as a heading says it."""

    form: PeriodForm
    period: stats.Period | None
    title: str | None

    @property
    def args(self) -> dict:
        """The address's arguments that ask for it again (a link to another page keeps it)."""
        if self.period is None:
            return {}
        form = self.form
        dates = {k: getattr(form, k).data.isoformat() for k in ("since", "until") if getattr(form, k).data}
        return {"period": form.period.data, **(dates if form.period.data == "range" else {})}


def _asked() -> Asked:
    """The period this page's address asks for: all time unless it names another (a range
    whose dates do not read as days, or end before they start, says so on its form, and the
    page shows all time)."""
    form = PeriodForm(request.args)
    if not form.validate():
        return Asked(form, None, None)
    today = datetime.now(table_zone()).date()
    days = stats.period_days(form.period.data, today, form.since.data, form.until.data)
    if days is None:
        return Asked(form, None, None)
    first, last = days
    locale = get_locale()
    if form.period.data == "month":
        title = format_skeleton("yMMMM", first, locale=locale)
    elif form.period.data == "year":
        title = format_skeleton("y", first, locale=locale)
    elif first and last:
        title = format_interval(first, last, "yMMMd", locale=locale)
    elif first:
        title = _("From %(day)s", day=format_skeleton("yMMMd", first, locale=locale))
    else:
        title = _("Until %(day)s", day=format_skeleton("yMMMd", last, locale=locale))
    return Asked(form, stats.period(days, table_zone()), title)


@bp.get("/players")
def roster():
    return render_template("players/roster.html", players=store().roster())


def _found(player_id: int) -> dict:
    found = store().player(player_id)
    if found is None:
        abort(404)
    return found


def _right(*player_ids: int) -> tuple[str, str] | None:
    """This phone's right to change these players on the roster: a referee key in force
    in the first game of each (``(game id, referee id)``), or None (issue 30)."""
    return store().roster_referee(player_ids, session.get("keys", {}))


def _not_yours(found: dict):
    """A rename or merge without the right over ``found``: refused, with who can do it."""
    message = _(
        "Only a referee of the game where %(name)s first played can rename them or join them with another name. "
        "Nothing was changed.",
        name=found["name"],
    )
    return render_template("error.html", title=_("Not a referee of their first game"), message=message), 403


@bp.get("/players/<row_id:player_id>")
def player(player_id: int):
    """A player's record per game family, head-to-head, wins over time and games; renaming
    (for a referee of their first game) and the record of renames and merges."""
    return _page(_found(player_id), RenameForm(), MergeForm())


@bp.post("/players/<row_id:player_id>")
def rename(player_id: int):
    found = _found(player_id)
    by = _right(player_id)
    if by is None:
        return _not_yours(found)
    form, merge, taken = RenameForm(), MergeForm(), None
    if form.validate_on_submit():
        try:
            store().rename_player(player_id, form.name.data, by)
        except NameTaken as e:
            taken = store().player(e.other)
            merge.into.data = e.other
            form.name.errors = [_("%(name)s is already on the roster.", name=taken["name"])]
        except OptionError as e:
            form.name.errors = [e.reason]
        except NotFound:
            abort(404)
        else:
            return redirect(url_for("players.player", player_id=player_id), code=303)
    return _page(found, form, merge, taken, status=422)


def _page(found: dict, rename: RenameForm, merge: MergeForm, taken: dict | None = None, status: int = 200):
    player_id = found["id"]
    asked = _asked()
    played = stats.games_of(store(), player_id, asked.period)
    wins = charts.wins_over_time(played, _titles())
    chart = charts.line_chart(wins, [""] + [str(i) for i in range(1, len(next(iter(wins.values()))))]) if wins else None
    return render_template(
        "players/player.html",
        player=found,
        record=stats.record(store(), player_id, asked.period),
        rivals=stats.head_to_head(store(), player_id, asked.period),
        asked=asked,
        played=list(reversed(played)),
        chart=chart,
        rename=rename,
        merge=merge,
        taken=taken,
        may_change=_right(player_id) is not None,
        may_merge=taken is not None and _right(player_id, taken["id"]) is not None,
        changes=store().roster_changes(player_id),
        undo_form=UndoMergeForm(),
    ), status


@bp.post("/players/<row_id:player_id>/merge")
def merge(player_id: int):
    """Two names of one person: this player's games become the other's (a referee of the
    first games of both may do it; it is recorded on the other's page, and can be undone there)."""
    found = _found(player_id)
    form = MergeForm()
    if not form.validate_on_submit():
        abort(400)
    by = _right(player_id, form.into.data)
    if by is None:
        return _not_yours(found if _right(player_id) is None else _found(form.into.data))
    try:
        store().merge_players(player_id, form.into.data, by)
    except NotFound:
        abort(404)
    except SameGame as e:
        return render_template(
            "error.html",
            title=_("Two people"),
            message=_(
                "%(name)s and %(other)s played in the same game: they are two people. Nothing was changed.",
                name=e.name,
                other=e.other,
            ),
        ), 409
    return redirect(url_for("players.player", player_id=form.into.data), code=303)


@bp.post("/players/<row_id:player_id>/merges/<row_id:change_id>/undo")
def undo_merge(player_id: int, change_id: int):
    """A merge taken back: the other name is on the roster again, with its games."""
    found = _found(player_id)
    form = UndoMergeForm()
    if not form.validate_on_submit():
        abort(400)
    if not any(c["id"] == change_id and c["kind"] == "merge" for c in store().roster_changes(player_id)):
        abort(404)
    by = _right(player_id)
    if by is None:
        return _not_yours(found)
    try:
        back = store().undo_merge(change_id, by)
    except NotFound:
        abort(404)
    except ValueError:  # undone already (another phone, or a second tap)
        return redirect(url_for("players.player", player_id=player_id), code=303)
    return redirect(url_for("players.player", player_id=back), code=303)


@bp.get("/stats")
def standings():
    """Standings per game family: everyone's, or one group's (the games they played together)."""
    roster = store().roster()
    form = GroupForm(request.args)
    form.p.choices = [(p["id"], p["name"]) for p in roster]
    group = [i for i in (form.p.data or []) if any(p["id"] == i for p in roster)]
    asked = _asked()
    return render_template(
        "players/standings.html",
        table=stats.standings(store(), group, asked.period),
        form=form,
        group=group,
        roster=roster,
        asked=asked,
    )


@bp.get("/export/<any(games, deals, players):table>.csv")
def csv(table: str):
    """One CSV table of this server's data (also ``flask export``)."""
    return Response(
        export.csv_text(store(), table),
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="companion-{table}.csv"'},
    )
