"""The review's marks (analysis/review_marks.py): classes by the win probability given up, lichess's
accuracy curve, a seat's accuracy, the turning point; fixed before any review is measured."""
from __future__ import annotations

import math

import pytest

from analysis.review_marks import (BLUNDER, CLASSES, INACCURACY, MISTAKE, move_accuracy, move_class, seat_accuracy,
                                   turning_point)


def test_a_move_is_classed_by_the_win_probability_it_gave_up():
    assert move_class("1B2", "1B2", 0.0) == "best"
    assert move_class("1B2", "1B2", 0.3) == "best"  # the analyser's own choice is best, whatever noise says
    cases = [(0.0, "good"), (INACCURACY - 1e-9, "good"), (INACCURACY, "inaccuracy"), (MISTAKE - 1e-9, "inaccuracy"),
             (MISTAKE, "mistake"), (BLUNDER - 1e-9, "mistake"), (BLUNDER, "blunder"), (1.0, "blunder")]
    for loss, want in cases:
        assert move_class("CR3", "1B2", loss) == want, loss
    assert set(CLASSES) == {c for _, c in cases} | {"best"}
    for bad in (-0.1, 1.5, math.nan, "0.1"):
        with pytest.raises(ValueError, match="win_loss is a win probability given up"):
            move_class("CR3", "1B2", bad)


def test_accuracy_follows_lichess_curve_and_falls_with_the_loss():
    assert move_accuracy(0.0) == pytest.approx(100.0, abs=1e-3)
    assert move_accuracy(0.10) == pytest.approx(103.1668 * math.exp(-0.4354) - 3.1669)
    assert move_accuracy(1.0) == 0.0
    values = [move_accuracy(x / 100) for x in range(101)]
    assert all(a > b for a, b in zip(values, values[1:80]))  # strictly falling while above 0
    assert seat_accuracy([0.0, 0.1]) == pytest.approx((move_accuracy(0.0) + move_accuracy(0.1)) / 2)
    assert math.isnan(seat_accuracy([]))


def test_the_turning_point_is_where_the_winner_stayed_ahead_for_good():
    assert turning_point([0.5, 0.6, 0.7, 1.0]) == 0
    assert turning_point([0.5, 0.4, 0.3, 0.55, 0.45, 0.8, 1.0]) == 5
    assert turning_point([0.5, 0.3, 0.2, 0.45]) == 3  # never ahead: the largest swing (+0.25 at ply 3)
    with pytest.raises(ValueError):
        turning_point([])
