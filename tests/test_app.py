"""The app factory and what every answer carries (issue 11): an instance folder of the
caller's choosing, nothing written into the checkout, flask-htmx's fragment-or-page with
one ``Vary``, Flask-Compress, cache-busting static URLs, and flask-talisman's headers."""

import os
import re
from pathlib import Path

import pytest

from companion import create_app, timing
from tests.conftest import become_referee, new_game, post_move, version_of

ROOT = Path(__file__).resolve().parents[1]
SKIP = {".git", ".venv", "__pycache__"}


def checkout_files() -> dict[str, float]:
    """Every file of the checkout with its modification time (set-up folders aside)."""
    found = {}
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIP and not d.endswith(".egg-info")]
        for name in files:
            path = Path(folder) / name
            found[str(path.relative_to(ROOT))] = path.stat().st_mtime
    return found


def test_an_app_in_a_temporary_folder_writes_nothing_into_the_checkout(tmp_path):
    before = checkout_files()
    app = create_app(
        {"TESTING": True, "WTF_CSRF_ENABLED": False},  # no key, no database given
        instance_path=str(tmp_path / "instance"),
    )
    client = app.test_client()
    game_id = new_game(client)
    for url in (
        "/",
        "/games/new",
        f"/games/{game_id}",
        f"/games/{game_id}/log",
        "/rules/tablanette",
        "/static/app.css",
    ):
        assert client.get(url).status_code == 200, url
    assert checkout_files() == before
    assert "companion.db" in {p.name for p in (tmp_path / "instance").iterdir()}
    assert (tmp_path / "instance" / "secret_key").exists()


def test_the_secret_key_is_made_once_and_kept(tmp_path):
    first = create_app({"TESTING": True}, instance_path=str(tmp_path)).config["SECRET_KEY"]
    assert len(first) == 64 and oct((tmp_path / "secret_key").stat().st_mode)[-3:] == "600"
    assert create_app({"TESTING": True}, instance_path=str(tmp_path)).config["SECRET_KEY"] == first


def test_a_configured_secret_key_writes_no_file(tmp_path):
    create_app({"SECRET_KEY": "given", "DATABASE": str(tmp_path / "db" / "x.db")}, instance_path=str(tmp_path / "i"))
    assert not (tmp_path / "i").exists() and (tmp_path / "db" / "x.db").exists()


def test_the_instance_folder_comes_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path))
    app = create_app({"TESTING": True})
    assert app.instance_path == str(tmp_path) and app.config["DATABASE"] == str(tmp_path / "companion.db")


# ---------------------------------------------------------------------------
# What every answer carries
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("url", ["/", "/games/new", "/rules/tablanette", "/api/games/nope", "/healthz", "/nope"])
def test_every_answer_varies_on_hx_request(client, url):
    assert "HX-Request" in client.get(url).headers["Vary"]


def test_htmx_gets_a_fragment_and_a_page_load_gets_the_page(client):
    game_id = new_game(client)
    fragment = client.get(f"/games/{game_id}/share", headers={"HX-Request": "true"}).get_data(as_text=True)
    page = client.get(f"/games/{game_id}/share").get_data(as_text=True)
    assert fragment.lstrip().startswith("<details") and "<html" not in fragment
    assert page.startswith("<!doctype html>")


