"""An event's standings from its games: the one count the event's schedule pairs by and every
standings table of an event shows (``azul standings --what event``, the live table, the report).

A pairing (``Pairing``) is the games one table of bots played in one round of a Swiss or knockout
event (tournament/events/: the records' ``event_round`` and ``pairing``). Between two bots of a
pairing, each game gives 1 to the one ranked above the other, 1/2 each when level
(``versus``); the pairing's result for a bot against another (``result``) is 1 when it has more of
these points than the other, 1/2 as many, 0 fewer; its round points (``points``) are the mean of
its results against the table's other bots (at 2 players: 1 a match won, 1/2 drawn, 0 lost).

Swiss standings (``swiss_standings``): points (a bye counts 1, the pairing-allocated bye of the
FIDE rules), then the tie-breaks, in this order:

1. Buchholz: the sum over its rounds of the final points of its table's opponents (their mean at
   3 and 4 players); a bye adds nothing.
2. Sonneborn-Berger: the sum over its rounds of each opponent's final points times its result
   against that opponent (divided by the opponents at the table).
3. Game points: its ``versus`` points over all its games, per opponent at the table.
4. The seed: the bot's place in the config (``bots``).

A knockout match (``match_winner``): the bot with more games won; if level, the higher total
score over the match's games; if still level, the better seed. With ``match: series`` the total
score comes first (the two-game series' rule, tournament/series.py), then games won, then the seed.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl
import yaml

from records.names import CONFIG_FILE
from records.store import RunStore


@dataclass
class Pairing:
    """One table of one round: its bots (seat order of its first game), games, points, scores."""

    round: int
    pairing: int
    bots: tuple[str, ...]
    games: int = 0
    versus: dict[tuple[str, str], float] = field(default_factory=dict)  # (a, b): a's points against b
    score: dict[str, int] = field(default_factory=dict)  # final scores added over the games

    def result(self, bot: str, other: str) -> float:
        mine, theirs = self.versus.get((bot, other), 0.0), self.versus.get((other, bot), 0.0)
        return 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0

    def opponents(self, bot: str) -> list[str]:
        return [b for b in self.bots if b != bot]

    def points(self, bot: str) -> float:
        others = self.opponents(bot)
        return sum(self.result(bot, o) for o in others) / len(others)

    def game_points(self, bot: str) -> float:
        others = self.opponents(bot)
        return sum(self.versus.get((bot, o), 0.0) for o in others) / len(others)


def pairings_of(rows: Iterable[tuple[int, int, str, int, str, int, int]]) -> list[Pairing]:
    """The pairings of an event's result rows ``(event_round, pairing, game_id, seat, bot, score,
    rank)``, in round and pairing order (the rows in any order)."""
    games: dict[tuple[int, int], dict[str, list[tuple[int, str, int, int]]]] = defaultdict(lambda: defaultdict(list))
    for rnd, number, gid, seat, bot, score, rank in rows:
        games[(rnd, number)][gid].append((seat, bot, score, rank))
    out = []
    for (rnd, number), by_game in sorted(games.items()):
        first = sorted(by_game[min(by_game)])
        p = Pairing(rnd, number, tuple(bot for _, bot, _, _ in first))
        for seats in by_game.values():
            p.games += 1
            for _, bot, score, rank in seats:
                p.score[bot] = p.score.get(bot, 0) + score
                for _, other, _, other_rank in seats:
                    if other != bot:
                        got = 1.0 if rank < other_rank else 0.5 if rank == other_rank else 0.0
                        p.versus[(bot, other)] = p.versus.get((bot, other), 0.0) + got
        out.append(p)
    return out


@dataclass
class SwissRow:
    """A bot's line of the Swiss standings (see the module's docstring for the tie-breaks)."""

    place: int
    bot: str
    points: float
    buchholz: float
    sonneborn_berger: float
    game_points: float
    rounds: int  # rounds played at a table
    byes: int
    games: int
    opponents: list[str]

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def swiss_points(bots: list[str], pairings: list[Pairing], byes: dict[int, tuple[str, ...]]) -> dict[str, float]:
    """Each bot's Swiss points: its round points, 1 a bye."""
    points = dict.fromkeys(bots, 0.0)
    for p in pairings:
        for b in p.bots:
            points[b] += p.points(b)
    for names in byes.values():
        for b in names:
            points[b] += 1.0
    return points


