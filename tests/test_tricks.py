"""Unit tests of companion/games/tricks.py: what trick games share.

Tute Cabrón (RULES.md 2.4, 2.11) passes its rank order and its flags; Tantony (3.3) is
the case with no trump and no duty to head.
"""

import pytest

from companion.errors import IllegalMove, Reason
from companion.games import tricks
from companion.games.tricks import Play

#: RULES.md 2.2: A 3 K Q J 7 6 5 4 2, high to low.
TUTE = {r: i for i, r in enumerate("2 4 5 6 7 J Q K 3 A".split())}
#: RULES.md 3.2: A K Q J 10 9 ... 2.
PLAIN = {r: i for i, r in enumerate("2 3 4 5 6 7 8 9 10 J Q K A".split())}


def test_suit_and_rank():
    """RULES.md 0.2: a card is rank then suit letter."""
    assert (tricks.rank("10D"), tricks.suit("10D")) == ("10", "D")
    assert (tricks.rank("QH"), tricks.suit("QH")) == ("Q", "H")


# ---------------------------------------------------------------------------
# trick_winner
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "trick,trump,winner",
    [
        (["7S", "2D", "AS", "3S"], "D", 1),  # TU-20: the only trump
        (["KH", "QH", "3H", "2C"], "D", 2),  # TU-21: 3 ranks above K
        (["KD", "2S", "QD", "AD"], "D", 3),  # TU-22
        (["KH", "QH", "KC", "QC"], "D", 0),  # TU-25: other suits never win
        (["7S", "5D", "AS", "2D"], "D", 1),  # a lower trump later does not win
        (["7S", "2D", "5D"], "D", 2),  # overtrump
        (["7S", "AC", "AH"], None, 0),  # no trump: the led suit wins
        (["7S", "AD"], None, 0),
        (["7S", "AD"], "H", 0),
        (["2S"], "D", 0),
    ],
)
def test_trick_winner_tute(trick, trump, winner):
    """RULES.md 2.4: the highest trump, else the highest card of the led suit."""
    assert tricks.trick_winner(trick, trump, TUTE) == winner


def test_trick_winner_plain_ranks():
    """RULES.md 3.3: no trump, ranks A K Q ... 2; the sow (or hog) wins."""
    assert tricks.trick_winner(["10S", "JS", "AC", "9S"], None, PLAIN) == 1
    assert tricks.trick_winner(["2S", "AH", "AD", "AC"], None, PLAIN) == 0


def test_trick_winner_empty():
    """tricks.trick_winner: an empty trick has no winner."""
    with pytest.raises(ValueError, match="^An empty trick has no winner$"):
        tricks.trick_winner([], "D", TUTE)


# ---------------------------------------------------------------------------
# legal_plays
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "hand,trick,trump,kwargs,legal",
    [
        (["3S", "2S", "AC"], [], "D", {}, {"3S", "2S", "AC"}),  # leading is free
        (["3S", "2S", "AC", "5D"], ["7S"], "D", {}, {"3S"}),  # TU-01 head
        (["3S", "2S", "5D"], ["KS", "AS"], "D", {}, {"3S", "2S"}),  # TU-02
        (["3S", "2S", "4D"], ["7S", "2D"], "D", {}, {"3S", "2S"}),  # TU-03 trumped: follow
        (["AC", "5D", "2D"], ["7S"], "D", {}, {"5D", "2D"}),  # TU-04 trump
        (["AC", "4D", "2D"], ["7S", "5D"], "D", {}, {"4D", "2D"}),  # TU-05 undertrump
        (["AC", "4D", "2D"], ["7S", "5D"], "D", {"undertrump_required": False}, {"AC", "4D", "2D"}),
        (["3D", "2D", "AC"], ["7S", "5D"], "D", {"undertrump_required": False}, {"3D"}),  # TU-06
        (["AD", "2D", "3S"], ["7D", "3D"], "D", {}, {"AD"}),  # TU-08
        (["AC", "2H"], ["7S", "5D"], "D", {}, {"AC", "2H"}),  # TU-09
        (["AS", "2H"], ["7S"], None, {}, {"AS"}),  # TU-11
        (["3S", "2S", "AC"], ["7S"], "D", {"must_head": False}, {"3S", "2S"}),
    ],
)
def test_legal_plays_tute(hand, trick, trump, kwargs, legal):
    """RULES.md 2.4 legal_plays, with the must_head and undertrump_required flags."""
    assert tricks.legal_plays(hand, trick, trump, TUTE, **kwargs) == frozenset(legal)


