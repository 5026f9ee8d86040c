"""Colours, the printed wall, and move notation (SPEC sections 1 and 2).

Every move has an integer code shared with the compiled core:
draft moves ``(source * 5 + colour) * 6 + destination`` (source 0..8 for factories 1..9, 9 for the
centre; destination 0..4 for lines 1..5, 5 for the floor), gray tiling moves
``300 + line * 5 + column`` (0-based). There is one interned ``Move`` per code.
"""
from __future__ import annotations

import re

from .errors import IllegalMoveError
from .rules import COLOUR_NAMES, COLOURS  # noqa: F401  (re-exported: engine.notation.COLOURS)

CENTRE = 9
FLOOR = 5
TILING_BASE = 300
N_CODES = TILING_BASE + 25

_DRAFT = re.compile(r"([1-9C])([BYRKW])([1-5F])")
_TILING = re.compile(r"([1-5])@([1-5])")


class Move:
    """One move: a draft (``1B2``, ``CRF``) or a gray-wall tiling placement (``3@2``)."""

    __slots__ = ("code", "_text")

    def __init__(self, code: int):
        if not 0 <= code < N_CODES:
            raise ValueError(f"no move has code {code}")
        self.code = code
        self._text = _text(code)

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read notation, case-insensitive: ``Move.parse("cr3")`` is ``CR3``."""
        if isinstance(text, Move):
            return text
        move = _BY_TEXT.get(text)
        if move is None:
            move = _BY_TEXT.get(str(text).strip().upper())
        if move is None:
            raise IllegalMoveError(
                f"not a move: {text!r} (a draft is <source><colour><destination> like 1B2 or CRF: "
                "source 1-9 or C, colour B Y R K W, destination 1-5 or F; "
                "a gray tiling move is <line>@<column> like 3@2)"
            )
        return move

    @property
    def is_tiling(self) -> bool:
        return self.code >= TILING_BASE

    @property
    def factory(self) -> int | None:
        """Factory number 1..9, or None for the centre (and for tiling moves)."""
        if self.is_tiling or self.code // 30 == CENTRE:
            return None
        return self.code // 30 + 1

    @property
    def from_center(self) -> bool:
        return not self.is_tiling and self.code // 30 == CENTRE

    @property
    def colour(self) -> str | None:
        """The drafted colour letter (None for tiling moves)."""
        return None if self.is_tiling else COLOURS[(self.code // 6) % 5]

    @property
    def line(self) -> int | None:
        """Pattern line 1..5; None for a draft to the floor."""
        if self.is_tiling:
            return (self.code - TILING_BASE) // 5 + 1
        d = self.code % 6
        return None if d == FLOOR else d + 1

    @property
    def column(self) -> int | None:
        """Wall column 1..5 of a tiling move (None for drafts)."""
        return (self.code - TILING_BASE) % 5 + 1 if self.is_tiling else None

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Move.parse({self._text!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Move):
            return self.code == other.code
        if isinstance(other, str):
            return self._text == other  # the canonical text only, so equal things hash alike
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._text)

    def __reduce__(self):
        return (Move.parse, (self._text,))


def _text(code: int) -> str:
    if code >= TILING_BASE:
        return f"{(code - TILING_BASE) // 5 + 1}@{(code - TILING_BASE) % 5 + 1}"
    source, colour, dest = code // 30, (code // 6) % 5, code % 6
    src = "C" if source == CENTRE else str(source + 1)
    return f"{src}{COLOURS[colour]}{'F' if dest == FLOOR else dest + 1}"


MOVES = [Move(code) for code in range(N_CODES)]
_BY_TEXT = {str(m): m for m in MOVES}
