"""League throughput and driver memory: serial in one process, then through Ray with 1 and 2 workers.

    python benchmarks/bench_league.py                  # about 4 minutes on 2 cores (quiet ones)
    python benchmarks/bench_league.py --quick          # about 1.5 minutes: smaller leagues, 20,000-game memory run

Every league is greedy against greedy (two greedy bots with their own seeds), 2 players, rotated
seats, full records written as Parquet, no MLflow. games/s counts the playing only: starting and
stopping Ray is left out (it costs about 10 s here). Each setting is the best of three leagues
(one Ray for the three), the least disturbed by whatever else the machine is doing. Targets: Ray with 1
worker within 10% of the serial loop; 2 workers at least 1.7 times 1 worker; the driver's peak
memory under 1 GB for a 100,000-game league (measured in a child process of its own, whose peak
resident memory is the driver's).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's packages, installed or not

from tournament.config import parse_config  # noqa: E402
from tournament.backends import start_local_ray  # noqa: E402
from tournament.runner import run_league  # noqa: E402


def greedy_league(out: Path, name: str, games: int, workers: int):
    return parse_config({
        "name": name, "players": 2, "variant": "colored", "deals": max(1, games // 2), "seats": "rotate",
        "seed": 1, "out": str(out), "mlflow": {"enabled": False}, "ray": {"workers": workers},
        "bots": [{"name": "greedy-a", "type": "greedy", "seed": 1},
                 {"name": "greedy-b", "type": "greedy", "seed": 2}],
    })


def measure(out: Path, name: str, games: int, workers: int) -> dict:
    summary = run_league(greedy_league(out, name, games, workers), progress=False)
    assert summary.complete, summary
    return {"games": summary.played, "play_s": summary.play_s, "games_per_s": summary.played / summary.play_s,
            "elapsed_s": summary.elapsed_s}


def child_memory(out: str, games: int, workers: int) -> None:
    """Run one league and print the driver's peak resident memory (this process's)."""
    started = time.perf_counter()
    result = measure(Path(out), "memory", games, workers)
    result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    result["records_mb"] = sum(f.stat().st_size for f in (Path(out) / "memory").rglob("*.parquet")) / 2**20
    result["wall_s"] = time.perf_counter() - started
    print(json.dumps(result))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller leagues")
    parser.add_argument("--games", type=int, help="games per throughput league (default 20,000; quick 5,000)")
    parser.add_argument("--memory-games", type=int, help="games of the memory league (default 100,000; quick 20,000)")
    parser.add_argument("--child-memory", nargs=3, metavar=("OUT", "GAMES", "WORKERS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_memory:
        child_memory(args.child_memory[0], int(args.child_memory[1]), int(args.child_memory[2]))
        return
    games = args.games or (5000 if args.quick else 20000)
    repeats = 2 if args.quick else 3
    memory_games = args.memory_games or (20000 if args.quick else 100000)
    print(f"greedy vs greedy, {games:,} games per league, on {os.cpu_count()} CPUs", flush=True)
    with tempfile.TemporaryDirectory(prefix="league-bench-") as tmp:
        out = Path(tmp)
        rows = {}
        for label, workers in (("serial, one process, no Ray", 0), ("Ray, 1 worker", 1), ("Ray, 2 workers", 2)):
            if workers:
                start_local_ray(workers)  # one Ray of `workers` CPUs for the repeats
            runs = [measure(out, f"w{workers}-{i}", games, workers) for i in range(repeats)]
            if workers:
                import ray
                ray.shutdown()
            rows[label] = max(runs, key=lambda r: r["games_per_s"])
            print(f"  {label:<30} {rows[label]['games_per_s']:8,.0f} games/s  "
                  f"({rows[label]['games']:,} games in {rows[label]['play_s']:.1f} s)", flush=True)
        serial, one, two = (rows[k]["games_per_s"] for k in rows)
        print(f"  Ray 1 worker / serial: {one / serial:.2f} (target at least 0.90)")
        print(f"  Ray 2 workers / 1 worker: {two / one:.2f} (target at least 1.70)", flush=True)
        print(f"driver memory, a {memory_games:,}-game league through Ray with 2 workers:", flush=True)
        child = subprocess.run([sys.executable, __file__, "--child-memory", str(out / "mem"), str(memory_games), "2"],
                               capture_output=True, text=True, cwd=ROOT)
        if child.returncode != 0:
            print(child.stdout, child.stderr)
            raise SystemExit(1)
        mem = json.loads(child.stdout.strip().splitlines()[-1])
        print(f"  peak driver RSS {mem['peak_rss_mb']:,.0f} MB (target under 1,024 MB); "
              f"{mem['games']:,} games at {mem['games_per_s']:,.0f} games/s; "
              f"records {mem['records_mb']:,.0f} MB of Parquet")


if __name__ == "__main__":
    main()
