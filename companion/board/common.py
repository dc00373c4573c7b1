"""What the game page's board reads that every game works out the same way: the deal the
table has just finished (the screen that ends a deal), and who plays the next cards as far
as the rules make it certain (the taps waiting on an offline phone). Each adapter says
when its deal is over and whose turns follow; these do the rest."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import cycle, islice
from typing import Any

from companion.errors import N_


@dataclass(frozen=True)
class DealWords:
    """What the pages every game shares (the tally screen, the list of games) call one of
    its deals, as messages the page translates: a deal, or for 100/99/98 a hand (第3回)."""

    number: str = N_("Deal %(n)s")
    tally: str = N_("Tally deal %(n)s")
    tally_instead: str = N_("Tally this deal instead")
    tally_how: str = N_("Enter the deal as it ended; the totals follow every tap.")
    #: The players' losses so far (Tute's loss marks; 100's hands lost), in a game's status.
    losses: str = N_("loss marks %(list)s")


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
