"""Reading a dispute-lab position from the query string: one ``Query`` reader that checks
every value (ASCII digits, ranges, choices, given once), and the lab's options. The labs
of each game (companion/web/<game>.py) read their position through it."""

from __future__ import annotations

import re
import typing
from dataclasses import fields
from functools import lru_cache
from urllib.parse import quote_plus

from flask import url_for
from flask_babel import gettext as _

from companion.cards import Card
from companion.errors import N_, MoveError, OptionError, Reason
from companion.games.common import option_types
from companion.i18n import language

#: The largest number any lab field takes (a score, a total, a numeric option): a
#: 20-digit number is a wrong value, never a slow answer or an overflow.
BIG = 9999
#: Whole numbers in ASCII digits only: ``str.isdigit()`` also accepts "²" and "١٢".
WHOLE = re.compile(r"-?[0-9]{1,7}")
TRUE, FALSE = ("true", "on", "1", "yes"), ("false", "off", "0", "no")
#: The query parameters the lab reads, as its forms name them (the messages cite both).
FIELD_LABELS = {
    "table": N_("Table cards"),
    "card": N_("Card played"),
    "claim": N_("The claimed capture"),
    "layout": N_("The 4 face-up cards"),
    "a_cards": N_("Cards A took"),
    "a_counters": N_("A's counting cards"),
    "a_sweeps": N_("A's sweeps"),
    "b_sweeps": N_("B's sweeps"),
    "score_a": N_("A's score"),
    "score_b": N_("B's score"),
    "target": N_("Target"),
    "sweeper": N_("Reached"),
    "last": N_("Last trick taken by"),
    "into": N_("Tap into"),
    "trick": N_("Trick"),
    "hand": N_("Hand"),
    "trump": N_("Trumps"),
    "players": N_("Players"),
    "sung": N_("Cantes already sung"),
    "sang_now": N_("Already sang after this trick"),
    "lost": N_("Lost the deal"),
    "to": N_("Given to"),
    "ns": N_("N & S"),
    "ew": N_("E & W"),
    "after": N_("After deal"),
    "total": N_("Total now"),
    "seat": N_("Seat playing"),
    "direction": N_("Direction"),
}


#: Where one name means another field in another lab.
GAME_LABELS = {("tablanette", "last"): N_("The deal's last card")}


def _label(name: str, game: str = "") -> str:
    """A lab field's label in the request's language."""
    if (game, name) in GAME_LABELS:
        return _(GAME_LABELS[game, name])
    if name.startswith("held_"):
        return _("Tricks %(name)s holds", name=name[5:])
    if name.startswith("m_"):
        return _("%(name)s's loss marks", name=name[2:])
    if re.fullmatch(r"P[0-9]", name):
        return _("%(name)s's total", name=name)
    return _(FIELD_LABELS[name]) if name in FIELD_LABELS else name


@lru_cache(maxsize=2048)  # bounded: the words come from anyone's query string
def _quote(word: str) -> str:
    """A query word as url_for spells it (werkzeug.urls._urlencode: the WHATWG URL spec's
    safe characters kept, so a card list reads "KS,5H"). A lab page builds a link for every
    card of its grid and every option, and their words repeat: each is quoted once."""
    return quote_plus(word, safe="!$'()*,/:;?@")


def quoted(raw: str) -> str:
    if raw == "":
        return _("empty")
    return repr(raw if len(raw) <= 24 else raw[:24] + "…")


