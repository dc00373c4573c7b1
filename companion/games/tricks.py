"""What trick games share: the trick winner, the duties of a player facing a trick, the
cards already played this deal, and the hindsight audit that proves a revoke once the
player's later cards are seen.

Tute Cabrón (RULES.md §2.4) and Tantony (§3.3) both use it. A game passes its rank
order as ``strength`` (rank -> number, higher beats lower) and its rules as flags;
Tantony is the special case with no trump and no duty to head.

Cards are canonical strings ("10D", "QH"); a suit is its letter.

>>> STRENGTH = {r: i for i, r in enumerate("2 4 5 6 7 J Q K 3 A".split())}
>>> trick_winner(["7S", "2D", "AS", "3S"], "D", STRENGTH)
1
>>> sorted(legal_plays(["3S", "2S", "AC", "5D"], ["7S"], "D", STRENGTH))
['3S']
>>> broken_duty(["3S", "2S", "AC", "5D"], ["7S"], "D", "2S", STRENGTH)
'head'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from companion.errors import N_, IllegalMove, Reason

#: The duty a player faced, in words a player reads ("Ben had to ...").
DUTY_TEXT = {
    "follow": N_("follow suit"),
    "head": N_("beat the best card of the suit led"),
    "trump": N_("play a trump when out of the suit led"),
    "overtrump": N_("beat the trump already in the trick"),
}

#: A game's duty check, as :func:`audit` calls it: ``check(hand, before, trump, card)``
#: is the duty that playing ``card`` breaks (a key of DUTY_TEXT), or None.
Check = Callable[[frozenset[str], tuple[str, ...], str | None, str], str | None]


def suit(card: str) -> str:
    return card[-1]


def rank(card: str) -> str:
    return card[:-1]


def trick_winner(trick: Iterable[str], trump: str | None, strength: Mapping[str, int]) -> int:
    """Index of the winning card: the highest trump if any, else the highest of the led suit.

    RULES.md §2.4 (and §3.3 with ``trump=None``): cards of other suits never win.
    """
    cards = list(trick)
    if not cards:
        raise ValueError("An empty trick has no winner")
    best = 0
    for i, card in enumerate(cards[1:], 1):
        top = cards[best]
        if suit(card) == suit(top):
            if strength[rank(card)] > strength[rank(top)]:
                best = i
        elif trump is not None and suit(card) == trump:
            best = i  # the first trump beats any plain card
        # a card of another suit (or a plain card after a trump) never wins
    return best


def _duty(
    hand: frozenset[str],
    trick: list[str],
    trump: str | None,
    strength: Mapping[str, int],
    must_head: bool,
    undertrump_required: bool,
    must_trump: bool,
) -> tuple[str | None, frozenset[str]]:
    """(duty in force, cards that meet it). RULES.md §2.4 ``legal_plays``, step by step.

    ``must_trump`` false leaves only the duty to follow (and to head): a player out of the
    suit led may play anything, trumps or not (Tute's "follow suit only" reading)."""
    if not trick:
        return None, hand  # leading is free
    led = suit(trick[0])
    follow = frozenset(c for c in hand if suit(c) == led)
    trumped = trump is not None and any(suit(c) == trump for c in trick)
    if follow:
        if not must_head or (trumped and led != trump):
            return "follow", follow  # §2.4: heading is pointless once the trick is trumped
        best = max((strength[rank(c)] for c in trick if suit(c) == led))
        above = frozenset(c for c in follow if strength[rank(c)] > best)
        return ("head", above) if above else ("follow", follow)
    trumps = frozenset(c for c in hand if trump is not None and suit(c) == trump)
    if not trumps or not must_trump:
        return None, hand  # void in the led suit and in trumps: anything
    if trumped:
        top = max(strength[rank(c)] for c in trick if suit(c) == trump)
        over = frozenset(c for c in trumps if strength[rank(c)] > top)
        if over:
            return "overtrump", over
        return ("trump", trumps) if undertrump_required else (None, hand)
    return "trump", trumps


def legal_plays(
    hand: Iterable[str],
    trick: Iterable[str],
    trump: str | None,
    strength: Mapping[str, int],
    must_head: bool = True,
    undertrump_required: bool = True,
    must_trump: bool = True,
) -> frozenset[str]:
    """The cards of ``hand`` a player may add to ``trick`` (RULES.md §2.4).

    >>> STRENGTH = {r: i for i, r in enumerate("2 4 5 6 7 J Q K 3 A".split())}
    >>> sorted(legal_plays(["AC", "5D"], ["7S"], "D", STRENGTH, must_trump=False))
    ['5D', 'AC']
    """
    return _duty(frozenset(hand), list(trick), trump, strength, must_head, undertrump_required, must_trump)[1]


def broken_duty(
    hand: Iterable[str],
    trick: Iterable[str],
    trump: str | None,
    card: str,
    strength: Mapping[str, int],
    must_head: bool = True,
    undertrump_required: bool = True,
    must_trump: bool = True,
) -> str | None:
    """Which duty playing ``card`` from ``hand`` breaks (a key of DUTY_TEXT), or None if legal."""
    hand, trick = frozenset(hand) | {card}, list(trick)
    duty, allowed = _duty(hand, trick, trump, strength, must_head, undertrump_required, must_trump)
    if card in allowed:
        return None
    led = suit(trick[0])
    if suit(card) != led and any(suit(c) == led for c in hand):
        return "follow"
    return duty


def played(done: list[dict[str, Any]], trick: list[list[Any]]) -> dict[str, int]:
    """Card -> trick number (1-based), for every card played this deal: in the finished
    tricks ``done`` (records with ``n`` and ``cards``) and in ``trick``, the one being
    played (``cards`` and ``trick`` are ``[[seat, card], ...]``).

    >>> played([{"n": 1, "cards": [[0, "7S"], [1, "AS"]]}], [[1, "2D"]])
    {'7S': 1, 'AS': 1, '2D': 2}
    """
    out = {c: t["n"] for t in done for _, c in t["cards"]}
    out.update({c: len(done) + 1 for _, c in trick})
    return out


def check_unplayed(card: str, done: list[dict[str, Any]], trick: list[list[Any]]) -> None:
    """Refuse ``card`` if it was already played this deal (see :func:`played`): nothing is
    drawn after the deal, so a card is played once, and a second time is a slip of entry."""
    seen = played(done, trick)
    if card in seen:
        raise IllegalMove(
            "already_played",
            "%(card)s was already played in trick %(trick)s of this deal.",
            card=card,
            trick=seen[card],
        )


@dataclass(frozen=True)
class Play:
    """One card as it was played: trick number (1-based), seat, card, the cards already
    in the trick, and the trump in force then (a 3-player Tute trump can come later)."""

    trick: int
    seat: int
    card: str
    before: tuple[str, ...]
    trump: str | None


def audit(plays: list[Play], known: Mapping[int, Iterable[str]], check: Check) -> list[dict[str, Any]]:
    """Every play now proven illegal, with the card that proves it (RULES.md §2.11, §3.14).

    Nothing is drawn after the deal, so a player's hand when they played ``p`` held at
    least ``p``, every card they played later, and every card still known to be in
    their hand (``known``: a turned trump, declared cantes). If ``p`` breaks a duty
    against even that part of the hand, it breaks it against the whole hand: every duty
    here only gets stricter as a hand grows. At the end of a deal that part is the whole
    hand, so the audit is then exact and no revoke escapes it.

    ``check(hand, before, trump, card)`` is the game's :func:`broken_duty`.
    Each revoke is ``{"trick", "seat", "card", "duty", "proof"}``, in play order.
    """
    found = []
    seen_after = {seat: list(known.get(seat, ())) for seat in {p.seat for p in plays}}
    # Walk backwards so each play sees the cards its player played after it.
    for p in reversed(plays):
        after = seen_after[p.seat]
        duty = check(frozenset(after), p.before, p.trump, p.card)
        if duty is not None:
            proof = _proof(after, p, check)
            found.append({"trick": p.trick, "seat": p.seat, "card": p.card, "duty": duty, "proof": proof})
        after.insert(0, p.card)
    found.reverse()
    return found


def revokes(
    plays: list[Play],
    known: Mapping[int, Iterable[str]],
    check: Check,
    players: list[str],
    word: Callable[[dict[str, Any]], Reason],
) -> list[dict[str, Any]]:
    """:func:`audit`'s revokes, each with its ``player``'s name and its ``reason`` as data
    (:meth:`Reason.as_data`): ``word(revoke)`` says it (the game words each duty).

    >>> check = lambda hand, before, trump, card: broken_duty(hand, before, None, card, {"7": 0, "A": 1})
    >>> word = lambda r: Reason("revoke", "%(player)s played %(card)s, holding %(proof)s.", **r)
    >>> r = revokes([Play(1, 0, "7D", ("AS",), None), Play(2, 0, "7S", (), None)], {}, check, ["Ann"], word)
    >>> str(Reason.from_json(r[0]["reason"]))
    'Ann played 7D, holding 7S.'
    """
    found = audit(plays, known, check)
    for r in found:
        r["player"] = players[r["seat"]]
        r["reason"] = word(r).as_data()
    return found


def _proof(after: list[str], p: Play, check: Check) -> str:
    """The first of the player's later (or known) cards they could have played instead: there
    is one, as a broken duty is one that some card of the hand meets."""
    hand = frozenset(after) | {p.card}
    return next(card for card in after if check(hand, p.before, p.trump, card) is None)
