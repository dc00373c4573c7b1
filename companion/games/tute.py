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
* **The duties in force** (``duties``, issue 18): ``full`` is RULES.md §2.4's rebuilt list;
  ``follow_suit`` is seed 002 as its text survives (follow suit, else anything). The
  known-card refusals and the hindsight audit both judge by the duties in force only.
* ``spanish_names`` only changes how the app names the cards (oros, copas, espadas,
  bastos; rey, caballo, sota); the engine always uses French codes (RULES.md §0.2).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from companion.cards import PACK_36_NO_2, PACK_40, Card
from companion.errors import N_, IllegalMove, InvalidMove, OptionError, Reason
from companion.games import common, tricks
from companion.games.common import Move, Record, Start
from companion.games.common import is_int as _is_int

NAME = "tute"
TITLE = N_("Tute Cabrón")

#: The refusals a table may rule against (RULES.md 5.2): a card the known cards prove a
#: revoke (§2.11). Played anyway, the revoke is proven and costs what ``revoke_penalty`` says.
RULABLE = frozenset({"must_follow", "must_head", "must_trump", "must_overtrump"})
MIN_PLAYERS, MAX_PLAYERS = 3, 5
#: How the players sit, for the new-game form (RULES.md §2.3: play goes anticlockwise).
SEATING = N_("In the order of play: anticlockwise, so each player's right-hand neighbour plays next.")

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
    "tute": Start(N_("Tute Cabrón"), N_("6 loss marks lose; with 4-5, 101 wins a deal")),
    "relaxed": Start(
        N_("No undertrumping"),
        N_("Who can't beat the trump played may discard"),
        {"undertrump_required": False},
    ),
    "ludoteka": Start(N_("Ludoteka's rules"), N_("A player who takes no trick also loses"), {"no_trick_loses": True}),
    # Seed 002 as it survives: "play by the rules of trick-taking games", its list of duties lost.
    "seed_text": Start(
        N_("The seed text's duties"),
        N_("Follow suit if you can, nothing more: no duty to beat or to trump"),
        {"duties": "follow_suit", "must_head": False, "undertrump_required": False},
        more=True,
    ),
}

#: Each option's name on screen.
OPTION_LABELS = {
    "loss_limit": N_("Loss marks that end the game"),
    "undertrump_required": N_("Trump even when it cannot win"),
    "must_head": N_("Beat the best card when able"),
    "duties": N_("Duties when playing to a trick"),
    "win_threshold": N_("Points that win a deal (4-5 players)"),
    "triple_tie": N_("Three players level"),
    "no_trick_loses": N_("No trick taken loses"),
    "over_100_loses": N_("3 players: over 100 loses"),
    "allow_declarations": N_("Cantes (4-5 players)"),
    "revoke_penalty": N_("A proven revoke costs"),
    "spanish_names": N_("Spanish card names"),
}

OPTION_HELP = {
    "loss_limit": N_("The game ends when a player has this many loss marks."),
    "undertrump_required": N_(
        "Out of the suit led and unable to beat the trump already played: must still play a trump."
    ),
    "must_head": N_("Must beat the best card of the suit led when able (off: just follow suit)."),
    "duties": N_(
        "Full: follow, beat, trump, overtrump (rebuilt, the original list is lost). "
        "Follow suit only: as the surviving text says; out of the suit led, play anything."
    ),
    "win_threshold": N_("4-5 players: anyone reaching this total wins the deal and all the others lose."),
    "triple_tie": N_("3 players all level: who loses."),
    "no_trick_loses": N_("A player who takes no trick also loses the deal."),
    "over_100_loses": N_("3 players: anyone over 100 loses instead."),
    "allow_declarations": N_("4-5 players: a trick's winner may show a king and queen (cante) before leading."),
    "revoke_penalty": N_("What a proven revoke costs: one loss mark for the offender, nothing, or a replayed deal."),
    "spanish_names": N_("Name the cards as a Spanish pack: oros, copas, espadas, bastos; rey, caballo, sota."),
}
CHOICES = {
    "duties": ("full", "follow_suit"),
    "triple_tie": ("all_lose", "last_trick_rule", "no_loser"),
    "revoke_penalty": ("loss_mark", "none", "replay_deal"),
}
#: How each choice reads on screen (the values above are the API's codes).
CHOICE_LABELS = {
    "duties": {
        "full": N_("Full Tute duties: follow, beat, trump, overtrump"),
        "follow_suit": N_("Follow suit only (the seed text)"),
    },
    "triple_tie": {
        "all_lose": N_("All three lose"),
        "last_trick_rule": N_("The last trick decides"),
        "no_loser": N_("Nobody loses"),
    },
    "revoke_penalty": {
        "loss_mark": N_("One loss mark for the offender"),
        "none": N_("Nothing"),
        "replay_deal": N_("The deal is played again"),
    },
}