@pytest.mark.parametrize(
    "header,value",
    [
        ("Content-Security-Policy", "default-src 'self'; script-src 'self'"),
        ("X-Frame-Options", "DENY"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
    ],
)
def test_security_headers(client, header, value):
    for url in ("/", "/games/new", "/api/games/nope", "/static/app.css"):
        assert client.get(url).headers[header].startswith(value), (url, header)


def test_csp_forbids_inline_script_and_framing(client):
    csp = client.get("/").headers["Content-Security-Policy"]
    assert "'unsafe-inline'" not in csp and "frame-ancestors 'none'" in csp and "object-src 'none'" in csp


def test_hsts_only_over_https_and_no_redirect_on_the_lan(client):
    plain = client.get("/")
    assert plain.status_code == 200 and "Strict-Transport-Security" not in plain.headers
    assert "Secure" not in plain.headers.get("Set-Cookie", "")
    secure = client.get("/", base_url="https://cards.example.org")
    assert secure.headers["Strict-Transport-Security"].startswith("max-age=")


def test_answers_are_compressed_for_phones_that_accept_it(client):
    game_id = new_game(client)
    for encoding in ("gzip", "br"):
        for url in (f"/games/{game_id}", "/static/htmx.min.js", "/static/app.css"):
            response = client.get(url, headers={"Accept-Encoding": encoding})
            assert response.headers.get("Content-Encoding") == encoding, (url, encoding)
            assert "Accept-Encoding" in response.headers["Vary"]
    plain = client.get("/static/app.css")
    assert "Content-Encoding" not in plain.headers


def test_compressed_and_plain_static_files_have_different_etags(client):
    plain = client.get("/static/app.css").headers.get("ETag")
    gz = client.get("/static/app.css", headers={"Accept-Encoding": "gzip"}).headers.get("ETag")
    assert plain and gz and plain != gz


def test_static_urls_carry_a_hash_and_a_long_cache_lifetime(client):
    page = client.get("/").get_data(as_text=True)
    urls = re.findall(r'(?:href|src)="(/static/[^"]+)"', page)
    assert {u.split("?")[0] for u in urls} >= {"/static/app.css", "/static/htmx.min.js"}
    for url in urls:
        assert re.search(r"\?v=[0-9a-f]{10}$", url), url
        cache = client.get(url).headers["Cache-Control"]
        assert "max-age=31536000" in cache and "immutable" in cache, (url, cache)
    assert "max-age=31536000" not in client.get("/static/app.css").headers.get("Cache-Control", "")


def test_a_changed_static_file_gets_a_new_url(tmp_path):
    static = tmp_path / "static"
    static.mkdir()
    (static / "a.css").write_text("a{}")
    app = create_app({"TESTING": True, "SECRET_KEY": "t"}, instance_path=str(tmp_path / "i"))
    app.static_folder = str(static)
    with app.test_request_context():
        from flask import url_for

        first = url_for("static", filename="a.css")
        (static / "a.css").write_text("a{color:red}")
        os.utime(static / "a.css", (1, 1))
        assert url_for("static", filename="a.css") != first


def _session_cookie(app, **request) -> str:
    """The Set-Cookie of the session when a phone opens a game (the page remembers it)."""
    client = app.test_client()
    game_id = client.post("/api/games", json={"game": "tute", "players": ["A", "B", "C"]}).get_json()["id"]
    answer = client.get(f"/games/{game_id}", **request)
    return next(h for h in answer.headers.getlist("Set-Cookie") if h.startswith("session="))


def test_the_session_cookie_is_secure_exactly_over_https(tmp_path):
    """Issue 14: the cookie holding referee keys is Secure whenever the request is HTTPS,
    and not on the room's plain HTTP (a Secure cookie would never come back there)."""
    app = create_app({"TESTING": True, "SECRET_KEY": "t", "DATABASE": str(tmp_path / "t.db")}, str(tmp_path))
    assert "Secure" not in _session_cookie(app)
    assert "Secure" in _session_cookie(app, base_url="https://cards.example.org")


def test_a_taps_answer_does_not_sign_the_session_again_a_page_load_renews_it(client):
    """Issue 34: the session cookie (a phone's referee keys, a month's lifetime) is signed
    and sent again by page loads, and by any answer that changed it; a tap's answer or a
    poll that leaves it as it was sends no cookie (signing it was part of every tap's cost)."""
    game_id = new_game(client)  # this phone made the game: it referees it

    def cookie(answer) -> list[str]:
        return [h for h in answer.headers.getlist("Set-Cookie") if h.startswith("session=")]

    assert cookie(client.get(f"/games/{game_id}")), "a page load renews the month"
    assert cookie(client.head(f"/games/{game_id}")), "HEAD answers with GET's headers"
    tap = post_move(client, game_id, type="layout", **{"cards[]": ["2S", "3H", "5D", "9C"]})
    assert tap.status_code == 200 and not cookie(tap)
    poll = client.get(f"/games/{game_id}/live?version=0", headers={"HX-Request": "true"})
    assert poll.status_code == 200 and not cookie(poll)
    assert version_of(client, game_id) == 1  # the session still works: the tap was entered
    seen = client.get(f"/games/{game_id}", headers={"HX-Request": "true"})
    assert not cookie(seen), "htmx asked it: not a page load"


def test_only_a_page_renews_the_cookie_so_a_late_answer_cannot_undo_a_join(app, client):
    """A request that left before the phone joined a game and is answered after it (the
    service worker's update check, which the join page starts; a script; the live stream)
    must not send back the cookie it came with: the browser would keep that old cookie and
    the phone lose the key it had just been given (a browser test saw the referee's tally
    answered 403 "Not the referee"). Only a page renews the cookie."""
    watched = new_game(client)  # the phone has a session
    made = client.post("/api/games", json={"game": "tablanette", "players": ["Cat", "Dan"], "options": {}})
    game_id, key = made.get_json()["id"], made.get_json()["edit_key"]
    before = app.test_client()  # the requests that left before the join, with the cookie of then
    before.set_cookie("session", client.get_cookie("session").value)
    become_referee(client, game_id, key)

    def cookie(answer) -> list[str]:
        answer.close()  # the live stream is not read to its end
        return [h for h in answer.headers.getlist("Set-Cookie") if h.startswith("session=")]

    for url in ("/sw.js", "/static/app.js", "/static/manifest.json", f"/games/{watched}/events?version=0", "/healthz"):
        answer = before.get(url)
        assert answer.status_code == 200 and not cookie(answer), url
    assert client.get(f"/games/{game_id}/tally").status_code == 200  # the phone still referees it
    assert cookie(before.get(f"/games/{watched}")), "a page still renews the month"


@pytest.mark.parametrize("trusted", [True, False])
def test_behind_a_proxy_the_forwarded_https_counts_only_when_trusted(tmp_path, trusted):
    """COMPANION_TRUST_PROXY: a reverse proxy's X-Forwarded-Proto/-Host/-For are believed
    (one hop): the cookie is Secure, HSTS is sent, links use the public host. Untrusted,
    anyone could send those headers, so they change nothing."""
    config = {"TESTING": True, "SECRET_KEY": "t", "DATABASE": str(tmp_path / "t.db"), "TRUST_PROXY": trusted}
    app = create_app(config, str(tmp_path))
    forwarded = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "cards.example.org", "X-Forwarded-For": "10.0.0.9"}
    assert ("Secure" in _session_cookie(app, headers=forwarded)) is trusted
    assert ("Strict-Transport-Security" in app.test_client().get("/", headers=forwarded).headers) is trusted
    client = app.test_client()
    created = client.post("/api/games", json={"game": "tute", "players": ["A", "B", "C"]}).get_json()
    link = client.post(
        f"/api/games/{created['id']}/links",
        json={"kind": "add"},
        headers={"X-Edit-Key": created["edit_key"], **forwarded},
    ).get_json()["url"]
    assert link.startswith("https://cards.example.org/") is trusted