class Query:
    """The lab's one reader of the query string. Every value it reads is checked: a wrong
    one (not ASCII digits, out of range, not one of the choices, given twice) is noted in
    ``errors`` with a plain message naming the field, read as absent so the rest of the lab
    still answers, and the page answers 400. Words that are not cards, and cards the game's
    pack has not, are ``problems``: a position the referee can't answer (200), as before."""

    def __init__(self, game: str, args, leave_out=frozenset()):
        self.game, self.args, self.leave_out = game, args, leave_out
        self.errors: list[str | Reason] = []
        self.problems: list[str | Reason] = []
        self.bad: set[str] = set()
        self._path: str | None = None

    def label(self, name: str) -> str:
        return _label(name, self.game)

    def _named(self, name: str) -> dict[str, str]:
        """A field as a message names it: its label, and its name as the query spells it."""
        return {"label": self.label(name), "name": name}

    def wrong(self, name: str, message: str) -> None:
        if name not in self.bad:
            self.bad.add(name)
            self.errors.append(message)

    def shown(self, name: str) -> str:
        """The value as given (to show it back in its form field), unchecked."""
        return self.args.get(name, "")

    def text(self, name: str, default: str = "") -> str:
        """The one value of ``name``, stripped; a repeated parameter is wrong."""
        value = self._one(name)
        return default if value is None else value

    def _one(self, name: str) -> str | None:
        """The one value of ``name``, stripped, or None (absent, or wrongly repeated)."""
        values = self.args.getlist(name)
        if len(values) > 1:
            self.wrong(
                name, _("%(label)s (%(name)s) is given %(n)s times: give it once.", **self._named(name), n=len(values))
            )
            return None
        return values[0].strip() if values else None

    @typing.overload
    def number(self, name: str, low: int, high: int, default: int, required: bool = False) -> int: ...

    @typing.overload
    def number(self, name: str, low: int, high: int, default: None = None, required: bool = False) -> int | None: ...

    def number(self, name: str, low: int, high: int, default: int | None = None, required: bool = False) -> int | None:
        """A whole number from ``low`` to ``high``; absent (or empty, unless ``required``)
        gives ``default``."""
        raw = self._one(name)
        if raw is None or (raw == "" and not required):
            return default
        if WHOLE.fullmatch(raw) and low <= int(raw) <= high:
            return int(raw)
        self.wrong(
            name,
            _(
                "%(label)s (%(name)s) must be a whole number from %(low)s to %(high)s, not %(raw)s.",
                **self._named(name),
                low=low,
                high=high,
                raw=quoted(raw),
            ),
        )
        return default

    def numbers(self, name: str, low: int, high: int, most: int = 52) -> list[int]:
        """A list of whole numbers ("26, 42" or "26+42")."""
        words = [w for w in re.split(r"[\s,+]+", self.text(name)) if w]
        if len(words) <= most and all(WHOLE.fullmatch(w) and low <= int(w) <= high for w in words):
            return [int(w) for w in words]
        self.wrong(
            name,
            _(
                "%(label)s (%(name)s) must be at most %(most)s whole numbers from %(low)s to %(high)s, "
                "like 26, 42, not %(raw)s.",
                **self._named(name),
                most=most,
                low=low,
                high=high,
                raw=quoted(self.text(name)),
            ),
        )
        return []

    @typing.overload
    def choice(self, name: str, allowed: typing.Collection[str], default: str) -> str: ...

    @typing.overload
    def choice(self, name: str, allowed: typing.Collection[str], default: None = None) -> str | None: ...

    def choice(self, name: str, allowed: typing.Collection[str], default: str | None = None) -> str | None:
        """One of ``allowed``; absent or empty gives ``default``."""
        raw = self.text(name)
        if raw == "":
            return default
        if raw in allowed:
            return raw
        self.wrong(
            name,
            _(
                "%(label)s (%(name)s) must be one of %(allowed)s, not %(raw)s.",
                **self._named(name),
                allowed=", ".join(allowed),
                raw=quoted(raw),
            ),
        )
        return default

    def flag(self, name: str) -> bool:
        """A tick box: 1 (ticked) or 0, absent or empty (not ticked)."""
        return self.choice(name, ("1", "0"), "0") == "1"

    def cards(self, name: str, most: int = 104) -> list[str]:
        """The distinct cards of a list ("2S,3H 10D", "Q♥"); each word that is not a card is a problem."""
        words = [w for w in re.split(r"[\s,]+", self.text(name)) if w]
        if len(words) > most:
            self.wrong(
                name,
                _(
                    "%(label)s (%(name)s) lists %(n)s cards: at most %(most)s.",
                    **self._named(name),
                    n=len(words),
                    most=most,
                ),
            )
            return []
        out = []
        for word in words:
            try:
                code = str(Card.parse(word))
            except MoveError as e:
                self.problems.append(e.reason)
                continue
            if code not in out:
                out.append(code)
        return out

    def url(self, **changes) -> str:
        """This lab's URL with some parameters changed (None removes one); the wrong ones
        (``leave_out``: found by a first reading) are left out, so a tap on a page that
        refused a value answers. A repeated ``lost`` stays repeated. The game is the path's,
        and url_for's own arguments (``_anchor``, ``_external``...) are never taken from a query."""
        args = {
            k: v
            for k, v in self.args.lists()
            if k not in self.bad | self.leave_out and k != "game" and not k.startswith("_")
        }
        for k, v in changes.items():
            if v in (None, "", []):
                args.pop(k, None)
            else:
                args[k] = [",".join(v) if isinstance(v, list) else str(v)]
        query = "&".join(f"{_quote(k)}={_quote(v)}" for k, values in args.items() for v in values)
        return f"{self._page}?{query}" if query else self._page

    @property
    def _page(self) -> str:
        """The lab's own path, built once for the many links of a page."""
        if self._path is None:
            self._path = url_for("rules.page", game=self.game)
        return self._path

    def one_grid(self, grids: dict[str, tuple[str, dict, list]]) -> dict:
        """The lab's one card grid: the position's card sets (name: label, links, cards on)
        it can tap into, the one chosen (``into``), and a link to switch to each. One grid,
        so the answer above it stays in view while tapping."""
        into = self.choice("into", tuple(grids), next(iter(grids)))
        label, links, on = grids[into]
        return {
            "label": label,
            "links": links,
            "on": on,
            "into": into,
            "switch": [(key, grids[key][0], self.url(into=key)) for key in grids],
        }


