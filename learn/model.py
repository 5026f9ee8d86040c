"""The value network in numpy: a small MLP from a round's-end observation to the game's outcome
for the seat that sees it (in [-1, 1]), trained with Adam on mean squared error, deterministic for
a seed; and its file, ``azul-value/1`` (bots/value_file.py), which the compiled evaluator loads
(bots/_evaluators.pyx).

    net, history = train(x, y, players=2, hidden=(64, 32), epochs=4, seed=0)  # x: (n, inputs), y: (n,)
    net.meta = {...}; net.save("value.azv"); ValueNet.load("value.azv").predict(x)

numpy, not a learning library: the network is small and trains in seconds to minutes on a CPU,
and the project's install stays as it is (docs/train.md says more).

The file's layout is in bots/value_file.py, its container (written by ``pack``) in
bots/model_container.py.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bots.model_container import Section, pack
from bots.value_file import FORMAT, read_model


@dataclass
class ValueNet:
    """Input scaling and the layers' weights (``weights[i]``: (outputs, inputs)) and biases."""
    mean: np.ndarray
    scale: np.ndarray
    weights: list[np.ndarray]
    biases: list[np.ndarray]
    players: int
    meta: dict = field(default_factory=dict)

    def predict(self, x: np.ndarray) -> np.ndarray:
        """The network's value per row of ``x`` (raw observations), in [-1, 1]."""
        return self._forward(np.asarray(x, np.float32))[-1][:, 0]

    def _forward(self, x: np.ndarray) -> list[np.ndarray]:
        acts = [(x - self.mean) * self.scale]
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            z = acts[-1] @ w.T + b
            acts.append(np.tanh(z) if i == last else np.maximum(z, 0))
        return acts

    def to_bytes(self) -> bytes:
        """The ``azul-value/1`` file: the network as the value section of bots/model_container.py's container."""
        arrays = {"mean": self.mean, "scale": self.scale}
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            arrays[f"w{i}"], arrays[f"b{i}"] = w, b
        header = {"format": FORMAT, "players": self.players, "inputs": int(self.mean.shape[0]),
                  "layers": [int(w.shape[0]) for w in self.weights], "hidden": "relu", "output": "tanh",
                  "meta": self.meta}
        return pack(Section(header, arrays))

    def save(self, path: str | Path) -> None:
        Path(path).write_bytes(self.to_bytes())

    @classmethod
    def from_bytes(cls, data: bytes, where: str = "model") -> ValueNet:
        header, arrays = read_model(data, where)
        if header["format"] != FORMAT:
            raise ValueError(f"{where}: a {header['format']} model, not a value network ({FORMAT})")
        n = len(header["layers"])
        return cls(arrays["mean"], arrays["scale"], [arrays[f"w{i}"] for i in range(n)],
                   [arrays[f"b{i}"] for i in range(n)], header["players"], header.get("meta", {}))

    @classmethod
    def load(cls, path: str | Path) -> ValueNet:
        return cls.from_bytes(Path(path).read_bytes(), str(path))


# ---------------------------------------------------------------- training

@dataclass
class History:
    """Per epoch: the training loss and the held-out loss (mean squared error on [-1, 1])."""
    train: list[float] = field(default_factory=list)
    held_out: list[float] = field(default_factory=list)
    samples_per_s: float = 0.0


def held_out_mask(game_ids: np.ndarray, fraction: float = 0.1) -> np.ndarray:
    """True for positions of the held-out games: a game's positions all fall on one side, chosen
    by a stable hash of its id (the same game is held out in every run); at least one game is
    held out when there are two or more."""
    import zlib
    hashes = np.array([zlib.crc32(str(g).encode()) % 1000 for g in game_ids], np.int64)
    mask = hashes < int(fraction * 1000)
    if not mask.any() and len(set(game_ids)) > 1:
        mask = hashes == hashes.min()
    return mask


