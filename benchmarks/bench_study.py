"""Games per second of a marker study (``kinds.study.run_study``), serial and on Ray.

    python benchmarks/bench_study.py                               # greedy and MCTS 1,000 iterations
    python benchmarks/bench_study.py --iterations 300 --deals 4    # a quicker look

Each study is a 2-player ``marker=take`` / ``marker=avoid`` study of the base bot (one shared
control game per deal, then each intervention in each seat: 5 games a deal), run once in this
process (``workers: 0``) and once on a local Ray with ``--workers`` workers (Ray's start-up
counted in the wall time, not in ``play``). Records go to a temporary folder, deleted at the end.
Prints one line per run: bot, backend, games, wall seconds, seconds playing, games per second.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kinds.study import StudyConfig, run_study  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--greedy-deals", type=int, default=200)
    parser.add_argument("--deals", type=int, default=6, help="deals of the MCTS study")
    parser.add_argument("--iterations", type=int, default=1000, help="MCTS iterations per move")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as out:
        for bot, deals in (("greedy", args.greedy_deals), (f"mcts:iterations={args.iterations}", args.deals)):
            study = StudyConfig(name="bench", bot=bot, interventions=("marker=take", "marker=avoid"),
                                deals=deals, out=out)
            for workers in (0, args.workers):
                started = time.perf_counter()
                summary = run_study(replace(study, workers=workers), fresh=True)
                wall = time.perf_counter() - started
                backend = "serial" if workers == 0 else f"ray x{workers}"
                print(f"{bot:22s} {backend:8s} games {summary.played:5d}  wall {wall:7.1f} s  "
                      f"play {summary.play_s:7.1f} s  {summary.played / summary.play_s:7.2f} games/s")


if __name__ == "__main__":
    main()