def _shown(rules, name: str, current: str, words: list | None, labels: dict) -> str:
    """An option's value in words: its choice's label, or for a blank the usual for the
    table ("4, or 3 with 3 players"), else the value as written."""
    if words and current in dict(words):
        return dict(words)[current]
    if current in labels:
        return _(labels[current])
    if current == "none":
        usual = getattr(rules, "USUAL", {})
        return _(usual[name]) if name in usual else _("As usual")
    return current.replace("_", " ")


def _choice_word(value) -> str:
    """An option's value as the lab's query string spells it."""
    return "none" if value is None else "true" if value is True else "false" if value is False else str(value)


def _option_value(rules, name: str, raw: str):
    """An option's value read from its word; ValueError says what it must be instead."""
    kind = option_types(rules.Options)[name]
    choices = getattr(rules, "CHOICES", {}).get(name)
    if raw == "none":
        return None  # the engine says whether this option may be none
    if kind is bool:
        if raw not in TRUE + FALSE:
            raise ValueError(_("true or false"))
        return raw in TRUE
    if choices:
        words = {_choice_word(c): c for c in choices}
        if raw not in words:
            raise ValueError(_("one of %(words)s", words=", ".join(words)))
        return words[raw]
    if int in getattr(kind, "__args__", (kind,)):
        if not (WHOLE.fullmatch(raw) and 0 <= int(raw) <= BIG):
            raise ValueError(_("a whole number up to %(n)s", n=BIG))
        return int(raw)
    return raw


def _options(q: Query, rules, names) -> tuple[dict, dict]:
    """(options for the engine, the raw values for the form) from the query string."""
    chosen, raw = {}, {}
    for name in names:
        value = q.text(name)
        if value == "":
            continue
        try:
            chosen[name] = _option_value(rules, name, value)
        except ValueError as e:
            q.wrong(
                name,
                _(
                    "%(label)s (%(name)s) must be %(what)s, not %(raw)s.",
                    label=_(rules.OPTION_LABELS[name]),
                    name=name,
                    what=str(e),
                    raw=quoted(value),
                ),
            )
            continue
        raw[name] = value
    return chosen, raw


