"""How often a league builds its MCTS bots and reads their model, per 1,000 games, and its games/s:
``mcts:evaluator=value`` (the shipped model) against greedy, in this process (``--workers 0``: one
worker), played by the compiled loop (each MCTS move asked of a bot in Python) and, side by side,
by the Python referee (``python_referee``).

    python benchmarks/bench_bot_builds.py                 # about 40 s
    python benchmarks/bench_bot_builds.py --deals 200 --iterations 50

A build is a call of ``MCTSBot.__init__``; a model read, the model's file read and checked
(``bots.value_file._read_checked``: a file is read once per process and version, then kept by
its content hash). Both are counted by wrapping them in this process.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bots.mcts as mcts  # noqa: E402
import bots.value_file as value_file  # noqa: E402
from tournament.config import parse_config  # noqa: E402
from tournament.runner import run_league  # noqa: E402


def counted(deals: int, iterations: int, python_referee: bool) -> dict:
    counts = {"builds": 0, "model_reads": 0}
    init, read = mcts.MCTSBot.__init__, value_file._read_checked
    value_file._READ.clear()  # each run reads its model afresh

    def counting_init(self, *args, **kwargs):
        counts["builds"] += 1
        init(self, *args, **kwargs)

    def counting_read(*args):
        counts["model_reads"] += 1
        return read(*args)

    mcts.MCTSBot.__init__, value_file._read_checked = counting_init, counting_read
    try:
        with tempfile.TemporaryDirectory() as out:
            config = parse_config({
                "name": "builds", "players": 2, "deals": deals, "seed": 3, "out": out,
                "mlflow": {"enabled": False}, "ray": {"workers": 0},
                "bots": [{"name": "value", "type": "mcts", "seed": 1,
                          "params": {"evaluator": "value", "iterations": iterations}},
                         {"type": "greedy", "seed": 2}], "python_referee": python_referee})
            started = time.perf_counter()
            summary = run_league(config, progress=False)
            seconds = time.perf_counter() - started
    finally:
        mcts.MCTSBot.__init__, value_file._read_checked = init, read
    games = summary.recorded
    return {"games": games, "seconds": seconds, **counts}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--iterations", type=int, default=20)
    args = parser.parse_args()
    for referee in ("compiled loop", "python referee"):
        r = counted(args.deals, args.iterations, referee == "python referee")
        per = 1000 / r["games"]
        print(f"{referee}: {r['games']:,} games of mcts:evaluator=value,iterations={args.iterations} against "
              f"greedy, in process, {r['seconds']:.1f} s ({r['games'] / r['seconds']:.1f} games/s); "
              f"MCTS bots built: {r['builds']:,} ({r['builds'] * per:,.0f} per 1,000 games); "
              f"model files read: {r['model_reads']:,} ({r['model_reads'] * per:,.0f} per 1,000 games)")

if __name__ == "__main__":
    main()
