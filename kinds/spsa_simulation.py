"""SPSA on a synthetic game, no engine: how often a tune ends near a known optimum
(tests/test_tune_spsa.py asserts it, ``python benchmarks/bench_tune.py`` prints the table of
docs/tune.md).

The game: each tuned parameter has an optimum; a bot at theta has strength
``s(theta) = -sum_i loss_i * ((u_i - u*_i) / (span_i / 4))^2`` (logits; u internal coordinates,
so a bot a quarter of parameter i's span off its optimum is ``loss_i`` logits weaker), and a game
between theta+ and theta- is won by theta+ with probability ``(1 - draw) * sigmoid(s+ - s-)``,
drawn with probability ``draw``. A pair is two such games (the seats, which the synthetic game
does not have, swapped). The tune is ``kinds.spsa.Spsa`` exactly as a real tune runs it.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass

from .spsa import Spsa, TunedParam, steps, summary, tuned_param


@dataclass(frozen=True)
class Objective:
    """The synthetic game: per parameter its optimum (a bot value) and the logits lost a quarter
    span away; the chance of a draw."""

    optimum: dict[str, float]
    loss: dict[str, float]
    draw: float = 0.1

    def strength(self, params: list[TunedParam], theta: list[float]) -> float:
        s = 0.0
        for p, u in zip(params, theta):
            lo, hi = p.bounds
            s -= self.loss[p.name] * ((u - p.inside(self.optimum[p.name])) / ((hi - lo) / 4)) ** 2
        return s


# the table's game: two heuristic weights and MCTS's value_scale (a log-scale parameter)
CASES = {"line": ("heuristic", 3.0, 0.3), "marker": ("heuristic", -2.0, 0.3),
         "value_scale": ("mcts", 30.0, 0.3)}


def default_case(pairs: int) -> tuple[list[TunedParam], Objective]:
    """The table's parameters (every field its registry default) and game."""
    params = [tuned_param(bot, name, {}, pairs) for name, (bot, _, _) in CASES.items()]
    return params, Objective({n: v[1] for n, v in CASES.items()}, {n: v[2] for n, v in CASES.items()})


def simulate_tune(params: list[TunedParam], objective: Objective, pairs: int, batch: int,
                  seed: int, tail: float = 0.2) -> dict[str, dict]:
    """One tune of ``pairs`` pairs in steps of ``batch`` on the synthetic game: ``spsa.summary``."""
    spsa = Spsa(params, pairs, seed)
    rng = random.Random(seed)
    theta, path = spsa.start(), []
    for step, (first, n) in enumerate(steps(pairs, batch)):
        k = first + n - 1
        plus, minus = spsa.sides(theta, step, k)
        edge = objective.strength(params, plus) - objective.strength(params, minus)
        win = (1 - objective.draw) / (1 + math.exp(-edge))
        lose = (1 - objective.draw) - win
        result = 0
        for _ in range(2 * n):
            r = rng.random()
            result += 1 if r < win else -1 if r < win + lose else 0
        theta = spsa.update(theta, step, k, result)
        path.append(theta)
    return summary(params, path, tail)


def convergence(pairs: int, batch: int, seeds: int, tolerance: float = 0.1) -> dict[str, float]:
    """Per parameter, the share of ``seeds`` tunes whose final value (the tail's mean) is within
    ``tolerance`` of its span (internal units) of the optimum; ``all``: every parameter at once."""
    params, objective = default_case(pairs)
    hits = {p.name: 0 for p in params} | {"all": 0}
    for seed in range(seeds):
        out = simulate_tune(params, objective, pairs, batch, seed)
        near = [abs(p.inside(out[p.name]["mean"]) - p.inside(objective.optimum[p.name]))
                <= tolerance * (p.bounds[1] - p.bounds[0]) for p in params]
        for p, ok in zip(params, near):
            hits[p.name] += ok
        hits["all"] += all(near)
    return {k: v / seeds for k, v in hits.items()}


def table(pairs: tuple[int, ...] = (500, 1000, 2000, 5000), batches: tuple[int, ...] = (1, 8),
          seeds: int = 100) -> str:
    """The convergence table of docs/tune.md (benchmarks/bench_tune.py prints it)."""
    lines = ["pairs  batch  line  marker  value_scale  all"]
    for n in pairs:
        for batch in batches:
            r = convergence(n, batch, seeds)
            lines.append(f"{n:5d}  {batch:5d}  {r['line']:.2f}  {r['marker']:.2f}    {r['value_scale']:.2f}"
                         f"         {r['all']:.2f}")
    return "\n".join(lines)
