"""The tally screens' forms: one Flask-WTF form class per game (issue 13, DESIGN.md tally).

A tally screen records a whole deal in one screen. What has been entered so far travels in
the form itself (hidden fields), and every tap is a submit button whose name and value are
a field of the form. Every field is typed and checked against this game: seats are the
game's sides or players, cards are cards of its pack, numbers lie in the deal's range, a
sweep bonus is one a sweep can score. A bad submission is refused beside the field it
names and keeps nothing of the post but its valid fields; nothing is stored.

The rules stay the engine's (DESIGN.md: a view never contains a rule): a form only turns
taps into the engine's ``tally`` move, and the engine scores or refuses the deal.
"""

from __future__ import annotations

import copy
import re

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import Field, IntegerField, SelectChoice, SelectField, SelectMultipleField
from wtforms.validators import InputRequired, NumberRange, Optional, StopValidation, ValidationError
from wtforms.widgets import HiddenInput, TextInput

#: A number as typed on a phone: ASCII digits only (int() would also take '٣' or '1_0').
NUMBER = re.compile(r"[+-]?[0-9]{1,40}")
ONE_VALUE = _l("Only one value can be sent here, not a list.")
ONE_TAP = _l("One tap at a time: only one button can be sent.")


def whole(value) -> int:
    """A choice's number from the form (a seat, a cante): ASCII digits only, as ``NUMBER``."""
    if isinstance(value, int):
        return value
    if not isinstance(value, str) or NUMBER.fullmatch(value) is None:
        raise ValueError(f"not a whole number: {value!r}")
    return int(value)


class WholeNumber(IntegerField):
    """A whole number typed in a text box (a phone's numeric keypad); blank is "not yet"."""

    widget = TextInput()

    def process_formdata(self, valuelist):
        if not valuelist:
            return
        text = valuelist[0].strip()
        self.data = None
        if not text:
            return
        if NUMBER.fullmatch(text) is None:
            raise ValueError(self.invalid_value_message or _l("Enter a whole number, in digits."))
        self.data = int(text)

    def pre_validate(self, form):
        if self.process_errors:  # not a number: its range is not worth a second message
            raise StopValidation()


class Numbers(Field):
    """Whole numbers kept by the screen, one hidden input each (all of the same name)."""

    widget = HiddenInput()

    def __init__(self, label=None, validators=None, message=_l("These are whole numbers."), **kwargs):
        super().__init__(label, validators, default=list, **kwargs)
        self.message = message

    def process_data(self, value):
        self.data = list(value or [])

    def process_formdata(self, valuelist):
        if not valuelist:
            return
        if any(NUMBER.fullmatch(v.strip()) is None for v in valuelist):
            self.data = []
            raise ValueError(self.message)
        self.data = [int(v) for v in valuelist]


class Pick(SelectField):
    """A choice that may be absent: a button's name and value arrive only when it was
    tapped, and a hidden field is left out while nothing is chosen. When it is sent, its
    value must be one of ``choices``."""

    widget = HiddenInput()

    def pre_validate(self, form):
        if self.raw_data:
            super().pre_validate(form)


class Cards(SelectMultipleField):
    """Cards kept by the screen (one hidden input each), every one a card of the pack, once."""

    def __init__(self, label=None, validators=None, **kwargs):
        super().__init__(
            label,
            validators,
            default=list,
            invalid_choice_message=_l("%(value)s is not a card of this pack."),
            **kwargs,
        )

    def post_validate(self, form, validation_stopped):
        if self.data and len(set(self.data)) != len(self.data):
            raise ValidationError(_l("Each card can be tapped in only once."))


def each(check):
    """A validator from an engine check that gives a refusal (or None) for one value: the
    field's value, or each of its values."""

    def validator(form, field):
        values = field.data if isinstance(field.data, list) else [field.data]
        for value in values:
            refusal = check(value)
            if refusal:
                raise ValidationError(refusal)

    return validator


def all_but_last(prefix: str, seats: list[str], check) -> dict[str, Field]:
    """A number box for each seat but the last (``<prefix>_<i>``), optional and checked
    by ``check``: the last seat's number is the rest of a deal's known total."""
    return {f"{prefix}_{i}": WholeNumber(seat, [Optional(), check]) for i, seat in enumerate(seats[:-1])}


