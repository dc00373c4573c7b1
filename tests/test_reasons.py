"""A refusal as data (companion/errors.py), and the refusals every game shares: an unknown
game, a wrong number of players (RULES.md 1.2, 2.3, 3.2 and 4.2 give each game's range),
a card that is not one (RULES.md 0.2). What the API sends is exactly what a client reads:
the code, the English sentence, its params and the rule it cites (README, JSON API)."""

import pytest

from companion import games
from companion.cards import Card
from companion.errors import IllegalMove, InvalidMove, OptionError, Reason

QH_PLAYED = Reason("already_played", "%(card)s was already played in trick %(trick)s.", card="QH", trick=2)
NOT_YOURS = Reason(
    "not_your_card", "%(card)s is in %(holder)s's hand (%(rule)s).", rule="Tute 2.4", card="QH", holder="Ann"
)


def test_the_api_sends_a_refusal_as_its_words_code_params_and_rule():
    assert QH_PLAYED.as_json() == {
        "error": "QH was already played in trick 2.",
        "code": "already_played",
        "params": {"card": "QH", "trick": 2},
        "rule": None,
    }
    assert NOT_YOURS.as_json()["rule"] == "Tute 2.4"


def test_a_reason_read_back_from_its_data_is_the_same_reason():
    for reason in (QH_PLAYED, NOT_YOURS):
        assert Reason.from_json(reason.as_data()) == reason
        assert Reason.from_json(reason.as_json() | {"text": reason.text}) == reason
    bare = Reason.from_json({"code": "game_over", "text": "The game is over."})  # no params, no rule
    assert (bare.code, str(bare), bare.params, bare.rule) == ("game_over", "The game is over.", {}, None)


def test_replace_changes_only_the_params_named():
    named = NOT_YOURS.replace(holder="Ben")
    assert (named.code, named.text, named.rule) == (NOT_YOURS.code, NOT_YOURS.text, NOT_YOURS.rule)
    assert named.params == {"card": "QH", "holder": "Ben"} and NOT_YOURS.params["holder"] == "Ann"
    assert str(named) == "QH is in Ben's hand (Tute 2.4)."


def test_reasons_are_equal_by_what_they_say():
    assert QH_PLAYED == Reason("already_played", "%(card)s was already played in trick %(trick)s.", card="QH", trick=2)
    assert QH_PLAYED != Reason("already_played", "%(card)s was already played in trick %(trick)s.", card="QH", trick=3)
    assert QH_PLAYED != "QH was already played in trick 2."  # a sentence is not a reason
    assert len({QH_PLAYED, QH_PLAYED.replace(), NOT_YOURS}) == 2
    assert hash(QH_PLAYED) != hash(NOT_YOURS)
    assert repr(QH_PLAYED) == "Reason('already_played', 'QH was already played in trick 2.')"


def test_an_unknown_game_is_refused_naming_the_known_ones():
    with pytest.raises(OptionError) as err:
        games.get("poker")
    assert err.value.reason.as_json() == {
        "error": "Unknown game 'poker'; known games: tablanette, tute, tantony, hundred",
        "code": "unknown_game",
        "params": {"game": "poker", "known": "tablanette, tute, tantony, hundred"},
        "rule": None,
    }


@pytest.mark.parametrize(
    ("game", "players", "code", "words"),
    [
        ("tablanette", 5, "player_count", "Tablanette is for 2 to 4 players"),  # RULES.md 1.2
        ("tute", 2, "player_count", "Tute Cabrón is for 3 to 5 players"),  # RULES.md 2.3
        ("tantony", 5, "player_count_pair", "Tantony is for 3 or 4 players"),  # RULES.md 3.2, 3.10
        ("hundred", 1, "player_count", "100 / 99 / 98 is for 2 to 20 players"),  # RULES.md 4.2
    ],
)
def test_a_wrong_number_of_players_is_refused_with_the_games_range(game, players, code, words):
    rules = games.get(game)
    with pytest.raises(OptionError) as err:
        rules.start([f"P{i}" for i in range(players)])
    low, high = rules.MIN_PLAYERS, rules.MAX_PLAYERS
    assert (err.value.code, str(err.value), err.value.option) == (code, words, "players")
    assert err.value.params == {"option": "players", "game": rules.TITLE, "low": low, "high": high}


def test_a_card_made_from_a_bad_rank_or_suit_is_refused_as_not_a_card():
    """RULES.md 0.2: ranks A 2 ... 10 J Q K, suits S H D C."""
    with pytest.raises(InvalidMove) as err:
        Card("1", "S")
    assert (err.value.code, str(err.value)) == ("not_a_card", "'1S' is not a card: write it like 10D, QH or Q♥")


def test_a_refusal_is_raised_from_a_reason_or_from_its_parts_never_both():
    assert IllegalMove(QH_PLAYED).reason is QH_PLAYED
    made = IllegalMove("already_played", "%(card)s was already played in trick %(trick)s.", card="QH", trick=2)
    assert made.reason == QH_PLAYED and str(made) == "QH was already played in trick 2."
    with pytest.raises(TypeError):
        IllegalMove(QH_PLAYED, "again")
    with pytest.raises(TypeError):
        IllegalMove("already_played")


def test_lists_in_a_sentence_are_joined_as_english_joins_them():
    """Names joined with "and", alternatives with "or", the serial comma from three on."""

    def words(**params):
        return str(Reason("list", "%(players)s / %(totals)s", **params))

    assert words(players=["Ann"], totals=[82]) == "Ann / 82"
    assert words(players=["Ann", "Ben"], totals=[82, 102]) == "Ann and Ben / 82 or 102"
    assert words(players=["Ann", "Ben", "Cat"], totals=[2, 12, 22]) == "Ann, Ben, and Cat / 2, 12, or 22"
    assert words(players=["Ann", "Ben", "Cat", "Dan"], totals=[1, 2, 3, 4]) == "Ann, Ben, Cat, and Dan / 1, 2, 3, or 4"


def test_a_mapping_reads_as_each_key_and_value_and_literals_as_json():
    """A score each ("Ann 40, Ben 12"); the values a program may send, as JSON writes them."""
    scores = Reason("scores", "Scores: %(points)s.", points={"Ann": 40, "Ben": 12})
    assert str(scores) == "Scores: Ann 40, Ben 12."
    allowed = Reason("choice", "Send %(allowed)s.", allowed=["layout", "play", "タリー"])
    assert str(allowed) == 'Send "layout", "play", or "タリー".'


def test_a_rule_is_cited_exactly_where_the_words_place_it():
    """A rule link needs its place in the words, and a place needs its rule (each refusal's
    words end "(Tute 2.4)": RULES.md's section, linked)."""
    with pytest.raises(TypeError, match="^not_your_card: a rule is given exactly when the text has a place for it$"):
        Reason("not_your_card", "%(card)s is in another hand.", rule="Tute 2.4", card="QH")
    with pytest.raises(TypeError, match="^not_your_card: a rule is given exactly when the text has a place for it$"):
        Reason("not_your_card", "%(card)s is in another hand (%(rule)s).", card="QH")


def test_a_refusal_from_a_reason_takes_nothing_else():
    with pytest.raises(TypeError, match="^give a Reason, or a code and its text, not both$"):
        IllegalMove(QH_PLAYED, rule="Tute 2.4")
    with pytest.raises(TypeError, match="^give a Reason, or a code and its text, not both$"):
        IllegalMove(QH_PLAYED, card="KH")
    with pytest.raises(TypeError, match="^already_played: a refusal needs its text$"):
        IllegalMove("already_played", card="KH")
