"""Cards: spelling in, canonical spelling out, names, and the packs (RULES.md §0.2)."""

import pytest

from companion import cards
from companion.cards import PACK_36_NO_2, PACK_36_NO_7, PACK_40, PACK_52, RANKS, SUITS, Card, canonical, pack
from companion.games import InvalidMove, MoveError


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("10D", "10D"),
        ("10d", "10D"),
        ("TD", "10D"),
        ("td", "10D"),
        ("10♦", "10D"),
        ("10♦\ufe0f", "10D"),  # the emoji variation selector some keyboards add
        ("10♢", "10D"),
        ("Q♥", "QH"),
        ("q♥", "QH"),
        ("Q♡", "QH"),
        ("qh", "QH"),
        ("QH", "QH"),
        ("as", "AS"),
        ("A♠", "AS"),
        ("2c", "2C"),
        ("2♣", "2C"),
        ("K♤", "KS"),
        ("j♧", "JC"),
        ("  7h ", "7H"),
    ],
)
def test_parse_accepts_every_spelling(text, code):
    card = Card.parse(text)
    assert str(card) == code
    assert canonical(text) == code
    assert cards.parse(text) is card


@pytest.mark.parametrize(
    "text",
    ["", " ", "D", "10", "1D", "11H", "0S", "1", "ZZ", "XH", "10X", "QQ", "KHS", "QH ♥", "🂡", "10 D D", "JK"],
)
def test_bad_text_raises_invalid_move_quoting_the_text(text):
    with pytest.raises(InvalidMove) as err:
        Card.parse(text)
    assert err.value.code == "not_a_card"
    assert repr(text) in str(err.value)
    assert isinstance(err.value, MoveError) and isinstance(err.value, ValueError)


@pytest.mark.parametrize("thing", [None, 10, 1.5, ["QH"]])
def test_parse_refuses_what_is_not_text(thing):
    """RULES.md 0.2: a card is written as text; anything else is refused as not a card, quoted."""
    with pytest.raises(InvalidMove) as err:
        Card.parse(thing)
    assert err.value.code == "not_a_card"
    assert repr(thing) in str(err.value)


def test_constructor_refuses_unknown_rank_or_suit():
    with pytest.raises(InvalidMove):
        Card("1", "S")
    with pytest.raises(InvalidMove):
        Card("Q", "X")


def test_parse_of_a_card_returns_it():
    card = Card.parse("QH")
    assert Card.parse(card) is card
    assert canonical(card) == "QH"


@pytest.mark.parametrize("card", PACK_52, ids=str)
def test_canonical_str_round_trips(card):
    assert Card.parse(str(card)) == card
    assert Card.parse(str(card).lower()) == card
    assert Card.parse(card.symbol) == card
    assert str(card) == card.rank + card.suit
    assert repr(card) == f"Card('{card}')"


@pytest.mark.parametrize(
    ("text", "name", "symbol", "red"),
    [
        ("QH", "queen of hearts", "Q♥", True),
        ("10D", "ten of diamonds", "10♦", True),
        ("AS", "ace of spades", "A♠", False),
        ("2C", "two of clubs", "2♣", False),
        ("JC", "jack of clubs", "J♣", False),
        ("KD", "king of diamonds", "K♦", True),
    ],
)
def test_names_symbols_and_colours(text, name, symbol, red):
    card = Card.parse(text)
    assert card.name == name
    assert card.symbol == symbol
    assert card.red is red


def test_every_card_has_a_distinct_name():
    names = [c.name for c in PACK_52]
    assert len(set(names)) == 52


def test_cards_are_values():
    assert Card.parse("10d") == Card.parse("TD") == Card("10", "D")
    assert hash(Card.parse("10♦")) == hash(Card("10", "D"))
    assert len({Card.parse("qh"), Card.parse("Q♥"), Card.parse("QH")}) == 1
    with pytest.raises(AttributeError):
        Card.parse("QH").rank = "K"


def _ranks(p):
    return {c.rank for c in p}


@pytest.mark.parametrize(
    ("deck", "size", "missing"),
    [
        (PACK_52, 52, set()),
        (PACK_40, 40, {"8", "9", "10"}),
        (PACK_36_NO_2, 36, {"2", "8", "9", "10"}),
        (PACK_36_NO_7, 36, {"7", "8", "9", "10"}),
    ],
    ids=["52", "40 without 8-10", "36 without 2s and 8-10", "36 without 7-10"],
)
def test_packs(deck, size, missing):
    assert len(deck) == size
    assert len(set(deck)) == size  # every card once
    assert len({str(c) for c in deck}) == size
    assert _ranks(deck) == set(RANKS) - missing
    for suit in SUITS:  # each suit complete in the ranks kept
        assert sorted(c.rank for c in deck if c.suit == suit) == sorted(set(RANKS) - missing)
    assert all(isinstance(c, Card) for c in deck)


def test_pack_helper_and_order():
    assert pack() == PACK_52
    assert pack("8 9 10") == PACK_40
    assert [str(c) for c in PACK_52[:13]] == [r + "S" for r in RANKS]  # suit by suit, A to K
    assert {c.suit for c in PACK_52} == set(SUITS)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("QC 10D", "Q♣ 10♦"),
        ("Ann plays AS, Ben 2H.", "Ann plays A♠, Ben 2♥."),
        ("10Hまたは9D", "10♥または9♦"),  # Japanese text around a card code
        ("AS-KS, 1/KS, 10HS, QHX", "AS-KS, 1/KS, 10HS, QHX"),  # not card codes: run into a letter, "-" or "/"
        ("no cards here", "no cards here"),
    ],
)
def test_card_codes_in_a_sentence_read_with_their_suit_symbols(text, shown):
    """RULES.md 0.2: the engine writes cards as rank then suit letter; a sentence shows each
    card with its suit symbol (the rank kept, the suit letter replaced), nothing else changed."""
    assert cards.as_symbols(text) == shown
