"""Tantony, David Parlett's partnership game of runts and given tricks (RULES.md §3).

No trumps; follow suit. A trick is worth its *runt*, the lowest card of the suit led,
and its winner (the *sow*, or the *hog* when nobody followed) gives it to any player
who still has room: each player must end up with exactly 3 tricks (4 with 3 players).
With 4 players the 13th trick is special: the winner swaps cards with the runt's player
and scores the runt as a 4th card. The tricks a player holds become their next hand,
so from deal 2 every hand is known and a wrong card is refused at once.

>>> s = start(["N", "E", "S", "W"], {"dealer": "W"})      # N leads
>>> for card in ["9D", "3D", "7D", "10D"]:
...     s = apply(s, {"type": "play", "card": card})
>>> v = view(s)
>>> v["to_act"], v["expects"], v["last_trick"]["runt"], v["last_trick"]["value"]
('W', ['give'], '3D', 3)
>>> s = apply(s, {"type": "give", "to": "S"})              # TT-04: S then leads
>>> view(s)["to_act"]
'S'

Decisions where RULES.md leaves the engine a choice (besides C1-C8):

* **A forced gift is placed by the engine.** When only one player has room (always
  the case for the last placed trick), the trick goes there without a ``give`` move.
* **From deal 2 the card led names the recipient** (RULES.md §3.4, implied gift): every
  hand is known and the recipient leads the next trick, so a ``play`` while a gift is
  awaited gives the trick to the card's holder and plays it, one tap for both. It is
  refused when that holder has no room; ``give`` stays for anyone who prefers it.
* **Deal 1 (hidden hands)** accepts any card not yet played and audits every earlier
  play of that player in hindsight; a proven failure to follow is flagged on its
  trick (RULES.md §3.14). The rules give no penalty, so the flag is the referee's word
  and the table decides. From deal 2 (unless the previous deal was tallied) hands are
  known and a wrong card is refused with the legal ones listed.
* **Penguin last-card rule** (``last_card_rule = "penguin2008"``): after 12 tricks
  each player turns up their last card, entered as a ``play`` in turn from the
  12th trick's recipient; the lowest rank (any suit) scores for its holder, ties all.
* **Sudden death** (``sudden_death``, usual: on with fixed partnerships only) uses
  the same 60-per-deal line for every mode when turned on.

Seed 003 read the other way (issue 18), each an option named after the text:

* **Three players score each for themself** (``partnership_mode = "individual"``, the
  usual for 3: a 3-player table's "fixed" means the same). The seed's three-player
  section ("change the following from the 4-player rules") runs straight on into
  split partnership; ``"split"`` is that reading, one tap away. We keep individual
  scores as the default because the split paragraph itself calls individual scoring
  the basic count (「基本の得点計算は個人集計ですが」). Four players never play each for
  themself: no text has it.
* **The line after the last deal** (``sudden_death_last_deal``): the seed says the
  game ends early when a line is reached "before deal 4" (「4ディールを迎える前」) and
  then lists 240 after deal 4. On (the usual) follows the list: 240 after deal 4 is a
  double win; off follows "before": after the last deal the higher total wins one game.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, cast

from companion.cards import PACK_36_NO_7, PACK_52, Card
from companion.errors import N_, IllegalMove, InvalidMove, OptionError, Reason
from companion.games import common, tricks
from companion.games.common import Move, Record, Start
from companion.games.common import is_int as _is_int

NAME = "tantony"
TITLE = N_("Tantony")

#: The refusals a table may rule against (RULES.md 5.2): following suit with a known hand
#: (§3.3, deals 2-4). The rules name no penalty; the card stands as played.
RULABLE = frozenset({"must_follow"})
MIN_PLAYERS, MAX_PLAYERS = 3, 4
SEATING = N_(
    "Clockwise from the dealer's left. With four, partners sit opposite: "
    "players 1 and 3 (North, South) against 2 and 4 (East, West)."
)
COMPASS = ("N", "E", "S", "W")

#: RULES.md §3.3: A K Q J 10 ... 2, no trumps.
STRENGTH = {r: i for i, r in enumerate(("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"))}
#: Trick values by scale (RULES.md §3.3, §3.10); 2-10 are worth their face value.
COURTS = {
    "web2023": {"J": 15, "Q": 20, "K": 25, "A": 30},
    "penguin2008": {"J": 15, "Q": 15, "K": 15, "A": 20},
    "shifted": {"J": 10, "Q": 15, "K": 20, "A": 25},  # 3 players, three_player_values = "shifted"
}
THRESHOLD = 60  # RULES.md §3.8: 60 x deal number

#: One-tap starts on the new-game form (the first is the usual game).
STARTS = {
    "web2023": Start(N_("Web rules 2023"), N_("J 15, Q 20, K 25, A 30; a 13th trick swaps the runt")),
    "penguin2008": Start(
        N_("Penguin book 2008"),
        N_("Courts 15, A 20; 12 tricks, the lowest last card scores"),
        {"value_scale": "penguin2008", "last_card_rule": "penguin2008"},
    ),
    "split": Start(
        N_("Split partners"),
        N_("Each scores their own and their left neighbour's points: with 3 players, seed 003's other reading"),
        {"partnership_mode": "split"},
    ),
}

#: Each option's name on screen.
OPTION_LABELS = {
    "partnership_mode": N_("Partners"),
    "value_scale": N_("Trick values"),
    "last_card_rule": N_("The last card"),
    "deals": N_("Deals in a game"),
    "sudden_death": N_("Sudden death at 60 a deal"),
    "three_player_values": N_("Court values with 3 players"),
    "sudden_death_last_deal": N_("Sudden death after the last deal too"),
}

OPTION_HELP = {
    "partnership_mode": N_(
        "Fixed partners opposite (4 players), each for themself (3), or split: own + left-hand neighbour's "
        "points (seed 003 reads either way for 3)."
    ),
    "value_scale": N_("Trick values: web 2023 (J 15, Q 20, K 25, A 30) or Penguin 2008 (courts 15, A 20)."),
    "last_card_rule": N_(
        "Web 2023: a 13th trick whose winner swaps for the runt. Penguin 2008: 12 tricks, "
        "then the lowest last card scores."
    ),
    "deals": N_("Deals in a game (usual: 4, or 3 with 3 players)."),
    "sudden_death": (
        N_("A side reaching 60 x the deal number wins at once, as two games (usual: on with fixed partners).")
    ),
    "three_player_values": N_("3 players: court values as usual, or shifted down (J 10, Q 15, K 20, A 25)."),
    "sudden_death_last_deal": N_(
        "Seed 003 lists 240 after deal 4 as a double win but says “before deal 4”: on, the list (usual); off, "
        "the last deal only decides who has more."
    ),
}
CHOICES = {
    "partnership_mode": ("fixed", "split", "individual"),
    "value_scale": ("web2023", "penguin2008"),
    "last_card_rule": ("web2023", "penguin2008"),
    "three_player_values": ("same", "shifted"),
}
#: How each choice reads on screen (the values above are the API's codes).
CHOICE_LABELS = {
    "partnership_mode": {
        "fixed": N_("Fixed partners (with 3: each for themself)"),
        "split": N_("Split: own + left neighbour's"),
        "individual": N_("Each for themself (3 players)"),
    },
    "value_scale": {
        "web2023": N_("Web rules 2023 (J 15, Q 20, K 25, A 30)"),
        "penguin2008": N_("Penguin book 2008 (courts 15, A 20)"),
    },
    "last_card_rule": {
        "web2023": N_("Web rules 2023: the 13th trick"),
        "penguin2008": N_("Penguin book 2008: lowest last card"),
    },
    "three_player_values": {"same": N_("As usual"), "shifted": N_("Shifted down (J 10 … A 25)")},
}
USUAL = {"deals": N_("4, or 3 with 3 players")}


@dataclass(frozen=True)
class Options:
    """RULES.md §3.11. ``deals`` and ``sudden_death`` of None mean the usual for the table."""

    partnership_mode: str = "fixed"
    value_scale: str = "web2023"
    last_card_rule: str = "web2023"
    deals: int | None = None
    sudden_death: bool | None = None
    three_player_values: str = "same"
    sudden_death_last_deal: bool = True


OPTION_NAMES = tuple(Options.__dataclass_fields__)


def resolve_options(options: dict[str, Any] | Options | None, players: int | None = None) -> Options:
    """Validate an options dict (RULES.md §3.11) into :class:`Options`, usual values filled in.

    >>> o = resolve_options(None, 4)
    >>> o.deals, o.sudden_death
    (4, True)
    >>> resolve_options({"partnership_mode": "split"}, 3).deals
    3
    >>> resolve_options(None, 3).partnership_mode          # seed 003 read as individual scores
    'individual'
    """
    if isinstance(options, Options):
        return options
    given, count = common.read_options(options, players, sys.modules[__name__], TITLE)
    deals = given.get("deals")
    if deals is not None and (not _is_int(deals) or not 1 <= deals <= 12):
        raise OptionError(
            "deals_range", "deals must be a whole number from 1 to 12 (not %(value)r)", option="deals", value=deals
        )
    sudden = given.get("sudden_death")
    if sudden is not None and not isinstance(sudden, bool):  # bool or None: read_options checks bools only
        raise OptionError(
            "not_bool", "%(option)s must be true or false (not %(value)r)", option="sudden_death", value=sudden
        )
    if count is not None:
        mode = given.get("partnership_mode", "fixed")
        if mode == "individual" and count == 4:
            raise OptionError(
                "individual_needs_3",
                "Each for themself is the 3-player scoring; 4 players play fixed or split partners (%(rule)s).",
                option="partnership_mode",
                rule="Tantony 3.10",
            )
        if mode == "fixed" and count == 3:  # no partners opposite with 3: the usual, each for themself
            given["partnership_mode"] = "individual"
        if deals is None:
            given["deals"] = 3 if count == 3 else 4
        if sudden is None:
            given["sudden_death"] = count == 4 and given.get("partnership_mode", "fixed") == "fixed"
    return Options(**given)


def _code(card: str | Card) -> str:
    return str(Card.parse(card))


def trick_winner(trick: Iterable[str | Card]) -> int:
    """Index of the winner: the highest card of the suit led (RULES.md §3.3).

    >>> trick_winner(["6S", "10S", "QS", "2S"])
    2
    """
    return tricks.trick_winner([_code(c) for c in trick], None, STRENGTH)


def runt(trick: Iterable[str | Card]) -> str:
    """The trick's runt: the lowest card of the suit led (RULES.md §3.3).

    >>> runt(["9S", "5S", "QS", "3H"])
    '5S'
    """
    cards = [_code(c) for c in trick]
    led = [c for c in cards if c[-1] == cards[0][-1]]
    return min(led, key=lambda c: STRENGTH[c[:-1]])


def exchange(trick: Iterable[str | Card]) -> tuple[int, int] | None:
    """The 13th trick's exchange (RULES.md §3.5): ``(runt index, winner index)`` when the
    winner swaps their card for the runt, or None when the winner's card is the runt.

    >>> exchange(["AS", "QH", "KS", "8H"])      # TT-07: N takes KS, S gets AS
    (2, 0)
    """
    w, low = trick_winner(trick), runt(trick)
    i = [_code(c) for c in trick].index(low)
    return None if i == w else (i, w)


def kept(trick: Iterable[str | Card]) -> list[str]:
    """The card each player of the 13th trick keeps for the next hand (RULES.md §3.5, §3.7):
    their own, except that the winner and the runt's player swap.

    >>> kept(["AS", "QH", "KS", "8H"])      # TT-07/TT-09: N keeps KS, S keeps AS
    ['KS', 'QH', 'AS', '8H']
    """
    cards = [_code(c) for c in trick]
    swap = exchange(cards)
    if swap:
        i, w = swap
        cards[i], cards[w] = cards[w], cards[i]
    return cards


def card_value(card: str | Card, options: dict[str, Any] | Options | None = None, players: int = 4) -> int:
    """What a runt scores (RULES.md §3.3, §3.10).

    >>> card_value("AS"), card_value("AS", {"value_scale": "penguin2008"})
    (30, 20)
    """
    o = resolve_options(options)
    scale = "shifted" if players == 3 and o.three_player_values == "shifted" else o.value_scale
    rank = _code(card)[:-1]
    return COURTS[scale].get(rank) or int(rank)


def trick_quota(players: int) -> int:
    """RULES.md §3.4 / §3.10: each player receives 3 tricks (4 with 3 players)."""
    return 4 if players == 3 else 3


def gift_refusal(held: dict[str, int], to: str, players: int) -> Reason | None:
    """Why a trick may not be given to ``to`` (one of the ``players`` players, each holding
    ``held`` tricks), or None.

    >>> why = gift_refusal({"N": 3, "E": 3, "S": 2, "W": 3}, "N", 4)    # TT-06
    >>> str(why)
    'N already holds 3 tricks, the most anyone may (Tantony 3.4, C8). Only S has room.'
    >>> why.code, why.rule, why.params["room"]
    ('full_one_room', 'Tantony 3.4', 'S')
    >>> str(gift_refusal({"N": 3, "E": 2, "S": 2, "W": 3}, "W", 4))
    'W already holds 3 tricks, the most anyone may (Tantony 3.4, C8). Players with room: E, S.'
    """
    most = trick_quota(players)
    if held[to] < most:
        return None
    room = [p for p, n in held.items() if n < most]
    if len(room) == 1:
        return Reason(
            "full_one_room",
            "%(player)s already holds %(held)s tricks, the most anyone may (%(rule)s, C8). Only %(room)s has room.",
            rule="Tantony 3.4",
            player=to,
            held=held[to],
            room=room[0],
        )
    return Reason(
        "full",
        "%(player)s already holds %(held)s tricks, the most anyone may (%(rule)s, C8). Players with room: %(room)s.",
        rule="Tantony 3.4",
        player=to,
        held=held[to],
        room=", ".join(room),
    )


def legal_plays(hand: Iterable[str | Card], trick: Iterable[str | Card]) -> set[str]:
    """Follow suit if able, else anything (RULES.md §3.3)."""
    return set(tricks.legal_plays([_code(c) for c in hand], [_code(c) for c in trick], None, STRENGTH, must_head=False))


# ---------------------------------------------------------------------------
# The game
# ---------------------------------------------------------------------------


@dataclass
class State(common.BaseState[Options]):
    deal: int = 1
    leader: int = 0
    trick: list[list[Any]] = field(default_factory=list)  # [[seat, card], ...]
    tricks: list[Record] = field(default_factory=list)  # finished tricks of this deal
    hands: list[list[str]] | None = None  # per seat, the cards still held, when known
    revokes: list[Record] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)  # per side, cumulative
    history: list[Record] = field(default_factory=list)
    result: Record | None = None
    rulings: list[Record] = field(default_factory=list)  # the table's, RULES.md 5.2


def start(players: list[str], options: dict[str, Any] | None = None) -> State:
    """A new game; the player after the dealer leads (RULES.md §3.2)."""
    players, opts, seat = common.seat_players(players, options, resolve_options, MIN_PLAYERS, MAX_PLAYERS, TITLE)
    s = State(opts, players, seat)
    s.scores = [0] * len(sides(s))
    s.leader = (s.dealer + 1) % len(players)
    return s


def pack(players: int) -> tuple[Card, ...]:
    """RULES.md §3.2, §3.10: 52 cards, or 36 without 7-10 for 3 players."""
    return PACK_36_NO_7 if players == 3 else PACK_52


#: :func:`pack` as codes ("QS"), by players: every view lists it, and writing out 52 cards
#: anew was a tenth of a view's time.
_PACK_CODES = {3: tuple(str(c) for c in PACK_36_NO_7), 0: tuple(str(c) for c in PACK_52)}


def pack_codes(players: int) -> list[str]:
    """:func:`pack`'s cards as codes."""
    return list(_PACK_CODES[3 if players == 3 else 0])


