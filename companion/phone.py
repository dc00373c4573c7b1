"""The referee in the phone (issue 45): what the page's worker (static/phone.js) runs in
Pyodide, with the same engines, templates and catalogs as the server.

The server sends the phone a game as it stands (``companion/views/phone.py``: its row, its
state as the store keeps it, the words of its last move, its finished deals, and the links a
board holds). The phone then answers each tap itself, as ``views/play.py`` would: the move
read from the posted fields, asked about, refused or applied by the engine, and the board's
answer rendered from ``templates/play/_answer.html`` through ``board.templating`` (the
server's own context and settings), so the HTML is the server's, byte for byte
(tests/test_phone_render.py). What it changes is what the store's change would: the version,
the finished deals, the state kept with its last deal only. Every tap the phone applied is
still sent to the server (static/app.js), which stays the record: when its answer differs,
the phone takes the server's game again (:func:`take`).

Each call takes and returns JSON text (the worker's messages carry strings). Nothing here
imports Flask, the store or anything compiled: only the engine layer, the words, the board,
Jinja2 and MarkupSafe (pyproject.toml's import contracts hold it).
"""

from __future__ import annotations

import gettext
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from jinja2 import BytecodeCache, FileSystemLoader, TemplateError

from companion import board, games, i18n
from companion.board import links, taps, templating
from companion.board.markup import reason_html, spanish_names
from companion.errors import AmbiguousMove, InvalidMove, MoveError

#: The bundle's root (the worker unpacks it and puts it on ``sys.path``): templates/ and the
#: compiled catalogs beside the package, as in the checkout.
ROOT = Path(__file__).resolve().parent.parent
CATALOGS = Path(__file__).resolve().parent / "translations"

#: What the store's answer to a change says of a game (``store.rows._summary`` keeps more,
#: for the list of games, which no board shows).
ROW_KEYS = ("id", "game", "players", "options", "version", "deals", "confirmed")


@dataclass(frozen=True)
class Table:
    """A game's kind as the board needs it (``views.common.Table`` without the web adapter,
    which holds the server's forms and schemas)."""

    game: str
    rules: Any
    board: Any


@dataclass
class Game:
    """One game as this phone knows it: the store's row, the state it keeps (its last
    finished deal only), every finished deal's record, and the words of its last move."""

    table: Table
    row: dict
    state: Any
    history: list
    said: Any
    #: The game before each move the phone applied, newest last: what Undo gives back.
    before: list = field(default_factory=list)


@dataclass
class Page:
    """How the page renders: its language, links, form token and settings."""

    speech: i18n.Speech
    routes: links.Routes
    csrf: str
    config: dict
    env: Any


class _Compiled(BytecodeCache):
    """Each template's compiled code, shared by every environment the page asks for (each
    language and form token makes its own): the templates are compiled once, when this
    module is imported (:func:`_compile_all`), which is before the worker keeps its memory
    snapshot (static/phone.js), so a phone that restores one never compiles them. Without
    it the first tap of a page, and the first end of a deal, compiled the templates they
    render: 150-400 ms at CPU 4x (bench/painted.py)."""

    def __init__(self) -> None:
        self.code: dict[str, tuple[str, Any]] = {}

    def load_bytecode(self, bucket: Any) -> None:
        kept = self.code.get(bucket.key)
        if kept is not None and kept[0] == bucket.checksum:  # compiled from the same source
            bucket.code = kept[1]

    def dump_bytecode(self, bucket: Any) -> None:
        self.code[bucket.key] = (bucket.checksum, bucket.code)


_COMPILED = _Compiled()


def _environment() -> Any:
    env = templating.environment(FileSystemLoader(str(ROOT / "templates")))
    env.bytecode_cache = _COMPILED
    return env


def _compile_all() -> None:
    """Compile every template the bundle holds (:data:`_COMPILED`). A watcher's template
    (``play/_recent.html``) names a filter only the server has: the phone never renders it."""
    env = _environment()
    for name in env.list_templates():
        try:
            env.get_template(name)
        except TemplateError:
            pass


_compile_all()

_page: Page | None = None
_game: Game | None = None
#: What :func:`peek` worked out: the game it started from, the tap, the game after it, the answer.
_ahead: tuple | None = None


