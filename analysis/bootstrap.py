"""The bootstrap over deals that both rating fits use (analysis/elo.py, analysis/plackett_luce.py).

A deal (the games of one run sharing ``table`` and ``deal``: one deal played in every seat
arrangement) is resampled whole, because its games share their luck. Records without the
schedule's columns make each game its own deal.
"""
from __future__ import annotations

import math

import numpy as np
import polars as pl
from scipy import sparse


def deal_columns(games: pl.DataFrame) -> list[str]:
    """The columns of ``games`` that name a game's deal within its run: table and deal, or none."""
    return ["table", "deal"] if {"table", "deal"} <= set(games.columns) else []


def deal_key(columns: list[str]) -> pl.Expr:
    """A game's deal as text, ``run_id/table/deal``; ``run_id/game_id`` where it has none (a
    run without table and deal among runs with them)."""
    by_deal = (pl.concat_str([pl.col("run_id"), *[pl.col(c).cast(pl.String) for c in columns]],
                             separator="/") if columns else pl.lit(None, dtype=pl.String))
    return pl.coalesce(by_deal, pl.concat_str([pl.col("run_id"), pl.col("game_id")], separator="/"))


def deal_codes(keys: pl.Series) -> np.ndarray:
    """Each game's deal as a number 0..k-1, deals numbered in the order they first appear."""
    _, first, inverse = np.unique(keys.to_numpy(), return_index=True, return_inverse=True)
    number = np.empty(len(first), dtype=np.int64)
    number[np.argsort(first)] = np.arange(len(first))
    return number[inverse.ravel()]


def per_deal(codes: np.ndarray, columns: np.ndarray, values: np.ndarray, width: int) -> sparse.csr_matrix:
    """The sums of ``values`` per deal (row ``codes``) and column: a (deals, width) matrix."""
    return sparse.csr_matrix((values, (codes, columns)), shape=(int(codes.max()) + 1, width))


def resample_counts(deals: int, times: int, seed: int) -> np.ndarray:
    """(times, deals): how often each deal is drawn in each of ``times`` resamples of ``deals``
    deals drawn with replacement (seeded)."""
    rng = np.random.default_rng(seed)
    rows = [np.bincount(rng.integers(0, deals, size=deals), minlength=deals) for _ in range(times)]
    return np.array(rows, dtype=float).reshape(times, deals)


def percentile_interval(samples: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """The central ``level`` interval of each column of ``samples`` (one row per resample);
    NaN when there are no resamples."""
    if len(samples) == 0:
        nan = np.full(samples.shape[1], np.nan)
        return nan, nan.copy()
    low, high = np.percentile(samples, [(1 - level) / 2 * 100, (1 + level) / 2 * 100], axis=0)
    return low, high


def min_resamples(level: float = 0.95) -> int:
    """The fewest resamples that give a ``level`` percentile interval: each tail needs a resample
    of its own (40 for 95%); fewer put both ends on the same few estimates."""
    return math.ceil(2 / (1 - level) - 1e-9)


def check_resamples(times: int, level: float = 0.95) -> None:
    """A ValueError for a bootstrap too small for an interval (0, no interval at all, is fine)."""
    need = min_resamples(level)
    if 0 < times < need:
        raise ValueError(f"{times} resamples are too few for a {level:.0%} interval: it needs "
                         f"{need} or more (0: no interval)")
