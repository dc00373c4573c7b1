"""Property tests: random Tute Cabrón deals for 3, 4 and 5 players, checked at every step.

Hypothesis draws the shuffle, the dealer, the follow options and every choice. A deal is
dealt physically (RULES.md 2.3): one card at a time from D+1 round the table, the
dealer's last card turned for trump with 4-5 players. Each turn the player to act plays
a random card of ``legal_plays`` of their true hand, and a trick's winner sometimes
sings a cante they really hold. The checks are the invariants of RULES.md 2.2, 2.5 and
2.6 and the engine contract (``load(dump(s)) == s``; ``apply`` never changes its input).

A second group plays the same deals with one revoke injected at a random point
(RULES.md 2.11, B11): the engine must refuse it at once or flag it by the end of the deal.
"""

import json

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from companion.games import IllegalMove
from companion.games import tute as T
from tests.conftest import examples

NAMES = {3: ["Ann", "Ben", "Cat"], 4: ["Ann", "Ben", "Cat", "Dan"], 5: ["Ann", "Ben", "Cat", "Dan", "Eve"]}
PACKS = {n: [str(c) for c in T.pack(n)] for n in NAMES}

DEAL_SETTINGS = settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def deals(draw, n, start="tute"):
    """(deck in dealing order, dealer seat, options): random follow options, then the
    one-tap start's own (issue 18: the games run under every start)."""
    deck = draw(st.permutations(PACKS[n]))
    dealer = draw(st.integers(0, n - 1))
    options = {
        "undertrump_required": draw(st.booleans()),
        "must_head": draw(st.booleans()),
        "loss_limit": draw(st.sampled_from([1, 6])),
    }
    return deck, dealer, options | T.STARTS[start].options


class Deal:
    """The true hands and the engine state of one deal, checked move by move."""

    def __init__(self, n, deck, dealer, options):
        self.n, self.names = n, NAMES[n]
        self.state = T.start(self.names, {"dealer": self.names[dealer], **options})
        self.hands = [[] for _ in range(n)]
        for i, card in enumerate(deck):  # RULES.md 2.3: one at a time from D+1
            self.hands[(dealer + 1 + i) % n].append(card)
        self.dealt = {p: set(h) for p, h in zip(self.names, self.hands)}
        assert [len(h) for h in self.hands] == [T.HAND_SIZE[n]] * n
        self.completed = []  # (cards, trump in force) of every finished trick
        self.leads = []  # the seat that led each of them
        self.declared = []  # (seat, suit, points)
        if n >= 4:
            assert deck[-1] in self.hands[dealer]  # the dealer's last card is turned
            self.move({"type": "trump", "card": deck[-1]})
            assert self.state.trump == deck[-1][-1]
            assert T.view(self.state)["known"] == {self.names[dealer]: [deck[-1]]}
        else:
            assert self.state.trump is None
        assert T.to_act(self.state) == (dealer + 1) % n  # D+1 leads

    def move(self, move):
        """Apply ``move``; check serialisation and that the input state is left alone."""
        before = T.dump(self.state)
        assert T.load(before) == self.state
        new = T.apply(self.state, move)
        assert T.dump(self.state) == before
        assert all(map(str, T.narrate(new, move)))  # the log's words (tests/translated.py checks them)
        self.state = new
        return new

    def trick(self):
        return [c for _, c in self.state.trick]

    def legal(self, seat):
        return T.legal_plays(self.hands[seat], self.trick(), self.state.trump, self.state.options)

    def maybe_declare(self, rng):
        seat = T.to_act(self.state)
        for suit in T.declarable(self.state):  # RULES.md 2.5: a cante the hand has room for
            assert len(set(self.state.known[seat]) | {f"K{suit}", f"Q{suit}"}) <= len(self.hands[seat])
        held = [s for s in T.declarable(self.state) if f"K{s}" in self.hands[seat] and f"Q{s}" in self.hands[seat]]
        if held and rng.random() < 0.6:
            suit = rng.choice(held)
            self.move({"type": "declare", "suit": suit, "player": self.names[seat]})
            points = self.state.declarations[-1]["points"]
            assert points == (40 if suit == self.state.trump else 20)
            self.declared.append((seat, suit, points))

    def play(self, seat, card):
        trump, cards = self.state.trump, self.trick() + [card]
        if len(cards) == 1:
            self.lead = seat
        self.move({"type": "play", "card": card, "player": self.names[seat]})
        self.hands[seat].remove(card)
        if len(cards) == self.n:
            self.completed.append((cards, trump))
            self.leads.append(self.lead)


def play_deal(d, rng, inject_at=None):
    """Play the deal out. With ``inject_at``, from that play on the first player holding a
    card outside legal_plays plays it once. Returns (offender, trick, card, refused_at_once)
    or None."""
    revoke, step = None, 0
    while d.state.deal == 1:
        d.maybe_declare(rng)
        seat = T.to_act(d.state)
        legal = d.legal(seat)
        assert legal and legal <= set(d.hands[seat])
        illegal = sorted(set(d.hands[seat]) - legal)
        if inject_at is not None and revoke is None and step >= inject_at and illegal:
            card = rng.choice(illegal)
            trick_no = len(d.state.tricks) + 1
            before = T.dump(d.state)
            try:
                d.play(seat, card)
            except IllegalMove:
                assert T.dump(d.state) == before
                revoke = (d.names[seat], trick_no, card, True)  # refused at once: known cards prove it
            else:
                revoke = (d.names[seat], trick_no, card, False)
                step += 1
                continue
        d.play(seat, rng.choice(sorted(legal)))
        step += 1
        if d.state.deal == 1 and (revoke is None or revoke[3]):
            assert T.view(d.state)["revokes"] == []
    return revoke