def _fixed(s: State) -> bool:
    return len(s.players) == 4 and s.options.partnership_mode == "fixed"


def sides(state: State) -> list[list[str]]:
    """Fixed partners (seats 0+2 and 1+3), else every player for themself."""
    p = state.players
    return [[p[0], p[2]], [p[1], p[3]]] if _fixed(state) else [[x] for x in p]


def labels(state: State) -> list[str]:
    return [common.side_label(side) for side in sides(state)]


def quota(state: State) -> int:
    """RULES.md §3.4 / §3.10: 3 tricks each (4 with 3 players)."""
    return trick_quota(len(state.players))


def _placed(s: State) -> int:
    """How many tricks are given away: 12 in every mode."""
    return quota(s) * len(s.players)


def tricks_per_deal(state: State) -> int:
    """13 with 4 players (the 13th trick or the last cards), 12 with 3."""
    return _placed(state) + (1 if len(state.players) == 4 else 0)


def _held(s: State) -> list[int]:
    held = [0] * len(s.players)
    for t in s.tricks:
        if t["to"] is not None and t["n"] <= _placed(s):
            held[t["to"]] += 1
    return held


def room(state: State) -> list[int]:
    """Seats that may still receive a trick (RULES.md §3.4, C8)."""
    return [i for i, h in enumerate(_held(state)) if h < quota(state)]


