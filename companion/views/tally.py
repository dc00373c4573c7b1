"""Tally a deal in one screen: for a deal played without entering every card. The screen
keeps its state in the form; every tap posts it back and the answer shows the deal's
totals as the engine would score them, or the engine's refusal. "Record" stores the
engine's ``tally`` move. The rules are the engine's; this module turns taps into a move."""

from __future__ import annotations

from flask import Blueprint, abort, redirect, render_template, request, url_for

from flask_htmx import make_response as htmx_response

from companion import games, htmx
from companion.errors import MoveError
from companion.store import Conflict
from companion.views.common import is_referee, load_game, store

bp = Blueprint("tally", __name__, url_prefix="/games/<game_id>/tally")


def _split(text: str) -> list[str]:
    return [x for x in (text or "").split(",") if x]


def _int(text, default=None):
    try:
        return int(str(text).strip())
    except (TypeError, ValueError):
        return default


# -- Tablanette: cards taken, counting cards, sweeps -------------------------------------

def _tablanette(rules, state, view, form, act, problems) -> dict:
    sides = [" & ".join(s) for s in view["sides"]]
    counters = [c for c in map(str, rules.PACK) if rules.card_points([c], state.options.point_scale)]
    owner = {c: _int(form.get(f"ctr.{c}"), 0) % len(sides) for c in counters}
    sweeps = [[int(b) for b in _split(form.get(f"sw.{i}", "")) if b.isdigit()] for i in range(len(sides))]
    taken = [_int(form.get(f"cards.{i}")) for i in range(len(sides) - 1)]
    played, swept = form.get("sb.card", ""), _split(form.get("sb.taken", ""))
    typed = [form.get(f"add.{i}", "")[:6] for i in range(len(sides))]  # kept until "Add" uses it
    kind, _, arg = act.partition(":")
    if kind == "cycle" and arg in owner:
        owner[arg] = (owner[arg] + 1) % len(sides)
    elif kind == "sb":
        if not played:
            played = arg
        elif arg == played:
            played, swept = "", []
        else:
            swept = [c for c in swept if c != arg] if arg in swept else swept + [arg]
    elif kind == "sbclear":
        played, swept = "", []
    elif kind == "sbadd" and _int(arg) is not None and played and swept:
        try:
            sweeps[_int(arg)].append(rules.sweep_of(played, swept, state.options).bonus)
            played, swept = "", []
        except MoveError as e:
            problems.append(str(e))
    elif kind == "addsweep" and _int(arg) is not None:
        bonus = _int(form.get(f"add.{arg}"))
        refusal = rules.sweep_bonus_refusal(bonus, state.options)
        if refusal:
            problems.append(refusal)
        else:
            sweeps[_int(arg)].append(bonus)
            typed[_int(arg)] = ""
    elif kind == "delsweep":
        i, _, k = arg.partition(".")
        if _int(i) is not None and _int(k) is not None and _int(k) < len(sweeps[_int(i)]):
            sweeps[_int(i)].pop(_int(k))
    known = [t for t in taken if t is not None]
    last = len(rules.PACK) - sum(known) if len(known) == len(taken) else None
    move = None
    if last is not None:
        move = {"type": "tally", "cards": dict(zip(sides, taken + [last])),
                "counters": {s: [c for c in counters if owner[c] == i] for i, s in enumerate(sides)},
                "sweeps": {s: sweeps[i] for i, s in enumerate(sides) if sweeps[i]}}
    else:
        problems.append("Enter the cards each side took.")
    return {"sides": sides, "counters": counters, "owner": owner, "sweeps": sweeps, "taken": taken,
            "last": last, "played": played, "swept": swept, "typed": typed, "move": move}


# -- Tute: card points, the last trick, cantes --------------------------------------------

