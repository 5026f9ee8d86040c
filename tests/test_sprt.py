"""analysis.sprt: fishtest's GSPRT on pentanomials, checked against the formulas of Van den
Bergh's notes (independent constrained maximum likelihood, the closed-form approximations,
symmetry), and its error rates measured by simulation."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import minimize

from analysis.sprt import (MODELS, NELO_PER_NT, SCORES, bounds, decide, elo_estimate,
                           expected_pairs, llr, llr_drift, logistic_score, los, mle_expected,
                           mle_t_value, with_elo)
from analysis.sprt_simulation import simulate

SMALL = [(3, 5, 9, 6, 2), (1, 2, 4, 2, 1), (0, 4, 7, 5, 1), (10, 20, 40, 25, 12)]


def constrained_loglik(counts, constraint) -> float:
    """max sum n_i log q_i over distributions q meeting ``constraint(q) = 0``, by a general
    optimizer (SLSQP): the definition of the GLR's numerator and denominator, computed directly."""
    n = np.where(np.asarray(counts, float) == 0, 1e-3, np.asarray(counts, float))
    cons = [{"type": "eq", "fun": lambda q: q.sum() - 1}, {"type": "eq", "fun": constraint}]
    best = minimize(lambda q: -n @ np.log(q), n / n.sum(), method="SLSQP", constraints=cons,
                    bounds=[(1e-12, 1)] * 5, options={"ftol": 1e-15, "maxiter": 500})
    return -best.fun


def direct_llr(counts, elo0, elo1, model) -> float:
    def constraint(elo):
        if model == "logistic":
            return lambda q: q @ SCORES - logistic_score(elo)
        t = elo / NELO_PER_NT * math.sqrt(2)
        return lambda q: (q @ SCORES - 0.5) - t * math.sqrt(q @ (SCORES - q @ SCORES) ** 2)
    return constrained_loglik(counts, constraint(elo1)) - constrained_loglik(counts, constraint(elo0))


def test_bounds_are_walds():
    lower, upper = bounds(0.05, 0.05)
    assert lower == pytest.approx(math.log(0.05 / 0.95)) and upper == pytest.approx(math.log(19))
    lower, upper = bounds(0.01, 0.2)
    assert lower == pytest.approx(math.log(0.2 / 0.99)) and upper == pytest.approx(math.log(0.8 / 0.01))


@pytest.mark.parametrize("alpha,beta", [(0, 0.05), (1, 0.05), (0.05, -0.1), (0.6, 0.5)])
def test_bad_error_rates_are_refused(alpha, beta):
    with pytest.raises(ValueError, match="alpha|beta"):
        bounds(alpha, beta)


@pytest.mark.parametrize("elo0,elo1,model,match", [(5, 5, "normalized", "below"),
                                                  (5, 0, "logistic", "below"),
                                                  (0, 5, "bayes", "model")])
def test_bad_hypotheses_are_refused(elo0, elo1, model, match):
    with pytest.raises(ValueError, match=match):
        llr((1, 2, 3, 2, 1), elo0, elo1, model)


@pytest.mark.parametrize("bad", [(1, 2, 3), (1, 2, 3, 4, -1), "abcde"])
def test_bad_pentanomials_are_refused(bad):
    with pytest.raises(ValueError):
        llr(bad, 0, 5)


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("counts", SMALL)
def test_llr_is_the_generalized_likelihood_ratio(counts, model):
    assert llr(counts, -10, 25, model) == pytest.approx(direct_llr(counts, -10, 25, model), abs=2e-5)


def test_tilted_distributions_meet_their_constraint_and_stay_close():
    p = np.array([[0.1, 0.2, 0.35, 0.25, 0.1]])
    q = mle_expected(p, 0.55)[0]
    assert q.sum() == pytest.approx(1) and q @ SCORES == pytest.approx(0.55)
    t = mle_t_value(p, 0.3)[0]
    mu = t @ SCORES
    assert t.sum() == pytest.approx(1)
    assert (mu - 0.5) / math.sqrt(t @ (SCORES - mu) ** 2) == pytest.approx(0.3)
    # a constraint the frequencies already meet leaves them as they are
    assert mle_expected(p, p[0] @ SCORES)[0] == pytest.approx(p[0])


