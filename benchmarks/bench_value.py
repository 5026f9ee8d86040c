"""The learned values' cost (``mcts:evaluator=value``, bots/_evaluators.pyx) on one core:
microseconds per evaluation of a round's end (both seats) of the network (an ``azul-value/1``
model: its input scaling folded into the first layer, which sums the weight rows of the
observation's few nonzero inputs) and of the n-tuple tables (``azul-ntuple/1``) next to the
heuristic's, and MCTS iterations per second with each next to the default (the heuristic), all
measured in turn (CPU time, so a busy machine slows them alike). The n-tuple's target: at most
0.3 us beyond the call, below the heuristic's.

    taskset -c 1 python benchmarks/bench_value.py   # about 20 s; taskset: one core
    python benchmarks/bench_value.py --model runs/train/gen-002/candidate.azv --ntuple ntuple.azv --repeats 9

The models are the shipped ones unless named: the network ``value-2p-mlp``, the tables
``value-2p``. An evaluation's cost does not depend on the weights (the tables pick the same number
of entries whatever they hold; the network sums the same rows), but MCTS's speed does a little
(the tree it grows).

An evaluation is timed through ``Evaluator.value`` (a Python call); the ``score`` evaluator, which
only compares the points, is timed the same way, and its time is the call's cost: each
evaluator's cost in the search is its time less that one.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots import make_bot  # noqa: E402
from bots._evaluators import make_evaluator  # noqa: E402
from bots.value_file import model_bytes  # noqa: E402
from engine import new_game  # noqa: E402


def round_ends(count: int, seed: int = 5) -> list:
    """Positions at a round's end (phase refill) of random 2-player games."""
    rng, out = random.Random(seed), []
    while len(out) < count:
        state = new_game(2, seed=rng.getrandbits(32))
        while not state.is_over and len(out) < count:
            if state.phase == "refill":
                out.append(state.clone())
                state.deal(seed=rng.getrandbits(32))
            else:
                state.play(rng.choice(state.legal_moves()))
    return out


def per_call_us(evaluator, states, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        for s in states:
            evaluator.value(s)
        best = min(best, time.process_time() - start)
    return best / len(states) * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="value-2p-mlp", help="a network: a shipped model's name or a file")
    ap.add_argument("--ntuple", default="value-2p", help="n-tuple tables: a shipped model's name or a file")
    ap.add_argument("--iterations", type=int, default=5000)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    ntuple = a.ntuple
    params = {"value_scale": 8.0}
    evaluators = {"score": make_evaluator("score", **params),
                  "heuristic": make_evaluator("heuristic", **params),
                  "value (MLP)": make_evaluator("value", model_bytes=model_bytes(a.model), **params),
                  "value (n-tuple)": make_evaluator("value", model_bytes=model_bytes(ntuple), **params)}
    states = round_ends(2000)
    times = {name: per_call_us(ev, states, a.repeats) for name, ev in evaluators.items()}
    print(f"one evaluation of a round's end, both seats ({len(states)} positions, best of {a.repeats}):")
    for name, us in times.items():
        print(f"  {name:16s} {us:7.2f} us a call, {us - times['score']:6.2f} us beyond the call")
    beyond = times["value (n-tuple)"] - times["score"]
    print(f"  the n-tuple's target: at most 0.3 us beyond the call and below the heuristic's "
          f"({times['heuristic'] - times['score']:.2f}): {beyond:.2f} us")

    opening = new_game(2, seed=2024)
    bots = {"default": make_bot("mcts", seed=1, iterations=a.iterations),
            "value (MLP)": make_bot("mcts", seed=1, iterations=a.iterations, evaluator="value",
                                    model=a.model),
            "value (n-tuple)": make_bot("mcts", seed=1, iterations=a.iterations, evaluator="value",
                                        model=ntuple)}
    spent = {k: [] for k in bots}
    for bot in bots.values():
        bot.act(opening)
    for _ in range(a.repeats):
        for key, bot in bots.items():
            start = time.process_time()
            bot.act(opening)
            spent[key].append(time.process_time() - start)
    print(f"MCTS from the opening, {a.iterations} iterations a search, {a.repeats} searches each, in turn:")
    base = a.iterations / statistics.median(spent["default"])
    for key, s in spent.items():
        rate = a.iterations / statistics.median(s)
        print(f"  {key:16s} {rate:10,.0f} iterations/s  ({rate / base:.2f} x the default)")


if __name__ == "__main__":
    main()
