"""The adding games 100, 99 (pagat and Itōke) and 98 (RULES.md §4).

Each player in turn plays a card onto the pile and announces the new total; a card may
add, subtract, set the total, or reverse the direction. Whoever would push the total
above the target (100, 99 or 98) loses the hand. The referee recomputes every total,
refuses a wrong announcement with the right one, keeps whose turn it is through
reversals, and checks a "can't go" claim against the hand the player shows.

>>> s = start(["A", "B", "C"], {"variant": "100", "dealer": "C"})   # A plays first
>>> for card in ["8H", "10D", "4C", "5H"]:                           # AD-01 .. AD-01d
...     s = apply(s, {"type": "play", "card": card})
>>> v = view(s)
>>> v["total"], v["direction"], v["to_act"]
(95, -1, 'A')
>>> s = apply(s, {"type": "lose", "hand": ["6S", "8S", "9S"]})       # AD-01e: verified
>>> view(s)["tokens"]["A"]
2

Decisions where RULES.md leaves the engine a choice (besides D1-D10):

* **A busting play ends the hand** as a loss for its player (whether or not a safe card
  was held: RULES.md §4.8); the app asks for a confirm first. The loss is "verified" only
  when the rest of the hand was shown with it (``hand``). With ``unforced_bust``
  "refused" (the seed's other reading) it is refused unless the hand shown holds no safe card.
* **Other implementations' 99s** are presets whose card effects are data
  (:data:`CARD_TABLES`): PlayAural's "Quentin C" (a jack skips, a 2 doubles or halves) and
  t_games' defaults and option groups (chicago, joker rules, gonzo). Jokers are not
  refereed: the card picker and the API know the 52 cards (the rules page says so).
* **Landing exactly on the target** (``exact_target``): play goes on, as the seed says
  (the total may equal the target); "others_lose" ends the hand there and every other
  player loses it, as PlayAural's 99 does (RULES.md 4.9; the Quentin C preset).
* **Play may start at the dealer's right** (``first_player``), anticlockwise; the deal
  then passes to the right too.
* **An announced total** is required only for a card that gives a choice; without it
  the move is ambiguous and the reachable totals are listed. For any other card a
  wrong announcement is refused with the right total.
* **Draws are not seen by the engine** (players draw from a real stock). It counts
  the stock to know when the pile is turned into a new stock (D4: all but its top
  card), which is when cards played earlier may appear again; ``late_draw`` is shown
  to the players as the reminder of what happens to a forgotten draw.
* **A "lose" claim with a shown hand** is refused when one of its cards was safe,
  naming it and the total it makes; without a hand it is recorded as unverified.
* ``loss_tally`` plays ``hands`` hands; the fewest losses win (a draw when several
  share it).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from companion.cards import PACK_52, Card
from companion.errors import N_, AmbiguousMove, IllegalMove, InvalidMove, OptionError, Reason
from companion.games import common
from companion.games.common import Move, Record, Start
from companion.games.common import is_int as _is_int

NAME = "hundred"
TITLE = N_("100 / 99 / 98")
#: As many players as two packs serve (RULES.md 4.2: the seed sets no maximum; 20 is our decision).
MIN_PLAYERS, MAX_PLAYERS = 2, 20
SEATING = N_("Clockwise from the dealer's left.")

#: The games: the seed's four (RULES.md 4.3) and the rule sets other programs play (RULES.md
#: 4.9: PlayAural's "Quentin C" 99; ichabod801/t_games' Ninety-Nine and its option groups).
TARGET = {
    "100": 100,
    "99": 99,
    "99itoya": 99,
    "98": 98,
    "99quentin": 99,
    "99tgames": 99,
    "99chicago": 99,
    "99jokerrules": 99,
    "99gonzo": 99,
}
#: Each game's name: on the scoreboard, its start and its choice on the new-game form, and the rules page.
VARIANT_TITLES = {
    "100": N_("100"),
    "99": N_("99 (pagat)"),
    "99itoya": N_("99 (Itōke)"),
    "98": N_("98"),
    "99quentin": N_("99 (Quentin C, PlayAural)"),
    "99tgames": N_("99 (t_games)"),
    "99chicago": N_("99 (t_games: chicago)"),
    "99jokerrules": N_("99 (t_games: joker rules)"),
    "99gonzo": N_("99 (t_games: gonzo)"),
}

#: What each game sets besides its cards (RULES.md 4.9): a named rule set, the one source for
#: every door that starts a game (the form's starts, the API, an import, the lab). Options
#: given with the variant override these, as Tablanette's ``PRESETS``. PlayAural's 99 ends a
#: hand landing exactly on 99; t_games lets the total go below 0 and refuses a card over 99
#: while a safe one is held.
PRESETS: dict[str, dict[str, Any]] = {
    "100": {},
    "99": {},
    "99itoya": {},
    "98": {},
    "99quentin": {"exact_target": "others_lose"},
    "99tgames": {"floor_at_zero": False, "unforced_bust": "refused"},
    "99chicago": {"floor_at_zero": False, "unforced_bust": "refused"},
    "99jokerrules": {"floor_at_zero": False, "unforced_bust": "refused"},
    "99gonzo": {"floor_at_zero": False, "unforced_bust": "refused"},
}


def _preset(variant: str) -> dict[str, Any]:
    """A variant's start on the new-game form: the variant and what it sets."""
    return {"variant": variant, **PRESETS[variant]}


