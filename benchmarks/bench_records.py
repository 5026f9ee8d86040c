"""What recording a greedy game costs: Parquet writing of the compiled loop's tables, as written now
(dictionary columns, records/parts.py) against the same tables with plain strings (as parts were
written before dictionary columns), interleaved in one run.

    python benchmarks/bench_records.py            # about a minute on 2 cores
    python benchmarks/bench_records.py --games 20000 --repeats 7

Parts of ``--part`` games (the driver's ``FLUSH_GAMES``), built from batches of 500 games as the
driver buffers them; each setting is the best of ``--repeats`` (the least disturbed by whatever
else the machine is doing), in microseconds a game.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's packages, installed or not

import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

from records.columns import SCHEMAS, TABLES, WRITE_ORDER  # noqa: E402
from records.parts import part_path, write_part  # noqa: E402
from tournament.config import parse_config  # noqa: E402
from tournament.fastloop import compiled_plan, play_compiled  # noqa: E402
from tournament.scheduler import league_games  # noqa: E402

BATCH = 500


def greedy_batches(games: int) -> list[dict[str, pa.Table]]:
    config = parse_config({"name": "bench", "players": 2, "deals": games // 2, "seed": 1, "out": "unused",
                           "mlflow": {"enabled": False}, "ray": {"workers": 0},
                           "bots": [{"name": "greedy-a", "type": "greedy", "seed": 1},
                                    {"name": "greedy-b", "type": "greedy", "seed": 2}]}).to_dict()
    plan = compiled_plan(config)
    specs = list(league_games(config))[:games]
    return [play_compiled(plan, specs[i:i + BATCH], "bench-run") for i in range(0, len(specs), BATCH)]


def write_plain(folder: Path, number: int, batches: list[dict[str, pa.Table]]) -> None:
    """A part as written before dictionary columns: plain strings, pyarrow's defaults."""
    for name in WRITE_ORDER:
        pq.write_table(pa.concat_tables([b[name] for b in batches]), part_path(folder, name, number))


def write_coded(folder: Path, number: int, batches: list[dict[str, pa.Table]]) -> None:
    write_part(folder, number, {name: [b[name] for b in batches] for name in TABLES})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--part", type=int, default=5_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    batches = greedy_batches(args.games)
    per_part = max(1, args.part // BATCH)
    parts = [batches[i:i + per_part] for i in range(0, len(batches), per_part)]
    games = sum(b["games"].num_rows for b in batches)
    plain_parts = [[{n: t.cast(SCHEMAS[n]) for n, t in b.items()} for b in part] for part in parts]
    best = {"plain strings": float("inf"), "dictionary columns": float("inf")}
    with tempfile.TemporaryDirectory() as tmp:
        for name in TABLES:
            (Path(tmp) / name).mkdir()
        for _ in range(args.repeats):
            for label, write, chosen in (("plain strings", write_plain, plain_parts),
                                         ("dictionary columns", write_coded, parts)):
                start = time.perf_counter()
                for number, part in enumerate(chosen, start=1):
                    write(Path(tmp), number, part)
                best[label] = min(best[label], time.perf_counter() - start)
    print(f"{games:,} greedy games, parts of {args.part:,}, best of {args.repeats}:")
    for label, seconds in best.items():
        print(f"  Parquet writing, {label}: {seconds / games * 1e6:.1f} us a game")
    print(f"  ratio dictionary / plain: {best['dictionary columns'] / best['plain strings']:.2f}")


if __name__ == "__main__":
    main()
