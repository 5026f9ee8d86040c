"""Do the 95% intervals hold the truth 95% of the time? Coverage measured on synthetic leagues.

    python benchmarks/bench_coverage.py                 # everything (several minutes)
    python benchmarks/bench_coverage.py --reps 100      # fewer leagues per setting
    python benchmarks/bench_coverage.py --only ratings  # or: proportions

Ratings: per setting, ``--reps`` synthetic leagues of known strengths (the settings of the
tests: 2 players, 4 bots, 20 deals a table; 3 players, 4 bots, 20 deals; 4 players, 5 bots, 8
deals), each deal played in every seat arrangement with its luck shared by them; every interval
method of analysis.bootstrap.INTERVALS on the same leagues and resamples. Prints each method's
coverage of the true ratings with its standard error (clustered by league) and mean width.

Proportions: the win rate's interval in the standings, naive Wilson against the deal-clustered
one, on 2-player leagues whose deals' shared luck correlates a pair's two games.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from analysis.bootstrap import INTERVALS  # noqa: E402
from analysis.coverage import rating_coverage, win_rate_coverage  # noqa: E402

FOUR = [("a", 300.0), ("b", 100.0), ("c", -100.0), ("d", -300.0)]
FIVE = FOUR + [("e", 0.0)]
SETTINGS = [("2 players, 4 bots, 20 deals", FOUR, 20, 2, 200),
            ("3 players, 4 bots, 20 deals", FOUR, 20, 3, 100),
            ("4 players, 5 bots, 8 deals", FIVE, 8, 4, 100)]


def ratings(reps: int) -> None:
    for name, truth, deals, players, bootstrap in SETTINGS:
        print(f"{name}: {reps} leagues, {bootstrap} deal resamples each", flush=True)
        for method, cov in rating_coverage(truth, deals, players=players, reps=reps,
                                           intervals=INTERVALS, bootstrap=bootstrap).items():
            print("  " + cov.line(method), flush=True)


def proportions(reps: int) -> None:
    for shared in (True, False):
        print(f"win rates, 2 players, 4 bots, 20 deals, {reps} leagues, a deal's luck "
              f"{'shared by both games' if shared else 'drawn per game'}", flush=True)
        for method, cov in win_rate_coverage(FOUR, 20, reps=reps, shared_luck=shared).items():
            print("  " + cov.line(method), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=400, help="leagues per setting")
    parser.add_argument("--only", choices=["ratings", "proportions"])
    args = parser.parse_args()
    if args.only in (None, "ratings"):
        ratings(args.reps)
    if args.only in (None, "proportions"):
        proportions(args.reps)


if __name__ == "__main__":
    main()
