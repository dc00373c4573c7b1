"""Phones at the table (issue 11): links built from the address the phone used, the
share panel's QR codes, one-use referee links, hand-over and revoke, archive and
delete, and a home page that lists only this phone's games."""

import re
from datetime import datetime, timedelta, timezone

import pytest

from companion import KEEPING
from tests.conftest import make_app, new_game, version_of

HX = {"HX-Request": "true"}
LAN = "192.168.1.20:5000"


def api_game(client):
    return client.post("/api/games", json={"game": "tablanette", "players": ["Ann", "Ben"]}).get_json()


def layout(client, game_id):
    return client.post(
        f"/games/{game_id}/moves",
        headers=HX,
        data={"version": version_of(client, game_id), "type": "layout", "cards[]": ["2C", "3D", "4H", "8S"]},
    )


def link_from_panel(client, game_id, kind):
    """Tap "Add a referee" or "Hand over" in the panel; return the link it shows."""
    answer = client.post(f"/games/{game_id}/share/link", data={"kind": kind}, headers=HX)
    assert answer.status_code == 200
    body = answer.get_data(as_text=True)
    assert "<svg" in body and 'class="qr"' in body
    return re.search(r'aria-label="Referee link" value="([^"]+)"', body).group(1)


def join(phone, url):
    path = re.sub(r"^https?://[^/]+", "", url)
    token = path.rsplit("/", 1)[1]
    assert phone.get(path).status_code == 200
    return phone.post(path.rsplit("/join/", 1)[0] + "/join", data={"token": token})


# ---------------------------------------------------------------------------
# Links for other phones
# ---------------------------------------------------------------------------


def test_links_use_the_address_the_phone_used(client):
    opened = client.open  # the phone opened http://192.168.1.20:5000: every request says so
    client.open = lambda *args, **kwargs: opened(*args, base_url=f"http://{LAN}", **kwargs)
    game_id = new_game(client)
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "127.0.0.1" not in page and "localhost" not in page
    panel = client.get(f"/games/{game_id}/share", headers=HX)
    assert f'value="http://{LAN}/games/{game_id}"' in panel.get_data(as_text=True)
    assert link_from_panel(client, game_id, "add").startswith(f"http://{LAN}/games/{game_id}/join/")


def test_public_url_wins_behind_a_proxy(tmp_path):
    app = make_app(tmp_path, PUBLIC_URL="https://cards.example.org/")
    client = app.test_client()
    game_id = new_game(client)
    panel = client.get(f"/games/{game_id}/share", headers=HX, environ_overrides={"HTTP_HOST": LAN})
    assert f'value="https://cards.example.org/games/{game_id}"' in panel.get_data(as_text=True)
    created = api_game(client)
    made = client.post(
        f"/api/games/{created['id']}/links", json={"kind": "add"}, headers={"X-Edit-Key": created["edit_key"]}
    )
    assert made.get_json()["url"].startswith(f"https://cards.example.org/games/{created['id']}/join/")


# ---------------------------------------------------------------------------
# The share panel
# ---------------------------------------------------------------------------


def test_the_game_page_loads_the_panel_when_opened(client, app):
    game_id = new_game(client)
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert 'id="share"' in page and f'hx-get="/games/{game_id}/share"' in page
    assert "<svg" not in page  # closed: no QR code weighs on the page
    assert f'href="/games/{game_id}/share#share"' in page  # "Share" in the header: one tap
    full = client.get(f"/games/{game_id}/share").get_data(as_text=True)  # without htmx: the page, panel open
    assert "<html" in full and 'id="live"' in full and '<details id="share" class="share" open>' in full
    watcher = app.test_client().get(f"/games/{game_id}/share", headers=HX).get_data(as_text=True)
    assert watcher.count("<svg") == 1 and "Watch link" in watcher  # a watcher shares the watch link only
    assert "Add a referee" not in watcher and "Revoke" not in watcher and "Delete" not in watcher


def test_qr_codes_are_inline_svg_of_the_links(client):
    game_id = new_game(client)
    panel = client.get(f"/games/{game_id}/share", headers=HX).get_data(as_text=True)
    svg = re.search(r"<svg[^>]*>.*?</svg>", panel, flags=re.S).group(0)
    assert 'role="img"' in svg and "<title>QR code of the watch link</title>" in svg
    assert "<script" not in panel and "<img" not in panel  # nothing fetched: offline and under the CSP


def test_add_a_referee_makes_a_second_phone_a_referee(client, app):
    game_id = new_game(client)
    url = link_from_panel(client, game_id, "add")
    phone = app.test_client()
    assert 'id="picker"' not in phone.get(f"/games/{game_id}").get_data(as_text=True)
    answer = join(phone, url)
    assert answer.status_code == 303 and answer.headers["Location"].endswith(f"/games/{game_id}")
    assert layout(phone, game_id).status_code == 200  # the new referee enters a move
    assert layout(client, game_id).status_code == 422  # still a referee: the engine judges it (laid out already)
    assert 'id="picker"' in client.get(f"/games/{game_id}").get_data(as_text=True)  # both referee


