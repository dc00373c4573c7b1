"""Rules pages and the dispute lab: set up a position in a few taps and read the
engine's answer, with the rule it rests on. The position lives in the query string, so
every answer is a link to share. The answers come from the engines' helpers; this
module only reads the position from the URL and hands it over."""

from __future__ import annotations

import re
import typing
from dataclasses import fields

from flask import Blueprint, abort, make_response, render_template, request, url_for
from markupsafe import Markup, escape

from companion import games, htmx
from companion.cards import Card
from companion.errors import MoveError, OptionError
from companion.views.common import card_text

bp = Blueprint("rules", __name__, url_prefix="/rules")

#: A refusal cites its rule as "<Game> <section>"; the plain-words rules page has that anchor.
CITATION = re.compile(r"\b(Tablanette|Tute|Tantony|100/99/98) (P\d|\d+\.\d+)")
SLUGS = {"Tablanette": "tablanette", "Tute": "tute", "Tantony": "tantony", "100/99/98": "hundred"}
#: The options each lab lets you change in place (the ones its answers depend on).
LAB_OPTIONS = {
    "tablanette": ("max_group_size", "jack_is_12", "forced_capture"),
    "tute": ("undertrump_required", "must_head", "win_threshold", "triple_tie", "over_100_loses", "loss_limit"),
    "tantony": ("value_scale", "three_player_values"),
    "hundred": ("variant", "floor_at_zero", "ace_high_99", "itoya_black_ace", "reverse_with_two_players"),
}


def anchor(section: str) -> str:
    return section if section.startswith("P") else "s" + section.replace(".", "-")


def rule_links(text: str) -> Markup:
    """Escape ``text``, write its card codes as players read them (Q♣), and link each cited
    rule to its section of the rules page."""

    def link(m: re.Match) -> str:
        href = url_for("rules.words", game=SLUGS[m.group(1)], _anchor=anchor(m.group(2)))
        return f'<a href="{escape(href)}">{m.group(0)}</a>'

    return Markup(CITATION.sub(link, str(escape(card_text(text)))))


def position_url(view: dict) -> str:
    """The dispute lab set to a game's current position and rules (one tap from the game)."""
    game, o = view["game"], view.get("options", {})
    args: dict[str, typing.Any] = {
        k: ("none" if o[k] is None else str(o[k]).lower() if isinstance(o[k], bool) else o[k])
        for k in LAB_OPTIONS[game]
        if k in o
    }
    trick = ",".join(c for _, c in view.get("trick", []))
    if game == "tablanette":
        args["table"] = ",".join(view["table"])
    elif game == "tute":
        args |= {"trump": view["trump"] or "none", "trick": trick, "players": len(view["players"])}
    elif game == "tantony":
        seats = ["N", "E", "S", "W"] if len(view["players"]) == 4 else ["P1", "P2", "P3"]
        args |= {"trick": trick, "players": len(view["players"])}
        args |= {f"held_{s}": view["held"][p] for s, p in zip(seats, view["players"])}
    elif game == "hundred":
        args["total"] = view["total"]
    return url_for("rules.page", game=game, **{k: v for k, v in args.items() if v not in ("", None)})


def register(app) -> None:
    app.jinja_env.filters["rule_links"] = rule_links
    app.jinja_env.globals["lab_position_url"] = position_url


# -- reading a position from the query string ----------------------------------------

#: The largest number any lab field takes (a score, a total, a numeric option): a
#: 20-digit number is a wrong value, never a slow answer or an overflow.
BIG = 9999
#: Whole numbers in ASCII digits only: ``str.isdigit()`` also accepts "²" and "١٢".
WHOLE = re.compile(r"-?[0-9]{1,7}")
TRUE, FALSE = ("true", "on", "1", "yes"), ("false", "off", "0", "no")
#: The query parameters the lab reads, as its forms name them (the messages cite both).
FIELD_LABELS = {
    "table": "Table cards",
    "card": "Card played",
    "claim": "The claimed capture",
    "layout": "The 4 face-up cards",
    "a_cards": "Cards A took",
    "a_counters": "A's counting cards",
    "a_sweeps": "A's sweeps",
    "b_sweeps": "B's sweeps",
    "score_a": "A's score",
    "score_b": "B's score",
    "target": "Target",
    "sweeper": "Reached",
    "last": "Last trick taken by",
    "into": "Tap into",
    "trick": "Trick",
    "hand": "Hand",
    "trump": "Trumps",
    "players": "Players",
    "sung": "Cantes already sung",
    "sang_now": "Already sang after this trick",
    "lost": "Lost the deal",
    "to": "Given to",
    "ns": "N & S",
    "ew": "E & W",
    "after": "After deal",
    "total": "Total now",
    "seat": "Seat playing",
    "direction": "Direction",
}


