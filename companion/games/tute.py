"""Tute Cabrón: Spanish Tute for 3, 4 or 5 players, where the top scorer loses (RULES.md §2).

Hands are hidden at a real table, but nothing is drawn after the deal, so every card a
player plays later was in their hand earlier. The engine accepts each card unless what
is already known proves it wrong, and audits every earlier play of that player again:
a revoke is flagged the moment a later card proves it, and by the end of the deal every
trick has been checked against the whole hand (RULES.md §2.11).

>>> s = start(["Ann", "Ben", "Cat", "Dan"])          # Ann deals; Ben leads
>>> s = apply(s, {"type": "trump", "card": "5D"})     # Ann's last card, turned: oros
>>> for card in ["7S", "2D", "AS", "3S"]:
...     s = apply(s, {"type": "play", "card": card})
>>> v = view(s)
>>> v["trump"], v["to_act"], v["points"]["Cat"]
('D', 'Cat', 21)

Decisions where RULES.md leaves the engine a choice (besides those it lists, B1-B11):

* **Refusing versus flagging.** A card is refused at once (``IllegalMove``, the card is
  taken back, RULES.md B11) only when the known cards prove it wrong: the dealer's
  turned trump, declared cante cards, or a card already played or known to be in
  another hand. Everything else is accepted and audited in hindsight; a revoke proven
  later is flagged on its trick, with the card that proves it.
* **When the revoke penalty applies.** The deal is played to its end (so every trick
  is audited) and the penalty replaces the deal's outcome then: ``loss_mark`` gives
  each offender one loss mark and nobody else one; ``replay_deal`` scores nothing and
  the same dealer deals again; ``none`` only flags.
* **Known cards fill a hand.** A player whose remaining cards are all known (the
  dealer's last card is the turned trump) must play one of them.
* **A declaration** needs both cards unplayed and not known to be in another hand; a
  40 after the same player's 20 in the same deal is refused (the lock rule: holding the
  trump pair now proves they held it then).
* **Game end.** The players with the fewest loss marks are listed as ``winners``; those
  at ``loss_limit`` or more are the ``losers`` (jointly, B10).
* ``spanish_names`` only changes how the app names the cards (oros, copas, espadas,
  bastos; rey, caballo, sota); the engine always uses French codes (RULES.md §0.2).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from companion.cards import PACK_36_NO_2, PACK_40, Card
from companion.errors import IllegalMove, InvalidMove, OptionError
from companion.games import tricks
from companion.games.common import (
    Move,
    Record,
    Start,
    apply_move,
    check_players,
    clone,
    dealer_seat,
    dump_state,
    load_state,
    options_dict,
    read_options,
)
from companion.games.common import (
    is_int as _is_int,
)

NAME = "tute"
TITLE = "Tute Cabrón"
MIN_PLAYERS, MAX_PLAYERS = 3, 5
#: How the players sit, for the new-game form (RULES.md §2.3: play goes anticlockwise).
SEATING = "In the order of play: anticlockwise, so each player's right-hand neighbour plays next."

#: RULES.md §2.2: rank order high to low A 3 K Q J 7 6 5 4 2, as strengths.
STRENGTH = {r: i for i, r in enumerate(("2", "4", "5", "6", "7", "J", "Q", "K", "3", "A"))}
#: RULES.md §2.2 card points; the pack holds 120.
POINTS = {"A": 11, "3": 10, "K": 4, "Q": 3, "J": 2}
LAST_TRICK = 10
CANTE, CANTE_TRUMP = 20, 40
HAND_SIZE = {3: 12, 4: 10, 5: 8}
SPANISH_SUITS = {"D": "oros", "H": "copas", "S": "espadas", "C": "bastos"}
SPANISH_RANKS = {"K": "rey", "Q": "caballo", "J": "sota"}

#: One-tap starts on the new-game form (the first is the usual game).
STARTS = {
    "tute": Start("Tute Cabrón", "Six loss marks end the game; with 4-5 players 101 wins a deal"),
    "relaxed": Start(
        "No undertrumping", "A player who cannot beat the trump played may discard", {"undertrump_required": False}
    ),
    "ludoteka": Start("Ludoteka's rules", "A player who takes no trick also loses", {"no_trick_loses": True}),
}

#: Each option's name on screen.
OPTION_LABELS = {
    "loss_limit": "Loss marks that end the game",
    "undertrump_required": "Trump even when it cannot win",
    "must_head": "Beat the best card when able",
    "win_threshold": "Points that win a deal (4-5 players)",
    "triple_tie": "Three players level",
    "no_trick_loses": "No trick taken loses",
    "over_100_loses": "Over 100 loses (3 players)",
    "allow_declarations": "Cantes (4-5 players)",
    "revoke_penalty": "A proven revoke costs",
    "spanish_names": "Spanish card names",
}

OPTION_HELP = {
    "loss_limit": "The game ends when a player has this many loss marks.",
    "undertrump_required": "Out of the suit led and unable to beat the trump already played: must still play a trump.",
    "must_head": "Must beat the best card of the suit led when able (off: just follow suit).",
    "win_threshold": "4-5 players: anyone reaching this total wins the deal and all the others lose.",
    "triple_tie": "3 players all level: who loses.",
    "no_trick_loses": "A player who takes no trick also loses the deal.",
    "over_100_loses": "3 players: anyone over 100 loses instead.",
    "allow_declarations": "4-5 players: a trick's winner may show a king and queen (cante) before leading.",
    "revoke_penalty": "What a proven revoke costs: one loss mark for the offender, nothing, or a replayed deal.",
    "spanish_names": "Name the cards as a Spanish pack: oros, copas, espadas, bastos; rey, caballo, sota.",
}
CHOICES = {
    "triple_tie": ("all_lose", "last_trick_rule", "no_loser"),
    "revoke_penalty": ("loss_mark", "none", "replay_deal"),
}
#: How each choice reads on screen (the values above are the API's codes).
CHOICE_LABELS = {
    "triple_tie": {
        "all_lose": "All three lose",
        "last_trick_rule": "The last trick decides",
        "no_loser": "Nobody loses",
    },
    "revoke_penalty": {
        "loss_mark": "One loss mark for the offender",
        "none": "Nothing",
        "replay_deal": "The deal is played again",
    },
}


@dataclass(frozen=True)
class Options:
    """RULES.md §2.8 (plus ``revoke_penalty`` from B11 and the display choice)."""

    loss_limit: int = 6
    undertrump_required: bool = True
    must_head: bool = True
    win_threshold: int = 101
    triple_tie: str = "all_lose"
    no_trick_loses: bool = False
    over_100_loses: bool = False
    allow_declarations: bool = True
    revoke_penalty: str = "loss_mark"
    spanish_names: bool = False


OPTION_NAMES = tuple(Options.__dataclass_fields__)


def resolve_options(options: dict[str, Any] | Options | None, players: int | None = None) -> Options:
    """Validate an options dict (RULES.md §2.8) into :class:`Options`.

    >>> resolve_options({"loss_limit": 4}, 4).loss_limit
    4
    >>> resolve_options({"over_100_loses": True}, 4)
    Traceback (most recent call last):
    ...
    companion.errors.OptionError: over_100_loses is a 3-player rule
    """
    if isinstance(options, Options):
        return options
    given, count = read_options(options, players, sys.modules[__name__], "Tute Cabrón")
    defaults = Options()
    for name, least in (("loss_limit", 1), ("win_threshold", 1)):
        value = given.get(name, getattr(defaults, name))
        if not _is_int(value) or value < least:
            raise OptionError(f"{name} must be a whole number of {least} or more (not {value!r})")
    if given.get("over_100_loses") and count is not None and count != 3:
        raise OptionError("over_100_loses is a 3-player rule")
    return Options(**given)


def _options_of(options: dict[str, Any] | Options | None) -> Options:
    return options if isinstance(options, Options) else resolve_options(options)


def card_points(cards: Iterable[str | Card]) -> int:
    """RULES.md §2.2: A 11, 3 10, K 4, Q 3, J 2, the rest 0."""
    return sum(POINTS.get(tricks.rank(str(c)), 0) for c in cards)


def _code(card: str | Card) -> str:
    return str(Card.parse(card))


def legal_plays(
    hand: Iterable[str | Card],
    trick: Iterable[str | Card],
    trump: str | None,
    options: dict[str, Any] | Options | None = None,
) -> set[str]:
    """The cards of ``hand`` that may be added to ``trick`` under ``trump`` (RULES.md §2.4).

    >>> sorted(legal_plays(["AC", "4D", "2D"], ["7S", "5D"], "D"))
    ['2D', '4D']
    >>> sorted(legal_plays(["AC", "4D", "2D"], ["7S", "5D"], "D", {"undertrump_required": False}))
    ['2D', '4D', 'AC']
    """
    o = _options_of(options)
    return set(
        tricks.legal_plays(
            [_code(c) for c in hand],
            [_code(c) for c in trick],
            _suit_or_none(trump),
            STRENGTH,
            o.must_head,
            o.undertrump_required,
        )
    )


def why_illegal(
    hand: Iterable[str | Card],
    trick: Iterable[str | Card],
    trump: str | None,
    card: str | Card,
    options: dict[str, Any] | Options | None = None,
) -> str | None:
    """Why ``card`` may not be added to ``trick`` from ``hand``, in words, or None if it may.

    >>> why_illegal(["3S", "2S", "AC", "5D"], ["7S"], "D", "2S")
    'must beat the best card of the suit led: 3S does (Tute 2.4)'
    """
    o = _options_of(options)
    held, before, card = [_code(c) for c in hand], [_code(c) for c in trick], _code(card)
    trump = _suit_or_none(trump)
    duty = tricks.broken_duty(held, before, trump, card, STRENGTH, o.must_head, o.undertrump_required)
    if duty is None:
        return None
    better = sorted(tricks.legal_plays(set(held) | {card}, before, trump, STRENGTH, o.must_head, o.undertrump_required))
    return f"must {tricks.DUTY_TEXT[duty]}: {' '.join(better)} {'does' if len(better) == 1 else 'do'} (Tute 2.4)"


def trick_winner(trick: Iterable[str | Card], trump: str | None) -> int:
    """Index of the card that wins ``trick`` (RULES.md §2.4).

    >>> trick_winner(["KH", "QH", "3H", "2C"], "D")
    2
    """
    return tricks.trick_winner([_code(c) for c in trick], _suit_or_none(trump), STRENGTH)


_SUIT_WORDS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"} | {v: k for k, v in SPANISH_SUITS.items()}


def _suit_or_none(trump: object) -> str | None:
    """A suit letter from S/H/D/C (any case), a suit symbol or a Spanish suit name."""
    if trump in (None, "", "none"):
        return None
    word = str(trump).strip()
    letter = _SUIT_WORDS.get(word.lower(), word.upper())
    if letter not in ("S", "H", "D", "C"):
        raise InvalidMove(f"{trump!r} is not a suit: use S, H, D or C")
    return letter


def marriages(
    trick: Iterable[str | Card], trump: str | None, players: int, first_sets_trump: bool = False
) -> list[Record]:
    """In-trick cantes (RULES.md §2.5): each K+Q of one suit in the trick scores 20, or 40
    in trumps; with 3 players the first pair of the deal scores 40 and names the trump.

    >>> marriages(["KH", "QH", "KC", "QC"], "D", 4)
    [{'suit': 'H', 'points': 20}, {'suit': 'C', 'points': 20}]
    """
    cards = {_code(c) for c in trick}
    out: list[Record] = []
    for s in "SHDC":
        if f"K{s}" in cards and f"Q{s}" in cards:
            if players == 3 and first_sets_trump and not out:
                out.append({"suit": s, "points": CANTE_TRUMP, "sets_trump": True})
            else:
                out.append({"suit": s, "points": CANTE_TRUMP if s == trump else CANTE})
    return out


def game_end(marks: dict[str, int], loss_limit: int = 6) -> Record | None:
    """The game's result once someone has ``loss_limit`` marks, else None (RULES.md §2.7):
    every player at the limit loses (jointly, B10); the fewest marks are listed best.

    >>> game_end({"P1": 6, "P2": 3, "P3": 6, "P4": 2})["losers"]      # TU-50
    ['P1', 'P3']
    """
    if max(marks.values()) < loss_limit:
        return None
    fewest = min(marks.values())
    return {
        "winners": [p for p, m in marks.items() if m == fewest],
        "losers": [p for p, m in marks.items() if m >= loss_limit],
        "draw": False,
    }


def deal_outcome(
    totals: dict[str, int],
    last_trick: str,
    options: dict[str, Any] | Options | None = None,
    tricks_taken: dict[str, int] | None = None,
) -> Record:
    """Who loses a deal (RULES.md §2.6), and why, in words.

    ``totals`` are in seat (play) order. Returns ``{"losers": [...], "reason": str}``.

    >>> deal_outcome({"P1": 50, "P2": 50, "P3": 20, "P4": 10}, "P4")["losers"]
    ['P1']
    """
    o = _options_of(options)
    names = list(totals)
    n = len(names)
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise OptionError("Tute Cabrón is for 3, 4 or 5 players")
    if last_trick not in totals:
        raise InvalidMove(f"{last_trick!r} is not one of the players")
    if n == 3:
        losers, reason = _three_player_losers(totals, last_trick, o)
    else:
        losers, reason = _losers(totals, last_trick, o.win_threshold)
    if o.no_trick_loses and tricks_taken is not None:
        empty = [p for p in names if tricks_taken.get(p, 0) == 0 and p not in losers]
        if empty:
            losers = [p for p in names if p in losers or p in empty]
            reason += f"; {_and(empty)} took no trick and lose{'s' if len(empty) == 1 else ''} too (no_trick_loses)"
    return {"losers": losers, "reason": reason}


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _losers(totals: dict[str, int], last: str, threshold: int) -> tuple[list[str], str]:
    names = list(totals)
    won = [p for p in names if totals[p] >= threshold]
    if won:
        return ([p for p in names if p not in won], f"{_and(won)} reached {threshold}: everyone else loses (Tute 2.6)")
    top = max(totals.values())
    tied = [p for p in names if totals[p] == top]
    if len(tied) == 1:
        return tied, f"{tied[0]} has the highest total, {top} (Tute 2.6)"
    if last in tied:
        return [last], f"{_and(tied)} tie on {top}; {last} took the last trick and loses (Tute 2.6)"
    start = names.index(last)
    first = next(
        names[(start + k) % len(names)] for k in range(1, len(names)) if names[(start + k) % len(names)] in tied
    )
    return [first], (
        f"{_and(tied)} tie on {top}; {first} is the first of them after {last}, who took the last trick (Tute 2.6)"
    )


def _three_player_losers(totals: dict[str, int], last: str, o: Options) -> tuple[list[str], str]:
    names = list(totals)
    if o.over_100_loses:
        over = [p for p in names if totals[p] > 100]
        if over:
            return over, f"{_and(over)} passed 100 and lose{'s' if len(over) == 1 else ''} (over_100_loses)"
    order = sorted(names, key=lambda p: -totals[p])
    hi, mid, lo = (totals[p] for p in order)
    if hi == mid == lo:
        if o.triple_tie == "all_lose":
            return names, f"All three tie on {hi}: all lose (Tute 2.6, triple_tie)"
        if o.triple_tie == "no_loser":
            return [], f"All three tie on {hi}: nobody loses (triple_tie)"
        return [last], f"All three tie on {hi}; {last} took the last trick and loses (triple_tie)"
    if hi == mid:
        tied = [p for p in names if totals[p] == hi]
        return tied, f"{_and(tied)} tie above {order[2]}: both lose (Tute 2.6)"
    if mid == lo:
        return [order[0]], f"{order[1]} and {order[2]} tie below {order[0]}, so {order[0]} loses (Tute 2.6)"
    return [order[1]], f"{order[1]} has the middle total, {mid} (Tute 2.6, 3 players)"


# ---------------------------------------------------------------------------
# The game
# ---------------------------------------------------------------------------


@dataclass
class State:
    options: Options
    players: list[str]
    dealer: int
    deal: int = 1
    trump: str | None = None
    turned: str | None = None  # the dealer's turned card (4-5 players)
    leader: int = 0  # who leads the trick being played
    trick: list[list[Any]] = field(default_factory=list)  # [[seat, card], ...]
    tricks: list[Record] = field(default_factory=list)  # finished tricks of this deal
    known: list[list[str]] = field(default_factory=list)  # per seat: unplayed cards known to be held
    declarations: list[Record] = field(default_factory=list)  # {"seat", "suit", "points", "after_trick"}
    revokes: list[Record] = field(default_factory=list)  # tricks.audit() records
    losses: list[int] = field(default_factory=list)
    history: list[Record] = field(default_factory=list)
    result: Record | None = None


def start(players: list[str], options: dict[str, Any] | None = None) -> State:
    """A new game; the player after the dealer (option ``dealer``) leads first."""
    players = check_players(players, MIN_PLAYERS, MAX_PLAYERS, TITLE)
    opts = resolve_options(options, len(players))
    seat = dealer_seat(options, players)
    s = State(opts, players, seat, losses=[0] * len(players))
    _new_deal(s, s.dealer)
    return s


def _new_deal(s: State, dealer: int) -> None:
    s.dealer = dealer
    s.leader = (dealer + 1) % len(s.players)  # RULES.md §2.3: D+1 leads
    s.trump = s.turned = None
    s.trick, s.tricks, s.declarations, s.revokes = [], [], [], []
    s.known = [[] for _ in s.players]


def pack(players: int) -> tuple[Card, ...]:
    """RULES.md §2.2: 40 cards, or 36 without the 2s for 3 players."""
    return PACK_36_NO_2 if players == 3 else PACK_40


def sides(state: State) -> list[list[str]]:
    return [[p] for p in state.players]


def hand_size(state: State) -> int:
    return HAND_SIZE[len(state.players)]


def to_act(state: State) -> int | None:
    if state.result is not None:
        return None
    if _needs_trump(state):
        return state.dealer
    return (state.leader + len(state.trick)) % len(state.players)


def _needs_trump(s: State) -> bool:
    return len(s.players) >= 4 and s.turned is None


def _at_deal_start(s: State) -> bool:
    return not s.tricks and not s.trick and s.turned is None


def _may_declare(s: State) -> bool:
    """RULES.md §2.5: a trick's winner may declare before leading the next trick, once."""
    if len(s.players) == 3 or not s.options.allow_declarations or not s.tricks or s.trick:
        return False
    n = len(s.tricks)
    return not any(d["after_trick"] == n for d in s.declarations)


