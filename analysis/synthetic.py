"""Synthetic leagues from known strengths, for testing the rating fits.

``synthetic_league``: 2 players. Every pair of bots is a table; each deal is played twice, seats
swapped. A game's outcome follows the Elo model ``P(seat 0 wins) = 1 / (1 + 10 ** (-(R_0 - R_1 +
edge) / 400))``. The two games of a deal share the deal's luck: one uniform draw ``u`` per deal
decides both (the table's first bot wins when ``u`` is below its probability of winning that
game), so each game follows the model exactly while the games of a deal are strongly correlated,
as the games of a real deal are. A bootstrap that resamples games rather than deals then gives
intervals that are too narrow.

``synthetic_multi_league``: 3 or 4 players (or 2), finishing orders from the Plackett-Luce model,
the deal's luck shared by its seat rotations in the same way (see its docstring).
"""
from __future__ import annotations

from itertools import combinations, product
from pathlib import Path

import numpy as np
import polars as pl

from records.columns import WRITE_ORDER
from records.parts import part_path, write_file
from records.tables import build_table


def synthetic_league(strengths: list[tuple[str, float]], deals: int, *, edge: float = 50.0,
                     seed: int = 0, run_id: str = "synthetic",
                     shared_luck: bool = True) -> dict[str, pl.DataFrame]:
    """``{"games": ..., "results": ...}`` in the columns of a league's records (docs/league.md)."""
    rng = np.random.default_rng(seed)
    games: dict[str, list] = {k: [] for k in ("game_id", "table", "deal", "arrangement")}
    res: dict[str, list] = {k: [] for k in ("game_id", "seat", "bot", "score", "rank")}
    for t, (a, b) in enumerate(combinations(range(len(strengths)), 2)):
        for d in range(deals):
            u = rng.random()
            for arr, (s0, s1) in enumerate(((a, b), (b, a))):
                diff = strengths[s0][1] - strengths[s1][1] + edge
                p = 1.0 / (1.0 + 10.0 ** (-diff / 400.0))
                # the deal's luck favours the table's first bot (a) in both seatings
                p_a = p if s0 == a else 1.0 - p
                a_wins = (u if shared_luck else rng.random()) < p_a
                win0 = a_wins == (s0 == a)
                gid = f"t{t:03d}-d{d:05d}-a{arr:02d}"
                for key, val in zip(games, (gid, t, d, arr)):
                    games[key].append(val)
                for seat, who, won in ((0, s0, win0), (1, s1, not win0)):
                    for key, val in zip(res, (gid, seat, strengths[who][0], 60 if won else 40,
                                              1 if won else 2)):
                        res[key].append(val)
    return _frames(games, res, run_id, players=2)