#: Where one name means another field in another lab.
GAME_LABELS = {("tablanette", "last"): "The deal's last card"}


def _label(name: str, game: str = "") -> str:
    if (game, name) in GAME_LABELS:
        return GAME_LABELS[game, name]
    if name.startswith("held_"):
        return f"Tricks {name[5:]} holds"
    if name.startswith("m_"):
        return f"{name[2:]}'s loss marks"
    if re.fullmatch(r"P[0-9]", name):
        return f"{name}'s total"
    return FIELD_LABELS.get(name, name)


def _shown(raw: str) -> str:
    if raw == "":
        return "empty"
    return repr(raw if len(raw) <= 24 else raw[:24] + "…")


class Query:
    """The lab's one reader of the query string. Every value it reads is checked: a wrong
    one (not ASCII digits, out of range, not one of the choices, given twice) is noted in
    ``errors`` with a plain message naming the field, read as absent so the rest of the lab
    still answers, and the page answers 400. Words that are not cards, and cards the game's
    pack has not, are ``problems``: a position the referee can't answer (200), as before."""

    def __init__(self, game: str, args, leave_out=frozenset()):
        self.game, self.args, self.leave_out = game, args, leave_out
        self.errors: list[str] = []
        self.problems: list[str] = []
        self.bad: set[str] = set()

    def label(self, name: str) -> str:
        return _label(name, self.game)

    def wrong(self, name: str, message: str) -> None:
        if name not in self.bad:
            self.bad.add(name)
            self.errors.append(message)

    def shown(self, name: str) -> str:
        """The value as given (to show it back in its form field), unchecked."""
        return self.args.get(name, "")

    def text(self, name: str, default: str = "") -> str:
        """The one value of ``name``, stripped; a repeated parameter is wrong."""
        value = self._one(name)
        return default if value is None else value

    def _one(self, name: str) -> str | None:
        """The one value of ``name``, stripped, or None (absent, or wrongly repeated)."""
        values = self.args.getlist(name)
        if len(values) > 1:
            self.wrong(name, f"{self.label(name)} ({name}) is given {len(values)} times: give it once.")
            return None
        return values[0].strip() if values else None

    @typing.overload
    def number(self, name: str, low: int, high: int, default: int, required: bool = False) -> int: ...

    @typing.overload
    def number(self, name: str, low: int, high: int, default: None = None, required: bool = False) -> int | None: ...

    def number(self, name: str, low: int, high: int, default: int | None = None, required: bool = False) -> int | None:
        """A whole number from ``low`` to ``high``; absent (or empty, unless ``required``)
        gives ``default``."""
        raw = self._one(name)
        if raw is None or (raw == "" and not required):
            return default
        if WHOLE.fullmatch(raw) and low <= int(raw) <= high:
            return int(raw)
        self.wrong(name, f"{self.label(name)} ({name}) must be a whole number from {low} to {high}, not {_shown(raw)}.")
        return default

    def numbers(self, name: str, low: int, high: int, most: int = 52) -> list[int]:
        """A list of whole numbers ("26, 42" or "26+42")."""
        words = [w for w in re.split(r"[\s,+]+", self.text(name)) if w]
        if len(words) <= most and all(WHOLE.fullmatch(w) and low <= int(w) <= high for w in words):
            return [int(w) for w in words]
        self.wrong(
            name,
            f"{self.label(name)} ({name}) must be at most {most} whole numbers from {low} to {high}, "
            f"like 26, 42, not {_shown(self.text(name))}.",
        )
        return []

    @typing.overload
    def choice(self, name: str, allowed: typing.Collection[str], default: str) -> str: ...

    @typing.overload
    def choice(self, name: str, allowed: typing.Collection[str], default: None = None) -> str | None: ...

    def choice(self, name: str, allowed: typing.Collection[str], default: str | None = None) -> str | None:
        """One of ``allowed``; absent or empty gives ``default``."""
        raw = self.text(name)
        if raw == "":
            return default
        if raw in allowed:
            return raw
        self.wrong(name, f"{self.label(name)} ({name}) must be one of {', '.join(allowed)}, not {_shown(raw)}.")
        return default

    def flag(self, name: str) -> bool:
        """A tick box: 1 (ticked) or 0, absent or empty (not ticked)."""
        return self.choice(name, ("1", "0"), "0") == "1"

    def cards(self, name: str, most: int = 104) -> list[str]:
        """The distinct cards of a list ("2S,3H 10D", "Q♥"); each word that is not a card is a problem."""
        words = [w for w in re.split(r"[\s,]+", self.text(name)) if w]
        if len(words) > most:
            self.wrong(name, f"{self.label(name)} ({name}) lists {len(words)} cards: at most {most}.")
            return []
        out = []
        for word in words:
            try:
                code = str(Card.parse(word))
            except MoveError as e:
                self.problems.append(str(e))
                continue
            if code not in out:
                out.append(code)
        return out

    def url(self, **changes) -> str:
        """This lab's URL with some parameters changed (None removes one); the wrong ones
        (``leave_out``: found by a first reading) are left out, so a tap on a page that
        refused a value answers. A repeated ``lost`` stays repeated."""
        args = {k: v if len(v) > 1 else v[0] for k, v in self.args.lists() if k not in self.bad | self.leave_out}
        for k, v in changes.items():
            if v in (None, "", []):
                args.pop(k, None)
            else:
                args[k] = ",".join(v) if isinstance(v, list) else v
        return url_for("rules.page", game=self.game, **args)

    def one_grid(self, grids: dict[str, tuple[str, dict, list]]) -> dict:
        """The lab's one card grid: the position's card sets (name: label, links, cards on)
        it can tap into, the one chosen (``into``), and a link to switch to each. One grid,
        so the answer above it stays in view while tapping."""
        into = self.choice("into", tuple(grids), next(iter(grids)))
        label, links, on = grids[into]
        return {
            "label": label,
            "links": links,
            "on": on,
            "into": into,
            "switch": [(key, grids[key][0], self.url(into=key)) for key in grids],
        }


