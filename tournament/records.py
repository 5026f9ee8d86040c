"""Game records as Parquet (SPEC section 5): the four tables, their part files, and reading them back.

A run folder ``<out>/<run>/`` holds ``games/``, ``results/``, ``moves/`` and ``rounds/``, each a
folder of part files ``part-NNNNNN.parquet``, plus the resolved ``config.yaml``. A flush writes
part N of every table, each to a hidden temporary name (``.part-NNNNNN.parquet.<pid>-<random>.tmp``,
which readers of the folder skip) and then renamed, in the order moves, rounds, results, games: a game
is recorded once its ``games`` part exists, and a part N of the other tables without a ``games``
part N (a driver killed between two renames) is an orphan that ``--resume`` removes. Every file
that has its final name is complete, so the records read cleanly at every moment.
"""
from __future__ import annotations

import json
import os
import queue
import secrets
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from analysis.parts import (  # noqa: F401 - DamagedRecords and check_run_dir: read here too
    PART, RUN_FILE, DamagedRecords, check_run_dir, part_numbers, saved_run_id)
from analysis.schema import SCHEMAS, STUDY_COLUMNS, TABLES, WRITE_ORDER  # shared with the synthetic runs


_str = pa.string()


class RecordBuffer:
    """Rows of the four tables as Python lists, fast to append to.

    ``columns[table][column]`` is a list per column; moves, the big table, are also taken as
    whole rows (``move_rows``: tuples in schema order without ``run_id``), one append per ply.
    """

    def __init__(self) -> None:
        self.columns = {name: {f.name: [] for f in schema if f.name != "run_id"}
                        for name, schema in SCHEMAS.items()}
        self.columns["games"].update({f.name: [] for f in STUDY_COLUMNS})
        self.move_rows: list[tuple] = []
        self.games = 0

    def to_tables(self, run_id: str) -> dict[str, pa.Table]:
        """The rows as Arrow tables with the record schemas (``run_id`` filled in)."""
        if self.move_rows:
            cols = self.columns["moves"]
            names = [f.name for f in SCHEMAS["moves"] if f.name != "run_id"]
            for key, values in zip(names, zip(*self.move_rows)):
                cols[key].extend(values)
            self.move_rows = []
        out = {}
        for name, schema in SCHEMAS.items():
            cols = self.columns[name]
            n = len(cols["game_id"])
            arrays = [pa.array([run_id] * n, _str) if f.name == "run_id" else pa.array(cols[f.name], f.type)
                      for f in schema]
            out[name] = pa.Table.from_arrays(arrays, schema=schema)
        study = self.columns["games"]
        if any(v is not None for v in study["intervention"]):  # a study's games (analysis/schema.py)
            for f in STUDY_COLUMNS:
                out["games"] = out["games"].append_column(f, pa.array(study[f.name], f.type))
        return out


def empty_tables() -> dict[str, pa.Table]:
    return {name: schema.empty_table() for name, schema in SCHEMAS.items()}


# ---------------------------------------------------------------- the run folder
def table_dir(run_dir: Path, name: str) -> Path:
    return Path(run_dir) / name


def part_path(run_dir: Path, name: str, number: int) -> Path:
    return table_dir(run_dir, name) / f"part-{number:06d}.parquet"


def committed_parts(run_dir: Path) -> list[int]:
    """The part numbers that hold recorded games (those with a ``games`` part), in order."""
    return sorted(part_numbers(run_dir, "games"))


def has_records(run_dir: Path) -> bool:
    return any(part_numbers(run_dir, name) for name in TABLES)


def clean_orphans(run_dir: Path) -> list[Path]:
    """Remove parts not committed by a ``games`` part, and leftover temporary files."""
    committed = set(committed_parts(run_dir))
    removed = []
    for name in TABLES:
        folder = table_dir(run_dir, name)
        if not folder.is_dir():
            continue
        for p in folder.iterdir():
            m = PART.match(p.name)
            if (m and int(m.group(1)) not in committed) or (p.name.startswith(".part-") and p.name.endswith(".tmp")):
                p.unlink()
                removed.append(p)
    return removed