def seat_choice(label: str, seats: list[str], **kwargs) -> Pick:
    """One of the game's seats (a side or a player), sent as its index in seat order."""
    message = _l("Choose one of %(names)s.", names=", ".join(seats))
    return Pick(
        label,
        coerce=whole,
        choices=[SelectChoice(i, s) for i, s in enumerate(seats)],
        invalid_choice_message=message,
        invalid_value_message=message,
        **kwargs,
    )


def card_choice(label: str, cards: list[str], message: str) -> Pick:
    return Pick(label, choices=[SelectChoice(c) for c in cards], invalid_choice_message=message)


class TallyForm(FlaskForm):
    """What every tally form has: the game's version (a record is refused if another phone
    changed the game first) and taps, at most one a post."""

    #: Its one tap records the deal (100's "who lost"): no preview of the deal's end and no
    #: Record button, as the other games' screens show once the deal is complete.
    RECORDED_BY_TAP = False

    version = WholeNumber(
        _l("Version"),
        widget=HiddenInput(),
        validators=[
            InputRequired(_l("The form lost the game's version: reload the page.")),
            NumberRange(min=0, message=_l("The game's version is a whole number of 0 or more.")),
        ],
    )

    def __init__(self, ctx: dict, **kwargs):
        self.ctx = ctx
        self.recording = False
        super().__init__(**kwargs)

    @classmethod
    def for_game(cls, rules, state, view, **kwargs) -> TallyForm:
        """This game's form: its fields depend on the players, the sides and the pack."""
        ctx = cls.context(rules, state, view)
        form_class = type(cls.__name__, (cls,), cls.fields(ctx))
        return form_class(ctx, **kwargs)

    @staticmethod
    def context(rules, state, view) -> dict:
        raise NotImplementedError

    @classmethod
    def fields(cls, ctx: dict) -> dict[str, Field]:
        raise NotImplementedError

    def taps(self) -> list:
        """``(field, handler)`` for each button; a handler gets the field's value and
        returns a refusal (shown beside the tap's fieldset) or None."""
        raise NotImplementedError

    def model(self) -> dict:
        """What the screen shows (``t`` in the templates), with ``move``: the engine's
        tally move, or None while the deal is not complete, ``problems`` (what holds Record
        back) and, if any, ``notes`` (what is worth a look first, without holding it back)."""
        raise NotImplementedError

    def _record(self, on) -> None:
        self.recording = bool(on)

    def validate(self, extra_validators=None) -> bool:
        ok = super().validate(extra_validators)
        for field in self:  # WTForms would silently take the first of several values
            if not isinstance(field, (Numbers, SelectMultipleField)) and len(field.raw_data or ()) > 1:
                field.errors.append(ONE_VALUE)
                ok = False
        return ok

    def take(self) -> bool:
        """Check the post and apply its tap. False when refused: the reasons are beside
        their fields, and only the valid fields are kept."""
        ok = self.validate() and self._tap()
        if not ok:
            self._drop_bad()
        return ok

    def _tap(self) -> bool:
        pressed = [(field, handler) for field, handler in self.taps() if field.raw_data]
        if len(pressed) > 1:
            self.form_errors.append(ONE_TAP)
            return False
        for field, handler in pressed:
            refusal = handler(field.data)
            if refusal:
                field.errors.append(refusal)
                return False
        return True

    def _drop_bad(self) -> None:
        """A refused field goes back to its default (a typed box keeps its text, so the
        message beside it shows what was typed); a refused tap does nothing."""
        self.recording = False
        for field in self:
            if field.errors:
                field.data = copy.copy(field.object_data)
                if not isinstance(field.widget, TextInput):
                    field.raw_data = []

    @property
    def failed(self) -> bool:
        return bool(self.form_errors) or any(field.errors for field in self)

    def messages(self, *names: str) -> list[str]:
        """The errors of the fields named, or starting with a name that ends in ``_``."""
        return [
            e
            for field in self
            if any(field.name == n or (n.endswith("_") and field.name.startswith(n)) for n in names)
            for e in field.errors
        ]
