"""How often a league builds its MCTS bots and reads their model, per 1,000 games, and its games/s:
``mcts:evaluator=value`` (the shipped model) against greedy, played by the compiled loop in this
process (``--workers 0``: one worker), each MCTS move asked of a bot in Python.

    python benchmarks/bench_bot_builds.py                 # about 20 s
    python benchmarks/bench_bot_builds.py --deals 200 --iterations 50

A build is a call of ``MCTSBot.__init__``; a model read, a call of ``bots.mcts.model_bytes`` (the
file read and checked). Both are counted by wrapping them in this process.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bots.mcts as mcts  # noqa: E402
from tournament.config import parse_config  # noqa: E402
from tournament.runner import run_league  # noqa: E402


def counted(deals: int, iterations: int) -> dict:
    counts = {"builds": 0, "model_reads": 0}
    init, read = mcts.MCTSBot.__init__, mcts.model_bytes

    def counting_init(self, *args, **kwargs):
        counts["builds"] += 1
        init(self, *args, **kwargs)

    def counting_read(name):
        counts["model_reads"] += 1
        return read(name)

    mcts.MCTSBot.__init__, mcts.model_bytes = counting_init, counting_read
    try:
        with tempfile.TemporaryDirectory() as out:
            config = parse_config({
                "name": "builds", "players": 2, "deals": deals, "seed": 3, "out": out,
                "mlflow": {"enabled": False}, "ray": {"workers": 0},
                "bots": [{"name": "value", "type": "mcts", "seed": 1,
                          "params": {"evaluator": "value", "iterations": iterations}},
                         {"type": "greedy", "seed": 2}]})
            started = time.perf_counter()
            summary = run_league(config, progress=False)
            seconds = time.perf_counter() - started
    finally:
        mcts.MCTSBot.__init__, mcts.model_bytes = init, read
    games = summary.recorded
    return {"games": games, "seconds": seconds, **counts}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--iterations", type=int, default=20)
    args = parser.parse_args()
    r = counted(args.deals, args.iterations)
    per = 1000 / r["games"]
    print(f"{r['games']:,} games of mcts:evaluator=value,iterations={args.iterations} against greedy, "
          f"in process, {r['seconds']:.1f} s ({r['games'] / r['seconds']:.1f} games/s)")
    print(f"MCTS bots built: {r['builds']:,} ({r['builds'] * per:,.0f} per 1,000 games)")
    print(f"model files read: {r['model_reads']:,} ({r['model_reads'] * per:,.0f} per 1,000 games)")


if __name__ == "__main__":
    main()
