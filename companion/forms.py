"""WTForms classes. The option fields of a game are built from its engine's data
(its ``Options`` dataclass, ``OPTION_LABELS``, ``OPTION_HELP``, ``CHOICES``, ``STARTS``), so a variant
never needs a hand-written field."""

from __future__ import annotations

import dataclasses
import types

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired
from wtforms import (
    BooleanField,
    DateField,
    Field,
    HiddenField,
    IntegerField,
    PasswordField,
    RadioField,
    SelectChoice,
    SelectField,
    SelectMultipleField,
    StringField,
)
from wtforms.validators import InputRequired, Length, NumberRange, Optional, ValidationError
from wtforms.widgets import CheckboxInput, HiddenInput, ListWidget

from companion import games
from companion import names as player_names
from companion.errors import OptionError
from companion.games.common import option_types
from companion.i18n import joined, names
from companion.names import NAME_LENGTH
from companion.schemas import BIG
from companion.web.query import BY_START, choice_label, labelled, option_label

#: An option's number within what the API's schema takes: the engine checks its own range
#: and says so beside the field, but a number beyond 64 bits could not even be stored.
WITHIN = NumberRange(min=-BIG, max=BIG)


#: A yes/no option that may be left to the usual: its words as the form posts them, and its values.
NULLABLE_BOOL = (("", None), ("on", True), ("off", False))


def _word(value) -> str:
    """A choice's value as the form posts it."""
    return "none" if value is None else str(value)


def start_values(rules, start: str) -> dict:
    """Every option's value under one of the game's one-tap starts (blank: the usual for
    the number of players)."""
    usual = getattr(rules, "USUAL", {})
    return {f.name: None if f.name in usual else f.default for f in dataclasses.fields(rules.Options)} | rules.STARTS[
        start
    ].options


def option_fields(rules, start: str) -> dict[str, Field]:
    """One field per option of ``rules.Options``, its default taken from ``start``; labels,
    hints and choices in the request's language (the engine's words are the message ids)."""
    chosen = start_values(rules, start)
    hints = option_types(rules.Options)
    out: dict[str, Field] = {}
    for f in dataclasses.fields(rules.Options):
        name, label, help_ = f.name, option_label(rules, f.name), _(rules.OPTION_HELP[f.name])
        default = chosen[name]
        kind = hints[name]
        nullable = isinstance(kind, types.UnionType) and type(None) in kind.__args__
        if name in BY_START:  # a rule set, chosen by the start's tap
            out[name] = HiddenField(default=default)
        elif nullable and bool in kind.__args__:  # on, off, or the usual for the table
            out[name] = SelectField(
                label,
                choices=[SelectChoice(w, choice_label(rules, name, v)) for w, v in NULLABLE_BOOL],
                default={None: "", True: "on", False: "off"}[default],
                description=help_,
            )
        elif name in getattr(rules, "USUAL", {}):
            out[name] = IntegerField(
                label,
                validators=[Optional(), NumberRange(min=1, max=BIG)],
                default=default,
                description=joined(help_, _("Blank: the usual, %(n)s.", n=_(rules.USUAL[name]))),
                render_kw={"placeholder": _("usual"), "inputmode": "numeric"},
            )
        elif kind is bool:
            out[name] = BooleanField(label, default=default, description=help_)
        elif name in getattr(rules, "CHOICES", {}):
            values = rules.CHOICES[name]
            out[name] = SelectField(
                label,
                choices=[SelectChoice(_word(v), choice_label(rules, name, v)) for v in values],
                default=_word(default),
                description=help_,
            )
        elif nullable:
            out[name] = IntegerField(
                label,
                validators=[Optional(), WITHIN],
                default=default,
                description=help_,
                render_kw={"inputmode": "numeric"},
            )
        else:
            # The engine checks the range and its message is shown beside the field.
            out[name] = IntegerField(
                label,
                validators=[InputRequired(), WITHIN],
                default=default,
                description=help_,
                render_kw={"inputmode": "numeric"},
            )
    return out


#: Seats shown at once; the rest open behind "More players".
SEATS_SHOWN = 4


