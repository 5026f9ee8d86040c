"""A Swiss event: ``rounds`` rounds; each round seats the bots at tables of ``players`` by their
points so far, each table (a pairing) playing the config's ``deals`` in every seat arrangement (or
the two-game series of each, ``match: series``). Round 1 pairs from the seeds (the bots' order in
the config); each later round from the records of the rounds before it (analysis/events.py).

Pairing rules (after FIDE's Dutch system, C.04.3, simplified as said):

1. Order: the bots by points, then seed. (FIDE also orders by points, then pairing number.)
2. Byes: with ``n`` bots, ``n mod players`` of them sit out the round, each with a bye worth 1
   point: the lowest in the order among those with the fewest byes so far (FIDE: the lowest
   player who has not had one).
3. Tables: the first bot not yet seated takes the first candidates that keep every pair at the
   table new (no two bots meet twice while that can be avoided); at 2 players its candidates are
   the bots of its score group from the middle down (the top half meets the bottom half: 1-5,
   2-6, 3-7, 4-8 in a group of 8), then the groups below, in order; at 3 and 4 players the
   tables are cut from the order in turn (grouped by score), a later bot taking a place when an
   earlier would repeat a pair. The search backtracks (whole pairings tried in that order), so it
   finds a pairing without repeats whenever one exists; after ``SEARCH_BUDGET`` tries it takes
   the pairing with the fewest repeats a greedy pass finds. Simplified away: FIDE's colour
   preferences (every pairing plays every seat arrangement, so the seats are balanced within each
   pairing by construction), floaters' histories and its transposition and exchange order.

Game ids ``r<round>-p<pairing>-d<deal>-a<arrangement>``; round r plays league deals
``(r - 1) * deals`` to ``r * deals - 1``.
"""
from __future__ import annotations

import itertools

from ..scheduler import SERIES_GAMES, EventPlace, GameSpec, arrangements
from ..stages import Results
from .pairings import pairing_games, played_pairings

SEARCH_BUDGET = 20000  # tables tried before the fewest-repeats fallback