def test_zero_counts_become_a_thousandth():
    for model in MODELS:
        assert llr((0, 3, 5, 4, 0), 0, 10, model) == pytest.approx(llr((1e-3, 3, 5, 4, 1e-3), 0, 10, model))


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("counts", SMALL)
def test_reversing_the_bots_mirrors_the_test(counts, model):
    """The second bot's pentanomial is the first's reversed; its Elo is the negative."""
    assert llr(counts[::-1], -25, 10, model) == pytest.approx(-llr(counts, -10, 25, model), abs=1e-9)
    # the ratio of H1 to H0 is the ratio of H1 to H' times that of H' to H0
    assert llr(counts, -10, 25, model) == pytest.approx(llr(counts, -10, 5, model) + llr(counts, 5, 25, model))


@pytest.mark.parametrize("model", MODELS)
def test_the_sign_follows_the_evidence(model):
    good, even, bad = (2, 10, 30, 30, 18), (5, 20, 50, 20, 5), (18, 30, 30, 10, 2)
    assert llr(good, 0, 5, model) > 0 > llr(bad, 0, 5, model)
    assert llr(even, 0, 5, model) < 0  # no edge: evidence for elo0 against elo1 > 0
    # more of the same evidence, a larger ratio
    assert llr(np.array(good) * 4, 0, 5, model) > 2 * llr(good, 0, 5, model)
    # one more pair won twice never lowers it
    assert llr((2, 10, 30, 30, 19), 0, 5, model) > llr(good, 0, 5, model)


def test_llr_near_the_notes_approximations():
    """Large samples: the GLR is close to the notes' closed forms (GSPRT_approximation.pdf for
    the expectation, normalized_elo_practical.pdf section 4.2 for the t-value)."""
    counts = np.array([400, 1500, 2900, 1700, 500])
    p = counts / counts.sum()
    s, var = p @ SCORES, p @ (SCORES - p @ SCORES) ** 2
    s0, s1 = logistic_score(0), logistic_score(10)
    alt2 = counts.sum() * (s1 - s0) * (2 * s - s0 - s1) / var / 2
    assert llr(counts, 0, 10, "logistic") == pytest.approx(alt2, rel=0.02)
    nt, nt0, nt1 = (s - 0.5) / math.sqrt(2 * var), 0, 10 / NELO_PER_NT
    alt = counts.sum() * math.log((1 + (nt - nt0) ** 2) / (1 + (nt - nt1) ** 2))  # games/2 = pairs
    assert llr(counts, 0, 10, "normalized") == pytest.approx(alt, rel=0.02)


def test_elo_estimates():
    even = (5, 20, 50, 20, 5)
    for model in MODELS:
        e = elo_estimate(even, model)
        assert e.elo == pytest.approx(0, abs=1e-9) and e.low == pytest.approx(-e.high)
        assert e.low < 0 < e.high
    assert los(even) == pytest.approx(0.5)
    good = (2, 10, 30, 30, 18)
    e = elo_estimate(good, "logistic")
    mu = np.array(good) @ SCORES / sum(good)
    assert e.elo == pytest.approx(-400 * math.log10(1 / mu - 1)) and e.low < e.elo < e.high
    assert los(good) > 0.99 and los(good[::-1]) < 0.01
    # four times the pairs: an interval about half as wide
    wide, narrow = elo_estimate(good, "normalized"), elo_estimate(np.array(good) * 4, "normalized")
    assert (narrow.high - narrow.low) == pytest.approx((wide.high - wide.low) / 2, rel=0.05)


