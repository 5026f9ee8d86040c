"""Elo-scale ratings of 3- and 4-player games: a Plackett-Luce fit with seat terms, and a bootstrap.

The model: in a game, the seat ``s`` holding bot ``b`` has strength ``exp(eta)``, with
``eta = theta_b + gamma_s`` (``gamma`` is the seat's edge; the last seat's is 0 in the fit). The
finishing order is drawn best first: the winner among the seats left with probability
``exp(eta_i) / sum(exp(eta_j))``, then the next among those left, and so on. For 2 players this is
the Bradley-Terry model of ``analysis/elo.py``.

Ties: a shared rank counts as an equal fraction of every order of the tied seats, and the game's
log-likelihood is the mean of the orders' log-likelihoods (the geometric mean of their
probabilities). For 2 players that is exactly the 2-player fit's "a draw is half a win, half a
loss", so both fits treat ties alike, and it is computed exactly: the mean over the ``d!`` orders
of a tied group of ``d`` is a mean over the subsets of the group (``2**d`` terms, at most 16).
Efron's approximation of tied events is this same mean with the log and the mean swapped.

Games are summed per lineup (the bots in seat order), each with a vector of coefficients over the
2**players subsets of seats, so Newton's steps cost the same for 1,000 games as for 1,000,000;
the bootstrap's resamples are solved together, as one batch. Newton's method with a tiny ridge, the 400-point Elo scale (log-strength * 400 / ln 10), and the
deal jackknife's intervals and bootstrap over whole deals are those of the 2-player fit.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from math import comb

import numpy as np
import polars as pl

from .bootstrap import (INTERVALS, check_count, deal_codes, interval as bootstrap_interval,
                        jackknife_counts, jackknife_groups, per_deal, resample_batches)
from .elo import (SCALE, EloFit, centre_ratings, check_anchor_value, measured, seats_ratings_table,
                  superiority_table)
from .stats import SEAT_COLUMNS, bot_codes, game_seats


@dataclass
class PlackettLuceFit(EloFit):
    """An ``EloFit`` for 3 or 4 players. ``first_move`` is seat 0's edge over the mean of the
    other seats; ``seats`` has every seat's edge over the mean seat (seat, edge, low, high), all
    in Elo points. ``unbounded``: the bots that finished first alone in every game, or last
    alone in every game."""
    num_players: int = 0
    seats: pl.DataFrame = field(default_factory=pl.DataFrame)


def _games(results: pl.DataFrame, games: pl.DataFrame, num_players: int):
    """The ``num_players``-player games: their seats (``stats.game_seats``, for the ratings table),
    a frame of one row per game (run_id, game_id and its deal, ``cluster``), the bots' names
    (sorted) and, in the games' order, arrays (games, seats) of the bots (indices into the names)
    and of their ranks."""
    faults = ["fault_seat"] if "fault_seat" in games.columns else []
    seats = (game_seats(results.select(SEAT_COLUMNS), games, faults)
             .filter(pl.col("players") == num_players).sort("game", "order"))
    if seats.height == 0:
        raise ValueError(f"no {num_players}-player games in the records")
    seat = seats["order"].to_numpy().reshape(-1, num_players)
    bad = np.flatnonzero((seat != np.arange(num_players)).any(axis=1))
    if len(bad):
        row = seats.row(int(bad[0]) * num_players, named=True)
        raise ValueError(f"game {row['game_id']!r} of run {row['run_id']!r}: seats "
                         f"{seat[bad[0]].tolist()}, not 0..{num_players - 1}")
    per_game = seats.gather_every(num_players).select("run_id", "game_id", pl.col("deal_key").alias("cluster"))
    names = sorted(seats["bot"].unique().to_list())
    bots = bot_codes(seats["bot"], names).reshape(-1, num_players)
    ranks = seats["rank"].to_numpy().astype(np.int64).reshape(-1, num_players)
    if ranks.min() < 1:
        raise ValueError(f"ranks start at 1, not {ranks.min()}")
    return seats, per_game, names, bots, ranks


def order_coefficients(ranks, num_players: int) -> np.ndarray:
    """The log-likelihood of a finishing order (``ranks`` per seat, 1 best, equal when shared) is
    ``sum(eta) - sum_m c[m] * log(sum(exp(eta[s]) for s in m))`` over subsets ``m`` of the seats
    (bit masks); returns ``c``. A tied group counts as the mean over its orders."""
    c = np.zeros(2 ** num_players)
    ranks = list(ranks)
    for value in sorted(set(ranks)):
        tied = [s for s in range(num_players) if ranks[s] == value]
        left = sum(1 << s for s in range(num_players) if ranks[s] >= value)
        for k in range(len(tied)):
            for before in combinations(tied, k):  # the tied seats already drawn
                c[left - sum(1 << s for s in before)] += 1.0 / comb(len(tied), k)
    return c


class _Model:
    """Lineups (bots in seat order) with their summed coefficients; Newton's method on them,
    for a batch of weightings at once (the bootstrap's resamples are solved together).

    The parameters are the bots' log-strengths, then the seats' (the last seat's fixed at 0).
    ``w`` (batch, lineups) counts games per lineup, ``c`` (batch, lineups, masks) sums their
    coefficients."""

    def __init__(self, lineups: np.ndarray, n_bots: int, masks: np.ndarray):
        cells, p = lineups.shape
        self.lineups, self.n, self.p, self.k = lineups, n_bots, p, n_bots + p - 1
        self.bits = ((masks[:, None] >> np.arange(p)) & 1).astype(float)  # (masks, seats)
        self.pairs = (self.bits[:, :, None] * self.bits[:, None, :]).reshape(len(masks), p * p)
        # each (lineup, seat) touches two parameters: its bot's and its seat's (n + seat)
        full = self.full = n_bots + p
        params = np.stack([lineups, np.broadcast_to(n_bots + np.arange(p), lineups.shape)])
        self.grad_index = params.reshape(-1)
        self.hess_index = np.concatenate([
            (params[u][:, :, None] * full + params[v][:, None, :]).ravel()
            for u in range(2) for v in range(2)])

    def _parts(self, beta, w, c, ridge):
        seat = np.concatenate([beta[:, self.n:], np.zeros((len(beta), 1))], axis=1)
        eta = beta[:, self.lineups] + seat[:, None, :]  # (batch, cells, seats)
        top = eta.max(axis=2, keepdims=True)
        e = np.exp(eta - top)
        s = e @ self.bits.T  # (batch, cells, masks): the strength of each subset of seats
        used = c > 0
        logs = np.where(used, np.log(np.where(used, s, 1.0)) + top, 0.0)
        value = ((w * eta.sum(axis=2)).sum(axis=1) - (c * logs).sum(axis=(1, 2))
                 - 0.5 * ridge * (beta * beta).sum(axis=1))
        return e, s, used, value

    def _derivatives(self, beta, w, c, ridge):
        e, s, used, _ = self._parts(beta, w, c, ridge)
        batch, full, p = len(beta), self.full, self.p
        r = np.where(used, c / np.where(used, s, 1.0), 0.0)
        q = np.where(used, r / np.where(used, s, 1.0), 0.0)
        pull = e * (r @ self.bits)
        g = np.tile((w[:, :, None] - pull).reshape(batch, -1), 2)
        offsets = np.arange(batch)[:, None]
        grad = np.bincount((offsets * full + self.grad_index).ravel(), g.ravel(),
                           batch * full).reshape(batch, full)
        h = -(e[..., :, None] * e[..., None, :]) * (q @ self.pairs).reshape(e.shape + (p,))
        h[..., np.arange(p), np.arange(p)] += pull
        h = np.tile(h.reshape(batch, -1), 4)
        hess = np.bincount((offsets * full * full + self.hess_index).ravel(), h.ravel(),
                           batch * full * full).reshape(batch, full, full)
        k = self.k
        return grad[:, :k] - ridge * beta, hess[:, :k, :k] + ridge * np.eye(k)

    def fit(self, w: np.ndarray, c: np.ndarray, ridge: float = 1e-3, iters: int = 100,
            start: np.ndarray | None = None) -> np.ndarray:
        """Maximum likelihood (plus a ridge) of each weighting by Newton's method with step
        halving, from ``start`` (zeros by default; the bootstrap starts from the full fit)."""
        batch = len(w)
        beta = np.zeros((batch, self.k)) if start is None else np.tile(start, (batch, 1))
        value = self._parts(beta, w, c, ridge)[-1]
        for _ in range(iters):
            grad, hess = self._derivatives(beta, w, c, ridge)
            step = np.linalg.solve(hess, grad[..., None])[..., 0]
            if np.abs(step).max() < 1e-9:  # Newton's steps shrink quadratically near the top
                break
            t = np.ones(batch)
            new = self._parts(beta + step, w, c, ridge)[-1]
            slack = 1e-12 * (1.0 + np.abs(value))  # rounding in sums over many games
            worse = new < value - slack
            while worse.any() and t.min() > 1e-8:
                t[worse] /= 2
                trial = self._parts(beta + t[:, None] * step, w, c, ridge)[-1]
                new = np.where(worse, trial, new)
                worse = worse & (trial < value - slack)
            beta, value = beta + t[:, None] * step, new
        return beta


def _seat_edges(beta: np.ndarray, n: int) -> np.ndarray:
    """Each seat's edge over the mean seat, then seat 0's over the others' mean; Elo points."""
    gamma = np.concatenate([beta[..., n:], np.zeros(beta.shape[:-1] + (1,))], axis=-1) * SCALE
    edges = gamma - gamma.mean(axis=-1, keepdims=True)
    first = gamma[..., :1] - gamma[..., 1:].mean(axis=-1, keepdims=True)
    return np.concatenate([edges, first], axis=-1)


def fit_plackett_luce(results: pl.DataFrame, games: pl.DataFrame, *, num_players: int,
                      anchor: str | None = None, anchor_value: float = 0.0,
                      bootstrap: int = 200, seed: int = 0, level: float = 0.95,
                      ridge: float = 1e-3, interval: str = "jackknife") -> PlackettLuceFit:
    """Fit Elo-scale ratings to the ``num_players``-player games of ``results`` (deals from
    ``games``). Centring, ``anchor``, ``bootstrap``, ``seed``, ``level`` and ``interval`` as in
    ``fit_elo``."""
    if num_players < 2:
        raise ValueError(f"num_players must be 2 or more, not {num_players}")
    check_count(bootstrap)
    check_anchor_value(anchor_value)
    if interval not in INTERVALS:
        raise ValueError(f"interval must be one of {', '.join(INTERVALS)}, not {interval!r}")
    seats, per_game, bots, seat_bots, ranks = _games(results, games, num_players)
    if anchor is not None and anchor not in bots:
        raise ValueError(f"anchor {anchor!r} is not a bot of these games (bots: {', '.join(bots)})")
    n, index, p = len(bots), {b: i for i, b in enumerate(bots)}, num_players
    a_idx = None if anchor is None else index[anchor]
    lineup_code = seat_bots @ n ** np.arange(p)
    _, first_game, cell = np.unique(lineup_code, return_index=True, return_inverse=True)
    lineups, cell = seat_bots[first_game], cell.ravel()
    rank_code = (ranks - 1) @ int(ranks.max()) ** np.arange(p)
    _, first_game, pattern = np.unique(rank_code, return_index=True, return_inverse=True)
    coef = np.array([order_coefficients(r, p) for r in ranks[first_game]])
    masks = np.flatnonzero(coef.any(axis=0))
    coef = coef[:, masks]
    rows = np.concatenate([np.ones((len(cell), 1)), coef[pattern.ravel()]], axis=1)  # per game
    width = rows.shape[1]
    model = _Model(lineups, n, masks)

    totals = np.zeros((len(lineups), width))
    np.add.at(totals, cell, rows)
    beta = model.fit(totals[None, :, 0], totals[None, :, 1:], ridge=ridge)[0]
    rating, edges = centre_ratings(beta, n, a_idx, anchor_value), _seat_edges(beta, n)

    samples = jackknife = np.empty((0, n + p + 1))
    if bootstrap:
        codes = deal_codes(per_game["cluster"])
        cols = (cell[:, None] * width + np.arange(width)).ravel()
        sums = per_deal(np.repeat(codes, width), cols, rows.ravel(), len(lineups) * width)
        chunk = max(1, 4_000_000 // (len(lineups) * (4 * p * p + width)))  # bounds the memory

        def fits(counts, sums):  # ratings and seat edges of the fits weighting sums' rows by ``counts``
            out = np.empty((len(counts), n + p + 1))
            for j in range(0, len(counts), chunk):
                t = (sums.T @ counts[j:j + chunk].T).T.reshape(-1, len(lineups), width)
                b = model.fit(t[..., 0], t[..., 1:], ridge=ridge, start=beta)
                out[j:j + chunk, :n] = centre_ratings(b, n, a_idx, anchor_value)
                out[j:j + chunk, n:] = _seat_edges(b, n)
            return out

        samples = np.concatenate([fits(c, sums) for c in resample_batches(sums.shape[0], bootstrap, seed)])
        if interval != "percentile":  # the leave-out fits, over the groups' sums
            groups = jackknife_groups(sums)
            jackknife = fits(jackknife_counts(groups.shape[0]), groups)
    estimate = np.concatenate([rating, edges])
    low, high = bootstrap_interval(interval, samples, estimate, jackknife, level)
    deals = int(deal_codes(per_game["cluster"]).max()) + 1 if per_game.height else 0
    low, high = measured(low, high, deals, a_idx)  # none where they would measure nothing

    table = seats_ratings_table(seats, bots, rating, low[:n], high[:n])
    superiority = superiority_table(bots, [index[b] for b in table["bot"].to_list()],
                                    samples if bootstrap else None)
    seats = pl.DataFrame({"seat": pl.Series(range(p), dtype=pl.Int32), "edge": edges[:p],
                          "low": low[n:n + p], "high": high[n:n + p]})
    last = ranks == ranks.max(axis=1, keepdims=True)
    alone_first = (ranks == 1) & ((ranks == 1).sum(axis=1, keepdims=True) == 1)
    alone_last = last & (last.sum(axis=1, keepdims=True) == 1)
    distinct = (np.sort(seat_bots, axis=1)[:, 1:] != np.sort(seat_bots, axis=1)[:, :-1]).all(axis=1)
    mixed = seat_bots[distinct]  # games of a bot against copies of itself bound nothing
    played = np.bincount(mixed.ravel(), minlength=n)
    firsts = np.bincount(mixed[alone_first[distinct]], minlength=n)
    lasts = np.bincount(mixed[alone_last[distinct]], minlength=n)
    unbounded = [b for b, g, f, l in zip(bots, played, firsts, lasts) if g in (f, l)]
    return PlackettLuceFit(table, (float(edges[p]), float(low[n + p]), float(high[n + p])),
                           superiority, bootstrap, unbounded, interval, deals, num_players=p, seats=seats)
