"""Engine speed on one core: the compiled playout loop, the Python API, MCTS, and the reference oracle.

    python benchmarks/bench_engine.py                          # about 40 s
    python benchmarks/bench_engine.py --quick                  # about 8 s
    python benchmarks/bench_engine.py --compare-with 79636ae   # also: this engine against the engine
                                                         # of a git revision (or a folder holding a
                                                         # built checkout), timed alternately, as ratios
    python benchmarks/bench_engine.py --stats 1000000          # also: random_playouts' statistics
                                                         # against the pinned uniform-random figures

Every figure comes from one run on one core, so the ratios compare like with like. Times are
this process's CPU time (time.process_time): on a machine shared with other work, wall-clock
time counts the moments the process waited for a core. Pin the run to a core on a busy machine
(taskset -c 1 python benchmarks/bench_engine.py ...).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's packages, installed or not

from engine import new_game, random_playouts  # noqa: E402
from engine import reference as ref  # noqa: E402


SETUPS = [(2, "colored"), (3, "colored"), (4, "colored"), (2, "gray")]

# Uniform random 2-player games on the coloured wall (2,000,000 games of the core at 79636ae):
# plies per game, rounds per game and final points per player. --stats checks the current
# random_playouts against them.
PINNED = {"moves": 70.341, "rounds": 6.597, "points": 2.957}
PINNED_GAMES = 2_000_000


def timed(run) -> tuple[float, object]:
    start = time.process_time()
    result = run()
    return time.process_time() - start, result


def best_of(repeats: int, run) -> tuple[float, dict]:
    """The fastest of a few runs (the least disturbed by whatever else the machine is doing)."""
    times, result = runs_of(repeats, run)
    return min(times), result


def runs_of(repeats: int, run) -> tuple[list[float], object]:
    times, result = [], None
    for _ in range(repeats):
        seconds, result = timed(run)
        times.append(seconds)
    return times, result


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


# --compare-with runs each engine in a child process with its checkout first on sys.path: the
# compiled modules cimport each other under their own names (engine._core, engine._playouts), so
# two engines cannot share one process. The child times each call itself (process CPU time).
WORKER = """
import json, sys, time
from engine import random_playouts
for line in sys.stdin:
    args = json.loads(line)
    start = time.process_time()
    totals = random_playouts(*args)
    print(json.dumps([time.process_time() - start, totals]), flush=True)
"""


class EngineWorker:
    """random_playouts of a checkout (this one, a git revision built once into a cache folder, or
    a folder holding a built checkout), called in a worker process."""

    def __init__(self, where: str):
        folder = Path(where)
        if not folder.is_dir():
            rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", where], check=True,
                                 capture_output=True, text=True).stdout.strip()
            folder = Path(tempfile.gettempdir()) / f"azul-engine-{rev}"
            if not list((folder / "engine").glob("_core.*.so")):
                build_engine(rev, folder)
        if not list((folder / "engine").glob("_core.*")):
            raise SystemExit(f"no built engine in {folder}")
        self.process = subprocess.Popen([sys.executable, "-c", WORKER], cwd=folder, text=True,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        env={**os.environ, "PYTHONPATH": str(folder)})
        self.seconds = 0.0

    def random_playouts(self, games: int, players: int = 2, variant: str = "colored", seed: int = 0) -> dict:
        """The other engine's totals; ``self.seconds``: the CPU time the call took there."""
        self.process.stdin.write(json.dumps([games, players, variant, seed]) + "\n")
        self.process.stdin.flush()
        self.seconds, totals = json.loads(self.process.stdout.readline())
        return totals


def build_engine(rev: str, folder: Path) -> None:
    """Build the engine package of `rev` (its engine/*.pyx, nothing else) in place in `folder`."""
    print(f"building the engine of {rev} into {folder} ...", flush=True)
    folder.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "engine"], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    setup = ("import glob\nfrom Cython.Build import cythonize\nfrom setuptools import Extension, setup\n"
             "setup(ext_modules=cythonize([Extension(p[:-4].replace('/', '.'), [p], "
             "extra_compile_args=['-O3', '-funroll-loops']) for p in sorted(glob.glob('engine/*.pyx'))], "
             "language_level=3, include_path=['.'], quiet=True))\n")
    (folder / "setup.py").write_text(setup)
    subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=folder, check=True,
                   capture_output=True)
    shutil.rmtree(folder / "build", ignore_errors=True)


def compare(other: EngineWorker, label: str, games: int, repeats: int) -> None:
    """This engine against `other`, the two timed alternately on the same games, per setup, each
    in a worker process of its own (alike: a fresh interpreter holding only the engine)."""
    this = EngineWorker(str(ROOT))
    print(f"\nthis core against {label}: {repeats} runs of {games:,} games each, alternating")
    print(f"{'setup':14} {'this games/s':>13} {label + ' games/s':>16} {'x best':>7} {'x median':>9}")
    for players, variant in SETUPS:
        mine, theirs = [], []
        for rep in range(repeats):
            for engine, times in ((this, mine), (other, theirs))[::1 if rep % 2 else -1]:
                engine.random_playouts(games, players=players, variant=variant, seed=rep)
                times.append(engine.seconds)
        print(f"{f'{players}p {variant}':14} {games / min(mine):13,.0f} {games / min(theirs):16,.0f} "
              f"{min(theirs) / min(mine):7.3f} {statistics.median(theirs) / statistics.median(mine):9.3f}")


