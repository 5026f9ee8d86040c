"""The schedule: every table, every deal once per seat arrangement, ids and seeds fixed by the config."""
from __future__ import annotations

import itertools
from collections import Counter

import pytest

from tournament.scheduler import (arrangements, count_games, deal_seed, derive_seed, round_seed,
                                  schedule, tables)


def test_tables_are_every_pair_or_subset():
    assert tables(4, 2) == list(itertools.combinations(range(4), 2))
    assert len(tables(5, 4)) == 5 and len(tables(6, 3)) == 20


def test_arrangements():
    assert arrangements(2, "rotate") == [(0, 1), (1, 0)]
    assert arrangements(3, "rotate") == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    assert len(arrangements(4, "permute")) == 24 and len(set(arrangements(4, "permute"))) == 24
    with pytest.raises(ValueError, match="rotate, permute"):
        arrangements(2, "shuffle")


@pytest.mark.parametrize("n_bots, players, seats", [(4, 2, "rotate"), (5, 3, "rotate"), (4, 3, "permute"),
                                                    (5, 4, "rotate")])
def test_every_deal_is_played_once_per_arrangement(n_bots, players, seats):
    games = list(schedule(n_bots, players, 3, seats, seed=9))
    assert len(games) == count_games(n_bots, players, 3, seats)
    assert len({g.game_id for g in games}) == len(games)
    by_table_deal = Counter((g.table, g.deal) for g in games)
    assert set(by_table_deal.values()) == {len(arrangements(players, seats))}
    for (t, d) in by_table_deal:
        group = [g for g in games if g.table == t and g.deal == d]
        assert len({g.deal_seed for g in group}) == 1          # the same deal ...
        members = set(tables(n_bots, players)[t])
        for seat in range(players):                             # ... with every member in every seat
            seated = Counter(g.seats[seat] for g in group)
            if seats == "rotate":
                assert set(seated) == members and set(seated.values()) == {1}
        assert all(set(g.seats) == members for g in group)
    # each bot sits in each seat equally often over the league
    per_seat = Counter((g.seats[s], s) for g in games for s in range(players))
    assert len(set(per_seat.values())) == 1


def test_ids_and_seeds_are_fixed_by_the_config():
    a = list(schedule(3, 2, 4, "rotate", seed=1))
    b = list(schedule(3, 2, 4, "rotate", seed=1))
    c = list(schedule(3, 2, 4, "rotate", seed=2))
    assert a == b
    assert [g.game_id for g in a] == [g.game_id for g in c]
    assert [g.deal_seed for g in a] != [g.deal_seed for g in c]
    assert a[0].game_id == "t000-d00000-a00"
    # every table plays the same deals: deal d's seed depends on the league seed and d only
    assert {g.deal_seed for g in a if g.deal == 2} == {deal_seed(1, 2)}


def test_derived_seeds_are_stable_63_bit_numbers():
    assert derive_seed(1, "deal", 0) == derive_seed(1, "deal", 0)
    assert derive_seed(1, "deal", 0) != derive_seed(1, "deal", 1)
    assert derive_seed(12, "round", 3) == round_seed(12, 3)
    assert 0 <= round_seed(2**62, 9) < 2**63
    assert derive_seed(0, "deal", 0) == 53170328231315048  # the derivation never changes


def test_schedule_is_lazy():
    games = schedule(40, 4, 10**6, "permute", seed=0)  # 2 x 10^12 games: only the first are made
    assert next(games).game_id == "t000-d00000-a00"
