"""The phone answers a tap with the server's HTML, byte for byte (issue 45, "One way to
render"): companion/phone.py (what the page's worker runs) against the server's answer to
the same tap, over every state of a whole deal of each game, in both languages: each card,
each question the rules ask first and its answer, a refusal, and Undo.

Here the phone's module runs in CPython; tests/e2e/test_phone_e2e.py runs it in the phone's
own Pyodide for a slice of the same, and `make bench` the whole cross-check there.
"""

from __future__ import annotations

import json

import pytest
from werkzeug.datastructures import MultiDict

from companion import games, phone
from companion.cards import PACK_52
from tests.conftest import become_referee, make_app
from tests.e2e.deals import script

LANGUAGES = ("en", "ja")
#: The form token both render with (each request of the server's makes a new one).
TOKEN = "token-for-both"


@pytest.fixture
def fixed_app(tmp_path):
    app = make_app(tmp_path)
    app.jinja_env.globals["csrf_token"] = lambda: TOKEN
    return app


class Both:
    """One game on the server and in the phone's module: each tap goes to both."""

    def __init__(self, app, game: str, players: list[str], language: str):
        self.client = app.test_client()
        self.client.set_cookie("lang", language)
        created = self.client.post("/api/games", json={"game": game, "players": players, "options": {}}).get_json()
        self.id = created["id"]
        become_referee(self.client, self.id, created["edit_key"])
        self.language = language
        self.taken()
        self.compared = 0

    def taken(self):
        """The phone takes the game as the server has it."""
        record = self.client.get(f"/games/{self.id}/phone").get_json()
        phone.take(json.dumps(record | {"language": self.language, "csrf": TOKEN}))
        self.version = record["row"]["version"]

    def compare(self, server, said: dict, what) -> dict:
        assert said["status"] == server.status_code, (what, said["status"], server.status_code)
        assert said["html"] == server.get_data(as_text=True), what
        assert said["version"] == int(server.headers["X-Version"]), what
        assert said["address"] == server.headers.get("HX-Replace-Url"), what
        if said.get("applied") and "state" in said:  # the game the phone worked out is the server's
            assert said["state"] == server.headers["X-State"], what
        self.version = said["version"]
        self.compared += 1
        return said

    def tap(self, move: dict, **extra) -> dict:
        fields = self.fields(move) + [(k, str(v)) for k, v in extra.items()]
        current = f"http://localhost/games/{self.id}"
        server = self.client.post(
            f"/games/{self.id}/moves",
            data=MultiDict(fields),
            headers={"HX-Request": "true", "HX-Current-URL": current},
        )
        said = json.loads(phone.tap(json.dumps({"fields": fields, "current": current})))
        return self.compare(server, said, (move, extra))

    def fields(self, move: dict) -> list:
        fields = [("version", str(self.version))]
        for k, v in move.items():
            fields += [(f"{k}[]", str(x)) for x in v] if isinstance(v, list) else [(k, str(v))]
        return fields

    def peek(self, move: dict) -> dict:
        """A finger on ``move``'s card: the phone works it out ahead (its fields in the page's
        order, not htmx's), and answers what the tap will; nothing changes."""
        before = phone.record()
        current = f"http://localhost/games/{self.id}"
        fields = self.fields(move)
        fields = fields[1:] + fields[:1]  # the version last, as the page lists it
        peeked = json.loads(phone.peek(json.dumps({"fields": fields, "current": current})))
        assert phone.record() == before
        return peeked

    def undo(self) -> dict:
        current = f"http://localhost/games/{self.id}"
        server = self.client.post(
            f"/games/{self.id}/undo",
            data={"version": str(self.version)},
            headers={"HX-Request": "true", "HX-Current-URL": current},
        )
        said = json.loads(phone.undo(json.dumps({"current": current})))
        return self.compare(server, said, "undo")


def _bare(step) -> dict | None:
    """The tap before the rules' question: the card alone (None: the step asks nothing)."""
    if step.option is None and step.total is None:
        return None
    return {k: v for k, v in step.move.items() if k not in ("capture", "total")}


def _refused(game: str, seen: set[str], step) -> dict | None:
    """A tap the rules refuse now: a card already played; in 100/99/98, whose cards come
    round again, a total the card cannot make."""
    if game == "hundred":
        return {**step.move, "total": 999} if step.move.get("type") == "play" else None
    played = sorted(seen - set(step.cards))
    if not played or step.kind not in ("card",) or "card" not in step.move:
        return None
    return {"type": "play", "card": played[0]}


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("game", games.GAMES)
def test_the_phone_answers_every_tap_of_a_whole_deal_with_the_servers_html(fixed_app, game, language):
    players, steps = script(game)
    both = Both(fixed_app, game, players, language)
    seen: set[str] = set()
    for i, step in enumerate(steps):
        if (bare := _bare(step)) is not None:
            asked = both.tap(bare)
            assert not asked["applied"] and asked["status"] == 200
        if i % 5 == 2 and (wrong := _refused(game, seen, step)) is not None:
            assert both.tap(wrong)["status"] == 422
        said = both.tap(step.move)
        assert said["applied"], step
        if i % 7 == 3:  # Undo, and the move again
            both.undo()
            both.tap(step.move)
        seen |= {c for c in step.cards if c in {str(x) for x in PACK_52}}
    both.undo()  # the deal's end taken back, and entered again
    both.tap(steps[-1].move)
    assert both.compared > len(steps)


