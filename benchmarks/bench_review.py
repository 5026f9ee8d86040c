"""The game review's speed and what it says (issue 45; docs/review.md, "Measured").

    python benchmarks/bench_review.py                          # speed: a 1,000-game league reviewed with --workers 2
    python benchmarks/bench_review.py --games 200 --workers 1
    python benchmarks/bench_review.py --ladder --deals 10      # the sanity ladder, by two analysers

Speed: plays (once; kept under ``--out``) a 2-player league of ``--games`` games between the
heuristic and ``mcts:iterations=200`` in the compiled loop, then reviews it from scratch with
``azul review run``'s code (kinds.review.review_run) at the default analyser
(``mcts-2p:iterations=1000``) and ``--workers`` workers, and prints the wall time, the moves
reviewed, moves a second and moves a second a core (a core a worker). ``--one-core N`` first times
N games in this process (no Ray), the figure a core gives without Ray's overhead.

Ladder (``--ladder``): a 2-player league of random, greedy, heuristic, mcts and mcts-2p (both at
1,000 iterations a move) over ``--deals`` deals, reviewed by the default analyser and by one with
ten times its budget (``mcts-2p:iterations=10000``, read through the same map); printed per bot
and analyser: accuracy, mean win and points lost, blunders per game, and how often a move the
analyser did not choose measured better than its choice.
"""
from __future__ import annotations

import argparse
import os
import shutil
import time
from pathlib import Path

import polars as pl


def play(out: Path, name: str, bots: list[dict], deals: int, workers: int) -> Path:
    """The league's run folder, played once (an existing complete one is kept)."""
    from tournament.config import parse_config
    from tournament.runner import run_league

    config = {"name": name, "players": 2, "deals": deals, "seed": 45, "out": str(out),
              "mlflow": {"enabled": False}, "ray": {"workers": workers}, "bots": bots}
    run = out / name
    if not (run / "games").is_dir():
        started = time.perf_counter()
        summary = run_league(parse_config(config), progress=False)
        print(f"played {summary.total:,} games into {run} in {time.perf_counter() - started:.0f} s")
    return run


def fresh_copy(run: Path, to: Path) -> Path:
    """A copy of the run without reviews."""
    if to.exists():
        shutil.rmtree(to)
    shutil.copytree(run, to, ignore=shutil.ignore_patterns("reviews"))
    return to


def speed(args) -> None:
    from kinds.review import recorded_games, review_run
    from records.store import open_store

    out = Path(args.out)
    deals = max(1, args.games // 2)
    run = play(out, f"review-speed-{args.games}", [{"type": "heuristic", "seed": 1},
                                                    {"name": "mcts-200", "type": "mcts", "seed": 2,
                                                     "params": {"iterations": 200}}], deals, 2)
    games = sorted(recorded_games(open_store(run)))
    if args.one_core:
        copy = fresh_copy(run, out / "review-speed-one-core")
        started = time.perf_counter()
        outcome = review_run(str(copy), games[:args.one_core], None, 0)
        seconds = time.perf_counter() - started
        moves = len(outcome.rows)
        print(f"in process, one core: {args.one_core} games, {moves:,} moves in {seconds:.1f} s: "
              f"{moves / seconds:,.1f} moves/s")
    copy = fresh_copy(run, out / "review-speed-copy")
    started = time.perf_counter()
    outcome = review_run(str(copy), None, None, args.workers)
    seconds = time.perf_counter() - started
    moves = len(outcome.rows)
    print(f"review of {len(games):,} games ({moves:,} moves) by {', '.join(outcome.analysers.values())} with "
          f"--workers {args.workers}: {seconds:.0f} s wall ({seconds / 60:.1f} min), {moves / seconds:,.1f} moves/s, "
          f"{moves / seconds / max(1, args.workers):,.1f} moves/s a core ({os.cpu_count()} cores here)")


def ladder(args) -> None:
    from analysis.review_show import per_bot, reviews_of
    from kinds.review import review_run

    out = Path(args.out)
    bots = [{"type": "random", "seed": 1}, {"type": "greedy", "seed": 2}, {"type": "heuristic", "seed": 3},
            {"name": "mcts", "type": "mcts", "seed": 4, "params": {"iterations": 1000}},
            {"name": "mcts-2p", "type": "mcts-2p", "seed": 5, "params": {"iterations": 1000}}]
    run = play(out, f"review-ladder-{args.deals}", bots, args.deals, args.workers)
    for spec in ("mcts-2p:iterations=1000", "mcts-2p:iterations=10000"):
        started = time.perf_counter()
        review_run(str(run), None, spec, args.workers)
        rows = reviews_of(str(run), spec)
        print(f"\nreviewed by {rows['analyser'][0]} ({time.perf_counter() - started:.0f} s, "
              f"{rows['game_id'].n_unique()} games)")
        table = per_bot(rows)
        better = (rows.filter(pl.col("move") != pl.col("best"))
                  .with_columns(pl.struct("wins", "wins_played", "seat").map_elements(
                      lambda r: r["wins_played"][r["seat"]] > r["wins"][r["seat"]], return_dtype=pl.Boolean)
                      .alias("better"))
                  .group_by("bot").agg(pl.col("better").mean().alias("played_better")))
        table = table.join(better, on="bot", how="left")
        print(f"{'bot':<10} {'moves':>6} {'accuracy':>8} {'win lost':>9} {'points lost':>11} {'blunders/game':>13} "
              f"{'not best, measured better':>26}")
        for r in table.iter_rows(named=True):
            print(f"{r['bot']:<10} {r['moves']:>6,} {r['accuracy']:>8.1f} {r['mean_win_loss']:>9.4f} "
                  f"{r['mean_points_loss']:>+11.2f} {r['blunders_per_game']:>13.2f} {r['played_better'] or 0:>26.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="runs/bench-review", help="where the leagues are played and kept")
    parser.add_argument("--games", type=int, default=1000, help="speed: the league's games")
    parser.add_argument("--workers", type=int, default=2, help="Ray workers for the review (0: in process)")
    parser.add_argument("--one-core", type=int, default=20, metavar="N",
                        help="speed: first time N games in this process (0: skip)")
    parser.add_argument("--ladder", action="store_true", help="the sanity ladder instead of the speed")
    parser.add_argument("--deals", type=int, default=10, help="ladder: deals a pair of bots")
    args = parser.parse_args()
    ladder(args) if args.ladder else speed(args)


if __name__ == "__main__":
    main()
