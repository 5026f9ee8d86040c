"""Events: the league formats other than the round-robin, each a schedule of the league driver
(tournament/stages.py), played by ``run_league`` like any league (docs/league.md, "Formats").

    schedule = event_schedule(config)      # config.format: gauntlet, swiss or knockout

- ``gauntlet`` (gauntlet.py): the challengers play every other bot, the pool bots do not play
  each other; one stage of fixed games, ids as a round-robin's (``t<table>-d<deal>-a<arr>``).
- ``swiss`` (swiss.py): ``rounds`` rounds, each paired from the results of the rounds before it.
- ``knockout`` (knockout.py): a seeded bracket, a round a stage.

A Swiss or knockout round is a stage; its games carry an ``EventPlace`` (round, pairing, byes:
the records' ``event_round``, ``pairing``, ``event_byes``), so the standings rebuild from the
records (analysis/events.py). Each round is a pure function of the config and the recorded
results of the rounds before it, so a resumed event pairs exactly as an uninterrupted one.
Round r's pairings play deals ``(r - 1) * per_round`` to ``r * per_round - 1`` of the league's
deals (``scheduler.deal_seed``): every table of a round the same deals, fresh deals each round.
"""
from __future__ import annotations

from analysis.events import Pairing, pairings_of

from ..scheduler import EventPlace, GameSpec, arrangements, deal_seed, series_games
from ..stages import Results


def event_schedule(config):
    """The schedule of an event config (``config.format`` other than round-robin)."""
    from .gauntlet import gauntlet_schedule
    from .knockout import KnockoutSchedule
    from .swiss import SwissSchedule

    makers = {"gauntlet": gauntlet_schedule, "swiss": SwissSchedule, "knockout": KnockoutSchedule}
    if config.format not in makers:
        raise ValueError(f"format {config.format!r} is not an event (events: {', '.join(makers)})")
    return makers[config.format](config)


def pairing_games(prefix: str, members: tuple[int, ...], place: EventPlace, table: int, deals: list[int],
                  league_seed: int, seats: str, series: bool) -> list[GameSpec]:
    """The games of one pairing: each of ``deals`` (league deal numbers) in every seat arrangement
    of ``members`` on that deal (bot indices, the first in seat 0 of arrangement 0), ids
    ``<prefix>-d<deal>-a<arrangement>`` (``-s1``/``-s2`` for a series' games)."""
    out = []
    for d in deals:
        dseed = deal_seed(league_seed, d)
        for a, lineup in enumerate(arrangements(len(members), seats, d)):
            spec = GameSpec(f"{prefix}-d{d:05d}-a{a:02d}", table, d, a, dseed, tuple(members[i] for i in lineup),
                            event=place)
            out.extend(series_games(spec) if series else [spec])
    return out


def played_pairings(results: Results) -> tuple[list[Pairing], dict[int, tuple[str, ...]]]:
    """The pairings of the rounds played so far (analysis/events.py) and each round's byes."""
    place = {g.game_id: g.event for stage in results.stages for g in stage}
    r = results.results
    rows = ((place[gid].round, place[gid].pairing, gid, seat, bot, score, rank) for gid, seat, bot, score, rank in
            zip(*(r.column(c).to_pylist() for c in ("game_id", "seat", "bot", "score", "rank"))))
    byes = {stage[0].event.round: stage[0].event.byes for stage in results.stages}
    return pairings_of(rows), byes
