"""Command-line tasks for whoever runs the server: ``flask --app companion backup PATH``
and ``flask --app companion restore PATH`` (README, "Serving it for a club")."""

from __future__ import annotations

from pathlib import Path

import click
from flask import Flask, current_app
from flask.cli import with_appcontext


def register(app: Flask) -> None:
    app.cli.add_command(backup)
    app.cli.add_command(restore)


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