def test_legal_plays_tantony():
    """RULES.md 3.3: follow suit if able, else anything; no trump, no heading."""
    hand = ["2S", "KS", "AH", "5C"]
    assert tricks.legal_plays(hand, ["10S"], None, PLAIN, must_head=False) == {"2S", "KS"}
    assert tricks.legal_plays(hand, ["10D"], None, PLAIN, must_head=False) == set(hand)
    assert tricks.legal_plays(hand, [], None, PLAIN, must_head=False) == set(hand)


def test_legal_plays_accepts_any_iterables():
    """tricks.legal_plays takes any iterables and returns a frozenset."""
    assert tricks.legal_plays(iter(["3S", "2S"]), ("7S",), "D", TUTE) == {"3S"}


# ---------------------------------------------------------------------------
# broken_duty
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "rest,trick,trump,card,duty",
    [
        (["3S", "AC"], ["7S"], "D", "5D", "follow"),  # trumped while holding spades
        (["3S", "AC"], ["7S"], "D", "AC", "follow"),
        (["3S", "AC"], ["7S"], "D", "2S", "head"),  # followed low while holding the 3
        (["5D"], ["7S"], "D", "AC", "trump"),  # void, discarded while holding a trump
        (["4D"], ["7S", "5D"], "D", "AC", "trump"),  # cannot overtrump, still must trump
        (["6D"], ["7S", "5D"], "D", "4D", "overtrump"),
        (["6D"], ["7S", "5D"], "D", "AC", "overtrump"),
        (["AD"], ["7D", "3D"], "D", "2D", "head"),  # trumps led: head the best trump
        (["3S", "AC"], ["7S"], "D", "3S", None),
        (["AC"], ["7S", "5D"], "D", "2H", None),
        (["3S"], [], "D", "AC", None),  # leading is free
        (["AS"], ["7S"], None, "2H", "follow"),
    ],
)
def test_broken_duty_names(rest, trick, trump, card, duty):
    """RULES.md 2.4, 2.11: the duty a wrong card breaks (a DUTY_TEXT key), None if legal."""
    assert tricks.broken_duty(rest, trick, trump, card, TUTE) == duty
    # The hand may be given with or without the card itself.
    assert tricks.broken_duty(rest + [card], trick, trump, card, TUTE) == duty
    if duty is not None:
        assert duty in tricks.DUTY_TEXT


def test_broken_duty_with_flags():
    """RULES.md 2.4: the flags relax exactly their duty."""
    assert tricks.broken_duty(["4D"], ["7S", "5D"], "D", "AC", TUTE, undertrump_required=False) is None
    assert tricks.broken_duty(["6D"], ["7S", "5D"], "D", "AC", TUTE, undertrump_required=False) == "overtrump"
    assert tricks.broken_duty(["3S"], ["7S"], "D", "2S", TUTE, must_head=False) is None
    assert tricks.broken_duty(["3S"], ["7S"], "D", "AC", TUTE, must_head=False) == "follow"


def test_duty_text_covers_every_duty():
    """RULES.md 2.4: follow, head, trump, overtrump; each has words for the players."""
    assert set(tricks.DUTY_TEXT) == {"follow", "head", "trump", "overtrump"}


# ---------------------------------------------------------------------------
# audit
# ---------------------------------------------------------------------------


