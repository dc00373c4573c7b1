"""Pages: the roster, a player's history and record, the standings, and the CSV exports."""

from __future__ import annotations

from flask import Blueprint, Response, abort, redirect, render_template, request, url_for
from flask_babel import gettext as _

from companion import charts, export, games, stats
from companion.forms import GroupForm, MergeForm, RenameForm
from companion.store import NameTaken, NotFound
from companion.views.common import store

bp = Blueprint("players", __name__)


def _titles() -> dict[str, str]:
    return {name: _(games.get(name).TITLE) for name in games.GAMES}


@bp.get("/players")
def roster():
    return render_template("players/roster.html", players=store().roster())


@bp.route("/players/<int:player_id>", methods=["GET", "POST"])
def player(player_id: int):
    """A player's record per game family, head-to-head, wins over time and games; renaming."""
    found = store().player(player_id)
    if found is None:
        abort(404)
    rename, merge, taken = RenameForm(), MergeForm(), None
    if rename.validate_on_submit():
        try:
            store().rename_player(player_id, rename.name.data)
        except NameTaken as e:
            taken = store().player(e.other)
            merge.into.data = e.other
            rename.name.errors = [_("%(name)s is already on the roster.", name=taken["name"])]
        except NotFound:
            abort(404)
        else:
            return redirect(url_for("players.player", player_id=player_id), code=303)
    played = stats.games_of(store(), player_id)
    wins = charts.wins_over_time(played, _titles())
    chart = charts.line_chart(wins, [""] + [str(i) for i in range(1, len(next(iter(wins.values()))))]) if wins else None
    status = 422 if rename.errors else 200
    return render_template(
        "players/player.html",
        player=found,
        record=stats.record(store(), player_id),
        rivals=stats.head_to_head(store(), player_id),
        played=list(reversed(played)),
        chart=chart,
        rename=rename,
        merge=merge,
        taken=taken,
    ), status


@bp.post("/players/<int:player_id>/merge")
def merge(player_id: int):
    """Two names of one person: this player's games become the other's."""
    form = MergeForm()
    if not form.validate_on_submit():
        abort(400)
    try:
        store().merge_players(player_id, form.into.data)
    except NotFound:
        abort(404)
    return redirect(url_for("players.player", player_id=form.into.data), code=303)


@bp.get("/stats")
def standings():
    """Standings per game family: everyone's, or one group's (the games they played together)."""
    roster = store().roster()
    form = GroupForm(request.args)
    form.p.choices = [(p["id"], p["name"]) for p in roster]
    group = [i for i in (form.p.data or []) if any(p["id"] == i for p in roster)]
    return render_template(
        "players/standings.html", table=stats.standings(store(), group), form=form, group=group, roster=roster
    )


@bp.get("/export/<any(games, deals, players):table>.csv")
def csv(table: str):
    """One CSV table of this server's data (also ``flask export``)."""
    return Response(
        export.csv_text(store(), table),
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="companion-{table}.csv"'},
    )
