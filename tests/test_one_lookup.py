"""Issue 33: a request resolves its game's engine and web adapter once (views/common.py
``table_of``) and passes them down; the views never look a game up again on the way."""

import sys

import pytest

from companion import games, web
from tests.conftest import new_game, version_of


@pytest.fixture
def lookups(monkeypatch):
    """Every ``games.get`` / ``web.get`` made from a module of companion/views, by module."""
    made: list[str] = []
    for module in (games, web):
        real = module.get

        def counted(name, _real=real):
            caller = sys._getframe(1).f_globals["__name__"]
            if caller.startswith("companion.views"):
                made.append(caller)
            return _real(name)

        monkeypatch.setattr(module, "get", counted)
    return made


def test_a_move_its_refusal_and_undo_each_look_the_game_up_once(client, lookups):
    game_id = new_game(client)
    hx = {"HX-Request": "true"}
    for path, data in (
        ("moves", {"type": "layout", "cards[]": ["2C", "3D", "4H", "8S"]}),  # applied
        ("moves", {"type": "play", "card": "2C"}),  # refused: on the table
        ("moves", {"type": "play", "card": "QH"}),  # applied: takes 2+3+8
        ("undo", {}),
        ("", None),  # the page
        ("live?version=1", None),  # a watcher's poll
    ):
        version = version_of(client, game_id)
        lookups.clear()
        if data is None:
            response = client.get(f"/games/{game_id}/{path}".rstrip("/"), headers=hx)
        else:
            response = client.post(f"/games/{game_id}/{path}", data={"version": version, **data}, headers=hx)
        assert response.status_code == (422 if data and data.get("card") == "2C" else 200), (path, version)
        assert lookups == ["companion.views.common", "companion.views.common"], (path, lookups)  # one table_of
