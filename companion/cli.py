"""Command-line tasks for whoever runs the server: ``flask --app companion backup PATH``,
``restore PATH``, ``export DIR`` (CSV), ``export --json FILE`` and ``import FILE`` (the whole
server, to move it to another machine), and ``db copy --from URL --to URL`` (every game
from one database into another, e.g. an SQLite file into PostgreSQL) (README, "Serving it
for a club")."""

from __future__ import annotations

import json
from pathlib import Path

import click
from flask import Flask, current_app
from flask.cli import with_appcontext


def register(app: Flask) -> None:
    app.cli.add_command(backup)
    app.cli.add_command(restore)
    app.cli.add_command(export_data)
    app.cli.add_command(import_data)
    app.cli.add_command(db)


@click.command()
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@with_appcontext
def backup(path: Path) -> None:
    """Copy every game into the SQLite file PATH; safe while the server runs."""
    if path.exists():
        raise click.ClickException(f"{path} exists: choose a new file, nothing is overwritten")
    games = current_app.extensions["store"].backup(path)
    click.echo(f"Backed up {games} game(s) to {path}")


@click.command()
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--yes", is_flag=True, help="Replace the games without asking.")
@with_appcontext
def restore(path: Path, yes: bool) -> None:
    """Replace every game with those of the backup at PATH."""
    store = current_app.extensions["store"]
    if not yes:
        click.confirm(f"Replace every game in {store.path} with the {path} backup's?", abort=True)
    try:
        games = store.restore(path)
    except ValueError as e:
        raise click.ClickException(str(e)) from None
    click.echo(f"Restored {games} game(s) from {path}")


@click.command("export")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="The whole server as one JSON file PATH, to import elsewhere.")
@with_appcontext
def export_data(path: Path, as_json: bool) -> None:
    """Write games.csv, deals.csv and players.csv into the folder PATH (made if needed),
    or with --json the whole server into the file PATH. Nothing is overwritten."""
    from companion import export

    store = current_app.extensions["store"]
    if as_json:
        if path.exists():
            raise click.ClickException(f"{path} exists: choose a new file, nothing is overwritten")
        data = export.dump(store)
        path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        click.echo(f"Exported {len(data['tables']['games'])} game(s) to {path}")
        return
    path.mkdir(parents=True, exist_ok=True)
    files = [path / f"{table}.csv" for table in export.COLUMNS]
    if existing := [f for f in files if f.exists()]:
        raise click.ClickException(f"{existing[0]} exists: choose a new folder, nothing is overwritten")
    for table, file in zip(export.COLUMNS, files):
        file.write_text(export.csv_text(store, table), encoding="utf-8", newline="")
    click.echo(f"Wrote {', '.join(str(f) for f in files)}")


@click.command("import")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--yes", is_flag=True, help="Replace this server's data without asking.")
@with_appcontext
def import_data(path: Path, yes: bool) -> None:
    """Replace this server's games, players and links with a `flask export --json` file's:
    all of it, or (if anything in it is refused) nothing."""
    from companion import export

    store = current_app.extensions["store"]
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as e:
        raise click.ClickException(f"{path} is not JSON: {e}") from None
    if not yes:
        click.confirm(f"Replace everything in {store.path} with {path}?", abort=True)
    try:
        games = export.load(store, data)
    except export.BadImport as e:
        raise click.ClickException(f"{e}. Nothing was changed.") from None
    click.echo(f"Imported {games} game(s) from {path}")


@click.group()
def db() -> None:
    """The database itself: copy every game from one database to another."""


@db.command("copy")
@click.option("--from", "source", required=True, help="sqlite:///path/to/companion.db or postgresql://...")
@click.option("--to", "target", required=True, help="postgresql://user@host:port/name or sqlite:///path")
@click.option("--replace", is_flag=True, help="Replace the games the target already has.")
def copy(source: str, target: str, replace: bool) -> None:
    """Copy a whole server's games, players and links from one database into another (made
    if new), in one transaction, then compare every game's transcript in the two: any
    difference and nothing is copied. Stop the servers using the source first."""
    from companion.store import DATABASE_ERRORS, copy_games, open_store

    if source.startswith("sqlite:///") and not Path(source.removeprefix("sqlite:///")).is_file():
        raise click.ClickException(f"There is no SQLite file {source.removeprefix('sqlite:///')}")
    refused: tuple[type[Exception], ...] = (ValueError, RuntimeError, *DATABASE_ERRORS)
    try:
        origin = open_store(source)
        destination = open_store(target)
    except refused as e:
        raise click.ClickException(str(e)) from None
    try:
        games = copy_games(origin, destination, replace=replace)
        differ = [g for g in origin.game_ids() if origin.transcript(g) != destination.transcript(g)]
    except refused as e:
        raise click.ClickException(str(e)) from None
    finally:
        origin.close()
        destination.close()
    if differ:  # pragma: no cover - checked inside the copy's transaction already
        raise click.ClickException(f"{len(differ)} game(s) differ after the copy, e.g. {differ[0]}")
    click.echo(f"Copied {games} game(s) from {origin.url} to {destination.url}; every transcript is identical")
