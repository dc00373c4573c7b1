"""The admin page (issue 46, item 6): the club's organiser, with the server's key, downloads a
backup and restores one from a phone, with the same checks as ``flask restore``. Anyone else
gets 403, and nothing changes on a GET, a HEAD, an OPTIONS or a POST without its token."""

from __future__ import annotations

import io
import re
import sqlite3
from pathlib import Path

import pytest

from companion import admin
from companion.serve import admin_lines
from companion.store import backup_games
from tests.conftest import form_values, make_app, new_game, snapshot


@pytest.fixture
def key(app) -> str:
    return admin.new_key(app.instance_path)


def sign_in(client, key: str):
    return client.post("/admin", data={"key": key})


def games_in(data: bytes, folder: Path) -> int:
    path = folder / "downloaded.sqlite"
    path.write_bytes(data)
    return backup_games(path)


def test_make_run_prints_the_key_once_and_then_only_where_the_page_is(tmp_path):
    first = admin_lines("http://192.168.1.20:5000", str(tmp_path))
    key = re.search(r"key: ([a-z0-9-]{19})$", first[0]).group(1)
    assert admin.check(tmp_path, key) and key not in (tmp_path / admin.FILE).read_text()  # its hash is kept
    again = admin_lines("http://192.168.1.20:5000", str(tmp_path))
    assert again == ["Admin page (backup, restore): http://192.168.1.20:5000/admin (`flask admin-key` makes a new key)"]
    assert admin.check(tmp_path, key)  # the same key still


def test_the_key_is_forgiving_of_a_phones_keyboard_and_nothing_else(tmp_path):
    key = admin.new_key(tmp_path)
    assert admin.check(tmp_path, f" {key.upper()} ")
    assert not admin.check(tmp_path, key[:-1] + ("a" if key[-1] != "a" else "b"))
    assert not admin.check(tmp_path, "")


def test_a_new_key_signs_out_every_phone_that_gave_the_old_one(app, client, key):
    sign_in(client, key)
    assert client.get("/admin/backup").status_code == 200
    new = app.test_cli_runner().invoke(args=["admin-key"])
    assert new.exit_code == 0, new.output
    fresh = re.search(r"new key: ([a-z0-9-]{19})", new.output).group(1)
    assert client.get("/admin/backup").status_code == 403
    assert sign_in(client, key).status_code == 403  # the old key no longer works
    assert sign_in(client, fresh).status_code == 303
    assert client.get("/admin/backup").status_code == 200


def test_the_organiser_downloads_a_backup_and_restores_it_keeping_what_it_replaced(app, client, key, tmp_path):
    game = new_game(client)
    assert "Server key" in client.get("/admin").get_data(as_text=True)  # asked first
    assert sign_in(client, key).status_code == 303
    page = client.get("/admin").get_data(as_text=True)
    assert "This server holds 1 game." in page and "Download a backup" in page
    backup = client.get("/admin/backup")
    assert backup.status_code == 200 and backup.mimetype == "application/vnd.sqlite3"
    assert re.fullmatch(r"attachment; filename=companion-\d{8}-\d{4}\.sqlite", backup.headers["Content-Disposition"])
    assert games_in(backup.data, tmp_path) == 1
    assert not list(Path(app.instance_path).glob(".backup-*"))  # nothing left behind
    new_game(client)  # a second game, which the restore takes away
    restored = client.post("/admin/restore", data={"backup": (io.BytesIO(backup.data), "club.sqlite")})
    said = restored.get_data(as_text=True)
    assert restored.status_code == 200, said
    assert "Restored 1 game: every game replays." in said
    kept = re.search(r"kept on the server as (companion-before-restore-[\w.-]+)", said).group(1)
    assert client.get(f"/games/{game}").status_code == 200
    assert len(app.extensions["store"].game_ids()) == 1
    with sqlite3.connect(Path(app.config["DATABASE"]).parent / kept) as replaced:  # the two games, kept
        assert replaced.execute("SELECT count(*) FROM games").fetchone() == (2,)
    assert not list(Path(app.instance_path).glob(".restore-*"))


@pytest.mark.parametrize(
    "upload, why",
    [
        (b"not a database at all", "file is not a database"),
        (b"SQLite format 3\x00" + b"\x00" * 200, ""),  # a header, then nothing
    ],
)
def test_a_file_that_is_no_backup_is_refused_and_nothing_changes(app, client, key, upload, why):
    new_game(client)
    sign_in(client, key)
    before = snapshot(app)
    refused = client.post("/admin/restore", data={"backup": (io.BytesIO(upload), "x.sqlite")})
    said = refused.get_data(as_text=True)
    assert refused.status_code == 422, said
    assert "That file is not a backup this server takes. Nothing was changed." in said and why in said
    assert ".restore-" not in said and app.instance_path not in said  # the file as the phone named it, not its path
    assert snapshot(app) == before
    assert not list(Path(app.config["DATABASE"]).parent.glob("companion-before-restore-*"))


