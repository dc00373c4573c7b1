"""The check every test runs on the reasons the app makes (tests/translated.py) finds what a
reader would miss."""

from companion.errors import Reason
from tests.translated import faults, japanese

TEXT = "%(card)s is not on the table. Legal: %(legal)s."


def test_a_reason_with_its_japanese_words_and_params_is_whole():
    assert TEXT in japanese()
    assert faults(Reason("not_on_table", TEXT, card="5D", legal=["5C"])) == []


def test_a_text_the_catalog_lacks_a_param_missing_or_none_are_faults():
    assert faults(Reason("not_on_table", "XX" + TEXT, card="5D", legal=["5C"])) == [
        f"no Japanese words for {'XX' + TEXT!r} (`make messages`)"
    ]
    assert faults(Reason("not_on_table", TEXT, legal=["5C"])) == [f"not_on_table: no 'card' for {TEXT!r}"]
    assert faults(Reason("not_on_table", TEXT, card=None, legal=["5C"])) == [
        f"not_on_table: 'card' is None in {TEXT!r}"
    ]


def test_a_value_shown_as_given_may_be_none():
    text = "A sweep bonus is a whole number above 0, not %(bonus)r."
    assert faults(Reason("bad_sweep_bonus", text, bonus=None)) == []
