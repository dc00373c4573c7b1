"""What every engine does the same way (companion/games/common.py), through the games:
the statistics' figures of a finished game, and a state that survives being stored."""

import pytest

from companion import games
from companion.games import IllegalMove, InvalidMove, OptionError, hundred, tablanette, tantony, tute


def test_figures_add_each_deals_points_and_keep_the_biggest_sweep():
    """RULES.md 1.5: a sweep scores its bonus; the statistics count the sweeps of every deal
    and keep the biggest one, not their sum."""
    view = {
        "sides": [["Ann"], ["Ben"]],
        "history": [
            {"points": {"Ann": 5, "Ben": 20}, "sweeps": {"Ann": [1, 3], "Ben": []}},
            {"points": {"Ann": 12, "Ben": 10}, "sweeps": {"Ann": [2], "Ben": [1]}},
        ],
        "result": None,
    }
    figures = tablanette.figures(view)
    assert figures["Ann"] == {
        "deals": 2,
        "points": 17,
        "sweeps": 3,
        "best_sweep": 3,
        "cantes": 0,
        "marks": 0,
        "double": 0,
    }
    assert (figures["Ben"]["points"], figures["Ben"]["sweeps"], figures["Ben"]["best_sweep"]) == (30, 1, 1)


def test_figures_count_a_sudden_death_double_win_for_the_winners_only():
    """RULES.md 3.8: sudden death wins double; the statistics count it for the winning team."""
    view = {
        "sides": [["Ann", "Cat"], ["Ben", "Dan"]],
        "history": [{"points": {"Ann & Cat": 60, "Ben & Dan": 0}}],
        "result": {"winners": ["Ann & Cat"], "double": True},
    }
    figures = tantony.figures(view)
    assert (figures["Ann & Cat"]["double"], figures["Ben & Dan"]["double"]) == (1, 0)
    assert (figures["Ann & Cat"]["points"], figures["Ann & Cat"]["deals"]) == (60, 1)


def test_figures_count_tute_cante_points_and_a_loss_mark_per_deal_lost():
    """RULES.md 2.6: a deal's loser (or losers) takes a loss mark; cantes count for the singer."""
    view = {
        "sides": [["Ann"], ["Ben"], ["Cat"]],
        "history": [
            {"points": {"Ann": 70, "Ben": 30, "Cat": 20}, "cantes": {"Ann": 40}, "losers": ["Ann"]},
            {"points": {"Ann": 10, "Ben": 80, "Cat": 30}, "cantes": {"Ben": 20, "Ann": 20}, "losers": ["Ben"]},
        ],
        "result": None,
    }
    figures = tute.figures(view)
    assert {side: (f["deals"], f["points"], f["cantes"], f["marks"]) for side, f in figures.items()} == {
        "Ann": (2, 80, 60, 1),
        "Ben": (2, 110, 20, 1),
        "Cat": (2, 50, 0, 0),
    }


TUTE_OPTIONS = (
    "loss_limit, undertrump_required, must_head, duties, win_threshold, triple_tie, no_trick_loses, "
    "over_100_loses, allow_declarations, revoke_penalty, spanish_names"
)
DEALS = ", ".join(["none", *map(str, range(1, 21))])
HUNDREDS = "100, 99, 99itoya, 98, 99quentin, 99tgames, 99chicago, 99jokerrules, 99gonzo"
ANN_BEN_CAT = ["Ann", "Ben", "Cat"]


@pytest.mark.parametrize(
    ("game", "players", "options", "code", "sentence", "params"),
    [
        ("tute", ANN_BEN_CAT, {"colour": 1}, "unknown_option",
         f"Unknown option 'colour'; Tute Cabrón options are: {TUTE_OPTIONS}",
         {"option": "colour", "game": "Tute Cabrón", "known": TUTE_OPTIONS}),
        ("tute", ANN_BEN_CAT, ["x"], "options_not_mapping", "Options must be a mapping of option names to values", {}),
        ("tute", "Ann Ben Cat", None, "players_not_names", "Players must be a list of names", {"option": "players"}),
        ("tute", ["Ann", "Ann", "Cat"], None, "player_names", "Every player needs a name, and no two the same",
         {"option": "players"}),
        ("tute", ["Ann", " ", "Cat"], None, "player_names", "Every player needs a name, and no two the same",
         {"option": "players"}),
        ("tute", ANN_BEN_CAT, {"players": 4}, "player_count_mismatch", "Option players is 4 but 3 players are listed",
         {"option": "players", "count": 4, "listed": 3}),
        ("tute", ANN_BEN_CAT, {"players": 9}, "player_count", "Tute Cabrón is for 3 to 5 players",
         {"option": "players", "game": "Tute Cabrón", "low": 3, "high": 5}),
        ("tute", ANN_BEN_CAT, {"players": True}, "player_count", "Tute Cabrón is for 3 to 5 players",
         {"option": "players", "game": "Tute Cabrón", "low": 3, "high": 5}),
        ("tute", ANN_BEN_CAT, {"dealer": "Zed"}, "dealer_not_playing",
         "The dealer must be one of the players, not 'Zed'", {"option": "dealer", "dealer": "Zed"}),
        ("tute", ANN_BEN_CAT, {"must_head": "yes"}, "not_bool", "must_head must be true or false, not 'yes'",
         {"option": "must_head", "value": "yes"}),
        ("hundred", ["Ann", "Ben"], {"variant": "101"}, "not_a_choice",
         f"variant must be one of: {HUNDREDS} (not '101')", {"option": "variant", "allowed": HUNDREDS, "value": "101"}),
        ("hundred", ["Ann", "Ben"], {"variant": 100}, "not_a_choice",  # a choice is compared with its type
         f"variant must be one of: {HUNDREDS} (not 100)", {"option": "variant", "allowed": HUNDREDS, "value": 100}),
        ("tablanette", ["Ann", "Ben"], {"fixed_deals": 0}, "not_a_choice",  # none: no fixed number of deals
         f"fixed_deals must be one of: {DEALS} (not 0)", {"option": "fixed_deals", "allowed": DEALS, "value": 0}),
    ],
)  # fmt: skip
def test_a_game_is_refused_options_and_players_it_cannot_take(game, players, options, code, sentence, params):
    """RULES.md 2.8 and 4.5 list each game's options; 2.3 and 4.2 its players, named and distinct."""
    with pytest.raises(OptionError) as err:
        games.get(game).start(players, options)
    assert err.value.reason.as_json() == {"error": sentence, "code": code, "params": params, "rule": None}