def playout_statistics(run, games: int, batch: int = 2_000, seed: int = 12345) -> dict:
    """Means and standard errors of plies, rounds and points per player per 2p coloured game,
    from the means of independent batches (random_playouts returns only totals)."""
    per = {"moves": [], "rounds": [], "points": []}
    for b in range(max(1, games // batch)):
        t = run(batch, players=2, variant="colored", seed=seed + b)
        per["moves"].append(t["moves"] / batch)
        per["rounds"].append(t["rounds"] / batch)
        per["points"].append(t["score"] / (2 * batch))
    n = len(per["moves"])
    return {k: (statistics.fmean(v), statistics.stdev(v) / math.sqrt(n) if n > 1 else float("nan"), n * batch)
            for k, v in per.items()}


def show_statistics(games: int, other=None, label: str = "") -> bool:
    """random_playouts against the pinned figures (and against `other` when given): z-scores with
    the standard errors of both sides (the pinned figures' own error scaled from this sample)."""
    print(f"\nuniform random 2p coloured games: this core ({games:,} games) against the pinned figures "
          f"({PINNED_GAMES:,} games)")
    mine = playout_statistics(random_playouts, games)
    theirs = playout_statistics(other.random_playouts, games, seed=777) if other else None
    ok = True
    head = f"{'figure':8} {'this core':>10} {'SE':>7} {'pinned':>8} {'z':>6}"
    print(head + (f" {label:>10} {'SE':>7} {'z (this - it)':>14}" if other else ""))
    for key, (mean, se, n) in mine.items():
        pinned_se = se * math.sqrt(n / PINNED_GAMES)
        z = (mean - PINNED[key]) / math.hypot(se, pinned_se)
        ok &= abs(z) < 3
        line = f"{key:8} {mean:10.4f} {se:7.4f} {PINNED[key]:8.3f} {z:6.2f}"
        if theirs:
            m2, se2, _ = theirs[key]
            z2 = (mean - m2) / math.hypot(se, se2)
            ok &= abs(z2) < 3
            line += f" {m2:10.4f} {se2:7.4f} {z2:14.2f}"
        print(line)
    print(f"within 3 standard errors: {'yes' if ok else 'NO'} (the pinned figures round to 3 decimals)")
    return ok


def mcts_rates(iterations: int, repeats: int) -> dict:
    """MCTS iterations per second from the opening, default settings and random rollouts."""
    import bots.mcts  # noqa: F401  (registers "mcts")
    from bots import make_bot

    state = new_game(2, seed=2024)
    rates = {}
    for label, params in (("default", {}), ("rollout=random, cutoff=game", {"rollout": "random", "cutoff": "game"})):
        bot = make_bot("mcts", seed=1, iterations=iterations, **params)
        bot.act(state)                   # grow the node pool once
        seconds, _ = best_of(repeats, lambda: bot.act(state))
        rates[label] = iterations / seconds
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer games, for a fast look")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per figure (default 5)")
    parser.add_argument("--compare-with", metavar="REV_OR_DIR",
                        help="also time the engine of this git revision (or of a folder holding a built "
                             "checkout) alternately with this one, in a worker process")
    parser.add_argument("--stats", type=int, metavar="GAMES", nargs="?", const=1_000_000,
                        help="also check random_playouts' statistics over GAMES games (default 1,000,000)")
    args = parser.parse_args()
    scale = 0.2 if args.quick else 1.0
    playout_games = int(300_000 * scale)
    repeats = 2 if args.quick else args.repeats
    other = EngineWorker(args.compare_with) if args.compare_with else None
    label = args.compare_with if args.compare_with and not Path(args.compare_with).is_dir() else "other"

    print(f"{'what':40} {'best games/s':>13} {'median':>10} {'moves/s':>13} {'moves/game':>11} {'rounds/game':>12}")
    core_2p = None
    for players, variant in SETUPS:
        times, totals = runs_of(repeats, lambda: random_playouts(playout_games, players=players,
                                                                 variant=variant, seed=1))
        rate = totals["games"] / min(times)
        if (players, variant) == (2, "colored"):
            core_2p = rate
        print(f"{f'core random_playouts, {players}p {variant}':40} {rate:13,.0f} "
              f"{totals['games'] / statistics.median(times):10,.0f} {totals['moves'] / min(times):13,.0f} "
              f"{totals['moves'] / totals['games']:11.2f} {totals['rounds'] / totals['games']:12.2f}")

    api_n = int(2_000 * scale)
    seconds, moves = best_of(3, lambda: api_games(api_n, 2, seed=1))
    api_rate = api_n / seconds
    print(f"{'Python API (legal_moves + play), 2p colored':40} {api_rate:13,.0f} {'':10} {moves / seconds:13,.0f}")

    ref_n = int(100 * scale) or 20
    seconds, moves = best_of(1, lambda: reference_games(ref_n, 2, seed=1))
    ref_rate = ref_n / seconds
    print(f"{'reference engine (pure Python), 2p colored':40} {ref_rate:13,.0f} {'':10} {moves / seconds:13,.0f}")

    iterations = 1_000 if args.quick else 5_000
    print(f"\nMCTS iterations/s from the opening ({iterations:,} per search, best of {repeats}):")
    for what, rate in mcts_rates(iterations, repeats).items():
        print(f"  {what:36} {rate:10,.0f}")

    print()
    print(f"core loop / reference:  {core_2p / ref_rate:10,.0f} x")
    print(f"Python API / reference: {api_rate / ref_rate:10,.1f} x")
    print(f"targets: core loop >= 150,000 games/s ({core_2p:,.0f}); Python API >= 2,000 games/s ({api_rate:,.0f})")

    if other is not None:
        compare(other, label, int(100_000 * scale), max(repeats, 5))
    if args.stats:
        if not show_statistics(args.stats, other, label):
            sys.exit(1)


if __name__ == "__main__":
    main()