def expects(state: State) -> list[str]:
    if state.result is not None:
        return []
    if _needs_trump(state):
        return ["trump", "tally"]
    out = ["play"]
    if _may_declare(state):
        out.append("declare")
    if _at_deal_start(state):
        out.append("tally")
    return out


def apply(state: State, move: Move) -> State:
    """Apply one move and return the new state; ``state`` itself is never changed."""
    return apply_move(state, move, _MOVES, expects, to_act, _wrong_time, "Tute")


def _wrong_time(s: State, kind: str) -> str:
    if _needs_trump(s):
        return f"A deal starts with the dealer's turned card (the trump), not a {kind}."
    if kind == "declare":
        if len(s.players) == 3:
            return "With 3 players cantes are only scored in tricks, never declared (Tute 2.5)."
        if not s.options.allow_declarations:
            return "Declared cantes are off in this game (allow_declarations)."
        if s.trick:
            return "A cante is declared before leading the next trick, not during one (Tute 2.5)."
        if not s.tricks:
            return "Only the winner of a trick may declare a cante, before the next lead (Tute 2.5)."
        return "One cante per trick won: this trick's cante is already declared (Tute 2.5)."
    if kind == "trump":
        return (
            "The trump is already set for this deal."
            if len(s.players) >= 4
            else "With 3 players no card is turned: the first cante in a trick names the trump (Tute 2.5)."
        )
    if kind == "tally":
        return "A deal can be tallied only before its first card."
    return f"A {kind} can't come now."


