"""League throughput and driver capacity: the compiled loop against the engine's own speed, what
the driver alone can receive and write, then Ray with 1 and 2 workers, then driver memory.

    python benchmarks/bench_league.py                  # about 9 minutes on 2 cores (quiet ones)
    python benchmarks/bench_league.py --quick          # about 3 minutes: smaller leagues, 100,000-game memory run
    python benchmarks/bench_league.py --referee-only   # the first part only (about 2 minutes)

Every league is 2 players, rotated seats, full records written as Parquet, no MLflow; games/s
counts the playing only (starting and stopping Ray, about 10 s here, is left out). Each setting
is the best of three leagues (two with --quick), the least disturbed by whatever else the machine
is doing. In one run, side by side:

1. ``random_playouts`` (whole random games in C on one core, nothing recorded) in games/s; then
   greedy vs greedy and heuristic vs heuristic leagues with ``--workers 0``, played by the
   compiled loop (tournament/fastloop.py) and with ``--python-referee``, each in games/s and as a
   fraction of random_playouts. Target: greedy vs greedy compiled at least 0.1 (aim 0.25).
2. The driver's receive-and-write capacity: batches played beforehand handed to the driver at
   once, in games/s and move rows/s, and the number of compiled-loop workers that saturate it.
3. Greedy vs greedy through Ray with 1 and 2 workers, parts written by the driver and by the
   workers (``ray.write: workers``). Target: 2 workers at least 1.8 times 1 worker.
4. The driver's peak memory in a 1,000,000-game league (100,000 with --quick) through Ray with
   2 workers writing their own parts (a child process of its own: its peak resident memory is the
   driver's). Target: under 1 GB, flat in the number of games.
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
from records.read import read_table  # noqa: E402
from tournament.runner import run_league  # noqa: E402


def greedy_league(out: Path, name: str, games: int, workers: int, bot: str = "greedy",
                  python_referee: bool = False, batch_games: int | None = None, write: str = "driver"):
    return parse_config({
        "name": name, "players": 2, "variant": "colored", "deals": max(1, games // 2), "seats": "rotate",
        "seed": 1, "out": str(out), "mlflow": {"enabled": False}, "ray": {"workers": workers, "write": write},
        "bots": [{"name": f"{bot}-a", "type": bot, "seed": 1},
                 {"name": f"{bot}-b", "type": bot, "seed": 2}],
        "python_referee": python_referee, "batch_games": batch_games,
    })


def measure(out: Path, name: str, games: int, workers: int, bot: str = "greedy",
            python_referee: bool = False, write: str = "driver", progress=False) -> dict:
    summary = run_league(greedy_league(out, name, games, workers, bot, python_referee, write=write),
                         progress=progress)
    assert summary.complete, summary
    return {"games": summary.played, "play_s": summary.play_s, "games_per_s": summary.played / summary.play_s,
            "elapsed_s": summary.elapsed_s}


def referee_section(out: Path, games: int, repeats: int) -> None:
    """random_playouts on one core, then each league by the compiled loop and the Python referee."""
    from engine import random_playouts

    n = 20 * games
    best = 0.0
    for _ in range(repeats):
        t0 = time.perf_counter()
        random_playouts(n, 2, "colored", 1)
        best = max(best, n / (time.perf_counter() - t0))
    print(f"random_playouts, 2 players, one core: {best:,.0f} games/s", flush=True)
    for bot, scale in (("greedy", 1), ("heuristic", 10)):
        for label, python in (("compiled loop", False), ("--python-referee", True)):
            size = max(200, games // scale // (10 if python else 1))  # each league a few seconds
            runs = [measure(out, f"{bot}-{python}-{i}", size, 0, bot, python) for i in range(repeats)]
            r = max(runs, key=lambda r: r["games_per_s"])
            print(f"  {bot} vs {bot}, --workers 0, {label:<17} {r['games_per_s']:9,.0f} games/s "
                  f"= {r['games_per_s'] / best:.3f} of random_playouts ({r['games']:,} games)", flush=True)
    print("  target: greedy vs greedy compiled at least 0.100 of random_playouts (aim 0.250)", flush=True)


def driver_section(out: Path, games: int, repeats: int) -> float:
    """What the driver alone can receive and write: batches already played (by the compiled loop,
    timed, giving one worker's rate) handed over at once, so play_s is the driver's own work:
    scheduling, accepting, the tally and the Parquet parts. Returns the driver's games/s."""
    import tournament.runner as runner
    from tournament.backends import SerialBackend, play_batch
    from tournament.scheduler import games_of, league_games

    batch = 2000
    worker = {"games": 0, "seconds": 0.0}

    class Replayed(SerialBackend):  # the batches, played before the driver's clock starts
        def __init__(self, config, run_id):
            super().__init__(config, run_id)
            specs = list(league_games(config))
            self.ready = {}
            for i in range(0, len(specs), batch):
                t0 = time.perf_counter()
                self.ready[specs[i].game_id] = play_batch(config, specs[i:i + batch], run_id)
                worker["seconds"] += time.perf_counter() - t0
                worker["games"] += len(specs[i:i + batch])

        def submit(self, batch, part=None, config=None):  # played already: nothing to start
            self.n += 1
            self.queue[self.n] = (batch, part, None)
            return self.n

        def get(self, handle):
            return self.ready[games_of(self.config, self.queue.pop(handle)[0])[0].game_id]

    runner.SerialBackend, before = Replayed, runner.SerialBackend
    try:
        runs = []
        for i in range(repeats):
            summary = run_league(greedy_league(out, f"driver-{i}", games, 0, batch_games=batch), progress=False)
            moves = read_table(summary.run_dir, "moves", ["ply"]).num_rows
            runs.append((summary.played / summary.play_s, moves / summary.play_s))
    finally:
        runner.SerialBackend = before
    games_s, moves_s = max(runs)
    per_worker = worker["games"] / worker["seconds"]
    print(f"driver receive-and-write capacity (greedy vs greedy, {games:,} games, batches of {batch:,}):", flush=True)
    print(f"  {games_s:,.0f} games/s, {moves_s:,.0f} move rows/s; one compiled-loop worker plays "
          f"{per_worker:,.0f} games/s (tables built), so the driver saturates at about "
          f"{games_s / per_worker:.1f} workers", flush=True)
    return games_s


def child_memory(out: str, games: int, workers: int) -> None:
    """Run one league and print the driver's peak resident memory (this process's)."""
    started = time.perf_counter()
    page = os.sysconf("SC_PAGE_SIZE")
    playing = {"peak": 0, "at": []}

    def sample(p) -> None:  # after each batch: the driver's resident memory while it plays
        with open("/proc/self/statm") as f:
            rss = int(f.read().split()[1]) * page / 2**20
        playing["peak"] = max(playing["peak"], rss)
        if p.played >= len(playing["at"]) * games / 4:
            playing["at"].append((p.played, round(rss)))

    result = measure(Path(out), "memory", games, workers, write="workers", progress=sample)
    result["playing_peak_mb"] = playing["peak"]
    result["playing_at"] = playing["at"]
    result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    result["records_mb"] = sum(f.stat().st_size for f in (Path(out) / "memory").rglob("*.parquet")) / 2**20
    result["wall_s"] = time.perf_counter() - started
    print(json.dumps(result))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller leagues")
    parser.add_argument("--games", type=int, help="games of the compiled greedy league (default 100,000; quick "
                        "20,000); the others a tenth or a hundredth of it, Ray's twice it")
    parser.add_argument("--memory-games", type=int, help="games of the memory league (default 1,000,000; quick 100,000)")
    parser.add_argument("--referee-only", action="store_true", help="only the compiled loop and referee part")
    parser.add_argument("--child-memory", nargs=3, metavar=("OUT", "GAMES", "WORKERS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_memory:
        child_memory(args.child_memory[0], int(args.child_memory[1]), int(args.child_memory[2]))
        return
    games = args.games or (20000 if args.quick else 100000)
    repeats = 2 if args.quick else 3
    memory_games = args.memory_games or (100000 if args.quick else 1000000)
    with tempfile.TemporaryDirectory(prefix="league-bench-") as tmp:
        out = Path(tmp)
        referee_section(out, games, repeats)
        if args.referee_only:
            return
        driver_section(out, games, repeats)
        ray_games = 2 * games  # long enough for the batches to settle at their size
        print(f"greedy vs greedy through Ray (compiled loop), {ray_games:,} games per league, on {os.cpu_count()} CPUs",
              flush=True)
        rows = {}
        for workers in (1, 2):
            start_local_ray(workers)  # one Ray of `workers` CPUs for the repeats
            for write in ("driver", "workers"):
                runs = [measure(out, f"w{workers}-{write}-{i}", ray_games, workers, write=write)
                        for i in range(repeats)]
                rows[workers, write] = r = max(runs, key=lambda r: r["games_per_s"])
                print(f"  Ray, {workers} worker{'s' if workers > 1 else ' '}, parts written by the {write:<8} "
                      f"{r['games_per_s']:8,.0f} games/s  ({r['games']:,} games in {r['play_s']:.1f} s)", flush=True)
            import ray
            ray.shutdown()
        for write in ("driver", "workers"):
            print(f"  2 workers / 1 worker, parts written by the {write}: "
                  f"{rows[2, write]['games_per_s'] / rows[1, write]['games_per_s']:.2f} (target at least 1.80)")
        print(f"driver memory, a {memory_games:,}-game league through Ray with 2 workers writing their parts:",
              flush=True)
        child = subprocess.run([sys.executable, __file__, "--child-memory", str(out / "mem"), str(memory_games), "2"],
                               capture_output=True, text=True, cwd=ROOT)
        if child.returncode != 0:
            print(child.stdout, child.stderr)
            raise SystemExit(1)
        mem = json.loads(child.stdout.strip().splitlines()[-1])
        print(f"  driver RSS while playing: peak {mem['playing_peak_mb']:,.0f} MB (target under 1,024 MB); "
              + ", ".join(f"{mb:,} MB at {n:,} games" for n, mb in mem["playing_at"]), flush=True)
        print(f"  peak with the final standings (Elo fit over every game): {mem['peak_rss_mb']:,.0f} MB; "
              f"{mem['games']:,} games at {mem['games_per_s']:,.0f} games/s; "
              f"records {mem['records_mb']:,.0f} MB of Parquet")


if __name__ == "__main__":
    main()