def swiss_standings(bots: list[str], pairings: list[Pairing], byes: dict[int, tuple[str, ...]]) -> list[SwissRow]:
    """The Swiss table: points, Buchholz, Sonneborn-Berger, game points, seed (``bots``' order)."""
    points = swiss_points(bots, pairings, byes)
    rows = {b: SwissRow(0, b, points[b], 0.0, 0.0, 0.0, 0, 0, 0, []) for b in bots}
    for p in pairings:
        for b in p.bots:
            others, row = p.opponents(b), rows[b]
            row.buchholz += sum(points[o] for o in others) / len(others)
            row.sonneborn_berger += sum(points[o] * p.result(b, o) for o in others) / len(others)
            row.game_points += p.game_points(b)
            row.rounds += 1
            row.games += p.games
            row.opponents += others
    for names in byes.values():
        for b in names:
            rows[b].byes += 1
    seed = {b: i for i, b in enumerate(bots)}
    table = sorted(rows.values(), key=lambda r: (-r.points, -r.buchholz, -r.sonneborn_berger,
                                                 -r.game_points, seed[r.bot]))
    for i, r in enumerate(table, 1):
        r.place = i
    return table


def match_winner(p: Pairing, seeds: dict[str, int], series: bool = False) -> tuple[str, str]:
    """The winner of a 2-bot knockout match and what decided it (``games``, ``score``, ``seed``)."""
    a, b = sorted(p.bots, key=seeds.__getitem__)
    wins = (p.versus.get((a, b), 0.0), p.versus.get((b, a), 0.0))
    score = (p.score.get(a, 0), p.score.get(b, 0))
    order = (("score", score), ("games", wins)) if series else (("games", wins), ("score", score))
    for how, (x, y) in order:
        if x != y:
            return (a if x > y else b), how
    return a, "seed"


def bracket_order(size: int) -> list[int]:
    """The seeds (1-based) of a bracket of ``size`` (a power of 2) in slot order, the top seeds
    apart: 8 gives 1, 8, 4, 5, 2, 7, 3, 6 (1 meets 2 in the final only if both win through)."""
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [x for s in order for x in (s, total - s)]
    return order


def bracket_size(bots: int) -> int:
    return 1 << max(bots - 1, 1).bit_length()


@dataclass
class Match:
    """A knockout match: its round and slot, the two bots (or one, a bye), and its outcome."""

    round: int
    slot: int
    bots: tuple[str, ...]
    winner: str | None = None  # None: not played yet
    decided_by: str = ""  # games, score, seed; bye
    pairing: Pairing | None = None

    def as_dict(self) -> dict:
        p = self.pairing
        return {"round": self.round, "slot": self.slot, "bots": list(self.bots), "winner": self.winner,
                "decided_by": self.decided_by, "games": p.games if p else 0,
                "won": [p.versus.get((b, o), 0.0) for b, o in zip(self.bots, self.bots[::-1])] if p else [],
                "score": [p.score.get(b, 0) for b in self.bots] if p else []}