def synthetic_multi_league(strengths: list[tuple[str, float]], deals: int, players: int, *,
                           seat_edge: float = 50.0, tie_rate: float = 0.05, seed: int = 0,
                           run_id: str = "synthetic", seatings: list[list[tuple[int, ...]]] | None = None,
                           after: dict[tuple[str, str], float] | None = None) -> dict[str, pl.DataFrame]:
    """A league of ``players``-player games (every set of ``players`` bots a table, each deal
    played in every cyclic rotation of the seats), in the columns of ``synthetic_league``.
    ``seatings``: the seat arrangements of each deal of a block instead (deal d plays
    ``seatings[d % len(seatings)]``, lists of one length, each ``arr`` with ``arr[s]`` the table
    member in seat s, as ``tournament.scheduler.seat_blocks`` gives them).

    Finishing orders follow Plackett-Luce: seat ``s`` of bot ``b`` finishes by descending
    ``R_b / k + (seat_edge / k if s == 0 else 0) + A / k + g_b`` (``k = 400 / ln 10``), where
    ``A`` is ``after[(p, b)]`` when bot ``p`` sits in seat s - 1 (cyclically: it moves just before
    ``b``), else 0; with one Gumbel draw ``g_b`` per bot and deal shared by the deal's seatings
    (the deal's luck). Ties: one
    adjacent pair of finishers per game, chosen at random, shares its rank with probability
    ``2 * tie_rate * q``, where ``q`` is the chance of the pair's other order; with that rule
    counting a tie as half of each order (as the fits do) stays unbiased. ``tie_rate`` (0..0.5) is
    the tie rate of a pair of equal strength.
    """
    if not 2 <= players <= len(strengths):
        raise ValueError(f"players must be 2..{len(strengths)} (the number of bots), not {players}")
    if not 0.0 <= tie_rate <= 0.5:
        raise ValueError(f"tie_rate must be 0..0.5, not {tie_rate}")
    rng = np.random.default_rng(seed)
    scale = 400.0 / np.log(10.0)
    games: dict[str, list] = {k: [] for k in ("game_id", "table", "deal", "arrangement")}
    res: dict[str, list] = {k: [] for k in ("game_id", "seat", "bot", "score", "rank")}
    edge = np.zeros(players)
    edge[0] = seat_edge / scale
    blocks = seatings or [[tuple((s + r) % players for s in range(players)) for r in range(players)]]
    after = after or {}
    for t, members in enumerate(combinations(range(len(strengths)), players)):
        luck = rng.gumbel(size=(deals, players))  # per deal and table member
        for b, arr in product(range(len(blocks)), range(len(blocks[0]))):
            member = list(blocks[b][arr])  # table member in seat s
            dealt = np.arange(b, deals, len(blocks))
            rows = np.arange(len(dealt))
            names = [strengths[members[m]][0] for m in member]
            bonus = [after.get((names[s - 1], names[s]), 0.0) for s in range(players)]
            eta = np.array([(strengths[members[m]][1] + a) / scale for m, a in zip(member, bonus)]) + edge
            order = np.argsort(-(eta + luck[np.ix_(dealt, member)]), axis=1, kind="stable")  # seats, best first
            w = np.exp(eta)[order]
            pos = rng.integers(0, players - 1, size=len(dealt))
            left = np.where(np.arange(players) >= pos[:, None], w, 0.0).sum(axis=1)
            wx, wy = w[rows, pos], w[rows, pos + 1]
            other = 1.0 / (1.0 + (left - wy) / (left - wx))  # chance of the swapped order
            tie = rng.random(len(dealt)) < 2 * tie_rate * other
            rank = np.tile(np.arange(1, players + 1), (len(dealt), 1))
            rank[rows[tie], pos[tie] + 1] = pos[tie] + 1
            seat_rank = np.empty_like(rank)
            np.put_along_axis(seat_rank, order, rank, axis=1)
            gids = [f"t{t:03d}-d{d:05d}-a{arr:02d}" for d in dealt]
            for key, val in zip(games, (gids, [t] * len(dealt), dealt.tolist(), [arr] * len(dealt))):
                games[key].extend(val)
            for key, val in zip(res, (np.repeat(gids, players).tolist(),
                                      list(range(players)) * len(dealt), names * len(dealt),
                                      (70 - 10 * seat_rank).ravel().tolist(),
                                      seat_rank.ravel().tolist())):
                res[key].extend(val)
    return _frames(games, res, run_id, players=players)


def _frames(games: dict[str, list], res: dict[str, list], run_id: str,
            players: int) -> dict[str, pl.DataFrame]:
    """The ``games`` and ``results`` frames of the rows gathered by a synthetic league, in the
    columns and types of a league's records (``records.tables.build_table``)."""
    n, m = len(games["game_id"]), len(res["game_id"])
    g = build_table("games", {
        **games, "deal_seed": games["deal"], "variant": ["colored"] * n, "num_players": [players] * n,
        "rounds": [5] * n, "plies": [60] * n, "termination": ["normal"] * n, "error": [None] * n,
        "duration_s": [0.01] * n, "engine_version": ["synthetic"] * n, "fault_seat": [None] * n,
        "series_id": [None] * n, "series_game": [None] * n}, run_id)
    zeros = [0] * m
    r = build_table("results", {
        **res, "is_winner": [rk == 1 for rk in res["rank"]], "complete_rows": zeros, "complete_columns": zeros,
        "complete_colors": zeros, "bonus_points": zeros, "floor_penalty_total": zeros}, run_id)
    return {"games": pl.from_arrow(g), "results": pl.from_arrow(r)}