def new_game_form(game: str, start: str | None = None, formdata=None) -> FlaskForm:
    """The new-game form for ``game``: players in seat order, dealer, a one-tap start and
    every option (filled in from the start)."""
    rules = games.get(game)
    chosen = start if start is not None and start in rules.STARTS else next(iter(rules.STARTS))
    attrs = {
        "game": RadioField(
            _("Game"), choices=[SelectChoice(n, _(games.get(n).TITLE)) for n in games.GAMES], default=game
        ),
        "start": RadioField(
            _("How you play"), choices=[SelectChoice(k, _(s.label)) for k, s in rules.STARTS.items()], default=chosen
        ),
        "dealer": SelectField(
            _("First dealer"),
            choices=[SelectChoice(str(i), _("Player %(n)s", n=i + 1)) for i in range(rules.MAX_PLAYERS)],
            default="0",
            description=_("Who deals the first deal; the next player plays first."),
        ),
    }
    for i in range(rules.MAX_PLAYERS):
        attrs[f"player{i}"] = StringField(
            _("Player %(n)s", n=i + 1),
            validators=[
                Optional() if i >= rules.MIN_PLAYERS else InputRequired(_("Enter a name")),
                Length(max=NAME_LENGTH, message=_("At most %(n)s characters", n=NAME_LENGTH)),
                PlayerName(),
            ],
            render_kw={"autocomplete": "off", "autocapitalize": "words", "list": "roster"},
        )
    option_names = [f.name for f in dataclasses.fields(rules.Options)]
    attrs |= option_fields(rules, chosen)
    form_class = type("NewGameForm", (FlaskForm,), attrs)
    form = form_class(formdata=formdata)
    form.option_names = option_names
    form.option_fields = [getattr(form, name) for name in option_names]
    form.seats_shown = SEATS_SHOWN
    form.more_starts = [k for k, s in rules.STARTS.items() if s.more]
    form.rules = rules
    form.seats = [getattr(form, f"player{i}") for i in range(rules.MAX_PLAYERS)]
    name_dealers(form)
    return form


def rules_summary(form) -> str:
    """One line for the collapsed rules: the start's, and the options changed from it."""
    usual = new_game_form(form.rules.NAME, form.start.data)
    changed = [
        field.label.text
        for name in form.option_names
        if (field := getattr(form, name)).data != getattr(usual, name).data
    ]
    label = _(form.rules.STARTS[usual.start.data].label)
    if changed:
        return _("%(start)s, changed: %(options)s", start=label, options=names(changed))
    return _("As usual for %(start)s", start=label)


def name_dealers(form) -> None:
    """The dealer list shows the names typed ("Player 3" only for a seat still blank);
    static/app.js renames them as the names are typed."""
    form.dealer.choices = [
        SelectChoice(str(i), (seat.data or "").strip()[:NAME_LENGTH] or _("Player %(n)s", n=i + 1))
        for i, seat in enumerate(form.seats)
    ]


def keep_names(form, values) -> None:
    """Carry the names and dealer already typed over to another game's or start's form."""
    for field in form.seats + [form.dealer]:
        if values.get(field.name):
            field.data = values[field.name]
    name_dealers(form)


def players_of(form) -> list[str]:
    """The names entered, in seat order (blank seats left out)."""
    return [f.data.strip() for f in form.seats if (f.data or "").strip()]


def options_of(form) -> dict:
    """The engine's options dict from a validated form."""
    hints = option_types(form.rules.Options)
    out = {}
    for name in form.option_names:
        value = getattr(form, name).data
        if name in getattr(form.rules, "USUAL", {}) or value == "":
            if value not in (None, ""):
                out[name] = value
            continue
        if value in ("on", "off") and bool in getattr(hints[name], "__args__", ()):
            out[name] = value == "on"
            continue
        if name in getattr(form.rules, "CHOICES", {}):
            value = next(v for v in form.rules.CHOICES[name] if _word(v) == value)
        elif hints[name] is bool:
            value = bool(value)
        out[name] = value
    return out