@dataclass(frozen=True)
class Options:
    """RULES.md §2.8 (plus ``revoke_penalty`` from B11 and the display choice)."""

    loss_limit: int = 6
    undertrump_required: bool = True
    must_head: bool = True
    duties: str = "full"
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
    given, count = common.read_options(options, players, sys.modules[__name__], TITLE)
    defaults = Options()
    for name, least in (("loss_limit", 1), ("win_threshold", 1)):
        value = given.get(name, getattr(defaults, name))
        if not _is_int(value) or value < least:
            raise OptionError(
                "not_whole_number",
                "%(option)s must be a whole number of %(least)s or more (not %(value)r)",
                option=name,
                least=least,
                value=value,
            )
    if given.get("over_100_loses") and count is not None and count != 3:
        raise OptionError("three_player_rule", "%(option)s is a 3-player rule", option="over_100_loses")
    if given.get("duties") == "follow_suit":
        # Seed 002's surviving text names no duty but following suit: heading and trumping are off.
        for name in ("must_head", "undertrump_required"):
            if given.get(name):
                raise OptionError(
                    "full_duties_only",
                    "%(option)s is one of the full duties: with “%(duty)s” only following suit is required",
                    option=name,
                    duty=CHOICE_LABELS["duties"]["follow_suit"],
                )
        given |= {"must_head": False, "undertrump_required": False}
    return Options(**given)


def _duties(o: Options) -> dict[str, bool]:
    """The duties in force as ``tricks``' flags (RULES.md §2.4, or seed 002's text)."""
    return {
        "must_head": o.must_head,
        "undertrump_required": o.undertrump_required,
        "must_trump": o.duties == "full",
    }


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
    >>> sorted(legal_plays(["AC", "4D", "2D"], ["7S", "5D"], "D", {"duties": "follow_suit"}))
    ['2D', '4D', 'AC']
    """
    o = resolve_options(options)
    return set(
        tricks.legal_plays(
            [_code(c) for c in hand], [_code(c) for c in trick], _suit_or_none(trump), STRENGTH, **_duties(o)
        )
    )


def why_illegal(
    hand: Iterable[str | Card],
    trick: Iterable[str | Card],
    trump: str | None,
    card: str | Card,
    options: dict[str, Any] | Options | None = None,
) -> Reason | None:
    """Why ``card`` may not be added to ``trick`` from ``hand``, or None if it may.

    >>> why = why_illegal(["3S", "2S", "AC", "5D"], ["7S"], "D", "2S")
    >>> str(why), why.code, why.params
    ('must beat the best card of the suit led: 3S does (Tute 2.4)', 'must_head_with', {'cards': ['3S']})
    """
    o = resolve_options(options)
    held, before, card = [_code(c) for c in hand], [_code(c) for c in trick], _code(card)
    trump = _suit_or_none(trump)
    duty = tricks.broken_duty(held, before, trump, card, STRENGTH, **_duties(o))
    if duty is None:
        return None
    better = sorted(tricks.legal_plays(set(held) | {card}, before, trump, STRENGTH, **_duties(o)))
    return _duty_reason(duty, better)


#: Tute 2.4's duties (``tricks.DUTY_TEXT``'s keys) as refusals: a card the lab refuses,
#: with the one card that meets the duty, or the cards that do; and a card the known cards
#: prove wrong at the table, to take back.
_MET_BY_ONE = {
    "follow": ("must_follow_with", N_("must follow suit: %(cards)s does (%(rule)s)")),
    "head": ("must_head_with", N_("must beat the best card of the suit led: %(cards)s does (%(rule)s)")),
    "trump": ("must_trump_with", N_("must play a trump when out of the suit led: %(cards)s does (%(rule)s)")),
    "overtrump": ("must_overtrump_with", N_("must beat the trump already in the trick: %(cards)s does (%(rule)s)")),
}
_MET_BY_ANY = {
    "follow": ("must_follow_with_any", N_("must follow suit: %(cards)s do (%(rule)s)")),
    "head": ("must_head_with_any", N_("must beat the best card of the suit led: %(cards)s do (%(rule)s)")),
    "trump": ("must_trump_with_any", N_("must play a trump when out of the suit led: %(cards)s do (%(rule)s)")),
    "overtrump": ("must_overtrump_with_any", N_("must beat the trump already in the trick: %(cards)s do (%(rule)s)")),
}
_TAKE_BACK = {
    "follow": (
        "must_follow",
        N_("%(player)s must follow suit: %(player)s holds %(proof)s (%(known)s). Take %(card)s back (%(rule)s)."),
    ),
    "head": (
        "must_head",
        N_(
            "%(player)s must beat the best card of the suit led: %(player)s holds %(proof)s (%(known)s). "
            "Take %(card)s back (%(rule)s)."
        ),
    ),
    "trump": (
        "must_trump",
        N_(
            "%(player)s must play a trump when out of the suit led: %(player)s holds %(proof)s (%(known)s). "
            "Take %(card)s back (%(rule)s)."
        ),
    ),
    "overtrump": (
        "must_overtrump",
        N_(
            "%(player)s must beat the trump already in the trick: %(player)s holds %(proof)s (%(known)s). "
            "Take %(card)s back (%(rule)s)."
        ),
    ),
}


def _duty_reason(duty: str, better: list[str]) -> Reason:
    """The duty a card breaks (a key of ``tricks.DUTY_TEXT``) and the cards that meet it."""
    return Reason(*(_MET_BY_ONE if len(better) == 1 else _MET_BY_ANY)[duty], rule="Tute 2.4", cards=better)


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
        raise InvalidMove("not_a_suit", "%(suit)r is not a suit: use S, H, D or C", suit=trump)
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

    ``totals`` are in seat (play) order. Returns ``{"losers": [...], "reason": [...]}``,
    the reason as data, a sentence each (:meth:`Reason.as_data`), the web words it.

    >>> deal_outcome({"P1": 50, "P2": 50, "P3": 20, "P4": 10}, "P4")["losers"]
    ['P1']
    """
    o = resolve_options(options)
    names = list(totals)
    n = len(names)
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise OptionError("deal_player_count", "Tute Cabrón is for 3, 4 or 5 players")
    if last_trick not in totals:
        raise InvalidMove("last_trick_not_playing", "%(player)r is not one of the players", player=last_trick)
    if n == 3:
        losers, reason = _three_player_losers(totals, last_trick, o)
    else:
        losers, reason = _losers(totals, last_trick, o.win_threshold)
    reasons = [reason]
    if o.no_trick_loses and tricks_taken is not None:
        empty = [p for p in names if tricks_taken.get(p, 0) == 0 and p not in losers]
        if empty:
            losers = [p for p in names if p in losers or p in empty]
            said = Reason(
                "no_trick_loses",
                N_("%(players)s took no trick and loses too (%(option)s).")
                if len(empty) == 1
                else N_("%(players)s took no trick and lose too (%(option)s)."),
                players=empty,
                option=OPTION_LABELS["no_trick_loses"],
            )
            reasons.append(said)
    return {"losers": losers, "reason": [r.as_data() for r in reasons]}


