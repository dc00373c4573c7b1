"""Command-line tasks for whoever runs the server: ``flask --app companion backup PATH``,
``restore PATH``, ``export DIR`` (CSV), ``export --json FILE`` and ``import FILE`` (the whole
server, to move it to another machine), and ``db copy --from URL --to URL`` (every game
from one database into another, e.g. an SQLite file into PostgreSQL) (README, "Serving it
for a club")."""

from __future__ import annotations

import json
import tempfile
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
    app.cli.add_command(admin_key)


@click.command("admin-key")
@with_appcontext
def admin_key() -> None:
    """Make a new key for the admin page (the backup and the restore), in place of the old one."""
    from companion import admin

    key = admin.new_key(current_app.instance_path)
    click.echo(
        f"The admin page's new key: {key}  (the old one no longer works; phones that gave it must enter this one)"
    )


@click.command()
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@with_appcontext
def backup(path: Path) -> None:
    """Copy every game into the SQLite file PATH, safe while the server runs, and check
    the copy as a restore would."""
    if path.exists():
        raise click.ClickException(f"{path} exists: choose a new file, nothing is overwritten")
    try:
        games = current_app.extensions["store"].backup(path)
    except ValueError as e:
        raise click.ClickException(f"The backup did not check out, so it was not kept: {e}") from None
    click.echo(f"Backed up {games} game(s) to {path}; checked: every game replays")


@click.command()
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--yes", is_flag=True, help="Replace the games without asking.")
@with_appcontext
def restore(path: Path, yes: bool) -> None:
    """Replace every game with those of the backup at PATH, once a copy of it checks out
    (integrity, schema, every game replays); the database replaced is kept first."""
    from companion.store import backup_games

    store = current_app.extensions["store"]
    if not yes:
        try:
            coming = backup_games(path)
        except ValueError as e:
            raise click.ClickException(f"{e}. Nothing was changed.") from None
        replaced = len(store.game_ids())
        click.confirm(
            f"Replace the {replaced} game(s) in {store.path} with the {coming} game(s) of the {path} backup?",
            abort=True,
        )
    try:
        games, kept = store.restore(path, keep_in=Path(current_app.instance_path))
    except ValueError as e:
        raise click.ClickException(f"{e}. Nothing was changed.") from None
    click.echo(f"Restored {games} game(s) from {path}; every game replays.")
    click.echo(f"The games it replaced are kept in {kept} (restore that file to undo this).")


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
        path.write_text(export.text(data), encoding="utf-8")
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
    except RecursionError:
        raise click.ClickException(f"{path} is nested too deeply to be an export. Nothing was changed.") from None
    except ValueError as e:
        raise click.ClickException(f"{path} is not JSON: {e}") from None
    if not yes:
        tables = data.get("tables") if isinstance(data, dict) else None
        coming = len(tables["games"]) if isinstance(tables, dict) and isinstance(tables.get("games"), list) else 0
        click.confirm(
            f"Replace everything in {store.path} (its {len(store.game_ids())} game(s)) with {path}"
            f" (its {coming} game(s))?",
            abort=True,
        )
    kept = store.keep(_keep_folder(store), "import")
    try:
        games = export.load(store, data)
    except BaseException as e:
        kept.unlink()  # nothing was replaced, whatever stopped it
        if isinstance(e, export.BadImport):
            raise click.ClickException(f"{e}. Nothing was changed.") from None
        raise
    click.echo(f"Imported {games} game(s) from {path}")
    click.echo(f"What it replaced is kept in {kept} (`flask restore` it to undo this).")


def _keep_folder(store) -> Path:
    """Where a replaced database is kept: beside an SQLite file, else the instance folder."""
    return Path(store.path).parent if store.url.startswith("sqlite:") else Path(current_app.instance_path)


@click.group()
def db() -> None:
    """The database itself: copy every game from one database to another."""


@db.command("copy")
@click.option("--from", "source", required=True, help="sqlite:///path/to/companion.db or postgresql://...")
@click.option("--to", "target", required=True, help="postgresql://user@host:port/name or sqlite:///path")
@click.option("--replace", is_flag=True, help="Replace what the target already has (it is kept in a file first).")
def copy(source: str, target: str, replace: bool) -> None:
    """Copy a whole server's games, players and links from one database into another (made
    if new), in one transaction, once the source checks out as a restore's backup does
    (integrity, schema, every game replays); then compare every game's transcript in the
    two: any difference and nothing is copied. A target that holds anything (games,
    players, their renames) is refused; with --replace, what it holds is kept first in an
    SQLite file beside it (or in the current folder). Stop the servers using the source
    first."""
    from companion.store import DATABASE_ERRORS, copy_games, open_store, verified_copy

    source_file = (
        None if source.startswith(("postgres://", "postgresql://")) else Path(source.removeprefix("sqlite:///"))
    )
    if source_file is not None and not source_file.is_file():
        raise click.ClickException(f"There is no SQLite file {source_file}")
    refused: tuple[type[Exception], ...] = (ValueError, RuntimeError, *DATABASE_ERRORS)
    with tempfile.TemporaryDirectory(prefix="companion-copy-") as folder:
        try:
            if source_file is not None:  # checked (and migrated) as a copy: the source file is never written
                checked, _ = verified_copy(source_file, folder)
                origin = open_store(str(checked))
            else:
                origin = open_store(source)
                origin.check()
            destination = open_store(target)
        except refused as e:
            raise click.ClickException(f"{e}. Nothing was copied.") from None
        kept = None
        try:
            if replace and destination.held():
                beside = Path(destination.path).parent if destination.url.startswith("sqlite:") else Path.cwd()
                kept = destination.keep(beside, "copy")
            games = copy_games(origin, destination, replace=replace)
        except refused as e:
            if kept is not None:
                kept.unlink()
            raise click.ClickException(f"{e}. Nothing was copied.") from None
        finally:
            origin.close()
            destination.close()
    shown = origin.url if source_file is None else f"sqlite:///{source_file}"  # a URL without its password
    click.echo(f"Copied {games} game(s) from {shown} to {destination.url}; every transcript is identical")
    if kept is not None:
        click.echo(f"What it replaced is kept in {kept}.")
