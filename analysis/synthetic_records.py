"""Synthetic run folders of 2-player games, all four tables, generated fast (for benchmarks and tests).

``write_synthetic_run(run_dir, games)`` writes ``games/``, ``results/``, ``moves/`` and ``rounds/``
as numbered part files (``part-NNNNNN.parquet``, the same numbers across the tables), built and
written as a league's are (``records.tables.build_table``, ``records.parts.write_part``), so the
analysis reads them exactly as it reads a real league. Everything is drawn with numpy, a part at a
time (no Python loop over games or moves), so a million games and some 70 million move rows take a
couple of minutes and the memory of one part.

What is realistic and what is not:

- Outcomes follow the Elo model of ``analysis.synthetic``: every pair of bots is a table, every
  deal is played twice with the seats swapped, ``P(seat 0 wins) = 1 / (1 + 10 ** (-(R_0 - R_1 +
  edge) / 400))``, and the two games of a deal share one uniform draw (the deal's luck). No game
  is shared (scores always differ), so ``rank`` is 1 or 2.
- Shapes: 5 rounds (sometimes 6 or 7), 10 to 16 plies a round (about 70 a game), seats
  alternating from the round's opener; each round has exactly one ``took_marker`` move (the first
  take from the centre, never the round's first ply; no centre take before it), and the seat that
  took the marker opens the next round. ``rounds`` rows (one per round and seat) carry the
  opener, the deal, the floor penalty of that seat's moves (``to_floor`` plus the marker, at the
  usual 1, 1, 2, 2, 2, 3, 3 costs, never taking the score below 0), wall points, and the running
  score: ``score_after`` = previous + ``wall_points`` - ``floor_penalty`` (+ end bonuses in the
  last round), which ends at ``results.score``. The winner's last-round wall points are raised
  when needed so that its score is the higher.
- The moves are **not** legal Azul: sources, colours, counts and lines are drawn from plausible
  distributions, not from the factories of the deal, and no wall is kept. They are for measuring
  the analysis's speed and exercising its queries, not for replaying.
"""
from __future__ import annotations

from itertools import combinations
from pathlib import Path

import numpy as np
import pyarrow as pa

from engine.rules import COLOURS as COLORS
from engine.rules import FLOOR_SLOTS, FLOOR_TOTALS
from records.columns import TABLES
from records.parts import has_records, write_part
from records.tables import build_table, coded

_i32, _i64, _f64, _str, _bool = pa.int32(), pa.int64(), pa.float64(), pa.string(), pa.bool_()

DEFAULT_STRENGTHS = [("mcts", 300.0), ("heuristic", 150.0), ("greedy", 0.0), ("random", -450.0)]
MAX_ROUNDS = 7
FLOOR_COST = np.array(FLOOR_TOTALS)  # penalty by floor tiles (more than the slots are lost)
_MOVES = pa.array([src + col + dst for src in "C12345" for col in COLORS for dst in "F12345"], _str)
_SOURCES = pa.array(["factory", "center"], _str)
_COLORS = pa.array(list(COLORS), _str)


