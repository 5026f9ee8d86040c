"""Events played without the engine: a schedule driven with results drawn from known strengths,
as the league driver drives it (stage by stage), for the tests and docs that check how an event
pairs and ranks (tests/test_events.py).

    stages, rows = simulate(SwissSchedule(config), strengths, rng)

A game between bots of Elo strengths ``s`` orders them by Plackett-Luce with weights
``10 ** (s / 400)`` (at 2 players: Bradley-Terry, no draws); the k-th placed scores
``10 * (players - k)``, so a match level on games is level on score too.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from ..scheduler import GameSpec
from ..stages import Results, Schedule


def play_game(spec: GameSpec, strengths: list[float], rng: np.random.Generator) -> list[tuple[int, int]]:
    """(score, rank) per seat of one simulated game."""
    k = len(spec.seats)
    weights = 10 ** (np.array([strengths[b] for b in spec.seats]) / 400)
    order = rng.choice(k, size=k, replace=False, p=weights / weights.sum())
    rank = np.empty(k, int)
    rank[order] = np.arange(1, k + 1)
    return [(10 * (k - int(r)), int(r)) for r in rank]


def simulate(schedule: Schedule, names: list[str], strengths: list[float],
             rng: np.random.Generator) -> tuple[list[list[GameSpec]], pa.Table]:
    """Play ``schedule`` to its end on simulated games: its stages and the results rows
    (``game_id, seat, bot, score, rank``)."""
    stages: list[list[GameSpec]] = []
    cols: dict[str, list] = {"game_id": [], "seat": [], "bot": [], "score": [], "rank": []}
    empty = pa.table({"game_id": pa.array([], pa.string())})
    while True:
        results = pa.table(cols, schema=pa.schema([("game_id", pa.string()), ("seat", pa.int32()),
                                                   ("bot", pa.string()), ("score", pa.int32()),
                                                   ("rank", pa.int32())]))
        games = schedule.next_games(Results(stages, empty, results))
        if games is None:
            return stages, results
        for spec in games:
            for seat, (score, rank) in enumerate(play_game(spec, strengths, rng)):
                for key, value in zip(cols, (spec.game_id, seat, names[spec.seats[seat]], score, rank)):
                    cols[key].append(value)
        stages.append(games)