def _tute(rules, state, view, form, act, problems) -> dict:
    names = view["players"]
    points = [_int(form.get(f"pts.{i}")) for i in range(len(names) - 1)]
    cantes = [[int(b) for b in _split(form.get(f"ct.{i}", "")) if b in ("20", "40")] for i in range(len(names))]
    last = form.get("last", "")
    kind, _, arg = act.partition(":")
    if kind == "last" and arg in names:
        last = arg
    elif kind in ("c20", "c40") and _int(arg) is not None:
        cantes[_int(arg)].append(int(kind[1:]))
    elif kind == "delcante" and _int(arg) is not None:
        cantes[_int(arg)] = cantes[_int(arg)][:-1]
    known = [p for p in points if p is not None]
    pack_points = rules.card_points([str(c) for c in rules.pack(len(names))])  # 120 (Tute 2.2)
    rest = pack_points - sum(known) if len(known) == len(points) else None
    move = None
    if rest is None:
        problems.append(f"Enter each player's card points (the last player's are the rest of {pack_points}).")
    elif last not in names:
        problems.append("Who took the last trick?")
    else:
        move = {"type": "tally", "card_points": dict(zip(names, points + [rest])), "last_trick": last,
                "marriages": {p: cantes[i] for i, p in enumerate(names) if cantes[i]}}
    return {"names": names, "points": points, "rest": rest, "pack_points": pack_points, "cantes": cantes,
            "last": last, "move": move}


# -- Tantony: each player's scoring cards -----------------------------------------------

def _tantony(rules, state, view, form, act, problems) -> dict:
    names = view["players"]
    pack = [str(c) for c in rules.pack(len(names))]
    owner = {c: _int(form.get(f"sc.{c}")) for c in pack}
    kind, _, arg = act.partition(":")
    if kind == "cycle" and arg in owner:  # nobody -> each player in turn -> nobody
        now = owner[arg]
        owner[arg] = 0 if now is None else (now + 1 if now + 1 < len(names) else None)
    scoring = {p: [c for c in pack if owner[c] == i] for i, p in enumerate(names)}
    return {"names": names, "pack": pack, "owner": owner, "move": {"type": "tally", "scoring": scoring}}


# -- 100 / 99 / 98: who lost ------------------------------------------------------------

def _hundred(rules, state, view, form, act, problems) -> dict:
    kind, _, arg = act.partition(":")
    live = [p for p in view["players"] if p not in view["eliminated"]]
    move = {"type": "tally", "loser": arg} if kind == "lost" and arg in live else None
    return {"players": live, "move": move, "record": move is not None}


TALLIES = {"tablanette": _tablanette, "tute": _tute, "tantony": _tantony, "hundred": _hundred}


@bp.route("", methods=["GET", "POST"])
def screen(game_id: str):
    row = load_game(game_id)
    if not is_referee(game_id):
        abort(403)
    rules = games.get(row["game"])
    view = rules.view(row["state"])
    if "tally" not in view["expects"]:
        return redirect(url_for("games.show", game_id=game_id), code=303)
    form = request.form if request.method == "POST" else request.args
    act = form.get("act", "")
    problems: list[str] = []
    tally = TALLIES[row["game"]](rules, row["state"], view, form, act, problems)
    preview, error, status = None, None, 200
    if tally["move"] is not None:
        try:
            after = rules.apply(row["state"], tally["move"])
            preview = after.history[-1] if after.history else None
            preview_view = rules.view(after)
        except MoveError as e:
            error, preview_view = str(e), None
        if (act == "record" or tally.get("record")) and error is None and not problems:
            try:
                store().play(game_id, _int(form.get("version"), -1), tally["move"])
            except Conflict:
                error = "Another phone changed the game first: go back to the game and check it."
            except MoveError as e:
                error = str(e)
            else:
                target = url_for("games.show", game_id=game_id)
                if htmx:
                    return htmx_response("", 204, redirect=target)
                return redirect(target, code=303)
            status = 422
    else:
        preview_view = None
    if act == "record" and (error or problems):
        status = 422  # refused: nothing stored, the reason is shown in place
    context = {"row": row, "view": view, "game": row["game"], "title": rules.TITLE, "t": tally,
               "preview": preview, "after": preview_view, "error": error, "problems": problems,
               "version": row["version"]}
    template = "play/tally_form.html" if htmx else "play/tally.html"
    return render_template(template, **context), status