#: One-tap starts on the new-game form (the first is the usual game).
STARTS = {
    "100": Start(VARIANT_TITLES["100"], N_("3 cards; a black ace: any total; 10: 100")),
    "99": Start(VARIANT_TITLES["99"], N_("Ace 1 or 10; 10 is ±10; king sets 99"), _preset("99")),
    "99itoya": Start(VARIANT_TITLES["99itoya"], N_("Jack reverses; 9 sets 99; black ace 0-99"), _preset("99itoya")),
    "98": Start(VARIANT_TITLES["98"], N_("4 cards each, face values, no reverse"), _preset("98")),
    "99quentin": Start(
        VARIANT_TITLES["99quentin"],
        N_("As PlayAural: a 2 doubles or halves, a 4 adds 4 and reverses, a jack skips, exactly 99 ends the hand"),
        _preset("99quentin"),
        more=True,
    ),
    "99tgames": Start(
        VARIANT_TITLES["99tgames"],
        N_("As t_games: a 3 skips, a 4 reverses, a 9 sets 99, a king is 0"),
        _preset("99tgames"),
        more=True,
    ),
    "99chicago": Start(
        VARIANT_TITLES["99chicago"],
        N_("t_games' chicago: a 9 skips, a 10 is -10, a king sets 99"),
        _preset("99chicago"),
        more=True,
    ),
    "99jokerrules": Start(
        VARIANT_TITLES["99jokerrules"],
        N_("t_games' joker rules without the jokers: a king reverses, a 9 is 0"),
        _preset("99jokerrules"),
        more=True,
    ),
    "99gonzo": Start(
        VARIANT_TITLES["99gonzo"],
        N_("t_games' gonzo without the jokers: an ace reverses, a 2 skips, a jack is -10"),
        _preset("99gonzo"),
        more=True,
    ),
}

#: Each option's name on screen.
OPTION_LABELS = {
    "variant": N_("Game"),
    "decks": N_("Packs"),
    "floor_at_zero": N_("The total never goes below 0"),
    "ace_high_99": N_("The ace in 99"),
    "itoya_black_ace": N_("A black ace in 99 (Itōke)"),
    "late_draw": N_("A forgotten draw"),
    "reverse_with_two_players": N_("A reverse with 2 players"),
    "match_format": N_("Keeping score"),
    "tokens": N_("Tokens each"),
    "hands": N_("Hands to play (loss tally)"),
    "next_dealer": N_("Who deals next"),
    "unforced_bust": N_("Going over with a safe card held"),
    "first_player": N_("Who plays first"),
    "exact_target": N_("Landing exactly on the target"),
}

OPTION_HELP = {
    "variant": N_(
        "Which game: 100, 99, the Itōke pack's 99, 98, or another program's 99 (PlayAural's Quentin C; "
        "t_games, its chicago, joker rules, gonzo)."
    ),
    "decks": N_("Packs shuffled together (usual: 2 with 7 or more players; 1 pack serves at most 17 hands of 3)."),
    "floor_at_zero": N_("A total never goes below 0."),
    "ace_high_99": N_("99: the ace counts 1 or this (the seed says 10; most tables say 11)."),
    "itoya_black_ace": N_("99 Itōke: a black ace raises the total to any value up to 99, or sets any value 0-99."),
    "late_draw": N_("A forgotten draw: draw 2 at the next turn, draw when noticed, or stay short."),
    "reverse_with_two_players": N_("Two players: a reverse changes nothing, or the same player plays again."),
    "match_format": N_("Tokens (lose one per hand lost; the last with tokens wins) or a tally of losses."),
    "tokens": N_("Tokens each at the start."),
    "hands": N_("Loss tally: how many hands to play."),
    "next_dealer": N_("Who deals the next hand: the next player clockwise, or the loser."),
    "unforced_bust": N_(
        "A card over the target while a safe card is held: a loss, or refused (a hand shown with no safe card loses)."
    ),
    "first_player": N_(
        "The dealer's left plays first, clockwise; or the dealer's right, anticlockwise (the seed says both)."
    ),
    "exact_target": N_(
        "A play that makes exactly the target: play goes on (the seed), or the hand ends and every other player "
        "loses it (PlayAural's 99)."
    ),
}
CHOICES = {
    "variant": tuple(TARGET),
    "ace_high_99": (10, 11),
    "itoya_black_ace": ("raise_only", "set_any"),
    "late_draw": ("next_turn", "any_time", "stays_short"),
    "reverse_with_two_players": ("no_effect", "same_player_again"),
    "match_format": ("tokens", "loss_tally"),
    "next_dealer": ("next", "loser"),
    "unforced_bust": ("loss", "refused"),
    "first_player": ("left", "right"),
    "exact_target": ("play_on", "others_lose"),
}
#: How each choice reads on screen (the values above are the API's codes).
CHOICE_LABELS = {
    "variant": VARIANT_TITLES,
    "ace_high_99": {10: N_("1 or 10"), 11: N_("1 or 11")},
    "itoya_black_ace": {"raise_only": N_("Raise to any total up to 99"), "set_any": N_("Set any total 0-99")},
    "late_draw": {
        "next_turn": N_("Draw 2 at the next turn"),
        "any_time": N_("Draw when noticed"),
        "stays_short": N_("Stay short"),
    },
    "reverse_with_two_players": {"no_effect": N_("Changes nothing"), "same_player_again": N_("The same player again")},
    "match_format": {"tokens": N_("Tokens"), "loss_tally": N_("A tally of hands lost")},
    "next_dealer": {"next": N_("The next player"), "loser": N_("The loser")},
    "unforced_bust": {"loss": N_("A loss"), "refused": N_("Refused: play another card")},
    "first_player": {"left": N_("The dealer's left, clockwise"), "right": N_("The dealer's right, anticlockwise")},
    "exact_target": {"play_on": N_("Play goes on"), "others_lose": N_("The hand ends: the others lose it")},
}
USUAL = {"decks": N_("1, or 2 with 7 or more players (up to 20)")}


