"""flaskr-style fixtures: an app on a temporary database per test, and its client.

A test (or fixture) that asks for ``database`` runs twice: on an SQLite file, and on a
PostgreSQL database (marked ``postgres``: ``-m "not postgres"`` leaves those out), a
schema of its own on a throwaway PostgreSQL server this test process starts once
(``postgres_server``). Marked ``sqlite_only``, a test that asks for it runs on SQLite only
(it checks something only SQLite has: its file, its pragmas, its locks).
"""

import os
import re
import secrets
import sqlite3
import tempfile
import threading
from contextlib import contextmanager
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis.configuration import set_hypothesis_home_dir
from werkzeug.routing.rules import Rule
from werkzeug.serving import make_server

from companion import create_app
from tests.pgserver import PostgresCluster, postgres_bindir

pytest_plugins = ["tests.translated"]

# Tests write only to temporary folders: Hypothesis keeps its caches outside the checkout,
# and no example database (a failing example is printed with the seed that reproduces it).
set_hypothesis_home_dir(str(Path(tempfile.gettempdir()) / "companion-hypothesis"))
settings.register_profile("companion", database=None)
settings.load_profile("companion")

#: `make fuzz` (COMPANION_FUZZ=1): the random tests' large runs. `make test` runs the slowest
#: of them (whole random games, forms and routes, the crawl, the API's document) smaller, so
#: the suite stays near five minutes; `make fuzz` runs them all at full size.
FUZZ = os.environ.get("COMPANION_FUZZ", "") not in ("", "0")


def examples(n: int) -> int:
    """Examples of a slow random test: ``n`` under `make fuzz`, a third (at least 1) in `make test`."""
    return n if FUZZ else max(1, n // 3)


def _compile_each_url_builder_once() -> None:
    """The suite makes well over a thousand apps (one a test), and each compiles a URL
    builder for each of its rules again: werkzeug writes each as Python code and compiles
    it, 86 for an app, about 40 ms, a quarter of a small web test's time. The code depends
    only on what the key holds (the bound rule comes in as an argument when the builder
    is called), so the suite compiles each one once. Only for the tests: `make run` makes
    an app once for each worker. If werkzeug stops having the method, every app compiles
    its own again (slower, still correct)."""
    compile_builder = getattr(Rule, "_compile_builder", None)
    if compile_builder is None:
        return
    compiled: dict = {}

    def once(rule, append_unknown=True):
        key = (rule.rule, tuple(rule._trace), repr(sorted((rule.defaults or {}).items())), append_unknown)
        if key not in compiled:
            compiled[key] = compile_builder(rule, append_unknown)
        return compiled[key]

    Rule._compile_builder = once


_compile_each_url_builder_once()


@contextmanager
def served(app):
    """The app on 127.0.0.1, a free port, in a thread of this process; its base URL."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()  # the port refuses connections from now on


def pytest_generate_tests(metafunc):
    if "database" in metafunc.fixturenames:
        backends = ["sqlite"]
        if metafunc.definition.get_closest_marker("sqlite_only") is None:
            backends.append(pytest.param("postgres", marks=pytest.mark.postgres))
        metafunc.parametrize("database", backends, indirect=True)


@pytest.fixture
def database(request, tmp_path):
    """Where a test's games are: ``sqlite:///<tmp>/test.db``, or a PostgreSQL URL."""
    if request.param == "postgres":
        return request.getfixturevalue("pg_url")
    return f"sqlite:///{tmp_path / 'test.db'}"


@contextmanager
def postgres_cluster(durable: bool = False):
    """A :class:`PostgresCluster` for the block, removed after it; skips the test when
    PostgreSQL is not installed."""
    bindir = postgres_bindir()
    if bindir is None:
        pytest.skip(
            "PostgreSQL is not installed, so the PostgreSQL cases are skipped "
            "(Debian: apt-get install postgresql; `make test` installs it)"
        )
    cluster = PostgresCluster(bindir, durable)
    try:
        yield cluster
    finally:
        cluster.remove()


@pytest.fixture(scope="session")
def postgres_server():
    """One throwaway PostgreSQL server for this test process (each xdist worker its own)."""
    with postgres_cluster() as cluster:
        yield cluster.url


@pytest.fixture
def pg_url(postgres_server):
    """A PostgreSQL URL whose tables are a fresh schema of their own (dropped after the test)."""
    import psycopg

    schema = f"t_{secrets.token_hex(6)}"
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    yield f"{postgres_server}?options=-csearch_path%3D{schema}"
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA {schema} CASCADE")


def make_app(folder, **config):
    """The app on the temporary instance folder ``folder`` (nothing is written into the
    checkout), as the ``app`` fixture makes it, with ``config`` on top (``DATABASE_URL``:
    another database than the folder's SQLite file)."""
    return create_app(
        {
            "TESTING": True,
            "DATABASE": str(folder / "test.db"),
            "DATABASE_URL": None,
            "WTF_CSRF_ENABLED": False,
            "SECRET_KEY": "test",
            "CREATE_LIMIT": "10000 per minute",  # tests start many games; test_limits.py keeps the real one
            **config,
        },
        instance_path=str(folder),
    )


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path)


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def csrf_app(tmp_path):
    """An app with CSRF checks on, as in production."""
    return create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "csrf.db"),
            "SECRET_KEY": "test",
            "CREATE_LIMIT": "10000 per minute",
        },
        instance_path=str(tmp_path),
    )


