"""The error taxonomy every game shares (re-exported by :mod:`companion.games`), and
:class:`Reason`, a refusal as data.

Every refusal carries a stable ``code`` (what API clients and tests check), an English
``text`` in %-format (``"%(player)s must follow suit"``: the message id a translation
keys on, as Django's ``ValidationError`` and gettext do), its ``params`` (plain JSON
values: card codes, names, numbers) and the ``rule`` it rests on, as docs/RULES.md cites
it (``"Tute 4.2"``). ``str()`` words it in English; the web words it with the rule
linked (``board.markup.reason_html``), so nothing parses the sentence afterwards.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any


def _plain(value: object) -> Any:
    """A param as JSON: cards as their codes, any sequence as a list."""
    if value is None or isinstance(value, (str, bool, int, float, dict)):
        return value
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_plain(v) for v in value]
    return str(value)  # a Card, a suit


def N_(text: str) -> str:
    """Marks ``text`` as words players read (a label kept as data): it stays English here,
    ``make messages`` extracts it, and the web translates it at render (``_(label)``)."""
    return text


class Spaced(list[Any]):
    """A list param as a text places it: ``%(cards)s`` is "QH KH"; ``%(value)r`` the list."""

    def __str__(self) -> str:
        return " ".join(map(str, self))


def _english(items: list[str], word: str) -> str:
    """``items`` joined as CLDR's English list patterns join them ("A", "A and B",
    "A, B, and C"; ``word`` "and" or "or"): the engine layer imports only the standard
    library (it runs in the phone too), and the web words lists in the reader's language."""
    if len(items) < 3:
        return f" {word} ".join(items)
    return f"{', '.join(items[:-1])}, {word} {items[-1]}"


class Joined(list[Any]):
    """Names as an English sentence joins them (CLDR's list pattern, :func:`_english`):
    ``%(players)s`` is "Ann, Ben, and Cat"."""

    def __str__(self) -> str:
        return _english([str(x) for x in self], "and")


class Either(list[Any]):
    """Alternatives as an English sentence offers them: ``%(totals)s`` is "82 or 102",
    "2, 12, or 22"."""

    def __str__(self) -> str:
        return _english([str(x) for x in self], "or")


#: Params that are lists of player names (placed as :class:`Joined`; the web joins them
#: in the reader's language).
NAME_LISTS = frozenset({"players"})
#: Params that are other lists a sentence joins with "and" (a sweep's groups of cards).
AND_LISTS = frozenset({"groups"})
#: Params that are lists of alternatives (placed as :class:`Either`); an alternative may
#: be an engine's marked word ("lay it down"), translated like :data:`WORD_PARAMS`.
OR_LISTS = frozenset({"totals", "legal", "choices", "expected"})
#: Params that are lists of the values a program may send (placed as alternatives, each as
#: JSON writes it, never translated): ``%(allowed)s`` is '"layout", "play", or "tally"'.
LITERAL_LISTS = frozenset({"allowed"})
#: Params whose values are English words the engine marks with :func:`N_` (an option's
#: label, how a card is known, a duty, a game's title): the web translates them before
#: placing them.
WORD_PARAMS = frozenset({"option", "known", "duty", "game"})


def _placed(key: str, value: Any) -> Any:
    if isinstance(value, dict):
        return ", ".join(f"{k} {v}" for k, v in value.items())
    if not isinstance(value, list):
        return value
    if key in LITERAL_LISTS:
        return Either(json.dumps(v, ensure_ascii=False) for v in value)
    return (Joined if key in NAME_LISTS | AND_LISTS else Either if key in OR_LISTS else Spaced)(value)


