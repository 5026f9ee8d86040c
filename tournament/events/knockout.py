"""A knockout event (2 players): a seeded bracket (analysis/events.py ``bracket``), a round a stage.

Seeds are the bots' order in the config (seed 1 first). The bracket has the next power of 2 of
slots, seeds placed so the top seeds meet last (1-8, 4-5, 2-7, 3-6 for 8); the slots left empty
are byes, given to the top seeds in round 1 (recorded in the round's ``event_byes``). A match is
``pairs_per_match`` game pairs on shared deals, the two bots swapping seats on each deal (with
``match: series``: ``pairs_per_match`` two-game series, the seats alternating from one to the
next). The winner: more games won, then the higher total score, then the better seed (with
series: the total score first, as the series rule, then games won, then the seed).

Game ids ``k<round>-m<slot>-d<deal>-a<arrangement>``; round r plays league deals
``(r - 1) * pairs_per_match`` to ``r * pairs_per_match - 1``.
"""
from __future__ import annotations

from analysis.events import bracket, bracket_size

from ..scheduler import EventPlace, GameSpec, deal_seed, series_games
from ..stages import Results
from .pairings import pairing_games, played_pairings


class KnockoutSchedule:
    """A knockout as a schedule of the league driver."""

    def __init__(self, config):
        self.config = config
        self.names = [b.name for b in config.bots]
        self.series = config.match == "series"
        self.per_pairing = 2 * config.pairs_per_match  # a match's games: two per pair, or per series
        self.total = (len(self.names) - 1) * self.per_pairing

    def next_games(self, results: Results) -> list[GameSpec] | None:
        pairings, _ = played_pairings(results)
        rounds = bracket(self.names, pairings, self.series)
        todo = [m for m in rounds[-1] if m.winner is None]
        if not todo:
            return None
        rnd, c = rounds[-1][0].round, self.config
        byes = tuple(m.bots[0] for m in rounds[-1] if m.decided_by == "bye")
        index = {name: i for i, name in enumerate(self.names)}
        size = bracket_size(len(self.names))
        first_table = size - (size >> (rnd - 1))  # the matches of the rounds before
        deals = range((rnd - 1) * c.pairs_per_match, rnd * c.pairs_per_match)
        games = []
        for m in todo:
            members = tuple(sorted(index[b] for b in m.bots))  # the better seed first
            place, table, prefix = EventPlace(rnd, m.slot, byes), first_table + m.slot - 1, f"k{rnd:02d}-m{m.slot:03d}"
            if not self.series:
                games += pairing_games(prefix, members, place, table, list(deals), c.seed, "rotate", False)
                continue
            for i, d in enumerate(deals):  # a series a deal, the seats alternating
                a = i % 2
                seats = members if a == 0 else members[::-1]
                spec = GameSpec(f"{prefix}-d{d:05d}-a{a:02d}", table, d, a, deal_seed(c.seed, d), seats, event=place)
                games += series_games(spec)
        return games