def read_table(run_dir: str | Path, name: str, columns: list[str] | None = None) -> pa.Table:
    """One table of a run: every committed part, concatenated (an empty table if none)."""
    if name not in SCHEMAS:
        raise ValueError(f"no table {name!r} (tables: {', '.join(TABLES)})")
    run_dir = Path(run_dir)
    check_run_dir(run_dir)
    parts = [part_path(run_dir, name, n) for n in committed_parts(run_dir)]
    schema = SCHEMAS[name]
    if columns is not None:
        schema = pa.schema([schema.field(c) for c in columns])
    if not parts:
        return schema.empty_table()
    return pa.concat_tables([pq.read_table(p, columns=columns, schema=schema) for p in parts])


def done_game_ids(run_dir: str | Path) -> set[str]:
    """The ids of the games a run has recorded."""
    return set(read_table(run_dir, "games", ["game_id"]).column("game_id").to_pylist())


def new_run_id(name: str) -> str:
    """A run id no other run shares: the league's name, the UTC time and a random suffix."""
    return f"{name}-{datetime.now(timezone.utc):%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"


def run_id_of(run_dir: str | Path) -> str | None:
    """The folder's run id: its ``run.json``, else (a folder from before run ids were unique) the
    one its records hold; None for a folder with neither."""
    saved = saved_run_id(run_dir)
    if saved is not None:
        return saved
    for n in committed_parts(Path(run_dir)):
        ids = pq.read_table(part_path(Path(run_dir), "games", n), columns=["run_id"]).column("run_id")
        if len(ids):
            return ids[0].as_py()
    return None


def save_run_id(run_dir: Path, run_id: str, referee: str | None = None) -> None:
    """``run.json``: the run's id, and (``referee``) who played its games: ``compiled``, ``python``
    or ``mixed`` (tournament/runner.py)."""
    tmp = run_dir / f".{RUN_FILE}.tmp"
    tmp.write_text(json.dumps({"run_id": run_id, **({"referee": referee} if referee else {})}) + "\n",
                   encoding="utf-8")
    os.replace(tmp, run_dir / RUN_FILE)


FLUSH_GAMES = 5000  # a buffered writer writes a part at least every this many games

# What a task that writes its own part (``ray.write: workers``) hands back to the driver: the
# columns the driver's tally, batch sizing and stop hooks read, not the moves.
RECEIPT_COLUMNS = {"games": ["game_id", "termination", "fault_seat", "duration_s"],
                   "results": ["game_id", "seat", "bot", "score", "rank"]}


@dataclass
class Committed:
    """A part a task wrote and committed itself: its number and its games' receipt columns."""

    part: int
    tables: dict[str, pa.Table]  # RECEIPT_COLUMNS of the part's games and results

    @classmethod
    def of(cls, part: int, tables: dict[str, pa.Table]) -> Committed:
        return cls(part, {name: tables[name].select(cols) for name, cols in RECEIPT_COLUMNS.items()})


def read_committed(run_dir: Path, number: int) -> Committed | None:
    """The receipt of part ``number`` if its ``games`` part is there (committed), else None."""
    if not part_path(run_dir, "games", number).exists():
        return None
    return Committed(number, {name: pq.read_table(part_path(run_dir, name, number), columns=cols,
                                                  schema=pa.schema([SCHEMAS[name].field(c) for c in cols]))
                              for name, cols in RECEIPT_COLUMNS.items()})


class PartWriter:
    """Writes batches of records as numbered part files, all four tables per part."""

    def __init__(self, run_dir: str | Path):
        self.run_dir = Path(run_dir)
        for name in TABLES:
            table_dir(self.run_dir, name).mkdir(parents=True, exist_ok=True)
        existing = set().union(*(part_numbers(self.run_dir, n) for n in TABLES))
        self.next_part = max(existing, default=0) + 1

    def reserve(self) -> int:
        """A part number no other part of this run will have (for a task that writes its own)."""
        number = self.next_part
        self.next_part += 1
        return number

    def write(self, tables: dict[str, Iterable[pa.Table]]) -> int:
        """Write one part of every table (lists of Arrow tables are concatenated); return its number."""
        number = self.reserve()
        write_part(self.run_dir, number, tables)
        return number


