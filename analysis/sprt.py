"""Sequential A/B tests of two bots on paired deals: fishtest's generalized SPRT (SPEC 6).

A *pair* is one deal played twice with the seats swapped. The first bot's points in a pair
(1 a win, 1/2 a shared first place, 0 a loss, summed over the two games) are 0, 1/2, 1, 3/2 or
2; the *pentanomial* counts the pairs of each kind. Pairs cancel most of a deal's luck, and the
pentanomial keeps the correlation of a pair's two games that a count of games would ignore.

The statistics are those of the chess-engine testing framework fishtest, derived from Michel
Van den Bergh's notes (docs/sprt.md has the formulas and the references):

- the generalized log-likelihood ratio (GLR) of the multinomial of pair outcomes: the observed
  frequencies ``p^`` are tilted to the maximum-likelihood distributions ``p0`` and ``p1`` that
  satisfy each hypothesis, and ``LLR = sum_i n_i log(p1_i / p0_i)``;
- ``model="logistic"``: the hypotheses fix the expected score per game
  ``s = 1 / (1 + 10^(-elo/400))`` ("expectation" statistic, fishtest ``LLR_logistic``); the
  tilt is ``p_i = p^_i / (1 + x (a_i - s))`` with ``x`` solving ``sum p_i a_i = s``;
- ``model="normalized"``: the hypotheses fix the t-value ``(mu - 1/2) / sigma`` of a pair's
  mean score, with normalized Elo ``nelo = t_game * 800 / ln 10`` ("t-value" statistic, fishtest
  ``LLR_normalized``); the tilt is found by a fixed-point iteration;
- zero counts are replaced by 1e-3 (fishtest's regularization) before anything else.

Every function takes counts as a sequence of five numbers, or ``*_many`` a NumPy (m, 5) array
(one test per row: what the simulation in analysis/sprt_simulation.py needs).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

MODELS = ("normalized", "logistic")
VERDICTS = ("H1", "H0", "undecided")
PAIR_POINTS = (0.0, 0.5, 1.0, 1.5, 2.0)  # the first bot's points in a pair, per pentanomial cell
SCORES = np.array(PAIR_POINTS) / 2  # a pair's mean score per game, 0..1
NELO_PER_NT = 800 / math.log(10)  # normalized Elo per unit of t-value per game
EPSILON = 1e-3  # what a zero count becomes (fishtest's ``regularize``)
Z95 = 1.959963984540054
# The largest |elo| a hypothesis may take in each model: beyond it fishtest's maximum-likelihood
# step has no solution for any pentanomial (its ``secular`` asserts ``min(a) * max(a) < 0``).
# Normalized: the tilt starts from the uniform distribution (mu 1/2, sigma sqrt(1/8)), whose
# best outcome's coefficient 1/2 - t sigma (1 + (1/2 / sigma)^2) / 2 = 1/2 - 3 t / (4 sqrt 2) is
# positive only for a pair t-value t below 2 sqrt(2) / 3: normalized Elo (2 / 3) 800 / ln 10.
# Logistic: the expected score 1 / (1 + 10^(-elo / 400)) rounds to 1 in floating point beyond
# (1 + 10^(-elo / 400) == 1 once 10^(-elo / 400) <= eps / 2). Both are symmetric: a test of A
# against B with [elo0, elo1] is the test of B against A with [-elo1, -elo0].
ELO_LIMITS = {"normalized": 2 / 3 * NELO_PER_NT,
              "logistic": 400 * math.log10(2 / np.finfo(float).eps)}
LIMIT_WHY = {"normalized": "fishtest's maximum likelihood under the hypothesis has no solution "
                           "beyond; --model logistic takes larger differences",
             "logistic": "the expected score per game rounds to 1 (or 0) beyond"}


# ---------------------------------------------------------------- checks
def check_hypotheses(elo0: float, elo1: float, model: str = "normalized") -> None:
    """A ValueError in one line when the two hypotheses or the model cannot make a test."""
    if model not in MODELS:
        raise ValueError(f"model must be one of {', '.join(MODELS)}, not {model!r}")
    if not (math.isfinite(elo0) and math.isfinite(elo1)):
        raise ValueError(f"elo0 and elo1 must be finite numbers, not {elo0} and {elo1}")
    if elo0 >= elo1:
        raise ValueError(f"elo0 must be below elo1 (H0: elo = elo0 against H1: elo = elo1), "
                         f"not {elo0} and {elo1}")
    limit = ELO_LIMITS[model]
    for name, elo in (("elo0", elo0), ("elo1", elo1)):
        if not abs(elo) < limit:
            raise ValueError(f"{name} {elo:g} is beyond what a test in {model} Elo can ask: |elo| must be "
                             f"below {limit:.1f} ({LIMIT_WHY[model]})")


def bounds(alpha: float = 0.05, beta: float = 0.05) -> tuple[float, float]:
    """Wald's stopping bounds ``(ln(beta / (1 - alpha)), ln((1 - beta) / alpha))``: the test
    accepts H0 at or below ``lower``, H1 at or above ``upper``."""
    for name, value in (("alpha", alpha), ("beta", beta)):
        if not 0 < value < 1:
            raise ValueError(f"{name} must be between 0 and 1 (exclusive), not {value}")
    if alpha + beta >= 1:
        raise ValueError(f"alpha + beta must be below 1, not {alpha} + {beta}")
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def _counts(pentanomial) -> np.ndarray:
    counts = np.asarray(pentanomial, dtype=float)
    if counts.shape[-1:] != (5,):
        raise ValueError(f"a pentanomial is five counts (pairs scoring 0, 1/2, 1, 3/2, 2), "
                         f"not {np.asarray(pentanomial).tolist()!r}")
    if not np.all(np.isfinite(counts)) or np.any(counts < 0):
        raise ValueError(f"pentanomial counts must be 0 or more, not {counts.tolist()!r}")
    return counts


def regularize(counts: np.ndarray) -> np.ndarray:
    """Zero counts replaced by 1e-3, as fishtest does, so every cell has a probability."""
    return np.where(counts == 0, EPSILON, counts)


# ---------------------------------------------------------------- the tilted distributions
def _secular(a: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Per row, the root ``x`` of ``sum_i p_i a_i / (1 + x a_i) = 0`` between the poles
    ``-1 / max(a)`` and ``-1 / min(a)`` (safeguarded Newton; the sum falls as ``x`` grows).
    Rows leave the loop as they converge: a root near a pole (a rare outcome not yet seen) takes
    a few dozen steps, the others a handful."""
    a, p = np.broadcast_arrays(a, p)
    shape = a.shape[:-1]
    a, p = a.reshape(-1, a.shape[-1]), p.reshape(-1, p.shape[-1])
    if np.any(~(a.min(axis=-1) < 0) | ~(a.max(axis=-1) > 0)):
        raise ValueError("the constraint lies outside the outcomes' range: no distribution meets it")
    lo, hi = -1.0 / a.max(axis=-1), -1.0 / a.min(axis=-1)
    x = np.zeros(len(a))
    rows = np.arange(len(a))
    for _ in range(200):
        aa, pp, xx = a[rows], p[rows], x[rows]
        d = 1.0 + xx[:, None] * aa
        f = np.sum(pp * aa / d, axis=-1)
        fp = -np.sum(pp * aa * aa / (d * d), axis=-1)
        lo[rows] = np.where(f > 0, xx, lo[rows])  # f > 0: the root is to the right
        hi[rows] = np.where(f < 0, xx, hi[rows])
        new = xx - f / fp
        new = np.where((new > lo[rows]) & (new < hi[rows]), new, (lo[rows] + hi[rows]) / 2)
        going = (f != 0) & (np.abs(new - xx) > 1e-14 * (1.0 + np.abs(xx)))
        x[rows] = np.where(going, new, xx)
        rows = rows[going]
        if not rows.size:
            break
    return x.reshape(shape)


