"""The bootstrap over deals that both rating fits use (analysis/elo.py, analysis/plackett_luce.py).

A deal (the games of one run sharing ``table`` and ``deal``: one deal played in every seat
arrangement) is resampled whole, because its games share their luck. Records without the
schedule's columns make each game its own deal.

Intervals (``INTERVALS``; docs/analysis.md, "The intervals", has the measured coverage):
``bca``, the bias-corrected and accelerated bootstrap interval (the default), its acceleration
from a jackknife that leaves out one deal (or one group of deals) at a time; ``percentile``, the
plain percentile interval; ``jackknife``, the estimate plus or minus ``z`` times the jackknife's
deal-clustered standard error.
"""
from __future__ import annotations

import math

import numpy as np
import polars as pl
from scipy import sparse
from scipy.stats import norm

INTERVALS = ("bca", "percentile", "jackknife")
JACKKNIFE_GROUPS = 200  # at most this many leave-out fits: deals are grouped beyond it
MAX_RESAMPLES = 10_000  # the most resamples a fit takes (docs/analysis.md): beyond, only the time grows
BATCH_CELLS = 4_000_000  # resample counts drawn at once (deals x resamples): bounds the memory


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
    batches = list(resample_batches(deals, times, seed))
    return np.concatenate(batches) if batches else np.empty((0, deals))


def resample_batches(deals: int, times: int, seed: int):
    """``resample_counts`` in batches of rows (about ``BATCH_CELLS`` counts each), the same rows
    in the same order: a fit that handles a batch at a time holds one batch, never all of them."""
    rng = np.random.default_rng(seed)
    rows = max(1, BATCH_CELLS // max(deals, 1))
    for start in range(0, times, rows):
        batch = [np.bincount(rng.integers(0, deals, size=deals), minlength=deals)
                 for _ in range(min(rows, times - start))]
        yield np.array(batch, dtype=float).reshape(len(batch), deals)


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


def check_count(times: int) -> None:
    """A ValueError for a number of resamples a fit cannot take: below 0 or above
    ``MAX_RESAMPLES``."""
    if isinstance(times, bool) or not isinstance(times, (int, np.integer)):
        raise ValueError(f"bootstrap must be a whole number of resamples, not {times!r}")
    if times < 0:
        raise ValueError(f"bootstrap must be 0 or more, not {times}")
    if times > MAX_RESAMPLES:
        raise ValueError(f"{times:,} resamples are more than the {MAX_RESAMPLES:,} a fit takes")


def check_resamples(times: int, level: float = 0.95) -> None:
    """A ValueError for a bootstrap a command refuses: one ``check_count`` refuses, or one too
    small for an interval (0, no interval at all, is fine)."""
    check_count(times)
    need = min_resamples(level)
    if 0 < times < need:
        raise ValueError(f"{times} resamples are too few for a {level:.0%} interval: it needs "
                         f"{need} or more (0: no interval)")


def jackknife_counts(deals: int, groups: int = JACKKNIFE_GROUPS) -> np.ndarray:
    """(g, deals): the weight of each deal in each leave-out fit, ``g = min(deals, groups)``.
    Fit ``i`` leaves out the deals numbered ``i``, ``i + g``, ``i + 2g``, ... (one deal each when
    there are at most ``groups``; deals are numbered as they first appear, so a group mixes
    tables)."""
    g = min(deals, groups)
    return (np.arange(deals)[None, :] % g != np.arange(g)[:, None]).astype(float)


def jackknife_groups(per: sparse.csr_matrix, groups: int = JACKKNIFE_GROUPS) -> sparse.csr_matrix:
    """The sums of ``per`` (a ``per_deal`` matrix) per group of deals that ``jackknife_counts``
    leaves out together (deal ``i`` in group ``i % g``): ``jackknife_counts(g) @`` these sums are
    ``jackknife_counts(deals) @ per``, the leave-out fits' weights, without a (g, deals) matrix of
    weights (1.6 GB and 3 s at 500,000 deals). The same numbers where the sums are whole numbers
    or halves (the 2-player fit's); otherwise summed in another order."""
    deals = per.shape[0]
    g = min(deals, groups)
    member = sparse.csr_matrix((np.ones(deals), (np.arange(deals) % g, np.arange(deals))),
                               shape=(g, deals))
    return (member @ per).tocsr()


def jackknife_se(jackknife: np.ndarray) -> np.ndarray:
    """The (grouped) jackknife's standard error of each column of ``jackknife`` (one row per
    leave-out fit of ``jackknife_counts``): ``sqrt((g-1)/g sum (t_i - mean)^2)``, a
    deal-clustered standard error, since whole deals are left out."""
    g = len(jackknife)
    dev = jackknife - jackknife.mean(axis=0)
    return np.sqrt((g - 1) / g * (dev * dev).sum(axis=0))


def bca_interval(samples: np.ndarray, estimate: np.ndarray, jackknife: np.ndarray,
                 level: float) -> tuple[np.ndarray, np.ndarray]:
    """Efron's bias-corrected and accelerated interval of each column: the percentiles of
    ``samples`` at ``Phi(z0 + (z0 + z) / (1 - a (z0 + z)))`` for ``z`` the normal quantiles of
    ``level``; ``z0`` measures the resamples' median bias (their share below ``estimate``), ``a``
    the skewness of the leave-out fits ``jackknife``. A column without spread (an anchored bot)
    gets its estimate; NaN when there are no resamples."""
    b = len(samples)
    below = (samples < estimate).mean(axis=0) + 0.5 * (samples == estimate).mean(axis=0)
    z0 = norm.ppf(np.clip(below, 1 / (b + 1), b / (b + 1)))
    dev = jackknife.mean(axis=0) - jackknife
    spread = (dev * dev).sum(axis=0)
    a = np.divide((dev ** 3).sum(axis=0), 6 * spread ** 1.5, out=np.zeros_like(spread),
                  where=spread > 0)
    ends = []
    for z in norm.ppf([(1 - level) / 2, (1 + level) / 2]):
        q = norm.cdf(z0 + (z0 + z) / (1 - a * (z0 + z)))
        ends.append(np.array([np.quantile(samples[:, j], q[j]) for j in range(samples.shape[1])]))
    return ends[0], ends[1]


def interval(method: str, samples: np.ndarray, estimate: np.ndarray, jackknife: np.ndarray,
             level: float) -> tuple[np.ndarray, np.ndarray]:
    """The ``level`` interval of each column by ``method`` (one of ``INTERVALS``); NaN when
    there are no resamples."""
    if method not in INTERVALS:
        raise ValueError(f"interval must be one of {', '.join(INTERVALS)}, not {method!r}")
    if method == "percentile" or len(samples) == 0:
        return percentile_interval(samples, level)
    if method == "jackknife":
        half = norm.ppf((1 + level) / 2) * jackknife_se(jackknife)
        return estimate - half, estimate + half
    return bca_interval(samples, estimate, jackknife, level)
