"""The form crawler (issue 14): every form on every page a referee's phone and a
watcher's phone see, sent as the page fills it and then with hostile values, one field
at a time (tests/crawler.py says how). Nothing answers 5xx, no GET and no refused request
changes the database, no markup comes back unescaped, and a watcher's phone sending a
referee's forms is refused.

``make test`` runs a bounded crawl: every form found, each named button, and each field
with the next hostile value in turn (so each value is sent many times over the crawl).
``make fuzz`` (``COMPANION_FUZZ=1``) runs the large one: more pages and forms of each
kind, every hostile value in every field, and random values from a seed it prints
(``COMPANION_FUZZ_SEED=<seed> make fuzz`` replays a run)."""

from __future__ import annotations

import os
import random
import sqlite3
from collections import deque

import pytest
from flask import Flask, request
from markupsafe import Markup

from companion import create_app, games, web
from tests.conftest import FUZZ, finished_game
from tests.crawler import HOSTILE, Crawl, Phone, Plan, join, play_move, start_game

SEED = int(os.environ.get("COMPANION_FUZZ_SEED") or random.randrange(10**6)) if FUZZ else 0
PLAN = (
    Plan(
        hostile_per_field=None,
        random_per_field=4,
        seed=SEED,
        pages_per_kind=6,
        forms_per_kind=8,
        other_games=2,
        progress=2000,
    )
    if FUZZ
    else Plan(
        hostile_per_field=1,
        random_per_field=0,
        seed=0,
        pages_per_kind=4,
        forms_per_kind=6,
        per_game=frozenset({"game", "live", "tally", "moves", "lab"}),
    )
)
STAGES = ("fresh", "mid", "finished")


@pytest.fixture(scope="module")
def crawled(tmp_path_factory):
    """One crawl for the module. A referee's phone starts a game of each kind through the
    new-game form (one left fresh, one played through its page to mid-game) and joins a
    finished one, then crawls from the home page (a third phone sends the new-game form it
    finds); a watcher's phone crawls from home and the watch links the share panels show.
    Then each phone opens its pages again, and the watcher sends the referee's forms."""
    tmp = tmp_path_factory.mktemp("crawl")
    app = create_app(
        {"TESTING": True, "DATABASE": str(tmp / "crawl.db"), "SECRET_KEY": "test", "CREATE_LIMIT": "100000 per minute"},
        instance_path=str(tmp),
    )
    if FUZZ:
        print(f"\ncrawling with seed {SEED} (COMPANION_FUZZ_SEED={SEED} make fuzz replays it)")
    crawl = Crawl(app, PLAN)
    referee = Phone("referee", app.test_client())
    for game in games.GAMES:
        sample = web.get(game).SAMPLE
        crawl.labels[start_game(crawl, referee, game, sample["players"])] = f"{game} fresh"
        mid = start_game(crawl, referee, game, sample["players"])
        for move in sample["moves"]:
            play_move(crawl, referee, mid, move)
        crawl.labels[mid] = f"{game} mid"
        crawl.labels[finished(crawl, referee, game)] = f"{game} finished"
    referee.queue.append(("/", False))
    crawl.run(referee)
    visitor = Phone("visitor", app.test_client())
    visitor.queue.extend([("/", False)] + [(url, False) for url, what in crawl.scanned if what == "Watch link"])
    crawl.run(visitor)
    for phone in (referee, visitor, crawl.starter):
        crawl.revisit(phone)
    crawl.replay(visitor)
    print("\n" + crawl.report())
    return crawl


def finished(crawl: Crawl, phone: Phone, game: str) -> str:
    """The adapter's finished game, entered through the API; the phone joins it by a link."""
    created = finished_game(phone.client, game)
    join(crawl, phone, created["id"], created["edit_key"])
    return created["id"]


def test_no_request_fails_or_changes_what_it_refused(crawled):
    shown = "\n\n".join(crawled.problems[:20])
    assert crawled.problems == [], f"{len(crawled.problems)} problems (seed {crawled.plan.seed}):\n\n{shown}"


#: At least this many (pages, forms, fields) of each kind: a template change that hides a
#: page's forms from the crawler fails here instead of leaving them untested.
MINIMUM = {
    ("referee", "home"): (1, 0, 0),
    ("referee", "new game"): (1, 1, 20),
    ("referee", "game"): (12, 36, 100),  # 4 games x 3 stages: picker, undo, poll, links
    ("referee", "tally"): (4, 4, 40),
    ("referee", "share"): (12, 4, 7),  # add a referee, hand over, revoke, archive
    ("referee", "delete"): (12, 1, 1),
    ("referee", "join"): (1, 1, 2),
    ("referee", "log"): (12, 0, 0),
    ("referee", "rules"): (1, 0, 0),
    ("referee", "lab"): (4, 12, 60),
    ("referee", "words"): (4, 0, 0),
    ("visitor", "home"): (1, 0, 0),
    ("visitor", "game"): (12, 12, 12),  # the watch page: its poll, its links
    ("visitor", "log"): (12, 0, 0),
    ("visitor", "share"): (12, 0, 0),
    ("visitor", "lab"): (4, 0, 0),  # the same lab as the referee's: its forms are taken once
}