def _card(move: Move) -> str:
    if "card" not in move:
        raise InvalidMove("The move needs a 'card'")
    return _code(move["card"])


def _check_in_pack(s: State, card: str) -> None:
    if Card.parse(card) not in pack(len(s.players)):
        what = "36 cards without 8s, 9s, 10s and 2s" if len(s.players) == 3 else "40 cards without 8s, 9s and 10s"
        raise IllegalMove(f"{card} is not in the pack: Tute with {len(s.players)} players uses {what} (Tute 2.2).")


def _played(s: State) -> dict[str, int]:
    """Card -> trick number, for every card played this deal."""
    out = {c: t["n"] for t in s.tricks for _, c in t["cards"]}
    out.update({c: len(s.tricks) + 1 for _, c in s.trick})
    return out


def _holder(s: State, card: str) -> int | None:
    return next((i for i, cards in enumerate(s.known) if card in cards), None)


def _trump(s: State, move: Move) -> None:
    card = _card(move)
    _check_in_pack(s, card)
    s.turned, s.trump = card, card[-1]
    s.known[s.dealer] = [card]  # RULES.md §2.3: the dealer takes the turned card into hand


def _play(s: State, move: Move) -> None:
    card = _card(move)
    _check_in_pack(s, card)
    seat = to_act(s)
    assert seat is not None  # the game is not over (apply_move checks), so someone is to act
    name = s.players[seat]
    played = _played(s)
    if card in played:
        raise IllegalMove(f"{card} was already played in trick {played[card]} of this deal.")
    holder = _holder(s, card)
    if holder is not None and holder != seat:
        raise IllegalMove(f"{card} is in {s.players[holder]}'s hand ({_why_known(s, holder, card)}), not {name}'s.")
    known = [c for c in s.known[seat] if c != card]
    left = hand_size(s) - len(s.tricks)
    if holder is None and len(known) >= left:
        raise IllegalMove(
            f"{name} has {left} card{'s' if left != 1 else ''} left and "
            f"{'it is' if left == 1 else 'they are'} known: {' '.join(known)}. Play one of them."
        )
    # RULES.md §2.11: known cards prove some revokes at once; take the card back (B11).
    before = [c for _, c in s.trick]
    duty = tricks.broken_duty(
        known, before, s.trump, card, STRENGTH, s.options.must_head, s.options.undertrump_required
    )
    if duty is not None:
        proof = next(
            c
            for c in known
            if tricks.broken_duty(
                set(known) | {card}, before, s.trump, c, STRENGTH, s.options.must_head, s.options.undertrump_required
            )
            is None
        )
        raise IllegalMove(
            f"{name} must {tricks.DUTY_TEXT[duty]}: {name} holds {proof} "
            f"({_why_known(s, seat, proof)}). Take {card} back (Tute 2.4)."
        )
    if holder == seat:
        s.known[seat].remove(card)
    s.trick.append([seat, card])
    if len(s.trick) == len(s.players):
        _close_trick(s)
    s.revokes = _audit(s)
    if len(s.tricks) == hand_size(s):
        _end_of_deal(s)


