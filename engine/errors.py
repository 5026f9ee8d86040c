"""The engine's errors: both are ValueErrors whose message says what is wrong."""


class IllegalMoveError(ValueError):
    """A move that the rules do not allow in this position; the message says why."""


class InvalidPositionError(ValueError):
    """A position that breaks the format or the rules; the message names the field and the rule."""