def assert_used_up(app, game_id, url):
    """The link's page and its button both answer 410 Gone, and the phone is no referee."""
    phone = app.test_client()
    path = re.sub(r"^https?://[^/]+", "", url)
    assert phone.get(path).status_code == 410
    assert phone.post(f"/games/{game_id}/join", data={"token": path.rsplit("/", 1)[1]}).status_code == 410
    assert layout(phone, game_id).status_code == 403


def test_a_referee_link_works_once(client, app):
    game_id = new_game(client)
    url = link_from_panel(client, game_id, "add")
    assert join(app.test_client(), url).status_code == 303
    assert_used_up(app, game_id, url)


def test_a_referee_link_expires(client, app):
    game_id = new_game(client)
    url = link_from_panel(client, game_id, "add")
    past = (datetime.now(timezone.utc) - timedelta(seconds=1)).isoformat(timespec="microseconds")
    app.extensions["store"]._conn().execute("UPDATE links SET expires = ?", (past,))
    assert_used_up(app, game_id, url)


def test_opening_a_link_uses_nothing_until_the_button(client, app):
    """A link preview or a QR scanner fetches the page: that must not use the link."""
    game_id = new_game(client)
    url = link_from_panel(client, game_id, "handover")
    path = re.sub(r"^https?://[^/]+", "", url)
    for _ in range(3):
        page = app.test_client().get(path)
        assert page.status_code == 200 and "Take over" in page.get_data(as_text=True)
    assert layout(client, game_id).status_code == 200  # still the referee


def test_hand_over_rotates_the_key(client, app):
    game_id = new_game(client)
    url = link_from_panel(client, game_id, "handover")
    phone = app.test_client()
    assert join(phone, url).status_code == 303
    assert layout(client, game_id).status_code == 403  # the old phone's cookie no longer works
    assert 'id="picker"' not in client.get(f"/games/{game_id}").get_data(as_text=True)
    assert layout(phone, game_id).status_code == 200
    assert app.extensions["store"].referees(game_id) == 1


@pytest.mark.parametrize(
    "kind, said",
    [
        ("handover", "This phone is the referee now. The phone that sent the link only watches."),
        ("add", "This phone is a referee now: it enters moves beside the other referees."),
        ("confirm", "This phone confirms each result for the other side: a result counts once it does."),
    ],
)
def test_the_page_a_link_lands_on_says_once_what_the_phone_has_become(client, app, kind, said):
    """After the button, the game's page says what just happened (a hand-over is a moment a
    table argues over), once; not "Game started. This phone is the referee", which is what
    the phone that made the game is told."""
    game_id = new_game(client)
    phone = app.test_client()
    landed = join(phone, link_from_panel(client, game_id, kind))
    page = phone.get(landed.headers["Location"]).get_data(as_text=True)
    assert re.search(rf'<p class="notice" role="status"[^>]*>{re.escape(said)}</p>', page)  # its digest besides
    assert "Game started." not in page
    assert said not in phone.get(f"/games/{game_id}").get_data(as_text=True)  # said once
    assert said not in client.get(f"/games/{game_id}").get_data(as_text=True)  # and to that phone only


def test_the_service_workers_copy_of_a_page_neither_takes_the_notice_nor_renews_the_cookie(client, app):
    """The service worker fetches the pages it keeps for offline (templates/offline/sw.js,
    X-Companion-Keep), on a first visit while the phone joins. Its copy leaves the notice said
    once to the page the phone shows, and its answer sends no cookie: one that left before
    the join would otherwise put back the cookie without the key, or one with the notice."""
    game_id = new_game(client)
    phone = app.test_client()
    joined = join(phone, link_from_panel(client, game_id, "add"))
    said = "This phone is a referee now: it enters moves beside the other referees."
    kept = phone.get(joined.headers["Location"], headers={KEEPING: "1"})
    assert kept.status_code == 200 and said not in kept.get_data(as_text=True)
    assert "Set-Cookie" not in kept.headers
    assert said in phone.get(joined.headers["Location"]).get_data(as_text=True)  # the phone's own page says it
    assert "Set-Cookie" in phone.get(f"/games/{game_id}").headers  # a page load renews it, as before


def test_hand_over_revokes_the_api_key_too(client, app):
    created = api_game(client)
    made = client.post(
        f"/api/games/{created['id']}/links", json={"kind": "handover"}, headers={"X-Edit-Key": created["edit_key"]}
    )
    assert made.status_code == 201 and made.get_json()["minutes"] == 10
    assert join(app.test_client(), made.get_json()["url"]).status_code == 303
    again = client.post(f"/api/games/{created['id']}/links", json={}, headers={"X-Edit-Key": created["edit_key"]})
    assert again.status_code == 403


def test_revoke_other_referees(client, app):
    game_id = new_game(client)
    other = app.test_client()
    join(other, link_from_panel(client, game_id, "add"))
    pending = link_from_panel(client, game_id, "add")  # not used yet: revoking kills it too
    answer = client.post(f"/games/{game_id}/share/revoke", headers=HX)
    assert answer.status_code == 200 and "only referee" in answer.get_data(as_text=True)
    assert layout(other, game_id).status_code == 403
    assert_used_up(app, game_id, pending)
    assert layout(client, game_id).status_code == 200  # this phone got the new key
    assert app.extensions["store"].referees(game_id) == 1