@dataclass(frozen=True)
class Options:
    """RULES.md §4.5 (plus ``hands`` for the loss tally and ``next_dealer`` of §4.4, the
    seed's other readings: ``unforced_bust`` of §4.2 and ``first_player`` of D1, and
    ``exact_target`` of §4.9, PlayAural's end of a hand)."""

    variant: str = "100"
    decks: int | None = None
    floor_at_zero: bool = True
    ace_high_99: int = 10
    itoya_black_ace: str = "raise_only"
    late_draw: str = "next_turn"
    reverse_with_two_players: str = "no_effect"
    match_format: str = "tokens"
    tokens: int = 3
    hands: int = 10
    next_dealer: str = "next"
    unforced_bust: str = "loss"
    first_player: str = "left"
    exact_target: str = "play_on"


OPTION_NAMES = tuple(Options.__dataclass_fields__)


def resolve_options(options: dict[str, Any] | Options | None, players: int | None = None) -> Options:
    """Validate an options dict (RULES.md §4.5) into :class:`Options`.

    >>> resolve_options({"variant": "98"}, 8).decks
    2
    >>> resolve_options({"variant": "99quentin"}).exact_target   # the variant's rule set (PRESETS)
    'others_lose'
    """
    if isinstance(options, Options):
        return options
    given, count = common.read_options(options, players, sys.modules[__name__], TITLE)
    given = PRESETS[given.get("variant", "100")] | given
    for name in ("tokens", "hands"):
        if name in given and (not _is_int(given[name]) or not 1 <= given[name] <= 99):
            raise OptionError(
                "not_1_to_99",
                "%(option)s must be a whole number from 1 to 99 (not %(value)r)",
                option=name,
                value=given[name],
            )
    decks = given.get("decks")
    if decks is not None and (decks not in (1, 2) or isinstance(decks, bool)):
        raise OptionError("bad_decks", "decks must be 1 or 2 (not %(value)r)", option="decks", value=decks)
    if decks is None and count is not None:
        given["decks"] = 2 if count >= 7 else 1
    o = Options(**given)
    if count is not None and o.decks is not None and count * hand_size(o) >= 52 * o.decks:
        raise OptionError(
            "pack_too_small",
            "%(packs)s pack(s) can't deal %(size)s cards to %(count)s players and leave a stock: use 2 packs.",
            option="decks",
            packs=o.decks,
            size=hand_size(o),
            count=count,
        )
    return o


def _decks(o: Options) -> int:
    """The packs in play: ``start`` resolves ``decks`` for its number of players."""
    assert o.decks is not None
    return o.decks


def target(options: dict[str, Any] | Options | None = None) -> int:
    return TARGET[resolve_options(options).variant]


def hand_size(options: dict[str, Any] | Options | None = None) -> int:
    """RULES.md §4.2: 3 cards, 4 in 98."""
    return 4 if resolve_options(options).variant == "98" else 3


class Rule(NamedTuple):
    """What a card does (RULES.md 4.3): ``ops``, the totals it may make (the player's
    choice when more than one), and ``turn``: "reverse", "skip" (the next player misses a
    turn) or "" (none).

    An op is "+n" (add), "-n" (take away; see ``floor_at_zero``), "=n" (set the total),
    "=M" (set the target), "+A" (the 99 ace's high value, ``ace_high_99``), "x2" (double),
    "x2/2" (halve an even total of 50 or more, else double: Quentin C's 2), "any" (any total
    from 0 to the target) or "up" (the Itōke black ace: any total from the current one up
    to the target, or from 0 with ``itoya_black_ace`` "set_any")."""

    ops: tuple[str, ...]
    turn: str = ""


def _r(*ops: str, turn: str = "") -> Rule:
    return Rule(ops, turn)


_ZERO, _TEN_EITHER, _ACE_1_11 = _r("+0"), _r("+10", "-10"), _r("+1", "+11")
_REVERSE = _r("+0", turn="reverse")

#: Each game's card table: a card's rule is its code's entry ("2S"), else its rank and
#: colour's ("A black", "5 red"), else its rank's; a card in none adds its face value
#: (ace 1, J Q K 10). Sources: RULES.md 4.3 (the seed, S004) for the first four;
#: PlayAural server/games/ninetynine/game.py (_calculate_standard_value, calculate_two_effect,
#: _apply_special_effects) for Quentin C; ichabod801/t_games card_games/ninety_nine_game.py
#: (set_options: the defaults and the groups chicago, joker-rules and gonzo) for the rest.
CARD_TABLES: dict[str, dict[str, Rule]] = {
    "100": {
        "A": _r("+1"),
        "A black": _r("any"),
        "2S": _r("x2"),
        "4": _REVERSE,
        "5 red": _r("-5"),
        "10": _r("=M"),
        "J": _r("-10"),
        "QH": _r("=0"),
        "K": _ZERO,
    },
    "99": {"A": _r("+1", "+A"), "4": _REVERSE, "9": _ZERO, "10": _TEN_EITHER, "K": _r("=M")},
    "99itoya": {
        "A": _r("+1"),
        "A black": _r("up"),
        "3": _ZERO,
        "4": _ZERO,
        "9": _r("=M"),
        "10": _r("-10"),
        "J": _r("+10", turn="reverse"),
    },
    "98": {"10": _r("-10"), "J": _ZERO, "Q": _ZERO, "K": _r("=M")},
    "99quentin": {
        "A": _ACE_1_11,
        "2": _r("x2/2"),
        "4": _r("+4", turn="reverse"),
        "9": _ZERO,
        "10": _TEN_EITHER,
        "J": _r("+10", turn="skip"),
    },
    # t_games' defaults: 99=9 (and the joker), plus-minus=T, zero=4/K, reverse=4, skip=3.
    "99tgames": {
        "A": _ACE_1_11,
        "3": _r("+3", turn="skip"),
        "4": _REVERSE,
        "9": _r("=M"),
        "10": _TEN_EITHER,
        "K": _ZERO,
    },
    # chicago: zero=4/9 skip=9 99=K minus=T plus-minus=! (reverse stays 4).
    "99chicago": {"A": _ACE_1_11, "4": _REVERSE, "9": _r("+0", turn="skip"), "10": _r("-10"), "K": _r("=M")},
    # joker-rules: zero=9/K reverse=K jokers=2 99=X skip=! (plus-minus stays T).
    "99jokerrules": {"A": _ACE_1_11, "9": _ZERO, "10": _TEN_EITHER, "K": _REVERSE},
    # gonzo: zero=4/K reverse=A jokers=2 99=9/X skip=2 minus=J (plus-minus stays T).
    "99gonzo": {
        "A": _r("+1", "+11", turn="reverse"),
        "2": _r("+2", turn="skip"),
        "4": _ZERO,
        "9": _r("=M"),
        "10": _TEN_EITHER,
        "J": _r("-10"),
        "K": _ZERO,
    },
}


