"""Elo ratings of 2-player games: a Bradley-Terry fit with a first-mover term, and a bootstrap.

The model: in a game of bot ``a`` (seat 0) against bot ``b`` (seat 1), seat 0 scores 1 (a win),
1/2 (a shared rank) or 0, with expectation ``1 / (1 + 10 ** (-(R_a - R_b + H) / 400))``; ``H`` is
the first mover's edge. The ratings maximize the likelihood of every game at once (Newton's method,
with a tiny ridge so that a bot that never wins still gets a finite rating). The 95% intervals are
``rating +- 1.96 se`` with the jackknife's standard error over deals, and ``superiority`` comes from
a bootstrap over deals: a deal (the games sharing ``table`` and ``deal``, i.e. one deal played in
every seat arrangement) is left out or resampled whole, because its games share their luck
(analysis/bootstrap.py; docs/analysis.md has the measured coverage). An interval that would
measure nothing is not given (``low`` and ``high`` NaN, ``measured``): every one when the games
come from fewer than ``MIN_DEALS`` deals, and one whose ends meet because every fit over the deals
agrees (the results do not vary from deal to deal: too few games), the anchor's aside.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from .bootstrap import (INTERVALS, check_count, deal_codes, interval as bootstrap_interval,
                        jackknife_counts, jackknife_groups, per_deal, resample_batches)
from .stats import SEAT_COLUMNS, bot_codes, faulted, game_seats
from .totals import seat_outcomes

SCALE = 400.0 / np.log(10.0)  # Elo points per unit of log-odds
MIN_DEALS = 2  # the fewest deals an interval over deals is made from: one deal has no spread to measure


@dataclass
class EloFit:
    """A fit: ``table`` (bot, games, rating, low, high, score_share; best first), the first
    mover's edge in Elo points with its interval, ``superiority``: per pair of bots (``bot``,
    ``other``) the share ``los`` of bootstrap fits in which ``bot`` is rated above ``other``, and ``unbounded``: the bots whose
    likelihood has no maximum (they won every game, or none), rated only by the ridge;
    ``interval``: the method of the intervals; ``deals``: how many deals the games come from. A
    ``low`` and ``high`` of NaN: no interval (``bootstrap=0``, or one that would measure nothing:
    ``measured``)."""
    table: pl.DataFrame
    first_move: tuple[float, float, float]
    superiority: pl.DataFrame
    bootstrap: int
    unbounded: list[str]  # bots that won every game or none: the ridge sets their ratings
    interval: str = "jackknife"  # how low and high were made (analysis.bootstrap.INTERVALS)
    deals: int = 0  # the deals the games come from (fewer than MIN_DEALS: no interval at all)


def _pair_games(results: pl.DataFrame, games: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The 2-player games: their seats (``stats.game_seats``, with ``fault_seat`` where recorded)
    and per game, in (run_id, game_id) order, the first mover's bot (bot0), the other (bot1), the
    first mover's score ``s`` (1, 1/2, 0) and its deal (``cluster``)."""
    faults = ["fault_seat"] if "fault_seat" in games.columns else []
    seats = (game_seats(results.select(SEAT_COLUMNS), games, faults)
             .filter(pl.col("players") == 2))
    s0 = seats.filter(pl.col("order") == 0).select("game", "run_id", "game_id", "deal_key",
                                                   bot0="bot", rank0="rank")
    s1 = seats.filter(pl.col("order") == 1).select("game", bot1="bot", rank1="rank")
    pairs = s0.join(s1, on="game").sort("game")
    if pairs.height == 0:
        raise ValueError("no 2-player games in the records")
    if 2 * pairs.height != seats.height:  # a game whose seats are not 0 and 1 from the opener
        seats = seats.filter(pl.col("game").is_in(pairs["game"].implode()))
    score = (pl.when(pl.col("rank0") < pl.col("rank1")).then(1.0)
             .when(pl.col("rank0") == pl.col("rank1")).then(0.5).otherwise(0.0))
    return seats, pairs.with_columns(score.alias("s"), pl.col("deal_key").alias("cluster"))


