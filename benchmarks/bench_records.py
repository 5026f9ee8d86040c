"""What recording a greedy game costs: Parquet writing of the compiled loop's tables, as written now
(dictionary columns and the pages' CRC32 checksums, records/parts.py) against the same tables
without the checksums and with plain strings (as parts were written before), and reading them back
with and without verifying the checksums, interleaved in one run.

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
                                    {"name": "greedy-b", "type": "greedy", "seed": 2}]})
    plan = compiled_plan(config)
    specs = list(league_games(config))[:games]
    return [play_compiled(plan, specs[i:i + BATCH], "bench-run") for i in range(0, len(specs), BATCH)]


def write_plain(folder: Path, number: int, batches: list[dict[str, pa.Table]]) -> None:
    """A part as written before dictionary columns: plain strings, pyarrow's defaults."""
    for name in WRITE_ORDER:
        pq.write_table(pa.concat_tables([b[name] for b in batches]), part_path(folder, name, number))


def write_coded(folder: Path, number: int, batches: list[dict[str, pa.Table]]) -> None:
    write_part(folder, number, {name: [b[name] for b in batches] for name in TABLES})


def write_coded_unchecked(folder: Path, number: int, batches: list[dict[str, pa.Table]]) -> None:
    """``write_coded`` without the pages' CRC32 checksums (as parts were written before them)."""
    import records.parts as parts

    write_table = parts.pq.write_table
    parts.pq.write_table = lambda *a, **k: write_table(*a, **{**k, "write_page_checksum": False})
    try:
        write_coded(folder, number, batches)
    finally:
        parts.pq.write_table = write_table


def read_all(folder: Path, numbers: range, verify: bool) -> None:
    for number in numbers:
        for name in TABLES:
            pq.read_table(part_path(folder, name, number), page_checksum_verification=verify)


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
    settings = (("plain strings", write_plain, plain_parts),
                ("dictionary columns, no page checksums", write_coded_unchecked, parts),
                ("dictionary columns, page checksums (as written now)", write_coded, parts))
    best = {label: float("inf") for label, _, _ in settings}
    reads = {"read, checksums not verified": float("inf"), "read, checksums verified (repair, resume)": float("inf")}
    with tempfile.TemporaryDirectory() as tmp:
        for name in TABLES:
            (Path(tmp) / name).mkdir()
        for _ in range(args.repeats):
            for label, write, chosen in settings:
                start = time.perf_counter()
                for number, part in enumerate(chosen, start=1):
                    write(Path(tmp), number, part)
                best[label] = min(best[label], time.perf_counter() - start)
            for label, verify in zip(reads, (False, True)):  # the parts as written now (the last setting)
                start = time.perf_counter()
                read_all(Path(tmp), range(1, len(parts) + 1), verify)
                reads[label] = min(reads[label], time.perf_counter() - start)
    print(f"{games:,} greedy games, parts of {args.part:,}, best of {args.repeats}:")
    for label, seconds in {**best, **reads}.items():
        print(f"  Parquet {'writing, ' if label in best else ''}{label}: {seconds / games * 1e6:.1f} us a game")
    coded, unchecked = best[settings[2][0]], best[settings[1][0]]
    print(f"  ratio dictionary / plain: {coded / best['plain strings']:.2f}; "
          f"page checksums: writing x{coded / unchecked:.2f}, "
          f"reading x{reads['read, checksums verified (repair, resume)'] / reads['read, checksums not verified']:.2f}")


if __name__ == "__main__":
    main()