def test_the_crawl_reaches_every_page_and_form(crawled):
    for (role, kind), least in MINIMUM.items():
        found = tuple(crawled.found[role, kind, "", what] for what in ("pages", "forms", "fields"))
        assert all(f >= n for f, n in zip(found, least)), f"{role} {kind}: found {found}, expected at least {least}"
    new_game = [f for f in crawled.forms_by["referee", "new game"] if f.method == "POST"]
    assert {"csrf_token", "game", "start", "player0", "player1", "dealer"} <= set(new_game[0].names)
    for game in games.GAMES:
        game_forms = [f for f in crawled.forms_by["referee", "game"] if f.label.startswith(game)]
        for stage in ("fresh", "mid"):
            picks = [f for f in game_forms if f.label == f"{game} {stage}" and f.action.endswith("/moves")]
            assert any({"card", "cards[]"} & set(f.names) for f in picks), f"{game} {stage}: no card to tap"
        assert any(f.action.endswith("/undo") for f in game_forms if f.label == f"{game} mid"), game
        tally = [f for f in crawled.forms_by["referee", "tally"] if f.label.startswith(game)]
        assert any(f.method == "POST" and "version" in f.names for f in tally), f"{game}: no tally form"
        lab = [f for f in crawled.forms_by["referee", "lab"] if f.label == game]
        assert any(f.method == "GET" and f.offered for f in lab), f"{game}: no lab form"
    share = {(f.action.rsplit("/", 1)[1], dict(f.fields).get("kind")) for f in crawled.forms_by["referee", "share"]}
    assert {("link", "add"), ("link", "handover"), ("revoke", None), ("archive", None)} <= share
    assert set(crawled.sent) >= {what for what, _ in HOSTILE}, "every hostile value is sent"
    # The hostile values reach the rules, not only the CSRF check: the engine refuses some.
    assert crawled.statuses["referee", "moves", "POST", 422] >= 10
    assert crawled.statuses["referee", "tally", "POST", 422] >= 10
    assert crawled.submissions >= 800


def test_the_referee_keeps_its_games_to_the_end(crawled):
    """The crawl deleted, handed over and revoked, but on its throwaway game or to the same
    phone: its games are all there and it still referees them, so every form above was sent
    by a referee (a 403 would have hidden what they do)."""
    for game_id, label in crawled.labels.items():
        if label != "throwaway":
            page = crawled.phones["referee"].client.get(f"/games/{game_id}").get_data(as_text=True)
            assert 'id="undo-box"' in page, f"{label}: no longer the referee's"


def test_a_watcher_can_change_nothing(crawled):
    """A watcher's pages offer no form that changes a game, and the referee's forms sent
    from the watcher's phone (with its own CSRF token) are refused: counted here, checked
    with the rest in test_no_request_fails_or_changes_what_it_refused."""
    watched = [f for (role, _), forms in crawled.forms_by.items() if role == "visitor" for f in forms]
    assert watched and all(f.method == "GET" or f.action.startswith("/games/new") for f in watched)
    assert crawled.replayed >= 40  # every game's moves, undo, tally and share actions


# -- the crawler itself catches what it looks for ------------------------------------------------


def broken_app(path) -> Flask:
    """A one-page app with the defects the crawler must find: a 500 on a Unicode digit, a
    refusal that writes anyway, a GET that writes, and a name echoed unescaped."""
    app = Flask(__name__)
    app.config.update(DATABASE=str(path), TESTING=True)
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE notes (text TEXT)")

    def note(text: str) -> None:
        with sqlite3.connect(path) as db:
            db.execute("INSERT INTO notes VALUES (?)", (text,))

    @app.get("/")
    def home():
        if request.args.get("q") == "":
            note("a GET wrote this")
        return (
            '<body hx-headers=\'{"X-CSRFToken": "t"}\'><a href="/?q=1">search</a>'
            '<form method="post" action="/count"><input type="hidden" name="n" value="1">'
            '<select name="side"><option value="a">A</option></select>'
            '<button name="go" value="yes">Go</button></form>'
            '<div hx-post="/name" hx-vals=\'{"name": "Ann"}\'></div></body>'
        )

    @app.post("/count")
    def count():
        if request.form.get("n", "1") in ("-1", ""):
            note("refused, but written")
            return "no", 400
        return f"{int(request.form.get('n', '1')) + 1}"  # int("²") raises

    @app.post("/name")
    def name():
        return Markup(f"<p>Hello {request.form.get('name', '')}</p>")

    return app


def test_the_crawler_finds_a_5xx_a_refusal_that_writes_a_get_that_writes_and_unescaped_markup(tmp_path):
    app = broken_app(tmp_path / "broken.db")
    crawl = Crawl(app, Plan(hostile_per_field=None, random_per_field=0, seed=0, pages_per_kind=3, forms_per_kind=5))
    crawl.run(Phone("anyone", app.test_client(), queue=deque([("/", False)])))
    found = "\n".join(crawl.problems)
    assert "POST /count" in found and "raised" in found and "ValueError" in found
    assert "answered 400 and changed" in found
    assert "GET / " in found and "answered 200 and changed" in found
    assert "POST /name" in found and "unescaped" in found
    assert crawl.found["anyone", "home", "", "forms"] == 3  # the form, the htmx div, the link
