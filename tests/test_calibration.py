"""analysis.calibration (issue 45, item 2): the conditional logit recovers the ``a`` planted in
synthetic games at 2, 3 and 4 players, with intervals clustered by game; a map fitted on one set
of games passes the check on another, the squeezed map fails it; fractional outcomes, bad input
and the map's JSON."""
from __future__ import annotations

import json
import math

import numpy as np
import polars as pl
import pytest

from analysis.calibration import (FORMAT, CalibrationMap, check, fit, logit, reliability, squeezed,
                                  synthetic_positions)
from analysis.stats import Z95

A_TRUE = {2: 0.7, 3: 1.0, 4: 1.3}  # planted per player count: values too confident, right, too timid


def rows_of(game, position, value, won) -> dict[str, np.ndarray]:
    """Rows as ``fit`` reads them."""
    return {"game": np.asarray(game), "position": np.asarray(position), "value": np.asarray(value, float),
            "won": np.asarray(won, float)}


def held_out(players: int, games: int = 2000):
    """A map fitted on one set of synthetic games and a second, independent set (its own seed)."""
    train = synthetic_positions(players, games, 5, A_TRUE[players], seed=10 + players)
    test = synthetic_positions(players, games, 5, A_TRUE[players], seed=20 + players)
    return fit(train), test


@pytest.mark.parametrize("players", [2, 3, 4])
def test_fit_recovers_the_planted_a(players):
    rows = synthetic_positions(players, 2000, 5, A_TRUE[players], seed=players)
    m = fit(rows)
    assert (m.players, m.positions, m.games) == (players, 10_000, 2000)
    assert m.a_low < A_TRUE[players] < m.a_high
    assert abs(m.a - A_TRUE[players]) < 0.1 * A_TRUE[players]
    assert m.a_high - m.a_low < 0.2 * A_TRUE[players]


def test_clustered_interval_covers_where_the_naive_one_does_not():
    """40 small synthetic sets of 10 positions a game: the interval clustered by game covers the
    planted a about 95% of the time; treating each position as its own game (the naive interval)
    is sqrt(10) times too narrow here, and covers about half the time."""
    covered = naive_covered = 0
    for seed in range(40):
        rows = synthetic_positions(3, 150, 10, A_TRUE[3], seed)
        m, naive = fit(rows), fit({**rows, "game": rows["position"]})
        assert naive.a == pytest.approx(m.a)
        assert m.a_high - m.a_low > 2.5 * (naive.a_high - naive.a_low)
        covered += m.a_low <= A_TRUE[3] <= m.a_high
        naive_covered += naive.a_low <= A_TRUE[3] <= naive.a_high
    assert covered >= 35
    assert naive_covered <= 28


@pytest.mark.parametrize("players", [2, 3, 4])
def test_held_out_check_passes_and_the_squeezed_map_fails(players):
    m, test = held_out(players)
    p = m.apply_rows(test)
    good = check(p, test["won"], test["game"])
    assert good.passed, good
    assert good.beta_low <= 1.0 <= good.beta_high and good.alpha_low <= 0.0 <= good.alpha_high
    assert good.p_value > 0.05
    assert (good.rows, good.games) == (len(p), 2000)
    bad = check(squeezed(p, 0.5, players), test["won"], test["game"])
    assert not bad.passed
    assert bad.beta_low > 1.0  # too timid: the outcomes follow the probabilities more steeply
    assert bad.p_value < 1e-6
    assert good.brier < bad.brier  # the Brier score is proper: the calibrated map scores better
    assert good.df == bad.df == 1  # whole positions: alpha follows beta


def test_the_true_map_passes_the_clustered_check_about_95_in_100():
    """The check's size: 40 sets of 200 games with 10 positions each, checked with the planted map
    itself. Clustered by game it passes about 95% of them; with each row its own game (the naive
    test) it fails about half, its intervals too narrow."""
    true = CalibrationMap(a=1.0, a_low=1.0, a_high=1.0, players=4, positions=1, games=2)
    passed = naive_passed = 0
    for seed in range(40):
        rows = synthetic_positions(4, 200, 10, 1.0, seed=100 + seed)
        p = true.apply_rows(rows)
        passed += check(p, rows["won"], rows["game"]).passed
        naive_passed += check(p, rows["won"], np.arange(len(p))).passed
    assert passed >= 35
    assert naive_passed <= 25