def _option_value(rules, name: str, raw: str):
    """An option's value read from its word; ValueError says what it must be instead."""
    kind = typing.get_type_hints(rules.Options)[name]
    choices = getattr(rules, "CHOICES", {}).get(name)
    if raw == "none":
        return None  # the engine says whether this option may be none
    if kind is bool:
        if raw not in TRUE + FALSE:
            raise ValueError("true or false")
        return raw in TRUE
    if choices:
        words = {"none" if c is None else str(c): c for c in choices}
        if raw not in words:
            raise ValueError("one of " + ", ".join(words))
        return words[raw]
    if int in getattr(kind, "__args__", (kind,)):
        if not (WHOLE.fullmatch(raw) and 0 <= int(raw) <= BIG):
            raise ValueError(f"a whole number up to {BIG}")
        return int(raw)
    return raw


def _options(q: Query, rules, names) -> tuple[dict, dict]:
    """(options for the engine, the raw values for the form) from the query string."""
    chosen, raw = {}, {}
    for name in names:
        value = q.text(name)
        if value == "":
            continue
        try:
            chosen[name] = _option_value(rules, name, value)
        except ValueError as e:
            q.wrong(name, f"{rules.OPTION_LABELS[name]} ({name}) must be {e}, not {_shown(value)}.")
            continue
        raw[name] = value
    return chosen, raw


def _resolve(q: Query, rules, chosen: dict, raw: dict):
    """The options in force: what the engine refuses is a wrong value too (named by its
    message); the others stay chosen."""
    try:
        return rules.resolve_options(chosen, None), raw
    except OptionError as e:
        culprits = [n for n in chosen if n in str(e)] or list(chosen)
        q.errors.append(f"{rules.OPTION_LABELS[culprits[0]]}: {e}." if len(culprits) == 1 else f"{e}.")
        q.bad.update(culprits)
        kept = {n: v for n, v in chosen.items() if n not in culprits}
    try:
        return rules.resolve_options(kept, None), {n: v for n, v in raw.items() if n in kept}
    except OptionError:
        return rules.resolve_options({}, None), {}


