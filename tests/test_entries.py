"""Taps sent again after a dropped connection (issue 16): the game page gives each tap an
id (``entry``); the server applies it once and says by ``X-Version`` what became of it."""

from tests.conftest import become_referee, new_game, snapshot

ENTRY = "0123456789abcdef0123456789abcdef"


def send(client, game_id, version, entry=ENTRY, **move):
    data = {"version": version, "entry": entry, **move}
    return client.post(f"/games/{game_id}/moves", data=data, headers={"HX-Request": "true"})


def test_a_tap_sent_twice_is_applied_once(app, client):
    game_id = new_game(client)
    first = send(client, game_id, 0, **{"type": "layout", "cards[]": ["2S", "3H", "5D", "9C"]})
    assert first.status_code == 200 and first.headers["X-Version"] == "1"
    again = send(client, game_id, 0, **{"type": "layout", "cards[]": ["2S", "3H", "5D", "9C"]})
    assert again.status_code == 200 and again.headers["X-Version"] == "1"
    assert len(client.get(f"/api/games/{game_id}/transcript").get_json()["moves"]) == 1


def test_the_answer_says_the_version_a_question_leaves_unchanged(client):
    game_id = new_game(client)
    send(client, game_id, 0, entry="a" * 32, **{"type": "layout", "cards[]": ["2S", "3H", "5D", "9C"]})
    # KH (14) takes 5D+9C or 2S+3H+9C, not both (TB-08): a question, nothing applied.
    asked = send(client, game_id, 1, entry="b" * 32, type="play", card="KH")
    assert asked.status_code == 200 and asked.headers["X-Version"] == "1"
    stale = send(client, game_id, 0, entry="c" * 32, type="play", card="9D")
    assert stale.status_code == 409 and stale.headers["X-Version"] == "1"


def test_an_entry_id_in_another_shape_is_refused_and_changes_nothing(app, client):
    game_id = new_game(client)
    before = snapshot(app)
    for bad in ("", "x" * 32, ENTRY.upper(), ENTRY + "0", "1; DROP TABLE moves"):
        answer = send(client, game_id, 0, entry=bad, **{"type": "layout", "cards[]": ["2S", "3H", "5D", "9C"]})
        assert answer.status_code == 400, bad
    assert snapshot(app) == before


def test_a_tap_sent_again_after_the_phone_handed_over_is_answered_as_recorded(app, client):
    """The first send was recorded but its answer lost; meanwhile another phone took the
    game over. The tap sent again is answered with the game (it was recorded: nothing to
    enter again), not refused as if it had never been; a new tap is refused."""
    created = client.post("/api/games", json={"game": "tablanette", "players": ["Ann", "Ben"]}).get_json()
    game_id = created["id"]
    become_referee(client, game_id, created["edit_key"])
    layout = {"type": "layout", "cards[]": ["2S", "3H", "5D", "9C"]}
    assert send(client, game_id, 0, **layout).headers["X-Version"] == "1"
    become_referee(app.test_client(), game_id, created["edit_key"], kind="handover")
    again = send(client, game_id, 0, **layout)
    assert again.status_code == 200 and again.headers["X-Version"] == "1"
    assert send(client, game_id, 1, entry="d" * 32, type="play", card="QH").status_code == 403
    assert len(client.get(f"/api/games/{game_id}/transcript").get_json()["moves"]) == 1
