"""The rules' constants and small rule functions, written once (SPEC section 1, docs/rules.md).

Everything in Python reads them here: the position reader, notation, the referee, the analysis
(SQL gets the values as parameters), the terminal and replay views (the replay page gets them in
its embedded JSON). The compiled core has its own C tables for speed, and a test checks them
against this module; ``engine/reference.py`` keeps a copy of its own on purpose, as the oracle.

    >>> wall_column(COLOURS.index("R"), 1)   # red in wall row 2 (0-based 1)
    3
    >>> floor_penalty(3), floor_penalty(9)
    (4, 14)
    >>> ranks([40, 40, 31], [2, 1, 0])
    [1, 2, 3]
"""
from __future__ import annotations

from collections.abc import Sequence

COLOURS = "BYRKW"  # colour index 0..4
COLOUR_NAMES = ("blue", "yellow", "red", "black", "white")
WALL = 5  # rows, columns and pattern lines
TILES_PER_COLOUR = 20
FACTORY_SIZE = 4
FACTORIES = {2: 5, 3: 7, 4: 9}  # factories by number of players
FLOOR_COSTS = (1, 1, 2, 2, 2, 3, 3)  # the penalty of each floor slot, left to right
FLOOR_SLOTS = len(FLOOR_COSTS)
FLOOR_TOTALS = tuple(sum(FLOOR_COSTS[:k]) for k in range(FLOOR_SLOTS + 1))  # 0..7 occupied slots
MARKER = "1"  # the starting-player marker on a floor
VARIANTS = ("colored", "gray")  # the wall variants; the core's ``gray`` flag is the index
PHASES = ("draft", "tiling", "refill", "over")  # the core's phase numbers are the indices
DRAFT, TILING, REFILL, OVER = range(len(PHASES))
ROW_BONUS, COLUMN_BONUS, COLOUR_BONUS = 2, 7, 10  # per complete row, column, colour at the end


def wall_column(colour: int, row: int) -> int:
    """The column (0-based) of a colour (index) in a row (0-based) of the printed wall."""
    return (colour + row) % WALL


def wall_colour(row: int, column: int) -> int:
    """The colour (index) the printed wall shows at (row, column), 0-based."""
    return (column - row) % WALL


def floor_penalty(slots: int) -> int:
    """The penalty of ``slots`` occupied floor slots (at most seven count)."""
    return FLOOR_TOTALS[min(max(slots, 0), FLOOR_SLOTS)]


def placement_points(filled: Sequence[bool], row: int, col: int) -> int:
    """Points for the tile just placed at (``row``, ``col``), 0-based, on a wall whose squares
    are ``filled`` (25 booleans, row by row, that square included).

    The horizontal run through the square plus the vertical run, each counted only when it holds
    another tile; an isolated tile scores 1.
    """
    i = row * WALL + col
    h = 1 + _run(filled, i, -1, col) + _run(filled, i, 1, WALL - 1 - col)
    v = 1 + _run(filled, i, -WALL, row) + _run(filled, i, WALL, WALL - 1 - row)
    points = (h if h > 1 else 0) + (v if v > 1 else 0)
    return points or 1


def _run(filled: Sequence[bool], i: int, step: int, room: int) -> int:
    n = 0
    while n < room and filled[i + step * (n + 1)]:
        n += 1
    return n


# ---------------------------------------------------------------- a wall as position rows
# These read a wall as the position format writes it: five strings, a letter or '.' per square.
def complete_rows(wall: Sequence[str]) -> int:
    return sum("." not in row for row in wall)


def complete_columns(wall: Sequence[str]) -> int:
    return sum(all(row[c] != "." for row in wall) for c in range(WALL))


def complete_colours(wall: Sequence[str]) -> int:
    return sum("".join(wall).count(colour) == WALL for colour in COLOURS)


def end_bonus(wall: Sequence[str]) -> int:
    """The end-of-game bonus: 2 a complete row, 7 a complete column, 10 a colour placed five times."""
    return (ROW_BONUS * complete_rows(wall) + COLUMN_BONUS * complete_columns(wall)
            + COLOUR_BONUS * complete_colours(wall))


def ranks(scores: Sequence[int], rows: Sequence[int]) -> list[int]:
    """Rank per seat, 1 best: higher score, then more complete wall rows; ties share (1, 1, 3)."""
    if len(scores) != len(rows):
        raise ValueError("ranks: scores and complete rows differ in length")
    keys = list(zip(scores, rows))
    return [1 + sum(other > key for other in keys) for key in keys]