def _awaiting_gift(s: State) -> bool:
    return bool(s.tricks) and s.tricks[-1]["to"] is None and s.tricks[-1]["n"] <= _placed(s)


def to_act(state: State) -> int | None:
    if state.result is not None:
        return None
    if _awaiting_gift(state):
        winner: int = state.tricks[-1]["winner"]
        return winner
    return (state.leader + len(state.trick)) % len(state.players)


def expects(state: State) -> list[str]:
    if state.result is not None:
        return []
    if _awaiting_gift(state):
        return ["give", "play"] if state.hands is not None else ["give"]
    if not state.tricks and not state.trick:
        return ["play", "tally"]
    return ["play"]


def apply(state: State, move: Move) -> State:
    """Apply one move and return the new state; ``state`` itself is never changed."""
    gift = implied_gift(state, move)
    if gift is not None:  # RULES.md §3.4: the card led gives the trick to its holder first
        state = common.apply_move(state, gift, _MOVES, expects, to_act, _wrong_time, TITLE)
        state.tricks[-1]["implied"] = True
    return common.apply_move(state, move, _MOVES, expects, to_act, _wrong_time, TITLE)


def implied_gift(state: State, move: object) -> Move | None:
    """The ``give`` a card led implies (RULES.md §3.4, from deal 2): while the winner of a
    trick has yet to give it and every hand is known, the card's holder is the recipient,
    who leads next. None when the move implies no gift (deal 1, no gift awaited, a card
    nobody holds: the move is then judged as it is). A holder without room is refused.

    >>> s = start(["N", "E", "S", "W"], {"dealer": "W"})
    >>> s.hands = [["2S", "9C"], ["3S"], ["4S"], ["5S"]]  # known hands, as from deal 2
    >>> s.tricks = [{"n": 1, "leader": 0, "cards": [], "winner": 3, "runt": "2D", "value": 2,
    ...              "hog": False, "to": None, "forced": False}]
    >>> implied_gift(s, {"type": "play", "card": "4S"})
    {'type': 'give', 'to': 'S'}
    """
    if not (isinstance(move, dict) and move.get("type") == "play" and _awaiting_gift(state)):
        return None
    if state.hands is None or state.result is not None:
        return None
    code = move.get("card")
    try:
        card = _code(code) if isinstance(code, str) else None
    except ValueError:
        card = None
    if card is None:
        return None
    holder = next((i for i, hand in enumerate(state.hands) if card in hand), None)
    if holder is None:
        return None
    name = state.players[holder]
    why = gift_refusal(dict(zip(state.players, _held(state))), name, len(state.players))
    if why is not None:
        raise IllegalMove(
            "implied_gift_full",
            "%(card)s is %(player)s's, who already holds %(n)s tricks: %(giver)s gives trick %(trick)s to a "
            "player with room, who then leads (%(rule)s).",
            rule="Tantony 3.4",
            card=card,
            player=name,
            n=_held(state)[holder],
            giver=state.players[state.tricks[-1]["winner"]],
            trick=state.tricks[-1]["n"],
        )
    return {"type": "give", "to": name}


