"""MCTS search speed on one core: iterations per second from the opening and from a mid-game
2-player position, for the default settings and each rollout policy and cut-off.

    python benchmarks/bench_mcts.py                      # about 15 s, searches of 5,000 iterations
    python benchmarks/bench_mcts.py --iterations 50000   # deeper trees (shorter rollouts): faster
    python benchmarks/bench_mcts.py --quick              # about 3 s

The target is at least 50,000 iterations/s with the default settings (5,000 iterations per move)
from both positions.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's packages, installed or not

from bots import bot_parameters, make_bot  # noqa: E402
from engine import GameState, new_game  # noqa: E402

TARGET = 50_000
DEFAULTS = {name: p.default for name, p in bot_parameters("mcts").items()}
SETTINGS = [
    ("default", {}),
    ("rollout=random", {"rollout": "random", "cutoff": "round"}),
    ("rollout=greedy", {"rollout": "greedy", "cutoff": "round"}),
    ("rollout=heuristic", {"rollout": "heuristic", "cutoff": "round"}),
    ("random, cutoff=game", {"rollout": "random", "cutoff": "game"}),
    ("greedy, cutoff=game", {"rollout": "greedy", "cutoff": "game"}),
]


def opening() -> GameState:
    return new_game(2, seed=2024)


def mid_game() -> GameState:
    """Round 3 of a 2-player game, six moves in (random moves from fixed seeds)."""
    rng = random.Random(7)
    state = new_game(2, seed=7)
    moves = 0
    while not (state.round == 3 and moves == 6):
        if state.phase == "refill":
            state.deal(seed=rng.getrandbits(32))
            moves = 0
        else:
            state.play(rng.choice(state.legal_moves()))
            moves += 1
    return state


def rate(state: GameState, params: dict, iterations: int, repeats: int) -> float:
    """Iterations per second: the best of a few searches of `iterations` each."""
    bot = make_bot("mcts", seed=1, iterations=iterations, **params)
    bot.act(state)                       # grow the node pool once
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        bot.act(state)
        best = min(best, time.perf_counter() - start)
    assert bot._search.iterations_done == iterations
    return iterations / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer iterations and repeats")
    parser.add_argument("--iterations", type=int, default=DEFAULTS["iterations"],
                        help="iterations per search (default: the bot's default)")
    args = parser.parse_args()
    iterations = args.iterations
    repeats = 1 if args.quick else 5
    positions = {"opening": opening(), "mid-game": mid_game()}
    shown = ", ".join(f"{k}={v}" for k, v in DEFAULTS.items()
                      if k not in ("seconds", "iterations", "max_nodes"))
    print(f"MCTS iterations/s on one core, {iterations} iterations per search, best of {repeats}")
    print(f"defaults: {shown}")
    print(f"{'settings':<22}" + "".join(f"{name:>14}" for name in positions))
    failed = False
    for label, params in SETTINGS:
        rates = [rate(state, params, iterations, repeats) for state in positions.values()]
        print(f"{label:<22}" + "".join(f"{r:>14,.0f}" for r in rates))
        if label == "default":
            failed = min(rates) < TARGET
    print(f"target: {TARGET:,} iterations/s with the default settings: {'MISSED' if failed else 'met'}")


if __name__ == "__main__":
    main()
