"""What 100/99/98's board shows beyond the engine's view, worked out the same on the server and in the
phone (issue 45): when a deal has ended, who plays the next cards, what changes the grid, and
the lab's position. Pure: its web adapter (companion/web/hundred.py) takes these as its own."""

from __future__ import annotations

import re

from companion.board.common import AHEAD, DealWords, finished_deal
from companion.board.common import turns as board_turns
from companion.errors import N_
from companion.games import hundred as engine

#: How the engine's refusals cite a rule: "100/99/98 1.4" (the plain-words page's anchor).
CITED = "100/99/98"
#: The options the lab lets you change in place (the ones its answers depend on).
LAB_OPTIONS = ("variant", "floor_at_zero", "ace_high_99", "itoya_black_ace", "reverse_with_two_players")

#: Nothing below the grid: no record to send again.
RECORD = ()
#: The moves that change what the card picker shows: none, the grid is the same all hand long
#: (the hand a player shows is asked for by its own request, answered with the whole picker).
PICKER = ()
#: 100/99/98 counts hands (第3回), not deals.
DEAL = DealWords(
    number=N_("Hand %(n)s"),
    tally=N_("Tally hand %(n)s"),
    tally_instead=N_("Tally this hand instead"),
    tally_how=N_("Enter who lost the hand."),
    losses=N_("hands lost %(list)s"),
)


def ended(view: dict) -> dict | None:
    """The hand just lost, until the next hand's first card."""
    return finished_deal(view, between=view["pile"] == 0)


def turns(view: dict) -> dict:
    """Who plays the next cards: the playing order, round and round, as long as no card
    can end the hand (every card that adds the most still keeps the total in) and none
    changes the order or asks which total: those cards are the breaks (RULES.md 4.2, 4.3)."""
    plain = {}
    options = engine.resolve_options(view["options"])  # once, not once a card of the pack
    for code in view["pack"]:
        rule = engine.rule_of(code, options)
        if len(rule.ops) == 1 and re.fullmatch(r"\+\d+", rule.ops[0]) and not rule.turn:
            plain[code] = int(rule.ops[0])
    most = max(plain.values(), default=0)
    sure = (view["target"] - view["total"]) // most if most else 0
    order = view["order"] if "play" in view["expects"] else view["order"][:1]
    return board_turns(
        [order[i % len(order)] for i in range(min(sure, AHEAD) + 1)] if order else [],
        breaks=sorted(set(view["pack"]) - set(plain)),
    )


def position(view: dict) -> dict:
    """The lab's query for the game's current position ("Rules question?")."""
    return {"total": view["total"]}