def test_names_are_stripped_and_the_first_dealer_is_the_first_listed_unless_named():
    """RULES.md 0.3: seats in play order; D is the dealer's seat."""
    s = tute.start([" Ann ", "Ben", "Cat "])
    assert (s.players, s.dealer) == (ANN_BEN_CAT, 0)
    assert tute.start(ANN_BEN_CAT, {"dealer": "Cat", "players": 3}).dealer == 2


@pytest.mark.parametrize(
    ("move", "kind", "code", "sentence", "params"),
    [
        ("x", InvalidMove, "not_a_move", "A move must be a mapping with a 'type'", {}),
        ({"type": "dance"}, InvalidMove, "unknown_move",
         "Unknown move type 'dance'; Tute Cabrón moves are: trump, play, declare, tally, claim",
         {"kind": "dance", "game": "Tute Cabrón", "known": "trump, play, declare, tally, claim"}),
        ({"type": 7}, InvalidMove, "unknown_move",
         "Unknown move type 7; Tute Cabrón moves are: trump, play, declare, tally, claim",
         {"kind": 7, "game": "Tute Cabrón", "known": "trump, play, declare, tally, claim"}),
        ({"type": ["play"]}, InvalidMove, "unknown_move",  # a type that is no key at all: refused, not a crash
         "Unknown move type ['play']; Tute Cabrón moves are: trump, play, declare, tally, claim",
         {"kind": ["play"], "game": "Tute Cabrón", "known": "trump, play, declare, tally, claim"}),
        ({"type": "play", "card": "AS", "player": "Zed"}, InvalidMove, "not_playing",
         "'Zed' is not playing in this game", {"player": "Zed"}),
        ({"type": "play", "card": "AS", "player": "Ann"}, IllegalMove, "not_your_turn", "It is Ben's turn, not Ann's.",
         {"turn": "Ben", "player": "Ann"}),
    ],
)  # fmt: skip
def test_a_move_is_a_mapping_of_a_known_type_by_the_player_to_act(move, kind, code, sentence, params):
    """RULES.md 0.3 and 2.3: in Tute the player on the dealer's right (D+1) leads."""
    s = tute.start(ANN_BEN_CAT)
    with pytest.raises(kind) as err:
        tute.apply(s, move)
    assert err.value.reason.as_json() == {"error": sentence, "code": code, "params": params, "rule": None}
    assert tute.dump(s) == tute.dump(tute.start(ANN_BEN_CAT))  # a refused move changes nothing


@pytest.mark.parametrize(
    ("game", "players", "known"),
    [("tablanette", ["Ann", "Ben"], "layout, play, tally"), ("tantony", ["N", "E", "S", "W"], "play, give, tally")],
)
def test_an_unknown_move_names_the_games_own_moves(game, players, known):
    """DESIGN.md errors: a move of no kind the game knows is refused, naming the game and its moves."""
    rules = games.get(game)
    with pytest.raises(InvalidMove) as e:
        rules.apply(rules.start(players), {"type": "dance"})
    assert (e.value.code, str(e.value)) == (
        "unknown_move",
        f"Unknown move type 'dance'; {rules.TITLE} moves are: {known}",
    )


def test_no_move_is_taken_once_the_game_is_over():
    """RULES.md 4.4: the match is over when one player has tokens left."""
    s = hundred.start(["Ann", "Ben"], {"tokens": 1})
    s = hundred.apply(s, {"type": "lose"})
    with pytest.raises(IllegalMove) as err:
        hundred.apply(s, {"type": "play", "card": "KS"})
    assert (err.value.code, str(err.value)) == ("game_over", "The game is over.")


@pytest.mark.parametrize("game", games.GAMES)
def test_a_stored_state_loads_as_itself_and_anything_else_is_refused(game):
    """DESIGN.md: states serialise; load(dump(s)) == s, and data that is no state is a ValueError."""
    rules = games.get(game)
    state = rules.start([f"P{i}" for i in range(rules.MIN_PLAYERS)])
    data = rules.dump(state)
    assert rules.load(data) == state and rules.dump(rules.load(data)) == data
    assert data["options"] == {f: getattr(state.options, f) for f in rules.OPTION_NAMES}
    for broken in ({}, {**data, "options": {"nonsense": 1}}, {**data, "colour": "red"}):
        with pytest.raises(ValueError, match="Not a .* state"):
            rules.load(broken)
