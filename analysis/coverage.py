"""How often intervals hold the truth: repeated synthetic leagues of known strengths.

The tests (tests/test_analysis_elo.py, tests/test_analysis_pl.py, tests/test_analysis_stats.py)
and the benchmark (benchmarks/bench_coverage.py) measure coverage with these. A league's
intervals are not independent of each other (they share its games), so the standard error of a
coverage is taken over leagues: the spread of the per-league hit rates over ``sqrt(leagues)``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from .synthetic import synthetic_league, synthetic_multi_league


@dataclass
class Coverage:
    """Per league (rows) and interval (columns): whether it held the truth, and its width."""
    hits: np.ndarray
    widths: np.ndarray
    first_move: "Coverage | None" = None  # the first mover's (seat 0's) edge, one per league

    @property
    def rate(self) -> float:
        return float(self.hits.mean())

    @property
    def se(self) -> float:
        """The standard error of ``rate``, clustered by league."""
        per_league = self.hits.mean(axis=1)
        return float(per_league.std(ddof=1) / np.sqrt(len(per_league))) if len(per_league) > 1 else np.nan

    @property
    def width(self) -> float:
        return float(np.mean(self.widths))

    def line(self, name: str) -> str:
        return (f"{name:<12} coverage {self.rate:.3f} +- {self.se:.3f} "
                f"({self.hits.size} intervals, {len(self.hits)} leagues), mean width {self.width:.3g}")


EDGE = {2: 50.0}  # the planted first-move edge per player count; SEAT_EDGE otherwise
SEAT_EDGE = 60.0


def league(truth: list[tuple[str, float]], deals: int, players: int, rep: int,
           shared_luck: bool = True) -> dict[str, pl.DataFrame]:
    """Repetition ``rep`` of a synthetic league: ``synthetic_league`` (first-move edge 50) for 2
    players, else ``synthetic_multi_league`` (seat edge 60, tie rate 0.1); seeded by ``rep``."""
    if players == 2:
        return synthetic_league(truth, deals, edge=EDGE[2], seed=100 + rep, shared_luck=shared_luck)
    return synthetic_multi_league(truth, deals, players, seat_edge=SEAT_EDGE, tie_rate=0.1,
                                  seed=1000 * players + rep)


def rating_coverage(truth: list[tuple[str, float]], deals: int, *, players: int = 2,
                    reps: int = 100, intervals: tuple[str, ...] = ("jackknife",), bootstrap: int = 200,
                    by_deal: bool = True, shared_luck: bool = True,
                    level: float = 0.95) -> dict[str, Coverage]:
    """Coverage of the rating fits' ``level`` intervals of the bots' true ratings, per interval
    method, over ``reps`` leagues (the same leagues and resamples for every method).
    ``by_deal=False`` drops ``table``/``deal``, so each game is resampled as its own deal.
    Each ``Coverage`` has that of the first mover's edge as ``first_move``."""
    from .ratings import rate_by_players

    want = dict(truth)
    hits = {m: np.zeros((reps, len(truth)), bool) for m in intervals}
    widths = {m: np.zeros((reps, len(truth))) for m in intervals}
    edge = {m: Coverage(np.zeros((reps, 1), bool), np.zeros((reps, 1))) for m in intervals}
    for rep in range(reps):
        tables = league(truth, deals, players, rep, shared_luck)
        games = tables["games"] if by_deal else tables["games"].drop("table", "deal")
        for m in intervals:
            fit = rate_by_players(tables["results"], games, bootstrap=bootstrap, seed=rep,
                                  level=level, interval=m)[players]
            for j, row in enumerate(fit.table.iter_rows(named=True)):
                hits[m][rep, j] = row["low"] <= want[row["bot"]] <= row["high"]
                widths[m][rep, j] = row["high"] - row["low"]
            value, low, high = fit.first_move
            edge[m].hits[rep], edge[m].widths[rep] = low <= EDGE.get(players, SEAT_EDGE) <= high, high - low
    return {m: Coverage(hits[m], widths[m], edge[m]) for m in intervals}


def true_win_rates(truth: list[tuple[str, float]], edge: float = 50.0) -> dict[str, float]:
    """Each bot's expected points per game in ``synthetic_league(truth, ..., edge=edge)``: the
    Elo model's chance of winning, averaged over its opponents and both seats."""
    def p(diff):
        return 1.0 / (1.0 + 10.0 ** (-diff / 400.0))
    return {a: float(np.mean([(p(ra - rb + edge) + 1 - p(rb - ra + edge)) / 2
                              for b, rb in truth if b != a])) for a, ra in truth}


def win_rate_coverage(truth: list[tuple[str, float]], deals: int, *, reps: int = 100,
                      shared_luck: bool = True) -> dict[str, Coverage]:
    """Coverage of the standings' win-rate intervals of the bots' true win rates over ``reps``
    2-player leagues: ``wilson`` (the games taken as independent: records without the deals)
    and ``clustered`` (the deals named, the Wilson interval at the design effect's games)."""
    from .stats import standings

    want = true_win_rates(truth)
    out = {m: Coverage(np.zeros((reps, len(truth)), bool), np.zeros((reps, len(truth))))
           for m in ("wilson", "clustered")}
    for rep in range(reps):
        tables = league(truth, deals, 2, rep, shared_luck)
        for m, games in (("wilson", None), ("clustered", tables["games"])):
            for j, row in enumerate(standings(tables["results"], games).iter_rows(named=True)):
                out[m].hits[rep, j] = row["low"] <= want[row["bot"]] <= row["high"]
                out[m].widths[rep, j] = row["high"] - row["low"]
    return out