def toggled(cards: list[str], code: str) -> list[str]:
    return [c for c in cards if c != code] if code in cards else cards + [code]


def option_rows(rules, names, raw: dict) -> list[dict]:
    """The lab's option controls: name, label, help, choices, current value."""
    hints = typing.get_type_hints(rules.Options)
    defaults = {f.name: f.default for f in fields(rules.Options)}
    rows = []
    for name in names:
        kind = hints[name]
        choices = getattr(rules, "CHOICES", {}).get(name)
        if kind is bool:
            choices = (True, False)
        labels = getattr(rules, "CHOICE_LABELS", {}).get(name, {})
        words = (
            [
                (
                    "none" if c is None else "true" if c is True else "false" if c is False else str(c),
                    "yes" if c is True else "no" if c is False else labels.get(c, str(c).replace("_", " ")),
                )
                for c in choices
            ]
            if choices
            else None
        )
        default = defaults[name]
        current = raw.get(
            name, "none" if default is None else str(default).lower() if isinstance(default, bool) else str(default)
        )
        shown = dict(words).get(current, current.replace("_", " ")) if words else current
        rows.append(
            {
                "name": name,
                "label": rules.OPTION_LABELS[name],
                "help": rules.OPTION_HELP.get(name, ""),
                "choices": words,
                "value": current,
                "shown": shown,
            }
        )
    return rows


# -- the pages ---------------------------------------------------------------------------


@bp.get("/")
def index():
    return render_template("rules/index.html", titles={n: games.get(n).TITLE for n in games.GAMES})


@bp.get("/<game>")
def page(game: str):
    if game not in games.GAMES:
        abort(404)
    rules = games.get(game)
    q, opts, raw, lab = _read(game, rules)
    if q.bad:  # read once more, so that no link on the page carries a wrong value
        q, opts, raw, lab = _read(game, rules, leave_out=q.bad)
    context = {
        "game": game,
        "title": rules.TITLE,
        "rules": rules,
        "lab": lab,
        "problems": q.errors + q.problems,
        "option_rows": option_rows(rules, LAB_OPTIONS[game], raw),
        "share": request.url if request.args else None,
    }
    response = make_response(render_template("rules/page.html", **context), 400 if q.errors else 200)
    if q.errors and htmx:
        # htmx swaps no 4xx answer: a tap or form in the lab loads the refusal as a page,
        # so its message is read, not lost behind a "no connection" banner.
        response.headers["HX-Redirect"] = request.full_path
    return response


def _read(game: str, rules, leave_out=frozenset()) -> tuple:
    """The lab's query, options in force (and their raw words) and answers."""
    q = Query(game, request.args, leave_out)
    opts, raw = _resolve(q, rules, *_options(q, rules, LAB_OPTIONS[game]))
    return q, opts, raw, LABS[game](rules, opts, q)


@bp.get("/<game>/words")
def words(game: str):
    """The rules in plain words, each section an anchor that refusals link to."""
    if game not in games.GAMES:
        abort(404)
    rules = games.get(game)
    return render_template(
        "rules/words.html",
        game=game,
        title=rules.TITLE,
        all_options=option_rows(rules, [f.name for f in fields(rules.Options)], {}),
    )


# -- the labs: each reads its position through the Query and asks the engine -----------


def _tablanette(rules, opts, q: Query) -> dict:
    table, claim = q.cards("table"), q.cards("claim")
    chosen = q.cards("card")
    played: str | None = chosen[0] if chosen else None
    if played in table:
        q.problems.append(f"{played} can't be both on the table and the card played.")
        played = None
    claim = [c for c in claim if c in table]
    last = q.flag("last")
    pack = [str(c) for c in rules.PACK]
    out: dict[str, typing.Any] = {
        "table": table,
        "card": played,
        "claim": claim,
        "captures": None,
        "verdict": None,
        "section": "Tablanette 1.4",
        "grid": q.one_grid(
            {
                "table": (
                    "Table cards",
                    {
                        c: q.url(
                            table=toggled(table, c),
                            claim=[x for x in claim if x != c],
                            card=None if c == played else played,
                        )
                        for c in pack
                    },
                    table,
                ),
                "card": (
                    "Card played",
                    {c: q.url(card=None if c == played else c, table=[x for x in table if x != c]) for c in pack},
                    [played] if played else [],
                ),
            }
        ),
        "claim_links": {c: q.url(claim=toggled(claim, c)) for c in table},
        "last_link": q.url(last=None if last else "1"),
    }
    out["deal"] = _tablanette_deal(rules, opts, q)
    out |= _tablanette_layout(rules, opts, q)
    out |= _tablanette_winner(rules, opts, q)
    out["last"] = last
    if played and not (q.problems or q.errors):
        out |= _tablanette_captures(rules, opts, played, table, claim, last)
    return out