def attach_error(form, e: OptionError) -> None:
    """Put an engine's OptionError beside the field of the option it names (its label in
    place of its name), else on the form itself."""
    option = e.option
    if option is not None and option in form.option_names:
        getattr(form, option).errors = [labelled(e, form.rules)]
    elif option == "players":
        seat = e.params.get("seat")
        (form.seats[seat] if isinstance(seat, int) and 0 <= seat < len(form.seats) else form.player0).errors = [
            e.reason
        ]
    elif option == "dealer":
        form.dealer.errors = [e.reason]
    else:
        form.form_errors.append(e.reason)


class PlayerName:
    """A typed name as the roster keeps it (companion/names.py: composed, stripped, no
    invisible character), or the refusal naming the character beside the field."""

    def __call__(self, form, field) -> None:
        if field.errors or not field.data:
            return
        try:
            field.data = player_names.clean(field.data)
        except OptionError as e:
            raise ValidationError(e.reason) from None


class RenameForm(FlaskForm):
    """A player's new name on the roster (their games stay theirs)."""

    name = StringField(
        _l("New name"),
        validators=[
            InputRequired(_l("Enter a name")),
            Length(max=NAME_LENGTH, message=_l("At most %(n)s characters", n=NAME_LENGTH)),
            PlayerName(),
        ],
        render_kw={"autocomplete": "off", "autocapitalize": "words"},
    )


class MergeForm(FlaskForm):
    """Two names of one person: this player's games go to ``into``'s."""

    #: A player's id: one SQLite's 64-bit integer holds (a larger one was a 500, not a 400).
    into = IntegerField(widget=HiddenInput(), validators=[InputRequired(), NumberRange(min=1, max=2**63 - 1)])


class UndoMergeForm(FlaskForm):
    """Take a merge back (its button on the player's page: only the token)."""


class GroupForm(FlaskForm):
    """Standings of one group: the players who played together (a GET form: no token)."""

    class Meta:
        csrf = False

    p = SelectMultipleField(
        _l("Only games played by exactly"),
        coerce=int,
        widget=ListWidget(prefix_label=False),
        option_widget=CheckboxInput(),
        validate_choice=False,
    )


class PeriodForm(FlaskForm):
    """The statistics' period (issue 46; a GET form: no token): all time, this month, this
    year (each a link), or a range of days, either end open (this form)."""

    class Meta:
        csrf = False

    period = SelectField(
        _l("Period"),
        choices=[
            SelectChoice("all", _l("All time")),
            SelectChoice("month", _l("This month")),
            SelectChoice("year", _l("This year")),
            SelectChoice("range", _l("Days from – to")),
        ],
        default="all",
    )
    since = DateField(_l("From"), validators=[Optional()])
    until = DateField(_l("To"), validators=[Optional()])

    def validate_until(self, field) -> None:
        if field.data and self.since.data and field.data < self.since.data:
            raise ValidationError(_("The last day comes before the first."))


class KeyForm(FlaskForm):
    """The server's key, as the organiser types it (companion/admin.py)."""

    key = PasswordField(
        _l("Server key"),
        validators=[InputRequired(_l("Enter the key")), Length(max=64)],
        render_kw={"autocomplete": "off", "autocapitalize": "none", "spellcheck": "false"},
    )


class RestoreForm(FlaskForm):
    """A backup to restore every game from."""

    backup = FileField(
        _l("Backup file"),
        validators=[FileRequired(_l("Choose a backup file."))],
        render_kw={"accept": ".sqlite,.db,application/vnd.sqlite3"},
    )


class CorrectForm(FlaskForm):
    """What a correction's page posts beside the move entered in place of an entry (its
    fields are the board's, read as a tap's): the game's version the page showed, the
    entry's number, and the corrections made before it that wait to be saved with it (the
    page carries them: RULES.md 5.1), as JSON."""

    version = IntegerField(widget=HiddenInput(), validators=[InputRequired(), NumberRange(min=0, max=2**31)])
    seq = IntegerField(widget=HiddenInput(), validators=[InputRequired(), NumberRange(min=1, max=2**31)])
    pending = StringField(widget=HiddenInput(), validators=[Optional(), Length(max=20_000)])

    #: Its own fields: the rest of what it posts is the move.
    FIELDS = frozenset({"csrf_token", "version", "seq", "pending"})