@pytest.mark.parametrize("players", [2, 3])
def test_whole_positions_tie_alpha_to_beta(players):
    """Rows holding every seat of their positions: the outcomes sum as the probabilities do, so
    alpha follows beta (its interval is beta's times sum w x / sum w, w = mu (1 - mu)) and the
    test is of the slope alone; at 2 players alpha is 0 exactly. Rows of one seat per position
    are not tied: alpha has its own interval and the test 2 degrees of freedom."""
    m, test = held_out(players, games=500)
    p = m.apply_rows(test)
    c = check(p, test["won"], test["game"])
    assert c.df == 1
    assert c.chi2 == pytest.approx(((c.beta - 1) / ((c.beta_high - c.beta_low) / 2 / Z95)) ** 2)
    assert c.p_value == pytest.approx(math.erfc(math.sqrt(c.chi2 / 2)))
    mu = 1 / (1 + np.exp(-(c.alpha + c.beta * logit(p))))
    w = mu * (1 - mu)
    slope = abs((w * logit(p)).sum() / w.sum())
    assert c.alpha_high - c.alpha_low == pytest.approx(slope * (c.beta_high - c.beta_low), rel=1e-6, abs=1e-12)
    if players == 2:
        assert (c.alpha, c.alpha_low, c.alpha_high) == (0.0, 0.0, 0.0)
    else:
        assert slope > 0.1
    one = np.arange(len(p)) % players == 0
    c = check(p[one], test["won"][one], test["game"][one])
    assert c.df == 2 and c.alpha_high - c.alpha_low > 0.05
    assert c.p_value == pytest.approx(math.exp(-c.chi2 / 2))


@pytest.mark.parametrize("players", [3, 4])
def test_probabilities_of_a_position_sum_to_one(players):
    m, test = held_out(players, games=200)
    p = m.apply(test["value"].reshape(-1, players))
    assert np.allclose(p.sum(axis=1), 1.0) and (p > 0).all()
    # the rows in any order give each row its own seat's probability
    shuffle = np.random.default_rng(0).permutation(len(test["value"]))
    shuffled = {k: v[shuffle] for k, v in test.items()}
    by_row = m.apply_rows(shuffled)
    assert np.allclose(by_row, p.ravel()[shuffle])
    sums = np.bincount(shuffled["position"], by_row)
    assert np.allclose(sums, 1.0)
    assert np.allclose(squeezed(p, 0.5).sum(axis=1), 1.0)


def test_the_map_is_the_softmax_of_a_times_the_logits():
    """With a = 1 a seat's probability is proportional to its odds v / (1 - v); a = 0 is uniform;
    values of 0 and 1 are clipped, not refused."""
    v = np.array([0.9, 0.5, 0.2])
    one = CalibrationMap(a=1.0, a_low=0.9, a_high=1.1, players=3, positions=1, games=2)
    odds = v / (1 - v)
    assert np.allclose(one.apply(v), odds / odds.sum())
    assert np.allclose(CalibrationMap(0.0, -0.1, 0.1, 3, 1, 2).apply(v), 1 / 3)
    two = CalibrationMap(a=2.0, a_low=1.9, a_high=2.1, players=3, positions=1, games=2)
    assert np.allclose(two.apply(v), odds ** 2 / (odds ** 2).sum())
    edge = one.apply([1.0, 0.0, 0.5])
    assert np.isfinite(edge).all() and edge[0] == pytest.approx(1.0, abs=1e-3)
    assert np.allclose(logit([0.0, 1.0]), [-logit(1.0), logit(1.0)]) and np.isfinite(logit([0.0, 1.0])).all()
    with pytest.raises(ValueError, match="3 per position"):
        one.apply([0.5, 0.5])


def test_fractional_outcomes_weigh_as_shares():
    """A first place shared by two seats (1/2 each) fits as two copies of the position, one won by
    each: the quasi-likelihood is linear in the outcomes. So does the check's regression."""
    rng = np.random.default_rng(3)
    values = rng.uniform(0.05, 0.95, (400, 3))
    winner = rng.integers(0, 3, 400)
    won = np.eye(3)[winner]
    won[:50] = 0.0
    won[:50, 0] = won[:50, 1] = 0.5
    game = np.repeat(np.arange(100), 4)
    shared = rows_of(np.repeat(game, 3), np.repeat(np.arange(400), 3), values.ravel(), won.ravel())
    first, second = won.copy(), won.copy()  # the shared places given to seat 0, then to seat 1
    first[:50], second[:50] = np.eye(3)[0], np.eye(3)[1]
    doubled = rows_of(np.tile(np.repeat(game, 3), 2), np.repeat(np.arange(800), 3),
                      np.tile(values.ravel(), 2), np.concatenate([first.ravel(), second.ravel()]))
    assert fit(shared).a == pytest.approx(fit(doubled).a, rel=1e-6)
    assert fit(shared).a != pytest.approx(fit({**shared, "won": first.ravel()}).a, rel=1e-3)
    p = fit(shared).apply(values).ravel()
    half = check(p, won.ravel(), np.repeat(game, 3))
    whole = check(np.tile(p, 2), np.concatenate([np.ceil(won.ravel()), np.floor(won.ravel())]),
                  np.tile(np.repeat(game, 3), 2))
    assert (half.alpha, half.beta) == pytest.approx((whole.alpha, whole.beta), rel=1e-6, abs=1e-9)