@pytest.mark.parametrize(
    "url,data",
    [
        ("/share/link", {"kind": "add"}),
        ("/share/link", {"kind": "handover"}),
        ("/share/revoke", {}),
        ("/archive", {}),
        ("/delete", {}),
    ],
)
def test_watchers_cannot_share_revoke_archive_or_delete(client, app, url, data):
    game_id = new_game(client)
    watcher = app.test_client()
    assert watcher.post(f"/games/{game_id}{url}", data=data).status_code == 403
    assert watcher.get(f"/games/{game_id}/delete").status_code == 403
    assert app.extensions["store"].get(game_id) is not None
    assert app.extensions["store"].referees(game_id) == 1 and not app.extensions["store"].get(game_id)["archived"]


def test_a_bad_link_kind_is_refused(client):
    game_id = new_game(client)
    assert client.post(f"/games/{game_id}/share/link", data={"kind": "owner"}).status_code == 400
    created = api_game(client)
    bad = client.post(
        f"/api/games/{created['id']}/links", json={"kind": ["add"]}, headers={"X-Edit-Key": created["edit_key"]}
    )
    assert bad.status_code == 400


def test_the_edit_key_is_not_taken_from_the_address(client, app):
    """The old ``?key=`` link put the key in access logs; it makes nobody a referee now."""
    created = api_game(client)
    phone = app.test_client()
    phone.get(f"/games/{created['id']}?key={created['edit_key']}")
    assert 'id="picker"' not in phone.get(f"/games/{created['id']}").get_data(as_text=True)


# ---------------------------------------------------------------------------
# The home page, archive and delete
# ---------------------------------------------------------------------------


def test_a_fresh_phone_sees_no_games(client, app):
    new_game(client, ("Ann", "Ben"))
    page = app.test_client().get("/").get_data(as_text=True)
    assert "Ann" not in page and "/games/" not in page.replace("/games/new", "")
    assert "None yet" in page


def test_home_lists_this_phones_games_first(client, app):
    mine = new_game(client, ("Ann", "Ben"))
    theirs = new_game(app.test_client(), ("Xia", "Yul"))
    page = client.get("/").get_data(as_text=True)
    assert mine in page and theirs not in page
    assert page.index("Games on this phone") < page.index(mine) < page.index("Settle a rule")
    watcher = app.test_client()
    watcher.get(f"/games/{theirs}")  # a game opened by its link is on that phone too
    assert theirs in watcher.get("/").get_data(as_text=True)


def test_archive_hides_a_game_from_the_list_but_keeps_its_link(client):
    game_id = new_game(client)
    assert client.post(f"/games/{game_id}/archive", data={"archived": "1"}).status_code == 303
    page = client.get("/").get_data(as_text=True)
    assert "Archived on this phone (1)" in page
    listed = page[: page.index("Archived on this phone")]
    assert game_id not in listed
    assert client.get(f"/games/{game_id}").status_code == 200
    client.post(f"/games/{game_id}/archive", data={"archived": "0"})
    assert "Archived on this phone" not in client.get("/").get_data(as_text=True)


def test_delete_asks_first_then_removes_the_game_and_its_moves(client, app):
    game_id = new_game(client)
    layout(client, game_id)
    confirm = client.get(f"/games/{game_id}/delete")
    assert confirm.status_code == 200 and "Delete the game" in confirm.get_data(as_text=True)
    assert app.extensions["store"].get(game_id) is not None  # the GET changed nothing
    answer = client.post(f"/games/{game_id}/delete")
    assert answer.status_code == 303 and answer.headers["Location"].endswith("/")
    assert client.get(f"/games/{game_id}").status_code == 404
    conn = app.extensions["store"]._conn()
    for table in ("moves", "referees", "links"):
        assert conn.execute(f"SELECT COUNT(*) FROM {table} WHERE game_id = ?", (game_id,)).fetchone()[0] == 0
    assert game_id not in client.get("/").get_data(as_text=True)


def test_the_join_button_works_with_csrf_on(csrf_client):
    """As in production: the phone that opens the link gets the page's CSRF token."""
    created = csrf_client.post("/api/games", json={"game": "tablanette", "players": ["Ann", "Ben"]}).get_json()
    url = csrf_client.post(
        f"/api/games/{created['id']}/links", json={"kind": "add"}, headers={"X-Edit-Key": created["edit_key"]}
    ).get_json()["url"]
    phone = csrf_client.application.test_client()
    path = re.sub(r"^https?://[^/]+", "", url)
    page = phone.get(path).get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    assert phone.post(f"/games/{created['id']}/join", data={"token": path.rsplit("/", 1)[1]}).status_code == 400
    answer = phone.post(f"/games/{created['id']}/join", data={"token": path.rsplit("/", 1)[1], "csrf_token": token})
    assert answer.status_code == 303
    assert 'id="picker"' in phone.get(f"/games/{created['id']}").get_data(as_text=True)
