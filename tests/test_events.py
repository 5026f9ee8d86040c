"""Event schedulers driven with results drawn from known strengths, no engine
(tournament/events/simulate.py): the Swiss pairing rules' invariants over hundreds of events, the
Swiss order against a round-robin's of as many games, the knockout's winner against the exact
chance, the gauntlet's ratings against a round-robin's, and the config's checks."""
from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import spearmanr

from analysis.elo import elo_table
from analysis.events import bracket, bracket_order, champion, pairings_of, swiss_standings
from analysis.synthetic import synthetic_league
from tournament.config import ConfigError, parse_config
from tournament.events import event_schedule
from tournament.events.gauntlet import gauntlet_tables
from tournament.events.simulate import play_game, simulate
from tournament.events.swiss import SwissSchedule
from tournament.scheduler import GameSpec


def event(n: int, players: int = 2, **keys):
    bots = [{"name": f"b{i:02d}", "type": "random", "seed": i} for i in range(n)]
    deals = {} if keys.get("format") == "knockout" else {"deals": 2 if players == 4 else 1}  # 4: the seating's block
    return parse_config({"name": "e", "players": players, **deals, "bots": bots, **keys})


def rows_of(stages, results):
    place = {g.game_id: g.event for s in stages for g in s}
    cols = [results.column(c).to_pylist() for c in ("game_id", "seat", "bot", "score", "rank")]
    return [(place[g].round, place[g].pairing, g, s, b, sc, r) for g, s, b, sc, r in zip(*cols)]


def swiss_event(n, players, rounds, seed, strengths=None):
    config = event(n, players, format="swiss", rounds=rounds)
    names = [b.name for b in config.bots]
    strengths = strengths if strengths is not None else list(np.linspace(400, 0, n))
    stages, results = simulate(SwissSchedule(config), names, strengths, np.random.default_rng(seed))
    return config, names, stages, results


def repeat_free_exists(bots: list[str], players: int, met: set[frozenset]) -> bool:
    """Whether ``bots`` can be seated at tables of ``players`` with no pair met before (brute force)."""
    if not bots:
        return True
    first, rest = bots[0], bots[1:]
    return any(all(frozenset(p) not in met for p in itertools.combinations((first, *mates), 2))
               and repeat_free_exists([b for b in rest if b not in mates], players, met)
               for mates in itertools.combinations(rest, players - 1))


@settings(max_examples=150, deadline=None)
@given(n=st.integers(2, 9), players=st.integers(2, 4), rounds=st.integers(1, 8), seed=st.integers(0, 10**6))
def test_swiss_pairings_keep_the_rules(n, players, rounds, seed):
    if n < players:
        return
    config, names, stages, results = swiss_event(n, players, rounds, seed)
    assert len(stages) == rounds
    met: set[frozenset] = set()
    byes = Counter()
    seats = Counter()
    for rnd, stage in enumerate(stages, 1):
        out = stage[0].event.byes
        assert all(g.event.byes == out and g.event.round == rnd for g in stage)
        assert len(out) == n % players  # byes only for the bots no table can hold
        byes.update(out)
        assert max(byes[b] for b in names) - min(byes[b] for b in names) <= 1  # the fewest byes first
        tables = {g.event.pairing: tuple(sorted(names[i] for i in g.seats)) for g in stage}
        seated = [b for t in tables.values() for b in t]
        assert sorted(seated + list(out)) == sorted(names)  # everyone plays once, or has the bye
        repeats = [t for t in tables.values() if any(frozenset(p) in met for p in itertools.combinations(t, 2))]
        if repeats:  # a repeat only when no pairing of this round's bots avoids one
            assert not repeat_free_exists(seated, players, met)
        met |= {frozenset(p) for t in tables.values() for p in itertools.combinations(t, 2)}
        for g in stage:
            seats.update((names[b], s) for s, b in enumerate(g.seats))
        ids = [g.game_id for g in stage]
        assert len(set(ids)) == len(ids)
    for b in names:  # every bot sat in every seat equally often
        assert len({seats[(b, s)] for s in range(players)}) == 1


