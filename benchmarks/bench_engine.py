"""Engine speed on one core: the compiled playout loop, the Python API, and the reference oracle.

    python benchmarks/bench_engine.py            # about 30 s
    python benchmarks/bench_engine.py --quick    # about 5 s

Every figure comes from one run on one core, so the ratios compare like with like.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's packages, installed or not

from engine import new_game, random_playouts  # noqa: E402
from engine import reference as ref  # noqa: E402


def best_of(repeats: int, run) -> tuple[float, dict]:
    """The fastest of a few runs (the least disturbed by whatever else the machine is doing)."""
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - start)
    return best, result


def api_games(games: int, players: int, seed: int) -> int:
    """Random games through the public API: legal_moves + play + deal, all from Python."""
    rng = random.Random(seed)
    moves = 0
    for g in range(games):
        state = new_game(players, seed=seed + g)
        while state.phase != "over":
            if state.phase == "refill":
                state.deal(seed=rng.getrandbits(63))
            else:
                state.play(rng.choice(state.legal_moves()))
                moves += 1
    return moves


def reference_games(games: int, players: int, seed: int) -> int:
    rng = random.Random(seed)
    moves = 0
    for _ in range(games):
        pos = ref.new_position(players)
        while pos["phase"] != "over":
            if pos["phase"] == "refill":
                pos = ref.deal(pos, _draw(pos, rng))
            else:
                pos = ref.play(pos, rng.choice(ref.legal_moves(pos)))
                moves += 1
    return moves


def _draw(pos: dict, rng: random.Random) -> list[str]:
    """A random deal for the reference, drawn as the rules say (bag, then the recycled lid)."""
    bag, lid = dict(pos["bag"]), dict(pos["lid"])
    factories = []
    for _ in pos["factories"]:
        tiles = ""
        for _ in range(4):
            if not sum(bag.values()):
                bag, lid = lid, dict.fromkeys(lid, 0)
            if not sum(bag.values()):
                break
            colour = rng.choices(list(bag), weights=list(bag.values()))[0]
            bag[colour] -= 1
            tiles += colour
        factories.append(tiles)
    return factories


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer games, for a fast look")
    args = parser.parse_args()
    scale = 0.2 if args.quick else 1.0
    playout_games = int(300_000 * scale)

    print(f"{'what':44} {'games/s':>12} {'moves/s':>14} {'moves/game':>11} {'rounds/game':>12}")
    core_2p = None
    for players, variant in [(2, "colored"), (3, "colored"), (4, "colored"), (2, "gray")]:
        seconds, totals = best_of(3, lambda: random_playouts(playout_games, players=players,
                                                             variant=variant, seed=1))
        rate = totals["games"] / seconds
        if (players, variant) == (2, "colored"):
            core_2p = rate
        print(f"{f'core random_playouts, {players}p {variant}':44} {rate:12,.0f} "
              f"{totals['moves'] / seconds:14,.0f} {totals['moves'] / totals['games']:11.2f} "
              f"{totals['rounds'] / totals['games']:12.2f}")

    api_n = int(2_000 * scale)
    seconds, moves = best_of(3, lambda: api_games(api_n, 2, seed=1))
    api_rate = api_n / seconds
    print(f"{'Python API (legal_moves + play), 2p colored':44} {api_rate:12,.0f} {moves / seconds:14,.0f}")

    ref_n = int(100 * scale) or 20
    seconds, moves = best_of(1, lambda: reference_games(ref_n, 2, seed=1))
    ref_rate = ref_n / seconds
    print(f"{'reference engine (pure Python), 2p colored':44} {ref_rate:12,.0f} {moves / seconds:14,.0f}")

    print()
    print(f"core loop / reference:  {core_2p / ref_rate:10,.0f} x")
    print(f"Python API / reference: {api_rate / ref_rate:10,.1f} x")
    print(f"targets: core loop >= 150,000 games/s ({core_2p:,.0f}); Python API >= 2,000 games/s ({api_rate:,.0f})")


if __name__ == "__main__":
    main()