def _catalog(language: str) -> gettext.NullTranslations:
    if language == i18n.DEFAULT:
        return gettext.NullTranslations()
    with open(CATALOGS / language / "LC_MESSAGES" / "messages.mo", "rb") as f:
        return gettext.GNUTranslations(f)


def _with_history(row: dict, view: dict) -> dict:
    """``views.common.with_history`` from what the phone keeps: every finished deal's record
    (the phone renders one game, its own)."""
    assert _game is not None
    return view if row["deals"] <= len(view["history"]) else {**view, "history": _game.history}


def _page_for(p: dict) -> Page:
    """How the page renders: its language, the server's link patterns (``links.patterns``),
    the form token the page holds, and POLL_SECONDS and PUSH_POLL_SECONDS. Kept while they
    stay the same (its templates are compiled once)."""
    global _page
    if _page is None or (_page.speech.language, _page.routes.patterns, _page.csrf, _page.config) != (
        p["language"],
        p["routes"],
        p["csrf"],
        p["config"],
    ):
        env = _environment()
        routes = links.Routes(p["routes"])
        csrf = p["csrf"]
        env.globals.update(url_for=routes, csrf_token=lambda: csrf, config=p["config"], with_history=_with_history)
        _page = Page(i18n.Speech(p["language"], _catalog(p["language"])), routes, csrf, p["config"], env)
    return _page


def take(payload: str) -> str:
    """Take a game as the server has it (``views/phone.py``, ``record``: ``{"row", "state",
    "history", "said", "routes", "config"}``) with the page's ``language`` and ``csrf``
    token. Forgets what this phone had of the game."""
    global _game
    p = json.loads(payload)
    _page_for(p)
    name = p["row"]["game"]
    rules = games.get(name)
    row = {k: p["row"][k] for k in ROW_KEYS}
    _game = Game(Table(name, rules, board.get(name)), row, rules.load(p["state"]), p["history"], p["said"])
    _game.before = [_kept(rules, b) for b in p.get("before", [])]
    _warm(_game)
    return json.dumps({"version": row["version"]})


def _warm(game: Game) -> None:
    """Render the whole answer a tap on ``game`` would get (one version on, as every tap's is),
    and drop it: the page's first board rendered readies its templates, their words and the
    engine's view before the first tap, which the page makes after it took its game. At CPU
    4x (bench/painted.py), a Tute deal's first tap took the worker 94 ms without it, 58 with."""
    assert _page is not None
    with i18n.speaking(_page.speech), links.building(_page.routes):
        view = game.table.rules.view(game.state)
        _render(replace(game, row={**game.row, "version": game.row["version"] + 1}), view, None, None, 200)


def _render(game: Game, view: dict, prior: dict | None, deals_before: int | None, status: int, **extra) -> dict:
    """The board's answer, as ``views.play._answer`` renders it for htmx."""
    assert _page is not None
    undo = None
    if game.said == "?":  # a move kept without words (the engine no longer takes it)
        undo = i18n._("the last move")
    elif game.said is not None:
        undo = reason_html(game.said, spanish_names(game.row))
    context = templating.board_context(game.table, game.row, view, referee=True, undo=undo, **extra)
    context |= templating.punctuation()
    body = _page.env.get_template("play/_answer.html").render(
        templating.answer_context(game.table, context, prior, deals_before)
    )
    return {"status": status, "html": body, "version": game.row["version"], "context": context}


def _finish(game: Game, answer: dict, current: str) -> str:
    context = answer.pop("context")
    answer["address"] = taps.address(game.row["id"], context, current)
    return json.dumps(answer)


def tap(payload: str) -> str:
    """A tap: ``{"fields": [[name, value], ...], "current": the page's address}``, as the
    form would post it. Answers ``{"status", "html", "version", "address", "applied"}`` as the
    server would (200 applied or asking, 422 refused), or ``{"status": 0}``: not one this
    phone answers (not a move its engine can read), for the server to answer. The answer
    :func:`peek` worked out for the same tap on the same game is given at once."""
    global _game, _ahead
    assert _game is not None and _page is not None
    p = json.loads(payload)
    ahead, _ahead = _ahead, None
    if ahead is not None and ahead[:2] == (_game, _tap_key(p)):
        after, answer = ahead[2], ahead[3]
        if after is not _game:  # Undo's games as they are now (record may have let some go since)
            after = replace(after, before=[*_game.before, after.before[-1]])
        _game = after
    else:
        _game, answer = _tapped(_game, p)
    return answer


