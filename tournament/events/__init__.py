"""Events: the league formats other than the round-robin, each a schedule of the league driver
(tournament/stages.py), played by ``run_league`` like any league (docs/league.md, "Formats").

    schedule = event_schedule(config)      # config.format: gauntlet, swiss or knockout

- ``gauntlet`` (gauntlet.py): the challengers play every other bot, the pool bots do not play
  each other; one stage of fixed games, ids as a round-robin's (``t<table>-d<deal>-a<arr>``).
- ``swiss`` (swiss.py): ``rounds`` rounds, each paired from the results of the rounds before it.
- ``knockout`` (knockout.py): a seeded bracket, a round a stage.

Swiss and knockout share ``pairings.py``: the games of one pairing, the pairings played so far
(the Swiss reads only the rounds since its last pairing: ``SwissCount`` keeps the rest).

A Swiss or knockout round is a stage; its games carry an ``EventPlace`` (round, pairing, byes:
the records' ``event_round``, ``pairing``, ``event_byes``), so the standings rebuild from the
records (analysis/events.py). Each round is a pure function of the config and the recorded
results of the rounds before it, so a resumed event pairs exactly as an uninterrupted one.
Round r's pairings play deals ``(r - 1) * per_round`` to ``r * per_round - 1`` of the league's
deals (``scheduler.deal_seed``): every table of a round the same deals, fresh deals each round.
"""
from __future__ import annotations


def event_schedule(config):
    """The schedule of an event config (``config.format`` other than round-robin)."""
    from .gauntlet import gauntlet_schedule  # each format's module loads when asked for
    from .knockout import KnockoutSchedule
    from .swiss import SwissSchedule

    makers = {"gauntlet": gauntlet_schedule, "swiss": SwissSchedule, "knockout": KnockoutSchedule}
    if config.format not in makers:
        raise ValueError(f"format {config.format!r} is not an event (events: {', '.join(makers)})")
    return makers[config.format](config)


def pairing_size(config) -> int | None:
    """The games of one whole pairing of an event config (a Swiss table's, a knockout match's), or
    None for a gauntlet (its tables are not paired: each game counts as it comes)."""
    if config.format == "gauntlet":
        return None
    return event_schedule(config).per_pairing