def write_league(tables: dict[str, pl.DataFrame], run_dir: str | Path) -> Path:
    """Write the frames of ``synthetic_league`` as a run folder (``<table>/part-000001.parquet``),
    as a league writes its parts (``records.parts``); only the tables given (no moves or rounds)."""
    run_dir = Path(run_dir)
    for name in WRITE_ORDER:
        if name not in tables:
            continue
        frame = tables[name]
        run_ids = frame["run_id"].unique().to_list()
        if len(run_ids) != 1:
            raise ValueError(f"the {name} frame holds {len(run_ids)} run ids, not one: {run_ids[:3]}")
        (run_dir / name).mkdir(parents=True, exist_ok=True)
        columns = {c: frame[c].to_list() for c in frame.columns if c != "run_id"}
        write_file(build_table(name, columns, run_ids[0]), part_path(run_dir, name, 1))
    return run_dir


def synthetic_luck_league(skills: list[tuple[str, float]], deals: int, players: int, *,
                          seat_effects: list[float] | None = None, deal_sd: float = 5.0,
                          suit_sd: float = 3.0, noise: float = 6.0, seed: int = 0,
                          run_id: str = "synthetic") -> dict[str, pl.DataFrame]:
    """A league with planted luck and skill (for ``analysis.luck``), in the columns of
    ``synthetic_league``: every set of ``players`` bots a table, each deal played in every cyclic
    rotation of the seats. Seat ``s`` of bot ``b`` (table member ``m``) on deal ``d`` scores

        50 + skill[b] + seat_effects[s] + D_d + U_dm + noise * G

    rounded to a whole number: ``D_d`` ~ N(0, deal_sd^2) is the deal's level (every seat alike),
    ``U_dm`` ~ N(0, suit_sd^2) the deal's favour of one member (in every seat it takes), ``G`` a
    standard Gumbel draw per seat and game (the play's own randomness: variance pi^2 / 6 times
    ``noise^2``). Ranks follow the unrounded points (no ties), so a rounded score can equal the
    next seat's. ``seat_effects`` defaults to no edge."""
    if not 2 <= players <= len(skills):
        raise ValueError(f"players must be 2..{len(skills)} (the number of bots), not {players}")
    seat_effects = [0.0] * players if seat_effects is None else list(seat_effects)
    if len(seat_effects) != players:
        raise ValueError(f"seat_effects: {players} values, one a seat, not {len(seat_effects)}")
    rng = np.random.default_rng(seed)
    games: dict[str, list] = {k: [] for k in ("game_id", "table", "deal", "arrangement")}
    res: dict[str, list] = {k: [] for k in ("game_id", "seat", "bot", "score", "rank")}
    for t, members in enumerate(combinations(range(len(skills)), players)):
        level = rng.normal(0.0, deal_sd, size=deals)
        suit = rng.normal(0.0, suit_sd, size=(deals, players))  # per deal and table member
        for arr in range(players):
            member = [(s + arr) % players for s in range(players)]  # table member in seat s
            value = (np.array([skills[members[m]][1] for m in member]) + np.array(seat_effects)
                     + level[:, None] + suit[:, member] + noise * rng.gumbel(size=(deals, players)))
            rank = np.argsort(np.argsort(-value, axis=1), axis=1) + 1
            gids = [f"t{t:03d}-d{d:05d}-a{arr:02d}" for d in range(deals)]
            for key, val in zip(games, (gids, [t] * deals, list(range(deals)), [arr] * deals)):
                games[key].extend(val)
            for key, val in zip(res, (np.repeat(gids, players).tolist(), list(range(players)) * deals,
                                      [skills[members[m]][0] for m in member] * deals,
                                      np.rint(50 + value).astype(int).ravel().tolist(),
                                      rank.ravel().tolist())):
                res[key].extend(val)
    return _frames(games, res, run_id, players=players)
