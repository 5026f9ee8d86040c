"""A match between OpenSpiel's MCTS (bot ``openspiel_mcts``) and this project's ``mcts`` at equal
iterations per move: 2 players, coloured wall, every deal played twice with the seats swapped.

    python benchmarks/bench_rl_match.py --deals 20 --iterations 300

Prints openspiel_mcts's points (a win 1, a shared first 1/2) with a 95% interval (a Wilson score
interval over games), and both bots' mean scores.
"""
from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's packages, installed or not

from bots.openspiel_mcts import OpenSpielMCTSBot  # noqa: E402
from bots.registry import make_bot  # noqa: E402
from engine import new_game  # noqa: E402
from engine.loop import play  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description="openspiel_mcts against mcts at equal iterations")
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    points, scores = [], {"openspiel_mcts": [], "mcts": []}
    start = time.perf_counter()
    for deal in range(args.deals):
        for os_seat in (0, 1):
            players = {os_seat: OpenSpielMCTSBot(seed=deal, iterations=args.iterations),
                       1 - os_seat: make_bot("mcts", seed=deal, iterations=args.iterations)}
            seeds = random.Random(f"{args.seed}:{deal}")
            state = new_game(2)
            for _ in play(state, act=lambda seat, view: players[seat].act(view),
                          deal_seed=lambda r: seeds.randrange(2**32)):
                pass
            ranks = state.to_json()["ranks"]
            points.append(1.0 if ranks[os_seat] < ranks[1 - os_seat] else
                          0.5 if ranks[os_seat] == ranks[1 - os_seat] else 0.0)
            scores["openspiel_mcts"].append(state.scores[os_seat])
            scores["mcts"].append(state.scores[1 - os_seat])
    n = len(points)
    mean = sum(points) / n
    low, high = wilson(mean, n)
    print(f"{n} games ({args.deals} deals, seats swapped), {args.iterations} iterations per move each, "
          f"{time.perf_counter() - start:.0f} s")
    print(f"openspiel_mcts points: {sum(points):g} of {n} = {mean:.3f} "
          f"(95% Wilson interval {low:.3f} to {high:.3f})")
    for name, values in scores.items():
        print(f"{name:<15} mean score {sum(values) / n:.1f}")


def wilson(share: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a share observed over n games."""
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


if __name__ == "__main__":
    main()
