"""What Tablanette's board shows beyond the engine's view, worked out the same on the server and in the
phone (issue 45): when a deal has ended, who plays the next cards, what changes the grid, and
the lab's position. Pure: its web adapter (companion/web/tablanette.py) takes these as its own."""

from __future__ import annotations

from companion.board.common import DealWords, finished_deal, in_turn
from companion.board.common import turns as board_turns

#: How the engine's refusals cite a rule: "Tablanette 1.4" (the plain-words page's anchor).
CITED = "Tablanette"
#: The options the lab lets you change in place (the ones its answers depend on).
LAB_OPTIONS = (
    "max_group_size",
    "jack_is_12",
    "forced_capture",
    "ace_as_one",
    "sweep_aces",
    "point_scale",
    "most_cards_tie",
    "win_at",
    "on_tie",
)
#: Nothing below the grid: no record to send again.
RECORD = ()
#: The moves that change what the card picker shows: the four face-up cards to tick, then the
#: cards to tap.
PICKER = ("layout",)
#: What the shared pages call one of its deals.
DEAL = DealWords()


def ended(view: dict) -> dict | None:
    """The deal just finished, until the next deal's layout (or for good, the game over)."""
    return finished_deal(view, between="layout" in view["expects"])


def turns(view: dict) -> dict:
    """Who plays the next cards: in turn, to the end of the deal (RULES.md 1.2)."""
    if "play" not in view["expects"]:
        return board_turns(in_turn(view["players"], view["to_act"], 1))
    left = sum(view["hands"].values()) + view["stock"]
    return board_turns(in_turn(view["players"], view["to_act"], left))


def position(view: dict) -> dict:
    """The lab's query for the game's current position ("Rules question?")."""
    return {"table": ",".join(view["table"])}
