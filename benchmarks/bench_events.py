"""A long Swiss: does a round cost the same at round 1,000 as at round 1?

    python benchmarks/bench_events.py                         # 1,000 rounds of 8 random bots (about 2 minutes)
    python benchmarks/bench_events.py --rounds 300 --bots 16
    python benchmarks/bench_events.py --against /tmp/old      # the same Swiss played by another checkout too

A Swiss of ``--bots`` cheap bots (``--bot``: random by default) at 2 players, one deal a pairing,
seats rotated (2 games a pairing), played in this process (``workers: 0``), every record written,
no MLflow. The Swiss's schedule is timed round by round: games/s over the first and the last
hundred rounds (the playing, writing and pairing of those rounds, from the first pairing to the
one after the last), and the milliseconds a round's pairing takes (``next_games``) in each. A
Swiss whose pairing rereads every round played so far slows as the rounds pile up; one whose
pairing cost does not depend on the rounds behind it keeps its pace.

``--against DIR`` runs the same measurement with the packages of the checkout DIR (e.g. a
``git worktree`` of an older commit, its compiled modules built or copied in) and prints both side
by side. Each measurement runs in a child process of its own.

Measured on 2 shared cores (load 3), against a worktree of 3ed31ab (each round paired from every
round so far; its compiled modules copied in)::

    $ python benchmarks/bench_events.py --against /tmp/oldsw
    checkout        rounds   games/s  pairing ms       rounds   games/s  pairing ms   last/first
    this checkout    1-100    2970.5        0.35     901-1000    2362.8        0.64         0.80
    /tmp/oldsw       1-100    1142.3        1.50     901-1000      42.9       53.44         0.04
    $ python benchmarks/bench_events.py --bot greedy --bots 16 --rounds 500 --against /tmp/oldsw
    this checkout    1-100    5428.7        0.51      401-500    5429.3        0.57         1.00
    /tmp/oldsw       1-100    1768.9        2.97      401-500     209.9       33.93         0.12

What still grows is a filter in C over the recorded rows (``Results.since``: well under a
millisecond at 1,000 rounds); the rest of a round's cost is the playing and writing.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def measure(rounds: int, bots: int, bot: str, window: int) -> dict:
    """Play the Swiss in this process (the packages first on sys.path) and time its rounds."""
    from tournament.config import parse_config
    from tournament.events import event_schedule
    from tournament.runner import run_league

    with tempfile.TemporaryDirectory() as out:
        config = parse_config({
            "name": "swiss", "format": "swiss", "rounds": rounds, "deals": 1, "players": 2, "seats": "rotate",
            "seed": 1, "out": out, "mlflow": {"enabled": False}, "ray": {"workers": 0},
            "bots": [{"name": f"{bot}-{i}", "type": bot, "seed": i} for i in range(bots)]})
        schedule = event_schedule(config)
        asked, pairing_s, sizes = [], [], []
        inner = schedule.next_games

        def timed(results):
            t0 = time.perf_counter()
            games = inner(results)
            pairing_s.append(time.perf_counter() - t0)
            asked.append(time.perf_counter())
            sizes.append(len(games) if games else 0)
            return games

        schedule.next_games = timed
        summary = run_league(config, progress=False, schedule=schedule)
        assert summary.complete and len(asked) == rounds + 1, (summary, len(asked))

    def span(first: int, last: int) -> dict:  # rounds first..last (1-based), asked[r - 1] pairs round r
        games = sum(sizes[first - 1:last])
        seconds = asked[last] - asked[first - 1]
        return {"rounds": f"{first}-{last}", "games": games, "games_per_s": games / seconds,
                "pairing_ms": 1000 * sum(pairing_s[first - 1:last]) / (last - first + 1)}

    w = min(window, rounds)
    return {"games": summary.recorded, "first": span(1, w), "last": span(rounds - w + 1, rounds)}


def run_in(checkout: Path, args) -> dict:
    """``measure`` in a child process that imports the packages of ``checkout`` (first on its path)."""
    argv = [sys.executable, __file__, "--child", "--rounds", str(args.rounds), "--bots", str(args.bots),
            "--bot", args.bot, "--window", str(args.window)]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=checkout,
                          env={**os.environ, "PYTHONPATH": str(checkout)})
    if done.returncode != 0:
        raise SystemExit(f"{checkout}: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--bots", type=int, default=8)
    parser.add_argument("--bot", default="random")
    parser.add_argument("--window", type=int, default=100, help="rounds at each end")
    parser.add_argument("--against", type=Path, help="another checkout, measured the same way")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)  # measure here, print JSON
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.rounds, args.bots, args.bot, args.window)))
        return
    runs = {"this checkout": ROOT} | ({f"{args.against}": args.against} if args.against else {})
    print(f"Swiss: {args.rounds} rounds, {args.bots} {args.bot} bots, 2 players, 1 deal a pairing (2 games), "
          "workers 0")
    print(f"{'checkout':<28} {'rounds':>10} {'games/s':>9} {'pairing ms':>11}   {'rounds':>10} {'games/s':>9} "
          f"{'pairing ms':>11}   {'last/first':>10}")
    for label, checkout in runs.items():
        r = run_in(checkout.resolve(), args)
        f, s = r["first"], r["last"]
        print(f"{label:<28} {f['rounds']:>10} {f['games_per_s']:>9.1f} {f['pairing_ms']:>11.2f}   "
              f"{s['rounds']:>10} {s['games_per_s']:>9.1f} {s['pairing_ms']:>11.2f}   "
              f"{s['games_per_s'] / f['games_per_s']:>10.2f}", flush=True)


if __name__ == "__main__":
    main()
