"""Rules pages and the dispute lab: set up a position in a few taps and read the
engine's answer, with the rule it rests on. The position lives in the query string, so
every answer is a link to share. The answers come from the engines' helpers; this
module only reads the position from the URL and hands it over."""

from __future__ import annotations

import re
import typing
from dataclasses import fields

from flask import Blueprint, abort, render_template, request, url_for
from markupsafe import Markup, escape

from companion import games
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
    args = {k: ("none" if o[k] is None else str(o[k]).lower() if isinstance(o[k], bool) else o[k])
            for k in LAB_OPTIONS[game] if k in o}
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

def _cards(name: str, problems: list[str]) -> list[str]:
    out = []
    for word in re.split(r"[\s,]+", request.args.get(name, "").strip()):
        if not word:
            continue
        try:
            code = str(Card.parse(word))
        except MoveError as e:
            problems.append(str(e))
            continue
        if code not in out:
            out.append(code)
    return out


def _options(rules, names) -> tuple[dict, dict]:
    """(options for the engine, the raw values for the form) from the query string."""
    hints = typing.get_type_hints(rules.Options)
    chosen, raw = {}, {}
    for name in names:
        value = request.args.get(name)
        if value in (None, ""):
            continue
        raw[name] = value
        kind = hints[name]
        if value == "none":
            chosen[name] = None
        elif kind is bool:
            chosen[name] = value in ("true", "on", "1", "yes")
        elif int in getattr(kind, "__args__", (kind,)) and value.lstrip("-").isdigit():
            chosen[name] = int(value)
        else:
            chosen[name] = value
    return chosen, raw


def lab_url(game: str, **changes) -> str:
    """This lab's URL with some parameters changed (None removes one)."""
    args = {k: v for k, v in request.args.items()}
    for k, v in changes.items():
        if v in (None, "", []):
            args.pop(k, None)
        else:
            args[k] = ",".join(v) if isinstance(v, list) else v
    return url_for("rules.page", game=game, **args)


def one_grid(game: str, grids: dict[str, tuple[str, dict, list]]) -> dict:
    """The lab's one card grid: the position's card sets (name: label, links, cards on) it
    can tap into, the one chosen (``into``), and a link to switch to each. One grid, so the
    answer above it stays in view while tapping."""
    into = request.args.get("into")
    into = into if into in grids else next(iter(grids))
    label, links, on = grids[into]
    return {"label": label, "links": links, "on": on, "into": into,
            "switch": [(key, grids[key][0], lab_url(game, into=key)) for key in grids]}


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
        words = [("none" if c is None else "true" if c is True else "false" if c is False else str(c),
                  "yes" if c is True else "no" if c is False else labels.get(c, str(c).replace("_", " ")))
                 for c in choices] if choices else None
        default = defaults[name]
        current = raw.get(name, "none" if default is None else str(default).lower() if isinstance(default, bool)
                          else str(default))
        shown = dict(words).get(current, current.replace("_", " ")) if words else current
        rows.append({"name": name, "label": rules.OPTION_LABELS[name],
                     "help": rules.OPTION_HELP.get(name, ""), "choices": words, "value": current, "shown": shown})
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
    problems: list[str] = []
    chosen, raw = _options(rules, LAB_OPTIONS[game])
    try:
        opts = rules.resolve_options(chosen, None)
    except OptionError as e:
        problems.append(str(e))
        opts, raw = rules.resolve_options({}, None), {}
    lab = LABS[game](rules, opts, problems)
    context = {"game": game, "title": rules.TITLE, "rules": rules, "lab": lab, "problems": problems,
               "option_rows": option_rows(rules, LAB_OPTIONS[game], raw),
               "share": request.url if request.args else None}
    return render_template("rules/page.html", **context)


@bp.get("/<game>/words")
def words(game: str):
    """The rules in plain words, each section an anchor that refusals link to."""
    if game not in games.GAMES:
        abort(404)
    rules = games.get(game)
    return render_template("rules/words.html", game=game, title=rules.TITLE,
                           all_options=option_rows(rules, [f.name for f in fields(rules.Options)], {}))