def write_synthetic_run(run_dir: str | Path, games: int, *,
                        strengths: list[tuple[str, float]] | None = None, seed: int = 0,
                        run_id: str | None = None, part_games: int = 50_000,
                        edge: float = 40.0) -> Path:
    """Write ``games`` synthetic 2-player games as a run folder at ``run_dir``; return it.

    ``strengths``: ``[(bot, elo), ...]`` (default: four bots from 300 to -450); ``edge``: the
    first mover's advantage in Elo points; ``run_id``: default the folder's name. ``games`` and
    ``part_games`` must be even (a deal's two games sit in the same part).
    """
    strengths = DEFAULT_STRENGTHS if strengths is None else list(strengths)
    if len(strengths) < 2:
        raise ValueError("strengths: need at least two bots")
    if len({name for name, _ in strengths}) != len(strengths):
        raise ValueError("strengths: bot names must differ")
    if games < 2 or games % 2:
        raise ValueError(f"games must be even and at least 2 (got {games})")
    if part_games < 2 or part_games % 2:
        raise ValueError(f"part_games must be even and at least 2 (got {part_games})")
    run_dir = Path(run_dir)
    if has_records(run_dir):
        raise ValueError(f"{run_dir}: already holds records")
    run_id = run_dir.name if run_id is None else run_id
    for name in TABLES:
        (run_dir / name).mkdir(parents=True, exist_ok=True)
    tables_count = len(strengths) * (len(strengths) - 1) // 2
    width = max(5, len(str((games // 2 - 1) // tables_count)))  # digits of the deal numbers
    for number, first in enumerate(range(0, games, part_games), start=1):
        rng = np.random.default_rng([seed, number])
        tables = _part(rng, first, min(part_games, games - first), strengths, edge, run_id, width)
        write_part(run_dir, number, {name: [table] for name, table in tables.items()})
    return run_dir


# ---------------------------------------------------------------- one part
def _part(rng, first: int, n: int, strengths, edge: float, run_id: str, width: int) -> dict[str, pa.Table]:
    names = pa.array([name for name, _ in strengths], _str)
    elo = np.array([r for _, r in strengths], dtype=float)
    pairs = np.array(list(combinations(range(len(strengths)), 2)))
    g = first + np.arange(n)
    deal_global = g // 2
    arrangement = g % 2
    table = deal_global % len(pairs)
    deal = deal_global // len(pairs)
    a, b = pairs[table, 0], pairs[table, 1]
    bots = np.where(arrangement[:, None] == 0, np.stack([a, b], 1), np.stack([b, a], 1))  # (n, 2)
    # outcome: one draw per deal, shared by its two seatings
    local_deal = deal_global - deal_global[0]
    u = rng.random(local_deal[-1] + 1)[local_deal]
    p0 = 1.0 / (1.0 + 10.0 ** (-(elo[bots[:, 0]] - elo[bots[:, 1]] + edge) / 400.0))
    p_a = np.where(arrangement == 0, p0, 1.0 - p0)
    winner = np.where((u < p_a) == (arrangement == 0), 0, 1)  # the winning seat

    rounds = rng.choice([5, 6, 7], size=n, p=[0.86, 0.12, 0.02])
    live = np.arange(MAX_ROUNDS)[None, :] < rounds[:, None]  # (n, R)
    k = np.where(live, rng.integers(10, 17, size=(n, MAX_ROUNDS)), 0)  # plies per round
    marker = np.minimum(1 + rng.geometric(0.35, size=(n, MAX_ROUNDS)), k - 1)  # 0-based, never 0
    opener = np.zeros((n, MAX_ROUNDS), dtype=np.int64)
    for r in range(1, MAX_ROUNDS):  # the marker's taker opens the next round
        opener[:, r] = (opener[:, r - 1] + marker[:, r - 1]) % 2

    gid = _game_ids(table, deal, arrangement, width)
    moves, floor_tiles = _moves(rng, n, k, marker, opener, bots, gid, names, run_id)
    rounds_t, results_t = _scores(rng, n, rounds, live, opener, floor_tiles, winner, bots, gid,
                                  names, local_deal, run_id)
    plies = k.sum(axis=1)
    deal_seed = rng.integers(0, 2**62, size=local_deal[-1] + 1)[local_deal]
    games_t = build_table("games", {
        "game_id": gid, "deal_seed": pa.array(deal_seed, _i64),
        "variant": _repeat("colored", n), "num_players": _int(np.full(n, 2)),
        "rounds": _int(rounds), "plies": _int(plies),
        "termination": _repeat("normal", n), "error": pa.nulls(n, _str),
        "duration_s": pa.array(plies * rng.lognormal(-6.0, 0.5, n), _f64),
        "engine_version": _repeat("synthetic", n), "table": _int(table),
        "deal": _int(deal), "arrangement": _int(arrangement), "fault_seat": pa.nulls(n, _i32),
        "series_id": pa.nulls(n, _str), "series_game": pa.nulls(n, _i32)}, run_id)
    return {"games": games_t, "results": results_t, "moves": moves, "rounds": rounds_t}


def _moves(rng, n, k, marker, opener, bots, gid, names, run_id):
    """The moves table, and each (game, round, seat)'s floor tiles (to_floor plus the marker)."""
    kf = k.ravel()
    total = int(kf.sum())
    cell = np.repeat(np.arange(kf.size), kf)  # (game, round) cell of each ply
    starts = np.cumsum(kf) - kf
    j = np.arange(total) - starts[cell]  # ply within the round, 0-based
    game = cell // MAX_ROUNDS
    rnd = cell % MAX_ROUNDS
    game_start = np.cumsum(k.sum(axis=1)) - k.sum(axis=1)
    ply = np.arange(total) - game_start[game] + 1
    seat = (opener.ravel()[cell] + j) % 2
    m = marker.ravel()[cell]
    took = j == m
    late = j / kf[cell]  # 0 .. 1 through the round
    center = took | ((j > m) & (rng.random(total) < 0.35 + 0.4 * late))
    factory = np.where(center, 0, rng.integers(1, 6, total))
    color = rng.integers(0, 5, total)
    from_factory = rng.choice([1, 2, 3, 4], total, p=[0.45, 0.35, 0.15, 0.05])
    taken = np.where(center, np.minimum(rng.geometric(0.5, total), 12), from_factory)
    floor_move = rng.random(total) < 0.03 + 0.15 * late
    line = np.where(floor_move, 0, rng.integers(1, 6, total))
    overflow = np.where(rng.random(total) < 0.15, np.maximum(taken - line, 0), 0)
    to_floor = np.where(floor_move, taken, overflow)
    legal = np.maximum(1, (1.0 - late) * np.sqrt(1.0 - late) * rng.normal(110, 12, total) + 0.5)
    bot = bots[game, seat]
    slow = len(names) - 1 - bot  # the first bots (the strongest by default) think longest
    think = np.exp(np.log(0.02) + 1.5 * slow + 0.6 * rng.standard_normal(total))
    code = (factory * 5 + color) * 6 + line
    moves = build_table("moves", {
        "game_id": coded(game, gid), "ply": _int(ply), "round": _int(rnd + 1), "seat": _int(seat),
        "bot": coded(bot, names), "move": coded(code, _MOVES), "source": coded(center, _SOURCES),
        "factory": _int(factory, center), "color": coded(color, _COLORS),
        "taken": _int(taken), "line": _int(line, floor_move),
        "to_floor": _int(to_floor), "took_marker": pa.array(took, _bool),
        "legal_moves": _int(legal), "think_ms": pa.array(think, _f64),
        "column": pa.nulls(total, _i32)}, run_id)  # no gray-wall tiling moves
    floor_tiles = np.bincount(cell * 2 + seat, weights=to_floor + took, minlength=n * MAX_ROUNDS * 2)
    return moves, floor_tiles.astype(np.int64).reshape(n, MAX_ROUNDS, 2)


def _scores(rng, n, rounds, live, opener, floor_tiles, winner, bots, gid, names, local_deal, run_id):
    """The rounds and results tables: running scores that end with the drawn winner ahead."""
    won = np.stack([winner == 0, winner == 1], 1)  # (n, 2)
    mean = np.where(won, 8.5, 6.5)[:, None, :] * (1.0 + 0.25 * np.arange(MAX_ROUNDS))[None, :, None]
    wall = rng.poisson(mean)
    cost = FLOOR_COST[np.minimum(floor_tiles, FLOOR_SLOTS)]
    rows = np.minimum(rng.poisson(np.where(won, 1.4, 0.8)), 5)
    cols = np.minimum(rng.poisson(np.where(won, 0.5, 0.25)), 5)
    colors = np.minimum(rng.poisson(np.where(won, 0.15, 0.05)), 5)
    bonus = 2 * rows + 7 * cols + 10 * colors
    last = rounds - 1
    score = np.zeros((n, 2), dtype=np.int64)
    penalty = np.zeros_like(wall)
    after = np.zeros_like(wall)
    for r in range(MAX_ROUNDS):
        on = live[:, r][:, None]
        gained = score + wall[:, r]
        penalty[:, r] = np.where(on, np.minimum(cost[:, r], gained), 0)
        score = np.where(on, gained - penalty[:, r], score)
        after[:, r] = score
    final = score + bonus
    # the drawn winner must be ahead: raise its last round's wall points where it is not
    idx = np.arange(n)
    behind = np.maximum(final[idx, 1 - winner] - final[idx, winner] + 1 + rng.integers(0, 12, n), 0)
    behind = np.where(final[idx, winner] > final[idx, 1 - winner], 0, behind)
    wall[idx, last, winner] += behind
    after[idx, last, winner] += behind
    final[idx, winner] += behind
    after[idx, last] += bonus  # end bonuses are in the last round's score

    # rounds: one row per live (game, round, seat)
    sel = np.repeat(live[:, :, None], 2, axis=2).ravel()
    gg, rr, ss = (x.ravel()[sel] for x in np.indices((n, MAX_ROUNDS, 2)))
    factories = _factories(rng, local_deal[-1] + 1)
    deal_round = local_deal[gg] * MAX_ROUNDS + rr
    rounds_t = build_table("rounds", {
        "game_id": coded(gg, gid),
        "round": _int(rr + 1), "seat": _int(ss),
        "opener": _int(opener[gg, rr]), "factories": factories.take(pa.array(deal_round)),
        "wall_points": _int(wall.ravel()[sel]),
        "floor_penalty": _int(penalty.ravel()[sel]),
        "score_after": _int(after.ravel()[sel])}, run_id)
    seat = np.tile([0, 1], n)
    game = np.repeat(idx, 2)
    is_winner = seat == winner[game]
    results_t = build_table("results", {
        "game_id": gid.take(pa.array(game)),
        "seat": _int(seat), "bot": names.take(pa.array(bots.ravel())),
        "score": _int(final.ravel()), "rank": _int(np.where(is_winner, 1, 2)),
        "is_winner": pa.array(is_winner, _bool), "complete_rows": _int(rows.ravel()),
        "complete_columns": _int(cols.ravel()),
        "complete_colors": _int(colors.ravel()),
        "bonus_points": _int(bonus.ravel()),
        "floor_penalty_total": _int(penalty.sum(axis=1).ravel())}, run_id)
    return rounds_t, results_t


def _factories(rng, deals: int) -> pa.Array:
    """Per (deal, round): five factories of four tiles, each sorted by colour, joined by spaces."""
    tiles = np.sort(rng.integers(0, 5, size=(deals * MAX_ROUNDS, 5, 4)), axis=2)
    letters = np.frombuffer(COLORS.encode(), dtype=np.uint8)[tiles]
    text = np.full((deals * MAX_ROUNDS, 5, 5), ord(" "), dtype=np.uint8)
    text[:, :, :4] = letters
    data = text.reshape(-1, 25)[:, :24].copy()  # no space after the last factory
    offsets = np.arange(data.shape[0] + 1, dtype=np.int32) * 24
    return pa.StringArray.from_buffers(data.shape[0], pa.py_buffer(offsets), pa.py_buffer(data.tobytes()))


def _game_ids(table, deal, arrangement, width: int) -> pa.Array:
    """``tNNN-dNNNNN-aNN`` ids as a league writes them (``width`` digits for the deal)."""
    parts = [_digits(table, 3, "t"), _digits(deal, width, "-d"), _digits(arrangement, 2, "-a")]
    data = np.concatenate(parts, axis=1)
    offsets = np.arange(data.shape[0] + 1, dtype=np.int32) * data.shape[1]
    return pa.StringArray.from_buffers(data.shape[0], pa.py_buffer(offsets), pa.py_buffer(data.tobytes()))


def _digits(values, width: int, prefix: str) -> np.ndarray:
    """Zero-padded decimal digits of ``values`` after ``prefix``, as rows of ASCII bytes."""
    values = np.asarray(values, dtype=np.int64)
    powers = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    digits = (values[:, None] // powers) % 10 + ord("0")
    head = np.broadcast_to(np.frombuffer(prefix.encode(), dtype=np.uint8), (len(values), len(prefix)))
    return np.concatenate([head, digits.astype(np.uint8)], axis=1)


def _int(values, mask=None) -> pa.Array:
    """An int32 array (converting in numpy first: much faster than pyarrow's cast)."""
    return pa.array(np.asarray(values).astype(np.int32), mask=mask)


def _repeat(value: str, n: int) -> pa.Array:
    return pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, np.int32)), pa.array([value], _str)).cast(_str)