@pytest.fixture
def csrf_client(csrf_app):
    """A client of an app with CSRF checks on, as in production."""
    return csrf_app.test_client()


def snapshot(app) -> dict[str, list]:
    """Every row of every table: what a request could have changed."""
    with sqlite3.connect(app.config["DATABASE"]) as db:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {t: sorted(map(repr, db.execute(f"SELECT * FROM [{t}]"))) for t in tables}


class _Form(HTMLParser):
    """What a browser would submit from a page's form, untouched."""

    def __init__(self):
        super().__init__()
        self.values, self.select, self.first = {}, None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "input" and a.get("name"):
            if a.get("type") not in ("checkbox", "radio") or "checked" in a:
                self.values[a["name"]] = a.get("value", "" if a.get("type") not in ("checkbox", "radio") else "on")
        elif tag == "select":
            self.select, self.first = a["name"], True
        elif tag == "option" and self.select:
            if self.first or "selected" in a:
                self.values[self.select] = a.get("value", "")
            self.first = False

    def handle_endtag(self, tag):
        if tag == "select":
            self.select = None


def form_values(page: str) -> dict:
    """The fields of the form on ``page`` as a browser would send them unchanged."""
    parser = _Form()
    parser.feed(page)
    return parser.values


def new_game(client, players=("Ann", "Ben"), **options):
    """Create a Tablanette game through the form, as a referee would; return its id."""
    form = form_values(client.get("/games/new").get_data(as_text=True))
    for i, name in enumerate(players):
        form[f"player{i}"] = name
    form.update({k: v for k, v in options.items()})
    response = client.post("/games/new", data=form)
    assert response.status_code == 303, response.get_data(as_text=True)
    return re.search(r"/games/([\w-]+)", response.headers["Location"]).group(1)


def become_referee(client, game_id, edit_key, kind="add"):
    """Make ``client`` a referee phone as a real one becomes one: the API makes a one-use
    link from the edit key, and the phone opens it and taps the button."""
    made = client.post(f"/api/games/{game_id}/links", json={"kind": kind}, headers={"X-Edit-Key": edit_key})
    assert made.status_code == 201, made.get_json()
    token = made.get_json()["url"].rsplit("/", 1)[1]
    assert client.get(f"/games/{game_id}/join/{token}").status_code == 200
    answer = client.post(f"/games/{game_id}/join", data={"token": token})
    assert answer.status_code == 303, answer.status_code
    return token


def finished_game(client, game: str) -> dict:
    """The game's adapter's finished sample game (web/<game>.py SAMPLE), entered through the
    API: ``{"id", "edit_key", ...}``."""
    from companion import web

    sample = web.get(game).SAMPLE
    body = {"game": game, "players": sample["players"], "options": sample["finished"]["options"]}
    created = client.post("/api/games", json=body).get_json()
    for version, move in enumerate(sample["finished"]["moves"]):
        answer = client.post(
            f"/api/games/{created['id']}/moves",
            json={"version": version, "move": move},
            headers={"X-Edit-Key": created["edit_key"]},
        )
        assert answer.status_code == 200, answer.get_json()
    return created


def version_of(client, game_id):
    return client.get(f"/api/games/{game_id}").get_json()["version"]


def post_move(client, game_id, **move):
    """Post a move as the game page does (htmx), at the game's current version."""
    return client.post(
        f"/games/{game_id}/moves", data={"version": version_of(client, game_id), **move}, headers={"HX-Request": "true"}
    )