def test_a_sweep_has_no_finite_elo():
    """38 pairs of two wins: the 1e-3 regularization alone used to set +17,487 normalized Elo."""
    for model in MODELS:
        up, down = elo_estimate((0, 0, 0, 0, 38), model), elo_estimate((38, 0, 0, 0, 0), model)
        assert up.unbounded and up.elo == math.inf and up.high == math.inf and math.isnan(up.low)
        assert down.unbounded and down.elo == -math.inf and down.low == -math.inf
        assert "unbounded above" in up.text() and "unbounded below" in down.text()
    # normalized Elo is a t-value: a win and a draw in every pair has no spread either
    assert elo_estimate((0, 0, 0, 12, 0), "normalized").unbounded
    logistic = elo_estimate((0, 0, 0, 12, 0), "logistic")  # a score of 3/4: finite
    assert not logistic.unbounded  # (the 1e-3 regularization moves it a little, as in fishtest)
    assert logistic.elo == pytest.approx(-400 * math.log10(1 / 0.75 - 1), rel=1e-3)
    assert not elo_estimate((0, 0, 12, 0, 0), "normalized").unbounded  # all even: 0
    near = elo_estimate((0, 0, 0, 1, 37), "normalized")  # one pair of spread: finite, large
    assert not near.unbounded and 500 < near.low < near.elo < near.high < 5000


def test_with_elo_gives_that_elo():
    base = [0.1, 0.2, 0.4, 0.2, 0.1]
    q = with_elo(base, 30, "logistic")
    assert q @ SCORES == pytest.approx(logistic_score(30))
    q = with_elo(base, 30, "normalized")
    mu = q @ SCORES
    assert (mu - 0.5) / math.sqrt(2 * q @ (SCORES - mu) ** 2) * NELO_PER_NT == pytest.approx(30)