def _tablanette_captures(rules, opts, played: str, table: list[str], claim: list[str], last: bool) -> dict:
    """Every legal capture of ``played`` (with what the deal's last card leaves), and the
    verdict on a claimed one."""
    out = {"captures": rules.capture_options(played, table, opts), "verdict": None}
    if last:
        out["leftovers"] = [rules.leftovers(played, table, c) for c in out["captures"]]
    if claim:
        judged = rules.judge_capture(played, table, claim, opts)
        out["verdict"] = (
            {"legal": True, "capture": judged}
            if judged
            else {"legal": False, "reason": rules.explain_refusal(played, table, claim, opts)}
        )
    return out


def _tablanette_layout(rules, opts, q: Query) -> dict:
    layout = q.cards("layout")
    out: dict[str, typing.Any] = {"layout": ", ".join(layout)}
    if layout:
        try:
            rules.apply(rules.start(["A", "B"], {"jack_is_12": opts.jack_is_12}), {"type": "layout", "cards": layout})
            out["layout_answer"] = {"ok": True}
        except MoveError as e:
            out["layout_answer"] = {"ok": False, "reason": str(e)}
    return out


def _tablanette_winner(rules, opts, q: Query) -> dict:
    """Who wins at these scores (RULES.md 1.6)."""
    a, b = q.number("score_a", 0, BIG), q.number("score_b", 0, BIG)
    target = q.number("target", 1, BIG, 251)
    sweeper = q.choice("sweeper", ("A", "B"))
    out = {
        "score_a": q.shown("score_a"),
        "score_b": q.shown("score_b"),
        "target": q.shown("target") or "251",
        "sweeper": sweeper or "",
    }
    if a is not None and b is not None and target is not None:
        out["result"] = rules.verdict({"A": a, "B": b}, target, opts.on_tie, sweeper) or "play on"
    return out


def _tablanette_deal(rules, opts, q: Query) -> dict:
    """A two-player deal scored from A's cards taken and counting cards (B has the rest)."""
    args = {k: q.shown(k) for k in ("a_cards", "a_counters", "a_sweeps", "b_sweeps")}
    a_cards = q.number("a_cards", 0, len(rules.PACK))
    sweeps = {side: q.numbers(f"{side.lower()}_sweeps", 0, BIG) for side in ("A", "B")}
    if a_cards is None:
        return {"args": args, "points": None}
    counters = [str(c) for c in rules.PACK if rules.card_points([str(c)], opts.point_scale)]
    mine = q.cards("a_counters")
    move = {
        "type": "tally",
        "cards": {"A": a_cards, "B": len(rules.PACK) - a_cards},
        "counters": {"A": mine, "B": [c for c in counters if c not in mine]},
        "sweeps": {k: v for k, v in sweeps.items() if v},
    }
    try:
        state = rules.apply(rules.start(["A", "B"], {"target": 10**6}), move)
    except MoveError as e:
        return {"args": args, "points": None, "error": str(e)}
    record = state.history[-1]
    return {"args": args, "points": record["points"], "record": record}


TUTE_SEATS = tuple(f"P{i}" for i in range(1, 6))


def _tute(rules, opts, q: Query) -> dict:
    players = q.number("players", rules.MIN_PLAYERS, rules.MAX_PLAYERS, 4, required=True)
    word = q.choice("trump", ("S", "H", "D", "C", "none"), "none")
    trump = None if word == "none" else word
    pack = [str(c) for c in rules.pack(players)]
    out = _tute_position(q, players, pack) | {"trump": trump}
    out |= _tute_game_end(rules, opts, q, players)
    trick, hand = out["trick"], out["hand"]
    if any(c not in pack for c in trick + hand):
        q.problems.append(
            f"With {players} players the pack has no "
            + " ".join(c for c in trick + hand if c not in pack)
            + " (Tute 2.2)."
        )
        return out
    out |= _tute_cantes(rules, q, hand, trick, trump, players)
    if trick:
        w = rules.trick_winner(trick, trump)
        out["winner"] = {
            "index": w,
            "card": trick[w],
            "points": rules.card_points(trick),
            "marriages": rules.marriages(trick, trump, players, first_sets_trump=trump is None),
        }
    if hand and trick:
        out["plays"] = [{"card": c, "why": rules.why_illegal(hand, trick, trump, c, opts)} for c in hand]
    out["outcome"] = _tute_outcome(rules, opts, q, out["totals"], out["last"])
    return out


