"""What goes into each task of a league: the next games, and how many.

A fresh league hands out slices of its schedule (``Slices``: the driver builds no game; each task
builds its own, ``scheduler.games_of``); a resumed league and the stages of a schedule (an SPRT
run, a study: tournament/stages.py) hand out games from a list (``Listed``). The two games of a series always go to the same task. ``BatchSizer``
sizes the tasks from the games' measured duration, and keeps the end of a league balanced.
"""
from __future__ import annotations

from collections.abc import Iterator

from .scheduler import GameSpec, Slice

TARGET_TASK_SECONDS = 0.5  # batches sized to take about this long on a worker
MAX_BATCH = 5000  # games per task at most: a compiled greedy batch of 5,000 takes about TARGET_TASK_SECONDS


class Listed:
    """The games to play, one by one (a resumed league's, or a schedule's stage)."""

    def __init__(self, games: Iterator[GameSpec]):
        self.games = games

    def take(self, n: int) -> list[GameSpec]:
        """The next ``n`` games, or one more: the two games of a series go to the same task."""
        batch = []
        for spec in self.games:
            batch.append(spec)
            if len(batch) >= n and spec.series_game != 1:
                break
        return batch


class Slices:
    """The games of a fresh league, as slices of its schedule: the driver builds none of them."""

    def __init__(self, total: int, series: bool):
        self.total, self.series, self.next = total, series, 0

    def take(self, n: int) -> Slice | None:
        """The next ``n`` games, or one more: the two games of a series go to the same task."""
        start = self.next
        stop = min(start + n, self.total)
        if self.series and stop % 2:  # a series' games are schedule positions 2k and 2k + 1
            stop += 1
        if start >= stop:
            return None
        self.next = stop
        return Slice(start, stop)


class BatchSizer:
    """Games per task: fixed by the config, or sized from the games' measured duration."""

    def __init__(self, fixed: int | None, remaining: int, workers: int):
        self.fixed = fixed
        self.remaining = remaining
        self.workers = max(1, workers)
        self.games = 0
        self.seconds = 0.0

    def observe(self, games: int, seconds: float) -> None:
        self.games += games
        self.seconds += seconds
        self.remaining -= games

    def size(self) -> int:
        if self.fixed:
            return self.fixed
        if not self.games:
            return 4  # a first probe
        per_game = max(self.seconds / self.games, 1e-5)
        want = int(TARGET_TASK_SECONDS / per_game)
        share = self.remaining // (2 * self.workers)  # keep the end of the league balanced
        return max(1, min(want, MAX_BATCH, max(share, 1)))
