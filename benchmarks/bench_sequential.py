"""What stopping when the answer is known buys, and what its interval keeps (issue 44, item 3):
synthetic studies played through the stopping rule of analysis/sequential.py.

    python benchmarks/bench_sequential.py                  # 4,000 studies a scenario, a few seconds a design
    python benchmarks/bench_sequential.py --reps 20000 --stages 5 10 20

Each study's deals have a paired difference of standard deviation 4 points (as
tests/test_studies.py's synthetic studies: the deal's luck cancels in the pair). The claim is
"> X", X the distance at which the design ends decided with 90% power; the scenarios are a true
effect of 0, X (on the boundary) and 2X. Printed per design and scenario: how often the reported
interval (the design's exact one) covers the truth, how often a naive mean +- 1.96 se at the stop
would, the verdicts, the mean deals played, and the deals of the fixed design (one look: what a
study without the stopping rule needs) with the same level and the same power: the share of
right verdicts measured here away from the boundary, the planned 90% on it; with the saving.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from analysis import sequential as seq

SD = 4.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=4000, help="synthetic studies per scenario")
    parser.add_argument("--deals", type=int, default=200, help="the most deals a study plays")
    parser.add_argument("--stages", type=int, nargs="+", default=[5, 10], help="looks per design")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"{args.reps:,} synthetic studies per scenario, at most {args.deals} deals, a deal's sd {SD:g} points")
    print(f"{'looks':>5} {'effect':>7} {'covers':>7} {'naive':>7} {'supported':>9} {'refuted':>8} "
          f"{'undecided':>9} {'deals':>7} {'fixed':>7} {'saving':>7}")
    rng = np.random.default_rng(args.seed)
    for stages in args.stages:
        started = time.perf_counter()
        design = seq.Design.even(args.deals, stages)
        distance = seq.planned_distance(design)
        boundary = distance * SD
        region = seq.Region.parse(f"> {boundary}")
        for effect in (0.0, boundary, 2 * boundary):
            diffs = rng.normal(effect, SD, (args.reps, args.deals))
            found = [seq.sequential_effect(d, design, region) for d in diffs]
            covers = np.mean([r.low <= effect <= r.high for r in found])
            naive = np.mean([abs(r.effect - effect) <= 1.96 * r.sd / np.sqrt(r.deals) for r in found])
            verdicts = [np.mean([r.verdict == v for r in found]) for v in ("supported", "refuted", "undecided")]
            deals = np.mean([r.deals for r in found])
            right = verdicts[1] if effect < boundary else verdicts[0] if effect > boundary else 0.9
            fixed = seq.fixed_deals(design, distance, right)  # the same level, the power it had here
            print(f"{stages:>5} {effect:>7.3f} {covers:>7.3f} {naive:>7.3f} {verdicts[0]:>9.3f} {verdicts[1]:>8.3f} "
                  f"{verdicts[2]:>9.3f} {deals:>7.1f} {fixed:>7.1f} {1 - deals / fixed:>+7.1%}")
        print(f"      (X = {boundary:.3f} points; {time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