def test_decide_stops_at_the_first_crossing_in_order():
    rng = np.random.default_rng(1)
    cells = rng.choice(5, size=3000, p=with_elo([0.1, 0.2, 0.4, 0.2, 0.1], 40, "logistic"))
    d = decide(cells, 0, 40, model="logistic")
    assert d.verdict == "H1" and 0 < d.pairs < 3000 and sum(d.pentanomial) == d.pairs
    assert d.llr == pytest.approx(llr(d.pentanomial, 0, 40, "logistic"))
    lower, upper = bounds()
    assert all(lower < llr(np.bincount(cells[:k], minlength=5), 0, 40, "logistic") < upper
               for k in range(1, d.pairs, max(1, d.pairs // 20)))
    assert decide(cells, 0, 40, model="logistic") == d  # the same pairs, the same decision
    short = decide(cells, 0, 40, model="logistic", max_pairs=d.pairs - 1)
    assert short.verdict == "undecided" and short.pairs == d.pairs - 1
    assert decide([], 0, 5).verdict == "undecided"


@pytest.mark.parametrize("model", MODELS)
def test_error_rates_by_simulation(model):
    """500 tests at the true elo0 accept H1 at most alpha (plus 3 standard errors) of the time,
    500 at elo1 accept H0 at most beta (plus 3 standard errors); the mean length is near the
    Brownian approximation of ``expected_pairs``."""
    base, elo0, elo1 = [0.1, 0.2, 0.4, 0.2, 0.1], 0.0, 40.0
    at0 = simulate(base, elo0, elo0, elo1, model=model, tests=500, seed=1)
    at1 = simulate(base, elo1, elo0, elo1, model=model, tests=500, seed=2)
    assert at0.h1 <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 500)
    assert at1.h0 <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 500)
    assert at0.undecided == at1.undecided == 0
    for sim in (at0, at1):
        predicted = expected_pairs(with_elo(base, sim.elo, model), elo0, elo1, model=model)
        assert 0.7 * predicted < sim.mean_pairs < 1.4 * predicted


def test_drift_is_signed_by_the_truth():
    base = [0.1, 0.2, 0.4, 0.2, 0.1]
    for model in MODELS:
        assert llr_drift(with_elo(base, 0, model), 0, 10, model)[0] < 0
        assert llr_drift(with_elo(base, 10, model), 0, 10, model)[0] > 0


# ---------------------------------------------------------------- bounds no distribution can meet
def fishtest_secular(a, p) -> float:
    """fishtest's ``secular``: the root of ``sum p_i a_i / (1 + x a_i) = 0`` between the poles,
    by Brent's method; it asserts ``min(a) * max(a) < 0`` (AssertionError otherwise). The bracket
    is kept off the poles by a relative margin (fishtest's absolute 1e-9 is lost in rounding
    once a pole passes 1e7, as it does for logistic bounds of a few thousand Elo)."""
    from scipy.optimize import brentq

    assert min(a) * max(a) < 0
    lo, hi = -1 / max(a), -1 / min(a)
    return brentq(lambda x: sum(pi * ai / (1 + x * ai) for ai, pi in zip(a, p)),
                  lo + 1e-12 * abs(lo), hi - 1e-12 * abs(hi))


def fishtest_mle(p, elo, model):
    """fishtest's ``MLE_expected`` (logistic) or ``MLE_tvalue`` (normalized: the fixed point from
    the uniform, at most 10 steps, to 1e-9), written as scalar Python from the notes."""
    a_hat = [float(x) for x in SCORES]
    if model == "logistic":
        s = 1 / (1 + 10 ** (-elo / 400))
        a = [ai - s for ai in a_hat]
        x = fishtest_secular(a, p)
        return [pi / (1 + x * ai) for ai, pi in zip(a, p)]
    t = elo / (800 / math.log(10)) * math.sqrt(2)
    q = [0.2] * 5
    for _ in range(10):
        mu = sum(qi * ai for qi, ai in zip(q, a_hat))
        sigma = math.sqrt(sum(qi * (ai - mu) ** 2 for qi, ai in zip(q, a_hat)))
        a = [ai - 0.5 - t * sigma * (1 + ((mu - ai) / sigma) ** 2) / 2 for ai in a_hat]
        x = fishtest_secular(a, p)
        new = [pi / (1 + x * ai) for ai, pi in zip(a, p)]
        done = max(abs(u - v) for u, v in zip(new, q)) < 1e-9
        q = new
        if done:
            break
    return q


def fishtest_llr(counts, elo0, elo1, model):
    n = [c if c else 1e-3 for c in counts]
    p = [c / sum(n) for c in n]
    p0, p1 = fishtest_mle(p, elo0, model), fishtest_mle(p, elo1, model)
    return sum(c * (math.log(b) - math.log(a)) for c, a, b in zip(n, p0, p1))


@pytest.mark.parametrize("model,elo", [("normalized", 231.6), ("normalized", -231.6), ("normalized", 150),
                                       ("logistic", 6381), ("logistic", -6381), ("logistic", 800)])
def test_bounds_up_to_the_limit_give_fishtests_llr(model, elo):
    """Inside the limit every pentanomial has fishtest's LLR (computed by its own scalar steps)."""
    from analysis.sprt import ELO_LIMITS

    assert abs(elo) < ELO_LIMITS[model]
    lo, hi = sorted((0.0, float(elo)))
    for counts in SMALL + [(0, 0, 0, 0, 9), (9, 0, 0, 0, 0), (0, 3, 0, 4, 0), (1, 0, 0, 0, 30)]:
        assert llr(counts, lo, hi, model) == pytest.approx(fishtest_llr(counts, lo, hi, model), rel=1e-6, abs=1e-6)


@pytest.mark.parametrize("model,elo", [("normalized", 231.7), ("normalized", 250), ("normalized", 300),
                                       ("normalized", 600), ("normalized", 5000), ("normalized", -300),
                                       ("logistic", 6382), ("logistic", 1e5), ("logistic", -1e5)])
def test_bounds_no_distribution_can_meet_are_refused_by_name(model, elo):
    """fishtest's formulas fail on such a hypothesis (their ``secular`` asserts) whatever the
    pairs, or on its mirror (the bots swapped: -elo); the test refuses it when it is set up,
    naming the bound and the limit."""
    with pytest.raises(AssertionError):
        fishtest_llr((1, 2, 3, 2, 1), 0.0, abs(elo), model)
    elo0, elo1 = (elo, 0.0) if elo < 0 else (0.0, elo)
    with pytest.raises(ValueError, match=rf"{'elo0' if elo < 0 else 'elo1'} .*beyond.*below"):
        llr((1, 2, 3, 2, 1), elo0, elo1, model)