def peek(payload: str) -> str:
    """A tap worked out ahead (``{"fields", "current"}`` as :func:`tap` takes them): the page
    asks as a finger touches a card, before the tap is made (static/phone-page.js), so that
    the tap itself is answered at once. Answers what :func:`tap` will. Nothing changes: a
    :func:`tap` with the same fields on the same game takes this answer (the page may have
    shown it already), any other forgets it."""
    global _ahead
    assert _game is not None and _page is not None
    p = json.loads(payload)
    _ahead = (_game, _tap_key(p), *_tapped(_game, p))
    return _ahead[3]


def _tap_key(p: dict) -> tuple:
    """A tap as :func:`peek` and :func:`tap` compare it: its fields by name, in any order of
    the names (the page lists them as the form does, htmx in its own order) but each name's
    values in theirs (Tablanette's layout lists its cards in the order laid), and the page's
    address."""
    return sorted(((str(k), str(v)) for k, v in p["fields"]), key=lambda f: f[0]), p.get("current", "")


def _tapped(game: Game, p: dict) -> tuple[Game, str]:
    """:func:`tap`'s work on ``game``, which it leaves as it was: the game after the tap (a
    new one when the tap applied a move, else ``game``) and the answer."""
    assert _page is not None
    fields = [(str(k), str(v)) for k, v in p["fields"]]
    form = dict(reversed(fields))  # the first of each name, as a form reads it
    rules = game.table.rules
    move = taps.move_from_form(fields)
    current = p.get("current", "")
    with i18n.speaking(_page.speech), links.building(_page.routes):
        view = rules.view(game.state)
        deals = game.row["deals"]
        try:
            question = None
            if form.get("confirm") != "1" and hasattr(rules, "confirm_needed"):
                question = rules.confirm_needed(game.state, move)
            if question:
                answer = _render(game, view, view, deals, 200, confirm={"move": move, "message": question})
                return game, _finish(game, answer | {"applied": False}, current)
            state = rules.apply(game.state, move)
        except InvalidMove:
            return game, json.dumps({"status": 0})
        except AmbiguousMove as e:
            choice = {"move": move, "options": e.options, "message": e.reason, "unanswered": "resume" in form}
            answer = _render(game, view, view, deals, 200, choice=choice)
            return game, _finish(game, answer | {"applied": False}, current)
        except MoveError as e:
            again = taps.ask_again(rules, game.state, move, form.get("resume"))
            reveal = form.get("reveal") == "1"
            answer = _render(game, view, view, deals, 422, error=e.reason, choice=again, reveal=reveal, refused=move)
            return game, _finish(game, answer | {"applied": False}, current)
        after = replace(game, before=[*game.before, (dict(game.row), game.state, game.said, list(game.history))])
        _applied(after, state, rules.narrate(state, move))
        answer = _render(after, after.row["view"], view, deals, 200)
        state_digest = taps.state_digest(rules, after.state)
        return after, _finish(after, answer | {"applied": True, "move": move, "state": state_digest}, current)


def _applied(game: Game, state: Any, said: Any) -> None:
    """What the store's change writes (``store.writes``): the finished deals counted (and the
    new one's record kept), the state kept with its last deal only, one more version."""
    rules = game.table.rules
    base = game.row["deals"] - len(game.state.history)
    deals = base + len(state.history)
    history = game.history[: max(0, min(len(game.history), deals))]
    for record in state.history[len(history) - base :]:
        history.append(json.loads(json.dumps(record)))  # as the store reads a deal back
    trimmed = replace(state, history=state.history[-1:])
    confirmed = game.row["confirmed"]
    game.row = {
        **game.row,
        "version": game.row["version"] + 1,
        "deals": deals,
        "confirmed": None if confirmed is None else min(confirmed, deals),
        "view": rules.view(trimmed),
    }
    game.state, game.history, game.said = trimmed, history, said


