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
