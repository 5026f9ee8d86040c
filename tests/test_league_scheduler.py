"""The schedule: every table, every deal once per seat arrangement, ids and seeds fixed by the config."""
from __future__ import annotations

import itertools
from collections import Counter

import pytest

import tournament.scheduler as scheduler_module
from types import SimpleNamespace

from tournament.scheduler import (GameSpec, Slice, arrangements, bot_game_seed, count_games, deal_seed,
                                  derive_seed, games_of, league_games, pack_games, round_seed, schedule,
                                  seat_blocks, self_tables, series_deal_seed, table_games, tables, unpack_games)


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


def test_packed_batches_unpack_to_the_same_games():
    """How batches travel to Ray tasks: every field of every kind of game comes back, in order."""
    from kinds.study import StudyConfig, study_games

    league = list(schedule(4, 3, 2, "permute", seed=5, match="series", self_play=True))
    study = study_games(StudyConfig(name="s", bot="greedy", interventions=("marker=take", "marker=avoid"),
                                    deals=2, field=("random",)))
    for games in (league, study, league[:1], []):
        back = unpack_games({}, pack_games(games))
        assert back == games and all(type(g) is GameSpec for g in back)
    assert {g.series_game for g in league} == {1, 2} and study[0].bot_seeds and study[0].intervention


@pytest.mark.parametrize("players, seats, match, self_play", [(2, "rotate", "game", False), (3, "permute", "series", True),
                                                              (4, "rotate", "series", False)])
def test_slices_of_a_schedule_are_its_games(players, seats, match, self_play):
    """A fresh league's batches are slices of its schedule, built by the task: the same games
    as the schedule's, wherever a slice starts and ends (inside a deal, across deals, at the end)."""
    config = SimpleNamespace(bots=[None] * 5, players=players, deals=4, seats=seats, seed=3, match=match,
                             self_play=self_play)
    every = list(league_games(config))
    assert every == list(schedule(5, players, 4, seats, 3, match, self_play))
    n = len(every)
    for start, stop in [(0, n), (n // 2, n), (n, n)] + [(i, i + 5) for i in range(n)]:
        part = Slice(start, stop)
        assert games_of(config, part) == every[start:stop]
        assert unpack_games(config, pack_games(part)) == every[start:stop]
    assert games_of(config, every[:3]) == every[:3]  # a list is its own games


def test_derived_seeds_are_stable_63_bit_numbers():
    assert derive_seed(1, "deal", 0) == derive_seed(1, "deal", 0)
    assert derive_seed(1, "deal", 0) != derive_seed(1, "deal", 1)
    assert derive_seed(12, "round", 3) == round_seed(12, 3)
    assert 0 <= round_seed(2**62, 9) < 2**63
    assert derive_seed(0, "deal", 0) == 53170328231315048  # the derivation never changes


def test_schedule_is_lazy():
    games = schedule(40, 4, 10**6, "permute", seed=0)  # 2 x 10^12 games: only the first are made
    assert next(games).game_id == "t000-d00000-a00"


@pytest.mark.parametrize("n_bots, players, seats, match", [
    (3, 2, "rotate", "game"), (4, 2, "rotate", "series"), (5, 3, "rotate", "game"),
    (4, 3, "permute", "game"), (5, 4, "rotate", "series")])
def test_self_play_adds_one_table_per_bot_after_the_round_robin(n_bots, players, seats, match):
    plain = list(schedule(n_bots, players, 3, seats, seed=9, match=match))
    both = list(schedule(n_bots, players, 3, seats, seed=9, match=match, self_play=True))
    assert len(plain) == count_games(n_bots, players, 3, seats, match)
    assert len(both) == count_games(n_bots, players, 3, seats, match, self_play=True)
    per_match = 2 if match == "series" else 1
    assert len(both) - len(plain) == n_bots * 3 * per_match  # one game a bot and deal
    assert len({g.game_id for g in both}) == len(both)
    # the round-robin's games are exactly those of a league without self-play, in the same order
    n_rr = len(tables(n_bots, players))
    assert [g for g in both if g.table < n_rr] == plain
    own = [g for g in both if g.table >= n_rr]
    assert tables(n_bots, players, self_play=True)[n_rr:] == self_tables(n_bots, players)
    assert self_tables(n_bots, players) == [(i,) * players for i in range(n_bots)]
    for g in own:
        bot = g.table - n_rr
        assert g.seats == (bot,) * players and g.arrangement == 0
        assert g.game_id.startswith(f"t{g.table:03d}-d{g.deal:05d}-a00")
        first = series_deal_seed(deal_seed(9, g.deal), g.series_game or 1)
        assert g.deal_seed == first  # the league's deal, like every table's
    assert Counter(g.seats[0] for g in own) == {i: 3 * per_match for i in range(n_bots)}
    # deal by deal: every self game of deal d comes after the round-robin's games of deal d
    deals = [g.deal for g in both]
    assert deals == sorted(deals)


def test_a_league_without_self_play_keeps_its_ids():
    games = list(schedule(3, 2, 2, "rotate", seed=1))
    assert [g.game_id for g in games[:3]] == ["t000-d00000-a00", "t000-d00000-a01", "t001-d00000-a00"]
    assert max(g.table for g in games) == 2 and len(games) == 12 == count_games(3, 2, 2, "rotate")


def test_copies_of_a_bot_get_seeds_of_their_own():
    gid = "t003-d00000-a00"
    assert bot_game_seed(7, gid) == bot_game_seed(7, gid, 0) == derive_seed(7, "game", gid)
    copies = [bot_game_seed(7, gid, c) for c in range(4)]
    assert len(set(copies)) == 4 and copies[1] == derive_seed(7, "game", gid, "copy", 1)
    assert all(0 <= c < 2**63 for c in copies)


@pytest.mark.parametrize("match", ["game", "series"])
def test_table_games_are_the_schedule_of_any_list_of_tables(match):
    from tournament.config import parse_config
    from tournament.events.gauntlet import gauntlet_schedule, gauntlet_tables

    lineups = seat_blocks(2, "rotate")
    assert list(table_games(tables(4, 2), 6, lineups, 3, 9, match == "series")) == list(
        schedule(4, 2, 3, "rotate", seed=9, match=match))
    config = parse_config({"bots": ["random", "greedy", "heuristic", {"name": "r2", "type": "random"}],
                           "deals": 3, "seed": 9, "match": match, "format": "gauntlet", "challengers": ["r2"]})
    ours = gauntlet_tables(4, 2, [3])
    games = gauntlet_schedule(config).games
    assert games == list(table_games(ours, len(ours), lineups, 3, 9, match == "series"))
    assert {g.seats for g in games} == {(0, 3), (3, 0), (1, 3), (3, 1), (2, 3), (3, 2)}
    assert not hasattr(scheduler_module, "_games")  # the one public name, no alias