def _tablanette(rules, opts, problems) -> dict:
    table, claim = _cards("table", problems), _cards("claim", problems)
    played = (_cards("card", problems) or [None])[0]
    if played in table:
        problems.append(f"{played} can't be both on the table and the card played.")
        played = None
    claim = [c for c in claim if c in table]
    out = {"table": table, "card": played, "claim": claim, "captures": None, "verdict": None,
           "section": "Tablanette 1.4",
           "grid": one_grid("tablanette", {
               "table": ("Table cards", {c: lab_url("tablanette", table=toggled(table, c), claim=[x for x in claim if x != c],
                                                    card=None if c == played else played) for c in map(str, rules.PACK)},
                         table),
               "card": ("Card played", {c: lab_url("tablanette", card=None if c == played else c,
                                                   table=[x for x in table if x != c]) for c in map(str, rules.PACK)},
                        [played] if played else [])}),
           "claim_links": {c: lab_url("tablanette", claim=toggled(claim, c)) for c in table},
           "last_link": lab_url("tablanette", last=None if request.args.get("last") == "1" else "1")}
    out["deal"] = _tablanette_deal(rules, opts, problems)
    layout = _cards("layout", problems)
    out["layout"] = ", ".join(layout)
    if layout:
        try:
            rules.apply(rules.start(["A", "B"], {"jack_is_12": opts.jack_is_12}), {"type": "layout", "cards": layout})
            out["layout_answer"] = {"ok": True}
        except MoveError as e:
            out["layout_answer"] = {"ok": False, "reason": str(e)}
    sa, sb, target = (request.args.get(k, "") for k in ("score_a", "score_b", "target"))
    out |= {"score_a": sa, "score_b": sb, "target": target or "251", "sweeper": request.args.get("sweeper", "")}
    if sa.isdigit() and sb.isdigit() and out["target"].isdigit():
        sweeper = out["sweeper"] if out["sweeper"] in ("A", "B") else None
        out["result"] = rules.verdict({"A": int(sa), "B": int(sb)}, int(out["target"]), opts.on_tie, sweeper) \
            or "play on"
    out["last"] = request.args.get("last") == "1"
    if played and not problems:
        out["captures"] = rules.capture_options(played, table, opts)
        if out["last"]:
            out["leftovers"] = [rules.leftovers(played, table, c) for c in out["captures"]]
        if claim:
            judged = rules.judge_capture(played, table, claim, opts)
            out["verdict"] = {"legal": True, "capture": judged} if judged else \
                {"legal": False, "reason": rules.explain_refusal(played, table, claim, opts)}
    return out


def _tablanette_deal(rules, opts, problems) -> dict:
    """A two-player deal scored from A's cards taken and counting cards (B has the rest)."""
    a_cards = request.args.get("a_cards", "")
    args = {k: request.args.get(k, "") for k in ("a_cards", "a_counters", "a_sweeps", "b_sweeps")}
    if not a_cards.isdigit():
        return {"args": args, "points": None}
    counters = [str(c) for c in rules.PACK if rules.card_points([str(c)], opts.point_scale)]
    mine = _cards("a_counters", problems)
    sweeps = {side: [int(x) for x in re.split(r"[\s,+]+", args[f"{side.lower()}_sweeps"]) if x.isdigit()]
              for side in ("A", "B")}
    move = {"type": "tally", "cards": {"A": int(a_cards), "B": len(rules.PACK) - int(a_cards)},
            "counters": {"A": mine, "B": [c for c in counters if c not in mine]},
            "sweeps": {k: v for k, v in sweeps.items() if v}}
    try:
        state = rules.apply(rules.start(["A", "B"], {"target": 10**6}), move)
    except MoveError as e:
        return {"args": args, "points": None, "error": str(e)}
    record = state.history[-1]
    return {"args": args, "points": record["points"], "record": record}


def _tute(rules, opts, problems) -> dict:
    trick, hand = _cards("trick", problems), _cards("hand", problems)
    trump = request.args.get("trump") or None
    players = request.args.get("players", "4")
    players = int(players) if players in ("3", "4", "5") else 4
    pack = [str(c) for c in rules.pack(players)]
    hand = [c for c in hand if c not in trick]
    out = {"trick": trick, "hand": hand, "trump": trump, "players": players, "pack": pack, "section": "Tute 2.4",
           "grid": one_grid("tute", {
               "trick": ("Trick so far", {c: lab_url("tute", trick=toggled(trick, c), hand=[x for x in hand if x != c])
                                          for c in pack}, trick),
               "hand": ("Player's hand", {c: lab_url("tute", hand=toggled(hand, c), trick=[x for x in trick if x != c])
                                              for c in pack}, hand)}),
           "suits": {s: lab_url("tute", trump=s) for s in ("S", "H", "D", "C", "none")},
           "player_counts": {n: lab_url("tute", players=str(n)) for n in (3, 4, 5)},
           "winner": None, "plays": None, "outcome": None, "last": request.args.get("last", "P1"),
           "totals": {f"P{i}": request.args.get(f"P{i}", "") for i in range(1, players + 1)}}
    marks = {p: request.args.get(f"m_{p}", "") for p in out["totals"]}
    lost = [p for p in request.args.getlist("lost") if p in marks]
    out |= {"marks": marks, "lost": lost, "game_end": None}
    if all(v.strip().isdigit() for v in marks.values()):
        after = {p: int(v) + (p in lost) for p, v in marks.items()}
        out["marks_after"] = after
        out["game_end"] = rules.game_end(after, opts.loss_limit) or {"losers": [], "winners": []}
    if trump == "none":
        trump = out["trump"] = None
    if any(c not in pack for c in trick + hand):
        problems.append(f"With {players} players the pack has no " +
                        " ".join(c for c in trick + hand if c not in pack) + " (Tute 2.2).")
        return out
    sung = [(x[0], int(x[1:])) for x in re.split(r"[\s,]+", request.args.get("sung", "").upper())
            if len(x) >= 3 and x[0] in "SHDC" and x[1:] in ("20", "40")]
    out["sung"] = request.args.get("sung", "")
    out["sang_now"] = request.args.get("sang_now") == "1"
    if hand and len(trick) in (0, players):  # a cante is sung between tricks
        out["cantes"] = [{"suit": x, "why": rules.cante_check(hand, x, trump, sung, out["sang_now"], players)}
                         for x in "SHDC" if f"K{x}" in hand or f"Q{x}" in hand]
    if trick:
        w = rules.trick_winner(trick, trump)
        out["winner"] = {"index": w, "card": trick[w], "points": rules.card_points(trick),
                         "marriages": rules.marriages(trick, trump, players, first_sets_trump=trump is None)}
    if hand and trick:
        out["plays"] = [{"card": c, "why": rules.why_illegal(hand, trick, trump, c, opts)}
                        for c in hand]
    totals = out["totals"]
    if all(v.strip().isdigit() for v in totals.values()):
        last = out["last"]
        try:
            out["outcome"] = rules.deal_outcome({p: int(v) for p, v in totals.items()},
                                                last if last in totals else "P1", opts)
        except (MoveError, OptionError) as e:
            problems.append(str(e))
    return out