def _losers(totals: dict[str, int], last: str, threshold: int) -> tuple[list[str], Reason]:
    names = list(totals)
    won = [p for p in names if totals[p] >= threshold]
    if won:
        return [p for p in names if p not in won], Reason(
            "reached_threshold",
            "%(players)s reached %(threshold)s: everyone else loses (%(rule)s).",
            rule="Tute 2.6",
            players=won,
            threshold=threshold,
        )
    top = max(totals.values())
    tied = [p for p in names if totals[p] == top]
    if len(tied) == 1:
        return tied, Reason(
            "highest_total",
            "%(player)s has the highest total, %(top)s (%(rule)s).",
            rule="Tute 2.6",
            player=tied[0],
            top=top,
        )
    if last in tied:
        return [last], Reason(
            "tie_last_trick_loses",
            "%(players)s tie on %(top)s; %(player)s took the last trick and loses (%(rule)s).",
            rule="Tute 2.6",
            players=tied,
            top=top,
            player=last,
        )
    start = names.index(last)
    first = next(
        names[(start + k) % len(names)] for k in range(1, len(names)) if names[(start + k) % len(names)] in tied
    )
    return [first], Reason(
        "tie_first_after_last_trick",
        "%(players)s tie on %(top)s; %(player)s is the first of them after %(last)s, who took the last trick "
        "(%(rule)s).",
        rule="Tute 2.6",
        players=tied,
        top=top,
        player=first,
        last=last,
    )


def _three_player_losers(totals: dict[str, int], last: str, o: Options) -> tuple[list[str], Reason]:
    names = list(totals)
    if o.over_100_loses:
        over = [p for p in names if totals[p] > 100]
        if over:
            return over, Reason(
                "over_100_loses",
                N_("%(players)s passed 100 and loses (%(option)s).")
                if len(over) == 1
                else N_("%(players)s passed 100 and lose (%(option)s)."),
                players=over,
                option=OPTION_LABELS["over_100_loses"],
            )
    order = sorted(names, key=lambda p: -totals[p])
    hi, mid, lo = (totals[p] for p in order)
    if hi == mid == lo:
        option = OPTION_LABELS["triple_tie"]
        if o.triple_tie == "all_lose":
            return names, Reason(
                "triple_tie_all_lose",
                "All three tie on %(top)s: all lose (%(rule)s; %(option)s).",
                rule="Tute 2.6",
                top=hi,
                option=option,
            )
        if o.triple_tie == "no_loser":
            return [], Reason(
                "triple_tie_no_loser", "All three tie on %(top)s: nobody loses (%(option)s).", top=hi, option=option
            )
        return [last], Reason(
            "triple_tie_last_trick_loses",
            "All three tie on %(top)s; %(player)s took the last trick and loses (%(option)s).",
            top=hi,
            player=last,
            option=option,
        )
    if hi == mid:
        return [p for p in names if totals[p] == hi], Reason(
            "tie_above",
            "%(players)s tie above %(player)s: both lose (%(rule)s).",
            rule="Tute 2.6",
            players=[p for p in names if totals[p] == hi],
            player=order[2],
        )
    if mid == lo:
        return [order[0]], Reason(
            "tie_below",
            "%(players)s tie below %(player)s, so %(player)s loses (%(rule)s).",
            rule="Tute 2.6",
            players=[p for p in names if p != order[0]],
            player=order[0],
        )
    return [order[1]], Reason(
        "middle_total",
        "%(player)s has the middle total, %(top)s (%(rule)s, three players).",
        rule="Tute 2.6",
        player=order[1],
        top=mid,
    )


# ---------------------------------------------------------------------------
# The game
# ---------------------------------------------------------------------------


@dataclass
class State(common.BaseState[Options]):
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
    rulings: list[Record] = field(default_factory=list)  # the table's, RULES.md 5.2


def start(players: list[str], options: dict[str, Any] | None = None) -> State:
    """A new game; the player after the dealer (option ``dealer``) leads first."""
    players, opts, seat = common.seat_players(players, options, resolve_options, MIN_PLAYERS, MAX_PLAYERS, TITLE)
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
    if not state.trick:  # RULES.md 5.3: between tricks, a player may show that the rest are theirs
        out.append("claim")
    if _at_deal_start(state):
        out.append("tally")
    return out


def apply(state: State, move: Move) -> State:
    """Apply one move and return the new state; ``state`` itself is never changed."""
    return common.apply_move(state, move, _MOVES, expects, to_act, _wrong_time, TITLE, free=("tally", "claim"))


