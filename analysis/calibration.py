"""Calibrated win probabilities from an analyser's values (issue 45, item 2: the statistics only;
docs/review.md, "Calibration").

An analyser (an MCTS search) gives each seat of a position a value v_s in [0, 1], the share of its
opponents the seat is expected to beat. ``fit`` maps the values of one position to win
probabilities that sum to 1 over its seats, by a conditional (multinomial) logit with one
parameter ``a``:

    p_s = exp(a x_s) / sum_t exp(a x_t),    x_s = logit(v_s), v clipped to [EPS, 1 - EPS]

fitted by maximum likelihood on positions whose games were played out. A seat's outcome ``won``
is its share of first place: 1 for a sole winner, 1/k for each of k tied winners, 0 otherwise.
``check`` measures a map on other games: the Brier score, a reliability table and the calibration
regression of ``won`` on logit(p) with its clustered Wald test; ``squeezed`` pulls probabilities
towards 1/players, the negative control. The positions of one game share its outcome, so every
interval is clustered by game: a sandwich covariance over the games' sums of scores.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import polars as pl

from .stats import Z95, design_effects, wilson_exprs

FORMAT = "azul-calibration/1"
EPS = 1e-4  # values and probabilities are clipped to [EPS, 1 - EPS] before their logit
BINS = 10  # equal-width bins of predicted probability in the reliability table
SUM_TOLERANCE = 1e-6  # how far the outcomes of a position may sum from 1
MAX_STEPS = 100  # Newton steps before a fit gives up
RUNAWAY = 1e3  # a coefficient beyond this: the outcomes are separated, no finite maximum
PINNED = 1e-9  # an intercept and its standard error both below this are 0 (two mirrored seats)

SPREAD = 1.0  # synthetic games: the sd of a seat's true logit-strength
GAME_SHIFT, POSITION_SHIFT = 0.5, 0.3  # synthetic games: the sds of the shift common to a position's seats
TIES = 0.1  # synthetic games: the share decided by two draws, sharing first place when they differ


@dataclass(frozen=True)
class CalibrationMap:
    """The fitted map of one player count: ``a`` with its 95% interval (``a_low``, ``a_high``,
    clustered by game), fitted on ``positions`` positions of ``games`` games of ``players`` seats."""
    a: float
    a_low: float
    a_high: float
    players: int
    positions: int
    games: int

    def apply(self, values) -> np.ndarray:
        """The win probabilities of one position's seats from their values (``players`` values in
        [0, 1]), summing to 1; a (positions, players) array gives one row per position."""
        v = _unit(values, "values", dims=(1, 2))
        if v.shape[-1] != self.players:
            raise ValueError(f"values: {self.players} per position (the map's player count), not {v.shape[-1]}")
        return _softmax(self.a * logit(v))

    def apply_rows(self, rows: Mapping) -> np.ndarray:
        """The win probability of each row of ``rows`` (columns ``position`` and ``value``, one row
        per seat of a position), in the order of the rows."""
        t = _positions(rows, ("position", "value"))
        p = np.empty(len(t.order))
        p[t.order] = self.apply(t.value).ravel()
        return p

    def to_dict(self) -> dict:
        """The map as plain JSON values, with ``format`` (``FORMAT``)."""
        return {"format": FORMAT, "a": self.a, "a_low": self.a_low, "a_high": self.a_high,
                "players": self.players, "positions": self.positions, "games": self.games}

    @classmethod
    def from_dict(cls, d: Mapping) -> CalibrationMap:
        """The map ``to_dict`` wrote; a ValueError naming the first missing or bad key."""
        if not isinstance(d, Mapping):
            raise ValueError(f"calibration: a mapping of keys, not {type(d).__name__}")
        for key in ("format", "a", "a_low", "a_high", "players", "positions", "games"):
            if key not in d:
                raise ValueError(f"calibration: key {key!r} is missing")
        if d["format"] != FORMAT:
            raise ValueError(f"calibration: key 'format' must be {FORMAT!r}, not {d['format']!r}")
        for key in ("a", "a_low", "a_high"):
            if isinstance(d[key], bool) or not isinstance(d[key], (int, float)) or not math.isfinite(d[key]):
                raise ValueError(f"calibration: key {key!r} must be a finite number, not {d[key]!r}")
        if not d["a_low"] <= d["a"] <= d["a_high"]:
            raise ValueError(f"calibration: key 'a' must lie in [a_low, a_high], not {d['a']!r} outside "
                             f"[{d['a_low']!r}, {d['a_high']!r}]")
        for key, least in (("players", 2), ("positions", 1), ("games", 2)):
            if isinstance(d[key], bool) or not isinstance(d[key], int) or d[key] < least:
                raise ValueError(f"calibration: key {key!r} must be a whole number from {least}, not {d[key]!r}")
        return cls(a=float(d["a"]), a_low=float(d["a_low"]), a_high=float(d["a_high"]), players=d["players"],
                   positions=d["positions"], games=d["games"])


@dataclass(frozen=True)
class CalibrationCheck:
    """A map's probabilities measured on games it was not fitted on: ``brier`` (the mean over rows
    of (p - won)^2), ``table`` (``reliability``), and the calibration regression won ~
    sigmoid(alpha + beta logit(p)) with 95% intervals clustered by game, ``chi2``, its degrees of
    freedom ``df`` (2; 1 where the rows hold whole positions, which tie alpha to beta: ``check``)
    and ``p_value`` of the clustered Wald test of (alpha, beta) = (0, 1)."""
    rows: int
    games: int
    brier: float
    table: pl.DataFrame
    alpha: float
    alpha_low: float
    alpha_high: float
    beta: float
    beta_low: float
    beta_high: float
    chi2: float
    df: int
    p_value: float

    @property
    def passed(self) -> bool:
        """Whether beta's interval holds 1 and alpha's holds 0."""
        return self.beta_low <= 1.0 <= self.beta_high and self.alpha_low <= 0.0 <= self.alpha_high


def logit(p) -> np.ndarray:
    """log(p / (1 - p)) of ``p`` clipped to [EPS, 1 - EPS]."""
    p = np.clip(np.asarray(p, dtype=float), EPS, 1 - EPS)
    return np.log(p) - np.log1p(-p)


def fit(rows: Mapping) -> CalibrationMap:
    """The map fitted by maximum likelihood (Newton's method on ``a``) to ``rows``: columns ``game``
    (any ids), ``position`` (any ids: the rows of one position, one per seat, all of one game),
    ``value`` (in [0, 1]) and ``won`` (a position's outcomes sum to 1), a dict of arrays or a
    Polars frame. Outcomes of 1/k make it a quasi-likelihood fit, consistent as long as a seat's
    expected outcome is its probability. All positions must have the same number of seats: one map
    per player count. ``a``'s interval is clustered by game (the positions of a game share its
    outcome). ValueErrors for rows that cannot be fitted, each naming what is wrong."""
    t = _positions(rows, ("game", "position", "value", "won"))
    x, w = logit(t.value), t.won
    observed = (w * x).sum(axis=1)

    def model(b):
        z = b[0] * x
        p = _softmax(z)
        mean = (p * x).sum(axis=1)
        loglik = float((b[0] * observed - _logsumexp(z)).sum())
        return loglik, np.array([(observed - mean).sum()]), np.array([[((p * x * x).sum(axis=1) - mean ** 2).sum()]])
    b, info = _newton(model, [1.0], "a")
    scores = observed - (_softmax(b[0] * x) * x).sum(axis=1)
    se = math.sqrt(_clustered_cov(scores[:, None], t.game, info)[0, 0])
    a = float(b[0])
    return CalibrationMap(a=a, a_low=a - Z95 * se, a_high=a + Z95 * se, players=x.shape[1],
                          positions=x.shape[0], games=_count_games(t.game))


def check(probabilities, won, game) -> CalibrationCheck:
    """The calibration of ``probabilities`` (one per row: a seat of a position) against ``won``
    (its outcome, 1, 1/k or 0) on games (``game``, any ids) NOT used to fit them.

    The calibration regression is a logistic regression of ``won`` on logit(p) over all rows, every
    seat at once: won ~ sigmoid(alpha + beta logit(p)), fitted by Newton's method (IRLS) as a
    quasi-likelihood with fractional responses (Papke and Wooldridge's fractional logit), with a
    sandwich covariance clustered by game. Calibrated probabilities have alpha 0 (calibration in
    the large) and beta 1 (the slope: below 1, too confident; above 1, too timid). ``p_value`` is
    that of the clustered Wald test of calibration-in-the-large and slope, (alpha, beta) = (0, 1)
    (a Cox calibration test with cluster-robust errors), chi-square with 2 degrees of freedom.

    Where the rows hold every seat of their positions (each game's probabilities sum to its
    outcomes' sum, as a map's do), calibration in the large holds by construction: alpha's
    estimating equation, sum of (won - mu) = 0, reads sum of (p - mu) = 0, which the outcomes do
    not enter, so alpha follows beta (alpha ~ -(beta - 1) sum w x / sum w, w = mu (1 - mu)). Its
    score then carries no noise and is left out of the sandwich: the covariance has rank 1, alpha's
    interval is beta's carried along that tie, and the test is of the slope alone, 1 degree of
    freedom (``df``). At 2 players the tie is flat (the rows of a position mirror each other: p,
    1 - p) and alpha is 0, with the interval (0, 0). Returns a ``CalibrationCheck``."""
    p, y = _unit(probabilities, "probabilities"), _unit(won, "won")
    g = _codes(game, "game")
    if not len(p) == len(y) == len(g):
        raise ValueError(f"probabilities, won and game differ in length ({len(p)}, {len(y)}, {len(g)})")
    games = _count_games(g)
    x = np.column_stack([np.ones(len(p)), logit(p)])

    def model(b):
        eta = x @ b
        mu = _sigmoid(eta)
        return float((y * eta - np.logaddexp(0.0, eta)).sum()), x.T @ (y - mu), (x * (mu * (1 - mu))[:, None]).T @ x
    b, info = _newton(model, [0.0, 1.0], "alpha and beta")
    scores = x * (y - _sigmoid(x @ b))[:, None]
    tied = bool(np.all(np.abs(np.bincount(g, p) - np.bincount(g, y)) <= SUM_TOLERANCE * np.bincount(g)))
    if tied:
        scores[:, 0] = 0.0
    cov = _clustered_cov(scores, g, info)
    se = np.sqrt(np.diag(cov))
    off = b - np.array([0.0, 1.0])
    if tied:
        if abs(b[0]) < PINNED and se[0] < PINNED:  # 2 players: alpha is 0, to rounding
            b[0] = se[0] = 0.0
        chi2, df = off[1] ** 2 / cov[1, 1], 1
        p_value = math.erfc(math.sqrt(chi2 / 2))  # the chi-square survival function at 1 df
    else:
        try:
            chi2 = float(off @ np.linalg.solve(cov, off))
        except np.linalg.LinAlgError:
            raise ValueError("alpha and beta cannot be tested: their clustered covariance is singular") from None
        df, p_value = 2, math.exp(-chi2 / 2)  # the chi-square survival function at 2 df
    (alpha, beta), (alpha_half, beta_half) = b.tolist(), (Z95 * se).tolist()
    return CalibrationCheck(rows=len(p), games=games, brier=float(np.mean((p - y) ** 2)), table=reliability(p, y, g),
                            alpha=alpha, alpha_low=alpha - alpha_half, alpha_high=alpha + alpha_half, beta=beta,
                            beta_low=beta - beta_half, beta_high=beta + beta_half, chi2=float(chi2), df=df,
                            p_value=p_value)


def reliability(probabilities, won, game) -> pl.DataFrame:
    """The reliability table: per bin of ``BINS`` equal-width bins of p that holds rows, ``bin``
    (its lower edge), ``count`` (rows), ``predicted`` (the mean p), ``observed`` (the mean outcome)
    and its 95% Wilson interval ``low``, ``high`` at the effective number of rows: the count over
    the bin's design effect by game (``analysis.stats.design_effects``: a game's rows share its
    outcome)."""
    p, y = _unit(probabilities, "probabilities"), _unit(won, "won")
    frame = pl.DataFrame({"bin": np.minimum((p * BINS).astype(np.int64), BINS - 1),
                          "deal_key": _codes(game, "game"), "p": p, "points": y})
    table = frame.group_by("bin").agg(pl.len().alias("count"), pl.col("p").mean().alias("predicted"),
                                      pl.col("points").sum())
    return (table.join(design_effects(frame, ["bin"]), on="bin")
            .with_columns((pl.col("points") / pl.col("count")).alias("observed"),
                          *wilson_exprs("points", "count", design="design"))
            .sort("bin").select((pl.col("bin") / BINS).alias("bin"), "count", "predicted", "observed", "low", "high"))


def squeezed(probabilities, factor: float, players: int | None = None) -> np.ndarray:
    """``probabilities`` pulled towards the uniform 1/players: 1/n + factor (p - 1/n), ``n``
    ``players`` or the length of the last axis (one position per row). Still summing to 1 per
    position, but miscalibrated for a ``factor`` below 1: the negative control of ``check``."""
    if not 0.0 <= factor <= 1.0:
        raise ValueError(f"factor must be in [0, 1], not {factor!r}")
    p = np.asarray(probabilities, dtype=float)
    n = p.shape[-1] if players is None else players
    if n < 2:
        raise ValueError(f"players must be 2 or more, not {n}")
    return 1.0 / n + factor * (p - 1.0 / n)


def synthetic_positions(players: int, games: int, positions_per_game: int, a_true: float,
                        seed: int) -> dict[str, np.ndarray]:
    """Synthetic rows (``game``, ``position``, ``value``, ``won``; sorted by position, then seat)
    whose calibrated map is ``a = a_true``. Each game draws a true logit-strength per seat (normal,
    sd ``SPREAD``) and its outcome once, from their softmax; a share ``TIES`` of the games is
    decided by two such draws, first place shared when they differ (1/2 each: a seat's expected
    outcome is still its probability). Each position of the game gives a seat the value whose
    logit is its strength / a_true plus a shift common to the position's seats: the game's (sd
    ``GAME_SHIFT``) plus the position's own (sd ``POSITION_SHIFT``). A shift common to the seats
    moves the values but not the conditional logit, so every position carries its game's true
    probabilities exactly, and the positions of a game share its outcome: strongly correlated."""
    rng = np.random.default_rng(seed)
    strength = rng.normal(0.0, SPREAD, (games, players))
    cumulative = np.cumsum(_softmax(strength), axis=1)

    def draw():
        """One winning seat per game."""
        return np.minimum((rng.random((games, 1)) > cumulative).sum(axis=1), players - 1)
    won = np.zeros((games, players))
    first = draw()
    second = np.where(rng.random(games) < TIES, draw(), first)
    np.add.at(won, (np.arange(games), first), 0.5)
    np.add.at(won, (np.arange(games), second), 0.5)
    shift = (rng.normal(0.0, GAME_SHIFT, (games, 1, 1))
             + rng.normal(0.0, POSITION_SHIFT, (games, positions_per_game, 1)))
    value = _sigmoid(strength[:, None, :] / a_true + shift)
    return {"game": np.repeat(np.arange(games), positions_per_game * players),
            "position": np.repeat(np.arange(games * positions_per_game), players),
            "value": value.ravel(), "won": np.repeat(won, positions_per_game, axis=0).ravel()}


# ---------------------------------------------------------------- reading rows, the solvers
@dataclass(frozen=True)
class _Table:
    """Rows sorted by position: ``order`` (the rows in that order), per position its ``game``
    (a code 0..games-1) and (positions, players) arrays of ``value`` and ``won``."""
    order: np.ndarray
    game: np.ndarray | None
    value: np.ndarray
    won: np.ndarray | None


def _positions(rows: Mapping, columns: tuple[str, ...]) -> _Table:
    """``columns`` of ``rows`` sorted by position, checked: a ValueError names what is wrong."""
    for key in columns:
        if key not in rows:
            raise ValueError(f"rows: no {key!r} column (they need {', '.join(columns)})")
    lengths = {key: len(rows[key]) for key in columns}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"rows: the columns differ in length ({', '.join(f'{k} {n}' for k, n in lengths.items())})")
    if not lengths["position"]:
        raise ValueError("rows: there are none")
    position = _codes(rows["position"], "position")
    seats = np.unique(np.bincount(position))
    if len(seats) > 1:
        raise ValueError(f"position: positions of {', '.join(map(str, seats))} seats; one map is for one player count")
    n = int(seats[0])
    if n < 2:
        raise ValueError("position: each has one row, and a position needs a row per seat (2 or more)")
    order = np.argsort(position, kind="stable")
    value = _unit(rows["value"], "value")[order].reshape(-1, n)
    game = won = None
    if "won" in columns:
        won = _unit(rows["won"], "won")[order].reshape(-1, n)
        bad = np.flatnonzero(np.abs(won.sum(axis=1) - 1.0) > SUM_TOLERANCE)
        if len(bad):
            raise ValueError(f"won: the outcomes of {len(bad)} positions do not sum to 1 (the first sums to "
                             f"{won[bad[0]].sum():g}, at row {order[bad[0] * n]})")
    if "game" in columns:
        game = _codes(rows["game"], "game")[order].reshape(-1, n)
        split = np.flatnonzero((game != game[:, :1]).any(axis=1))
        if len(split):
            raise ValueError(f"game: {len(split)} positions have rows in different games (the first at row "
                             f"{order[split[0] * n]})")
        game = game[:, 0]
        _count_games(game)
    return _Table(order=order, game=game, value=value, won=won)


def _codes(ids, name: str) -> np.ndarray:
    """Each of ``ids`` (any hashable values, one per row) as a number 0..k-1."""
    ids = np.asarray(ids)
    if ids.ndim != 1:
        raise ValueError(f"{name}: one id per row, not an array of shape {ids.shape}")
    if ids.dtype == object:
        seen: dict = {}
        return np.array([seen.setdefault(i, len(seen)) for i in ids.tolist()], dtype=np.int64)
    return np.unique(ids, return_inverse=True)[1].ravel().astype(np.int64)


def _unit(x, name: str, dims: tuple[int, ...] = (1,)) -> np.ndarray:
    """``x`` as floats in [0, 1]; a ValueError naming ``name`` for NaN, a number outside or a shape."""
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: numbers in [0, 1] are needed") from None
    if a.ndim not in dims:
        raise ValueError(f"{name}: an array of {' or '.join(map(str, dims))} dimensions, not of shape {a.shape}")
    if a.size == 0:
        raise ValueError(f"{name}: there are none")
    bad = np.flatnonzero(~((a >= 0.0) & (a <= 1.0)).ravel())
    if len(bad):
        first = float(a.ravel()[bad[0]])
        raise ValueError(f"{name}: {len(bad)} are NaN or outside [0, 1] (the first, at {bad[0]}: {first!r})")
    return a


def _count_games(game: np.ndarray) -> int:
    """The number of games of ``game`` (codes 0..k-1); a ValueError below 2."""
    games = int(game.max()) + 1
    if games < 2:
        raise ValueError("game: 2 games or more are needed (intervals are clustered by game), not 1")
    return games


def _softmax(z: np.ndarray) -> np.ndarray:
    """exp(z) normalised over the last axis."""
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _logsumexp(z: np.ndarray) -> np.ndarray:
    """log sum exp(z) over the last axis."""
    top = z.max(axis=-1)
    return top + np.log(np.exp(z - top[..., None]).sum(axis=-1))


def _sigmoid(z) -> np.ndarray:
    """1 / (1 + exp(-z)), without overflow."""
    return np.exp(-np.logaddexp(0.0, -np.asarray(z, dtype=float)))


def _newton(model: Callable, start: list[float], what: str) -> tuple[np.ndarray, np.ndarray]:
    """The maximum of a concave log-likelihood and the information matrix there: ``model(b)``
    gives (log-likelihood, gradient, information); Newton's steps, halved while the
    log-likelihood falls. A ValueError when the information is singular at the start (nothing to
    fit), or the coefficients run away: growing past ``RUNAWAY``, losing all information or not
    settling in ``MAX_STEPS`` steps (values that separate the outcomes have no finite maximum)."""
    b = np.array(start, dtype=float)
    loglik, grad, info = model(b)
    if _singular(info):
        raise ValueError(f"{what} cannot be fitted: the data hold no information on it (no spread in the values?)")
    for _ in range(MAX_STEPS):
        step, scale = np.linalg.solve(info, grad), 1.0
        while True:
            trial = b + scale * step
            new = model(trial)
            if new[0] >= loglik - 1e-12 * abs(loglik) or scale < 1e-8:
                break
            scale /= 2
        b, (loglik, grad, info) = trial, new
        if np.abs(scale * step).max() < 1e-10 * (1.0 + np.abs(b).max()):
            return b, info
        if np.abs(b).max() > RUNAWAY or _singular(info):
            break
    raise ValueError(f"{what} cannot be fitted: it runs away, as where the values separate the outcomes")


def _singular(info: np.ndarray) -> bool:
    """Whether the information matrix ``info`` is singular (or not finite), to rounding."""
    if not np.all(np.isfinite(info)):
        return True
    eig = np.linalg.eigvalsh(info)
    return bool(eig.max() <= 0.0 or eig.min() <= 1e-10 * eig.max())


def _clustered_cov(scores: np.ndarray, cluster: np.ndarray, info: np.ndarray) -> np.ndarray:
    """The sandwich covariance of the estimate clustered by ``cluster`` (codes 0..k-1, one per row
    of ``scores``, the rows' score vectors at the estimate): info^-1 M info^-1 with M the sum over
    clusters of S_c S_c^T, S_c a cluster's summed scores, times k / (k - 1)."""
    k = int(cluster.max()) + 1
    sums = np.zeros((k, scores.shape[1]))
    np.add.at(sums, cluster, scores)
    bread = np.linalg.inv(info)
    return bread @ (sums.T @ sums * k / (k - 1)) @ bread
