"""A database file that can't be written for a while (issue 44): reads go on, a change is
a 503, and once the file can be written again the very next change is saved, on every
thread of every worker (a connection SQLite opened during the spell used to stay
read-only: 30-50% of writes answered 503 until a restart). A ``-shm`` file that can't be
written is a 503 too, not a worker killed by SIGBUS.

The tests run as root, for whom a file's mode changes nothing: the spell is the file's
immutable flag (``chattr +i``), which binds root too (SQLite then opens the file read-only,
as it does a file without write permission; a process that has the ``-shm`` in memory is
killed at its next write there). Skipped where the file system has no such flag.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conftest import make_app

pytestmark = pytest.mark.sqlite_only

ROOT = Path(__file__).resolve().parent.parent


@contextmanager
def immutable(path: Path):
    """``path`` can't be written by anyone, root included, for the block."""
    try:
        subprocess.run(["chattr", "+i", str(path)], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as e:
        pytest.skip(f"no immutable flag here ({e}): the spell can't be made as root")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True, capture_output=True)


def test_after_a_read_only_spell_the_next_change_is_saved(tmp_path):
    app = make_app(tmp_path)
    client = app.test_client()
    store = app.extensions["store"]
    created = client.post("/api/games", json={"game": "hundred", "players": ["Ann", "Ben"]}).get_json()
    url, key = f"/api/games/{created['id']}", {"X-Edit-Key": created["edit_key"]}
    move = {"version": 0, "move": {"type": "play", "card": "5C"}}
    store.close()  # this thread's connection: the next request opens one, during the spell
    with immutable(tmp_path / "test.db"):
        assert client.get(url).status_code == 200  # the games are still read
        refused = client.post(f"{url}/moves", json=move, headers=key)
        assert refused.status_code == 503 and refused.headers["Retry-After"]
        assert client.get(url).get_json()["version"] == 0
    for version in range(2):  # at once, and on: the connection is a writing one again
        move = {"version": version, "move": {"type": "play", "card": ["5C", "6C"][version]}}
        assert client.post(f"{url}/moves", json=move, headers=key).status_code == 200
    assert client.get(url).get_json()["version"] == 2


def test_after_a_read_only_spell_the_next_new_game_is_made(tmp_path):
    """The creation limit's counts (limits.sqlite, beside the games) are a file of their own,
    read-only for a connection opened during the spell just as well."""
    app = make_app(tmp_path)
    client = app.test_client()
    new = {"game": "hundred", "players": ["Ann", "Ben"]}
    first = threading.Thread(target=lambda: client.post("/api/games", json=new))
    first.start()  # the files made by another thread: this one opens its connections in the spell
    first.join()
    with immutable(tmp_path / "test.db"), immutable(tmp_path / "limits.sqlite"):
        assert client.post("/api/games", json=new).status_code == 503
    assert client.post("/api/games", json=new).status_code == 201


#: A worker whose ``-shm`` (in its memory since its first read) turns unwritable: a page, a
#: move and the live hub's look are each refused (printed), and the worker lives on.
SHM_SCRIPT = """
import subprocess, sys
from pathlib import Path
from tests.conftest import make_app
folder = Path(sys.argv[1])
app = make_app(folder)
client = app.test_client()
created = client.post("/api/games", json={"game": "hundred", "players": ["Ann", "Ben"]}).get_json()
url, key = f"/api/games/{created['id']}", {"X-Edit-Key": created["edit_key"]}
watcher = app.extensions["store"].watcher()
watcher.changed()
shm = folder / "test.db-shm"
subprocess.run(["chattr", "+i", str(shm)], check=True)
try:
    print(client.get(f"/games/{created['id']}").status_code, flush=True)
    move = {"version": 0, "move": {"type": "play", "card": "5C"}}
    print(client.post(f"{url}/moves", json=move, headers=key).status_code, flush=True)
    try:
        watcher.changed()
        print("looked", flush=True)
    except Exception as e:
        print(type(e).__name__, flush=True)
finally:
    subprocess.run(["chattr", "-i", str(shm)], check=True)
move = {"version": 0, "move": {"type": "play", "card": "5C"}}
print(client.post(f"{url}/moves", json=move, headers=key).status_code, flush=True)
"""


def test_a_shm_file_that_can_t_be_written_is_a_503_not_a_crash(tmp_path):
    (tmp_path / "probe").touch()
    with immutable(tmp_path / "probe"):  # (skips where there is no immutable flag)
        pass
    run = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(SHM_SCRIPT), str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, (run.returncode, run.stdout, run.stderr[-2000:])  # -7: SIGBUS
    assert run.stdout.split() == ["503", "503", "OperationalError", "200"], run.stderr[-2000:]
