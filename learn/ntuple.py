"""The n-tuple value's tables in numpy (bots/ntuple.py's layout): fitted to recorded outcomes by
SGD, or moved by temporal differences along a game's round ends; and its file, ``azul-ntuple/1``,
which ``mcts:evaluator=value,model=FILE`` plays (bots/_evaluators.pyx's ``NTupleValue``).

    x, y, games = read_positions("data/gen0", players=2)          # learn.data's shards
    model, history = fit(feature_matrix(x, 2), y, players=2, seed=0)
    model.save("ntuple-2p.azv")

    chains = read_chains("data/gen0", players=2)   # per game and seat: its round ends, its outcome
    model, history = fit_td(chains, players=2, lam=0.7, seed=0)

A view's value is tanh of the sum of the entries its indices pick; both fits lower the squared
error of that value against a target on [-1, 1] (the game's outcome, or TD's), with a step on
each entry that a batch's views pick averaged over the views that pick it, so that rare entries
learn as fast as common ones. Deterministic for a seed. The defaults (lr 0.002; 12 epochs of
``fit``, 6 of ``fit_td``) are the best of a few tried on 108,910 positions of 2-player league
records (docs/train.md, "The n-tuple value").
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from bots.ntuple import FORMAT, OFFSETS, SIZE, TUPLES, feature_matrix, flat_weights
from bots.model_container import Section, pack
from bots.value_file import read_model
from learn.model import History
from records.names import SHARD_PREFIX, SHARD_SUFFIX
from records.store import RunStore


@dataclass
class NTupleModel:
    """The tables of all tuples as one float32 vector (``OFFSETS`` says where each starts)."""
    weights: np.ndarray
    players: int
    meta: dict = field(default_factory=dict)

    @classmethod
    def zeros(cls, players: int) -> NTupleModel:
        return cls(np.zeros(SIZE, np.float32), players)

    def predict(self, indices: np.ndarray) -> np.ndarray:
        """The value, in [-1, 1], of each row of table indices (``feature_matrix``'s rows)."""
        return np.tanh(self.weights[np.asarray(indices)].astype(np.float64).sum(-1))

    def tables(self) -> dict[str, np.ndarray]:
        """Each tuple's table, shaped as ``TUPLES`` says (views of the weights)."""
        return {name: self.weights[OFFSETS[name]:OFFSETS[name] + int(np.prod(shape))].reshape(shape)
                for name, shape in TUPLES.items()}

    def to_bytes(self) -> bytes:
        """The ``azul-ntuple/1`` file: bots/ntuple.py's tables as the value section of
        bots/model_container.py's container."""
        return pack(Section({"format": FORMAT, "players": self.players, "meta": self.meta}, self.tables()))

    def save(self, path: str | Path) -> None:
        Path(path).write_bytes(self.to_bytes())

    @classmethod
    def from_bytes(cls, data: bytes, where: str = "model") -> NTupleModel:
        header, arrays = read_model(data, where)
        if header["format"] != FORMAT:
            raise ValueError(f"{where}: a {header['format']} model, not an n-tuple value ({FORMAT})")
        return cls(flat_weights(arrays), header["players"], header.get("meta", {}))

    @classmethod
    def load(cls, path: str | Path) -> NTupleModel:
        return cls.from_bytes(Path(path).read_bytes(), str(path))


def _step(weights: np.ndarray, indices: np.ndarray, delta: np.ndarray, lr: float) -> None:
    """weights[j] += lr * the mean of ``delta`` over the rows of ``indices`` that pick j."""
    flat = indices.ravel()
    sums = np.bincount(flat, np.repeat(delta, indices.shape[1]), minlength=SIZE)
    counts = np.bincount(flat, minlength=SIZE)
    weights += (lr * sums / np.maximum(counts, 1)).astype(np.float32)


def _start(players: int, start: NTupleModel | None) -> NTupleModel:
    if start is None:
        return NTupleModel.zeros(players)
    if start.players != players:
        raise ValueError(f"a {start.players}-player model cannot go on at {players} players")
    return NTupleModel(start.weights.copy(), players, dict(start.meta))


def fit(indices: np.ndarray, y: np.ndarray, *, players: int, epochs: int = 12, batch: int = 64,
        lr: float = 0.002, seed: int = 0, val: tuple[np.ndarray, np.ndarray] | None = None,
        start: NTupleModel | None = None, log=None) -> tuple[NTupleModel, History]:
    """Fit the tables to the targets ``y`` (the outcomes, on [-1, 1]) of the views whose indices
    are the rows of ``indices`` (``feature_matrix``), by minibatch SGD on the squared error of
    tanh(sum); ``val``: held-out (indices, y); ``log(epoch, train_loss, held_out_loss)``."""
    indices = np.asarray(indices, np.int64)
    y = np.asarray(y, np.float64)
    if len(indices) == 0:
        raise ValueError("fit: no positions to learn from")
    rng = np.random.default_rng(seed)
    model, history = _start(players, start), History()
    started = time.perf_counter()
    for epoch in range(epochs):
        order, total = rng.permutation(len(y)), 0.0
        for lo in range(0, len(y), batch):
            rows = indices[order[lo:lo + batch]]
            v = model.predict(rows)
            err = y[order[lo:lo + batch]] - v
            total += float((err * err).sum())
            _step(model.weights, rows, err * (1 - v * v), lr)
        history.train.append(total / len(y))
        if val is not None and len(val[1]):
            history.held_out.append(float(np.mean((model.predict(val[0]) - val[1]) ** 2)))
        if log is not None:
            log(epoch, history.train[-1], history.held_out[-1] if history.held_out else None)
    history.samples_per_s = epochs * len(y) / max(time.perf_counter() - started, 1e-9)
    return model, history


def average(models: list[NTupleModel], meta: dict | None = None) -> NTupleModel:
    """The mean of the tables of ``models`` (one player count): Polyak averaging of a training
    trajectory's points, whose noise from single steps on rare entries the mean smooths out
    (docs/train.md, "Averaged tables")."""
    if not models:
        raise ValueError("average: no models to average")
    players = {m.players for m in models}
    if len(players) != 1:
        raise ValueError(f"average: models of {', '.join(map(str, sorted(players)))} players; "
                         "the tables averaged must value one player count")
    weights = np.mean([np.asarray(m.weights, np.float64) for m in models], axis=0).astype(np.float32)
    return NTupleModel(weights, players.pop(), dict(meta or {}))


# ---------------------------------------------------------------- temporal differences

def td_targets(values: np.ndarray, result: float, lam: float) -> np.ndarray:
    """The lambda-returns of a chain of values (a seat's consecutive round ends in one game):
    the last one's target is the game's ``result``, each earlier one's (1 - lam) times the next
    value plus lam times the next target (lam 0: TD(0), the next value; lam 1: the result)."""
    targets = np.empty(len(values))
    after = float(result)
    for t in range(len(values) - 1, -1, -1):
        targets[t] = after
        after = (1 - lam) * values[t] + lam * after
    return targets


def td_update(model: NTupleModel, chain: np.ndarray, result: float, *, lr: float = 0.002,
              lam: float = 0.0) -> float:
    """Move the values of a chain of views (rows of table indices, in play order) towards their
    ``td_targets`` by one step of ``lr``; return the squared error before the step, summed."""
    chain = np.asarray(chain, np.int64)
    v = model.predict(chain)
    err = td_targets(v, result, lam) - v
    _step(model.weights, chain, err * (1 - v * v), lr)
    return float((err * err).sum())


def fit_td(chains: list[tuple[np.ndarray, float]], *, players: int, lam: float = 0.7,
           epochs: int = 6, lr: float = 0.002, seed: int = 0, start: NTupleModel | None = None,
           log=None) -> tuple[NTupleModel, History]:
    """``td_update`` on every chain (``read_chains``'s), in an order shuffled per epoch."""
    if not chains:
        raise ValueError("fit_td: no games to learn from")
    rng = np.random.default_rng(seed)
    model, history = _start(players, start), History()
    started, views = time.perf_counter(), sum(len(c) for c, _ in chains)
    for epoch in range(epochs):
        total = sum(td_update(model, *chains[i], lr=lr, lam=lam) for i in rng.permutation(len(chains)))
        history.train.append(total / views)
        if log is not None:
            log(epoch, history.train[-1], None)
    history.samples_per_s = epochs * views / max(time.perf_counter() - started, 1e-9)
    return model, history


def read_chains(data_dirs: str | Path | list, players: int = 2,
                skip: set[str] | None = None) -> list[tuple[np.ndarray, float]]:
    """Per game (of a run) and seat of the ``players``-seat positions in learn.data's shards: the
    table indices of its round ends in round order, and its outcome (on [-1, 1]); the games whose
    ids are in ``skip`` (held out) left out."""
    dirs = [data_dirs] if isinstance(data_dirs, (str, Path)) else list(data_dirs)
    stores = [RunStore(d) for d in dirs]
    shards = [(s, name) for s in stores for name in s.names(SHARD_PREFIX, SHARD_SUFFIX)]
    if not shards:
        raise ValueError(f"no position shards ({SHARD_PREFIX}*{SHARD_SUFFIX}) in {', '.join(map(str, dirs))}")
    table = pa.concat_tables([pq.read_table(pa.BufferReader(s.read_bytes(name))) for s, name in shards])
    table = table.filter(pa.compute.equal(table.column("players"), players))
    if skip:
        table = table.filter(pa.compute.invert(pa.compute.is_in(table.column("game_id"),
                                                                pa.array(sorted(skip), pa.string()))))
    flat = table.column("features").combine_chunks().flatten().to_numpy(zero_copy_only=False)
    x = np.asarray(flat, np.float32).reshape(table.num_rows, -1 if table.num_rows else 0)
    indices = feature_matrix(x, players) if len(x) else np.zeros((0, 0), np.int32)
    games = zip(table.column("run").to_pylist(), table.column("game_id").to_pylist())
    seats, rounds = table.column("seat").to_pylist(), table.column("round").to_pylist()
    outcome = table.column("outcome").to_numpy()
    rows: dict[tuple, list[int]] = {}
    for i, key in enumerate(zip(games, seats)):
        rows.setdefault(key, []).append(i)
    chains = []
    for rs in rows.values():
        rs.sort(key=rounds.__getitem__)
        chains.append((indices[rs], float(outcome[rs[-1]])))
    return chains