def _wrong_time(s: State, kind: str) -> Reason:
    if _awaiting_gift(s):
        winner = s.players[s.tricks[-1]["winner"]]
        return Reason(
            "give_first",
            "%(player)s won the trick and gives it first: to whom? (%(rule)s)",
            rule="Tantony 3.4",
            player=winner,
        )
    if kind == "give":
        last = s.tricks[-1] if s.tricks else None
        if last and last.get("forced"):
            return Reason(
                "gift_forced",
                "The trick went to %(player)s by itself: nobody else had room (%(rule)s).",
                rule="Tantony 3.4",
                player=s.players[last["to"]],
            )
        return Reason(
            "give_not_now",
            "Only the winner of a trick gives it away, right after it is won (%(rule)s).",
            rule="Tantony 3.4",
        )
    # A card is expected whenever no gift is (common.apply_move refuses any move once the
    # game is over): what is left is a tally after the deal's first card.
    assert kind == "tally", kind
    return Reason("tally_too_late", "A deal can be tallied only before its first card.")


def _play(s: State, move: Move) -> None:
    if "card" not in move:
        raise InvalidMove("missing_card", "The move needs a 'card'")
    card = _code(move["card"])
    n = len(s.players)
    seat = to_act(s)
    assert seat is not None  # the game is not over (apply_move checks), so someone is to act
    name = s.players[seat]
    if Card.parse(card) not in pack(n):
        raise IllegalMove(
            "not_in_pack",
            "%(card)s is not in the pack: 3-player Tantony uses 36 cards, without 7s to 10s (%(rule)s).",
            rule="Tantony 3.10",
            card=card,
        )
    tricks.check_unplayed(card, s.tricks, s.trick)
    before = [c for _, c in s.trick]
    if s.hands is not None:
        hand = s.hands[seat]
        if card not in hand:  # from deal 2 every card not played yet is in a hand (check_unplayed)
            holder = next(s.players[i] for i, h in enumerate(s.hands) if card in h)
            raise IllegalMove(
                "not_your_card",
                "%(card)s is in %(holder)s's hand, not %(player)s's (hands are known from deal 2, %(rule)s).",
                rule="Tantony 3.7",
                card=card,
                holder=holder,
                player=name,
            )
        legal = legal_plays(hand, before)  # Penguin's last cards too: a hand of one, which is always legal
        if card not in legal:
            refusal = Reason(
                "must_follow",
                "%(player)s must follow suit: %(player)s holds %(cards)s (%(rule)s).",
                rule="Tantony 3.3",
                player=name,
                cards=sort_cards(legal),
            )
            common.rule_on(s, s.deal, seat, move, refusal, RULABLE, sort_cards(legal))  # RULES.md 5.2
        hand.remove(card)
    s.trick.append([seat, card])
    if len(s.trick) == n:
        _close_trick(s)
    if s.hands is None:
        s.revokes = _audit(s)
    if len(s.tricks) == tricks_per_deal(s):
        _end_of_deal(s)