def check_deal_record(d):
    """RULES.md 2.2, 2.5, 2.6 on the deal just finished."""
    h = d.state.history[-1]
    n, names = d.n, d.names
    assert len(d.completed) == T.HAND_SIZE[n]
    assert all(not hand for hand in d.hands)
    # 2.2: 120 card points, 130 with the last trick, before marriages.
    assert sum(h["card_points"].values()) == 120
    cantes = sum(h["cantes"].values())
    assert sum(h["points"].values()) - cantes == 130
    # 2.6: the last trick's 10 go to whoever took it, by the cards played in it.
    cards, trump = d.completed[-1]
    assert h["last_trick"] == names[(d.leads[-1] + T.trick_winner(cards, trump)) % n]
    for p in names:
        assert h["points"][p] == h["card_points"][p] + h["cantes"][p] + (10 if p == h["last_trick"] else 0)
    assert sum(h["tricks"].values()) == T.HAND_SIZE[n]
    # 2.5: recompute every in-trick cante and add the declared ones.
    trump, suits, total = None if n == 3 else d.completed[0][1], [], 0
    for cards, in_force in d.completed:
        if n == 3:
            assert in_force == trump  # the trump in force is the one the first cante named
        found = T.marriages(cards, in_force, n, first_sets_trump=(n == 3 and in_force is None))
        for m in found:
            suits.append(m["suit"])
            total += m["points"]
            if m.get("sets_trump"):
                trump = m["suit"]
    for _, suit, points in d.declared:
        suits.append(suit)
        total += points
    assert total == cantes
    assert len(suits) == len(set(suits))  # each suit's K+Q scores at most once
    if n == 3:
        assert not d.declared
        assert cantes in (0, 40, 60, 80, 100)
        assert h["trump"] == trump
    else:
        assert cantes % 20 == 0 and 0 <= cantes <= 100
        assert 130 <= sum(h["points"].values()) <= 230
    return h


def check_next_deal(d, h, dealer):
    """RULES.md 2.3 and 2.7 after a deal: marks, next dealer, a fresh deal."""
    v = T.view(d.state)
    assert v["losses"] == h["losses"]
    limit = d.state.options.loss_limit
    if any(m >= limit for m in h["losses"].values()):  # RULES.md 2.7, B10
        fewest = min(h["losses"].values())
        assert v["result"] == {
            "winners": [p for p in d.names if h["losses"][p] == fewest],
            "losers": [p for p in d.names if h["losses"][p] >= limit],
            "draw": False,
        }
        assert v["to_act"] is None and v["expects"] == []
    else:
        assert v["result"] is None
        assert v["deal"] == 2 and v["trump"] is None and v["trick_number"] == 1
        assert v["revokes"] == [] and v["declarations"] == [] and v["known"] == {}
        same = h["replayed"]
        assert v["dealer"] == d.names[dealer if same else (dealer + 1) % d.n]
    text = json.dumps(T.dump(d.state))
    assert T.load(json.loads(text)) == d.state


@pytest.mark.parametrize("start", list(T.STARTS))
@pytest.mark.parametrize("n", [3, 4, 5], ids=["3p", "4p", "5p"])
@DEAL_SETTINGS
@given(data=st.data())
def test_random_legal_deal(n, start, data):
    """RULES.md 2.2-2.6, 2.11: a random legal deal keeps every invariant and flags nothing."""
    deck, dealer, options = data.draw(deals(n, start))
    rng = data.draw(st.randoms(use_true_random=False))
    d = Deal(n, deck, dealer, options)
    assert play_deal(d, rng) is None
    h = check_deal_record(d)
    assert h["revokes"] == []
    taken = h["tricks"]
    expected = T.deal_outcome(h["points"], h["last_trick"], d.state.options, taken)["losers"]
    assert h["losers"] == expected
    assert [h["losses"][p] for p in d.names] == [1 if p in expected else 0 for p in d.names]
    check_next_deal(d, h, dealer)


@pytest.mark.parametrize("start", list(T.STARTS))
@pytest.mark.parametrize("n", [3, 4, 5], ids=["3p", "4p", "5p"])
@DEAL_SETTINGS
@given(data=st.data())
def test_injected_revoke_is_caught(n, start, data):
    """RULES.md 2.11, B11: one card outside legal_plays is refused at once (known cards) or
    flagged on its trick by the end of the deal, and costs its player one loss mark."""
    deck, dealer, options = data.draw(deals(n, start))
    rng = data.draw(st.randoms(use_true_random=False))
    inject_at = data.draw(st.integers(0, len(deck) - 1))
    d = Deal(n, deck, dealer, options)
    revoke = play_deal(d, rng, inject_at)
    note(f"revoke: {revoke}")
    h = check_deal_record(d)
    flagged = [(r["player"], r["trick"]) for r in h["revokes"]]
    if revoke is None or revoke[3]:
        assert flagged == []  # no revoke, or refused at once and replaced by a legal card
        return
    player, trick, card, _ = revoke
    assert flagged == [(player, trick)]
    r = h["revokes"][0]
    assert r["card"] == card
    assert r["proof"] in d.dealt[player] and r["proof"] != card  # a card the offender held then
    assert r["reason"]["params"]["player"] == player and r["reason"]["code"].startswith("revoke_")
    assert h["losers"] == [player]  # revoke_penalty loss_mark (default)
    assert [h["losses"][p] for p in d.names] == [1 if p == player else 0 for p in d.names]
    check_next_deal(d, h, dealer)
