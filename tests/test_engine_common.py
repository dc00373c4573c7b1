"""What every engine does the same way (companion/games/common.py), through the games:
the statistics' figures of a finished game, and a state that survives being stored."""

from companion.games import tablanette, tantony, tute


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
