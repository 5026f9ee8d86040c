"""Standings of a league from its records: games, wins, points, faults and a quick Elo per bot.

The rating here is a provisional one until the analysis package lands: a Bradley-Terry fit of
every pair of seats at every table (the better-ranked seat wins the pair, a shared rank is half
a win each), on the Elo scale with the mean bot at 1500 and one virtual draw between every two
bots so that a bot that never wins still gets a finite rating.
"""
from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path

import pyarrow as pa

from .records import read_table

ELO_MEAN = 1500.0


@dataclass
class BotStanding:
    bot: str
    games: int = 0
    wins: int = 0
    win_rate: float = 0.0
    mean_score: float = 0.0
    score_share: float = 0.0  # the bot's points over all points at its tables, game by game
    mean_rank: float = 0.0
    faults: int = 0  # games this bot forfeited (error, illegal move, timeout)
    elo: float = ELO_MEAN

    def as_dict(self) -> dict:
        return asdict(self)


class Tally:
    """Running totals, game by game: what the driver keeps while a league plays (a few numbers a bot)."""

    def __init__(self, bots: list[str]):
        self.bots = list(bots)
        self.games = defaultdict(int)
        self.wins = defaultdict(int)
        self.points = defaultdict(float)
        self.share = defaultdict(float)
        self.rank_sum = defaultdict(float)
        self.faults = defaultdict(int)
        self.pairs: dict[tuple[str, str], float] = defaultdict(float)  # (a, b): a's wins over b
        self.failures: dict[str, int] = defaultdict(int)  # termination -> games
        self.total = 0

    def add_game(self, names: list[str], scores: list[int], ranks: list[int],
                 termination: str, fault_seat: int | None) -> None:
        self.total += 1
        if termination != "normal":
            self.failures[termination] += 1
        table_points = sum(scores)
        for s, name in enumerate(names):
            self.games[name] += 1
            self.wins[name] += ranks[s] == 1
            self.points[name] += scores[s]
            self.share[name] += scores[s] / table_points if table_points else 1 / len(names)
            self.rank_sum[name] += ranks[s]
            if fault_seat == s:
                self.faults[name] += 1
        for i in range(len(names)):
            for j in range(i + 1, len(names)):
                a, b = names[i], names[j]
                if ranks[i] < ranks[j]:
                    self.pairs[a, b] += 1
                elif ranks[j] < ranks[i]:
                    self.pairs[b, a] += 1
                else:
                    self.pairs[a, b] += 0.5
                    self.pairs[b, a] += 0.5

    def add_tables(self, games: pa.Table, results: pa.Table) -> None:
        """Add recorded games (a ``games`` and a ``results`` table of the same games)."""
        g = games.select(["game_id", "termination", "fault_seat"]).to_pydict()
        info = {gid: (t, f) for gid, t, f in zip(g["game_id"], g["termination"], g["fault_seat"])}
        r = results.select(["game_id", "seat", "bot", "score", "rank"]).to_pydict()
        by_game: dict[str, list] = defaultdict(list)
        for gid, seat, bot, score, rank in zip(r["game_id"], r["seat"], r["bot"], r["score"], r["rank"]):
            by_game[gid].append((seat, bot, score, rank))
        for gid in sorted(by_game):  # in game order: the same sums however the games arrived
            if gid not in info:
                continue
            rows = sorted(by_game[gid])
            termination, fault_seat = info[gid]
            self.add_game([x[1] for x in rows], [x[2] for x in rows], [x[3] for x in rows],
                          termination, fault_seat)

    def leader(self) -> tuple[str, float] | None:
        """The bot with the best win rate so far, and that rate."""
        played = [b for b in self.bots if self.games[b]]
        if not played:
            return None
        best = max(played, key=lambda b: (self.wins[b] / self.games[b], self.share[b] / self.games[b]))
        return best, self.wins[best] / self.games[best]

    def standings(self) -> list[BotStanding]:
        """One row per bot, best first (by rating, then win rate)."""
        elo = bradley_terry_elo(self.bots, self.pairs)
        rows = []
        for b in self.bots:
            n = self.games[b]
            rows.append(BotStanding(
                bot=b, games=n, wins=self.wins[b], win_rate=self.wins[b] / n if n else 0.0,
                mean_score=self.points[b] / n if n else 0.0, score_share=self.share[b] / n if n else 0.0,
                mean_rank=self.rank_sum[b] / n if n else 0.0, faults=self.faults[b], elo=elo[b]))
        rows.sort(key=lambda r: (-r.elo, -r.win_rate, r.bot))
        return rows


def bradley_terry_elo(bots: list[str], pairs: dict[tuple[str, str], float], iterations: int = 200) -> dict[str, float]:
    """Elo-scale ratings (mean 1500) from pairwise wins, by the minorization-maximization fit."""
    if not bots:
        return {}
    wins = {b: 0.0 for b in bots}
    games: dict[tuple[str, str], float] = defaultdict(float)
    for (a, b), w in pairs.items():
        if a in wins and b in wins:
            wins[a] += w
            games[min(a, b), max(a, b)] += w
    for i, a in enumerate(bots):  # one virtual draw between every two bots
        for b in bots[i + 1:]:
            wins[a] += 0.5
            wins[b] += 0.5
            games[min(a, b), max(a, b)] += 1.0
    strength = {b: 1.0 for b in bots}
    for _ in range(iterations):
        new = {}
        for a in bots:
            denom = 0.0
            for b in bots:
                if a != b:
                    n = games.get((min(a, b), max(a, b)), 0.0)
                    if n:
                        denom += n / (strength[a] + strength[b])
            new[a] = wins[a] / denom if denom else strength[a]
        mean_log = sum(math.log(v) for v in new.values()) / len(new)
        strength = {b: v / math.exp(mean_log) for b, v in new.items()}
    return {b: ELO_MEAN + 400.0 * math.log10(strength[b]) for b in bots}


def league_standings(run_dir: str | Path, bots: list[str]) -> tuple[list[BotStanding], Tally]:
    """Standings from a run's records on disk (every committed game)."""
    tally = Tally(bots)
    tally.add_tables(read_table(run_dir, "games", ["game_id", "termination", "fault_seat"]),
                     read_table(run_dir, "results", ["game_id", "seat", "bot", "score", "rank"]))
    return tally.standings(), tally
