"""What Tute's board shows beyond the engine's view, worked out the same on the server and in the
phone (issue 45): when a deal has ended, who plays the next cards, what changes the grid, and
the lab's position. Pure: its web adapter (companion/web/tute.py) takes these as its own."""

from __future__ import annotations

from companion.board.common import DealWords, finished_deal, in_turn, rest_of_trick
from companion.board.common import turns as board_turns

#: How the engine's refusals cite a rule: "Tute 1.4" (the plain-words page's anchor).
CITED = "Tute"
#: The options the lab lets you change in place (the ones its answers depend on).
LAB_OPTIONS = (
    "duties",
    "undertrump_required",
    "must_head",
    "win_threshold",
    "triple_tie",
    "over_100_loses",
    "loss_limit",
)

#: What the record below the grid (play/tute/_record.html) shows: sent again when one changes.
RECORD = ("result", "tricks", "revokes")
#: The moves that change what the card picker shows: the turned card, then the cards played
#: (not the cante, open after each trick).
PICKER = ("trump",)
#: What the shared pages call one of its deals.
DEAL = DealWords()


def ended(view: dict) -> dict | None:
    """The deal just finished, until the next deal's first card (the turned one, with 4-5 players)."""
    return finished_deal(view, between=view["trick_number"] == 1 and not view["trick"] and not view["turned"])


def turns(view: dict) -> dict:
    """Who plays the next cards: in turn to the end of the trick, whose winner leads the
    next (RULES.md 2.4); the dealer turns the trump card."""
    if "play" not in view["expects"]:
        return board_turns(in_turn(view["players"], view["to_act"], 1))
    return board_turns(rest_of_trick(view))


def position(view: dict) -> dict:
    """The lab's query for the game's current position ("Rules question?")."""
    trick = ",".join(c for _, c in view["trick"])
    return {"trump": view["trump"] or "none", "trick": trick, "players": len(view["players"])}
