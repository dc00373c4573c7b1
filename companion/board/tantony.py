"""What Tantony's board shows beyond the engine's view, worked out the same on the server and in the
phone (issue 45): when a deal has ended, who plays the next cards, what changes the grid, and
the lab's position. Pure: its web adapter (companion/web/tantony.py) takes these as its own."""

from __future__ import annotations

from companion.board.common import DealWords, finished_deal, in_turn, rest_of_trick
from companion.board.common import turns as board_turns

#: How the engine's refusals cite a rule: "Tantony 1.4" (the plain-words page's anchor).
CITED = "Tantony"
#: The options the lab lets you change in place (the ones its answers depend on).
LAB_OPTIONS = ("value_scale", "three_player_values", "partnership_mode", "sudden_death_last_deal")

#: What the record below the grid (play/tantony/_record.html) shows: sent again when one changes.
RECORD = ("result", "trick_number", "last_trick", "revokes", "players", "scoring", "points")
#: The moves that change what the card picker shows: the grid folds under the known hands, and
#: opens while a trick waits to be given.
PICKER = ("play", "give")
#: What the shared pages call one of its deals.
DEAL = DealWords()


def ended(view: dict) -> dict | None:
    """The deal just finished, until the next deal's first card."""
    return finished_deal(view, between=view["trick_number"] == 1 and not view["trick"])


def turns(view: dict) -> dict:
    """Who plays the next cards: in turn to the end of the trick, whose winner gives it
    away (RULES.md 3.3, 3.4). When everyone turns up their last card (the Penguin rule),
    only the one to act is named."""
    if "play" not in view["expects"] or view["revealing"]:
        return board_turns(in_turn(view["players"], view["to_act"], 1))
    return board_turns(rest_of_trick(view))


def position(view: dict) -> dict:
    """The lab's query for the game's current position ("Rules question?")."""
    seats = ["N", "E", "S", "W"] if len(view["players"]) == 4 else ["P1", "P2", "P3"]
    trick = ",".join(c for _, c in view["trick"])
    return {"trick": trick, "players": len(view["players"])} | {
        f"held_{s}": view["held"][p] for s, p in zip(seats, view["players"])
    }