def test_check_is_wider_clustered_than_naive():
    m, test = held_out(4, games=500)
    p = m.apply_rows(test)
    clustered = check(p, test["won"], test["game"])
    naive = check(p, test["won"], np.arange(len(p)))  # each row its own game
    assert naive.beta == pytest.approx(clustered.beta)
    assert clustered.beta_high - clustered.beta_low > 2 * (naive.beta_high - naive.beta_low)
    assert clustered.alpha_high - clustered.alpha_low > 1.5 * (naive.alpha_high - naive.alpha_low)


def test_reliability_table():
    m, test = held_out(3)
    p = m.apply_rows(test)
    t = reliability(p, test["won"], test["game"])
    assert t["count"].sum() == len(p)
    assert t["bin"].is_sorted() and t["bin"].n_unique() == t.height
    assert ((t["predicted"] >= t["bin"]) & (t["predicted"] < t["bin"] + 0.1)).all()
    assert ((t["low"] <= t["observed"]) & (t["observed"] <= t["high"])).all()
    big = t.filter(t["count"] > 2000)
    assert (abs(big["observed"] - big["predicted"]) < 0.03).all()
    # the squeezed probabilities sit in the middle bins and under-promise in the top one
    s = reliability(squeezed(p, 0.5, 3), test["won"], test["game"])
    top = s.row(-1, named=True)
    assert s["bin"].max() < t["bin"].max() and top["low"] > top["predicted"]


def test_bad_input_is_refused_naming_what_is_wrong():
    good = rows_of([0, 0, 1, 1], [0, 0, 1, 1], [0.6, 0.4, 0.3, 0.7], [1, 0, 0, 1])

    def refused(match, **change):
        with pytest.raises(ValueError, match=match):
            fit({**good, **{k: np.asarray(v) for k, v in change.items()}})
    refused("none", game=[], position=[], value=[], won=[])
    refused("do not sum to 1", won=[1, 0, 0.5, 0])
    refused(r"value: 1 are NaN", value=[0.6, np.nan, 0.3, 0.7])
    refused(r"value: 1 are NaN or outside \[0, 1\]", value=[0.6, 0.4, 1.3, 0.7])
    refused(r"won: 2 are NaN or outside \[0, 1\] \(the first, at 0: 1.5\)", won=[1.5, -0.5, 0, 1])
    refused("2 games or more", game=[5, 5, 5, 5])
    refused("different games", game=[0, 1, 1, 1])
    refused("positions of 1, 3 seats", position=[0, 0, 0, 1])
    refused("differ in length", won=[1, 0, 0])
    with pytest.raises(ValueError, match="no 'won' column"):
        fit({k: v for k, v in good.items() if k != "won"})
    with pytest.raises(ValueError, match="no information"):
        fit({**good, "value": np.full(4, 0.5)})
    with pytest.raises(ValueError, match="runs away"):
        fit(good)  # the higher value always won: a grows without bound
    with pytest.raises(ValueError, match="2 games or more"):
        check([0.5, 0.5], [1, 0], ["g", "g"])
    with pytest.raises(ValueError, match="differ in length"):
        check([0.5, 0.5, 0.2], [1, 0], [1, 2])
    with pytest.raises(ValueError, match="probabilities: 1 are NaN"):
        check([0.5, np.nan], [1, 0], [1, 2])
    with pytest.raises(ValueError, match=r"factor must be in \[0, 1\]"):
        squeezed([0.5, 0.5], 1.5)


def test_game_and_position_ids_may_be_any_hashables():
    rows = synthetic_positions(3, 100, 4, 1.0, seed=5)
    m = fit(rows)
    position = np.empty(len(rows["position"]), dtype=object)
    for i, (g, p) in enumerate(zip(rows["game"], rows["position"])):
        position[i] = ("run", int(g), int(p))  # tuples
    named = {**rows, "game": pl.Series([f"run/g{g}" for g in rows["game"]]), "position": position}
    other = fit(named)
    assert (other.a, other.a_low, other.games, other.positions) == (m.a, m.a_low, m.games, m.positions)
    assert fit(pl.DataFrame(rows)) == m  # a Polars frame of the columns


def test_the_map_round_trips_through_json_and_a_damaged_one_is_refused():
    m, _ = held_out(4, games=200)
    d = json.loads(json.dumps(m.to_dict()))
    assert d["format"] == FORMAT
    assert CalibrationMap.from_dict(d) == m
    for key in d:
        with pytest.raises(ValueError, match=f"key '{key}' is missing"):
            CalibrationMap.from_dict({k: v for k, v in d.items() if k != key})
    for key, bad in (("format", "azul-calibration/2"), ("a", "1.2"), ("a_low", float("nan")), ("a", True),
                     ("players", 1), ("players", 3.0), ("games", 1), ("positions", -4), ("a_high", d["a"] - 1)):
        with pytest.raises(ValueError, match=f"key '{'a' if key == 'a_high' else key}'"):
            CalibrationMap.from_dict({**d, key: bad})
    with pytest.raises(ValueError, match="mapping"):
        CalibrationMap.from_dict([1, 2])