def train(x: np.ndarray, y: np.ndarray, *, players: int, hidden: tuple[int, ...] = (64, 32),
          epochs: int = 20, batch: int = 256, lr: float = 1e-3, weight_decay: float = 1e-5,
          seed: int = 0, x_val: np.ndarray | None = None, y_val: np.ndarray | None = None,
          start: ValueNet | None = None, log=None) -> tuple[ValueNet, History]:
    """Fit a ValueNet to (x, y) with Adam (``start``: go on from its weights); deterministic for
    ``seed``. ``log(epoch, train_loss, held_out_loss)`` is called after each epoch."""
    try:  # one BLAS thread: the matrices are small, and threads fight the league's workers
        from threadpoolctl import threadpool_limits
    except ImportError:  # not installed: numpy's default threads
        import contextlib
        threadpool_limits = contextlib.nullcontext
    with threadpool_limits(1):
        return _train(x, y, players=players, hidden=hidden, epochs=epochs, batch=batch, lr=lr,
                      weight_decay=weight_decay, seed=seed, x_val=x_val, y_val=y_val, start=start, log=log)


def _train(x, y, *, players, hidden, epochs, batch, lr, weight_decay, seed, x_val, y_val, start, log):
    import time
    rng = np.random.default_rng(seed)
    x = np.asarray(x, np.float32)
    y = np.asarray(y, np.float32)
    if len(x) == 0:
        raise ValueError("train: no positions to learn from")
    if start is None:
        mean = x.mean(0)
        std = x.std(0)
        scale = np.where(std > 1e-6, 1.0 / np.maximum(std, 1e-6), 0.0).astype(np.float32)
        sizes = [x.shape[1], *hidden, 1]
        weights = [(rng.standard_normal((sizes[i + 1], sizes[i])) * np.sqrt(2.0 / sizes[i])).astype(np.float32)
                   for i in range(len(sizes) - 1)]
        biases = [np.zeros(s, np.float32) for s in sizes[1:]]
        net = ValueNet(mean.astype(np.float32), scale, weights, biases, players)
    else:
        net = ValueNet(start.mean, start.scale, [w.copy() for w in start.weights],
                       [b.copy() for b in start.biases], players)
    params = [*net.weights, *net.biases]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    b1, b2, eps, step = 0.9, 0.999, 1e-8, 0
    history = History()
    started, seen = time.perf_counter(), 0
    for epoch in range(epochs):
        order = rng.permutation(len(x))
        total = 0.0
        for lo in range(0, len(x), batch):
            idx = order[lo:lo + batch]
            grads, loss = _gradients(net, x[idx], y[idx])
            total += loss * len(idx)
            step += 1
            for i, (p, g) in enumerate(zip(params, grads)):
                if p.ndim == 2:
                    g = g + weight_decay * p
                m[i] = b1 * m[i] + (1 - b1) * g
                v[i] = b2 * v[i] + (1 - b2) * g * g
                p -= (lr * (m[i] / (1 - b1 ** step)) / (np.sqrt(v[i] / (1 - b2 ** step)) + eps)).astype(np.float32)
        seen += len(x)
        history.train.append(total / len(x))
        if x_val is not None and len(x_val):
            history.held_out.append(float(np.mean((net.predict(x_val) - y_val) ** 2)))
        if log is not None:
            log(epoch, history.train[-1], history.held_out[-1] if history.held_out else None)
    history.samples_per_s = seen / max(time.perf_counter() - started, 1e-9)
    return net, history


def _gradients(net: ValueNet, x: np.ndarray, y: np.ndarray) -> tuple[list[np.ndarray], float]:
    """Gradients of the mean squared error, weights then biases (the order ``train`` keeps)."""
    acts = net._forward(x)
    out = acts[-1][:, 0]
    diff = out - y
    loss = float(np.mean(diff * diff))
    delta = (2.0 / len(y)) * diff[:, None] * (1 - out[:, None] ** 2)     # through tanh
    gw = [None] * len(net.weights)
    gb = [None] * len(net.weights)
    for i in range(len(net.weights) - 1, -1, -1):
        gw[i] = delta.T @ acts[i]
        gb[i] = delta.sum(0)
        if i:
            delta = (delta @ net.weights[i]) * (acts[i] > 0)
    return [*gw, *gb], loss
