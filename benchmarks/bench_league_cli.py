"""The league as users run it: ``azul league run`` through the command line, beside the same league
through the library (``run_league``) and beside ``random_playouts``, all in one run, interleaved.

    python benchmarks/bench_league_cli.py                        # 100,000 greedy games, best of three
    python benchmarks/bench_league_cli.py --compare-with 1c18aae # the same, and that revision's tree

Each repeat runs, one after the other: ``random_playouts`` on one core (nothing recorded); the
league through the CLI (``--workers 0 --no-mlflow --no-report -q``) in a process of its own; the
same config through ``tournament.runner.run_league`` in a process of its own; and, with
``--compare-with REV``, REV's CLI on the same config (REV's tree is checked out into a cache
folder and built in place once). Every league is greedy against greedy, 2 players, rotated seats,
full records. Games/s counts the playing only (the ``play_s`` both report). The best of the
repeats is the figure least disturbed by the rest of a shared machine; the fractions of
random_playouts and the ratios are taken between bests of the same run.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(tempfile.gettempdir()) / "azul-bench-trees"
RATE = re.compile(r"games played (?:by the [\w ]+ )?in [\d.,]+ s \(([\d,.]+) games/s\)")

LIBRARY = """
import json, sys
from tournament.config import load_config
from tournament.runner import run_league
league = load_config(sys.argv[1]).with_overrides(out=sys.argv[2], workers=0, mlflow=False)
summary = run_league(league, fresh=True)
assert summary.complete, summary
print(json.dumps({"games_per_s": summary.played / summary.play_s}))
"""


def write_config(folder: Path, games: int) -> Path:
    path = folder / "greedy.yaml"
    path.write_text(json.dumps({  # JSON is YAML
        "name": "greedy", "players": 2, "variant": "colored", "deals": max(1, games // 2), "seats": "rotate",
        "seed": 1, "mlflow": {"enabled": False},
        "bots": [{"name": "greedy-a", "type": "greedy", "seed": 1}, {"name": "greedy-b", "type": "greedy", "seed": 2}],
    }))
    return path


def tree_of(rev: str) -> Path:
    """REV's tree, checked out and built in place once (a detached git worktree in the cache)."""
    sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", f"{rev}^{{commit}}"], check=True,
                         capture_output=True, text=True).stdout.strip()
    tree = CACHE / sha[:12]
    if not (tree / ".built").exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        if not tree.exists():
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), sha], check=True,
                           capture_output=True)
        print(f"building {rev} in {tree} ...", flush=True)
        subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace", "-q"], cwd=tree, check=True,
                       capture_output=True)
        (tree / ".built").touch()
    return tree


def run_in(tree: Path, args: list[str]) -> str:
    env = dict(os.environ, PYTHONPATH=str(tree))
    done = subprocess.run([sys.executable, *args], cwd=tree, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{' '.join(args[:4])} in {tree} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def cli_rate(tree: Path, config: Path, out: Path) -> float:
    text = run_in(tree, ["-m", "azul_cli", "league", "run", str(config), "--out", str(out), "--workers", "0",
                         "--no-mlflow", "--no-report", "-q", "--fresh"])
    found = RATE.search(text.replace("\n", " "))
    if not found:
        raise SystemExit(f"no rate in the CLI's output:\n{text}")
    return float(found.group(1).replace(",", ""))


def library_rate(tree: Path, config: Path, out: Path) -> float:
    return json.loads(run_in(tree, ["-c", LIBRARY, str(config), str(out)]).strip().splitlines()[-1])["games_per_s"]


def playouts_rate(games: int) -> float:
    sys.path.insert(0, str(ROOT))
    from engine import random_playouts
    n = 20 * games
    t0 = time.perf_counter()
    random_playouts(n, 2, "colored", 1)
    return n / (time.perf_counter() - t0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000, help="games per league (default 100,000)")
    parser.add_argument("--repeats", type=int, default=3, help="repeats, interleaved (default 3)")
    parser.add_argument("--compare-with", metavar="REV", help="also run REV's CLI on the same league")
    args = parser.parse_args()
    other = tree_of(args.compare_with) if args.compare_with else None
    figures: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        config = write_config(Path(tmp), args.games)
        for i in range(args.repeats):
            row = {"random_playouts": playouts_rate(args.games),
                   "CLI": cli_rate(ROOT, config, Path(tmp) / "cli"),
                   "library": library_rate(ROOT, config, Path(tmp) / "lib")}
            if other is not None:
                row[f"CLI at {args.compare_with}"] = cli_rate(other, config, Path(tmp) / "other")
            print(f"repeat {i + 1}: " + ", ".join(f"{k} {v:,.0f}" for k, v in row.items()), flush=True)
            for key, value in row.items():
                figures.setdefault(key, []).append(value)
    best = {key: max(values) for key, values in figures.items()}
    print(f"\n{args.games:,} greedy games, --workers 0, best of {args.repeats} (games/s):")
    for key, value in best.items():
        fraction = "" if key == "random_playouts" else f"  {value / best['random_playouts']:.3f} x random_playouts"
        print(f"  {key:<24} {value:>11,.0f}{fraction}")
    print(f"  CLI / library: {best['CLI'] / best['library']:.3f}")
    if other is not None:
        print(f"  CLI / CLI at {args.compare_with}: {best['CLI'] / best[f'CLI at {args.compare_with}']:.3f}")
    print("target: the CLI at least 0.1 x random_playouts")


if __name__ == "__main__":
    main()