def _revealing(s: State) -> bool:
    """Penguin last-card rule: after 12 tricks the last cards are turned up, not played to a trick."""
    return len(s.players) == 4 and s.options.last_card_rule == "penguin2008" and len(s.tricks) == _placed(s)


def sort_cards(cards: Iterable[str]) -> list[str]:
    """By suit (S H D C), high to low within a suit."""
    return sorted(cards, key=lambda c: ("SHDC".index(c[-1]), -STRENGTH[c[:-1]]))


def _close_trick(s: State) -> None:
    cards = [c for _, c in s.trick]
    n = len(s.tricks) + 1
    record: Record = {"n": n, "leader": s.leader, "cards": s.trick}
    if _revealing(s):
        lowest = min(STRENGTH[c[:-1]] for c in cards)
        record |= {
            "last_cards": True,
            "winner": None,
            "runt": None,
            "value": 0,
            "to": None,
            "forced": False,
            "scoring": [[p, c, _value(s, c)] for p, c in s.trick if STRENGTH[c[:-1]] == lowest],
        }
        s.tricks.append(record)
        s.trick = []
        return
    w = tricks.trick_winner(cards, None, STRENGTH)
    low = runt(cards)
    win_seat = s.trick[w][0]
    record |= {
        "winner": win_seat,
        "runt": low,
        "value": _value(s, low),
        "hog": all(c[-1] != cards[0][-1] for c in cards[1:]),
        "to": None,
        "forced": False,
    }
    s.tricks.append(record)
    s.trick = []
    if n <= _placed(s):
        open_seats = room(s)
        if len(open_seats) == 1:  # RULES.md §3.4: forced onto the only player with room
            record["to"], record["forced"] = open_seats[0], True
            s.leader = open_seats[0]
    else:  # RULES.md §3.5: the 13th trick; its winner leads nothing more
        record["to"] = win_seat
        swap = exchange(cards)
        record["exchange"] = None if swap is None else [record["cards"][swap[0]][0], cards[w]]


def _value(s: State, card: str) -> int:
    return card_value(card, s.options, len(s.players))


def _give(s: State, move: Move) -> None:
    to = move.get("to")
    if to not in s.players:
        raise InvalidMove("not_a_player", "'to' must name a player: %(players)s", players=", ".join(s.players))
    why = gift_refusal(dict(zip(s.players, _held(s))), to, len(s.players))
    if why:
        raise IllegalMove(why)
    seat = s.players.index(to)
    s.tricks[-1]["to"] = seat
    s.leader = seat  # RULES.md §3.4: the recipient leads the next trick


#: A failure to follow suit (RULES.md 3.3) the audit proves (3.14), by what proves it: a card the player played
#: later, or their last card under Penguin's rule, turned up after trick 12 and never played (C2).
_REVOKED = {
    False: (
        "revoke_follow",
        N_(
            "%(player)s played %(card)s in trick %(trick)s without following suit: %(proof)s, played later, "
            "was in the hand then (%(rule)s)."
        ),
    ),
    True: (
        "revoke_follow_turned_up",
        N_(
            "%(player)s played %(card)s in trick %(trick)s without following suit: %(proof)s, turned up after "
            "trick 12, was in the hand then (%(rule)s)."
        ),
    ),
}


def _audit(s: State) -> list[Record]:
    def check(hand: frozenset[str], before: tuple[str, ...], trump: str | None, card: str) -> str | None:
        return tricks.broken_duty(hand, before, None, card, STRENGTH, must_head=False)

    plays = []
    turned_up: dict[int, list[str]] = {}  # Penguin's last cards: no trick, yet each was in its holder's hand
    for t in s.tricks + [{"n": len(s.tricks) + 1, "cards": s.trick}]:
        if t.get("last_cards"):
            turned_up = {seat: [c] for seat, c in t["cards"]}
            continue
        cards = [c for _, c in t["cards"]]
        plays += [tricks.Play(t["n"], seat, c, tuple(cards[:i]), None) for i, (seat, c) in enumerate(t["cards"])]
    return tricks.revokes(
        plays,
        turned_up,
        check,
        s.players,
        lambda r: Reason(
            *_REVOKED[r["proof"] in turned_up.get(r["seat"], ())],
            rule="Tantony 3.3",
            player=r["player"],
            card=r["card"],
            trick=r["trick"],
            proof=r["proof"],
        ),
    )


