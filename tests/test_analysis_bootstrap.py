"""analysis.bootstrap: deals numbered as they first appear, seeded resamples, percentile intervals."""
from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from analysis.bootstrap import deal_codes, deal_columns, deal_key, percentile_interval, resample_counts


def test_deals_are_numbered_in_the_order_they_first_appear():
    keys = pl.Series(["r/0/2", "r/0/2", "r/0/10", "r/1/0", "r/0/10", "r/0/2"])
    assert deal_codes(keys).tolist() == [0, 0, 1, 2, 1, 0]


def test_a_game_without_table_and_deal_is_its_own_deal():
    games = pl.DataFrame({"run_id": ["a", "a", "b"], "game_id": ["g1", "g2", "g1"],
                          "table": [0, 0, None], "deal": [3, 3, None]})
    assert deal_columns(games) == ["table", "deal"]
    assert games.select(deal_key(["table", "deal"]).alias("k"))["k"].to_list() == ["a/0/3", "a/0/3", "b/g1"]
    assert deal_columns(games.drop("deal")) == []
    assert games.select(deal_key([]).alias("k"))["k"].to_list() == ["a/g1", "a/g2", "b/g1"]


def test_resamples_are_seeded_and_draw_every_deal_count_times():
    counts = resample_counts(7, 5, seed=3)
    assert counts.shape == (5, 7) and (counts.sum(axis=1) == 7).all()
    assert (counts == resample_counts(7, 5, seed=3)).all()
    assert not (counts == resample_counts(7, 5, seed=4)).all()


def test_no_resamples_give_no_interval():
    low, high = percentile_interval(np.empty((0, 3)), 0.95)
    assert np.isnan(low).all() and np.isnan(high).all() and low.shape == (3,)
    low, high = percentile_interval(np.arange(101.0)[:, None], 0.9)
    assert (low[0], high[0]) == pytest.approx((5.0, 95.0))


def test_the_jackknife_leaves_out_each_deal_or_group_once():
    from analysis.bootstrap import jackknife_counts
    one = jackknife_counts(5)
    assert one.shape == (5, 5) and (one.sum(axis=1) == 4).all() and (np.diag(one) == 0).all()
    grouped = jackknife_counts(7, groups=3)  # deals 0,3,6 / 1,4 / 2,5
    assert grouped.shape == (3, 7) and grouped[0].tolist() == [0, 1, 1, 0, 1, 1, 0]
    assert ((1 - grouped).sum(axis=0) == 1).all()  # every deal left out exactly once


def test_jackknife_and_bca_intervals_of_a_mean():
    from analysis.bootstrap import interval, jackknife_counts, resample_counts
    x = np.random.default_rng(1).normal(10.0, 2.0, size=(50, 1))
    jack = (jackknife_counts(50) @ x) / 49
    low, high = interval("jackknife", np.empty((0, 1)), x.mean(axis=0), jack, 0.95)
    assert np.isnan(low).all()  # no resamples, no interval
    samples = (resample_counts(50, 2000, seed=2) @ x) / 50
    low, high = interval("jackknife", samples, x.mean(axis=0), jack, 0.95)
    half = 1.959963984540054 * x.std(ddof=1) / np.sqrt(50)  # the jackknife of a mean is exact
    assert (low[0], high[0]) == pytest.approx((x.mean() - half, x.mean() + half))
    b_low, b_high = interval("bca", samples, x.mean(axis=0), jack, 0.95)
    assert b_low[0] == pytest.approx(low[0], abs=0.15) and b_high[0] == pytest.approx(high[0], abs=0.15)
    with pytest.raises(ValueError, match="interval must be one of"):
        interval("studentized", samples, x.mean(axis=0), jack, 0.95)


def test_the_jackknife_over_group_sums_gives_the_leave_out_weights():
    from analysis.bootstrap import jackknife_counts, jackknife_groups, per_deal
    rng = np.random.default_rng(5)
    for deals, groups in ((7, 3), (5, 200), (1000, 200)):
        codes = np.concatenate([np.arange(deals), rng.integers(0, deals, size=3 * deals)])
        cells, values = rng.integers(0, 9, size=len(codes)), rng.integers(0, 3, size=len(codes)) / 2
        per = per_deal(codes, cells, values, 9)
        grouped = jackknife_groups(per, groups)
        assert grouped.shape == (min(deals, groups), 9)
        direct = jackknife_counts(deals, groups) @ per.toarray()
        assert (jackknife_counts(grouped.shape[0]) @ grouped.toarray() == direct).all()  # exact: halves
