"""Fitting the policy prior (issue 46; docs/train.md, "The policy prior"): the weights of
bots/prior.py's linear score by maximum likelihood of target move distributions, a softmax
(conditional logit) over each position's legal moves.

    positions = played_positions("runs/league", every=1)   # the moves a run's bots played
    weights = fit(positions)                                # one weight a feature
    log_loss(weights, other), top1(weights, other)         # on positions not fitted

A position is (features, target): the legal moves' features (``bots._prior.features``, moves by
rows) and a distribution over them (one-hot on the move played: Bradley-Terry's model of the
moves people and bots choose, Coulom 2007; or a search's visit shares). The log-likelihood is
concave in the weights, so Newton's method with a small ridge (``l2``) finds its maximum in a few
steps, deterministic for the same positions.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from bots import _prior
from engine import Move

Position = tuple[np.ndarray, np.ndarray]  # (features (moves, NFEATURES), target (moves,), summing to 1)


def _stack(positions: Sequence[Position]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if not positions:
        raise ValueError("no positions to fit")
    for features, target in positions:
        if features.ndim != 2 or features.shape[1] != len(_prior.FEATURES) or target.shape != (len(features),):
            raise ValueError(f"a position is (features (moves, {len(_prior.FEATURES)}), target (moves,))")
        if len(features) == 0 or abs(float(np.sum(target)) - 1) > 1e-6 or np.any(target < 0):
            raise ValueError("a position's target is a distribution over its moves (at least one)")
    x = np.concatenate([f for f, _ in positions]).astype(np.float64)
    t = np.concatenate([t for _, t in positions]).astype(np.float64)
    starts = np.cumsum([0] + [len(f) for f, _ in positions[:-1]])
    return x, t, starts


def _probabilities(x: np.ndarray, starts: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each move's prior and each position's log-normaliser."""
    s = x @ w
    counts = np.diff(np.append(starts, len(s)))
    top = np.maximum.reduceat(s, starts)
    e = np.exp(s - np.repeat(top, counts))
    total = np.add.reduceat(e, starts)
    return e / np.repeat(total, counts), top + np.log(total)


def fit(positions: Sequence[Position], l2: float = 1e-3, iterations: int = 50, start=None) -> np.ndarray:
    """The weights that maximise the targets' log-likelihood less ``l2`` |w|^2 / 2 (per position),
    by Newton's method from ``start`` (0 by default)."""
    x, t, starts = _stack(positions)
    n = len(starts)
    w = np.zeros(x.shape[1]) if start is None else np.array(start, dtype=np.float64)
    for _ in range(iterations):
        p, _ = _probabilities(x, starts, w)
        grad = x.T @ (t - p) / n - l2 * w
        m = np.add.reduceat(p[:, None] * x, starts)
        hessian = ((p[:, None] * x).T @ x - m.T @ m) / n + l2 * np.eye(len(w))
        step = np.linalg.solve(hessian, grad)
        w = w + step
        if np.max(np.abs(step)) < 1e-9:
            break
    return w


def step(positions: Sequence[Position], weights, rate: float = 0.5) -> np.ndarray:
    """One gradient step of the log-likelihood from ``weights`` (the tests' training step)."""
    x, t, starts = _stack(positions)
    p, _ = _probabilities(x, starts, np.asarray(weights, dtype=np.float64))
    return np.asarray(weights, dtype=np.float64) + rate * x.T @ (t - p) / len(starts)


def log_loss(weights, positions: Sequence[Position]) -> float:
    """The mean over positions of -sum target log prior (nats)."""
    x, t, starts = _stack(positions)
    s = x @ np.asarray(weights, dtype=np.float64)
    _, norm = _probabilities(x, starts, np.asarray(weights, dtype=np.float64))
    return float(-np.sum(t * (s - np.repeat(norm, np.diff(np.append(starts, len(s)))))) / len(starts))


def top1(weights, positions: Sequence[Position]) -> float:
    """How often the prior's most likely move is the target's most likely (the move played)."""
    hits = 0
    for features, target in positions:
        hits += int(np.argmax(features @ np.asarray(weights, dtype=np.float64)) == np.argmax(target))
    return hits / len(positions)


def played_positions(run, every: int = 1, limit: int | None = None, bots: set[str] | None = None) -> Iterator[
        tuple[int, Position]]:
    """(game number, position) for the draft moves of a run's recorded games (every ``every``-th
    move, the first ``limit`` games by id; only the moves of ``bots`` when given): the features of
    the legal moves before each, the target one-hot on the move played; the games numbered in the
    order of their ids (tournament.replay.walk_numbered), so that halves split by number do not
    depend on the order the workers finished them."""
    from records.read import read_table
    from tournament.replay import walk_numbered

    results = read_table(run, "results", ["game_id", "seat", "bot"]).to_pydict()
    names = {(g, s): b for g, s, b in zip(results["game_id"], results["seat"], results["bot"])}
    for g, gid, walk in walk_numbered(run, results["game_id"], limit):
        before = None
        for i, (_, _, seat, move, state, _) in enumerate(walk):
            if (move is not None and before is not None and i % every == 0
                    and (bots is None or names.get((gid, seat)) in bots)):
                codes, features = before
                target = np.zeros(len(codes))
                target[codes.index(Move.parse(move).code)] = 1
                yield g, (features, target)
            before = _prior.features(state) if state.phase == "draft" else None