def _tute_position(q: Query, players: int, pack: list[str]) -> dict:
    """The trick and the player's hand, with the grid that taps them and the links that
    change the trumps and the number of players."""
    trick, hand = q.cards("trick"), q.cards("hand")
    hand = [c for c in hand if c not in trick]
    seats = TUTE_SEATS[:players]
    return {
        "trick": trick,
        "hand": hand,
        "players": players,
        "pack": pack,
        "section": "Tute 2.4",
        "grid": q.one_grid(
            {
                "trick": (
                    "Trick so far",
                    {c: q.url(trick=toggled(trick, c), hand=[x for x in hand if x != c]) for c in pack},
                    trick,
                ),
                "hand": (
                    "Player's hand",
                    {c: q.url(hand=toggled(hand, c), trick=[x for x in trick if x != c]) for c in pack},
                    hand,
                ),
            }
        ),
        "suits": {s: q.url(trump=s) for s in ("S", "H", "D", "C", "none")},
        "player_counts": {n: q.url(players=str(n)) for n in (3, 4, 5)},
        "winner": None,
        "plays": None,
        "outcome": None,
        "last": q.choice("last", TUTE_SEATS, "P1"),
        "totals": {p: q.shown(p) for p in seats},
    }


def _tute_game_end(rules, opts, q: Query, players: int) -> dict:
    """Whether the game ends: loss marks before the deal, and who lost it (RULES.md 2.7)."""
    seats = TUTE_SEATS[:players]
    marks = {p: q.number(f"m_{p}", 0, BIG) for p in seats}
    lost = [p for p in q.args.getlist("lost") if p in seats]
    for p in q.args.getlist("lost"):
        if p not in TUTE_SEATS:
            q.wrong("lost", f"{q.label('lost')} (lost) must be among {', '.join(TUTE_SEATS)}, not {_shown(p)}.")
    out: dict[str, typing.Any] = {"marks": {p: q.shown(f"m_{p}") for p in seats}, "lost": lost, "game_end": None}
    if all(m is not None for m in marks.values()):
        after = {p: m + (p in lost) for p, m in marks.items() if m is not None}  # all are
        out["marks_after"] = after
        out["game_end"] = rules.game_end(after, opts.loss_limit) or {"losers": [], "winners": []}
    return out


def _tute_cantes(rules, q: Query, hand: list[str], trick: list[str], trump: str | None, players: int) -> dict:
    """Which cantes the player may sing between tricks (RULES.md 2.5)."""
    words = [w for w in re.split(r"[\s,]+", q.text("sung").upper()) if w]
    if not all(re.fullmatch(r"[SHDC](20|40)", w) for w in words):
        q.wrong("sung", f"{q.label('sung')} (sung) must be like S20 or D40, not {_shown(q.text('sung'))}.")
        words = []
    sung = [(w[0], int(w[1:])) for w in words]
    out = {"sung": q.shown("sung"), "sang_now": q.flag("sang_now")}
    if hand and len(trick) in (0, players):  # a cante is sung between tricks
        out["cantes"] = [
            {"suit": x, "why": rules.cante_check(hand, x, trump, sung, out["sang_now"], players)}
            for x in "SHDC"
            if f"K{x}" in hand or f"Q{x}" in hand
        ]
    return out


def _tute_outcome(rules, opts, q: Query, totals: dict, last: str) -> dict | None:
    """Who loses the deal at these totals (RULES.md 2.6)."""
    points = {p: q.number(p, 0, BIG) for p in totals}
    if any(v is None for v in points.values()):
        return None
    try:
        return rules.deal_outcome(points, last if last in totals else "P1", opts)
    except (MoveError, OptionError) as e:
        q.problems.append(str(e))
        return None


