"""The part files of a run folder and their commit protocol (SPEC section 5).

A run folder ``<out>/<run>/`` holds ``games/``, ``results/``, ``moves/`` and ``rounds/``, each a
folder of part files ``part-NNNNNN.parquet`` (the driver's) or ``part-NNNNNN-TTTTTTTT.parquet`` (a
task's, ``ray.write: workers``: ``TTTTTTTT`` is the token of the driver that reserved the number, so
a task of a killed driver that commits late never takes the name of a part a resumed driver
reserved). A part is named by its id, the name between ``part-`` and ``.parquet`` (an int N is the
id ``NNNNNN``). ``write_part`` writes part N of every table, each to
a hidden temporary name (``.part-NNNNNN.parquet.<pid>-<random>.tmp``, which readers of the folder
skip) and then renamed, in the order moves, rounds, results, games: a game is recorded once its
``games`` part exists, and a part N of the other tables without a ``games`` part N (a writer
killed between two renames) is an orphan that ``clean_orphans`` removes. Every file that has its
final name is complete, so the records read cleanly at every moment.

Parts are written without an Arrow schema in their metadata: a dictionary column
(records/columns.py) is then a plain Parquet string column, read back as a string by every reader,
exactly as the parts written before dictionary columns were.
"""
from __future__ import annotations

import os
import re
import secrets
from collections.abc import Iterable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from .columns import TABLES, WRITE_ORDER
from .interface import RunStore
from .names import SIDE_TABLES
from .tables import empty_table

PART = re.compile(r"^part-((\d{6})(?:-[0-9a-f]{8})?)\.parquet$")  # a part file's name: its id, number


def part_name(part: int | str) -> str:
    """The file name of part ``part``: a number (the driver's parts) or an id (``NNNNNN-TTTTTTTT``)."""
    return f"part-{part:06d}.parquet" if isinstance(part, int) else f"part-{part}.parquet"


def part_path(folder: Path, name: str, part: int | str) -> Path:
    return Path(folder) / name / part_name(part)


def parquet_files(folder: Path, name: str) -> list[Path]:
    """The ``*.parquet`` files of one table's folder, as a folder reader sees them (sorted)."""
    table_dir = Path(folder) / name
    return sorted(table_dir.glob("*.parquet")) if table_dir.is_dir() else []


def part_ids(folder: Path, name: str) -> set[str]:
    """The ids of one table's parts (``NNNNNN`` or ``NNNNNN-TTTTTTTT``; in order when sorted)."""
    return {m.group(1) for p in parquet_files(folder, name) if (m := PART.match(p.name))}


def all_part_ids(folder: Path) -> set[str]:
    """The ids of every part of every table there, committed or not (the tables' folders made)."""
    for name in TABLES:
        (Path(folder) / name).mkdir(parents=True, exist_ok=True)
    return set().union(*(part_ids(folder, name) for name in TABLES))


def committed_parts(folder: Path) -> list[str]:
    """The ids of the parts that hold recorded games (those with a ``games`` part), in order."""
    return sorted(part_ids(folder, "games"))


def has_records(folder: Path) -> bool:
    return any(part_ids(folder, name) for name in TABLES)


def clean_orphans(folder: Path) -> list[Path]:
    """Remove parts not committed by a ``games`` part, and leftover temporary files; in the side
    tables (records/side.py: each part committed by its own link), the temporary files of writers
    that are gone (a live one, which takes no lock, is left to finish)."""
    committed = set(committed_parts(folder))
    removed = []
    for name in (*TABLES, *SIDE_TABLES):
        table_dir = Path(folder) / name
        if not table_dir.is_dir():
            continue
        for p in table_dir.iterdir():
            m = PART.match(p.name)
            temporary = p.name.startswith(".part-") and p.name.endswith(".tmp")
            if name in SIDE_TABLES:
                gone = temporary and not _writer_alive(p.name)
            else:
                gone = (m and m.group(1) not in committed) or temporary
            if gone:
                p.unlink(missing_ok=True)
                removed.append(p)
    return removed


def _writer_alive(tmp_name: str) -> bool:
    """Whether the process that writes the temporary file ``tmp_name`` (``.NAME.<pid>-<random>.tmp``)
    is still running on this host."""
    try:
        pid = int(tmp_name.rsplit(".", 2)[-2].split("-", 1)[0])
        os.kill(pid, 0)
    except (ValueError, IndexError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True


def write_file(table: pa.Table, final: Path) -> None:
    """Write ``table`` at ``final`` as Parquet: under a temporary name of its own, then renamed.

    The name is the writer's own: a retried task may write the same part while the first
    attempt's process is still going; both write the same games, and either rename commits them."""
    tmp = final.with_name(f".{final.name}.{os.getpid()}-{secrets.token_hex(3)}.tmp")
    _write_parquet(table, tmp)
    os.replace(tmp, final)


def _write_parquet(table: pa.Table, where) -> None:
    """``table`` as a part's Parquet at ``where`` (a path or an Arrow stream)."""
    if any(pa.types.is_dictionary(t) for t in table.schema.types):
        table = table.unify_dictionaries()  # one dictionary a column: Parquet writes it as it is
    # a CRC32 of every page: damage inside a page (the footer intact) is found by the readers that
    # verify them (repair, --resume, naming a damaged part: records.checks.read_verified)
    pq.write_table(table, where, store_schema=False, write_page_checksum=True)


def part_bytes(table: pa.Table) -> bytes:
    """``table`` as the bytes of a part file (what ``write_file`` writes; a store without rename
    uploads them)."""
    sink = pa.BufferOutputStream()
    _write_parquet(table, sink)
    return sink.getvalue().to_pybytes()


def part_tables(tables: dict[str, Iterable[pa.Table]]) -> dict[str, pa.Table]:
    """A part's four tables, in ``WRITE_ORDER`` (lists concatenated; a table not given: empty)."""
    out = {}
    for name in WRITE_ORDER:
        parts = list(tables.get(name, ()))
        out[name] = pa.concat_tables(parts) if parts else empty_table(name)
    return out


def write_part(folder: Path, number: int | str, tables: dict[str, Iterable[pa.Table]]) -> None:
    """Write part ``number`` (a number or an id) of every table (lists of tables are concatenated; a table not given
    is written empty), ``games`` last."""
    for name, table in part_tables(tables).items():
        write_file(table, part_path(folder, name, number))


class PartWriter:
    """Writes batches of records as numbered part files, all four tables per part."""

    def __init__(self, run: RunStore):
        """``run``: the run's store (a path or URL is opened), whose parts it writes."""
        store = RunStore(run)
        existing, self._write = store.part_ids(), store.write_part
        self.next_part = max((int(p[:6]) for p in existing), default=0) + 1
        self.token = secrets.token_hex(4)  # this writer's, in the ids of the parts its tasks write

    def reserve(self) -> int:
        """A part number no other part this writer writes will have."""
        number = self.next_part
        self.next_part += 1
        return number

    def reserve_for_task(self) -> str:
        """A part id for a task that writes its own part: a number reserved here and this writer's
        token, so no part of another driver of the run (one killed before, whose tasks may still
        commit) has it."""
        return f"{self.reserve():06d}-{self.token}"

    def write(self, tables: dict[str, Iterable[pa.Table]]) -> int:
        """Write one part of every table (lists of Arrow tables are concatenated); return its number."""
        number = self.reserve()
        self._write(number, tables)
        return number
