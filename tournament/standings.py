"""Standings of a league from its records: games, wins, points, faults and the Elo of each bot.

While a league plays, the driver keeps only a running tally (a few numbers a bot). The rating in
the standings comes from the analysis package once the records are on disk: the same fit as
``azul elo`` (Bradley-Terry with a first-mover term for 2 players, Plackett-Luce with seat terms
for 3 and 4; the mean bot at 0), without the bootstrap, so without intervals.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from analysis.totals import bot_totals
from records.parts import committed_parts
from records.read import read_table
from records.store import RunStore


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
    elo: float | None = None  # None: no recorded game to rate it on, or withheld (faults)

    def as_dict(self) -> dict:
        return asdict(self)


class Tally:
    """Running totals: what the driver keeps while a league plays (a few numbers a bot).

    Each batch of games adds its per-bot totals (``analysis.totals.bot_totals``, the count behind
    every standings table), so the league's table and ``azul standings`` count alike."""

    def __init__(self, bots: list[str]):
        self.bots = list(bots)
        self.games = defaultdict(int)
        self.wins = defaultdict(int)
        self.shared = defaultdict(int)
        self.points = defaultdict(float)  # the sum of final scores
        self.share = defaultdict(float)
        self.rank_sum = defaultdict(float)
        self.faults = defaultdict(int)
        self.seated = defaultdict(int)  # games the bot took part in, its self-play games included
        self.failures: dict[str, int] = defaultdict(int)  # termination -> games
        self.total = 0

    def add_game(self, names: list[str], scores: list[int], ranks: list[int],
                 termination: str, fault_seat: int | None) -> None:
        """Count one game, as ``add_tables`` counts a batch."""
        bots = sorted(set(names))
        seat = np.arange(len(names))
        self._add([termination], bots, np.zeros(len(names), np.int64),
                  np.array([bots.index(n) for n in names]), np.array(scores), np.array(ranks),
                  seat == (-1 if fault_seat is None else fault_seat))

    def add_tables(self, games: pa.Table, results: pa.Table) -> None:
        """Add recorded games (a ``games`` and a ``results`` table of the same games), in game-id
        order; a results row whose game is not in ``games`` is left out."""
        r = results.select(["game_id", "seat", "bot", "score", "rank"])
        r = r.filter(pc.is_in(r["game_id"], value_set=games["game_id"])).sort_by([("game_id", "ascending"),
                                                                                   ("seat", "ascending")])
        if r.num_rows == 0:
            return
        gid = r["game_id"].combine_chunks()
        new_game = np.ones(len(gid), bool)
        new_game[1:] = pc.not_equal(gid[1:], gid[:-1]).to_numpy(zero_copy_only=False)
        game = np.cumsum(new_game) - 1  # per row: its game, 0.. in game-id order
        names = r["bot"].combine_chunks().dictionary_encode()
        g = games.select(["game_id", "termination", "fault_seat"])
        g = g.filter(pc.is_in(g["game_id"], value_set=gid)).sort_by("game_id")
        fault_seat = pc.fill_null(g["fault_seat"].cast(pa.int32()), -1).to_numpy()  # -1: no seat faulted
        seat = r["seat"].to_numpy()
        self._add(g["termination"].to_pylist(), names.dictionary.to_pylist(), game,
                  names.indices.to_numpy(zero_copy_only=False), r["score"].to_numpy(),
                  r["rank"].to_numpy(), seat == fault_seat[game])

    def _add(self, terminations, names, game, bot, score, rank, faulted) -> None:
        self.total += len(terminations)
        for t in terminations:
            if t != "normal":
                self.failures[t] += 1
        sums = bot_totals(game, bot, len(names), score, rank, faulted)
        for i, name in enumerate(names):
            for key in ("seated", "games", "wins", "shared", "faults"):
                getattr(self, key)[name] += int(sums[key][i])
            for key, total in (("points", "score"), ("share", "share"), ("rank_sum", "rank_sum")):
                getattr(self, key)[name] += float(sums[total][i])

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


def ratings(records: dict) -> dict[str, float]:
    """Each bot's Elo from a run's ``games`` and ``results`` frames (``analysis.rate_by_players``,
    no bootstrap), but for the bots whose rating the faults withhold (``analysis.ratings.withhold``,
    as ``azul elo`` and the report) and those with no game against another bot."""
    from analysis import rate_by_players
    from analysis.ratings import has_rated_games, withheld_bots, withhold

    if not has_rated_games(records["results"]):  # a self-play league of one bot: none to rate
        return {}
    fits = rate_by_players(records["results"], records["games"], bootstrap=0)
    hidden = withheld_bots(records["results"], records["games"])
    return {row["bot"]: row["rating"] for fit in fits.values()
            for row in withhold(fit.table, hidden).iter_rows(named=True)
            if row["rating"] is not None and row["games"]}  # a bot with no counted game: no rating


def league_tally(run: RunStore, bots: list[str]) -> Tally:
    """The running tally of a run's records on disk (every committed game), without ratings."""
    tally = Tally(bots)
    tally.add_tables(read_table(run, "games", ["game_id", "termination", "fault_seat"]),
                     read_table(run, "results", ["game_id", "seat", "bot", "score", "rank"]))
    return tally


def league_standings(run: RunStore, bots: list[str]) -> tuple[list[BotStanding], Tally]:
    """Standings from a run's records on disk (every committed game), rated: the folder is
    checked and read once (``analysis.records``) for the tally and the ratings."""
    tally = Tally(bots)
    folder = RunStore(run).view()  # analysis reads the run's folder
    if not committed_parts(folder):
        return tally.standings(), tally
    from analysis.records import read_records

    records = read_records(folder)
    tally.add_tables(records["games"].to_arrow(), records["results"].to_arrow())
    return tally.standings(ratings(records)), tally