def _scoring(s: State) -> list[list[str]]:
    """Each seat's scoring cards this deal so far (RULES.md §3.4-3.6)."""
    out: list[list[str]] = [[] for _ in s.players]
    for t in s.tricks:
        if t.get("last_cards"):
            for p, c, _ in t["scoring"]:
                out[p].append(c)
        elif t["to"] is not None:  # the last trick's is its winner (§3.5)
            out[t["to"]].append(t["runt"])
    return out


def _next_hands(s: State) -> list[list[str]]:
    """RULES.md §3.7: the cards of the tricks held, plus the card kept from the last trick."""
    hands: list[list[str]] = [[] for _ in s.players]
    for t in s.tricks:
        if t.get("last_cards"):
            for p, c in t["cards"]:
                hands[p].append(c)  # Penguin: each keeps their own last card
        elif t["n"] <= _placed(s):
            hands[t["to"]] += [c for _, c in t["cards"]]
        else:
            for (p, _), card in zip(t["cards"], kept([c for _, c in t["cards"]])):
                hands[p].append(card)
    return [sort_cards(h) for h in hands]


def deal_points(own: dict[str, int], partnership_mode: str = "fixed") -> dict[str, int]:
    """Each side's deal points from each player's own runts, players in seat order
    (RULES.md §3.6, §3.9): fixed partners (4 players) add up; split players add their
    left-hand neighbour's; otherwise (3 players, "fixed" or "individual") each their own.

    >>> deal_points({"N": 10, "E": 20, "S": 30, "W": 40})
    {'N & S': 40, 'E & W': 60}
    >>> deal_points({"A": 10, "B": 20, "C": 30}, "split")     # seed 003: own + left neighbour's
    {'A': 30, 'B': 50, 'C': 40}
    """
    names, points = list(own), list(own.values())
    n = len(names)
    if n == 4 and partnership_mode == "fixed":
        return {f"{names[0]} & {names[2]}": points[0] + points[2], f"{names[1]} & {names[3]}": points[1] + points[3]}
    if partnership_mode == "split":
        return {names[i]: points[i] + points[(i + 1) % n] for i in range(n)}
    return dict(own)


def _side_points(s: State, individual: list[int]) -> list[int]:
    """Fixed partners add up; split players add their left-hand neighbour's (RULES.md §3.9)."""
    return list(deal_points(dict(zip(s.players, individual)), s.options.partnership_mode).values())


def _end_of_deal(s: State) -> None:
    hands = _next_hands(s)
    _score_deal(s, _scoring(s), tallied=False)
    s.hands = hands  # RULES.md §3.7: from now on every hand is known


def _score_deal(s: State, scoring: list[list[str]], tallied: bool) -> None:
    individual = [sum(_value(s, c) for c in cards) for cards in scoring]
    side_points = _side_points(s, individual)
    for i, p in enumerate(side_points):
        s.scores[i] += p
    names = labels(s)
    s.history.append(
        {
            "deal": s.deal,
            "dealer": s.players[s.dealer],
            "points": dict(zip(names, side_points)),
            "individual": dict(zip(s.players, individual)),
            "scoring": {p: sort_cards(c) for p, c in zip(s.players, scoring)},
            "scores": dict(zip(names, s.scores)),
            "tallied": tallied,
            "revokes": [{k: r[k] for k in ("player", "trick", "card", "proof", "reason")} for r in s.revokes],
            **common.deal_rulings(s, s.deal),
            # The deal's last trick (its exchange), for the screen that ends the deal (a tally has none).
            "last": _trick_view(s, s.tricks[-1]) if s.tricks and not tallied else None,
        }
    )
    _game_end(s)
    s.deal += 1
    s.dealer = (s.dealer + 1) % len(s.players)  # RULES.md §3.2: the deal passes to D+1
    s.leader = (s.dealer + 1) % len(s.players)  # C4: D+1 leads every deal
    s.trick, s.tricks, s.revokes = [], [], []


def sudden_death_line(deal: int, deals: int = 4, sudden_death: bool = True, last_deal: bool = True) -> int | None:
    """The sudden-death line after ``deal`` (RULES.md §3.8): 60 x the deal number, or None
    when none applies (sudden death off, or the last deal read as seed 003's "before deal 4").

    >>> sudden_death_line(4), sudden_death_line(4, last_deal=False), sudden_death_line(3, last_deal=False)
    (240, None, 180)
    """
    if not sudden_death or (deal >= deals and not last_deal):
        return None
    return THRESHOLD * deal