TANTONY_SEATS = ("N", "E", "S", "W", "P1", "P2", "P3")


def _tantony(rules, opts, q: Query) -> dict:
    trick = q.cards("trick")
    players = q.number("players", rules.MIN_PLAYERS, rules.MAX_PLAYERS, 4, required=True)
    pack = [str(c) for c in rules.pack(players)]
    seats = list(rules.COMPASS[:players]) if players == 4 else ["P1", "P2", "P3"]
    out = {
        "trick": trick,
        "players": players,
        "pack": pack,
        "section": "Tantony 3.3",
        "seats": seats,
        "quota": rules.trick_quota(players),
        "trick_links": {c: q.url(trick=toggled(trick, c)) for c in pack},
        "player_counts": {n: q.url(players=str(n), trick=None) for n in (3, 4)},
        "winner": None,
        "gift": None,
    }
    out |= _tantony_gift(rules, q, seats, players)
    out |= _tantony_sudden_death(rules, q)
    if any(c not in pack for c in trick):
        q.problems.append("3-player Tantony has no 7s to 10s (Tantony 3.10).")
        return out
    if trick:
        w = rules.trick_winner(trick)
        low = rules.runt(trick)
        out["winner"] = {
            "index": w,
            "card": trick[w],
            "runt": low,
            "value": rules.card_value(low, opts, players),
            "hog": all(c[-1] != trick[0][-1] for c in trick[1:]),
        }
        if players == 4 and len(trick) == 4:
            out["exchange"] = rules.exchange(trick)
            out["kept"] = rules.kept(trick)
    return out


def _tantony_gift(rules, q: Query, seats: list[str], players: int) -> dict:
    """May the trick be given to ``to`` (RULES.md 3.4)?"""
    held = {s: q.number(f"held_{s}", 0, 13) for s in seats}
    to = q.choice("to", TANTONY_SEATS)
    out: dict[str, typing.Any] = {"held": {s: q.shown(f"held_{s}") for s in seats}, "to": to}
    if to in seats and all(v is not None for v in held.values()):
        out["gift"] = rules.gift_refusal(held, to, players)
        out["gift_asked"] = True
    return out


def _tantony_sudden_death(rules, q: Query) -> dict:
    """Sudden death after a deal (RULES.md 3.8)."""
    ns, ew, after = q.number("ns", 0, BIG), q.number("ew", 0, BIG), q.number("after", 1, 12)
    out = {"ns": q.shown("ns"), "ew": q.shown("ew"), "after": q.shown("after"), "verdict": None}
    if ns is not None and ew is not None and after is not None:
        out["verdict"] = rules.verdict({"N & S": ns, "E & W": ew}, after) or "play on"
        out["line"] = rules.THRESHOLD * after
    return out


def _hundred(rules, opts, q: Query) -> dict:
    chosen = q.cards("card")
    played = chosen[0] if chosen else None
    # No total is 0; a wrong one is none (the lab answers nothing that needs it).
    total = q.number("total", 0 if opts.floor_at_zero else -BIG, BIG, None if "total" in q.args else 0, required=True)
    out = {
        "card": played,
        "total": total,
        "target": rules.target(opts),
        "section": "100/99/98 4.3",
        "card_links": {str(c): q.url(card=str(c)) for c in rules.PACK_52},
        "made": None,
    }
    hand = q.cards("hand")
    out["hand"] = " ".join(hand)
    if hand and total is not None:
        out["lose"] = rules.lose_refusal(hand, total, opts) or "loses"
    players = q.number("players", rules.MIN_PLAYERS, rules.MAX_PLAYERS, 3, required=True)
    seat = q.number("seat", 1, players, 1, required=True)
    direction = -1 if q.choice("direction", ("clockwise", "anticlockwise")) == "anticlockwise" else 1
    out |= {"players": players, "seat": seat, "direction": direction, "next": None}
    if played and total is not None:
        made, reverse = rules.effect(played, total, opts)
        out["made"] = [{"total": t, "safe": t <= out["target"]} for t in made]
        out["reverse"] = reverse
        nxt, turned = rules.turn_after(played, seat - 1, players, direction, opts)
        out["next"] = {"seat": nxt + 1, "direction": turned}
    return out


LABS = {"tablanette": _tablanette, "tute": _tute, "tantony": _tantony, "hundred": _hundred}
