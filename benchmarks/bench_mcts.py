"""MCTS search speed on one core: iterations per second from the opening and from a mid-game
2-player position, for the default settings, each rollout policy and cut-off, and each evaluator.

    python benchmarks/bench_mcts.py                      # about 15 s, searches of 5,000 iterations
    python benchmarks/bench_mcts.py --iterations 50000   # deeper trees (shorter rollouts): faster
    python benchmarks/bench_mcts.py --quick              # about 3 s
    python benchmarks/bench_mcts.py --compare-with 1c18aae   # this checkout against the search of a
                                                         # git revision (or of a folder holding a
                                                         # checkout built in place), alternately
    python benchmarks/bench_mcts.py --compare-with 1c18aae --only default --repeats 25
                                                         # one setting, more searches: less noise

The target is at least 50,000 iterations/s with the default settings (5,000 iterations per move)
from both positions.

With ``--compare-with`` both searches run in worker processes (this file with ``--worker
FOLDER``, importing that folder's packages), asked in turn for each timed search, and the times
are each worker's CPU time (time.process_time), so a busy machine slows both alike. A revision is
built once (its own setup.py, in place) into a cache folder beside the system's temporary files.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# this checkout's packages, installed or not; a --worker measures those of the folder it names
CODE = sys.argv[sys.argv.index("--worker") + 1] if "--worker" in sys.argv[:-1] else str(ROOT)
sys.path.insert(0, CODE)

from bots import bot_parameters, make_bot  # noqa: E402
from engine import GameState, new_game  # noqa: E402

TARGET = 50_000
DEFAULTS = {name: p.default for name, p in bot_parameters("mcts").items()}
SETTINGS = [
    ("default", {}),
    ("rollout=random", {"rollout": "random", "cutoff": "round"}),
    ("rollout=greedy", {"rollout": "greedy", "cutoff": "round"}),
    ("rollout=heuristic", {"rollout": "heuristic", "cutoff": "round"}),
    ("random, cutoff=game", {"rollout": "random", "cutoff": "game"}),
    ("greedy, cutoff=game", {"rollout": "greedy", "cutoff": "game"}),
    ("evaluator=score", {"evaluator": "score"}),
    ("evaluator=value", {"evaluator": "value"}),
]


def opening() -> GameState:
    return new_game(2, seed=2024)


def mid_game() -> GameState:
    """Round 3 of a 2-player game, six moves in (random moves from fixed seeds)."""
    rng = random.Random(7)
    state = new_game(2, seed=7)
    moves = 0
    while not (state.round == 3 and moves == 6):
        if state.phase == "refill":
            state.deal(seed=rng.getrandbits(32))
            moves = 0
        else:
            state.play(rng.choice(state.legal_moves()))
            moves += 1
    return state


POSITIONS = {"opening": opening, "mid-game": mid_game}


def rate(state: GameState, params: dict, iterations: int, repeats: int) -> float:
    """Iterations per second: the best of a few searches of `iterations` each."""
    bot = make_bot("mcts", seed=1, iterations=iterations, **params)
    bot.act(state)                       # grow the node pool once
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        bot.act(state)
        best = min(best, time.perf_counter() - start)
    assert bot._search.iterations_done == iterations
    return iterations / best


# ---------------------------------------------------------------- --compare-with
def worker() -> None:
    """Answer requests on stdin, one JSON line each ([setting label, position name, iterations]),
    with the CPU seconds of one search of those settings (null: settings this code cannot take)."""
    settings, states, bots = dict(SETTINGS), {}, {}
    for line in sys.stdin:
        label, where, iterations = json.loads(line)
        key = (label, where, iterations)
        if key not in bots:
            states.setdefault(where, POSITIONS[where]())
            try:
                bots[key] = make_bot("mcts", seed=1, iterations=iterations, **settings[label])
            except ValueError:
                bots[key] = None
            else:
                bots[key].act(states[where])          # grow the node pool once
        seconds = None
        if bots[key] is not None:
            start = time.process_time()
            bots[key].act(states[where])
            seconds = time.process_time() - start
            assert bots[key]._search.iterations_done == iterations
        print(json.dumps(seconds), flush=True)


def checkout(where: str) -> Path:
    """A folder holding a checkout built in place: `where` itself, or a git revision's tree built
    once into a cache folder."""
    if Path(where).is_dir():
        return Path(where)
    rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", where], check=True,
                         capture_output=True, text=True).stdout.strip()
    folder = Path(tempfile.gettempdir()) / f"azul-checkout-{rev}"
    if not (folder / "built").exists():
        print(f"building {rev} into {folder} ...", flush=True)
        folder.mkdir(parents=True, exist_ok=True)
        tree = subprocess.run(["git", "-C", str(ROOT), "archive", rev], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(folder)], input=tree, check=True)
        subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace", "-q"], cwd=folder,
                       check=True, capture_output=True)
        (folder / "built").touch()
    return folder


def compare(other: str, settings: list, iterations: int, repeats: int) -> None:
    """This checkout's search against `other`'s, each timed search asked of the two in turn."""
    folder = checkout(other)
    other = folder.name if Path(other).is_dir() else other
    workers = {name: subprocess.Popen([sys.executable, __file__, "--worker", str(code)],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
               for name, code in (("this", ROOT), (other, folder))}

    def ask(name: str, request: list) -> float | None:
        workers[name].stdin.write(json.dumps(request) + "\n")
        workers[name].stdin.flush()
        return json.loads(workers[name].stdout.readline())

    print(f"MCTS iterations/s on one core, this checkout against {other}: {iterations} iterations "
          f"per search, best of {repeats}, asked alternately (CPU time of each worker); x: this "
          f"checkout's speed over {other}'s, of the best and of the median searches")
    print(f"{'settings':<22} {'position':<9} {'this':>10} {other:>10} {'x best':>7} {'x median':>9}")
    for label, _ in settings:
        for where in POSITIONS:
            times = {name: [] for name in workers}
            for r in range(repeats + 1):              # the first search of each grows its pool
                for name in (list(workers) if r % 2 else list(workers)[::-1]):
                    times[name].append(ask(name, [label, where, iterations]))
            best = {name: None if None in t else min(t[1:]) for name, t in times.items()}
            rates = [f"{iterations / b:10,.0f}" if b else f"{'-':>10}" for b in best.values()]
            ratios = f"{'-':>7} {'-':>9}"
            if None not in best.values():
                median = {name: statistics.median(t[1:]) for name, t in times.items()}
                ratios = f"{best[other] / best['this']:7.3f} {median[other] / median['this']:9.3f}"
            print(f"{label:<22} {where:<9} {rates[0]} {rates[1]} {ratios}")
    for process in workers.values():
        process.stdin.close()
        process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer iterations and repeats")
    parser.add_argument("--iterations", type=int, default=DEFAULTS["iterations"],
                        help="iterations per search (default: the bot's default)")
    parser.add_argument("--repeats", type=int, default=5, help="timed searches per figure (default 5)")
    parser.add_argument("--compare-with", metavar="REV_OR_DIR",
                        help="time this checkout's search against a git revision's (or a folder's, "
                             "holding a checkout built in place), alternately")
    parser.add_argument("--only", metavar="TEXT", default="",
                        help="only the settings whose label holds TEXT (e.g. heuristic)")
    parser.add_argument("--worker", metavar="DIR", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker()
    iterations = args.iterations
    repeats = 1 if args.quick else args.repeats
    settings = [(label, params) for label, params in SETTINGS if args.only in label]
    if args.compare_with:
        return compare(args.compare_with, settings, iterations, repeats)
    positions = {name: build() for name, build in POSITIONS.items()}
    shown = ", ".join(f"{k}={v}" for k, v in DEFAULTS.items()
                      if k not in ("seconds", "iterations", "max_nodes"))
    print(f"MCTS iterations/s on one core, {iterations} iterations per search, best of {repeats}")
    print(f"defaults: {shown}")
    print(f"{'settings':<22}" + "".join(f"{name:>14}" for name in positions))
    failed = False
    for label, params in settings:
        rates = [rate(state, params, iterations, repeats) for state in positions.values()]
        print(f"{label:<22}" + "".join(f"{r:>14,.0f}" for r in rates))
        if label == "default":
            failed = min(rates) < TARGET
    print(f"target: {TARGET:,} iterations/s with the default settings: {'MISSED' if failed else 'met'}")


if __name__ == "__main__":
    main()