def test_a_backup_whose_game_does_not_replay_is_refused(app, client, key, tmp_path):
    new_game(client)
    sign_in(client, key)
    path = tmp_path / "edited.sqlite"
    path.write_bytes(client.get("/admin/backup").data)
    with sqlite3.connect(path) as db:  # a hand-edited version: the game no longer says what its moves make
        db.execute("UPDATE games SET version = version + 1")
    before = snapshot(app)
    refused = client.post("/admin/restore", data={"backup": (io.BytesIO(path.read_bytes()), "edited.sqlite")})
    assert refused.status_code == 422
    assert snapshot(app) == before


def test_a_backup_that_does_not_check_out_is_not_given(app, client, key):
    game = new_game(client)
    sign_in(client, key)
    with sqlite3.connect(app.config["DATABASE"]) as db:  # a game whose state its moves no longer make
        db.execute("UPDATE games SET version = version + 1 WHERE id = ?", (game,))
    answer = client.get("/admin/backup")
    assert answer.status_code == 500 and "none was made" in answer.get_data(as_text=True)
    assert answer.mimetype == "text/html"
    assert not list(Path(app.instance_path).glob(".backup-*"))


def test_a_restore_without_a_file_asks_for_one(client, key):
    sign_in(client, key)
    answer = client.post("/admin/restore", data={})
    assert answer.status_code == 400 and "Choose a backup file." in answer.get_data(as_text=True)


def test_a_wrong_key_is_refused_and_guesses_are_limited(client, key):
    for _ in range(7):  # the organiser's own entries do not count
        assert sign_in(client, key).status_code == 303
    client.post("/admin/leave")
    for _ in range(5):
        wrong = sign_in(client, "aaaa-bbbb-cccc-dddd")
        assert wrong.status_code == 403 and "not this server's key" in wrong.get_data(as_text=True)
    assert sign_in(client, key).status_code == 429  # even the right key waits: the address guessed too often
    assert client.get("/admin/backup").status_code == 403


def test_without_a_key_the_page_says_how_to_make_one(client):
    page = client.get("/admin")
    assert page.status_code == 200 and "flask admin-key" in page.get_data(as_text=True)
    assert client.post("/admin", data={"key": "anything-at-all"}).status_code == 403


@pytest.fixture
def people(tmp_path):
    """A server with CSRF checks on and a key; its organiser, a visitor, a watcher and a
    referee of a game (phones with sessions of their own)."""
    app = make_app(tmp_path, WTF_CSRF_ENABLED=True)
    key = admin.new_key(app.instance_path)
    organiser, visitor, watcher, referee = (app.test_client() for _ in range(4))
    token = form_values(organiser.get("/admin").get_data(as_text=True))["csrf_token"]
    assert organiser.post("/admin", data={"key": key, "csrf_token": token}).status_code == 303
    created = referee.post("/api/games", json={"game": "tablanette", "players": ["Ann", "Ben"]}).get_json()
    link = referee.post(
        f"/api/games/{created['id']}/links", json={"kind": "add"}, headers={"X-Edit-Key": created["edit_key"]}
    ).get_json()["url"]
    joining = form_values(referee.get(link).get_data(as_text=True))  # the join button's form, with its token
    assert referee.post(f"/games/{created['id']}/join", data=joining).status_code == 303
    watcher.get(f"/games/{created['id']}")
    return app, organiser, {"visitor": visitor, "watcher": watcher, "referee": referee}


def test_nobody_but_the_organiser_gets_a_backup_or_restores_one(people, tmp_path):
    app, organiser, others = people
    backup = organiser.get("/admin/backup").data
    assert games_in(backup, tmp_path) == 1
    before = snapshot(app)
    upload = {"backup": (io.BytesIO(backup), "club.sqlite")}
    for who, phone in others.items():
        token = form_values(phone.get("/admin").get_data(as_text=True)).get("csrf_token")
        assert phone.get("/admin/backup").status_code == 403, who
        assert phone.head("/admin/backup").status_code == 403, who
        assert phone.post("/admin/restore", data=dict(upload, csrf_token=token)).status_code == 403, who
        upload = {"backup": (io.BytesIO(backup), "club.sqlite")}
        assert phone.get("/admin/restore").status_code == 405, who
        assert phone.options("/admin/restore").status_code == 200, who  # says what it allows, does nothing
    # the organiser too, without the form's token
    assert organiser.post("/admin/restore", data={"backup": (io.BytesIO(backup), "club.sqlite")}).status_code == 400
    assert organiser.post("/admin/leave").status_code == 400  # no token, still signed in
    assert organiser.get("/admin/backup").status_code == 200
    assert snapshot(app) == before
    assert not list(tmp_path.glob("companion-before-restore-*"))