def check(hand, before, trump, card):
    return tricks.broken_duty(hand, before, trump, card, TUTE)


def plays_of(deal, trumps=None):
    """[(leader_seat, [cards...]), ...] -> Plays, seats in order from the leader (3 players)."""
    out = []
    for n, (leader, cards) in enumerate(deal, 1):
        trump = (trumps or {}).get(n, "D")
        for i, card in enumerate(cards):
            out.append(Play(n, (leader + i) % 3, card, tuple(cards[:i]), trump))
    return out


def test_audit_finds_a_proven_revoke_with_its_proof():
    """RULES.md 2.11: seat 1 trumps a spade lead (claims void), later plays a spade: proven."""
    plays = plays_of(
        [
            (0, ["7S", "5D", "AS"]),  # seat 1 trumps: legal only if void in spades
            (1, ["AC", "2C", "4C"]),  # seat 1 won (5D) and leads
            (1, ["2S", "3C", "6S"]),  # seat 1 plays 2S: the proof
        ]
    )
    assert tricks.audit(plays[:6], {}, check) == []  # not proven yet
    found = tricks.audit(plays, {}, check)
    assert found == [{"trick": 1, "seat": 1, "card": "5D", "duty": "follow", "proof": "2S"}]


def test_audit_proof_is_a_card_that_would_have_been_legal():
    """RULES.md 2.11 failure to head: the proof is a later card that beats the best card."""
    plays = plays_of(
        [
            (0, ["7S", "2S", "4S"]),  # seat 1 follows low
            (0, ["AC", "2C", "4C"]),
            (0, ["5H", "3S", "6H"]),  # seat 1 held 3S, which beats 7S
        ]
    )
    found = tricks.audit(plays, {}, check)
    assert [(r["trick"], r["seat"], r["card"], r["duty"], r["proof"]) for r in found] == [(1, 1, "2S", "head", "3S")]


def test_audit_proof_of_a_failure_to_trump_is_a_trump():
    """RULES.md 2.4 and 2.11: out of the suit led, seat 1 discards AC holding a trump; the proof
    is the trump it played later (2D), not the plain card it played first (3C)."""
    plays = plays_of(
        [
            (0, ["7S", "AC", "4S"]),  # seat 1 void in spades discards AC: legal only without a trump
            (0, ["KC", "3C", "5C"]),
            (0, ["JH", "2D", "KH"]),  # seat 1 trumps: it held 2D all along
        ]
    )
    found = tricks.audit(plays, {}, check)
    assert [(r["trick"], r["seat"], r["card"], r["duty"], r["proof"]) for r in found] == [(1, 1, "AC", "trump", "2D")]


def test_audit_proof_is_the_first_later_card_that_was_legal():
    """RULES.md 2.11: a revoke is shown as soon as a card proves it: the proof is the first
    of the player's later cards that would have been legal, in the order they were played."""
    plays = plays_of(
        [
            (0, ["7S", "5D", "AS"]),  # seat 1 trumps a spade lead
            (1, ["KS", "4C", "6C"]),  # seat 1 leads a spade above 7S: the proof
            (1, ["3S", "5C", "JC"]),  # and another
        ]
    )
    found = tricks.audit(plays, {}, check)
    assert [(r["card"], r["duty"], r["proof"]) for r in found] == [("5D", "follow", "KS")]


def test_audit_known_cards_prove_at_once():
    """RULES.md 2.11: a card known to be in the hand (the turned trump) proves a revoke now."""
    plays = plays_of([(0, ["7S", "5D", "AC"])])  # seat 2 discards AC, known to hold 2D
    found = tricks.audit(plays, {2: ["2D"]}, check)
    assert found == [{"trick": 1, "seat": 2, "card": "AC", "duty": "trump", "proof": "2D"}]
    assert tricks.audit(plays, {0: ["2D"]}, check) == []