class SwissSchedule:
    """A Swiss event as a schedule of the league driver: a round a stage."""

    def __init__(self, config):
        self.config = config
        self.names = [b.name for b in config.bots]
        n, k = len(self.names), config.players
        self.per_pairing = config.deals * len(arrangements(k, config.seats)) * (
            SERIES_GAMES if config.match == "series" else 1)
        self.total = config.rounds * (n // k) * self.per_pairing
        self.count = SwissCount(self.names)

    def next_games(self, results: Results) -> list[GameSpec] | None:
        done = len(results.stages)
        if done == self.config.rounds:
            return None
        self.count.read(results)
        points = self.count.points()
        order = sorted(range(len(self.names)), key=lambda i: (-points[i], i))
        tables, out = swiss_round(order, points, self.count.met, self.count.byes, self.config.players)
        rnd, c = done + 1, self.config
        place_byes = tuple(self.names[i] for i in out)
        deals = list(range((rnd - 1) * c.deals, rnd * c.deals))
        games = []
        for p, members in enumerate(tables, 1):
            games += pairing_games(f"r{rnd:03d}-p{p:03d}", members, EventPlace(rnd, p, place_byes),
                                   (rnd - 1) * len(tables) + p - 1, deals, c.seed, c.seats, c.match == "series")
        return games


class SwissCount:
    """What a Swiss round is paired from, kept round by round: each bot's points, the byes it has
    had and the pairs of bots that have met. ``read`` adds only the rounds played since it last
    read (the schedule is asked with the stages so far, one more each time), so pairing a round
    costs the same after 1,000 rounds as after one. The points are the floats of
    ``analysis.events.swiss_points`` (the table's): each bot's round points added in round order,
    then a point a bye, one at a time."""

    def __init__(self, names: list[str]):
        self.names = names
        self.index = {name: i for i, name in enumerate(names)}
        self.rounds = 0  # the stages read
        self.round_points = [0.0] * len(names)  # the sum of each bot's round points at a table
        self.byes = [0] * len(names)
        self.met: set[frozenset] = set()

    def read(self, results: Results) -> None:
        """Add the rounds of ``results`` not read yet (all of them, counted afresh, when it holds
        fewer rounds than were read: another run's)."""
        if len(results.stages) < self.rounds:
            self.__init__(self.names)
        pairings, byes = played_pairings(results, self.rounds)
        index = self.index
        for p in pairings:
            for b in p.bots:
                self.round_points[index[b]] += p.points(b)
            self.met.update(frozenset((index[a], index[b])) for a, b in itertools.combinations(p.bots, 2))
        for names in byes.values():
            for b in names:
                self.byes[index[b]] += 1
        self.rounds = len(results.stages)

    def points(self) -> list[float]:
        """Each bot's points (in ``names``' order)."""
        out = []
        for total, byes in zip(self.round_points, self.byes):
            for _ in range(byes):  # as swiss_points adds them: the same float, at 4 players too (thirds)
                total += 1.0
            out.append(total)
        return out


def swiss_round(order: list[int], points: list[float], met: set[frozenset], byes_had: list[int],
                players: int) -> tuple[list[tuple[int, ...]], list[int]]:
    """One round's tables (bots in order: a table's best placed first) and its byes, from ``order``
    (the bots by points, then seed), ``points`` (per bot), the pairs ``met`` so far and the byes
    each bot has had. The module's docstring has the rules."""
    n_byes = len(order) % players
    by_bye = sorted(range(len(order)), key=lambda at: (byes_had[order[at]], -at))
    out = sorted((order[at] for at in by_bye[:n_byes]), key=order.index)
    rest = [b for b in order if b not in out]
    budget = [SEARCH_BUDGET]
    tables = _seat(rest, points, met, players, budget)
    if tables is None:
        tables = _greedy(rest, points, met, players)
    return tables, out


def _candidates(first: int, rest: list[int], points: list[float], players: int) -> list[int]:
    """The bots the first unseated bot looks at, in the order it tries them."""
    if players > 2:
        return rest
    group = [b for b in rest if points[b] == points[first]]
    half = (len(group) + 1) // 2  # the group with ``first``: its own half from the middle down
    lower = [b for b in rest if b not in group]
    return group[half - 1:] + group[:half - 1][::-1] + lower if group else lower


def _fresh(table: tuple[int, ...], met: set[frozenset]) -> bool:
    return all(frozenset(p) not in met for p in itertools.combinations(table, 2))


def _seat(rest: list[int], points, met, players: int, budget: list[int]) -> list[tuple[int, ...]] | None:
    """Tables without a repeated pair (backtracking), or None (none exists, or out of budget)."""
    if not rest:
        return []
    first, others = rest[0], rest[1:]
    for mates in itertools.combinations(_candidates(first, others, points, players), players - 1):
        budget[0] -= 1
        if budget[0] < 0:
            return None
        table = (first, *sorted(mates, key=rest.index))
        if not _fresh(table, met):
            continue
        left = [b for b in others if b not in mates]
        tail = _seat(left, points, met, players, budget)
        if tail is not None:
            return [table, *tail]
        if budget[0] < 0:
            return None
    return None


def _greedy(rest: list[int], points, met, players: int) -> list[tuple[int, ...]]:
    """Tables in order, each taking the candidates that repeat the fewest pairs."""
    tables = []
    while rest:
        first, others = rest[0], rest[1:]
        mates = min(itertools.combinations(_candidates(first, others, points, players), players - 1),
                    key=lambda m: sum(frozenset(p) in met for p in itertools.combinations((first, *m), 2)))
        table = (first, *sorted(mates, key=rest.index))
        tables.append(table)
        rest = [b for b in others if b not in mates]
    return tables