def undo(payload: str) -> str:
    """Undo of the last move this phone applied (``{"current"}``): the game as it was before
    it, one version on, as the store's undo does. ``{"status": 0}`` when this phone applied
    none since it took the game: the server undoes it."""
    assert _game is not None and _page is not None
    game = _game
    if not game.before:
        return json.dumps({"status": 0})
    p = json.loads(payload)
    with i18n.speaking(_page.speech), links.building(_page.routes):
        prior = game.table.rules.view(game.state)
        deals = game.row["deals"]
        row, state, said, history = game.before.pop()
        version = game.row["version"] + 1
        game.row = {**row, "version": version, "confirmed": _undone_confirmed(game.row, row)}
        game.state, game.said, game.history = state, said, history
        view = game.table.rules.view(state)
        answer = _render(game, view, prior, deals, 200, notice=i18n._("Undone."))
        return _finish(game, answer | {"applied": True}, p.get("current", ""))


def show(payload: str) -> str:
    """The board as it stands (``{"current", "reveal"}``), as the server's ``live`` answers a
    page that may show anything: a choice cancelled, 100's hand to show (``reveal``)."""
    assert _game is not None and _page is not None
    p = json.loads(payload)
    with i18n.speaking(_page.speech), links.building(_page.routes):
        view = _game.table.rules.view(_game.state)
        answer = _render(_game, view, None, None, 200, reveal=bool(p.get("reveal")))
        return _finish(_game, answer | {"applied": False}, p.get("current", ""))


def _undone_confirmed(now: dict, before: dict) -> int | None:
    return None if now["confirmed"] is None else min(now["confirmed"], before["deals"])


def record(payload: str = "{}") -> str:
    """The game as this phone has it, as :func:`take` takes it, with the games before the
    last ``keep`` moves it applied (``{"keep": n}``: the taps not sent yet, which Undo takes
    back here; the others are forgotten): kept on the phone for a reload without the network."""
    assert _game is not None
    game = _game
    keep = json.loads(payload).get("keep")
    if keep is not None:
        game.before = game.before[len(game.before) - int(keep) :] if keep else []
    row = {k: game.row[k] for k in ROW_KEYS}
    rules = game.table.rules
    before = [
        {"row": {k: b[0][k] for k in ROW_KEYS}, "state": rules.dump(b[1]), "said": _said(b[2]), "history": b[3]}
        for b in game.before
    ]
    record = {"row": row, "state": rules.dump(game.state), "history": game.history, "said": _said(game.said)}
    return json.dumps(record | {"before": before})


def _kept(rules: Any, b: dict) -> tuple:
    """A game before one of the phone's moves, as :func:`record` wrote it."""
    return (b["row"], rules.load(b["state"]), b["said"], b["history"])


def _said(said: Any) -> Any:
    """The last move's words as data (``"?"`` and None as they came)."""
    return said if said is None or said == "?" else [r.as_data() for r in i18n.sentences(said)]


# -- A game on this phone only (issue 45, item 5) ---------------------------------------------
#
# "Play on this phone only" (the page at /phone, static/phone-only.js) starts a game that no
# server has: the page keeps it in IndexedDB as its game, players, options and the moves in
# effect (a transcript's parts), and this module holds it while the page is open: started by
# :func:`start`, taken again from what the page kept by :func:`resume` (its moves replayed, so
# Undo takes back each of them), then answered tap by tap by :func:`play` and :func:`take_back`
# (``tap`` and ``undo``, with what the page's list of games says of it) and ``show``. Its board
# is the server's (``play/_phone_game.html``: the game page's parts that need no server), and
# :func:`transcript` is what the server's import takes, so a game sent later reads the same.

#: A transcript's format, as the store writes and the API's import reads it
#: (``store.TRANSCRIPT_FORMAT``; tests/test_phone_only.py holds the two together).
TRANSCRIPT_FORMAT = "companion-transcript/1"


class _HereRoutes(links.Routes):
    """The links of a game on this phone only: the page's own patterns (its taps, Undo and
    board are answered by the page, the game's address is the page's with the game in its
    fragment), and the page itself for a link to anything only a server has (a new game at
    the game's end)."""

    def __call__(self, endpoint: str, **values) -> str:
        if endpoint in links.ROUTES and endpoint in self.patterns:
            return super().__call__(endpoint, **values)
        return self.patterns["here"]