def rule_of(card: str | Card, options: dict[str, Any] | Options | None = None) -> Rule:
    """The card's rule in the game's table (see :data:`CARD_TABLES`).

    >>> rule_of("JD", {"variant": "99quentin"})
    Rule(ops=('+10',), turn='skip')
    >>> rule_of("7H")
    Rule(ops=('+7',), turn='')
    """
    c = Card.parse(card)
    table = CARD_TABLES[resolve_options(options).variant]
    colour = "red" if c.suit in ("H", "D") else "black"
    rule = table.get(c.rank + c.suit) or table.get(f"{c.rank} {colour}") or table.get(c.rank)
    if rule is None:
        face = 1 if c.rank == "A" else 10 if c.rank in ("J", "Q", "K") else int(c.rank)
        rule = _r(f"+{face}")
    return rule


def _made(op: str, total: int, o: Options) -> list[int]:
    """The totals one op makes from ``total`` (see :class:`Rule`)."""
    m = TARGET[o.variant]
    if op == "any":
        return list(range(0, m + 1))
    if op == "up":
        low = total if o.itoya_black_ace == "raise_only" else 0
        return list(range(max(low, 0), m + 1)) or [total]
    if op == "x2":
        return [total * 2]
    if op == "x2/2":
        return [total // 2 if total % 2 == 0 and total >= 50 else total * 2]
    if op == "=M":
        return [m]
    if op == "+A":
        return [total + o.ace_high_99]
    n = int(op[1:])
    if op[0] == "=":
        return [n]
    if op[0] == "-":
        return [max(0, total - n) if o.floor_at_zero else total - n]
    return [total + n]


def effect(card: str | Card, total: int, options: dict[str, Any] | Options | None = None) -> tuple[list[int], bool]:
    """``(every total the card can make from total, reverses?)`` (RULES.md §4.3).

    >>> effect("10H", 92, {"variant": "99"})
    ([82, 102], False)
    >>> effect("JS", 60, {"variant": "99itoya"})
    ([70], True)
    >>> effect("2C", 60, {"variant": "99quentin"}), effect("2C", 61, {"variant": "99quentin"})
    (([30], False), ([122], False))
    """
    o = resolve_options(options)
    rule = rule_of(card, o)
    made = sorted({t for op in rule.ops for t in _made(op, total, o)})
    return made, rule.turn == "reverse"


def totals(card: str | Card, total: int, options: dict[str, Any] | Options | None = None) -> set[int]:
    """The set of totals ``card`` can make from ``total`` (DESIGN.md helper).

    >>> sorted(totals("AH", 90, {"variant": "99"}))
    [91, 100]
    """
    return set(effect(card, total, options)[0])


def safe_totals(card: str | Card, total: int, options: dict[str, Any] | Options | None = None) -> set[int]:
    """The totals ``card`` can make without going over the target."""
    m = target(options)
    return {t for t in totals(card, total, options) if t <= m}


# ---------------------------------------------------------------------------
# The game
# ---------------------------------------------------------------------------


@dataclass
class State(common.BaseState[Options]):
    hand: int = 1
    total: int = 0
    direction: int = 1
    turn: int = 0
    pile: list[str] = field(default_factory=list)  # cards played since the pile last became the stock
    stock: int = 0
    played: int = 0  # plays this hand
    last: Record | None = None
    losses: list[int] = field(default_factory=list)
    tokens: list[int] = field(default_factory=list)
    history: list[Record] = field(default_factory=list)
    result: Record | None = None
    rulings: list[Record] = field(default_factory=list)  # the table's, RULES.md 5.2


def start(players: list[str], options: dict[str, Any] | None = None) -> State:
    """A new match; the player after the dealer plays first (RULES.md §4.2, D1)."""
    players, opts, seat = common.seat_players(players, options, resolve_options, MIN_PLAYERS, MAX_PLAYERS, TITLE)
    n = len(players)
    s = State(opts, players, seat, losses=[0] * n, tokens=[opts.tokens] * n if opts.match_format == "tokens" else [])
    _new_hand(s, s.dealer)
    return s


def active(state: State) -> list[int]:
    """Seats still in the match (tokens left, or everyone in a loss tally)."""
    if state.options.match_format != "tokens":
        return list(range(len(state.players)))
    return [i for i, t in enumerate(state.tokens) if t > 0]


def _step(s: State, seat: int, direction: int) -> int:
    """The next seat still in the match, going ``direction`` from ``seat``."""
    return _next_seat(seat, direction, len(s.players), active(s))


def _next_seat(seat: int, direction: int, players: int, live: Iterable[int]) -> int:
    live = set(live)
    nxt = (seat + direction) % players
    while nxt not in live:
        nxt = (nxt + direction) % players
    return nxt


def turn_after(
    card: str | Card,
    seat: int,
    players: int,
    direction: int = 1,
    options: dict[str, Any] | Options | None = None,
    live: Iterable[int] | None = None,
) -> tuple[int, int]:
    """``(next seat, new direction)`` after ``seat`` plays ``card`` (RULES.md 4.2, D3).

    Seats are in clockwise order; ``live`` are the seats still in (all by default).

    >>> turn_after("4S", 1, 4)            # AD-08: P1 reverses, P0 is next
    (0, -1)
    >>> turn_after("4S", 0, 2)            # AD-17: with two players the other still plays
    (1, -1)
    >>> turn_after("JS", 1, 4, options={"variant": "99quentin"})  # a Quentin C jack skips P2
    (3, 1)
    """
    o = resolve_options(options)
    live = list(range(players)) if live is None else list(live)
    turn = rule_of(card, o).turn
    if turn == "reverse":
        direction = -direction
        if len(live) == 2 and o.reverse_with_two_players == "same_player_again":
            return seat, direction  # D3 option: the same player plays again
    nxt = _next_seat(seat, direction, players, live)
    if turn == "skip":  # the next player misses a turn (with two, the same player again)
        nxt = _next_seat(nxt, direction, players, live)
    return nxt, direction


def _new_hand(s: State, dealer: int) -> None:
    s.dealer = dealer
    s.total, s.direction, s.pile, s.played = 0, _first_direction(s.options), [], 0
    s.turn = _step(s, dealer, s.direction)  # D1: the dealer's left plays first (or the right)
    s.stock = 52 * _decks(s.options) - len(active(s)) * hand_size(s.options)


def _first_direction(o: Options) -> int:
    """D1: play starts clockwise at the dealer's left (+1), or with ``first_player`` "right"
    anticlockwise at the dealer's right (-1; the seed's other reading)."""
    return -1 if o.first_player == "right" else 1


def sides(state: State) -> list[list[str]]:
    return [[p] for p in state.players]


def to_act(state: State) -> int | None:
    return None if state.result is not None else state.turn


def expects(state: State) -> list[str]:
    if state.result is not None:
        return []
    return ["play", "lose", "tally"] if state.played == 0 else ["play", "lose"]


def apply(state: State, move: Move) -> State:
    """Apply one move and return the new state; ``state`` itself is never changed.

    ``lose`` names its player itself (the one to act) and ``tally`` its loser."""
    return common.apply_move(
        state,
        move,
        _MOVES,
        expects,
        to_act,
        _wrong_time,
        TITLE,
        free=("lose", "tally"),
    )


def _wrong_time(state: State, kind: str) -> Reason:
    """Why ``kind`` is not expected now: only ``tally`` ever is not (after a hand's first card)."""
    return Reason("tally_too_late", "A hand can be tallied only before its first card.")


def _in_pile(s: State, card: str) -> bool:
    """RULES.md §4.8: with one pack a card can't be seen twice (two with two packs)."""
    return s.pile.count(card) >= _decks(s.options)


def _announced(move: Move) -> int | None:
    value = move.get("total")
    if value in (None, ""):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        raise InvalidMove(
            "total_not_a_number", "The announced total must be a number, not %(value)r", value=value
        ) from None


def _play(s: State, move: Move) -> None:
    if "card" not in move:
        raise InvalidMove("no_card", "The move needs a 'card'")
    card = str(Card.parse(move["card"]))
    name = s.players[s.turn]
    if _in_pile(s, card):
        if s.options.decks == 2:
            raise IllegalMove(
                "both_copies_on_pile",
                "%(card)s is already on the pile: both copies are out of play until the pile is turned over "
                "(%(rule)s).",
                rule="100/99/98 4.8",
                card=card,
            )
        raise IllegalMove(
            "on_pile",
            "%(card)s is already on the pile: it is out of play until the pile is turned over (%(rule)s).",
            rule="100/99/98 4.8",
            card=card,
        )
    reachable, reverse = effect(card, s.total, s.options)
    said = _said(s, card, reachable, _announced(move))
    m = target(s.options)
    shown = _bust_hand(s, move, card, said) if said > m else None
    s.pile.append(card)
    s.played += 1
    before = s.total
    s.total = said
    s.last = {
        "player": name,
        "card": card,
        "from": before,
        "total": said,
        "reverse": reverse,
        "choice": len(reachable) > 1,
        "bust": said > m,
    }
    if said == m and before < m and s.options.exact_target == "others_lose":  # RULES.md 4.9
        _landed_on_target(s, card, before)
        return
    if said > m:  # RULES.md §4.2: over the target loses the hand
        bust = Reason(
            "bust",
            "%(player)s played %(card)s: %(before)s → %(total)s, over %(target)s.",
            player=name,
            card=card,
            before=before,
            total=said,
            target=m,
        )
        # "verified" only when a hand was shown (RULES.md 4.2: a bust may have been unforced)
        _lose(s, [s.turn], bust, verified=shown is not None, bust=card, shown=shown)
        return
    _draw(s)
    seat = s.turn
    s.turn, s.direction = turn_after(card, seat, len(s.players), s.direction, s.options, active(s))
    if rule_of(card, s.options).turn == "skip":
        s.last["skipped"] = s.players[_step(s, seat, s.direction)]


def _landed_on_target(s: State, card: str, before: int) -> None:
    """RULES.md 4.9 (``exact_target`` "others_lose", PlayAural's 99): a play that makes
    exactly the target from below ends the hand, and every other player still in loses it."""
    seat, m = s.turn, target(s.options)
    others = [i for i in active(s) if i != seat]
    assert s.last is not None
    s.last |= {"exact": True, "losers": [s.players[i] for i in others]}
    reason = Reason(
        "exact_target",
        "%(player)s played %(card)s: %(before)s → %(total)s, exactly %(target)s: the hand ends and the others lose "
        "it (%(rule)s).",
        rule="100/99/98 4.9",
        player=s.players[seat],
        card=card,
        before=before,
        total=m,
        target=m,
    )
    _lose(s, others, reason, verified=True, told=True)


def _bust_hand(s: State, move: Move, card: str, said: int) -> list[str] | None:
    """The rest of the hand shown with a play over the target (``hand``), or None.

    With ``unforced_bust`` "refused" (the seed's other reading: a loss is only when every
    play goes over, RULES.md 4.2) the play stands only when the hand shown holds no safe
    card; without a hand it is refused. With "loss" (the default) it loses either way and
    the hand, if shown, makes the loss verified."""
    name = s.players[s.turn]
    shown = _shown_hand(s, move.get("hand"), name, played=card)
    refused = s.options.unforced_bust == "refused"
    if refused and shown is None:
        raise IllegalMove(
            "bust_refused",
            "%(card)s on %(total)s makes %(said)s, over %(target)s: a card may not go over while another is safe. "
            "Play another card, or say you can't go and show the hand (%(rule)s).",
            rule="100/99/98 4.2",
            card=card,
            total=s.total,
            said=said,
            target=target(s.options),
        )
    if refused and shown is not None:
        refusal = lose_refusal(shown, s.total, s.options, player=name)
        if refusal:
            raise IllegalMove(refusal)
    return shown


def _shown_hand(s: State, hand: object, who: str, played: str | None = None) -> list[str] | None:
    """The cards a player shows (None when none are): checked against the hand size and
    the pile (a card on the pile, or the one just ``played``, can't be in the hand)."""
    if hand in (None, []):
        return None
    if not isinstance(hand, list):
        raise InvalidMove("hand_not_a_list", "'hand' is a list of the cards shown")
    cards = [str(Card.parse(c)) for c in hand]
    size = hand_size(s.options) - (played is not None)
    if len(cards) > size:
        raise IllegalMove("hand_too_big", "A hand holds %(size)s cards, not %(count)s.", size=size, count=len(cards))
    for c in cards:
        copies = cards.count(c) + (c == played) + s.pile.count(c)
        if copies > _decks(s.options):
            raise IllegalMove(
                "shown_on_pile",
                "%(card)s can't be in %(player)s's hand: it is already on the pile.",
                card=c,
                player=who,
            )
    return cards


class _Totals(NamedTuple):
    """The totals a card can make, as a refusal words them: ``shape`` "one", "range" (a
    run of more than 3: "any total from 0 to 100") or "choice" ("82 or 102")."""

    shape: str
    words: list[int]
    low: int
    high: int

    @classmethod
    def of(cls, values: list[int]) -> _Totals:
        shape = "one" if len(values) == 1 else "range" if _is_run(values) else "choice"
        return cls(shape, values, min(values), max(values))


#: A card's total as announced (RULES.md 4.3), by the shape of what it can make: the
#: choice asked for, and a total it can't make.
_CHOOSE_TOTAL = {
    "range": (
        "choose_total_range",
        N_("%(card)s gives a choice: which total did %(player)s announce? any total from %(low)s to %(high)s."),
    ),
    "choice": ("choose_total", N_("%(card)s gives a choice: which total did %(player)s announce? %(totals)s.")),
}
_WRONG_TOTAL = {
    "one": ("wrong_total", N_("%(card)s on %(total)s makes %(totals)s, not %(said)s.")),
    "range": (
        "wrong_total_range",
        N_("%(card)s on %(total)s can make any total from %(low)s to %(high)s, not %(said)s."),
    ),
    "choice": ("wrong_total_choice", N_("%(card)s on %(total)s can make %(totals)s, not %(said)s.")),
}
#: A hand that can go (RULES.md 4.2): its safe card, said of the hand or of the player
#: who said they can't go; by whether it makes a run of totals (True) or one or a few.
_NOT_A_LOSS = {
    False: ("not_a_loss", N_("%(card)s on %(total)s makes %(totals)s (not over %(target)s). Not a loss (%(rule)s).")),
    True: (
        "not_a_loss_range",
        N_(
            "%(card)s on %(total)s makes any total from %(low)s to %(high)s (not over %(target)s). "
            "Not a loss (%(rule)s)."
        ),
    ),
}
_CAN_GO = {
    False: (
        "can_go",
        N_("%(player)s can go: %(card)s on %(total)s makes %(totals)s (not over %(target)s). Not a loss (%(rule)s)."),
    ),
    True: (
        "can_go_range",
        N_(
            "%(player)s can go: %(card)s on %(total)s makes any total from %(low)s to %(high)s (not over %(target)s). "
            "Not a loss (%(rule)s)."
        ),
    ),
}


def _said(s: State, card: str, reachable: list[int], said: int | None) -> int:
    """The total ``card`` makes as announced: a total it can't make is refused (with the
    right one), and none announced for a card that gives a choice is ambiguous."""
    if said is not None and said in reachable:
        return said
    if said is None and len(reachable) == 1:
        return reachable[0]
    t = _Totals.of(reachable)
    if said is None:
        name = s.players[s.turn]
        raise AmbiguousMove(
            *_CHOOSE_TOTAL[t.shape], options=reachable, card=card, player=name, totals=t.words, low=t.low, high=t.high
        )
    raise IllegalMove(
        *_WRONG_TOTAL[t.shape], card=card, total=s.total, said=said, totals=t.words, low=t.low, high=t.high
    )


def lose_refusal(
    hand: Iterable[str | Card],
    total: int,
    options: dict[str, Any] | Options | None = None,
    *,
    player: str | None = None,
) -> Reason | None:
    """Why a player holding ``hand`` on ``total`` has not lost (a safe card, named), or None
    when every card goes over the target (RULES.md 4.2). Given the ``player`` who says
    they can't go, the refusal names them ("Ann can go: ...").

    >>> lose_refusal(["6S", "8S", "9S"], 95) is None, str(lose_refusal(["2H", "JH"], 97, {"variant": "98"}))
    (True, 'JH on 97 makes 97 (not over 98). Not a loss (100/99/98 4.2).')
    >>> why = lose_refusal(["AC"], 99, player="Ann")
    >>> why.code, str(why)
    ('can_go_range', 'Ann can go: AC on 99 makes any total from 0 to 100 (not over 100). Not a loss (100/99/98 4.2).')
    """
    safe = next(((str(Card.parse(c)), sorted(ok)) for c in hand if (ok := safe_totals(c, total, options))), None)
    if safe is None:
        return None
    card, made = safe
    t = _Totals.of(made)
    return Reason(
        *(_NOT_A_LOSS if player is None else _CAN_GO)[t.shape == "range"],
        rule="100/99/98 4.2",
        player=player,
        card=card,
        total=total,
        target=target(options),
        totals=t.words,
        low=t.low,
        high=t.high,
    )


def confirm_needed(state: State, move: Move) -> Reason | None:
    """What to ask before a play that goes over the target (the app confirms it), or None.

    >>> s = start(["A", "B"], {"variant": "98"})
    >>> str(confirm_needed(apply(s, {"type": "play", "card": "KS"}), {"type": "play", "card": "2H"}))
    '2H on 98 makes 100, over 98: A loses the hand.'
    """
    if state.result is not None or move.get("type") != "play":
        return None
    if state.options.unforced_bust == "refused":
        return None  # a bust is refused, or stands only on a shown hand with no safe card: nothing to ask
    try:
        reachable = effect(move["card"], state.total, state.options)[0]
        said = _announced(move)
    except (KeyError, ValueError):
        return None  # not a valid play: apply() says why
    m = target(state.options)
    made = [said] if said is not None else reachable
    if said is not None and said not in reachable or min(made) <= m:
        return None
    card = str(Card.parse(move["card"]))
    # Never "any total from .. to ..": a card that makes a run of totals makes one at or under
    # the target too (tests/test_hundred_refusals.py).
    return Reason(
        "over_target",
        "%(card)s on %(total)s makes %(totals)s, over %(target)s: %(player)s loses the hand.",
        card=card,
        total=state.total,
        totals=made,
        low=made[0],
        high=made[-1],
        target=m,
        player=state.players[state.turn],
    )


def _is_run(values: list[int]) -> bool:
    """Whether ``values`` is a run of more than 3 totals (said "any total from .. to ..")."""
    return len(values) > 3 and values == list(range(values[0], values[-1] + 1))


def _draw(s: State) -> None:
    """The player refills from the stock; an empty stock is the pile but its top card (D4)."""
    if s.stock == 0:
        s.stock, s.pile = len(s.pile) - 1, s.pile[-1:]
    if s.stock > 0:
        s.stock -= 1


def _lose_move(s: State, move: Move) -> None:
    who = move.get("player", s.players[s.turn])
    if who not in s.players:
        raise InvalidMove("not_playing", "%(player)r is not playing in this game", player=who)
    seat = s.players.index(who)
    if seat != s.turn:
        raise IllegalMove(
            "not_to_act",
            "Only the player to act can say they can't go: it is %(turn)s's turn.",
            turn=s.players[s.turn],
        )
    cards = _shown_hand(s, move.get("hand"), who)
    if cards is None:
        blind = Reason("could_not_go", "%(player)s could not go (hand not shown).", player=who)
        _lose(s, [seat], blind, verified=False)
        return
    refusal = lose_refusal(cards, s.total, s.options, player=who)
    if refusal:
        raise IllegalMove(refusal)
    _lose(
        s,
        [seat],
        Reason(
            "could_not_go_shown",
            "%(player)s could not go: every card shown goes over %(target)s (%(cards)s on %(total)s).",
            player=who,
            target=target(s.options),
            cards=cards,
            total=s.total,
        ),
        verified=True,
        shown=cards,
    )


def _lose(
    s: State,
    seats: list[int],
    reason: Reason,
    verified: bool,
    bust: str | None = None,
    shown: list[str] | None = None,
    told: bool = False,
) -> None:
    """The players at ``seats`` lose the hand (one, or every other player when one lands
    exactly on the target, RULES.md 4.9); ``reason`` says why (kept as data). ``told``:
    the play that ended the hand is already the last thing said (as a bust is)."""
    names = [s.players[i] for i in seats]
    for seat in seats:
        s.losses[seat] += 1
        if s.tokens:
            s.tokens[seat] -= 1
    s.history.append(
        {
            "deal": s.hand,
            "hand": s.hand,
            "loser": names[0] if len(names) == 1 else None,
            "losers": names,
            "reason": [reason.as_data()],
            "verified": verified,
            "total": s.total,
            "bust": bust,
            "shown": shown,
            "tallied": False,
            "points": {p: int(p in names) for p in s.players},
            "eliminated": bool(s.tokens) and any(s.tokens[i] == 0 for i in seats),
        }
    )
    if bust is None and not told:
        s.last = {"player": names[0], "lost": True, "reason": [reason.as_data()]}
    _after_hand(s, seats[0] if len(seats) == 1 else None)


def _after_hand(s: State, loser: int | None) -> None:
    """The match goes on, or ends; ``loser``: the hand's one loser (None when several lost:
    the next dealer is then the next player, whatever ``next_dealer`` says)."""
    o = s.options
    live = active(s)
    if o.match_format == "tokens" and len(live) == 1:
        winner = s.players[live[0]]
        s.result = {"winners": [winner], "losers": [p for p in s.players if p != winner], "draw": False}
        return
    if o.match_format == "loss_tally" and s.hand >= o.hands:
        fewest = min(s.losses)
        winners = [p for p, x in zip(s.players, s.losses) if x == fewest]
        s.result = {"winners": winners, "losers": [p for p in s.players if p not in winners], "draw": len(winners) > 1}
        return
    s.hand += 1
    if o.next_dealer == "loser" and loser is not None and loser in live:
        dealer = loser
    else:
        dealer = _step(s, s.dealer, _first_direction(o))  # D9: the next player (in the way play starts) still in
    _new_hand(s, dealer)


def _tally(s: State, move: Move) -> None:
    """A whole hand from its end: who lost (DESIGN.md tally)."""
    loser = move.get("loser")
    if loser not in s.players:
        raise InvalidMove("loser_not_playing", "'loser' must name a player: %(players)s", players=s.players)
    seat = s.players.index(loser)
    if seat not in active(s):
        raise IllegalMove("out_of_match", "%(player)s is out of the match.", player=loser)
    _lose(s, [seat], Reason("lost_tallied", "Tallied: the hand's cards were not entered."), verified=False)
    s.history[-1]["tallied"] = True


_MOVES = {"play": _play, "lose": _lose_move, "tally": _tally}


# ---------------------------------------------------------------------------
# Reading the state
# ---------------------------------------------------------------------------


def view(state: State) -> Record:
    """A JSON-ready summary (DESIGN.md view keys for hundred, and what the app shows)."""
    s, names = state, state.players
    o = s.options
    counts = {c: s.pile.count(c) for c in set(s.pile)}
    return {
        **common.view_head(s, NAME, sides(s), s.hand, to_act(s), expects(s)),
        "hand": s.hand,
        "variant": o.variant,
        "title": VARIANT_TITLES[o.variant],
        "target": target(o),
        "total": s.total,
        "direction": s.direction,
        "last": common.clone(s.last),
        "losses": dict(zip(names, s.losses)),
        "tokens": dict(zip(names, s.tokens)) if s.tokens else None,
        "eliminated": [p for i, p in enumerate(names) if i not in active(s)],
        "order": [names[i] for i in _order(s)],
        "stock": s.stock,
        "pile": len(s.pile),
        "hand_size": hand_size(o),
        "seen": sorted(c for c, k in counts.items() if k >= _decks(o)),
        "pack": [str(c) for c in PACK_52],
    }


def figures(view: Record) -> dict[str, dict[str, int]]:
    """Each player's figures for the statistics: hands played and hands lost (a token each
    when the match is played with tokens); 100 keeps no points."""
    return common.figures(view, lambda r, side: {"points": 0, "marks": r["points"].get(side, 0)})


def _order(s: State) -> list[int]:
    """The players still in, from the one to act, in the current direction."""
    live = active(s)
    if s.result is not None or not live:
        return live
    out, seat = [s.turn], s.turn
    for _ in range(len(live) - 1):
        seat = _step(s, seat, s.direction)
        out.append(seat)
    return out


dump, load = common.persistence(State, Options, "100/99/98")


@common.narrated
def narrate(state: State, move: Move) -> list[Reason]:
    """One move in words for the log, from the state it led to: its sentences as data.

    >>> s = start(["Ann", "Ben"])
    >>> [str(r) for r in narrate(apply(s, {"type": "play", "card": "9S"}), {"type": "play", "card": "9S"})]
    ['Ben played 9S: 0 → 9.']
    >>> s = start(["Ann", "Ben", "Cat"], {"variant": "99quentin"})
    >>> [str(r) for r in narrate(apply(s, {"type": "play", "card": "JS"}), {"type": "play", "card": "JS"})]
    ['Ben played JS: 0 → 10.', 'Cat misses a turn.']
    """
    kind = move.get("type")
    last = state.last or {}
    if kind in ("lose", "tally") or (kind == "play" and (last.get("bust") or last.get("exact"))):
        h = state.history[-1]
        losers = h.get("losers") or [h["loser"]]
        if len(losers) == 1:
            lost = Reason("lost_hand", "Hand %(hand)s: %(player)s loses the hand.", hand=h["hand"], player=losers[0])
        else:
            lost = Reason("lost_hand_all", "Hand %(hand)s: %(players)s lose the hand.", hand=h["hand"], players=losers)
        return [lost, *(Reason.from_json(r) for r in h["reason"])]
    played = Reason(
        "played",
        "%(player)s played %(card)s: %(before)s → %(total)s.",
        player=last.get("player"),
        card=last.get("card"),
        before=last.get("from"),
        total=last.get("total"),
    )
    out = [played, Reason("reversed", "The direction is reversed.")] if last.get("reverse") else [played]
    if last.get("skipped"):
        out.append(Reason("skipped", "%(player)s misses a turn.", player=last["skipped"]))
    return out