def test_swiss_round_one_pairs_the_top_half_with_the_bottom_half():
    config = event(8, format="swiss", rounds=1)
    from tournament.stages import Results
    import pyarrow as pa
    games = SwissSchedule(config).next_games(Results([], pa.table({}), pa.table(
        {"game_id": pa.array([], pa.string()), "seat": pa.array([], pa.int32()), "bot": pa.array([], pa.string()),
         "score": pa.array([], pa.int32()), "rank": pa.array([], pa.int32())})))
    assert sorted({g.seats[0] if g.arrangement == 0 else g.seats[1] for g in games}) == [0, 1, 2, 3]
    assert {(g.seats[0], g.seats[1]) for g in games if g.arrangement == 0} == {(0, 4), (1, 5), (2, 6), (3, 7)}


def test_the_swiss_table_breaks_ties_by_buchholz_then_sonneborn_berger():
    # a 4-bot, 2-round event: a beats b and c beats d, then a beats c, d beats b
    rows = [(1, 1, "g1", 0, "a", 10, 1), (1, 1, "g1", 1, "b", 0, 2), (1, 2, "g2", 0, "c", 10, 1),
            (1, 2, "g2", 1, "d", 0, 2), (2, 1, "g3", 0, "a", 10, 1), (2, 1, "g3", 1, "c", 0, 2),
            (2, 2, "g4", 0, "b", 0, 2), (2, 2, "g4", 1, "d", 10, 1)]
    table = swiss_standings(["a", "b", "c", "d"], pairings_of(rows), {1: (), 2: ()})
    assert [(r.bot, r.points) for r in table] == [("a", 2.0), ("c", 1.0), ("d", 1.0), ("b", 0.0)]
    assert (table[1].buchholz, table[2].buchholz) == (3.0, 1.0)  # c met a (2) and d (1); d met c and b
    assert table[0].sonneborn_berger == 1.0  # beat b (0 points) and c (1)


def rank_correlation(points: dict[str, float], names: list[str]) -> float:
    """Spearman of an order by points with the truth (``names`` strongest first); ties averaged."""
    return spearmanr([points[b] for b in names], -np.arange(len(names))).statistic


