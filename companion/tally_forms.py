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
from functools import partial

from flask_wtf import FlaskForm
from wtforms import Field, IntegerField, SelectChoice, SelectField, SelectMultipleField, SubmitField
from wtforms.validators import InputRequired, Length, NumberRange, Optional, StopValidation, ValidationError
from wtforms.widgets import HiddenInput, TextInput

from companion.errors import MoveError

#: A number as typed on a phone: ASCII digits only (int() would also take '٣' or '1_0').
NUMBER = re.compile(r"[+-]?[0-9]{1,40}")
ONE_VALUE = "Only one value can be sent here, not a list."
ONE_TAP = "One tap at a time: only one button can be sent."


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
            raise ValueError(self.invalid_value_message or "Enter a whole number, in digits.")
        self.data = int(text)

    def pre_validate(self, form):
        if self.process_errors:  # not a number: its range is not worth a second message
            raise StopValidation()


class Numbers(Field):
    """Whole numbers kept by the screen, one hidden input each (all of the same name)."""

    widget = HiddenInput()

    def __init__(self, label=None, validators=None, message="These are whole numbers.", **kwargs):
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
            label, validators, default=list, invalid_choice_message="%(value)s is not a card of this pack.", **kwargs
        )

    def post_validate(self, form, validation_stopped):
        if self.data and len(set(self.data)) != len(self.data):
            raise ValidationError("Each card can be tapped in only once.")


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


