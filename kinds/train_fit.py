"""A training generation's model, fit on its positions (kinds/train.py): the network
(``train.value: mlp``, learn/model.py) or the n-tuple tables (``train.value: ntuple``,
learn/ntuple.py). Generation 0 fits its start records' outcomes (or ``train.target``); a later
generation's network trains on its window from the current weights, its tables move by TD(lambda)
along each game's round ends in the window's self-play (``train.lam``) from the current tables. A
tenth of the games (``learn.model.held_out_mask``) is held out of every fit: the held-out loss is
the squared error of the new model's value against ``train.target`` on their positions."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from bots.ntuple import feature_matrix
from bots.value_file import model_bytes
from learn import ntuple
from learn.data import read_positions
from learn.model import ValueNet, held_out_mask, train
from records.store import RunStore

from .train_config import TrainConfig


def fit_generation(c: TrainConfig, data: list, start: str | None, store: RunStore, name: str, g: int,
                   parent: str | None = None) -> dict:
    """Train a model on the positions of ``data`` (the stores of their folders: records.store) from
    ``start``'s weights (a model's name or local file) and write it as ``name`` in ``store``; a
    model already there is read back (its metrics are in its header). The model's ``data`` names
    the folders as the stores do (a path, or an ``s3://`` URL); the shards are read from their
    local views."""
    if store.exists(name):
        return _read(c, store.read_bytes(name), store.where(name)).meta["metrics"]
    data, where = [d.view(parts=False) for d in data], [str(d) for d in data]
    x, y, games = read_positions(data, c.players, c.target)
    held = held_out_mask(games)
    seed = c.seed * 1000 + g
    if c.value == "ntuple":
        model, history = _fit_tables(c, data, start, x, y, games, held, seed)
    else:
        base = None if start is None else ValueNet.from_bytes(model_bytes(start), start)
        model, history = train(x[~held], y[~held], players=c.players, hidden=tuple(c.hidden), epochs=c.epochs,
                               batch=c.batch, lr=c.lr, seed=seed, x_val=x[held], y_val=y[held], start=base)
    metrics = {"positions": int(len(x)), "held_out_positions": int(held.sum()),
               "train_loss": history.train[-1],
               "held_out_loss": history.held_out[-1] if history.held_out else float("nan"),
               "held_out_baseline": float(np.var(y[held])) if held.any() else float("nan"),
               "train_samples_per_s": history.samples_per_s}
    model.meta = {"generation": g, "parent": parent, "data": where, "seed": seed,
                  "value": c.value, "target": c.target, "epochs": c.epochs, "lr": c.lr, "metrics": metrics,
                  "loss_curve": {"train": history.train, "held_out": history.held_out},
                  **({"hidden": list(c.hidden)} if c.value == "mlp" else
                     {"fit": "outcomes" if start is None else f"td(lambda={c.lam:g})"})}
    store.write_bytes(name, model.to_bytes())
    return metrics


def _fit_tables(c: TrainConfig, data: list[Path], start: str | None, x, y, games, held, seed: int):
    """The n-tuple tables: fit to the targets (generation 0), else TD(lambda) from ``start``'s."""
    val = (feature_matrix(x[held], c.players), y[held])
    if start is None:
        return ntuple.fit(feature_matrix(x[~held], c.players), y[~held], players=c.players, epochs=c.epochs,
                          batch=c.batch, lr=c.lr, seed=seed, val=val)
    base = ntuple.NTupleModel.from_bytes(model_bytes(start), start)
    chains = ntuple.read_chains(data, c.players, skip=set(games[held].tolist()))
    model, history = ntuple.fit_td(chains, players=c.players, lam=c.lam, epochs=c.epochs, lr=c.lr, seed=seed,
                                   start=base)
    if len(val[1]):
        history.held_out.append(float(np.mean((model.predict(val[0]) - val[1]) ** 2)))
    return model, history


def _read(c: TrainConfig, data: bytes, where: str):
    return ntuple.NTupleModel.from_bytes(data, where) if c.value == "ntuple" else ValueNet.from_bytes(data, where)