def _why_known(s: State, seat: int, card: str) -> str:
    if card == s.turned and seat == s.dealer:
        return "the turned trump"
    return "shown in a cante"


def _close_trick(s: State) -> None:
    cards = [c for _, c in s.trick]
    win = s.trick[tricks.trick_winner(cards, s.trump, STRENGTH)][0]
    three = len(s.players) == 3
    found = marriages(cards, s.trump, len(s.players), first_sets_trump=three and s.trump is None)
    n = len(s.tricks) + 1
    s.tricks.append(
        {
            "n": n,
            "leader": s.leader,
            "cards": s.trick,
            "winner": win,
            "trump": s.trump,
            "points": card_points(cards),
            "marriages": found,
        }
    )
    if three and s.trump is None and found:
        s.trump = found[0]["suit"]  # RULES.md §2.5: trump from the next trick on (B8: none after the last)
    s.trick, s.leader = [], win


def _plays(s: State) -> list[tricks.Play]:
    out = []
    for t in s.tricks + [{"n": len(s.tricks) + 1, "cards": s.trick, "trump": s.trump}]:
        cards = [c for _, c in t["cards"]]
        for i, (seat, card) in enumerate(t["cards"]):
            out.append(tricks.Play(t["n"], seat, card, tuple(cards[:i]), t["trump"]))
    return out