def verdict(
    scores: dict[str, int], deal: int, deals: int = 4, sudden_death: bool = True, last_deal: bool = True
) -> Record | None:
    """The game's result after ``deal`` with these cumulative ``scores``, or None to play on
    (RULES.md §3.8, C5): a side alone at 60 x deal or more wins at once, as two games;
    level leaders past the line play on; after the last deal the higher total wins.
    ``last_deal`` (option ``sudden_death_last_deal``): the line holds after the last deal too.

    >>> verdict({"N & S": 125, "E & W": 70}, 2)["double"]      # TT-11
    True
    >>> verdict({"N & S": 59, "E & W": 30}, 1) is None          # TT-10
    True
    >>> verdict({"N & S": 250, "E & W": 190}, 4, last_deal=False)["double"]   # seed 003: "before deal 4"
    False
    """
    names = list(scores)
    line = sudden_death_line(deal, deals, sudden_death, last_deal)
    top = max(scores.values())
    leaders = [n for n in names if scores[n] == top]
    if line is not None and top >= line and len(leaders) == 1:
        return {
            "winners": leaders,
            "losers": [x for x in names if x not in leaders],
            "draw": False,
            "double": True,
            "reason": [
                Reason(
                    "sudden_death",
                    "%(player)s reached %(top)s, at least %(line)s after deal %(deal)s: sudden death, a double win "
                    "(%(rule)s).",
                    rule="Tantony 3.8",
                    player=leaders[0],
                    top=top,
                    line=line,
                    deal=deal,
                ).as_data()
            ],
        }
    if deal >= deals:
        draw = len(leaders) > 1
        return {
            "winners": leaders,
            "losers": [x for x in names if x not in leaders],
            "draw": draw,
            "double": False,
            "reason": [_final_reason(leaders, top, deal, draw).as_data()],
        }
    return None


def _final_reason(leaders: list[str], top: int, deals: int, draw: bool) -> Reason:
    """Why the game ended after its last deal: a draw, or who has the most points."""
    if draw:
        return Reason(
            "final_draw",
            N_("Level on %(top)s after %(deals)s deal: a draw (%(rule)s).")
            if deals == 1
            else N_("Level on %(top)s after %(deals)s deals: a draw (%(rule)s)."),
            rule="Tantony 3.8",
            top=top,
            deals=deals,
        )
    return Reason(
        "final_most_points",
        N_("%(player)s has the most points after %(deals)s deal (%(rule)s).")
        if deals == 1
        else N_("%(player)s has the most points after %(deals)s deals (%(rule)s)."),
        rule="Tantony 3.8",
        player=leaders[0],
        deals=deals,
    )


def _game_end(s: State) -> None:
    deals, sudden_death = s.options.deals, s.options.sudden_death
    assert deals is not None and sudden_death is not None  # start() resolves both for its players
    last = s.options.sudden_death_last_deal
    s.result = verdict(dict(zip(labels(s), s.scores)), s.deal, deals, sudden_death, last)
    s.history[-1]["line"] = sudden_death_line(s.deal, deals, sudden_death, last)


def _tally(s: State, move: Move) -> None:
    """A whole deal from its end: each player's scoring cards (DESIGN.md tally)."""
    scoring = move.get("scoring")
    if not isinstance(scoring, dict) or set(scoring) != set(s.players):
        raise InvalidMove(
            "tally_needs_scoring",
            "A tally needs 'scoring' cards for each player: %(players)s",
            players=", ".join(s.players),
        )
    cards = {p: [_code(c) for c in v] if isinstance(v, list) else None for p, v in scoring.items()}
    if any(v is None for v in cards.values()):
        raise InvalidMove("scoring_not_a_list", "Each player's scoring cards are a list of cards")
    scored = cast("dict[str, list[str]]", cards)  # every value a list: the check above
    every = [c for v in scored.values() for c in v]
    dup = next((c for c in every if every.count(c) > 1), None)
    if dup:
        raise IllegalMove("listed_twice", "%(card)s is listed twice: every card scores once at most.", card=dup)
    outside = [c for c in every if Card.parse(c) not in pack(len(s.players))]
    if outside:
        raise IllegalMove("listed_not_in_pack", "%(card)s is not in the pack.", card=outside[0])
    counts = sorted(len(v) for v in scored.values())
    q = quota(s)
    if len(s.players) == 3:
        if counts != [q] * 3:
            raise IllegalMove(
                "runts_3p",
                "With 3 players each player scores exactly %(quota)s runts (%(rule)s).",
                rule="Tantony 3.10",
                quota=q,
            )
    elif s.options.last_card_rule == "web2023":
        if counts != [3, 3, 3, 4]:
            raise IllegalMove(
                "runts_13th",
                "Each player scores 3 runts and the 13th trick's winner a 4th (%(rule)s).",
                rule="Tantony 3.5",
            )
    elif counts[0] < 3 or sum(counts) < 13:
        raise IllegalMove(
            "runts_last_card",
            "Each player scores 3 runts, and the lowest last card scores too (%(rule)s).",
            rule="Tantony 3.5",
        )
    _score_deal(s, [scored[p] for p in s.players], tallied=True)
    s.hands = None  # DESIGN.md: after a tallied deal the hands are not known


_MOVES = {"play": _play, "give": _give, "tally": _tally}


# ---------------------------------------------------------------------------
# Reading the state
# ---------------------------------------------------------------------------


