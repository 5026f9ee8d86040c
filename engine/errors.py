"""The engine's errors: both are ValueErrors whose message says what is wrong; and ``shown``, how
every error message of the project shows a value it was given."""


class IllegalMoveError(ValueError):
    """A move that the rules do not allow in this position; the message says why."""


class InvalidPositionError(ValueError):
    """A position that breaks the format or the rules; the message names the field and the rule."""


def field_name(key) -> str:
    """A config's key as an error names it: as it is when it reads as a name, else ``shown`` (a key
    of a line break, of spaces, or not text, in one line and visibly)."""
    if isinstance(key, str) and key and key.isprintable() and key.strip() == key and len(key) <= 200:
        return key
    return shown(key)


def shown(value, limit: int = 200) -> str:
    """``repr(value)`` for an error message, cut to ``limit`` characters; a value too large to
    print (an integer of thousands of digits, nesting too deep) is named by its type."""
    try:
        text = repr(value)
    except (ValueError, RecursionError):
        return f"{'an' if type(value).__name__[0] in 'aeiou' else 'a'} {type(value).__name__} too large to show"
    return text if len(text) <= limit else text[:limit - 3] + "..."