def _audit(s: State) -> list[Record]:
    o = s.options

    def check(hand: frozenset[str], before: tuple[str, ...], trump: str | None, card: str) -> str | None:
        return tricks.broken_duty(hand, before, trump, card, STRENGTH, o.must_head, o.undertrump_required)

    found = tricks.audit(_plays(s), dict(enumerate(s.known)), check)
    for r in found:
        r["player"] = s.players[r["seat"]]
        r["reason"] = (
            f"{r['player']} played {r['card']} in trick {r['trick']} but had to "
            f"{tricks.DUTY_TEXT[r['duty']]}: {r['proof']}, played later, was in the hand then (Tute 2.4)."
        )
    return found


def _declare(s: State, move: Move) -> None:
    suit = _suit_or_none(move.get("suit"))
    if suit is None:
        raise InvalidMove("A cante needs a 'suit': S, H, D or C")
    refusal = _cante_refusal(s, suit)
    if refusal:
        raise IllegalMove(refusal)
    seat = to_act(s)
    assert seat is not None  # the game is not over (apply_move checks), so someone is to act
    s.declarations.append(
        {"seat": seat, "suit": suit, "points": CANTE_TRUMP if suit == s.trump else CANTE, "after_trick": len(s.tricks)}
    )
    s.known[seat] += [c for c in (f"K{suit}", f"Q{suit}") if c not in s.known[seat]]