def _resolve(q: Query, rules, chosen: dict, raw: dict):
    """The options in force: what the engine refuses is a wrong value too (named by its
    message); the others stay chosen."""
    try:
        return rules.resolve_options(chosen, None), raw
    except OptionError as e:
        culprits = [e.option] if e.option is not None and e.option in chosen else list(chosen)
        q.errors.append(labelled(e, rules, named=True))
        q.bad.update(culprits)
        kept = {n: v for n, v in chosen.items() if n not in culprits}
    try:
        return rules.resolve_options(kept, None), {n: v for n, v in raw.items() if n in kept}
    except OptionError:
        return rules.resolve_options({}, None), {}


def quoted_label(label: str) -> str:
    """A field's label as a refusal quotes it: “Largest group”, 「最大の組」 (as the rules
    pages quote an option's name)."""
    return f"「{label}」" if language() == "ja" else f"“{label}”"


def labelled(e: OptionError, rules, named: bool = False) -> Reason:
    """An option's refusal with the option's label in place of its name ("“Largest
    group” must be ..."); ``named``: and its name, as the lab's query string spells it."""
    name = e.option
    if name not in rules.OPTION_LABELS:
        return e.reason
    label = quoted_label(_(rules.OPTION_LABELS[name]))
    return e.reason.replace(option=f"{label} ({name})" if named else label)


def read_options(q: Query, rules, names) -> tuple:
    """The options in force for the lab and their raw words, from the query string."""
    return _resolve(q, rules, *_options(q, rules, names))


def toggled(cards: list[str], code: str) -> list[str]:
    return [c for c in cards if c != code] if code in cards else cards + [code]


#: Options the new-game form sets by its one-tap starts only (a rule set: Tablanette's
#: preset, 100/99/98's variant, each a start), never as a field: a field changed under another
#: start would keep that start's rules beside another rule set's name.
BY_START = frozenset({"preset", "variant"})


def option_label(rules, name: str) -> str:
    """An option's name as the new-game form shows it, in the request's language (the one
    source for the form, the lab and the rules pages)."""
    return _(rules.OPTION_LABELS[name])


def choice_label(rules, name: str, value) -> str:
    """One value of an option as the new-game form shows it: its label (``CHOICE_LABELS``),
    "Yes" or "No", "As usual" for a blank, else the value itself (a number)."""
    labels = getattr(rules, "CHOICE_LABELS", {}).get(name, {})
    label = next((text for v, text in labels.items() if type(v) is type(value) and v == value), None)
    if label is not None:
        return _(label)
    return _("Yes") if value is True else _("No") if value is False else _("As usual") if value is None else str(value)


def option_rows(rules, names, raw: dict, in_force=None) -> list[dict]:
    """The lab's option controls: name, label, help, choices, current value (as typed, else
    the value ``in_force``, the options resolved, takes: a rule set's, such as t_games'
    floor, not the option's default; without them, the default)."""
    hints = option_types(rules.Options)
    defaults = {f.name: getattr(in_force, f.name) if in_force else f.default for f in fields(rules.Options)}
    rows = []
    for name in names:
        kind = hints[name]
        choices = getattr(rules, "CHOICES", {}).get(name)
        if kind is bool:
            choices = (True, False)
        labels = getattr(rules, "CHOICE_LABELS", {}).get(name, {})
        words = [(_choice_word(c), choice_label(rules, name, c)) for c in choices] if choices else None
        default = defaults[name]
        current = raw.get(name, _choice_word(default))
        shown = _shown(rules, name, current, words, labels)
        rows.append(
            {
                "name": name,
                "label": option_label(rules, name),
                "help": _(rules.OPTION_HELP[name]) if name in rules.OPTION_HELP else "",
                "choices": words,
                "value": current,
                "shown": shown,
            }
        )
    return rows