def _wrong_time(s: State, kind: str) -> Reason:
    """Why a move of ``kind`` can't come now (``apply_move`` raises it)."""
    if _needs_trump(s):
        return Reason(
            "turned_card_first",
            N_("A deal starts with the dealer's turned card (the trump), not a cante.")
            if kind == "declare"
            else N_("A deal starts with the dealer's turned card (the trump), not a card played."),
            kind=kind,
        )
    if kind == "declare":
        return _no_declaring(s)
    if kind == "trump":
        if len(s.players) >= 4:
            return Reason("trump_already_set", "The trump is already set for this deal.")
        return Reason(
            "no_turned_card",
            "With 3 players no card is turned: the first cante in a trick names the trump (%(rule)s).",
            rule="Tute 2.5",
        )
    if kind == "tally":
        return Reason("tally_too_late", "A deal can be tallied only before its first card.")
    # A claim, then: once the trump is set a card may always be played, and a claim only
    # waits for the trick begun (RULES.md 5.3).
    return Reason(
        "claim_mid_trick",
        "Finish trick %(n)s first: a claim takes the tricks not begun yet.",
        n=len(s.tricks) + 1,
    )


def _no_declaring(s: State) -> Reason:
    """Why no cante may be declared now (RULES.md §2.5)."""
    if len(s.players) == 3:
        return Reason(
            "no_declared_cantes",
            "With 3 players cantes are only scored in tricks, never declared (%(rule)s).",
            rule="Tute 2.5",
        )
    if not s.options.allow_declarations:
        return Reason("cantes_off", "Declared cantes are off in this game (allow_declarations).")
    if s.trick:
        return Reason(
            "cante_mid_trick",
            "A cante is declared before leading the next trick, not during one (%(rule)s).",
            rule="Tute 2.5",
        )
    if not s.tricks:
        return Reason(
            "cante_needs_trick",
            "Only the winner of a trick may declare a cante, before the next lead (%(rule)s).",
            rule="Tute 2.5",
        )
    return Reason(
        "one_cante_per_trick",
        "One cante per trick won: this trick's cante is already declared (%(rule)s).",
        rule="Tute 2.5",
    )


def _card(move: Move) -> str:
    if "card" not in move:
        raise InvalidMove("needs_card", "The move needs a 'card'")
    return _code(move["card"])


def _check_in_pack(s: State, card: str) -> None:
    if Card.parse(card) not in pack(len(s.players)):
        if len(s.players) == 3:
            raise IllegalMove(
                "not_in_pack_36",
                "%(card)s is not in the pack: Tute with %(players)s players uses 36 cards without 8s, 9s, 10s and 2s "
                "(%(rule)s).",
                rule="Tute 2.2",
                card=card,
                players=len(s.players),
            )
        raise IllegalMove(
            "not_in_pack_40",
            "%(card)s is not in the pack: Tute with %(players)s players uses 40 cards without 8s, 9s and 10s "
            "(%(rule)s).",
            rule="Tute 2.2",
            card=card,
            players=len(s.players),
        )


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
    tricks.check_unplayed(card, s.tricks, s.trick)
    elsewhere = _elsewhere(s, seat, card)
    if elsewhere is not None:
        raise IllegalMove(elsewhere)
    holder = _holder(s, card)
    known = [c for c in s.known[seat] if c != card]
    left = hand_size(s) - len(s.tricks)
    if holder is None and len(known) >= left:
        if left == 1:
            raise IllegalMove(
                "last_card_known",
                "%(player)s has 1 card left and it is known: %(cards)s. Play one of them.",
                player=name,
                cards=known,
            )
        raise IllegalMove(
            "cards_left_known",
            "%(player)s has %(left)s cards left and they are known: %(cards)s. Play one of them.",
            player=name,
            left=left,
            cards=known,
        )
    # RULES.md §2.11: known cards prove some revokes at once (the audit of this card against
    # them alone); take the card back (B11).
    play = tricks.Play(len(s.tricks) + 1, seat, card, tuple(c for _, c in s.trick), s.trump)
    for found in tricks.audit([play], {seat: known}, _check(s.options)):
        proof = found["proof"]
        # RULES.md 5.2: a table may let it stand; the audit then proves the revoke (B11's penalty).
        reason = _take_back(found["duty"], name, proof, _why_known(s, seat, proof), card)
        common.rule_on(s, s.deal, seat, move, reason, RULABLE)
    if holder == seat:
        s.known[seat].remove(card)
    s.trick.append([seat, card])
    if len(s.trick) == len(s.players):
        _close_trick(s)
    s.revokes = _audit(s)
    if len(s.tricks) == hand_size(s):
        _end_of_deal(s)


#: A revoke the audit found (RULES.md §2.11), by the duty it broke.
_REVOKED = {
    "follow": (
        "revoke_follow",
        N_(
            "%(player)s played %(card)s in trick %(trick)s but had to follow suit: %(proof)s, played later, "
            "was in the hand then (%(rule)s)."
        ),
    ),
    "head": (
        "revoke_head",
        N_(
            "%(player)s played %(card)s in trick %(trick)s but had to beat the best card of the suit led: "
            "%(proof)s, played later, was in the hand then (%(rule)s)."
        ),
    ),
    "trump": (
        "revoke_trump",
        N_(
            "%(player)s played %(card)s in trick %(trick)s but had to play a trump when out of the suit led: "
            "%(proof)s, played later, was in the hand then (%(rule)s)."
        ),
    ),
    "overtrump": (
        "revoke_overtrump",
        N_(
            "%(player)s played %(card)s in trick %(trick)s but had to beat the trump already in the trick: "
            "%(proof)s, played later, was in the hand then (%(rule)s)."
        ),
    ),
}