def _here_page(p: dict) -> Page:
    """How a game on this phone only renders (as :func:`_page_for`, with its own links)."""
    global _page
    routes = _HereRoutes(p["routes"])
    now = None if _page is None else (_page.speech.language, type(_page.routes), _page.routes.patterns, _page.csrf)
    if _page is None or now != (p["language"], _HereRoutes, routes.patterns, p["csrf"]) or _page.config != p["config"]:
        env = templating.environment(FileSystemLoader(str(ROOT / "templates")))
        csrf = p["csrf"]
        env.globals.update(url_for=routes, csrf_token=lambda: csrf, config=p["config"], with_history=_with_history)
        _page = Page(i18n.Speech(p["language"], _catalog(p["language"])), routes, csrf, p["config"], env)
    return _page


def _summary(game: Game) -> dict:
    """What the page's list of games says of one: the deal being played, whether it is over."""
    view = game.table.rules.view(game.state)
    return {"deal": view.get("deal"), "over": view.get("result") is not None, "moves": len(game.before)}


def _here_game(game_id: str, name: str, players: list, options: dict, state: Any) -> Game:
    """A game this phone only has, as :func:`take` holds one: version 0, no deal finished."""
    rules = games.get(name)
    row = {
        "id": game_id,
        "game": name,
        "players": players,
        "options": options,
        "version": 0,
        "deals": len(state.history),
        "confirmed": None,
    }
    return Game(Table(name, rules, board.get(name)), row, state, [], None)


def _asked(game: Game, asked: Any) -> dict:
    """The question the page asked when it was reloaded (its address's ``ask``: the move that
    asked it), asked again, as ``views.play.asked_again`` does: ``{}`` when it asks nothing now."""
    rules = game.table.rules
    try:
        move = json.loads(asked) if isinstance(asked, str) else None
        if not isinstance(move, dict) or not isinstance(move.get("type"), str):
            return {}
        message = rules.confirm_needed(game.state, move) if hasattr(rules, "confirm_needed") else None
        if message:
            return {"confirm": {"move": move, "message": message}}
        rules.apply(game.state, move)
    except AmbiguousMove as e:
        return {"choice": {"move": move, "options": e.options, "message": e.reason, "unanswered": False}}
    except (MoveError, ValueError, TypeError, KeyError):  # not a move of this game now: the board as it is
        pass
    return {}


def _whole(game: Game, p: dict) -> dict:
    """The whole game as its page shows it (``play/_phone_game.html``), with what its address
    asks again (``ask``, ``reveal``); a game just started says so, and that no server has it."""
    assert _page is not None
    with i18n.speaking(_page.speech), links.building(_page.routes):
        view = game.table.rules.view(game.state)
        undo = None if game.said is None else reason_html(game.said, spanish_names(game.row))
        notice = i18n._("Game started on this phone only: no server needed.") if not game.before else None
        context = templating.board_context(
            game.table,
            game.row,
            view,
            referee=True,
            undo=undo,
            notice=notice,
            reveal=bool(p.get("reveal")),
            **_asked(game, p.get("ask")),
        )
        context |= templating.punctuation()
        html = _page.env.get_template("play/_phone_game.html").render(context)
        return {"status": 200, "html": html, "version": game.row["version"], "summary": _summary(game)}


