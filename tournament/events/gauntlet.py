"""A gauntlet: the challengers (``config.challengers``) play every other bot; the pool bots (the
others) do not play each other. At 2 players a table is a challenger and another bot (another
challenger too); at 3 and 4 players each table holds one challenger and pool bots (every subset
of the pool of that size). Each table plays every deal in every seat arrangement, as a
round-robin's (ids ``t<table>-d<deal>-a<arrangement>``, tables numbered in this order), so the
games are a round-robin's, fewer: one stage (``OneStage``).
"""
from __future__ import annotations

import itertools

from ..scheduler import seat_blocks, table_games
from ..stages import OneStage


def gauntlet_tables(n_bots: int, players: int, challengers: list[int]) -> list[tuple[int, ...]]:
    """The tables of a gauntlet (bot indices, each table in index order)."""
    if players == 2:
        return [t for t in itertools.combinations(range(n_bots), 2) if set(t) & set(challengers)]
    pool = [i for i in range(n_bots) if i not in challengers]
    return sorted(tuple(sorted((c, *others))) for c in challengers
                  for others in itertools.combinations(pool, players - 1))


def gauntlet_schedule(config) -> OneStage:
    names = [b.name for b in config.bots]
    tables = gauntlet_tables(len(names), config.players, [names.index(c) for c in config.challengers])
    games = table_games(tables, len(tables), seat_blocks(config.players, config.seats), config.deals,
                        config.seed, config.match == "series")
    return OneStage(list(games))
