"""Standings of a league from its records: games, wins, points, faults and the Elo of each bot.

While a league plays, the driver keeps only a running tally (a few numbers a bot). The rating in
the standings comes from the analysis package once the records are on disk: the same fit as
``azul elo`` (Bradley-Terry with a first-mover term for 2 players, Plackett-Luce with seat terms
for 3 and 4; the mean bot at 0), without the bootstrap, so without intervals.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from records.read import read_table


@dataclass
class BotStanding:
    bot: str
    games: int = 0
    wins: int = 0  # rank 1 alone
    shared: int = 0  # rank 1 shared with another seat
    win_rate: float = 0.0  # points per game: 1 a win, 1/2 a shared first (as in the analysis)
    mean_score: float = 0.0
    score_share: float = 0.0  # mean over its games of its score over its table's (docs/analysis.md)
    mean_rank: float = 0.0
    faults: int = 0  # games this bot forfeited (error, illegal move, timeout)
    elo: float | None = None  # None: no recorded game to rate it on

    def as_dict(self) -> dict:
        return asdict(self)


class Tally:
    """Running totals, game by game: what the driver keeps while a league plays (a few numbers a bot)."""

    def __init__(self, bots: list[str]):
        self.bots = list(bots)
        self.games = defaultdict(int)
        self.wins = defaultdict(int)
        self.shared = defaultdict(int)
        self.points = defaultdict(float)
        self.share = defaultdict(float)
        self.rank_sum = defaultdict(float)
        self.faults = defaultdict(int)
        self.seated = defaultdict(int)  # games the bot took part in, its self-play games included
        self.failures: dict[str, int] = defaultdict(int)  # termination -> games
        self.total = 0

    def add_game(self, names: list[str], scores: list[int], ranks: list[int],
                 termination: str, fault_seat: int | None) -> None:
        """Count a game; one of a bot against copies of itself (``self_play``) counts in the
        total, the failures and the bot's faults only: it would pull its rates toward 1/players."""
        self.total += 1
        if termination != "normal":
            self.failures[termination] += 1
        for name in set(names):
            self.seated[name] += 1
        if len(set(names)) == 1:
            if fault_seat is not None:
                self.faults[names[0]] += 1
            return
        table_points = sum(scores)
        firsts = ranks.count(1)
        for s, name in enumerate(names):
            self.games[name] += 1
            self.wins[name] += ranks[s] == 1 and firsts == 1
            self.shared[name] += ranks[s] == 1 and firsts > 1
            self.points[name] += scores[s]
            self.share[name] += scores[s] / table_points if table_points else 1 / len(names)
            self.rank_sum[name] += ranks[s]
            if fault_seat == s:
                self.faults[name] += 1

    def add_tables(self, games: pa.Table, results: pa.Table) -> None:
        """Add recorded games (a ``games`` and a ``results`` table of the same games).

        The same counts and sums as ``add_game`` over the games in game-id order (a results row
        whose game is not in ``games`` is left out), worked out over whole columns."""
        r = results.select(["game_id", "seat", "bot", "score", "rank"])
        r = r.filter(pc.is_in(r["game_id"], value_set=games["game_id"])).sort_by([("game_id", "ascending"),
                                                                                   ("seat", "ascending")])
        if r.num_rows == 0:
            return
        gid = r["game_id"].combine_chunks()
        new_game = np.ones(len(gid), bool)
        new_game[1:] = pc.not_equal(gid[1:], gid[:-1]).to_numpy(zero_copy_only=False)
        game = np.cumsum(new_game) - 1  # per row: its game, 0.. in game-id order
        n = int(game[-1]) + 1
        names = r["bot"].combine_chunks().dictionary_encode()
        bot = names.indices.to_numpy(zero_copy_only=False)
        seat = r["seat"].to_numpy()
        score = r["score"].to_numpy().astype(np.float64)
        rank = r["rank"].to_numpy()
        g = games.select(["game_id", "termination", "fault_seat"])
        g = g.filter(pc.is_in(g["game_id"], value_set=gid)).sort_by("game_id")
        termination = g["termination"].to_pylist()
        fault_seat = pc.fill_null(g["fault_seat"].cast(pa.int32()), -1).to_numpy()  # -1: no seat faulted
        first = np.ones(len(gid), bool)  # the row is its bot's first seat in the game
        for back in range(1, 4):
            same = np.zeros(len(gid), bool)
            same[back:] = (game[back:] == game[:-back]) & (bot[back:] == bot[:-back])
            first &= ~same
        distinct = np.bincount(game, first, n)
        players = np.bincount(game, None, n)
        table_points = np.bincount(game, score, n)
        firsts = np.bincount(game, rank == 1, n)
        faulted = seat == fault_seat[game]
        self.total += n
        for t in termination:
            if t != "normal":
                self.failures[t] += 1
        alone = distinct[game] == 1  # a bot against copies of itself
        rated = ~alone
        wins = (rank == 1) & (firsts[game] == 1)
        tp = table_points[game]
        share = np.divide(score, tp, out=1.0 / players[game], where=tp != 0)
        k = len(names.dictionary)
        sums = {
            "seated": np.bincount(bot, first, k), "games": np.bincount(bot, rated, k),
            "wins": np.bincount(bot, rated & wins, k), "shared": np.bincount(bot, rated & (rank == 1) & ~wins, k),
            "points": np.bincount(bot, np.where(rated, score, 0.0), k),
            "share": np.bincount(bot, np.where(rated, share, 0.0), k),
            "rank_sum": np.bincount(bot, np.where(rated, rank, 0.0), k),
            # a self-play game's fault is its bot's once; another game's, the faulting seat's bot's
            "faults": np.bincount(bot, (rated & faulted) | (alone & first & (fault_seat[game] >= 0)), k),
        }
        for i, name in enumerate(names.dictionary.to_pylist()):
            for key in ("seated", "games", "wins", "shared", "faults"):
                getattr(self, key)[name] += int(sums[key][i])
            for key in ("points", "share", "rank_sum"):
                getattr(self, key)[name] += float(sums[key][i])

    def leader(self) -> tuple[str, float] | None:
        """The bot with the best win rate so far, and that rate."""
        played = [b for b in self.bots if self.games[b]]
        if not played:
            return None
        best = max(played, key=lambda b: (self.win_rate(b), self.share[b] / self.games[b]))
        return best, self.win_rate(best)

    def win_rate(self, bot: str) -> float:
        """Points per game: a win 1, a shared first 1/2 (the win rate of the analysis)."""
        n = self.games[bot]
        return (self.wins[bot] + 0.5 * self.shared[bot]) / n if n else 0.0

    def forfeited_every_game(self) -> list[tuple[str, int]]:
        """(bot, games) of every bot that forfeited each game it took part in."""
        return [(b, self.seated[b]) for b in self.bots if self.seated[b] and self.faults[b] >= self.seated[b]]

    def standings(self, ratings: dict[str, float] | None = None) -> list[BotStanding]:
        """One row per bot, best first (by ``ratings``, then win rate)."""
        ratings = ratings or {}
        rows = []
        for b in self.bots:
            n = self.games[b]
            rows.append(BotStanding(
                bot=b, games=n, wins=self.wins[b], shared=self.shared[b], win_rate=self.win_rate(b),
                mean_score=self.points[b] / n if n else 0.0, score_share=self.share[b] / n if n else 0.0,
                mean_rank=self.rank_sum[b] / n if n else 0.0, faults=self.faults[b], elo=ratings.get(b)))
        rows.sort(key=lambda r: (r.elo is None, -(r.elo or 0.0), -r.win_rate, r.bot))
        return rows


def ratings(run_dir: str | Path) -> dict[str, float]:
    """Each bot's Elo from a run's records (``analysis.rate_by_players``, no bootstrap); {} if none."""
    from analysis import rate_by_players, read_records

    if not any((Path(run_dir) / "games").glob("*.parquet")):
        return {}
    records = read_records(run_dir)
    fits = rate_by_players(records["results"], records["games"], bootstrap=0)
    return {row["bot"]: row["rating"] for fit in fits.values() for row in fit.table.iter_rows(named=True)}


def league_tally(run_dir: str | Path, bots: list[str]) -> Tally:
    """The running tally of a run's records on disk (every committed game), without ratings."""
    tally = Tally(bots)
    tally.add_tables(read_table(run_dir, "games", ["game_id", "termination", "fault_seat"]),
                     read_table(run_dir, "results", ["game_id", "seat", "bot", "score", "rank"]))
    return tally


def league_standings(run_dir: str | Path, bots: list[str]) -> tuple[list[BotStanding], Tally]:
    """Standings from a run's records on disk (every committed game), rated."""
    tally = league_tally(run_dir, bots)
    return tally.standings(ratings(run_dir)), tally
