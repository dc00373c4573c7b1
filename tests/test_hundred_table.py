"""What the referee shows and says of a hand of 100 (RULES.md 4.2, 4.4, 4.8): the table after
each play of vector AD-01 and the move log's sentences, as a player reads them."""

from companion.games import hundred as H


def new(players=("A", "B", "C"), **options):
    return H.start(list(players), {"dealer": players[-1], **options})  # the first listed plays first


def said(state, move):
    """The state after ``move``, and the log's sentences for it (each code and its words)."""
    after = H.apply(state, move)
    return after, [(r.code, str(r)) for r in H.narrate(after, move)]


def test_4_6_AD01_the_table_and_the_log_play_by_play():
    """RULES.md 4.6 AD-01: 8 → 8, 10 → 100, a 4 reverses (B next), 5H → 95, A next."""
    s = new()
    log = []
    for card in ("8H", "10D", "4C", "5H"):
        s, words = said(s, {"type": "play", "card": card})
        log += words
    assert log == [
        ("played", "A played 8H: 0 → 8."),
        ("played", "B played 10D: 8 → 100."),
        ("played", "C played 4C: 100 → 100."),
        ("reversed", "The direction is reversed."),
        ("played", "B played 5H: 100 → 95."),
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
        ("lost_hand", "Hand 1: A loses the hand."),
        ("could_not_go_shown", "A could not go: every card shown goes over 100 (6S 8S 9S on 95)."),
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
    assert words == [("lost_hand", "Hand 1: B loses the hand."), ("bust", "B played 9S: 100 → 109, over 100.")]
    record = bust.history[-1]
    assert (record["bust"], record["verified"], record["shown"], record["total"]) == ("9S", False, None, 109)
    _, words = said(s, {"type": "lose"})
    assert words == [("lost_hand", "Hand 1: B loses the hand."), ("could_not_go", "B could not go (hand not shown).")]
    tallied, words = said(new(), {"type": "tally", "loser": "B"})
    assert words == [
        ("lost_hand", "Hand 1: B loses the hand."),
        ("lost_tallied", "Tallied: the hand's cards were not entered."),
    ]
    assert (tallied.history[-1]["tallied"], tallied.history[-1]["verified"]) == (True, False)


def test_4_9_landing_exactly_on_99_ends_the_hand_and_the_others_lose_it():
    """RULES.md 4.9 (PlayAural's 99, exact_target "others_lose"): C makes exactly 99 from 91;
    A and B each lose the hand (a token each), and the next player deals."""
    s = new(variant="99quentin")
    for card in ("QS", "QH", "QD", "QC", "KS", "KH", "KD", "KC", "JS"):
        s = H.apply(s, {"type": "play", "card": card})
    s = H.apply(s, {"type": "play", "card": "AS", "total": 91})
    s, words = said(s, {"type": "play", "card": "8S"})
    assert words == [
        ("lost_hand_all", "Hand 1: A and B lose the hand."),
        ("exact_target", "C played 8S: 91 → 99, exactly 99: the hand ends and the others lose it (100/99/98 4.9)."),
    ]
    view = H.view(s)
    assert (view["history"][-1]["loser"], view["history"][-1]["losers"]) == (None, ["A", "B"])
    # The board shows the card that ended the hand, and who lost it.
    last = {"player": "C", "card": "8S", "from": 91, "total": 99, "exact": True, "losers": ["A", "B"]}
    assert {k: view["last"][k] for k in last} == last
    assert view["tokens"] == {"A": 2, "B": 2, "C": 3} and view["dealer"] == "A"


def test_4_9_when_several_lose_the_next_player_deals_even_where_the_loser_would():
    """RULES.md 4.4 (next_dealer "loser") and 4.9: a hand lost by several players has no one
    loser to deal: the next player deals (B dealt and lands on 99: A and C lose, and C deals)."""
    s = H.start(["A", "B", "C"], {"dealer": "B", "variant": "99quentin", "next_dealer": "loser"})
    for card in ("QS", "QH", "QD", "QC", "KS", "KH", "KD", "KC", "JS"):
        s = H.apply(s, {"type": "play", "card": card})
    s = H.apply(s, {"type": "play", "card": "AS", "total": 91})
    s = H.apply(s, {"type": "play", "card": "8S"})
    assert (s.history[-1]["losers"], H.view(s)["dealer"]) == (["A", "C"], "C")


def test_a_hand_stored_before_a_record_named_its_losers_is_still_told():
    """RULES.md 4.4: a record of one lost hand from before ``losers`` (only ``loser``) reads as before."""
    s, move = H.apply(new(), {"type": "tally", "loser": "B"}), {"type": "tally", "loser": "B"}
    old = {k: v for k, v in s.history[-1].items() if k != "losers"}
    s = H.load(H.dump(s) | {"history": [old]})
    assert [(r.code, str(r)) for r in H.narrate(s, move)][0] == ("lost_hand", "Hand 1: B loses the hand.")