def mle_expected(p: np.ndarray, s) -> np.ndarray:
    """The distribution on the pentanomial's scores closest to ``p`` (maximum likelihood of the
    observed frequencies ``p``) whose expected score per game is ``s``."""
    s = np.asarray(s, dtype=float)[..., None]
    a = SCORES - s
    x = _secular(np.broadcast_to(a, p.shape), p)
    return p / (1.0 + x[..., None] * a)


def mle_t_value(p: np.ndarray, t, ref: float = 0.5) -> np.ndarray:
    """The maximum-likelihood distribution given frequencies ``p`` whose pair-score t-value
    ``(mu - ref) / sigma`` is ``t`` (fishtest ``MLE_t_value``: a fixed point, from the uniform)."""
    p = np.asarray(p, dtype=float)
    t = np.broadcast_to(np.asarray(t, dtype=float), p.shape[:-1])
    q = np.full(p.shape, 1.0 / p.shape[-1])
    rows = np.arange(len(p))
    for _ in range(50):
        qq, tt = q[rows], t[rows, None]
        mu = np.sum(qq * SCORES, axis=-1, keepdims=True)
        sigma = np.sqrt(np.sum(qq * (SCORES - mu) ** 2, axis=-1, keepdims=True))
        a = SCORES - ref - tt * sigma * (1 + ((mu - SCORES) / sigma) ** 2) / 2
        new = p[rows] / (1.0 + _secular(a, p[rows])[:, None] * a)
        q[rows] = new
        rows = rows[np.max(np.abs(new - qq), axis=-1) >= 1e-12]
        if not rows.size:
            break
    return q