def _cante_refusal(s: State, suit: str) -> str | None:
    """Why the player to act can't sing ``suit`` now (RULES.md §2.5, §2.11), or None."""
    seat = to_act(s)
    assert seat is not None  # a cante is weighed only while the game is on, so someone is to act
    name = s.players[seat]
    played = _played(s)
    for card in (f"K{suit}", f"Q{suit}"):
        if card in played:
            return (
                f"{name} can't sing {suit}: {card} was already played in trick {played[card]} "
                f"(Tute 2.5: both cards must be in the hand)."
            )
        holder = _holder(s, card)
        if holder is not None and holder != seat:
            return f"{name} can't sing {suit}: {card} is in {s.players[holder]}'s hand ({_why_known(s, holder, card)})."
    if any(d["seat"] == seat and d["suit"] == suit for d in s.declarations):
        return f"{name} already sang {suit} this deal."
    # Both cards must fit in the hand beside the cards already known to be there.
    left = hand_size(s) - len(s.tricks)
    held = set(s.known[seat]) | {f"K{suit}", f"Q{suit}"}
    if len(held) > left:
        return (
            f"{name} can't sing {suit}: {name} has only {left} card{'s' if left != 1 else ''} left"
            + (f", and {' '.join(s.known[seat])} among them" if s.known[seat] else "")
            + " (Tute 2.5)."
        )
    if suit == s.trump and any(d["seat"] == seat and d["points"] == CANTE for d in s.declarations):
        return (
            f"{name} sang a 20 earlier while holding the trump king and queen, so "
            f"can't sing the 40 this deal (Tute 2.5, lock rule)."
        )
    return None


def cante_check(
    hand: Iterable[str | Card],
    suit: str | None,
    trump: str | None,
    sung: Iterable[tuple[str, int]] = (),
    sang_after_this_trick: bool = False,
    players: int = 4,
) -> str | None:
    """Why a player holding ``hand`` may not sing ``suit`` now, or None (RULES.md 2.5):
    both cards in hand, one cante per trick won, each suit once, and the lock rule (a 20
    sung while holding the trump pair forbids that 40 for the deal). ``sung`` lists the
    player's earlier cantes this deal as ``(suit, points)``.

    >>> cante_check(["KS", "QS", "KD", "QD"], "D", "D", sung=[("S", 20)])       # TU-30
    "Can't sing the 40: a 20 was sung earlier while holding the trump king and queen (Tute 2.5, lock rule)."
    """
    if players == 3:
        return "With 3 players cantes are only scored in tricks, never declared (Tute 2.5)."
    hand, suit, trump = {_code(c) for c in hand}, _suit_or_none(suit), _suit_or_none(trump)
    missing = [c for c in (f"K{suit}", f"Q{suit}") if c not in hand]
    if missing:
        return (
            f"Needs both K{suit} and Q{suit} in hand; {' and '.join(missing)} "
            f"{'is' if len(missing) == 1 else 'are'} not there (Tute 2.5)."
        )
    if sang_after_this_trick:
        return "One cante per trick won: this trick's cante is already sung (Tute 2.5)."
    if any(_suit_or_none(x) == suit for x, _ in sung):
        return f"{suit} was already sung this deal (Tute 2.5)."
    if suit == trump and any(points == CANTE for _, points in sung):
        return "Can't sing the 40: a 20 was sung earlier while holding the trump king and queen (Tute 2.5, lock rule)."
    return None


def declarable(state: State) -> list[str]:
    """The suits the player to act could sing now (the app offers only these)."""
    if "declare" not in expects(state):
        return []
    return [suit for suit in "SHDC" if _cante_refusal(state, suit) is None]


