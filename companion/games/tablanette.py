"""Tablanette: every rule of RULES.md §1, as a pure engine.

>>> s = start(["Ann", "Ben"], None)                 # Ann deals, Ben plays first
>>> s = apply(s, {"type": "layout", "cards": ["3S", "10H", "QD", "5C"]})
>>> s = apply(s, {"type": "play", "card": "QC", "capture": ["3S", "10H", "QD"]})
>>> view(s)["table"], view(s)["captured"]["Ben"]
(['5C'], ['3S', '10H', 'QD', 'QC'])
>>> [(sorted(c.cards), c.sweep, c.bonus) for c in capture_options("KH", ["2S", "3H", "5D", "9C"])]
[(['2S', '3H', '9C'], False, 0), (['5D', '9C'], False, 0)]

Words: a *group* is a set of table cards the played card takes together (one card of its
rank, or 2 to ``max_group_size`` cards adding up to its value); a *sweep* (a tablanette)
empties the table; *trailing* lays the played card on the table.

Choices made where RULES.md and the issues are silent (each one is what a careful
referee would expect, and the rules page shows them):

* Layout jacks (§1.2 step 3) never enter the engine as table cards: a ``layout`` move
  lists the 4 cards that finally lie face up, and may list the jacks that went under
  the stock in ``buried``. A buried jack is not "seen": it is still to be played, and
  should turn up in the last round (TB-L1). If it is played earlier, the engine accepts
  it (somebody may have re-cut the stock) and records a warning instead of refusing.
* A card seen this deal (on the table or in a pile) can't be played again: it is a
  data-entry error. So a finished deal always accounts for all 52 cards.
* The dealer lays out, so during the layout the dealer is the one ``to_act``.
* ``result`` of a draw lists the sides sharing the top score as ``winners`` with
  ``draw: true``; everyone else is a loser.
* A deal ended by an immediate win (§1.6) is kept in ``history`` with its sweeps only
  and ``"abandoned": true``; the sum of ``history`` points always equals the scores.
* A ``tally`` (a whole deal entered at its end) cannot tell in which order its sweeps
  came. If exactly one side's sweeps alone take it to the target, that side won at once
  (the rest of the deal did not count); otherwise the deal is scored in full.
* With ``jack_sweep_is_tablanette`` a jack that takes the whole table is a sweep when it
  takes at least one non-jack card; it scores their values (an ace 11), the jack 0.
* ``direction`` only tells which way play goes round the table (Tablić plays
  anticlockwise): players are always listed in play order, so the engine needs no more.
* ``on_tie`` (``"draw"``, or ``"play_on"`` for Tablić's "a tie means another hand")
  decides sides level on top at or above the target, or after the last of ``fixed_deals``
  (then ``"play_on"`` deals on until one side leads: overtime).
* Issue 18's variants, each named after where it comes from: ``forced_capture = "any"``
  (a capture is compulsory but any one will do), ``ace_as_one`` (seed 000 leaves the
  played ace's value to the player: as 1 it may take nothing), ``sweep_aces`` (what an ace
  taken by rank counts in a sweep), ``most_cards_tie``, ``win_at`` (seed 001 "passing 251")
  and hand sizes that share the 48 cards out evenly, or 6 (a short last round).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import combinations, islice, product
from typing import Any

from companion.cards import PACK_52, RANKS, SUITS, Card
from companion.errors import N_, AmbiguousMove, IllegalMove, InvalidMove, OptionError, Reason
from companion.games import common
from companion.games.common import Move, Record, Start
from companion.games.common import is_int as _is_int

NAME = "tablanette"
TITLE = N_("Tablanette")

#: The refusals a table may rule against (RULES.md 5.2): how a capture must be made (P1-P5).
#: A card already played or a card not on the table is a fact, never ruled.
RULABLE = frozenset(
    {"must_capture", "must_take_every_group", "not_groups", "not_groups_any_size", "jack_takes_all", "table_jack"}
)
MIN_PLAYERS, MAX_PLAYERS = 2, 4
#: How the players sit, for the new-game form.
SEATING = N_(
    "Clockwise from the dealer's left. With four players in teams, partners sit opposite: "
    "players 1 and 3 against 2 and 4."
)
#: Options whose usual value depends on the number of players (left blank: this).
USUAL = {
    "hand_size": N_("6 for 2 players, 4 for 3-4"),
    "target": N_("251 for 2 players or teams, 151 for 3-4 (the family rules: 151 for teams too)"),
}
PACK = PACK_52
LAYOUT_SIZE = 4
#: The cards dealt in a deal: the pack but the layout (RULES.md 1.2).
DEALT = len(PACK) - LAYOUT_SIZE
#: A hand size that does not share the deal's cards out evenly, and still what Balkan
#: tables deal to 3 players: the last round then deals what is left (4 each).
UNEVEN_HANDS = (6,)

# RULES.md 1.3: the values a card can count as when capturing. The jack has none
# (it is special, P5) unless `jack_is_12`.
VALUES = {
    "A": (1, 11),
    "2": (2,),
    "3": (3,),
    "4": (4,),
    "5": (5,),
    "6": (6,),
    "7": (7,),
    "8": (8,),
    "9": (9,),
    "10": (10,),
    "J": (),
    "Q": (13,),
    "K": (14,),
}
JACK_12 = (12,)

# RULES.md 1.5: card points. "standard" is 22 a deal, "ace_ten" 120.
POINT_SCALES = {
    "standard": {"A": 1, "K": 1, "Q": 1, "J": 1, "10": 1, "10D": 2, "2C": 1},
    "ace_ten": {"A": 11, "10": 10, "K": 4, "Q": 3, "J": 2},
}

# RULES.md 1.7 and 1.9: named presets; explicit options override them.
PRESETS: dict[str, dict[str, Any]] = {
    "tablanette": {},
    # Seed 001 (the family rule page): sums of any number of cards, the game ends on passing
    # 251, and 151 recommended for every 3-4 player game, partnerships included.
    "family": {"max_group_size": None, "win_at": "exceed"},
    "tablic": {
        "jack_is_12": True,
        "forced_capture": False,
        "max_group_size": None,
        "sweep_scoring": "flat1",
        "target": 101,
        "direction": "anticlockwise",
        "on_tie": "play_on",
    },
}

#: One-tap starts on the new-game form (the first is the usual game).
STARTS = {
    "tablanette": Start(N_("Tablanette"), N_("2 players or teams to 251, 3-4 players to 151")),
    "partners": Start(N_("4 players, two teams"), N_("Partners sit opposite; to 251"), {"partnership": True}),
    "family": Start(
        N_("Tablanette, sums of any size"),
        N_("The family rule page: any number of cards adding up; the game ends above 251 (151 with 3-4)"),
        {"preset": "family", **PRESETS["family"]},
        more=True,
    ),
    "tablic": Start(
        N_("Tablić"),
        N_("Jack 12, captures optional, 1 point a tabla, to 101"),
        {"preset": "tablic", **PRESETS["tablic"]},
    ),
}

#: Each option's name on screen.
OPTION_LABELS = {
    "preset": N_("Rule set"),
    "partnership": N_("Two teams (4 players)"),
    "hand_size": N_("Cards in a hand"),
    "max_group_size": N_("Most cards in an adding group"),
    "jack_is_12": N_("The jack counts 12"),
    "forced_capture": N_("Captures are compulsory"),
    "ace_as_one": N_("A played ace may count 1 only"),
    "point_scale": N_("Card points"),
    "most_cards_bonus": N_("Bonus for the most cards"),
    "most_cards_tie": N_("Most cards, tied"),
    "target": N_("Points to win"),
    "win_at": N_("The game ends"),
    "fixed_deals": N_("A fixed number of deals"),
    "jack_sweep_is_tablanette": N_("A jack taking the whole table is a sweep"),
    "sweep_scoring": N_("A sweep scores"),
    "sweep_aces": N_("Aces in a sweep"),
    "direction": N_("Direction of play"),
    "on_tie": N_("Level at the end"),
}

#: One line per option, for the new-game form and the rules page.
OPTION_HELP = {
    "preset": (
        N_(
            "Tablanette as the Japanese rule pages play it, or the Balkan Tablić (jack 12, optional captures, "
            "1 per tabla, 101)."
        )
    ),
    "partnership": N_("Four players as two teams, partners opposite (seats 1+3 and 2+4)."),
    "hand_size": N_(
        "Cards dealt to each player a round: any number that shares the 48 out evenly, or 6 (3 players: the last "
        "round is then 4 each)."
    ),
    "max_group_size": N_("Most cards in one adding group (empty: no limit)."),
    "jack_is_12": N_("The jack is an ordinary card worth 12 (no layout swap, no special take)."),
    "forced_capture": N_(
        "A card that can capture must: take every group it can, or take any one capture it likes; or captures "
        "are optional."
    ),
    "ace_as_one": N_(
        "The player says what a played ace counts: as 1 it takes only an ace, and with none on the table "
        "it takes nothing."
    ),
    "point_scale": N_("Standard: A K Q J 10 one each, 10♦ two, 2♣ one. Ace 11, ten 10: A 11, 10 10, K 4, Q 3, J 2."),
    "most_cards_bonus": N_("Points for taking the most cards."),
    "most_cards_tie": N_("When the most cards are tied: nobody scores the bonus, or the tied sides share it."),
    "target": N_("Points that win the game: 251 for two players or teams, 151 for 3-4 individuals."),
    "win_at": N_("On reaching the target (seed 000), or only on passing it (seed 001)."),
    "fixed_deals": N_("Play exactly this many deals instead of playing to a target."),
    "jack_sweep_is_tablanette": N_("A jack that takes the whole table scores it as a sweep."),
    "sweep_scoring": N_("A sweep scores the values taken, or 1 point a sweep (Tablić)."),
    "sweep_aces": N_(
        "What aces count in a sweep's bonus: 11 where it can, 1 each, or the played ace what it took as "
        "and the table's aces 1 (seed 001's example)."
    ),
    "direction": N_("Which way play goes round the table (players are listed in play order)."),
    "on_tie": N_("Sides level on top at the target or after the last fixed deal: a draw, or play another deal."),
}

# Options whose value is one of a few words.
CHOICES: dict[str, tuple[Any, ...]] = {
    "forced_capture": (True, "any", False),
    "point_scale": tuple(POINT_SCALES),
    "most_cards_tie": ("nobody", "split"),
    "win_at": ("reach", "exceed"),
    "sweep_scoring": ("values", "flat1"),
    "sweep_aces": ("eleven", "one", "as_played"),
    "direction": ("clockwise", "anticlockwise"),
    "on_tie": ("draw", "play_on"),
    "fixed_deals": (None, *range(1, 21)),
}
#: How each choice reads on screen (the values above are the API's codes).
CHOICE_LABELS = {
    "preset": {
        "tablanette": N_("Tablanette (the Japanese rule pages)"),
        "family": N_("Tablanette (the family rule page)"),
        "tablic": N_("Tablić (Balkan)"),
    },
    "forced_capture": {
        True: N_("Yes: take every group it can"),
        "any": N_("Yes: any one capture"),
        False: N_("No: captures are optional"),
    },
    "point_scale": {"standard": N_("Standard: 22 points a deal"), "ace_ten": N_("Ace 11, ten 10: 120 points a deal")},
    "most_cards_tie": {"nobody": N_("Nobody scores it"), "split": N_("The tied sides share it (rounded down)")},
    "win_at": {"reach": N_("On reaching the target"), "exceed": N_("On passing the target")},
    "sweep_scoring": {"values": N_("The values taken"), "flat1": N_("1 point a sweep (tabla)")},
    "sweep_aces": {
        "eleven": N_("11 where it can"),
        "one": N_("1 each"),
        "as_played": N_("The played ace as it took; the table's 1"),
    },
    "direction": {"clockwise": N_("Clockwise"), "anticlockwise": N_("Anticlockwise")},
    "on_tie": {"draw": N_("A draw"), "play_on": N_("Play another deal")},
    "fixed_deals": {None: N_("No: play to the target")},
}


@dataclass(frozen=True)
class Options:
    """Resolved options: every default filled in for the number of players."""

    preset: str = "tablanette"
    partnership: bool = False
    hand_size: int = 6
    max_group_size: int | None = 3
    jack_is_12: bool = False
    forced_capture: bool | str = True  # True: every group (P3); "any": any one capture; False: free
    ace_as_one: bool = False
    point_scale: str = "standard"
    most_cards_bonus: int = 3
    most_cards_tie: str = "nobody"
    target: int = 251
    win_at: str = "reach"
    fixed_deals: int | None = None
    jack_sweep_is_tablanette: bool = False
    sweep_scoring: str = "values"
    sweep_aces: str = "eleven"
    direction: str = "clockwise"
    on_tie: str = "draw"

    @property
    def must_capture(self) -> bool:
        """A card that can capture may not be laid down (P4)."""
        return self.forced_capture is not False

    @property
    def maximal(self) -> bool:
        """A capture must leave no group behind (P3)."""
        return self.forced_capture is True


OPTION_NAMES = tuple(f.name for f in Options.__dataclass_fields__.values())


def resolve_options(options: dict[str, Any] | Options | None, players: int | None = None) -> Options:
    """Validate an options dict (as ``start`` takes it) and fill in the defaults.

    ``players`` is the number of players; with ``None`` (the dispute lab) only the
    options that matter to one capture are checked against each other.

    >>> resolve_options({"preset": "tablic"}, 2).target
    101
    >>> resolve_options({"hand_size": 5}, 3)
    Traceback (most recent call last):
    ...
    companion.errors.OptionError: hand_size must share out the 48 cards evenly among 3 players (1, 2, 4, 8, 16), or be 6
    """
    if isinstance(options, Options):
        return options
    given, count = common.read_options(options, players, sys.modules[__name__], TITLE)
    preset = given.get("preset", "tablanette")
    if not isinstance(preset, str) or preset not in PRESETS:
        raise OptionError(
            "unknown_preset",
            "Unknown preset %(value)r; presets are: %(known)s",
            option="preset",
            value=preset,
            known=", ".join(PRESETS),
        )
    merged = {**PRESETS[preset], **given}
    size = merged.get("max_group_size", 3)
    if size is not None and (not _is_int(size) or size < 2):
        raise OptionError(
            "bad_max_group_size",
            "%(option)s must be a whole number of 2 or more, or none (not %(value)r)",
            option="max_group_size",
            value=size,
        )
    bonus = merged.get("most_cards_bonus", 3)
    if not _is_int(bonus):
        raise OptionError(
            "bad_most_cards_bonus",
            "%(option)s must be a whole number; 0 turns it off (not %(value)r)",
            option="most_cards_bonus",
            value=bonus,
        )
    if "target" in merged and (not _is_int(merged["target"]) or merged["target"] < 1):
        raise OptionError(
            "bad_target",
            "%(option)s must be a whole number of 1 or more (not %(value)r)",
            option="target",
            value=merged["target"],
        )

    partnership = merged.get("partnership", False)
    if partnership and count != 4:
        raise OptionError("partnership_not_four", "%(option)s needs exactly 4 players", option="partnership")
    hand = merged.get("hand_size")
    if hand is not None and not _is_int(hand):
        raise OptionError(
            "bad_hand_size", "%(option)s must be a whole number (not %(value)r)", option="hand_size", value=hand
        )
    if count is not None:
        sizes = hand_sizes(count)
        if hand is None:
            hand = 6 if count == 2 else 4
        elif hand not in sizes:
            raise OptionError(
                "hand_size_shares",
                "%(option)s must share out the 48 cards evenly among %(players)s players (%(sizes)s), or be 6",
                option="hand_size",
                players=count,
                sizes=", ".join(str(h) for h in sizes if h not in UNEVEN_HANDS or DEALT // count % h == 0),
            )
        merged["hand_size"] = hand
        # Seed 000 recommends 151 for 3-4 individuals; seed 001 for teams too.
        two_sides = count == 2 or (partnership and preset != "family")
        merged.setdefault("target", 251 if two_sides else 151)
    elif hand is not None and not 1 <= hand <= DEALT // MIN_PLAYERS:
        raise OptionError(
            "hand_size_range", "%(option)s must be from 1 to %(most)s", option="hand_size", most=DEALT // MIN_PLAYERS
        )
    return Options(**merged)


def hand_sizes(players: int) -> tuple[int, ...]:
    """The hand sizes ``players`` may be dealt (RULES.md 1.2, issue 18): each that shares
    out the deal's 48 cards evenly, and 6 (Balkan tables deal 6 to 3 players as well).

    >>> hand_sizes(2), hand_sizes(3), hand_sizes(4)
    ((1, 2, 3, 4, 6, 8, 12, 24), (1, 2, 4, 6, 8, 16), (1, 2, 3, 4, 6, 12))
    """
    each = DEALT // players
    return tuple(h for h in range(1, each + 1) if each % h == 0 or h in UNEVEN_HANDS)


# ---------------------------------------------------------------------------
# Captures (RULES.md 1.4 P1-P8)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Capture:
    """One legal outcome of playing a card.

    ``cards`` are the table cards taken (empty: the card is laid down), ``groups`` how
    they split into groups worth ``value`` each, ``bonus`` what the sweep scores (0 when
    ``sweep`` is false), and ``how`` says how the bonus was counted (a sweep's).
    """

    cards: frozenset[str]
    sweep: bool = False
    bonus: int = 0
    groups: tuple[tuple[str, ...], ...] = ()
    value: int | None = None
    how: Reason | None = None

    def sorted_cards(self) -> list[str]:
        return sort_cards(self.cards)


def sort_cards(cards: Iterable[str | Card]) -> list[str]:
    """Cards by rank (A to K), then suit (spades, hearts, diamonds, clubs), as people sort them.

    >>> sort_cards(["8S", "2C", "3D", "AH"])
    ['AH', '2C', '3D', '8S']
    """
    return sorted((str(c) for c in cards), key=_PACK_INDEX.__getitem__)


_PACK_INDEX = {f"{r}{s}": i for i, (r, s) in enumerate((r, s) for r in RANKS for s in SUITS)}


def _is_special_jack(card: Card, opts: Options) -> bool:
    return card.rank == "J" and not opts.jack_is_12


def _values(card: Card, opts: Options) -> tuple[int, ...]:
    return JACK_12 if card.rank == "J" and opts.jack_is_12 else VALUES[card.rank]


class _Search:
    """Capture search over one table.

    Cards of one rank are interchangeable when adding up, so the table is held as a
    count per rank (a "kind"), and a group is a vector of counts. Legal captures are
    found from the cards *left behind*: under forced capture the rest of the table must
    hold no group (P3), which prunes hard; then the taken part must split exactly into
    groups (P2). Only at the end are count vectors turned into actual cards, so no
    subset of the table is ever enumerated card by card.

    A count vector is packed into one int, 4 bits a rank (at most 4 cards a rank), so
    "fits inside" and "take away" are single integer operations (SWAR).
    """

    def __init__(self, table: list[Card], opts: Options):
        self.opts = opts
        by_rank: dict[str, list[Card]] = {}
        for c in table:
            if not _is_special_jack(c, opts):
                by_rank.setdefault(c.rank, []).append(c)
        self.ranks = tuple(r for r in RANKS if r in by_rank)
        self.cards = tuple(tuple(sorted(by_rank[r], key=lambda c: _PACK_INDEX[str(c)])) for r in self.ranks)
        self.names = tuple(tuple(str(c) for c in cs) for cs in self.cards)
        self.counts = tuple(len(cs) for cs in self.cards)
        self.vals = tuple(_values(cs[0], opts) for cs in self.cards)
        self.guard = sum(_HIGH << (_BITS * i) for i in range(len(self.ranks)))
        self._types: dict[int, tuple[int, ...]] = {}
        self._memo: dict[int, dict[int, tuple[int, ...] | None]] = {}
        self._weights: dict[int, tuple[int, int]] = {}
        self._by_first: dict[int, list[list[int]]] = {}

    # -- packed vectors -------------------------------------------------------
    def pack(self, vec: Iterable[int]) -> int:
        return sum(k << (_BITS * i) for i, k in enumerate(vec))

    def unpack(self, u: int) -> tuple[int, ...]:
        return tuple((u >> (_BITS * i)) & _MASK for i in range(len(self.ranks)))

    def fits(self, t: int, u: int) -> bool:
        """Every count of ``t`` is at most the same count of ``u``."""
        return ((u | self.guard) - t) & self.guard == self.guard

    def weight(self, u: int) -> tuple[int, int]:
        """The total of ``u`` with aces as 1, and how many aces it has."""
        low = aces = 0
        for k, vs in zip(self.unpack(u), self.vals):
            low += k * vs[0]
            aces += k * (len(vs) > 1)
        return low, aces

    # -- the rules ------------------------------------------------------------
    def types(self, v: int) -> tuple[int, ...]:
        """Every group for value ``v`` (P1), packed, rank matches first."""
        if v in self._types:
            return self._types[v]
        n, counts, vals = len(self.ranks), self.counts, self.vals
        limit = self.opts.max_group_size or v  # every card adds at least 1
        found = [1 << (_BITS * i) for i in range(n) if v in vals[i]]
        for t in found:
            self._weights[t] = self.weight(t)

        def walk(i: int, vec: int, size: int, low: int, aces: int) -> None:
            # low: the sum with every ace as 1; each ace may add 10 more.
            if i == n:
                extra = v - low
                if size >= 2 and extra % 10 == 0 and extra // 10 <= aces:
                    found.append(vec)
                    self._weights[vec] = (low, aces)
                return
            walk(i + 1, vec, size, low, aces)
            least, ace = vals[i][0], len(vals[i]) > 1
            for k in range(1, counts[i] + 1):
                if size + k > limit or low + k * least > v:
                    break
                walk(i + 1, vec + (k << (_BITS * i)), size + k, low + k * least, aces + k * ace)

        walk(0, 0, 0, 0, 0)
        self._types[v] = tuple(found)
        self._by_first[v] = [[] for _ in range(n)]
        for t in found:
            self._by_first[v][((t & -t).bit_length() - 1) // _BITS].append(t)
        return self._types[v]

    def split(self, v: int, u: int, weight: tuple[int, int] | None = None) -> tuple[int, ...] | None:
        """The groups ``u`` splits into exactly (the first split found), or ``None``.

        Every split of ``u`` has as many groups, and as many aces alone, so a sweep's bonus
        (P8) is the same whichever is found: the groups add up to ``u``'s total, aces counted
        1 or 11, and two such totals differ by 10 to 40, which no value an ace can count 11
        in (11 to 14) divides. ``weight`` is ``self.weight(u)`` when known.
        """
        memo = self._memo.setdefault(v, {0: ()})
        if u in memo:
            return memo[u]
        # Cheap test first: every group adds up to v, so the total (aces as 1 or 11)
        # must be a multiple of v.
        low, aces = weight or self.weight(u)
        found: tuple[int, ...] | None = None
        if any((low + 10 * j) % v == 0 for j in range(aces + 1)):
            # The lowest rank present must lie in a group, and that group has no lower rank.
            first = ((u & -u).bit_length() - 1) // _BITS
            guard = self.guard
            self.types(v)  # fills _by_first
            for t in self._by_first[v][first]:
                if ((u | guard) - t) & guard == guard:
                    t_low, t_aces = self._weights[t]
                    rest = self.split(v, u - t, (low - t_low, aces - t_aces))
                    if rest is not None:
                        found = (t,) + rest
                        break
        memo[u] = found
        return found

    def holds_group(self, v: int, r: int) -> bool:
        return any(self.fits(t, r) for t in self.types(v))

    def unions(self, v: int, maximal: bool) -> Iterator[int]:
        """Packed count vectors of every legal non-empty take for ``v`` (maximal ones if
        asked), each once. Both walks build takes group by group, so only what splits is
        ever visited and the first few come at once however large the table."""
        return self.maximal_takes(v) if maximal else self.takes(v)

    def maximal_takes(self, v: int) -> Iterator[int]:
        """Every take for ``v`` that leaves no group behind (P3: forced capture).

        From a take u whose rest still holds a group, the first such group g must lose a
        card to every maximal take above u, so it is enough to add, one at a time, each
        group sharing a rank with g. Every take reached where no group is left is
        maximal, and every maximal take is reached (add its own groups in that order); a
        take met again is not walked again, since what lies above it depends on it alone.
        """
        types, guard = self.types(v), self.guard
        whole = self.pack(self.counts)
        shares = [sum(1 << i for i in range(len(self.ranks)) if (t >> (_BITS * i)) & _MASK) for t in types]
        seen: set[int] = set()
        stack = [0]
        while stack:
            u = stack.pop()
            rest = (whole - u) | guard
            fitting = [j for j, t in enumerate(types) if (rest - t) & guard == guard]
            if not fitting:
                if u:
                    yield u
                continue
            first = shares[fitting[0]]
            for j in fitting:
                if shares[j] & first and (w := u + types[j]) not in seen:
                    seen.add(w)
                    stack.append(w)

    def takes(self, v: int) -> Iterator[int]:
        """Every legal non-empty take for ``v`` when captures are free: each union of
        disjoint groups, once, built group by group (only what splits is ever visited, so
        the first few come at once however large the table). A take met again from a
        lower group index is walked again, so nothing reachable is missed."""
        types, guard = self.types(v), self.guard
        whole = self.pack(self.counts)
        lowest: dict[int, int] = {}  # take -> the lowest group index it was extended from
        stack = [(0, 0)]
        while stack:
            u, start = stack.pop()
            rest = whole - u
            for j in range(start, len(types)):
                t = types[j]
                if ((rest | guard) - t) & guard != guard:
                    continue
                w, seen = u + t, lowest.get(u + t)
                if seen is None:
                    yield w
                if seen is None or j < seen:
                    lowest[w] = j
                    stack.append((w, j))

    def lone_aces(self, groups: Iterable[int]) -> int:
        """How many of ``groups`` are one ace each (an ace taken by rank)."""
        if "A" not in self.ranks:
            return 0
        ace = 1 << (_BITS * self.ranks.index("A"))
        return sum(g == ace for g in groups)

    def bonus(self, p: Card, v: int, groups: tuple[int, ...]) -> int:
        """What a sweep taking ``groups`` for ``v`` scores (P8, :func:`_sweep_bonus`)."""
        return _sweep_bonus(p, v, len(groups), self.lone_aces(groups), self.opts)

    def lays_down(self, p: Card) -> bool:
        """Laying ``p`` down is legal whatever the table holds: captures are optional, or a
        played ace may count 1 (``ace_as_one``) and no ace is there to take (P4)."""
        opts = self.opts
        return not opts.must_capture or (opts.ace_as_one and p.rank == "A" and not self.types(1))

    def kinds_of(self, cards: list[Card]) -> int | None:
        """The packed count vector of some table cards, or ``None`` if one can't be grouped."""
        u = 0
        for c in cards:
            if c.rank not in self.ranks or _is_special_jack(c, self.opts):
                return None
            u += 1 << (_BITS * self.ranks.index(c.rank))
        return u


_BITS, _MASK, _HIGH = 4, 0b0111, 0b1000  # 3 bits hold a count (0-4), the 4th is the guard


def _sweep_bonus(p: Card, v: int, groups: int, lone_aces: int, opts: Options) -> int:
    """What a sweep of ``groups`` groups for ``v`` scores (P8): the played card and each
    group count ``v``. Under ``sweep_aces`` but "eleven" (RULES.md A1), an ace taken by
    rank (one of ``lone_aces``) counts 1, and so, when aces count 1 each, does a played ace
    that took only aces.

    >>> o = resolve_options({"sweep_aces": "as_played"})
    >>> _sweep_bonus(Card.parse("AC"), 11, 1, 1, o), _sweep_bonus(Card.parse("AC"), 11, 1, 1, Options())
    (12, 22)
    """
    bonus = v * (groups + 1)
    if v != 11 or opts.sweep_aces == "eleven":
        return bonus
    played_low = opts.sweep_aces == "one" and p.rank == "A" and lone_aces == groups
    return bonus - 10 * (lone_aces + played_low)


def _played(card: str | Card) -> Card:
    return Card.parse(card)


def capture_options(
    card: str | Card, table: Iterable[str | Card], options: dict[str, Any] | Options | None = None
) -> list[Capture]:
    """Every legal outcome of playing ``card`` on ``table`` (RULES.md 1.4 P4-P8).

    An empty capture (the card is laid down) is listed only when nothing can be taken,
    when captures are optional (``forced_capture = false``), or when a played ace may
    count 1 (``ace_as_one``) and there is no ace to take.

    >>> [c.sorted_cards() for c in capture_options("AC", ["AS", "10H"])]
    [['AS', '10H'], ['AS']]
    >>> capture_options("AC", ["AS", "10H"])[0].bonus
    22
    """
    opts = resolve_options(options)
    p = _played(card)
    t = [Card.parse(c) for c in table]
    search = _Search(t, opts)
    found: list[Capture] = []
    if _is_special_jack(p, opts):
        if t:
            found.append(_jack_capture(p, t, opts))
    else:
        best: dict[int, tuple[int, int, tuple[int, ...]]] = {}
        for v in _values(p, opts):
            for u in search.unions(v, maximal=opts.maximal):
                split = search.split(v, u)
                assert split is not None  # unions() yields only takes that split
                bonus = search.bonus(p, v, split)
                if u not in best or bonus > best[u][1]:
                    best[u] = (v, bonus, split)
        for u, (v, _, groups) in best.items():
            # Ranks of one group are interchangeable: every choice of actual cards counts.
            picks = [combinations(cs, k) for cs, k in zip(search.names, search.unpack(u))]
            shape = [search.unpack(g) for g in groups]
            for choice in product(*picks):
                found.append(_make_capture(p, len(t), search, v, shape, choice))
    if not found or search.lays_down(p):
        found.append(Capture(frozenset()))
    found.sort(key=lambda c: (-len(c.cards), sorted(_PACK_INDEX[x] for x in c.cards)))
    return found


#: How many legal captures a card's path lists at most (a refusal's or a "say which"'s
#: ``options``); past it the engine stops counting and says "more than". Random games
#: rarely offer more than 100; a free-capture table of 20 cards offers tens of thousands.
LISTED = 256
#: How many of them a refusal's words name.
NAMED = 6


def some_captures(
    card: str | Card, table: Iterable[str | Card], options: dict[str, Any] | Options | None = None, limit: int = LISTED
) -> tuple[list[list[str]], bool]:
    """Up to ``limit`` legal captures of ``card`` on ``table``, as sorted card lists, and
    whether they are all of them. When they are, they are exactly ``capture_options``'
    captures in its order. The search stops as soon as it has counted past ``limit``, so a
    card tap costs the same on a table of 20 cards as on one of 4 (issue 17), and nothing
    is built for a capture beyond the ones listed.

    >>> some_captures("KH", ["2S", "3H", "5D", "9C"])
    ([['2S', '3H', '9C'], ['5D', '9C']], True)
    >>> some_captures("KH", ["AS", "AH", "AD", "AC", "2S", "2H", "2D", "2C", "3S", "3H"], {"preset": "tablic"}, 5)[1]
    False
    """
    opts = resolve_options(options)
    p, t = _played(card), [Card.parse(c) for c in table]
    search = _Search(t, opts)
    free = search.lays_down(p)
    room = limit - free  # laying down takes a place when it is always legal
    found = list(islice(_captured_cards(p, t, search), room + 1))
    complete = len(found) <= room
    del found[room:]
    if free or (complete and not found):
        found.append([])
    found.sort(key=lambda cards: (-len(cards), list(map(_PACK_INDEX.__getitem__, cards))))
    return found, complete


def _captured_cards(p: Card, t: list[Card], search: _Search) -> Iterator[list[str]]:
    """Each legal non-empty capture once, as sorted cards, in the order the search finds them."""
    opts = search.opts
    if _is_special_jack(p, opts):
        if t:
            yield sort_cards(map(str, t))
        return
    seen: set[int] = set()
    for v in _values(p, opts):
        for u in search.unions(v, maximal=opts.maximal):
            if u not in seen:
                seen.add(u)
                picks = [combinations(cs, k) for cs, k in zip(search.names, search.unpack(u))]
                for choice in product(*picks):
                    yield [c for cs in choice for c in cs]  # ranks in order: sorted already


def _jack_capture(p: Card, table: list[Card], opts: Options) -> Capture:
    """P5: a special jack takes the whole table; P7: never a sweep, unless the option says."""
    taken = frozenset(str(c) for c in table)
    others = [c for c in table if c.rank != "J"]
    if not (opts.jack_sweep_is_tablanette and others):
        return Capture(taken, groups=(tuple(sort_cards(taken)),))
    if opts.sweep_scoring == "flat1":
        bonus, how = 1, _FLAT_TABLA
    else:
        bonus = sum(max(VALUES[c.rank]) for c in others)
        how = Reason(
            "jack_sweep",
            "%(card)s takes the whole table: %(sum)s = %(bonus)s (the jack counts 0).",
            card=p,
            sum=" + ".join(str(max(VALUES[c.rank])) for c in others),
            bonus=bonus,
        )
    return Capture(taken, True, bonus, (tuple(sort_cards(taken)),), None, how)


#: How a sweep scores under ``sweep_scoring = "flat1"``.
_FLAT_TABLA = Reason("flat_tabla", "A tabla scores 1.")
#: How a sweep's bonus is counted (P8): by whether it is one group, and whether the card played is an ace.
_SWEEP_HOW = {
    (True, False): ("sweep_one_group", N_("%(card)s counts %(value)s; %(groups)s makes %(value)s: %(sum)s.")),
    (False, False): ("sweep_groups", N_("%(card)s counts %(value)s; %(groups)s each make %(value)s: %(sum)s.")),
    (True, True): (
        "sweep_one_group_ace",
        N_("%(card)s counts %(value)s (an ace counts 1 or 11); %(groups)s makes %(value)s: %(sum)s."),
    ),
    (False, True): (
        "sweep_groups_ace",
        N_("%(card)s counts %(value)s (an ace counts 1 or 11); %(groups)s each make %(value)s: %(sum)s."),
    ),
}


def _make_capture(
    p: Card, table_size: int, search: _Search, v: int, shape: Sequence[Sequence[int]], choice: Iterable[Iterable[str]]
) -> Capture:
    """Turn a capture's chosen cards into its groups (``shape``: counts per rank, one
    vector a group) and work out its sweep bonus."""
    pool = [list(cs) for cs in choice]
    named = []
    for counts in shape:
        g = [pool[i].pop() for i, k in enumerate(counts) for _ in range(k)]
        named.append(tuple(sort_cards(g)) if len(g) > 1 else tuple(g))
    named.sort(key=lambda g: (len(g), _PACK_INDEX[g[0]]))
    taken = frozenset(c for g in named for c in g)
    sweep = len(taken) == table_size  # a jack on the table stays: only a jack takes it (P5, P7)
    if not sweep:
        return Capture(taken, False, 0, tuple(named), v)
    if search.opts.sweep_scoring == "flat1":
        return Capture(taken, True, 1, tuple(named), v, _FLAT_TABLA)
    # P8: every group adds up to v and the played card counts v too: v x (groups + 1),
    # less 10 for each ace counted 1 (sweep_aces).
    full = v * (len(named) + 1)
    lone = sum(len(g) == 1 and g[0][0] == "A" for g in named)
    bonus = _sweep_bonus(p, v, len(named), lone, search.opts)
    groups = ["+".join(g) for g in named]
    if bonus != full:
        how = Reason(
            "sweep_aces_low",
            "%(card)s counts %(value)s; %(groups)s make %(value)s each, but an ace taken by rank counts 1: %(bonus)s.",
            card=p,
            value=v,
            groups=groups,
            bonus=bonus,
        )
    else:
        how = Reason(
            *_SWEEP_HOW[len(named) == 1, p.rank == "A"],
            card=p,
            value=v,
            groups=groups,
            sum=f"{v} × {len(named) + 1} = {bonus}",
        )
    return Capture(taken, True, bonus, tuple(named), v, how)


def judge_capture(
    card: str | Card,
    table: Iterable[str | Card],
    taken: Iterable[str | Card],
    options: dict[str, Any] | Options | None = None,
) -> Capture | None:
    """The outcome if taking ``taken`` with ``card`` is legal, else ``None``.

    Checks one declared capture directly, without listing every legal one.

    >>> judge_capture("6C", ["6S", "2H", "4D", "9C"], ["6S"]) is None   # TB-10: must take 2+4 too
    True
    """
    opts = resolve_options(options)
    p = _played(card)
    t = [Card.parse(c) for c in table]
    took = [Card.parse(c) for c in taken]
    if len(set(took)) != len(took) or not set(took) <= set(t):
        return None
    if _is_special_jack(p, opts):
        if not took:
            return Capture(frozenset()) if (not t or not opts.must_capture) else None
        return _jack_capture(p, t, opts) if set(took) == set(t) else None
    search = _Search(t, opts)
    if not took:
        free = search.lays_down(p) or not any(search.types(v) for v in _values(p, opts))
        return Capture(frozenset()) if free else None
    u = search.kinds_of(took)
    if u is None:
        return None
    rest = search.pack(search.counts) - u
    best: tuple[int, int, tuple[int, ...]] | None = None
    for v in _values(p, opts):
        split = search.split(v, u)
        if split is None or (opts.maximal and search.holds_group(v, rest)):
            continue
        bonus = search.bonus(p, v, split)
        if best is None or bonus > best[1]:
            best = (v, bonus, split)
    if best is None:
        return None
    v, _, groups = best
    choice = [[str(c) for c in cs if c in took] for cs in search.cards]
    return _make_capture(p, len(t), search, v, [search.unpack(g) for g in groups], choice)


def explain_refusal(
    card: str | Card,
    table: Iterable[str | Card],
    taken: Iterable[str | Card],
    options: dict[str, Any] | Options | None = None,
) -> Reason:
    """Why taking ``taken`` with ``card`` is illegal, naming the rule and the legal captures.

    >>> r = explain_refusal("6C", ["6S", "2H", "4D", "9C"], ["6S"])    # TB-10
    >>> r.code, r.rule, r.params["legal"]
    ('must_take_every_group', 'Tablanette P4', ['2H 4D 6S'])
    >>> str(r)
    'Must also take 2H+4D: every group the 6C can take must be taken (Tablanette P4). Legal: 2H 4D 6S.'
    """
    opts = resolve_options(options)
    p = _played(card)
    t = [Card.parse(c) for c in table]
    took = [Card.parse(c) for c in taken]
    legal = _named(*some_captures(p, t, opts, NAMED + 1))
    missing = [c for c in took if c not in t]
    if len(set(took)) != len(took):
        return Reason("capture_listed_twice", "A card is listed twice in the capture. Legal: %(legal)s.", legal=legal)
    if len(missing) == 1:
        return Reason("not_on_table", "%(card)s is not on the table. Legal: %(legal)s.", card=missing[0], legal=legal)
    if missing:
        return Reason(
            "not_on_table_all", "%(cards)s are not on the table. Legal: %(legal)s.", cards=missing, legal=legal
        )
    if _is_special_jack(p, opts):
        return Reason(
            "jack_takes_all",
            "A jack takes the whole table when it is not empty (%(rule)s). Legal: %(legal)s.",
            rule="Tablanette P5",
            legal=legal,
        )
    if any(_is_special_jack(c, opts) for c in took):
        return Reason(
            "table_jack",
            "A jack on the table can only be taken by a played jack (%(rule)s). Legal: %(legal)s.",
            rule="Tablanette P5",
            legal=legal,
        )
    if not took:
        return Reason(
            "must_capture",
            "%(card)s can take cards here, so it cannot just be laid down: a card that can capture must capture "
            "(%(rule)s). Legal: %(legal)s.",
            rule="Tablanette P4",
            card=p,
            legal=legal,
        )
    search = _Search(t, opts)
    u = search.kinds_of(took)
    assert u is not None  # every card taken is on the table and none is a special jack (checked above)
    rest = search.pack(search.counts) - u
    for v in _values(p, opts):
        if search.split(v, u) is not None:
            # Splits fine, so the rest of the table still holds a group (P3).
            left = [c for c in t if c not in took and not _is_special_jack(c, opts)]
            group = search.unpack(next(g for g in search.types(v) if search.fits(g, rest)))
            need = []
            for rank, k in zip(search.ranks, group):
                need += [str(c) for c in left if c.rank == rank][:k]
            return Reason(
                "must_take_every_group",
                "Must also take %(group)s: every group the %(card)s can take must be taken (%(rule)s). "
                "Legal: %(legal)s.",
                rule="Tablanette P4",
                group="+".join(need),
                card=p,
                legal=legal,
            )
    worth = " or ".join(map(str, _values(p, opts)))
    taken_cards = sort_cards(map(str, took))
    if opts.max_group_size:
        return Reason(
            "not_groups",
            "%(cards)s can't be taken with %(card)s: what is taken must split into groups that each make %(worth)s, "
            "either a card of the same rank or 2 to %(size)s cards adding up, no card counted twice (%(rule)s-P2). "
            "Legal: %(legal)s.",
            rule="Tablanette P1",
            cards=taken_cards,
            card=p,
            worth=worth,
            size=opts.max_group_size,
            legal=legal,
        )
    return Reason(
        "not_groups_any_size",
        "%(cards)s can't be taken with %(card)s: what is taken must split into groups that each make %(worth)s, "
        "either a card of the same rank or 2 or more cards adding up, no card counted twice (%(rule)s-P2). "
        "Legal: %(legal)s.",
        rule="Tablanette P1",
        cards=taken_cards,
        card=p,
        worth=worth,
        legal=legal,
    )


def leftovers(card: str | Card, table: Iterable[str | Card], capture: Capture) -> tuple[list[str], bool]:
    """With the deal's last card: ``(table cards left, whether they go to this player)``
    (RULES.md 1.5 end of deal, TB-F1). They go to whoever captured last: this player if
    this card captured, else an earlier capturer; either way it is not a sweep.

    >>> leftovers("5S", ["5C", "9H"], capture_options("5S", ["5C", "9H"])[0])
    (['9H'], True)
    """
    left = [str(Card.parse(c)) for c in table if str(Card.parse(c)) not in capture.cards]
    if not capture.cards:
        left.append(str(Card.parse(card)))
    return sort_cards(left), bool(capture.cards)


#: The most groups one sweep can take, by its capture value (RULES.md 1.4 P8): as many as the
#: pack's other 51 cards make, each one card of that value, or 2 to ``max_group_size`` cards
#: adding up to it (an ace 1 or 11). Keyed by ``jack_is_12`` and whether a group is a pair at
#: most (``max_group_size`` 2; 3, more or no limit all make the same). Found by a search that
#: tests/test_tablanette_rules.py runs again: too slow for a tap (seconds), so kept here.
_LOW = {v: 2 * v + 1 for v in range(2, 11)}  # 3 cards of the value, and the pairs the rest make
_MOST_GROUPS = {
    (False, False): _LOW | {11: 19, 13: 23, 14: 22},
    (False, True): _LOW | {11: 19, 13: 23, 14: 21},
    (True, False): _LOW | {11: 19, 12: 23, 13: 23, 14: 25},
    (True, True): _LOW | {11: 19, 12: 23, 13: 23, 14: 25},
}


def sweep_bonus_refusal(bonus: object, options: dict[str, Any] | Options | None = None) -> Reason | None:
    """Why no sweep can score ``bonus`` (for a tally), or None if one can.

    RULES.md 1.4 P8: a sweep scores the capture value ``v`` once for the played card and
    once for each of its ``k`` groups, so ``v * (k + 1)``, where ``k`` is at most the groups
    the rest of the pack makes (:data:`_MOST_GROUPS`). With ``sweep_scoring = "flat1"``
    every sweep is worth 1.

    >>> sweep_bonus_refusal(26), sweep_bonus_refusal(23).code
    (None, 'no_such_sweep')
    """
    opts = resolve_options(options)
    if not _is_int(bonus) or bonus < 1:
        return Reason("bad_sweep_bonus", "A sweep bonus is a whole number above 0, not %(bonus)r.", bonus=bonus)
    if opts.sweep_scoring == "flat1":
        if bonus == 1:
            return None
        return Reason(
            "tabla_scores_one", "With one point a tabla, every sweep is worth 1 (%(rule)s).", rule="Tablanette 1.5"
        )
    most = _MOST_GROUPS[opts.jack_is_12, opts.max_group_size == 2]
    if any(bonus in range(2 * v, (k + 2) * v, v) for v, k in most.items()):
        return None
    # An ace's sweep whose groups include aces taken by rank (at most the other 3): under
    # sweep_aces but "eleven", each counts 1 (_sweep_bonus). Lone aces leave room for as many
    # groups of 11 as the pack makes.
    ace = Card("A", "S")
    if any(_sweep_bonus(ace, 11, k, j, opts) == bonus for k in range(1, most[11] + 1) for j in range(min(k, 3) + 1)):
        return None
    return Reason(
        "no_such_sweep",
        "No sweep scores %(bonus)s: a sweep scores its capture value (2 to 14) once for the played card "
        "and once for each group taken (%(rule)s).",
        rule="Tablanette P8",
        bonus=bonus,
    )


def sweep_of(card: str | Card, taken: Iterable[str | Card], options: dict[str, Any] | Options | None = None) -> Capture:
    """The sweep made by playing ``card`` on a table of exactly ``taken`` (for a tally).

    Raises ``IllegalMove`` with the reason when taking all of them is not a legal sweep.

    >>> sweep_of("QC", ["QD"]).bonus
    26
    """
    opts = resolve_options(options)
    judged = judge_capture(card, taken, taken, opts)
    if judged is None:
        raise IllegalMove(explain_refusal(card, taken, taken, opts))
    if not judged.sweep:
        raise IllegalMove(
            "jack_no_sweep",
            "%(card)s takes them all, but a jack's capture is never a sweep (%(rule)s).",
            rule="Tablanette P7",
            card=Card.parse(card),
        )
    return judged


def _describe(cards: list[str]) -> str:
    """A capture as a refusal lists it among the legal ones: its cards, or "lay it down"."""
    return " ".join(cards) if cards else N_("lay it down")


def _named(legal: list[list[str]], complete: bool = True) -> list[str]:
    """The legal captures a refusal names: the first :data:`NAMED`, then "another capture"
    when there are more."""
    named = [_describe(c) for c in legal[:NAMED]]
    return named + [N_("another capture")] if len(legal) > NAMED or not complete else named


#: "Say which" when the legal captures are many: all counted, or counted past LISTED.
_SAY_WHICH_OF = {
    True: (
        "say_which_of_many",
        N_("%(card)s can take %(count)s different sets of cards, such as %(choices)s: say which."),
    ),
    False: (
        "say_which_of_more",
        N_("%(card)s can take more than %(count)s different sets of cards, such as %(choices)s: say which."),
    ),
}


def _say_which(p: Card, legal: list[list[str]], complete: bool) -> Reason:
    """A card played without its capture where more than one is legal: the captures, or
    when there are many, how many and a few of them."""
    if complete and len(legal) <= NAMED:
        return Reason("say_which", "%(card)s can take %(choices)s: say which.", card=p, choices=_named(legal))
    # More than NAMED, or counted past LISTED: "another capture" ends the list either way.
    return Reason(*_SAY_WHICH_OF[complete], card=p, count=len(legal), choices=_named(legal))


# ---------------------------------------------------------------------------
# The game
# ---------------------------------------------------------------------------


@dataclass
class State(common.BaseState[Options]):
    """Everything about a game in progress; JSON-ready through :func:`dump`."""

    deal: int = 1
    phase: str = "layout"  # layout | play | over
    round: int = 0
    played_in_round: int = 0
    stock: int = 0
    table: list[str] = field(default_factory=list)
    piles: list[list[str]] = field(default_factory=list)  # per side, this deal
    sweeps: list[list[int]] = field(default_factory=list)  # per side, this deal
    scores: list[int] = field(default_factory=list)  # per side, the game
    last_capturer: int | None = None  # seat
    buried: list[str] = field(default_factory=list)  # layout jacks put under the stock
    history: list[Record] = field(default_factory=list)
    result: Record | None = None
    last: Record | None = None  # what the last move did, for announcing it
    warnings: list[Record] = field(default_factory=list)  # reasons as data
    rulings: list[Record] = field(default_factory=list)  # the table's, RULES.md 5.2


def start(players: list[str], options: dict[str, Any] | None = None) -> State:
    """A new game; the player after the dealer (option ``dealer``) plays first."""
    players, opts, seat = common.seat_players(players, options, resolve_options, MIN_PLAYERS, MAX_PLAYERS, TITLE)
    n_sides = 2 if opts.partnership else len(players)
    return State(
        opts,
        players,
        seat,
        piles=[[] for _ in range(n_sides)],
        sweeps=[[] for _ in range(n_sides)],
        scores=[0] * n_sides,
    )


def sides(state: State) -> list[list[str]]:
    """The sides as lists of names: partners together (seats i and i+2)."""
    if state.options.partnership:
        return [[state.players[0], state.players[2]], [state.players[1], state.players[3]]]
    return [[p] for p in state.players]


def labels(state: State) -> list[str]:
    return [common.side_label(s) for s in sides(state)]


def _side(state: State, seat: int) -> int:
    return seat % 2 if state.options.partnership else seat


def _per_round(state: State) -> int:
    return len(state.players) * state.options.hand_size


def _round_cards(state: State, round_: int) -> int:
    """The cards dealt in round ``round_``: a hand each, but in the last round of a hand
    size that does not share the 48 out evenly, what is left (issue 18: 6, 6, 4 to 3 players)."""
    return min(_per_round(state), DEALT - (round_ - 1) * _per_round(state))


def rounds_per_deal(state: State) -> int:
    """RULES.md 1.2: 48 cards are dealt, so 48 / (players x hand size) rounds (a short last one included)."""
    return -(-DEALT // _per_round(state))


def to_act(state: State) -> int | None:
    if state.phase == "layout":
        return state.dealer
    if state.phase == "play":
        return (state.dealer + 1 + state.played_in_round) % len(state.players)
    return None


def apply(state: State, move: Move) -> State:
    """Apply one move and return the new state; ``state`` itself is never changed."""
    return common.apply_move(state, move, _MOVES, expects, to_act, _wrong_time, TITLE)


def _wrong_time(state: State, kind: str) -> Reason:
    """Why a move of this kind is not expected now (the game is not over)."""
    if state.phase == "layout":
        return Reason(
            "deal_not_started",
            "A deal starts with its 4 face-up cards (or a tally of the whole deal), not a card played.",
            kind=kind,
        )
    return Reason(
        "deal_under_way",
        N_("The deal is under way: the next move is a card played, not a layout.")
        if kind == "layout"
        else N_("The deal is under way: the next move is a card played, not a tally."),
        kind=kind,
    )


def expects(state: State) -> list[str]:
    return {"layout": ["layout", "tally"], "play": ["play"]}.get(state.phase, [])


def _cards_field(move: Move, key: str) -> list[Card]:
    value = move.get(key)
    if not isinstance(value, (list, tuple)):
        raise InvalidMove("cards_not_list", "The move needs '%(field)s': a list of cards", field=key)
    cards = [Card.parse(c) for c in value]
    dup = next((c for c in cards if cards.count(c) > 1), None)
    if dup:
        raise InvalidMove("listed_twice", "%(card)s is listed twice", card=dup)
    return cards


def _layout(s: State, move: Move) -> None:
    cards = _cards_field(move, "cards")
    if len(cards) != LAYOUT_SIZE:
        raise InvalidMove(
            "layout_size", "The layout is exactly %(size)s cards, not %(count)s", size=LAYOUT_SIZE, count=len(cards)
        )
    buried = _cards_field(move, "buried") if "buried" in move else []
    for c in cards:
        if _is_special_jack(c, s.options):
            raise IllegalMove(
                "layout_jack",
                "%(card)s goes to the bottom of the stock and is replaced from the top "
                "(%(rule)s, layout jacks): enter the card that replaced it.",
                rule="Tablanette 1.2",
                card=c,
            )
    for c in buried:  # a jack, so none of the layout (refused above)
        if c.rank != "J" or s.options.jack_is_12:
            raise IllegalMove(
                "buried_not_jack",
                "Only a jack goes under the stock at the layout, and only when jacks are special, not %(card)s.",
                card=c,
            )
    s.table = [str(c) for c in cards]
    s.buried = [str(c) for c in buried]
    s.phase, s.round, s.played_in_round = "play", 1, 0
    s.stock = DEALT - _round_cards(s, 1)


def _play(s: State, move: Move) -> None:
    if "card" not in move:
        raise InvalidMove("no_card", "A play needs the 'card' played")
    p = Card.parse(move["card"])
    seat = to_act(s)
    assert seat is not None  # a play is expected only in the play phase, where someone is to act
    if str(p) in s.table:
        raise IllegalMove("card_on_table", "%(card)s is on the table already: each card is played once.", card=p)
    if any(str(p) in pile for pile in s.piles):
        raise IllegalMove("already_played", "%(card)s was already played this deal: each card is played once.", card=p)
    # A card's path never lists every legal capture (some_captures stops past LISTED):
    # a declared capture is judged alone; without one, the first few tell whether it is
    # the only one.
    if "capture" in move and move["capture"] is not None:
        taken = _cards_field(move, "capture")
        judged = judge_capture(p, s.table, taken, s.options)
        if judged is None:
            # RULES.md 5.2: the table may let a capture the rules refuse stand, as played.
            legal, _ = some_captures(p, s.table, s.options)
            common.rule_on(s, s.deal, seat, move, explain_refusal(p, s.table, taken, s.options), RULABLE, legal)
            cards = sort_cards(taken)  # taken as they were: no groups to count, no sweep
            judged = Capture(frozenset(cards), groups=(tuple(cards),) if cards else ())
        outcome = judged
    else:
        legal, complete = some_captures(p, s.table, s.options)
        if len(legal) > 1:
            raise AmbiguousMove(_say_which(p, legal, complete), options=legal)
        judged = judge_capture(p, s.table, legal[0], s.options)
        assert judged is not None  # some_captures lists only legal captures
        outcome = judged

    if str(p) in s.buried and s.round < rounds_per_deal(s):
        recut = Reason(
            "played_a_buried_card",
            "%(card)s went under the stock at the layout of deal %(deal)s, yet was played in round %(round)s of "
            "%(rounds)s: was the stock re-cut?",
            card=p,
            deal=s.deal,
            round=s.round,
            rounds=rounds_per_deal(s),
        )
        s.warnings.append(recut.as_data())
    side = _side(s, seat)
    s.last = {
        "player": s.players[seat],
        "card": str(p),
        "taken": outcome.sorted_cards(),
        "groups": [list(g) for g in outcome.groups],
        "sweep": outcome.sweep,
        "bonus": outcome.bonus,
        "how": outcome.how.as_data() if outcome.how else None,
    }
    if outcome.cards:
        s.table = [c for c in s.table if c not in outcome.cards]
        s.piles[side] += outcome.sorted_cards() + [str(p)]
        s.last_capturer = seat
    else:
        s.table.append(str(p))
    s.played_in_round += 1
    if outcome.sweep:
        s.sweeps[side].append(outcome.bonus)
        s.scores[side] += outcome.bonus
        # RULES.md 1.6: a sweep that reaches the target wins at once.
        if s.options.fixed_deals is None and _reached(s.scores[side], s.options):
            s.history.append(_deal_record(s, points=[sum(b) for b in s.sweeps], abandoned=True))
            _finish(s, [side], draw=False)
            return
    if s.played_in_round == _round_cards(s, s.round):
        if s.stock:
            s.round += 1
            s.played_in_round = 0
            s.stock -= _round_cards(s, s.round)
        else:
            _end_of_deal(s)


def card_points(cards: Iterable[str | Card], scale: str = "standard") -> int:
    """Card points of a pile: ``card_points(["10D", "2C", "AS"]) == 4``."""
    table = POINT_SCALES[scale]
    return sum(table.get(str(c), table.get(Card.parse(c).rank, 0)) for c in cards)


def _end_of_deal(s: State) -> None:
    """RULES.md 1.5: leftovers to the last capturer (not a sweep), then card points."""
    if s.table and s.last_capturer is not None:
        s.piles[_side(s, s.last_capturer)] += s.table
        s.last = (s.last or {}) | {"leftovers": list(s.table), "leftovers_to": s.players[s.last_capturer]}
        s.table = []
    _score_deal(s, [len(p) for p in s.piles], s.piles, tallied=False)


def _score_deal(s: State, counts: list[int], counters: list[list[str]], tallied: bool) -> None:
    """Card points and the most-cards bonus; then the game ends or the next deal starts."""
    gained = [card_points(c, s.options.point_scale) for c in counters]
    bonus = most_cards(counts, s.options)
    for i in range(len(counts)):
        s.scores[i] += gained[i] + bonus[i]
    points = [g + b + sum(sw) for g, b, sw in zip(gained, bonus, s.sweeps)]
    s.history.append(_deal_record(s, points, counts=counts, card_pts=gained, most=bonus, tallied=tallied))
    _after_deal(s)


def most_cards(counts: list[int], options: Options) -> list[int]:
    """Each side's most-cards bonus (RULES.md 1.5): the bonus to the one side with the most
    cards; when the most are tied, nobody's (A9), or shared by the tied sides, rounded down
    (``most_cards_tie = "split"``).

    >>> most_cards([26, 26], Options()), most_cards([26, 26], Options(most_cards_tie="split"))
    ([0, 0], [1, 1])
    """
    most = max(counts)
    tied = counts.count(most)
    share = options.most_cards_bonus if tied == 1 else 0
    if tied > 1 and options.most_cards_tie == "split":
        share = options.most_cards_bonus // tied
    return [share if c == most else 0 for c in counts]


def _reached(score: int, options: Options) -> bool:
    """A score wins the game (RULES.md 1.6): at the target, or past it (``win_at = "exceed"``, seed 001)."""
    return score > options.target if options.win_at == "exceed" else score >= options.target


def _deal_record(
    s: State,
    points: list[int],
    counts: list[int] | None = None,
    card_pts: list[int] | None = None,
    most: list[int] | None = None,
    tallied: bool = False,
    abandoned: bool = False,
) -> Record:
    names = labels(s)
    record = {
        "deal": s.deal,
        "dealer": s.players[s.dealer],
        "points": dict(zip(names, points)),
        "sweeps": dict(zip(names, (list(b) for b in s.sweeps))),
        "tallied": tallied,
        "abandoned": abandoned,
        **common.deal_rulings(s, s.deal),
    }
    if counts is not None:
        assert card_pts is not None and most is not None  # a scored deal passes all three
        record |= {
            "cards": dict(zip(names, counts)),
            "card_points": dict(zip(names, card_pts)),
            "most_cards": dict(zip(names, most)),
        }
    return record


def _after_deal(s: State) -> None:
    """RULES.md 1.6: target reached (highest wins, level is a draw), fixed deals, or deal on."""
    o, scores = s.options, s.scores
    top = max(scores)
    leaders = [i for i, x in enumerate(scores) if x == top]
    if o.fixed_deals is not None:
        # The last fixed deal: the highest wins; level, a draw or deals on until one leads.
        if s.deal >= o.fixed_deals and (len(leaders) == 1 or o.on_tie == "draw"):
            _finish(s, leaders, draw=len(leaders) > 1)
            return
    elif verdict(dict(zip(labels(s), scores)), o.target, o.on_tie, win_at=o.win_at) is not None:
        _finish(s, leaders, draw=len(leaders) > 1)
        return
    s.deal += 1
    s.dealer = (s.dealer + 1) % len(s.players)
    s.phase, s.round, s.played_in_round, s.stock = "layout", 0, 0, 0
    s.table, s.buried, s.last_capturer = [], [], None
    s.piles = [[] for _ in s.piles]
    s.sweeps = [[] for _ in s.sweeps]


def verdict(
    scores: dict[str, int], target: int = 251, on_tie: str = "draw", sweeper: str | None = None, win_at: str = "reach"
) -> Record | None:
    """Who wins with these scores, or None to play on (RULES.md 1.6).

    After a deal: the highest at or above the target wins; level there is a draw (or, with
    ``on_tie = "play_on"``, another deal). A ``sweeper`` whose sweep reached the target in
    the middle of a deal wins at once. With ``win_at = "exceed"`` (seed 001) the target must
    be passed, not just reached.

    >>> verdict({"A": 255, "B": 258})["winners"], verdict({"A": 250, "B": 249})      # TB-F3
    (['B'], None)
    >>> verdict({"A": 282, "B": 200}, sweeper="A")["winners"]                        # TB-F2
    ['A']
    """
    names = list(scores)
    opts = resolve_options({"target": target, "win_at": win_at, "on_tie": on_tie})  # refused if not one of them
    if sweeper is not None:
        if not _reached(scores[sweeper], opts):
            return None
        return {"winners": [sweeper], "losers": [n for n in names if n != sweeper], "draw": False}
    top = max(scores.values())
    leaders = [n for n in names if scores[n] == top]
    if not _reached(top, opts) or (len(leaders) > 1 and opts.on_tie != "draw"):
        return None
    return {"winners": leaders, "losers": [n for n in names if n not in leaders], "draw": len(leaders) > 1}


def _finish(s: State, winners: list[int], draw: bool) -> None:
    names = labels(s)
    s.phase = "over"
    s.result = {
        "winners": [names[i] for i in winners],
        "losers": [n for i, n in enumerate(names) if i not in winners],
        "draw": draw,
    }


def _tally(s: State, move: Move) -> None:
    """A whole deal entered at its end: cards taken, counting cards and sweeps per side."""
    names = labels(s)
    cards, counters, sweeps = _tally_parts(move, names)
    counts = _tally_counts(cards, names)
    piles = _tally_piles(s, counters, names, counts)
    bonuses = _tally_sweeps(s, sweeps, names)
    s.table, s.piles, s.sweeps = [], piles, bonuses
    before = list(s.scores)
    for i, b in enumerate(bonuses):
        s.scores[i] += sum(b)
    reached = [i for i, x in enumerate(s.scores) if _reached(x, s.options) and not _reached(before[i], s.options)]
    if s.options.fixed_deals is None and len(reached) == 1:
        # Its sweeps alone reached the target (only sweeps have changed a score yet): the game
        # ended then (RULES.md 1.6).
        s.history.append(_deal_record(s, [sum(b) for b in bonuses], tallied=True, abandoned=True))
        _finish(s, reached, draw=False)
        return
    _score_deal(s, counts, piles, tallied=True)


def _tally_parts(move: Move, names: list[str]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """A tally's ``cards``, ``counters`` and ``sweeps``: mappings keyed by this game's sides."""
    cards, counters, sweeps = (move.get(k) for k in ("cards", "counters", "sweeps"))
    if not isinstance(cards, dict) or not isinstance(counters, dict):
        raise InvalidMove(
            "tally_fields", "A tally needs 'cards' (side -> cards taken) and 'counters' (side -> counting cards)"
        )
    sweeps = sweeps or {}
    if not isinstance(sweeps, dict):
        raise InvalidMove("sweeps_not_mapping", "'sweeps' must map each side to its sweep bonuses")
    for part in (cards, counters, sweeps):
        stray = [k for k in part if k not in names]
        if stray:
            raise InvalidMove(
                "not_a_side",
                "%(side)r is not a side in this game; sides are: %(sides)s",
                side=stray[0],
                sides=", ".join(names),
            )
    return cards, counters, sweeps


def _tally_counts(cards: dict[str, Any], names: list[str]) -> list[int]:
    """Cards taken per side: whole numbers that add up to the pack."""
    counts = [cards.get(n, 0) for n in names]
    if not all(_is_int(c) and c >= 0 for c in counts):
        raise InvalidMove("bad_cards_taken", "Cards taken must be whole numbers of 0 or more")
    if sum(counts) != len(PACK):
        raise IllegalMove(
            "piles_not_a_pack",
            "The piles hold %(pack)s cards in all, not %(total)s (%(rule)s).",
            rule="Tablanette 1.5",
            pack=len(PACK),
            total=sum(counts),
        )
    return counts


def _tally_piles(s: State, counters: dict[str, Any], names: list[str], counts: list[int]) -> list[list[str]]:
    """Counting cards per side, no more than the side took; every counting card in one pile."""
    piles = []
    for n, count in zip(names, counts):
        value = counters.get(n, [])
        if not isinstance(value, (list, tuple)):
            raise InvalidMove("counters_not_list", "Counting cards for %(side)s must be a list of cards", side=n)
        pile = [str(Card.parse(c)) for c in value]
        if len(pile) > count:
            raise IllegalMove(
                "too_many_counters",
                "%(side)s took %(taken)s cards, so can't hold %(counters)s counting cards.",
                side=n,
                taken=count,
                counters=len(pile),
            )
        piles.append(pile)
    _check_counting_cards(s, piles)
    return piles


def _check_counting_cards(s: State, piles: list[list[str]]) -> None:
    """The piles hold counting cards only, each once, and all of them (Tablanette 1.5)."""
    every = [c for p in piles for c in p]
    scoring = {str(c) for c in PACK if card_points([str(c)], s.options.point_scale)}
    extra = sorted(set(every) - scoring)
    if len(extra) == 1:
        raise InvalidMove("not_a_counting_card", "%(card)s is not a counting card", card=extra[0])
    if extra:
        raise InvalidMove("not_counting_cards", "%(cards)s are not counting cards", cards=extra)
    twice = sort_cards({c for c in every if every.count(c) > 1})
    if twice:
        raise IllegalMove("counter_in_two_piles", "%(cards)s can be in only one pile.", cards=twice)
    unplaced = sort_cards(scoring - set(every))
    if unplaced:
        total = sum(card_points([c], s.options.point_scale) for c in scoring)
        raise IllegalMove(
            "counter_in_no_pile",
            "Every counting card is in some pile: where is %(cards)s? (card points add up to %(total)s)",
            cards=unplaced,
            total=total,
        )


def _tally_sweeps(s: State, sweeps: dict[str, Any], names: list[str]) -> list[list[int]]:
    """Sweep bonuses per side, each one a bonus some sweep can score (Tablanette P8)."""
    bonuses = []
    for n in names:
        b = sweeps.get(n, [])
        if not isinstance(b, (list, tuple)) or not all(_is_int(x) and x > 0 for x in b):
            raise InvalidMove(
                "bad_sweeps", "Sweeps for %(side)s must be a list of bonuses, each a whole number above 0", side=n
            )
        refusal = next((r for r in (sweep_bonus_refusal(x, s.options) for x in b) if r), None)
        if refusal:
            raise IllegalMove(refusal)
        bonuses.append(list(b))
    return bonuses


def _fresh(handler: Callable[[State, Move], None]) -> Callable[[State, Move], None]:
    """Each move's announcement replaces the last one's."""

    def run(s: State, move: Move) -> None:
        s.last = None
        handler(s, move)

    return run


_MOVES = {kind: _fresh(h) for kind, h in {"layout": _layout, "play": _play, "tally": _tally}.items()}


# ---------------------------------------------------------------------------
# Reading a state
# ---------------------------------------------------------------------------


def view(state: State) -> Record:
    """A JSON-ready picture of the game (DESIGN.md "view")."""
    s, names = state, labels(state)
    hands = {}
    if s.phase == "play":
        n = len(s.players)
        for i, p in enumerate(s.players):
            done = sum(1 for k in range(s.played_in_round) if (s.dealer + 1 + k) % n == i)
            hands[p] = _round_cards(s, s.round) // n - done
    return {
        **common.view_head(s, NAME, sides(s), s.deal, to_act(s), expects(s)),
        "scores": dict(zip(names, s.scores)),
        "target": s.options.target,
        "fixed_deals": s.options.fixed_deals,
        "table": list(s.table),
        "round": s.round,
        "rounds": rounds_per_deal(s),
        "stock": s.stock,
        "hands": hands,
        "last_capturer": None if s.last_capturer is None else s.players[s.last_capturer],
        "captured": dict(zip(names, (list(p) for p in s.piles))),
        "sweeps": dict(zip(names, (list(b) for b in s.sweeps))),
        "card_points": dict(zip(names, (card_points(p, s.options.point_scale) for p in s.piles))),
        "seen": sort_cards(s.table + [c for p in s.piles for c in p]),
        "buried": list(s.buried),
        "last": common.clone(s.last),
        "warnings": list(s.warnings),
        "direction": s.options.direction,
    }


dump, load = common.persistence(State, Options, TITLE)


def figures(view: Record) -> dict[str, dict[str, int]]:
    """Each side's figures for the statistics: deals, points, sweeps and the biggest sweep's bonus."""
    return common.figures(
        view,
        lambda r, side: {"sweeps": len(r["sweeps"].get(side, [])), "best_sweep": max(r["sweeps"].get(side) or [0])},
    )


@common.narrated
def narrate(state: State, move: Move) -> list[Reason]:
    """One move in words for the log, from the state it led to: its sentences as data.

    >>> s = apply(start(["Ann", "Ben"]), {"type": "layout", "cards": ["3S", "10H", "QD", "5C"]})
    >>> said = narrate(apply(s, {"type": "play", "card": "QC", "capture": ["3S", "10H", "QD"]}), {"type": "play"})
    >>> [str(r) for r in said]
    ['Ben played QC and took QD + 3S 10H.']
    """
    kind = move.get("type")
    if kind == "layout":
        laid = Reason(
            "laid_out",
            "Deal %(deal)s: %(player)s laid out %(cards)s.",
            deal=state.deal,
            player=state.players[state.dealer],
            cards=state.table,
        )
        buried = Reason("buried", "%(cards)s went under the stock.", cards=state.buried)
        return [laid, buried] if state.buried else [laid]
    if kind == "tally":
        record = state.history[-1]
        return [Reason("tallied", "Deal %(deal)s tallied: %(scores)s.", deal=record["deal"], scores=record["points"])]
    last = state.last or {}
    if not last.get("card"):
        return [Reason("move", "A move %(move)r was entered.", move=kind)]
    if last["taken"]:
        groups = " + ".join(" ".join(g) for g in last["groups"])
        said = [
            Reason(
                "took",
                "%(player)s played %(card)s and took %(groups)s.",
                player=last["player"],
                card=last["card"],
                groups=groups,
            )
        ]
    else:
        said = [
            Reason(
                "laid_down", "%(player)s played %(card)s and laid it down.", player=last["player"], card=last["card"]
            )
        ]
    if last["sweep"]:
        said.append(Reason("sweep", "Sweep: %(bonus)s.", bonus=last["bonus"]))
    if last.get("leftovers"):
        said.append(
            Reason(
                "leftovers",
                "The last table cards %(cards)s go to %(player)s.",
                cards=last["leftovers"],
                player=last["leftovers_to"],
            )
        )
    return said


def confirm_needed(state: State, move: Move) -> list[Reason] | None:
    """What to ask before a move the table ruled (RULES.md 5.2): the rules name no penalty."""
    return common.ruling_question(apply, state, move, common.NO_PENALTY)