def test_audit_uses_each_plays_trump():
    """RULES.md 2.11: in 3p use the trump in force at trick k (none before the first cante)."""
    plays = plays_of(
        [
            (0, ["7S", "AC", "4S"]),  # no trump yet: seat 1 void in spades may discard AC
            (0, ["6S", "2C", "5S"]),  # seat 1 discards again
            (0, ["JH", "2D", "KH"]),  # seat 1 later holds 2D
        ],
        trumps={1: None, 2: "D", 3: "D"},
    )
    found = tricks.audit(plays, {}, check)
    # Trick 1 had no trump, so AC was legal; trick 2 (trump D) discarding 2C while holding 2D was not.
    assert [(r["trick"], r["seat"], r["duty"], r["proof"]) for r in found] == [(2, 1, "trump", "2D")]


def test_audit_legal_sequence_finds_nothing():
    """RULES.md 2.11: a legal deal has no revoke, whatever its cards."""
    plays = plays_of(
        [
            (0, ["7S", "AS", "3S"]),  # heads in turn
            (2, ["KH", "QH", "2D"]),  # seat 1 void in H trumps
            (1, ["5C", "6C", "AC"]),
            (0, ["4D", "JD", "KD"]),
        ]
    )
    assert tricks.audit(plays, {}, check) == []
    assert tricks.audit([], {}, check) == []


def test_audit_reports_in_play_order():
    """tricks.audit: every revoke, in play order."""
    plays = plays_of(
        [
            (0, ["7S", "5D", "AC"]),  # seat 1 trumps holding spades; seat 2 discards holding spades
            (0, ["2S", "6S", "4S"]),
        ]
    )
    found = tricks.audit(plays, {}, check)
    assert [(r["trick"], r["seat"], r["card"]) for r in found] == [(1, 1, "5D"), (1, 2, "AC")]


def test_revokes_name_the_player_and_word_the_reason():
    """tricks.revokes: audit's revokes, each with its player's name and its reason from the game's template."""
    plays = plays_of([(0, ["7S", "5D", "AC"]), (0, ["2S", "6S", "4S"])])
    word = lambda r: Reason("revoke", "%(player)s had to %(duty)s with %(proof)s", **r)  # noqa: E731
    found = tricks.revokes(plays, {}, check, ["Ann", "Ben", "Cat"], word)
    assert [(r["player"], str(Reason.from_json(r["reason"]))) for r in found] == [
        ("Ben", "Ben had to follow with 6S"),
        ("Cat", "Cat had to follow with 4S"),
    ]
    assert [{k: r[k] for k in ("trick", "seat", "card", "duty", "proof")} for r in found] == tricks.audit(
        plays, {}, check
    )


# ---------------------------------------------------------------------------
# played, check_unplayed
# ---------------------------------------------------------------------------


def test_played_numbers_every_card_of_the_deal_by_its_trick():
    """RULES.md 2.11, 3.14: the finished tricks and the one being played, numbered from 1."""
    done = [{"n": 1, "cards": [[0, "7S"], [1, "AS"]]}, {"n": 2, "cards": [[1, "2D"], [0, "KD"]]}]
    assert tricks.played(done, [[1, "3C"]]) == {"7S": 1, "AS": 1, "2D": 2, "KD": 2, "3C": 3}
    assert tricks.played([], []) == {}


def test_check_unplayed_refuses_a_card_played_twice():
    """Nothing is drawn after the deal: a card already played is refused with its trick."""
    done = [{"n": 1, "cards": [[0, "7S"], [1, "AS"]]}]
    tricks.check_unplayed("KS", done, [[1, "2D"]])  # not played yet: no refusal
    for card, trick in (("AS", 1), ("2D", 2)):
        with pytest.raises(IllegalMove) as err:
            tricks.check_unplayed(card, done, [[1, "2D"]])
        assert (err.value.code, err.value.params) == ("already_played", {"card": card, "trick": trick})
        assert str(err.value) == f"{card} was already played in trick {trick} of this deal."
