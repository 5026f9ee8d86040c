"""What the Swiss and knockout formats share: the games of one pairing, and the pairings of the
rounds played so far (tournament/events/__init__.py says how events are scheduled)."""
from __future__ import annotations

from analysis.events import Pairing, pairings_of

from ..scheduler import EventPlace, GameSpec, arrangements, deal_seed, series_games
from ..stages import Results


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


def played_pairings(results: Results, first: int = 0) -> tuple[list[Pairing], dict[int, tuple[str, ...]]]:
    """The pairings of the rounds played so far (analysis/events.py) and each round's byes; with
    ``first``, of the rounds from stage ``first`` on only (the rows of the others are not read)."""
    stages = results.stages[first:]
    place = {g.game_id: g.event for stage in stages for g in stage}
    r = results.since(first)
    rows = ((place[gid].round, place[gid].pairing, gid, seat, bot, score, rank) for gid, seat, bot, score, rank in
            zip(*(r.column(c).to_pylist() for c in ("game_id", "seat", "bot", "score", "rank"))))
    byes = {stage[0].event.round: stage[0].event.byes for stage in stages}
    return pairings_of(rows), byes