def test_a_swiss_of_16_orders_the_bots_about_as_well_as_a_round_robin_of_as_many_games():
    n, rounds, events = 16, 7, 100
    strengths = list(np.linspace(600, 0, n))
    swiss, robin = [], []
    for seed in range(events):
        config, names, stages, results = swiss_event(n, 2, rounds, seed, strengths)
        table = swiss_standings(names, pairings_of(rows_of(stages, results)), {s[0].event.round: s[0].event.byes
                                                                                for s in stages})
        order = {r.bot: -r.place for r in table}
        swiss.append(rank_correlation(order, names))
        games = sum(map(len, stages))
        rng = np.random.default_rng(10**6 + seed)
        points = Counter()
        pairs = list(itertools.combinations(range(n), 2))
        for i in range(games):  # the round-robin's games: every pair in turn, seats alternating
            a, b = pairs[i % len(pairs)]
            spec = GameSpec("g", 0, 0, 0, 0, (a, b) if (i // len(pairs)) % 2 == 0 else (b, a))
            for seat, (_, rank) in enumerate(play_game(spec, strengths, rng)):
                points[names[spec.seats[seat]]] += rank == 1
        robin.append(rank_correlation({b: points[b] for b in names}, names))
    assert games == 112
    print(f"Spearman with the truth over {events} events: Swiss {np.mean(swiss):.3f}, "
          f"round-robin {np.mean(robin):.3f}")
    assert np.mean(swiss) > 0.8 and np.mean(robin) > 0.8
    assert np.mean(swiss) >= np.mean(robin) - 0.1  # measured: 0.870 against 0.918


def knockout_chance(strengths: list[float], pairs: int) -> list[float]:
    """The exact chance of each seed to win the bracket (simulate's games: a match level on games
    is level on score, so the better seed goes through)."""
    n = len(strengths)
    size = 1 << (n - 1).bit_length()
    order = [s - 1 if s <= n else None for s in bracket_order(size)]

    def beats(a, b):  # a the better seed: a wins the match unless b wins more of its 2 * pairs games
        p = 1 / (1 + 10 ** ((strengths[b] - strengths[a]) / 400))
        from math import comb
        games = 2 * pairs
        b_more = sum(comb(games, k) * (1 - p) ** k * p ** (games - k) for k in range(pairs + 1, games + 1))
        return 1 - b_more

    slots = [{i: 1.0} if i is not None else {} for i in order]
    while len(slots) > 1:
        nxt = []
        for left, right in zip(slots[::2], slots[1::2]):
            if not left or not right:
                nxt.append(left or right)
                continue
            win = Counter()
            for a, pa_ in left.items():
                for b, pb in right.items():
                    x, y = min(a, b), max(a, b)
                    px = beats(x, y)
                    win[x] += pa_ * pb * px
                    win[y] += pa_ * pb * (1 - px)
            nxt.append(win)
        slots = nxt
    return [slots[0].get(i, 0.0) for i in range(n)]


@pytest.mark.parametrize("n", [6, 8])
def test_the_strongest_bot_wins_the_knockout_as_often_as_the_exact_chance(n):
    strengths = [300, 250, 200, 150, 100, 50, 0, -50][:n]
    strengths[0], strengths[2] = strengths[2], strengths[0]  # the strongest is seed 3
    config = event(n, format="knockout", pairs_per_match=1)
    names = [b.name for b in config.bots]
    sims, wins = 600, 0
    for seed in range(sims):
        stages, results = simulate(event_schedule(config), names, strengths, np.random.default_rng(seed))
        assert sum(map(len, stages)) == (n - 1) * 2
        rounds = bracket(names, pairings_of(rows_of(stages, results)))
        wins += champion(rounds) == names[2]
    exact = knockout_chance(strengths, 1)[2]
    sd = (exact * (1 - exact) / sims) ** 0.5
    print(f"{n} bots: the strongest won {wins / sims:.3f} of {sims} brackets; exact {exact:.3f}")
    assert abs(wins / sims - exact) < 4 * sd


def test_knockout_ties_go_to_the_better_seed_and_byes_to_the_top_seeds():
    config = event(5, format="knockout", pairs_per_match=1)
    names = [b.name for b in config.bots]
    stages, results = simulate(event_schedule(config), names, [0.0] * 5, np.random.default_rng(1))
    first = stages[0]
    assert first[0].event.byes == ("b00", "b01", "b02")
    assert {frozenset(g.seats) for g in first} == {frozenset((3, 4))}
    for matches in bracket(names, pairings_of(rows_of(stages, results))):
        for m in matches:
            if m.decided_by == "seed":
                assert m.winner == min(m.bots, key=names.index)


def test_a_gauntlets_ratings_agree_with_a_round_robins_within_their_intervals():
    strengths = [("new", 120.0)] + [(f"pool{i}", s) for i, s in enumerate((200.0, 100.0, 0.0, -100.0))]
    # pool2 (strength 0) is the anchor of both fits
    league = synthetic_league(strengths, deals=150, seed=3)
    tables = gauntlet_tables(5, 2, [0])
    assert tables == [(0, 1), (0, 2), (0, 3), (0, 4)]
    keep = [f"t{t:03d}" for t in range(4)]  # the round-robin's tables 0..3 are the gauntlet's: new vs each
    games = league["games"].filter(pl.col("game_id").str.slice(0, 4).is_in(keep))
    results = league["results"].filter(pl.col("game_id").is_in(games["game_id"].implode()))
    robin = elo_table(league["results"], league["games"], anchor="pool2", bootstrap=100)
    gauntlet = elo_table(results, games, anchor="pool2", bootstrap=100)
    both = robin.join(gauntlet, on="bot", suffix="_g")
    for r in both.iter_rows(named=True):
        assert r["low_g"] <= r["high"] and r["low"] <= r["high_g"], r  # the 95% intervals overlap
    new = both.filter(pl.col("bot") == "new").row(0, named=True)
    assert new["low_g"] <= 120 <= new["high_g"]  # the truth, anchored at pool2 = 0


@pytest.mark.parametrize("players,challengers,tables", [
    (2, ["b00", "b01"], 7), (3, ["b00"], 6), (4, ["b00", "b04"], 2)])
def test_gauntlet_tables_seat_a_challenger_with_pool_bots(players, challengers, tables):
    config = event(5, players, format="gauntlet", challengers=challengers)
    games = event_schedule(config).games
    assert len({g.table for g in games}) == tables
    picked = {config.bots.index(b) for b in config.bots if b.name in challengers}
    for g in games:
        held = set(g.seats) & picked
        assert held and (players == 2 or len(held) == 1)
        assert len(set(g.seats)) == players


@pytest.mark.parametrize("keys,message", [
    ({"format": "cup"}, "format: must be one of round-robin, gauntlet, swiss, knockout"),
    ({"format": "swiss"}, "rounds: missing"),
    ({"format": "gauntlet", "challengers": ["nobody"]}, "challengers: 'nobody' is not the name of a bot"),
    ({"format": "gauntlet"}, "challengers: a gauntlet needs a list"),
    ({"format": "knockout", "players": 3}, "players: a knockout is played at 2 players"),
    ({"rounds": 3}, "rounds: is a setting of format: swiss, not of format: round-robin"),
    ({"format": "swiss", "rounds": 2, "self_play": True}, "self_play: is for a round-robin"),
    ({"format": "knockout", "pairs_per_match": 0}, "pairs_per_match: must be from 1 to 10000, not 0"),
])
def test_bad_event_configs_are_refused_naming_the_field(keys, message):
    players = keys.pop("players", 2)
    with pytest.raises(ConfigError, match=message):
        event(5, players, **keys)


def test_a_round_robins_resolved_config_has_no_format_key():
    assert "format" not in event(3).to_dict()
    assert event(3, format="swiss", rounds=2).to_dict()["rounds"] == 2


@pytest.mark.parametrize("fmt,keys", [("swiss", {"rounds": 3}), ("knockout", {"pairs_per_match": 2})])
def test_events_of_two_game_series_play_whole_series(fmt, keys):
    config = event(6, format=fmt, match="series", **keys)
    names = [b.name for b in config.bots]
    schedule = event_schedule(config)
    stages, results = simulate(schedule, names, list(np.linspace(300, 0, 6)), np.random.default_rng(4))
    games = [g for s in stages for g in s]
    assert len(games) == schedule.total and len({g.game_id for g in games}) == len(games)
    by_series = Counter(g.game_id.rpartition("-s")[0] for g in games)
    assert set(by_series.values()) == {2}
    assert all(g.series_game in (1, 2) and g.opener == g.series_game - 1 for g in games)
    if fmt == "knockout":
        seats = Counter((g.seats[0], g.event.round, g.event.pairing) for g in games)
        assert set(seats.values()) == {2}  # each bot of a match in seat 0 for one series of two


def test_a_swiss_longer_than_its_new_pairings_and_a_knockouts_unused_deals_are_warned(tmp_path):
    swiss = event(6, format="swiss", rounds=7)  # 6 bots: 5 rounds of new opponents at most
    assert swiss.notes() == ["rounds: 7 rounds of 6 bots at 2-player tables: every round can meet new opponents "
                             "only up to round 5, pairings repeat after it"]
    assert event(6, format="swiss", rounds=5).notes() == []
    knockout = parse_config({"format": "knockout", "deals": 3, "bots": ["random", "greedy", "heuristic"]})
    assert knockout.notes() == ["deals: a knockout plays pairs_per_match (1) deals a match; the config's deals (3) "
                                "are not used"]
    assert parse_config({"format": "knockout", "bots": ["random", "greedy", "heuristic"]}).notes() == []
    from typer.testing import CliRunner

    import yaml

    from azul_cli.main import app

    path = tmp_path / "k.yaml"
    path.write_text(yaml.safe_dump({"name": "k", "format": "knockout", "pairs_per_match": 2, "out": str(tmp_path),
                                    "mlflow": {"enabled": False}, "ray": {"workers": 0},
                                    "bots": ["random", "greedy", "heuristic"]}))
    result = CliRunner().invoke(app, ["league", "run", str(path), "--no-report"])
    assert result.exit_code == 0 and "2 deals a match:" in result.output.splitlines()[0], result.output
    progress = [line for line in result.output.splitlines() if line.startswith("league k (")]
    assert progress and not any("leader" in line for line in progress)  # the bracket names the champion