def seat_choice(label: str, seats: list[str], **kwargs) -> Pick:
    """One of the game's seats (a side or a player), sent as its index in seat order."""
    message = f"Choose one of {', '.join(seats)}."
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

    version = WholeNumber(
        "Version",
        widget=HiddenInput(),
        validators=[
            InputRequired("The form lost the game's version: reload the page."),
            NumberRange(min=0, message="The game's version is a whole number of 0 or more."),
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
        tally move, or None while the deal is not complete, and ``problems``."""
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


# -- Tablanette: cards taken, counting cards, sweeps ----------------------------------------


class TablanetteTally(TallyForm):
    """RULES.md 1.5: the cards each side took (the last side's are the rest of the pack),
    which side took each counting card, and each side's sweeps, typed as bonuses or built
    from the card played and the cards it swept."""

    record = SubmitField("Record this deal")
    sb_clear = SubmitField("Clear")

    @staticmethod
    def context(rules, state, view) -> dict:
        scale = state.options.point_scale
        return {
            "rules": rules,
            "options": state.options,
            "sides": [" & ".join(s) for s in view["sides"]],
            "pack": [str(c) for c in rules.PACK],
            "counters": [c for c in map(str, rules.PACK) if rules.card_points([c], scale)],
        }

    @classmethod
    def fields(cls, ctx: dict) -> dict[str, Field]:
        sides, pack, counters = ctx["sides"], ctx["pack"], ctx["counters"]
        bonus = each(partial(ctx["rules"].sweep_bonus_refusal, options=ctx["options"]))
        taken = NumberRange(
            0, len(pack), message=f"Cards taken must be whole numbers of 0 or more, {len(pack)} at most."
        )
        out: dict[str, Field] = {
            "cycle": card_choice("Counting card", counters, "Tap one of the counting cards."),
            "sb": card_choice("Sweep card", pack, "Tap a card of the pack."),
            "sb_card": card_choice("Card played", pack, "The card played is a card of the pack."),
            "sb_taken": Cards("Cards swept", [Length(max=len(pack) - 1)], choices=[SelectChoice(c) for c in pack]),
            "sb_add": seat_choice("Add this sweep to", sides),
            "add_sweep": seat_choice("Add the bonus to", sides),
        }
        for i, side in enumerate(sides):
            if i < len(sides) - 1:
                out[f"cards_{i}"] = WholeNumber(side, [Optional(), taken])
            out[f"sweeps_{i}"] = Numbers(
                f"Sweeps of {side}",
                [Length(max=cls.most_sweeps(ctx)), bonus],
                message="Sweep bonuses are whole numbers above 0.",
            )
            out[f"bonus_{i}"] = WholeNumber(f"Sweep bonus for {side}", [Optional(), bonus])
            out[f"remove_sweep_{i}"] = Pick(
                f"Remove a sweep of {side}",
                coerce=whole,
                choices=[],
                invalid_choice_message=f"{side} has no such sweep.",
                invalid_value_message=f"{side} has no such sweep.",
            )
        for card in counters:
            out[f"owner_{card}"] = seat_choice(card, sides, default=0)
        return out

    @staticmethod
    def most_sweeps(ctx: dict) -> int:
        return len(ctx["pack"]) // 2  # a sweep takes at least one card with the card played

    def __init__(self, ctx: dict, **kwargs):
        super().__init__(ctx, **kwargs)
        for i in range(len(ctx["sides"])):  # only a sweep on screen can be removed
            sweeps = self[f"sweeps_{i}"].data
            self[f"remove_sweep_{i}"].choices = [SelectChoice(k, str(b)) for k, b in enumerate(sweeps)]

    def validate_sb_taken(self, field):
        if self.sb_card.data in (field.data or []):
            raise ValidationError("The card played can't be among the cards it swept.")

    def taps(self) -> list:
        out = [
            (self.record, self._record),
            (self.cycle, self._cycle),
            (self.sb, self._build),
            (self.sb_clear, self._clear),
            (self.sb_add, self._add_built),
            (self.add_sweep, self._add_typed),
        ]
        return out + [(self[f"remove_sweep_{i}"], partial(self._remove, i)) for i in range(len(self.ctx["sides"]))]

    def _cycle(self, card: str) -> None:
        owner = self[f"owner_{card}"]
        owner.data = (owner.data + 1) % len(self.ctx["sides"])

    def _build(self, card: str) -> None:
        """The sweep builder: the first card tapped is the one played, then each tap adds
        or takes back a swept card; the played card again starts over."""
        played, swept = self.sb_card, self.sb_taken
        if played.data is None:
            played.data = card
        elif card == played.data:
            self._clear(True)
        elif card in swept.data:
            swept.data = [c for c in swept.data if c != card]
        else:
            swept.data = swept.data + [card]

    def _clear(self, on) -> None:
        if on:
            self.sb_card.data, self.sb_taken.data = None, []

    def _add(self, side: int, bonus: int) -> str | None:
        sweeps = self[f"sweeps_{side}"]
        if len(sweeps.data) >= self.most_sweeps(self.ctx):
            return f"{self.ctx['sides'][side]} can't have more than {self.most_sweeps(self.ctx)} sweeps in a deal."
        sweeps.data = sweeps.data + [bonus]
        return None

    def _add_built(self, side: int) -> str | None:
        if self.sb_card.data is None or not self.sb_taken.data:
            return "Tap the card played, then the cards it swept."
        try:
            bonus = self.ctx["rules"].sweep_of(self.sb_card.data, self.sb_taken.data, self.ctx["options"]).bonus
        except MoveError as e:
            return str(e)
        refusal = self._add(side, bonus)
        if refusal is None:
            self._clear(True)
        return refusal

    def _add_typed(self, side: int) -> str | None:
        typed = self[f"bonus_{side}"]
        if typed.data is None:
            return f"Type the bonus of {self.ctx['sides'][side]}'s sweep first."
        refusal = self._add(side, typed.data)
        if refusal is None:
            typed.data, typed.raw_data = None, []  # used: the box is empty again
        return refusal

    def _remove(self, side: int, k: int) -> None:
        sweeps = self[f"sweeps_{side}"]
        sweeps.data = sweeps.data[:k] + sweeps.data[k + 1 :]

    def model(self) -> dict:
        sides, counters = self.ctx["sides"], self.ctx["counters"]
        owner = {c: self[f"owner_{c}"].data for c in counters}
        sweeps = [self[f"sweeps_{i}"].data for i in range(len(sides))]
        taken = [self[f"cards_{i}"].data for i in range(len(sides) - 1)]
        last = len(self.ctx["pack"]) - sum(taken) if None not in taken else None
        move, problems = None, []
        if last is None:
            problems.append("Enter the cards each side took.")
        else:
            move = {
                "type": "tally",
                "cards": dict(zip(sides, taken + [last])),
                "counters": {s: [c for c in counters if owner[c] == i] for i, s in enumerate(sides)},
                "sweeps": {s: sweeps[i] for i, s in enumerate(sides) if sweeps[i]},
            }
        return {
            "sides": sides,
            "counters": counters,
            "owner": owner,
            "sweeps": sweeps,
            "taken": taken,
            "last": last,
            "pack_size": len(self.ctx["pack"]),
            "played": self.sb_card.data,
            "swept": self.sb_taken.data,
            "move": move,
            "problems": problems,
        }


# -- Tute: card points, the last trick, cantes ----------------------------------------------

#: RULES.md 2.5: a cante is 20, or 40 in trumps; a player sings at most one 40 and three 20s.
CANTES = (20, 40)
MOST_CANTES = 4


class TuteTally(TallyForm):
    """RULES.md 2.6: each player's card points (the last player's are the rest of the
    pack's), who took the last trick, and each player's cantes."""

    record = SubmitField("Record this deal")

    @staticmethod
    def context(rules, state, view) -> dict:
        names = view["players"]
        return {"names": names, "pack_points": rules.card_points([str(c) for c in rules.pack(len(names))])}

    @classmethod
    def fields(cls, ctx: dict) -> dict[str, Field]:
        names, most = ctx["names"], ctx["pack_points"]  # 120 (Tute 2.2)
        points = NumberRange(0, most, message=f"Card points are whole numbers from 0 to {most}.")
        player = {
            "choices": [SelectChoice(p) for p in names],
            "invalid_choice_message": f"Choose one of {', '.join(names)}.",
        }
        out: dict[str, Field] = {
            "last_trick": Pick("Last trick", **player),
            "set_last_trick": Pick("Took the last trick", **player),
            "cante_20": seat_choice("Cante of 20 for", names),
            "cante_40": seat_choice("Cante of 40 for", names),
            "remove_cante": seat_choice("Remove the last cante of", names),
        }
        for i, name in enumerate(names):
            if i < len(names) - 1:
                out[f"points_{i}"] = WholeNumber(name, [Optional(), points])
            out[f"cantes_{i}"] = SelectMultipleField(
                f"Cantes of {name}",
                [Length(max=MOST_CANTES, message=f"At most {MOST_CANTES} cantes a player.")],
                coerce=whole,
                choices=[SelectChoice(v, str(v)) for v in CANTES],
                default=list,
                invalid_choice_message="A cante is 20 or 40.",
                invalid_value_message="A cante is 20 or 40.",
            )
        return out

    def taps(self) -> list:
        return [
            (self.record, self._record),
            (self.set_last_trick, self._last),
            (self.cante_20, partial(self._cante, 20)),
            (self.cante_40, partial(self._cante, 40)),
            (self.remove_cante, self._uncante),
        ]

    def _last(self, name: str) -> None:
        self.last_trick.data = name

    def _cante(self, value: int, seat: int) -> str | None:
        cantes = self[f"cantes_{seat}"]
        if len(cantes.data) >= MOST_CANTES:
            return f"At most {MOST_CANTES} cantes a player (Tute 2.5)."
        cantes.data = cantes.data + [value]
        return None

    def _uncante(self, seat: int) -> None:
        cantes = self[f"cantes_{seat}"]
        cantes.data = cantes.data[:-1]

    def model(self) -> dict:
        names, pack_points = self.ctx["names"], self.ctx["pack_points"]
        points = [self[f"points_{i}"].data for i in range(len(names) - 1)]
        cantes = [self[f"cantes_{i}"].data for i in range(len(names))]
        last = self.last_trick.data
        rest = pack_points - sum(points) if None not in points else None
        move, problems = None, []
        if rest is None:
            problems.append(f"Enter each player's card points (the last player's are the rest of {pack_points}).")
        elif last is None:
            problems.append("Who took the last trick?")
        else:
            move = {
                "type": "tally",
                "card_points": dict(zip(names, points + [rest])),
                "last_trick": last,
                "marriages": {p: cantes[i] for i, p in enumerate(names) if cantes[i]},
            }
        return {
            "names": names,
            "points": points,
            "rest": rest,
            "pack_points": pack_points,
            "cantes": cantes,
            "last": last,
            "move": move,
            "problems": problems,
        }


# -- Tantony: each player's scoring cards ---------------------------------------------------


class TantonyTally(TallyForm):
    """RULES.md 3.6: each player's scoring cards (the runts). A tap gives a card to the
    first player, the next tap to the next player, and after the last to nobody."""

    record = SubmitField("Record this deal")

    @staticmethod
    def context(rules, state, view) -> dict:
        names = view["players"]
        return {"names": names, "pack": [str(c) for c in rules.pack(len(names))]}

    @classmethod
    def fields(cls, ctx: dict) -> dict[str, Field]:
        out: dict[str, Field] = {"cycle": card_choice("Scoring card", ctx["pack"], "Tap a card of this pack.")}
        for card in ctx["pack"]:
            out[f"runt_{card}"] = seat_choice(card, ctx["names"])
        return out

    def taps(self) -> list:
        return [(self.record, self._record), (self.cycle, self._cycle)]

    def _cycle(self, card: str) -> None:
        owner, players = self[f"runt_{card}"], len(self.ctx["names"])
        owner.data = 0 if owner.data is None else (owner.data + 1 if owner.data + 1 < players else None)

    def model(self) -> dict:
        names, pack = self.ctx["names"], self.ctx["pack"]
        owner = {c: self[f"runt_{c}"].data for c in pack}
        scoring = {p: [c for c in pack if owner[c] == i] for i, p in enumerate(names)}
        return {
            "names": names,
            "pack": pack,
            "owner": owner,
            "move": {"type": "tally", "scoring": scoring},
            "problems": [],
        }


# -- 100 / 99 / 98: who lost ----------------------------------------------------------------


class HundredTally(TallyForm):
    """RULES.md 4.4: who lost the hand, one tap that records it."""

    @staticmethod
    def context(rules, state, view) -> dict:
        return {"players": [p for p in view["players"] if p not in view["eliminated"]]}

    @classmethod
    def fields(cls, ctx: dict) -> dict[str, Field]:
        live = ctx["players"]
        return {
            "loser": Pick(
                "Lost the hand",
                choices=[SelectChoice(p) for p in live],
                invalid_choice_message=f"Choose one of the players still in: {', '.join(live)}.",
            )
        }

    def taps(self) -> list:
        return [(self.loser, self._record)]

    def model(self) -> dict:
        loser = self.loser.data
        return {
            "players": self.ctx["players"],
            "problems": [],
            "move": {"type": "tally", "loser": loser} if loser is not None else None,
        }


FORMS = {"tablanette": TablanetteTally, "tute": TuteTally, "tantony": TantonyTally, "hundred": HundredTally}


def tally_form(game: str, rules, state, view, **kwargs) -> TallyForm:
    """The tally form of ``game`` at this state, filled from the post (if any)."""
    return FORMS[game].for_game(rules, state, view, **kwargs)