def view(state: State) -> Record:
    """A JSON-ready summary (DESIGN.md view keys for tantony, and what the app shows)."""
    s, names = state, state.players
    act = to_act(s)
    scoring = _scoring(s)
    individual = [sum(_value(s, c) for c in cards) for cards in scoring]
    held = _held(s)
    trick_cards = [c for _, c in s.trick]
    last = s.tricks[-1] if s.tricks else None
    legal = None
    if s.hands is not None and act is not None and _awaiting_gift(s):  # §3.4: whoever receives it leads
        legal = sort_cards(c for i in room(s) for c in s.hands[i])
    elif s.hands is not None and act is not None and "play" in expects(s):
        legal = sort_cards(legal_plays(s.hands[act], trick_cards))  # a last card turned up: a hand of one
    return {
        **common.view_head(s, NAME, sides(s), s.deal, act, expects(s)),
        "deals": s.options.deals,
        "scores": dict(zip(labels(s), s.scores)),
        "deal_points": dict(zip(labels(s), _side_points(s, individual))),
        "points": dict(zip(names, individual)),
        "scoring": {p: sort_cards(c) for p, c in zip(names, scoring)},
        "trick": [[names[p], c] for p, c in s.trick],
        "best": names[s.trick[trick_winner(trick_cards)][0]] if trick_cards and not _revealing(s) else None,
        "runt": runt(trick_cards) if trick_cards and not _revealing(s) else None,
        "held": dict(zip(names, held)),
        "quota": quota(s),
        "room": [names[i] for i in room(s)],
        "hands": None if s.hands is None else {p: sort_cards(h) for p, h in zip(names, s.hands)},
        "legal": legal,
        "revealing": _revealing(s),
        "revokes": [{k: r[k] for k in ("player", "trick", "card", "proof", "reason")} for r in s.revokes],
        "last_trick": None if last is None else _trick_view(s, last),
        "trick_number": len(s.tricks) + 1,
        "tricks_per_deal": tricks_per_deal(s),
        "line": sudden_death_line(
            s.deal, s.options.deals or 4, bool(s.options.sudden_death), s.options.sudden_death_last_deal
        ),
        "seen": sorted(tricks.played(s.tricks, s.trick)),
        "pack": pack_codes(len(names)),
        "compass": dict(zip(names, COMPASS)) if len(names) == 4 else None,
    }


def _trick_view(s: State, t: Record) -> Record:
    """A trick as the pages show it: its cards by name, winner, runt and its value, where
    it went (a gift), the 13th trick's exchange or the last cards turned up."""
    names = s.players
    return {
        "n": t["n"],
        "cards": [[names[p], c] for p, c in t["cards"]],
        "winner": None if t["winner"] is None else names[t["winner"]],
        "runt": t["runt"],
        "value": t["value"],
        "hog": t.get("hog", False),
        "to": None if t["to"] is None else names[t["to"]],
        "forced": t["forced"],
        "implied": t.get("implied", False),
        "exchange": None if not t.get("exchange") else [names[t["exchange"][0]], t["exchange"][1]],
        "scoring": [[names[p], c, v] for p, c, v in t.get("scoring", [])],
    }


dump, load = common.persistence(State, Options, TITLE)


def figures(view: Record) -> dict[str, dict[str, int]]:
    """Each team's figures for the statistics: deals, points, and a sudden death's double win."""
    result = view["result"] or {}
    return common.figures(
        view, per_game=lambda side: {"double": int(bool(result.get("double")) and side in result["winners"])}
    )


@common.narrated
def narrate(state: State, move: Move) -> list[Reason]:
    """One move in words for the log, from the state it led to: its sentences as data.

    >>> s = start(["Ann", "Ben", "Cat"])
    >>> [str(r) for r in narrate(apply(s, {"type": "play", "card": "2S"}), {"type": "play", "card": "2S"})]
    ['Ben played 2S.']
    """
    kind, names = move.get("type"), state.players
    if kind == "give":
        t = state.tricks[-1]
        return [
            Reason(
                "gave_trick",
                "%(player)s gave trick %(n)s (runt %(runt)s, %(value)s) to %(to)s.",
                player=names[t["winner"]],
                n=t["n"],
                runt=t["runt"],
                value=t["value"],
                to=names[t["to"]],
            )
        ]
    if kind == "tally":
        h = state.history[-1]
        return [Reason("tallied", "Deal %(deal)s tallied: %(scores)s.", deal=h["deal"], scores=h["points"])]
    if kind != "play":
        return [Reason("move", "A move %(move)r was entered.", move=kind)]
    card = _code(move["card"])
    given = state.tricks[-1] if state.tricks else None
    if len(state.trick) == 1 and given and given.get("implied"):  # this lead gave the trick before it (§3.4)
        return [
            Reason(
                "implied_gift",
                "%(player)s received trick %(n)s (runt %(runt)s, %(value)s): %(player)s led next (%(rule)s).",
                rule="Tantony 3.4",
                player=names[given["to"]],
                n=given["n"],
                runt=given["runt"],
                value=given["value"],
            ),
            Reason("played", "%(player)s played %(card)s.", player=names[state.trick[-1][0]], card=card),
        ]
    if state.trick:
        return [Reason("played", "%(player)s played %(card)s.", player=names[state.trick[-1][0]], card=card)]
    if not state.tricks:  # the deal ended
        h = state.history[-1]
        return [
            Reason(
                "ended_deal", "%(card)s ended deal %(deal)s: %(scores)s.", card=card, deal=h["deal"], scores=h["points"]
            )
        ]
    t = state.tricks[-1]
    if t.get("last_cards"):
        scored = {names[p]: c for p, c, _ in t["scoring"]}
        return [Reason("last_cards", "The last cards are turned up: %(scores)s.", scores=scored)]
    said = [
        Reason(
            "won_trick",
            "%(player)s played %(card)s; %(winner)s wins trick %(n)s, runt %(runt)s (%(value)s).",
            player=names[t["cards"][-1][0]],
            card=card,
            winner=names[t["winner"]],
            n=t["n"],
            runt=t["runt"],
            value=t["value"],
        )
    ]
    if t["forced"]:
        said.append(Reason("forced_gift", "It goes to %(to)s, the only one with room.", to=names[t["to"]]))
    return said


def confirm_needed(state: State, move: Move) -> list[Reason] | None:
    """What to ask before a move the table ruled (RULES.md 5.2): the rules name no penalty."""
    return common.ruling_question(apply, state, move, common.NO_PENALTY)