def _tilted(p: np.ndarray, elo, model: str) -> np.ndarray:
    if model == "logistic":
        return mle_expected(p, logistic_score(elo))
    return mle_t_value(p, np.asarray(elo, dtype=float) / NELO_PER_NT * math.sqrt(2))


def logistic_score(elo):
    """The expected score per game of a logistic Elo difference."""
    return 1.0 / (1.0 + 10.0 ** (-np.asarray(elo, dtype=float) / 400.0))


# ---------------------------------------------------------------- the log-likelihood ratio
def llr_many(counts: np.ndarray, elo0: float, elo1: float, model: str = "normalized") -> np.ndarray:
    """``llr`` of each row of an (m, 5) array of pentanomials."""
    check_hypotheses(elo0, elo1, model)
    n = regularize(_counts(counts))
    p = n / n.sum(axis=-1, keepdims=True)
    p0, p1 = _tilted(p, elo0, model), _tilted(p, elo1, model)
    return np.sum(n * (np.log(p1) - np.log(p0)), axis=-1)


def llr(pentanomial, elo0: float, elo1: float, model: str = "normalized") -> float:
    """fishtest's generalized log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``) for a
    pentanomial (pairs in which the first bot scored 0, 1/2, 1, 3/2, 2 points); ``model`` says
    which Elo the hypotheses are in: ``"normalized"`` (``LLR_normalized``) or ``"logistic"``
    (``LLR_logistic``)."""
    counts = _counts(pentanomial)
    if counts.ndim != 1:
        raise ValueError("llr takes one pentanomial; llr_many takes an (m, 5) array")
    return float(llr_many(counts[None, :], elo0, elo1, model)[0])


def verdict(value: float, lower: float, upper: float) -> str:
    """``H1`` at or above ``upper``, ``H0`` at or below ``lower``, else ``undecided``."""
    return "H1" if value >= upper else "H0" if value <= lower else "undecided"


# ---------------------------------------------------------------- estimates
@dataclass(frozen=True)
class Estimate:
    """The Elo difference of the first bot over the second, with its interval, in one model.
    ``unbounded``: the pairs set no finite estimate (every pair in one cell that the model puts
    at infinite Elo: a sweep, or for normalized Elo any outcome with no spread but an even
    score); then ``elo`` is +-inf, the interval's far end too, and its near end NaN."""
    model: str
    elo: float
    low: float
    high: float
    unbounded: bool = False

    def text(self, digits: int = 1) -> str:
        """``+241.0 (95% +176.0 to +306.0)``, or ``unbounded above`` (below) for a sweep."""
        if self.unbounded:
            return f"unbounded {'above' if self.elo > 0 else 'below'} (every pair alike)"
        return f"{self.elo:+.{digits}f} (95% {self.low:+.{digits}f} to {self.high:+.{digits}f})"


def _moments(counts: np.ndarray) -> tuple[float, float, float]:
    n = regularize(counts)
    total = float(n.sum())
    p = n / total
    mu = float(p @ SCORES)
    return total, mu, float(p @ (SCORES - mu) ** 2)


