"""The error taxonomy every game shares (re-exported by :mod:`companion.games`).

Every error is a ``ValueError`` whose message a player can read at the table.
"""


class OptionError(ValueError):
    """An unknown option, a bad option value, or a bad list of players."""


class MoveError(ValueError):
    """A move the engine refuses; the state it was applied to is unchanged."""

    def __init__(self, message: str, options: list | None = None):
        super().__init__(message)
        self.message = message
        #: The legal alternatives, when the engine can name them.
        self.options = options or []


class InvalidMove(MoveError):
    """Not a move at all: a bad card code, a missing or malformed field."""


class IllegalMove(MoveError):
    """A well-formed move that breaks a rule, or is played out of turn."""


class AmbiguousMove(MoveError):
    """More than one legal outcome and the move did not choose; see ``.options``."""
