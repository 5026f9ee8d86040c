"""Writing a run's parts as games come: ``BufferedWriter`` (the driver's parts, written on a
thread of their own) and ``Committed`` (the receipt of a part a task wrote itself).
"""
from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.parquet as pq

from .columns import SCHEMAS, TABLES
from .interface import RunStore
from .parts import PartWriter

FLUSH_GAMES = 5000  # a buffered writer writes a part at least every this many games

# What a task that writes its own part (``ray.write: workers``) hands back to the driver: the
# columns the driver's tally, batch sizing and stop hooks read, not the moves.
RECEIPT_COLUMNS = {"games": ["game_id", "termination", "fault_seat", "duration_s"],
                   "results": ["game_id", "seat", "bot", "score", "rank"]}


@dataclass
class Committed:
    """A part a task wrote and committed itself: its number and its games' receipt columns."""

    part: int | str  # its id (records.parts)
    tables: dict[str, pa.Table]  # RECEIPT_COLUMNS of the part's games and results

    @classmethod
    def of(cls, part: int | str, tables: dict[str, pa.Table]) -> Committed:
        return cls(part, {name: tables[name].select(cols) for name, cols in RECEIPT_COLUMNS.items()})


def read_committed(run: RunStore, number: int | str) -> Committed | None:
    """The receipt of part ``number`` of the run (its store; a path or URL is opened) if it is
    committed (a folder: its ``games`` part is there; a run on object storage: its commit), else None."""
    source = RunStore(run).part_source(number)
    if source is None:
        return None
    return Committed(number, {name: pq.read_table(source(name), columns=cols,
                                                  schema=pa.schema([SCHEMAS[name].field(c) for c in cols]))
                              for name, cols in RECEIPT_COLUMNS.items()})


class BufferedWriter:
    """Collects batch results and writes them as one part every few seconds or thousand games.

    Parts are written on a thread of their own, in order, while the driver goes on receiving
    games (Parquet encoding releases the GIL); at most two parts wait, so memory stays bounded.
    ``on_written(games)`` is called from the driver's loop once parts are committed; with it, the
    driver waits for each part it hands over (a hook that stops a league after a part sees
    exactly the games written so far)."""

    def __init__(self, run: RunStore, flush_seconds: float, on_written):
        self.writer = PartWriter(run)
        self.flush_seconds = flush_seconds
        self.on_written = on_written
        self.buffer: dict[str, list[pa.Table]] = {name: [] for name in TABLES}
        self.games = 0
        self.written = 0  # games committed, as last reported to on_written
        self.committed = 0  # games committed (by the writing thread)
        self.by_tasks = 0  # games in parts the tasks committed themselves (ray.write: workers)
        self.error: BaseException | None = None
        self.jobs: queue.Queue = queue.Queue(maxsize=2)
        self.thread: threading.Thread | None = None
        self.last = time.monotonic()

    def reserve(self) -> str:
        """A part id for a task that writes its own part (ray.write: workers)."""
        return self.writer.reserve_for_task()

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
        self.buffer = {name: [] for name in TABLES}
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