def logistic_elo(score: float) -> float:
    """The logistic Elo difference of an expected score per game (+-inf at 1 and 0)."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def elo_estimate(pentanomial, model: str = "normalized", level: float = 0.95) -> Estimate:
    """The Elo difference a pentanomial shows and its ``level`` interval (normal, on the pairs'
    mean score: ``mu +- z sqrt(var / pairs)``, mapped to Elo): logistic Elo
    ``-400 log10(1/mu - 1)``, or normalized Elo ``(mu - 1/2) / sqrt(2 var) * 800 / ln 10``."""
    if model not in MODELS:
        raise ValueError(f"model must be one of {', '.join(MODELS)}, not {model!r}")
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, not {level}")
    from scipy.stats import norm

    counts = _counts(pentanomial)
    seen = np.flatnonzero(counts)
    alone = int(seen[0]) if len(seen) == 1 else None  # every pair in one cell
    if alone in ((0, 4) if model == "logistic" else (0, 1, 3, 4)):
        # No spread to measure: the 1e-3 regularization would set the Elo (+17,487 for 38
        # pairs of 2 wins in normalized Elo), not the games.
        sign = 1.0 if alone > 2 else -1.0
        return Estimate(model, sign * math.inf, -math.inf if sign < 0 else math.nan,
                        math.inf if sign > 0 else math.nan, unbounded=True)
    total, mu, var = _moments(counts)
    half = float(norm.ppf((1 + level) / 2)) * math.sqrt(var / total)
    if model == "logistic":
        to_elo = logistic_elo
    else:
        def to_elo(m):
            return (m - 0.5) / math.sqrt(2 * var) * NELO_PER_NT
    return Estimate(model, to_elo(mu), to_elo(mu - half), to_elo(mu + half))


def los(pentanomial) -> float:
    """The likelihood of superiority: the probability that the first bot is the stronger,
    ``Phi((mu - 1/2) / sqrt(var / pairs))``."""
    from scipy.stats import norm

    total, mu, var = _moments(_counts(pentanomial))
    return float(norm.cdf((mu - 0.5) / math.sqrt(var / total)))


def llr_drift(probabilities, elo0: float, elo1: float, model: str = "normalized") -> tuple[float, float]:
    """The mean and variance of one pair's step of the LLR when the pairs follow
    ``probabilities`` (five, summing to 1): the steps ``log(p1_i / p0_i)`` with ``p0``, ``p1``
    the hypotheses' tilts of the true distribution."""
    check_hypotheses(elo0, elo1, model)
    p = regularize(_counts(probabilities))[None, :]
    p = p / p.sum()
    jumps = np.log(_tilted(p, elo1, model)) - np.log(_tilted(p, elo0, model))
    mean = float(p[0] @ jumps[0])
    return mean, float(p[0] @ (jumps[0] - mean) ** 2)


def expected_pairs(probabilities, elo0: float, elo1: float, alpha: float = 0.05,
                   beta: float = 0.05, model: str = "normalized") -> float:
    """The expected number of pairs the test takes when pairs follow ``probabilities``: the LLR
    as a Brownian motion with the pairs' drift and variance, stopped at ``bounds``."""
    lower, upper = bounds(alpha, beta)
    mu, var = llr_drift(probabilities, elo0, elo1, model)
    if abs(mu) * (upper - lower) < 1e-9 * var:  # no drift: the mean exit time of a random walk
        return -lower * upper / var
    k = -2.0 * mu / var
    hit_upper = (1 - math.exp(k * lower)) / (math.exp(k * upper) - math.exp(k * lower))
    return (hit_upper * upper + (1 - hit_upper) * lower) / mu


def with_elo(probabilities, elo: float, model: str = "normalized") -> np.ndarray:
    """The distribution closest to ``probabilities`` (five) whose Elo in ``model`` is ``elo``:
    pentanomials of known strength, for simulations."""
    if model not in MODELS:
        raise ValueError(f"model must be one of {', '.join(MODELS)}, not {model!r}")
    p = regularize(_counts(probabilities))[None, :]
    return _tilted(p / p.sum(), elo, model)[0]


# ---------------------------------------------------------------- a sequence of pairs
@dataclass(frozen=True)
class Decision:
    """Where a test stands after ``pairs`` pairs taken in order: the verdict, the LLR then, and
    the pentanomial of those pairs."""
    verdict: str
    pairs: int
    llr: float
    pentanomial: tuple[int, int, int, int, int]


def decide(cells, elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05,
           model: str = "normalized", max_pairs: int | None = None, start: int = 0) -> Decision:
    """Run the test on pairs in their order (``cells``: each pair's pentanomial cell, 0..4):
    stop at the first pair after which the LLR leaves the bounds. ``undecided`` when the pairs
    (or ``max_pairs`` of them) run out first. The same pairs in the same order give the same
    decision, however they were played. ``start``: the first ``start`` pairs are known to stay
    inside the bounds (an earlier call said so), so only the later ones are checked."""
    lower, upper = bounds(alpha, beta)
    check_hypotheses(elo0, elo1, model)
    cells = np.asarray(cells, dtype=np.int64).reshape(-1)
    if cells.size and (cells.min() < 0 or cells.max() > 4):
        raise ValueError("a pair's cell is 0..4 (the first bot's points in the pair, times 2)")
    if max_pairs is not None:
        cells = cells[:max_pairs]
    if cells.size == 0:
        return Decision("undecided", 0, 0.0, (0, 0, 0, 0, 0))
    cumulative = np.cumsum(np.eye(5, dtype=np.int64)[cells], axis=0)
    start = min(max(start, 0), len(cells) - 1)
    values = llr_many(cumulative[start:], elo0, elo1, model)
    out = np.flatnonzero((values >= upper) | (values <= lower))
    at = start + (int(out[0]) if out.size else len(values) - 1)
    value = float(values[at - start])
    return Decision(verdict(value, lower, upper), at + 1, value,
                    tuple(int(c) for c in cumulative[at]))
