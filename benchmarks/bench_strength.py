"""Bot strength: a seat-rotated, shared-deal ladder with 95% intervals.

    python benchmarks/bench_strength.py --deals 400 --pair greedy random --pair heuristic greedy
    python benchmarks/bench_strength.py --players 2 3 4 --variant colored gray --deals 100
    python benchmarks/bench_strength.py --pair mcts:iterations=500 heuristic --deals 50 --jobs 2

A pairing of A and B plays every deal once per seat: with n players, A sits in each seat in turn and B
fills the other seats. Every game of a deal uses the same deal seeds (round r of deal d is dealt
from one seed), so both sides face the same luck. A game's result for A is the mean over the B
seats of 1 (A ranks above that B), 1/2 (same rank: ties count half) or 0; a deal's result is the
mean over its n games; the win rate is the mean over deals, with a Wilson 95% interval over deals
(deals are the independent unit; treating a deal's mean as one Bernoulli outcome is conservative).
Each side is a bot spec, ``TYPE`` or ``TYPE:key=value,...`` (bots.spec).
"""
from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's packages, installed or not

from analysis.stats import wilson  # noqa: E402
from bots.spec import bot_from_spec  # noqa: E402
from engine import new_game  # noqa: E402
from engine.loop import play  # noqa: E402

DEFAULT_PAIRS = [("greedy", "random"), ("heuristic", "greedy"), ("mcts", "heuristic")]


def deal_seed(seed: int, deal: int, round_: int) -> int:
    return (seed * 1_000_003 + deal) * 64 + round_


def play_game(bots: list, players: int, variant: str, seed: int, deal: int) -> tuple[list[int], list[int]]:
    """One game; returns (ranks, scores) by seat."""
    state = new_game(players, variant)
    for bot in bots:
        bot.reset()
    for _ in play(state, lambda seat, view: bots[seat].act(view), lambda r: deal_seed(seed, deal, r)):
        pass
    return state.to_json()["ranks"], state.scores


def play_deals(job: tuple) -> list[tuple[float, float, float]]:
    """(deal score for A, mean A score, mean B score) for each deal of a chunk."""
    side_a, side_b, players, variant, seed, deals = job
    bot_a = bot_from_spec(side_a, seed=seed)
    bots_b = [bot_from_spec(side_b, seed=seed + 1 + i) for i in range(players - 1)]
    out = []
    for deal in deals:
        result = score_a = score_b = 0.0
        for seat in range(players):
            bots = bots_b[:seat] + [bot_a] + bots_b[seat:]
            ranks, scores = play_game(bots, players, variant, seed, deal)
            others = [j for j in range(players) if j != seat]
            result += sum(1.0 if ranks[seat] < ranks[j] else 0.5 if ranks[seat] == ranks[j] else 0.0
                          for j in others) / len(others)
            score_a += scores[seat]
            score_b += sum(scores[j] for j in others) / len(others)
        out.append((result / players, score_a / players, score_b / players))
    return out


def run_pair(pair: tuple[str, str], players: int, variant: str, deals: int, seed: int, jobs: int) -> dict:
    side_a, side_b = pair
    chunks = [list(range(i, deals, jobs)) for i in range(jobs)]
    tasks = [(side_a, side_b, players, variant, seed, chunk) for chunk in chunks if chunk]
    start = time.perf_counter()
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            results = [r for part in pool.map(play_deals, tasks) for r in part]
    else:
        results = play_deals(tasks[0])
    seconds = time.perf_counter() - start
    rate = sum(r[0] for r in results) / deals
    low, high = wilson(rate * deals, deals)
    return {"pair": f"{side_a} vs {side_b}", "rate": rate, "low": low, "high": high,
            "score_a": sum(r[1] for r in results) / deals, "score_b": sum(r[2] for r in results) / deals,
            "ms_game": 1000 * seconds / (deals * players)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=400, help="deals per pairing (default 400)")
    parser.add_argument("--pair", nargs=2, action="append", metavar=("A", "B"), dest="pairs",
                        help="a pairing of two bot specs, e.g. --pair mcts:iterations=500 heuristic; "
                             "repeatable (default: greedy random, heuristic greedy, mcts heuristic)")
    parser.add_argument("--players", type=int, nargs="+", default=[2], choices=[2, 3, 4])
    parser.add_argument("--variant", nargs="+", default=["colored"], choices=["colored", "gray"])
    parser.add_argument("--seed", type=int, default=1, help="deal seeds and bot seeds derive from it")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    args = parser.parse_args()
    if args.deals < 1 or args.jobs < 1:
        parser.error("--deals and --jobs must be at least 1")
    pairs = [tuple(pair) for pair in args.pairs or DEFAULT_PAIRS]
    for pair in pairs:
        try:
            for side in pair:
                bot_from_spec(side, seed=0)
        except ValueError as err:
            parser.error(str(err))

    print(f"{'players':>7} {'variant':8} {'pair':32} {'deals':>6} {'A win rate':>10} "
          f"{'95% interval':>16} {'A score':>8} {'B score':>8} {'ms/game':>8}")
    for players in args.players:
        for variant in args.variant:
            for pair in pairs:
                r = run_pair(pair, players, variant, args.deals, args.seed, args.jobs)
                print(f"{players:>7} {variant:8} {r['pair']:32} {args.deals:>6} {r['rate']:10.1%} "
                      f"  [{r['low']:5.1%}, {r['high']:5.1%}] {r['score_a']:8.1f} {r['score_b']:8.1f} "
                      f"{r['ms_game']:8.1f}", flush=True)


if __name__ == "__main__":
    main()
