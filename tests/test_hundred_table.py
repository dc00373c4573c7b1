"""What the referee shows and says of a hand of 100 (RULES.md 4.2, 4.4, 4.8): the table after
each play of vector AD-01 and the move log's sentences, as a player reads them."""

from companion.games import hundred as H


def new(players=("A", "B", "C"), **options):
    return H.start(list(players), {"dealer": players[-1], **options})  # the first listed plays first


def said(state, move):
    after = H.apply(state, move)
    return after, [str(r) for r in H.narrate(after, move)]


def test_4_6_AD01_the_table_and_the_log_play_by_play():
    """RULES.md 4.6 AD-01: 8 → 8, 10 → 100, a 4 reverses (B next), 5H → 95, A next."""
    s = new()
    log = []
    for card in ("8H", "10D", "4C", "5H"):
        s, words = said(s, {"type": "play", "card": card})
        log += words
    assert log == [
        "A played 8H: 0 → 8.",
        "B played 10D: 8 → 100.",
        "C played 4C: 100 → 100.",
        "The direction is reversed.",
        "B played 5H: 100 → 95.",
    ]
    view = H.view(s)
    shown = {
        "game": "hundred",
        "players": ["A", "B", "C"],
        "sides": [["A"], ["B"], ["C"]],
        "dealer": "C",
        "deal": 1,
        "hand": 1,
        "to_act": "A",
        "expects": ["play", "lose"],
        "variant": "100",
        "title": "100",
        "target": 100,
        "total": 95,
        "direction": -1,
        "order": ["A", "C", "B"],  # anticlockwise after the 4
        "losses": {"A": 0, "B": 0, "C": 0},
        "tokens": {"A": 3, "B": 3, "C": 3},  # RULES.md 4.4: three tokens each
        "eliminated": [],
        "stock": 52 - 3 * 3 - 4,  # each player's 3 cards and the 4 played are out of the stock
        "pile": 4,
        "hand_size": 3,
        "seen": ["10D", "4C", "5H", "8H"],  # RULES.md 4.8: each card of one pack seen once
        "history": [],
        "result": None,
    }
    assert {k: view[k] for k in shown} == shown
    assert view["pack"] == [r + s for s in "SHDC" for r in "A 2 3 4 5 6 7 8 9 10 J Q K".split()]  # one pack
    assert view["last"] == {
        "player": "B",
        "card": "5H",
        "from": 100,
        "total": 95,
        "choice": False,
        "reverse": False,
        "bust": False,
    }


def test_4_6_AD01e_a_shown_hand_that_cannot_go_loses_a_token_and_the_deal_passes():
    """RULES.md 4.6 AD-01e, 4.4 and 4.8: A shows {6, 8, 9} on 95, every card over 100: A loses
    the hand (verified by the cards shown), gives a token, and the next player deals."""
    s = new()
    for card in ("8H", "10D", "4C", "5H"):
        s = H.apply(s, {"type": "play", "card": card})
    s, words = said(s, {"type": "lose", "hand": ["6S", "8S", "9S"]})
    assert words == [
        "Hand 1: A loses the hand.",
        "A could not go: every card shown goes over 100 (6S 8S 9S on 95).",
    ]
    view = H.view(s)
    record = view["history"][-1]
    assert {k: record[k] for k in ("deal", "hand", "loser", "losers", "points", "shown", "total", "verified")} == {
        "deal": 1,
        "hand": 1,
        "loser": "A",
        "losers": ["A"],
        "points": {"A": 1, "B": 0, "C": 0},
        "shown": ["6S", "8S", "9S"],
        "total": 95,
        "verified": True,
    }
    assert (record["tallied"], record["eliminated"]) == (False, False)
    assert (view["dealer"], view["to_act"], view["hand"], view["total"], view["direction"]) == ("A", "B", 2, 0, 1)
    assert (view["tokens"], view["losses"]) == ({"A": 2, "B": 3, "C": 3}, {"A": 1, "B": 0, "C": 0})
    assert (view["pile"], view["seen"], view["stock"], view["order"]) == (0, [], 52 - 9, ["B", "C", "A"])
    assert H.figures(view)["A"] == {
        "deals": 1,
        "points": 0,
        "sweeps": 0,
        "best_sweep": 0,
        "cantes": 0,
        "marks": 1,
        "double": 0,
    }


def test_the_log_says_who_lost_a_hand_and_why():
    """RULES.md 4.2: over the target loses the hand; a player who can't go loses it (verified
    only with the hand shown, 4.8); a tallied hand names its loser (4.4)."""
    s = H.apply(new(), {"type": "play", "card": "10S"})  # A: 100
    bust, words = said(s, {"type": "play", "card": "9S"})
    assert words == ["Hand 1: B loses the hand.", "B played 9S: 100 → 109, over 100."]
    record = bust.history[-1]
    assert (record["bust"], record["verified"], record["shown"], record["total"]) == ("9S", False, None, 109)
    _, words = said(s, {"type": "lose"})
    assert words == ["Hand 1: B loses the hand.", "B could not go (hand not shown)."]
    tallied, words = said(new(), {"type": "tally", "loser": "B"})
    assert words == ["Hand 1: B loses the hand.", "Tallied: the hand's cards were not entered."]
    assert (tallied.history[-1]["tallied"], tallied.history[-1]["verified"]) == (True, False)
