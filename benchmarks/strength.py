"""Bot strength: a seat-rotated, shared-deal ladder with 95% intervals.

    python benchmarks/strength.py --deals 400 --pairs greedy:random heuristic:greedy
    python benchmarks/strength.py --players 2 3 4 --variant colored gray --deals 100
    python benchmarks/strength.py --pairs "mcts(iterations=500):heuristic" --deals 50 --jobs 2

A pairing A:B plays every deal once per seat: with n players, A sits in each seat in turn and B
fills the other seats. Every game of a deal uses the same deal seeds (round r of deal d is dealt
from one seed), so both sides face the same luck. A game's result for A is the mean over the B
seats of 1 (A ranks above that B), 1/2 (same rank: ties count half) or 0; a deal's result is the
mean over its n games; the win rate is the mean over deals, with a Wilson 95% interval over deals
(deals are the independent unit; treating a deal's mean as one Bernoulli outcome is conservative).
Each side may carry parameters: ``type(name=value,...)``.
"""
from __future__ import annotations

import argparse
import ast
import math
import re
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

# Keep this folder off the import path (benchmarks/engine.py would shadow the engine package).
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from bots import BOTS, make_bot  # noqa: E402
from engine import new_game  # noqa: E402

_SIDE = re.compile(r"^\s*(\w+)\s*(?:\((.*)\))?\s*$")


def parse_side(text: str) -> tuple[str, dict]:
    """``mcts(iterations=500)`` -> ("mcts", {"iterations": 500})."""
    match = _SIDE.match(text)
    if not match:
        raise ValueError(f"not a bot: {text!r} (write type or type(name=value,...))")
    params = {}
    for item in filter(None, (match.group(2) or "").split(",")):
        name, _, value = item.partition("=")
        try:
            params[name.strip()] = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            params[name.strip()] = value.strip()
    return match.group(1), params


def parse_pair(text: str) -> tuple[str, str]:
    depth, cut = 0, -1
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if ch == ":" and depth == 0:
            cut = i
    if cut < 0:
        raise ValueError(f"not a pair: {text!r} (write A:B, e.g. heuristic:greedy)")
    return text[:cut], text[cut + 1:]


def deal_seed(seed: int, deal: int, round_: int) -> int:
    return (seed * 1_000_003 + deal) * 64 + round_


def play_game(bots: list, players: int, variant: str, seed: int, deal: int) -> tuple[list[int], list[int]]:
    """One game; returns (ranks, scores) by seat."""
    state = new_game(players, variant)
    for bot in bots:
        bot.reset()
    while state.phase != "over":
        if state.phase == "refill":
            state.deal(seed=deal_seed(seed, deal, state.round))
        else:
            state.play(bots[state.to_move].act(state))
    return state.to_json()["ranks"], state.scores


def play_deals(job: tuple) -> list[tuple[float, float, float]]:
    """(deal score for A, mean A score, mean B score) for each deal of a chunk."""
    side_a, side_b, players, variant, seed, deals = job
    (ta, pa), (tb, pb) = parse_side(side_a), parse_side(side_b)
    bot_a = make_bot(ta, seed=seed, **pa)
    bots_b = [make_bot(tb, seed=seed + 1 + i, **pb) for i in range(players - 1)]
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


def wilson(p: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a proportion p observed over n trials."""
    if n == 0:
        return 0.0, 1.0
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def run_pair(pair: str, players: int, variant: str, deals: int, seed: int, jobs: int) -> dict:
    side_a, side_b = parse_pair(pair)
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
    low, high = wilson(rate, deals)
    return {"pair": f"{side_a} vs {side_b}", "rate": rate, "low": low, "high": high,
            "score_a": sum(r[1] for r in results) / deals, "score_b": sum(r[2] for r in results) / deals,
            "ms_game": 1000 * seconds / (deals * players)}


def default_pairs() -> list[str]:
    make_bot("random")      # loads the built-in bot types into BOTS
    pairs = ["greedy:random", "heuristic:greedy"]
    if "mcts" in BOTS:
        pairs.append("mcts:heuristic")
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=400, help="deals per pairing (default 400)")
    parser.add_argument("--pairs", nargs="+", metavar="A:B",
                        help="pairings, e.g. greedy:random heuristic:greedy mcts:heuristic "
                             "(default: those, mcts when registered)")
    parser.add_argument("--players", type=int, nargs="+", default=[2], choices=[2, 3, 4])
    parser.add_argument("--variant", nargs="+", default=["colored"], choices=["colored", "gray"])
    parser.add_argument("--seed", type=int, default=1, help="deal seeds and bot seeds derive from it")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    args = parser.parse_args()
    if args.deals < 1 or args.jobs < 1:
        parser.error("--deals and --jobs must be at least 1")
    pairs = args.pairs or default_pairs()
    for pair in pairs:
        try:
            for side in parse_pair(pair):
                kind, params = parse_side(side)
                make_bot(kind, **params)
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