@pytest.mark.parametrize("game", games.GAMES)
def test_a_reloaded_phone_goes_on_from_what_it_kept(fixed_app, game):
    """The phone's game kept for a reload without the network (``phone.record``) is taken
    back with the moves it applied, which Undo still takes back as the server does; a
    choice cancelled shows the board as the server's ``live`` does."""
    players, steps = script(game)
    both = Both(fixed_app, game, players, "ja")
    for step in steps[:4]:
        both.tap(step.move)
    phone.take(json.dumps(json.loads(phone.record()) | {"language": "ja", "csrf": TOKEN} | _page_of(both)))
    both.undo()
    both.undo()
    both.tap(steps[2].move)
    current = f"http://localhost/games/{both.id}"
    server = both.client.get(f"/games/{both.id}/live", headers={"HX-Request": "true", "HX-Current-URL": current})
    both.compare(server, json.loads(phone.show(json.dumps({"current": current}))), "shown")


def test_the_phone_keeps_for_undo_only_the_taps_not_sent_yet(fixed_app):
    """``record(keep=n)``: the games before the last n taps (those still waiting to be sent)
    are kept for Undo; the server undoes the others."""
    players, steps = script("tablanette")
    both = Both(fixed_app, "tablanette", players, "en")
    for step in steps[:3]:
        both.tap(step.move)
    kept = json.loads(phone.record(json.dumps({"keep": 1})))
    assert len(kept["before"]) == 1
    phone.take(json.dumps(kept | {"language": "en", "csrf": TOKEN} | _page_of(both)))
    both.undo()  # the last tap, kept
    assert json.loads(phone.undo(json.dumps({"current": ""}))) == {"status": 0}  # the rest: the server's


def _page_of(both: Both) -> dict:
    record = both.client.get(f"/games/{both.id}/phone").get_json()
    return {"routes": record["routes"], "config": record["config"]}


def test_an_undo_of_a_move_the_phone_did_not_apply_is_left_to_the_server(fixed_app):
    players, steps = script("tablanette")
    both = Both(fixed_app, "tablanette", players, "en")
    both.tap(steps[0].move)
    both.taken()  # the page loaded again: the phone knows no move of its own
    assert json.loads(phone.undo(json.dumps({"current": ""}))) == {"status": 0}


@pytest.mark.parametrize("game", games.GAMES)
def test_a_tap_worked_out_ahead_is_answered_as_the_server_answers_it(fixed_app, game, monkeypatch):
    """``phone.peek`` (a finger on a card, before the tap): the tap that follows on the same
    game takes the answer worked out then, which is the server's byte for byte; a finger
    that slid off (another tap comes, or an Undo) leaves nothing behind."""
    players, steps = script(game)
    both = Both(fixed_app, game, players, "ja")
    worked = []
    tapped = phone._tapped
    monkeypatch.setattr(phone, "_tapped", lambda g, p: worked.append(p) or tapped(g, p))
    for i, step in enumerate(steps[:12]):
        if i % 4 == 1 and i + 1 < len(steps):  # slid off to another card first: worked out again
            both.peek(steps[i + 1].move)
        elif i % 4 == 3:  # worked out, then Undo: the tap after it is worked out anew
            both.peek(step.move)
            both.undo()
            both.tap(steps[i - 1].move)
        peeked = both.peek(step.move)
        if i % 4 == 2:  # meanwhile the phone keeps Undo's games for the taps not sent yet only
            phone.record(json.dumps({"keep": 1}))
        worked.clear()
        said = both.tap(step.move)
        assert said["applied"], step
        assert worked == [], "the tap was worked out again"
        assert said == peeked, "the page shows the peek's answer: it must be the tap's"
        if i % 4 == 2:  # the one kept, and this tap's
            assert len(json.loads(phone.record())["before"]) == 2
    assert both.compared >= 12


def test_a_name_posted_as_a_field_and_as_a_list_is_read_the_first_way_on_both_sides(fixed_app):
    """A tap posting ``type`` and ``type[]`` (test_fuzz_routes found it: the server failed
    with a 500) is read as a form reads it, the first way it came, and refused by the engine;
    the phone reads it the same way and leaves it to the server."""
    both = Both(fixed_app, "tantony", ["Ann", "Ben", "Cy", "Di"], "en")
    fields = [("version", "0"), ("type", ""), ("type[]", "play")]
    current = f"http://localhost/games/{both.id}"
    server = both.client.post(
        f"/games/{both.id}/moves", data=MultiDict(fields), headers={"HX-Request": "true", "HX-Current-URL": current}
    )
    assert server.status_code in (400, 422), server.status_code
    said = json.loads(phone.tap(json.dumps({"fields": fields, "current": current})))
    assert said["status"] in (0, server.status_code)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_tables_ruling_reads_the_same_on_the_phone(fixed_app, language):
    """RULES.md 5.2 on both sides: the refusal that offers the ruling, the confirm, and the
    ruled move with the board's flag."""
    both = Both(fixed_app, "tablanette", ["Ann", "Ben"], language)
    both.tap({"type": "layout", "cards": ["2C", "3D", "4H", "8S"]})
    short = {"type": "play", "card": "QH", "capture": ["2C", "8S"]}
    refused = both.tap(short)
    assert refused["status"] == 422 and 'class="rule-form"' in refused["html"]
    asked = both.tap(short, ruled="1")
    assert asked["status"] == 200 and not asked["applied"] and 'aria-labelledby="ruling-title"' in asked["html"]
    done = both.tap(short, ruled="1", confirm="1")
    assert done["applied"] and 'class="warning ruled"' in done["html"]
