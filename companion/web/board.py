"""What the game page's board reads that every game works out the same way: the deal the
table has just finished (the screen that ends a deal), and who plays the next cards as far
as the rules make it certain (the taps waiting on an offline phone). Each adapter says
when its deal is over and whose turns follow; these do the rest."""

from __future__ import annotations

from itertools import cycle, islice
from typing import Any

#: The most turns a page is told in advance (more taps than that rarely wait offline).
AHEAD = 16


def finished_deal(view: dict[str, Any], between: bool) -> dict[str, Any] | None:
    """The record of the deal just finished (``view["history"]``'s last, as the engine keeps
    it and the log words it): while the game is over, or ``between`` that deal and the next
    deal's first move. None otherwise.

    >>> finished_deal({"history": [{"deal": 1}], "deal": 2, "result": None}, between=True)
    {'deal': 1}
    >>> finished_deal({"history": [{"deal": 1}], "deal": 2, "result": None}, between=False) is None
    True
    """
    history = view["history"]
    if not history:
        return None
    last: dict[str, Any] = history[-1]
    if view["result"] is not None or (between and last["deal"] == view["deal"] - 1):
        return last
    return None


def in_turn(players: list[str], first: str | None, count: int) -> list[str]:
    """``count`` players in seat order from ``first`` (none when nobody is to act).

    >>> in_turn(["Ann", "Ben", "Cat"], "Ben", 4)
    ['Ben', 'Cat', 'Ann', 'Ben']
    """
    if first is None or first not in players:
        return []
    i = players.index(first)
    return list(islice(cycle(players[i:] + players[:i]), min(count, AHEAD)))


def rest_of_trick(view: dict[str, Any]) -> list[str]:
    """The players still to play to the trick under way, from the one to act (a trick game's
    view: ``players``, ``to_act``, ``trick``); its winner, who leads next, only the server knows."""
    return in_turn(view["players"], view["to_act"], len(view["players"]) - len(view["trick"]))


def turns(players: list[str], breaks: list[str] | None = None) -> dict[str, list[str]]:
    """The page's data for waiting taps: ``players`` play the next cards in that order,
    unless one of the ``breaks`` (cards) is played: after it the order is not certain."""
    return {"players": players, "breaks": breaks or []}