def write_part(run_dir: Path, number: int, tables: dict[str, Iterable[pa.Table]]) -> None:
    """Write part ``number`` of every table: each to a temporary name, renamed, ``games`` last."""
    for name in WRITE_ORDER:
        parts = list(tables.get(name, ()))
        table = pa.concat_tables(parts) if parts else SCHEMAS[name].empty_table()
        final = part_path(run_dir, name, number)
        # a name of its own: a retried task may write the same part while the first attempt's
        # process is still going; both write the same games, and either rename commits them
        tmp = final.with_name(f".{final.name}.{os.getpid()}-{secrets.token_hex(3)}.tmp")
        pq.write_table(table, tmp)
        os.replace(tmp, final)


class BufferedWriter:
    """Collects batch results and writes them as one part every few seconds or thousand games.

    Parts are written on a thread of their own, in order, while the driver goes on receiving
    games (Parquet encoding releases the GIL); at most two parts wait, so memory stays bounded.
    ``on_written(games)`` is called from the driver's loop once parts are committed; with it, the
    driver waits for each part it hands over (a hook that stops a league after a part sees
    exactly the games written so far)."""

    def __init__(self, run_dir: Path, flush_seconds: float, on_written):
        self.writer = PartWriter(run_dir)
        self.flush_seconds = flush_seconds
        self.on_written = on_written
        self.buffer: dict[str, list[pa.Table]] = {name: [] for name in SCHEMAS}
        self.games = 0
        self.written = 0  # games committed, as last reported to on_written
        self.committed = 0  # games committed (by the writing thread)
        self.by_tasks = 0  # games in parts the tasks committed themselves (ray.write: workers)
        self.error: BaseException | None = None
        self.jobs: queue.Queue = queue.Queue(maxsize=2)
        self.thread: threading.Thread | None = None
        self.last = time.monotonic()

    def reserve(self) -> int:
        """A part number for a task that writes its own part (ray.write: workers)."""
        return self.writer.reserve()

    def add(self, tables: dict[str, pa.Table], games: int) -> None:
        for name, table in tables.items():
            self.buffer[name].append(table)
        self.games += games

    def maybe_flush(self) -> None:
        if self.games and (self.games >= FLUSH_GAMES or time.monotonic() - self.last >= self.flush_seconds):
            self.flush()
        self._report()

    def flush(self) -> None:
        self.last = time.monotonic()
        if not self.games:
            return
        # Take the buffer first: if a second Ctrl-C comes while the part is written, these games
        # are either committed (their games part was renamed) or left to --resume, never twice.
        buffer, games = self.buffer, self.games
        self.buffer = {name: [] for name in SCHEMAS}
        self.games = 0
        if self.thread is None:
            self.thread = threading.Thread(target=self._work, name="azul-part-writer")
            self.thread.start()
        self.jobs.put((buffer, games))
        if self.on_written:
            self.jobs.join()

    def close(self) -> None:
        """Write what is buffered and wait for every part to be committed (or raise its error)."""
        self.flush()
        if self.thread is not None:
            self.jobs.put(None)
            self.thread.join()
            self.thread = None
        if self.error is not None:
            raise self.error

    def _work(self) -> None:
        while (job := self.jobs.get()) is not None:
            if self.error is None:
                try:
                    self.writer.write(job[0])
                    self.committed += job[1]
                except BaseException as exc:  # raised in the driver: see _report and close
                    self.error = exc
            self.jobs.task_done()

    def _report(self) -> None:
        if self.error is not None:
            raise self.error
        if self.committed + self.by_tasks > self.written:
            self.written = self.committed + self.by_tasks
            if self.on_written:
                self.on_written(self.written)
