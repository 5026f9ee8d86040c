"""Training positions from game records: each round's end (after the wall tiling, before the next
deal; the game not over) and each seat, the position as that seat sees it and the game's outcome
for that seat, written as Parquet shards (docs/train.md lists the columns).

    from learn.data import write_shards, read_positions
    write_shards(["runs/gen0"], "data/gen0")              # data/gen0/positions-00000.parquet, ... (a RunStore's)
    write_shards(["s3://b/t/gen-1/selfplay"], open_store("s3://b/t/gen-1/data"))  # on S3 (records.store)
    x, y = read_positions("data/gen0", players=2)         # float32 arrays for the trainer

The positions come from the project's replay (``tournament.replay.walk_games``) and the one
compiled encoder (``engine._rl.encode``, through ``engine.rl.observation``), the same function the MCTS value
evaluator calls in its search, so training and play see identical inputs.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from engine import GameState
from records.names import SHARD_PREFIX, SHARD_SUFFIX
from records.store import RunStore, local_run
from engine.rl import observation
from engine.rules import ranks
from tournament.replay import walk_games

SHARD_ROWS = 20_000  # positions per Parquet shard

SCHEMA = pa.schema([
    ("game_id", pa.string()),     # the recorded game
    ("run", pa.string()),         # the run folder (or s3:// URL) it was read from, as given
    ("players", pa.int8()),
    ("round", pa.int16()),        # the round that just ended
    ("seat", pa.int8()),          # the seat whose view this is
    ("features", pa.list_(pa.float32())),  # engine.rl's observation from that seat (docs/rl.md)
    ("margin", pa.int16()),       # that seat's final score minus the best other seat's
    ("result", pa.string()),      # win, shared (first place tied) or loss, by rank (score, then rows)
    ("outcome", pa.float32()),    # share of opponents beaten (a tie half) scaled to [-1, 1]: the target
])


@dataclass(frozen=True)
class Position:
    """One training position: a round's end seen from ``seat``, and the game's outcome for it."""
    game_id: str
    players: int
    round: int
    seat: int
    features: np.ndarray
    margin: int
    result: str
    outcome: float


def encode(state: GameState, seat: int) -> np.ndarray:
    """The position as ``seat`` sees it: the compiled encoder's floats (engine/_rl.pyx)."""
    return observation(state, seat)["observation"]


def outcomes(state: GameState) -> list[tuple[int, str, float]]:
    """Per seat of a finished game: (margin, result, outcome) as the columns define them."""
    pos = state.to_json()
    scores = state.scores
    rows = [sum("." not in r for r in b["wall"]) for b in pos["boards"]]
    rank = ranks(scores, rows)
    n = len(scores)
    out = []
    for p in range(n):
        beaten = sum(1.0 if rank[p] < rank[q] else 0.5 if rank[p] == rank[q] else 0.0
                     for q in range(n) if q != p)
        result = "loss" if rank[p] > 1 else "shared" if rank.count(1) > 1 else "win"
        best_other = max(scores[q] for q in range(n) if q != p)
        out.append((scores[p] - best_other, result, 2.0 * beaten / (n - 1) - 1.0))
    return out


def game_positions(walk: Iterable[tuple], game_id: str) -> list[Position]:
    """The positions of one replayed game (a walk of ``tournament.replay``); none if it did not finish."""
    ends: list[tuple[int, list[np.ndarray]]] = []
    state = None
    for _, rnd, seat, _, state, _ in walk:
        if seat is not None and state.phase == "refill":
            ends.append((rnd, [encode(state, p) for p in range(state.players)]))
    if state is None or state.phase != "over":
        return []
    results = outcomes(state)
    return [Position(game_id, len(views), rnd, p, views[p], *results[p]) for rnd, views in ends for p in range(len(views))]


def positions(run_dirs: Iterable[str | Path]) -> Iterator[tuple[str, Position]]:
    """(run, position) for every finished recorded game of the runs (folders, or runs' ``s3://``
    URLs, walked in their local views), in record order."""
    for run in run_dirs:
        for gid, walk in walk_games(local_run(run)):
            for position in game_positions(walk, gid):
                yield str(run), position


def write_shards(run_dirs: Iterable[str | Path], out_dir, rows: int = SHARD_ROWS) -> int:
    """Write the positions of the runs to ``out_dir`` (a store, records.store; a folder's path:
    its ``RunStore``) as Parquet shards of ``rows``; return how many."""
    out = RunStore(out_dir)
    out.remove(*out.names(SHARD_PREFIX, SHARD_SUFFIX))
    batch: list[tuple[str, Position]] = []
    total = shard = 0

    def flush():
        nonlocal shard
        if not batch:
            return
        cols = {"game_id": [p.game_id for _, p in batch], "run": [r for r, _ in batch],
                "players": [p.players for _, p in batch],
                "round": [p.round for _, p in batch], "seat": [p.seat for _, p in batch],
                "features": [p.features for _, p in batch], "margin": [p.margin for _, p in batch],
                "result": [p.result for _, p in batch], "outcome": [p.outcome for _, p in batch]}
        table = pa.table({k: pa.array(v, SCHEMA.field(k).type) for k, v in cols.items()}, schema=SCHEMA)
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink)
        out.write_bytes(f"{SHARD_PREFIX}{shard:05d}{SHARD_SUFFIX}", sink.getvalue().to_pybytes())
        shard += 1
        batch.clear()

    for item in positions(run_dirs):
        batch.append(item)
        total += 1
        if len(batch) >= rows:
            flush()
    flush()
    return total


TARGETS = ("outcome", "blend")  # what the network learns: the outcome, or half of it and half the margin


def read_positions(data_dirs: str | Path | Iterable[str | Path], players: int = 2,
                   target: str = "outcome") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(features, target, game_id) of the ``players``-seat positions in the shards of the folders.
    ``target``: ``outcome`` (the column) or ``blend``: 0.5 outcome + 0.5 tanh(margin / 10), the
    margin's smoother signal beside the result."""
    if target not in TARGETS:
        raise ValueError(f"target must be one of {', '.join(TARGETS)}, not {target!r}")
    dirs = [data_dirs] if isinstance(data_dirs, (str, Path)) else list(data_dirs)
    stores = [RunStore(d) for d in dirs]  # folders (or s3:// URLs: read through the store)
    missing = [str(s) for s in stores if not s.is_there()]
    if missing:  # a window with a folder gone would train on less than it says, without a word
        raise ValueError(f"no position folder {missing[0]}: moved or deleted")
    shards = [(s, name) for s in stores for name in s.names(SHARD_PREFIX, SHARD_SUFFIX)]
    if not shards:
        raise ValueError(f"no position shards ({SHARD_PREFIX}*{SHARD_SUFFIX}) in {', '.join(map(str, dirs))}")
    table = pa.concat_tables([pq.read_table(pa.BufferReader(s.read_bytes(name))) for s, name in shards])
    table = table.filter(pa.compute.equal(table.column("players"), players))
    flat = table.column("features").combine_chunks().flatten().to_numpy(zero_copy_only=False)
    x = np.asarray(flat, np.float32).reshape(table.num_rows, -1 if table.num_rows else 0)
    y = table.column("outcome").to_numpy().astype(np.float32)
    if target == "blend":
        margin = table.column("margin").to_numpy().astype(np.float32)
        y = (0.5 * y + 0.5 * np.tanh(margin / 10)).astype(np.float32)
    return x, y, table.column("game_id").to_numpy(zero_copy_only=False)
