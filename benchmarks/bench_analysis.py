"""Time and peak memory of the full analysis report over a synthetic league.

    python benchmarks/bench_analysis.py                      # 1,000,000 games: about 1 minute on 2 quiet cores
    python benchmarks/bench_analysis.py --games 100000       # a quicker look
    python benchmarks/bench_analysis.py --dir /tmp/bench --keep   # keep (and later reuse) the records

Writes a synthetic 2-player league straight to Parquet (``analysis.synthetic_records``: four bots,
all four tables, about 70 moves a game; no play needed) and times that on its own. Then runs
``analysis.report.build_report`` (the HTML report, elo.csv and summary.md, 200 bootstrap
resamples) in a fresh Python process, and reports its wall time (from starting the process to
its end, imports included), the time inside ``build_report``, the child's CPU time (user + system:
on a busy machine the wall time grows, the CPU time much less), and its peak resident memory
(``VmHWM``, the child's own; its ``ru_maxrss`` would also count this process's peak while it
generated the records, which a child started by vfork inherits). The time of each stage comes
from wrapping the report's steps by name in that child (the ones it has: reading, ratings,
statistics, strategy queries, figures, writing; each wrapped wherever an analysis module
imported it); the rest is listed as other. Targets: under 30 s and under 2 GB on 2 cores
(docs/analysis.md, Speed, has the measured figures).

The records are written under a new folder in /tmp (or ``--dir``) and deleted at the end unless
``--keep``; a ``--dir`` that already holds the run from an earlier ``--keep`` is reused, not
regenerated, and not deleted.
"""
from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's packages, installed or not

TARGET_S, TARGET_GB = 30.0, 2.0
# (module attribute, stage, nested in an earlier stage) wrapped in the child to time the report's steps
STAGES = [
    ("analysis.report.read_records", "read games+results", False),
    ("analysis.ratings.rate_by_players", "ratings (fit + bootstrap)", False),
    ("analysis.stats.standings", "standings", False),
    ("analysis.stats.crosstable", "crosstable", False),
    ("analysis.stats.seat_advantage", "seat advantage", False),
    ("analysis.openings.opening_table", "openings (moves)", False),
    ("analysis.marker.marker_summary", "marker summary (moves, rounds)", False),
    ("analysis.marker.marker_timing", "marker timing", False),
    ("analysis.marker.marker_effect", "marker effect", False),
    ("analysis.plots.to_svg", "figures (to SVG)", False),
    ("analysis.report.write_report", "render + write files", False),
]


def child(run_dir: str, out_dir: str, bootstrap: int) -> None:
    """Build the report once, timing the stages; print one JSON line."""
    import importlib

    times: dict[str, float] = {}

    def timed(func, label):
        def wrapper(*args, **kwargs):
            started = time.perf_counter()
            try:
                return func(*args, **kwargs)
            finally:
                times[label] = times.get(label, 0.0) + time.perf_counter() - started
        return wrapper

    report = importlib.import_module("analysis.report")  # and with it every section
    for path, label, _ in STAGES:
        module_name, attr = path.rsplit(".", 1)
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        func = getattr(module, attr, None)
        if func is None:
            continue
        wrapped = timed(func, label)
        for name, loaded in list(sys.modules.items()):  # also where it is imported by name
            if name.split(".")[0] == "analysis" and getattr(loaded, attr, None) is func:
                setattr(loaded, attr, wrapped)
    started = time.perf_counter()
    files = report.build_report(run_dir, out_dir, bootstrap=bootstrap, seed=0)
    total = time.perf_counter() - started
    print(json.dumps({"build_s": total, "stages": times, "peak_rss_mb": peak_mb(),
                      "files": {name: Path(p).stat().st_size for name, p in files.items()}}))


def peak_mb() -> float:
    """This process's peak resident memory in MB: ``VmHWM`` where Linux has it (this process's
    own), else ``ru_maxrss``."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def records_size(run_dir: Path) -> dict[str, float]:
    """MB on disk of each table's Parquet parts."""
    return {name: sum(p.stat().st_size for p in (run_dir / name).glob("*.parquet")) / 2**20
            for name in ("games", "results", "moves", "rounds")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000, help="games in the league (even)")
    parser.add_argument("--dir", type=Path, help="folder for the records (default: a new one in /tmp)")
    parser.add_argument("--keep", action="store_true", help="keep the records (and the report)")
    parser.add_argument("--bootstrap", type=int, default=200, help="bootstrap resamples of the report")
    parser.add_argument("--child", nargs=2, metavar=("RUN_DIR", "OUT_DIR"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child, args.bootstrap)
        return
    if args.games < 2 or args.games % 2:
        parser.error(f"--games must be even and at least 2 (got {args.games})")

    from analysis.synthetic_records import write_synthetic_run

    base = args.dir if args.dir is not None else Path(tempfile.mkdtemp(prefix="azul-bench-", dir="/tmp"))
    run_dir = base / f"synthetic-{args.games}"
    out_dir = base / f"report-{args.games}"
    created = not any((run_dir / "games").glob("*.parquet"))
    try:
        if created:
            started = time.perf_counter()
            write_synthetic_run(run_dir, args.games, seed=1)
            gen_s = time.perf_counter() - started
            gen_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(f"generate  {args.games:,} games: {gen_s:6.1f} s "
                  f"({args.games / gen_s:,.0f} games/s), peak memory {gen_mb:,.0f} MB")
        else:
            print(f"generate  reusing the records in {run_dir}")
        sizes = records_size(run_dir)
        print("records   " + ", ".join(f"{k} {v:,.1f} MB" for k, v in sizes.items())
              + f"; total {sum(sizes.values()):,.1f} MB on disk")

        started = time.perf_counter()
        proc = subprocess.run([sys.executable, __file__, "--bootstrap", str(args.bootstrap),
                               "--child", str(run_dir), str(out_dir)],
                              capture_output=True, text=True, cwd=ROOT)
        wall = time.perf_counter() - started
        if proc.returncode != 0:
            sys.exit(f"error: the report failed:\n{proc.stderr[-3000:]}")
        result = json.loads(proc.stdout.strip().splitlines()[-1])
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        peak_gb = result["peak_rss_mb"] / 1024
        print(f"report    {wall:6.1f} s wall in a fresh process (build_report {result['build_s']:.1f} s, "
              f"CPU {usage.ru_utime + usage.ru_stime:.1f} s), peak memory {peak_gb:.2f} GB")
        stages = result["stages"]
        nested = {label for _, label, inner in STAGES if inner}
        for _, label, inner in STAGES:
            if label in stages:
                print(f"  {'  ' * inner}{label:<{30 - 2 * inner}} {stages[label]:6.1f} s")
        rest = result["build_s"] - sum(v for k, v in stages.items() if k not in nested)
        print(f"  {'other':<30} {max(rest, 0.0):6.1f} s")
        print(f"target    time  < {TARGET_S:.0f} s: {'met' if wall < TARGET_S else 'MISSED'} ({wall:.1f} s)")
        print(f"target    memory < {TARGET_GB:.0f} GB: {'met' if peak_gb < TARGET_GB else 'MISSED'} "
              f"({peak_gb:.2f} GB)")
        print("files     " + ", ".join(f"{k} {v / 1024:,.1f} KB" for k, v in result["files"].items()))
    finally:
        if args.keep:
            print(f"kept      {run_dir} and {out_dir}")
        else:
            shutil.rmtree(out_dir, ignore_errors=True)
            if created:
                shutil.rmtree(run_dir, ignore_errors=True)
            if args.dir is None:
                shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
