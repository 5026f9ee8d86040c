"""What a review says of each move and each seat, from the calibrated win probabilities (issue 45;
docs/review.md, "Marks, accuracy and the turning point"). Fixed and stated before any review was
measured, so no threshold is tuned on the games it then judges.

- ``move_class(played, best, win_loss)``: ``best`` when the move is the analyser's choice, else by
  the win probability it gave up: below ``INACCURACY`` ``good``, then ``inaccuracy``, ``mistake``
  from ``MISTAKE``, ``blunder`` from ``BLUNDER``.
- ``move_accuracy(win_loss)``: 0 to 100, lichess's accuracy curve over the win percentage lost
  (``103.1668 exp(-0.04354 x lost%) - 3.1669``, clipped), so a move that loses nothing scores 100.
- ``seat_accuracy(losses)``: a seat's accuracy over a game, the mean of its moves' accuracies.
- ``turning_point(wins)``: the ply after which the final winner's win probability never dropped
  below one half again, else the ply of the largest single swing; ``game_turning_point(rows,
  winner)`` reads that series from a reviewed game's rows.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

INACCURACY, MISTAKE, BLUNDER = 0.05, 0.10, 0.20  # win probability given up, from which a move is each
CLASSES = ("best", "good", "inaccuracy", "mistake", "blunder")


ITERATIONS = 1000  # the default analyser's budget a search (three searches at most a move: docs/review.md)


def default_analyser(players: int) -> str:
    """The default analyser's spec for a table of ``players``: its strongest preset at ``ITERATIONS``."""
    return f"mcts-{players}p:iterations={ITERATIONS}"


def _loss(win_loss: float) -> float:
    if not isinstance(win_loss, (int, float)) or math.isnan(win_loss) or not -1e-9 <= win_loss <= 1 + 1e-9:
        raise ValueError(f"win_loss is a win probability given up, from 0 to 1, not {win_loss!r}")
    return min(max(float(win_loss), 0.0), 1.0)


def move_class(played: str, best: str, win_loss: float) -> str:
    """The move's class (one of ``CLASSES``): ``best`` when ``played`` is ``best``, else by ``win_loss``."""
    loss = _loss(win_loss)
    if played == best:
        return "best"
    if loss >= BLUNDER:
        return "blunder"
    if loss >= MISTAKE:
        return "mistake"
    return "inaccuracy" if loss >= INACCURACY else "good"


def move_accuracy(win_loss: float) -> float:
    """0 to 100: lichess's curve of the win percentage the move gave up (100 when it gave up none)."""
    lost = 100 * _loss(win_loss)
    return min(100.0, max(0.0, 103.1668 * math.exp(-0.04354 * lost) - 3.1669))


def seat_accuracy(win_losses: Sequence[float]) -> float:
    """A seat's accuracy over its moves of a game: the mean of their ``move_accuracy`` (NaN for none)."""
    values = [move_accuracy(x) for x in win_losses]
    return sum(values) / len(values) if values else math.nan


def turning_point(wins: Sequence[float]) -> int:
    """``wins``: the final winner's win probability after each ply (index 0: before the first move).
    The first ply from which it stays at or above one half to the end; when it never does (the
    winner came from behind at the last move), the ply of the largest single change."""
    if not wins:
        raise ValueError("turning_point needs the winner's win probability at one ply at least")
    ply = len(wins)
    while ply > 0 and wins[ply - 1] >= 0.5:
        ply -= 1
    if ply < len(wins):
        return ply
    swings = [abs(wins[i] - wins[i - 1]) for i in range(1, len(wins))]
    return 1 + max(range(len(swings)), key=swings.__getitem__) if swings else 0


def game_turning_point(rows: Sequence[dict], winner: int) -> int:
    """The turning point of one reviewed game (its rows, one a ply, in ply order) for the seat
    that won it: its win probability before the first move (``wins``), then after each move
    (``wins_played``)."""
    if not rows:
        raise ValueError("game_turning_point needs the review's rows of the game")
    return turning_point([rows[0]["wins"][winner]] + [r["wins_played"][winner] for r in rows])