class Reason:
    """Why something is refused: ``code``, English ``text`` with ``%(name)s`` places for
    ``params``, and the ``rule`` (written where the text says ``%(rule)s``).

    >>> r = Reason("not_your_card", "%(card)s is in %(holder)s's hand (%(rule)s).", rule="Tute 4.1",
    ...            card="QH", holder="Ann")
    >>> str(r), r.code, r.params
    ("QH is in Ann's hand (Tute 4.1).", 'not_your_card', {'card': 'QH', 'holder': 'Ann'})
    >>> str(Reason("cards", "Ann holds %(cards)s.", cards=["QH", "KH"]))
    'Ann holds QH KH.'
    """

    __slots__ = ("code", "text", "params", "rule")

    def __init__(self, code: str, text: str, /, *, rule: str | None = None, **params: object) -> None:
        if (rule is None) == ("%(rule)s" in text):
            raise TypeError(f"{code}: a rule is given exactly when the text has a place for it")
        self.code = code
        self.text = text
        self.rule = rule
        self.params: dict[str, Any] = {k: _plain(v) for k, v in params.items()}

    def words(self) -> dict[str, Any]:
        """The params as the text places them: a list of cards as one word each,
        space-separated (:class:`Spaced`), of names (:data:`NAME_LISTS`) as a sentence
        joins them (:class:`Joined`), of alternatives (:data:`OR_LISTS`) as :class:`Either`;
        a mapping (a score each) as "Ann 40, Ben 12"; ``rule`` as cited."""
        placed = {k: _placed(k, v) for k, v in self.params.items()}
        return placed | {"rule": self.rule}

    def __str__(self) -> str:
        return self.text % self.words()

    def __repr__(self) -> str:
        return f"Reason({self.code!r}, {str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Reason) and (self.code, self.text, self.params, self.rule) == (
            other.code,
            other.text,
            other.params,
            other.rule,
        )

    def __hash__(self) -> int:
        return hash((self.code, self.text, self.rule))

    def replace(self, **params: object) -> Reason:
        """The same refusal with some params changed (the web puts an option's label in
        place of its name)."""
        return Reason(self.code, self.text, rule=self.rule, **(self.params | params))

    def as_json(self) -> dict[str, Any]:
        """What the API sends with a refusal (DESIGN.md, JSON API: 422), in English; the
        web words ``error`` in the request's language (``i18n.say``)."""
        return {"error": str(self), "code": self.code, "params": self.params, "rule": self.rule}

    def as_data(self) -> dict[str, Any]:
        """The reason as plain JSON, for a game's state (an outcome's explanation): the web
        words it in the reader's language; :meth:`from_json` reads it back."""
        return {"code": self.code, "text": self.text, "params": self.params, "rule": self.rule}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Reason:
        """A reason from :meth:`as_data` (or :meth:`as_json` with its ``text``)."""
        return cls(data["code"], data["text"], rule=data.get("rule"), **data.get("params", {}))


class Refusal(ValueError):
    """A refusal with its :class:`Reason`. Raise it like a Reason is made, or from one::

    raise IllegalMove("game_over", "The game is over.")
    raise IllegalMove(reason)  # a Reason a helper worked out
    """

    def __init__(self, code: str | Reason, text: str | None = None, /, *, rule: str | None = None, **params: object):
        if isinstance(code, Reason):
            if text is not None or rule is not None or params:
                raise TypeError("give a Reason, or a code and its text, not both")
            self.reason = code
        elif text is None:
            raise TypeError(f"{code}: a refusal needs its text")
        else:
            self.reason = Reason(code, text, rule=rule, **params)
        super().__init__(str(self.reason))

    @property
    def message(self) -> str:
        return str(self.reason)

    @property
    def code(self) -> str:
        return self.reason.code

    @property
    def params(self) -> dict[str, Any]:
        return self.reason.params

    @property
    def rule(self) -> str | None:
        return self.reason.rule


class OptionError(Refusal):
    """An unknown option, a bad option value, or a bad list of players. ``params["option"]``
    names the option at fault, when one is ("players" for the list of players)."""

    @property
    def option(self) -> str | None:
        name = self.params.get("option")
        return name if isinstance(name, str) else None


class MoveError(Refusal):
    """A move the engine refuses; the state it was applied to is unchanged."""

    def __init__(
        self,
        code: str | Reason,
        text: str | None = None,
        /,
        *,
        rule: str | None = None,
        options: Iterable[Any] | None = None,
        **params: object,
    ):
        super().__init__(code, text, rule=rule, **params)
        #: The legal alternatives, when the engine can name them.
        self.options = list(options or [])


class InvalidMove(MoveError):
    """Not a move at all: a bad card code, a missing or malformed field."""


class IllegalMove(MoveError):
    """A well-formed move that breaks a rule, or is played out of turn."""


class AmbiguousMove(MoveError):
    """More than one legal outcome and the move did not choose; see ``.options``."""
