"""Opponent confirmation (issue 16, as Bridgemate does): the referee gives the other side a
confirm link; a result then counts only once a phone holding it confirms what it shows."""

import re

from companion import stats
from tests.conftest import snapshot

HX = {"HX-Request": "true"}


def start(client) -> str:
    answer = client.post("/api/games", json={"game": "hundred", "players": ["Ann", "Ben", "Cat"], "options": {}})
    created = answer.get_json()
    made = client.post(
        f"/api/games/{created['id']}/links", json={"kind": "add"}, headers={"X-Edit-Key": created["edit_key"]}
    )
    client.post(f"/games/{created['id']}/join", data={"token": made.get_json()["url"].rsplit("/", 1)[1]})
    return created["id"]


def test_a_result_counts_once_the_other_side_confirms_it(app, client):
    game = start(client)  # this client referees
    panel = client.post(f"/games/{game}/share/link", data={"kind": "confirm"}, headers=HX).get_data(as_text=True)
    assert "Other side confirms each result" in panel
    link = re.search(r'value="(http[^"]+/join/[\w-]+)"', panel).group(1)
    token = link.rsplit("/", 1)[1]

    other = app.test_client()  # a phone of the other side
    page = other.get(f"/games/{game}/join/{token}").get_data(as_text=True)
    assert "Confirm the results" in page and "Confirm on this phone" in page
    assert other.post(f"/games/{game}/join", data={"token": token}).status_code == 303
    assert other.post(f"/games/{game}/join", data={"token": token}).status_code == 410  # once

    client.post(f"/games/{game}/moves", data={"version": 0, "type": "tally", "loser": "Ann"}, headers=HX)
    waiting = "1 result is waiting for confirmation by the other side"
    referee_page = client.get(f"/games/{game}").get_data(as_text=True)
    assert waiting in referee_page and "Confirm this result" not in referee_page
    watched = other.get(f"/games/{game}").get_data(as_text=True)
    assert waiting in watched and "Confirm this result" in watched
    assert {r["name"]: r["marks"] for r in stats.standings(app.extensions["store"])["hundred"]}["Ann"] == 0

    # The referee cannot confirm its own entries; a stale board confirms nothing.
    before = snapshot(app)
    assert client.post(f"/games/{game}/confirm", data={"version": 1}, headers=HX).status_code == 403
    assert other.post(f"/games/{game}/confirm", data={"version": 0}, headers=HX).status_code == 409
    assert snapshot(app) == before

    answer = other.post(f"/games/{game}/confirm", data={"version": 1}, headers=HX)
    assert answer.status_code == 200 and "Confirmed." in answer.get_data(as_text=True)
    assert waiting not in other.get(f"/games/{game}").get_data(as_text=True)
    assert {r["name"]: r["marks"] for r in stats.standings(app.extensions["store"])["hundred"]}["Ann"] == 1


def test_in_japanese(app, client):
    game = start(client)
    client.post(f"/games/{game}/share/link", data={"kind": "confirm"}, headers=HX)
    client.post(f"/games/{game}/moves", data={"version": 0, "type": "tally", "loser": "Ann"}, headers=HX)
    page = client.get(f"/games/{game}", headers={"Accept-Language": "ja"}).get_data(as_text=True)
    assert "1件の結果が相手陣営の確認待ちです。" in page