def bracket(bots: list[str], pairings: list[Pairing], series: bool = False) -> list[list[Match]]:
    """The knockout bracket of ``bots`` (in seed order) as it stands after ``pairings``: its rounds,
    each a list of matches in slot order; a round whose entrants are not all known yet is left out."""
    size = bracket_size(len(bots))
    seeds = {b: i for i, b in enumerate(bots)}
    played = {(p.round, p.pairing): p for p in pairings}
    order = bracket_order(size)
    entrants: list[str | None] = [bots[s - 1] if s <= len(bots) else None for s in order]
    rounds, rnd = [], 1
    while len(entrants) > 1:
        matches = []
        for slot in range(1, len(entrants) // 2 + 1):
            pair = tuple(b for b in entrants[2 * slot - 2:2 * slot] if b is not None)
            m = Match(rnd, slot, pair)
            if len(pair) == 1:
                m.winner, m.decided_by = pair[0], "bye"
            elif (rnd, slot) in played:
                m.pairing = played[(rnd, slot)]
                m.winner, m.decided_by = match_winner(m.pairing, seeds, series)
            matches.append(m)
        rounds.append(matches)
        if any(m.winner is None for m in matches):
            break
        entrants = [m.winner for m in matches]
        rnd += 1
    return rounds


def champion(rounds: list[list[Match]]) -> str | None:
    """The bracket's winner, once its final is played."""
    last = rounds[-1] if rounds else []
    return last[0].winner if len(last) == 1 else None


# ---------------------------------------------------------------- from the records
def event_pairings(results: pl.DataFrame, games: pl.DataFrame) -> tuple[list[Pairing], dict[int, tuple[str, ...]]]:
    """The pairings and the byes (per round) of one event's records (``games`` with the event
    columns, ``results``)."""
    if "event_round" not in games.columns:
        return [], {}
    ev = games.filter(pl.col("event_round").is_not_null()).select("run_id", "game_id", "event_round", "pairing",
                                                                  "event_byes")
    byes = {r: tuple(b or ()) for r, b in ev.group_by("event_round").agg(pl.col("event_byes").first())
            .sort("event_round").iter_rows()}
    rows = results.join(ev, on=["run_id", "game_id"]).select("event_round", "pairing", "game_id", "seat", "bot",
                                                              "score", "rank")
    return pairings_of(rows.iter_rows()), byes


def gauntlet_table(results: pl.DataFrame, games: pl.DataFrame, challengers: list[str]) -> pl.DataFrame:
    """Each challenger against each pool bot it met: games, points (a game ranked above the pool
    bot 1, level 1/2), their rate, and its mean score less the pool bot's."""
    r = results.join(games.select("run_id", "game_id"), on=["run_id", "game_id"])
    pair = r.join(r, on=["run_id", "game_id"], suffix="_o").filter(
        pl.col("bot").is_in(challengers) & ~pl.col("bot_o").is_in(challengers))
    pair = pair.with_columns(points=pl.when(pl.col("rank") < pl.col("rank_o")).then(1.0)
                             .when(pl.col("rank") == pl.col("rank_o")).then(0.5).otherwise(0.0))
    return (pair.group_by("bot", "bot_o").agg(games=pl.len(), points=pl.col("points").sum(),
                                             margin=(pl.col("score") - pl.col("score_o")).mean())
            .with_columns(rate=pl.col("points") / pl.col("games")).rename({"bot": "challenger", "bot_o": "pool_bot"})
            .sort("challenger", "pool_bot").select("challenger", "pool_bot", "games", "points", "rate", "margin"))


# ---------------------------------------------------------------- an event's standings, whole
def event_settings(run_dir: str | Path) -> dict | None:
    """The event a run folder holds, from its config.yaml: ``format``, ``bots`` (names in seed
    order), ``challengers``, ``series``; None for a round-robin (or a folder without a config)."""
    try:
        config = yaml.safe_load(RunStore(run_dir).read_text(CONFIG_FILE))
    except (OSError, yaml.YAMLError):
        return None
    if not isinstance(config, dict) or config.get("format", "round-robin") == "round-robin":
        return None
    return {"format": config["format"], "bots": [b["name"] for b in config.get("bots", [])],
            "challengers": list(config.get("challengers") or []), "series": config.get("match") == "series"}


@dataclass
class EventStandings:
    """An event's own table: the Swiss table, the knockout bracket or the gauntlet's table."""

    run_dir: str
    format: str
    bots: list[str]
    swiss: list[SwissRow] = field(default_factory=list)
    bracket: list[list[Match]] = field(default_factory=list)
    gauntlet: pl.DataFrame | None = None

    def rows(self) -> list[dict]:
        """The table's rows (the bracket's matches, round by round)."""
        if self.format == "swiss":
            return [r.as_dict() for r in self.swiss]
        if self.format == "knockout":
            return [m.as_dict() for matches in self.bracket for m in matches]
        return self.gauntlet.to_dicts() if self.gauntlet is not None else []

    def as_dict(self) -> dict:
        out = {"run_dir": self.run_dir, "format": self.format, "rows": self.rows()}
        if self.format == "knockout":
            out["champion"] = champion(self.bracket)
        return out


def event_standings(run_dir: str | Path, results: pl.DataFrame, games: pl.DataFrame) -> EventStandings | None:
    """The standings of the event in ``run_dir`` from its records (``results`` and ``games``: this
    run's, or several runs' with this one's among them), or None when it holds no event."""
    settings = event_settings(run_dir)
    if settings is None:
        return None
    from records.folder import run_id_of

    run_id = run_id_of(run_dir)
    if run_id is not None and "run_id" in games.columns:
        games, results = games.filter(pl.col("run_id") == run_id), results.filter(pl.col("run_id") == run_id)
    out = EventStandings(str(run_dir), settings["format"], settings["bots"])
    if out.format == "gauntlet":
        out.gauntlet = gauntlet_table(results, games, settings["challengers"])
        return out
    pairings, byes = event_pairings(results, games)
    if out.format == "swiss":
        out.swiss = swiss_standings(out.bots, pairings, byes)
    else:
        out.bracket = bracket(out.bots, pairings, settings["series"])
    return out