def _take_back(duty: str, player: str, proof: str, known: str, card: str) -> Reason:
    """A card the known cards prove wrong (RULES.md §2.11): ``duty`` (a key of
    ``tricks.DUTY_TEXT``) broken, with ``proof``, known to be in the hand, meeting it."""
    return Reason(*_TAKE_BACK[duty], rule="Tute 2.4", player=player, proof=proof, known=known, card=card)


def _elsewhere(s: State, seat: int, card: str, suit: str | None = None) -> Reason | None:
    """Why ``card`` can't be in the hand of the player at ``seat``: it is known to be in
    another hand (RULES.md §2.11). Refusing a play, or with ``suit`` a cante in that suit;
    None when no other hand is known to hold it."""
    holder = _holder(s, card)
    if holder is None or holder == seat:
        return None
    if suit is None:
        return Reason(
            "in_another_hand",
            "%(card)s is in %(holder)s's hand (%(known)s), not %(player)s's.",
            card=card,
            holder=s.players[holder],
            known=_why_known(s, holder, card),
            player=s.players[seat],
        )
    return Reason(
        "cante_card_elsewhere",
        "%(player)s can't sing %(suit)s: %(card)s is in %(holder)s's hand (%(known)s).",
        player=s.players[seat],
        suit=suit,
        card=card,
        holder=s.players[holder],
        known=_why_known(s, holder, card),
    )


def _why_known(s: State, seat: int, card: str) -> str:
    """How a card is known to be in a hand, in words a refusal places in brackets."""
    if card == s.turned and seat == s.dealer:
        return N_("the turned trump")
    return N_("shown in a cante")


