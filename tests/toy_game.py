"""Ten, a toy game written from the engine contract's text alone (companion/games/contract.py,
DESIGN.md "The engine contract"), for tests/test_store_contract.py to play through the
store: if the store needed anything the contract does not say, this game would not have
it. It borrows nothing from the real games but the contract's own types (``Start``,
``Reason``, the refusals, ``FIGURES``).

The players take turns adding 1, 2 or 3 to a running total; whoever brings it to the
target (10) or past it takes the deal, and whoever takes two deals wins.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from companion.errors import IllegalMove, InvalidMove, OptionError, Reason
from companion.games import FIGURES
from companion.games.common import Start

NAME = "toy"
TITLE = "Ten"
MIN_PLAYERS = 2
MAX_PLAYERS = 4
SEATING = "Any order."


@dataclass(frozen=True)
class Options:
    target: int = 10
    deals_to_win: int = 2


OPTION_NAMES = ("target", "deals_to_win")
OPTION_LABELS = {"target": "Target", "deals_to_win": "Deals to win"}
OPTION_HELP = {"target": "The total that takes a deal.", "deals_to_win": "Deals a player must take."}
CHOICES: dict[str, tuple[Any, ...]] = {}
CHOICE_LABELS: dict[str, dict[Any, str]] = {}
STARTS = {"usual": Start("Ten", "Two deals of ten.")}


@dataclass
class State:
    options: Options
    players: list[str]
    dealer: int = 0
    turn: int = 1
    total: int = 0
    wins: dict[str, int] = field(default_factory=dict)  # deals taken (the store keeps the last record only)
    history: list[dict[str, Any]] = field(default_factory=list)
    result: dict[str, Any] | None = None


def resolve_options(options: Any, players: int | None = None) -> Options:
    options = options or {}
    if not isinstance(options, dict) or set(options) - set(OPTION_NAMES):
        raise OptionError("toy_options", "Ten takes only target and deals_to_win")
    if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in options.values()):
        raise OptionError("toy_option", "Ten's options are whole numbers above 0")
    return Options(**options)


def start(players: list[str], options: dict[str, Any] | None = None) -> State:
    if not isinstance(players, list) or not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise OptionError("toy_players", "Ten is for 2 to 4 players")
    return State(resolve_options(options, len(players)), list(players), wins=dict.fromkeys(players, 0))


def apply(state: State, move: dict[str, Any]) -> State:
    if move.get("type") != "add":
        raise InvalidMove("toy_move", "Ten's only move is add")
    if state.result is not None:
        raise IllegalMove("toy_over", "The game is over.")
    n = move.get("n")
    if n not in (1, 2, 3) or isinstance(n, bool):
        raise IllegalMove("toy_n", "Add 1, 2 or 3, not %(n)s.", n=str(n))
    if "player" in move and move["player"] != state.players[state.turn]:
        raise IllegalMove("toy_turn", "It is %(player)s's turn.", player=state.players[state.turn])
    new = dataclasses.replace(state, history=list(state.history), total=state.total + n, wins=dict(state.wins))
    player = state.players[state.turn]
    if new.total >= state.options.target:
        deal = state.history[-1]["deal"] + 1 if state.history else 1
        new.history.append({"deal": deal, "points": {p: int(p == player) for p in state.players}})
        new.wins[player] += 1
        new.total, new.dealer = 0, (state.dealer + 1) % len(state.players)
        new.turn = (new.dealer + 1) % len(state.players)
        if new.wins[player] >= state.options.deals_to_win:
            new.result = {"winners": [player], "losers": [p for p in state.players if p != player], "draw": False}
    else:
        new.turn = (state.turn + 1) % len(state.players)
    return new


def expects(state: State) -> list[str]:
    return [] if state.result is not None else ["add"]


def to_act(state: State) -> int | None:
    return None if state.result is not None else state.turn


def sides(state: State) -> list[list[str]]:
    return [[p] for p in state.players]


def view(state: State) -> dict[str, Any]:
    deal = state.history[-1]["deal"] + 1 if state.history else 1
    return {
        "game": NAME,
        "players": list(state.players),
        "sides": sides(state),
        "dealer": state.players[state.dealer],
        "deal": deal,
        "expects": expects(state),
        "to_act": None if state.result is not None else state.players[state.turn],
        "seen": [],
        "history": [dict(r) for r in state.history],
        "result": state.result,
        "options": dataclasses.asdict(state.options),
        "total": state.total,
        "scores": dict(state.wins),
    }


def dump(state: State) -> dict[str, Any]:
    return dataclasses.asdict(state)


def load(data: dict[str, Any]) -> State:
    return State(**{**data, "options": Options(**data["options"])})


def narrate(state: State, move: dict[str, Any]) -> list[Reason]:
    """From the state the move led to: who added what, and a deal taken."""
    if state.total:
        adder = state.players[(state.turn - 1) % len(state.players)]
        return [Reason("toy_added", "%(player)s added %(n)s: %(total)s.", player=adder, n=move["n"], total=state.total)]
    last = state.history[-1]
    taker = next(p for p, won in last["points"].items() if won)
    return [
        Reason("toy_added_last", "%(player)s added %(n)s.", player=taker, n=move["n"]),
        Reason("toy_took", "%(player)s takes deal %(deal)s.", player=taker, deal=last["deal"]),
    ]


def figures(view: dict[str, Any]) -> dict[str, dict[str, int]]:
    out = {}
    for side in view["sides"]:
        label = " & ".join(side)
        counted = dict.fromkeys(FIGURES, 0)
        counted["deals"] = len(view["history"])
        counted["points"] = sum(r["points"].get(label, 0) for r in view["history"])
        out[label] = counted
    return out
