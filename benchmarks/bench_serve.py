"""``azul serve`` over a large run: page load times, the server's peak memory, and the delay from a
committed part to an open page showing it.

    python benchmarks/bench_serve.py                           # 1,000,000 games (as bench_analysis.py)
    python benchmarks/bench_serve.py --games 100000            # a quicker look
    python benchmarks/bench_serve.py --dir /tmp/bench          # reuse bench_analysis.py --keep's records

Writes (or reuses) a synthetic 2-player run of ``--games`` games (``analysis.synthetic_records``,
the records bench_analysis.py reports on: ``<dir>/synthetic-<games>``), then starts the real
command, ``azul serve <dir> --port 0``, in its own process and opens its pages in headless
Chromium (the tests' set-up, tests/browser_support.py). Each page's load time is the browser's
Navigation Timing (``loadEventEnd``, from the request's start), the first load (the server reads
the records) and the median of ``--repeat`` loads after it (the run unchanged: its data kept).
The server's peak memory is its own ``VmHWM`` after every page. Then a second, small run is
served while its page is open, a part committed into it at a time (the four tables' files, the
``games`` part last, renamed into place as the driver commits); the delay is from that rename to
the page showing the new count, read in the page every 20 ms. Without Chromium, the load times
are the HTTP answers' (urllib) and the delay is not measured.

The records are deleted at the end unless ``--keep``, or unless ``--dir`` held them already.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's packages, installed or not
sys.path.insert(0, str(ROOT / "tests"))  # the browser set-up the tests use

LIVE_GAMES, LIVE_PART = 400, 40  # the small run committed part by part


def server_peak_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def start_server(folder: Path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "azul_cli", "serve", str(folder), "--port", "0"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    match = re.search(r"on (http://[^ ]+)/ ", line)
    if match is None:
        proc.kill()
        sys.exit(f"error: azul serve did not start: {line}{proc.stderr.read()[-2000:]}")
    base = match.group(1)
    for _ in range(600):
        try:
            urllib.request.urlopen(base + "/api/index", timeout=600).read()  # noqa: S310 - our own server
            return proc, base
        except OSError:
            time.sleep(0.1)
    sys.exit("error: azul serve did not answer")


def navigation_ms(driver, url: str) -> float:
    driver.get(url)
    timing = driver.execute_script("var t = performance.getEntriesByType('navigation')[0]; "
                                   "return [t.startTime, t.responseStart, t.loadEventEnd];")
    return timing[2] - timing[0]


def http_ms(url: str) -> float:
    started = time.perf_counter()
    urllib.request.urlopen(url, timeout=600).read()  # noqa: S310 - our own server
    return (time.perf_counter() - started) * 1000


def commit_copy(src: Path, dst: Path, part: Path) -> float:
    """Copy one part of ``src`` into ``dst`` as a driver commits one: the other tables' files
    first, then ``games`` under a temporary name, renamed into place; the time of the rename."""
    for table in ("moves", "results", "rounds"):
        shutil.copy2(src / table / part.name, dst / table / part.name)
    tmp = dst / "games" / f".{part.name}.tmp"
    shutil.copy2(part, tmp)
    os.replace(tmp, dst / "games" / part.name)
    return time.monotonic()


def live_delay(driver, base: str, folder: Path) -> list[float]:
    """Seconds from each committed part to the open run page showing its games."""
    from analysis.synthetic_records import write_synthetic_run
    from records.parts import parquet_files

    src = write_synthetic_run(folder / "live-source", LIVE_GAMES, seed=2, part_games=LIVE_PART, run_id="live")
    dst = folder / "served" / "live"
    for table in ("games", "moves", "results", "rounds"):
        (dst / table).mkdir(parents=True)
    parts = parquet_files(src, "games")
    commit_copy(src, dst, parts[0])
    driver.get(f"{base}/run/{folder.name}/served/live")
    shown = "return parseInt(document.getElementById('summary').dataset.recorded)"
    delays = []
    for k, part in enumerate(parts[1:], start=2):
        time.sleep(1.3)  # a page between two of its polls, not in step with them
        committed = commit_copy(src, dst, part)
        while driver.execute_script(shown) != k * LIVE_PART:
            if time.monotonic() - committed > 60:
                sys.exit(f"error: the page did not show part {k} within 60 s")
            time.sleep(0.02)
        delays.append(time.monotonic() - committed)
    return delays


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000, help="games in the large run (even)")
    parser.add_argument("--dir", type=Path, help="folder of the records (default: a new one in /tmp)")
    parser.add_argument("--repeat", type=int, default=5, help="page loads after the first, for the median")
    parser.add_argument("--keep", action="store_true", help="keep the records")
    args = parser.parse_args()
    from analysis.synthetic_records import write_synthetic_run

    base_dir = args.dir if args.dir is not None else Path(tempfile.mkdtemp(prefix="azul-bench-serve-", dir="/tmp"))
    run_dir = base_dir / f"synthetic-{args.games}"
    made = not (run_dir / "games").is_dir()
    if made:
        started = time.perf_counter()
        write_synthetic_run(run_dir, args.games, seed=1)
        print(f"generate  {args.games:,} games in {time.perf_counter() - started:.1f} s: {run_dir}")
    else:
        print(f"generate  reusing {run_dir}")
    served = base_dir / "serve-bench"
    shutil.rmtree(served, ignore_errors=True)
    (served / "served").mkdir(parents=True)
    shutil.move(str(run_dir), served / "served" / "big")  # served from inside (a symlink out is refused); back at the end
    driver = profile = proc = None
    try:
        from browser_support import NoBrowser, start_chromium

        try:
            driver, profile = start_chromium()
        except NoBrowser as exc:
            print(f"browser   none ({exc}): HTTP times instead of Navigation Timing, no live delay")
        proc, base = start_server(served)
        how = "Navigation Timing (loadEventEnd)" if driver else "HTTP answer"
        for page in ("/", f"/run/{served.name}/served/big"):
            load = (lambda url: navigation_ms(driver, url)) if driver else http_ms
            first = load(base + page)
            again = [load(base + page) for _ in range(args.repeat)]
            print(f"page      {page:<32} first {first:8.0f} ms, then median {statistics.median(again):6.0f} ms "
                  f"of {args.repeat} ({how}); server peak {server_peak_mb(proc.pid):,.0f} MB")
        data = json.loads(urllib.request.urlopen(f"{base}/api/run/{served.name}/served/big", timeout=600).read())  # noqa: S310
        print(f"run       {data['recorded']:,} games shown; errors: {data['errors'] or 'none'}")
        if driver is not None:
            delays = live_delay(driver, base, served)
            print(f"live      {len(delays)} parts committed: delay to the page median {statistics.median(delays):.2f} s, "
                  f"max {max(delays):.2f} s (the page asks every 1 s)")
        print(f"memory    the server's peak: {server_peak_mb(proc.pid):,.0f} MB over a {args.games:,}-game run")
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(30)
        if driver is not None:
            driver.quit()
            shutil.rmtree(profile, ignore_errors=True)
        if (served / "served" / "big").is_dir():
            shutil.move(str(served / "served" / "big"), run_dir)
        shutil.rmtree(served, ignore_errors=True)
        if made and not args.keep and args.dir is None:
            shutil.rmtree(base_dir, ignore_errors=True)
        elif made and not args.keep:
            shutil.rmtree(run_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
