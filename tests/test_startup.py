"""Start-up that always boots (issue 30): a fresh instance's files (the database and its
migrations, the secret key, the rate limits' counts) made by processes starting together,
as gunicorn's workers do, and the server started as ``make run`` starts it, fifty times.

The processes below are forked, each waits at a barrier, and all then do the same thing at
once; before issue 30, two of them switching a fresh SQLite file to WAL together could fail
with "database is locked" (one round in three to ten with two processes, as busy as the
machine was), and two making the secret key together could each keep a different one (or
read it empty).
"""

from __future__ import annotations

import json
import multiprocessing
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

from companion import _secret_key, limits_store
from companion.store import migrations, open_store

ROOT = Path(__file__).resolve().parents[1]
#: Fresh files on SQLite, each opened by PROCESSES at once.
ROUNDS, PROCESSES = 20, 3
#: Processes making one secret key at once: its race is shorter, more of them meet in it.
KEY_MAKERS = 8
#: Servers booting at any time in the fifty boots (each on its own port and instance folder).
AT_ONCE = 3


def all_at_once(count: int, target, *args) -> list:
    """What ``target(*args)`` returned (or raised, as its repr) in each of ``count`` forked
    processes that started it together."""
    context = multiprocessing.get_context("fork")
    start, answers = context.Barrier(count), context.Queue()

    def run() -> None:
        try:
            start.wait(timeout=60)
            answers.put(target(*args))
        except Exception as e:
            answers.put(repr(e))

    processes = [context.Process(target=run) for _ in range(count)]
    for p in processes:
        p.start()
    try:
        return [answers.get(timeout=120) for _ in processes]
    finally:
        for p in processes:
            p.join(timeout=60)


def opened(url: str) -> str:
    open_store(url).close()
    return "opened"


def test_processes_opening_a_fresh_database_together_all_succeed(database, tmp_path):
    """Every process opens (migrates) the database; it ends at the latest schema. On SQLite,
    ROUNDS fresh files; on PostgreSQL, one fresh schema (its migrate takes the database's
    advisory lock before it even creates its migrations table)."""
    if database.startswith("sqlite:///"):
        urls = [f"sqlite:///{tmp_path / f'fresh{i}.db'}" for i in range(ROUNDS)]
    else:
        urls = [database]
    for url in urls:
        assert all_at_once(PROCESSES, opened, url) == ["opened"] * PROCESSES, url
        store = open_store(url)
        assert store.applied_migrations() == migrations.known()
        store.close()


def test_processes_making_the_secret_key_together_all_keep_the_same_one(tmp_path):
    for i in range(ROUNDS):
        folder = tmp_path / str(i)
        folder.mkdir()
        keys = all_at_once(KEY_MAKERS, _secret_key, folder / "secret_key")
        assert len(set(keys)) == 1 and len(keys[0]) == 64, keys
        assert (folder / "secret_key").read_text() == keys[0]
        assert oct((folder / "secret_key").stat().st_mode)[-3:] == "600"
        assert [p.name for p in folder.iterdir()] == ["secret_key"]  # no file of a losing key is left


def test_processes_counting_on_a_fresh_limits_file_together_count_every_hit_once(tmp_path):
    """The rate limits' storage (companion/limits_store.py), as every worker of a server
    uses it: hits at the same instant from several processes are each counted once."""
    for i in range(ROUNDS // 4):
        uri = limits_store.uri(tmp_path / f"limits{i}.sqlite")
        counts = all_at_once(PROCESSES, lambda: limits_store.SqliteStorage(uri).incr("creating games", 60))
        assert all(isinstance(n, int) for n in counts), counts  # no process failed
        assert sorted(counts) == list(range(1, PROCESSES + 1)), counts
        assert limits_store.SqliteStorage(uri).get("creating games") == PROCESSES


def test_fifty_fresh_instances_each_boot_as_make_run_starts_them(tmp_path):
    """The issue's test: the server started fifty times, each on a fresh instance folder,
    each booting: both workers up ("Worker ready"), /healthz 200 on 127.0.0.1, no "Worker
    failed to boot", the instance made (secret key, the database at its latest schema), and
    a clean stop. tests/boots.py runs them, AT_ONCE at a time (a boot's race is between its
    own two workers, and each server has its own port and folder): each boot is
    ``serve.main`` (the command line ``make run`` runs) and gunicorn's own entry point,
    forked from a process that imported them once. What that leaves out, a new interpreter
    and its imports (about a second of CPU a boot), is not where a boot can race; the tests
    of tests/test_serve.py start the real ``make run``."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.boots", "50", str(tmp_path), str(AT_ONCE)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=280,
    )
    assert done.returncode == 0, done.stderr
    boots = [json.loads(line) for line in done.stdout.splitlines()]
    latest = migrations.known()
    for boot in boots:
        assert boot["ready"] and boot["exit"] == 0, boot["log"]
        assert boot["log"].count("Worker ready") == 2 and "Worker failed to boot" not in boot["log"], boot["log"]
        folder = Path(boot["folder"])
        assert len((folder / "secret_key").read_text()) == 64
        with closing(sqlite3.connect(folder / "companion.db")) as db:
            assert [r[0] for r in db.execute("SELECT name FROM companion_migrations ORDER BY rowid")] == latest
    assert len(boots) == 50
    seconds = sorted(b["seconds"] for b in boots)
    print(f"50 boots, each serving after {seconds[0]:.2f}-{seconds[-1]:.2f} s (median {seconds[25]:.2f} s)")