def _totals(s: State) -> tuple[list[int], list[int], list[int]]:
    """(card points, cante points, tricks won) per seat, this deal so far."""
    n = len(s.players)
    cards, cantes, won = [0] * n, [0] * n, [0] * n
    for t in s.tricks:
        cards[t["winner"]] += t["points"]
        cantes[t["winner"]] += sum(m["points"] for m in t["marriages"])
        won[t["winner"]] += 1
    for d in s.declarations:
        cantes[d["seat"]] += d["points"]
    return cards, cantes, won


def _end_of_deal(s: State) -> None:
    cards, cantes, won = _totals(s)
    last = s.tricks[-1]["winner"]
    _score_deal(s, cards, cantes, won, last, tallied=False)


def _score_deal(s: State, cards: list[int], cantes: list[int], won: list[int] | None, last: int, tallied: bool) -> None:
    names = s.players
    totals = [cards[i] + cantes[i] + (LAST_TRICK if i == last else 0) for i in range(len(names))]
    outcome = deal_outcome(
        dict(zip(names, totals)), names[last], s.options, dict(zip(names, won)) if won is not None else None
    )
    losers, reason, replay = outcome["losers"], outcome["reason"], False
    offenders = [names[i] for i in sorted({r["seat"] for r in s.revokes})]
    penalty = s.options.revoke_penalty
    if offenders and penalty == "loss_mark":
        losers, reason = offenders, f"{_and(offenders)} revoked: the revoke costs the deal (revoke_penalty)"
    elif offenders and penalty == "replay_deal":
        losers, reason, replay = (
            [],
            (f"{_and(offenders)} revoked: the deal is void and dealt again (revoke_penalty)"),
            True,
        )
    elif offenders:
        reason += f"; revokes by {_and(offenders)} are not penalised (revoke_penalty none)"
    for p in losers:
        s.losses[names.index(p)] += 1
    s.history.append(
        {
            "deal": s.deal,
            "dealer": names[s.dealer],
            "points": dict(zip(names, totals)),
            "card_points": dict(zip(names, cards)),
            "cantes": dict(zip(names, cantes)),
            "tricks": dict(zip(names, won)) if won is not None else None,
            "last_trick": names[last],
            "losers": losers,
            "reason": reason,
            "trump": s.trump,
            "revokes": [{k: r[k] for k in ("player", "trick", "card", "proof", "reason")} for r in s.revokes],
            "losses": dict(zip(names, s.losses)),
            "tallied": tallied,
            "replayed": replay,
        }
    )
    s.deal += 1
    s.result = game_end(dict(zip(names, s.losses)), s.options.loss_limit)
    if s.result is not None:
        return
    _new_deal(s, s.dealer if replay else (s.dealer + 1) % len(names))  # RULES.md §2.3: next dealer D+1


def _tally(s: State, move: Move) -> None:
    """A whole deal from its end: card points, the last trick, cantes (DESIGN.md tally)."""
    names = s.players
    points, last, cantes = move.get("card_points"), move.get("last_trick"), move.get("marriages", {})
    if not isinstance(points, dict) or set(points) != set(names):
        raise InvalidMove(f"A tally needs 'card_points' for each player: {', '.join(names)}")
    if not all(_is_int(v) and 0 <= v <= 120 for v in points.values()):
        raise InvalidMove("Card points are whole numbers from 0 to 120")
    if sum(points.values()) != 120:
        raise IllegalMove(f"The card points add up to {sum(points.values())}, but a deal holds 120 (Tute 2.2).")
    if last not in names:
        raise InvalidMove(f"'last_trick' must name the player who took the last trick, not {last!r}")
    if not isinstance(cantes, dict) or set(cantes) - set(names):
        raise InvalidMove("'marriages' maps players to their cantes, e.g. {\"Ann\": [20, 40]}")
    every = []
    for p, values in cantes.items():
        if not isinstance(values, list) or any(v not in (CANTE, CANTE_TRUMP) or not _is_int(v) for v in values):
            raise InvalidMove(f"{p}'s cantes must be a list of 20s and 40s")
        every += values
    if every.count(CANTE_TRUMP) > 1 or every.count(CANTE) > 3:
        raise IllegalMove("A deal has at most one 40 and three 20s: each suit's king and queen score once (Tute 2.5).")
    if len(names) == 3 and every and CANTE_TRUMP not in every:
        raise IllegalMove(
            "With 3 players the first cante is the 40 that names the trump; a 20 needs it first (Tute 2.5)."
        )
    tricks_taken = move.get("tricks")
    won = None
    if tricks_taken is not None:
        if (
            not isinstance(tricks_taken, dict)
            or set(tricks_taken) != set(names)
            or not all(_is_int(v) and v >= 0 for v in tricks_taken.values())
        ):
            raise InvalidMove(f"'tricks' maps each player to the number of tricks they took: {', '.join(names)}")
        if sum(tricks_taken.values()) != hand_size(s):
            raise IllegalMove(f"'tricks' must give each player's tricks, adding up to {hand_size(s)}.")
        # Card points, cantes and the last trick all come from tricks won (Tute 2.11 point check).
        empty = [p for p in names if tricks_taken[p] == 0 and (points[p] or cantes.get(p) or p == last)]
        if empty:
            raise IllegalMove(f"{_and(empty)} took no trick, so can't have card points, cantes or the last trick.")
        won = [tricks_taken[p] for p in names]
    _score_deal(
        s, [points[p] for p in names], [sum(cantes.get(p, [])) for p in names], won, names.index(last), tallied=True
    )