def _cells(i0, i1, s, n, w=None):
    """Total weight and seat-0 score per ordered pair (seat-0 bot, seat-1 bot): n*n cells."""
    w = np.ones(len(i0)) if w is None else w
    cell = i0 * n + i1
    return (np.bincount(cell, weights=w, minlength=n * n),
            np.bincount(cell, weights=w * s, minlength=n * n))


def _design(n: int) -> np.ndarray:
    """The cells' rows of the design: +1 for the seat-0 bot, -1 for the seat-1 bot, 1 for H."""
    x = np.zeros((n * n, n + 1))
    idx = np.arange(n * n)
    x[idx, idx // n] += 1.0
    x[idx, idx % n] -= 1.0
    x[:, n] = 1.0
    return x


def fit_cells(x: np.ndarray, w: np.ndarray, ws: np.ndarray, ridge: float = 1e-3,
              iters: int = 100) -> np.ndarray:
    """Maximum likelihood (plus a ridge) by Newton's method with step halving; log-odds units.

    ``w`` and ``ws`` are one weighting of the cells, or a batch (rows) solved together (the
    bootstrap's resamples, the jackknife's leave-one-deal-out fits); the answer has the same
    leading shape."""
    single = np.ndim(w) == 1
    w, ws = np.atleast_2d(w), np.atleast_2d(ws)
    batch, k = len(w), x.shape[1]
    theta = np.zeros((batch, k))
    value = _objective_rows(x, w, ws, theta, ridge)
    outer = (x[:, :, None] * x[:, None, :]).reshape(len(x), k * k)  # per cell: x x^T
    rows = np.arange(batch)
    for _ in range(iters):
        th, ww, wws = theta[rows], w[rows], ws[rows]
        p = 1.0 / (1.0 + np.exp(-(th @ x.T)))
        grad = (wws - ww * p) @ x - ridge * th
        hess = ((ww * p * (1.0 - p)) @ outer).reshape(-1, k, k) + ridge * np.eye(k)
        step = np.linalg.solve(hess, grad[..., None])[..., 0]
        t = np.ones(len(rows))
        new = _objective_rows(x, ww, wws, th + step, ridge)
        worse = new < value[rows] - 1e-12
        while worse.any() and t.min() > 1e-8:
            t[worse] /= 2
            trial = _objective_rows(x, ww, wws, th + t[:, None] * step, ridge)
            new = np.where(worse, trial, new)
            worse = worse & (trial < value[rows] - 1e-12)
        moved = t[:, None] * step
        gain = new - value[rows]
        theta[rows], value[rows] = th + moved, new
        going = (np.abs(gain) >= 1e-10) | (np.abs(moved).max(axis=1) >= 1e-8)
        rows = rows[going]
        if not rows.size:
            break
    return theta[0] if single else theta


def _objective_rows(x, w, ws, t, ridge):
    """The penalized log-likelihood of each row's weighting at its parameters ``t``."""
    eta = t @ x.T
    return (ws * eta).sum(axis=1) - (w * np.logaddexp(0.0, eta)).sum(axis=1) \
        - 0.5 * ridge * (t * t).sum(axis=1)


MAX_ANCHOR_VALUE = 1e6  # |anchor_value| at most this: ratings stay finite numbers


def check_anchor_value(value: float) -> None:
    """A ValueError for an anchor rating that is not a finite number within
    +-``MAX_ANCHOR_VALUE`` (NaN would rate every bot NaN, 1e308 every other bot infinite)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"anchor_value must be a number, not {value!r}") from None
    if not abs(number) <= MAX_ANCHOR_VALUE:  # NaN fails this too
        raise ValueError(f"anchor_value must be a finite number from {-MAX_ANCHOR_VALUE:g} to "
                         f"{MAX_ANCHOR_VALUE:g}, not {value!r}")


def centre_ratings(theta: np.ndarray, n: int, anchor: int | None, anchor_value: float) -> np.ndarray:
    """Elo points of the first ``n`` log-strengths, centred on their mean or with bot ``anchor``
    at ``anchor_value``."""
    r = theta[..., :n] * SCALE
    base = r.mean(axis=-1, keepdims=True) if anchor is None else r[..., anchor:anchor + 1]
    return r - base + anchor_value


def fit_elo(results: pl.DataFrame, games: pl.DataFrame, *, anchor: str | None = None,
            anchor_value: float = 0.0, bootstrap: int = 200, seed: int = 0,
            level: float = 0.95, ridge: float = 1e-3, interval: str = "jackknife") -> EloFit:
    """Fit Elo ratings to the 2-player games of ``results`` (deals taken from ``games``).

    Ratings are centred on the pool's mean, or put ``anchor`` (a bot's name) at ``anchor_value``.
    The ``level`` intervals are the deal jackknife's by default (``interval``: one of
    ``analysis.bootstrap.INTERVALS``); ``bootstrap`` resamples of whole deals (seeded by ``seed``,
    at most ``MAX_RESAMPLES``) give ``superiority`` (and the ``bca`` and ``percentile``
    intervals). ``bootstrap=0`` gives neither intervals nor superiority.
    """
    seats, pairs = _pair_games(results, games)
    bots = sorted(seats["bot"].unique().to_list())
    if anchor is not None and anchor not in bots:
        raise ValueError(f"anchor {anchor!r} is not a bot of these games (bots: {', '.join(bots)})")
    check_count(bootstrap)
    check_anchor_value(anchor_value)
    if interval not in INTERVALS:
        raise ValueError(f"interval must be one of {', '.join(INTERVALS)}, not {interval!r}")
    n, index = len(bots), {b: i for i, b in enumerate(bots)}
    a_idx = None if anchor is None else index[anchor]
    i0, i1 = (bot_codes(pairs[c], bots) for c in ("bot0", "bot1"))
    s = pairs["s"].to_numpy().astype(float)
    x = _design(n)
    theta = fit_cells(x, *_cells(i0, i1, s, n), ridge=ridge)
    rating, edge = centre_ratings(theta, n, a_idx, anchor_value), theta[n] * SCALE

    def fits(counts, per_w, per_ws):  # ratings and edge of the fits weighting the rows of per_w by counts
        t = fit_cells(x, (per_w.T @ counts.T).T, (per_ws.T @ counts.T).T, ridge=ridge)
        return np.concatenate([centre_ratings(t, n, a_idx, anchor_value), t[:, n:] * SCALE], axis=1)

    samples = jackknife = np.empty((0, n + 1))
    codes = deal_codes(pairs["cluster"])
    if bootstrap:
        cell = i0 * n + i1
        per_w = per_deal(codes, cell, np.ones(len(s)), n * n)
        per_ws = per_deal(codes, cell, s, n * n)
        samples = np.concatenate([fits(c, per_w, per_ws)
                                  for c in resample_batches(per_w.shape[0], bootstrap, seed)])
        if interval != "percentile":  # the leave-out fits, over the groups' sums
            group_w, group_ws = jackknife_groups(per_w), jackknife_groups(per_ws)
            jackknife = fits(jackknife_counts(group_w.shape[0]), group_w, group_ws)
    estimate = np.append(rating, edge)
    low, high = bootstrap_interval(interval, samples, estimate, jackknife, level)
    deals = int(codes.max()) + 1 if len(codes) else 0
    low, high = measured(low, high, deals, a_idx)

    table = seats_ratings_table(seats, bots, rating, low[:n], high[:n])
    order = [index[b] for b in table["bot"].to_list()]
    superiority = superiority_table(bots, order, samples if bootstrap else None)
    other = i0 != i1  # a bot against itself (self_play) tells nothing of its own bound
    points = (np.bincount(i0[other], weights=s[other], minlength=n)
              + np.bincount(i1[other], weights=1 - s[other], minlength=n))
    played = np.bincount(i0[other], minlength=n) + np.bincount(i1[other], minlength=n)
    unbounded = [b for b, p, g in zip(bots, points, played) if p == 0 or p == g]
    return EloFit(table, (float(edge), float(low[n]), float(high[n])), superiority, bootstrap,
                  unbounded, interval, deals)


def measured(low: np.ndarray, high: np.ndarray, deals: int, pinned: int | None = None
             ) -> tuple[np.ndarray, np.ndarray]:
    """The intervals ``low``..``high`` (a column each) that measure something; NaN for the others:
    every one with fewer than ``MIN_DEALS`` deals, and one whose ends meet (every leave-out or
    resampled fit agrees: the results do not vary from deal to deal, too few games to measure how
    they might), except column ``pinned`` (the anchor's: fixed by definition, not measured)."""
    low, high = np.array(low, dtype=float), np.array(high, dtype=float)
    if deals < MIN_DEALS:
        return np.full_like(low, np.nan), np.full_like(high, np.nan)
    flat = np.abs(high - low) <= 1e-9 * np.maximum(1.0, np.abs(low) + np.abs(high))
    if pinned is not None:
        flat[pinned] = False
    low[flat], high[flat] = np.nan, np.nan
    return low, high


def superiority_table(bots: list[str], order: list[int], samples: np.ndarray | None) -> pl.DataFrame:
    """The likelihood of superiority in long form: one row per ordered pair of bots (``bot``,
    ``other``, in ``order``), ``los`` the share of the resampled fits (``samples``, a column per
    bot) rating ``bot`` above ``other`` (null with no resamples or for a bot against itself).

    Bot names are values here, never column names, so any name (``bot``, ``other``) works.
    """
    rows = [(bots[a], bots[b], float(np.mean(samples[:, a] > samples[:, b]))
             if samples is not None and a != b else None) for a in order for b in order]
    return pl.DataFrame(rows, schema={"bot": pl.String, "other": pl.String, "los": pl.Float64},
                        orient="row")


def ratings_table(results, games, bots, rating, low, high) -> pl.DataFrame:
    """Games and score share per bot, over the games of ``games`` (``run_id``, ``game_id``, and
    ``fault_seat`` where recorded: a forfeiting seat's share is 0) between different bots only: a
    game of a bot against itself (``self_play``) informs the seat terms, not the bot's rating."""
    faults = ["fault_seat"] if "fault_seat" in games.columns else []
    seats = game_seats(results.select(SEAT_COLUMNS), games, faults)
    return seats_ratings_table(seats, bots, rating, low, high)


def seats_ratings_table(seats: pl.DataFrame, bots, rating, low, high) -> pl.DataFrame:
    """``ratings_table`` over the rated games' ``seats`` (``stats.game_seats``: game, seat, bot,
    score, rank, and ``fault_seat`` where recorded), as the fits have them already; the score
    share is the standings' (``analysis.totals.seat_outcomes``)."""
    names = list(bots) + sorted(set(seats["bot"].unique().to_list()) - set(bots))  # bots first
    game, bot = seats["game"].to_numpy(), bot_codes(seats["bot"], names)
    faults = seats.select(faulted())["faulted"].to_numpy() if "fault_seat" in seats.columns else None
    outcome = seat_outcomes(game, bot, seats["score"].to_numpy(), seats["rank"].to_numpy(), faults)
    distinct = np.bincount(game, outcome["first"])[game] == outcome["players"]  # no bot seated twice
    played = np.bincount(bot[distinct], minlength=len(names))[:len(bots)]
    share = np.bincount(bot[distinct], outcome["share"][distinct], len(names))[:len(bots)]
    fit = pl.DataFrame({"bot": bots, "games": played.astype(np.int64), "rating": rating, "low": low,
                        "high": high, "score_share": share})
    return (fit.with_columns(pl.when(pl.col("games") > 0).then(pl.col("score_share") / pl.col("games"))
                             .alias("score_share"))  # a bot with only self games: 0 games, no share
            .sort("rating", descending=True))


def elo_table(results: pl.DataFrame, games: pl.DataFrame, **options) -> pl.DataFrame:
    """Just the ratings table of ``fit_elo``: bot, games, rating, low, high, score_share."""
    return fit_elo(results, games, **options).table
