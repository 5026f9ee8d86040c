"""The Swiss schedule's running count (tournament/events/swiss.py ``SwissCount``): each round is
paired from the rounds played since the last, and pairs exactly as the Swiss always paired from
every round (digests of simulated events stored from the code before the count, commit 3ed31ab);
its points are the table's floats (analysis.events.swiss_points), bit for bit; asked from round 1
again (a resume), or with many rounds at once, it pairs the same."""
from __future__ import annotations

import hashlib
import itertools

import numpy as np
import pyarrow as pa
import pytest

from analysis.events import pairings_of, swiss_points
from tournament.config import parse_config
from tournament.events.simulate import simulate
from tournament.events.swiss import SwissCount, SwissSchedule
from tournament.stages import Results


def swiss(n: int, players: int, rounds: int):
    bots = [{"name": f"b{i:02d}", "type": "random", "seed": i} for i in range(n)]
    return parse_config({"name": "e", "players": players, "deals": 2 if players == 4 else 1, "bots": bots,
                         "format": "swiss", "rounds": rounds})


def played(n, players, rounds, seed, schedule=None):
    config = swiss(n, players, rounds)
    names = [b.name for b in config.bots]
    return simulate(schedule or SwissSchedule(config), names, list(np.linspace(300, 0, n)),
                    np.random.default_rng(seed))


def digest(stages) -> str:
    text = "\n".join(f"{g.game_id} {g.seats} {g.event.byes}" for s in stages for g in s)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@pytest.mark.parametrize("event, stored", [((9, 2, 30, 1), "54f5569738b7da36"), ((7, 3, 30, 2), "2b4d09f73e741862"),
                                           ((10, 4, 30, 3), "f62f60fbdb442167"), ((5, 4, 60, 4), "dd48ad960edf0444")])
def test_a_swiss_pairs_as_it_did_from_every_round(event, stored):
    stages, _ = played(*event)
    assert digest(stages) == stored


def rows_of(stages, results):
    place = {g.game_id: g.event for s in stages for g in s}
    cols = [results.column(c).to_pylist() for c in ("game_id", "seat", "bot", "score", "rank")]
    return [(place[g].round, place[g].pairing, g, s, b, sc, r) for g, s, b, sc, r in zip(*cols)]


@pytest.mark.parametrize("n, players", [(5, 4), (7, 4), (7, 3), (9, 2)])
def test_the_running_count_is_the_tables_count_bit_for_bit(n, players):
    stages, results = played(n, players, 40, 7)
    names = [f"b{i:02d}" for i in range(n)]
    count = SwissCount(names)
    for r in range(len(stages) + 1):
        ids = pa.array([g.game_id for s in stages[:r] for g in s], pa.string())
        so_far = results.filter(pa.compute.is_in(results["game_id"], ids))
        count.read(Results(stages[:r], pa.table({}), so_far))
        pairings = pairings_of(rows_of(stages[:r], so_far))
        byes = {s[0].event.round: s[0].event.byes for s in stages[:r]}
        points = swiss_points(names, pairings, byes)
        assert count.points() == [points[b] for b in names]  # ==, not approx: the same floats
        assert count.met == {frozenset((names.index(a), names.index(b))) for p in pairings
                             for a, b in itertools.combinations(p.bots, 2)}
        assert count.byes == [sum(b in out for out in byes.values()) for b in names]


def test_asked_from_round_one_again_or_with_many_rounds_at_once_it_pairs_the_same():
    config = swiss(9, 3, 20)
    schedule = SwissSchedule(config)
    first, results = played(9, 3, 20, 5, schedule)
    again, _ = played(9, 3, 20, 5, schedule)  # the same object, asked from round 1: counts afresh
    assert digest(again) == digest(first)
    for r in (3, 11, 19):  # a fresh schedule told r rounds at once pairs round r + 1 as the one that read them one by one
        ids = pa.array([g.game_id for s in first[:r] for g in s], pa.string())
        told = Results(first[:r], pa.table({}), results.filter(pa.compute.is_in(results["game_id"], ids)))
        assert SwissSchedule(config).next_games(told) == first[r]
