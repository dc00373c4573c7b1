"""Cards, their spelling, and the packs the games use (RULES.md §0.2).

A card is written rank then suit letter; input is forgiving, output canonical:

>>> Card.parse("10d"), Card.parse("TD"), Card.parse("10♦"), Card.parse("q♥")
(Card('10D'), Card('10D'), Card('10D'), Card('QH'))
>>> str(Card.parse("Q♥")), Card.parse("QH").name
('QH', 'queen of hearts')
>>> len(PACK_52), len(PACK_40), len(PACK_36_NO_2), len(PACK_36_NO_7)
(52, 40, 36, 36)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from companion.errors import InvalidMove

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
#: A card code inside a sentence ("QC", "10D"): engine messages name cards by code. Set
#: off by anything but a Latin letter, digit, "/" or "-" (so "10Hまたは" is a card too).
CARD_CODE = re.compile(r"(?<![A-Za-z0-9_/-])(10|[2-9AJQK])([SHDC])(?![A-Za-z0-9_-])")


def as_symbols(text: str) -> str:
    """A sentence with its card codes as players read them: "QC 10D" -> "Q♣ 10♦"."""
    return CARD_CODE.sub(lambda m: m.group(1) + SUIT_SYMBOLS[m.group(2)], text)


SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RED_SUITS = frozenset("HD")
RANK_NAMES = {
    "A": "ace",
    "2": "two",
    "3": "three",
    "4": "four",
    "5": "five",
    "6": "six",
    "7": "seven",
    "8": "eight",
    "9": "nine",
    "10": "ten",
    "J": "jack",
    "Q": "queen",
    "K": "king",
}

# Every spelling accepted on input, upper-cased: "T" is the one-letter ten; symbols
# (with or without the emoji variation selector) stand for their suit letters.
_RANK_INPUT = {r: r for r in RANKS} | {"T": "10"}
_SUIT_INPUT = (
    {s: s for s in SUITS}
    | {v: k for k, v in SUIT_SYMBOLS.items()}
    | {
        "♤": "S",
        "♡": "H",
        "♢": "D",
        "♧": "C",
    }
)


@dataclass(frozen=True, slots=True, order=False)
class Card:
    """One physical card: ``rank`` in :data:`RANKS`, ``suit`` in :data:`SUITS`."""

    rank: str
    suit: str

    def __post_init__(self) -> None:
        if self.rank not in RANKS or self.suit not in SUITS:
            raise InvalidMove(
                "not_a_card", "%(card)r is not a card: write it like 10D, QH or Q♥", card=self.rank + self.suit
            )

    @classmethod
    def parse(cls, text: str | Card) -> Card:
        """Read ``"10D"``, ``"10d"``, ``"TD"``, ``"10♦"`` or ``"Q♥"``; raise :class:`InvalidMove`."""
        if isinstance(text, Card):
            return text
        if not isinstance(text, str):
            raise InvalidMove("not_a_card", "%(card)r is not a card: write it like 10D, QH or Q♥", card=text)
        cleaned = text.strip().replace("\ufe0f", "").upper()
        rank, suit = _RANK_INPUT.get(cleaned[:-1]), _SUIT_INPUT.get(cleaned[-1:])
        if rank is None or suit is None:
            raise InvalidMove("not_a_card", "%(card)r is not a card: write it like 10D, QH or Q♥", card=text)
        return _CARDS[rank, suit]

    def __str__(self) -> str:
        return self.rank + self.suit

    def __repr__(self) -> str:
        return f"Card('{self}')"

    @property
    def symbol(self) -> str:
        """The card with its suit symbol, for display: ``Q♥``."""
        return self.rank + SUIT_SYMBOLS[self.suit]

    @property
    def name(self) -> str:
        """Spoken name, for screen readers: ``queen of hearts``."""
        return f"{RANK_NAMES[self.rank]} of {SUIT_NAMES[self.suit]}"

    @property
    def red(self) -> bool:
        return self.suit in RED_SUITS


_CARDS = {(r, s): Card(r, s) for s in SUITS for r in RANKS}


def parse(text: str | Card) -> Card:
    """Module-level shortcut for :meth:`Card.parse`."""
    return Card.parse(text)


def canonical(text: str | Card) -> str:
    """The canonical code of any accepted spelling: ``canonical("10♦") == "10D"``."""
    return str(Card.parse(text))


def pack(without: str = "") -> tuple[Card, ...]:
    """A single pack, suit by suit in rank order, leaving out the ranks in ``without``.

    >>> len(pack("8 9 10"))
    40
    """
    skip = set(without.split())
    return tuple(_CARDS[r, s] for s in SUITS for r in RANKS if r not in skip)


PACK_52 = pack()
PACK_40 = pack("8 9 10")  # Spanish-style pack for Tute (RULES.md §2.2)
PACK_36_NO_2 = pack("2 8 9 10")
PACK_36_NO_7 = pack("7 8 9 10")
