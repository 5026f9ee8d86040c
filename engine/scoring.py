"""Wall and floor scoring in plain Python, for the tools that explain or check scores.

The compiled core scores the game itself; these serve the teaching preview of ``azul play``
(azul_cli/teach.py) and the league referee's per-round ``wall_points`` (tournament/game.py), and
their tests check them against the core's scores. The rules are in docs/rules.md.
"""
from __future__ import annotations

from collections.abc import Sequence

FLOOR_SLOTS = 7
FLOOR_TOTALS = (0, 1, 2, 4, 6, 8, 11, 14)  # penalty of 0..7 occupied floor slots


def floor_penalty(slots: int) -> int:
    """The penalty of ``slots`` occupied floor slots (at most seven count)."""
    return FLOOR_TOTALS[min(max(slots, 0), FLOOR_SLOTS)]


def placement_points(filled: Sequence[bool], row: int, col: int) -> int:
    """Points for the tile just placed at (``row``, ``col``), 0-based, on a wall whose squares
    are ``filled`` (25 booleans, row by row, that square included).

    The horizontal run through the square plus the vertical run, each counted only when it holds
    another tile; an isolated tile scores 1.
    """
    i = row * 5 + col
    h = 1
    c = col - 1
    while c >= 0 and filled[i - col + c]:
        h += 1
        c -= 1
    c = col + 1
    while c < 5 and filled[i - col + c]:
        h += 1
        c += 1
    v = 1
    j = i - 5
    while j >= 0 and filled[j]:
        v += 1
        j -= 5
    j = i + 5
    while j < 25 and filled[j]:
        v += 1
        j += 5
    if h > 1:
        return h + v if v > 1 else h
    return v if v > 1 else 1
