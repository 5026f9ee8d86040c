"""The value network's compiled evaluation (``LearnedValue``, bots/_evaluators.pyx): the input
scaling folded into the first layer, which sums the weight rows of the observation's nonzero
inputs (``encode_active``, engine/_rl.pyx), equals the network computed densely in numpy from the
model file's arrays (normalise, matmul, ReLU, ..., tanh) within 1e-5, at 2, 3 and 4 players and
on the positions an MCTS game with the shipped network reaches."""
from __future__ import annotations

import random

import numpy as np
import pytest
from test_mcts_evaluators import round_ends

from bots import make_bot
from bots._evaluators import LearnedValue
from bots.value_file import model_bytes, read_model, shipped_models
from engine import new_game
from engine.rl import observation
from learn.model import train


def shipped_network() -> str:
    """The name of the shipped 2-player value network (the ``azul-value/1`` model)."""
    names = [name for name in shipped_models() if read_model(model_bytes(name))[0]["format"] == "azul-value/1"
             and read_model(model_bytes(name))[0]["players"] == 2]
    assert names, f"no shipped 2-player value network among {shipped_models()}"
    return names[0]


def dense_values(data: bytes, state) -> list[float]:
    """Each seat's value as the evaluator defines it, the network computed densely in float64 from
    the file's arrays on the full observations."""
    header, a = read_model(data)
    n, last = state.players, len(header["layers"]) - 1
    x = np.array([observation(state, p)["observation"] for p in range(n)], np.float64)
    h = (x - a["mean"]) * a["scale"]
    for i in range(last + 1):
        h = h @ a[f"w{i}"].astype(np.float64).T + a[f"b{i}"]
        h = np.tanh(h) if i == last else np.maximum(h, 0)
    v = list(0.5 * (1 + h[:, 0]))
    if n == 2:   # both views in one zero-sum value
        v[0] = 0.5 * (v[0] + 1 - v[1])
        v[1] = 1 - v[0]
    return v


def trained_network(players: int, seed: int) -> bytes:
    """A small network fit (one epoch, learn/model.py's trainer) to random targets on round ends
    of ``players``: its mean and scale are a real model's, from real observations."""
    states = [s for game in range(4) for s in round_ends(players, "colored", seed * 10 + game)]
    x = np.array([observation(s, p)["observation"] for s in states for p in range(players)])
    y = np.random.default_rng(seed).uniform(-1, 1, len(x))
    return train(x, y, players=players, hidden=(40, 24), epochs=1, seed=seed)[0].to_bytes()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_sparse_network_is_the_dense_one(players):
    data = model_bytes(shipped_network()) if players == 2 else trained_network(players, seed=players)
    evaluator = LearnedValue(model_bytes=data)
    states = [s for variant in ("colored", "gray") for game in range(3)
              for s in round_ends(players, variant, seed=100 * players + game)]
    assert len(states) > 20
    got = np.array([evaluator.value(s) for s in states])
    want = np.array([dense_values(data, s) for s in states])
    assert np.abs(got - want).max() < 1e-5
    assert got.std() > 0.01            # the values differ between positions: not a constant


def test_predict_sums_the_nonzero_inputs_of_any_row():
    """``predict`` takes observation rows of any values (counts, scores, noise), zero or not."""
    data = trained_network(3, seed=9)
    header, a = read_model(data)
    x = np.random.default_rng(4).normal(0, 3, (300, header["inputs"])).astype(np.float32)
    x[::2] *= np.random.default_rng(5).random(x[::2].shape) < 0.1
    h = (x.astype(np.float64) - a["mean"]) * a["scale"]
    for i in range(3):
        h = h @ a[f"w{i}"].astype(np.float64).T + a[f"b{i}"]
        h = np.tanh(h) if i == 2 else np.maximum(h, 0)
    assert np.abs(LearnedValue(model_bytes=data).predict(x) - h[:, 0]).max() < 1e-5


def test_an_mcts_game_with_the_network_meets_positions_it_values_as_the_dense_one():
    """A game of mcts:evaluator=value with the shipped network; from each of its positions a random
    continuation to the round's end (as a rollout's), valued by the bot's evaluator and densely."""
    name = shipped_network()
    bots = [make_bot("mcts", seed=seat, iterations=150, evaluator="value", model=name) for seat in (0, 1)]
    evaluator, data = LearnedValue(model_bytes=model_bytes(name)), model_bytes(name)
    rng, state, gaps = random.Random(1), new_game(2, seed=21), []
    while not state.is_over:
        if state.phase == "refill":
            state.deal(seed=rng.getrandbits(32))
            continue
        rollout = state.clone()
        while rollout.phase not in ("refill", "over"):
            rollout.play(rng.choice(rollout.legal_moves()))
        if rollout.phase == "refill":
            gaps.append(np.abs(np.subtract(evaluator.value(rollout), dense_values(data, rollout))).max())
        state.play(bots[state.to_move].act(state))
    assert len(gaps) > 30 and max(gaps) < 1e-5