_MOVES = {"trump": _trump, "play": _play, "declare": _declare, "tally": _tally}


# ---------------------------------------------------------------------------
# Reading the state
# ---------------------------------------------------------------------------


def view(state: State) -> Record:
    """A JSON-ready summary (DESIGN.md view keys for tute, and what the app shows)."""
    s, names = state, state.players
    cards, cantes, won = _totals(s)
    act = to_act(s)
    trick_cards = [c for _, c in s.trick]
    best = tricks.trick_winner(trick_cards, s.trump, STRENGTH) if trick_cards else None
    last = s.tricks[-1] if s.tricks else None
    return {
        "game": NAME,
        "players": list(names),
        "sides": sides(s),
        "dealer": names[s.dealer],
        "deal": s.deal,
        "to_act": None if act is None else names[act],
        "expects": expects(s),
        "history": list(s.history),
        "result": clone(s.result),
        "options": options_dict(s.options),
        "trump": s.trump,
        "turned": s.turned,
        "trick": [[names[p], c] for p, c in s.trick],
        "best": None if best is None else names[s.trick[best][0]],
        "points": {p: cards[i] + cantes[i] for i, p in enumerate(names)},
        "card_points": dict(zip(names, cards)),
        "cantes": dict(zip(names, cantes)),
        "tricks_won": dict(zip(names, won)),
        "trick_number": len(s.tricks) + 1,
        "tricks_per_deal": hand_size(s),
        "last_trick": None
        if last is None
        else {
            "n": last["n"],
            "winner": names[last["winner"]],
            "points": last["points"],
            "cards": [[names[p], c] for p, c in last["cards"]],
            "marriages": last["marriages"],
        },
        "losses": dict(zip(names, s.losses)),
        "loss_limit": s.options.loss_limit,
        "revokes": [{k: r[k] for k in ("player", "trick", "card", "duty", "proof", "reason")} for r in s.revokes],
        "declarations": [
            {"player": names[d["seat"]], "suit": d["suit"], "points": d["points"], "after_trick": d["after_trick"]}
            for d in s.declarations
        ],
        "declarable": declarable(s),
        "tricks": [
            {
                "n": t["n"],
                "winner": names[t["winner"]],
                "points": t["points"],
                "marriages": t["marriages"],
                "cards": [[names[p], c] for p, c in t["cards"]],
            }
            for t in s.tricks
        ],
        "known": {names[i]: list(k) for i, k in enumerate(s.known) if k},
        "seen": sorted(_played(s)),
        "pack": [str(c) for c in pack(len(names))],
    }


def dump(state: State) -> Record:
    """The state as plain JSON data; ``load(dump(s)) == s``."""
    return dump_state(state)


def load(data: Record) -> State:
    """Rebuild a state from :func:`dump`'s output."""
    return load_state(State, Options, data, "Tute")


def narrate(state: State, move: Move) -> str:
    """One move in words for the log, from the state it led to."""
    kind = move.get("type")
    names = state.players
    if kind == "trump":
        return f"Deal {state.deal}: {names[state.dealer]} turned {state.turned}; trumps are {state.trump}"
    if kind == "declare":
        d = state.declarations[-1]
        return f"{names[d['seat']]} sang {d['points']} in {d['suit']} (shows K{d['suit']} Q{d['suit']})"
    if kind == "tally":
        return "Tallied. " + _deal_words(state.history[-1])
    if kind != "play":
        return kind or "move"
    card = _code(move["card"])
    if state.trick:
        return f"{names[state.trick[-1][0]]} played {card}"
    ended = state.result is not None or not state.tricks
    last = state.tricks[-1] if state.tricks else None
    if last is None:  # the deal's last trick: the state has moved on to the next deal
        h = state.history[-1]
        return f"{card} closed the deal; {h['last_trick']} took the last trick. " + _deal_words(h)
    text = (
        f"{names[last['cards'][-1][0]]} played {card}; {names[last['winner']]} wins trick {last['n']} "
        f"({last['points']} points"
    )
    for m in last["marriages"]:
        text += f", cante {m['points']} in {m['suit']}" + (": trumps from now" if m.get("sets_trump") else "")
    text += ")"
    return text + (". " + _deal_words(state.history[-1]) if ended else "")


def _deal_words(h: Record) -> str:
    points = ", ".join(f"{p} {v}" for p, v in h["points"].items())
    return f"Deal {h['deal']}: {points}. {h['reason']}."
