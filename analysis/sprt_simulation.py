"""SPRTs simulated from pentanomial distributions of known Elo, no games: the test's error rates
and lengths, measured (tests/test_sprt.py asserts them, benchmarks/bench_sprt.py prints them).

Each simulated test draws pairs from ``probabilities`` and stops at the first pair after which
the LLR leaves the bounds, exactly as ``analysis.sprt.decide`` does on a league's pairs. Tests run
side by side: a block of pairs for every test still going is drawn and its LLRs computed as one
array, so a few thousand tests take seconds.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .sprt import bounds, check_hypotheses, llr_many, with_elo


@dataclass(frozen=True)
class Simulation:
    """What ``tests`` simulated SPRTs did: the share that accepted H1, H0, or ran out of pairs,
    and the mean number of pairs they took (those that ran out count ``max_pairs``)."""
    elo: float
    model: str
    tests: int
    h1: float
    h0: float
    undecided: float
    mean_pairs: float

    def standard_error(self, rate: float) -> float:
        """The binomial standard error of a rate measured on ``tests`` tests."""
        return float(np.sqrt(rate * (1 - rate) / self.tests))


def simulate(probabilities, elo: float, elo0: float, elo1: float, *, alpha: float = 0.05,
             beta: float = 0.05, model: str = "normalized", tests: int = 500,
             max_pairs: int = 20000, seed: int = 0, block: int = 32) -> Simulation:
    """Simulate ``tests`` SPRTs of ``elo0`` against ``elo1`` on pairs drawn from
    ``probabilities`` tilted to true Elo ``elo`` (``analysis.sprt.with_elo``)."""
    check_hypotheses(elo0, elo1, model)
    lower, upper = bounds(alpha, beta)
    if tests < 1 or max_pairs < 1 or block < 1:
        raise ValueError("tests, max_pairs and block must be 1 or more")
    truth = with_elo(probabilities, elo, model)
    rng = np.random.default_rng(seed)
    counts = np.zeros((tests, 5), dtype=np.int64)
    going = np.arange(tests)
    outcome = np.full(tests, "undecided", dtype=object)
    pairs = np.full(tests, max_pairs, dtype=np.int64)
    done = 0
    while going.size and done < max_pairs:
        step = min(block, max_pairs - done)
        cells = rng.choice(5, size=(going.size, step), p=truth)
        cumulative = counts[going][:, None, :] + np.cumsum(np.eye(5, dtype=np.int64)[cells], axis=1)
        values = llr_many(cumulative.reshape(-1, 5), elo0, elo1, model).reshape(going.size, step)
        out = (values >= upper) | (values <= lower)
        stopped = out.any(axis=1)
        first = np.argmax(out, axis=1)
        rows = going[stopped]
        at = first[stopped]
        pairs[rows] = done + at + 1
        outcome[rows] = np.where(values[stopped, at] >= upper, "H1", "H0")
        counts[going] = cumulative[:, -1, :]
        going = going[~stopped]
        done += step
    return Simulation(elo, model, tests, float(np.mean(outcome == "H1")),
                      float(np.mean(outcome == "H0")), float(np.mean(outcome == "undecided")),
                      float(pairs.mean()))