def start(payload: str) -> str:
    """A new game on this phone only: ``{"id", "game", "start", "players", "dealer",
    "language", "routes", "config", "csrf"}`` (``players`` the names typed in seat order, blanks
    left out; ``dealer`` the first dealer's seat; ``start`` one of the game's one-tap starts,
    whose options it takes). The engine checks the players and options (``rules.start``): a
    refusal answers ``{"status": 422, "error", "option", "seat"}``, in the page's language.
    Else the phone holds the game and answers as :func:`resume` does, with the ``game`` to keep:
    ``{"game", "players", "options", "moves": []}``."""
    global _game
    p = json.loads(payload)
    page = _here_page(p)
    with i18n.speaking(page.speech):
        try:
            rules = games.get(p["game"])
            starts = rules.STARTS
            chosen = starts.get(p.get("start")) or next(iter(starts.values()))
            players = [str(n).strip() for n in p["players"]]
            seat = int(p.get("dealer", 0))
            if not 0 <= seat < len(players):
                raise games.OptionError(
                    "dealer_seat",
                    "Player %(n)s has no name: choose a dealer among the players.",
                    option="dealer",
                    n=seat + 1,
                )
            options = json.loads(json.dumps(chosen.options)) | {"dealer": players[seat]}
            state = rules.start(players, options)
        except games.OptionError as e:
            seat_at = e.params.get("seat")
            return json.dumps(
                {"status": 422, "error": i18n.say(e.reason), "option": e.option, "seat": seat_at}, ensure_ascii=False
            )
        options["dealer"] = state.players[state.dealer]
        _game = _here_game(str(p["id"]), rules.NAME, list(state.players), options, state)
        kept = {"game": rules.NAME, "players": list(state.players), "options": options, "moves": []}
        return json.dumps(_whole(_game, p) | {"game": kept})


def resume(payload: str) -> str:
    """A game on this phone only, taken again from what the page kept: ``{"id", "game",
    "players", "options", "moves", "language", "routes", "config", "csrf"}``, and what its
    address asks again (``ask``, ``reveal``). Its moves are replayed, each kept for Undo as a
    tap keeps it; answers ``{"status", "html", "version", "summary"}``, or ``{"status": 422,
    "refused": n, "error"}`` when move n (1-based) is refused now (the rules changed since):
    the game is held as it was before it."""
    global _game
    p = json.loads(payload)
    page = _here_page(p)
    rules = games.get(p["game"])
    options = p.get("options") or {}
    game = _here_game(str(p["id"]), rules.NAME, list(p["players"]), options, rules.start(p["players"], options))
    _game = game
    with i18n.speaking(page.speech):
        for i, move in enumerate(p.get("moves", []), 1):
            try:
                state = rules.apply(game.state, move)
            except MoveError as e:
                answer = _whole(game, {}) | {"status": 422, "refused": i, "error": i18n.say(e.reason)}
                return json.dumps(answer, ensure_ascii=False)
            game.before.append((dict(game.row), game.state, game.said, list(game.history)))
            _applied(game, state, rules.narrate(state, move))
    return json.dumps(_whole(game, p))


def play(payload: str) -> str:
    """A tap on a game on this phone only (:func:`tap`), with what the list of games says of
    it (``summary``). A tap the engine cannot read as a move (no picker sends one) is refused
    in place: there is no server to leave it to."""
    assert _game is not None and _page is not None
    answer = json.loads(tap(payload))
    if answer["status"] == 0:
        p = json.loads(payload)
        game, rules = _game, _game.table.rules
        move = taps.move_from_form([(str(k), str(v)) for k, v in p["fields"]])
        with i18n.speaking(_page.speech), links.building(_page.routes):
            try:
                rules.apply(game.state, move)
                reason: Any = i18n._("That tap can't be read as a move.")
            except MoveError as e:
                reason = e.reason
            view = rules.view(game.state)
            answer = _render(game, view, view, game.row["deals"], 422, error=reason)
            context = answer.pop("context")
            answer |= {"applied": False, "address": taps.address(game.row["id"], context, p.get("current", ""))}
    return json.dumps(answer | {"summary": _summary(_game)})


def take_back(payload: str) -> str:
    """Undo on a game on this phone only (:func:`undo`: every move since it was started or
    resumed), with ``summary``."""
    assert _game is not None
    answer = json.loads(undo(payload))
    return json.dumps(answer | {"summary": _summary(_game)})


def transcript(payload: str) -> str:
    """A game on this phone only as a transcript (``{"game", "players", "options", "moves"}``,
    as the page keeps it): what the server's import takes (``POST /api/games/import``) and its
    transcript gives back once imported, key for key."""
    p = json.loads(payload)
    return json.dumps(
        {
            "format": TRANSCRIPT_FORMAT,
            "game": p["game"],
            "players": p["players"],
            "options": p.get("options") or {},
            "moves": p["moves"],
        },
        ensure_ascii=False,
    )