def _tantony(rules, opts, problems) -> dict:
    trick = _cards("trick", problems)
    players = 3 if request.args.get("players") == "3" else 4
    pack = [str(c) for c in rules.pack(players)]
    seats = list(rules.COMPASS[:players]) if players == 4 else ["P1", "P2", "P3"]
    out = {"trick": trick, "players": players, "pack": pack, "section": "Tantony 3.3", "seats": seats,
           "quota": rules.trick_quota(players),
           "trick_links": {c: lab_url("tantony", trick=toggled(trick, c)) for c in pack},
           "player_counts": {n: lab_url("tantony", players=str(n), trick=None) for n in (3, 4)},
           "winner": None, "gift": None}
    if any(c not in pack for c in trick):
        problems.append("3-player Tantony has no 7s to 10s (Tantony 3.10).")
        return out
    if trick:
        w = rules.trick_winner(trick)
        low = rules.runt(trick)
        out["winner"] = {"index": w, "card": trick[w], "runt": low,
                         "value": rules.card_value(low, opts, players),
                         "hog": all(c[-1] != trick[0][-1] for c in trick[1:])}
        if players == 4 and len(trick) == 4:
            out["exchange"] = rules.exchange(trick)
            out["kept"] = rules.kept(trick)
    held = {s: request.args.get(f"held_{s}", "") for s in seats}
    out["held"] = held
    to = request.args.get("to")
    out["to"] = to
    if to in seats and all(v.isdigit() for v in held.values()):
        out["gift"] = rules.gift_refusal({s: int(v) for s, v in held.items()}, to, players)
        out["gift_asked"] = True
    ns, ew, after = (request.args.get(k, "") for k in ("ns", "ew", "after"))
    out |= {"ns": ns, "ew": ew, "after": after, "verdict": None}
    if ns.isdigit() and ew.isdigit() and after.isdigit() and int(after) >= 1:
        out["verdict"] = rules.verdict({"N & S": int(ns), "E & W": int(ew)}, int(after)) or "play on"
        out["line"] = rules.THRESHOLD * int(after)
    return out


def _hundred(rules, opts, problems) -> dict:
    played = (_cards("card", problems) or [None])[0]
    raw_total = request.args.get("total", "0").strip()
    total = int(raw_total) if raw_total.lstrip("-").isdigit() else None
    if total is None:
        problems.append(f"The total must be a number, not {raw_total!r}.")
    out = {"card": played, "total": total, "target": rules.target(opts), "section": "100/99/98 4.3",
           "card_links": {str(c): lab_url("hundred", card=str(c)) for c in rules.PACK_52}, "made": None}
    hand = _cards("hand", problems)
    out["hand"] = " ".join(hand)
    if hand and total is not None:
        out["lose"] = rules.lose_refusal(hand, total, opts) or "loses"
    players = _int_arg("players", 3, 2, 8)
    seat = _int_arg("seat", 1, 1, players)
    direction = -1 if request.args.get("direction") == "anticlockwise" else 1
    out |= {"players": players, "seat": seat, "direction": direction, "next": None}
    if played and total is not None:
        made, reverse = rules.effect(played, total, opts)
        out["made"] = [{"total": t, "safe": t <= out["target"]} for t in made]
        out["reverse"] = reverse
        nxt, turned = rules.turn_after(played, seat - 1, players, direction, opts)
        out["next"] = {"seat": nxt + 1, "direction": turned}
    return out


def _int_arg(name: str, default: int, low: int, high: int) -> int:
    value = request.args.get(name, "")
    return int(value) if value.isdigit() and low <= int(value) <= high else default


LABS = {"tablanette": _tablanette, "tute": _tute, "tantony": _tantony, "hundred": _hundred}
