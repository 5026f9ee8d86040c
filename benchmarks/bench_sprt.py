"""The SPRT measured: error rates and lengths by simulation, and pairs per second on the league.

    python benchmarks/bench_sprt.py                # simulation (about a minute), then the leagues
    python benchmarks/bench_sprt.py --simulation   # only the simulation
    python benchmarks/bench_sprt.py --pairs 40     # pairs per timed test (default 40)

Simulation: for each model, ``--tests`` SPRTs (default 1000) of elo0 = 0 against elo1 = 40 on
pairs drawn from a pentanomial distribution of true Elo elo0, then elo1; prints the share that
accepted H1 and H0 (targets: H1 at elo0 at most alpha, H0 at elo1 at most beta, each plus
sampling error), and the mean number of pairs beside ``expected_pairs``.

Throughput: SPRTs that cannot stop in time (elo0 = -1, elo1 = 1, alpha = beta = 1e-9,
``max_pairs`` = ``--pairs``) of
greedy against greedy and of mcts (1,000 iterations) against mcts (500), serial (``--workers
0``) and on a local Ray with 2 CPUs (started the way tournament/backends.py does). pairs/s counts
the playing only (``summary.play_s``), not starting Ray.
"""
from __future__ import annotations

import argparse
import math
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from analysis.sprt import expected_pairs, with_elo  # noqa: E402
from analysis.sprt_simulation import simulate  # noqa: E402

BASE = [0.1, 0.2, 0.4, 0.2, 0.1]


def simulation(tests: int) -> None:
    print(f"simulation: {tests} tests each, elo0 0 against elo1 40, alpha = beta = 0.05")
    se = 3 * math.sqrt(0.05 * 0.95 / tests)
    for model in ("logistic", "normalized"):
        for elo, wrong in ((0.0, "h1"), (40.0, "h0")):
            s = simulate(BASE, elo, 0.0, 40.0, model=model, tests=tests, seed=7)
            rate = getattr(s, wrong)
            predicted = expected_pairs(with_elo(BASE, elo, model), 0.0, 40.0, model=model)
            print(f"  {model:10s} true elo {elo:4.0f}: accept H1 {s.h1:.3f}, H0 {s.h0:.3f}, undecided "
                  f"{s.undecided:.3f}; wrong {rate:.3f} (target <= {0.05 + se:.3f}); mean pairs "
                  f"{s.mean_pairs:.0f} (Brownian approximation {predicted:.0f})")


def throughput(pairs: int) -> None:
    from tournament.backends import start_local_ray
    from kinds.sprt import SprtSettings, run_sprt

    print(f"throughput: {pairs} pairs per test, playing time only")
    for label, new, base in (("greedy vs greedy", "greedy", "greedy"),
                             ("mcts 1000 vs mcts 500", "mcts:iterations=1000", "mcts:iterations=500")):
        for workers in (0, 2):
            if workers and not _ray_started[0]:
                start_local_ray(2)
                _ray_started[0] = True
            with tempfile.TemporaryDirectory() as out:
                outcome = run_sprt(SprtSettings(new, base, elo0=-1, elo1=1, alpha=1e-9, beta=1e-9,
                                                max_pairs=pairs,
                                                workers=workers, out=out, mlflow=False))
            s = outcome.summary
            where = "serial" if workers == 0 else f"Ray, {workers} workers"
            print(f"  {label:22s} {where:15s} {s.played / 2 / s.play_s:8.2f} pairs/s "
                  f"({s.played} games in {s.play_s:.1f} s)")


_ray_started = [False]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=1000)
    parser.add_argument("--pairs", type=int, default=40)
    parser.add_argument("--simulation", action="store_true", help="only the simulation")
    args = parser.parse_args()
    simulation(args.tests)
    if not args.simulation:
        throughput(args.pairs)


if __name__ == "__main__":
    main()