def _close_trick(s: State) -> None:
    cards = [c for _, c in s.trick]
    win = s.trick[tricks.trick_winner(cards, s.trump, STRENGTH)][0]
    three = len(s.players) == 3
    found = marriages(cards, s.trump, len(s.players), first_sets_trump=three and s.trump is None)
    n = len(s.tricks) + 1
    s.tricks.append(
        {
            "n": n,
            "cards": s.trick,  # (seat, card) pairs in play order: the first is the leader's
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


def _check(o: Options) -> tricks.Check:
    """The audit's check of one card: a revoke breaks a duty in force, and only those (seed
    text or full)."""
    duties = _duties(o)

    def check(hand: frozenset[str], before: tuple[str, ...], trump: str | None, card: str) -> str | None:
        return tricks.broken_duty(hand, before, trump, card, STRENGTH, **duties)

    return check


def _audit(s: State) -> list[Record]:
    return tricks.revokes(
        _plays(s),
        dict(enumerate(s.known)),
        _check(s.options),
        s.players,
        lambda r: Reason(
            *_REVOKED[r["duty"]],
            rule="Tute 2.4",
            player=r["player"],
            card=r["card"],
            trick=r["trick"],
            proof=r["proof"],
        ),
    )


def _declare(s: State, move: Move) -> None:
    suit = _suit_or_none(move.get("suit"))
    if suit is None:
        raise InvalidMove("cante_needs_suit", "A cante needs a 'suit': S, H, D or C")
    refusal = _cante_refusal(s, suit)
    if refusal is not None:
        raise IllegalMove(refusal)
    seat = to_act(s)
    assert seat is not None  # the game is not over (apply_move checks), so someone is to act
    s.declarations.append(
        {"seat": seat, "suit": suit, "points": CANTE_TRUMP if suit == s.trump else CANTE, "after_trick": len(s.tricks)}
    )
    s.known[seat] += [c for c in (f"K{suit}", f"Q{suit}") if c not in s.known[seat]]


def _cante_refusal(s: State, suit: str) -> Reason | None:
    """Why the player to act can't sing ``suit`` now (RULES.md §2.5, §2.11), or None."""
    seat = to_act(s)
    assert seat is not None  # a cante is weighed only while the game is on, so someone is to act
    name = s.players[seat]
    played = tricks.played(s.tricks, s.trick)
    for card in (f"K{suit}", f"Q{suit}"):
        if card in played:
            return Reason(
                "cante_card_played",
                "%(player)s can't sing %(suit)s: %(card)s was already played in trick %(trick)s "
                "(%(rule)s: both cards must be in the hand).",
                rule="Tute 2.5",
                player=name,
                suit=suit,
                card=card,
                trick=played[card],
            )
        elsewhere = _elsewhere(s, seat, card, suit)
        if elsewhere is not None:
            return elsewhere
    if any(d["seat"] == seat and d["suit"] == suit for d in s.declarations):
        return Reason("already_sang", "%(player)s already sang %(suit)s this deal.", player=name, suit=suit)
    # Both cards must fit in the hand beside the cards already known to be there.
    left = hand_size(s) - len(s.tricks)
    if len(set(s.known[seat]) | {f"K{suit}", f"Q{suit}"}) > left:
        return _no_room(name, suit, left, s.known[seat])
    if suit == s.trump and any(d["seat"] == seat and d["points"] == CANTE for d in s.declarations):
        return Reason(
            "cante_locked",
            "%(player)s sang a 20 earlier while holding the trump king and queen, so "
            "can't sing the 40 this deal (%(rule)s, lock rule).",
            rule="Tute 2.5",
            player=name,
        )
    return None


def _no_room(name: str, suit: str, left: int, known: list[str]) -> Reason:
    """A cante whose king and queen don't fit in the ``left`` cards beside the ``known`` ones."""
    if left == 1 and known:
        return Reason(
            "cante_no_room_last_known",
            "%(player)s can't sing %(suit)s: %(player)s has only 1 card left, and %(cards)s among them (%(rule)s).",
            rule="Tute 2.5",
            player=name,
            suit=suit,
            cards=known,
        )
    if left == 1:
        return Reason(
            "cante_no_room_last",
            "%(player)s can't sing %(suit)s: %(player)s has only 1 card left (%(rule)s).",
            rule="Tute 2.5",
            player=name,
            suit=suit,
        )
    if known:
        return Reason(
            "cante_no_room_known",
            "%(player)s can't sing %(suit)s: %(player)s has only %(left)s cards left, and %(cards)s among them "
            "(%(rule)s).",
            rule="Tute 2.5",
            player=name,
            suit=suit,
            left=left,
            cards=known,
        )
    return Reason(
        "cante_no_room",
        "%(player)s can't sing %(suit)s: %(player)s has only %(left)s cards left (%(rule)s).",
        rule="Tute 2.5",
        player=name,
        suit=suit,
        left=left,
    )


def cante_check(
    hand: Iterable[str | Card],
    suit: str | None,
    trump: str | None,
    sung: Iterable[tuple[str, int]] = (),
    sang_after_this_trick: bool = False,
    players: int = 4,
) -> Reason | None:
    """Why a player holding ``hand`` may not sing ``suit`` now, or None (RULES.md 2.5):
    both cards in hand, one cante per trick won, each suit once, and the lock rule (a 20
    sung while holding the trump pair forbids that 40 for the deal). ``sung`` lists the
    player's earlier cantes this deal as ``(suit, points)``.

    >>> why = cante_check(["KS", "QS", "KD", "QD"], "D", "D", sung=[("S", 20)])       # TU-30
    >>> print(why)
    Can't sing the 40: a 20 was sung earlier while holding the trump king and queen (Tute 2.5, lock rule).
    >>> why.code, why.rule
    ('lock_rule', 'Tute 2.5')
    """
    if players == 3:
        return Reason(
            "no_declared_cantes",
            "With 3 players cantes are only scored in tricks, never declared (%(rule)s).",
            rule="Tute 2.5",
        )
    hand, suit, trump = {_code(c) for c in hand}, _suit_or_none(suit), _suit_or_none(trump)
    king, queen = f"K{suit}", f"Q{suit}"
    missing = [c for c in (king, queen) if c not in hand]
    if len(missing) == 2:
        return Reason(
            "cante_cards_missing",
            "Needs both %(king)s and %(queen)s in hand; %(king)s and %(queen)s are not there (%(rule)s).",
            rule="Tute 2.5",
            king=king,
            queen=queen,
        )
    if missing:
        return Reason(
            "cante_card_missing",
            "Needs both %(king)s and %(queen)s in hand; %(card)s is not there (%(rule)s).",
            rule="Tute 2.5",
            king=king,
            queen=queen,
            card=missing[0],
        )
    if sang_after_this_trick:
        return Reason(
            "cante_sung_this_trick",
            "One cante per trick won: this trick's cante is already sung (%(rule)s).",
            rule="Tute 2.5",
        )
    if any(_suit_or_none(x) == suit for x, _ in sung):
        return Reason(
            "suit_already_sung", "%(suit)s was already sung this deal (%(rule)s).", rule="Tute 2.5", suit=suit
        )
    if suit == trump and any(points == CANTE for _, points in sung):
        return Reason(
            "lock_rule",
            "Can't sing the 40: a 20 was sung earlier while holding the trump king and queen (%(rule)s, lock rule).",
            rule="Tute 2.5",
        )
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


def _score_deal(
    s: State,
    cards: list[int],
    cantes: list[int],
    won: list[int] | None,
    last: int,
    tallied: bool,
    claimed: Record | None = None,
) -> None:
    names = s.players
    totals = [cards[i] + cantes[i] + (LAST_TRICK if i == last else 0) for i in range(len(names))]
    outcome = deal_outcome(
        dict(zip(names, totals)), names[last], s.options, dict(zip(names, won)) if won is not None else None
    )
    losers, reason, replay = outcome["losers"], outcome["reason"], False
    offenders = [names[i] for i in sorted({r["seat"] for r in s.revokes})]
    penalty, option = s.options.revoke_penalty, OPTION_LABELS["revoke_penalty"]
    if offenders and penalty == "loss_mark":
        losers = offenders
        reason = [
            Reason(
                "revoke_costs_the_deal",
                "%(players)s revoked: the revoke costs the deal (%(option)s).",
                players=offenders,
                option=option,
            ).as_data()
        ]
    elif offenders and penalty == "replay_deal":
        losers, replay = [], True
        reason = [
            Reason(
                "revoke_replays_the_deal",
                "%(players)s revoked: the deal is void and dealt again (%(option)s).",
                players=offenders,
                option=option,
            ).as_data()
        ]
    elif offenders:
        reason.append(
            Reason(
                "revoke_not_penalised",
                "Revokes by %(players)s are not penalised (%(option)s).",
                players=offenders,
                option=option,
            ).as_data()
        )
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
            **common.deal_rulings(s, s.deal),
            **({"claimed": claimed} if claimed else {}),
            "losses": dict(zip(names, s.losses)),
            "tallied": tallied,
            "replayed": replay,
            # The deal's last trick, for the screen that ends the deal (a tally has none).
            "last": None if tallied or claimed else _trick_view(s, s.tricks[-1]),
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
        raise InvalidMove(
            "tally_needs_points",
            "A tally needs 'card_points' for each player: %(players)s",
            players=names,
        )
    if not all(_is_int(v) and 0 <= v <= 120 for v in points.values()):
        raise InvalidMove("card_points_range", "Card points are whole numbers from 0 to 120")
    if sum(points.values()) != 120:
        raise IllegalMove(
            "card_points_total",
            "The card points add up to %(total)s, but a deal holds 120 (%(rule)s).",
            rule="Tute 2.2",
            total=sum(points.values()),
        )
    if last not in names:
        raise InvalidMove(
            "tally_last_trick",
            "'last_trick' must name the player who took the last trick, not %(last)r",
            last=last,
        )
    if not isinstance(cantes, dict) or set(cantes) - set(names):
        raise InvalidMove("tally_marriages", "'marriages' maps players to their cantes, e.g. {\"Ann\": [20, 40]}")
    every = []
    for p, values in cantes.items():
        if not isinstance(values, list) or any(v not in (CANTE, CANTE_TRUMP) or not _is_int(v) for v in values):
            raise InvalidMove("tally_cantes", "%(player)s's cantes must be a list of 20s and 40s", player=p)
        every += values
    if every.count(CANTE_TRUMP) > 1 or every.count(CANTE) > 3:
        raise IllegalMove(
            "too_many_cantes",
            "A deal has at most one 40 and three 20s: each suit's king and queen score once (%(rule)s).",
            rule="Tute 2.5",
        )
    if len(names) == 3 and every and CANTE_TRUMP not in every:
        raise IllegalMove(
            "first_cante_names_trump",
            "With 3 players the first cante is the 40 that names the trump; a 20 needs it first (%(rule)s).",
            rule="Tute 2.5",
        )
    tricks_taken = move.get("tricks")
    won = None
    if tricks_taken is not None:
        if (
            not isinstance(tricks_taken, dict)
            or set(tricks_taken) != set(names)
            or not all(_is_int(v) and v >= 0 for v in tricks_taken.values())
        ):
            raise InvalidMove(
                "tally_tricks",
                "'tricks' maps each player to the number of tricks they took: %(players)s",
                players=names,
            )
        if sum(tricks_taken.values()) != hand_size(s):
            raise IllegalMove(
                "tricks_total",
                "'tricks' must give each player's tricks, adding up to %(total)s.",
                total=hand_size(s),
            )
        # Card points, cantes and the last trick all come from tricks won (Tute 2.11 point check).
        empty = [p for p in names if tricks_taken[p] == 0 and (points[p] or cantes.get(p) or p == last)]
        if empty:
            raise IllegalMove(
                "no_trick_no_points",
                "%(players)s took no trick, so can't have card points, cantes or the last trick.",
                players=empty,
            )
        won = [tricks_taken[p] for p in names]
    _score_deal(
        s, [points[p] for p in names], [sum(cantes.get(p, [])) for p in names], won, names.index(last), tallied=True
    )


def _claim(s: State, move: Move) -> None:
    """RULES.md 5.3: ``player`` shows that every trick not begun yet is theirs. Each card
    still out goes to them, with the tricks and the last trick's 10; no cante is sung after
    it. Refused when a known card proves otherwise: another player holds the highest trump
    still out (it takes the trick it is played in)."""
    name = move.get("player")
    if name not in s.players:
        raise InvalidMove("claim_who", "A claim names the player who takes every trick left ('player').")
    seat = s.players.index(name)
    left = [str(c) for c in pack(len(s.players)) if str(c) not in tricks.played(s.tricks, s.trick)]
    trumps = [c for c in left if s.trump and c[-1] == s.trump]
    if trumps:
        top = max(trumps, key=lambda c: STRENGTH[tricks.rank(c)])
        holder = _holder(s, top)
        if holder is not None and holder != seat:
            raise IllegalMove(
                "claim_beaten",
                "%(holder)s holds %(card)s, the highest trump still out (%(known)s): it takes a trick, so "
                "%(player)s can't take every trick left.",
                holder=s.players[holder],
                card=top,
                known=_why_known(s, holder, top),
                player=name,
            )
    count = hand_size(s) - len(s.tricks)
    cards, cantes, won = _totals(s)
    points = card_points(left)
    cards[seat] += points
    won[seat] += count
    _score_deal(s, cards, cantes, won, seat, tallied=False, claimed={"player": name, "tricks": count, "points": points})


_MOVES = {"trump": _trump, "play": _play, "declare": _declare, "tally": _tally, "claim": _claim}


# ---------------------------------------------------------------------------
# Reading the state
# ---------------------------------------------------------------------------


def view(state: State) -> Record:
    """A JSON-ready summary (DESIGN.md view keys for tute, and what the app shows)."""
    s, names = state, state.players
    cards, cantes, won = _totals(s)
    trick_cards = [c for _, c in s.trick]
    best = tricks.trick_winner(trick_cards, s.trump, STRENGTH) if trick_cards else None
    last = s.tricks[-1] if s.tricks else None
    return {
        **common.view_head(s, NAME, sides(s), s.deal, to_act(s), expects(s)),
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
        "last_trick": None if last is None else _trick_view(s, last),
        "losses": dict(zip(names, s.losses)),
        "loss_limit": s.options.loss_limit,
        "revokes": [{k: r[k] for k in ("player", "trick", "card", "duty", "proof", "reason")} for r in s.revokes],
        "declarations": [
            {"player": names[d["seat"]], "suit": d["suit"], "points": d["points"], "after_trick": d["after_trick"]}
            for d in s.declarations
        ],
        "declarable": declarable(s),
        "tricks": [_trick_view(s, t) for t in s.tricks],
        "known": {names[i]: list(k) for i, k in enumerate(s.known) if k},
        "seen": sorted(tricks.played(s.tricks, s.trick)),
        "pack": [str(c) for c in pack(len(names))],
    }


def _trick_view(s: State, t: Record) -> Record:
    """A trick as the pages show it: its number, cards by name, winner, points and cantes."""
    names = s.players
    return {
        "n": t["n"],
        "winner": names[t["winner"]],
        "points": t["points"],
        "marriages": t["marriages"],
        "cards": [[names[p], c] for p, c in t["cards"]],
    }


dump, load = common.persistence(State, Options, "Tute")


def figures(view: Record) -> dict[str, dict[str, int]]:
    """Each player's figures for the statistics: deals, points, cante points and loss marks."""
    return common.figures(view, lambda r, side: {"cantes": r["cantes"].get(side, 0), "marks": int(side in r["losers"])})


@common.narrated
def narrate(state: State, move: Move) -> list[Reason]:
    """One move in words for the log, from the state it led to: its sentences as data.

    >>> s = start(["Ann", "Ben", "Cat", "Dan"])
    >>> [str(r) for r in narrate(apply(s, {"type": "trump", "card": "5D"}), {"type": "trump"})]
    ['Deal 1: Ann turned 5D; trumps are D.']
    """
    kind = move.get("type")
    names = state.players
    if kind == "trump":
        return [
            Reason(
                "turned",
                "Deal %(deal)s: %(player)s turned %(card)s; trumps are %(suit)s.",
                deal=state.deal,
                player=names[state.dealer],
                card=state.turned,
                suit=state.trump,
            )
        ]
    if kind == "declare":
        d = state.declarations[-1]
        return [
            Reason(
                "sang",
                "%(player)s sang %(points)s in %(suit)s (shows %(cards)s).",
                player=names[d["seat"]],
                points=d["points"],
                suit=d["suit"],
                cards=[f"K{d['suit']}", f"Q{d['suit']}"],
            )
        ]
    if kind == "tally":
        return [Reason("tallied", "Tallied."), *_deal_words(state.history[-1])]
    if kind == "claim":
        h = state.history[-1]
        said = h["claimed"]
        claimed = Reason(
            "claimed",
            "%(player)s showed every trick left was theirs: %(tricks)s tricks, %(points)s card points.",
            player=said["player"],
            tricks=said["tricks"],
            points=said["points"],
        )
        return [claimed, *_deal_words(h)]
    if kind != "play":
        return [Reason("move", "A move %(move)r was entered.", move=kind)]
    card = _code(move["card"])
    if state.trick:
        return [Reason("played", "%(player)s played %(card)s.", player=names[state.trick[-1][0]], card=card)]
    ended = state.result is not None or not state.tricks
    last = state.tricks[-1] if state.tricks else None
    if last is None:  # the deal's last trick: the state has moved on to the next deal
        h = state.history[-1]
        closed = Reason(
            "closed_the_deal",
            "%(card)s closed the deal; %(player)s took the last trick.",
            card=card,
            player=h["last_trick"],
        )
        return [closed, *_deal_words(h)]
    said = [
        Reason(
            "won_trick",
            "%(player)s played %(card)s; %(winner)s wins trick %(n)s (%(points)s points).",
            player=names[last["cards"][-1][0]],
            card=card,
            winner=names[last["winner"]],
            n=last["n"],
            points=last["points"],
        )
    ]
    for m in last["marriages"]:
        cante = Reason(
            "cante",
            N_("Cante %(points)s in %(suit)s: trumps from now.")
            if m.get("sets_trump")
            else N_("Cante %(points)s in %(suit)s."),
            points=m["points"],
            suit=m["suit"],
        )
        said.append(cante)
    return said + (_deal_words(state.history[-1]) if ended else [])


def _deal_words(h: Record) -> list[Reason]:
    """A deal's points and who lost it, and why."""
    points = Reason("deal_points", "Deal %(deal)s: %(scores)s.", deal=h["deal"], scores=h["points"])
    return [points, *(Reason.from_json(r) for r in h["reason"])]


#: What a ruled revoke will cost (RULES.md 5.2 R3), by ``revoke_penalty`` (B11).
_REVOKE_COSTS = {
    "loss_mark": ("revoke_costs_mark", N_("Once proven, the revoke costs its player the deal: a loss mark.")),
    "replay_deal": ("revoke_costs_deal", N_("Once proven, the revoke voids the deal: it is dealt again.")),
    "none": ("revoke_costs_nothing", N_("The rules chosen give a revoke no penalty.")),
}


def confirm_needed(state: State, move: Move) -> list[Reason] | None:
    """What to ask before a move the table ruled (RULES.md 5.2): the revoke it is, once
    proven, costs what ``revoke_penalty`` says."""
    cost = Reason(*_REVOKE_COSTS[state.options.revoke_penalty])
    return common.ruling_question(apply, state, move, cost)
