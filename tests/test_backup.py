"""Backups for a club (issue 14): ``flask backup PATH`` copies every game while the server
runs (SQLite's online backup), and ``flask restore PATH`` brings them back into another
instance with identical transcripts, keys and lists."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from companion import create_app, web


def app_in(folder):
    return create_app({"TESTING": True, "SECRET_KEY": "t", "DATABASE": str(folder / "c.db")}, str(folder))


def play_samples(client) -> dict[str, str]:
    """A game of each kind with its sample moves (one undone), archived and not: id -> edit key."""
    keys = {}
    for game in ("tablanette", "tute", "tantony", "hundred"):
        sample = web.get(game).SAMPLE
        created = client.post("/api/games", json={"game": game, "players": sample["players"]}).get_json()
        headers = {"X-Edit-Key": created["edit_key"]}
        for version, move in enumerate(sample["moves"]):
            client.post(f"/api/games/{created['id']}/moves", json={"version": version, "move": move}, headers=headers)
        client.post(f"/api/games/{created['id']}/undo", json={"version": len(sample["moves"])}, headers=headers)
        keys[created["id"]] = created["edit_key"]
    return keys


def everything(client, ids) -> dict:
    return {
        i: (client.get(f"/api/games/{i}").get_json(), client.get(f"/api/games/{i}/transcript").get_json()) for i in ids
    }


def test_a_backup_restores_into_a_new_instance_with_identical_games(tmp_path):
    club = app_in(tmp_path / "club")
    keys = play_samples(club.test_client())
    copy = tmp_path / "backup.db"
    answer = club.test_cli_runner().invoke(args=["backup", str(copy)])
    assert answer.exit_code == 0 and "4 game(s)" in answer.output

    fresh = app_in(tmp_path / "fresh")
    answer = fresh.test_cli_runner().invoke(args=["restore", "--yes", str(copy)])
    assert answer.exit_code == 0 and "4 game(s)" in answer.output, answer.output
    assert everything(fresh.test_client(), keys) == everything(club.test_client(), keys)
    # the edit keys came along: the restored games can be refereed
    game_id, key = next(iter(keys.items()))
    version = fresh.test_client().get(f"/api/games/{game_id}").get_json()["version"]
    moved = fresh.test_client().post(
        f"/api/games/{game_id}/undo", json={"version": version}, headers={"X-Edit-Key": key}
    )
    assert moved.status_code == 200


def test_backup_never_overwrites_and_restore_refuses_what_is_not_a_backup(tmp_path):
    club = app_in(tmp_path / "club")
    play_samples(club.test_client())
    taken = tmp_path / "taken.db"
    taken.write_bytes(b"keep me")
    answer = club.test_cli_runner().invoke(args=["backup", str(taken)])
    assert answer.exit_code != 0 and taken.read_bytes() == b"keep me"
    before = everything(club.test_client(), [g["id"] for g in club.extensions["store"].list_games()])
    for junk in (taken, tmp_path / "empty.db"):
        sqlite3.connect(tmp_path / "empty.db").close()
        answer = club.test_cli_runner().invoke(args=["restore", "--yes", str(junk)])
        assert answer.exit_code != 0
    assert everything(club.test_client(), list(before)) == before


def test_restore_asks_first(tmp_path):
    club = app_in(tmp_path / "club")
    copy = tmp_path / "b.db"
    club.test_cli_runner().invoke(args=["backup", str(copy)])
    answer = club.test_cli_runner().invoke(args=["restore", str(copy)], input="n\n")
    assert answer.exit_code != 0 and "Aborted" in answer.output


@pytest.mark.parametrize("run", range(3))
def test_a_backup_taken_while_moves_are_written_is_consistent(tmp_path, run):
    """Safe while serving: a backup taken during a stream of moves and undos holds the game
    at a version that matches its stored moves and undos, and passes SQLite's integrity
    check."""
    club = app_in(tmp_path / "club")
    client = club.test_client()
    created = client.post("/api/games", json={"game": "hundred", "players": ["A", "B", "C"]}).get_json()
    game_id, headers = created["id"], {"X-Edit-Key": created["edit_key"]}
    going, done = threading.Event(), threading.Event()

    def write():
        """Moves (or, when one is refused, an undo) as fast as they go, until the backup is done."""
        version = 0
        for i in range(400):
            if done.is_set():
                return
            if i == 20:
                going.set()  # the backup starts while the moves go on
            move = {"type": "play", "card": f"{2 + i % 5}{'SHDC'[i // 5 % 4]}"}
            answer = client.post(
                f"/api/games/{game_id}/moves", json={"version": version, "move": move}, headers=headers
            )
            if answer.status_code != 200:
                answer = client.post(f"/api/games/{game_id}/undo", json={"version": version}, headers=headers)
            version = client.get(f"/api/games/{game_id}").get_json()["version"]

    writer = threading.Thread(target=write)
    writer.start()
    copy = tmp_path / "b.db"
    try:
        assert going.wait(timeout=60)
        assert club.extensions["store"].backup(copy) == 1
    finally:
        done.set()
        writer.join()
    with sqlite3.connect(copy) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        version = db.execute("SELECT version FROM games").fetchone()[0]
        moves, undone = db.execute("SELECT count(*), coalesce(sum(undone), 0) FROM moves").fetchone()
    assert version == moves + undone >= 20  # every move and every undo counted once: a committed state
