"""Nothing a phone sends breaks a page (issue 13): random form data and query strings
at every form route but the tally screen and the lab (their own fuzz tests are in
test_tally_forms.py and test_lab_query.py) answer below 500, and only an accepted move
changes the game."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion import games, web
from tests.conftest import become_referee, examples

HX = {"HX-Request": "true"}
#: Values a careless or hostile phone sends: codes, junk, Unicode digits, huge numbers, markup.
JUNK = ["", " ", "²", "١٢", "-1", "1e9", "9" * 25, "ZZ", "10X", "Q♥", "QH", "AS", "<b>", "none", "true", "0", "1"]
#: The fields game pages post (the pickers', the choices', the board's), and a few others.
MOVE_KEYS = [
    "type", "card", "cards[]", "buried[]", "taken[]", "hand[]", "player", "total", "suit", "to", "loser",
    "confirm", "resume", "reveal", "version", "x", "type[]",
]  # fmt: skip
SETTLE = settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def values(extra: list[str]):
    one = st.one_of(st.sampled_from(JUNK + extra), st.text(max_size=12), st.integers(-(10**22), 10**22).map(str))
    return st.one_of(one, st.lists(one, max_size=4))


def form_data(keys: list[str], extra: list[str]):
    return st.dictionaries(st.one_of(st.sampled_from(keys), st.text(max_size=8)), values(extra), max_size=8)


def game_words(game: str) -> list[str]:
    """What a real move of this game would carry: its players, moves and cards."""
    sample = web.get(game).SAMPLE
    moves = sample["moves"]
    return sample["players"] + [str(v) for m in moves for v in m.values() if isinstance(v, (str, int))]


def started(client, game: str) -> dict:
    sample = web.get(game).SAMPLE
    created = client.post("/api/games", json={"game": game, "players": sample["players"]}).get_json()
    headers = {"X-Edit-Key": created["edit_key"]}
    for version, move in enumerate(sample["moves"]):
        client.post(f"/api/games/{created['id']}/moves", json={"version": version, "move": move}, headers=headers)
    become_referee(client, created["id"], created["edit_key"])
    return created


def version(client, game_id: str) -> int:
    return client.get(f"/api/games/{game_id}").get_json()["version"]


@pytest.mark.parametrize("game", games.GAMES)
def test_random_moves_never_fail_and_only_an_accepted_one_changes_the_game(client, game):
    game_id = started(client, game)["id"]
    words = game_words(game)

    @SETTLE
    @given(data=st.data())
    def throw(data):
        before = version(client, game_id)
        fields = data.draw(form_data(MOVE_KEYS, words), label="fields")
        if data.draw(st.booleans(), label="with the current version"):
            fields["version"] = str(before)
        answer = client.post(f"/games/{game_id}/moves", data=fields, headers=HX if data.draw(st.booleans()) else {})
        assert answer.status_code < 500, answer.get_data(as_text=True)
        if version(client, game_id) != before:
            assert answer.status_code in (200, 303) and version(client, game_id) == before + 1

    throw()


@pytest.mark.parametrize("game", games.GAMES)
def test_random_undo_watch_and_share_input_never_fails(client, game):
    game_id = started(client, game)["id"]

    @SETTLE
    @given(data=st.data())
    def throw(data):
        fields = data.draw(form_data(["version", "kind", "token", "archived"], ["add", "handover"]), label="fields")
        query = data.draw(form_data(["version", "reveal", "x"], []), label="query")
        answers = [
            client.post(f"/games/{game_id}/undo", data=fields, headers=HX),
            client.get(f"/games/{game_id}/live", query_string=query),
            client.get(f"/games/{game_id}", query_string=query),
            client.get(f"/games/{game_id}/log", query_string=query),
            client.post(f"/games/{game_id}/share/link", data=fields, headers=HX),
            client.post(f"/games/{game_id}/join", data=fields),
            client.get(f"/games/{game_id}/join/{fields.get('token') or 'x'}"),
        ]
        assert all(a.status_code < 500 for a in answers), [a.status_code for a in answers]

    throw()


@pytest.mark.parametrize("game", games.GAMES)
def test_random_new_game_forms_never_fail(client, game):
    rules = games.get(game)
    keys = ["game", "start", "dealer", *(f"player{i}" for i in range(rules.MAX_PLAYERS)), *rules.OPTION_NAMES]
    words = [game, *rules.STARTS, "Ann", "Ben", *(str(c) for v in rules.CHOICES.values() for c in v)]

    @SETTLE
    @given(data=st.data())
    def throw(data):
        fields = data.draw(form_data(keys, words), label="fields")
        fields.setdefault("game", game)
        created = client.post("/games/new", data=fields)
        assert created.status_code in (200, 303, 400, 422), created.status_code
        options = client.get("/games/new/options", query_string=fields)
        assert options.status_code in (200, 400), options.status_code

    throw()