def test_trust_proxy_comes_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_TRUST_PROXY", "1")
    app = create_app({"TESTING": True, "SECRET_KEY": "t", "DATABASE": str(tmp_path / "t.db")}, str(tmp_path))
    assert _session_cookie(app, headers={"X-Forwarded-Proto": "https"}).count("Secure") == 1


def test_every_answer_says_how_long_the_app_took(client):
    """Server-Timing: developer tools show it, and bench/server.py tells the server's time
    from the network's by it (issue 17: a card tap's server time)."""
    for path in ("/healthz", "/", "/games/new", "/no-such-page"):
        assert list(timing.parse(client.get(path).headers["Server-Timing"])) == ["app"], path


def test_the_app_time_runs_over_every_other_hook(app):
    """Server-Timing's app starts in the first hook before a request and is said by the last
    one after it (Flask runs those in reverse), so the CSRF check, the rate limit, the
    compression and the security headers are inside it (companion/timing.py)."""
    first_before, first_after = app.before_request_funcs[None][0], app.after_request_funcs[None][0]
    assert first_before.__module__ == first_after.__module__ == "companion.timing"


def test_a_move_says_its_store_and_rendering_parts(client):
    """Issue 34: a move's Server-Timing parts its time: the store's change, and on the game
    page the rendering of its answer, each within the app's time (bench/server.py prints them)."""
    game_id = new_game(client)
    tap = post_move(client, game_id, type="layout", **{"cards[]": ["2S", "3H", "5D", "9C"]})
    parts = timing.parse(tap.headers["Server-Timing"])
    assert list(parts) == ["app", "store", "render"]
    assert 0 < parts["store"] + parts["render"] <= parts["app"]
    made = client.post("/api/games", json={"game": "hundred", "players": ["Ann", "Ben"]}).get_json()
    move = {"version": 0, "move": {"type": "play", "card": "5C"}}
    answer = client.post(f"/api/games/{made['id']}/moves", json=move, headers={"X-Edit-Key": made["edit_key"]})
    assert answer.status_code == 200
    parts = timing.parse(answer.headers["Server-Timing"])
    assert list(parts) == ["app", "store"] and 0 < parts["store"] <= parts["app"]


def test_a_database_busy_past_its_timeout_is_a_503_not_a_traceback(client, app, monkeypatch):
    """SQLite locked beyond its busy timeout (or PostgreSQL out of reach: tests/test_postgres.py):
    the page says to try again in a moment, the API answers JSON, both with Retry-After."""
    import sqlite3

    game_id = new_game(client)
    store = app.extensions["store"]

    def locked(*args, **kwargs):
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(store, "get", locked)
    page = client.get(f"/games/{game_id}")
    assert page.status_code == 503 and page.headers["Retry-After"]
    assert "Try again in a moment" in page.get_data(as_text=True)
    answer = client.get(f"/api/games/{game_id}")
    assert answer.status_code == 503 and answer.get_json()["error"]
